"""Reports to text: one pure function per format, chosen by name and imported when chosen.

Adding a format is its module, its row here and its golden file (`tests/golden/report.<name>`);
`--format`, the README's usage line and the golden tests take every row, and a test holds each
row's function to `Formatter` with mypy.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

from evallint.records import record

if TYPE_CHECKING:
    from evallint.model import Report


class Formatter(Protocol):
    """A report as the text of one format; `verbose` adds the files the run skipped."""

    def __call__(self, report: Report, /, *, verbose: bool = False) -> str: ...


@record
class Output:
    """A format's renderer, imported only when the format is asked for."""

    module: str
    function: str
    machine: bool  # read by programs: every finding, no repeat cap


# SARIF pulls in the rule docs, so nothing is imported up front.
FORMATTERS: Mapping[str, Output] = {
    "text": Output("evallint.output.text", "render_text", machine=False),
    "json": Output("evallint.output.text", "render_json", machine=True),
    "sarif": Output("evallint.output.sarif", "render_sarif", machine=True),
    "github": Output("evallint.output.github", "render_github", machine=False),
    "gitlab": Output("evallint.output.gitlab", "render_gitlab", machine=True),
    "junit": Output("evallint.output.junit", "render_junit", machine=True),
}


def formatter(name: str) -> Formatter:
    chosen = FORMATTERS[name]
    found: Formatter = getattr(importlib.import_module(chosen.module), chosen.function)
    return found
