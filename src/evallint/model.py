"""Plain data shared by every pipeline stage: severities, spans, findings, diagnostics."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from itertools import chain
from typing import Any, overload

from evallint.records import field, record, replace

# Parsed documents are JSON-shaped; `Any` stops at this alias.
JSON = Any


class Tagged(str):
    """A scalar written with a custom YAML tag a runner's loader understands (lm-evaluation-
    harness's `!function utils.fn`): text for the schema, and marked as a reference for rules.

    It keeps where it was written (`at`: its pointer and span), so a finding on it is placed
    without a second pass over its file: the harness's tree has thousands of such findings,
    each in a file that has no other. Equal to its text wherever it was written."""

    tag = "!function"
    at: tuple[Pointer, Span] | None = None


# A route into a document: ("questions", 3, "expected"); () is the root.
Pointer = tuple[str | int, ...]


class Severity(enum.IntEnum):
    NOTE = 1
    WARNING = 2
    ERROR = 3

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        return cls[text.upper()]


@record
class Span:
    """1-based line and column (in code points), end inclusive of the last character + 1."""

    line: int
    column: int
    end_line: int
    end_column: int


@record
class Fix:
    """A safe edit a rule offers: inside the source text of the value at `pointer`, `old`
    becomes `new`; the rest (quotes, comments, layout) stays as written."""

    pointer: Pointer
    old: str
    new: str
    on_key: bool = False  # in the key's text (a rename), not the value's


@record
class Edit:
    """A fix placed in a file: characters `start` to `end` of its text become `text`."""

    start: int
    end: int
    text: str


@record
class Finding:
    """What a rule yields: symbolic (a pointer into the data), no position, no severity."""

    pointer: Pointer
    message: str
    on_key: bool = False  # point at the key (unknown or misspelt keys), not the value
    within: tuple[int, int] | None = None  # character offsets inside the value's source text
    related: tuple[tuple[str, Pointer, str], ...] = ()  # (path, pointer, note) elsewhere
    path: str | None = None  # a finding about another file than the one being checked
    # Findings of one rule and group count together for the repeat cap (default: the message);
    # for messages that differ in each record but tell of one problem.
    group: str | None = None
    fix: Fix | None = None


@record
class Location:
    """Another place a finding points to (SARIF's related locations)."""

    path: str
    span: Span
    note: str = ""


@record
class Diagnostic:
    """What formatters consume: concrete and final."""

    path: str
    span: Span
    rule: str
    severity: Severity
    message: str
    related: tuple[Location, ...] = ()
    # Identity that survives the finding moving to another line (SARIF primaryLocationLineHash).
    fingerprint: str = field(default="", compare=False)
    # Findings of one rule, file and group are capped together for people (default: message).
    group: str = field(default="", compare=False)
    more: int = 0  # like findings after this one that the repeat cap left out
    fix: Edit | None = field(default=None, compare=False)
    source: str = field(default="", compare=False)  # the text of the first line, for frames

    @property
    def text(self) -> str:
        """The message as shown to a person, with what the repeat cap left out."""
        if not self.more:
            return self.message
        return f"{self.message} ({self.more:,} more like this in this file not shown)"

    @property
    def weight(self) -> int:
        """How many findings this one stands for: itself and those the cap left out."""
        return 1 + self.more

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.span.line, self.span.column, self.rule, self.message)


@record
class Skipped:
    """A file not checked, and why; `unreadable`: it could not be read as data (counted in the
    summary, as a file evallint did not read is never called clean in silence)."""

    path: str
    reason: str
    unreadable: bool = False
    problem: tuple[Span, str] | None = None  # where it could not be read, and why
    claimed: bool = False  # a kind claims it by its path: an error, however the run was asked
    rule: str = "parse-error"  # the finding it is as an error (path-outside-repo: a link out)
    own: bool = False  # evallint's own file (a baseline, an exported schema): never listed

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"

    def as_error(self) -> Diagnostic:
        """The error it is when evallint was told to check this very file (--strict)."""
        span, message = self.problem or (Span(1, 1, 1, 2), self.reason)
        return Diagnostic(self.path, span, self.rule, Severity.ERROR, message)


class FileSet(frozenset[str]):
    """A run's files, which also keep the order they were listed in: a search of every name
    (`names`) joins a list at C speed, where iterating a large set, its strings scattered in
    memory, costs several times as much (15 ms at 100,000 files)."""

    __slots__ = ("_parts",)
    _parts: tuple[Sequence[str], ...]

    def __new__(cls, *parts: Sequence[str]) -> FileSet:
        # Sized from a dict: a set grown one path at a time ends at four slots a path, one
        # sized from a dict at two. The parts are kept as they are (the run keeps them anyway).
        made = super().__new__(cls, dict.fromkeys(chain(*parts)))
        made._parts = parts
        return made

    def names(self) -> str:
        """The paths, a line each, in the order listed; a path listed twice comes twice."""
        return "\n".join(chain(*self._parts))


def names_of(files: frozenset[str]) -> str:
    """Every path of `files` in one text, a line each (`FileSet.names` when it is one)."""
    return files.names() if isinstance(files, FileSet) else "\n".join(files)


class Checked(Sequence[tuple[str, str]]):
    """(path, kind label) of every file checked, kept as the paths and a byte each: a pair per
    file would be a large run's peak memory."""

    __slots__ = ("_labels", "_paths", "_which")

    def __init__(self, paths: Sequence[str], labels: Sequence[str]) -> None:
        self._paths = tuple(paths)
        self._labels = tuple(dict.fromkeys(labels))  # a run meets a few kinds, never 256
        index = {label: i for i, label in enumerate(self._labels)}
        self._which = bytes(index[label] for label in labels)

    def __len__(self) -> int:
        return len(self._paths)

    def __eq__(self, other: object) -> bool:
        # As the tuple of pairs it stands for: two reports of the same run are equal.
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=False))

    def __hash__(self) -> int:
        return hash(tuple(self))

    @overload
    def __getitem__(self, i: int) -> tuple[str, str]: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[tuple[str, str]]: ...
    def __getitem__(self, i: int | slice) -> tuple[str, str] | Sequence[tuple[str, str]]:
        if isinstance(i, slice):
            return list(zip(self._paths[i], [self._labels[k] for k in self._which[i]], strict=True))
        return self._paths[i], self._labels[self._which[i]]


@record
class Report:
    """What a run found and what it read: the formatters' only input."""

    diagnostics: tuple[Diagnostic, ...]
    files_checked: int
    seconds: float = 0.0
    skipped: tuple[Skipped, ...] = ()
    notes: tuple[str, ...] = field(default=())  # run-level facts shown to people (e.g. base used)
    kinds: Sequence[tuple[str, str]] = ()  # (path, kind title) of every file checked
    accepted: int = 0  # findings a baseline accepted, left out (the summary says how many)

    @property
    def unreadable(self) -> tuple[Skipped, ...]:
        return tuple(s for s in self.skipped if s.unreadable)

    def claimed_unread_fail(self) -> Report:
        """Files a kind claims by their path that were not read (a symlink out of the project)
        are parse-errors, counted as checked: a file evallint would check is never skipped."""
        return self.unread_fail(frozenset(s.path for s in self.skipped if s.claimed))

    def unread_fail(self, paths: frozenset[str]) -> Report:
        """The files of `paths` that were skipped unread made parse-errors, counted as checked."""
        failed = [s for s in self.skipped if s.path in paths and (s.unreadable or s.claimed)]
        if not failed:
            return self
        found = sorted(
            (*self.diagnostics, *(s.as_error() for s in failed)), key=Diagnostic.sort_key
        )
        return Report(
            tuple(found),
            self.files_checked + len(failed),
            self.seconds,
            tuple(s for s in self.skipped if s not in failed),
            self.notes,
            self.kinds,
        )

    def count(self, severity: Severity) -> int:
        """Every finding, also those the repeat cap left out: counts are never capped."""
        return sum(d.weight for d in self.diagnostics if d.severity == severity)

    def capped(self, limit: int) -> Report:
        """What a person reads: the first `limit` findings of each rule and group in a file,
        the last one shown counting the rest (0: no limit). Machine outputs take it all."""
        if not limit:
            return self
        seen: dict[tuple[str, str, str], list[int]] = {}
        for i, d in enumerate(self.diagnostics):
            seen.setdefault((d.path, d.rule, d.group or d.message), []).append(i)
        keep: dict[int, Diagnostic] = {}
        for found in seen.values():
            shown = found[:limit]
            keep.update((i, self.diagnostics[i]) for i in shown)
            hidden = sum(self.diagnostics[i].weight for i in found[limit:])
            if hidden:
                last = self.diagnostics[shown[-1]]
                keep[shown[-1]] = replace(last, more=last.more + hidden)
        return replace(self, diagnostics=tuple(keep[i] for i in sorted(keep)))

    def exit_code(self, *, strict: bool) -> int:
        worst = max((d.severity for d in self.diagnostics), default=None)
        if worst == Severity.ERROR or (strict and worst == Severity.WARNING):
            return 1
        return 0
