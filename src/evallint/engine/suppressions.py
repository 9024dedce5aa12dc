"""`# evallint: ignore[...]` comments: where they are, which findings they silence, and which
silence nothing or name no rule (reported, as ruff reports an unused `noqa`).

Only real YAML comments count: the marker inside a quoted or block scalar is text. JSON has no
comments; there the configuration's `rules` and `ignore` do the job.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from evallint.parse.positions import YAML_BREAKS
from evallint.records import record
from evallint.rules import ALWAYS_ON, UNUSED_SUPPRESSION

# `ignore` as a whole word; a list is read to its `]` or the line's end, so an unclosed or
# odd list never widens into a bare ignore of every rule.
_IGNORE = re.compile(r"#\s*evallint:\s*ignore(?![\w-])(?:\[([^\]\r\n]*)\]?)?")
_ID = re.compile(r"[^,\s]+")
if TYPE_CHECKING:
    from evallint.model import Diagnostic
    from evallint.parse import Document

UNUSED = UNUSED_SUPPRESSION
UNSILENCEABLE = ALWAYS_ON  # nothing else can be checked in such a file


@record
class Suppression:
    """One comment: its line, the columns of the marker, and the rule ids it names with their
    columns (None: every rule). All 1-based."""

    line: int
    column: int
    end_column: int
    ids: tuple[tuple[str, int], ...] | None

    def silences(self, rule_id: str) -> bool:
        if rule_id in UNSILENCEABLE:
            return False
        return self.ids is None or any(name == rule_id for name, _ in self.ids)


class Notes(dict[int, Suppression]):
    """Comment line -> the suppression comment on it; `covering`: the line of a finding -> the
    comments that cover that line."""

    def __init__(self) -> None:
        super().__init__()
        self.covering: dict[int, list[Suppression]] = {}


def find(text: str) -> Notes:
    """Every suppression comment and the lines it covers, worked out once per file, so a file
    with many findings does not rescan its text for each.

    A comment after code covers its own line only, as ruff's `noqa` does; a comment on a line
    of its own covers the next line. Either covers a whole block scalar (`template: |`) when it
    covers the line the block starts on, since a comment inside the block would be its text."""
    found = Notes()
    if "evallint:" not in text:
        return found
    scalars, blocks = _scalar_spans(text)
    for number, line in enumerate(YAML_BREAKS.split(text), start=1):
        for m in _IGNORE.finditer(line) if "evallint:" in line else ():
            at = (number - 1, m.start())
            if any(start <= at < end for start, end in scalars.get(number - 1, ())):
                continue  # inside a string value: text, not a comment
            ids = None
            if m.group(1) is not None:
                base = m.start(1) + 1
                ids = tuple((i.group(), base + i.start()) for i in _ID.finditer(m.group(1)))
            note = found[number] = Suppression(number, m.start() + 1, m.end() + 1, ids)
            target = number + 1 if not line[: m.start()].strip() else number
            for covered in range(target, blocks.get(target, target) + 1):
                found.covering.setdefault(covered, []).append(note)
            break  # the rest of the line is this comment's text
    return found


def notes_of(doc: Document) -> Notes:
    """A file's suppression comments, found once a run."""
    return doc.facts.get(find, doc.text)


def notes_in(doc: Document) -> Notes | None:
    """The suppression comments of a file, None when it has none."""
    return notes_of(doc) if "evallint:" in doc.text else None


def silenced(notes: Notes, d: Diagnostic, used: set[tuple[int, str]]) -> bool:
    """`# evallint: ignore[rule-a, rule-b]` (or bare `ignore`) that covers the finding's line;
    records which comment did it."""
    s = silencer(notes, d.rule, d.span.line)
    if s is None:
        return False
    used.add((s.line, "*" if s.ids is None else d.rule))
    return True


def silencer(found: Notes, rule_id: str, line: int) -> Suppression | None:
    """The comment that silences a finding of `rule_id` on `line`, if one covers the line."""
    for s in found.covering.get(line, ()):
        if s.silences(rule_id):
            return s
    return None


def _scalar_spans(
    text: str,
) -> tuple[dict[int, list[tuple[tuple[int, int], tuple[int, int]]]], dict[int, int]]:
    """(start, end) as (line, column), 0-based, of every scalar, by each line it covers; and
    for each block scalar, the 1-based line its indicator stands on -> its last line."""
    import yaml

    from evallint.parse.yamlload import Loader

    spans: dict[int, list[tuple[tuple[int, int], tuple[int, int]]]] = {}
    blocks: dict[int, int] = {}
    try:
        for token in yaml.scan(text, Loader=Loader):
            if isinstance(token, yaml.ScalarToken):
                s, e = token.start_mark, token.end_mark
                start = (s.line, s.column)
                if token.style in ("|", ">"):
                    # The end mark sits at the start of the line after the block's text; the
                    # text starts on the line after the indicator, whose comment is a comment.
                    blocks[s.line + 1] = e.line if e.column == 0 else e.line + 1
                    start = (s.line + 1, 0)
                for line in range(start[0], e.line + 1):
                    spans.setdefault(line, []).append((start, (e.line, e.column)))
    except yaml.YAMLError:
        pass  # a file that does not parse has only its parse-error, which nothing silences
    return spans, blocks


def unused(
    found: dict[int, Suppression],
    used: set[tuple[int, str]],
    known: frozenset[str],
    ran: frozenset[str],
    *,
    bare_may_wait: bool,
) -> list[tuple[int, int, int, str]]:
    """(line, column, end column, message) for each rule id that names no rule or silenced
    nothing. `used`: (comment line, rule id or "*") of what was silenced; `ran`: the rules that
    ran in full on this file (a rule switched off, or one that needs a base the run lacks, may
    still be waited for); `bare_may_wait`: a bare ignore may be waiting for such a rule."""
    out: list[tuple[int, int, int, str]] = []
    for s in found.values():
        if s.ids is None:
            if (s.line, "*") not in used and not bare_may_wait:
                out.append((s.line, s.column, s.end_column, "this suppression silences nothing"))
            continue
        if any(name == UNUSED for name, _ in s.ids):
            continue  # the comment asks to keep itself
        for name, column in s.ids:
            message = _problem(name, (s.line, name) in used, known, ran)
            if message:
                out.append((s.line, column, column + len(name), message))
    return out


def _problem(name: str, used: bool, known: frozenset[str], ran: frozenset[str]) -> str | None:
    if name not in known:
        from evallint.suggest import suggest

        hint = suggest(name, known)
        tail = f"; did you mean '{hint}'?" if hint else " (evallint rules lists them)"
        return f"'{name}' is not a rule id{tail}"
    if name in UNSILENCEABLE:
        return f"'{name}' cannot be silenced: nothing else can be checked in such a file"
    if not used and name in ran:
        return f"'{name}' is silenced here, but reports nothing on the lines this comment covers"
    return None
