"""GitLab's Code Quality report: a JSON array GitLab shows in merge requests.

Each entry has the fields GitLab reads (description, check_name, fingerprint, severity, and
location.path with lines.begin); severities map error → major, warning → minor, note → info.
"""

from __future__ import annotations

import hashlib
import json

from evallint.model import Diagnostic, Report, Severity

SEVERITY = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.NOTE: "info"}


def _fingerprint(d: Diagnostic) -> str:
    # GitLab compares fingerprints between the source and target branches: the engine's own
    # (what, not where) keeps a finding's identity when lines move; it is unique per file.
    base = d.fingerprint or f"{d.rule}\0{d.path}\0{d.message}"
    return hashlib.sha256(
        f"{base}\0{d.path}\0{d.span.line}".encode("utf-8", "surrogateescape")
    ).hexdigest()[:32]


def render_gitlab(report: Report, *, verbose: bool = False) -> str:
    entries = [
        {
            "description": d.text,
            "check_name": d.rule,
            "fingerprint": _fingerprint(d),
            "severity": SEVERITY[d.severity],
            "location": {"path": d.path, "lines": {"begin": d.span.line}},
        }
        for d in report.diagnostics
    ]
    return json.dumps(entries, indent=2, ensure_ascii=False) + "\n"
