"""AgentV / agentevals suites: dialect detection, rules at exact positions, and the real corpus."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DictSource, found, shared_or_skip, walk_files
from evallint.config import Config
from evallint.engine.run import lint
from evallint.formats.agentv.kinds import dialect
from evallint.io.source import FsSource

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
        ("a/EVAL.live.yaml", {"description": "only"}, "agentv-v4"),
        ("a/eval.config.yaml", {"description": "only"}, None),
        # promptfoo's shape too: AgentV's by its name or by a key only its tests hold.
        ("a/x.yaml", {"prompts": ["{{ input }}"], "tests": []}, None),
        ("a/EVAL.yaml", {"prompts": ["{{ input }}"], "tests": []}, "agentv-next"),
        ("a/x.yaml", {"prompts": ["x"], "tests": [{"criteria": "c", "vars": {}}]}, "agentv-next"),
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
    skipped = {s.path for s in report.skipped}
    assert report.files_checked + len(skipped) == len(files)
    assert all(s.reason for s in report.skipped)


V4 = """\
name: refunds
tests:
  - id: window
    criteria: Mentions the 30-day window.
    input:
      - role: user
        content:
          - type: text
            value: How long do refunds take?
          - type: file
            value: policy.md
    assert:
      - type: contains
        value: "30 days"
"""


def test_renamed_key_gets_the_migration_hint() -> None:
    assert found("evals/refunds.eval.yaml", V4, given={"evals/policy.md": "x"}) == [
        (
            12,
            5,
            "agentv-migration",
            # AgentV 4.42.4 still reads it (eval-validator.ts DEPRECATED_TEST_FIELDS).
            "'assert' is deprecated in this dialect (still read, with a warning); use 'assertions'",
        )
    ]


def test_mixed_dialect_keys() -> None:
    text = (
        "name: refunds\nevalcases:\n  - id: a\n    criteria: c\n    input: hi\n"
        "    execution:\n      evaluators:\n        - {name: j, type: llm-grader, "
        "prompt: judge.md}\n"
    )
    got = found("EVAL.yaml", text, given={"judge.md": "x"})
    assert got[0] == (3, 5, "schema-violation", "missing required key 'expected_outcome'")
    assert got[1:] == [
        (
            4,
            5,
            "agentv-migration",
            "'criteria' is not read in this dialect; use "
            "'expected_outcome' (the spec's name; 'criteria' is AgentV 4's)",
        ),
        (
            8,
            27,
            "agentv-migration",
            "grader type 'llm-grader' is not used in this dialect; use 'llm_judge'",
        ),
    ]


def test_file_references_resolve_from_the_suite_folder_or_the_root() -> None:
    text = V4.replace("assert:", "assertions:").replace(
        "value: policy.md",
        "value: policy.md\n          - type: file\n"
        "            value: /shared/terms.md\n          - type: file\n"
        "            value: ../../../etc/passwd\n          - type: file\n"
        "            value: missing.md",
    )
    got = found(
        "evals/refunds.eval.yaml", text, given={"evals/policy.md": "x", "shared/terms.md": "y"}
    )
    assert got == [
        (
            15,
            20,
            "missing-file",
            "'../../../etc/passwd' leads outside the repository; it is not followed",
        ),
        (
            17,
            20,
            "missing-file",
            "'missing.md' does not exist (looked for evals/missing.md and missing.md)",
        ),
    ]


def test_content_files_are_found_in_any_parent_folder_up_to_the_root() -> None:
    """AgentV's search roots (file-resolver.ts buildSearchRoots, v4.42.4): the suite's folder,
    then each parent up to the repository root; `../AGENTS.md` from evals/self/ resolves at the
    root through evals/, and a `file://` prompt at the root resolves from a nested suite."""
    text = V4.replace("assert:", "assertions:").replace("value: policy.md", "value: ../AGENTS.md")
    text += "      - {type: llm-grader, prompt: 'file://prompts/grader.md'}\n"
    given = {"AGENTS.md": "a", "prompts/grader.md": "p"}
    assert found("evals/self/refunds.eval.yaml", text, given=given) == []
    assert found("evals/self/refunds.eval.yaml", text, given={"AGENTS.md": "a"}) == [
        (
            15,
            36,
            "missing-file",
            "'file://prompts/grader.md' does not exist (looked for "
            "evals/self/prompts/grader.md, evals/prompts/grader.md and prompts/grader.md)",
        )
    ]


def test_judge_prompt_paths_and_case_files() -> None:
    text = """\
tests:
  - id: a
    criteria: c
    assertions:
      - {type: llm-grader, prompt: prompts/judge.md}
      - {type: llm-grader, prompt: Judge whether the answer is polite.}
  - cases/more.yaml
"""
    # A prompt without file:// is inline text to AgentV 4 (grader-parser.ts), never a file.
    assert found("evals/x.eval.yaml", text) == [
        (
            5,
            36,
            "agentv-prompt-path",
            "AgentV 4 sends the text 'prompts/judge.md' itself as the judge's prompt (only "
            "file:// names a file); write 'file://prompts/judge.md' to read the file",
        ),
        (
            7,
            5,
            "missing-file",
            "'cases/more.yaml' does not exist (looked for evals/cases/more.yaml)",
        ),
    ]


def test_symlink_out_of_the_repository(run: object, tree: object, tmp_path: Path) -> None:
    import os

    outside = tmp_path.parent / f"{tmp_path.name}-secret.md"
    outside.write_text("secret")
    root = tmp_path / "repo"
    (root / "evals").mkdir(parents=True)
    (root / "evals" / "refunds.eval.yaml").write_text(V4.replace("assert:", "assertions:"))
    os.symlink(outside, root / "evals" / "policy.md")
    code, out, _ = run("check", cwd=root)  # type: ignore[operator]
    assert code == 1
    assert (
        "evals/refunds.eval.yaml:11:20: error: 'policy.md' is a symlink that leads outside "
        "the repository; it is not followed [missing-file]"
    ) in out


def test_duplicate_test_ids() -> None:
    text = "tests:\n  - {id: a, criteria: c}\n  - {id: b, criteria: c}\n  - {id: a, criteria: d}\n"
    assert found("evals/x.eval.yaml", text) == [
        (4, 10, "duplicate-case-id", "duplicate case id 'a' (first on line 2)")
    ]


@pytest.mark.parametrize(
    ("ranges", "expected"),
    [
        ("[{score_range: [0, 4], outcome: a}, {score_range: [5, 10], outcome: b}]", []),
        ("{0: a, 5: b, 8: c}", []),
        (
            "[{score_range: [0, 4], outcome: a}, {score_range: [4, 10], outcome: b}]",
            [
                (
                    9,
                    77,
                    "score range [4, 10] overlaps the one before; ranges must be in order "
                    "and cover 0 to 10 without gaps",
                )
            ],
        ),
        (
            "[{score_range: [0, 3], outcome: a}, {score_range: [5, 10], outcome: b}]",
            [
                (
                    9,
                    77,
                    "score range [5, 10] leaves 4-4 uncovered; ranges must be in order and cover "
                    "0 to 10 without gaps",
                )
            ],
        ),
        (
            "[{score_range: [0, 4], outcome: a}, {score_range: [5, 9], outcome: b}]",
            [(9, 27, "score ranges stop at 9; they must cover 0 to 10")],
        ),
        (
            "[{score_range: [0, 11], outcome: a}]",
            [(9, 42, "score range [0, 11] is outside 0 to 10 or reversed")],
        ),
        (
            "[{score_range: [0, 2.5], outcome: a}]",
            [(9, 42, "a score range needs two whole numbers from 0 to 10")],
        ),
        (
            "{2: a, 5: b}",
            [
                (
                    9,
                    28,
                    "score range [2, 4] leaves 0-1 uncovered; ranges must be in order and cover "
                    "0 to 10 without gaps",
                )
            ],
        ),
    ],
)
def test_score_ranges(ranges: str, expected: list[tuple[object, ...]]) -> None:
    text = f"""\
tests:
  - id: tone
    criteria: Polite.
    assertions:
      - type: rubrics
        rubrics:
          - id: polite
            outcome: Polite
            score_ranges: {ranges}
"""
    assert [
        (line, col, msg)
        for line, col, rule, msg in found("evals/x.eval.yaml", text)
        if rule == "score-ranges"
    ] == expected


def test_regexes_are_compiled_as_javascript() -> None:
    def problems(pattern: str) -> list[object]:
        text = (
            f"tests:\n  - id: a\n    criteria: c\n    assertions:\n"
            f"      - {{type: regex, value: '{pattern}'}}\n"
        )
        return [f[3] for f in found("evals/x.eval.yaml", text) if f[2] == "invalid-regex"]

    assert problems(r"(?<year>\d{4})-\k<year>") == []
    assert problems(r"order [0-9+") == [
        "pattern does not compile: unterminated character set at position 6"
    ]
    assert problems(r"(?P<year>\d{4})") == [
        "JavaScript's RegExp, which AgentV uses, does not accept '(?P<'; write (?<name>…)"
    ]
    # JavaScript accepts \A: as the letter A, which is what the message must say.
    assert problems(r"\Aorder") == [
        "JavaScript's RegExp, which AgentV uses, reads '\\\\A' as the letter 'A', not the start "
        "of the text; write ^"
    ]
    text = (
        "tests:\n  - id: a\n    criteria: c\n    assertions:\n"
        "      - {type: regex, value: 'x\\Z'}\n"
    )
    assert [(f[0], f[1]) for f in found("evals/x.eval.yaml", text) if f[2] == "invalid-regex"] == [
        (5, 30)
    ]


def test_spec_evaluators_need_their_fields() -> None:
    text = """\
name: refunds
evalcases:
  - id: a
    expected_outcome: o
    input: hi
    execution:
      evaluators:
        - {name: j, type: llm_judge}
        - {name: s, type: code_judge, script: [python, check.py]}
        - {name: c, type: composite, aggregator: {type: minimum}}
"""
    # An llm_judge without a prompt uses AgentV's default grader prompt (2.6.1), so only the
    # composite without members is an error, though the spec's schema asks for a prompt too.
    assert [f for f in found("EVAL.yaml", text) if f[2] == "schema-violation"] == [
        (10, 11, "schema-violation", "missing required key 'evaluators'"),
    ]


def test_agentv_2_suites_need_no_name_and_outcome_only_cases_no_expected_messages() -> None:
    """AgentV 2.6.1 loads `evalcases` suites without the spec's `name`; 0.10 loads cases with no
    `expected_messages` (outcome-only evaluation)."""
    v2x = "evalcases:\n  - id: a\n    expected_outcome: o\n    input: hi\n"
    assert found("evals/dataset.yaml", v2x) == []
    v010 = (
        "$schema: agentv-eval-v2\nevalcases:\n  - id: a\n    outcome: o\n"
        "    input_messages:\n      - {role: user, content: hi}\n"
    )
    # No error: only the warning that the schema it declares asks for them.
    assert [f[2] for f in found("evals/dataset.yaml", v010)] == ["agentv-v2-required"]


V4_LEGACY = """\
tests:
  - id: window
    input: How long do refunds take?
    expected_outcome: Mentions the 30-day window.
    rubrics:
      - Mentions 30 days
    assertions:
      - type: rubric
        rubrics: [Mentions 30 days]
      - type: code_judge
        script: ["python3", "check.py"]
"""


def test_v4_hints_say_what_agentv_4_does_with_each_legacy_spelling() -> None:
    """AgentV 4.42.4 reads `expected_outcome` and `type: rubric` with a deprecation warning,
    reads test-level `rubrics` as sugar (no finding), and skips `-judge` grader types."""
    assert found("evals/refunds.eval.yaml", V4_LEGACY) == [
        (
            4,
            5,
            "agentv-migration",
            "'expected_outcome' is deprecated in this dialect (still read, with a warning); "
            "use 'criteria' (renamed in AgentV 2.7)",
        ),
        (
            8,
            15,
            "agentv-migration",
            "grader type 'rubric' is deprecated in this dialect (still read, with a warning); "
            "use 'rubrics'",
        ),
        (
            10,
            15,
            "agentv-migration",
            "grader type 'code_judge' is not used in this dialect; use 'code-grader'",
        ),
    ]


def test_promptfoo_configs_are_not_agentv_suites() -> None:
    """promptfoo's own camelCase keys (`defaultTest`) and file name mark its configs; AgentV's
    next dialect spells them in snake_case, so 'did you mean default_test' would be wrong."""
    text = (
        "prompts: ['Answer: {{question}}']\nproviders: [openai:gpt-4.1]\n"
        "defaultTest:\n  assert: []\ntests:\n  - vars: {question: hi}\n"
    )
    assert found("evals/promptfooconfig.yaml", text) == []
    report = lint(
        ["promptfooconfig.yaml"], DictSource({"promptfooconfig.yaml": "prompts: []\n"}), Config()
    )
    assert report.files_checked == 1  # as promptfoo's: it names no provider
    assert [d.rule for d in report.diagnostics] == ["schema-violation"]


def test_the_promptfoo_examples_are_not_taken_for_agentv() -> None:
    root = shared_or_skip("corpus", "other", "promptfoo")
    paths = sorted(p.relative_to(root).as_posix() for p in walk_files(root) if p.suffix == ".yaml")
    report = lint(paths, FsSource(root), Config())
    assert paths and report.files_checked == len(paths)
    assert not [d for d in report.diagnostics if "agentv" in d.rule or "grader" in d.rule]


def test_a_suite_the_runner_cannot_load_is_a_parse_error_at_the_line() -> None:
    """A python -c program in a flow sequence, its second line at column 0: libyaml folds it,
    AgentV's parser stops with 'Missing closing "quote'."""
    text = V4.replace("assert:", "assertions:") + (
        '      - type: code-grader\n        command: ["python3", "-c", "import sys\n'
        'print(sys.stdin.read())"]\n'
    )
    got = found("evals/refunds.eval.yaml", text, given={"evals/policy.md": "x"})
    assert [(line, col, rule) for line, col, rule, _ in got] == [(17, 1, "parse-error")]
    assert got[0][3].startswith("this line continues a value begun above but is indented 0")


def test_unknown_grader_types_get_a_suggestion_and_custom_assertions_count() -> None:
    text = """\
tests:
  - id: a
    criteria: c
    input: hi
    assertions:
      - type: contains_anyy
        value: [x]
      - type: contains_any
        value: [x]
      - type: word-count
      - type: composite
        assertions:
          - type: llm-gradr
"""
    given = {"evals/.agentv/assertions/word-count.ts": "export default 1\n"}
    assert found("evals/deep/x.eval.yaml", text, given=given) == [
        (
            6,
            15,
            "unknown-grader-type",
            "unknown grader type 'contains_anyy'; did you mean 'contains-any'?",
        ),
        (
            13,
            19,
            "unknown-grader-type",
            "unknown grader type 'llm-gradr'; did you mean 'llm-grader'?",
        ),
    ]
    assert [f[2] for f in found("evals/deep/x.eval.yaml", text)].count("unknown-grader-type") == 3


def test_next_dialect_types_take_a_not_prefix() -> None:
    text = """\
prompts: ["{{ q }}"]
tests:
  - vars: {q: hi}
    assert:
      - type: not-contains
        value: x
      - type: contains-anyy
        value: [x]
"""
    assert found("evals/x.eval.yaml", text) == [
        (
            7,
            15,
            "unknown-grader-type",
            "unknown grader type 'contains-anyy'; did you mean 'contains-any'?",
        )
    ]


SPEC_NOW = """\
name: code-review
version: "1.0"
assert:
  - name: correctness
    type: llm_judge
    prompt: ./prompts/correctness.md
tests:
  - id: off-by-one
    criteria: Identifies the loop condition bug.
    input: Review this function.
    assert:
      - name: bug_check
        type: code_judge
        script: ["python", "./judges/bug_check.py"]
"""


def test_the_specs_current_shape_is_the_spec_without_migration_hints() -> None:
    """agentevals.io's eval-format page (61ec10d): `name`, `tests` with `criteria`, and
    `assert` lists of snake_case judges, at the suite and in a test."""
    judge = {"evals/prompts/correctness.md": "Is the answer correct?"}
    assert found("evals/EVAL.yaml", SPEC_NOW, given=judge) == []
    text = SPEC_NOW.replace("    criteria: Identifies the loop condition bug.\n", "").replace(
        "    assert:\n", "    assertions:\n"
    )
    assert found("evals/EVAL.yaml", text, given=judge) == [
        (8, 5, "schema-violation", "missing required key 'criteria'"),
        (
            10,
            5,
            "agentv-migration",
            "'assertions' is not read in this dialect; use 'assert' (the spec's name)",
        ),
    ]


def test_next_dialect_types_promptfoo_has_but_agentv_does_not_support_yet() -> None:
    """AgentV 5.3.1-next.1 rejects promptfoo's `bleu` as future scope (an error), and reads
    `contains_any` as `contains-any`."""
    text = (
        'prompts: ["{{ q }}"]\ntests:\n  - vars: {q: hi}\n    assert:\n'
        "      - {type: bleu, value: x}\n      - {type: contains_any, value: [x]}\n"
    )
    assert found("evals/x.eval.yaml", text) == [
        (
            5,
            16,
            "agentv-rejected",
            "grader type 'bleu' is a promptfoo type AgentV 5 does not support yet; its "
            "validator rejects it",
        )
    ]


def test_suite_level_and_grouped_graders_get_the_type_hint_too() -> None:
    text = (
        "assertions:\n  - {type: code_judge, command: [x]}\ntests:\n  - id: a\n    criteria: c\n"
        "    input: hi\n    assertions:\n      - type: composite\n        assertions:\n"
        "          - {type: llm_judge}\n"
    )
    got = [(line, col, rule) for line, col, rule, _ in found("evals/x.eval.yaml", text)]
    assert got == [
        (2, 12, "agentv-migration"),
        (10, 20, "agentv-migration"),
    ]


# Other tools' `eval.yaml`, written here in each family's shape: a Hugging Face benchmark, the
# inspect_evals metadata, a skill grader's and an agent harness's configuration.
OTHER_EVAL_YAML = {
    "hf-benchmark": (
        "name: Tiny Bench\ndescription: A small benchmark.\nevaluation_framework: inspect-ai\n"
        "tasks:\n  - id: tiny\n    config: default\n    split: test\n"
        "    field_spec: {input: question, target: answer}\n"
        "    solvers: [{name: generate}]\n    scorers: [{name: match}]\n"
    ),
    "inspect-evals": (
        'title: "Tiny: a small evaluation"\ndescription: Measures small things.\n'
        'group: Reasoning\ncontributors: [someone]\nversion: "1-A"\n'
        "tasks:\n  - name: tiny\n    dataset_samples: 100\n"
    ),
    "skill-grader": (
        'version: "1"\ndefaults: {agent: gemini, trials: 5}\n'
        "tasks:\n  - name: create-config\n    instruction: Create a config.\n"
        "    graders: [{type: deterministic, run: node check.js, weight: 0.7}]\n"
    ),
    "agent-harness": (
        "name: x-eval\nskill: x.speedrun\nrunner: claude-code\ndataset: {path: cases}\n"
        "outputs:\n  - path: artifacts/reviews\n"
        "judges: [{name: score, module: eval.judges, function: score}]\n"
        "thresholds: {score: {min_mean: 6.0}}\n"
    ),
    # The same harness's run config, with an `execution` block (a key AgentV has too): its
    # other keys outweigh it (model-routing-eval's eval.yaml, a public repository's).
    "agent-harness-run": (
        "name: model-routing-eval\nexecution: {mode: case, timeout: 2400}\n"
        "runner: {type: claude-code}\ndataset: {path: eval/cases}\n"
        "hooks:\n  before_each: [{command: python prepare.py}]\n"
        "judges: [{name: tests_pass, check: return True}]\n"
        "thresholds: {tests_pass: {min_pass_rate: 0.8}}\n"
    ),
}


@pytest.mark.parametrize("name", ["eval.yaml", "bench/eval.yml", "Eval.yaml"])
@pytest.mark.parametrize("family", sorted(OTHER_EVAL_YAML))
def test_another_tools_eval_yaml_gets_no_agentv_finding(family: str, name: str) -> None:
    """`eval.yaml` is a name several tools use: a file whose keys are not AgentV's is left
    alone (skipped with the reason), never reported as a suite missing `tests`. (The spec's
    `EVAL.yaml`, in capitals, is AgentV's own name.)"""
    files = {name: OTHER_EVAL_YAML[family]}
    report = lint([name], DictSource(files), Config(), tree=[name])
    assert report.diagnostics == ()
    own = {"hf-benchmark": "Hugging Face benchmark", "inspect-evals": "inspect_evals evaluation"}
    if family in own:  # a kind of its own, and clean
        assert own[family] in next(label for _, label in report.kinds)
        return
    assert report.files_checked == 0
    assert [s.path for s in report.skipped] == [name]
    assert "not AgentV's" in report.skipped[0].reason


def test_a_broken_agentv_eval_yaml_is_still_a_suite() -> None:
    """The weight of the evidence: `testes` is a misspelt `tests`, so the file is AgentV's, and
    gets AgentV's findings; a suite with AgentV's keys is checked as one."""
    broken = "description: Refunds\ntestes:\n  - id: w\n    input: How long?\n"
    assert [(f[0], f[1], f[2]) for f in found("eval.yaml", broken)] == [(2, 1, "key-typo")]
    good = "description: Refunds\ntests:\n  - id: w\n    input: How long?\n    criteria: Says 30.\n"
    assert found("eval.yaml", good) == []
    spec = "name: refunds\nevalcases:\n  - id: w\n    expected_outcome: Says 30.\n    input: Hi\n"
    report = lint(["EVAL.yaml"], DictSource({"EVAL.yaml": spec}), Config(), tree=["EVAL.yaml"])
    assert report.files_checked == 1


NEXT_SCRIPTS = """\
prompts: ["{{ input }}"]
extensions:
  - file://hooks.mjs:beforeAll
  - file://hooks.mjs:afterAll
tests: file://cases.py:make_cases
"""
SCRIPTS_GIVEN = {
    "evals/cases.py": "def make_cases():\n    return []\n",
    "evals/hooks.mjs": "export async function beforeAll() {}\n"
    "export async function afterAll() {}\n",
}


def test_next_script_case_files_and_extensions_name_a_function_after_the_colon() -> None:
    # AgentV 5 strips `:make_cases` after `.py` (case-file-loader.ts), so the script is found.
    assert found("evals/x.eval.yaml", NEXT_SCRIPTS, given=SCRIPTS_GIVEN) == []
    text = NEXT_SCRIPTS.replace("make_cases", "make_case").replace(":afterAll", ":afterEach")
    assert found("evals/x.eval.yaml", text, given=SCRIPTS_GIVEN) == [
        (4, 5, "agentv-function", "file://hooks.mjs:afterEach: evals/hooks.mjs never names "
         "'afterEach'"),
        (5, 8, "agentv-function", "file://cases.py:make_case: evals/cases.py defines no "
         "'make_case'; did you mean 'make_cases'?"),
    ]  # fmt: skip
    gone = {"evals/cases.py": SCRIPTS_GIVEN["evals/cases.py"]}
    assert [f[:3] for f in found("evals/x.eval.yaml", NEXT_SCRIPTS, given=gone)] == [
        (3, 5, "missing-file"),
        (4, 5, "missing-file"),
    ]


def test_agentv_4_reads_a_case_file_with_a_colon_literally() -> None:
    # AgentV 4.42.4 has no `:function` suffix: `cases.py:make_cases` is a file of that name.
    text = "tests: cases.py:make_cases\n"
    assert [f[:3] for f in found("evals/x.eval.yaml", text, given=SCRIPTS_GIVEN)] == [
        (1, 8, "missing-file")
    ]


def test_agentv_4_42_rejects_the_repo_keys_4_38_removed() -> None:
    text = """\
workspace:
  repos:
    - {path: app, source: {type: git, url: x}, checkout: {ref: main}}
tests:
  - id: a
    criteria: c
    input: hi
    workspace:
      repos:
        - {path: app, repo: x, clone: {depth: 1}}
"""
    assert [f[:3] for f in found("evals/x.eval.yaml", text)] == [
        (3, 19, "agentv-rejected"),
        (3, 48, "agentv-rejected"),
        (10, 32, "agentv-rejected"),
    ]
    message = found("evals/x.eval.yaml", text)[0][3]
    assert message == (
        "workspace repo key 'source': AgentV 4.38 removed it and 4.42.4 refuses the file; name "
        "the repository under 'repo'"
    )
    # A project that runs an earlier release (the settings say which) is not held to it.
    older = Config(agentv_version="4.37.2")
    assert found("evals/x.eval.yaml", text, config=older) == []


NEXT_REJECTED = """\
prompts: ["{{ q }}"]
target: default
evaluate_options:
  repeat: {count: 3}
workspace:
  template: ./template
environment:
  type: host
  workdir: .
  services: [db]
  setup: {command: [make], args: [x]}
tests:
  - vars: {q: hi}
    input: hi
    criteria: Polite.
    assert:
      - {type: rubrics, value: x}
      - {type: llm_grader, prompt: x}
      - {type: tool-trajectory, mode: any_order}
  - vars: {q: hi}
    workspace: ./ws.yaml
    run: {repeat: 0}
"""


def test_agentv_5_rejects_what_it_removed_and_says_what_replaces_it() -> None:
    assert [f[:3] for f in found("evals/x.eval.yaml", NEXT_REJECTED)] == [
        (2, 1, "agentv-rejected"),  # target
        (4, 11, "agentv-rejected"),  # repeat as an object
        (6, 3, "agentv-rejected"),  # workspace.template
        (10, 3, "agentv-rejected"),  # environment.services
        (11, 28, "agentv-rejected"),  # environment.setup.args
        (14, 5, "agentv-rejected"),  # a test's input
        (15, 5, "agentv-rejected"),  # criteria beside assert
        (17, 16, "agentv-rejected"),  # rubrics
        (18, 16, "agentv-rejected"),  # llm_grader
        (19, 16, "agentv-rejected"),  # tool-trajectory
        (21, 16, "agentv-rejected"),  # workspace as a file
        (22, 19, "agentv-rejected"),  # repeat 0
    ]
    messages = [f[3] for f in found("evals/x.eval.yaml", NEXT_REJECTED)]
    assert messages[0] == "'target': AgentV 5 rejects it; use 'providers'"
    assert messages[2] == (
        "workspace.template: AgentV 5 rejects it; use environment.workdir and environment.setup"
    )
    assert messages[3] == (
        "'services' is not a key of a host environment recipe; AgentV 5 takes env, setup, "
        "type, workdir"
    )
    assert (
        messages[7] == "grader type 'rubrics': AgentV 5 rejects it; use 'llm-rubric' with a value"
    )


def test_agentv_4_checks_the_workspace_template_and_the_scripts_hooks_run() -> None:
    # AgentV 4.42 validate: "Template path not found", "Hook script not found"
    # (workspace-path-validator.ts); an argument is a file when it starts with ./ or ../ or
    # ends in a script extension, resolved from the hook's cwd.
    text = """\
workspace:
  template: ../workspace-template
  hooks:
    before_all:
      command: [bash, -c, ./setup.sh, "{{workspace_path}}/x.sh", /usr/bin/env.sh]
    after_each:
      cwd: ../scripts
      command: [node, reset.mjs]
tests:
  - {id: a, criteria: c, input: hi}
"""
    # AgentV 4 runs `{{workspace_path}}/x.sh` literally: no such file (4.42.4 validate says so).
    assert [f[:3] for f in found("evals/x.eval.yaml", text)] == [
        (2, 13, "missing-file"),
        (5, 27, "missing-file"),
        (5, 39, "missing-file"),
        (8, 23, "missing-file"),
    ]
    given = {
        "workspace-template/README.md": "",
        "evals/setup.sh": "",
        "evals/{{workspace_path}}/x.sh": "",
        "scripts/reset.mjs": "",
    }
    assert found("evals/x.eval.yaml", text, given=given) == []


def test_agentv_4_checks_a_shared_workspace_file_exists() -> None:
    # 4.42.4: "Failed to load external workspace file" (eval-validator.ts), an error.
    text = "workspace: ../workspace.yaml\ntests:\n  - {id: a, criteria: c, input: hi}\n"
    assert [f[:3] for f in found("evals/x.eval.yaml", text)] == [(1, 12, "missing-file")]
    assert found("evals/x.eval.yaml", text, given={"workspace.yaml": "template: t\n"}) == []


def test_a_file_in_a_hidden_folder_the_listing_lacks_is_not_called_missing() -> None:
    # Outside git the walk skips hidden folders: `.hooks/x.sh` may be there (a note, not an
    # error); a hidden folder the listing does hold is looked in.
    text = "workspace:\n  hooks:\n    before_all:\n      command: [bash, .hooks/x.sh]\n"
    text += "tests:\n  - {id: a, criteria: c, input: hi}\n"
    assert [f[:3] for f in found("evals/x.eval.yaml", text)] == [(4, 23, "file-not-checked")]
    given = {"evals/.hooks/y.sh": ""}
    assert [f[:3] for f in found("evals/x.eval.yaml", text, given=given)] == [
        (4, 23, "missing-file")
    ]


V2_CASE = """\
$schema: agentv-eval-v2
evalcases:
  - id: a
    outcome: Polite.
    input_messages: [{role: user, content: hi}]
    execution:
      evaluators:
"""


def test_older_dialects_check_evaluator_types_against_their_runners() -> None:
    """AgentV 0.10-1.x (agentv-eval-v2) and 2.x (agentevals) skip an evaluator of a type they
    do not know, with a warning; AgentV 1.6.1 reads `code_judge` beside `outcome`."""
    v2 = V2_CASE + "        - {name: j, type: llm_jugde}\n"
    v2 += "        - {name: c, type: code_judge, script: x.py}\n"
    assert [f for f in found("evals/x.yaml", v2) if f[2] != "agentv-v2-required"] == [
        (8, 27, "unknown-grader-type", "unknown grader type 'llm_jugde'; did you mean 'llm_judge'?")
    ]
    spec = """\
name: spec-suite
evalcases:
  - id: a
    expected_outcome: Polite.
    input: hi
    execution:
      evaluators:
        - {name: t, type: tool_trajectry}
"""
    assert [f[:3] for f in found("evals/EVAL.yaml", spec)] == [(8, 27, "unknown-grader-type")]


def test_a_bare_prompt_path_is_read_by_agentv_2_only_when_found() -> None:
    """AgentV 0.10 to 2.x read `prompt: prompts/judge.md` as a file when they find it, from
    the suite's folder up; otherwise they send the path's text as the prompt (evaluator-parser.ts
    "Inline prompt used ... (file not found)")."""
    text = SPEC_NOW.replace("./prompts/correctness.md", "prompts/corectness.md")
    assert found("evals/EVAL.yaml", text, given={"prompts/correctness.md": "x"}) == [
        (
            6,
            13,
            "agentv-prompt-path",
            "no file 'prompts/corectness.md' (looked for evals/prompts/corectness.md, "
            "prompts/corectness.md); AgentV then sends the text 'prompts/corectness.md' itself "
            "as the judge's prompt",
        )
    ]
    found_above = {"prompts/corectness.md": "x"}
    assert found("evals/EVAL.yaml", text, given=found_above) == []
    prose = SPEC_NOW.replace("./prompts/correctness.md", "Is the answer correct?")
    assert found("evals/EVAL.yaml", prose) == []


def test_agentv_eval_v2_keys_its_declared_schema_requires() -> None:
    text = V2_CASE + "        - {type: llm_judge}\n"
    assert [f[:3] for f in found("evals/x.yaml", text)] == [
        (3, 5, "agentv-v2-required"),
        (8, 11, "agentv-v2-required"),
    ]
    # Without the declaration only the skipped evaluator is said.
    undeclared = text.replace("$schema: agentv-eval-v2\n", "")
    assert [f[:3] for f in found("evals/x.yaml", undeclared)] == [(7, 11, "agentv-v2-required")]


def test_the_agentv_release_is_a_setting() -> None:
    from evallint.errors import EvallintError
    from evallint.session.settings import from_table

    assert from_table({}, "t").agentv_version == "4.42.4"
    assert from_table({"agentv-version": "4.37.2"}, "t").agentv_version == "4.37.2"
    with pytest.raises(EvallintError, match="agentv-version"):
        from_table({"agentv-version": "latest"}, "t")


def test_agentvs_own_configuration_is_no_promptfoo_config() -> None:
    """`providers:` and `defaults:` (a near `defaultTest`) in AgentV's `.agentv/config.yaml`
    once made it a promptfoo config with warnings (AgentV's repository at 58f316c)."""
    config = (
        "$schema: agentv-config-v2\nproviders: file://providers.yaml\n"
        "defaults:\n  provider: default\n  grader: grader\n"
    )
    assert found(".agentv/config.yaml", config) == []
    assert found("templates/.agentv/providers.yaml", "providers:\n  - id: azure\n") == []
    assert found("x/cfg.yaml", config) == []  # the declared schema says it, whatever the name


def test_agentv_4_refuses_a_test_without_an_id() -> None:
    # 4.42.4 validate: "Missing or invalid 'id' field (must be a non-empty string)".
    text = "tests:\n  - criteria: c\n    input: hi\n  - id: b\n    criteria: c\n    input: ho\n"
    assert found("evals/x.eval.yaml", text) == [
        (2, 5, "schema-violation", "missing required key 'id'")
    ]


def test_hostile_values_in_the_new_agentv_rules_are_findings_not_crashes() -> None:
    """An environment `type` that is a list (unhashable) and a 200,000-character prompt of
    slashes answer at once, with findings: no crash, no quadratic scan."""
    import time

    suite = 'prompts: ["{{ q }}"]\nenvironment: {type: [host]}\ntests:\n  - vars: {q: hi}\n'
    assert [f[2] for f in found("evals/x.eval.yaml", suite)] == ["agentv-rejected"]
    slashes = "a/" * 100_000 + " x"
    text = (
        "tests:\n  - id: a\n    criteria: c\n    input: hi\n    assertions:\n"
        f"      - {{type: llm-grader, prompt: '{slashes}'}}\n"
    )
    started = time.perf_counter()
    assert found("evals/y.eval.yaml", text) == []
    assert time.perf_counter() - started < 5


@settings(max_examples=300, deadline=None)
@given(
    st.from_regex(
        r"[A-Za-z0-9_.\-]{0,6}(eval|EVAL|agentv|suite|Suite)?[A-Za-z0-9_.\-]{0,6}\.(ya?ml|YAML|json)",
        fullmatch=True,
    )
)
def test_the_suite_name_test_agrees_with_its_patterns(name: str) -> None:
    """The quick look for what both patterns need never turns a suite name away."""
    from evallint.formats.agentv import kinds as agentv

    whole = bool(agentv._SUITE_NAME.match(name) or agentv._SPEC_VARIANT.match(name))
    assert agentv.is_suite_name(f"x/{name}") == whole
