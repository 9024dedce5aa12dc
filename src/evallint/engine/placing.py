"""Where a finding lands: a symbolic finding (a pointer into its document) made a diagnostic at an
exact line and column, with its fingerprint; a chunk's diagnostics shifted to the file's lines."""

from __future__ import annotations

import re
from typing import Any

from evallint.digests import text_sha256
from evallint.model import Diagnostic, Finding, Location, Severity, Span
from evallint.parse import Document
from evallint.project import Project
from evallint.records import replace


def shifted(d: Diagnostic, lines: int) -> Diagnostic:
    """A chunk's diagnostic at the file's lines; other files' locations stay as they are."""
    if not lines:
        return d
    related = tuple(
        replace(r, span=_down(r.span, lines)) if r.path == d.path else r for r in d.related
    )
    # A chunk's offsets are not the file's: fixes are offered on whole files only.
    return replace(d, span=_down(d.span, lines), related=related, fix=None)


def _down(span: Span, lines: int) -> Span:
    return replace(span, line=span.line + lines, end_line=span.end_line + lines)


def place(
    doc: Document, finding: Finding, rule_id: str, level: Severity, project: Project
) -> Diagnostic:
    """A symbolic finding becomes a diagnostic at an exact position."""
    if finding.within is not None:
        span = doc.locate_within(finding.pointer, *finding.within)
    else:
        span = doc.locate(finding.pointer, on_key=finding.on_key)
    related = []
    for path, pointer, note in finding.related:
        other = doc if path in (None, doc.path) else project.document(path)
        if other is not None:
            related.append(Location(other.path, other.locate(pointer), note))
    # One string and one hashed prefix per line and rule, shared by every finding on it: a
    # long line with thousands of findings would otherwise be copied and hashed for each.
    line = doc.facts.get(doc.line_text, span.line, key=("line", span.line))
    prefix = doc.facts.get(_prefix, rule_id, doc.path, line, key=(rule_id, span.line))
    mark = _finish(prefix, finding.message)
    fix = doc.edit(finding.fix) if finding.fix is not None else None
    return Diagnostic(
        doc.path,
        span,
        rule_id,
        level,
        finding.message,
        tuple(related),
        mark,
        finding.group or "",
        fix=fix,
        source=line,
    )


def _prefix(rule_id: str, path: str, line_text: str) -> Any:
    """A finding's fingerprint says what it is, not where: line numbers (also inside messages)
    are left out. It is the SHA-256 of rule, path, the line's words and the message's, joined
    by NULs; this is that hash fed with all but the message, the same for every finding of one
    rule on one line, so hashed once and copied."""
    key = "\0".join((rule_id, path, " ".join(line_text.split()), ""))
    return text_sha256(key.encode("utf-8", "surrogateescape"))


_DIGITS = re.compile(r"\d+")  # numbers in a message (often lines): not part of what it is


def _finish(prefix: Any, message: str) -> str:
    hasher = prefix.copy()
    hasher.update(_DIGITS.sub("#", message).encode("utf-8", "surrogateescape"))
    return str(hasher.hexdigest())[:16]
