"""Splitting a run's per-file work across processes: read and parse, then check, in two phases.

Reading and parsing is most of a large run, and the project index needs every file before any
file can be checked against it. So each forked worker reads its share of the files and sends
back, as it reads them, only what other files' rules may read of them (`crossing.pack`); the
parent builds the index from that. Where what waits for phase two is light, the workers hand it
back and the parent checks it (`Forked`); else the parent sends the index to every worker, which
then checks its own files. Parsed data never crosses a pipe; the index, which is small, crosses
once per worker.

Workers are forked, never spawned: they inherit the run (config, source, baseline) without
pickling it. Both phases are `engine/file.py`'s (`read_all`, `check_all`); this module only
splits the files and moves data. Where fork is not available, or for a small run, one process
does both phases.
"""

from __future__ import annotations

import gc
import heapq
import os
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, Any, TypeVar, cast

from evallint.engine.crossing import Sent, entry_of, send_form
from evallint.engine.file import Run, Waiting, check_all, check_due, due, light, read_all
from evallint.io.source import Source
from evallint.model import Diagnostic, Skipped
from evallint.parse import ready_yaml
from evallint.project import Entry, Kept, Project

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

PARALLEL_FROM = 1000  # below this, starting processes costs more than it saves
INDEX_CHUNK = 2000  # entries a message of the index carries to the workers


Skips = list[Skipped]


def tune_collector() -> None:
    """For a whole check run (the process is the run's). A run allocates millions of small
    objects (parsed files) that hold no cycles; the default thresholds rescan them all again
    and again (a tenth of a large run). Cycles are still collected, less often. The other
    collector settings, freezing what workers inherit and keep, are below."""
    gc.set_threshold(100_000, 50, 50)


def count_for(files: int, jobs: int | None) -> int:
    """How many processes: `jobs`, or every core for runs of PARALLEL_FROM files or more."""
    if jobs is None:
        jobs = (os.cpu_count() or 1) if files >= PARALLEL_FROM else 1
    wanted = min(files, jobs)
    if wanted < 2:
        return 1  # decided before importing multiprocessing, which a small run never needs
    import multiprocessing

    return wanted if "fork" in multiprocessing.get_all_start_methods() else 1


T = TypeVar("T")
R = TypeVar("R")
# What split_map's forked workers run, set just before the fork, inherited, never pickled.
_SPLIT: tuple[Callable[[Any], Any], Sequence[Any], int] | None = None


def split_map(fn: Callable[[T], R], items: Sequence[T], count: int) -> list[R]:
    """`fn` of each item, in order, by `count` forked processes (1: this one), each taking
    every count-th item (large and small files mix). `fn` and the items are inherited, not
    pickled; only the answers cross back."""
    if count < 2:
        return [fn(x) for x in items]

    global _SPLIT
    _SPLIT = (fn, items, count)
    try:
        conns, procs = _spawn(_split_part, count)
    finally:
        _SPLIT = None
    out: list[Any] = [None] * len(items)
    for first, conn in enumerate(conns):
        out[first::count] = _receive(conn)
    for proc in procs:
        proc.join()
    return out


def _spawn(
    target: Callable[[Connection, int], None], count: int
) -> tuple[list[Connection], list[Any]]:
    """`count` forked workers running `target(pipe, first)`, and this end of their pipes.
    What they run is set in a module global just before: inherited, never pickled."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    conns: list[Connection] = []
    procs: list[Any] = []
    # Collections in a worker would otherwise write to every object inherited from this
    # process, copying their memory pages; frozen objects are never scanned.
    gc.freeze()
    parent = os.getpid()
    try:
        for first in range(count):
            mine, theirs = context.Pipe()
            proc = context.Process(target=_tied, args=(target, parent, theirs, first), daemon=True)
            proc.start()
            theirs.close()  # so a worker that dies gives EOF here, not a hang
            conns.append(mine)
            procs.append(proc)
    finally:
        gc.unfreeze()  # this process goes on collecting as before
    return conns, procs


def _tied(
    target: Callable[[Connection, int], None], parent: int, conn: Connection, first: int
) -> None:
    """A worker that ends with its parent: a SIGTERM or SIGKILL to the run, or its crash, would
    otherwise leave the workers running, reparented to init. Linux says so with
    PR_SET_PDEATHSIG; elsewhere the workers end when their pipe closes."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)
    target(conn, first)


def _split_part(conn: Connection, first: int) -> None:
    assert _SPLIT is not None
    fn, items, step = _SPLIT
    try:
        conn.send(("ok", [fn(x) for x in items[first::step]]))
    except BaseException as exc:  # reported by the parent, which owns the exit code
        conn.send(_failure(exc))
    finally:
        conn.close()


def _failure(exc: BaseException) -> tuple[str, tuple[str, str]]:
    """What a worker sends when it fails: one line, and the traceback under EVALLINT_DEBUG."""
    import traceback

    detail = traceback.format_exc() if os.environ.get("EVALLINT_DEBUG") else ""
    return ("error", (f"{type(exc).__name__}: {exc}", detail))


def start(paths: Sequence[str], count: int, run: Run, source: Source) -> Serial | Forked:
    """Phase one begins: `count` processes (1: this one) read their share of `paths`."""
    return Forked(paths, count, run, source) if count > 1 else Serial(paths, run, source)


class Serial:
    """Both phases in this process."""

    def __init__(self, paths: Sequence[str], run: Run, source: Source) -> None:
        found = read_all(paths, source, run)
        self._entries, self._diagnostics, self._skipped, self._pending = found
        self._run, self._source = run, source

    def read(self) -> tuple[list[Entry], list[Diagnostic], Skips]:
        return self._entries, self._diagnostics, self._skipped

    def check(self, head: Project) -> list[Diagnostic]:
        return check_all(self._pending, self._run, self._source, head)


# What forked workers run, set just before the fork, inherited, never pickled.
_JOB: tuple[Sequence[str], list[range], Any, Run, Source] | None = None


class Forked:
    """Each of `count` workers reads its share of the files (`chunks`, taken in turn), sends
    them as it reads them (`_read_share`), and checks them once the parent sends the index.
    When every file waiting for phase two is light (a bare `Kept`, a datastore's record or a
    task config; a slim entry), the workers hand them over instead and end, and no index is
    sent: this process, which holds the project, keeps those some rule wants and checks them,
    or forks workers again that share the project as it is here."""

    def __init__(self, paths: Sequence[str], count: int, run: Run, source: Source) -> None:
        global _JOB
        self._paths, self._run, self._source = paths, run, source
        self._handed: list[Waiting] | None = None  # what waits, when the workers handed it over
        import multiprocessing

        # The next of `chunks` to take, shared by the workers (forked with it).
        taken = multiprocessing.get_context("fork").Value("q", 0)
        if any(p.endswith((".yaml", ".yml")) for p in paths):
            ready_yaml()  # once here, not once a worker; and here for what phase two reads again
        _JOB = (paths, chunks(paths), taken, run, source)
        try:
            self._conns, self._procs = _spawn(_work, count)
        finally:
            _JOB = None

    def read(self) -> tuple[list[Entry], list[Diagnostic], Skips]:
        # Each worker's files come in chunks as it reads them, each named by its place in the
        # run's paths, in that order: merged by place, they are in the run's order, with no
        # table of paths. Every worker is read from as it sends (one waiting on a full pipe
        # would stop reading until the others were done).
        # Places as machine integers: an int object a record would be a large run's peak.
        places = [array("q") for _ in self._conns]
        found: list[list[Entry]] = [[] for _ in self._conns]
        ends: list[Any] = [None] * len(self._conns)
        for i, status, payload in _as_sent(self._conns):
            if status == "part":
                for sent in payload:
                    assert not isinstance(sent, Entry)  # a worker names each file by place
                    places[i].append(cast(int, sent[0]))
                    found[i].append(entry_of(sent, self._paths))
            else:
                ends[i] = payload
        diagnostics: list[Diagnostic] = []
        skipped: list[tuple[int, Skipped]] = []
        handed: list[Waiting] | None = []
        for theirs, (own, passed, waiting) in zip(found, ends, strict=True):
            diagnostics += own
            skipped += passed
            if handed is not None and waiting is not None:
                handed += (theirs[w] if isinstance(w, int) else w for w in waiting)
            else:
                handed = None
        merged = heapq.merge(*(zip(a, f, strict=True) for a, f in zip(places, found, strict=True)))
        entries = [entry for _, entry in merged]
        skipped.sort(key=itemgetter(0))
        if handed is not None:
            self._handed = handed
            self._send(_STOP)
            self._join()
        return entries, diagnostics, [s for _, s in skipped]

    def check(self, head: Project) -> list[Diagnostic]:
        if self._handed is not None:
            # What no rule wants is left out here, once (most of a large tree): what is left
            # is checked here, or split when it is large enough to pay for the processes
            # (forked with the project as it is here; only their findings cross back).
            run, source = self._run, self._source
            wanted = due(self._handed, run, head)
            count = min(len(self._conns), count_for(len(wanted), None))
            shares = [wanted[i::count] for i in range(count)]
            parts = split_map(lambda share: check_due(share, run, source, head), shares, count)
            return [d for part in parts for d in part]
        import pickle  # only split runs need it: a one-file run does not pay its import

        # In path order, as the project adds them, so each worker rebuilds the same project;
        # definers known by summary are parsed here (a run this large is mostly the tree).
        # Definers whose id cannot be read go along: some are known by their summary alone.
        # In chunks: the whole index packed and pickled at once would double a large run's
        # peak memory in this process and in every worker.
        order = {p: i for i, p in enumerate(self._paths)}
        every = head.every_entry()
        for start in range(0, len(every), INDEX_CHUNK):
            part = [send_form(e, order.get(e.path)) for e in every[start : start + INDEX_CHUNK]]
            self._send(pickle.dumps(("part", part), pickle.HIGHEST_PROTOCOL))
        self._send(pickle.dumps(("last", head.broken), pickle.HIGHEST_PROTOCOL))
        found = [d for conn in self._conns for d in _receive(conn)]
        self._join()
        return found

    def _join(self) -> None:
        for proc in self._procs:
            proc.join()

    def _send(self, message: bytes) -> None:
        try:
            for conn in self._conns:
                conn.send_bytes(message)
        except OSError:  # BrokenPipeError: stdout's, to the command, would mean "all is well"
            raise RuntimeError(_GONE) from None


# Told to a worker that handed its waiting files over: nothing more will come.
_STOP = b"stop"


def _index(conn: Connection, mine: dict[str, Entry], paths: Sequence[str]) -> Project | None:
    """The project as the parent sends it, chunk by chunk (`Forked.check`); None when the parent
    checks what this worker handed over. `mine`: this worker's own files, as it keeps them:
    those are used, not copies of them; `paths`: the run's, which a packed entry may name by
    place."""
    import pickle

    entries: list[Entry] = []
    while True:
        message = conn.recv_bytes()
        if message == _STOP:
            return None
        tag, payload = pickle.loads(message)
        if tag == "last":
            head = Project(entries, ordered=True)
            head.broken = payload
            return head
        for sent in payload:
            entry = entry_of(sent, paths)
            entries.append(mine.get(entry.path) or entry)


def chunks(paths: Sequence[str], size: int = 64) -> list[range]:
    """The run's paths cut into ranges of places, each in one folder and of at most `size`
    files, which the workers take in turn as each finishes the last (`_taken`): a worker that
    drew the costly folders takes fewer. A folder's files are read by one worker where they
    fit one range (configs read the same templates and modules, which each worker would
    otherwise parse again); `size` bounds what the last worker still reads alone."""
    out: list[range] = []
    start = 0
    while start < len(paths):
        folder = paths[start].rpartition("/")[0]
        end = start + 1
        while end < len(paths) and end - start < size and paths[end].rpartition("/")[0] == folder:
            end += 1
        out.append(range(start, end))
        start = end
    return out


def _taken(ranges: Sequence[range], taken: Any) -> Iterator[range]:
    """The ranges this worker takes, in order: each the next no worker has taken."""
    while True:
        with taken.get_lock():
            at = taken.value
            taken.value = at + 1
        if at >= len(ranges):
            return
        yield ranges[at]


def _placed(read: Iterable[str], mine: Sequence[str], places: Sequence[int]) -> Iterator[int]:
    """The place in the run's paths of each of `read`, the files of `mine` (a worker's share,
    at `places`) that phase one kept, in their order."""
    k = 0
    for path in read:
        while mine[k] != path:
            k += 1
        yield places[k]
        k += 1


# What waits for phase two in a worker: a file it keeps, or a bare `Kept` by its place among
# the entries the worker sent (not kept: the parent has it, and so has the index it may send
# back).
Left = Waiting | int


def _read_share(
    conn: Connection, paths: Sequence[str], share: Iterable[range], run: Run, source: Source
) -> tuple[list[Diagnostic], list[tuple[int, Skipped]], list[Left], dict[str, Entry], array[int]]:
    """Phase one of a worker's share, a range of places at a time (ascending), each range's
    entries sent as soon as they are read. A bare `Kept` (a datastore's record) is kept by no
    one here once sent, so a worker's memory does not grow with its share; other entries
    (definers, slim files) are kept, as the index is built from them without sending them
    back."""
    diagnostics: list[Diagnostic] = []
    passed: list[tuple[int, Skipped]] = []
    left: list[Left] = []
    kept: dict[str, Entry] = {}
    sent = array("q")  # the place in the run's paths of each entry sent, in order
    out: list[Sent] = []  # read, not yet sent: a message carries up to INDEX_CHUNK files
    for at in share:
        part = [paths[i] for i in at]
        entries, found, skipped, pending = read_all(part, source, run)
        diagnostics += found
        places = list(_placed((e.path for e in entries), part, at))
        out += (send_form(e, p) for e, p in zip(entries, places, strict=True))
        if len(out) >= INDEX_CHUNK:
            conn.send(("part", out))
            out = []
        passed += zip(_placed((s.path for s in skipped), part, at), skipped, strict=True)
        bare = {id(e): len(sent) + i for i, e in enumerate(entries) if type(e) is Kept}
        left += [bare.get(id(w), w) if type(w) is Kept else w for w in pending]
        kept.update((e.path, e) for e in entries if type(e) is not Kept)
        sent.extend(places)
    if out:
        conn.send(("part", out))
    return diagnostics, passed, left, kept, sent


_GONE = "a worker process ended without reporting (killed?)"


def _as_sent(conns: Sequence[Connection]) -> Iterator[tuple[int, str, Any]]:
    """Each worker's messages of phase one (`(worker, status, payload)`) as they arrive, from
    whichever worker sent, until each has sent its last ("ok")."""
    from multiprocessing.connection import wait

    open_ = {id(conn): i for i, conn in enumerate(conns)}
    while open_:
        for ready in wait([conns[i] for i in open_.values()]):
            i = open_[id(ready)]
            status, payload = _message(cast("Connection", ready))
            if status != "part":
                del open_[id(ready)]
            yield i, status, payload


def _receive(conn: Connection) -> Any:
    return _message(conn)[1]


def _message(conn: Connection) -> tuple[str, Any]:
    """A worker's next message ("part" of its files, or "ok" and the rest); its failure or its
    death raised here."""
    try:
        status, payload = conn.recv()
    except EOFError:
        raise RuntimeError(_GONE) from None
    if status == "error":
        message, detail = payload
        # One line, as any internal error; the traceback only under EVALLINT_DEBUG.
        raise RuntimeError(f"in a worker process: {message}" + (f"\n{detail}" if detail else ""))
    return status, payload


def _work(conn: Connection, first: int) -> None:
    assert _JOB is not None
    paths, ranges, taken, run, source = _JOB
    try:
        diagnostics, passed, left, kept, sent = _read_share(
            conn, paths, _taken(ranges, taken), run, source
        )
        gc.freeze()  # what phase two needs lives to the end: collections need not scan it again
        handed = left if all(isinstance(w, int) or light(w) for w in left) else None
        conn.send(("ok", (diagnostics, passed, handed)))
        head = _index(conn, kept, paths)
        if head is not None:
            pending = [head.entries[paths[sent[w]]] if isinstance(w, int) else w for w in left]
            conn.send(("ok", check_all(pending, run, source, head)))
    except BaseException as exc:  # reported by the parent, which owns the exit code
        conn.send(_failure(exc))
    finally:
        conn.close()
