"""GitLab's Code Quality report: a JSON array GitLab shows in merge requests.

Each entry has the fields GitLab reads (description, check_name, fingerprint, severity, and
location.path with lines.begin); severities map error → major, warning → minor, note → info.
"""

from __future__ import annotations

import hashlib
import json

from evallint.model import Diagnostic, Report, Severity

SEVERITY = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.NOTE: "info"}


def _fingerprint(d: Diagnostic, seen: dict[str, int]) -> str:
    """The engine's own fingerprint (what, not where: a finding keeps it when lines move), with
    its occurrence in the file, as SARIF's primaryLocationLineHash: unique, and stable between
    the branches GitLab compares."""
    base = d.fingerprint or f"{d.rule}\0{d.path}\0{d.message}"
    seen[base] = seen.get(base, 0) + 1
    key = f"{base}\0{seen[base]}".encode("utf-8", "surrogateescape")
    return hashlib.sha256(key).hexdigest()[:32]


def render_gitlab(report: Report, *, verbose: bool = False) -> str:
    seen: dict[str, int] = {}
    entries = [
        {
            "description": d.text,
            "check_name": d.rule,
            "fingerprint": _fingerprint(d, seen),
            "severity": SEVERITY[d.severity],
            "location": {"path": d.path, "lines": {"begin": d.span.line}},
        }
        for d in report.diagnostics
    ]
    return json.dumps(entries, indent=2, ensure_ascii=False) + "\n"
