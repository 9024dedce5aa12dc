"""Findings as the Language Server Protocol writes them: pure functions of a finding and the
text it lies in. LSP counts a line's characters in UTF-16 code units; evallint in code points."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from evallint.model import Diagnostic, Edit, Severity, Span

# LSP's DiagnosticSeverity: 1 error, 2 warning, 3 information, 4 hint.
SEVERITY = {Severity.ERROR: 1, Severity.WARNING: 2, Severity.NOTE: 3}


def position(lines: Sequence[str], line: int, column: int) -> dict[str, int]:
    """A 1-based line and code-point column as an LSP position (0-based, UTF-16 units)."""
    row = max(line - 1, 0)
    text = lines[row] if row < len(lines) else ""
    before = text[: max(column - 1, 0)]
    units = len(before) + sum(1 for c in before if ord(c) > 0xFFFF)
    return {"line": row, "character": units}


def offset_position(text: str, offset: int) -> dict[str, int]:
    """A character offset into `text` as an LSP position."""
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    before = text[start:offset]
    return {"line": line, "character": len(before) + sum(1 for c in before if ord(c) > 0xFFFF)}


def diagnostic(d: Diagnostic, lines: Sequence[str], docs: str) -> dict[str, Any]:
    """One finding: its place, severity, rule id as `code` and a link to the rule's docs."""
    span = d.span
    return {
        "range": {
            "start": position(lines, span.line, span.column),
            "end": position(lines, span.end_line, span.end_column),
        },
        "severity": SEVERITY[d.severity],
        "code": d.rule,
        "codeDescription": {"href": f"{docs}#{d.rule}"},
        "source": "evallint",
        "message": d.text,
    }


def text_edit(text: str, edit: Edit) -> dict[str, Any]:
    """A fix as an LSP TextEdit on `text`."""
    return {
        "range": {
            "start": offset_position(text, edit.start),
            "end": offset_position(text, edit.end),
        },
        "newText": edit.text,
    }


def fix_all(text: str, findings: Iterable[Diagnostic]) -> list[dict[str, Any]]:
    """Every fix of `findings` that does not overlap one before it, as TextEdits."""
    edits: list[Edit] = []
    for edit in sorted((d.fix for d in findings if d.fix is not None), key=lambda e: e.start):
        if not edits or edit.start >= edits[-1].end:
            edits.append(edit)
    return [text_edit(text, e) for e in edits]


def suppression(lines: Sequence[str], d: Diagnostic) -> dict[str, Any] | None:
    """The edit that silences a finding on its line (`# evallint: ignore[rule]`), YAML only:
    JSON has no comments. None where the line already ends in a comment."""
    row = d.span.line - 1
    if row >= len(lines) or "#" in lines[row]:
        return None
    end = position(lines, d.span.line, len(lines[row]) + 1)
    return {"range": {"start": end, "end": end}, "newText": f"  # evallint: ignore[{d.rule}]"}


def column(lines: Sequence[str], line: int, character: int) -> int:
    """An LSP position's character (UTF-16 units, 0-based `line`) as a 1-based code-point
    column of that line."""
    text = lines[line] if 0 <= line < len(lines) else ""
    units = 0
    for i, c in enumerate(text):
        if units >= character:
            return i + 1
        units += 2 if ord(c) > 0xFFFF else 1
    return len(text) + 1


def span_range(lines: Sequence[str], span: Span) -> dict[str, Any]:
    return {
        "start": position(lines, span.line, span.column),
        "end": position(lines, span.end_line, span.end_column),
    }
