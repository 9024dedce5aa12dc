"""The pipeline: read and classify, index the project, run rules, place findings, sort."""

from __future__ import annotations

import datetime
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from evallint import index
from evallint.config import Config
from evallint.kinds import Kind
from evallint.load import Skipped, Source, read_entry
from evallint.model import Diagnostic, Finding, Location, Report, Severity
from evallint.parse import Document
from evallint.project import Entry, Project
from evallint.rules import ALL_RULES
from evallint.rules.base import Rule
from evallint.schemas import SchemaError, validate
from evallint.schemawalk import ObjectKeys, unknown_keys


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
    indexed = index.build(entries, list(tree), source, config)
    for entry in entries:
        check_entry(entry, indexed.project, run, cross_file_only=False)
    for entry in indexed.affected:
        check_entry(entry, indexed.project, run, cross_file_only=True)
    run.diagnostics.sort(key=Diagnostic.sort_key)
    return Report(
        tuple(run.diagnostics), checked, time.perf_counter() - started, tuple(run.skipped)
    )


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
