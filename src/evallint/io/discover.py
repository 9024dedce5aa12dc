"""Which files a run looks at: the project root, then the paths under it worth reading."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from evallint.config import CACHE_FOLDER, Config
from evallint.errors import EvallintError
from evallint.io import git
from evallint.model import Skipped, Span
from evallint.parse import eval_files, format_of


def find_root(start: Path) -> tuple[Path, bool]:
    """The git work tree holding `start`, else `start` itself; and whether git was found."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder, True
    return start, False


def project_root(args: Sequence[str], cwd: Path) -> tuple[Path, bool]:
    """The project a run checks: the git work tree that holds the first path, whatever the
    current folder; outside git, the current folder when it holds that path (its configuration,
    and the files references resolve against), else the path's own folder."""
    first = Path(os.path.normpath(cwd / args[0])) if args else cwd
    start = first if first.is_dir() or not first.exists() else first.parent
    root, in_git = find_root(start)
    if in_git or not start.exists():
        return (root, True) if in_git else find_root(cwd)
    # Lexically, not through links: a linked folder that leads out stays in this project, whose
    # listing then refuses to read through it.
    held = start == cwd or cwd in start.parents
    return (cwd, False) if held else (start, False)


def display_path(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def inside(path: Path, root: Path) -> bool:
    return path.resolve().is_relative_to(root.resolve())


EXCLUDED = "excluded by the configuration"  # why a file the settings' `exclude` names is not read


def select(
    args: Sequence[str], cwd: Path, root: Path, in_git: bool, config: Config
) -> tuple[list[str], list[Skipped], list[str], frozenset[str] | None]:
    """(paths safe to read, skipped with reasons, every listed path, the listed paths that may
    be symlinks), relative to the root. A walk of the folders knows the links without a stat
    per file; git's listing knows the clean regular files, and the rest may be links.

    A symlink that leads out of the project is listed (a reference to it exists) but never read.
    """
    chosen: list[str] = []
    skipped: list[Skipped] = []
    regular: set[str] = set()  # seen as regular files by the walk: no stat needed
    real_root = root.resolve()
    folders: dict[Path, bool] = {}  # folder -> inside the project: files named share folders
    for arg in args or ["."]:
        path = Path(os.path.normpath(cwd / arg))
        if not path.exists() and not path.is_symlink():
            raise EvallintError(f"no such file or directory: {arg!r}")
        if path.is_dir():
            # A linked folder inside the project is walked where it lies: its files are
            # checked once, under their own paths (`folder_links` gives them the link's).
            real = path.resolve()
            if real != path.absolute() and real.is_relative_to(root.resolve()):
                path = root / real.relative_to(root.resolve())
            chosen.extend(_walk_dir(path, root, in_git, config, regular))
        elif not _folder_inside(path.parent, real_root, folders):
            # rubrics/linkdir/x.yaml where linkdir leads out: never read what lies outside
            rel = display_path(path, root)
            skipped.append(_out_link(rel, config, "is outside the project"))
        else:
            chosen.append(display_path(path, root))
    out, listed = [], []
    base = str(root)
    for rel in dict.fromkeys(chosen):
        if config.excluded(rel):
            if format_of(rel) is not None:
                skipped.append(Skipped(rel, EXCLUDED))
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
            skipped.append(_out_link(rel, config, "is a symlink to outside the project"))
        elif stat.S_ISREG(mode) or (stat.S_ISLNK(mode) and os.path.isfile(target)):
            out.append(rel)
        elif not stat.S_ISDIR(mode) and not stat.S_ISLNK(mode):
            out.append(rel)  # a FIFO, device or socket: reading refuses it, and says so
    # Files neither the walk nor git's listing knows as regular count as possible links: they
    # are asked one by one.
    links = frozenset(rel for rel in listed if rel not in regular)
    return out, skipped, listed, links


def _folder_inside(folder: Path, real_root: Path, seen: dict[Path, bool]) -> bool:
    found = seen.get(folder)
    if found is None:
        found = seen[folder] = folder.resolve().is_relative_to(real_root)
    return found


def folder_links(root: Path, tree: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """(link, target) of the symlinks of the tree that show a folder of the project under
    another name. A symlink to a folder is listed as a file with no suffix (git lists the link,
    a walk does not enter it), so only those are looked at: one `lstat` each. A link to a folder
    that holds it (a cycle) or out of the project is not followed."""
    base = root.resolve()
    found = []
    for rel in tree:
        name = rel.rpartition("/")[2]
        if "." in name.lstrip(".") or not os.path.islink(os.path.join(root, rel)):
            continue
        try:
            target = (root / rel).resolve(strict=True)
        except (OSError, RuntimeError):  # dangling, or a loop of links
            continue
        if not target.is_dir() or not target.is_relative_to(base):
            continue
        to = target.relative_to(base).as_posix()
        if to == "." or rel == to or rel.startswith(to + "/"):
            continue  # the link lies inside its own target: following it would not end
        found.append((rel, to))
    return tuple(sorted(found))


def _out_link(rel: str, config: Config, what: str) -> Skipped:
    """A file that leads out of the project, never read: counted as unreadable, and an error
    where a kind claims its path (`rubrics/tone.yaml` linking to a file elsewhere), since
    evallint would check that file and cannot."""
    from evallint.kinds import claimed_kind, kind_named, path_kind

    fmt = format_of(rel)
    claimed = fmt is not None and bool(
        kind_named(config.kind_name(rel)) or path_kind(rel, fmt) or claimed_kind(rel, fmt)
    )
    problem = (Span(1, 1, 1, 2), f"{rel} {what}; it is not read") if claimed else None
    return Skipped(
        rel,
        f"{what}, not read",
        unreadable=fmt is not None,
        problem=problem,
        claimed=claimed,
        rule=OUTSIDE,
    )


OUTSIDE = "path-outside-repo"  # the rule a file that leads out of the project is reported by


def listing(
    root: Path, in_git: bool, config: Config, started: git.Listing | git.DiffListing | None = None
) -> tuple[list[str], Mapping[str, str] | None]:
    """Every file of the project (the tree references resolve against), nothing stat'ed by us;
    and in git, the blob ids of the clean tracked files, from the same call (else None).
    `started`: that call, begun earlier."""
    found = (started or git.Listing(root, ["."])).result() if in_git else None
    if found is None:
        return [rel for rel in _walk_dir(root, root, False, config) if _kept(rel, config)], None
    files = sorted(found.files)
    return ([p for p in files if _kept(p, config)] if config.exclude else files), found.blobs


def _kept(rel: str, config: Config) -> bool:
    """Whether the tree keeps a file the settings may exclude. Files under the cache folder
    are kept whatever `exclude` says: the tree listing one is how a run knows a change could
    have planted it, so a pull request's `exclude = [".*"]` cannot hide a forged summary (no
    run reads them as eval files either)."""
    return not config.excluded(rel) or rel.startswith(f"{CACHE_FOLDER}/")


def checkable(paths: Sequence[str]) -> list[str]:
    """The paths worth reading as eval files: YAML, JSON and JSONL."""
    return eval_files(paths)


def _walk_dir(
    path: Path, root: Path, in_git: bool, config: Config, regular: set[str] | None = None
) -> list[str]:
    rel = display_path(path, root)
    found = git.tree_files(root, [rel]) if in_git else None
    listed = None
    if found is not None:
        listed, clean = found
        if regular is not None:
            regular.update(clean)  # git knows them as clean regular files: no stat needed
    if listed is None:
        skip = frozenset(config.skip_folders)
        listed = _walk_fs(path, root, skip, set() if regular is None else regular)
    return sorted(listed)


def _skipped(entry: os.DirEntry[str], skip: frozenset[str]) -> bool:
    """A folder that is tooling, not eval files, by its name: hidden (but for those formats keep
    eval files in, `Kind.folders`, walked as git lists them), or named in `skip`. (A virtual
    environment, which holds pyvenv.cfg, is told when its folder is read.)"""
    from evallint.kinds import EVAL_FOLDERS

    hidden = entry.name.startswith(".") and entry.name not in EVAL_FOLDERS
    return hidden or entry.name in skip


def _walk_fs(path: Path, root: Path, skip: frozenset[str], regular: set[str]) -> list[str]:
    """Every file under `path`; those that are regular files (not links) also go in `regular`.
    Outside git nothing says what is the project's own, so hidden folders, the folders named in
    `skip` (dependencies, caches, builds) and virtual environments are not walked."""
    found: list[str] = []
    rel = display_path(path, root)
    start = str(path)
    stack = [(start, "" if rel == "." else rel)]
    while stack:
        folder, prefix = stack.pop()
        # DirEntry knows each entry's type from the directory read: no stat per file.
        with os.scandir(folder) as listing:
            entries = list(listing)
        if folder != start and any(e.name == "pyvenv.cfg" for e in entries):
            continue  # a virtual environment, told by its own listing (no stat a folder)
        for entry in entries:
            name = f"{prefix}/{entry.name}" if prefix else entry.name
            if entry.is_dir():
                # Links to folders are not followed: listed as git lists them, a file, for
                # `folder_links` to find.
                if entry.is_symlink():
                    found.append(name)
                elif not _skipped(entry, skip):
                    stack.append((entry.path, name))
                continue
            found.append(name)
            if entry.is_file(follow_symlinks=False):
                regular.add(name)
    return found
