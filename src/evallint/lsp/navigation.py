"""Go to definition and hover: where a reference or a file path leads (`session.navigate`), and
what a finding's rule is. Answers are plain LSP dictionaries, built from the open buffers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from evallint.lsp import convert

if TYPE_CHECKING:
    from evallint.model import Diagnostic
    from evallint.session.editor import Project
    from evallint.session.navigate import Place


def _place(
    project: Project, rel: str, buffers: Mapping[str, str], line: int, character: int
) -> Place | None:
    lines = buffers[rel].split("\n")
    at = convert.column(lines, line, character)
    return project.place_at(rel, buffers, line + 1, at)


def definition(
    project: Project, rel: str, buffers: Mapping[str, str], line: int, character: int
) -> dict[str, Any] | None:
    """The file (and place in it) the reference or file path under the cursor leads to."""
    found = _place(project, rel, buffers, line, character)
    if found is None or found.target is None:
        return None
    target = project.root / found.target.path
    start = {"line": 0, "character": 0}
    where = {"start": start, "end": start}
    if found.target.span is not None:
        text = buffers.get(found.target.path)
        if text is None:
            text = target.read_text(encoding="utf-8", errors="replace")
        where = convert.span_range(text.split("\n"), found.target.span)
    return {"uri": target.as_uri(), "range": where}


def hover(
    project: Project,
    rel: str,
    buffers: Mapping[str, str],
    position: tuple[int, int],
    findings: Sequence[Diagnostic],
    docs: str,
) -> dict[str, Any] | None:
    """What the reference or path under the cursor leads to, and the rule of each finding
    there. `position`: LSP's (line, character)."""
    from evallint.rules import BY_ID

    lines = buffers[rel].split("\n")
    line, at = position[0] + 1, convert.column(lines, *position)
    found = _place(project, rel, buffers, *position)
    parts = [found.hover] if found is not None else []
    for d in findings:
        inside = (d.span.line, d.span.column) <= (line, at) <= (d.span.end_line, d.span.end_column)
        rule = BY_ID.get(d.rule)
        if inside and rule is not None:
            parts.append(f"**{d.rule}**: {rule.summary} ([docs]({docs}#{d.rule}))")
    if not parts:
        return None
    return {"contents": {"kind": "markdown", "value": "\n\n---\n\n".join(parts)}}


def completion(
    project: Project, rel: str, buffers: Mapping[str, str], line: int, character: int
) -> dict[str, Any] | None:
    """Ids and versions inside a reference, grader types after `type:`, keys where a key is
    being written, each with its documentation (an LSP CompletionList)."""
    lines = buffers[rel].split("\n")
    text = lines[line] if 0 <= line < len(lines) else ""
    before = text[: convert.column(lines, line, character) - 1]
    offered = project.completions(rel, buffers, line, before)
    if not offered:
        return None
    # CompletionItemKind 12: a value.
    items = [{"label": x, "kind": 12, "documentation": doc} for x, doc in offered]
    return {"isIncomplete": False, "items": items}
