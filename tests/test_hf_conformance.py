"""Real Hugging Face Hub and inspect_evals files, and the runners' own verdict on them.

The files under `tests/real/hf/` are small public files, kept as their repositories hold them
(`tests/real/hf/SOURCE.md` gives repository, path, commit and license). Each is claimed by its
family and has no error; another tool's `eval.yaml` is not claimed. Defects planted in them are
caught at their line. With `EVALLINT_HF_PYTHON` naming a Python that has `huggingface_hub` and
Inspect AI (`.ci/run` makes one), their verdicts are the judge: evallint has an error on a file
exactly when the runner refuses it, but for the disagreements listed in `JUSTIFIED`.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import lint_files
from evallint.config import Config
from evallint.engine.run import lint
from evallint.io.source import FsSource
from evallint.model import Diagnostic, Severity

HERE = Path(__file__).parent
REAL = HERE / "real" / "hf"
ORACLE = HERE / "hf_oracle.py"

# Each real file, and the kind it is (None: another tool's eval.yaml, never claimed).
FAMILY = {
    "hub-docs/hle/eval.yaml": "hf-benchmark",
    "hub-docs/aime-2026/eval.yaml": "hf-benchmark",
    "hub-docs/aime-2026-split/eval.yaml": "hf-benchmark",
    "decision-bench/eval.yaml": "hf-benchmark",
    "hub-docs/model/.eval_results/hle.yaml": "hf-eval-results",
    "hub-docs/model/.eval_results/gpqa.yaml": "hf-eval-results",
    "speciesism/eval.yaml": "inspect-evals-meta",
    "arcophos/eval.yaml": "inspect-evals-meta",
    "lerobot/eval.yaml": None,
}

# (name, real file, text replaced, replacement, (line, column, rule) evallint reports).
PLANTED = (
    (
        "solvers-misspelt",
        "decision-bench/eval.yaml",
        "solvers:",
        "solver:",
        # One slip, one finding: the misspelt key, which says `solvers` is missing.
        (15, 5, "unknown-key"),
    ),
    (
        "no-epochs",
        "decision-bench/eval.yaml",
        "split: train",
        "split: train\n    epochs: 0",
        (12, 13, "schema-violation"),
    ),
    (
        "field-typo",
        "decision-bench/eval.yaml",
        "target: target",
        "traget: target",
        (14, 7, "unknown-key"),
    ),
    (
        "args-not-a-mapping",
        "hub-docs/hle/eval.yaml",
        "      - name: generate",
        "      - name: generate\n        args: [x]",
        (31, 15, "schema-violation"),
    ),
    (
        "scorer-misspelt",
        "hub-docs/hle/eval.yaml",
        "model_graded_fact",
        "model_graded_facts",
        (33, 15, "hf-inspect-component"),
    ),
    (
        "config-a-number",
        "hub-docs/hle/eval.yaml",
        "config: default",
        "config: 2026",
        (14, 13, "yaml-implicit-type"),
    ),
    (
        "no-value",
        ".eval_results/gpqa.yaml",
        "  value: 0.412\n",
        "  score: 0.412\n",
        (1, 3, "schema-violation"),
    ),
    ("no-task-id", ".eval_results/gpqa.yaml", "task_id", "task", (1, 3, "schema-violation")),
    (
        "source-without-url",
        ".eval_results/hle.yaml",
        "    url: https://huggingface.co/spaces/SaylorTwift/smollm3-mmlu-pro",
        "",
        (8, 3, "schema-violation"),
    ),
    (
        "list-marker-dropped",
        ".eval_results/gpqa.yaml",
        "- dataset:",
        "dataset:",
        (4, 3, "parse-error"),
    ),
)

# Changes the runner accepts, which a stricter reading would call errors: Inspect reads its task
# model leniently, gives every field spec column a default and passes over a solver's other keys.
ACCEPTED = (
    ("epochs-as-text", "decision-bench/eval.yaml", "split: train", 'split: train\n    epochs: "2"'),
    (
        "shuffle-yes",
        "decision-bench/eval.yaml",
        "split: train",
        'split: train\n    shuffle_choices: "yes"',
    ),
    ("field-spec-defaults", "decision-bench/eval.yaml", "      target: target\n", ""),
    (
        "solver-note",
        "hub-docs/hle/eval.yaml",
        "      - name: generate",
        "      - name: generate\n        note: last",
    ),
    (
        "results-framework",
        ".eval_results/hle.yaml",
        "  notes:",
        "  evaluation_framework: hle\n  notes:",
    ),
)

# Where evallint's verdict is not the runner's, and why evallint's is the one to give.
JUSTIFIED = {
    # Inspect AI 0.3.285 refuses a scorer it does not know; evallint warns, since a newer Inspect
    # may know more (the names grow with its releases).
    "scorer-misspelt": "warning where Inspect refuses",
}


def _path(name: str) -> str:
    return "hub-docs/model/" + name if name.startswith(".eval_results/") else name


def _planted(name: str) -> tuple[str, str]:
    real, old, new = next(p[1:4] for p in (*PLANTED, *ACCEPTED) if p[0] == name)
    path = _path(real)
    text = (REAL / path).read_text(encoding="utf-8")
    assert old in text, (name, old)
    return path, text.replace(old, new, 1)


def _real_run() -> tuple[dict[str, str], list[Diagnostic]]:
    paths = sorted(str(p.relative_to(REAL)) for p in REAL.rglob("*.yaml"))
    report = lint(paths, FsSource(REAL), Config(), tree=paths)
    # A kind's title is its name and what it is: "hf-benchmark (Hugging Face ...)".
    kinds = {path: title.split(" ", 1)[0] for path, title in report.kinds}
    return kinds, list(report.diagnostics)


def test_every_real_file_is_claimed_by_its_family() -> None:
    kinds, _ = _real_run()
    assert kinds == {path: kind for path, kind in FAMILY.items() if kind}


def test_no_real_file_has_an_error() -> None:
    _, diagnostics = _real_run()
    assert [d for d in diagnostics if d.severity is Severity.ERROR] == []


@pytest.mark.parametrize("name", [p[0] for p in PLANTED])
def test_a_planted_defect_is_caught_at_its_line(name: str) -> None:
    path, text = _planted(name)
    at = next(p[4] for p in PLANTED if p[0] == name)
    found = [(d.span.line, d.span.column, d.rule) for d in lint_files({path: text})]
    assert at in found, found


@pytest.mark.parametrize("name", [p[0] for p in ACCEPTED])
def test_what_the_runner_accepts_is_no_error(name: str) -> None:
    path, text = _planted(name)
    assert _errors({path: text}) == set()


def _oracle_python() -> str:
    found = os.environ.get("EVALLINT_HF_PYTHON")
    if not found:
        pytest.skip(
            "no huggingface_hub and Inspect AI to compare with: EVALLINT_HF_PYTHON names a "
            "Python that has both (.ci/run makes one)"
        )
    return found


def _verdicts(root: Path, paths: list[str]) -> dict[str, str]:
    done = subprocess.run(
        [_oracle_python(), str(ORACLE), *paths],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    verdicts: dict[str, str] = json.loads(done.stdout)
    return verdicts


def _errors(files: dict[str, str]) -> set[str]:
    return {d.path for d in lint_files(files) if d.severity is Severity.ERROR}


def test_the_runners_agree(tmp_path: Path) -> None:
    """Every benchmark and results file, real and planted: an error exactly where the runner
    refuses it (`huggingface_hub` for results, Inspect AI for `inspect-ai` benchmarks)."""
    cases: dict[str, str] = {}
    for path, kind in FAMILY.items():
        if kind and kind != "inspect-evals-meta":
            cases[path] = (REAL / path).read_text(encoding="utf-8")
    for name, *_ in (*PLANTED, *ACCEPTED):
        path, text = _planted(name)
        cases[f"planted/{name}/{path}"] = text
    for path, text in cases.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    verdicts = _verdicts(tmp_path, sorted(cases))
    errors = set().union(*(_errors({p: t}) for p, t in cases.items()))
    disagree = {
        path: verdicts[path]
        for path in cases
        if verdicts[path] != "none"
        and (path in errors) != verdicts[path].startswith("reject")
        and not (path.startswith("planted/") and path.split("/")[1] in JUSTIFIED)
    }
    assert disagree == {}
    assert sum(v.startswith("reject") for v in verdicts.values()) >= len(PLANTED) - 1
