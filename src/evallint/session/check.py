"""One check, from options to report: the set-up and flow that the command line, the Python API
and the language server share (settings, selection, the cache, the engine, the report's last
word on what was not read). Each caller only says what it wants, with `Options`."""

from __future__ import annotations

import datetime
import os
from collections.abc import Collection, Mapping
from pathlib import Path

from evallint.config import Config
from evallint.errors import EvallintError
from evallint.model import Diagnostic, Report, Severity, Span
from evallint.records import record, replace
from evallint.session.selection import Selection, choose, lint_selection
from evallint.session.settings import load_config, today, with_flags


@record
class Options:
    """What a check is asked to do: the command line's flags, the API's arguments."""

    paths: tuple[str, ...] = ()
    cwd: Path | None = None  # where relative paths start (None: the process's folder)
    config: Config | None = None  # instead of the project's settings file
    config_file: Path | None = None  # the settings file to read instead of the project's
    strict: bool = False
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    eee_version: str | None = None
    diff: str | None = None  # check what the change from this ref touches ("": default base)
    base: str | None = None  # run the version rules against this ref
    today: datetime.date | None = None
    jobs: int | None = None
    cache: bool = True
    every_finding: bool = False  # no cap on repeated findings (machines and fixes read all)


@record
class Plan:
    """A check set up: the project's root, its settings, and what the run reads."""

    root: Path
    in_git: bool
    config: Config
    chosen: Selection
    cwd: Path
    # The settings' cap on repeated findings, for what people read: the run itself may keep
    # every finding (`Options.every_finding`).
    limit: int


def plan(options: Options) -> Plan:
    """Find the project, read its settings and choose the files. Raises `EvallintError` for
    what the command reports with exit code 2."""
    cwd = options.cwd if options.cwd is not None else Path.cwd()
    paths = list(options.paths)
    from evallint.io import discover

    root, in_git = discover.project_root(paths, cwd)
    config = options.config or load_config(root, options.config_file)
    config = with_flags(
        config,
        strict=options.strict,
        select=options.select,
        ignore=options.ignore,
        eee_version=options.eee_version,
    )
    limit = config.max_repeats
    if options.every_finding:
        config = replace(config, max_repeats=0)
    chosen = choose(
        paths, cwd, root, in_git, config, diff=options.diff, base=options.base, cache=options.cache
    )
    links = discover.folder_links(root, _may_be_links(chosen))
    if links:
        config = replace(config, folder_links=links)
    return Plan(root, in_git, config, chosen, cwd, limit)


def _may_be_links(chosen: Selection) -> Collection[str]:
    """The files of the tree that may be symlinks: not those the listing knows as regular."""
    if chosen.links is not None:
        return chosen.links
    if chosen.blobs is not None:
        blobs = chosen.blobs  # a loop over strings already hashed: half a set difference's cost
        return [p for p in chosen.tree if p not in blobs]
    return chosen.tree


def run(
    planned: Plan, options: Options, *, again: bool = False, environ: Mapping[str, str] = os.environ
) -> Report:
    """The engine's report on what `plan` chose. `again`: a second run after fixes were
    written (the listing's blob ids are stale)."""
    return lint_selection(
        planned.chosen,
        planned.root,
        planned.in_git,
        planned.config,
        today=today(options.today, environ),
        jobs=options.jobs,
        cache=options.cache,
        again=again,
    )


def settle(report: Report, planned: Plan) -> Report:
    """The selection's skipped files join the report, and a file a kind claims that cannot be
    read is an error."""
    report = replace(report, skipped=(*planned.chosen.skipped, *report.skipped))
    return report.claimed_unread_fail()


def verdict(report: Report, planned: Plan) -> Report:
    """The last word on what was not read, after any baseline: under strict, a named file that
    cannot be read is an error; settings that exclude everything say so."""
    if planned.config.strict:
        report = report.unread_fail(planned.chosen.named)
    return _excluded_all(report, planned.config)


def check(options: Options, environ: Mapping[str, str] = os.environ) -> Report:
    """Set up, run and settle one check."""
    planned = plan(options)
    return verdict(settle(run(planned, options, environ=environ), planned), planned)


def _excluded_all(report: Report, config: Config) -> Report:
    """`exclude` that leaves nothing to check says so (an error under strict): a pull request
    that edits the configuration cannot make a run pass by checking nothing in silence."""
    from evallint.io.discover import EXCLUDED

    excluded = sum(1 for s in report.skipped if s.reason == EXCLUDED)
    if report.files_checked or not excluded:
        return report
    files = f"{excluded:,} file{'' if excluded == 1 else 's'}"
    note = f"the configuration's exclude leaves nothing to check ({files} excluded)"
    if not config.strict:
        return replace(report, notes=(*report.notes, note))
    span = Span(1, 1, 1, 2)
    error = Diagnostic(config.source or ".", span, "parse-error", Severity.ERROR, note)
    return replace(report, diagnostics=(*report.diagnostics, error))


__all__ = ["EvallintError", "Options", "Plan", "check", "plan", "run", "settle", "verdict"]
