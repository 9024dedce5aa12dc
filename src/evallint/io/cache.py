"""What the index learnt about each file of the tree, kept between runs and keyed by content.

A partial run (`--diff`, pre-commit's files, one file) resolves references against the whole
tree, but needs of each other file only its summary: what it defines and which ids it mentions.
The cache keeps one summary per path with the git blob id of the content it was made from, so
an entry is used only for the very bytes it describes: git knows the blob id of every clean
tracked file without reading it; other files are read and hashed the same way.

The store is `.evallint_cache/` at the project root (a `.gitignore` inside keeps it out of git),
one JSON file per evallint version and per setting that can change a summary. It is written
whole to a temporary file and renamed into place, so two runs at once each see a complete file;
the last one wins, and either is right. A file that does not load is ignored and rebuilt.

A cache that a change could plant is never read: not when the tree lists a file under it (a
pull request that commits one), and not when it is a symlink.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from itertools import compress, repeat
from pathlib import Path

from evallint.about import __version__
from evallint.config import Config
from evallint.digests import sha1_hex, sha256_hex
from evallint.io import git
from evallint.model import JSON
from evallint.parse.jsonload import fast_parser, worth_fast

FOLDER = ".evallint_cache"
FORMAT = 4  # what a summary holds; a cache of another format is never read


def blob_id(raw: bytes) -> str:
    """The git blob id of these bytes: the key of content git does not already know."""
    return sha1_hex(b"blob %d\0" % len(raw) + raw)


class TreeCache:
    """Summaries by path and content key; `folder` None: kept for this run only."""

    def __init__(
        self,
        root: Path,
        folder: Path | None,
        stamp: str,
        in_git: bool,
        blobs: Mapping[str, str] | None = None,
    ) -> None:
        self._root, self._in_git, self._blobs = root, in_git, blobs
        self._folder, self._stamp = folder, stamp
        self._known: dict[str, str] | None = None
        self._entries: dict[str, list[JSON]] | None = None
        self._used: set[str] = set()
        self._dirty = False

    @cached_property
    def _file(self) -> Path | None:
        """Named when first needed: a run whose tree is all its own files never opens it."""
        name = f"tree-{_digest(f'{__version__} {FORMAT} {self._stamp}')}.json"
        return self._folder / name if self._folder else None

    def known(self) -> Mapping[str, str]:
        """The content keys of the files git knows to be clean, without reading them: those
        the tree's listing gave, else git is asked. With nothing cached yet every file is read
        anyway, and hashed the way git does it: asking git then would only add a call."""
        if self._known is None:
            if self._blobs is not None:
                self._known = dict(self._blobs)
            else:
                warm = self._in_git and bool(self._load())
                self._known = (git.clean_blobs(self._root) if warm else None) or {}
        return self._known

    def kept(self) -> Mapping[str, JSON]:
        """path -> [content key, summary], as earlier runs left them (check the key)."""
        return self._load()

    def put(self, path: str, key: str, summary: JSON) -> None:
        self._load()[path] = [key, summary]
        self._dirty = True

    def keep(self, paths: Iterable[str]) -> None:
        """The paths this run asked about: only theirs are saved (deleted files drop out)."""
        self._used.update(paths)

    def grep(self, needles: Sequence[bytes]) -> set[str] | None:
        """The files that hold any of the strings, from git's own search; None: not known."""
        return git.grep_files(self._root, needles) if self._in_git else None

    def save(self) -> None:
        """Write what this run learnt, keeping only the paths it asked about (deleted files
        drop out); a folder that cannot be written leaves the run uncached, never failing it."""
        if not self._dirty or self._entries is None or self._file is None or self._folder is None:
            return
        kept = {p: e for p, e in self._entries.items() if p in self._used}
        data = json.dumps({"files": kept}, separators=(",", ":"))
        with contextlib.suppress(OSError):
            self._folder.mkdir(parents=True, exist_ok=True)
            ignore = self._folder / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# Made by evallint: the cache is never committed.\n*\n")
            import tempfile  # with shutil behind it: ~5 ms a run that writes nothing skips

            fd, tmp = tempfile.mkstemp(dir=self._folder, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(data)
                os.replace(tmp, self._file)
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)

    def _load(self) -> dict[str, list[JSON]]:
        if self._entries is None:
            self._entries = {}
            if self._file is not None:
                # A damaged file (even nested past the recursion limit) is no cache at all.
                with contextlib.suppress(OSError, ValueError, RecursionError):
                    loaded = _loads(self._file.read_bytes())
                    files = loaded.get("files") if isinstance(loaded, dict) else None
                    if isinstance(files, dict):
                        self._entries = files
        return self._entries


def _loads(raw: bytes) -> JSON:
    """The cache file's data: with the `fast` extra, orjson reads a large tree's cache in a
    third of the time (duplicate keys do not matter here: a damaged file is only a miss); a
    small one is not worth orjson's import."""
    fast = fast_parser() if worth_fast(raw) else None
    return fast[0](raw) if fast is not None else json.loads(raw)


def _digest(text: str) -> str:
    return sha256_hex(text.encode())[:16]


def open_cache(
    root: Path,
    in_git: bool,
    config: Config,
    tree: Sequence[str],
    *,
    enabled: bool,
    blobs: Mapping[str, str] | None = None,
) -> tuple[TreeCache, str | None]:
    """The run's cache, and why it is not kept on disk when it is not (None: it is);
    `tree`: the project's files; `blobs`: the clean files' blob ids, when the listing gave
    them (they must still describe the working tree)."""
    # What a summary depends on besides the bytes: the kind a path is given, the size limit.
    stamp = repr((config.kinds, config.max_file_size))
    folder: Path | None = root / FOLDER
    why = None
    if not enabled:
        folder = None
    elif folder is not None and folder.is_symlink():
        folder, why = None, f"{FOLDER} is a symlink, so it is not used"
    elif _lists_cache(tree):
        folder, why = None, f"{FOLDER}/ is part of the change or the tree, so it is not used"
    return TreeCache(root, folder, stamp, in_git, blobs), why


def _lists_cache(tree: Sequence[str]) -> bool:
    """Whether the tree lists the cache folder or a file in it (a change could plant one)."""
    # The prefix test runs in C over a large tree; the exact test only on what it lets by.
    near = compress(tree, map(str.startswith, tree, repeat(FOLDER)))
    return any(p == FOLDER or p.startswith(FOLDER + "/") for p in near)
