"""The configuration as plain data, and the globs it matches paths with (read by `settings`)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from evallint.records import field, record

MiB = 1024 * 1024
# Folders a walk outside git never enters (hidden ones and virtual environments neither).
SKIP_FOLDERS = ("node_modules", "__pycache__", ".tox", "build", "dist", "venv", "site-packages")
TEMPLATE_VARIABLES = ("input", "output", "expected", "context")
# Where runs keep what they learn of the tree (`io/cache.py`): never an eval file, whatever a
# pull request's settings exclude.
CACHE_FOLDER = ".evallint_cache"
AGENTV_VERSION = "4.42.4"  # npm's `latest`: the AgentV release a v4 suite is run on by default


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
    # The AgentV release the project runs its v4 suites on (npm's `latest` by default): what it
    # removed is an error, what came later is not held against older releases.
    agentv_version: str = AGENTV_VERSION
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()  # (glob, rule ids)
    share_items: tuple[str, ...] = ()  # globs of datasets that may share items (shared-item)
    skip_folders: tuple[str, ...] = SKIP_FOLDERS  # folder names a walk outside git skips
    source: str = ""  # where it was read from, for messages
    # (link, target): folders of the project a symlink inside it shows under another name
    # (`rubrics` -> `store/rubrics`). Their files are checked once, under the target's path,
    # and are what the link's path says too (a rubric under a linked `rubrics/`).
    folder_links: tuple[tuple[str, str], ...] = ()

    def views(self, path: str) -> list[str]:
        """The paths a linked folder gives `path` besides its own."""
        return [
            link + path[len(target) :]
            for link, target in self.folder_links
            if path.startswith(target + "/")
        ]

    def excluded(self, path: str) -> bool:
        return any(_match(g, path) for g in self.exclude)

    def shares(self, path: str) -> bool:
        """Whether the dataset may share items with other datasets (`share-items`)."""
        return any(_match(g, path) for g in self.share_items)

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


_GLOBS: dict[str, Glob] = {}


def _match(glob: str, path: str) -> bool:
    found = _GLOBS.get(glob)
    if found is None:
        found = _GLOBS[glob] = Glob(glob)
    return found.match(path)


# Glob tokens: a literal character, `?`, `*` (within a folder), `**` (across folders), and
# `**/` (any folders, or none).
_LIT, _ONE, _STAR, _ANY, _DIRS = range(5)


class Glob:
    """A settings glob, matched in time linear in the path's length whatever the pattern.

    Settings are the pull request's to change, and a backtracking regex of a pattern such as
    `**a**a**a**a**b` takes exponential time on a long file name. A pattern with at most one
    wildcard run in each folder cannot backtrack far and is matched by its regex (the common
    case, at C speed); any other by a simulation of its automaton: every pattern position the
    path so far can reach, advanced one character at a time."""

    def __init__(self, pattern: str) -> None:
        self.tokens = _tokens(pattern)
        runs = max(len(re.findall(r"\*+", part)) for part in pattern.split("/"))
        # `**` and `**/` both span folders: two of them in a regex backtrack on a deep path.
        crossing = sum(kind in (_ANY, _DIRS) for kind, _ in self.tokens)
        self.regex = glob_regex(pattern) if runs <= 1 and crossing <= 1 else None

    def match(self, path: str) -> bool:
        if self.regex is not None:
            return self.regex.fullmatch(path) is not None
        end = 2 * len(self.tokens)
        states = self._closure({0})
        for char in path:
            if end in states and char == "/":
                return True  # a pattern naming a folder covers everything below it
            states = self._closure(self._step(states, char))
            if not states:
                return False
        return end in states

    def _closure(self, states: set[int]) -> set[int]:
        """`states` and what they reach without a character: past `*`, `**` and `**/`."""
        out, todo = set(states), list(states)
        while todo:
            state = todo.pop()
            if state % 2 == 0 and state // 2 < len(self.tokens):
                kind = self.tokens[state // 2][0]
                if kind in (_STAR, _ANY, _DIRS) and state + 2 not in out:
                    out.add(state + 2)
                    todo.append(state + 2)
        return out

    def _step(self, states: set[int], char: str) -> set[int]:
        """Even state 2i: at token i; odd 2i + 1: inside the folders of a `**/` token i."""
        out: set[int] = set()
        for state in states:
            i = state // 2
            if i >= len(self.tokens):
                continue
            kind, literal = self.tokens[i]
            if state % 2:  # inside `**/`: any character, and a `/` may end it
                out.add(state)
                if char == "/":
                    out.add(2 * i + 2)
            elif kind == _LIT:
                if char == literal:
                    out.add(state + 2)
            elif kind in (_ONE, _STAR):
                if char != "/":
                    out.add(state + 2 if kind == _ONE else state)
            elif kind == _ANY:
                out.add(state)
            else:  # _DIRS
                out.add(state + 1)
                if char == "/":
                    out.add(state + 2)
        return out


def _tokens(pattern: str) -> list[tuple[int, str]]:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append((_DIRS, ""))
            i += 3
        elif pattern.startswith("**", i):
            out.append((_ANY, ""))
            i += 2
        else:
            c = pattern[i]
            out.append((_STAR, "") if c == "*" else (_ONE, "") if c == "?" else (_LIT, c))
            i += 1
    return out
