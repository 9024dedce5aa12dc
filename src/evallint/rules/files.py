"""Rules about the files an eval file names: they exist, and they stay inside the project.

Nothing named is ever opened: existence is checked against the project's file listing.
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.kinds import NAMING_FILES
from evallint.model import Finding, Severity
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.kinds.base import FileRef
    from evallint.parse import Document
    from evallint.rules.api import Context


def resolve(doc_path: str, ref: FileRef) -> str | None:
    """The project-relative path a reference names; None when it leaves the project."""
    text = ref.path.removeprefix("file://")
    if text.startswith("/") or ref.from_root:
        joined = text.lstrip("/")
    else:
        joined = posixpath.join(posixpath.dirname(doc_path), text)
    normal = posixpath.normpath(joined)
    if normal == ".." or normal.startswith("../") or posixpath.isabs(normal):
        return None
    return normal


def _exists(path: str, files: frozenset[str]) -> bool:
    """A set lookup: a file, or a folder that holds one (a miss never scans the listing)."""
    return path in files or path.rstrip("/") in _folders(files)


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

    Paths resolve as the format's runner resolves them (relative to the eval file's folder, a
    leading `/` from the repository root; ai_best_practices paths from the repository root). A
    path that leaves the repository (`../../etc/passwd`, or a symlink pointing out) is an error
    and is never read.

    Given (skills/refunds/SKILL.md):
        # Refunds
    Bad (evals/refunds/evals.json):
        {"skill_file": "skills/refund/SKILL.md", "evals": []}
    Good (evals/refunds/evals.json):
        {"skill_file": "skills/refunds/SKILL.md", "evals": []}
    """
    if ctx.kind.file_refs is None:
        return
    for ref in ctx.kind.file_refs(doc.data):
        target = resolve(doc.path, ref)
        if target is None:
            yield Finding(
                ref.pointer, f"{ref.path!r} leads outside the repository; it is not followed"
            )
        elif not _exists(target, ctx.files):
            yield Finding(ref.pointer, f"{ref.path!r} does not exist (looked for {target})")
        elif ctx.outside(target):
            yield Finding(
                ref.pointer,
                f"{ref.path!r} is a symlink that leads outside the repository; it is not followed",
            )
