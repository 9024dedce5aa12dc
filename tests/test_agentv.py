"""AgentV / agentevals suites: dialect detection, rules at exact positions, and the real corpus."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from conftest import DictSource, found, shared_or_skip, walk_files
from evallint.config import Config
from evallint.engine import lint
from evallint.formats.agentv import dialect

# Which upstream schema speaks for each dialect (../shared/corpus/agentv/schema).
UPSTREAM = {
    "agentv-v2": "agentv@v0.10.0/eval-schema.json",
    "agentevals": "agentevals-spec@73a98c1/eval.schema.json",
    "agentv-v4": "agentv@v4.42.4/eval-schema.json",
    "agentv-next": "agentv@58f316c/eval.schema.json",
}


@pytest.mark.parametrize(
    ("path", "data", "expected"),
    [
        ("a/dataset.yaml", {"$schema": "agentv-eval-v2", "evalcases": []}, "agentv-v2"),
        ("a/x.yaml", {"evalcases": [{"id": "a", "outcome": "o"}]}, "agentv-v2"),
        ("a/EVAL.yaml", {"name": "n", "evalcases": []}, "agentevals"),
        ("a/x.yaml", {"evalcases": [{"id": "a", "expected_outcome": "o"}]}, "agentevals"),
        ("a/basic.eval.yaml", {"tests": [{"id": "a"}]}, "agentv-v4"),
        ("a/suite.yml", {"description": "only"}, "agentv-v4"),
        ("a/x.yaml", {"tests": [{"id": "a", "criteria": "c"}]}, "agentv-v4"),
        ("a/Foo.EVAL.YAML", {"tests": [{"vars": {}, "assert": []}]}, "agentv-next"),
        ("a/x.yaml", {"prompts": ["{{ input }}"], "tests": []}, "agentv-next"),
        ("a/promptfooconfig.yaml", {"tests": [{"vars": {}, "assert": []}]}, None),
        ("a/x.yaml", {"tests": [{"name": "unit"}]}, None),
        ("a/eval.yaml", ["not", "a", "suite"], None),
    ],
)
def test_dialect_detection_table(path: str, data: Any, expected: str | None) -> None:
    assert dialect(path, data) == expected


def test_upstream_v4_schema_has_the_draft_04_exclusive_minimum_defect() -> None:
    """The v4.42.4 schema declares 2019-09 but writes `exclusiveMinimum: true` (draft-04 style),
    so a standards-compliant validator rejects `budget_usd: 1`; our schema does not copy it."""
    root = shared_or_skip("corpus", "agentv", "schema")
    text = (root / UPSTREAM["agentv-v4"]).read_text()
    assert '"exclusiveMinimum": true' in text
    suite = "tests:\n  - id: a\n    criteria: c\nexecution:\n  budget_usd: 1\n"
    assert found("evals/a.eval.yaml", suite) == []


def _corpus_files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in walk_files(root)}


def test_agentv_corpus_conformance() -> None:
    root = shared_or_skip("corpus", "agentv")
    files = _corpus_files(root)
    suites = {p: b for p, b in files.items() if p.endswith((".yaml", ".yml"))}
    report = lint(sorted(suites), DictSource(files), Config(), tree=sorted(files))
    assert not [d for d in report.diagnostics if d.rule == "parse-error"]
    schema_problems: dict[str, list[str]] = {}
    for d in report.diagnostics:
        if d.rule in ("schema-violation", "unknown-key"):
            schema_problems.setdefault(d.path, []).append(d.message)
    checked = 0
    for path, raw in suites.items():
        data = yaml.safe_load(raw)
        found_dialect = dialect(path, data)
        if found_dialect is None:
            continue
        checked += 1
        upstream = json.loads((root / "schema" / UPSTREAM[found_dialect]).read_text())
        # The spec writes its draft-07 URI with https, which jsonschema does not recognise.
        draft = (
            jsonschema.Draft201909Validator
            if "2019-09" in upstream.get("$schema", "")
            else jsonschema.Draft7Validator
        )
        upstream_ok = draft(upstream).is_valid(data)
        if upstream_ok:
            assert path not in schema_problems, (path, schema_problems[path])
    assert checked >= 270


def test_agentv_corpus_every_file_is_classified_or_skipped_with_a_reason() -> None:
    root = shared_or_skip("corpus", "agentv")
    files = _corpus_files(root)
    report = lint(sorted(files), DictSource(files), Config(), tree=sorted(files))
    skipped = {s.split(": ", 1)[0] for s in report.skipped}
    assert report.files_checked + len(skipped) == len(files)
    assert all(": " in s for s in report.skipped)
