"""Cross-file and semantic rules, each at its exact line and column."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping
from pathlib import Path

from conftest import DictSource, found
from evallint.config import Config
from evallint.engine.run import lint
from evallint.refs import parse_version, pick

Run = Callable[..., tuple[int, str, str]]
Tree = Callable[[dict[str, str | bytes]], Path]


def rubric(rid: str, version: str, *checks: str, combine: str = "all_pass") -> str:
    body = "".join(f"  - {c}\n" for c in checks) or "  - {kind: php_lint, id: lint}\n"
    return f'id: {rid}\nversion: "{version}"\nchecks:\n{body}scoring: {{combine: {combine}}}\n'


def judge(jid: str, version: str, template: str = '"Grade {{ output }}"', extra: str = "") -> str:
    return f'id: {jid}\nversion: "{version}"\ntemplate: {template}\n{extra}'


def dataset(*refs: str) -> str:
    rows = "".join(f"  - id: q{i}\n    input: x\n    rubric_ref: {r}\n" for i, r in enumerate(refs))
    return f"questions:\n{rows}"


TONES = {
    "rubrics/tone_1_0_0.yaml": rubric("tone", "1.0.0"),
    "rubrics/tone_1_2_0.yaml": rubric("tone", "1.2.0"),
    "rubrics/tone_1_2_5.yaml": rubric("tone", "1.2.5"),
    "rubrics/tone_1_3_0.yaml": rubric("tone", "1.3.0"),
    "rubrics/tone_2_0_0_rc.yaml": rubric("tone", "2.0.0-rc.1"),
}


def report(
    files: Mapping[str, str],
    *,
    config: Config | None = None,
    today: datetime.date | None = None,
    only: str | None = None,
    paths: list[str] | None = None,
) -> list[tuple[object, ...]]:
    result = lint(
        sorted(paths or files),
        DictSource(files),
        config or Config(),
        tree=sorted(files),
        today=today or datetime.date(2026, 11, 22),
    )
    return [
        (d.path, d.span.line, d.span.column, d.rule, d.message)
        for d in result.diagnostics
        if only is None or d.rule == only
    ]


def test_pin_resolution_table() -> None:
    versions = [
        v for v in map(parse_version, ["1.0.0", "1.2.0", "1.2.5", "1.3.0", "2.0.0-rc.1"]) if v
    ]
    expect = {
        None: "1.3.0",
        "1": "1.3.0",
        "1.2": "1.2.5",
        "1.2.0": "1.2.0",
        "2": None,
        "2.0.0-rc.1": "2.0.0-rc.1",
        "2.0": None,
        "1.4": None,
        "1.2.9": None,
    }
    for pin, want in expect.items():
        outcome, got = pick(pin, versions)
        assert (str(got) if got else None) == want, pin
        assert outcome == ("ok" if want else "no-version"), pin


def test_every_pin_form_in_a_dataset() -> None:
    files = {
        **TONES,
        "datasets/d.yaml": dataset(
            "rubric/tone@1",
            "rubric/tone@1.2",
            "rubric/tone@1.2.0",
            "rubric/tone@2.0.0-rc.1",
            "rubric/tone@2",
            "rubric/tone@1.4",
            "rubric/tone",
            "rubric/tome@1",
        ),
    }
    assert report(files) == [
        (
            "datasets/d.yaml",
            16,
            17,
            "unknown-ref-version",
            "'rubric/tone@2' matches no version of rubric 'tone'; it has 1.0.0, 1.2.0, 1.2.5, "
            "1.3.0, 2.0.0-rc.1",
        ),
        (
            "datasets/d.yaml",
            19,
            17,
            "unknown-ref-version",
            "'rubric/tone@1.4' matches no version of rubric 'tone'; it has 1.0.0, 1.2.0, 1.2.5, "
            "1.3.0, 2.0.0-rc.1",
        ),
        (
            "datasets/d.yaml",
            22,
            17,
            "unpinned-ref",
            "'rubric/tone' has no version pin; it resolves to tone@1.3.0 today",
        ),
        (
            "datasets/d.yaml",
            25,
            17,
            "unknown-ref",
            "no rubric with id 'tome' in the project; did you mean 'rubric/tone'?",
        ),
    ]


def test_unpinned_is_an_error_under_strict() -> None:
    files = {**TONES, "datasets/d.yaml": dataset("rubric/tone")}
    assert report(files, config=Config(strict=True))[0][3:] == (
        "unpinned-ref",
        "'rubric/tone' has no version pin; it resolves to tone@1.3.0 today",
    )
    result = lint(["datasets/d.yaml"], DictSource(files), Config(strict=True), tree=sorted(files))
    assert result.diagnostics[0].severity.label == "error"


def test_judge_refs_in_checks_and_juries() -> None:
    files = {
        "judges/acc.yaml": judge("acc", "2.1.0"),
        "rubrics/r.yaml": rubric(
            "r",
            "1.0.0",
            "{kind: llm_judge, id: a, judge_prompt_ref: judge/acc@2.1}",
            "{kind: llm_judge, id: b, judge_prompt_ref: judge/acc@2.1.0,\n"
            "     jury: [{judge_prompt_ref: judge/acc@3}, {judge_prompt_ref: judge/axx@1}]}",
        ),
    }
    assert report(files) == [
        (
            "rubrics/r.yaml",
            6,
            32,
            "unknown-ref-version",
            "'judge/acc@3' matches no version of judge 'acc'; it has 2.1.0",
        ),
        ("rubrics/r.yaml", 6, 65, "unknown-ref", "no judge with id 'axx' in the project"),
    ]


def test_cycle_is_printed_on_each_ref() -> None:
    files = {
        "rubrics/a.yaml": rubric("a", "1.0.0", "{kind: composite, id: b, rubric_ref: rubric/b@2}"),
        "rubrics/b.yaml": rubric("b", "2.0.0", "{kind: composite, id: a, rubric_ref: rubric/a@1}"),
    }
    assert report(files) == [
        (
            "rubrics/a.yaml",
            4,
            42,
            "composite-cycle",
            "composite references form a cycle: a@1.0.0 → b@2.0.0 → a@1.0.0",
        ),
        (
            "rubrics/b.yaml",
            4,
            42,
            "composite-cycle",
            "composite references form a cycle: b@2.0.0 → a@1.0.0 → b@2.0.0",
        ),
    ]


def test_self_reference_is_a_cycle() -> None:
    files = {
        "rubrics/a.yaml": rubric(
            "a", "1.0.0", "{kind: composite, id: me, rubric_ref: rubric/a@1.0.0}"
        )
    }
    assert report(files) == [
        (
            "rubrics/a.yaml",
            4,
            43,
            "composite-cycle",
            "composite references form a cycle: a@1.0.0 → a@1.0.0",
        )
    ]


def test_depth_two_composite() -> None:
    files = {
        "rubrics/outer.yaml": rubric(
            "outer", "1.0.0", "{kind: composite, id: m, rubric_ref: rubric/middle@1}"
        ),
        "rubrics/middle.yaml": rubric(
            "middle", "1.1.0", "{kind: composite, id: i, rubric_ref: rubric/inner@1}"
        ),
        "rubrics/inner.yaml": rubric("inner", "1.0.0"),
    }
    assert report(files) == [
        (
            "rubrics/outer.yaml",
            4,
            42,
            "composite-depth",
            "'rubric/middle@1' resolves to middle@1.1.0, which has composite checks itself "
            "(rubric/inner@1); composites may nest only one level",
        )
    ]


def test_duplicate_definitions_across_files() -> None:
    files = {
        "rubrics/a.yaml": rubric("tone", "1.0.0"),
        "rubrics/z_copy.yaml": "# a copy\n" + rubric("tone", "1.0.0"),
        "rubrics/other.yaml": rubric("tone", "1.0.1"),
    }
    result = lint(sorted(files), DictSource(files), Config(), tree=sorted(files))
    [d] = result.diagnostics
    assert (d.path, d.span.line, d.span.column, d.rule, d.message) == (
        "rubrics/z_copy.yaml",
        2,
        5,
        "duplicate-definition",
        "rubric tone@1.0.0 is also defined in rubrics/a.yaml (line 1)",
    )
    assert [(r.path, r.span.line, r.span.column) for r in d.related] == [("rubrics/a.yaml", 1, 5)]


def test_template_variable_typo_inside_a_block_scalar() -> None:
    template = (
        "|\n  You grade answers.\n\n  Question: {{ input }}\n  Answer: {{ ouptut }}\n"
        "  Ref: {{expected}} {{ context }} {{ secret }}\n"
    )
    files = {"judges/j.yaml": judge("j", "1.0.0", template)}
    assert report(files) == [
        (
            "judges/j.yaml",
            7,
            14,
            "template-variable",
            "unknown template variable 'ouptut'; did you mean {{ output }}?",
        ),
        (
            "judges/j.yaml",
            8,
            38,
            "template-variable",
            "unknown template variable 'secret'; known: input, output, expected, context",
        ),
    ]


def test_malformed_template_braces() -> None:
    files = {
        "judges/j.yaml": judge(
            "j", "1.0.0", "|\n  A {{ output } and {{ input }}\n  B { expected }} C {{ 3x }}\n"
        )
    }
    assert report(files) == [
        (
            "judges/j.yaml",
            4,
            5,
            "template-variable",
            "unbalanced '{{' in template",
        ),
        ("judges/j.yaml", 5, 16, "template-variable", "unbalanced '}}' in template"),
        ("judges/j.yaml", 5, 21, "template-variable", "malformed template tag '{{ 3x }}'"),
    ]


def test_template_in_json_and_configured_variables() -> None:
    files = {
        "judges/j.json": '{"id": "j", "version": "1.0.0",\n'
        ' "template": "Rate {{ output }} for {{ rubric }}"}'
    }
    assert report(files) == [
        (
            "judges/j.json",
            2,
            40,
            "template-variable",
            "unknown template variable 'rubric'; known: input, output, expected, context",
        )
    ]
    config = Config(template_variables=("output", "rubric"))
    assert report(files, config=config) == []


def test_validation_age_around_the_edge() -> None:
    extra = "validation: {validated_at: 2026-08-24}\n"
    files = {"judges/j.yaml": judge("j", "1.0.0", extra=extra)}
    assert report(files, today=datetime.date(2026, 11, 22)) == []  # 90 days: still fresh
    assert report(files, today=datetime.date(2026, 11, 23)) == [
        (
            "judges/j.yaml",
            4,
            28,
            "judge-validation-stale",
            "validated 91 days ago (2026-08-24), more than 90 days before 2026-11-23; "
            "re-validate the judge",
        )
    ]
    result = lint(
        ["judges/j.yaml"], DictSource(files), Config(strict=True), today=datetime.date(2026, 11, 23)
    )
    assert result.diagnostics[0].severity.label == "error"
    assert (
        report(files, today=datetime.date(2026, 11, 23), config=Config(validation_max_age_days=120))
        == []
    )


def test_validated_against_another_version() -> None:
    files = {
        "judges/j.yaml": judge("j", "2.0.0", extra='validation:\n  validated_against: "1.4.0"\n')
    }
    assert report(files) == [
        (
            "judges/j.yaml",
            5,
            22,
            "judge-validation-version",
            "the TPR/TNR figures were measured on version 1.4.0, not on the current 2.0.0",
        )
    ]


def test_invalid_regex_position_inside_the_pattern() -> None:
    files = {
        "rubrics/r.yaml": rubric(
            "r",
            "1.0.0",
            "{kind: regex, id: a, pattern: 'order [0-9+ (x)'}",
            "{kind: regex, id: b, pattern: ok, flags: iq}",
        )
    }
    assert report(files) == [
        (
            "rubrics/r.yaml",
            4,
            42,
            "invalid-regex",
            "pattern does not compile: unterminated character set at position 6",
        ),
        (
            "rubrics/r.yaml",
            5,
            46,
            "invalid-regex",
            "unknown regex flag 'q'; expected some of i, m, s, u, x",
        ),
    ]


def test_invalid_embedded_json_schema() -> None:
    files = {
        "rubrics/r.yaml": rubric(
            "r",
            "1.0.0",
            (
                "kind: json_schema\n    id: s\n    schema:\n      type: obj\n      requried: [a]\n"
                "      properties:\n        a: {type: [string, text], pattern: '(('}\n"
                "        b: 3\n"
            ),
        )
    }
    assert report(files) == [
        (
            "rubrics/r.yaml",
            7,
            13,
            "invalid-json-schema",
            "'obj' is not a JSON Schema type; expected one of array, boolean, integer, null, "
            "number, object, string",
        ),
        (
            "rubrics/r.yaml",
            8,
            7,
            "invalid-json-schema",
            "unknown schema keyword 'requried'; did you mean 'required'?",
        ),
        (
            "rubrics/r.yaml",
            10,
            28,
            "invalid-json-schema",
            "'text' is not a JSON Schema type; expected one of array, boolean, integer, null, "
            "number, object, string",
        ),
        (
            "rubrics/r.yaml",
            10,
            44,
            "invalid-json-schema",
            "pattern does not compile: missing ), unterminated subpattern",
        ),
        (
            "rubrics/r.yaml",
            11,
            12,
            "invalid-json-schema",
            "a schema must be an object or a boolean, not int",
        ),
    ]


def test_weight_without_weighted_avg_is_a_note() -> None:
    files = {"rubrics/r.yaml": rubric("r", "1.0.0", "{kind: php_lint, id: a, weight: 2}")}
    assert report(files) == [
        (
            "rubrics/r.yaml",
            4,
            29,
            "weight-ignored",
            "weight has no effect: scoring.combine is 'all_pass', not 'weighted_avg'",
        )
    ]
    assert (
        report(
            {
                "rubrics/r.yaml": rubric(
                    "r", "1.0.0", "{kind: php_lint, id: a, weight: 2}", combine="weighted_avg"
                )
            }
        )
        == []
    )


def test_duplicate_question_ids() -> None:
    files = {
        "datasets/d.yaml": "questions:\n  - {id: a, input: x}\n  - {id: b, input: w}\n"
        "  - {id: a, input: y}\n"
    }
    assert report(files) == [
        (
            "datasets/d.yaml",
            4,
            10,
            "duplicate-question-id",
            "duplicate question id 'a' (first on line 2)",
        )
    ]


def test_question_missing_inputs_follows_composites() -> None:
    files = {
        "rubrics/facts.yaml": rubric("facts", "1.0.0", "{kind: fact_match, id: f}"),
        "rubrics/own.yaml": rubric("own", "1.0.0", "{kind: fact_match, id: f, facts: [x]}"),
        "rubrics/wrap.yaml": rubric(
            "wrap", "1.0.0", "{kind: composite, id: c, rubric_ref: rubric/facts@1}"
        ),
        "datasets/d.yaml": dataset("rubric/facts@1", "rubric/own@1", "rubric/wrap@1"),
    }
    assert report(files) == [
        (
            "datasets/d.yaml",
            4,
            17,
            "question-missing-inputs",
            "facts@1.0.0 has a fact_match check 'f' that reads the question's expected_facts, and "
            "this question has none",
        ),
        (
            "datasets/d.yaml",
            10,
            17,
            "question-missing-inputs",
            "wrap@1.0.0 has a fact_match check 'f' that reads the question's expected_facts, and "
            "this question has none",
        ),
    ]


def test_findings_caused_in_other_files_are_reported_there() -> None:
    """Linting only the rubric still reports the dataset whose pin it broke."""
    files = {
        "rubrics/tone.yaml": rubric("tone", "2.0.0"),
        "datasets/d.yaml": dataset("rubric/tone@1"),
        "datasets/unrelated.yaml": "questions:\n  - {id: q, input: x, rubric_ref: bad}\n",
    }
    assert report(files, paths=["rubrics/tone.yaml"]) == [
        (
            "datasets/d.yaml",
            4,
            17,
            "unknown-ref-version",
            "'rubric/tone@1' matches no version of rubric 'tone'; it has 2.0.0",
        )
    ]


def test_refs_resolve_against_the_tree_when_one_file_is_checked() -> None:
    files = {
        "rubrics/tone.yaml": rubric("tone", "1.0.0"),
        "evals/graders/custom.yaml": rubric("custom", "1.0.0"),
        "datasets/d.yaml": dataset("rubric/tone@1", "rubric/custom@1", "rubric/gone@1"),
    }
    assert report(files, paths=["datasets/d.yaml"]) == [
        (
            "datasets/d.yaml",
            10,
            17,
            "unknown-ref",
            "no rubric with id 'gone' in the project; did you mean 'rubric/tone'?",
        )
    ]


def test_cli_single_file_sees_the_whole_tree(run: Run, tree: Tree) -> None:
    root = tree(
        {"rubrics/tone.yaml": rubric("tone", "1.0.0"), "datasets/d.yaml": dataset("rubric/tone@1")}
    )
    code, out, _ = run("check", "datasets/d.yaml", cwd=root)
    assert (code, out.splitlines()[0][:31]) == (0, "1 file checked: no problems (0.")
    code, out, _ = run("check", "--today", "2026-01-01", "rubrics/tone.yaml", cwd=root)
    assert code == 0
    (root / "rubrics" / "tone.yaml").write_text(rubric("tone", "2.0.0"))
    code, out, _ = run("check", "rubrics/tone.yaml", cwd=root)
    assert code == 1 and out.startswith("datasets/d.yaml:4:17: error: 'rubric/tone@1' matches")


def test_source_date_epoch(run: Run, tree: Tree, monkeypatch: object) -> None:
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    root = tree(
        {"judges/j.yaml": judge("j", "1.0.0", extra="validation: {validated_at: 2026-01-01}\n")}
    )
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767312000")  # 2026-01-02
    assert "no problems" in run("check", cwd=root)[1]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1798848000")  # 2027-01-01
    assert "[judge-validation-stale]" in run("check", cwd=root)[1]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "soon")
    assert run("check", cwd=root)[0] == 2


def test_a_reference_to_a_definition_with_a_broken_version_says_so() -> None:
    """`version: 1.10` is read as the number 1.1: the rubric exists, and the reference's message
    points at the real problem, not at a missing id."""
    rubric = (
        "id: tone\nversion: 1.10\nchecks: [{kind: php_lint, id: lint}]\n"
        "scoring: {combine: all_pass}\n"
    )
    dataset = "questions:\n  - id: q1\n    input: hi\n    rubric_ref: rubric/tone@1.10\n"
    got = found("datasets/d.yaml", dataset, given={"rubrics/tone.yaml": rubric})
    assert got == [
        (
            4,
            17,
            "unknown-ref",
            "rubric 'tone' is defined in rubrics/tone.yaml, but its version 1.1 is not a semantic "
            'version string (such as "1.0.0"), so no reference can resolve to it',
        )
    ]


def test_a_reference_says_which_definer_files_have_no_readable_id() -> None:
    """A rubric that does not parse (or names no id) may be the one a reference means: the
    message says where to look, in a full run and in a run over the dataset alone, where the
    rubric is known only from the tree."""
    broken = {"rubrics/refunds.yaml": 'id: refunds\nversion: "1.0.0"\nchecks: [\n'}
    files = {**TONES, **broken, "datasets/d.yaml": dataset("rubric/refunds@1")}
    expected = (
        "datasets/d.yaml",
        4,
        17,
        "unknown-ref",
        "no rubric with id 'refunds' in the project; rubrics/refunds.yaml is a rubric file "
        "whose id cannot be read",
    )
    assert report(files, only="unknown-ref") == [expected]
    assert report(files, only="unknown-ref", paths=["datasets/d.yaml"]) == [expected]
    more = {**files, "rubrics/x.yaml": "version: '1.0.0'\nchecks: []\nscoring: {}\n"}
    assert report(more, only="unknown-ref", paths=["datasets/d.yaml"])[0][4] == (
        "no rubric with id 'refunds' in the project; 2 rubric files have no readable id "
        "(rubrics/refunds.yaml, rubrics/x.yaml)"
    )


def _ring(n: int) -> dict[str, str]:
    return {
        f"rubrics/r{i}.yaml": rubric(
            f"r{i}", "1.0.0", f"{{kind: composite, id: p, rubric_ref: rubric/r{(i + 1) % n}@1}}"
        )
        for i in range(n)
    }


def test_a_long_cycle_is_named_by_its_ends_and_counted() -> None:
    """Each of a cycle's rubrics gets the finding, but a cycle of thousands would make every
    message list them all: past a dozen names, its start and end, and how many between."""
    got = report(_ring(30))
    assert len(got) == 30 and {g[3] for g in got} == {"composite-cycle"}
    first = next(g for g in got if g[0] == "rubrics/r0.yaml")
    assert first[4] == (
        "composite references form a cycle: r0@1.0.0 → r1@1.0.0 → r2@1.0.0 → r3@1.0.0 → "
        "r4@1.0.0 → r5@1.0.0 → … (21 more) → r27@1.0.0 → r28@1.0.0 → r29@1.0.0 → r0@1.0.0"
    )


def test_a_cycle_in_a_tangle_is_still_spelt_out() -> None:
    """Two cycles that share a rubric are no simple ring: the path is searched for."""
    files = {
        "rubrics/a.yaml": rubric(
            "a",
            "1.0.0",
            "{kind: composite, id: b, rubric_ref: rubric/b@1}\n"
            "  - {kind: composite, id: c, rubric_ref: rubric/c@1}",
        ),
        "rubrics/b.yaml": rubric("b", "1.0.0", "{kind: composite, id: a, rubric_ref: rubric/a@1}"),
        "rubrics/c.yaml": rubric("c", "1.0.0", "{kind: composite, id: a, rubric_ref: rubric/a@1}"),
    }
    got = [(g[0], g[4]) for g in report(files) if g[3] == "composite-cycle"]
    assert got == [
        ("rubrics/a.yaml", "composite references form a cycle: a@1.0.0 → b@1.0.0 → a@1.0.0"),
        ("rubrics/a.yaml", "composite references form a cycle: a@1.0.0 → c@1.0.0 → a@1.0.0"),
        ("rubrics/b.yaml", "composite references form a cycle: b@1.0.0 → a@1.0.0 → b@1.0.0"),
        ("rubrics/c.yaml", "composite references form a cycle: c@1.0.0 → a@1.0.0 → c@1.0.0"),
    ]
