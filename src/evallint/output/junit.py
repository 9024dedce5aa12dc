"""JUnit XML, which most CI systems show as test results: one test case per file checked, which
fails when the file has errors (one `failure` listing them all, as a test case fails once);
warnings and notes are listed in the case's output, not failures."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from evallint.model import Diagnostic, Report, Severity


def _line(d: Diagnostic) -> str:
    return f"{d.path}:{d.span.line}:{d.span.column}: {d.severity.label}: {d.text} [{d.rule}]"


def _xml(text: str) -> str:
    # XML 1.0 allows no control characters but tab, LF and CR: file-controlled text may hold them.
    return "".join(c if c >= " " or c in "\t\n\r" else f"\\x{ord(c):02x}" for c in text)


def render_junit(report: Report, *, verbose: bool = False) -> str:
    by_path: dict[str, list[Diagnostic]] = {path: [] for path, _ in report.kinds}
    for d in report.diagnostics:
        by_path.setdefault(d.path, []).append(d)
    cases = []
    failures = 0
    for path, found in by_path.items():
        name = quoteattr(_xml(path))
        errors = [d for d in found if d.severity == Severity.ERROR]
        body = []
        if errors:
            failures += 1
            first = errors[0]
            message = (
                first.text if len(errors) == 1 else f"{len(errors)} errors; first: {first.text}"
            )
            lines = "\n".join(_line(d) for d in errors)
            body.append(
                f"      <failure message={quoteattr(_xml(message))} type={quoteattr(first.rule)}>"
                f"{escape(_xml(lines))}</failure>"
            )
        other = [_line(d) for d in found if d.severity != Severity.ERROR]
        if other:
            body.append(f"      <system-out>{escape(_xml(chr(10).join(other)))}</system-out>")
        inner = "\n" + "\n".join(body) + "\n    " if body else ""
        cases.append(f'    <testcase classname="evallint" name={name}>{inner}</testcase>')
    return "\n".join(
        [
            '<?xml version="1.0" encoding="UTF-8"?>',
            f'<testsuites name="evallint" tests="{len(by_path)}" failures="{failures}">',
            f'  <testsuite name="evallint" tests="{len(by_path)}" failures="{failures}" '
            f'errors="0" skipped="0" time="{report.seconds:.3f}">',
            *cases,
            "  </testsuite>",
            "</testsuites>",
            "",
        ]
    )
