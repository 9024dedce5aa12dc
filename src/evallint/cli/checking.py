"""`evallint check` on the command line: its flags as the options of one check
(`session.check`), then fixes, baselines, the report in its format, and GitHub's files."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from evallint.errors import EvallintError
from evallint.records import replace

if TYPE_CHECKING:
    from evallint.baseline import Baseline
    from evallint.config import Config
    from evallint.model import Report
    from evallint.session.check import Options, Plan


def options_of(args: argparse.Namespace) -> Options:
    """The command line's flags as the options of one check."""
    from evallint.session.check import Options

    machine = _machine(args)
    fixing = args.fix or args.show_fixes
    return Options(
        paths=tuple(args.paths),
        cwd=Path.cwd(),
        config_file=Path(args.config) if args.config else None,
        strict=args.strict,
        select=tuple(args.select),
        ignore=tuple(args.ignore),
        eee_version=args.eee_version,
        diff=args.diff,
        base=args.base,
        today=args.today,
        jobs=args.jobs,
        cache=not args.no_cache,
        # Machine outputs carry every finding; fixes need every finding to carry its fix.
        every_finding=bool(
            machine or args.sarif_output or fixing or args.baseline or args.write_baseline
        ),
    )


def _format(args: argparse.Namespace) -> str:
    fmt: str = args.format
    if fmt == "auto":
        fmt = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    return fmt


def _machine(args: argparse.Namespace) -> bool:
    from evallint.output import FORMATTERS

    return FORMATTERS[_format(args)].machine


def _refuse(args: argparse.Namespace) -> None:
    """Flags that contradict the output format."""
    fmt = _format(args)
    if args.show_fixes and _machine(args) and args.output is None:
        raise EvallintError(
            f"--show-fixes prints a diff on stdout, which --format {fmt} needs for itself: "
            "add --output FILE"
        )
    if args.statistics and fmt != "text":
        raise EvallintError(
            f"--statistics counts findings for people: it works with --format text, "
            f"not --format {fmt}"
        )


def run_check(args: argparse.Namespace) -> int:
    from evallint.engine.parallel import tune_collector

    tune_collector()
    from evallint.output import formatter
    from evallint.session import check

    _refuse(args)
    options = options_of(args)
    planned = check.plan(options)
    report = check.run(planned, options)
    if args.fix or args.show_fixes:
        again = lambda: check.run(planned, options, again=True)  # noqa: E731
        if args.show_fixes:
            _show_fixes(report, planned.root)
        else:
            report = _apply_fixes(report, planned, options, again=again)
    report = check.settle(report, planned)
    if args.write_baseline:
        return _write_baseline(report, Path(args.write_baseline))
    if args.baseline:
        cwd, root = planned.cwd, planned.root
        report = _apply_baseline(report, args.baseline, cwd, root, planned.chosen.baseline)
    report = check.verdict(report, planned)
    fmt = _format(args)
    # People read the capped report, whose counts still include what the cap left out.
    shown = report if _machine(args) else report.capped(planned.limit)
    if fmt == "text":  # GitHub's annotations and the step summary name files from the root
        shown = _from_here(shown, planned.root, planned.cwd)
    _write(_render(fmt, shown, args), args.output)
    if args.sarif_output:
        _write(formatter("sarif")(report), args.sarif_output)
    if fmt == "github":
        _github_files(shown, os.environ, args.sarif_output)
    return 0 if args.exit_zero else report.exit_code(strict=planned.config.strict)


def _show_fixes(report: Report, root: Path) -> None:
    """`--show-fixes`: the diff of what `--fix` would write first, on stdout; nothing written."""
    from evallint.cli.fixing import changes_of, unified_diff
    from evallint.io.source import FsSource
    from evallint.rules import ALL_RULES

    source = FsSource(root)
    texts: dict[str, str] = {}
    changes = changes_of(report.diagnostics, source, texts, {r.id for r in ALL_RULES if r.fixable})
    _write(unified_diff(changes, texts, source), None)


def _apply_fixes(
    report: Report, planned: Plan, options: Options, *, again: Callable[[], Report]
) -> Report:
    """`--fix`: the content fixes written first; then, where the run compares with a base, the
    version rules judged again on the fixed text, as `bump --update-refs` does (no bump for a
    change a fix undid, and no pin left on a version a bump replaced); then the run made
    again, so the report says what is left."""
    from evallint.cli.fixing import changes_of, write
    from evallint.io.source import FsSource
    from evallint.rules import ALL_RULES, BUMPED

    source = FsSource(planned.root)
    texts: dict[str, str] = {}
    content = {r.id for r in ALL_RULES if r.fixable} - set(BUMPED)
    changes = changes_of(report.diagnostics, source, texts, content)
    done = write(changes, texts, source, planned.root)
    files = {c.path for c in changes}
    if planned.chosen.baseline is not None and _bumps_on(planned.config):
        edits, _, _ = _bumps(planned, options)
        done += edits
        files |= {line.split(":", 1)[0] for line in edits}
    if not done:
        return report
    fixed = f"fixed {len(done)} finding{'' if len(done) == 1 else 's'}"
    fresh = again()
    many = "" if len(files) == 1 else "s"
    return replace(fresh, notes=(*fresh.notes, f"{fixed} in {len(files)} file{many}"))


def _bumps_on(config: Config) -> bool:
    """Whether the run's settings leave a version rule that bumps on."""
    from evallint.rules import BUMPED

    return any((not config.select or r in config.select) and r not in config.ignore for r in BUMPED)


def _bumps(planned: Plan, options: Options) -> tuple[list[str], list[str], str]:
    from evallint.cli.bump import settle
    from evallint.session.settings import today

    return settle(
        list(options.paths),
        planned.cwd,
        planned.root,
        planned.in_git,
        planned.config,
        diff=options.diff,
        base=options.base,
        today=today(options.today, os.environ),
        update_refs=True,
    )


def _write_baseline(report: Report, path: Path) -> int:
    from evallint.cli.accepted import render

    _write(render(report), str(path))
    n = sum(d.rule != "parse-error" for d in report.diagnostics)
    _write(f"wrote {n:,} finding{'' if n == 1 else 's'} to the baseline {path}\n", None)
    return 0


def _apply_baseline(
    report: Report, name: str, cwd: Path, root: Path, change: Baseline | None
) -> Report:
    """The findings `name` does not accept. In a run over a change, the file as the base has
    it: what the change adds to it accepts nothing yet (a pull request cannot accept its own
    findings)."""
    from evallint.cli.accepted import parse, without

    path = Path(os.path.normpath(cwd / name))
    if not path.is_relative_to(root):
        raise EvallintError(f"the baseline {name} is outside the project")
    rel = path.relative_to(root).as_posix()
    if change is None:
        return without(report, parse(_baseline_bytes(root, rel, name), name), name)
    from evallint.io.git import GitRepo

    held = GitRepo(root).read_many(change.base.sha, [rel]).get(rel)
    if held is None:
        note = f"the baseline {name} is not in {change.base.label}: every finding is reported"
        return replace(report, notes=(*report.notes, note))
    return without(report, parse(held, f"{name} (at {change.base.label})"), name)


BASELINE_LIMIT = 256 * 1024 * 1024  # a baseline of a million findings is some 200 MB


def _baseline_bytes(root: Path, rel: str, name: str) -> bytes:
    """The baseline file as every input is read: a regular file of the project (no link out,
    no FIFO or device), under a size limit."""
    from evallint.io.source import FsSource

    source = FsSource(root)
    if source.outside(rel):
        raise EvallintError(f"the baseline {name} leads out of the project; it is not read")
    try:
        found = source.read_capped(rel, BASELINE_LIMIT)
    except OSError as exc:
        why = exc.strerror or "not a regular file"
        raise EvallintError(f"cannot read the baseline {name}: {why}") from None
    if isinstance(found, int):
        raise EvallintError(
            f"the baseline {name} is {found:,} bytes, over the {BASELINE_LIMIT:,}-byte limit"
        )
    return found


def _from_here(report: Report, root: Path, cwd: Path) -> Report:
    """Paths for people relative to the folder they run in, as ruff prints them, so a terminal
    or editor opens them from there; machine formats keep the project root's."""
    if cwd == root or not cwd.is_relative_to(root):
        return report
    here = cwd.relative_to(root).as_posix() + "/"
    ups = "../" * here.count("/")

    def near(path: str) -> str:
        return path.removeprefix(here) if path.startswith(here) else ups + path

    return replace(
        report,
        diagnostics=tuple(replace(d, path=near(d.path)) for d in report.diagnostics),
        skipped=tuple(replace(s, path=near(s.path)) for s in report.skipped),
    )


def _render(fmt: str, report: Report, args: argparse.Namespace) -> str:
    from evallint.output import formatter

    if fmt != "text":
        return formatter(fmt)(report, verbose=args.verbose)
    from evallint.output.text import render_text  # the one format with options for people

    color = _color(os.environ, terminal=_terminal(args))
    show = args.show_source if args.show_source is not None else _terminal(args)
    return render_text(
        report,
        verbose=args.verbose,
        show_source=show,
        color=color,
        statistics=args.statistics,
        quiet=args.quiet,
    )


def _terminal(args: argparse.Namespace) -> bool:
    """Frames by default where a person reads the output: on a terminal."""
    return args.output is None and sys.stdout.isatty()


def _color(environ: Mapping[str, str], *, terminal: bool) -> bool:
    """NO_COLOR (no-color.org) and FORCE_COLOR win over whether stdout is a terminal."""
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    return terminal


def _github_files(report: Report, environ: Mapping[str, str], sarif: str | None) -> None:
    """The step summary and step outputs, when GitHub gave files for them."""
    from evallint.model import Severity
    from evallint.output.github import render_summary

    if environ.get("GITHUB_STEP_SUMMARY"):
        from evallint.io.event import pull_request_sha

        head = pull_request_sha(environ, "head")
        seen = {**environ, "EVALLINT_HEAD_SHA": head} if head else environ
        append(environ["GITHUB_STEP_SUMMARY"], render_summary(report, seen))
    if environ.get("GITHUB_OUTPUT"):
        lines = [
            f"error-count={report.count(Severity.ERROR)}",
            f"warning-count={report.count(Severity.WARNING)}",
        ]
        lines += [f"sarif-file={sarif}"] if sarif else []
        append(environ["GITHUB_OUTPUT"], "\n".join(lines) + "\n")


def append(path: str, text: str) -> None:
    try:
        with open(path, "a", encoding="utf-8", errors="backslashreplace") as out:
            out.write(text)
    except OSError as exc:
        raise EvallintError(f"cannot write {path!r}: {exc.strerror}") from None


def _write(text: str, output: str | None) -> None:
    if not text.isascii():
        # File names that are not UTF-8 reach us as lone surrogates: written as \udcff escapes
        # (valid inside JSON strings too), never a crash.
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if output is None:
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:  # `check | head`: the exit code still tells the result
            quiet_stdout()
        return
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise EvallintError(f"cannot write {output!r}: {exc.strerror}") from None


def quiet_stdout() -> None:
    """Later writes (and the flush at exit) go nowhere instead of raising again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (a test's capture)
        pass
    finally:
        os.close(devnull)
