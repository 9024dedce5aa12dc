"""ai_best_practices evals.json and static-checks.json: rules at exact positions, and the corpus."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import found, lint_files, shared_or_skip, walk_files

SKILL = {"skills/refunds/SKILL.md": "# Refunds\n"}
Run = Callable[..., tuple[int, str, str]]
Tree = Callable[[dict[str, str | bytes]], Path]


def test_clean_files() -> None:
    evals = {
        "skill_name": "refunds",
        "skill_file": "skills/refunds/SKILL.md",
        "evals": [{"id": 1, "prompt": "p", "must_contain_any": ["a"], "check_php_lint": True}],
    }
    assert found("evals/x/evals.json", json.dumps(evals), given=SKILL) == []
    checks = {
        "skill_file": "skills/refunds/SKILL.md",
        "assertions": [
            {"id": "S1", "description": "d", "check": "order", "first": "a", "second": "b"}
        ],
    }
    assert found("evals/x/static-checks.json", json.dumps(checks), given=SKILL) == []


def test_what_the_runners_read_without_a_default_is_required() -> None:
    """Both runners read a case's `id` and `prompt`, and a static check's `description`, with
    no default: a file without them stops the runner with a KeyError."""
    text = '{"skill_name": "x", "evals": [\n  {"id": "a", "question": "q"}\n]}'
    assert found("eval/evals.json", text) == [
        (2, 3, "schema-violation", "missing required key 'prompt'")
    ]
    checks = '{"assertions": [\n  {"id": "S1", "check": "contains", "text": "t"}\n]}'
    assert found("eval/static-checks.json", checks) == [
        (2, 3, "schema-violation", "missing required key 'description'")
    ]


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


def test_the_legacy_cases_key_is_read_and_checked_as_the_runner_reads_it() -> None:
    """The ai_best_practices runner reads `behavioral_cases` when `evals` is absent: no
    evals-key-missing, and its cases are checked as cases."""
    text = """{"skill_name": "x", "behavioral_cases": [
  {"id": "a", "prompt": "p", "must_contain_anyy": ["x"]},
  {"id": "a", "prompt": "p", "verify": "eval/missing.sh"}
]}"""
    assert found("eval/evals.json", text) == [
        (2, 30, "key-typo", "unknown key 'must_contain_anyy'; did you mean 'must_contain_any'?"),
        (3, 10, "duplicate-case-id", "duplicate case id 'a' (first on line 2)"),
        (3, 40, "missing-file", "'eval/missing.sh' does not exist (looked for eval/missing.sh)"),
    ]
    both = """{"skill_name": "x", "evals": [{"id": "a", "prompt": "p"}],
  "behavioral_cases": [{"id": "a", "prompt": "p"}]}"""
    assert found("eval/evals.json", both) == []  # with `evals`, the legacy ids are not cases


def test_duplicate_case_ids_and_unknown_markdown_rules() -> None:
    text = """{"evals": [
  {"id": "a", "prompt": "p", "check_markdown_structure": {"min_heading": 2}},
  {"id": "b", "prompt": "p", "must_contain_anyy": ["x"]},
  {"id": "a", "prompt": "p"}
], "skill_name": "x"}"""
    assert found("eval/evals.json", text) == [
        (2, 59, "unknown-key", "unknown key 'min_heading'; did you mean 'min_headings'?"),
        (3, 30, "key-typo", "unknown key 'must_contain_anyy'; did you mean 'must_contain_any'?"),
        (4, 10, "duplicate-case-id", "duplicate case id 'a' (first on line 2)"),
    ]


def test_file_references() -> None:
    text = """{"skill_file": "skills/refund/SKILL.md", "evals": [
  {"id": "a", "prompt": "p", "mode": "execution", "verify": "../../etc/passwd"},
  {"id": "b", "prompt": "p", "verify": "scripts/verify.sh"}
], "skill_name": "x"}"""
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
  {"id": "S1", "check": "order", "first": "a", "description": "d"},
  {"id": "S2", "check": "max_line", "limit": 3, "description": "d"}
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


def _site_layout() -> dict[str, str | bytes]:
    """agent-module-documentation's layout: paths written from the Drupal site root that holds
    the repository (run-matrix.py runs scripts from there), and a skill_file beside it."""
    evals = (
        "{\n"
        '  "skill_name": "drupal-module-docs",\n'
        '  "skill_file": ".agents/skills/drupal-module-docs/SKILL.md",\n'
        '  "evals": [\n'
        "    {\n"
        '      "id": "pathauto-blog",\n'
        '      "mode": "execution",\n'
        '      "prompt": "p",\n'
        '      "verify": "agent-docs/evaluation/verify/blog.sh",\n'
        '      "reset": "agent-docs/evaluation/verify/reset.sh"\n'
        "    }\n"
        "  ]\n"
        "}\n"
    )
    return {
        "agent-docs/modules/pa/pathauto/1.15.x/eval/evals.json": evals,
        "agent-docs/evaluation/verify/blog.sh": "exit 0\n",
    }


def test_site_root_paths_resolve_inside_the_repository_and_beside_it_are_a_note(
    run: Run, tree: Tree
) -> None:
    root = tree(_site_layout()) / "agent-docs"
    code, out, _ = run("check", "--format", "json", cwd=root)
    got = [
        (d["line"], d["column"], d["rule"], d["message"]) for d in json.loads(out)["diagnostics"]
    ]
    assert got == [
        (
            3,
            17,
            "file-not-checked",
            "'.agents/skills/drupal-module-docs/SKILL.md' is not in the repository; the runner "
            "looks for it from the folder it runs in, which evallint cannot see, so it was not "
            "checked",
        ),
        (
            10,
            16,
            "missing-file",
            "'agent-docs/evaluation/verify/reset.sh' does not exist (looked for "
            "agent-docs/evaluation/verify/reset.sh and evaluation/verify/reset.sh)",
        ),
    ]
    assert code == 1


def test_a_first_folder_close_to_one_of_the_repository_is_a_typo_not_a_site_path() -> None:
    evals = '{\n  "skill_name": "r",\n  "skill_file": "skils/refunds/SKILL.md",\n  "evals": []\n}\n'
    assert found("evals/x/evals.json", evals, given=SKILL) == [
        (
            3,
            17,
            "missing-file",
            "'skils/refunds/SKILL.md' does not exist (looked for skils/refunds/SKILL.md)",
        )
    ]


def test_evals_json_without_skill_name() -> None:
    """run-matrix.py reads spec["skill_name"] and stops with a KeyError without it; `name` and
    `data_name` in its place are not read."""
    text = '{\n  "name": "x",\n  "data_name": "y",\n  "evals": []\n}\n'
    assert found("evals/x/evals.json", text) == [
        (
            2,
            3,
            "skill-name-missing",
            "'name' is not read; runners read 'skill_name', and some stop without it",
        )
    ]
    assert found("evals/x/evals.json", '{"evals": []}') == [
        (1, 1, "skill-name-missing", "no 'skill_name': some runners read it and stop without it")
    ]


def test_a_skill_file_may_be_a_skill_name() -> None:
    """The runner reads `skill_file` as a path, then as `skills/<name>/SKILL.md`."""
    skill = {"skills/refunds/SKILL.md": "# Refunds\n"}
    for key in ("skills/refunds/SKILL.md", "refunds"):
        evals = {"skill_name": "r", "skill_file": key, "evals": [{"id": "a", "prompt": "p"}]}
        assert found("eval/x/evals.json", json.dumps(evals), given=skill) == []
    typo = {"skill_name": "r", "skill_file": "skills/refundz/SKILL.md", "evals": []}
    assert found("eval/x/evals.json", json.dumps(typo), given=skill) == [
        (
            1,
            35,
            "missing-file",
            "'skills/refundz/SKILL.md' does not exist (looked for skills/refundz/SKILL.md)",
        )
    ]
