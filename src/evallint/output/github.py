"""GitHub Actions: workflow-command annotations, and the Markdown step summary.

GitHub shows at most 10 error and 10 warning annotations per step, so the worst come first and
one notice counts the rest; every finding is also printed as a plain line in the log.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from urllib.parse import quote

from evallint.model import Diagnostic, Report, Severity
from evallint.output.text import summary

COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}
SHOWN = 10  # per severity, per step
SUMMARY_LIMIT = 1024 * 1024 - 4096  # GitHub rejects step summaries over 1 MiB


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>&~])")


def escape_markdown(text: str) -> str:
    """Text from files and messages shown as itself in Markdown: no markup, no HTML."""
    return _MARKDOWN.sub(r"\\\1", " ".join(text.splitlines()))


def plain_path(path: str) -> str:
    """A file name on a plain log line: it can never end the line or start a workflow command
    (a file named `::error ...::x.yaml` would forge an annotation)."""
    text = escape_data(path)
    return "%3A" + text[1:] if text.lstrip().startswith(":") else text


def worst_first(diagnostics: tuple[Diagnostic, ...]) -> list[Diagnostic]:
    return sorted(diagnostics, key=lambda d: (-d.severity, d.sort_key()))


def annotation(d: Diagnostic) -> str:
    s = d.span
    props = {
        "file": d.path,
        "line": s.line,
        "col": s.column,
        "endLine": s.end_line,
        "endColumn": s.end_column,
        "title": f"evallint [{d.rule}]",
    }
    joined = ",".join(f"{k}={escape_property(str(v))}" for k, v in props.items())
    return f"::{COMMAND[d.severity]} {joined}::{escape_data(d.text)}"


def render_github(report: Report, *, verbose: bool = False) -> str:
    lines = [f"::notice::{escape_data(note)}" for note in report.notes]
    shown: Counter[Severity] = Counter()
    for d in worst_first(report.diagnostics):
        if shown[d.severity] < SHOWN:
            lines.append(annotation(d))
            shown[d.severity] += 1
        else:
            flat = escape_data(d.text)
            lines.append(
                f"{plain_path(d.path)}:{d.span.line}:{d.span.column}: {d.severity.label}: "
                f"{flat} [{d.rule}]"
            )
    hidden = len(report.diagnostics) - sum(shown.values())
    if hidden:
        lines.append(
            f"::notice::{escape_data(summary(report))}; {hidden} more finding"
            f"{'' if hidden == 1 else 's'} than GitHub shows as annotations are in "
            "the log above and in the step summary"
        )
    lines.append(summary(report))
    return "\n".join(lines) + "\n"


def _link(d: Diagnostic, environ: Mapping[str, str]) -> str:
    server, repo = environ.get("GITHUB_SERVER_URL"), environ.get("GITHUB_REPOSITORY")
    # The pull request's head commit when the CLI found it (GITHUB_SHA is the temporary merge
    # commit there, whose lines may differ and which GitHub drops).
    sha = environ.get("EVALLINT_HEAD_SHA") or environ.get("GITHUB_SHA")
    where = _code(f"{d.path}:{d.span.line}")
    if not (server and repo and sha):
        return where
    url = quote(d.path, errors="surrogateescape")
    return f"[{where}]({server}/{repo}/blob/{sha}/{url}#L{d.span.line})"


def _code(text: str) -> str:
    """A code span (shown as written, never as Markdown or HTML) for a file-controlled text in
    a table cell. Its fence is longer than any run of backticks in the text; a `|` is escaped,
    since GitHub splits table cells at a bare one even inside a code span."""
    flat = " ".join(text.splitlines()).replace("|", "\\|")
    longest = max((len(run) for run in re.findall("`+", flat)), default=0)
    fence = "`" * (longest + 1)
    return f"{fence} {flat} {fence}" if longest else f"`{flat}`"


def render_summary(report: Report, environ: Mapping[str, str]) -> str:
    """The step summary: counts by rule and severity, then the worst findings, linked."""
    out = ["## evallint", "", summary(report), ""]
    out += [f"> {escape_markdown(note)}" for note in report.notes]
    out += [""] if report.notes else []
    counts: Counter[tuple[str, Severity]] = Counter()
    for d in report.diagnostics:
        counts[(d.rule, d.severity)] += d.weight
    if counts:
        out += ["| rule | severity | findings |", "|---|---|---|"]
        out += [
            f"| `{rule}` | {sev.label} | {n} |"
            for (rule, sev), n in sorted(
                counts.items(), key=lambda kv: (-kv[0][1], -kv[1], kv[0][0])
            )
        ]
        out += ["", "| where | severity | rule | message |", "|---|---|---|---|"]
    size = sum(len(line) + 1 for line in out)
    listed = 0
    for d in worst_first(report.diagnostics):
        row = (
            f"| {_link(d, environ)} | {d.severity.label} | `{d.rule}` | {escape_markdown(d.text)} |"
        )
        if size + len(row) + 200 > SUMMARY_LIMIT:
            break
        out.append(row)
        size += len(row) + 1
        listed += 1
    if listed < len(report.diagnostics):
        out += [
            "",
            f"{len(report.diagnostics) - listed} more findings are not listed here "
            "(the summary is limited to 1 MiB); see the log or the SARIF file.",
        ]
    return "\n".join(out) + "\n"
