"""The project index: every eval file of the tree, parsed once, shared by cross-file rules.

A definer outside the run may be known from its summary alone (`Later`): its id and version
resolve references, and its file is parsed only when a rule first reads its document.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from operator import attrgetter, itemgetter
from types import EllipsisType
from typing import Protocol, cast

from evallint.facts import Facts
from evallint.kinds import BY_NAME, KINDS, Kind
from evallint.kinds.base import Digest
from evallint.model import JSON, Pointer
from evallint.parse import Document, Format
from evallint.records import record
from evallint.refs import Outcome, Ref, Version, parse_ref, parse_version, pick


@record
class Definition:
    """One version of a rubric or judge that the tree defines."""

    namespace: str
    id: str
    version: Version
    path: str
    held: Document | Later  # the document, or what parses it on first use

    @property
    def doc(self) -> Document:
        held = self.held
        return held if isinstance(held, Document) else held.entry().doc

    @property
    def label(self) -> str:
        return f"{self.id}@{self.version}"

    def digest(self) -> Digest:
        """What rules of other files read of it (`Kind.digest`): from its summary when it has
        one, so the file is not parsed for it; else worked out from the document."""
        held = self.held
        if isinstance(held, Later) and held.digest is not None:
            return held.digest
        digest = _DIGESTS.get(self.namespace)
        return digest(self.doc.data) if digest is not None else {}


@record
class Resolution:
    """What a reference resolves to in the project, and why not when it does not."""

    ref: Ref
    outcome: Outcome
    target: Definition | None


@record
class Rest:
    """Where a JSONL file read in chunks goes on after the entry's document."""

    offset: int  # bytes
    lines: int  # lines before it


@record
class Entry:
    """A file of the run: its document and its kind."""

    doc: Document
    kind: Kind
    rest: Rest | None = None  # a large JSONL file: its document is the first chunk
    # A dataset's distinct inputs, digested (`kinds/itemized.py`), when the run compares
    # datasets (`shared-item`): all the project needs of its items, whatever its size.
    items: bytes | None = None

    @property
    def path(self) -> str:
        return self.doc.path

    @property
    def data(self) -> JSON:
        """The document's data (a `Kept` makes only this, not the document)."""
        return self.doc.data

    def top(self, key: str) -> JSON | EllipsisType:
        """The value of a top-level key, `ABSENT` when the data is no mapping or lacks it (a
        `Kept` looks it up among its values: a rule reading one key of thousands of files
        makes no mapping for each)."""
        data = self.data
        return data.get(key, ABSENT) if isinstance(data, dict) else ABSENT

    def kept(self) -> tuple[JSON | EllipsisType, ...]:
        """The values of the keys the project keeps of a file of its kind (`Kind.kept_keys`),
        in that order, `ABSENT` for each the data lacks: a rule reading them of every file
        of a large tree asks once a file (a `Kept` holds them so)."""
        return tuple(self.top(k) for k in self.kind.kept_keys)

    @property
    def sound(self) -> bool:
        """Whether the file parsed whole (a `Kept` knows without making its document)."""
        return self.doc.ok

    def solid(self) -> Entry:
        """The entry with its document held (see `Kept`)."""
        return self


class Kept(Entry):
    """What a run keeps of a checked file that defines nothing (`shared_only`), in the least
    memory: its path, format, kind and the values of the keys its kind shares, not a Document
    and a dict (a datastore's run keeps one a record). `doc` makes the Document on each use:
    only rules of other files read it, a few times a run."""

    __slots__ = ("_mapping", "_value", "fmt", "ok", "path")
    path: str  # a slot here, where Entry reads its document's
    fmt: Format
    ok: bool
    _mapping: bool
    _value: JSON
    rest = None  # never in chunks: those are kept whole

    def __init__(
        self,
        path: str,
        fmt: Format,
        ok: bool,
        kind: Kind,
        mapping: bool,
        value: JSON,
        items: bytes | None = None,
    ) -> None:
        """`mapping`: the data was a mapping; `value`: the one kept key's value, or a tuple of
        the values when the kind keeps several (`Kind.kept_keys`), `ABSENT` for a key the
        mapping lacks."""
        put = object.__setattr__  # Entry's frozen guard refuses every name, a Kept's too
        put(self, "path", path)
        put(self, "fmt", fmt)
        put(self, "ok", ok)
        put(self, "kind", kind)
        put(self, "_mapping", mapping)
        put(self, "_value", value)
        put(self, "items", items)

    @property
    def doc(self) -> Document:
        return Document(self.path, self.fmt, "", self.data, self.ok, ())

    @property
    def data(self) -> JSON:
        if not self._mapping:
            return None
        keys, value = self.kind.kept_keys, self._value
        if len(keys) == 1:
            return {} if value is ABSENT else {keys[0]: value}
        values = cast(tuple[JSON, ...], value)
        return {k: v for k, v in zip(keys, values, strict=True) if v is not ABSENT}

    def top(self, key: str) -> JSON | EllipsisType:
        keys = self.kind.kept_keys
        if not self._mapping or key not in keys:
            return ABSENT
        if len(keys) == 1:
            return self._value
        return cast(tuple[JSON, ...], self._value)[keys.index(key)]

    def kept(self) -> tuple[JSON | EllipsisType, ...]:
        keys = self.kind.kept_keys
        if not self._mapping:
            return (ABSENT,) * len(keys)
        return (self._value,) if len(keys) == 1 else cast(tuple[JSON, ...], self._value)

    @property
    def sound(self) -> bool:
        return self.ok

    def solid(self) -> Entry:
        return Entry(self.doc, self.kind, items=self.items)

    def with_items(self, items: bytes) -> Kept:
        return Kept(self.path, self.fmt, self.ok, self.kind, self._mapping, self._value, items)

    def packed(self) -> PackedKept:
        """The form that crosses a pipe fastest (`unpack_kept` makes it again)."""
        kind = self.kind.name
        return (self.path, self.fmt, self.ok, kind, self._mapping, self._value, self.items)

    def __reduce__(self) -> tuple[Callable[[PackedKept], Kept], tuple[PackedKept]]:
        return (unpack_kept, (self.packed(),))


PackedKept = tuple[str, Format, bool, str, bool, JSON, bytes | None]
# A kept key the file does not write: `...`, a singleton no JSON value is, which pickles as
# itself (a tuple of kept values crosses a pipe as fast as ever).
ABSENT = ...


def unpack_kept(packed: PackedKept, path: str | None = None) -> Kept:
    """`path`: this process's own copy of the packed path, to keep instead of the one the pipe
    brought (a second copy of every path would be a large run's memory)."""
    sent, fmt, ok, kind, mapping, value, items = packed
    return Kept(path or sent, fmt, ok, BY_NAME[kind], mapping, value, items)


def shared_only(entry: Entry) -> Entry:
    """What other files' rules may read of an entry: all of a definer, else the top-level keys
    its kind shares (`Kind.shared`), as a `Kept` when it can be one. All a run keeps of a
    checked file for the project."""
    if entry.kind.defines is not None or isinstance(entry, Kept):
        return entry  # (a Kept's document would be made only to be dropped)
    doc, kind = entry.doc, entry.kind
    data, keys = doc.data, kind.kept_keys
    if not isinstance(data, dict):
        return Kept(doc.path, doc.fmt, doc.ok, kind, False, None)
    get = data.get
    value = get(keys[0], ABSENT) if len(keys) == 1 else tuple(get(k, ABSENT) for k in keys)
    return Kept(doc.path, doc.fmt, doc.ok, kind, True, cast(JSON, value))


# A definition without a digest in its summary works it out by its namespace's kind.
_DIGESTS = {k.namespace: k.digest for k in KINDS if k.namespace and k.digest}


class Later:
    """A file outside the run that defines `namespace/ident`, known from its summary (the
    cache's, or one just made); parsed when a rule first reads it, at most once."""

    __slots__ = (
        "_entry",
        "_load",
        "digest",
        "ident",
        "kind",
        "mentions",
        "path",
        "version",
        "written",
    )

    def __init__(
        self,
        path: str,
        kind: Kind,
        ident: str,
        version: str | None,
        written: str | None,
        load: Callable[[str, Kind], Entry],
        mentions: str = "",
        digest: Digest | None = None,
    ) -> None:
        self.path, self.kind, self.ident = path, kind, ident
        self.mentions = mentions  # the reference texts in its bytes, space-separated
        self.digest = digest  # what rules of other files read of it (Kind.digest), if known
        self.version = version  # as written, when written as a string
        self.written = written  # repr of a version not written as a string; None: no version
        self._load = load
        self._entry: Entry | None = None

    def entry(self) -> Entry:
        if self._entry is None:
            self._entry = self._load(self.path, self.kind)
        return self._entry


class Backing(Protocol):
    """Definers of a large tree that a project asks for by id, not holds (`engine/index.py`):
    the same `Later` each time for a file, so projects that share a backing parse it once."""

    def definers(self, namespace: str, ident: str) -> Sequence[Later]: ...

    def ids(self, namespace: str) -> set[str]: ...  # ids of definers with a version, in all

    def at(self, path: str) -> Later | None: ...

    def every(self) -> Sequence[Later]: ...


class Project:
    def __init__(
        self,
        entries: Iterable[Entry],
        *,
        ordered: bool = False,
        later: Iterable[Later] = (),
        backing: Backing | None = None,
    ) -> None:
        """`ordered`: the entries are already in the order to keep (a copy of a project);
        `later`: definers known by their summary, parsed on first use; `backing`: more
        definers, asked for by id when a rule first looks one up (never those of `entries`
        or `later`: the backing leaves them out)."""
        self.entries: dict[str, Entry] = {}
        self.later: dict[str, Later] = {}
        self.backing = backing
        self._asked: set[tuple[str, str]] = set()  # ids the backing was asked for
        self.defs: dict[tuple[str, str], list[Definition]] = {}
        self._resolved: dict[Ref, Resolution] = {}
        # (namespace, id) -> (path, repr of the version as written, None if none) of definitions
        # whose version is not semver: nothing resolves to them, and a reference says why.
        self.unversioned: dict[tuple[str, str], list[tuple[str, str | None]]] = {}
        # namespace -> files of a kind that defines things whose id cannot be read (they do not
        # parse, or name no id): a reference that resolves nowhere says so.
        self.broken: dict[str, list[str]] = {}
        self.facts = Facts()  # what rules work out once per project
        both: list[Entry | Later] = [*entries, *later]
        for item in both if ordered else sorted(both, key=attrgetter("path")):
            if isinstance(item, Later):
                self.add_later(item)
            else:
                self.add(item)

    def add(self, entry: Entry) -> None:
        self.entries[entry.path] = entry
        if entry.kind.defines is None:
            return
        found = entry.kind.defines(entry.doc.data) if entry.doc.ok else None
        if not found:
            self.add_broken(entry.kind, entry.doc.path)
            return
        data = entry.doc.data
        written = data.get("version") if isinstance(data, dict) else found[1]
        self._define(
            entry.kind,
            found[0],
            entry.doc.path,
            entry.doc,
            parse_version(found[1]),
            None if written is None else repr(written),
        )

    def add_broken(self, kind: Kind, path: str) -> None:
        self.broken.setdefault(kind.namespace or kind.name, []).append(path)

    def add_later(self, later: Later) -> None:
        self.later[later.path] = later
        version = parse_version(later.version)
        self._define(later.kind, later.ident, later.path, later, version, later.written)

    def _define(
        self,
        kind: Kind,
        ident: str,
        path: str,
        held: Document | Later,
        version: Version | None,
        written: str | None,
    ) -> None:
        ns = kind.namespace or kind.name
        if version is None:
            self.unversioned.setdefault((ns, ident), []).append((path, written))
            return
        self.defs.setdefault((ns, ident), []).append(Definition(ns, ident, version, path, held))

    def _ask(self, namespace: str, ident: str) -> None:
        """The backing's definers of this id, added once, in path order among the others as
        if the project had held them from the start."""
        key = (namespace, ident)
        if self.backing is None or key in self._asked:
            return
        self._asked.add(key)
        found = self.backing.definers(namespace, ident)
        if not found:
            return
        for later in found:
            self._define(
                later.kind,
                later.ident,
                later.path,
                later,
                parse_version(later.version),
                later.written,
            )
        if key in self.defs:
            self.defs[key].sort(key=attrgetter("path"))
        if key in self.unversioned:
            self.unversioned[key].sort(key=itemgetter(0))

    def every_entry(self) -> list[Entry]:
        """Every file of the project, parsed: definers known by summary are parsed now."""
        backed = self.backing.every() if self.backing is not None else ()
        out = [*self.entries.values(), *(e.entry() for e in (*self.later.values(), *backed))]
        return sorted(out, key=lambda e: e.path)

    def document(self, path: str) -> Document | None:
        entry = self.entries.get(path)
        later = self.later.get(path) if entry is None else None
        if entry is None and later is None and self.backing is not None:
            later = self.backing.at(path)
        if later is not None:
            entry = later.entry()
        return entry.doc if entry else None

    def ids(self, namespace: str) -> list[str]:
        own = {i for ns, i in self.defs if ns == namespace}
        return sorted(own | self.backing.ids(namespace) if self.backing is not None else own)

    def versions(self, namespace: str, ident: str) -> list[Definition]:
        self._ask(namespace, ident)
        return self.defs.get((namespace, ident), [])

    def unversioned_of(self, namespace: str, ident: str) -> list[tuple[str, str | None]]:
        """The definitions of this id whose version is missing or not semver."""
        self._ask(namespace, ident)
        return self.unversioned.get((namespace, ident), [])

    def resolve(self, ref: Ref) -> Resolution:
        found = self._resolved.get(ref)
        if found is None:
            found = self._resolved[ref] = self._resolve(ref)
        return found

    def _resolve(self, ref: Ref) -> Resolution:
        defs = self.versions(ref.namespace, ref.id)
        if not defs:
            return Resolution(ref, "unknown-id", None)
        outcome, version = pick(ref.pin, [d.version for d in defs])
        target = next(
            (d for d in defs if version is not None and d.version.compare(version) == 0), None
        )
        return Resolution(ref, outcome, target)

    def references(self, entry: Entry) -> Iterator[tuple[Pointer, str, Ref | None]]:
        if not entry.doc.ok or entry.kind.references is None:
            return
        for pointer, text in entry.kind.references(entry.doc.data):
            yield pointer, text, parse_ref(text)
