"""The case files AgentV suites name: loaded as AgentV 4.42.4 loads them (case-file-loader.ts),
each case checked at its line in the case file, in full runs, `--diff` and named runs."""

from __future__ import annotations

from pathlib import Path

import evallint.api
from conftest import found, lint_files
from test_git import Repo

SUITE = "tests: ./cases.yaml\n"
CASES = """\
- id: refund-window
  criteria: Mentions the 30-day window.
  input: How long do refunds take?
"""


def _at(files: dict[str, str]) -> list[tuple[str, int, int, str]]:
    return [(d.path, d.span.line, d.span.column, d.text) for d in lint_files(files)]


def test_a_good_case_file_is_clean() -> None:
    assert _at({"evals/x.eval.yaml": SUITE, "evals/cases.yaml": CASES}) == []


def test_each_case_is_checked_at_its_line_in_the_case_file() -> None:
    cases = CASES.replace("- id:", "- idd:") + "- id: b\n  criteria: 5\n  input: hi\n"
    assert _at({"evals/x.eval.yaml": SUITE, "evals/cases.yaml": cases}) == [
        ("evals/cases.yaml", 1, 3, "missing required key 'id'"),  # AgentV 4 refuses it
        ("evals/cases.yaml", 1, 3, "unknown key 'idd'; did you mean 'id'?"),
        ("evals/cases.yaml", 5, 13, "expected string, got integer 5"),
    ]


def test_jsonl_cases_and_folders_of_cases() -> None:
    files = {
        "evals/y.eval.yaml": "tests: ./d.jsonl\n",
        "evals/d.jsonl": '{"id": "a", "criteria": "c", "input": "hi"}\n'
        '{"id": "b", "critera": "c", "input": "hi"}\n',
        # A folder: each subfolder's case.yaml is one case, its id the folder's name.
        "evals/z.eval.yaml": "tests: ./cases/\n",
        "evals/cases/a/case.yaml": "criteria: c\ninput: hi\nasertions: []\n",
        "evals/cases/b/case.yaml": "criteria: [c]\ninput: hi\n",
    }
    assert _at(files) == [
        ("evals/cases/a/case.yaml", 3, 1, "unknown key 'asertions'; did you mean 'assertions'?"),
        ("evals/cases/b/case.yaml", 1, 11, "expected string, got array"),
        ("evals/d.jsonl", 2, 13, "unknown key 'critera'; did you mean 'criteria'?"),
    ]


def test_a_case_file_agentv_cannot_load_is_an_error_on_the_suite() -> None:
    not_a_list = {"evals/x.eval.yaml": SUITE, "evals/cases.yaml": "id: a\n"}
    assert found("evals/cases.yaml", "id: a\n", given=not_a_list) == [
        (
            1,
            1,
            "agentv-case-file",
            "a case file holds a list of cases; AgentV refuses anything else",
        )
    ]
    broken = {"evals/x.eval.yaml": SUITE, "evals/cases.yaml": "- id: [a\n"}
    assert found("evals/x.eval.yaml", SUITE, given=broken) == [
        (
            1,
            8,
            "agentv-case-file",
            "case file evals/cases.yaml does not load: line 2: invalid YAML: while parsing a "
            "flow sequence: did not find expected ',' or ']'",
        )
    ]
    jsonl = {"evals/x.eval.yaml": "tests: ./d.jsonl\n", "evals/d.jsonl": '{"id": "a"}\n{\n'}
    assert [f[:3] for f in found("evals/x.eval.yaml", jsonl["evals/x.eval.yaml"], given=jsonl)] == [
        (1, 8, "agentv-case-file")
    ]
    binary: dict[str, str | bytes] = {"evals/x.eval.yaml": SUITE, "evals/cases.yaml": b"\xff- id"}
    assert [f[:3] for f in found("evals/x.eval.yaml", SUITE, given=binary)] == [
        (1, 8, "agentv-case-file")
    ]


def test_agentv_4_loads_only_yaml_and_jsonl_case_files() -> None:
    files = {"evals/x.eval.yaml": "tests: ./cases.json\n", "evals/cases.json": "[]\n"}
    assert found("evals/x.eval.yaml", files["evals/x.eval.yaml"], given=files) == [
        (1, 8, "agentv-case-file", "AgentV 4 loads case files in YAML or JSONL, not .json")
    ]


def test_a_change_to_a_case_file_alone_checks_it_through_its_suite(tmp_path: Path) -> None:
    """`--diff`, and pre-commit's shape: the staged case file named alone."""
    repo = Repo(tmp_path / "repo")
    repo.commit({"evals/x.eval.yaml": SUITE, "evals/cases.yaml": CASES})
    repo.write({"evals/cases.yaml": CASES + "  critera: x\n"})
    repo.git("add", "-A")
    expected = [("evals/cases.yaml", 4, "agentv-case-file")]
    diff = evallint.api.check(cwd=repo.root, diff="HEAD", cache=False)
    assert [(d.path, d.span.line, d.rule) for d in diff.diagnostics] == expected
    named = evallint.api.check(["evals/cases.yaml"], cwd=repo.root, cache=False)
    assert [(d.path, d.span.line, d.rule) for d in named.diagnostics] == expected


def test_a_case_file_that_leads_out_is_reported_once(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write({"evals/x.eval.yaml": SUITE})
    (repo.root / "evals" / "cases.yaml").symlink_to("/etc/hostname")
    report = evallint.api.check(cwd=repo.root, cache=False)
    assert [(d.path, d.span.line, d.rule) for d in report.diagnostics] == [
        ("evals/x.eval.yaml", 1, "missing-file")
    ]


def test_a_judge_prompt_deleted_in_the_change_is_said_in_diff_mode(tmp_path: Path) -> None:
    """AgentV 2.x reads `prompt: prompts/judge.md` when the file is there; deleting it makes
    the judge get the path's text, which the change's run says."""
    repo = Repo(tmp_path / "repo")
    suite = (
        "name: spec-suite\nevalcases:\n  - id: a\n    expected_outcome: Polite.\n    input: hi\n"
        "    execution:\n      evaluators:\n        - {name: j, type: llm_judge, prompt: "
        "prompts/judge.md}\n"
    )
    repo.commit({"evals/EVAL.yaml": suite, "evals/prompts/judge.md": "Judge it.\n"})
    repo.git("rm", "-q", "evals/prompts/judge.md")
    diff = evallint.api.check(cwd=repo.root, diff="HEAD", cache=False)
    assert [(d.path, d.span.line, d.rule) for d in diff.diagnostics] == [
        ("evals/EVAL.yaml", 8, "agentv-prompt-path")
    ]


def test_a_case_file_over_the_size_limit_fails_closed() -> None:
    from evallint.config import Config

    files = {"evals/x.eval.yaml": SUITE, "evals/cases.yaml": CASES + "# pad\n" * 200}
    small = Config(max_file_size=len(CASES))
    assert [(d.path, d.span.line, d.rule, d.severity.label) for d in lint_files(files, small)] == [
        ("evals/x.eval.yaml", 1, "agentv-case-file", "error")
    ]


def test_an_agentv_5_case_without_an_id_is_one_it_skips() -> None:
    suite = 'prompts: ["{{ q }}"]\ntests: ./cases.yaml\n'
    cases = "- vars: {q: hi}\n  assert: [{type: contains, value: x}]\n"
    assert _at({"evals/x.eval.yaml": suite, "evals/cases.yaml": cases}) == [
        ("evals/cases.yaml", 1, 3, "this case has no 'id': AgentV skips it")
    ]
