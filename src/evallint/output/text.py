"""The text and JSON formats."""

from __future__ import annotations

import json

from evallint.model import Diagnostic, Report, Severity

JSON_OUTPUT_VERSION = 1


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def summary(report: Report) -> str:
    counts = [(report.count(s), s.label) for s in (Severity.ERROR, Severity.WARNING, Severity.NOTE)]
    found = ", ".join(_plural(n, label) for n, label in counts if n) or "no problems"
    checked = _plural(report.files_checked, "file") + " checked"
    unread = len(report.unreadable)
    if unread:
        # Never "no problems" alone about a file that was not read (see -v for which).
        checked += f", {_plural(unread, 'unreadable file')} skipped (-v lists them)"
    return f"{checked}: {found} ({report.seconds:.2f} s)"


def render_text(report: Report, *, verbose: bool = False) -> str:
    """`path:line:col: severity: message [rule]`, clickable in editors and terminals."""
    lines = [f"skipped {s}" for s in report.skipped] if verbose else []
    lines += [f"checked {path} as {kind}" for path, kind in report.kinds] if verbose else []
    lines += report.notes
    lines += [
        f"{d.path}:{d.span.line}:{d.span.column}: {d.severity.label}: "
        f"{' '.join(d.text.splitlines())} [{d.rule}]"
        for d in report.diagnostics
    ]
    lines.append(summary(report))
    return "\n".join(lines) + "\n"


def _diagnostic(d: Diagnostic) -> dict[str, object]:
    out: dict[str, object] = {
        "path": d.path,
        "line": d.span.line,
        "column": d.span.column,
        "end_line": d.span.end_line,
        "end_column": d.span.end_column,
        "severity": d.severity.label,
        "rule": d.rule,
        "message": d.message,
    }
    if d.more:  # only a capped report has it; the command line writes JSON uncapped
        out["more"] = d.more
    return out


def render_json(report: Report, *, verbose: bool = False) -> str:
    payload: dict[str, object] = {
        "version": JSON_OUTPUT_VERSION,
        "files_checked": report.files_checked,
        "diagnostics": [_diagnostic(d) for d in report.diagnostics],
    }
    if report.notes:
        payload["notes"] = list(report.notes)
    if report.skipped:
        payload["skipped"] = [
            {"path": s.path, "reason": s.reason, "unreadable": s.unreadable} for s in report.skipped
        ]
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
