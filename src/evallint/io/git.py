"""The only module that talks to git.

Every command runs directly, without a shell, in the environment `clean_env` gives: GitPython's
import alone costs more than a whole one-file run.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

from evallint.errors import EvallintError
from evallint.io.event import pull_request_sha
from evallint.io.gitout import (
    PLAIN,
    Base,
    Change,
    Kept,
    Listed,
    TreeIds,
    applied,
    as_tagged,
    base_tree,
    batch_contents,
    changes_of,
    object_id,
    packed_tree,
    tagged,
    unpacked_tree,
)


def clean_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment without inherited GIT_* variables (a hook's GIT_DIR would redirect us)."""
    env = os.environ if environ is None else environ
    kept = {k: v for k, v in env.items() if not k.startswith("GIT_") or k == "GIT_EXEC_PATH"}
    # A partial clone fetches a missing object when asked for it: never touch the network.
    return {**kept, "GIT_NO_LAZY_FETCH": "1"}


def _git_lines(root: Path, *args: str) -> list[str] | None:
    """NUL-separated output of a git command; None when git is unusable here."""
    return _lines(_start(root, args), args)


def _start(
    root: Path, args: Sequence[str], spool: IO[bytes] | None = None
) -> subprocess.Popen[bytes] | None:
    """`spool`: a file for the output, which git then writes at its own pace, not a pipe's."""
    try:
        return subprocess.Popen(
            ["git", *args],
            cwd=root,
            stdout=subprocess.PIPE if spool is None else spool,
            stderr=subprocess.PIPE,
            env=clean_env(),
        )
    except OSError:  # no git executable
        return None


def _lines(
    proc: subprocess.Popen[bytes] | None, args: Sequence[str], spool: IO[bytes] | None = None
) -> list[str] | None:
    if proc is None:
        return None
    out, err = proc.communicate()
    if spool is not None:
        spool.seek(0)
        out = spool.read()
    if proc.returncode != 0:
        message = err.decode("utf-8", "replace").strip()
        if "not a git repository" in message:
            return None
        raise EvallintError(f"git {args[0]} failed: {message}")
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def list_files(root: Path, pathspecs: Sequence[str]) -> list[str] | None:
    """Tracked files plus untracked ones git does not ignore, as the working tree has them: a
    file deleted but not yet staged is gone (existence is never read from the index alone).
    None when git is unusable."""
    found = tree_files(root, pathspecs)
    return None if found is None else found[0]


def tree_files(root: Path, pathspecs: Sequence[str]) -> tuple[list[str], Mapping[str, str]] | None:
    """`list_files`' listing, and `clean_blobs`' ids of the files listed, from one call: both
    cost git one stat of every tracked file, and the listing's untracked walk takes as long as
    both together. None when git is unusable."""
    found = Listing(root, pathspecs).result()
    return None if found is None else (found.files, found.blobs)


# -t tags each path ("?" untracked); --stage gives the cached entries' blob ids.
_LISTING = ("ls-files", "-z", "-t", "--stage", "--cached", "--others", "--exclude-standard")
# What the working tree changed: "D" deleted, any other status modified. ls-files' --modified
# and --deleted would ask the same, one stat at a time; diff-files stats in threads (a third
# of the time at 100,000 files), and runs beside the listing. It does not refresh the index,
# so a file whose stat data alone changed is listed as modified: read and hashed, never
# trusted by its blob id.
_CHANGED = ("diff-files", "-z", "--name-status")


def _spool_file() -> IO[bytes]:
    """An unnamed file: in memory where the system offers one, so no tempfile (3 ms to import)."""
    if hasattr(os, "memfd_create"):
        return open(os.memfd_create("evallint-git", os.MFD_CLOEXEC), "w+b")
    import tempfile

    return tempfile.TemporaryFile()


class Pending:
    """A git command started now and read when wanted: git works while this process does.
    `spool`: its output goes to a temporary file, not a pipe, so git never waits for this
    process to read it (a large output, read after others, would stall git till then)."""

    def __init__(self, root: Path, args: Sequence[str], *, spool: bool = False) -> None:
        self._args = tuple(args)
        self._spool = _spool_file() if spool else None
        self._proc = _start(root, self._args, self._spool)

    @property
    def started(self) -> bool:
        return self._proc is not None

    def lines(self) -> list[str] | None:
        """Its NUL-separated output, read once; None outside git (or read already)."""
        proc, self._proc = self._proc, None
        try:
            return _lines(proc, self._args, self._spool)
        finally:
            self._close_spool()

    def close(self) -> None:
        """Ends it if nobody read it (a run that failed first)."""
        if self._proc is not None:
            self._proc.kill()
            self._proc.communicate()
            self._proc = None
        self._close_spool()

    def _close_spool(self) -> None:
        if self._spool is not None:
            self._spool.close()
            self._spool = None


class Listing:
    """`tree_files`, started at once and read when wanted: git lists a large tree while this
    process does other work."""

    def __init__(self, root: Path, pathspecs: Sequence[str]) -> None:
        self._listing = Pending(root, (*_LISTING, "--", *pathspecs))
        self._changed = Pending(root, (*_CHANGED, "--", *pathspecs))
        self._found: Listed | None = None

    def result(self) -> Listed | None:
        """What git listed; None outside git."""
        if self._found is None and self._listing.started:
            lines = self._listing.lines()
            changed = self._changed.lines()  # read, so it is reaped
            if lines is not None:
                self._found = tagged([*lines, *as_tagged(changed or [])])
        return self._found

    def close(self) -> None:
        """Ends git's listing if nobody read it (a run that failed first)."""
        self._listing.close()
        self._changed.close()


class DiffListing:
    """What a --diff run asks of git, side by side: the change against the base, and the tree.

    The tree is the base's tree (`ls-tree`, which stats nothing) with the change applied, plus
    the untracked files. A file the diff does not name has the base's content in the working
    tree (git compares content where stat data is not conclusive), so the base's blob id is
    its content key: one stat of every tracked file (the diff's) where a listing of the working
    tree would need two more. `kept`: where the base's listing is kept, for the next run at the
    same base to read it and git to list no tree (its parse was most of a run's cost above git).
    """

    def __init__(
        self, root: Path, base: Base, untracked: Pending, kept: Kept | None = None
    ) -> None:
        self.base, self._root = base, root
        self._diff = Pending(root, (*_DIFF, base.sha, "--"))  # git's longest part: first
        # A kept listing is read only once the change is known not to have planted it.
        self._kept = kept if kept is not None and kept.exists() else None
        self._tree = None if self._kept is not None else self._list_tree()
        self._untracked = untracked
        self._changes: list[Change] | None = None
        self._base_files: tuple[list[str], dict[str, str] | TreeIds] | None = None
        self._found: Listed | None = None
        self._keep = kept  # where to keep the listing, when git lists it

    def _list_tree(self) -> Pending:
        return Pending(
            self._root, ("ls-tree", "-r", "-z", "--full-tree", self.base.sha), spool=True
        )

    def read_base(self) -> None:
        """Read the base's tree now: it is listed long before the change is (git stats every
        file for that), so this process reads it while git works on the rest."""
        if self._base_files is None:
            self._base_files = self._read_kept() or self._listed()

    def _read_kept(self) -> tuple[list[str], TreeIds] | None:
        kept, self._kept = self._kept, None
        if kept is None or not kept.trusts(self.changes(), None):
            return None
        raw = kept.load()
        return unpacked_tree(raw) if raw is not None else None

    def _listed(self) -> tuple[list[str], dict[str, str]]:
        entries = (self._tree or self._list_tree()).lines()
        self._tree = None
        if entries is None:  # never an empty tree: every file would look deleted
            raise EvallintError("git could not list the base's tree")
        return base_tree(entries)

    def changes(self) -> list[Change]:
        """The change: what `GitRepo.changes` gives."""
        if self._changes is None:
            self._changes = _read_changes(self._diff, self._untracked)
        return self._changes

    def result(self) -> Listed:
        """The working tree's files, and the blob ids of those the change leaves as they were."""
        if self._found is None:
            self.read_base()
            assert self._base_files is not None
            files, blobs = self._base_files
            keep, changes = self._keep, self.changes()
            wanted = isinstance(blobs, dict) and keep is not None and keep.trusts(changes, files)
            packed = packed_tree(files, blobs) if wanted else None  # before the change is applied
            touched = {p for c in changes for p in (c.path, c.old_path) if p is not None}
            _told(self._root, self.base.sha, {p: blobs[p] for p in touched if p in blobs})
            self._found = applied(files, blobs, changes)
            if packed is not None and keep is not None:
                keep.save(packed)
        return self._found

    def close(self) -> None:
        for pending in (self._tree, self._diff, self._untracked):
            if pending is not None:
                pending.close()


def clean_blobs(root: Path) -> Mapping[str, str] | None:
    """Blob ids of the tracked regular files whose working copy is the index's: content keys
    known without reading a byte. Modified, deleted, unmerged and linked files are left out
    (git compares stat data, and content where stat data is not conclusive). None outside git."""
    lines = _git_lines(root, "ls-files", "-z", "-t", "--stage", "--modified")
    return None if lines is None else tagged(lines).blobs


def grep_files(root: Path, needles: Sequence[bytes]) -> set[str] | None:
    """The files of the working tree (tracked and untracked, not ignored) that hold any of the
    fixed strings; None when git cannot say."""
    args = ["grep", "-z", "-l", "-F", "--untracked", "--no-color", "--full-name"]
    for needle in needles:
        args += ["-e", needle.decode("utf-8", "surrogateescape")]
    found = _paths_or_none(root, args, ok=(0, 1))  # 1: nothing matched
    return None if found is None else set(found)


def changed_between(root: Path, old: str, new: str) -> list[str] | None:
    """The paths whose content differs between two commits (renames as a deletion and an
    addition); None when git cannot say (a commit this clone lacks)."""
    args = ["diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", old, new, "--"]
    return _paths_or_none(root, args)


def _paths_or_none(root: Path, args: Sequence[str], ok: tuple[int, ...] = (0,)) -> list[str] | None:
    """The NUL-separated paths a git command prints; None when git cannot say (no git, or an
    exit code not in `ok`), for a question whose answer only saves work."""
    try:
        proc = subprocess.run(
            ["git", *args], cwd=root, capture_output=True, env=clean_env(), check=False
        )
    except (OSError, ValueError):  # no git; or an argument none can hold (a NUL, a huge one)
        return None
    if proc.returncode not in ok:
        return None
    return [p for p in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if p]


def deleted_files(root: Path, listed: Listed | None = None) -> frozenset[str]:
    """Files the pending change deletes: staged deletions against HEAD, and files deleted from
    the working tree (pre-commit passes neither to a hook); `listed`: the tree's listing,
    which has the latter. A file renamed away is deleted under its old name: git would report
    a staged rename as a rename, which the filter for deletions leaves out."""
    try:
        staged = _git_lines(
            root, "diff", "--cached", "--name-only", "-z", "--no-renames", "--diff-filter=D", "HEAD"
        )
    except EvallintError:  # no commit yet: nothing can have been deleted from one
        staged = None
    if listed is not None:
        unstaged: list[str] | None = listed.deleted
    else:
        unstaged = _git_lines(root, "ls-files", "-z", "--deleted")
    return frozenset((staged or []) + (unstaged or []))


def _fetch_hint(ref: str) -> str:
    return (
        "fetch the history it needs: with actions/checkout set `fetch-depth: 0`, or run "
        f"`git fetch --depth=1 origin {ref}`"
    )


UNTRACKED = ("ls-files", "-z", "--others", "--exclude-standard")
_DIFF = ("diff", "--name-status", "-z", "-M", "--no-ext-diff", "--no-color")


_HEX = frozenset("0123456789abcdef")
# A commit never changes. For the last one asked about: (root, commit) -> the files read there
# (None: no file of its own there), and the blob ids of the files a change touched, which the
# listing of it told (`read_many` then needs no `ls-tree`).
_READ_AT: dict[tuple[Path, str], dict[str, bytes | None]] = {}
_IDS_AT: dict[tuple[Path, str], dict[str, str]] = {}


def _told(root: Path, commit: str, ids: dict[str, str]) -> None:
    _IDS_AT.clear()
    _IDS_AT[root, commit] = ids


class GitRepo:
    """Revisions, merge bases, diffs and files at a revision, asked of git's own commands.

    GitPython's import alone (50 to 120 ms) cost more than a whole one-file run, and a --diff
    run needs six short commands: they run directly, like the listing.
    """

    def __init__(self, root: Path) -> None:
        self.root = root

    def _run(self, *args: str, input: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        """The command, run; what no command of ours can go on from is an error."""
        try:
            proc = subprocess.run(
                ["git", *args], cwd=self.root, input=input, capture_output=True, env=clean_env()
            )
        except OSError as exc:  # no git executable
            raise EvallintError(f"git is needed for this and is not usable: {exc}") from None
        if proc.returncode == 128 and b"not a git repository" in proc.stderr:
            raise EvallintError(
                f"{str(self.root)!r} is not inside a git work tree; --diff and --base need one"
            )
        return proc

    def _must(self, *args: str, input: bytes | None = None) -> bytes:
        """The output of a command that must succeed; else an error that says what git said."""
        proc = self._run(*args, input=input)
        if proc.returncode != 0:
            said = proc.stderr.decode("utf-8", "replace").strip()
            raise EvallintError(f"git {args[0]} failed (exit code {proc.returncode}): {said}")
        return proc.stdout

    @property
    def shallow(self) -> bool:
        return self._must("rev-parse", "--is-shallow-repository").strip() == b"true"

    def sha(self, ref: str) -> str | None:
        if ref.startswith("-"):
            return None  # a name git would take for an option: no ref is named so
        proc = self._run("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        return object_id(proc.stdout) if proc.returncode == 0 else None

    def base(self, explicit: str | None, environ: Mapping[str, str]) -> Base:
        """The merge base of the base ref and HEAD; fails closed with the fix spelt out."""
        label = explicit or self._default_base(environ)
        if label == "HEAD" and self.sha("HEAD") is None:
            # No commit yet (a repository's first commit, pre-commit's hook before it): the
            # base is the empty tree, so every file is new.
            empty = self._must("hash-object", "-t", "tree", "--stdin", input=b"")
            return Base(label, object_id(empty), unborn=True)
        if not label.startswith("-"):  # else git would read it as an option
            proc = self._run("merge-base", label, "HEAD")
            if proc.returncode == 0:  # the usual case, in one call; the others say what failed
                return Base(label, object_id(proc.stdout))
        sha = self.sha(label)
        if sha is None:
            hint = (
                _fetch_hint(label.removeprefix("origin/"))
                if self.shallow
                else "check the name, or fetch it (`git fetch origin <branch>`)"
            )
            raise EvallintError(f"unknown git ref {label!r}: {hint}")
        if self.sha("HEAD") is None:
            raise EvallintError("HEAD has no commit yet; commit once before using --diff")
        proc = self._run("merge-base", sha, "HEAD")
        if proc.returncode != 0:
            why = "this clone is shallow" if self.shallow else "the histories are unrelated"
            raise EvallintError(
                f"no merge base between {label!r} and HEAD ({why}); " + _fetch_hint(sha)
            )
        return Base(label, object_id(proc.stdout))

    def _default_base(self, environ: Mapping[str, str]) -> str:
        """A base the environment names must exist; silently using another would mislead."""
        event_base = pull_request_sha(environ, "base", required=True)
        if event_base:
            if self.sha(event_base) is None:
                # The pull request says which base; any other would compare with the wrong one.
                raise EvallintError(
                    f"the pull request base {event_base[:12]} (GITHUB_EVENT_PATH) is not in this "
                    "clone: " + _fetch_hint(event_base)
                )
            return event_base
        github = environ.get("GITHUB_BASE_REF")
        if github:
            for ref in (f"origin/{github}", github):
                if self.sha(ref) is not None:
                    return ref
            raise EvallintError(
                f"the pull request base {github!r} is not in this clone: " + _fetch_hint(github)
            )
        pre_commit = environ.get("PRE_COMMIT_FROM_REF")
        if pre_commit:
            if self.sha(pre_commit) is None:
                raise EvallintError(
                    f"PRE_COMMIT_FROM_REF {pre_commit!r} is not in this clone: "
                    + _fetch_hint(pre_commit)
                )
            return pre_commit
        if environ.get("PRE_COMMIT") == "1":
            return "HEAD"  # a commit hook: the change is what is staged on top of HEAD
        for ref in ("origin/HEAD", "main", "master"):
            if self.sha(ref) is not None:
                return ref
        raise EvallintError(
            "no base to compare with: pass --diff BASE (a branch, tag or "
            "commit); tried origin/HEAD, main, master"
        )

    def changes(self, base: Base) -> list[Change]:
        """Working tree against the merge base: renames followed, untracked files included."""
        return _read_changes(
            Pending(self.root, (*_DIFF, base.sha, "--")), Pending(self.root, UNTRACKED)
        )

    def read_many(self, rev: str, paths: Sequence[str]) -> dict[str, bytes]:
        """Files' bytes at a revision, absent ones left out (and links and submodules, which
        are no file of their own there). At a commit id, what was read stays known: a commit
        never changes, and a run reads a change's files at its base twice (its baseline, and
        the readers of what it changed). Only the last commit's are kept."""
        commit = len(rev) in (40, 64) and set(rev) <= _HEX
        known = _READ_AT.get((self.root, rev), {}) if commit else {}
        wanted = [p for p in paths if p not in known]
        if wanted:
            found = self._read_many(rev, wanted)
            known = {**known, **{p: found.get(p) for p in wanted}}
            if commit:
                _READ_AT.clear()
                _READ_AT[self.root, rev] = known
        return {p: data for p in paths if (data := known.get(p)) is not None}

    def _read_many(self, rev: str, paths: Sequence[str]) -> dict[str, bytes]:
        """One `ls-tree` finds the blobs (but those a listing of the commit told), one
        `cat-file` reads them all."""
        told = _IDS_AT.get((self.root, rev), {})
        blobs = {p: told[p] for p in paths if p in told}
        paths = [p for p in paths if p not in told]
        listing = self._must("ls-tree", "-z", "--full-tree", rev, "--", *paths) if paths else b""
        for entry in filter(None, listing.decode("utf-8", "surrogateescape").split("\0")):
            meta, _, path = entry.partition("\t")
            mode, kind, sha = meta.split()
            if kind == "blob" and mode in PLAIN:
                blobs[path] = sha
        if not blobs:
            return {}
        asked = "".join(f"{sha}\n" for sha in blobs.values()).encode()
        out = self._must("cat-file", "--batch", input=asked)
        found = dict(zip(blobs, batch_contents(out, len(blobs)), strict=True))
        missing = sorted(path for path, data in found.items() if data is None)
        if missing:
            # A partial clone without the object: the base is unknown, never "a new file".
            raise EvallintError(
                f"git has no copy of {missing[0]!r} at {rev[:12]}, so its version there "
                "cannot be compared (a partial clone leaves objects out): clone or fetch "
                "without a --filter"
            )
        return {path: data for path, data in found.items() if data is not None}


def _read_changes(diff: Pending, untracked: Pending) -> list[Change]:
    """What `diff --name-status` and `ls-files --others` started together say changed."""
    fields, others = diff.lines(), untracked.lines()
    if fields is None or others is None:
        raise EvallintError("git could not list the change")
    return [*changes_of(fields), *(Change("U", p) for p in others)]
