"""What the files of a change looked like at the base: the view version rules compare against."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from evallint.config import Config
from evallint.io.git import GitRepo
from evallint.io.gitout import Base, Change
from evallint.io.source import RevSource
from evallint.parse import format_of
from evallint.project import Entry, Project
from evallint.read import read_entry
from evallint.records import field, record

CONTENT = frozenset({"A", "M", "R", "U"})  # statuses whose head content is worth linting


@record
class Baseline:
    base: Base
    changes: tuple[Change, ...]
    before: Mapping[str, Entry]  # head path -> the entry at the base (its old path if renamed)
    deleted: tuple[Entry, ...] = field(default=())
    gone: frozenset[str] = frozenset()  # every path the change deletes or renames away

    @property
    def changed_paths(self) -> list[str]:
        """Head paths whose content the change touched, in path order."""
        return sorted(c.path for c in self.changes if c.status in CONTENT)

    @property
    def replaced(self) -> frozenset[str]:
        """Paths whose head entry the base view must not see (changed, renamed away, new)."""
        return frozenset(c.path for c in self.changes) | frozenset(
            c.old_path for c in self.changes if c.old_path
        )

    @property
    def entries(self) -> list[Entry]:
        return [*self.before.values(), *self.deleted]

    def note(self) -> str:
        if self.base.unborn:
            return f"compared with {self.base.label} (no commit yet: every file is new)"
        return f"compared with {self.base.label} (merge base {self.base.short})"


def load_baseline(
    repo: GitRepo, base: Base, config: Config, every: Sequence[Change] | None = None
) -> Baseline:
    """The change from `base`; `every`: what git reports the change to be, when asked already."""
    every = repo.changes(base) if every is None else every
    gone = frozenset(c.path for c in every if c.status == "D") | frozenset(
        c.old_path for c in every if c.status == "R" and c.old_path
    )
    changes = tuple(
        c
        for c in every
        if format_of(c.path) is not None or (c.old_path and format_of(c.old_path) is not None)
    )
    at_base = _entries_at(repo, base.sha, [c.old_path for c in changes if c.old_path], config)
    before: dict[str, Entry] = {}
    deleted: list[Entry] = []
    for change in changes:
        found = at_base.get(change.old_path) if change.old_path else None
        if found is None:
            continue
        if change.status == "D":
            deleted.append(found)
        else:
            before[change.path] = found
    return Baseline(base, changes, before, tuple(deleted), gone)


def deleted_at_head(
    repo: GitRepo, gone: frozenset[str], config: Config, head: str = "HEAD"
) -> tuple[Entry, ...]:
    """The eval files of `gone` (files a pending change deletes, or changes) as HEAD (`head`:
    its commit id, when known) has them. A run over named files (pre-commit's, which is never
    given a deleted file) counts their ids as its own, so the files whose references the
    change breaks are checked too."""
    paths = sorted(p for p in gone if format_of(p) is not None)
    return tuple(_entries_at(repo, head, paths, config).values()) if paths else ()


def head_view(
    base: Base, changes: Sequence[Change], at_head: Sequence[Entry], gone: frozenset[str]
) -> Baseline:
    """The pending change against HEAD, as a baseline whose entries are `at_head` (the changed
    files as HEAD has them): what a run over named files compares other files' findings with."""
    by_path = {e.path: e for e in at_head}
    before: dict[str, Entry] = {}
    for change in changes:
        found = by_path.get(change.old_path or change.path)
        if found is not None and change.status != "D":
            before[change.path] = found
    deleted = tuple(e for e in at_head if e.path in gone)
    return Baseline(base, tuple(changes), before, deleted, gone)


def _entries_at(repo: GitRepo, rev: str, paths: list[str], config: Config) -> dict[str, Entry]:
    """The files at `rev` that read as eval files, by path (absent ones left out)."""
    source = RevSource(repo, rev, paths)
    out: dict[str, Entry] = {}
    for path in paths:
        try:
            found = read_entry(path, source, config)
        except OSError:  # not a plain file there (absent, a submodule, a symlink)
            continue
        if isinstance(found, Entry):
            out[path] = found
    return out


def base_project(head: Project, baseline: Baseline) -> Project:
    """The project as it was: unchanged files as they are, changed ones as at the base."""
    replaced = baseline.replaced  # a set made anew on each use
    kept = [e for path, e in head.entries.items() if path not in replaced]
    later = [e for path, e in head.later.items() if path not in replaced]
    # The backing (a large tree's memo of the base) holds no changed file: it is shared.
    base = Project([*kept, *baseline.entries], later=later, backing=head.backing)
    for ns, paths in head.broken.items():  # tree files known broken by summary alone
        for path in paths:
            if path not in replaced and path not in base.entries:
                base.broken.setdefault(ns, []).append(path)
    return base
