"""The project backed by the memo of the base's tree (`io/memo.py`): a --diff run in a large tree
asks the memo for the few definers it needs, by id, instead of reading every summary."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence

from evallint.config import Config
from evallint.engine.summary import (
    Store,
    Summary,
    cached_summary,
    later,
    read_bytes,
    summarize,
)
from evallint.io.cache import text_at
from evallint.io.memo import Row, TreeMemo
from evallint.io.source import Source
from evallint.kinds import BY_NAME, Kind
from evallint.model import JSON
from evallint.project import Entry, Later
from evallint.refs import parse_version


def memo_changes(store: Store | None, tree: int, run: int) -> frozenset[str] | None:
    """For a run that keeps and asks a memo of the base's tree, the paths whose content may
    not be the base's; else None."""
    if store is None or tree < MEMO_FROM or run >= MEMO_RUN_TO:
        return None
    return store.base_changed()


def memo_for(store: Store | None, tree: int, run: int) -> TreeMemo | None:
    """The memo of the base's tree a run of `run` files in a tree of `tree` asks, if any."""
    changed = memo_changes(store, tree, run)
    return store.memo() if store is not None and changed is not None else None


# Tree files from which a partial run keeps its commit's summaries as a memo (`io/memo.py`) and
# asks it: below, reading the summary of each file is as fast as opening the memo.
MEMO_FROM = 2000


# Run files up to which the memo is asked: a larger run reads most definers anyway, and its
# workers receive the whole project.
MEMO_RUN_TO = 1000


def memo_rows(
    rest: Sequence[str], known: Mapping[str, str], store: Store, hidden: frozenset[str]
) -> tuple[list[Row], list[str]]:
    """The rows of a memo of the base's tree, from the summaries the cache now holds, and the
    files it lacks: those whose content is not the base's (`hidden`), those not summarized."""
    kept, texts = store.kept(), store.texts()
    rows: list[Row] = []
    missing = set(hidden)
    for path in rest:
        key = known.get(path)
        cached = cached_summary(kept.get(path), key) if key and path not in hidden else None
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


class Backed:
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
                self._made[path] = later(path, summary, self._load) if known else None
            made = self._made[path]
            if made is not None:
                out.append(made)
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
            raw = read_bytes(path, self._source, self._config) or b""
            summary = summarize(path, raw, self._source, self._config)
        return summary
