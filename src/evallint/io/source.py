"""Where file bytes come from: the working tree, or a git revision."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Protocol, runtime_checkable

if TYPE_CHECKING:
    from evallint.io.git import GitRepo


class Source(Protocol):
    """Where file bytes come from: the working tree, or a git revision."""

    def size(self, path: str) -> int: ...

    def read(self, path: str) -> bytes: ...


@runtime_checkable
class Streams(Source, Protocol):
    """A source that can also hand out a file to read in parts (the working tree)."""

    def open(self, path: str) -> BinaryIO: ...


class NotRegular(OSError):
    """A FIFO, device or socket: opening or reading one could block forever or never end."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path}: not a regular file (a FIFO, device or socket), not read")
        self.strerror = "not a regular file (a FIFO, device or socket), not read"


class FsSource:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._base = str(root)
        self._outside: dict[str, bool] = {}
        # Listed paths whose symlinks are known (see know_links), the folders that could not be
        # read among theirs, and the links found.
        self._known: frozenset[str] = frozenset()
        self._unread: set[str] = set()
        self._links: set[str] = set()

    def _full(self, path: str) -> str:
        # Plain strings: a run reads thousands of files and pathlib costs ~30 us each.
        return path if os.path.isabs(path) else os.path.join(self._base, path)

    def size(self, path: str) -> int:
        found = os.stat(self._full(path))
        if not stat.S_ISREG(found.st_mode):
            raise NotRegular(path)
        return found.st_size

    def read(self, path: str) -> bytes:
        found = self.read_capped(path, None)
        assert isinstance(found, bytes)
        return found

    def read_capped(self, path: str, limit: int | None) -> bytes | int:
        """The file's bytes; or, when it holds more than `limit` bytes, how many (not read).

        One open and plain system calls: a stat first, then a buffered file object around the
        descriptor (two fcntl calls, an fstat of its own), cost more than reading a small file,
        and a large tree is mostly small files."""
        fd, size = self._open_regular(path)
        try:
            if limit is not None and size > limit:
                return size
            # A regular file never blocks, whatever O_NONBLOCK says. Read to the end: a file
            # that grew since its stat is read whole (up to the limit), as a file object would.
            chunks = [os.read(fd, size + 1)]
            total = len(chunks[0])
            if total <= size:  # a short read of a regular file is its end: no second call
                return chunks[0]
            while chunks[-1]:
                if limit is not None and total > limit:
                    return total
                chunks.append(os.read(fd, max(size, 1 << 16)))
                total += len(chunks[-1])
            return chunks[0] if len(chunks) == 2 else b"".join(chunks)
        finally:
            os.close(fd)

    def open(self, path: str) -> BinaryIO:
        fd, _ = self._open_regular(path)
        try:
            os.set_blocking(fd, True)
            return os.fdopen(fd, "rb")
        except BaseException:
            os.close(fd)
            raise

    def _open_regular(self, path: str) -> tuple[int, int]:
        """A descriptor of the file, which is a regular one, and its size. Opened non-blocking,
        so that a FIFO returns at once (a socket cannot be opened: its stat tells it)."""
        full = self._full(path)
        try:
            fd = os.open(full, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            if os.path.exists(full) and not os.path.isdir(full) and not os.path.isfile(full):
                raise NotRegular(path) from None
            raise
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            os.close(fd)
            raise NotRegular(path)
        return fd, found.st_size

    def outside(self, path: str) -> bool:
        """Whether the path, followed through symlinks, leaves the project (asked once a path:
        eval files name the same shared files again and again)."""
        found = self._outside.get(path)
        if found is None:
            found = self._outside[path] = self._leaves(path)
        return found

    def know_links(self, paths: frozenset[str]) -> None:
        """Learn which of the listed paths are symlinks with one directory read per folder, not
        a stat per file (a large tree asks `outside` of every file). A folder that cannot be
        read is left out, and its files are asked one by one as before. Only the links and the
        unread folders are kept, not every folder's name: memory must not grow with the tree."""
        folders = {path.rpartition("/")[0] for path in paths if not os.path.isabs(path)}
        links: set[str] = set()
        for folder in folders:
            try:
                with os.scandir(os.path.join(self._base, folder) if folder else self._base) as it:
                    links.update(
                        f"{folder}/{e.name}" if folder else e.name for e in it if e.is_symlink()
                    )
            except OSError:
                self._unread.add(folder)
        self.learn_links(paths, frozenset(links))

    def learn_links(self, paths: frozenset[str], links: frozenset[str]) -> None:
        """What `know_links` finds, from a listing that already knows it: of `paths`, only
        `links` may be symlinks (a folder walk tells without reading any folder again)."""
        self._links |= links
        self._known = self._known | paths if self._known else paths

    def _leaves(self, path: str) -> bool:
        if (
            path in self._known
            and not os.path.isabs(path)
            and path not in self._links
            and path.rpartition("/")[0] not in self._unread
        ):
            return False  # its folder was read: it is no link
        full = self._full(path)
        if not os.path.islink(full):
            return False  # listings never descend into linked folders, so only links can leave
        try:
            return not Path(self._full(path)).resolve().is_relative_to(self.root.resolve())
        except (OSError, RuntimeError):  # a symlink loop
            return True


class RevSource:
    """File bytes at a git revision, for `read_entry`; all read in one go."""

    def __init__(self, repo: GitRepo, rev: str, paths: list[str]) -> None:
        self._files = repo.read_many(rev, paths)

    def _get(self, path: str) -> bytes:
        data = self._files.get(path)
        if data is None:
            raise FileNotFoundError(path)
        return data

    def size(self, path: str) -> int:
        return len(self._get(path))

    def read(self, path: str) -> bytes:
        return self._get(path)


class Overlay:
    """One source, but `paths` as another has them: the files a change touched as they were
    before it (a path the other lacks did not exist), or the buffers an editor holds. What
    leads out of the project is the source's below to say: an overlay never reads through it."""

    def __init__(self, under: Source, over: Source, paths: frozenset[str]) -> None:
        self._under, self._over, self._paths = under, over, paths
        self.root = getattr(under, "root", None)

    def outside(self, path: str) -> bool:
        leaves = getattr(self._under, "outside", None)
        return path not in self._paths and leaves is not None and bool(leaves(path))

    def size(self, path: str) -> int:
        return (self._over if path in self._paths else self._under).size(path)

    def read(self, path: str) -> bytes:
        return (self._over if path in self._paths else self._under).read(path)


class Buffers:
    """Files held in memory: an editor's unsaved buffers."""

    def __init__(self, files: Mapping[str, bytes]) -> None:
        self._files = files

    def size(self, path: str) -> int:
        return len(self._files[path])

    def read(self, path: str) -> bytes:
        return self._files[path]


def read_capped(source: Source, path: str, limit: int) -> bytes | int:
    """The file's bytes; or, when it holds more than `limit` bytes, how many (not read). The
    working tree answers with one open; other sources are asked the size first."""
    if isinstance(source, FsSource):
        return source.read_capped(path, limit)
    size = source.size(path)
    return size if size > limit else source.read(path)
