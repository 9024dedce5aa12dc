"""Which files a run checks: the paths given, or what a change touched, and the whole tree."""

from __future__ import annotations

import datetime
import os
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from evallint.config import Config
from evallint.errors import EvallintError
from evallint.io import discover, git
from evallint.io.gitout import Base, Change
from evallint.model import Skipped
from evallint.parse import format_of
from evallint.project import Entry
from evallint.records import record, replace

if TYPE_CHECKING:
    from evallint.baseline import Baseline
    from evallint.io.source import Source
    from evallint.model import Report


@record
class Selection:
    """What a run checks and reads, as the command line chose it."""

    paths: list[str]  # the eval files to check, relative to the root
    tree: list[str]  # every file of the project
    skipped: list[Skipped]
    baseline: Baseline | None
    named: frozenset[str] = frozenset()  # files named on the command line (pre-commit's way)
    # Files the change deletes: eval files elsewhere that name them are checked for it.
    gone: frozenset[str] = frozenset()
    # The files of `tree` that may be symlinks, when the listing knows (the others are regular).
    links: frozenset[str] | None = None
    # The eval files of `gone` as HEAD has them: the references they leave dangling are checked.
    deleted: tuple[Entry, ...] = ()
    # The clean tracked files' blob ids, from the call that listed the tree (None: not asked).
    blobs: Mapping[str, str] | None = None
    # A --diff run's base commit, and the paths whose content may not be the base's.
    base: tuple[str, frozenset[str]] | None = None
    # The files whose content the change made or changed (any format): as they were at `base`.
    touched: frozenset[str] = frozenset()
    notes: tuple[str, ...] = ()  # what the run's report says besides its findings
    # A run over named files: the project as HEAD has it, so that a finding of another file is
    # reported only when the named files' change causes it (as --diff decides against its base).
    was: Baseline | None = None


def choose(
    paths: Sequence[str],
    cwd: Path,
    root: Path,
    in_git: bool,
    config: Config,
    *,
    diff: str | None = None,
    base: str | None = None,
    cache: bool = False,
) -> Selection:
    """`diff`: compare with this ref ("" for the default base) and check only the change;
    `cache`: the run may keep what it learns in the cache folder (a commit's listing)."""
    if diff is not None and base is not None:
        raise EvallintError("use --diff BASE or --base REF, not both")
    if diff is not None:
        # The walk for untracked files, git's slowest part, runs while this process finds the base.
        untracked = git.Pending(root, git.UNTRACKED)
        try:
            return _changed(paths, cwd, root, in_git, config, diff, untracked, cache)
        finally:
            untracked.close()
    baseline, touched = _against(root, config, base) if base is not None else (None, frozenset())
    # `check` and `check .` at the root both list the whole tree once, not twice.
    whole = all(Path(os.path.normpath(cwd / p)) == root for p in paths or ["."])
    safe, skipped, listed, links = discover.select(paths, cwd, root, in_git, config)
    if in_git and not whole and baseline is None:
        head = git.GitRepo(root).sha("HEAD")
        if head is not None:
            return _named_against_head(paths, cwd, root, config, (safe, skipped), head, cache)
    # The tree is every file of the project: eval files for the index, any file for references.
    started = git.Listing(root, ["."]) if in_git and not whole else None
    tree, blobs = (listed, None) if whole else discover.listing(root, in_git, config, started)
    named = _named(paths, cwd, root)
    # A partial run (pre-commit's) also answers for what the pending change deletes; a whole
    # run checks every file that could name them anyway.
    gone = frozenset() if whole or not in_git else _deleted(root, started)
    deleted = _deleted_entries(root, gone, config) if gone else ()
    return Selection(
        discover.checkable(safe),
        tree,
        skipped,
        baseline,
        named,
        gone,
        links if whole else None,
        deleted,
        blobs,
        touched=touched,
    )


def _named(paths: Sequence[str], cwd: Path, root: Path) -> frozenset[str]:
    """The files named on the command line, as paths from the root."""
    return frozenset(
        discover.display_path(Path(os.path.normpath(cwd / p)), root)
        for p in paths
        if not (cwd / p).is_dir()
    )


def _named_against_head(
    paths: Sequence[str],
    cwd: Path,
    root: Path,
    config: Config,
    chosen: tuple[list[str], list[Skipped]],
    head: str,
    cache: bool,
) -> Selection:
    """Files named (pre-commit's run): the tree is HEAD's with the pending change applied
    (`git.DiffListing`), as a --diff run's is the base's. So, in a large tree, the run asks
    the memo of HEAD's tree (`io/memo.py`; after a commit, the last HEAD's, lacking what it
    changed) rather than a summary per tree file; and the files the change deletes, renames
    away, makes or changes come from the same listing, with their content at HEAD."""
    from evallint.baseline import deleted_at_head, head_view
    from evallint.io.cache import kept_tree

    safe, skipped = chosen
    untracked = git.Pending(root, git.UNTRACKED)
    listing = git.DiffListing(root, Base("HEAD", head), untracked, kept_tree(root, head, cache))
    try:
        listing.read_base()
        tree, blobs = discover.listing(root, True, config, listing)
        changes = listing.changes()
        gone = frozenset(listing.result().deleted)
        links = _unkeyed(listing, config)
    finally:
        listing.close()
    touched = frozenset(c.path for c in changes if c.status != "D")
    named = _named(paths, cwd, root)
    changed = frozenset(c.path for c in changes) | frozenset(
        c.old_path for c in changes if c.old_path
    )
    # As a --diff run counts its base's versions of the files it changes, a run over named
    # files counts HEAD's: what a rubric that no longer reads, or is gone, breaks is checked.
    deleted = deleted_at_head(git.GitRepo(root), changed, config, head) if changed else ()
    was = head_view(Base("HEAD", head), changes, deleted, gone)
    return Selection(
        discover.checkable(safe),
        tree,
        skipped,
        None,
        named,
        gone,
        links,
        deleted,
        blobs,
        base=(head, changed),
        touched=touched,
        was=was,
    )


def _changed(
    paths: Sequence[str],
    cwd: Path,
    root: Path,
    in_git: bool,
    config: Config,
    diff: str,
    untracked: git.Pending,
    cache: bool,
) -> Selection:
    """Diff mode: what the change touched, of `paths` (every file when none are given). The
    tree is the base's with the change applied (`git.DiffListing`): git stats each tracked
    file once, and evallint none."""
    from evallint.baseline import load_baseline
    from evallint.io.cache import kept_tree
    from evallint.io.git import DiffListing, GitRepo

    repo = GitRepo(root)
    base = repo.base(diff or None, os.environ)
    listing = DiffListing(root, base, untracked, kept_tree(root, base.sha, cache))
    try:
        listing.read_base()
        tree, blobs = discover.listing(root, in_git, config, listing)
        baseline = load_baseline(repo, listing.base, config, listing.changes())
        links = _unkeyed(listing, config)
        touched = frozenset(c.path for c in listing.changes() if c.status != "D")
        notes = _settings_notes(root, repo, listing.base.sha, listing.changes())
        every = listing.result().files if notes and config.exclude else ()
    finally:
        listing.close()
    wanted = sorted(discover.select(paths, cwd, root, in_git, config)[2]) if paths else tree
    # New settings may change any file's findings (an exclusion leaves references dangling, a
    # rule turned on fires anywhere): such a change is checked whole, never only where it is.
    changed = sorted(wanted) if notes else _among(baseline.changed_paths, wanted)
    safe, skipped, _, _ = (
        discover.select(changed, root, root, in_git, config) if changed else ([], [], [], None)
    )
    # The eval files the change touches that the settings exclude are said to be excluded, as
    # a full run says of every file: a pull request's `exclude = ["**"]` checks nothing, and
    # under --strict that is an error in --diff as in a full check.
    pool = every if notes else ([] if paths else baseline.changed_paths)
    skipped += [
        Skipped(p, discover.EXCLUDED)
        for p in sorted(pool)
        if config.excluded(p) and format_of(p) is not None
    ]
    return Selection(
        discover.checkable(safe),
        tree,
        skipped,
        baseline,
        gone=baseline.gone,
        links=links,
        blobs=blobs,
        base=(listing.base.sha, baseline.replaced),
        touched=touched,
        notes=notes,
    )


def _unkeyed(listing: git.DiffListing, config: Config) -> frozenset[str]:
    """The files of the tree that may be symlinks: those the listing has no blob id for."""
    return frozenset(p for p in listing.result().unkeyed or () if not config.excluded(p))


def _among(paths: Sequence[str], tree: Sequence[str]) -> list[str]:
    """The `paths` the sorted `tree` lists: a few looked up, not a set made of a large tree."""
    found = []
    for path in paths:
        at = bisect_left(tree, path)
        if at < len(tree) and tree[at] == path:
            found.append(path)
    return found


def _settings_notes(
    root: Path, repo: git.GitRepo, base: str, changes: Sequence[Change]
) -> tuple[str, ...]:
    """A note for each settings file whose evallint settings the change edits: a pull request
    that ignores a rule or excludes a folder is checked by its own settings, and a reviewer
    should know."""
    from evallint.session.settings import SETTINGS_FILES, settings_in

    named = {p for c in changes for p in (c.path, c.old_path) if p in SETTINGS_FILES}
    if not named:
        return ()
    before = repo.read_many(base, sorted(named))
    out = []
    for name in sorted(named):
        now = root / name
        raw = now.read_bytes() if now.is_file() and not now.is_symlink() else None
        if settings_in(name, before.get(name)) != settings_in(name, raw):
            out.append(
                f"the change edits evallint's settings in {name}: every file is checked, "
                "by the settings as the change leaves them"
            )
    return tuple(out)


def _deleted(root: Path, listing: git.Listing | None) -> frozenset[str]:
    return git.deleted_files(root, listing.result() if listing is not None else None)


def _deleted_entries(root: Path, gone: frozenset[str], config: Config) -> tuple[Entry, ...]:
    """Deleted eval files as HEAD has them; none when there is no HEAD to read them from."""
    from evallint.baseline import deleted_at_head
    from evallint.io.git import GitRepo

    repo = GitRepo(root)
    if repo.sha("HEAD") is None:
        return ()
    return deleted_at_head(repo, gone, config)


def load(root: Path, config: Config, ref: str | None) -> Baseline:
    """The change from the base of `ref`."""
    return _against(root, config, ref)[0]


def _against(root: Path, config: Config, ref: str | None) -> tuple[Baseline, frozenset[str]]:
    """`--base REF`: the change from the base of `ref`, and every file whose content it made
    or changed (any format: an extension-less template, a script), which the version rules
    compare with the base's as `--diff` does."""
    from evallint.baseline import load_baseline
    from evallint.io.git import GitRepo

    repo = GitRepo(root)
    base = repo.base(ref or None, os.environ)
    every = list(repo.changes(base))
    touched = frozenset(c.path for c in every if c.status != "D")
    return load_baseline(repo, base, config, every), touched


def lint_selection(
    chosen: Selection,
    root: Path,
    in_git: bool,
    config: Config,
    *,
    today: datetime.date | None = None,
    jobs: int | None = None,
    cache: bool = True,
    again: bool = False,
) -> Report:
    """Lint what `choose` chose, with the run's cache: as the command and the API run it.
    `again`: a second run after `--fix` wrote files."""
    from evallint.engine.run import lint
    from evallint.io.cache import open_cache
    from evallint.io.source import FsSource

    # A fresh cache each time: `--fix` runs again after writing files, whose clean blob ids
    # the first run's cache (and the listing) may have learnt from git.
    blobs = None if again else chosen.blobs
    store, uncached = open_cache(
        root, in_git, config, chosen.tree, enabled=cache, blobs=blobs, base=chosen.base
    )
    report = lint(
        chosen.paths,
        FsSource(root),
        config,
        tree=chosen.tree,
        today=today,
        baseline=chosen.baseline,
        jobs=jobs,
        gone=chosen.gone,
        store=store,
        links=chosen.links,
        deleted=chosen.deleted,
        touched=chosen.touched,
        prior=_prior(root, chosen),
        was=chosen.was,
    )
    store.save()
    notes = (*chosen.notes, uncached) if uncached else chosen.notes
    return replace(report, notes=(*report.notes, *notes)) if notes else report


def _prior(root: Path, chosen: Selection) -> Callable[[list[str]], Source] | None:
    """What reads the files a change touched as its base has them: a --diff run's base, or
    `--base REF`'s (the version rules compare a file with its includes' at the base)."""
    if chosen.base:
        return prior_reader(root, chosen.base[0])
    found = chosen.baseline.base if chosen.baseline is not None else None
    return prior_reader(root, found.sha) if found is not None and not found.unborn else None


def prior_reader(root: Path, rev: str) -> Callable[[list[str]], Source]:
    """What reads files as the commit `rev` has them (a change's base)."""

    def read(paths: list[str]) -> Source:
        from evallint.io.source import RevSource

        return RevSource(git.GitRepo(root), rev, paths)

    return read
