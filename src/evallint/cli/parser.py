"""The command line's grammar: every command, its flags and their help. `main` builds only the
parser of the command argv names."""

from __future__ import annotations

import argparse
import datetime
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from evallint.about import DISTRIBUTION, __version__


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
    parser.add_argument("--version", action="version", version=f"{DISTRIBUTION} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, add in SUBCOMMANDS.items():
        if only is None or name == only:
            add(sub)
    return parser


def _add_check(sub: Any) -> None:
    from evallint.kinds import RELEASES
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
    _add_run_options(check, RELEASES)
    _add_report_options(check)
    _add_accepted_and_fixes(check)


def _add_run_options(check: argparse.ArgumentParser, eee_versions: Sequence[str]) -> None:
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
        choices=eee_versions,
        metavar="VERSION",
        help="check Every Eval Ever records against this schema version "
        "instead of the one they declare",
    )


def _add_report_options(check: argparse.ArgumentParser) -> None:
    check.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also list each file skipped (with why) and the kind each checked file was read as",
    )
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


def _add_accepted_and_fixes(check: argparse.ArgumentParser) -> None:
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
    rules = sub.add_parser(
        "rules", help="list every rule, one a line (`evallint rule ID` shows one in full)"
    )
    rules.add_argument("--long", action="store_true", help="each rule with its whole documentation")
    rules.add_argument(
        "--format",
        choices=["text", "markdown"],
        default="text",
        help="markdown: the whole documentation, as RULES.md",
    )


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


def _add_lsp(sub: Any) -> None:
    lsp = sub.add_parser("lsp", help="run the language server on stdin and stdout (the lsp extra)")
    lsp.add_argument("--stdio", action="store_true", help="the default, and the only transport")


# The subcommands, in the order `evallint --help` lists them.
SUBCOMMANDS: dict[str, Callable[[Any], None]] = {
    "check": _add_check,
    "bump": _add_bump,
    "init": _add_init,
    "rules": _add_rules,
    "rule": _add_rule,
    "schema": _add_schema,
    "completion": _add_completion,
    "lsp": _add_lsp,
}


def command_of(argv: Sequence[str] | None) -> str | None:
    """The subcommand argv starts with, when it names one: only its parser is built."""
    args = sys.argv[1:] if argv is None else argv
    return args[0] if args and args[0] in SUBCOMMANDS else None
