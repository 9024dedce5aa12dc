"""Each ai_eval rule, in YAML and JSON: clean documents and each violation at its exact place."""

from __future__ import annotations

import json

import pytest

import conftest
from conftest import spans

RUBRIC = """\
id: tone
version: "1.0.0"
checks:
  - kind: must_contain_any
    id: polite
    values: [please]
scoring:
  combine: all_pass
"""

JUDGE = """\
id: accuracy
version: "2.1.0"
score_type: binary
template: |
  Grade {{ output }} against {{ expected }}.
validation:
  tpr: 0.9
  validated_at: 2026-10-30
"""

DATASET = """\
questions:
  - id: q1
    input: "How long do refunds take?"
    expected_facts: ["within 30 days"]
    rubric_ref: rubric/tone@1
"""


def found(path: str, text: str | bytes) -> list[tuple[int, int, str, str]]:
    """Findings for one file, linted beside the rubric the dataset fixtures refer to."""
    return conftest.found(path, text, given={"rubrics/tone.yaml": RUBRIC})


def test_clean_documents_have_no_findings() -> None:
    assert found("rubrics/tone.yaml", RUBRIC) == []
    assert found("judges/accuracy.yaml", JUDGE) == []
    assert found("datasets/refunds.yaml", DATASET) == []


def test_seed_reproduction_expecteed_facts() -> None:
    """The ai_eval issue's motivating typo, reported at its line with the suggestion."""
    text = DATASET.replace("expected_facts", "expecteed_facts")
    assert found("datasets/refunds.yaml", text) == [
        (4, 5, "key-typo", "unknown key 'expecteed_facts'; did you mean 'expected_facts'?")
    ]
    assert spans("datasets/refunds.yaml", text, {"rubrics/tone.yaml": RUBRIC}) == [
        (4, 5, 4, 20, "key-typo")
    ]


def test_expected_tool_typo() -> None:
    text = DATASET + "    expected_tool:\n      - {tool: search}\n"
    assert found("datasets/refunds.yaml", text) == [
        (6, 5, "key-typo", "unknown key 'expected_tool'; did you mean 'expected_tools'?")
    ]


def test_far_unknown_keys_are_extensions() -> None:
    text = DATASET + "    privacy_tier: internal\n"
    assert found("datasets/refunds.yaml", text) == []


def test_missing_required_key_points_at_the_object() -> None:
    text = "questions:\n  - id: q1\n    criteria: c\n"
    assert found("datasets/a.yaml", text) == [
        (2, 5, "schema-violation", "missing required key 'input'")
    ]
    assert found("rubrics/tone.yaml", "id: tone\nversion: '1.0.0'\nchecks: []\n") == [
        (1, 1, "schema-violation", "missing required key 'scoring'"),
        (3, 9, "schema-violation", "must not be empty"),
    ]


def test_missing_key_in_a_nested_mapping_points_at_its_key() -> None:
    text = RUBRIC.replace("  combine: all_pass\n", "  threshold: 0.5\n")
    assert found("rubrics/tone.yaml", text) == [
        (7, 1, "schema-violation", "missing required key 'combine'")
    ]


def test_enum_with_suggestion() -> None:
    text = RUBRIC.replace("all_pass", "weighted")
    assert found("rubrics/tone.yaml", text) == [
        (
            8,
            12,
            "schema-violation",
            "'weighted' is not one of 'all_pass', 'any_pass', 'weighted_avg', 'min', 'max', "
            "'median'; did you mean 'weighted_avg'?",
        )
    ]


def test_pattern_messages_name_what_was_expected() -> None:
    text = RUBRIC.replace("id: tone", "id: Tone").replace('"1.0.0"', '"1.0"')
    assert found("rubrics/tone.yaml", text) == [
        (1, 5, "schema-violation", "'Tone' is not a snake_case id"),
        (
            2,
            10,
            "schema-violation",
            "'1.0' is not a semantic version such as 1.2.0",
        ),
    ]
    bad_ref = DATASET.replace("rubric/tone@1", "rubric/tone@v1")
    assert found("datasets/refunds.yaml", bad_ref) == [
        (
            5,
            17,
            "schema-violation",
            "'rubric/tone@v1' is not a rubric reference rubric/<id> with an optional @MAJOR, "
            "@MAJOR.MINOR or @MAJOR.MINOR.PATCH pin",
        )
    ]


def test_every_pin_form_is_accepted_by_the_schema() -> None:
    def schema_rules(text: str) -> list[object]:
        return [f[2] for f in found("datasets/refunds.yaml", text) if f[2] == "schema-violation"]

    for pin in ("", "@1", "@1.2", "@1.2.3", "@1.2.3-rc.1", "@0.0.1+build.5"):
        assert schema_rules(DATASET.replace("rubric/tone@1", f"rubric/tone{pin}")) == [], pin
    for pin in ("@1.2-rc.1", "@01", "@1.2.3.4", "@"):
        text = DATASET.replace("rubric/tone@1", f"rubric/tone{pin}")
        assert schema_rules(text) == ["schema-violation"], pin


def test_check_kinds_require_their_fields() -> None:
    checks = {
        "must_contain_any": "missing required key 'values'",
        "must_not_contain": "missing required key 'values'",
        "regex": "missing required key 'pattern'",
        "json_schema": "needs one of 'schema', 'schema_ref'",
        "markdown_structure": "needs one of 'min_headings', 'max_heading_level', "
        "'required_sections', 'forbidden_patterns', 'min_code_blocks', 'min_paragraphs', "
        "'no_h1'",
        "tool_usage": "missing required key 'expected_tools'",
        "format": "missing required key 'format'",
        "llm_judge": "missing required key 'judge_prompt_ref'",
        "composite": "missing required key 'rubric_ref'",
    }
    for kind, message in checks.items():
        text = (
            f"id: r\nversion: '1.0.0'\nchecks:\n  - kind: {kind}\n    id: c\n"
            "scoring: {combine: all_pass}\n"
        )
        assert found("rubrics/r.yaml", text) == [(4, 5, "schema-violation", message)], kind
    for kind in ("php_lint", "fact_match"):
        text = (
            f"id: r\nversion: '1.0.0'\nchecks: [{{kind: {kind}, id: c}}]\n"
            "scoring: {combine: all_pass}\n"
        )
        assert found("rubrics/r.yaml", text) == [], kind


def test_check_field_types() -> None:
    text = RUBRIC.replace("values: [please]", "values: []\n    weight: -1\n    case_sensitive: 1")
    assert found("rubrics/tone.yaml", text) == [
        (6, 13, "schema-violation", "must not be empty"),
        (
            7,
            5,
            "weight-ignored",
            "weight has no effect: scoring.combine is 'all_pass', not 'weighted_avg'",
        ),
        (7, 13, "schema-violation", "-1 is less than the minimum 0"),
        (8, 21, "schema-violation", "expected boolean, got integer 1"),
    ]


def test_key_typo_inside_a_kind_specific_check() -> None:
    text = RUBRIC.replace("values: [please]", "vaules: [please]")
    # One slip, one finding: the required key it leaves missing is said there, not again.
    assert found("rubrics/tone.yaml", text) == [
        (
            6,
            5,
            "key-typo",
            "unknown key 'vaules'; did you mean 'values'? (so the required 'values' is missing)",
        ),
    ]


def test_unknown_key_in_closed_objects() -> None:
    text = RUBRIC.replace(
        "  combine: all_pass\n", "  combine: all_pass\n  treshold: 0.7\n  extra: 1\n"
    )
    assert found("rubrics/tone.yaml", text) == [
        (9, 3, "unknown-key", "unknown key 'treshold'; did you mean 'threshold'?"),
        (10, 3, "unknown-key", "unknown key 'extra'; expected one of 'combine', 'threshold'"),
    ]
    judge = JUDGE.replace("  tpr: 0.9", "  tpr: 0.9\n  tnr_rate: 0.8")
    assert found("judges/accuracy.yaml", judge)[0][:3] == (8, 3, "unknown-key")


def test_unknown_check_kind() -> None:
    text = RUBRIC.replace("kind: must_contain_any", "kind: must_contain")
    assert found("rubrics/tone.yaml", text) == [
        (
            4,
            11,
            "unknown-check-kind",
            "unknown check kind 'must_contain'; did you mean 'must_contain_any'?",
        )
    ]
    custom = RUBRIC.replace("kind: must_contain_any", "kind: toxicity_classifier")
    assert found("rubrics/tone.yaml", custom) == [
        (
            4,
            11,
            "unknown-check-kind",
            "unknown check kind 'toxicity_classifier' (no built-in executor runs it)",
        )
    ]


def test_yaml_implicit_types() -> None:
    text = JUDGE.replace('"2.1.0"', "1.10")
    assert found("judges/accuracy.yaml", text) == [
        (
            2,
            10,
            "yaml-implicit-type",
            '1.10 is read by YAML as the number 1.1, not as text; write it as text: "1.10.0"',
        )
    ]
    text = DATASET.replace('"How long do refunds take?"', "no").replace("id: q1", "id: 12")
    assert found("datasets/refunds.yaml", text) == [
        (
            2,
            9,
            "yaml-implicit-type",
            '12 is read by YAML as the integer 12, not as text; quote it: "12"',
        ),
        (
            3,
            12,
            "yaml-implicit-type",
            'no is read by YAML as the boolean false, not as text; quote it: "no"',
        ),
    ]
    text = DATASET.replace('"How long do refunds take?"', "NULL")
    assert found("datasets/refunds.yaml", text) == [
        (3, 12, "yaml-implicit-type", 'NULL is read by YAML as null, not as text; quote it: "NULL"')
    ]


@pytest.mark.parametrize("missing", ["", " ~"])
def test_a_missing_value_is_not_a_text_to_quote(missing: str) -> None:
    """`input:` with nothing after it, or a tilde, is a missing value, not a word YAML typed:
    no quoting is offered (`--fix` once wrote `input:""`, a line that no longer parses)."""
    text = DATASET.replace(' "How long do refunds take?"', missing)
    assert found("datasets/refunds.yaml", text) == [
        (3, 11 if not missing else 12, "schema-violation", "expected string, got null")
    ]


def test_quoted_values_are_not_traps_and_dates_stay_text() -> None:
    assert found("judges/accuracy.yaml", JUDGE) == []  # validated_at: 2026-10-30 unquoted
    text = JUDGE.replace('"2.1.0"', "'1.10'")
    assert [f[2] for f in found("judges/accuracy.yaml", text)] == ["schema-violation"]


def test_judge_levels_need_level_names() -> None:
    text = JUDGE.replace("binary", "levels")
    assert found("judges/accuracy.yaml", text) == [
        (1, 1, "schema-violation", "missing required key 'level_names'")
    ]


def test_judge_validation_ranges() -> None:
    text = JUDGE.replace("tpr: 0.9", "tpr: 1.5").replace("2026-10-30", "2026-13-01")
    assert found("judges/accuracy.yaml", text) == [
        (7, 8, "schema-violation", "1.5 is more than the maximum 1"),
        (8, 17, "schema-violation", "'2026-13-01' is not a date as YYYY-MM-DD"),
    ]


def test_duplicate_keys_in_each_format() -> None:
    assert found("rubrics/tone.yaml", RUBRIC + "id: other\n")[0] == (
        9,
        1,
        "duplicate-key",
        "duplicate key 'id' (first on line 1)",
    )
    doc = json.dumps({"questions": [{"id": "q", "input": "i"}]})[:-1] + ', "questions": []}'
    assert found("datasets/d.json", doc)[0][2:] == (
        "duplicate-key",
        "duplicate key 'questions' (first on line 1): json loaders keep only this last value",
    )


def test_json_documents_get_the_same_rules() -> None:
    text = (
        '{\r\n\t"questions": [\r\n\t\t{"id": "q1", "input": "x", "expecteed_facts": []}'
        "\r\n\t]\r\n}\r\n"
    )
    assert found("datasets/d.json", text) == [
        (3, 30, "key-typo", "unknown key 'expecteed_facts'; did you mean 'expected_facts'?")
    ]
    assert found("datasets/d.json", '{"questions": [{"id": 1, "input": "x"}]}') == [
        (1, 23, "schema-violation", "expected string, got integer 1")
    ]


def test_parse_errors_are_reported_for_files_of_a_known_kind() -> None:
    assert found("rubrics/tone.yaml", "id: [\n") == [
        (
            2,
            1,
            "parse-error",
            "invalid YAML: while parsing a flow node: did not find expected node content",
        )
    ]
    assert found("rubrics/tone.yaml", b"id: \xff\n") == [
        (1, 5, "parse-error", "not valid UTF-8: byte 0xff at offset 4")
    ]


def test_unclassified_unreadable_files_are_skipped_silently() -> None:
    assert found("deploy/chart.yaml", "a: {{ .Values.x }}\n") == []
    assert found("notes/random.yaml", "a: 1\n") == []


def test_classification_evidence() -> None:
    # A modeline wins over the path; a folder is evidence, and content decides: a dataset kept
    # under judges/ is a dataset (its keys are no judge's).
    modeline = "# yaml-language-server: $schema=../schema/judge.schema.json\n" + RUBRIC
    assert (
        next(f[3] for f in found("rubrics/x.yaml", modeline)) == "missing required key 'template'"
    )
    as_schema_key = '{"$schema": "urn:evallint:schema:dataset", "questions": []}'
    assert found("x.json", as_schema_key) == [(1, 57, "schema-violation", "must not be empty")]
    assert found("anywhere/tone.yaml", RUBRIC.replace("checks:", "checks:")) == []
    assert found("judges/tone.yaml", "questions: []\n")[0][2:] == (
        "schema-violation",
        "must not be empty",
    )
    assert "missing required key 'template'" in [f[3] for f in found("judges/tone.yaml", "id: t\n")]


def test_inline_suppression() -> None:
    line = '    expecteed_facts: ["within 30 days"]'
    typo = DATASET.replace('    expected_facts: ["within 30 days"]', line)
    assert [f[2] for f in found("datasets/refunds.yaml", typo)] == ["key-typo"]
    same_line = typo.replace(line, line + "  # evallint: ignore[key-typo]")
    assert found("datasets/refunds.yaml", same_line) == []
    above = typo.replace(line, "    # evallint: ignore\n" + line)
    assert found("datasets/refunds.yaml", above) == []
    other = typo.replace(line, line + "  # evallint: ignore[unknown-key, schema-violation]")
    assert [f[2:] for f in found("datasets/refunds.yaml", other)] == [
        ("key-typo", "unknown key 'expecteed_facts'; did you mean 'expected_facts'?"),
        (
            "unused-suppression",
            "'unknown-key' is silenced here, but reports nothing on the lines this comment covers",
        ),
        (
            "unused-suppression",
            "'schema-violation' is silenced here, but reports nothing on the lines this "
            "comment covers",
        ),
    ]
    assert [f[2] for f in found("rubrics/tone.yaml", "id: [  # evallint: ignore\n")] == [
        "parse-error"
    ]


def test_a_key_close_to_one_the_object_already_holds_is_not_a_typo() -> None:
    """agent-module-documentation cases hold `difficulty` and `difficulty_note` side by side."""
    text = DATASET.replace("    rubric_ref:", "    expected_fact: x\n    rubric_ref:")
    assert found("datasets/refunds.yaml", text) == []  # expected_facts is on line 4
    alone = DATASET.replace("expected_facts", "expected_fact")
    assert found("datasets/refunds.yaml", alone) == [
        (4, 5, "key-typo", "unknown key 'expected_fact'; did you mean 'expected_facts'?")
    ]


BLOCK_JUDGE = (
    'id: j\nversion: "1.0.0"\ntemplate: |\n  Rate from 0 to 1.\n'
    "  Question: {{ input }}\n  Reply: {{ output }}\n"
)


@pytest.mark.parametrize(
    ("head", "at"),
    [
        (BLOCK_JUDGE.replace("Reply:", "Answer:"), (6, 3, 6, 23)),
        (BLOCK_JUDGE + "  Say why.\n", (7, 3, 7, 11)),
        (BLOCK_JUDGE.replace("Rate from 0", "Rate from 1"), (4, 3, 4, 20)),
    ],
)
def test_a_changed_block_scalar_is_reported_on_its_first_changed_line(
    head: str, at: tuple[int, int, int, int]
) -> None:
    """Not on `template: |`, which lies outside the lines the change touched, where a pull
    request would not show the finding."""
    got = conftest.lint_files({"judges/j.yaml": head}, base={"judges/j.yaml": BLOCK_JUDGE})
    s = [(d.span.line, d.span.column, d.span.end_line, d.span.end_column, d.rule) for d in got]
    assert s == [(*at, "version-not-bumped")]
