"""What the index learnt about each file of the tree, kept between runs and keyed by content.

A partial run (`--diff`, pre-commit's files, one file) resolves references against the whole
tree, but needs of each other file only its summary: what it defines and which ids it mentions.
The cache keeps one summary per path with the git blob id of the content it was made from, so
an entry is used only for the very bytes it describes: git knows the blob id of every clean
tracked file without reading it; other files are read and hashed the same way.

The store is `.evallint_cache/` at the project root (a `.gitignore` inside keeps it out of git),
one file per evallint version and per setting that can change a summary. It holds two JSON
documents, a line each: the summaries by path, where a file that defines nothing (most of a
tree) has the place of its text in the second, the list of texts those files mention. Only a
run whose own files define ids needs that list, and only it parses it: a run over datasets
parses a third of the file, and a rubric's run the same bytes as one document would be. It is
written whole to a temporary file and renamed into place, so two runs at once each see a
complete file, both documents of one run; the last one wins, and either is right. A file that
does not load is ignored and rebuilt.

A cache that a change could plant is never read: not when the tree lists a file under it (a
pull request that commits one), and not when it is a symlink.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import stat
import sys
from collections.abc import Collection, Iterable, Mapping, Sequence
from functools import cached_property
from itertools import compress, repeat
from pathlib import Path

from evallint.about import __version__
from evallint.config import CACHE_FOLDER, Config
from evallint.digests import sha1_hex, text_sha256_hex
from evallint.io import git
from evallint.io.gitout import Change
from evallint.io.memo import Row, TreeMemo
from evallint.model import JSON
from evallint.parse.jsonload import fast_parser

FOLDER = CACHE_FOLDER
# A base without a memo of its own asks one of the latest few used (`NEAR_TRIES`) when at most
# `NEAR_CHANGES` eval files differ between the two commits: a run summarizes those itself.
NEAR_TRIES = 2
NEAR_CHANGES = 100
FORMAT = 9  # what a summary holds; a cache of another format is never read


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
        base: tuple[str, frozenset[str]] | None = None,
    ) -> None:
        self._root, self._in_git, self._blobs = root, in_git, blobs
        self._folder, self._stamp = folder, stamp
        self._base = base if folder is not None else None
        self._memo: TreeMemo | bool | None = False  # False: not opened yet
        self._new_memo: tuple[list[Row], list[str]] | None = None
        self._known: Mapping[str, str] | None = None
        self._entries: dict[str, list[JSON]] | None = None
        self._texts_raw = b""  # the second document, parsed when a run first asks for it
        self._texts: list[JSON] | None = None
        self._used: list[Iterable[str]] = []  # made a set only when the file is written
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
                self._known = self._blobs  # read only: a copy would cost a large tree 5 ms
            else:
                warm = self._in_git and bool(self._load())
                self._known = (git.clean_blobs(self._root) if warm else None) or {}
        return self._known

    def kept(self) -> Mapping[str, JSON]:
        """path -> [content key, summary], as earlier runs left them (check the key). The
        summary of a file that defines nothing is the text it mentions, or the place of that
        text in `texts()`."""
        return self._load()

    def texts(self) -> Sequence[JSON]:
        """The texts files that define nothing mention, where `kept` places them; empty when
        the file holds none that are well formed (each place is then a miss)."""
        if self._texts is None:
            self._load()
            self._texts = []
            with contextlib.suppress(ValueError, RecursionError):
                texts = _loads(self._texts_raw) if self._texts_raw else None
                if isinstance(texts, list) and all(isinstance(t, str) for t in texts):
                    self._texts = texts
            self._texts_raw = b""
        return self._texts

    def put(self, path: str, key: str, summary: JSON) -> None:
        self._load()[path] = [key, summary]
        self._dirty = True

    def keep(self, paths: Iterable[str]) -> None:
        """The paths this run asked about: only theirs are saved (deleted files drop out). A
        collection is kept as it is, not copied: the caller leaves it unchanged."""
        if self._folder is None:
            return  # nothing is written (an editor keeps such a cache across runs: no growth)
        self._used.append(paths if isinstance(paths, list | tuple | set | frozenset) else [*paths])

    def base_changed(self) -> frozenset[str] | None:
        """For a run whose listing is a commit's tree with the change applied (a --diff run's
        base, or HEAD for files named in a large tree), which gave that commit's blob ids
        (`blobs`): the paths whose content may not be the commit's (changed, renamed either
        way, untracked). None: no memo of a tree (`io/memo.py`) is kept for this run."""
        return self._base[1] if self._base is not None else None

    def memo(self) -> TreeMemo | None:
        """The memo of the base's tree; None when there is none (yet). Without one of its
        own, a base close to another's (the base moved on by a few commits) asks that one's
        memo, which then lacks the files the commits between them changed."""
        if self._memo is False:
            from evallint.io.memo import open_memo

            file = self._memo_file
            self._memo = (open_memo(file) or self._near(file)) if file is not None else None
        return self._memo if isinstance(self._memo, TreeMemo) else None

    def _near(self, file: Path) -> TreeMemo | None:
        """The memo of the latest used base a few changed files away, as one of this base."""
        from evallint.io.memo import open_memo
        from evallint.parse import format_of

        assert self._base is not None and self._folder is not None
        stamp, key = file.name.removesuffix(".sqlite").split("-")[1], self._base[0]
        commit, _, settings = key.partition("-")
        found = []
        with contextlib.suppress(OSError):
            found = sorted(
                (p.stat().st_mtime, p)
                for p in self._folder.glob(f"memo-{stamp}-*-{settings}.sqlite")
            )
        for _, other in reversed(found[-NEAR_TRIES:]):
            theirs = other.name.removesuffix(f"-{settings}.sqlite").rpartition("-")[2]
            changed = git.changed_between(self._root, theirs, commit) if theirs != commit else None
            changed = (
                [p for p in changed or () if format_of(p) is not None]
                if changed is not None
                else None
            )
            if changed is not None and len(changed) <= NEAR_CHANGES:
                memo = open_memo(other)
                if memo is not None:
                    return memo.lacking(changed)
        return None

    def put_memo(self, rows: list[Row], missing: list[str]) -> None:
        """The memo of the base's tree, to write when the run saves."""
        self._new_memo = (rows, missing)

    @cached_property
    def _memo_file(self) -> Path | None:
        if self._base is None or self._folder is None:
            return None
        stamp = _digest(f"{__version__} {FORMAT} {self._stamp}")
        return self._folder / f"memo-{stamp}-{self._base[0]}.sqlite"

    def grep(self, needles: Sequence[bytes]) -> set[str] | None:
        """The files that hold any of the strings, from git's own search; None: not known."""
        return git.grep_files(self._root, needles) if self._in_git else None

    def save(self) -> None:
        """Write what this run learnt, keeping only the paths it asked about (deleted files
        drop out); a folder that cannot be written leaves the run uncached, never failing it."""
        if isinstance(self._memo, TreeMemo):
            self._memo.close()
        if self._new_memo is not None and self._memo_file is not None and self._made_folder():
            from evallint.io.memo import write_memo

            write_memo(self._memo_file, *self._new_memo)
        if not self._dirty or self._entries is None or self._file is None or self._folder is None:
            return
        data = self._documents()
        if self._made_folder():
            _write_whole(self._file, data.encode("utf-8"))

    def _made_folder(self) -> bool:
        """The folder, made with the `.gitignore` that keeps it out of git; False: it cannot be."""
        assert self._folder is not None
        try:
            self._folder.mkdir(parents=True, exist_ok=True)
            ignore = self._folder / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# Made by evallint: the cache is never committed.\n*\n")
        except OSError:
            return False
        return True

    def _documents(self) -> str:
        """The file's two lines: the summaries of the paths this run asked about, each text a
        file mentions moved to the list and replaced by its place there."""
        assert self._entries is not None
        texts, old, kept, used = [], self.texts(), {}, set().union(*self._used)
        for path, entry in self._entries.items():
            if path not in used or not (isinstance(entry, list) and len(entry) == 2):
                continue  # not asked about, or damaged: dropped
            key, summary = entry
            if is_place(summary):
                summary = text_at(old, summary)
                if summary is None:
                    continue  # its text is lost (a damaged list): summarized again next time
            if isinstance(summary, str):
                texts.append(summary)
                summary = len(texts) - 1
            kept[path] = [key, summary]
        separators = (",", ":")
        return (
            json.dumps({"files": kept}, separators=separators)
            + "\n"
            + json.dumps(texts, separators=separators)
        )

    def _load(self) -> dict[str, list[JSON]]:
        if self._entries is None:
            self._entries = {}
            if self._file is not None:
                # A damaged file (even nested past the recursion limit) is no cache at all.
                with contextlib.suppress(OSError, ValueError, RecursionError):
                    raw = self._file.read_bytes()
                    end = raw.find(b"\n")
                    loaded = _loads(raw[:end] if end != -1 else raw)
                    files = loaded.get("files") if isinstance(loaded, dict) else None
                    if isinstance(files, dict):
                        self._entries = files
                        self._texts_raw = raw[end + 1 :] if end != -1 else b""
        return self._entries


def is_place(summary: JSON) -> bool:
    """Whether a kept summary is the place of a text in the list (a bool is no place)."""
    return type(summary) is int


def text_at(texts: Sequence[JSON], place: int) -> JSON:
    """The text at a summary's place; None when the list does not reach it (a damaged one)."""
    return texts[place] if 0 <= place < len(texts) else None


# A document of the cache file from which orjson's speed pays for its import (~8 ms in a run,
# with `dataclasses` and `uuid`): json.loads reads these documents at about 6 ms a megabyte,
# orjson at about 4.5.
FAST_FROM = 4 << 20


def _loads(raw: bytes) -> JSON:
    """One document of the cache file: with the `fast` extra, by orjson when the run imported
    it already or the document is large (duplicate keys do not matter here: a damaged file is
    only a miss); else by json."""
    fast = fast_parser() if "orjson" in sys.modules or len(raw) >= FAST_FROM else None
    # A large tree's summaries are 100,000 fresh lists, which the cycle collector would scan
    # (and promote) while they are made: a fifth of the load. JSON data holds no cycles.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return fast[0](raw) if fast is not None else json.loads(raw)
    finally:
        if enabled:
            gc.enable()


def _digest(text: str) -> str:
    return text_sha256_hex(text.encode())[:16]


def open_cache(
    root: Path,
    in_git: bool,
    config: Config,
    tree: Sequence[str],
    *,
    enabled: bool,
    blobs: Mapping[str, str] | None = None,
    base: tuple[str, frozenset[str]] | None = None,
) -> tuple[TreeCache, str | None]:
    """The run's cache, and why it is not kept on disk when it is not (None: it is);
    `tree`: the project's files; `blobs`: the clean files' blob ids, when the listing gave
    them (they must still describe the working tree); `base`: the commit the listing applied
    the change to, and the paths the change touched, when `blobs` are that commit's
    (`TreeCache.base_changed`)."""
    stamp = cache_stamp(config)
    folder: Path | None = root / FOLDER
    why = None
    if not enabled:
        folder = None
    elif folder is not None and folder.is_symlink():
        folder, why = None, f"{FOLDER} is a symlink, so it is not used"
    elif _lists_cache(tree):
        folder, why = None, f"{FOLDER}/ is part of the change or the tree, so it is not used"
    if base is not None and blobs is not None:
        # A memo holds the whole tree: which files it lists depends on the exclusions too.
        base = (f"{base[0]}-{_digest(repr(config.exclude))}", base[1])
    return TreeCache(root, folder, stamp, in_git, blobs, base if blobs is not None else None), why


def cache_stamp(config: Config) -> str:
    """What a summary depends on besides the bytes: the kind a path is given, the size limit."""
    return repr((config.kinds, config.max_file_size))


def _lists_cache(tree: Collection[str]) -> bool:
    """Whether the tree lists the cache folder or a file in it (a change could plant one)."""
    # The prefix test runs in C over a large tree; the exact test only on what it lets by.
    near = compress(tree, map(str.startswith, tree, repeat(FOLDER)))
    return any(p == FOLDER or p.startswith(FOLDER + "/") for p in near)


class KeptTree:
    """A commit's tree listing kept in the cache folder (`git.Kept`), named by the commit: a
    --diff run at the same base, or pre-commit's at the same HEAD, reads it and asks git for
    no listing. No commit can hold a file named by its own id, so one found there was written
    by a run, unless the change under check adds it: then it is neither read nor written."""

    def __init__(self, folder: Path, commit: str) -> None:
        self._folder, self._file = folder, folder / f"listing-{commit}.bin"

    def exists(self) -> bool:
        return self._file.exists()

    def load(self) -> bytes | None:
        """Its bytes: a regular file's, never through a link (the folder is ours, but a
        listing can be anything a change could put there, so it is asked last)."""
        try:
            # Not through a link; a FIFO opens at once (and is refused below), never waits.
            flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
            fd = os.open(self._file, flags)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            raw = f.read()
        with contextlib.suppress(OSError):
            os.utime(self._file)  # used now: the latest used are the ones kept
        return raw

    def save(self, packed: bytes) -> None:
        """Written whole, then renamed into place; only the latest few are kept."""
        from evallint.io.memo import prune

        _write_whole(self._file, packed)
        prune(self._folder, "listing-*.bin")

    def trusts(self, changes: Sequence[Change], files: list[str] | None) -> bool:
        touched = [p for c in changes for p in (c.path, c.old_path) if p is not None]
        return not _lists_cache(touched) and (files is None or not _lists_cache(files))


def _write_whole(file: Path, data: bytes) -> None:
    """Write `data` aside in `file`'s folder, then rename it into place: a run at the same time
    reads the old file or the new, never half of one. A folder that cannot be written leaves
    the file as it was, never failing the run."""
    import tempfile  # with shutil behind it: ~5 ms a run that writes nothing skips

    with contextlib.suppress(OSError):
        fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=".tmp-", suffix=file.suffix)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, file)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def kept_tree(root: Path, commit: str, enabled: bool) -> KeptTree | None:
    """Where a run keeps `commit`'s listing; None without a cache folder of the run's own
    (off, not made yet, or a symlink, as `open_cache` decides)."""
    folder = root / FOLDER
    if not enabled or folder.is_symlink() or not folder.is_dir():
        return None
    return KeptTree(folder, commit)


class MemoryCache(TreeCache):
    """A cache kept in memory across runs, for an editor outside git (nothing is written in
    the project). Without git's blob ids, a file is known unchanged by its `stat` (inode, size,
    modification and change times) being the one seen when its summary was kept, as git's own
    index knows a clean file. A file modified after the run began, or within `RACY_NS` before
    (a time stamp may not tell two writes apart), may not hold the bytes its summary was made
    from: its stat is not kept, so the next run reads it again."""

    RACY_NS = 2_000_000_000

    def __init__(self, root: Path, stamp: str) -> None:
        import time

        super().__init__(root, None, stamp, in_git=False)
        self._seen: dict[str, tuple[int, int, int, int]] = {}
        self._prefix = str(root) + os.sep  # a stat each file a run: no Path made for it
        self._began = time.time_ns()  # when the current run began (a run asks `known` first)

    @property
    def stamp(self) -> str:
        return self._stamp

    def known(self) -> Mapping[str, str]:
        """Asked anew each run: the files may have changed on disk since the last one."""
        import time

        self._began = time.time_ns()
        kept, out = self._load(), {}
        for path, seen in self._seen.items():
            entry = kept.get(path)
            if isinstance(entry, list) and entry and _stat(self._prefix + path) == seen:
                out[path] = str(entry[0])
        return out

    def put(self, path: str, key: str, summary: JSON) -> None:
        super().put(path, key, summary)
        now = _stat(self._prefix + path)
        if now is not None and max(now[2], now[3]) < self._began - self.RACY_NS:
            self._seen[path] = now
        else:
            self._seen.pop(path, None)


def _stat(path: str) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
