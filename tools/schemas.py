"""Writes every schema under schema/: evallint's configuration here, each format's from its
package (`formats/<name>/schemas.py`); shared patterns are spelt once in
`evallint.validation.writing`.

Run: python tools/schemas.py  (the JSON files are committed; a test checks they are up to date,
so an edit without a rerun fails the suite). Facts evallint's code owns, such as the EEE
versions, are read from the package, so they are written once.
"""

from __future__ import annotations

import json
import sys
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from evallint.formats import NAMES
from evallint.kinds import RELEASES as CHECKED
from evallint.validation.writing import S


def config() -> S:
    """The configuration: the [tool.evallint] table, or .evallint.toml."""
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "urn:evallint:schema:config",
        "title": "evallint configuration",
        "description": "The [tool.evallint] table of pyproject.toml, or the whole of "
        ".evallint.toml.",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "strict": {
                "type": "boolean",
                "description": "Warnings fail the run too (exit code 1).",
            },
            "exclude": {
                "type": "array",
                "description": "Globs of paths never checked, relative to the project root.",
                "items": {"type": "string"},
            },
            "kinds": {
                "type": "object",
                "description": "Kind name to the globs of files of that kind; wins "
                "over every other evidence.",
                "additionalProperties": {"type": "array", "items": {"type": "string"}},
            },
            "rules": {
                "type": "object",
                "description": "Rule id to its severity, or off.",
                "additionalProperties": {"enum": ["error", "warning", "note", "off"]},
            },
            "select": {
                "type": "array",
                "description": "Only these rules run (parse-error always does).",
                "items": {"type": "string"},
            },
            "ignore": {
                "type": "array",
                "description": "These rules do not run.",
                "items": {"type": "string"},
            },
            "skip-folders": {
                "type": "array",
                "description": "Folder names a walk outside git never enters (default: "
                "node_modules, __pycache__, .tox, build, dist, venv, site-packages); hidden "
                "folders and virtual environments are never walked.",
                "items": {"type": "string"},
            },
            "share-items": {
                "type": "array",
                "description": "Globs of datasets allowed to share items with other datasets "
                "(shared-item): a regression suite that repeats questions on purpose.",
                "items": {"type": "string"},
            },
            "per-file-ignores": {
                "type": "object",
                "description": "Glob of paths to the rule ids not reported in those files.",
                "additionalProperties": {"type": "array", "items": {"type": "string"}},
            },
            "max-file-size": {
                "type": "integer",
                "description": "Largest file read, in bytes; a larger eval file is a parse-error.",
                "minimum": 1,
            },
            "max-repeats": {
                "type": "integer",
                "description": "Identical problems (same rule, same message) "
                "printed per file in the text output and "
                "annotations before the rest are only counted; "
                "0 prints them all. JSON and SARIF always "
                "carry every finding.",
                "minimum": 0,
            },
            "template-variables": {
                "type": "array",
                "description": "Variables a judge template may use; "
                "replaces the default input, output, "
                "expected, context.",
                "items": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_.]*$"},
            },
            "validation-max-age-days": {
                "type": "integer",
                "description": "Days after "
                "validation.validated_at before a "
                "judge's TPR/TNR figures count as "
                "stale.",
                "minimum": 1,
            },
            "non-score-fields": {
                "type": "object",
                "description": "Kind (rubric, judge, dataset) to more "
                "fields that cannot change a score, for "
                "the version rules.",
                "additionalProperties": {"type": "array", "items": {"type": "string"}},
            },
            "eee-version": {
                "description": "Validate every Every Eval Ever record against "
                "this schema version instead of the one it "
                "declares, to see what an upgrade would break.",
                "enum": list(CHECKED),
            },
            "agentv-version": {
                "description": "The AgentV release the project runs its v4 suites on "
                "(default 4.42.4, npm's latest): keys a later release removed are not "
                "held against an earlier one.",
                "type": "string",
                "pattern": "^[0-9]+\\.[0-9]+(\\.[0-9]+)?$",
            },
        },
    }


def render(schema: S) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def all_schemas() -> dict[str, Any]:
    """Schema name (its path under schema/, without .schema.json) to its builder: evallint's
    own configuration, and each format's (`formats/<name>/schemas.py`, `SCHEMAS`)."""
    out: dict[str, Any] = {"config": config}
    for name in NAMES:
        if find_spec(f"evallint.formats.{name}.schemas") is not None:
            out.update(import_module(f"evallint.formats.{name}.schemas").SCHEMAS)
    return out


def main() -> int:
    out = Path(__file__).resolve().parent.parent / "schema"
    for name, build in all_schemas().items():
        target = out / f"{name}.schema.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render(build()), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
