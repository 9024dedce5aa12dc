"""Building the project index for a run.

A run over part of the tree (pre-commit passes a few files) still resolves references against
the whole project. Of each other file it needs only a summary (`engine/summary.py`): the id and
version it defines, and the ids its text mentions. Summaries come from the cache when the
content is the one they were made from, else from the file; only files whose bytes could matter
are parsed. A definer enters the project by its summary and is parsed when a rule reads it; a
file that mentions an id the run defines is parsed when the run could break it
(`engine/impact.py`). The rest of the tree is never parsed, and with a warm cache never read.
A --diff run in a large tree asks the memo of the base's tree instead (`engine/backed.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from itertools import chain, islice
from operator import attrgetter, le

from evallint.config import Config
from evallint.engine import impact
from evallint.engine.backed import Backed, memo_changes, memo_rows
from evallint.engine.summary import (
    SPLIT_FROM,
    Store,
    Summary,
    cached_summary,
    later,
    load_definer,
    summaries,
)
from evallint.io.cache import text_at
from evallint.io.memo import TreeMemo
from evallint.io.source import Source
from evallint.kinds import BY_NAME, Kind
from evallint.model import JSON
from evallint.parse import eval_files, format_of
from evallint.project import Backing, Entry, Later, Project
from evallint.read import read_entry
from evallint.records import record
from evallint.refs import Ref
from evallint.rules.base import Asks


@record
class Indexed:
    """The project, and the files outside the run whose findings the change may move."""

    project: Project
    affected: tuple[Entry, ...]  # outside the run; their cross-file findings are reported
    naming: tuple[Entry, ...] = ()  # outside the run; they name a file the change deletes


def build(
    linted: Sequence[Entry],
    tree: Sequence[str],
    source: Source,
    config: Config,
    *,
    also: Sequence[Entry] = (),
    gone: frozenset[str] = frozenset(),
    store: Store | None = None,
    jobs: int | None = None,
    files: frozenset[str] | None = None,
    asks: Sequence[Asks] = (),
    seen: frozenset[str] = frozenset(),
) -> Indexed:
    """`also`: base versions of changed and deleted files, whose ids count as the run's too;
    `gone`: files the change deletes; `store`: summaries from earlier runs; `jobs`: processes
    that summarize the files no summary is kept for (None: every core, for many files);
    `files`: the tree as a set, when the caller has one; `asks`: what the active rules say a
    definer asks of the files that refer to it (`Rule.asks`); `seen`: files of the run it read
    and found to be of no kind, which are not outside it."""
    defined = impact.defined_ids([*linted, *also])
    if linted and not (defined or also or gone) and not any(_reaches(e) for e in linted):
        # Nothing of the rest of the tree can matter to the run's files, nor they to it: no
        # summary is made (a run over promptfoo configs named in a large tree reads no other).
        # A run of no files still summarizes the tree: that warms the cache and the memo.
        return Indexed(Project(linted), ())
    named = {f"{ns}/{ident}" for ns, ident in defined}  # how a mention names them
    gone_names = impact.names_of([e for e in also if e.path in gone])
    run = _Run(linted, defined, named, gone, tuple(asks), source, config, store, seen, gone_names)
    changed = memo_changes(store, len(tree), len(linted))
    memo = store.memo() if store is not None and changed is not None else None
    if memo is not None and changed is not None and files is not None:
        return _from_memo(run, tree, memo, changed, files)
    return _from_summaries(run, tree, jobs, changed)


def _reaches(entry: Entry) -> bool:
    """Whether a file ties itself to other files through the project: its kind defines ids,
    refers to them, mentions them, or shares keys that rules compare across files; or it is a
    dataset whose items the run compares with other datasets' (its digests are kept)."""
    kind = entry.kind
    return bool(kind.namespace or kind.references or kind.mentions or kind.shared or entry.items)


@record
class _Run:
    """What the index is built for: the run's files, the ids they define, and how to read."""

    linted: Sequence[Entry]
    defined: set[tuple[str, str]]  # (namespace, id) the run's files (and `also`) define
    named: set[str]  # the same, as a mention names them: "rubric/tone"
    gone: frozenset[str]
    asks: tuple[Asks, ...]
    source: Source
    config: Config
    store: Store | None
    seen: frozenset[str] = frozenset()  # files of the run of no kind (see `build`)
    gone_names: frozenset[str] = frozenset()  # what other files name the deleted ones by

    def load(self, path: str, kind: Kind) -> Entry:
        return load_definer(path, kind, self.source, self.config)


@record
class _Sorted:
    """The files outside the run, by what the index does with them."""

    later: list[Later]  # definers known by summary
    broken: list[tuple[str, str]]  # (kind, path) of definers whose id cannot be read
    mentioning: list[tuple[str, list[Ref]]]  # files that mention the run's ids, and how


@record
class _Kept:
    """What the cache holds of the files outside the run, and the texts they mention."""

    known: Mapping[str, str]  # path -> content key
    kept: Mapping[str, JSON]  # path -> [content key, summary]
    texts: Sequence[JSON] | None  # None: the run does not read them


def _from_summaries(
    run: _Run, tree: Sequence[str], jobs: int | None, changed: frozenset[str] | None
) -> Indexed:
    """The index from a summary of each file outside the run (kept, or made now); with
    `changed` (`memo_changes`), the memo of the base's tree is made from them too."""
    store = run.store
    rest = _rest(eval_files(tree), run.linted)
    if run.seen:  # a whole run of a tree with files of no kind has no rest either
        rest = [path for path in rest if path not in run.seen]
    # A whole run has no rest: it neither loads the cache nor asks git for content keys.
    has = store is not None and bool(rest)
    cache = _Kept(
        store.known() if store is not None and has else {},
        store.kept() if store is not None and has else {},
        # What files that define nothing mention matters only to a run whose files define ids.
        store.texts() if store is not None and has and run.defined else None,
    )
    out = _Sorted([], [], [])
    others, unknown, summarized = _sort_rest(run, rest, cache, out)
    # A memo is made from a warm cache: a run that finds none (a CI job's, each time) would
    # pay for one no run may ask, and the next run at this base makes it anyway. (Asked now:
    # the summaries made next go into the same mapping.)
    warm = bool(cache.kept)
    fresh = summaries(unknown, run.source, run.config, store, jobs, cache.texts)
    _sort_out(chain(summarized, fresh), run, out)
    if store is not None:
        store.keep(others)
        if changed is not None and warm:  # the run keeps a memo, and found none
            hidden = changed | {e.path for e in run.linted}
            store.put_memo(*memo_rows(rest, cache.known, store, hidden))
    find = partial(_find_in_summaries, run=run, out=out, others=others, cache=cache, fresh=fresh)
    return _indexed(run, out, out.later, others, find if rest else None)


def _sort_rest(
    run: _Run, rest: Sequence[str], cache: _Kept, out: _Sorted
) -> tuple[list[str], list[tuple[str, str | None]], list[tuple[str, Summary]]]:
    """The files outside the run that the index reads (`others`: not those a symlink takes out
    of the project), those to summarize now (path, key), and those the cache summarizes; the
    files known by their text to mention the run's ids go into `out`."""
    leaves = getattr(run.source, "outside", None)
    known, kept, texts, named = cache.known, cache.kept, cache.texts, run.named
    may_name = impact.may_name(named)
    others: list[str] = []
    unknown: list[tuple[str, str | None]] = []
    summarized: list[tuple[str, Summary]] = []
    for path in rest:
        key = known.get(path)
        if key is None and leaves is not None and leaves(path):
            continue  # never read a file a symlink takes out of the project
        others.append(path)
        cached = cached_summary(kept.get(path), key)
        if type(cached) is int:  # `is_place`, inline: this loop runs once per tree file
            # Most files: they define nothing, and their summary is the text they mention.
            if texts is None:
                continue
            cached = text_at(texts, cached)
        if isinstance(cached, str):
            refs = impact.refs_to(cached, named) if may_name(cached) else None
            if refs:
                out.mentioning.append((path, refs))
            continue
        summary = Summary.from_json(cached) if cached is not None else None
        if summary is None:
            unknown.append((path, key))
        else:
            summarized.append((path, summary))
    return others, unknown, summarized


def _find_in_summaries(
    names: set[str],
    *,
    run: _Run,
    out: _Sorted,
    others: Sequence[str],
    cache: _Kept,
    fresh: Sequence[tuple[str, Summary]],
) -> impact.Found:
    """Definers and other files outside the run that mention any of `names`: a second pass
    over the summaries, made only when the run's definers are composed by others or share
    values."""
    plain = {p: s.mentions for p, s in fresh if s.kind is None and s.mentions}
    # The texts the cache keeps apart: read now if the run did not (its files define no id,
    # yet they share values, or are composed).
    store, texts = run.store, cache.texts
    every = texts if texts is not None or store is None else store.texts()
    may = impact.may_name(names)
    definers = [d for d in out.later if may(d.mentions) and impact.names_any(d.mentions, names)]
    found = []
    for path in others:
        text = plain.get(path)
        if text is None:
            cached = cached_summary(cache.kept.get(path), cache.known.get(path))
            if type(cached) is int:
                cached = text_at(every, cached) if every is not None else None
            text = cached if isinstance(cached, str) else None
        if text and may(text):
            found.append((path, text))
    return definers, found


def _sort_out(summaries: Iterable[tuple[str, Summary]], run: _Run, out: _Sorted) -> None:
    for path, summary in summaries:
        if summary.kind is not None and not summary.ident:
            out.broken.append((summary.kind, path))
        elif summary.kind is not None:
            out.later.append(later(path, summary, run.load))
        elif run.defined and summary.mentions:
            refs = impact.refs_to(summary.mentions, run.named)
            if refs:
                out.mentioning.append((path, refs))


def _indexed(
    run: _Run,
    out: _Sorted,
    candidates: Iterable[Later],
    others: Sequence[str],
    find: Callable[[set[str]], impact.Found] | None,
    backing: Backing | None = None,
) -> Indexed:
    """The project, and the files outside the run it affects. `candidates`: the definers
    outside the run that may refer to, or redefine, its ids; `find`: the definers and other
    files outside the run that mention given ids."""
    # In the tree's order, as if each file were taken in turn (messages list broken files).
    out.broken.sort(key=lambda b: b[1])
    out.mentioning.sort(key=lambda m: m[0])
    project = Project(run.linted, later=out.later, backing=backing)
    for kind_name, path in out.broken:
        project.add_broken(BY_NAME[kind_name], path)
    reader = (run.source, run.config)
    referrers: list[Entry] = []
    for path, refs in out.mentioning:
        if impact.might_break(refs, project, run.asks):
            found = read_entry(path, *reader)
            if isinstance(found, Entry):
                project.add(found)
                referrers.append(found)
    defined, named = run.defined, run.named
    touched = [
        e.entry()
        for e in candidates
        if impact.may_touch(e, defined, named) and impact.touches(e.entry(), defined, project)
    ]
    deeper: list[Entry] = []
    named_deeper: list[Entry] = []
    sharing: list[Entry] = []
    if find is not None:  # a partial run: files outside it
        deeper, named_deeper = impact.through_composites(touched, project, find, reader, run.asks)
        sharing = impact.sharing(run.linted, project, find, *reader)
        sharing += impact.sharing_items(run.linted, project, find, *reader)
    naming = impact.naming(run.gone, run.gone_names, others, *reader, run.store)
    for entry in naming:  # read: the names it registers are known (a definer's are already)
        if entry.kind.defines is None and entry.path not in project.entries:
            project.add(entry)
    affected = touched + deeper + referrers + named_deeper + sharing
    return Indexed(project, tuple(affected), tuple(naming))


def _from_memo(
    run: _Run,
    tree: Sequence[str],
    memo: TreeMemo,
    changed: frozenset[str],
    files: frozenset[str],
) -> Indexed:
    """The index of a --diff run from the memo of the base's tree: the files the change
    leaves as the base has them are asked for by id, the few others summarized now."""
    store = run.store
    assert store is not None
    mine = {e.path for e in run.linted}
    # Rows of files the memo lacks are never served (a memo of a near base has rows of the
    # files that changed since).
    backing = Backed(memo, changed | mine | memo.missing, run.load, run.source, run.config)
    out = _Sorted([], [], [])
    # Files of the tree the memo does not serve: those the change touched (not the run's),
    # and those not summarized when it was written.
    own = _own(sorted((memo.missing | changed) - mine), files, store.known(), run.source)
    many = len(own) >= SPLIT_FROM
    fresh = summaries(
        [(p, store.known().get(p)) for p in own],
        run.source,
        run.config,
        store if many else None,
        None,
        store.texts() if many and run.defined else None,
    )
    _sort_out(fresh, run, out)
    plain = [(p, s.mentions) for p, s in fresh if s.kind is None and s.mentions]
    find = partial(_find_in_memo, backing=backing, out=out, plain=plain)
    out.broken.extend(backing.broken())
    candidates = _memo_candidates(run, backing, out)
    others = _rest(eval_files(tree), run.linted) if run.gone else ()
    store.keep(tree)  # every file the memo may stand for keeps its summary in the cache
    return _indexed(run, out, candidates, others, find, backing)


def _find_in_memo(
    names: set[str], *, backing: Backed, out: _Sorted, plain: Sequence[tuple[str, str]]
) -> impact.Found:
    """Definers and other files outside the run that mention any of `names`."""
    definers, texts_found = backing.mentioning(sorted(names))
    definers += [d for d in out.later if impact.names_any(d.mentions, names)]
    return definers, texts_found + [(p, t) for p, t in plain if impact.names_any(t, names)]


def _memo_candidates(run: _Run, backing: Backed, out: _Sorted) -> list[Later]:
    """The definers outside the run that may refer to, or redefine, its ids, once each, in
    path order; the files the memo knows to mention its ids go into `out`."""
    candidates = list(out.later)
    if run.defined:
        definers, plain = backing.mentioning(sorted(run.named))
        candidates += definers
        for path, mentions in plain:
            refs = impact.refs_to(mentions, run.named)
            if refs:
                out.mentioning.append((path, refs))
        for namespace, ident in sorted(run.defined):
            candidates += backing.definers(namespace, ident)
    return sorted({c.path: c for c in candidates}.values(), key=attrgetter("path"))


def _own(
    paths: Sequence[str], files: frozenset[str], known: Mapping[str, str], source: Source
) -> list[str]:
    """The eval files of the tree among `paths`, but those a symlink takes out of it."""
    leaves = getattr(source, "outside", None)
    return [
        p
        for p in paths
        if p in files
        and format_of(p) is not None
        and not (known.get(p) is None and leaves is not None and leaves(p))
    ]


def _rest(files: list[str], linted: Sequence[Entry]) -> list[str]:
    """`files` but the run's own. A large run's files come in path order, as the tree's do: a
    walk of the two then, not a set of every path (a whole datastore run's peak memory)."""
    mine = [e.path for e in linted]
    if len(mine) < WALK_FROM or not (_ordered(files) and _ordered(mine)):
        own = set(mine)
        return [p for p in files if p not in own]
    out: list[str] = []
    i, end = 0, len(mine)
    for path in files:
        while i < end and mine[i] < path:
            i += 1
        if i == end or mine[i] != path:
            out.append(path)
    return out


WALK_FROM = 1000  # run files from which `_rest` walks rather than builds a set


def _ordered(paths: list[str]) -> bool:
    return all(map(le, paths, islice(paths, 1, None)))
