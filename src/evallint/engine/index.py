"""Building the project index for a run, and finding the files outside it that it affects.

A run over part of the tree (pre-commit passes a few files) still resolves references against
the whole project. Of each other file it needs only a summary (`Summary`): the id and version it
defines, and the ids its text mentions. Summaries come from the cache (`Store`) when the content
is the one they were made from, else from the file; only files whose bytes could matter are
parsed: files that can define a rubric or judge. A definer enters the project by its summary
and is parsed when a rule reads it; a file that mentions an id the run defines is parsed when
the run could break it. The rest of the tree is never parsed, and with a warm cache never read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from functools import partial
from itertools import chain, islice
from operator import attrgetter, le
from typing import Protocol

from evallint.config import Config
from evallint.engine.parallel import count_for, split_map
from evallint.io.cache import is_place, text_at
from evallint.io.memo import Row, TreeMemo
from evallint.io.source import Source, read_capped
from evallint.kinds import BY_NAME, KINDS, Kind, ai_eval, kind_named, path_kind
from evallint.kinds.base import Digest
from evallint.model import JSON
from evallint.parse import Document, eval_files, format_of
from evallint.project import Backing, Entry, Later, Project
from evallint.read import read_entry
from evallint.records import record
from evallint.refs import Ref, parse_ref, parse_version


@record
class Indexed:
    """The project, and the files outside the run whose findings the change may move."""

    project: Project
    affected: tuple[Entry, ...]  # outside the run; their cross-file findings are reported
    naming: tuple[Entry, ...] = ()  # outside the run; they name a file the change deletes


class Store(Protocol):
    """Summaries kept between runs (`io/cache.py`)."""

    def known(self) -> Mapping[str, str]: ...  # path -> content key, for files known unread

    def kept(self) -> Mapping[str, JSON]: ...  # path -> [content key, summary as JSON]

    def texts(self) -> Sequence[JSON]: ...  # what summaries that are a place (an int) stand for

    def put(self, path: str, key: str, summary: JSON) -> None: ...

    def keep(self, paths: Iterable[str]) -> None: ...  # the paths asked about, to save

    def grep(self, needles: Sequence[bytes]) -> set[str] | None: ...

    def base_changed(self) -> frozenset[str] | None: ...  # see `TreeCache.base_changed`

    def memo(self) -> TreeMemo | None: ...  # the base tree's memo, when kept

    def put_memo(self, rows: list[Row], missing: list[str]) -> None: ...


@record
class Summary:
    """What the index needs of a file outside the run."""

    mentions: str = ""  # every reference-shaped text in its bytes, space-separated
    kind: str | None = None  # the kind of a file that defines things; None: it defines none
    ident: str = ""  # "": its id cannot be read (it does not parse, or names none)
    version: str | None = None  # as written, when written as a string
    written: str | None = None  # repr of the version as written; None: it has none
    digest: Digest | None = None  # what rules of other files read of it (Kind.digest)

    def to_json(self) -> JSON:
        # Most files define nothing: their summary is the one string (a large tree's cache is
        # mostly these, and loads faster so).
        if self.kind is None:
            return self.mentions
        return [self.mentions, self.kind, self.ident, self.version, self.written, self.digest]

    @staticmethod
    def from_json(data: JSON) -> Summary | None:
        """None for anything but what `to_json` writes: a damaged cache is a miss."""
        if isinstance(data, str):
            return Summary(data)
        if not (isinstance(data, list) and len(data) == 6):
            return None
        mentions, kind, ident, version, written, digest = data
        if not isinstance(mentions, str) or not isinstance(ident, str) or not _defining(kind):
            return None
        if not _text_or_none(version, written) or not _digest_or_none(digest):
            return None
        return Summary(mentions, kind, ident, version, written, digest)


def _defining(kind: JSON) -> bool:
    return isinstance(kind, str) and kind in BY_NAME and BY_NAME[kind].defines is not None


def _text_or_none(*values: JSON) -> bool:
    return all(v is None or isinstance(v, str) for v in values)


def _digest_or_none(digest: JSON) -> bool:
    """None, or names to lists of strings (Kind.digest's shape)."""
    return digest is None or (
        isinstance(digest, dict)
        and all(isinstance(v, list) and all(isinstance(x, str) for x in v) for v in digest.values())
    )


NOTHING = Summary()
# A reference to any id, pin included: the summary keeps every one a file mentions. One pattern
# per namespace: a literal start lets the regex engine skip ahead (4x faster than alternatives).
_ANY_REF = tuple(
    re.compile(
        re.escape(k.namespace.encode()) + rb"/[a-z][a-z0-9_]*(?![a-z0-9_])(?:@[0-9A-Za-z.+-]+)?"
    )
    for k in KINDS
    if k.defines and k.namespace
)


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
) -> Indexed:
    """`also`: base versions of changed and deleted files, whose ids count as the run's too;
    `gone`: files the change deletes; `store`: summaries from earlier runs; `jobs`: processes
    that summarize the files no summary is kept for (None: every core, for many files);
    `files`: the tree as a set, when the caller has one."""
    changed = _memo_changes(store, len(tree), len(linted))
    memo = store.memo() if store is not None and changed is not None else None
    if memo is not None and changed is not None and files is not None:
        assert store is not None
        return _from_memo(linted, tree, source, config, memo, changed, files, also, gone, store)
    return _from_summaries(linted, tree, source, config, also, gone, store, jobs, changed)


def _memo_changes(store: Store | None, tree: int, run: int) -> frozenset[str] | None:
    """For a run that keeps and asks a memo of the base's tree, the paths whose content may
    not be the base's; else None."""
    if store is None or tree < MEMO_FROM or run >= MEMO_RUN_TO:
        return None
    return store.base_changed()


def memo_for(store: Store | None, tree: int, run: int) -> TreeMemo | None:
    """The memo of the base's tree a run of `run` files in a tree of `tree` asks, if any."""
    changed = _memo_changes(store, tree, run)
    return store.memo() if store is not None and changed is not None else None


# Tree files from which a partial run keeps its commit's summaries as a memo (`io/memo.py`) and
# asks it: below, reading the summary of each file is as fast as opening the memo.
MEMO_FROM = 2000
# Run files up to which the memo is asked: a larger run reads most definers anyway, and its
# workers receive the whole project.
MEMO_RUN_TO = 1000


@record
class _Sorted:
    """The files outside the run, by what the index does with them."""

    later: list[Later]  # definers known by summary
    broken: list[tuple[str, str]]  # (kind, path) of definers whose id cannot be read
    mentioning: list[tuple[str, list[Ref]]]  # files that mention the run's ids, and how


def _from_summaries(
    linted: Sequence[Entry],
    tree: Sequence[str],
    source: Source,
    config: Config,
    also: Sequence[Entry],
    gone: frozenset[str],
    store: Store | None,
    jobs: int | None,
    changed: frozenset[str] | None,
) -> Indexed:
    """The index from a summary of each file outside the run (kept, or made now); with
    `changed` (`_memo_changes`), the memo of the base's tree is made from them too."""
    defined = _defined_ids([*linted, *also])
    named = {f"{ns}/{ident}" for ns, ident in defined}  # how a mention names them
    leaves = getattr(source, "outside", None)
    out = _Sorted([], [], [])
    others: list[str] = []
    rest = _rest(eval_files(tree), linted)
    # A whole run has no rest: it neither loads the cache nor asks git for content keys.
    known: Mapping[str, str] = store.known() if store is not None and rest else {}
    kept: Mapping[str, JSON] = store.kept() if store is not None and rest else {}
    # What files that define nothing mention matters only to a run whose files define ids.
    texts = store.texts() if store is not None and rest and defined else None
    may_name = _may_name(named)
    unknown: list[tuple[str, str | None]] = []  # (path, key) of files to summarize now
    summarized: list[tuple[str, Summary]] = []  # from the cache
    for path in rest:
        key = known.get(path)
        if key is None and leaves is not None and leaves(path):
            continue  # never read a file a symlink takes out of the project
        others.append(path)
        cached = _cached(kept.get(path), key)
        if type(cached) is int:  # `is_place`, inline: this loop runs once per tree file
            # Most files: they define nothing, and their summary is the text they mention.
            if texts is None:
                continue
            cached = text_at(texts, cached)
        if isinstance(cached, str):
            refs = _refs_to(cached, named) if may_name(cached) else None
            if refs:
                out.mentioning.append((path, refs))
            continue
        summary = Summary.from_json(cached) if cached is not None else None
        if summary is None:
            unknown.append((path, key))
        else:
            summarized.append((path, summary))
    # A memo is made from a warm cache: a run that finds none (a CI job's, each time) would
    # pay for one no run may ask, and the next run at this base makes it anyway.
    warm = bool(kept)
    fresh = _summaries(unknown, source, config, store, jobs, texts)
    load = partial(_load, source=source, config=config)
    _sort_out(chain(summarized, fresh), defined, named, load, out)
    if store is not None:
        store.keep(others)
        if changed is not None and warm:  # the run keeps a memo, and found none
            store.put_memo(*_memo_rows(rest, known, store, changed | {e.path for e in linted}))

    plain: dict[str, str] = {}  # what the files summarized now mention, made on first use

    def find(names: set[str]) -> Found:
        """Definers and other files outside the run that mention any of `names`: a second
        pass over the summaries, made only when the run's rubrics are composed by others."""
        if not plain:
            plain.update((p, s.mentions) for p, s in fresh if s.kind is None and s.mentions)
        # The texts the cache keeps apart: read now if the run did not (its files define no
        # id, yet they share values, or are composed).
        every = texts if texts is not None or store is None else store.texts()
        may = _may_name(names)
        definers = [d for d in out.later if may(d.mentions) and _names_any(d.mentions, names)]
        texts_found = []
        for path in others:
            text = plain.get(path)
            if text is None:
                cached = _cached(kept.get(path), known.get(path))
                if type(cached) is int:
                    cached = text_at(every, cached) if every is not None else None
                text = cached if isinstance(cached, str) else None
            if text and may(text):
                texts_found.append((path, text))
        return definers, texts_found

    return _indexed(
        linted,
        defined,
        named,
        out,
        out.later,
        source,
        config,
        gone,
        others,
        store,
        find if rest else None,
    )


def _sort_out(
    summaries: Iterable[tuple[str, Summary]],
    defined: set[tuple[str, str]],
    named: set[str],
    load: Callable[[str, Kind], Entry],
    out: _Sorted,
) -> None:
    for path, summary in summaries:
        if summary.kind is not None and not summary.ident:
            out.broken.append((summary.kind, path))
        elif summary.kind is not None:
            out.later.append(_later(path, summary, load))
        elif defined and summary.mentions:
            refs = _refs_to(summary.mentions, named)
            if refs:
                out.mentioning.append((path, refs))


def _indexed(
    linted: Sequence[Entry],
    defined: set[tuple[str, str]],
    named: set[str],
    out: _Sorted,
    candidates: Iterable[Later],
    source: Source,
    config: Config,
    gone: frozenset[str],
    others: Sequence[str],
    store: Store | None,
    find: Callable[[set[str]], Found] | None,
    backing: Backing | None = None,
) -> Indexed:
    """The project, and the files outside the run it affects. `candidates`: the definers
    outside the run that may refer to, or redefine, its ids; `find`: the definers and other
    files outside the run that mention given ids."""
    # In the tree's order, as if each file were taken in turn (messages list broken files).
    out.broken.sort(key=lambda b: b[1])
    out.mentioning.sort(key=lambda m: m[0])
    project = Project(linted, later=out.later, backing=backing)
    for kind_name, path in out.broken:
        project.add_broken(BY_NAME[kind_name], path)
    referrers: list[Entry] = []
    for path, refs in out.mentioning:
        if _might_break(refs, project):
            found = read_entry(path, source, config)
            if isinstance(found, Entry):
                project.add(found)
                referrers.append(found)
    touched = [
        e.entry()
        for e in candidates
        if _may_touch(e, defined, named) and _touches(e.entry(), defined, project)
    ]
    deeper: list[Entry] = []
    named_deeper: list[Entry] = []
    sharing: list[Entry] = []
    if find is not None:  # a partial run: files outside it
        deeper, named_deeper = _through_composites(touched, project, find, source, config)
        sharing = _sharing(linted, project, find, source, config)
    naming = _naming(gone, others, source, config, store)
    affected = touched + deeper + referrers + named_deeper + sharing
    return Indexed(project, tuple(affected), tuple(naming))


# Definers, and (path, mentions) of other files, that mention given ids (`_indexed`'s `find`).
Found = tuple[list[Later], list[tuple[str, str]]]


def _through_composites(
    touched: Sequence[Entry],
    project: Project,
    find: Callable[[set[str]], Found],
    source: Source,
    config: Config,
) -> tuple[list[Entry], list[Entry]]:
    """The rubrics outside the run that compose the run's at a depth of two or more (a cycle
    or a chain's depth through the run's rubrics is theirs too; those at one are `touched`),
    and the files outside the run that name a rubric composed of the run's: what the run's
    rubrics ask of questions (facts, tools) is asked by those that compose them, so a dataset
    that names one may now lack it."""
    rubric = ai_eval.RUBRIC
    composers: dict[str, str] = {}  # path -> id of rubrics outside the run that reach the run's
    new = {e.path: _own_id(e) for e in touched if e.kind is rubric}
    deeper: dict[str, Later] = {}
    found: dict[str, list[Ref]] = {}
    while new := {p: i for p, i in new.items() if i and p not in composers}:
        composers.update(new)
        names = {f"{rubric.namespace}/{i}" for i in new.values()}
        definers, texts = find(names)
        for path, text in texts:
            found.setdefault(path, []).extend(_refs_to(text, names))
        reached = [d for d in definers if d.kind is rubric and d.path not in composers]
        deeper.update((d.path, d) for d in reached)
        new = {d.path: d.ident for d in reached}
    named = []
    for path, refs in sorted(found.items()):
        if path in project.entries or not _might_break(refs, project, set(composers)):
            continue
        entry = read_entry(path, source, config)
        if isinstance(entry, Entry):
            project.add(entry)
            named.append(entry)
    return [d.entry() for _, d in sorted(deeper.items())], named


def _own_id(entry: Entry) -> str:
    """The id a definer's file defines; "" for one that defines none, or cannot be read."""
    found = entry.kind.defines(entry.doc.data) if entry.kind.defines and entry.doc.ok else None
    return found[0] if found else ""


def _from_memo(
    linted: Sequence[Entry],
    tree: Sequence[str],
    source: Source,
    config: Config,
    memo: TreeMemo,
    changed: frozenset[str],
    files: frozenset[str],
    also: Sequence[Entry],
    gone: frozenset[str],
    store: Store,
) -> Indexed:
    """The index of a --diff run from the memo of the base's tree: the files the change
    leaves as the base has them are asked for by id, the few others summarized now."""
    defined = _defined_ids([*linted, *also])
    named = {f"{ns}/{ident}" for ns, ident in defined}
    mine = {e.path for e in linted}
    load = partial(_load, source=source, config=config)
    # Rows of files the memo lacks are never served (a memo of a near base has rows of the
    # files that changed since).
    backing = _Backed(memo, changed | mine | memo.missing, load, source, config)
    out = _Sorted([], [], [])
    # Files of the tree the memo does not serve: those the change touched (not the run's),
    # and those not summarized when it was written.
    own = _own(sorted((memo.missing | changed) - mine), files, store.known(), source)
    many = len(own) >= SPLIT_FROM
    fresh = _summaries(
        [(p, store.known().get(p)) for p in own],
        source,
        config,
        store if many else None,
        None,
        store.texts() if many and defined else None,
    )
    _sort_out(fresh, defined, named, load, out)
    plain = [(p, s.mentions) for p, s in fresh if s.kind is None and s.mentions]

    def find(names: set[str]) -> Found:
        """Definers and other files outside the run that mention any of `names`."""
        definers, texts_found = backing.mentioning(sorted(names))
        definers += [d for d in out.later if _names_any(d.mentions, names)]
        return definers, texts_found + [(p, t) for p, t in plain if _names_any(t, names)]

    out.broken.extend(backing.broken())
    candidates = list(out.later)
    if defined:
        definers, plain = backing.mentioning(sorted(named))
        candidates += definers
        for path, mentions in plain:
            refs = _refs_to(mentions, named)
            if refs:
                out.mentioning.append((path, refs))
        for namespace, ident in sorted(defined):
            candidates += backing.definers(namespace, ident)
    unique = sorted({c.path: c for c in candidates}.values(), key=attrgetter("path"))
    others = _rest(eval_files(tree), linted) if gone else ()
    store.keep(tree)  # every file the memo may stand for keeps its summary in the cache
    return _indexed(
        linted, defined, named, out, unique, source, config, gone, others, store, find, backing
    )


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


def _memo_rows(
    rest: Sequence[str], known: Mapping[str, str], store: Store, hidden: frozenset[str]
) -> tuple[list[Row], list[str]]:
    """The rows of a memo of the base's tree, from the summaries the cache now holds, and the
    files it lacks: those whose content is not the base's (`hidden`), those not summarized."""
    kept, texts = store.kept(), store.texts()
    rows: list[Row] = []
    missing = set(hidden)
    for path in rest:
        key = known.get(path)
        cached = _cached(kept.get(path), key) if key and path not in hidden else None
        if type(cached) is int:  # most files: they define nothing, and mention this text
            cached = text_at(texts, cached)
        if isinstance(cached, str):
            rows.append((path, None, None, None, None, None, None, cached))
            continue
        found = Summary.from_json(cached) if cached is not None else None
        if found is None:
            missing.add(path)
        else:
            rows.append(_row(path, found))
    return rows, sorted(missing)


def _row(path: str, summary: Summary) -> Row:
    if summary.kind is None:
        return (path, None, None, None, None, None, None, summary.mentions)
    kind = BY_NAME[summary.kind]
    digest = None if summary.digest is None else json.dumps(summary.digest)
    ns = kind.namespace or kind.name
    return (
        path,
        kind.name,
        ns,
        summary.ident,
        summary.version,
        summary.written,
        digest,
        summary.mentions,
    )


class _Backed:
    """The project's view of a memo (`Project.Backing`): its definers but those `hidden` (the
    run's files, and those the change touched), each a `Later` made once, so the head and base
    projects share it and parse its file at most once. A row that does not read as a summary
    (a damaged memo) is summarized again from the file, which holds the base's content."""

    def __init__(
        self,
        memo: TreeMemo,
        hidden: frozenset[str],
        load: Callable[[str, Kind], Entry],
        source: Source,
        config: Config,
    ) -> None:
        self._memo, self._hidden, self._load = memo, hidden, load
        self._source, self._config = source, config
        self._made: dict[str, Later | None] = {}

    def definers(self, namespace: str, ident: str) -> list[Later]:
        return self._laters(self._memo.definers(namespace, ident))

    def ids(self, namespace: str) -> set[str]:
        rows = self._memo.ids(namespace)
        return {
            i for i, path, version in rows if path not in self._hidden and parse_version(version)
        }

    def at(self, path: str) -> Later | None:
        row = self._memo.at(path)
        return self._laters([row])[0] if row is not None and path not in self._hidden else None

    def every(self) -> list[Later]:
        return self._laters(self._memo.every())

    def broken(self) -> list[tuple[str, str]]:
        """(kind, path) of the definers whose id cannot be read."""
        rows = self._memo.broken()
        return [(s.kind, p) for p, s in self._summaries(rows) if s.kind and not s.ident]

    def mentioning(self, names: Sequence[str]) -> tuple[list[Later], list[tuple[str, str]]]:
        """The files that mention any of `names`: definers, and (path, mentions) of others."""
        rows = self._memo.mentioning(names)
        plain = [(p, s.mentions) for p, s in self._summaries(rows) if s.kind is None]
        return self._laters(rows), plain

    def _laters(self, rows: Iterable[Row]) -> list[Later]:
        out = []
        for row in rows:
            path = row[0]
            if path in self._hidden:
                continue
            if path not in self._made:
                summary = self._summary(row)
                known = summary.kind is not None and summary.ident
                self._made[path] = _later(path, summary, self._load) if known else None
            later = self._made[path]
            if later is not None:
                out.append(later)
        return out

    def _summaries(self, rows: Iterable[Row]) -> list[tuple[str, Summary]]:
        return [(row[0], self._summary(row)) for row in rows if row[0] not in self._hidden]

    def _summary(self, row: Row) -> Summary:
        path, kind, _, ident, version, written, digest, mentions = row
        try:
            loaded = None if digest is None else json.loads(digest)
        except (TypeError, ValueError, RecursionError):
            loaded = False
        data: JSON = mentions if kind is None else [mentions, kind, ident, version, written, loaded]
        summary = Summary.from_json(data)
        if summary is None:
            raw = _bytes(path, self._source, self._config) or b""
            summary = _summarize(path, raw, self._source, self._config)
        return summary


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


def _later(path: str, summary: Summary, load: Callable[[str, Kind], Entry]) -> Later:
    assert summary.kind is not None
    kind = BY_NAME[summary.kind]
    return Later(
        path,
        kind,
        summary.ident,
        summary.version,
        summary.written,
        load,
        summary.mentions,
        summary.digest,
    )


def _kept_summary(cached: JSON, texts: Sequence[JSON] | None) -> Summary | None:
    """The summary the cache holds, None for none. A file that defines nothing stands for the
    text it mentions, which a run that does not read the texts never uses."""
    if is_place(cached):
        if texts is None:
            return Summary()
        cached = text_at(texts, cached)
    return Summary.from_json(cached)


def _cached(entry: JSON, key: str | None) -> JSON:
    """The summary an earlier run kept, when it was made from this content; else None."""
    if key is not None and isinstance(entry, list) and len(entry) == 2 and entry[0] == key:
        return entry[1]
    return None


SPLIT_FROM = 1000  # files to summarize from which other processes share the work


def _summaries(
    unknown: list[tuple[str, str | None]],
    source: Source,
    config: Config,
    store: Store | None,
    jobs: int | None,
    texts: Sequence[JSON] | None,
) -> list[tuple[str, Summary]]:
    """The summaries of files none is kept for, made from their bytes (and kept for the next
    run). Many (a cold cache in a large tree) are made by forked processes, each a share.
    `texts`: what files that define nothing mention, None when the run does not read it."""
    if not unknown:
        return []
    kept = store.kept() if store is not None else None
    count = count_for(len(unknown), jobs) if len(unknown) >= SPLIT_FROM else 1
    make = partial(_summary, source=source, config=config, kept=kept, texts=texts)
    made = split_map(make, unknown, count)
    out = []
    for (path, _), (summary, key) in zip(unknown, made, strict=True):
        if store is not None and key is not None:
            store.put(path, key, summary.to_json())
        out.append((path, summary))
    return out


def _summary(
    item: tuple[str, str | None],
    *,
    source: Source,
    config: Config,
    kept: Mapping[str, JSON] | None,
    texts: Sequence[JSON] | None,
) -> tuple[Summary, str | None]:
    """A file's summary, and the content key to keep it under (None: not to be kept).
    `kept`: what the cache holds, None without one; `texts`: what files that define nothing
    mention, None when the run does not read it."""
    path, key = item
    raw = _bytes(path, source, config)
    if raw is None:
        # Unreadable, or over the size limit (never parsed, as the run itself would not): it
        # defines nothing a reference could resolve to, and nothing of it is kept.
        kind = _definer_by_path(path, config)
        return (Summary(kind=kind.name) if kind is not None else NOTHING), None
    if kept is None:
        return _summarize(path, raw, source, config), None
    if key is None:
        # Modified or untracked: its key is its bytes' hash, and an earlier run may have kept
        # the summary of these very bytes (then nothing is written again).
        from evallint.io.cache import blob_id

        key = blob_id(raw)
        found = _kept_summary(_cached(kept.get(path), key), texts)
        if found is not None:
            return found, None
    return _summarize(path, raw, source, config), key


# JSON and YAML may spell any character of a reference as an escape (`\/`, `\u0072`, YAML's
# `\x72`), and nested JSON text escapes its backslashes again: mentions are searched in the
# bytes with the escapes of printable ASCII undone. A text that only looks like a reference
# costs a parse later, never a finding; one that is missed would go unchecked.
_ESCAPE = re.compile(
    rb"\\+(?:/|u00([2-7][0-9a-fA-F])|x([2-7][0-9a-fA-F])|U000000([2-7][0-9a-fA-F]))"
)


def _unescaped(raw: bytes) -> bytes:
    if b"\\" not in raw:
        return raw
    return _ESCAPE.sub(lambda m: bytes([int(m[1] or m[2] or m[3] or "2f", 16)]), raw)


def _summarize(path: str, raw: bytes, source: Source, config: Config) -> Summary:
    text = _unescaped(raw)
    texts = {m.decode("ascii") for pattern in _ANY_REF for m in pattern.findall(text)}
    found = None
    if any(needle in text for needle in _MENTION_NEEDLES):
        # References the bytes do not spell out (EEE's version maps): read from the data.
        found = read_entry(path, source, config, raw)
        if isinstance(found, Entry) and found.kind.mentions is not None and found.doc.ok:
            texts |= {t for t in found.kind.mentions(found.doc.data) if _is_mention(t)}
    if any(key in text for key in _SHARED_NEEDLES):
        values = _shared_values(path, raw)
        if values is None:  # not JSON, or escapes that a search could misread: the data
            found = found if found is not None else read_entry(path, source, config, raw)
            values = {v for _, v in _shared_pairs(found)} if isinstance(found, Entry) else set()
        texts |= {shared_token(v) for v in values}
    mentions = " ".join(sorted(texts))
    if not (_definer_by_path(path, config) or _may_define(text)):
        return Summary(mentions)
    found = found if found is not None else read_entry(path, source, config, raw)
    if not isinstance(found, Entry) or found.kind.defines is None:
        return Summary(mentions)
    defined = found.kind.defines(found.doc.data) if found.doc.ok else None
    if not defined:
        return Summary(mentions, found.kind.name)  # a definer whose id cannot be read
    ident, version = defined
    data = found.doc.data
    written = data.get("version") if isinstance(data, dict) else version
    return Summary(
        mentions,
        found.kind.name,
        ident,
        version if isinstance(version, str) else None,
        None if written is None else repr(written),
        found.kind.digest(data) if found.kind.digest else None,
    )


def _load(path: str, kind: Kind, source: Source, config: Config) -> Entry:
    """A definer known by its summary, parsed now; one that no longer reads (changed since the
    listing) is an empty, unparsed document of the kind its summary gave."""
    found = read_entry(path, source, config)
    if isinstance(found, Entry):
        return found
    fmt = format_of(path)
    assert fmt is not None
    return Entry(Document(path, fmt, "", {}, False, ()), kind)


def _naming(
    gone: frozenset[str], paths: Sequence[str], source: Source, config: Config, store: Store | None
) -> list[Entry]:
    """The eval files outside the run that hold a deleted file's name, or may spell it with
    escapes, parsed."""
    if not gone:
        return []
    names = sorted({g.rpartition("/")[2].encode("utf-8", "surrogateescape") for g in gone})
    names += _ASCII_ESCAPES
    holding = store.grep(names) if store is not None else None
    if holding is None:
        pattern = re.compile(b"|".join(map(re.escape, names)))
        holding = {p for p in paths if pattern.search(_bytes(p, source, config) or b"")}
    found = (read_entry(p, source, config) for p in paths if p in holding)
    return [e for e in found if isinstance(e, Entry)]


# JSON and YAML may write any character of a name as an escape ("polic\\x79.md"): a file that
# holds an escape of printable ASCII, which is rare (JSON writers escape only what is not), is
# read as if it held the name. A file that names a deleted one and is missed goes unchecked.
_ASCII_ESCAPES = [
    f"\\{prefix}{digit}".encode() for prefix in ("u00", "x", "U000000") for digit in "234567"
]


def _sharing(
    linted: Sequence[Entry],
    project: Project,
    find: Callable[[set[str]], Found],
    source: Source,
    config: Config,
) -> list[Entry]:
    """The files outside the run whose kind shares a key (`Kind.shared`: a value that rules
    compare across files, such as EEE's evaluation ids) holding a value a file of the run
    holds, found by the token their summaries keep for it (`shared_token`); read, and added
    to the project, so what the change makes twice is found in both files."""
    wanted: dict[str, set[tuple[str, str]]] = {}  # kind -> (key, value) the run's files hold
    for entry in linted:
        pairs = _shared_pairs(entry)
        if pairs:
            wanted.setdefault(entry.kind.name, set()).update(pairs)
    if not wanted:
        return []
    tokens = {shared_token(v) for pairs in wanted.values() for _, v in pairs}
    definers, texts = find(tokens)
    # Exact, though `find` may give more (a search for many names gives every text).
    paths = {p for p, text in texts if not tokens.isdisjoint(text.split(" "))}
    paths |= {d.path for d in definers if not tokens.isdisjoint(d.mentions.split(" "))}
    out = []
    for path in sorted(paths - project.entries.keys()):
        found = read_entry(path, source, config)
        if isinstance(found, Entry) and _shares(found, wanted):
            project.add(found)
            out.append(found)
    return out


def _shares(entry: Entry, wanted: dict[str, set[tuple[str, str]]]) -> bool:
    """Whether the entry holds a shared key's value among those `wanted` for its kind."""
    pairs = wanted.get(entry.kind.name)
    return bool(pairs) and not _shared_pairs(entry).isdisjoint(pairs or ())


def _shared_pairs(entry: Entry) -> set[tuple[str, str]]:
    """(key, value) of its kind's shared keys an entry holds at the top level, as text."""
    data = entry.data if entry.kind.shared and entry.doc.ok else None
    if not isinstance(data, dict):
        return set()
    return {(k, v) for k in entry.kind.shared if isinstance(v := data.get(k), str) and v}


def _bytes(path: str, source: Source, config: Config) -> bytes | None:
    """A tree file's bytes; None when it cannot be read or is over the size limit."""
    try:
        found = read_capped(source, path, config.max_file_size)
    except OSError:
        return None
    return found if isinstance(found, bytes) else None


# Bytes of a file whose kind holds references its bytes do not spell out (`Kind.mentions`).
_MENTION_NEEDLES = tuple({n for k in KINDS if k.mentions for n in k.mention_needles})


# The keys whose values rules compare across files (`Kind.shared`), as a file's bytes hold them.
_SHARED_KEYS = tuple(sorted({key for k in KINDS for key in k.shared}))
_SHARED_NEEDLES = tuple(f'"{key}"'.encode() for key in _SHARED_KEYS)
_SHARED_VALUES = (
    re.compile(
        rb'"(?:'
        + b"|".join(re.escape(k.encode()) for k in _SHARED_KEYS)
        + rb')"\s*:\s*"((?:[^"\\]|\\.)*)"'
    )
    if _SHARED_KEYS
    else None
)


def shared_token(value: str) -> str:
    """How a summary's mentions hold a value of a shared key: one text with no space or pin,
    which no reference can be."""
    return "shared:" + value.encode("utf-8", "surrogateescape").hex()


def _shared_values(path: str, raw: bytes) -> set[str] | None:
    """The values of shared keys a JSON file's bytes hold, at any depth (more than the top
    level the rules read: a file found so is read to know). None when the bytes cannot be
    searched so: not JSON, or a `\\u` escape, which could spell a key or a quote."""
    if _SHARED_VALUES is None or not path.lower().endswith(".json") or b"\\u" in raw:
        return None
    out = set()
    for found in _SHARED_VALUES.findall(raw):
        try:
            value = json.loads(b'"' + found + b'"')
        except ValueError:  # a bad escape: the file does not parse, and is no record
            continue
        if isinstance(value, str) and value:
            out.add(value)
    return out


def _is_mention(text: str) -> bool:
    """Whether a reference text can stand in a summary's mentions: one that parses, and
    holds no space (the mentions are space-separated)."""
    return " " not in text and parse_ref(text) is not None


# Per defining kind, the texts its files hold (`Kind.needles`), tested on every file of a cold
# tree: a tuple made once and plain loops, not generators over every kind a file.
_DEFINER_NEEDLES = tuple(k.needles for k in KINDS if k.defines)


def _may_define(raw: bytes) -> bool:
    for needles in _DEFINER_NEEDLES:
        for needle in needles:
            if needle not in raw:
                break
        else:
            return True
    return False


def _definer_by_path(path: str, config: Config) -> Kind | None:
    """The kind that defines things the path alone gives the file, if any."""
    fmt = format_of(path)
    assert fmt is not None
    kind = kind_named(config.kind_name(path)) or path_kind(path, fmt)
    return kind if kind is not None and kind.defines is not None else None


def _defined_ids(entries: Sequence[Entry]) -> set[tuple[str, str]]:
    return {(e.kind.namespace, i) for e in entries if e.kind.namespace and (i := _own_id(e))}


def _refs_to(mentions: str, named: set[str]) -> list[Ref]:
    """The mentioned references that name an id of the run (`named`: "rubric/tone")."""
    if not mentions or not named:
        return []
    if len(named) <= 16 and not any(n in mentions for n in named):
        return []  # the common case, at C speed: none of the run's few ids is mentioned
    hits = (parse_ref(m) for m in mentions.split(" ") if m.partition("@")[0] in named)
    return [r for r in hits if r is not None]


def _names_any(mentions: str, names: set[str]) -> bool:
    """Whether a summary's mentions name any of `names`: an id ("rubric/tone", whatever its
    pin) or a shared value's token, as the memo's index of names does."""
    return any(m.partition("@")[0] in names for m in mentions.split(" ") if m)


def _may_name(named: set[str]) -> Callable[[str], object]:
    """A yes/no at C speed for the tree's many summaries: whether a text can mention an id of
    the run (`_refs_to` then says which); a run of many ids asks `_refs_to` of every text."""
    if not named:
        return lambda _: False
    if len(named) > 16:
        return lambda _: True
    return re.compile("|".join(re.escape(n) for n in sorted(named))).search


def _may_touch(later: Later, defined: set[tuple[str, str]], named: set[str]) -> bool:
    """Whether a definer's summary says it may refer to, or redefine, an id of the run: only
    then is it parsed to know."""
    own = (later.kind.namespace or later.kind.name, later.ident)
    return own in defined or bool(_refs_to(later.mentions, named))


def _might_break(
    refs: Sequence[Ref], project: Project, composers: AbstractSet[str] = frozenset()
) -> bool:
    """Whether a file that mentions the run's ids could get a finding the run causes.

    Its references to those ids may now fail to resolve, or resolve to a rubric of the run,
    or one that composes a rubric of the run (`composers`, by path), that asks questions for
    inputs (facts, tools) they may lack. (A definer the project holds as an entry is the
    run's: those outside it are `Later`, and files added as referrers define nothing.)
    """
    from evallint.rules.datasets import needs  # the rule's own notion of what a rubric needs

    for ref in refs:
        target = project.resolve(ref).target
        if target is None:
            return True
        if (
            (target.path in project.entries or target.path in composers)
            and ref.namespace == ai_eval.RUBRIC.name
            and needs(project, target)
        ):
            return True
    return False


def _touches(entry: Entry, defined: set[tuple[str, str]], project: Project) -> bool:
    """A definer outside the run that refers to, or redefines, an id of the run."""
    refs = {(r.namespace, r.id) for _, _, r in project.references(entry) if r is not None}
    own = _own_id(entry)
    return bool(refs & defined) or bool(own and (entry.kind.namespace, own) in defined)
