"""Which files a run looks at: the project root, then the paths under it worth reading."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from evallint import git
from evallint.config import Config
from evallint.errors import EvallintError
from evallint.parse import format_of


def find_root(start: Path) -> tuple[Path, bool]:
    """The git work tree holding `start`, else `start` itself; and whether git was found."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder, True
    return start, False


def display_path(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def inside(path: Path, root: Path) -> bool:
    return path.resolve().is_relative_to(root.resolve())


def select(
    args: Sequence[str], cwd: Path, root: Path, in_git: bool, config: Config
) -> tuple[list[str], list[str], list[str]]:
    """(paths safe to read, skipped with reasons, every listed path), relative to the root.

    A symlink that leads out of the project is listed (a reference to it exists) but never read.
    """
    chosen: list[str] = []
    skipped: list[str] = []
    for arg in args or ["."]:
        path = Path(os.path.normpath(cwd / arg))
        if not path.exists() and not path.is_symlink():
            raise EvallintError(f"no such file or directory: {arg!r}")
        if path.is_dir():
            chosen.extend(_walk_dir(path, root, in_git))
        else:
            chosen.append(display_path(path, root))
    out, listed = [], []
    base = str(root)
    for rel in dict.fromkeys(chosen):
        if config.excluded(rel):
            continue
        listed.append(rel)
        target = os.path.join(base, rel)  # strings: pathlib costs ~30 us a file here
        if os.path.islink(target) and not inside(Path(target), root):
            skipped.append(f"{rel}: symlink to outside the project, not read")
        elif os.path.isfile(target):
            out.append(rel)
    return out, skipped, listed


def listing(root: Path, in_git: bool, config: Config) -> list[str]:
    """Every file of the project (the tree references resolve against); nothing is stat'ed."""
    return [rel for rel in _walk_dir(root, root, in_git) if not config.excluded(rel)]


def checkable(paths: Sequence[str]) -> list[str]:
    """The paths worth reading as eval files: YAML, JSON and JSONL."""
    return [p for p in paths if format_of(p) is not None]


def _walk_dir(path: Path, root: Path, in_git: bool) -> list[str]:
    rel = display_path(path, root)
    listed = git.list_files(root, [rel]) if in_git else None
    if listed is None:
        listed = _walk_fs(path, root)
    return sorted(listed)


def _walk_fs(path: Path, root: Path) -> list[str]:
    found: list[str] = []
    start = str(path)
    rel = display_path(path, root)
    base = "" if rel == "." else rel
    for folder, dirs, files in os.walk(start):
        # Hidden folders (.git, .venv, ...) are tooling, not eval files; links are not followed.
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        # Strings, not Paths: a Path per file costs more than the walk itself on a datastore.
        sub = folder[len(start) :].replace(os.sep, "/")  # "" or "/a/b"
        prefix = base + sub if base else sub[1:]
        found.extend(f"{prefix}/{name}" if prefix else name for name in files)
    return found
