"""SARIF 2.1.0, with everything GitHub code scanning reads (see the README's SARIF notes)."""

from __future__ import annotations

import json
import re
from urllib.parse import quote

from evallint.about import __url__, __version__
from evallint.digests import text_sha256_hex
from evallint.model import Diagnostic, Location, Report, Severity
from evallint.output.docs import rule_markdown
from evallint.rules import ALL_RULES
from evallint.rules.base import Rule

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}
PROBLEM = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "recommendation"}
LIMIT = 1024  # GitHub's limit on description texts
RESULTS = 25_000  # GitHub code scanning's limit on results per run


def help_uri(rule: Rule) -> str:
    return f"{__url__}/blob/main/RULES.md#{rule.id}"


def _clip(text: str) -> str:
    return text if len(text) <= LIMIT else text[: LIMIT - 1] + "…"


def _prose(rule: Rule) -> str:
    body = re.split(r"\n(?:Bad|Good|Given|Base) \(", "\n" + rule.description, maxsplit=1)[0]
    return _clip(f"{rule.summary} {' '.join(body.split())}".strip())


def _descriptor(rule: Rule) -> dict[str, object]:
    return {
        "id": rule.id,
        "name": "".join(part.title() for part in rule.id.split("-")),
        "shortDescription": {"text": _clip(rule.summary)},
        "fullDescription": {"text": _prose(rule)},
        "help": {"text": _prose(rule), "markdown": rule_markdown(rule)},
        "helpUri": help_uri(rule),
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {
            "tags": ["evals", *sorted(rule.kinds)],
            "precision": rule.precision,
            "problem.severity": PROBLEM[rule.severity],
        },
    }


def _location(
    path: str, line: int, column: int, end_line: int, end_column: int
) -> dict[str, object]:
    return {
        "physicalLocation": {
            "artifactLocation": {
                "uri": quote(path, safe="/", errors="surrogateescape"),
                "uriBaseId": "%SRCROOT%",
            },
            "region": {
                "startLine": line,
                "startColumn": column,
                "endLine": end_line,
                "endColumn": max(end_column, column + 1) if end_line == line else end_column,
            },
        }
    }


def _related(index: int, where: Location) -> dict[str, object]:
    s = where.span
    return {
        "id": index,
        **_location(where.path, s.line, s.column, s.end_line, s.end_column),
        "message": {"text": where.note or "related"},
    }


def _result(d: Diagnostic, index: dict[str, int], seen: dict[str, int]) -> dict[str, object]:
    s = d.span
    seen[d.fingerprint] = seen.get(d.fingerprint, 0) + 1
    result: dict[str, object] = {
        "ruleId": d.rule,
        "ruleIndex": index[d.rule],
        "level": LEVELS[d.severity],
        "message": {"text": d.text},
        "locations": [_location(d.path, s.line, s.column, s.end_line, s.end_column)],
        "partialFingerprints": {
            "primaryLocationLineHash": f"{d.fingerprint or _fallback(d)}:{seen[d.fingerprint]}"
        },
    }
    if d.related:
        result["relatedLocations"] = [_related(i, r) for i, r in enumerate(d.related, 1)]
    return result


def _fallback(d: Diagnostic) -> str:
    key = f"{d.rule}\0{d.path}\0{re.sub(r'[0-9]+', '#', d.message)}"
    return text_sha256_hex(key.encode("utf-8", "surrogateescape"))[:16]


def _within_limit(diagnostics: tuple[Diagnostic, ...]) -> tuple[Diagnostic, ...]:
    """All of them, or the worst RESULTS in their report order."""
    if len(diagnostics) <= RESULTS:
        return diagnostics
    order = sorted(range(len(diagnostics)), key=lambda i: -diagnostics[i].severity)
    return tuple(diagnostics[i] for i in sorted(order[:RESULTS]))


def render_sarif(report: Report, *, verbose: bool = False) -> str:
    index = {rule.id: i for i, rule in enumerate(ALL_RULES)}
    seen: dict[str, int] = {}
    kept = _within_limit(report.diagnostics)
    run: dict[str, object] = {
        "tool": {
            "driver": {
                "name": "evallint",
                "semanticVersion": __version__,
                "informationUri": __url__,
                "rules": [_descriptor(rule) for rule in ALL_RULES],
            }
        },
        "columnKind": "unicodeCodePoints",
        "results": [_result(d, index, seen) for d in kept],
    }
    if len(kept) < len(report.diagnostics):
        left = len(report.diagnostics) - len(kept)
        text = (
            f"{left:,} more results are not included: GitHub code scanning takes at most "
            f"{RESULTS:,} a run (the worst come first; the JSON format lists them all)"
        )
        notice = {"level": "warning", "message": {"text": text}}
        run["invocations"] = [{"executionSuccessful": True, "toolExecutionNotifications": [notice]}]
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
