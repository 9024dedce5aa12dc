"""Which files a run looks at: the project root, then the paths under it worth reading."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from evallint.config import Config
from evallint.errors import EvallintError
from evallint.io import git
from evallint.model import Skipped
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
) -> tuple[list[str], list[Skipped], list[str]]:
    """(paths safe to read, skipped with reasons, every listed path), relative to the root.

    A symlink that leads out of the project is listed (a reference to it exists) but never read.
    """
    chosen: list[str] = []
    skipped: list[Skipped] = []
    regular: set[str] = set()  # seen as regular files by the walk: no stat needed
    for arg in args or ["."]:
        path = Path(os.path.normpath(cwd / arg))
        if not path.exists() and not path.is_symlink():
            raise EvallintError(f"no such file or directory: {arg!r}")
        if path.is_dir():
            chosen.extend(_walk_dir(path, root, in_git, regular))
        elif not inside(path.parent, root):
            # rubrics/linkdir/x.yaml where linkdir leads out: never read what lies outside
            skipped.append(
                Skipped(display_path(path, root), "outside the project, not read", unreadable=True)
            )
        else:
            chosen.append(display_path(path, root))
    out, listed = [], []
    base = str(root)
    for rel in dict.fromkeys(chosen):
        if config.excluded(rel):
            if format_of(rel) is not None:
                skipped.append(Skipped(rel, "excluded by the configuration"))
            continue
        listed.append(rel)
        if rel in regular:
            out.append(rel)
            continue
        target = os.path.join(base, rel)  # strings: pathlib costs ~30 us a file here
        try:
            mode = os.lstat(target).st_mode  # one call where islink and isfile make two
        except OSError:
            continue
        if stat.S_ISLNK(mode) and not inside(Path(target), root):
            skipped.append(Skipped(rel, "symlink to outside the project, not read"))
        elif stat.S_ISREG(mode) or (stat.S_ISLNK(mode) and os.path.isfile(target)):
            out.append(rel)
        elif not stat.S_ISDIR(mode) and not stat.S_ISLNK(mode):
            out.append(rel)  # a FIFO, device or socket: reading refuses it, and says so
    return out, skipped, listed


def listing(root: Path, in_git: bool, config: Config) -> list[str]:
    """Every file of the project (the tree references resolve against); nothing is stat'ed."""
    return [rel for rel in _walk_dir(root, root, in_git) if not config.excluded(rel)]


def checkable(paths: Sequence[str]) -> list[str]:
    """The paths worth reading as eval files: YAML, JSON and JSONL."""
    return [p for p in paths if format_of(p) is not None]


def _walk_dir(path: Path, root: Path, in_git: bool, regular: set[str] | None = None) -> list[str]:
    rel = display_path(path, root)
    listed = git.list_files(root, [rel]) if in_git else None
    if listed is None:
        listed = _walk_fs(path, root, set() if regular is None else regular)
    return sorted(listed)


def _walk_fs(path: Path, root: Path, regular: set[str]) -> list[str]:
    """Every file under `path`; those that are regular files (not links) also go in `regular`."""
    found: list[str] = []
    rel = display_path(path, root)
    stack = [(str(path), "" if rel == "." else rel)]
    while stack:
        folder, prefix = stack.pop()
        # DirEntry knows each entry's type from the directory read: no stat per file.
        with os.scandir(folder) as listing:
            for entry in listing:
                name = f"{prefix}/{entry.name}" if prefix else entry.name
                if entry.is_dir():
                    # Hidden folders (.git, .venv, ...) are tooling, not eval files; links to
                    # folders are not followed.
                    if not entry.name.startswith(".") and not entry.is_symlink():
                        stack.append((entry.path, name))
                    continue
                found.append(name)
                if entry.is_file(follow_symlinks=False):
                    regular.add(name)
    return found
