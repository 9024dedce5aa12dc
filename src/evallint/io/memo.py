"""The summaries of a base commit's eval files, kept once and asked for by id.

A `--diff` run compares with a base commit, and every file its change does not name holds the
base's content. Of those files the run needs a few: the definers its references name, the
files that mention an id it defines, the definers whose id cannot be read. Reading a summary
per tree file to find them costs every run time in proportion to the tree. So the summaries
of a base's eval files (`engine/index.py` makes them) are kept once per base commit in a SQLite
file, indexed by the ids files define and by the ids they mention, and a run asks for its few.

A commit's content never changes, so a memo is written once, whole, to a temporary file that is
renamed into place, and is opened read-only as immutable: a run sees a complete file or none.
It lives in the cache folder (`io/cache.py` says when that folder is not used), named by what
its summaries depend on and by the commit. One that does not open or read is no memo, and the
run that meets it writes it again. The latest few are kept.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from array import array
from collections import defaultdict
from collections.abc import Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evallint.errors import EvallintError

if TYPE_CHECKING:
    import sqlite3

# path, kind, namespace, id ("" when it cannot be read), version, version as written, digest
# (JSON), mentions. A file that defines nothing has only its path and mentions.
Row = tuple[str, str | None, str | None, str | None, str | None, str | None, str | None, str]

KEEP = 4  # memo files kept: the bases of the few branches a person works on
_COLUMNS = "path, kind, ns, ident, version, written, digest, mentions"
_SCHEMA = """
CREATE TABLE files(
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, kind TEXT, ns TEXT, ident TEXT, version TEXT,
    written TEXT, digest TEXT, mentions TEXT NOT NULL
);
CREATE TABLE names(name TEXT PRIMARY KEY, ids BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE meta(missing TEXT NOT NULL);
"""
# Made after the rows are in: an index built once is faster than one grown row by row.
_INDEXES = """
CREATE INDEX defined ON files(ns, ident) WHERE kind IS NOT NULL;
CREATE INDEX definers ON files(path) WHERE kind IS NOT NULL;
"""
_CHUNK = 500  # parameters a query takes at once (SQLite's limit is far above)


class TreeMemo:
    """An open memo: a commit's eval files, but `missing` (not summarized when it was made,
    or changed since, for a memo that stands for a near commit)."""

    def __init__(self, db: sqlite3.Connection, missing: frozenset[str], file: Path) -> None:
        self._db, self.missing, self._file = db, missing, file

    def definers(self, namespace: str, ident: str) -> list[Row]:
        where = "kind IS NOT NULL AND ns = ? AND ident = ?"
        return self._rows(f"SELECT {_COLUMNS} FROM files WHERE {where}", (namespace, ident))

    def at(self, path: str) -> Row | None:
        found = self._rows(
            f"SELECT {_COLUMNS} FROM files WHERE kind IS NOT NULL AND path = ?", (path,)
        )
        return found[0] if found else None

    def broken(self) -> list[Row]:
        """Definers whose id cannot be read."""
        return self._rows(f"SELECT {_COLUMNS} FROM files WHERE kind IS NOT NULL AND ident = ''")

    def every(self) -> list[Row]:
        """Every definer."""
        return self._rows(f"SELECT {_COLUMNS} FROM files WHERE kind IS NOT NULL ORDER BY path")

    def ids(self, namespace: str) -> list[tuple[str, str, str | None]]:
        """(id, path, version) of the namespace's definers whose id can be read."""
        query = "SELECT ident, path, version FROM files WHERE kind IS NOT NULL AND ns = ?"
        return [r for r in self._rows(query, (namespace,)) if r[0]]

    def mentioning(self, names: Sequence[str]) -> list[Row]:
        """The files that mention any of the ids ("rubric/tone": a mention's text before any
        pin), in path order."""
        ids: set[int] = set()
        for start in range(0, len(names), _CHUNK):
            part = names[start : start + _CHUNK]
            query = f"SELECT ids FROM names WHERE name IN ({_marks(len(part))})"
            for (packed,) in self._rows(query, part):
                ids.update(_unpacked(packed))
        found: list[Row] = []
        ordered = sorted(ids)
        for start in range(0, len(ordered), _CHUNK):
            chunk = ordered[start : start + _CHUNK]
            query = f"SELECT {_COLUMNS} FROM files WHERE id IN ({_marks(len(chunk))})"
            found += self._rows(query, chunk)
        return sorted(found)

    def lacking(self, paths: Iterable[str]) -> TreeMemo:
        """This memo standing for a commit whose files differ from its own at `paths`."""
        return TreeMemo(self._db, self.missing | frozenset(paths), self._file)

    def close(self) -> None:
        self._db.close()

    def _rows(self, query: str, args: Sequence[object] = ()) -> list[Any]:
        """The rows a query gives. A memo that fails in the middle of a run (its disk failed,
        or it was written over) cannot be stepped around: the run stops and says so, and the
        memo is removed, so the next run writes it again."""
        import sqlite3

        try:
            return self._db.execute(query, args).fetchall()
        except sqlite3.Error as e:
            with contextlib.suppress(OSError):
                self._file.unlink()
            raise EvallintError(
                f"the memo {self._file.name} in the cache folder could not be read ({e}); it is "
                "removed: run again"
            ) from None


def open_memo(file: Path) -> TreeMemo | None:
    """The memo in `file`; None when there is none, or it does not open or read whole."""
    if not file.is_file():
        return None
    try:
        import sqlite3
    except ImportError:  # a Python built without it: runs read each summary, as below 2,000
        return None

    db = None
    try:
        db = sqlite3.connect(f"{file.as_uri()}?mode=ro&immutable=1", uri=True)
        row = db.execute("SELECT missing FROM meta").fetchone()
        missing = json.loads(row[0]) if row else None
        if not (isinstance(missing, list) and all(isinstance(p, str) for p in missing)):
            db.close()
            return None
        db.execute(f"SELECT {_COLUMNS} FROM files LIMIT 1").fetchall()  # the tables are ours
        db.execute("SELECT name, ids FROM names LIMIT 1").fetchall()
    except (sqlite3.Error, ValueError):
        if db is not None:
            db.close()
        return None
    with contextlib.suppress(OSError):
        os.utime(file)  # used now: the latest used are the ones kept
    return TreeMemo(db, frozenset(missing), file)


def write_memo(file: Path, rows: Sequence[Row], missing: Sequence[str]) -> None:
    """Write the memo whole, then rename it into place; keep the latest few. A folder that
    cannot be written leaves the run without one, never failing it."""
    try:
        import sqlite3
    except ImportError:
        return
    import tempfile

    with contextlib.suppress(OSError, sqlite3.Error):
        fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=".tmp-", suffix=".sqlite")
        os.close(fd)
        try:
            db = sqlite3.connect(tmp)
            try:
                _fill(db, rows, missing)
            finally:
                db.close()
            os.replace(tmp, file)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        _prune(file.parent, file.name.split("-", 2)[0])


def _fill(db: sqlite3.Connection, rows: Sequence[Row], missing: Sequence[str]) -> None:
    db.executescript("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;" + _SCHEMA)
    db.executemany(
        f"INSERT INTO files(id, {_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ((i, *row) for i, row in enumerate(rows)),
    )
    by_name: defaultdict[str, array[int]] = defaultdict(partial(array, "I"))
    for i, row in enumerate(rows):
        if row[7]:
            for name in dict.fromkeys(_names(row[7])):
                by_name[name].append(i)
    db.executemany(
        "INSERT INTO names VALUES (?, ?)", ((n, a.tobytes()) for n, a in by_name.items())
    )
    db.execute("INSERT INTO meta VALUES (?)", (json.dumps(sorted(missing)),))
    db.executescript(_INDEXES)
    db.commit()


def _prune(folder: Path, prefix: str) -> None:
    """Remove all but the latest used memos."""
    prune(folder, f"{prefix}-*.sqlite")


def prune(folder: Path, pattern: str) -> None:
    """Remove all but the `KEEP` latest used files of the folder that match `pattern`."""
    with contextlib.suppress(OSError):
        found = sorted((p.stat().st_mtime, p) for p in folder.glob(pattern) if p.is_file())
        for _, old in found[:-KEEP]:
            old.unlink()


# The ids a file's mentions name: each space-separated text up to its pin.
_names = re.compile(r"(?:(?<= )|^)[^ @]+").findall


def _marks(count: int) -> str:
    return ", ".join("?" * count)


def _unpacked(packed: object) -> array[int]:
    out = array("I")
    if isinstance(packed, bytes) and len(packed) % out.itemsize == 0:
        out.frombytes(packed)
    return out
