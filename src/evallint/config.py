"""The configuration as plain data, and the globs it matches paths with (read by `settings`)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from evallint.records import field, record

MiB = 1024 * 1024
# Folders a walk outside git never enters (hidden ones and virtual environments neither).
SKIP_FOLDERS = ("node_modules", "__pycache__", ".tox", "build", "dist", "venv", "site-packages")
TEMPLATE_VARIABLES = ("input", "output", "expected", "context")


def glob_regex(pattern: str) -> re.Pattern[str]:
    """Glob over POSIX paths: `**/` spans folders, `*` and `?` stay within one."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            c = pattern[i]
            out.append("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c))
            i += 1
    # A pattern naming a folder covers everything below it, as in .gitignore.
    return re.compile("".join(out) + "(?:/.*)?")


@record
class Config:
    """The settings of a run: the configuration file's, then the flags'."""

    strict: bool = False
    exclude: tuple[str, ...] = ()
    kinds: tuple[tuple[str, str], ...] = ()  # (glob, kind name), first match wins
    severities: Mapping[str, str] = field(default_factory=dict)  # rule id -> severity | "off"
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    max_file_size: int = 10 * MiB
    max_repeats: int = 10  # identical problems shown per file; the rest are counted (0: all)
    template_variables: tuple[str, ...] = TEMPLATE_VARIABLES
    validation_max_age_days: int = 90
    # kind -> more fields that cannot change a score (added to the built-in list)
    non_score_fields: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    eee_version: str | None = None  # validate every EEE record against this version
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()  # (glob, rule ids)
    skip_folders: tuple[str, ...] = SKIP_FOLDERS  # folder names a walk outside git skips
    source: str = ""  # where it was read from, for messages

    def excluded(self, path: str) -> bool:
        return any(_match(g, path) for g in self.exclude)

    def ignored_in(self, path: str) -> frozenset[str]:
        """The rule ids `per-file-ignores` turns off in this file."""
        out: frozenset[str] = frozenset()
        for glob, rules in self.per_file_ignores:
            if _match(glob, path):
                out |= rules
        return out

    def kind_name(self, path: str) -> str | None:
        """The kind the configuration gives this path, if any (first matching glob)."""
        for glob, name in self.kinds:
            if _match(glob, path):
                return name
        return None


_GLOBS: dict[str, re.Pattern[str]] = {}


def _match(glob: str, path: str) -> bool:
    rx = _GLOBS.get(glob)
    if rx is None:
        rx = _GLOBS[glob] = glob_regex(glob)
    return rx.fullmatch(path) is not None
