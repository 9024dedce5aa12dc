"""What git's commands print, read into records: the working tree's listing, a base's tree, a
change, `cat-file --batch` contents. No process runs here (`io/git.py` runs them), so each
reader is tested on text alone."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from itertools import compress, filterfalse, repeat
from operator import and_, eq, itemgetter, not_
from typing import Protocol

from evallint.records import record


def applied(paths: list[str], blobs: dict[str, str] | TreeIds, changes: list[Change]) -> Listed:
    """The base's files and blob ids (`base_tree`, changed here) with the change applied."""
    gone = [c.path for c in changes if c.status == "D"]
    gone += [c.old_path for c in changes if c.status == "R" and c.old_path]
    now = list(dict.fromkeys(c.path for c in changes if c.status != "D"))
    dropped = {*gone, *now}
    # Files with no blob id (links, submodules): told before the change drops any id.
    unkeyed = [p for p in paths if p not in blobs] if len(blobs) < len(paths) else []
    for path in dropped:
        blobs.pop(path, None)
    # The tree's paths, each once: a changed file's is dropped, then comes again if it is there.
    kept = list(filterfalse(dropped.__contains__, paths)) if dropped else paths
    untracked = [c.path for c in changes if c.status == "U"]
    unkeyed = [p for p in unkeyed if p not in dropped] + now
    return Listed(kept + now, blobs, untracked, sorted(set(gone)), unkeyed)


# Slices of an `ls-tree` entry of a regular file with a SHA-1 blob id, whose fields sit in fixed
# columns ("100644 blob <40 hex>\t<path>").
_HEAD, _TAB, _BLOB, _PATH = (
    itemgetter(slice(0, 12)),
    itemgetter(slice(52, 53)),
    itemgetter(slice(12, 52)),
    itemgetter(slice(53, None)),
)


def base_tree(entries: list[str]) -> tuple[list[str], dict[str, str]]:
    """The files of `ls-tree -r` entries (each once, as a tree lists them), and the blob ids
    of the regular ones. When every entry is a regular file with a SHA-1 id (a tree without
    links or submodules), each field is cut out at C speed, a pass over the entries each;
    else one entry at a time."""
    if set(map(_TAB, entries)) <= {"\t"} and set(map(_HEAD, entries)) <= _BLOB_HEADS:
        paths = list(map(_PATH, entries))
        return paths, dict(zip(paths, map(_BLOB, entries), strict=True))
    files: list[str] = []
    blobs: dict[str, str] = {}
    for entry in entries:
        if entry[52:53] == "\t" and entry[:12] in _BLOB_HEADS:  # the fixed columns, as above
            files.append(entry[53:])
            blobs[entry[53:]] = entry[12:52]
            continue
        meta, _, path = entry.partition("\t")  # "<mode> <type> <id>\t<path>"
        files.append(path)
        mode, kind, sha = meta.split()
        if kind == "blob" and mode in PLAIN:
            blobs[path] = sha
    return files, blobs


# A commit's listing as a run keeps it (`packed_tree`): this line with the number of paths,
# then the paths and after them each path's blob id ("" for a link or a submodule), all
# NUL-joined, then an end line: one decoding and one split read it back.
_PACKED, _END = b"evallint tree listing 2 ", b"\nend\n"


class Kept(Protocol):
    """Where a commit's listing (`packed_tree`) is kept between runs (`io/cache.py`'s
    `KeptTree`)."""

    def exists(self) -> bool: ...

    def load(self) -> bytes | None: ...

    def save(self, packed: bytes) -> None: ...

    def trusts(self, changes: Sequence[Change], files: list[str] | None) -> bool:
        """Whether a listing kept there can be read (`files` None) or written (`files`: the
        listing) for a run with this change: never where the change could have planted it."""
        ...


def packed_tree(paths: list[str], blobs: Mapping[str, str]) -> bytes:
    """`base_tree`'s listing as bytes `unpacked_tree` reads back: a commit's tree never
    changes, so a later run at the same commit reads this and asks git for no listing. The
    paths are kept sorted (as git lists a tree), for `TreeIds` to look them up."""
    order = sorted(paths)
    body = "\0".join([*order, *[blobs.get(p, "") for p in order]])
    return b"%s%d\n%s%s" % (_PACKED, len(paths), body.encode("utf-8", "surrogateescape"), _END)


def unpacked_tree(raw: bytes) -> tuple[list[str], TreeIds] | None:
    """What `packed_tree` wrote: the files and blob ids; None for bytes it did not write."""
    whole = raw.startswith(_PACKED) and raw.endswith(_END)  # a file cut short is not read
    head, _, body = raw[: -len(_END)].partition(b"\n") if whole else (b"", b"", b"")
    count = head[len(_PACKED) :]
    if not count.isdigit():
        return None
    n = int(count)
    parts = body.decode("utf-8", "surrogateescape").split("\0") if n else []
    if len(parts) != 2 * n:
        return None
    paths = parts[:n]
    return paths, TreeIds(paths, parts[n:])


class TreeIds(Mapping[str, str]):
    """The blob ids of a commit's regular files, as a kept listing gives them: `paths` sorted,
    `ids` beside them ("" where no regular file is). A run that asks about a few of a large
    tree's files finds each by bisection and makes no dict of them (20 ms at 100,000 files);
    one that asks about many makes the dict at its `DICT_AFTER`th question. `pop` forgets a
    path (one a change touched), as a dict's would."""

    DICT_AFTER = 2000

    def __init__(self, paths: list[str], ids: list[str]) -> None:
        self._paths, self._ids = paths, ids
        self._dropped: set[str] = set()
        self._len = len(ids) - ids.count("")
        self._asked = 0
        self._dict: dict[str, str] | None = None

    def _at(self, path: str) -> str:
        if self._dict is not None:
            return self._dict.get(path, "")
        self._asked += 1
        if self._asked > self.DICT_AFTER:
            self._dict = dict(self._pairs())
            return self._dict.get(path, "")
        at = bisect_left(self._paths, path)
        found = at < len(self._paths) and self._paths[at] == path and path not in self._dropped
        return self._ids[at] if found else ""

    def __getitem__(self, path: str) -> str:
        found = self._at(path)
        if not found:
            raise KeyError(path)
        return found

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and bool(self._at(path))

    def _pairs(self) -> Iterator[tuple[str, str]]:
        pairs = zip(self._paths, self._ids, strict=True)
        return ((p, i) for p, i in pairs if i and p not in self._dropped)

    def __iter__(self) -> Iterator[str]:
        return iter(self._dict) if self._dict is not None else (p for p, _ in self._pairs())

    def __len__(self) -> int:
        return len(self._dict) if self._dict is not None else self._len

    def pop(self, path: str, default: str | None = None) -> str | None:
        found = self._at(path)
        if not found:
            return default
        if self._dict is not None:
            del self._dict[path]
        else:
            self._dropped.add(path)
            self._len -= 1
        return found


def as_tagged(statuses: list[str]) -> list[str]:
    """diff-files' "status NUL path" pairs as the lines `ls-files -t --deleted --modified`
    would add: "R" for a file deleted from the working tree, "C" for one changed in it."""
    return [
        ("R \t" if status == "D" else "C \t") + path
        for status, path in zip(statuses[::2], statuses[1::2], strict=True)
    ]


@record
class Listed:
    """What `ls-files -t --stage` lines say of the working tree."""

    files: list[str]  # tracked files not deleted, untracked ones not ignored; in no order
    blobs: dict[str, str] | TreeIds  # path -> blob id, for the regular files git knows clean
    untracked: list[str]
    deleted: list[str]  # tracked, and gone from it
    # The files with no blob id, when the listing tells them at no cost (else None): the only
    # ones that may be links.
    unkeyed: list[str] | None = None


def tagged(lines: list[str]) -> Listed:
    """The files of `ls-files -t --stage` lines that the working tree has, and the blob ids of
    those git knows clean.

    With --stage each index entry is tagged "H", and with --modified and --deleted each modified
    or deleted file comes again tagged "C" or "R". Other tags (assume-unchanged "h",
    skip-worktree "S", unmerged "M") are files git does not compare: they are listed, but read
    and hashed instead. An untracked file ("?") has no stage data.
    """
    # Most lines, by far: a regular file at stage 0 with a SHA-1 blob id, whose fields sit in
    # fixed columns ("H 100644 <40 hex> 0\t<path>"): told and cut at C speed, a pass each.
    clean = list(
        map(
            and_,
            map(eq, map(_STAGE_0, lines), repeat(" 0\t")),
            map(_CLEAN_HEADS.__contains__, map(_TAG_MODE, lines)),
        )
    )
    plain = list(compress(lines, clean))
    paths = list(map(_CLEAN_PATH, plain))
    # Unique (an unmerged file has a line per stage); in no order that matters: callers sort.
    files = dict.fromkeys(paths)
    blobs = dict(zip(paths, map(_CLEAN_BLOB, plain), strict=True))
    changed: list[str] = []
    gone: list[str] = []
    untracked: list[str] = []
    for line in compress(lines, map(not_, clean)):
        if line[0] == "?":
            files[line[2:]] = None
            untracked.append(line[2:])
            continue
        # "H <mode> <blob> <stage>\t<path>"; mode is six digits, blob ids 40 or 64 hex digits.
        tab = line.index("\t")
        path = line[tab + 1 :]
        if line[0] == "C":
            changed.append(path)
        elif line[0] == "R":
            gone.append(path)
        else:
            files[path] = None
            if line[0] == "H" and line[tab - 1] == "0" and line[2:8] in PLAIN:
                blobs[path] = line[9 : tab - 2]
    for path in gone:
        files.pop(path, None)
    for path in (*changed, *gone):
        blobs.pop(path, None)
    return Listed(list(files), blobs, untracked, list(dict.fromkeys(gone)))


PLAIN = ("100644", "100755")  # regular files: not links (120000) nor submodules (160000)


_CLEAN_HEADS = frozenset(f"H {mode} " for mode in PLAIN)


_BLOB_HEADS = frozenset(f"{mode} blob " for mode in PLAIN)


@record
class Change:
    """A file the change touches, as git reports it."""

    status: str  # "A" added, "M" modified, "D" deleted, "R" renamed, "U" untracked
    path: str  # where it is now (for "D", where it was)
    old_path: str | None = None  # where it was at the base, when that differs or it existed
    similarity: int = 0  # for renames: 100 means the content did not change


@record
class Base:
    """The commit a change is compared with."""

    label: str  # what the user or environment named
    sha: str  # the merge base with HEAD (the empty tree's id before the first commit)
    unborn: bool = False  # no commit yet: every file is new

    @property
    def short(self) -> str:
        return self.sha[:10]


def object_id(out: bytes) -> str:
    return out.decode("ascii", "replace").strip()


def changes_of(fields: list[str]) -> list[Change]:
    """`diff --name-status -z` fields as changes: copies count as added files."""
    changes, i = [], 0
    while i < len(fields):
        status = fields[i]
        if status[0] in "RC":
            renamed = status[0] == "R"
            kind, old = ("R", fields[i + 1]) if renamed else ("A", None)
            changes.append(Change(kind, fields[i + 2], old, int(status[1:] or 0)))
            i += 3
        else:
            kind = {"A": "A", "D": "D", "T": "M"}.get(status[0], "M")
            old = fields[i + 1] if kind in ("M", "D") else None
            changes.append(Change(kind, fields[i + 1], old))
            i += 2
    return changes


def batch_contents(out: bytes, count: int) -> list[bytes | None]:
    """The contents `cat-file --batch` gives, each after a "<id> <type> <size>" line; None for
    an object the clone does not have ("<id> missing"), which the caller refuses."""
    found: list[bytes | None] = []
    at = 0
    for _ in range(count):
        end = out.index(b"\n", at)
        head = out[at:end].split(b" ")
        if len(head) != 3:
            found.append(None)
            at = end + 1
            continue
        size = int(head[2])
        found.append(out[end + 1 : end + 1 + size])
        at = end + 1 + size + 1  # the content, and the newline after it
    return found


# Slices of an `ls-files -t --stage` line in those fixed columns.
_TAG_MODE, _CLEAN_BLOB, _STAGE_0, _CLEAN_PATH = (
    itemgetter(slice(0, 9)),
    itemgetter(slice(9, 49)),
    itemgetter(slice(49, 52)),
    itemgetter(slice(52, None)),
)
