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
    from evallint.session.check import Options
    from evallint.session.check import check as run

    options = Options(
        paths=tuple(os.fspath(p) for p in paths),
        cwd=Path(cwd) if cwd is not None else None,
        config=config,
        diff=diff,
        today=today,
        cache=cache,
        every_finding=True,  # a program gets every finding
    )
    return run(options)
