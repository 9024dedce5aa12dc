"""The files that read a changed file at run time (`Kind.reads`: lm-evaluation-harness tasks read
the templates they include and the modules their `!function`s name), found outside the run so a
partial run checks what the change breaks in them, never calls them clean unread.

A reader is found by its text first: a file that reads `path` spells its name (a template's
file name, a module's stem), so `git grep` (or, outside git, a read of the candidates) narrows
the tree; each candidate is then parsed and asked what it reads. A template without an eval
file's extension is followed further: the files that include it read what it reads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from evallint.config import Config
from evallint.io.source import Source
from evallint.kinds import READING
from evallint.parse import format_of
from evallint.project import Entry
from evallint.read import read_entry
from evallint.rules.api import Others

# How many hops of templates are followed from a changed file (far past any real chain).
MAX_HOPS = 32


def _needle(path: str) -> bytes:
    """What a file that reads `path` writes of its name: a module's stem, else its file name."""
    name = path.rpartition("/")[2]
    return name.removesuffix(".py").encode("utf-8", "surrogateescape")


def _maybe_yaml(path: str) -> bool:
    """A file a config can include: YAML by its name, or a name with no extension at all
    (`_template_yaml`); a module or a script is not read as YAML."""
    return format_of(path) == "yaml" or "." not in path.rpartition("/")[2]


def _candidates(
    needles: set[bytes], files: Iterable[str], others: Others, grep: Callable[..., set[str] | None]
) -> set[str]:
    found = grep(sorted(needles))
    if found is None:  # not in git: read the YAML files and the files with no extension
        found = set()
        for path in files:
            if _maybe_yaml(path) and "/." not in f"/{path}":
                raw = others.raw(path)  # under max-file-size, never through a link out
                if isinstance(raw, bytes) and any(n in raw for n in needles):
                    found.add(path)
    return found


def readers(
    changed: Iterable[str],
    skip: set[str],
    files: frozenset[str],
    source: Source,
    config: Config,
    grep: Callable[..., set[str] | None],
    outside: Callable[[str], bool],
    base: Others | None = None,
) -> list[tuple[Entry, str]]:
    """(reader, the changed file it reads) for each eval file outside `skip` that reads a
    changed file, directly or through templates. `outside`: the files that lead out of the
    project, never read; `base`: the files as the change's base has them."""
    if not READING:
        return []
    others = Others(source, config, files, outside)
    # file read -> the changed file it stands for; only files some kind's files can read
    frontier = {p: p for p in changed if maybe_read(p, files, (others, base))}
    out: dict[str, tuple[Entry, str]] = {}
    seen = set(frontier)
    for _ in range(MAX_HOPS):
        if not frontier:
            break
        found = _candidates({_needle(p) for p in frontier}, files, others, grep) - seen
        following: dict[str, str] = {}
        for path in sorted(found & files):
            if not _may_read(path, frontier, others):
                continue
            origin = _reads_one(path, frontier, others)
            if origin is None:
                continue
            seen.add(path)
            entry = read_entry(path, source, config) if format_of(path) else None
            if isinstance(entry, Entry) and entry.kind.reads is not None and path not in skip:
                out[path] = (entry, origin)
            if _maybe_yaml(path):
                following[path] = origin  # a template: its includers read the change too
        frontier = following
    return list(out.values())


def _may_read(path: str, frontier: dict[str, str], others: Others) -> bool:
    """Whether `path` can name a file of the frontier, told from its text before it is parsed:
    a name written bare (`_template_yaml`, `utils.fn`) is resolved in the file's own folder,
    so a file elsewhere that spells the name only bare reads another file of that name (most
    task folders have their own `_default_template_yaml` and `utils.py`). A name written after
    `/` or `.` is a path from elsewhere: the file is parsed to know."""
    raw = others.raw(path)  # under max-file-size, never through a link out
    if isinstance(raw, str):
        return False
    folder = path.rpartition("/")[0]
    for target in frontier:
        if target.rpartition("/")[0] == folder:
            return True
        needle, at = _needle(target), 0
        while (at := raw.find(needle, at)) >= 0:
            if at and raw[at - 1 : at] in (b"/", b"."):
                return True
            at += len(needle)
    return False


def maybe_read(path: str, files: frozenset[str], views: tuple[Others, Others | None]) -> bool:
    """Whether a reading kind's files can read the changed file (`Kind.readable`), as it is
    now or as the base had it (a template cut down to keys no config has is still read). A file
    the change deleted, and one that does not parse or holds no mapping, may have been one:
    both are looked for, since the files that read them now fail."""
    if path not in files:
        return True
    if not _maybe_yaml(path):
        return any(k.readable is None or k.readable(path, None, files) for k in READING)
    for view in views:
        doc = view.parsed(path) if view is not None else "no base"
        if isinstance(doc, str):
            if view is views[0]:
                return True  # unreadable now
            continue
        if not doc.ok or not isinstance(doc.data, dict):
            return True
        if any(k.readable is None or k.readable(path, doc.data, files) for k in READING):
            return True
    return False


def _reads_one(path: str, frontier: dict[str, str], others: Others) -> str | None:
    """The changed file `path` reads through `frontier`, by any reading kind's account."""
    doc = others.parsed(path) if _maybe_yaml(path) else None
    if doc is None or isinstance(doc, str) or not doc.ok:
        return None
    for kind in READING:
        assert kind.reads is not None
        for read in kind.reads(path, doc.data):
            if read in frontier:
                return frontier[read]
    return None
