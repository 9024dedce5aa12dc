"""Reports to text: one pure function per format, chosen by name and imported when chosen.

Adding a format is its module and its row here; `--format` offers every row.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

Formatter = Callable[..., str]

# name -> (module, function); SARIF pulls in the rule docs, so nothing is imported up front.
FORMATTERS: Mapping[str, tuple[str, str]] = {
    "text": ("evallint.output.text", "render_text"),
    "json": ("evallint.output.text", "render_json"),
    "sarif": ("evallint.output.sarif", "render_sarif"),
    "github": ("evallint.output.github", "render_github"),
}


def formatter(name: str) -> Formatter:
    module, function = FORMATTERS[name]
    found: Formatter = getattr(importlib.import_module(module), function)
    return found
