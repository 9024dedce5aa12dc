"""Command line: reads argv, runs `check` and hands the other commands to `commands.py`, and
picks the exit code. Only `cli/` writes to stdout."""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from evallint.about import __version__
from evallint.errors import EvallintError
from evallint.records import replace

if TYPE_CHECKING:
    from evallint.baseline import Baseline
    from evallint.model import Report
    from evallint.session.check import Options

EXIT_USAGE = 2


def _rule_list(text: str) -> list[str]:
    return [r.strip() for r in text.split(",") if r.strip()]


def _date(text: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date as YYYY-MM-DD: {text!r}") from None


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"not a whole number of 1 or more: {text!r}")
    return int(text)


_BASE_HELP = (
    "compare with the merge base of BASE and HEAD (default BASE: the pull request "
    "base, PRE_COMMIT_FROM_REF, origin/HEAD, main, master)"
)


def _add_base_options(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument(
        "--diff",
        nargs="?",
        const="",
        metavar="BASE",
        help="check only what the change touches; " + _BASE_HELP,
    )
    cmd.add_argument("--base", metavar="REF", help="run the version rules against REF")


def _add_today(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument(
        "--today",
        type=_date,
        metavar="YYYY-MM-DD",
        help="the date for date-based rules (default: SOURCE_DATE_EPOCH, else today)",
    )


def _columns() -> int:
    """The terminal's width as `shutil.get_terminal_size` finds it (COLUMNS, then the terminal
    of stdout, else 80), without importing shutil: argparse asks for it for every option it
    adds, and shutil (with zlib, bz2 and lzma behind it) would cost every run 1.6 ms."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.HelpFormatter):
    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=_columns() - 2)  # argparse's own margin


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose help (and its subcommands') is laid out by `_Formatter`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line; `only`: that subcommand alone, which is all a run of it parses (each
    subcommand's parser costs argparse's gettext look-ups, a few ms of a one-file run)."""
    parser = _Parser(prog="evallint", description="Lint LLM evaluation files.")
    parser.add_argument("--version", action="version", version=f"evallint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, add in _SUBCOMMANDS.items():
        if only is None or name == only:
            add(sub)
    return parser


def _add_check(sub: Any) -> None:
    from evallint.kinds.eee import CHECKED
    from evallint.output import FORMATTERS

    check = sub.add_parser("check", help="check eval files (default: the current directory)")
    check.add_argument("paths", nargs="*", metavar="PATH")
    check.add_argument(
        "--format",
        choices=["auto", *FORMATTERS],
        default="auto",
        help="auto: github under GitHub Actions, else text",
    )
    check.add_argument("--output", metavar="FILE", help="write the report to FILE")
    check.add_argument(
        "--sarif-output",
        metavar="FILE",
        help="also write SARIF 2.1.0 to FILE, whatever --format is",
    )
    check.add_argument("--strict", action="store_true", help="warnings fail the run too")
    check.add_argument("--config", metavar="FILE", help="read configuration from FILE")
    check.add_argument(
        "--select",
        type=_rule_list,
        default=[],
        metavar="RULES",
        help="comma-separated rule ids, id prefixes or kind groups (eee, agentv): run only these",
    )
    check.add_argument(
        "--ignore",
        type=_rule_list,
        default=[],
        metavar="RULES",
        help="comma-separated rule ids, id prefixes or kind groups: do not run these",
    )
    _add_base_options(check)
    _add_today(check)
    check.add_argument(
        "--jobs",
        type=_positive,
        metavar="N",
        help="processes for the per-file checks (default: every core, from 1,000 files)",
    )
    check.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write .evallint_cache/ (what runs learn of the tree's files)",
    )
    check.add_argument(
        "--eee-version",
        choices=CHECKED,
        metavar="VERSION",
        help="check Every Eval Ever records against this schema version "
        "instead of the one they declare",
    )
    check.add_argument("-v", "--verbose", action="store_true", help="list skipped files")
    check.add_argument(
        "--show-source",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show each finding's line with a caret span (default: on a terminal)",
    )
    check.add_argument(
        "--statistics", action="store_true", help="a count per rule instead of each finding"
    )
    check.add_argument(
        "-q", "--quiet", action="store_true", help="print the findings alone, no summary"
    )
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are errors")
    accepted = check.add_mutually_exclusive_group()
    accepted.add_argument(
        "--baseline",
        metavar="FILE",
        help="report only findings FILE does not accept (with --diff, FILE as the base has it)",
    )
    accepted.add_argument(
        "--write-baseline",
        metavar="FILE",
        help="write today's findings to FILE as accepted, and exit 0",
    )
    fixes = check.add_mutually_exclusive_group()
    fixes.add_argument(
        "--fix",
        action="store_true",
        help="apply the safe fixes (quote YAML values read as non-text, rename misspelt keys, "
        "bump versions), then report what is left",
    )
    fixes.add_argument(
        "--show-fixes", action="store_true", help="print the fixes as a unified diff; write nothing"
    )


def _add_bump(sub: Any) -> None:
    bump = sub.add_parser("bump", help="raise versions the version rules ask to raise")
    bump.add_argument("paths", nargs="*", metavar="PATH")
    _add_base_options(bump)
    bump.add_argument(
        "--update-refs",
        action="store_true",
        help="also move the pins the bumps strand, and bump what that changes in turn",
    )
    bump.add_argument("--config", metavar="FILE", help="read configuration from FILE")
    _add_today(bump)


def _add_init(sub: Any) -> None:
    init = sub.add_parser("init", help="set up an editor for eval files")
    init.add_argument("editor", choices=["vscode"])
    init.add_argument(
        "--schemas",
        default=".vscode/evallint",
        metavar="DIR",
        help="where to export the schemas (relative to the project root)",
    )


def _add_rules(sub: Any) -> None:
    rules = sub.add_parser("rules", help="list every rule with its documentation")
    rules.add_argument("--format", choices=["text", "markdown"], default="text")


def _add_rule(sub: Any) -> None:
    one = sub.add_parser("rule", help="one rule's documentation: evallint rule key-typo")
    one.add_argument("id", metavar="ID")
    one.add_argument("--format", choices=["text", "markdown"], default="text")


def _add_schema(sub: Any) -> None:
    schema = sub.add_parser("schema", help="print a bundled JSON Schema, or export them all")
    schema.add_argument("name", nargs="?", help="dataset, rubric, judge, config, ...")
    schema.add_argument("--export", metavar="DIR", help="write every schema into DIR")


def _add_completion(sub: Any) -> None:
    done = sub.add_parser("completion", help="print a shell completion script")
    done.add_argument("shell", choices=["bash", "zsh", "fish"])


# The subcommands, in the order `evallint --help` lists them.
_SUBCOMMANDS: dict[str, Callable[[Any], None]] = {
    "check": _add_check,
    "bump": _add_bump,
    "init": _add_init,
    "rules": _add_rules,
    "rule": _add_rule,
    "schema": _add_schema,
    "completion": _add_completion,
}


def _command_of(argv: Sequence[str] | None) -> str | None:
    """The subcommand argv starts with, when it names one: only its parser is built."""
    args = sys.argv[1:] if argv is None else argv
    return args[0] if args and args[0] in _SUBCOMMANDS else None


def entry() -> NoReturn:
    """The `evallint` command's process: `main`, then an exit that skips tearing the
    interpreter down. Freeing every object a run made (a large tree's listing and cache, the
    modules) cost a tenth of a one-file run; every file evallint writes is closed by then,
    and only the standard streams are left to flush."""
    code = main()
    try:
        sys.stdout.flush()
    except (OSError, ValueError):  # the reader left (`| head`): as `main` says of a broken pipe
        code = 0
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser(_command_of(argv))
    try:
        args = _parse(parser, argv)
    except SystemExit as exc:  # argparse's own usage errors and --help/--version
        return int(exc.code or 0)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return _COMMANDS[args.command](args)
    except EvallintError as exc:
        print(f"evallint: error: {exc}", file=sys.stderr)
        if _github_mode(args, os.environ):
            _github_failure(str(exc), os.environ)
        return EXIT_USAGE
    except BrokenPipeError:  # `evallint schema | head`: the reader has all it wanted
        _quiet_stdout()
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug of ours: one clear line, never a traceback
        if os.environ.get("EVALLINT_DEBUG"):
            raise
        print(
            f"evallint: internal error: {type(exc).__name__}: {exc} "
            "(set EVALLINT_DEBUG=1 for a traceback, and please report it)",
            file=sys.stderr,
        )
        return EXIT_USAGE


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """As parse_args, but an unknown option is reported with its command's own usage."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        command = sub.choices.get(args.command) if args.command else None
        (command or parser).error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def _completion(shell: str) -> int:
    from evallint.cli.completion import render

    sys.stdout.write(render(shell, build_parser()))
    return 0


def _quiet_stdout() -> None:
    """Later writes (and the flush at exit) go nowhere instead of raising again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (a test's capture)
        pass
    finally:
        os.close(devnull)


def _github_mode(args: argparse.Namespace, environ: Mapping[str, str]) -> bool:
    fmt = getattr(args, "format", None)
    return args.command == "check" and (
        fmt == "github" or (fmt == "auto" and environ.get("GITHUB_ACTIONS") == "true")
    )


def _github_failure(message: str, environ: Mapping[str, str]) -> None:
    """A run that could not check anything says so where GitHub users look: an annotation, the
    step summary and the outputs (counts left empty: nothing was counted)."""
    from evallint.output.github import escape_data, escape_markdown

    print(f"::error title=evallint could not run::{escape_data(message)}")
    if environ.get("GITHUB_STEP_SUMMARY"):
        text = f"## evallint\n\nThe check could not run: {escape_markdown(message)}\n"
        _append(environ["GITHUB_STEP_SUMMARY"], text)
    if environ.get("GITHUB_OUTPUT"):
        _append(environ["GITHUB_OUTPUT"], "error-count=\nwarning-count=\n")


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
        report = _apply_fixes(report, planned.root, show=args.show_fixes, again=again)
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


def _apply_fixes(report: Report, root: Path, *, show: bool, again: Callable[[], Report]) -> Report:
    """`--show-fixes`: the diff on stdout, nothing written; `--fix`: the fixes written and the
    run made again, so the report says what is left."""
    from evallint.cli.fixing import changes_of, unified_diff, write
    from evallint.io.source import FsSource
    from evallint.rules import ALL_RULES

    source = FsSource(root)
    texts: dict[str, str] = {}
    fixable = {r.id for r in ALL_RULES if r.fixable}
    changes = changes_of(report.diagnostics, source, texts, fixable)
    if show:
        _write(unified_diff(changes, texts, source), None)
        return report
    if not changes:
        return report
    done = write(changes, texts, source, root)
    files = len({c.path for c in changes})
    fixed = f"fixed {len(done)} finding{'' if len(done) == 1 else 's'}"
    fresh = again()
    return replace(
        fresh, notes=(*fresh.notes, f"{fixed} in {files} file{'' if files == 1 else 's'}")
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
    if change is None:
        try:
            text = path.read_bytes()
        except OSError as exc:
            raise EvallintError(f"cannot read the baseline {name}: {exc.strerror}") from None
        return without(report, parse(text, name), name)
    from evallint.io.git import GitRepo

    if not path.is_relative_to(root):
        raise EvallintError(f"the baseline {name} is outside the project")
    rel = path.relative_to(root).as_posix()
    held = GitRepo(root).read_many(change.base.sha, [rel]).get(rel)
    if held is None:
        note = f"the baseline {name} is not in {change.base.label}: every finding is reported"
        return replace(report, notes=(*report.notes, note))
    return without(report, parse(held, f"{name} (at {change.base.label})"), name)


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
    color = _color(os.environ, terminal=_terminal(args))
    show = args.show_source if args.show_source is not None else _terminal(args)
    return formatter(fmt)(
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
        from evallint.io.git import pull_request_sha

        head = pull_request_sha(environ, "head")
        seen = {**environ, "EVALLINT_HEAD_SHA": head} if head else environ
        _append(environ["GITHUB_STEP_SUMMARY"], render_summary(report, seen))
    if environ.get("GITHUB_OUTPUT"):
        lines = [
            f"error-count={report.count(Severity.ERROR)}",
            f"warning-count={report.count(Severity.WARNING)}",
        ]
        lines += [f"sarif-file={sarif}"] if sarif else []
        _append(environ["GITHUB_OUTPUT"], "\n".join(lines) + "\n")


def _append(path: str, text: str) -> None:
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
            _quiet_stdout()
        return
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise EvallintError(f"cannot write {output!r}: {exc.strerror}") from None


def _other(name: str) -> Callable[[argparse.Namespace], int]:
    """A command of `commands.py`, imported when it runs: a check never needs it."""

    def run(args: argparse.Namespace) -> int:
        from evallint.cli import commands

        found: Callable[[argparse.Namespace], int] = getattr(commands, name)
        return found(args)

    return run


_COMMANDS = {
    "check": run_check,
    "bump": _other("run_bump"),
    "init": _other("run_init"),
    "rules": _other("run_rules"),
    "rule": _other("run_rule"),
    "completion": lambda args: _completion(args.shell),
    "schema": _other("run_schema"),
}
