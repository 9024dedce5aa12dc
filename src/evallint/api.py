"""The Python API, for harnesses that lint their eval files before they run them.

    import evallint.api

    report = evallint.api.check(["evals/"])
    if report.exit_code(strict=False):
        for d in report.diagnostics:
            print(d.path, d.span.line, d.span.column, d.rule, d.message)

It does what `evallint check` does, without printing or exiting: the same project root, the
same configuration file, the same rules. The results are frozen records (`Report`,
`Diagnostic`, `Span`: immutable, compared by value, with slots; `evallint.records.replace`
makes a changed copy), and every finding is there (none capped).
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Sequence
from pathlib import Path

from evallint.config import Config
from evallint.errors import EvallintError
from evallint.model import Diagnostic, Report, Severity, Skipped, Span
from evallint.records import replace

__all__ = [
    "Config",
    "Diagnostic",
    "EvallintError",
    "Report",
    "Severity",
    "Skipped",
    "Span",
    "check",
]


def check(
    paths: Sequence[str | os.PathLike[str]] = (),
    *,
    config: Config | None = None,
    cwd: str | os.PathLike[str] | None = None,
    diff: str | None = None,
    today: datetime.date | None = None,
    cache: bool = True,
) -> Report:
    """Check `paths` (default: the current folder) as `evallint check` does.

    `config`: used instead of the project's `.evallint.toml` or `[tool.evallint]`; `cwd`: the
    folder relative paths start from; `diff`: check only what the change from this ref touches
    ("" for the default base); `cache`: keep what the run learns of the tree's files in
    `.evallint_cache/`, as the command does unless given `--no-cache`. Raises `EvallintError`
    for what the command reports with exit code 2 (a path that does not exist, a bad
    configuration, a base git does not know).
    """
    from evallint.cli.selection import choose, lint_selection
    from evallint.cli.settings import load_config
    from evallint.io import discover

    here = Path(cwd) if cwd is not None else Path.cwd()
    args = [os.fspath(p) for p in paths]
    root, in_git = discover.project_root(args, here)
    chosen_config = config if config is not None else load_config(root)
    chosen_config = replace(chosen_config, max_repeats=0)  # a program gets every finding
    chosen = choose(args, here, root, in_git, chosen_config, diff=diff)
    report = lint_selection(chosen, root, in_git, chosen_config, today=today, cache=cache)
    return replace(report, skipped=(*chosen.skipped, *report.skipped)).claimed_unread_fail()
