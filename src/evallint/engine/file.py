"""One file's diagnostics: its rules run, their findings capped, placed and suppressed. A large
JSONL file comes in chunks (`load.chunks`), each checked as a document of its own with its
positions shifted to the file's lines and the repeat cap counted across them: memory stays flat
in the file's size, and the output is what one whole document would give."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from evallint.config import Config
from evallint.engine import suppressions
from evallint.engine.datasets import RULE, kept_of, release
from evallint.engine.placing import place, shifted
from evallint.engine.repeats import Repeats
from evallint.engine.suppressions import UNUSED, Notes
from evallint.io.source import Source
from evallint.kinds import warns_in
from evallint.model import JSON, Diagnostic, Finding, Pointer, Severity, Skipped, Span
from evallint.parse import Document
from evallint.project import Entry, Kept, Project
from evallint.read import chunks, read_entry
from evallint.records import field, record, replace
from evallint.rules import ALWAYS_ON, BY_ID
from evallint.rules.api import Context, Others, never
from evallint.rules.base import Rule, Scope, Wants
from evallint.validation.schemas import Engines

if TYPE_CHECKING:
    from evallint.baseline import Baseline


@record(frozen=False)
class Run:
    """What every file of one run shares: settings, active rules, the tree."""

    config: Config
    active: list[tuple[Rule, Severity]]
    today: datetime.date
    baseline: Baseline | None = None
    files: frozenset[str] = frozenset()
    outside: Callable[[str], bool] = never
    others: Others | None = None
    engines: Engines = field(default_factory=Engines)
    root_name: str = ""  # the project folder's name
    base_files: Others | None = None  # the files as the change's base has them (diff mode)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    levels: dict[str, Severity] = field(init=False)  # rule id -> its level in this run
    _plans: dict[tuple[str, Scope], list[tuple[Rule, Severity]]] = field(default_factory=dict)
    _phases: dict[str, tuple[list[tuple[Rule, Severity]], list[tuple[Rule, Severity]]]] = field(
        default_factory=dict
    )
    _wants: dict[str, tuple[Wants, ...] | None] = field(default_factory=dict)
    # Made by `context`, once the run's fields are set; (kind, project, base) -> context.
    contexts: dict[tuple[str, Project, Project | None], Context] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.levels = {r.id: level for r, level in self.active}

    def wants(self, kind: str) -> tuple[Wants, ...] | None:
        """The tests of phase two's rules for a file of `kind` (`Rule.wants`), each once
        (rules may share one); None when one of them checks every file."""
        if kind not in self._wants:
            rules = self.phases(kind)[1]
            tests = [r.wants for r, _ in rules if r.wants is not None]
            self._wants[kind] = tuple(dict.fromkeys(tests)) if len(tests) == len(rules) else None
        return self._wants[kind]

    def phases(self, kind: str) -> tuple[list[tuple[Rule, Severity]], list[tuple[Rule, Severity]]]:
        """A file's own rules split by phase: those that need no project, and those that do."""
        found = self._phases.get(kind)
        if found is None:
            rules = self.rules_for(kind, "own")
            # A rule that reports only against a base has nothing to say in a run without one.
            based = self.baseline is not None
            found = self._phases[kind] = (
                [(r, level) for r, level in rules if not r.uses_project],
                [
                    (r, level)
                    for r, level in rules
                    if r.uses_project and (based or not r.needs_base)
                ],
            )
        return found

    def rules_for(self, kind: str, scope: Scope) -> list[tuple[Rule, Severity]]:
        """The active rules a file of this kind runs, worked out once per kind and scope."""
        key = (kind, scope)
        found = self._plans.get(key)
        if found is None:
            found = self._plans[key] = [
                (r, self.level_in(kind, r.id, level))
                for r, level in self.active
                if r.check is not None and r.applies_to(kind) and r.runs_in(scope)
            ]
        return found

    def level_in(self, kind: str, rule: str, level: Severity) -> Severity:
        """At most a warning where the kind's runner only warns, unless configured."""
        capped = warns_in(kind, rule) and rule not in self.config.severities
        return min(level, Severity.WARNING) if capped else level


def active_rules(config: Config, rules: Sequence[Rule]) -> list[tuple[Rule, Severity]]:
    """The rules that run, each at its level: selected, not ignored, not turned off."""
    out = []
    for r in rules:
        chosen = (not config.select or r.id in config.select) and r.id not in config.ignore
        default = r.strict if config.strict and r.strict else r.severity
        level = config.severities.get(r.id, default.label)
        if r.id in ALWAYS_ON or (chosen and level != "off"):
            out.append((r, Severity.parse(level) if level != "off" else r.severity))
    return out


def check_entry(
    entry: Entry, ctx: Context, run: Run, source: Source, *, scope: Scope = "own"
) -> list[Diagnostic]:
    """Every diagnostic of one file; `scope`: why it is checked, which picks the rules."""
    repeats = Repeats(ctx.config.max_repeats)
    out: list[Diagnostic] = []
    streamed = entry.rest is not None
    for doc, lines, number in chunks(entry, source, ctx.config.max_file_size):
        here = replace(ctx, chunk=number, lines=lines, streamed=streamed) if streamed else ctx
        out += _check_document(doc, lines, entry, here, run, repeats, scope)
    return repeats.finish(out)


@record(frozen=False)
class Part:
    """Which part of a file's check a call does: the rules that need no project as soon as the
    file is parsed (phase one), those that do once the project is built (phase two), or all
    of them at once. It carries the suppressions between the two."""

    rules: list[tuple[Rule, Severity]] | None = None  # None: every rule of the kind and scope
    problems: bool = True  # the parse problems are reported (once, in phase one)
    last: bool = True  # the file's last part: unused suppressions are reported here
    used: set[tuple[int, str]] = field(default_factory=set)
    notes: Notes | None = None  # None: read from the document's text
    whole: Callable[[], Document] | None = None  # the whole document, for a slim one


def _check_document(
    doc: Document,
    lines: int,
    entry: Entry,
    ctx: Context,
    run: Run,
    repeats: Repeats,
    scope: Scope,
    part: Part | None = None,
) -> list[Diagnostic]:
    """`lines`: how many lines of the file come before the document (a chunk's offset)."""
    part = part or Part()
    # Rules `per-file-ignores` turns off here do not run (nor count as having run).
    off = ctx.config.ignored_in(doc.path) if ctx.config.per_file_ignores else frozenset()
    levels = run.levels
    notes = part.notes
    if notes is None and part.whole is None:
        # Placing first costs only in YAML files that mention a suppression.
        notes = (
            suppressions.notes_of(doc) if doc.fmt == "yaml" and "evallint:" in doc.text else None
        )
        part.notes = notes
    used = part.used
    at = _Placing(doc, part.whole)
    out = []
    for p in doc.problems if scope == "own" and part.problems else ():
        if p.rule in levels and p.rule not in off:
            level = run.level_in(entry.kind.name, p.rule, levels[p.rule])
            if p.mild and p.rule not in ctx.config.severities:
                level = min(level, Severity.WARNING)
            d = Diagnostic(doc.path, p.span, p.rule, level, p.message)
            if notes is None or not suppressions.silenced(notes, d, used):
                out.append(shifted(d, lines))
    if not doc.ok:
        return out
    rules = run.rules_for(entry.kind.name, scope) if part.rules is None else part.rules
    for rule, level in rules:
        if rule.id in off:
            continue
        assert rule.check is not None  # rules_for keeps only rules that check something
        for finding in rule.check(doc, ctx):
            if finding.path is not None and finding.path != doc.path:
                out += _elsewhere(finding, rule.id, level, ctx, repeats)
                continue
            key = (rule.id, finding.group or finding.message)
            if notes is not None:
                # Suppressed findings never spend the cap: the eleventh, unsuppressed one shows.
                placed = place(at.doc(), finding, rule.id, level, ctx.project)
                if suppressions.silenced(notes, placed, used) or not repeats.admit(key):
                    continue
            elif not repeats.admit(key):
                continue
            else:
                placed = place(at.doc(), finding, rule.id, level, ctx.project)
            out.append(shifted(placed, lines))
            repeats.shown(key, out[-1])
    if notes and scope == "own" and part.last and UNUSED in levels:
        out += _unused(doc, notes, used, entry, ctx, run, off)
    return out


def _elsewhere(
    finding: Finding, rule: str, level: Severity, ctx: Context, repeats: Repeats
) -> list[Diagnostic]:
    """A finding about another file the document reads (a template it includes), placed in
    that file and silenced by its comments; the run drops the repeats other includers give.
    Counted as the file's own are (a test file's thousand alike cells are not each placed for
    a text report): past the limit, counted unplaced."""
    key = (rule, finding.group or finding.message)
    if repeats.limit and repeats.seen.get(key, 0) >= repeats.limit:
        repeats.admit(key)
        return []
    other = ctx.others.parsed(finding.path) if ctx.others and finding.path else None
    if other is None or isinstance(other, str):
        return []
    d = place(other, replace(finding, path=None), rule, level, ctx.project)
    notes = other.facts.get(
        suppressions.notes_in, other
    )  # once a file: many findings may land in it
    if notes is not None and suppressions.silenced(notes, d, set()):
        return []
    repeats.admit(key)
    repeats.shown(key, d)
    return [d]


class _Placing:
    """The document findings are placed in: a slim one (kept for phase two without its text)
    is read again, once, when its first finding needs a position."""

    __slots__ = ("_doc", "_whole")

    def __init__(self, doc: Document, whole: Callable[[], Document] | None) -> None:
        self._doc, self._whole = doc, whole

    def doc(self) -> Document:
        if self._whole is not None:
            self._doc, self._whole = self._whole(), None
        return self._doc


def _unused(
    doc: Document,
    notes: Notes,
    used: set[tuple[int, str]],
    entry: Entry,
    ctx: Context,
    run: Run,
    off: frozenset[str],
) -> list[Diagnostic]:
    """unused-suppression: ids that name no rule, and comments that silenced nothing although
    the rule they name ran here in full."""
    waits = frozenset(r.id for r, _ in run.active if r.needs_base and ctx.baseline is None)
    ran = frozenset(r.id for r, _ in run.active if r.id not in waits and r.id not in off)
    bare_may_wait = any(BY_ID[w].applies_to(entry.kind.name) for w in waits)
    level = run.levels[UNUSED]
    return [
        Diagnostic(doc.path, Span(line, col, line, end), UNUSED, level, message)
        for line, col, end, message in suppressions.unused(
            notes, used, frozenset(BY_ID), ran, bare_may_wait=bare_may_wait
        )
    ]


@record(frozen=False)
class Pending:
    """A file read in phase one whose rules that need the project wait for it: its entry is
    whole, or slim (only the places those rules read, when each says which: `Rule.keeps`).
    Thousands wait at once, so it holds no more than phase two needs."""

    entry: Entry
    chunked: bool = False  # read in chunks: every rule waits, and runs chunk by chunk
    slim: bool = False
    used: set[tuple[int, str]] | None = None  # suppressions phase one used, if any
    notes: Notes | None = None


# What waits for phase two: a bare entry is the common case, a slim one whose phase one used
# no suppression comment (no Pending made for it: thousands wait at once).
Waiting = Pending | Entry


def read_all(
    paths: Sequence[str], source: Source, run: Run
) -> tuple[list[Entry], list[Diagnostic], list[Skipped], list[Waiting]]:
    """Phase one for `paths`: read, parse and classify each file, and run the rules that need
    no project at once. What is kept is what the project needs of each file (`kept_of`) and
    what phase two needs (`Pending`): memory does not grow with the parsed files."""
    entries, diagnostics, skipped, pending = [], [], [], []
    for path in paths:
        found = read_entry(path, source, run.config)
        if isinstance(found, Skipped):
            skipped.append(found)
        elif isinstance(found, Diagnostic):
            # About the whole file (parse-error, git-lfs-pointer): at its rule's level, or unread.
            level = run.levels.get(found.rule)
            if level is None:
                skipped.append(Skipped(found.path, found.message, unreadable=True))
            else:
                diagnostics.append(replace(found, severity=level))
        else:
            shared = kept_of(found, source, RULE in run.levels, run.config.max_file_size)
            own, waits = _first(found, shared, run, source)
            release(found.doc, found.kind)  # phase two needs no dataset's items, only digests
            diagnostics += own
            entries.append(shared)
            if waits is not None:
                pending.append(waits)
    return entries, diagnostics, skipped, pending


_NOT_YET: Project  # set below: the project as phase one sees it


def _first(
    entry: Entry, shared: Entry, run: Run, source: Source
) -> tuple[list[Diagnostic], Waiting | None]:
    """Phase one of a file's check: the rules that need no project; and what phase two needs
    (`shared`: what the project keeps of the file, which a slim entry reuses when it is all)."""
    now, later = run.phases(entry.kind.name)
    if entry.rest is not None:
        # Read in chunks, each checked with every rule: now, unless a rule needs the project.
        if later:
            return [], Pending(entry, chunked=True)
        return check_entry(entry, context(entry, run, _NOT_YET, None), run, source), None
    part = Part(now, last=not later)
    repeats = Repeats(run.config.max_repeats)
    ctx = context(entry, run, _NOT_YET, None)
    out = repeats.finish(_check_document(entry.doc, 0, entry, ctx, run, repeats, "own", part))
    if not later or not entry.doc.ok:
        return out, None
    used = part.used or None
    keeps = [r.keeps for r, _ in later]
    if any(k is None for k in keeps):
        return out, Pending(entry, used=used, notes=part.notes)
    doc = entry.doc
    data = skeleton(doc.data, [p for k in keeps if k is not None for p in k(doc)])
    if data != shared.data:
        shared = Entry(Document(doc.path, doc.fmt, "", data, True, ()), entry.kind)
    if used is None and part.notes is None:
        return out, shared
    return out, Pending(shared, slim=True, used=used, notes=part.notes)


def _reader(slim: Document, source: Source, config: Config) -> Callable[[], Document]:
    """The whole document of a slim one, read again (holding the parsed one would keep it)."""

    def read() -> Document:  # changed since phase one (it no longer parses): the file's start
        found = read_entry(slim.path, source, config)
        return found.doc if isinstance(found, Entry) and found.doc.ok else slim

    return read


def skeleton(data: JSON, places: Sequence[Pointer]) -> JSON:
    """`data` with only the values at `places`, each where it was (list items keep their index;
    the rest of a list is None): what a rule reads of a document, without the rest."""
    if not places:
        return {} if isinstance(data, dict) else None
    if () in places:
        return data
    if isinstance(data, dict) and all(len(p) == 1 for p in places):
        # Top-level keys only (a config's, of every file of a tree): no walk.
        return {p[0]: data[p[0]] for p in places if p[0] in data}
    heads: dict[str | int, list[Pointer]] = {}
    for p in places:
        heads.setdefault(p[0], []).append(p[1:])
    if isinstance(data, dict):
        return {k: skeleton(data[k], rest) for k, rest in heads.items() if k in data}
    if isinstance(data, list):
        out: list[JSON] = [None] * len(data)
        for i, rest in heads.items():
            if isinstance(i, int) and 0 <= i < len(data):
                out[i] = skeleton(data[i], rest)
        return out
    return data


def base_of(head: Project, baseline: Baseline | None) -> Project | None:
    """The project as it was at the base, made once per project; None without a base."""
    if baseline is None:
        return None
    from evallint.baseline import base_project  # only a run with a base needs the module

    return head.facts.get(base_project, head, baseline)


def check_all(
    pending: Sequence[Waiting], run: Run, source: Source, head: Project
) -> list[Diagnostic]:
    """Phase two for files read in phase one: the rules that need the whole project."""
    return check_due(due(pending, run, head), run, source, head)


def check_due(
    wanted: Sequence[Waiting], run: Run, source: Source, head: Project
) -> list[Diagnostic]:
    """Phase two for the files `due` keeps (a caller that filtered them already)."""
    base = base_of(head, run.baseline)
    out: list[Diagnostic] = []
    for waiting in wanted:
        p = Pending(waiting, slim=True) if isinstance(waiting, Entry) else waiting
        entry = p.entry.solid()  # a `Kept` makes its document once here, not at each use
        ctx = context(entry, run, head, base)
        if p.chunked:
            out += check_entry(entry, ctx, run, source)
            continue
        doc = entry.doc
        part = Part(
            run.phases(entry.kind.name)[1],
            problems=False,
            used=p.used if p.used is not None else set(),
            notes=p.notes,
            whole=_reader(doc, source, run.config) if p.slim else None,
        )
        repeats = Repeats(run.config.max_repeats)
        out += repeats.finish(_check_document(doc, 0, entry, ctx, run, repeats, "own", part))
    return out


def light(waiting: Waiting) -> bool:
    """Whether a file waiting for phase two holds no parsed document, only what its rules read
    (a slim entry): it crosses a pipe as cheaply as what the project keeps of a file."""
    if isinstance(waiting, Pending):
        return not waiting.chunked and waiting.slim
    return isinstance(waiting, Kept) or not waiting.doc.text


def due(pending: Sequence[Waiting], run: Run, head: Project) -> list[Waiting]:
    """What of `pending` phase two checks: a file a rule of it may find anything in
    (`Rule.wants`, asked of what the project keeps of the file), or that used a suppression
    comment (a `Pending`: its unused ones are reported there). The rest, most of a large tree,
    gets no document made and no check. Asked of every file waiting, so the tests and the
    context are looked up once a kind."""
    base = base_of(head, run.baseline)
    out: list[Waiting] = []
    tests: dict[str, tuple[tuple[Wants, ...] | None, Context]] = {}
    for waiting in pending:
        if not isinstance(waiting, Entry):
            out.append(waiting)
            continue
        name = waiting.kind.name
        found = tests.get(name)
        if found is None:
            found = tests[name] = (run.wants(name), context(waiting, run, head, base))
        wants, ctx = found
        if wants is None:
            out.append(waiting)
            continue
        for want in wants:
            if want(waiting, ctx):
                out.append(waiting)
                break
    return out


def context(entry: Entry, run: Run, project: Project, base: Project | None) -> Context:
    """What a rule of `entry` may know: one per kind and project for the run (a context holds
    nothing of its file, and making one per file was 5% of checking a datastore)."""
    key = (entry.kind.name, project, base)
    found = run.contexts.get(key)
    if found is None:
        found = run.contexts[key] = Context(
            entry.kind,
            run.config,
            project,
            run.today,
            run.baseline,
            base,
            run.files,
            run.outside,
            run.others,
            engines=run.engines,
            root_name=run.root_name,
            base_files=run.base_files,
        )
    return found


class _Unbuilt(Project):
    """The project while phase one runs. Only rules that say they use the project
    (`Rule.uses_project`) may read it, and they run in phase two: reading it here is a rule
    that forgot to say so, and fails loudly rather than seeing an empty project."""

    def __init__(self) -> None:
        pass

    def __getattr__(self, name: str) -> object:
        raise RuntimeError(
            f"a rule read the project ({name}) before it was built: give it reads_project=True"
        )


_NOT_YET = _Unbuilt()
