"""The OpenAI evals registry against the `evals` package's own loader (3.0.1).

With `EVALLINT_EVALS_PYTHON` naming a Python that has `evals` (`.ci/run` makes one), the loader
is the judge: evallint has an error in a registry file exactly where the loader refuses a spec
of it (or the whole registry), or where an eval of it names samples that are not there. The
upstream registry in `../shared` and defects planted in a small registry are both compared.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import lint_files, shared_or_skip
from evallint.model import Severity

ORACLE = Path(__file__).with_name("oaievals_oracle.py")
MATCH = "  class: evals.elsuite.basic.match:Match\n  args: {samples_jsonl: arith/samples.jsonl}\n"
ARITH = "arith:\n  id: arith.dev.v0\n  metrics: [accuracy]\narith.dev.v0:\n" + MATCH
DATA = {"registry/data/arith/samples.jsonl": '{"input": [], "ideal": "2"}\n'}
GRADED = "fact:\n  prompt: '{input} {completion}'\n  choice_strings: AB\n  input_outputs: {i: o}\n"

# (name, files beside DATA, the errors evallint reports: (path, line, column, rule)).
PLANTED: tuple[tuple[str, dict[str, str], list[tuple[str, int, int, str]]], ...] = (
    ("clean", {"registry/evals/a.yaml": ARITH, "registry/modelgraded/f.yaml": GRADED}, []),
    (
        "ignored-keys",  # keys the spec classes ignore: warnings, never errors
        {
            "registry/evals/a.yaml": ARITH.replace("metrics", "metric") + "  description: d\n",
            "registry/modelgraded/f.yaml": GRADED + "  format_type: x\n",
            "registry/eval_sets/s.yaml": "math:\n  evals: [nothing.*]\n",
        },
        [],
    ),
    (
        "text-spec",
        {"registry/evals/a.yaml": ARITH + "arith.test.v0: arith.dev.v0\n"},
        [("registry/evals/a.yaml", 7, 16, "schema-violation")],
    ),
    (
        "no-class",
        {"registry/evals/a.yaml": ARITH.replace("  class: evals.elsuite.basic.match:Match\n", "")},
        [("registry/evals/a.yaml", 4, 1, "schema-violation")],
    ),
    (
        "args-a-list",
        {"registry/evals/a.yaml": ARITH.replace("{samples_jsonl: arith/samples.jsonl}", "[x]")},
        [("registry/evals/a.yaml", 6, 9, "schema-violation")],
    ),
    (
        "reserved-cls",
        {"registry/evals/a.yaml": ARITH.replace("  class:", "  cls:")},
        [("registry/evals/a.yaml", 5, 3, "oaieval-reserved-key")],
    ),
    (
        "duplicate",
        {"registry/evals/a.yaml": ARITH, "registry/evals/b.yaml": "arith.dev.v0:\n" + MATCH},
        [("registry/evals/b.yaml", 1, 1, "oaieval-duplicate")],
    ),
    (
        "alias-to-nothing",
        {"registry/evals/a.yaml": ARITH.replace("id: arith.dev.v0", "id: arith.dev.v1")},
        [("registry/evals/a.yaml", 2, 7, "oaieval-unknown-name")],
    ),
    (
        "samples-missing",
        {"registry/evals/a.yaml": ARITH.replace("arith/samples", "arith/sample")},
        [("registry/evals/a.yaml", 6, 25, "oaieval-samples")],
    ),
    (
        "modelgraded-no-input-outputs",
        {"registry/modelgraded/f.yaml": GRADED.replace("  input_outputs: {i: o}\n", "")},
        [("registry/modelgraded/f.yaml", 1, 1, "schema-violation")],
    ),
    (
        "set-without-evals",
        {"registry/evals/a.yaml": ARITH, "registry/eval_sets/s.yaml": "math:\n  eval: [arith.*]\n"},
        [("registry/eval_sets/s.yaml", 1, 1, "schema-violation")],
    ),
)


def _oracle_python() -> str:
    found = os.environ.get("EVALLINT_EVALS_PYTHON")
    if not found:
        pytest.skip(
            "no `evals` package to compare with: EVALLINT_EVALS_PYTHON names a Python that has "
            "evals 3.0.1 (.ci/run makes one)"
        )
    return found


def _verdicts(roots: list[Path]) -> dict[str, list[list[str]]]:
    done = subprocess.run(
        [_oracle_python(), str(ORACLE), *map(str, roots)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    verdicts: dict[str, list[list[str]]] = json.loads(done.stdout)
    return verdicts


def _errors(files: dict[str, str]) -> list[tuple[str, int, int, str]]:
    return sorted(
        (d.path, d.span.line, d.span.column, d.rule)
        for d in lint_files(files)
        if d.severity is Severity.ERROR
    )


@pytest.mark.parametrize(("name", "files", "expected"), PLANTED, ids=[p[0] for p in PLANTED])
def test_planted_defects_are_found_at_their_place(
    name: str, files: dict[str, str], expected: list[tuple[str, int, int, str]]
) -> None:
    assert _errors({**files, **DATA}) == expected


def test_the_loader_refuses_exactly_what_evallint_calls_an_error(tmp_path: Path) -> None:
    roots = []
    for name, files, _ in PLANTED:
        for path, text in {**files, **DATA}.items():
            target = tmp_path / name / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        roots.append(tmp_path / name / "registry")
    verdicts = _verdicts(roots)
    for (name, _, expected), root in zip(PLANTED, roots, strict=True):
        refused = bool(verdicts[str(root)])
        assert refused == bool(expected), (name, verdicts[str(root)])


def test_the_upstream_registry_has_errors_exactly_where_the_loader_fails() -> None:
    corpus = shared_or_skip("corpus", "other", "openai-evals")
    roots = sorted(p for p in corpus.rglob("registry") if (p / "evals").is_dir())
    verdicts = _verdicts(roots)
    done = subprocess.run(
        [sys.executable, "-m", "evallint", "check", "--format", "json", "--no-cache", "."],
        cwd=corpus,
        capture_output=True,
        text=True,
        timeout=600,
    )
    found = json.loads(done.stdout)["diagnostics"]
    mine = {d["path"] for d in found if d["severity"] == "error"}
    theirs = set()
    for root in roots:
        prefix = root.relative_to(corpus).as_posix()
        for where, _ in verdicts[str(root)]:
            assert where, f"the loader refuses {prefix} as a whole: {_}"
            theirs.add(f"{prefix}/{where}")
    assert mine == theirs


# Model-graded prompts the grader fills for every sample (name, prompt as written in YAML, the
# (line, column) evallint reports `oaieval-prompt-format` at, if any).
PROMPTS = (
    ("clean", "'{input} {{literal}} {completion}'", None),
    ("lone-open", "'{input} { {completion}'", (2, 11)),
    ("lone-close", "'{input} } {completion}'", (2, 11)),
    ("json", "'Reply {\"ok\": 1} to {input}'", (2, 11)),
    ("positional", "'{input} {} {completion}'", (2, 11)),
    ("chat", "[{role: user, content: '{input}'}, {role: system, content: 'a {0}'}]", (2, 70)),
)


def _graded(prompt: str) -> str:
    return (
        f"fact:\n  prompt: {prompt}\n  choice_strings: AB\n  input_outputs: {{input: completion}}\n"
    )


def test_prompts_the_grader_cannot_fill_are_found_where_the_grader_fails(tmp_path: Path) -> None:
    roots = []
    for name, prompt, at in PROMPTS:
        files = {"registry/modelgraded/f.yaml": _graded(prompt)}
        found = [
            (d.span.line, d.span.column)
            for d in lint_files(files)
            if d.rule == "oaieval-prompt-format"
        ]
        assert found == ([at] if at else []), name
        target = tmp_path / name / "registry/modelgraded/f.yaml"
        target.parent.mkdir(parents=True)
        target.write_text(_graded(prompt), encoding="utf-8")
        roots.append(tmp_path / name / "registry")
    done = subprocess.run(
        [_oracle_python(), str(ORACLE), "--prompts", *map(str, roots)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    verdicts = json.loads(done.stdout)
    for (name, _, at), root in zip(PROMPTS, roots, strict=True):
        assert bool(verdicts[str(root)]) == bool(at), (name, verdicts[str(root)])


# Registries `oaieval` runs with the `dummy` completion function (offline, `--dry-run`): the
# eval `mine` reads the samples given. (name, evals file, spec file, samples, evallint's errors
# as (path, line, rule)). The dummy grader never picks a choice, so a choice without a score
# (oaieval-choices) never stops it and is not here; punctuation and `from_strings` do.
GRADED_EVAL = (
    "mine:\n  id: mine.dev.v0\nmine.dev.v0:\n"
    "  class: evals.elsuite.modelgraded.classify:ModelBasedClassify\n"
    "  args: {samples_jsonl: fact/samples.jsonl, modelgraded_spec: mine, eval_type: classify}\n"
)
MATCH_EVAL = (
    "mine:\n  id: mine.dev.v0\nmine.dev.v0:\n"
    "  class: evals.elsuite.basic.match:Match\n  args: {samples_jsonl: fact/samples.jsonl}\n"
)
# (`fact` is an eval and a spec of the package's own registry, which oaieval loads too.)
SPEC = (
    "mine:\n  prompt: '{prompt}: {input} {completion}'\n  choice_strings: AB\n"
    "  input_outputs: {input: completion}\n"
)
SAMPLE = '{"input": [{"role": "user", "content": "1+1"}], "ideal": "2", "prompt": "p"}\n'
SAMPLES = "registry/data/fact/samples.jsonl"
RUNS: tuple[tuple[str, str, str, str, list[tuple[str, int, str]]], ...] = (
    ("match-clean", MATCH_EVAL, SPEC, SAMPLE, []),
    (
        "match-no-ideal",
        MATCH_EVAL,
        SPEC,
        SAMPLE + '{"input": "x"}\n',
        [(SAMPLES, 2, "oaieval-sample")],
    ),
    (
        "match-ideal-a-number",
        MATCH_EVAL,
        SPEC,
        SAMPLE.replace('"2"', "2"),
        [(SAMPLES, 1, "oaieval-sample")],
    ),
    ("match-broken-line", MATCH_EVAL, SPEC, SAMPLE + "{\n", [(SAMPLES, 2, "parse-error")]),
    ("graded-clean", GRADED_EVAL, SPEC, SAMPLE, []),
    (
        "graded-unfilled",
        GRADED_EVAL,
        SPEC,
        SAMPLE.replace(', "prompt": "p"', ""),
        [("registry/modelgraded/fact.yaml", 2, "oaieval-placeholder")],
    ),
    (
        "graded-no-eval-type",
        GRADED_EVAL.replace(", eval_type: classify", ""),
        SPEC,
        SAMPLE,
        [("registry/evals/fact.yaml", 5, "oaieval-eval-type")],
    ),
    (
        "graded-unknown-eval-type",
        GRADED_EVAL.replace("eval_type: classify", "eval_type: cot"),
        SPEC,
        SAMPLE,
        [("registry/evals/fact.yaml", 5, "oaieval-eval-type")],
    ),
    (
        "graded-eval-type-in-spec",
        GRADED_EVAL.replace(", eval_type: classify", ""),
        SPEC + "  eval_type: cot_classify\n",
        SAMPLE,
        [],
    ),
    (
        "graded-unknown-spec",
        GRADED_EVAL.replace("modelgraded_spec: mine", "modelgraded_spec: mien"),
        SPEC,
        SAMPLE,
        [("registry/evals/fact.yaml", 5, "oaieval-unknown-spec")],
    ),
    (
        "graded-punctuation",
        GRADED_EVAL,
        SPEC.replace("choice_strings: AB", "choice_strings: ['A.', B]"),
        SAMPLE,
        [("registry/modelgraded/fact.yaml", 3, "oaieval-choices")],
    ),
    (
        "graded-from-strings",
        GRADED_EVAL,
        SPEC + "  choice_scores: from_strings\n",
        SAMPLE,
        [
            ("registry/modelgraded/fact.yaml", 3, "oaieval-choices"),
            ("registry/modelgraded/fact.yaml", 3, "oaieval-choices"),
        ],
    ),
    (
        "graded-lone-brace",
        GRADED_EVAL,
        SPEC.replace("{prompt}:", "{prompt}: {"),
        SAMPLE,
        [("registry/modelgraded/fact.yaml", 2, "oaieval-prompt-format")],
    ),
)


def _run(python: str, registry: Path) -> bool:
    """Whether `oaieval dummy mine` runs every sample of the registry to its report."""
    oaieval = Path(python).with_name("oaieval")
    done = subprocess.run(
        [str(oaieval), "dummy", "mine", "--registry_path", str(registry), "--dry-run"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "OPENAI_API_KEY": "unused"},
        cwd=registry.parent,
    )
    return done.returncode == 0


def test_oaieval_runs_exactly_the_evals_evallint_passes(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    python = _oracle_python()
    roots = []
    for name, evals, spec, samples, expected in RUNS:
        files = {
            "registry/evals/fact.yaml": evals,
            "registry/modelgraded/fact.yaml": spec,
            SAMPLES: samples,
        }
        errors = sorted(
            (d.path, d.span.line, d.rule) for d in lint_files(files) if d.severity is Severity.ERROR
        )
        assert errors == expected, name
        for path, text in files.items():
            (tmp_path / name / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name / path).write_text(text, encoding="utf-8")
        roots.append(tmp_path / name / "registry")
    with ThreadPoolExecutor(4) as pool:
        ran = list(pool.map(lambda root: _run(python, root), roots))
    assert {name: ok for (name, *_), ok in zip(RUNS, ran, strict=True)} == {
        name: not expected for name, *_, expected in RUNS
    }
