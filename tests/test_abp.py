"""ai_best_practices evals.json and static-checks.json: rules at exact positions, and the corpus."""

from __future__ import annotations

import json

from conftest import found, lint_files, shared_or_skip, walk_files

SKILL = {"skills/refunds/SKILL.md": "# Refunds\n"}


def test_clean_files() -> None:
    evals = {
        "skill_file": "skills/refunds/SKILL.md",
        "evals": [{"id": 1, "prompt": "p", "must_contain_any": ["a"], "check_php_lint": True}],
    }
    assert found("evals/x/evals.json", json.dumps(evals), given=SKILL) == []
    checks = {
        "skill_file": "skills/refunds/SKILL.md",
        "assertions": [{"id": "S1", "check": "order", "first": "a", "second": "b"}],
    }
    assert found("evals/x/static-checks.json", json.dumps(checks), given=SKILL) == []


def test_cases_instead_of_evals() -> None:
    text = '{\n  "skill_name": "x",\n  "cases": [{"id": "a", "question": "q"}]\n}\n'
    assert found("eval/evals.json", text) == [
        (
            3,
            3,
            "evals-key-missing",
            "the runner reads 'evals', not 'cases': no case in this "
            "file would run; rename the key to 'evals'",
        )
    ]
    assert found("eval/evals.json", '{"skill_name": "x"}')[0][2:] == (
        "evals-key-missing",
        "no 'evals' list: no case in this file would run",
    )


def test_duplicate_case_ids_and_unknown_markdown_rules() -> None:
    text = """{"evals": [
  {"id": "a", "prompt": "p", "check_markdown_structure": {"min_heading": 2}},
  {"id": "b", "prompt": "p", "must_contain_anyy": ["x"]},
  {"id": "a", "prompt": "p"}
]}"""
    assert found("eval/evals.json", text) == [
        (2, 59, "unknown-key", "unknown key 'min_heading'; did you mean 'min_headings'?"),
        (3, 30, "key-typo", "unknown key 'must_contain_anyy'; did you mean 'must_contain_any'?"),
        (4, 10, "duplicate-case-id", "duplicate case id 'a' (first on line 2)"),
    ]


def test_file_references() -> None:
    text = """{"skill_file": "skills/refund/SKILL.md", "evals": [
  {"id": "a", "prompt": "p", "mode": "execution", "verify": "../../etc/passwd"},
  {"id": "b", "prompt": "p", "verify": "scripts/verify.sh"}
]}"""
    files = {**SKILL, "scripts/verify.sh": "true\n"}
    assert found("eval/evals.json", text, given=files) == [
        (
            1,
            16,
            "missing-file",
            "'skills/refund/SKILL.md' does not exist (looked for skills/refund/SKILL.md)",
        ),
        (
            2,
            61,
            "missing-file",
            "'../../etc/passwd' leads outside the repository; it is not followed",
        ),
    ]


def test_static_check_arguments() -> None:
    text = """{"assertions": [
  {"id": "S1", "check": "order", "first": "a"},
  {"id": "S2", "check": "max_line", "limit": 3}
]}"""
    assert found("eval/static-checks.json", text) == [
        (2, 3, "schema-violation", "missing required key 'second'"),
        (
            3,
            25,
            "schema-violation",
            "'max_line' is not one of 'file_exists', "
            "'frontmatter_fields', 'contains', 'order', 'max_lines'; did you mean 'max_lines'?",
        ),
    ]


def test_drupal_corpus() -> None:
    root = shared_or_skip("corpus", "drupal")
    files = {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in walk_files(root)
        if p.suffix == ".json"
    }
    report = lint_files(files)
    by_rule: dict[str, set[str]] = {}
    for d in report:
        by_rule.setdefault(d.rule, set()).add(d.path)
    # The three files that use `cases`, and the one duplicate id, are the known defects.
    assert len(by_rule["evals-key-missing"]) == 3
    assert [p for p in by_rule["duplicate-case-id"]] == [
        "agent-module-documentation/modules/co/commerce_cart_redirection/3.3.x/eval/evals.json"
    ]
    assert "parse-error" not in by_rule and "schema-violation" not in by_rule
