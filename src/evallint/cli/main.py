"""Command line: reads argv, hands each command to its module (`checking.py` for `check`,
`commands.py` for the others), and picks the exit code. Only `cli/` writes to stdout."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import NoReturn

from evallint.cli.checking import append, quiet_stdout, run_check
from evallint.cli.parser import build_parser, command_of
from evallint.errors import EvallintError

EXIT_USAGE = 2


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
    parser = build_parser(command_of(argv))
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
        quiet_stdout()
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
        append(environ["GITHUB_STEP_SUMMARY"], text)
    if environ.get("GITHUB_OUTPUT"):
        append(environ["GITHUB_OUTPUT"], "error-count=\nwarning-count=\n")


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
    "lsp": _other("run_lsp"),
}
