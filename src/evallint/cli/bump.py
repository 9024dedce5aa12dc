"""`evallint bump`: raise the versions the version rules ask to raise, touching only those scalars.

Edits are made on the text, at the spans the parser found, so comments, quoting, key order and
line endings stay exactly as they were.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from evallint.baseline import Baseline
from evallint.config import Config
from evallint.engine import index
from evallint.engine.run import base_project
from evallint.io.source import Source
from evallint.model import Pointer
from evallint.parse import Document
from evallint.project import Entry, Project
from evallint.read import read_entry
from evallint.rules.api import Context
from evallint.rules.versions import verdict

BUMPED = ("version-not-bumped", "version-bump-too-small")


@dataclass(frozen=True, slots=True)
class Edit:
    path: str
    pointer: Pointer
    old: str
    new: str


def bump(
    paths: Sequence[str],
    tree: Sequence[str],
    source: Source,
    root: Path,
    config: Config,
    baseline: Baseline,
    *,
    update_refs: bool,
) -> list[str]:
    entries = [e for e in (read_entry(p, source, config) for p in paths) if isinstance(e, Entry)]
    indexed = index.build(entries, list(tree), source, config, also=baseline.entries)
    base = base_project(indexed.project, baseline)
    edits: list[Edit] = []
    for entry in entries:
        ctx = Context(entry.kind, config, indexed.project, datetime.date.today(), baseline, base)
        found = verdict(entry.doc, ctx)
        if found is not None and found.rule in BUMPED and found.bump_to is not None:
            old = entry.doc.data["version"]
            edits.append(Edit(entry.doc.path, ("version",), old, str(found.bump_to)))
    moved = {(e, _ref_prefix(indexed.project, e)) for e in edits}
    if update_refs:
        edits += _pin_edits(moved, tree, source, config)
    return _apply(edits, indexed.project, source, config, root)


def _ref_prefix(project: Project, edit: Edit) -> str:
    entry = project.entries.get(edit.path)
    if entry is None or not entry.kind.namespace or not entry.kind.defines:
        return ""
    found = entry.kind.defines(entry.doc.data)
    return f"{entry.kind.namespace}/{found[0]}@" if found else ""


def _pin_edits(
    moved: set[tuple[Edit, str]], tree: Sequence[str], source: Source, config: Config
) -> list[Edit]:
    """Exact pins on a version that no longer exists now point at the version it became."""
    targets = {prefix + e.old: prefix + e.new for e, prefix in moved if prefix}
    out = []
    leaves = getattr(source, "outside", None)
    for path in tree:
        if leaves is not None and leaves(path):
            continue  # never read, let alone rewrite, a file outside the project
        try:
            raw = source.read(path)
        except OSError:
            continue
        if not any(old.encode() in raw for old in targets):
            continue
        entry = read_entry(path, source, config)
        if not isinstance(entry, Entry) or entry.kind.references is None or not entry.doc.ok:
            continue
        for pointer, text in entry.kind.references(entry.doc.data):
            if text in targets:
                out.append(Edit(path, pointer, text, targets[text]))
    return out


def _apply(
    edits: list[Edit], project: Project, source: Source, config: Config, root: Path
) -> list[str]:
    done = []
    leaves = getattr(source, "outside", None)
    for path in sorted({e.path for e in edits}):
        if leaves is not None and leaves(path):
            continue
        entry = project.entries.get(path)
        doc = entry.doc if entry else None
        if doc is None:
            found = read_entry(path, source, config)
            doc = found.doc if isinstance(found, Entry) else None
        if doc is None:
            continue
        mine = [e for e in edits if e.path == path]
        text = _rewrite(doc, mine)
        raw = source.read(path)
        bom = "\ufeff" if raw.startswith(b"\xef\xbb\xbf") else ""
        (root / path).write_bytes((bom + text).encode("utf-8"))
        done += [f"{path}:{doc.locate(e.pointer).line}: {e.old} → {e.new}" for e in mine]
    return done


def _rewrite(doc: Document, edits: list[Edit]) -> str:
    smap = doc.source_map()
    assert smap is not None
    spans = []
    for edit in edits:
        span = smap.values[edit.pointer]
        start = smap.lines.offset(span.line, span.column)
        end = smap.lines.offset(span.end_line, span.end_column)
        spans.append((start, end, edit))
    text = doc.text
    for start, end, edit in sorted(spans, key=lambda s: s[0], reverse=True):
        raw = text[start:end]
        inner = raw.find(edit.old)
        if inner < 0:
            continue  # written with escapes: leave it for a person
        text = text[:start] + raw[:inner] + edit.new + raw[inner + len(edit.old) :] + text[end:]
    return text
