"""Every Eval Ever aggregate records: version dispatch, and upstream's verdict on the corpus."""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import found, shared_or_skip
from evallint.config import Config
from evallint.formats.eee.kinds import CHECKED

Run = Callable[..., tuple[int, str, str]]
Tree = Callable[[dict[str, str | bytes]], Path]

RECORD_PATH = "data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json"

# The smallest record 0.2.0 accepts; 0.2.1 and later require more.
MINIMAL_0_2_0 = {
    "schema_version": "0.2.0",
    "evaluation_id": "e",
    "retrieved_timestamp": "1",
    "source_metadata": {
        "source_type": "documentation",
        "source_organization_name": "o",
        "evaluator_relationship": "third_party",
    },
    "model_info": {"name": "m", "id": "acme/m"},
    "evaluation_results": [],
}


def test_unknown_and_missing_versions() -> None:
    text = '{\n  "schema_version": "0.9.9",\n  "evaluation_results": []\n}\n'
    assert found(RECORD_PATH, text) == [
        (
            2,
            21,
            "eee-schema-version",
            "no EEE release has schema_version '0.9.9'; known: "
            "0.0.1, 0.1.0, 0.2.0, 0.2.1, 0.2.2, 0.2.3, 0.3.0",
        )
    ]
    assert found(RECORD_PATH, '{"schema_version": 2, "evaluation_results": []}')[0][2:] == (
        "eee-schema-version",
        "schema_version must be a string naming a release: 0.0.1, 0.1.0, "
        "0.2.0, 0.2.1, 0.2.2, 0.2.3, 0.3.0",
    )


def test_each_record_is_checked_against_its_declared_version() -> None:
    record = MINIMAL_0_2_0
    assert found(RECORD_PATH, json.dumps(record, indent=1)) == []
    newer = {**record, "schema_version": "0.2.1"}  # 0.2.1 requires eval_library
    assert [f[3] for f in found(RECORD_PATH, json.dumps(newer, indent=1))] == [
        "missing required key 'eval_library'"
    ]


def test_same_verdict_as_upstream_on_every_checked_record() -> None:
    root = shared_or_skip("corpus", "eee")
    from evallint.validation.schemas import load_schema

    ours = {v: jsonschema.Draft7Validator(load_schema(f"eee/eval_{v}")) for v in CHECKED}
    upstream = {
        v: jsonschema.Draft7Validator(
            json.loads((root / "schema" / f"eval.schema.{v}.json").read_text())
        )
        for v in CHECKED
    }
    compared = 0
    with open(root / "MANIFEST.tsv", encoding="utf-8") as manifest:
        for row in csv.reader(manifest, delimiter="\t"):
            if len(row) < 3 or row[1] != "aggregate" or row[2] not in CHECKED:
                continue
            data = json.loads((root / row[0]).read_text(encoding="utf-8"))
            assert ours[row[2]].is_valid(data) == upstream[row[2]].is_valid(data), row[0]
            compared += 1
    assert compared >= 6400


def test_the_v0_2_0_datastore_has_no_errors() -> None:
    root = shared_or_skip("corpus", "eee", "datastore-v0.2.0")
    from conftest import DictSource, walk_files
    from evallint.config import Config
    from evallint.engine.run import lint

    files = {p.relative_to(root).as_posix(): p.read_bytes() for p in walk_files(root)}
    report = lint(sorted(files), DictSource(files), Config(), tree=sorted(files))
    assert report.files_checked == 5320
    assert [d for d in report.diagnostics if d.severity.label == "error"] == []
    counts: dict[str, int] = {}
    for d in report.diagnostics:
        counts[d.rule] = counts.get(d.rule, 0) + 1
    # The EEE notes count 79 evaluation_ids shared by 165 files, and 166 scores out of bounds.
    assert counts["eee-duplicate-evaluation-id"] == 165
    assert counts["eee-score-range"] == 166


SAMPLE = {
    "schema_version": "instance_level_eval_0.2.2",
    "evaluation_id": "e",
    "model_id": "m",
    "evaluation_name": "n",
    "sample_id": "1",
    "interaction_type": "single_turn",
    "input": {"raw": "2+2?", "reference": ["4"]},
    "output": {"raw": ["4"]},
    "answer_attribution": [],
    "evaluation": {"score": 1, "is_correct": True},
}


def test_instance_records_are_checked_line_by_line() -> None:
    bad = {
        **SAMPLE,
        "sample_id": 7,
        "evaluation": {"score": 1},
        "input": {"raw": "2+3?", "reference": ["5"]},
    }
    text = "\n".join(json.dumps(r) for r in (SAMPLE, bad, {**SAMPLE, "schema_version": "0.3.0"}))
    assert found("data/records.jsonl", text + "\n") == [
        (2, 125, "schema-violation", "expected string, got integer 7"),
        (2, 261, "schema-violation", "missing required key 'is_correct'"),
    ]


def test_identical_problems_are_capped_per_file_and_counted() -> None:
    bad = json.dumps({**SAMPLE, "interaction_type": "single"})
    got = found("data/records.jsonl", "\n".join([bad] * 25) + "\n")
    message = "'single' is not one of 'single_turn', 'multi_turn', 'agentic'"
    assert [g[:3] for g in got] == [(n, 150, "schema-violation") for n in range(1, 11)]
    assert [g[3] for g in got] == [message] * 9 + [
        f"{message} (15 more like this in this file not shown)"
    ]
    everything = found("data/records.jsonl", "\n".join([bad] * 25) + "\n", Config(max_repeats=0))
    assert len(everything) == 25


def test_unknown_instance_versions_are_capped() -> None:
    lines = [json.dumps({**SAMPLE, "schema_version": "9"}) for _ in range(25)]
    got = found("data/records.jsonl", "\n".join(lines) + "\n")
    assert [g[:3] for g in got] == [(n, 20, "eee-schema-version") for n in range(1, 11)]
    assert got[-1][3].endswith("0.3.0 (15 more like this in this file not shown)")


def test_same_verdict_as_upstream_on_every_instance_record() -> None:
    root = shared_or_skip("corpus", "eee")
    from evallint.formats.eee.kinds import INSTANCE_VERSIONS
    from evallint.validation.schemas import load_schema

    compared = 0
    for version in INSTANCE_VERSIONS:
        ours = jsonschema.Draft7Validator(load_schema(f"eee/instance_{version}"))
        theirs = jsonschema.Draft7Validator(
            json.loads((root / "schema" / f"instance_level_eval.schema.{version}.json").read_text())
        )
        for path in root.rglob("*.jsonl"):
            if not path.is_file():
                continue
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    record = json.loads(line)
                    assert ours.is_valid(record) == theirs.is_valid(record), (path, version)
                    compared += 1
    assert compared >= 100


DEMO = "fixtures/tests/data/skill_reference_conversion"


def _demo() -> dict[str, str]:
    root = shared_or_skip("corpus", "eee") / DEMO
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in root.rglob("*")
        if p.is_file()
    }


def _report(files: dict[str, str]) -> list[tuple[str, int, int, str, str]]:
    from conftest import lint_files

    return [
        (d.path.rsplit("/", 1)[-1], d.span.line, d.span.column, d.rule, d.message)
        for d in lint_files(files)
    ]


def test_the_canonical_demo_pair_is_clean() -> None:
    assert _report(_demo()) == []


def test_companion_checksum_rows_and_ids() -> None:
    files = _demo()
    aggregate = next(p for p in files if p.endswith(".json"))
    samples = next(p for p in files if p.endswith(".jsonl"))
    files[samples] = (
        files[samples].replace('"model_id": "demo-org/demo-model"', '"model_id": "demo-org/other"')
        + "\n"
        + files[samples]
        .replace('"demo_0001"', '"demo_0002"')
        .replace('"formatted": "Q: What', '"formatted": "Q: So what')
    )
    got = _report(files)
    name = aggregate.rsplit("/", 1)[-1]
    assert [(g[0], g[3]) for g in got] == [
        (name, "eee-checksum"),
        (name, "eee-total-rows"),
        (samples.rsplit("/", 1)[-1], "eee-instance-ids"),
    ]
    assert got[1][4] == "the companion file has 2 records, not 1"
    assert got[2][1:3] == (1, 104) and got[2][4] == (
        f"model_id is 'demo-org/other'; the aggregate {aggregate} says 'demo-org/demo-model'"
    )


def test_missing_companion_and_orphan_instance_files() -> None:
    files = _demo()
    aggregate = next(p for p in files if p.endswith(".json"))
    samples = files.pop(next(p for p in files if p.endswith(".jsonl")))
    got = _report(files)
    assert [g[3] for g in got] == ["eee-companion"]
    assert got[0][4].startswith(
        "'data/demo-source/demo-org/demo-model/f3a1c0de-4b2e-4c1a-"
        "9f6d-1b7e5a2c8d40_samples.jsonl' does not exist"
    )
    orphan = {aggregate.replace(".json", "-2_samples.jsonl"): samples}
    assert [g[3:] for g in _report({**files, **orphan})][-1][0] == "eee-companion"


def test_legacy_sample_hash_recipes_are_named() -> None:
    root = shared_or_skip("corpus", "eee", "fixtures", "None", "mmlu")
    [path] = [p for p in root.rglob("*.jsonl")]
    got = [
        g for g in _report({"mmlu/records.jsonl": path.read_text()}) if g[3] == "eee-sample-hash"
    ]
    assert got and got[0][4].endswith("it matches the inspect (raw + references) recipe")


def test_a_canonical_sample_hash_computes_no_legacy_recipe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The canonical recipe is tried first; the three legacy ones only on a mismatch (they
    cost a record more than its whole check)."""
    from evallint.formats.eee import rules_records as eee_rules

    def refuse(record: object) -> dict[str, str]:
        raise AssertionError("the legacy recipes were computed for a canonical hash")

    monkeypatch.setattr(eee_rules, "sample_hashes", refuse)
    text = json.dumps(SAMPLE["input"], sort_keys=True, separators=(",", ":"))
    record = {**SAMPLE, "sample_hash": hashlib.sha256(text.encode()).hexdigest()}
    got = found("data/records.jsonl", json.dumps(record) + "\n")
    assert [g for g in got if g[2] == "eee-sample-hash"] == []


def test_eee_version_shows_what_an_upgrade_would_break(run: Run, tree: Tree) -> None:
    record = MINIMAL_0_2_0
    root = tree({RECORD_PATH: json.dumps(record)})
    code, out, _ = run("check", cwd=root)
    assert code == 0
    code, out, _ = run("check", "--eee-version", "0.3.0", cwd=root)
    assert code == 1
    assert "missing required key 'eval_library'" in out
    assert "missing required key 'additional_details'" in out


def test_envelope_versions_resolve_against_the_rubrics_and_judges() -> None:
    from conftest import lint_files

    rubric = (
        'id: tone\nversion: "1.2.0"\nchecks: [{kind: php_lint, id: lint}]\n'
        "scoring: {combine: all_pass}\n"
    )
    details = {
        "rubric_versions": json.dumps({"tone": "1.2.0", "gone": "1.0.0"}),
        "judge": "judge/accuracy@1",
        "rubric": "rubric/tone@2",
    }
    record = {
        "schema_version": "0.2.1",
        "evaluation_id": "e",
        "retrieved_timestamp": "1",
        "source_metadata": {
            "source_type": "evaluation_run",
            "source_organization_name": "o",
            "evaluator_relationship": "first_party",
        },
        "model_info": {"name": "m", "id": "acme/m"},
        "evaluation_results": [],
        "eval_library": {"name": "ai_eval", "version": "1", "additional_details": details},
    }
    files = {"rubrics/tone.yaml": rubric, RECORD_PATH: json.dumps(record, indent=1)}
    got = [(d.span.line, d.rule, d.message) for d in lint_files(files) if d.path == RECORD_PATH]
    assert got == [
        (
            19,
            "eee-envelope-ref",
            "the record names 'rubric/gone@1.0.0', but no rubric 'gone' "
            "is defined in this repository",
        ),
        (
            20,
            "eee-envelope-ref",
            "the record names 'judge/accuracy@1', but no judge "
            "'accuracy' is defined in this repository",
        ),
        (
            21,
            "eee-envelope-ref",
            "the record names 'rubric/tone@2', but rubric 'tone' has only 1.2.0",
        ),
    ]
    # Without ai_eval files in the repository, nothing is checked.
    assert [
        d for d in lint_files({RECORD_PATH: json.dumps(record)}) if d.rule == "eee-envelope-ref"
    ] == []


def _result(score: float, high: float) -> dict[str, object]:
    return {
        "evaluation_name": f"n{high}",
        "source_data": {"dataset_name": "d", "source_type": "other"},
        "metric_config": {
            "lower_is_better": False,
            "score_type": "continuous",
            "min_score": 0,
            "max_score": high,
        },
        "score_details": {"score": score},
    }


def test_out_of_range_scores_with_different_bounds_are_capped_as_one_kind() -> None:
    """HELM writes -1.0 for a missing score under metrics of every maximum: the messages differ
    in their bounds but tell of one problem, so a file gives the cap and a count, not a flood."""
    record = {**MINIMAL_0_2_0, "evaluation_results": [_result(-1.0, i + 1) for i in range(14)]}
    text = json.dumps(record, indent=1)
    got = found(RECORD_PATH, text, config=Config(max_repeats=3))
    assert [(line, col, rule) for line, col, rule, _ in got] == [
        (28, 14, "eee-score-range"),
        (44, 14, "eee-score-range"),
        (60, 14, "eee-score-range"),
    ]
    assert got[-1][3] == "score -1.0 is outside 0 to 3 (11 more like this in this file not shown)"


def test_the_developer_folder_may_differ_from_the_model_id_in_letter_case_only() -> None:
    path = "data/bench/Alibaba/qwen/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json"
    same = {**MINIMAL_0_2_0, "model_info": {"name": "m", "id": "alibaba/qwen"}}
    assert found(path, json.dumps(same)) == []
    other = {**MINIMAL_0_2_0, "model_info": {"name": "m", "id": "qwen/qwen"}}
    assert found(path, json.dumps(other, indent=1)) == [
        (12, 9, "eee-layout", "the developer folder is 'Alibaba', but model_info.id says 'qwen'")
    ]


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(_JSON_VALUES)
def test_the_canonical_text_is_what_json_dumps_writes(value: object) -> None:
    """The sample hash's text comes from the C encoder made once; it must be `json.dumps`'s
    text for any JSON value, or a canonical hash would be called wrong."""
    import json

    from evallint.formats.eee.rules_records import _canonical_json

    assert _canonical_json()(value) == json.dumps(value, sort_keys=True, separators=(",", ":"))


@given(st.one_of(st.text(), _JSON_VALUES), st.one_of(st.lists(st.text(), max_size=4), _JSON_VALUES))
def test_an_inputs_canonical_text_is_what_json_dumps_writes(raw: object, reference: object) -> None:
    """A string and a list of strings are written directly, any other input by the encoder:
    both as `json.dumps` writes the input."""
    import json

    from evallint.formats.eee.rules_records import input_text

    value = {"raw": raw, "reference": reference}
    assert input_text(raw, reference) == json.dumps(value, sort_keys=True, separators=(",", ":"))
