"""The pipeline: read and classify, index the project, run rules, place findings, sort."""

from __future__ import annotations

import contextlib
import datetime
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from evallint import index, workers
from evallint.baseline import Baseline
from evallint.checking import check_entry
from evallint.config import Config
from evallint.kinds import Kind
from evallint.load import Scan, Source, read_entry, scan
from evallint.model import JSON, Diagnostic, Pointer, Report, Severity, Skipped
from evallint.parse import Document
from evallint.project import Entry, Project
from evallint.rules import ALL_RULES
from evallint.rules.base import Rule, Scope
from evallint.schemas import SchemaError, expect_many, validate
from evallint.schemawalk import ObjectKeys, unknown_keys


def _never(path: str) -> bool:
    return False


class Others:
    """Other files of the project, for rules that check a file against its companions.

    Only listed files inside the project are read, each at most once.
    """

    def __init__(
        self, source: Source, config: Config, listed: frozenset[str], outside: Callable[[str], bool]
    ) -> None:
        self.source, self.config, self.listed, self.outside = source, config, listed, outside
        self._docs: dict[str, Document | None] = {}
        self._scans: dict[str, Scan | None] = {}

    def scan(self, path: str) -> Scan | None:
        """A listed file's digests and records, read in blocks: memory stays flat."""
        if path not in self._scans:
            self._scans[path] = None
            if path in self.listed and not self.outside(path):
                with contextlib.suppress(OSError):  # unreadable: no facts, as if absent
                    self._scans[path] = scan(self.source, path)
        return self._scans[path]

    def load(self, path: str) -> Document | None:
        if path not in self._docs:
            found = (
                read_entry(path, self.source, self.config)
                if path in self.listed and not self.outside(path)
                else None
            )
            self._docs[path] = found.doc if isinstance(found, Entry) else None
        return self._docs[path]


_At = TypeVar("_At", bound=SchemaError | ObjectKeys)  # a finding of a unit, at a pointer
_T = TypeVar("_T")


def _memo(doc: Document, key: str, compute: Callable[[], _T]) -> _T:
    """Worked out once per document, whichever rule asks first."""
    if key not in doc.memo:
        doc.memo[key] = compute()
    found: _T = doc.memo[key]
    return found


@dataclass(frozen=True, slots=True)
class Context:
    """What a rule may know besides its document."""

    kind: Kind
    config: Config
    project: Project
    today: datetime.date
    baseline: Baseline | None = None  # with --diff or --base: the change and its base
    base_project: Project | None = None
    files: frozenset[str] = frozenset()  # every file of the project (for file references)
    outside: Callable[[str], bool] = _never  # a listed path that leads out of the project
    others: Others | None = None  # companion files, read on demand
    chunk: int = 0  # which chunk of a large JSONL file (rules that report once use the first)

    def schema_errors(self, doc: Document) -> list[SchemaError]:
        return _memo(doc, "schema", lambda: self._per_unit(doc, validate))

    def object_keys(self, doc: Document) -> list[ObjectKeys]:
        return _memo(doc, "keys", lambda: self._per_unit(doc, unknown_keys))

    def _per_unit(self, doc: Document, check: Callable[[str, JSON], list[_At]]) -> list[_At]:
        """`check` on each unit of the document, its pointers made the document's."""
        units = _memo(doc, "units", lambda: self._units(doc))
        return [
            replace(found, pointer=(*at, *found.pointer))
            for at, name, data in units
            for found in check(name, data)
        ]

    def _units(self, doc: Document) -> list[tuple[Pointer, str, JSON]]:
        """(where, schema, data) for the document, or for each record of a JSONL kind."""
        records = (
            enumerate(doc.data)
            if self.kind.per_record and isinstance(doc.data, list)
            else [(None, doc.data)]
        )
        out: list[tuple[Pointer, str, JSON]] = []
        forced = self.config.eee_version
        for i, data in records:
            name = (
                self.kind.forced_schema(forced)
                if forced and self.kind.forced_schema
                else self.kind.schema_for(data)
            )
            if name:
                out.append((() if i is None else (i,), name, data))
        return out


@dataclass(slots=True)
class Run:
    config: Config
    active: list[tuple[Rule, Severity]]
    today: datetime.date
    baseline: Baseline | None = None
    files: frozenset[str] = frozenset()
    outside: Callable[[str], bool] = _never
    others: Others | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    levels: dict[str, Severity] = field(init=False)  # rule id -> its level in this run
    _plans: dict[tuple[str, Scope], list[tuple[Rule, Severity]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.levels = {r.id: level for r, level in self.active}

    def rules_for(self, kind: str, scope: Scope) -> list[tuple[Rule, Severity]]:
        """The active rules a file of this kind runs, worked out once per kind and scope."""
        key = (kind, scope)
        found = self._plans.get(key)
        if found is None:
            found = self._plans[key] = [
                (r, level)
                for r, level in self.active
                if r.check is not None and r.applies_to(kind) and r.runs_in(scope)
            ]
        return found


def lint(
    paths: Sequence[str],
    source: Source,
    config: Config,
    *,
    tree: Iterable[str] = (),
    today: datetime.date | None = None,
    baseline: Baseline | None = None,
    rules: Sequence[Rule] = ALL_RULES,
    jobs: int | None = None,
    gone: frozenset[str] = frozenset(),
) -> Report:
    """Lint `paths`; `tree` lists the rest of the project, read only for cross-file facts.

    With a `baseline`, version rules compare with the base, and in files outside `paths` only
    the cross-file findings the change caused are reported. `jobs`: processes that read and
    check the files (None: every core, for runs of workers.PARALLEL_FROM files or more).
    `gone`: files the change deletes; eval files outside `paths` that name them are checked
    for what that breaks.
    """
    started = time.perf_counter()
    tree = list(tree)
    run = Run(
        config,
        config.active_rules(rules),
        today or datetime.date.today(),
        baseline,
        frozenset(tree) | frozenset(paths),
        getattr(source, "outside", _never),
    )
    run.others = Others(source, config, run.files, run.outside)
    if len(paths) >= workers.PARALLEL_FROM:
        expect_many()  # before any fork, so every worker inherits it
    crew = workers.start(
        paths,
        workers.count_for(len(paths), jobs),
        read=lambda part: _read_all(part, source, run.config),
        check=lambda part, head: _check_entries(
            part, run, source, head, base_project(head, baseline) if baseline else None
        ),
    )
    entries, diagnostics, skipped = crew.read()
    run.diagnostics += diagnostics
    run.skipped += skipped
    checked = len(entries) + sum(1 for d in run.diagnostics if d.rule == "parse-error")
    also = baseline.entries if baseline else []
    indexed = index.build(entries, tree, source, config, also=also)
    head = indexed.project
    base = base_project(head, baseline) if baseline else None
    run.diagnostics += crew.check(head)
    for entry in indexed.affected:
        found = check_entry(entry, _context(entry, run, head, base), run, source, scope="refs")
        if base is not None:
            before = check_entry(entry, _context(entry, run, base, base), run, source, scope="refs")
            found = [d for d in found if d not in before]
        run.diagnostics += found
    if gone:
        inside = {e.doc.path for e in entries}
        for entry in index.naming(gone, tree, inside, source, config):
            run.diagnostics += _broken_by_deletion(entry, run, head, source, gone)
    run.diagnostics.sort(key=Diagnostic.sort_key)
    notes = (baseline.note(),) if baseline else ()
    kinds = tuple((e.doc.path, f"{e.kind.name} ({e.kind.title})") for e in entries)
    seconds = time.perf_counter() - started
    return Report(tuple(run.diagnostics), checked, seconds, tuple(run.skipped), notes, kinds)


def _broken_by_deletion(
    entry: Entry, run: Run, head: Project, source: Source, gone: frozenset[str]
) -> list[Diagnostic]:
    """The findings of the file rules that the deleted files cause: those the file would not
    get if they were still there."""
    ctx = _context(entry, run, head, None)
    found = check_entry(entry, ctx, run, source, scope="files")
    if not found:
        return found
    before = check_entry(entry, replace(ctx, files=run.files | gone), run, source, scope="files")
    return [d for d in found if d not in before]


def _read_all(
    paths: Sequence[str], source: Source, config: Config
) -> tuple[list[Entry], list[Diagnostic], workers.Skips]:
    entries, diagnostics, skipped = [], [], []
    for path in paths:
        found = read_entry(path, source, config)
        if isinstance(found, Skipped):
            skipped.append(found)
        elif isinstance(found, Diagnostic):
            diagnostics.append(found)
        else:
            entries.append(found)
    return entries, diagnostics, skipped


def _check_entries(
    entries: list[Entry], run: Run, source: Source, head: Project, base: Project | None
) -> list[Diagnostic]:
    return [
        d
        for entry in entries
        for d in check_entry(entry, _context(entry, run, head, base), run, source)
    ]


def base_project(head: Project, baseline: Baseline) -> Project:
    """The project as it was: unchanged files as they are, changed ones as at the base."""
    kept = [e for path, e in head.entries.items() if path not in baseline.replaced]
    return Project([*kept, *baseline.entries])


def _context(entry: Entry, run: Run, project: Project, base: Project | None) -> Context:
    return Context(
        entry.kind,
        run.config,
        project,
        run.today,
        run.baseline,
        base,
        run.files,
        run.outside,
        run.others,
    )
