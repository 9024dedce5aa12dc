"""What the index knows of a file outside the run: its summary (`Summary`), the id and version it
defines and the ids its text mentions, made from its bytes or taken from the cache (`Store`).
Only files whose bytes could matter are parsed: those that can define an id."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Protocol

from evallint.config import Config
from evallint.engine.datasets import compared, entry_digests
from evallint.engine.parallel import count_for, split_map
from evallint.io.cache import is_place, text_at
from evallint.io.memo import Row, TreeMemo
from evallint.io.source import Source, read_capped
from evallint.kinds import BY_NAME, DATASETS, KINDS, Kind, kind_named, path_kind
from evallint.kinds.base import Digest
from evallint.kinds.itemized import tokens
from evallint.model import JSON
from evallint.parse import Document, format_of
from evallint.project import Entry, Later
from evallint.read import read_entry
from evallint.records import record
from evallint.refs import parse_ref


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


def later(path: str, summary: Summary, load: Callable[[str, Kind], Entry]) -> Later:
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


def cached_summary(entry: JSON, key: str | None) -> JSON:
    """The summary an earlier run kept, when it was made from this content; else None."""
    if key is not None and isinstance(entry, list) and len(entry) == 2 and entry[0] == key:
        return entry[1]
    return None


SPLIT_FROM = 1000  # files to summarize from which other processes share the work


def summaries(
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
    raw = read_bytes(path, source, config)
    if raw is None:
        # Unreadable, or over the size limit (never parsed, as the run itself would not): it
        # defines nothing a reference could resolve to, and nothing of it is kept.
        kind = definer_by_path(path, config)
        return (Summary(kind=kind.name) if kind is not None else NOTHING), None
    if kept is None:
        return summarize(path, raw, source, config), None
    if key is None:
        # Modified or untracked: its key is its bytes' hash, and an earlier run may have kept
        # the summary of these very bytes (then nothing is written again).
        from evallint.io.cache import blob_id

        key = blob_id(raw)
        found = _kept_summary(cached_summary(kept.get(path), key), texts)
        if found is not None:
            return found, None
    return summarize(path, raw, source, config), key


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


def summarize(path: str, raw: bytes, source: Source, config: Config) -> Summary:
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
            values = {v for _, v in shared_pairs(found)} if isinstance(found, Entry) else set()
        texts |= {shared_token(v) for v in values}
    if may_hold_items(path, text):
        found = found if found is not None else read_entry(path, source, config, raw)
        if isinstance(found, Entry) and compared(found):
            texts.update(tokens(entry_digests(found, source, config.max_file_size)))
    mentions = " ".join(sorted(texts))
    if not (definer_by_path(path, config) or may_define(text)):
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


def load_definer(path: str, kind: Kind, source: Source, config: Config) -> Entry:
    """A definer known by its summary, parsed now; one that no longer reads (changed since the
    listing) is an empty, unparsed document of the kind its summary gave."""
    found = read_entry(path, source, config)
    if isinstance(found, Entry):
        return found
    fmt = format_of(path)
    assert fmt is not None
    return Entry(Document(path, fmt, "", {}, False, ()), kind)


def shared_pairs(entry: Entry) -> set[tuple[str, str]]:
    """(key, value) of its kind's shared keys an entry holds at the top level, as text."""
    data = entry.data if entry.kind.shared and entry.doc.ok else None
    if not isinstance(data, dict):
        return set()
    return {(k, v) for k in entry.kind.shared if isinstance(v := data.get(k), str) and v}


def read_bytes(path: str, source: Source, config: Config) -> bytes | None:
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


def may_define(raw: bytes) -> bool:
    for needles in _DEFINER_NEEDLES:
        for needle in needles:
            if needle not in raw:
                break
        else:
            return True
    return False


# Per dataset kind, its formats and the bytes every file of it that has an item holds.
_ITEM_NEEDLES = tuple((k.formats, k.item_needles) for k in DATASETS)


def may_hold_items(path: str, raw: bytes) -> bool:
    """Whether the file may be a dataset with items (`Kind.item_needles`): only then is it
    parsed for its items' digests."""
    fmt = format_of(path)
    for formats, needles in _ITEM_NEEDLES:
        if fmt in formats and all(needle in raw for needle in needles):
            return True
    return False


def definer_by_path(path: str, config: Config) -> Kind | None:
    """The kind that defines things the path alone gives the file, if any."""
    fmt = format_of(path)
    assert fmt is not None
    kind = kind_named(config.kind_name(path)) or path_kind(path, fmt)
    return kind if kind is not None and kind.defines is not None else None
