"""The project index: every eval file of the tree, parsed once, shared by cross-file rules."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import semver

from evallint.facts import Facts
from evallint.kinds import Kind
from evallint.model import Pointer
from evallint.parse import Document
from evallint.refs import Outcome, Ref, parse_ref, parse_version, pick


@dataclass(frozen=True, slots=True)
class Definition:
    namespace: str
    id: str
    version: semver.Version
    path: str
    doc: Document

    @property
    def label(self) -> str:
        return f"{self.id}@{self.version}"


@dataclass(frozen=True, slots=True)
class Resolution:
    ref: Ref
    outcome: Outcome
    target: Definition | None


@dataclass(frozen=True, slots=True)
class Rest:
    """Where a JSONL file read in chunks goes on after the entry's document."""

    offset: int  # bytes
    lines: int  # lines before it


@dataclass(frozen=True, slots=True)
class Entry:
    doc: Document
    kind: Kind
    rest: Rest | None = None  # a large JSONL file: its document is the first chunk


class Project:
    def __init__(self, entries: Iterable[Entry], *, ordered: bool = False) -> None:
        """`ordered`: the entries are already in the order to keep (a copy of a project)."""
        self.entries: dict[str, Entry] = {}
        self.defs: dict[tuple[str, str], list[Definition]] = {}
        self._resolved: dict[Ref, Resolution] = {}
        # (namespace, id) -> (path, version as written) of definitions whose version is not
        # semver: nothing can resolve to them, and a reference's message says why.
        self.unversioned: dict[tuple[str, str], list[tuple[str, object]]] = {}
        self.facts = Facts()  # what rules work out once per project
        for entry in entries if ordered else sorted(entries, key=lambda e: e.doc.path):
            self.add(entry)

    def add(self, entry: Entry) -> None:
        self.entries[entry.doc.path] = entry
        if not entry.doc.ok or entry.kind.defines is None:
            return
        found = entry.kind.defines(entry.doc.data)
        version = parse_version(found[1]) if found else None
        if not found:
            return
        ns = entry.kind.namespace or entry.kind.name
        key = (ns, found[0])
        if version is None:
            data = entry.doc.data
            written = data.get("version") if isinstance(data, dict) else found[1]
            self.unversioned.setdefault(key, []).append((entry.doc.path, written))
            return
        self.defs.setdefault(key, []).append(
            Definition(ns, found[0], version, entry.doc.path, entry.doc)
        )

    def document(self, path: str) -> Document | None:
        entry = self.entries.get(path)
        return entry.doc if entry else None

    def ids(self, namespace: str) -> list[str]:
        return sorted(i for ns, i in self.defs if ns == namespace)

    def versions(self, namespace: str, ident: str) -> list[Definition]:
        return self.defs.get((namespace, ident), [])

    def resolve(self, ref: Ref) -> Resolution:
        found = self._resolved.get(ref)
        if found is None:
            found = self._resolved[ref] = self._resolve(ref)
        return found

    def _resolve(self, ref: Ref) -> Resolution:
        defs = self.versions(ref.namespace, ref.id)
        if not defs:
            return Resolution(ref, "unknown-id", None)
        outcome, version = pick(ref.pin, [d.version for d in defs])
        target = next(
            (d for d in defs if version is not None and d.version.compare(version) == 0), None
        )
        return Resolution(ref, outcome, target)

    def references(self, entry: Entry) -> Iterator[tuple[Pointer, str, Ref | None]]:
        if not entry.doc.ok or entry.kind.references is None:
            return
        for pointer, text in entry.kind.references(entry.doc.data):
            yield pointer, text, parse_ref(text)
