"""Rules about the files an eval file names: they exist, and they stay inside the project.

Nothing named is ever opened: existence is checked against the project's file listing.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from evallint.config import Glob
from evallint.kinds import NAMING_FILES
from evallint.kinds.base import FileRef, candidates
from evallint.model import Finding, Severity
from evallint.records import record
from evallint.rules.api import file_refs_of
from evallint.rules.base import rule
from evallint.suggest import suggest

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context


@functools.lru_cache(maxsize=2)
def _folders(files: frozenset[str]) -> frozenset[str]:
    """Every folder of the listing, worked out once per run (a frozenset keeps its hash)."""
    out: set[str] = set()
    for f in files:
        cut = f.rfind("/")
        while cut > 0:
            folder = f[:cut]
            if folder in out:
                break
            out.add(folder)
            cut = folder.rfind("/")
    return frozenset(out)


@rule("missing-file", Severity.ERROR, kinds=NAMING_FILES, reads_files=True)
def missing_file(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A file the eval names does not exist in the project, or lies outside it.

    Paths resolve as the format's runner resolves them, and the message lists every place
    looked in. AgentV looks for `type: file` content and `file://` grader prompts in the suite's
    folder, then in each parent up to the repository root (a leading `/` is dropped), and for
    `file://` case files in the suite's folder. ai_best_practices paths are written from the
    project root, which may be the Drupal site that holds the repository: a first folder named
    as the repository is skipped, and a path beside the repository is `file-not-checked`. A path
    that leaves the repository everywhere it is looked for (`../../etc/passwd`), or a symlink
    pointing out, is an error and is never read.

    Given (skills/refunds/SKILL.md):
        # Refunds
    Bad (evals/refunds/evals.json):
        {"skill_file": "skills/refund/SKILL.md", "evals": [], "skill_name": "refunds"}
    Good (evals/refunds/evals.json):
        {"skill_file": "skills/refunds/SKILL.md", "evals": [], "skill_name": "refunds"}
    """
    for look in _lookups(doc, ctx):
        if not look.tried:
            yield Finding(
                look.ref.pointer,
                f"{look.ref.path!r} leads outside the repository; it is not followed",
            )
        elif look.found is not None and ctx.outside(look.found):
            yield Finding(
                look.ref.pointer,
                f"{look.ref.path!r} is a symlink that leads outside the repository; it is not "
                "followed",
            )
        elif look.inside is not None and ctx.outside(look.inside):
            yield Finding(
                look.ref.pointer,
                f"{look.ref.path!r} lies under {look.inside!r}, a symlink that leads outside the "
                "repository; it is not followed",
            )
        elif look.found is None and not look.beside and look.inside is None and not look.hidden:
            what = "matches no file" if look.ref.glob else "does not exist"
            tail = f": {look.ref.note}" if look.ref.note else ""
            yield Finding(
                look.ref.pointer,
                f"{look.ref.path!r} {what} (looked for {_listed(look.tried)}){tail}",
            )


@record
class Lookup:
    """Where the runner would look for one file the eval names, and what is there."""

    ref: FileRef
    tried: list[str]  # empty: every place it would look lies outside the project
    found: str | None  # the first place that exists
    beside: bool  # a site-root path beside the repository, which evallint cannot see
    # Not found, but a place it would look lies under a listed entry that is no folder of the
    # listing: a submodule, or a symlink to a folder. The runner may find the file there;
    # the listing cannot say.
    inside: str | None = None
    # Not found, and a place it would look lies in a hidden folder of which the listing holds
    # no file: a walk outside git does not read hidden folders, so the file may be there.
    hidden: str | None = None


def _lookups(doc: Document, ctx: Context) -> list[Lookup]:
    """Each file reference looked up once, for both file rules. The listing is part of the key:
    a run asks again with deleted files put back, to tell what a deletion breaks."""
    return doc.facts.get(_look_up_all, doc, ctx, key=ctx.files)


def _look_up_all(doc: Document, ctx: Context) -> list[Lookup]:
    out = []
    # Set lookups: a file, or a folder that holds one (a miss never scans the listing).
    files, folders = ctx.files, _folders(ctx.files)
    for ref in file_refs_of(doc, ctx.kind):
        tried = candidates(doc.path, ref, ctx.root_name)
        found = None
        for place in tried:
            if place in files or place.rstrip("/") in folders or _globbed(ref, place, files):
                found = place
                break
        beside = found is None and bool(tried) and _beside(ref, tried, ctx)
        inside = _opaque(tried, files) if found is None and not beside else None
        hidden = _unwalked(tried, folders) if found is None and not beside and not inside else None
        out.append(Lookup(ref, tried, found, beside, inside, hidden))
    return out


def _globbed(ref: FileRef, pattern: str, files: frozenset[str]) -> bool:
    """Whether a pattern the runner expands matches a file of the listing. Character classes
    and braces are not expanded here: such a pattern counts as matching (never a false error)."""
    if not ref.glob:
        return False
    if any(c in pattern for c in "[{"):
        return True
    return _matches(pattern, files)


def _head(text: str) -> str:
    """The literal text before the first wildcard."""
    return text[: min((i for i in (text.find(c) for c in "*?") if i >= 0), default=len(text))]


@functools.lru_cache(maxsize=1024)
def _matches(pattern: str, files: frozenset[str]) -> bool:
    """Whether the pattern matches a file. Only the files that can match are tried: a range of
    the listing sorted by the longest literal the pattern fixes (the start of its last part, the
    end of it, or its folder); and each pattern once a run, however many files name it."""
    last = pattern.rpartition("/")[2]
    ways = (
        (len(_head(last)), "name", _head(last)),
        (len(_head(last[::-1])), "tail", _head(last[::-1])),
        (len(_head(pattern)), "path", _head(pattern)),
    )
    _, way, start = max(ways)
    paths, keys = _index(files, way)
    glob = Glob(pattern)
    at = bisect.bisect_left(keys, start)
    while at < len(keys) and keys[at].startswith(start):
        if glob.match(paths[at]):
            return True
        at += 1
    return False


_KEYS: dict[str, Callable[[str], str]] = {
    "name": lambda f: f.rpartition("/")[2],
    "tail": lambda f: f.rpartition("/")[2][::-1],
    "path": lambda f: f,
}


@functools.lru_cache(maxsize=6)
def _index(files: frozenset[str], way: str) -> tuple[list[str], list[str]]:
    """The listing sorted by a key (a file's name, its name reversed, its path), with the keys."""
    key = _KEYS[way]
    paths = sorted(files, key=key)
    return paths, [key(f) for f in paths]


def _opaque(tried: list[str], files: frozenset[str]) -> str | None:
    """The first listed entry that one of `tried` lies under: a file of the listing cannot
    hold files, so it is a submodule (git lists it as one entry) or a symlink to a folder."""
    for place in tried:
        cut = place.rfind("/")
        while cut > 0:
            if place[:cut] in files:
                return place[:cut]
            cut = place.rfind("/", 0, cut)
    return None


def _unwalked(tried: list[str], folders: frozenset[str]) -> str | None:
    """The first hidden folder (`.agents`) one of `tried` lies in that holds no listed file."""
    for place in tried:
        parts = place.split("/")[:-1]
        for n, part in enumerate(parts):
            if part.startswith(".") and part not in (".", ".."):
                hidden = "/".join(parts[: n + 1])
                if hidden not in folders:
                    return hidden
                break
    return None


def _listed(tried: list[str]) -> str:
    return tried[0] if len(tried) == 1 else ", ".join(tried[:-1]) + f" and {tried[-1]}"


@functools.lru_cache(maxsize=2)
def _top(files: frozenset[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    """The repository's top-level names, as a set and sorted, worked out once per run."""
    top = frozenset(f.split("/", 1)[0] for f in files)
    return top, tuple(sorted(top))


def _beside(ref: FileRef, tried: list[str], ctx: Context) -> bool:
    """A site-root path that names a place beside the repository (its first folder is none of
    the repository's, nor a misspelling of one): the runner may find it, evallint cannot look."""
    if ref.search != "site":
        return False
    first = tried[0].split("/", 1)[0]
    if first == ctx.root_name:
        return False  # the repository itself, seen from the site root
    top, listed = _top(ctx.files)
    return first not in top and suggest(first, listed) is None


@rule("file-not-checked", Severity.NOTE, kinds=NAMING_FILES, reads_files=True)
def file_not_checked(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A file the eval names lies where evallint cannot look, so it was not checked.

    It lies beside the repository, or in a submodule, or in a folder reached through a symlink.
    ai_best_practices runners resolve paths from the root of the Drupal site they run in, which
    may hold the repository (`.agents/skills/x/SKILL.md` beside `my-docs/`). And git lists a
    submodule, or a symlink to a folder, as one entry, not the files under it, which the runner
    reads. Such a path is not an error, but nothing checked that the file exists.

    Given (skills/refunds/SKILL.md):
        # Refunds
    Bad (evals/refunds/evals.json):
        {"skill_file": ".agents/skills/refunds/SKILL.md", "evals": [], "skill_name": "refunds"}
    Good (evals/refunds/evals.json):
        {"skill_file": "skills/refunds/SKILL.md", "evals": [], "skill_name": "refunds"}
    """
    for look in _lookups(doc, ctx):
        if look.beside:
            yield Finding(
                look.ref.pointer,
                f"{look.ref.path!r} is not in the repository; the runner looks for it from the "
                "folder it runs in, which evallint cannot see, so it was not checked",
            )
        elif look.inside is not None and not ctx.outside(look.inside):
            yield Finding(
                look.ref.pointer,
                f"{look.ref.path!r} lies under {look.inside!r}, which the listing holds as one "
                "entry, not as a folder of files (as it holds a submodule, or a symlink to a "
                "folder), so it was not checked",
            )
        elif look.hidden is not None:
            yield Finding(
                look.ref.pointer,
                f"{look.ref.path!r} lies in {look.hidden!r}, a hidden folder of which the "
                "listing holds no file (outside git, hidden folders are not walked), so it was "
                "not checked",
            )
