"""Reports to text: one pure function per format, chosen by name."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from evallint.formatters.github import render_github
from evallint.formatters.sarif import render_sarif
from evallint.formatters.text import render_json, render_text

Formatter = Callable[..., str]
FORMATTERS: Mapping[str, Formatter] = {
    "text": render_text,
    "json": render_json,
    "sarif": render_sarif,
    "github": render_github,
}
