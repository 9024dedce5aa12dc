"""A project as an editor sees it: the files on disk, and the buffers it holds unsaved.

The language server keeps one `Project` a workspace folder. It is planned once as a whole check
of the folder is (the same root, settings, listing and symlink rules as `evallint check`), and
each edit checks the open eval files against the tree with their buffers in place of the files:
the same engine and rules, so the same findings. Nothing is read outside the project.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from evallint.model import Report
from evallint.parse import format_of
from evallint.records import record, replace
from evallint.session.check import Options, Plan, plan

if TYPE_CHECKING:
    from evallint.baseline import Baseline
    from evallint.config import Config
    from evallint.io.cache import MemoryCache, TreeCache
    from evallint.io.source import Source
    from evallint.project import Entry
    from evallint.project import Project as Index
    from evallint.session.navigate import Place


@record(frozen=False)
class Project:
    """One workspace folder: its plan (settings, tree), refreshed when files change on disk."""

    root: Path
    planned: Plan | None = None
    # The open files' changes from HEAD, worked out once a plan (the disk changes only on a
    # save or a file event, which drop the plan): (the plan, the open paths, the baseline).
    head: tuple[Plan, frozenset[str], Baseline | None] | None = None
    # Outside git no cache is written in the project: the summaries of the files outside the
    # open ones are kept in memory instead, across plans while the settings that shape a
    # summary stay (a file changed on disk is summarized again).
    memory: MemoryCache | None = None
    # The eval files that read each open file that is not one (a CSV test file, a prompt),
    # found once a plan: (the plan, path -> its readers).
    reading: tuple[Plan, dict[str, list[str]]] | None = None
    # Whether eval files can read each such open file, told once a plan.
    told: tuple[Plan, dict[str, bool]] | None = None
    # A file outside every workspace folder: the project is that file alone, checked with the
    # default settings; nothing else of its folder is listed or read.
    alone: str | None = None

    def refresh(self) -> None:
        """Read the settings and list the tree again (a file was made, deleted or renamed, or
        the settings changed)."""
        if self.alone is not None:
            self.planned = _alone(self.root, self.alone)
            return
        # Every finding, as `--format json` gives them: an editor lists each at its place, and
        # a "N more like this" summary would point at none of the rest.
        options = Options(paths=(str(self.root),), cwd=self.root, cache=True, every_finding=True)
        self.planned = plan(options)

    def relative(self, path: Path) -> str | None:
        """The project path of an eval file, or of a file eval files read (a prompt, a CSV
        test file, a template); None for any other, and outside the project."""
        try:
            rel = path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return None
        if self.alone is not None:
            return rel if rel == self.alone and format_of(rel) is not None else None
        return rel if format_of(rel) is not None or self._readable(rel) else None

    def _readable(self, rel: str) -> bool:
        """Whether eval files can read the file as it is on disk (a template with no
        extension is told by its content), as a change to it is told; once a plan, since
        every edit asks again of every open file."""
        from evallint.engine.readers import maybe_read
        from evallint.io.source import FsSource
        from evallint.rules.api import Others

        if self.planned is None:
            self.refresh()
        planned = self.planned
        assert planned is not None
        if self.told is None or self.told[0] is not planned:
            self.told = (planned, {})
        found = self.told[1].get(rel)
        if found is None:
            files = frozenset(planned.chosen.tree)
            source = FsSource(planned.root)
            view = Others(source, planned.config, files, source.outside)
            found = self.told[1][rel] = rel in files and maybe_read(rel, files, (view, None))
        return found

    def place_at(
        self, path: str, buffers: Mapping[str, str], line: int, column: int
    ) -> Place | None:
        """The reference or file path at `line`, `column` (1-based) of an open file, with the
        rest of the project indexed as a check of that file indexes it."""
        from evallint.session.navigate import at

        found = self._indexed(path, buffers)
        if found is None:
            return None
        entry, project, files = found
        return at(entry, project, files, self.root.name, line, column)

    def completions(
        self, path: str, buffers: Mapping[str, str], row: int, before: str
    ) -> list[tuple[str, str]]:
        """(text, its documentation) of what may be written where line `row` (0-based) reads
        `before` up to the cursor: inside a reference, the project's rubric and judge ids or
        their versions; after `type:`, a grader type; where a key is being written, the keys
        the file's schema allows there."""
        from evallint.session.navigate import complete

        found = self._indexed(path, buffers)
        offered = [(x, "") for x in complete(found[0], found[1], before)] if found else []
        return offered or self._keys(path, buffers, row, before)

    def _keys(
        self, path: str, buffers: Mapping[str, str], row: int, before: str
    ) -> list[tuple[str, str]]:
        """The schema's keys where a key is being written (the line being typed is left out,
        so that the rest of the file parses and tells its kind)."""
        from evallint.project import Entry
        from evallint.read import read_entry
        from evallint.session.keys import key_path, keys_at
        from evallint.validation.schemas import load_schema

        lines = buffers[path].split("\n")
        where = key_path(lines, row, before) if path.endswith((".yaml", ".yml")) else None
        if where is None:
            return []
        rest = "\n".join(line if i != row else "" for i, line in enumerate(lines))
        planned, source, _ = self._view({**buffers, path: rest})
        entry = read_entry(path, source, planned.config)
        schema = entry.kind.schema_for(entry.doc.data) if isinstance(entry, Entry) else None
        return keys_at(load_schema(schema), where) if schema else []

    def _indexed(
        self, path: str, buffers: Mapping[str, str]
    ) -> tuple[Entry, Index, frozenset[str]] | None:
        """The open file's entry, and the project indexed as a check of that file indexes it."""
        from evallint.engine import index
        from evallint.project import Entry
        from evallint.read import read_entry

        planned, source, tree = self._view(buffers)
        entry = read_entry(path, source, planned.config)
        if not isinstance(entry, Entry) or not entry.doc.ok:
            return None
        config, files = planned.config, frozenset(tree)
        # Every open buffer is read as it stands: the store keeps summaries of the files on
        # disk, which an unsaved edit (a rubric's version) no longer is.
        opened = [entry]
        for other in sorted(p for p in buffers if p != path and format_of(p) is not None):
            found = read_entry(other, source, config)
            if isinstance(found, Entry) and found.doc.ok:
                opened.append(found)
        store = self._store(planned, tree)
        indexed = index.build(opened, tree, source, config, store=store, files=files)
        return entry, indexed.project, files

    def _view(self, buffers: Mapping[str, str]) -> tuple[Plan, Source, list[str]]:
        """The plan, the files with the buffers in place, and the tree with unsaved files."""
        from evallint.io.source import Buffers, FsSource, Overlay

        if self.planned is None:
            self.refresh()
        planned = self.planned
        assert planned is not None
        held = {p: t.encode("utf-8", "surrogateescape") for p, t in buffers.items()}
        listed = set(planned.chosen.tree)
        tree = sorted([*planned.chosen.tree, *(p for p in held if p not in listed)])
        return planned, Overlay(FsSource(planned.root), Buffers(held), frozenset(held)), tree

    def check(self, buffers: Mapping[str, str], today: datetime.date | None = None) -> Report:
        """The findings of the open eval files (`buffers`: project path -> unsaved text), with
        the rest of the project read from disk."""
        from evallint.engine.run import lint
        from evallint.io.source import Buffers, FsSource, Overlay

        if self.planned is None:
            self.refresh()
        planned = self.planned
        assert planned is not None
        config = planned.config
        tree = planned.chosen.tree
        listed = set(tree)
        # What `evallint check` would check: files its listing holds (not those git ignores,
        # nor, outside git, hidden or tooling folders), and new files not yet saved.
        paths = sorted(
            p
            for p in buffers
            if not config.excluded(p) and (p in listed or not (planned.root / p).exists())
        )
        held = {p: buffers[p].encode("utf-8", "surrogateescape") for p in paths}
        extra = [p for p in paths if p not in listed]
        if extra:  # a buffer not yet saved: a file of the tree as far as this check goes
            tree = sorted([*tree, *extra])
        source = Overlay(FsSource(planned.root), Buffers(held), frozenset(held))
        # An open file that eval files read (a CSV test file, a prompt) is checked through
        # them, as the command checks what a change to it breaks: its findings are theirs.
        paths = sorted({*paths, *self._readers(planned, [p for p in paths if not format_of(p)])})
        # Summaries of the files outside the run are kept as the command keeps them; the
        # buffers are the run's, so none is taken from the cache.
        store = self._store(planned, tree)
        base = self._head_of(planned, paths) if planned.in_git else None
        report = lint(paths, source, config, tree=tree, today=today, store=store, baseline=base)
        store.save()
        return replace(report, notes=())

    def _readers(self, planned: Plan, opened: list[str]) -> list[str]:
        """The eval files on disk that read the open files given, found once a plan (the
        files that read one change only on disk, which drops the plan)."""
        from evallint.engine.readers import readers
        from evallint.io.git import grep_files
        from evallint.io.source import FsSource

        known = self.reading
        if known is None or known[0] is not planned:
            known = self.reading = (planned, {})
        todo = [p for p in opened if p not in known[1]]
        if todo:
            files = frozenset(planned.chosen.tree)
            source, root = FsSource(planned.root), planned.root
            for path in todo:
                found = readers(
                    [path],
                    set(),
                    files,
                    source,
                    planned.config,
                    lambda needles: grep_files(root, needles),
                    source.outside,  # what leads out of the project is never read
                )
                known[1][path] = [entry.path for entry, _ in found]
        return [r for p in opened for r in known[1][p]]

    def _store(self, planned: Plan, tree: Sequence[str]) -> TreeCache:
        """The cache a check uses: in git the command's own, outside git this plan's memory."""
        from evallint.io.cache import MemoryCache, cache_stamp, open_cache

        if planned.in_git:
            return open_cache(planned.root, True, planned.config, tree, enabled=True)[0]
        stamp = cache_stamp(planned.config)
        if self.memory is None or self.memory.stamp != stamp:
            self.memory = MemoryCache(planned.root, stamp)
        return self.memory

    def _head_of(self, planned: Plan, paths: Sequence[str]) -> Baseline | None:
        """`_head`, again only when the plan or the open files changed."""
        known = self.head
        opened = frozenset(paths)
        if known is None or known[0] is not planned or known[1] != opened:
            known = self.head = (planned, opened, self._head(paths, planned.config))
        return known[2]

    def _head(self, paths: Sequence[str], config: Config) -> Baseline | None:
        """The open files as changes from HEAD (with what git sees changed besides), so the
        version rules compare each buffer with HEAD's file, as the pre-commit hook will."""
        from evallint.baseline import load_baseline
        from evallint.errors import EvallintError
        from evallint.io.git import GitRepo
        from evallint.io.gitout import Change

        repo = GitRepo(self.root)
        try:
            base = repo.base("HEAD", {})
            every = list(repo.changes(base))
        except (EvallintError, OSError):
            return None  # no readable HEAD: the version rules have nothing to compare with
        seen = {c.path for c in every}
        every += [Change("M", p, p) for p in paths if p not in seen]
        return load_baseline(repo, base, config, every=every)


def _alone(root: Path, name: str) -> Plan:
    """The plan of a project that is one file: the default settings (a settings file beside
    it is not the workspace's to read), and a tree of that file only."""
    from evallint.config import Config
    from evallint.rules import ALL_RULES
    from evallint.session.selection import Selection

    # Rules that read other files or the project would report what they cannot see as
    # missing: only the file's own rules run.
    others = tuple(r.id for r in ALL_RULES if r.uses_project or r.reads_files)
    config = Config(ignore=others)
    chosen = Selection([name], [name], [], None)
    return Plan(root, False, replace(config, max_repeats=0), chosen, root, config.max_repeats)
