"""Hugging Face Hub files: a benchmark's `eval.yaml` and a model's `.eval_results/*.yaml`,
checked as the Hub, Inspect AI and `huggingface_hub` read them, at exact lines and columns."""

from __future__ import annotations

from conftest import found, lint_files

BENCHMARK = """\
name: Tiny Bench
description: A small benchmark.
evaluation_framework: inspect-ai
tasks:
  - id: tiny
    config: default
    split: test
    field_spec:
      input: question
      target: answer
    solvers:
      - name: generate
    scorers:
      - name: match
"""

RESULTS = """\
- dataset:
    id: Idavidrein/gpqa
    task_id: gpqa_diamond
  value: 0.412
  date: "2025-01-15"
  source:
    url: https://huggingface.co/spaces/x/logs
    name: Eval logs
- dataset: {id: cais/hle, task_id: default}
  value: 20.9
"""


def _at(path: str, text: str) -> list[tuple[int, int, str]]:
    return [(line, col, rule) for line, col, rule, _ in found(path, text)]


def test_a_clean_benchmark_and_results_have_no_finding() -> None:
    assert found("eval.yaml", BENCHMARK) == []
    assert found("bench/eval.yaml", BENCHMARK.replace("inspect-ai", "math-arena")) == []
    assert found("model/.eval_results/gpqa.yaml", RESULTS) == []


def test_inspect_tasks_are_held_to_inspects_task_model() -> None:
    """Inspect AI rejects a task key it does not know, and needs a solver and a scorer."""
    text = BENCHMARK.replace("    scorers:\n      - name: match\n", "    metrics: [acc]\n")
    assert _at("eval.yaml", text) == [(5, 5, "schema-violation"), (13, 5, "unknown-key")]
    other = text.replace("inspect-ai", "mteb")  # other frameworks read id, config and split
    assert _at("eval.yaml", other) == []


def test_framework_solver_and_scorer_names_get_did_you_mean() -> None:
    text = BENCHMARK.replace("inspect-ai", "inspect_ai")
    assert found("eval.yaml", text)[0][:3] == (3, 23, "hf-unknown-framework")
    assert found("eval.yaml", text)[0][3].endswith("did you mean 'inspect-ai'?")
    text = BENCHMARK.replace("name: generate", "name: generat").replace("match", "mach")
    assert found("eval.yaml", text) == [
        (
            12,
            15,
            "hf-inspect-component",
            "solver 'generat' is not one Inspect AI builds from an eval.yaml; "
            "did you mean 'generate'?",
        ),
        (
            14,
            15,
            "hf-inspect-component",
            "scorer 'mach' is not one Inspect AI builds from an eval.yaml; did you mean 'match'?",
        ),
    ]


def test_task_ids_are_unique() -> None:
    text = BENCHMARK.replace("evaluation_framework: inspect-ai", "evaluation_framework: mteb")
    text += "  - id: tiny\n"
    assert _at("eval.yaml", text) == [(15, 9, "duplicate-case-id")]


def test_results_follow_huggingface_hubs_parser() -> None:
    """`dataset.id`, `dataset.task_id` and `value` are required; `source` needs a `url`; no
    unknown keys; an unquoted date is read as a date, not text (a warning with its fix)."""
    text = RESULTS.replace("    url: https://huggingface.co/spaces/x/logs\n", "")
    text = text.replace('"2025-01-15"', "2025-01-15").replace("task_id: default", "task: default")
    assert found("m/.eval_results/gpqa.yaml", text) == [
        (
            5,
            9,
            "hf-unquoted-date",
            "2025-01-15 is read by YAML as a date, not as text; quote it",
        ),
        (6, 3, "schema-violation", "missing required key 'url'"),
        (8, 3, "schema-violation", "missing required key 'task_id'"),
        (8, 27, "unknown-key", "unknown key 'task'; expected one of 'id', 'revision', 'task_id'"),
    ]


def test_a_results_file_is_a_list() -> None:
    assert _at("m/.eval_results/gpqa.yaml", "dataset: {id: a/b, task_id: t}\nvalue: 1\n") == [
        (1, 1, "parse-error")
    ]


INSPECT_EVALS = """\
title: "Tiny: a small evaluation"
description: Measures small things.
group: Reasoning
contributors: [someone]
tasks:
  - name: tiny
    dataset_samples: 100
"""


def test_inspect_evals_metadata_is_claimed_and_its_types_checked() -> None:
    """Never misread as another tool's `eval.yaml`; `title`, `description` and each task's
    `name` are text, as the registry's pages read them."""
    assert found("evals/tiny/eval.yaml", INSPECT_EVALS) == []
    text = INSPECT_EVALS.replace("  - name: tiny", "  - name: [tiny]")
    assert _at("evals/tiny/eval.yaml", text) == [(6, 11, "schema-violation")]


def test_broken_hub_files_fail_closed() -> None:
    """A benchmark, results or inspect_evals file that does not parse is claimed (by its key
    only it writes, its folder, its keys) and is a parse-error, never a silent skip."""
    assert _at("eval.yaml", "name: B\nevaluation_framework: [\n") == [(3, 1, "parse-error")]
    assert _at("m/.eval_results/r.yaml", "- dataset: {id: a/b\n") == [(2, 1, "parse-error")]
    assert _at("evals/x/eval.yaml", "title: T\ntasks:\n  - name: [t\n") == [(4, 1, "parse-error")]


def test_task_keys_at_the_top_level_are_errors_naming_the_task() -> None:
    text = (
        "name: Demo\ndescription: d\nevaluation_framework: inspect-ai\n"
        "field_spec: {input: question, target: answer}\nscorers: [{name: match}]\n"
        "tasks:\n  - id: demo\n    solvers: [{name: generate}]\n"
    )
    found = [d for d in lint_files({"eval.yaml": text}) if d.rule == "hf-misplaced-task-key"]
    assert [(d.span.line, d.span.column) for d in found] == [(4, 1), (5, 1)]
    assert found[0].message.endswith("move it into the task 'demo'")
