"""The impact of a change: which files outside the run its ids, deletions and shared values may
give findings, through references, composition and shared keys. What a definer asks of the files
that refer to it is the rules' to say (`Rule.asks`); which kinds compose, the kinds'
(`Kind.composes`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from collections.abc import Set as AbstractSet

from evallint.config import Config
from evallint.engine.datasets import compared, entry_digests
from evallint.engine.summary import Store, read_bytes, shared_pairs, shared_token
from evallint.io.source import Source
from evallint.kinds.itemized import tokens
from evallint.project import Entry, Later, Project
from evallint.read import read_entry
from evallint.records import replace
from evallint.refs import Ref, parse_ref
from evallint.rules.base import Asks

# Definers, and (path, mentions) of other files, that mention given ids (`_indexed`'s `find`).
Found = tuple[list[Later], list[tuple[str, str]]]


def through_composites(
    touched: Sequence[Entry],
    project: Project,
    find: Callable[[set[str]], Found],
    reader: tuple[Source, Config],
    asks: Sequence[Asks],
) -> tuple[list[Entry], list[Entry]]:
    """The definers outside the run that compose the run's at a depth of two or more (a cycle
    or a chain's depth through the run's definers is theirs too; those at one are `touched`),
    and the files outside the run that name a definer composed of the run's: what the run's
    definers ask of the files that refer to them (`Rule.asks`) is asked by those that compose
    them, so a file that names one may now lack it (`Kind.composes`)."""
    composers: dict[str, str] = {}  # path -> name ("rubric/x") of composers that reach the run's
    new = {e.path: _name(e.kind.namespace, own_id(e)) for e in touched if e.kind.composes}
    deeper: dict[str, Later] = {}
    found: dict[str, list[Ref]] = {}
    while new := {p: n for p, n in new.items() if n and p not in composers}:
        composers.update(new)
        names = set(new.values())
        definers, texts = find(names)
        for path, text in texts:
            found.setdefault(path, []).extend(refs_to(text, names))
        reached = [d for d in definers if d.kind.composes and d.path not in composers]
        deeper.update((d.path, d) for d in reached)
        new = {d.path: _name(d.kind.namespace, d.ident) for d in reached}
    named = []
    for path, refs in sorted(found.items()):
        if path in project.entries or not might_break(refs, project, asks, set(composers)):
            continue
        entry = read_entry(path, *reader)
        if isinstance(entry, Entry):
            project.add(entry)
            named.append(entry)
    return [d.entry() for _, d in sorted(deeper.items())], named


def _name(namespace: str | None, ident: str) -> str:
    """How a reference names a definer ("rubric/tone"); "" for one that has no id."""
    return f"{namespace}/{ident}" if namespace and ident else ""


def own_id(entry: Entry) -> str:
    """The id a definer's file defines; "" for one that defines none, or cannot be read."""
    found = entry.kind.defines(entry.doc.data) if entry.kind.defines and entry.doc.ok else None
    return found[0] if found else ""


def naming(
    gone: frozenset[str],
    also: frozenset[str],
    paths: Sequence[str],
    source: Source,
    config: Config,
    store: Store | None,
) -> list[Entry]:
    """The eval files outside the run that hold a deleted file's name, or a name other files
    call it by (`also`: `names_of`), or may spell one with escapes, parsed."""
    if not gone:
        return []
    words = {g.rpartition("/")[2] for g in gone} | also
    names = sorted(w.encode("utf-8", "surrogateescape") for w in words if w)
    names += _ASCII_ESCAPES
    holding = store.grep(names) if store is not None else None
    if holding is None:
        pattern = re.compile(b"|".join(map(re.escape, names)))
        holding = {p for p in paths if pattern.search(read_bytes(p, source, config) or b"")}
    found = (read_entry(p, source, config) for p in paths if p in holding)
    return [e for e in found if isinstance(e, Entry)]


def names_of(deleted: Sequence[Entry]) -> frozenset[str]:
    """The names other files call the deleted files by, not by path (`Kind.named_by`)."""
    out: set[str] = set()
    for entry in deleted:
        for key in entry.kind.named_by if entry.sound else ():
            value = entry.top(key)
            values = value if isinstance(value, list) else [value]
            out.update(v for v in values if isinstance(v, str))
    return frozenset(out)


# JSON and YAML may write any character of a name as an escape ("polic\\x79.md"): a file that
# holds an escape of printable ASCII, which is rare (JSON writers escape only what is not), is
# read as if it held the name. A file that names a deleted one and is missed goes unchecked.
_ASCII_ESCAPES = [
    f"\\{prefix}{digit}".encode() for prefix in ("u00", "x", "U000000") for digit in "234567"
]


def sharing(
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
        pairs = shared_pairs(entry)
        if pairs:
            wanted.setdefault(entry.kind.name, set()).update(pairs)
    held = {shared_token(v) for pairs in wanted.values() for _, v in pairs}
    out = []
    for found in _holding(held, project, find, source, config):
        if _shares(found, wanted):
            project.add(found)
            out.append(found)
    return out


def sharing_items(
    linted: Sequence[Entry],
    project: Project,
    find: Callable[[set[str]], Found],
    source: Source,
    config: Config,
) -> list[Entry]:
    """The datasets outside the run that ask an input a dataset of the run asks, found by the
    tokens their summaries keep for their inputs' digests (`kinds/itemized.py`); read, their
    digests worked out, and added to the project (`shared-item` compares them)."""
    held = {t for e in linted if e.items for t in tokens(e.items)}
    out = []
    for found in _holding(held, project, find, source, config):
        if compared(found):
            found = replace(found, items=entry_digests(found, source, config.max_file_size))
            project.add(found)
            out.append(found)
    return out


def _holding(
    held: set[str],
    project: Project,
    find: Callable[[set[str]], Found],
    source: Source,
    config: Config,
) -> Iterator[Entry]:
    """The files outside the project whose summaries hold any of the tokens `held`, read."""
    if not held:
        return
    definers, texts = find(held)
    # Exact, though `find` may give more (a search for many names gives every text).
    paths = {p for p, text in texts if not held.isdisjoint(text.split(" "))}
    paths |= {d.path for d in definers if not held.isdisjoint(d.mentions.split(" "))}
    for path in sorted(paths - project.entries.keys()):
        found = read_entry(path, source, config)
        if isinstance(found, Entry):
            yield found


def _shares(entry: Entry, wanted: dict[str, set[tuple[str, str]]]) -> bool:
    """Whether the entry holds a shared key's value among those `wanted` for its kind."""
    pairs = wanted.get(entry.kind.name)
    return bool(pairs) and not shared_pairs(entry).isdisjoint(pairs or ())


def defined_ids(entries: Sequence[Entry]) -> set[tuple[str, str]]:
    return {(e.kind.namespace, i) for e in entries if e.kind.namespace and (i := own_id(e))}


def refs_to(mentions: str, named: set[str]) -> list[Ref]:
    """The mentioned references that name an id of the run (`named`: "rubric/tone")."""
    if not mentions or not named:
        return []
    if len(named) <= 16 and not any(n in mentions for n in named):
        return []  # the common case, at C speed: none of the run's few ids is mentioned
    hits = (parse_ref(m) for m in mentions.split(" ") if m.partition("@")[0] in named)
    return [r for r in hits if r is not None]


def names_any(mentions: str, names: set[str]) -> bool:
    """Whether a summary's mentions name any of `names`: an id ("rubric/tone", whatever its
    pin) or a shared value's token, as the memo's index of names does."""
    return any(m.partition("@")[0] in names for m in mentions.split(" ") if m)


def may_name(named: set[str]) -> Callable[[str], object]:
    """A yes/no at C speed for the tree's many summaries: whether a text can mention an id of
    the run (`refs_to` then says which); a run of many ids asks `refs_to` of every text."""
    if not named:
        return lambda _: False
    if len(named) > 16:
        return lambda _: True
    return re.compile("|".join(re.escape(n) for n in sorted(named))).search


def may_touch(later: Later, defined: set[tuple[str, str]], named: set[str]) -> bool:
    """Whether a definer's summary says it may refer to, or redefine, an id of the run: only
    then is it parsed to know."""
    own = (later.kind.namespace or later.kind.name, later.ident)
    return own in defined or bool(refs_to(later.mentions, named))


def might_break(
    refs: Sequence[Ref],
    project: Project,
    asks: Sequence[Asks],
    composers: AbstractSet[str] = frozenset(),
) -> bool:
    """Whether a file that mentions the run's ids could get a finding the run causes.

    Its references to those ids may now fail to resolve, or resolve to a definer of the run,
    or one that composes a definer of the run (`composers`, by path), that asks of the files
    referring to it what they may lack (`asks`: the active rules' `Rule.asks`). (A definer the
    project holds as an entry is the run's: those outside it are `Later`, and files added as
    referrers define nothing.)
    """
    for ref in refs:
        target = project.resolve(ref).target
        if target is None:
            return True
        if (target.path in project.entries or target.path in composers) and any(
            ask(project, target) for ask in asks
        ):
            return True
    return False


def touches(entry: Entry, defined: set[tuple[str, str]], project: Project) -> bool:
    """A definer outside the run that refers to, or redefines, an id of the run."""
    refs = {(r.namespace, r.id) for _, _, r in project.references(entry) if r is not None}
    own = own_id(entry)
    return bool(refs & defined) or bool(own and (entry.kind.namespace, own) in defined)
