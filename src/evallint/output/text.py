"""The text and JSON formats."""

from __future__ import annotations

import json
import re

from evallint.model import Diagnostic, Report, Severity

JSON_OUTPUT_VERSION = 1


# Control characters in file-controlled text (a file name, an id, a line of a file): shown as
# escapes, so a newline in a name cannot start a line of its own (which GitHub would read as a
# workflow command, `::error ...`) and an escape sequence cannot drive the terminal.
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")


def visible(text: str) -> str:
    """`text` with every control character but tab written as an escape (`\\n`, `\\x1b`)."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def summary(report: Report) -> str:
    counts = [(report.count(s), s.label) for s in (Severity.ERROR, Severity.WARNING, Severity.NOTE)]
    found = ", ".join(_plural(n, label) for n, label in counts if n) or "no problems"
    if report.diagnostics:
        # Files with findings, also those outside the run that a change broke.
        found += f" in {_plural(len({d.path for d in report.diagnostics}), 'file')}"
    if report.accepted:  # never "no problems" alone where a baseline hid some
        found += f", {report.accepted:,} accepted by the baseline"
    fixable = sum(d.fix is not None for d in report.diagnostics)
    if fixable:
        found += f", {fixable:,} fixable with --fix [*]"
    checked = _plural(report.files_checked, "file") + " checked"
    unread = len(report.unreadable)
    if unread:
        # Never "no problems" alone about a file that was not read (see -v for which).
        checked += f", {_plural(unread, 'unreadable file')} skipped (-v lists them)"
    return f"{checked}: {found} ({report.seconds:.2f} s)"


_COLORS = {Severity.ERROR: "1;31", Severity.WARNING: "1;33", Severity.NOTE: "1;36"}


def _paint(text: str, code: str, color: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if color else text


def render_text(
    report: Report,
    *,
    verbose: bool = False,
    show_source: bool = False,
    color: bool = False,
    statistics: bool = False,
    quiet: bool = False,
) -> str:
    """`path:line:col: severity: message [rule]`, clickable in editors and terminals; with
    `show_source`, the line and a caret span under each; `statistics`: a count per rule instead;
    `quiet`: the findings alone."""
    lines = [visible(f"skipped {s}") for s in report.skipped] if verbose else []
    lines += [visible(f"checked {p} as {kind}") for p, kind in report.kinds] if verbose else []
    lines += [] if quiet else [visible(note) for note in report.notes]
    if statistics:
        lines += _statistics(report, color)
    else:
        for d in report.diagnostics:
            lines.append(_line(d, color))
            if show_source and d.source:
                lines += _frame(d, color)
    if not quiet:
        lines.append(summary(report))
    return "\n".join(lines) + "\n" if lines else ""


def _line(d: Diagnostic, color: bool) -> str:
    where = _paint(f"{visible(d.path)}:{d.span.line}:{d.span.column}:", "1", color)
    level = _paint(f"{d.severity.label}:", _COLORS[d.severity], color)
    rule = _paint(f"[{d.rule}]", "2", color) + (" [*]" if d.fix is not None else "")
    return f"{where} {level} {visible(' '.join(d.text.splitlines()))} {rule}"


def _frame(d: Diagnostic, color: bool) -> list[str]:
    """The finding's first line with carets under its span (to the line's end when the span
    runs on), as ruff shows it."""
    number = str(d.span.line)
    gutter = " " * len(number)
    raw = d.source.rstrip("\r\n")
    text = visible(raw)
    start = max(d.span.column - 1, 0)
    end = d.span.end_column - 1 if d.span.end_line == d.span.line else len(raw)
    # Keep the line's tabs in the caret line so the carets sit under the same characters (an
    # escaped control character is as wide as its escape).
    pad = "".join(c if c == "\t" else " " for c in visible(raw[:start]))
    width = len(visible(raw[start:end]))
    carets = _paint("^" * max(width, 1), _COLORS[d.severity], color)
    bar = _paint("|", "34", color)
    return [
        f"{gutter} {bar}",
        f"{_paint(number, '34', color)} {bar} {text}",
        f"{gutter} {bar} {pad}{carets}",
    ]


def _statistics(report: Report, color: bool) -> list[str]:
    """A count per rule (findings the repeat cap left out included), most first."""
    counts: dict[tuple[str, Severity], int] = {}
    fixable: set[str] = set()
    for d in report.diagnostics:
        counts[(d.rule, d.severity)] = counts.get((d.rule, d.severity), 0) + d.weight
        if d.fix is not None:
            fixable.add(d.rule)
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0][0]))
    width = max((len(f"{n:,}") for _, n in ordered), default=1)
    return [
        f"{n:>{width},}  {_paint(f'{level.label:<7}', _COLORS[level], color)}  {rule}"
        + (" [*]" if rule in fixable else "")
        for (rule, level), n in ordered
    ]


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
