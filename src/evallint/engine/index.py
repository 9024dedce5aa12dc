"""Building the project index for a run, and finding the files outside it that it affects.

A run over part of the tree (pre-commit passes a few files) still resolves references against
the whole project. Only files whose path or bytes could matter are parsed: files that can define
a rubric or judge, and files whose text refers to an id the run defines in a way the run could
break. The rest of the tree is never parsed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from evallint.config import Config
from evallint.io.source import Source
from evallint.kinds import KINDS, ai_eval, kind_named, path_kind
from evallint.parse import format_of
from evallint.project import Entry, Project
from evallint.read import read_entry
from evallint.refs import Ref, parse_ref


@dataclass(frozen=True, slots=True)
class Indexed:
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
) -> Indexed:
    """`also`: base versions of changed and deleted files, whose ids count as the run's too;
    `gone`: files the change deletes, looked for by name in the bytes this walk reads anyway."""
    inside = {e.doc.path for e in linted}
    defined = _defined_ids([*linted, *also])
    mentions = _mention_pattern(defined)
    gone_names = _name_pattern(gone)
    definers: list[Entry] = []
    mentioning: list[tuple[str, bytes]] = []
    naming: list[Entry] = []
    leaves = getattr(source, "outside", None)
    for path in tree:
        if path in inside or format_of(path) is None:
            continue
        if leaves is not None and leaves(path):
            continue  # never read a file a symlink takes out of the project
        raw = _candidate_bytes(path, source, config)
        found = None
        if raw is None or (raw and _may_define(raw)):
            found = read_entry(path, source, config, raw)
            if isinstance(found, Entry):
                definers.append(found)
        elif raw and mentions is not None and mentions.search(raw):
            mentioning.append((path, raw))
        if raw and gone_names is not None and gone_names.search(raw):
            found = found or read_entry(path, source, config, raw)
            if isinstance(found, Entry):
                naming.append(found)
    project = Project([*linted, *definers])
    referrers = []
    for path, raw in mentioning:
        if mentions is not None and _might_break(raw, mentions, project, inside):
            found = read_entry(path, source, config, raw)
            if isinstance(found, Entry):
                project.add(found)
                referrers.append(found)
    touched = [e for e in definers if _touches(e, defined, project)]
    return Indexed(project, tuple(touched + referrers), tuple(naming))


def _name_pattern(gone: frozenset[str]) -> re.Pattern[bytes] | None:
    """The file names of deleted files: the cheap test for a file that may name one."""
    if not gone:
        return None
    names = sorted({g.rpartition("/")[2].encode("utf-8", "surrogateescape") for g in gone})
    return re.compile(b"|".join(map(re.escape, names)))


def _may_define(raw: bytes) -> bool:
    return any(all(n in raw for n in k.needles) for k in KINDS if k.defines)


def _candidate_bytes(path: str, source: Source, config: Config) -> bytes | None:
    """None: the path alone says the file defines things; b"": not worth reading."""
    fmt = format_of(path)
    assert fmt is not None
    kind = kind_named(config.kind_name(path)) or path_kind(path, fmt)
    if kind is not None and kind.defines is not None:
        return None
    try:
        if source.size(path) > config.max_file_size:
            return b""
        return source.read(path)
    except OSError:
        return b""


def _defined_ids(entries: Sequence[Entry]) -> set[tuple[str, str]]:
    out = set()
    for e in entries:
        found = e.kind.defines(e.doc.data) if e.kind.defines and e.doc.ok else None
        if found and e.kind.namespace:
            out.add((e.kind.namespace, found[0]))
    return out


def _mention_pattern(defined: set[tuple[str, str]]) -> re.Pattern[bytes] | None:
    """References to the run's own ids, pin included, and nothing else."""
    if not defined:
        return None
    names = sorted(f"{ns}/{ident}".encode() for ns, ident in defined)
    return re.compile(
        b"(?:" + b"|".join(map(re.escape, names)) + rb")(?![a-z0-9_])" + rb"(?:@[0-9A-Za-z.+-]+)?"
    )


def _refs_in(raw: bytes, mentions: re.Pattern[bytes]) -> Iterator[Ref]:
    for text in set(mentions.findall(raw)):
        ref = parse_ref(text.decode("ascii"))
        if ref is not None:
            yield ref


def _might_break(
    raw: bytes, mentions: re.Pattern[bytes], project: Project, inside: set[str]
) -> bool:
    """Whether a file that mentions the run's ids could get a finding the run causes.

    Its references to those ids may now fail to resolve, or resolve to a rubric of the run
    that asks questions for inputs (facts, tools) they may lack.
    """
    from evallint.rules.datasets import needs  # the rule's own notion of what a rubric needs

    for ref in _refs_in(raw, mentions):
        target = project.resolve(ref).target
        if target is None:
            return True
        if (
            target.path in inside
            and ref.namespace == ai_eval.RUBRIC.name
            and needs(project, target.doc)
        ):
            return True
    return False


def _touches(entry: Entry, defined: set[tuple[str, str]], project: Project) -> bool:
    """A definer outside the run that refers to, or redefines, an id of the run."""
    refs = {(r.namespace, r.id) for _, _, r in project.references(entry) if r is not None}
    own = entry.kind.defines(entry.doc.data) if entry.kind.defines and entry.doc.ok else None
    return bool(refs & defined) or bool(own and (entry.kind.namespace, own[0]) in defined)
