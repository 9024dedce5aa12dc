"""The pipeline: read and classify, index the project, run rules, place findings, sort."""

from __future__ import annotations

import datetime
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from evallint.config import Config
from evallint.kinds import KINDS, Kind, content_kind, declared_kind, path_kind
from evallint.model import Diagnostic, Finding, Location, Report, Severity, Span
from evallint.parse import Document, format_of, parse
from evallint.project import Entry, Project
from evallint.rules import ALL_RULES
from evallint.rules.base import Rule
from evallint.schemas import SchemaError, validate
from evallint.schemawalk import ObjectKeys, unknown_keys


class Source(Protocol):
    """Where file bytes come from: the working tree, or a git revision."""

    def size(self, path: str) -> int: ...

    def read(self, path: str) -> bytes: ...


@dataclass(frozen=True, slots=True)
class Context:
    """What a rule may know besides its document."""

    kind: Kind
    config: Config
    project: Project
    today: datetime.date

    def schema_errors(self, doc: Document) -> list[SchemaError]:
        if "schema" not in doc.memo:
            doc.memo["schema"] = validate(self.kind.schema, doc.data) if self.kind.schema else []
        return doc.memo["schema"]  # type: ignore[no-any-return]

    def object_keys(self, doc: Document) -> list[ObjectKeys]:
        if "keys" not in doc.memo:
            doc.memo["keys"] = unknown_keys(self.kind.schema, doc.data) if self.kind.schema else []
        return doc.memo["keys"]  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class Skipped:
    path: str
    reason: str


@dataclass(slots=True)
class Run:
    config: Config
    active: list[tuple[Rule, Severity]]
    today: datetime.date
    diagnostics: list[Diagnostic] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def lint(
    paths: Sequence[str],
    source: Source,
    config: Config,
    *,
    tree: Iterable[str] = (),
    today: datetime.date | None = None,
    rules: Sequence[Rule] = ALL_RULES,
) -> Report:
    """Lint `paths`; `tree` lists the rest of the project, read only for cross-file facts."""
    started = time.perf_counter()
    run = Run(config, config.active_rules(rules), today or datetime.date.today())
    entries = []
    for path in paths:
        found = read_entry(path, source, config)
        if isinstance(found, Skipped):
            run.skipped.append(f"{found.path}: {found.reason}")
        elif isinstance(found, Diagnostic):
            run.diagnostics.append(found)
        else:
            entries.append(found)
    checked = len(entries) + sum(1 for d in run.diagnostics if d.rule == "parse-error")
    linted = {e.doc.path for e in entries}
    extra = index_entries([p for p in tree if p not in linted], source, config, entries)
    project = Project([*entries, *extra])
    for entry in entries:
        check_entry(entry, project, run, cross_file_only=False)
    for entry in affected(extra, entries, project):
        check_entry(entry, project, run, cross_file_only=True)
    run.diagnostics.sort(key=Diagnostic.sort_key)
    return Report(
        tuple(run.diagnostics), checked, time.perf_counter() - started, tuple(run.skipped)
    )


def read_entry(path: str, source: Source, config: Config) -> Entry | Skipped | Diagnostic:
    fmt = format_of(path)
    if fmt is None:
        return Skipped(path, "not YAML, JSON or JSONL")
    forced = config.kind_for(path)
    size = source.size(path)
    if size > config.max_file_size:
        if (forced or path_kind(path, fmt)) is None:
            return Skipped(path, f"{size:,} bytes, over max-file-size")
        message = (
            f"file is {size:,} bytes, over the {config.max_file_size:,}-byte limit (max-file-size)"
        )
        return Diagnostic(path, Span(1, 1, 1, 2), "parse-error", Severity.ERROR, message)
    doc = parse(path, source.read(path), fmt)
    kind = forced or declared_kind(doc.text, doc.data) or path_kind(path, fmt)
    if kind is None and doc.ok:
        kind = content_kind(doc.data, fmt)
    if kind is None:
        reason = "not readable, and no kind claims it" if not doc.ok else "no kind matches"
        return Skipped(path, reason)
    return Entry(doc, kind)


def index_entries(
    paths: Sequence[str], source: Source, config: Config, linted: Sequence[Entry]
) -> list[Entry]:
    """Files outside the run that define something, or refer to what the run defines.

    Only files whose path, or whose bytes, could make them matter are parsed, so a partial run
    does not pay for parsing the whole tree.
    """
    wanted = _referred_needles(linted)
    definers = [k for k in KINDS if k.defines is not None]
    out = []
    for path in paths:
        fmt = format_of(path)
        if fmt is None:
            continue
        by_path = config.kind_for(path) or path_kind(path, fmt)
        if by_path is None or by_path.defines is None:
            try:
                if source.size(path) > config.max_file_size:
                    continue
                raw = source.read(path)
            except OSError:
                continue
            if not (
                any(all(n in raw for n in k.needles) for k in definers)
                or any(n in raw for n in wanted)
            ):
                continue
        found = read_entry(path, source, config)
        if isinstance(found, Entry):
            out.append(found)
    return out


def _referred_needles(entries: Sequence[Entry]) -> list[bytes]:
    """`rubric/<id>` for each id the run defines: the bytes a file referring to it contains."""
    needles = []
    for entry in entries:
        kind, data = entry.kind, entry.doc.data
        found = kind.defines(data) if kind.defines and entry.doc.ok else None
        if found and kind.namespace:
            needles.append(f"{kind.namespace}/{found[0]}".encode())
    return needles


def affected(extra: Sequence[Entry], linted: Sequence[Entry], project: Project) -> list[Entry]:
    """Files outside the run whose cross-file findings the run's files can change."""
    defined = {
        (e.kind.namespace, e.kind.defines(e.doc.data)[0])  # type: ignore[index]
        for e in linted
        if e.kind.namespace and e.kind.defines and e.doc.ok and e.kind.defines(e.doc.data)
    }
    if not defined:
        return []
    out = []
    for entry in extra:
        refs = {(r.namespace, r.id) for _, _, r in project.references(entry) if r is not None}
        own = entry.kind.defines(entry.doc.data) if entry.kind.defines and entry.doc.ok else None
        if refs & defined or (own and (entry.kind.namespace, own[0]) in defined):
            out.append(entry)
    return out


def check_entry(entry: Entry, project: Project, run: Run, *, cross_file_only: bool) -> None:
    doc, kind = entry.doc, entry.kind
    levels = {r.id: level for r, level in run.active}
    if not cross_file_only:
        run.diagnostics.extend(
            Diagnostic(doc.path, p.span, p.rule, levels[p.rule], p.message)
            for p in doc.problems
            if p.rule in levels
        )
    if not doc.ok:
        return
    ctx = Context(kind, run.config, project, run.today)
    for rule, level in run.active:
        if rule.check is None or not rule.applies_to(kind.name):
            continue
        if cross_file_only and not rule.cross_file:
            continue
        run.diagnostics.extend(place(doc, f, rule.id, level, project) for f in rule.check(doc, ctx))


def place(
    doc: Document, finding: Finding, rule_id: str, level: Severity, project: Project
) -> Diagnostic:
    """A symbolic finding becomes a diagnostic at an exact position."""
    if finding.within is not None:
        span = doc.locate_within(finding.pointer, *finding.within)
    else:
        span = doc.locate(finding.pointer, on_key=finding.on_key)
    related = []
    for path, pointer, note in finding.related:
        other = doc if path in (None, doc.path) else project.document(path)
        if other is not None:
            related.append(Location(other.path, other.locate(pointer), note))
    return Diagnostic(doc.path, span, rule_id, level, finding.message, tuple(related))
