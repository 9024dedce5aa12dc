"""The pipeline: read and classify, index the project, run rules, place findings, sort."""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from evallint.config import Config
from evallint.engine import backed, index, parallel
from evallint.engine.file import Run, active_rules, base_of, check_entry, context
from evallint.engine.fold import fold
from evallint.engine.readers import readers
from evallint.engine.summary import Store
from evallint.io.source import Overlay, Source
from evallint.kinds import companions
from evallint.model import Checked, Diagnostic, FileSet, Report, Skipped
from evallint.project import Entry, Project
from evallint.read import read_entry
from evallint.records import replace
from evallint.rules import ALL_RULES
from evallint.rules.api import Others, never
from evallint.rules.base import Rule

if TYPE_CHECKING:
    from evallint.baseline import Baseline

KNOW_LINKS_FROM = 1000  # tree size from which reading every folder beats a check per file


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
    store: Store | None = None,
    links: frozenset[str] | None = None,
    deleted: Sequence[Entry] = (),
    touched: frozenset[str] = frozenset(),
    prior: Callable[[list[str]], Source] | None = None,
    was: Baseline | None = None,
) -> Report:
    """Lint `paths`; `tree` lists the rest of the project, read only for cross-file facts.

    With a `baseline`, version rules compare with the base, and in files outside `paths` only
    the cross-file findings the change caused are reported. `jobs`: processes that read and
    check the files (None: every core, for runs of parallel.PARALLEL_FROM files or more).
    `gone`: files the change deletes; eval files outside `paths` that name them are checked
    for what that breaks. `store`: what earlier runs learnt of the tree's files. `links`: the
    files of the tree that may be symlinks, when the listing knows (else the source finds out).
    `deleted`: without a baseline, the eval files `gone` holds as they were (their ids count as
    the run's, so what their deletion breaks is checked). `touched`: the files whose content
    the change made or changed, and `prior`: what gives their bytes before it; a record
    outside `paths` beside one of them, or one of `gone`, that reads it as its companion is
    checked for what that breaks. `was`: without a baseline, the project before the pending
    change (HEAD's, for a run over named files): a finding of a file outside `paths` that
    the project had then too is not the change's, and is not reported.
    """
    started = time.perf_counter()
    tree = tree if isinstance(tree, list) else list(tree)  # the selection's: not copied
    run = _start(paths, source, config, rules, today, baseline, tree, links, store)
    if prior is not None and (touched or gone):
        run.base_files = _base_files(run, source, prior, touched | gone)
    crew = parallel.start(paths, parallel.count_for(len(paths), jobs), run, source)
    entries, diagnostics, skipped = crew.read()
    run.diagnostics += diagnostics
    run.skipped += [s for s in skipped if not s.own]
    checked = len(entries) + len(_unread(entries, run.diagnostics))
    also = baseline.entries if baseline else list(deleted)
    asks = tuple(r.asks for r, _ in run.active if r.asks is not None)
    indexed = index.build(
        entries, tree, source, config, also=also, gone=gone, store=store, jobs=jobs,
        files=run.files, asks=asks, seen=_no_kind(skipped),
    )  # fmt: skip
    head = indexed.project
    base = base_of(head, baseline)  # built once
    then = base if base is not None else base_of(head, was)
    run.diagnostics += crew.check(head)
    _check_outside(indexed, run, (head, base, then), source, gone)
    if (touched or gone) and prior is not None:
        grep = store.grep if store is not None else _no_grep
        before = (prior, grep)
        checked += _check_companions(entries, touched | gone, run, (head, base), source, before)
    return _report(run, entries, checked, started)


def _start(
    paths: Sequence[str],
    source: Source,
    config: Config,
    rules: Sequence[Rule],
    today: datetime.date | None,
    baseline: Baseline | None,
    tree: list[str],
    links: frozenset[str] | None,
    store: Store | None,
) -> Run:
    """What every file of the run shares, with the tree's symlinks known the cheapest way."""
    run = Run(
        config,
        active_rules(config, rules),
        today or datetime.date.today(),
        baseline,
        FileSet(tree, paths),  # one set of the run's files, not three
        getattr(source, "outside", never),
    )
    learn, know = getattr(source, "learn_links", None), getattr(source, "know_links", None)
    if learn is not None and links is not None:
        learn(run.files, links)  # the walk that listed the tree saw every link
    elif know is not None and len(run.files) >= KNOW_LINKS_FROM and _asks_many(paths, store, tree):
        know(run.files)  # one directory read per folder, not a symlink check per file
    run.others = Others(source, config, run.files, run.outside)
    root = getattr(source, "root", None)
    run.root_name = root.name if isinstance(root, Path) else ""
    if len(paths) >= parallel.PARALLEL_FROM:
        run.engines.fast_from = 0  # a large run: the fast engine pays for itself at once
    return run


def _check_outside(
    indexed: index.Indexed,
    run: Run,
    projects: tuple[Project, Project | None, Project | None],
    source: Source,
    gone: frozenset[str],
) -> None:
    """The findings the change gives files outside the run: those its ids affect (but those
    the project had before the change, `then`), and those that name a file it deletes."""
    head, base, then = projects
    for entry in indexed.affected:
        found = check_entry(entry, context(entry, run, head, base), run, source, scope="refs")
        if then is not None:
            before = check_entry(entry, context(entry, run, then, base), run, source, scope="refs")
            found = [d for d in found if d not in before]
        run.diagnostics += found
    for entry in indexed.naming:
        run.diagnostics += _broken_by_deletion(entry, run, (head, then), source, gone)


class _Later:
    """A source made on first use: the base's bytes are read only by a run that asks."""

    def __init__(self, make: Callable[[], Source]) -> None:
        self._make = make
        self._made: Source | None = None

    def _source(self) -> Source:
        if self._made is None:
            self._made = self._make()
        return self._made

    def size(self, path: str) -> int:
        return self._source().size(path)

    def read(self, path: str) -> bytes:
        return self._source().read(path)


def _base_files(
    run: Run, source: Source, prior: Callable[[list[str]], Source], changed: frozenset[str]
) -> Others:
    """The project's files as the change's base has them: the changed ones from git, the rest
    from the working tree (`Context.base_files`)."""
    paths = sorted(changed)
    view = _Later(lambda: Overlay(source, prior(paths), changed))
    return Others(view, run.config, run.files | changed, run.outside)


def _no_grep(needles: Sequence[bytes]) -> None:
    return None


def _check_companions(
    entries: Sequence[Entry],
    changed: frozenset[str],
    run: Run,
    projects: tuple[Project, Project | None],
    source: Source,
    before: tuple[Callable[[list[str]], Source], Callable[..., set[str] | None]],
) -> int:
    """The findings the change gives the files outside the run that read a changed file: a
    record beside it (`Kind.companion`), a task that includes it (`Kind.reads`). Files checked
    for other reasons (affected, naming) are checked here too: those checks run only some
    rules, and a change to what they read may break any. `before`: what gives the files' bytes
    before the change, and a search of the tree's files for fixed strings. Returns how many
    files it checked."""
    head, base = projects
    prior, grep = before
    mine, seen = {e.path for e in entries}, set(run.diagnostics)
    reading = _companions(changed, mine, run, source)
    reading += readers(
        changed, mine, run.files, source, run.config, grep, run.outside, run.base_files
    )
    if not reading:
        return 0
    # The whole change as its base has it, fetched from git once for every reader: a reader of
    # two changed files is compared with both as they were.
    old = Overlay(source, prior(sorted(changed)), changed)
    then = (run.files - changed) | {p for p in changed if _there(old, p)}  # no stat of the rest
    for entry, _ in reading:
        found = _broken_by_change(entry, run, head, base, source, (old, then))
        run.diagnostics += [d for d in found if d not in seen]
        seen.update(found)
    return len(reading)


def _report(run: Run, entries: Sequence[Entry], checked: int, started: float) -> Report:
    run.diagnostics.sort(key=Diagnostic.sort_key)
    run.diagnostics = fold(_once(run.diagnostics))
    notes = (run.baseline.note(),) if run.baseline else ()
    # One label a kind, shared by its files: a text per file would be a large run's peak.
    labels = {
        k.name: f"{k.name} ({k.title})" for k in {e.kind.name: e.kind for e in entries}.values()
    }
    kinds = Checked([e.path for e in entries], [labels[e.kind.name] for e in entries])
    seconds = time.perf_counter() - started
    return Report(tuple(run.diagnostics), checked, seconds, tuple(run.skipped), notes, kinds)


def _once(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Sorted diagnostics with repeats dropped: a finding placed in a file that several checked
    files read (a template each includes) comes once from each of them. Repeats share a sort
    key, so only a run of equal keys is compared: a million findings are not hashed."""
    out: list[Diagnostic] = []
    for d in diagnostics:
        if out and d.sort_key() == out[-1].sort_key() and d in _same_key(out, d):
            continue
        out.append(d)
    return out


def _same_key(out: list[Diagnostic], d: Diagnostic) -> Iterator[Diagnostic]:
    """The diagnostics at the end of `out` that share `d`'s sort key, last first."""
    key = d.sort_key()
    for earlier in reversed(out):
        if earlier.sort_key() != key:
            return
        yield earlier


def _no_kind(skipped: Sequence[Skipped]) -> frozenset[str]:
    """The files of the run read and found to be of no kind: not outside it (`index.build`)."""
    return frozenset(s.path for s in skipped if not (s.unreadable or s.claimed))


def _unread(entries: Sequence[Entry], diagnostics: Sequence[Diagnostic]) -> set[str]:
    """Files read but not kept as entries (unread, over the size limit): they count as checked
    by their parse error. (A set of every entry's path would cost a large run's memory.)"""
    failed = {d.path for d in diagnostics if d.rule == "parse-error"}
    return failed - {e.path for e in entries if e.path in failed} if failed else failed


def _asks_many(paths: Sequence[str], store: Store | None, tree: Sequence[str]) -> bool:
    """Whether the run will ask of most of the tree's files whether they lead out of the
    project: it reads many files, or summarizes the tree with no cache to take summaries from.
    A warm partial run asks only of the files git does not know clean (and of the files its own
    files name): a stat each beats reading every folder of a large tree."""
    if len(paths) >= KNOW_LINKS_FROM or store is None:
        return True
    return backed.memo_for(store, len(tree), len(paths)) is None and not store.kept()


def _companions(
    touched: frozenset[str], done: set[str], run: Run, source: Source
) -> list[tuple[Entry, str]]:
    """The records outside the run beside a file the change made, changed or deleted, and
    that file. Each reads the other (an EEE aggregate its instance file's bytes, the instance
    records their aggregate's ids), so a change to one can break the other, which the change
    does not touch (`Kind.companion`)."""
    out = []
    for path in sorted(touched):
        for other in companions(path):
            if other in done or other in touched:
                continue
            if other not in run.files or run.outside(other):
                continue
            found = read_entry(other, source, run.config)
            if isinstance(found, Entry):
                out.append((found, path))
    return out


def _there(view: Source, path: str) -> bool:
    try:
        view.size(path)
    except OSError:
        return False
    return True


def _broken_by_change(
    entry: Entry,
    run: Run,
    head: Project,
    base: Project | None,
    source: Source,
    before: tuple[Source, frozenset[str]],
) -> list[Diagnostic]:
    """The findings of a record that the change to the files it reads causes: those it would
    not get with the changed files as they were (`before`: their view, and the files there
    then). A finding the record had already, by the same rule at the same place, is not the
    change's, though its words may differ (a checksum that was wrong stays wrong, with
    another value)."""
    ctx = context(entry, run, head, base)
    found = check_entry(entry, ctx, run, source)
    if not found:
        return found
    old, files = before
    then = replace(ctx, files=files, others=Others(old, run.config, files, run.outside))
    earlier = {(d.rule, d.span) for d in check_entry(entry, then, run, source)}
    return [d for d in found if (d.rule, d.span) not in earlier]


def _broken_by_deletion(
    entry: Entry,
    run: Run,
    projects: tuple[Project, Project | None],
    source: Source,
    gone: frozenset[str],
) -> list[Diagnostic]:
    """The findings of the file rules that the deleted files cause: those the file would not
    get if they were still there, with what they defined (`then`: the project before the
    change, which holds them, when the run has one)."""
    head, then = projects
    found = check_entry(entry, context(entry, run, head, None), run, source, scope="files")
    if not found:
        return found
    ctx = replace(context(entry, run, then or head, None), files=run.files | gone)
    before = check_entry(entry, ctx, run, source, scope="files")
    return [d for d in found if d not in before]
