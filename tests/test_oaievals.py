"""The OpenAI evals registry, as the `evals` package (3.0.1) loads it: names across files,
aliases, eval sets, reserved keys and samples paths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import evallint.api
from conftest import lint_files
from evallint.kinds import BY_NAME, path_kind
from test_git import Repo

MATCH = "  class: evals.elsuite.basic.match:Match\n  args: {{samples_jsonl: {}}}\n"
ARITH = "arith:\n  id: arith.dev.v0\narith.dev.v0:\n" + MATCH.format("arith/samples.jsonl")
DATA = {"registry/data/arith/samples.jsonl": '{"input": [], "ideal": "2"}\n'}


def _found(files: dict[str, str]) -> list[tuple[str, int, int, str]]:
    return sorted((d.path, d.span.line, d.span.column, d.rule) for d in lint_files(files))


def test_registry_files_are_claimed_by_their_folder_and_content() -> None:
    assert path_kind("registry/evals/arith.yaml", "yaml") is BY_NAME["oaieval-evals"]
    assert path_kind("registry/eval_sets/math.yaml", "yaml") is BY_NAME["oaieval-sets"]
    assert path_kind("registry/modelgraded/fact.yaml", "yaml") is BY_NAME["oaieval-modelgraded"]
    # The loader reads `*.yaml` directly in the folder: nothing else is a registry file.
    assert path_kind("registry/evals/sub/arith.yaml", "yaml") is None
    assert path_kind("registry/evals/arith.yml", "yaml") is None
    assert _found({"registry/evals/arith.yaml": ARITH, **DATA}) == []


def test_a_name_two_files_define_stops_the_registry() -> None:
    files = {"registry/evals/a.yaml": ARITH, "registry/evals/b.yaml": ARITH, **DATA}
    assert _found(files) == [
        ("registry/evals/b.yaml", 1, 1, "oaieval-duplicate"),
        ("registry/evals/b.yaml", 3, 1, "oaieval-duplicate"),
    ]


def test_an_alias_to_no_spec_and_a_set_member_matching_nothing() -> None:
    alias = ARITH.replace("id: arith.dev.v0", "id: arith.dev.v1")
    sets = "math:\n  evals: [arith.dev.v0, arith.*, arith.test.v0, other.*]\n"
    files = {"registry/evals/arith.yaml": alias, "registry/eval_sets/math.yaml": sets, **DATA}
    found = lint_files(files)
    assert sorted(
        (d.path, d.span.line, d.span.column, d.rule, d.severity.label) for d in found
    ) == [
        ("registry/eval_sets/math.yaml", 2, 34, "oaieval-set-member", "warning"),
        ("registry/eval_sets/math.yaml", 2, 49, "oaieval-set-member", "warning"),
        ("registry/evals/arith.yaml", 2, 7, "oaieval-unknown-name", "error"),
    ]
    (alias_finding,) = [d for d in found if d.rule == "oaieval-unknown-name"]
    assert alias_finding.message.endswith("did you mean 'arith.dev.v0'?")


def test_reserved_keys_and_samples_paths() -> None:
    spec = (
        "arith.dev.v0:\n  cls: evals.elsuite.basic.match:Match\n"
        "  args: {samples_jsonl: arith/sample.jsonl}\n"
    )
    assert _found({"registry/evals/arith.yaml": spec, **DATA}) == [
        ("registry/evals/arith.yaml", 2, 3, "oaieval-reserved-key"),
        ("registry/evals/arith.yaml", 3, 25, "oaieval-samples"),
    ]
    folder = "arith.dev.v0:\n" + MATCH.format("arith")  # a folder of JSONL files is read whole
    assert _found({"registry/evals/arith.yaml": folder, **DATA}) == []


def test_a_duplicate_key_in_a_registry_file_is_a_warning() -> None:
    """PyYAML's safe loader keeps the last value: the runner reads the file."""
    spec = "fact:\n  prompt: a\n  prompt: b\n  choice_strings: ABC\n  input_outputs: {i: o}\n"
    found = lint_files({"registry/modelgraded/fact.yaml": spec})
    assert [(d.span.line, d.rule, d.severity.label) for d in found] == [
        (3, "duplicate-key", "warning")
    ]


def test_specs_are_checked_as_the_spec_classes_build_them() -> None:
    """A text spec stops the loader; a spec lacks a field its class needs (an error) or holds a
    key the class ignores (a warning, with the key it probably meant); null is accepted where
    the class says Optional."""
    evals = (
        "arith:\n  id: arith.dev.v0\n  description:\n  metric: [accuracy]\n"
        "arith.dev.v0:\n  class: evals.elsuite.basic.match:Match\n"
        "  arg: {samples_jsonl: arith/samples.jsonl}\n"
        "arith.test.v0: arith.dev.v0\n"
        "arith.x.v0:\n  class: Match\n"
    )
    graded = "fact:\n  prompt: '{input} {completion}'\n  choice_strings: ABC\n  eval_typ: cot\n"
    found = lint_files(
        {"registry/evals/arith.yaml": evals, "registry/modelgraded/fact.yaml": graded, **DATA}
    )
    assert sorted(
        (d.path, d.span.line, d.span.column, d.rule, d.severity.label) for d in found
    ) == [
        ("registry/evals/arith.yaml", 4, 3, "unknown-key", "warning"),
        ("registry/evals/arith.yaml", 7, 3, "unknown-key", "warning"),
        ("registry/evals/arith.yaml", 8, 16, "schema-violation", "error"),
        ("registry/evals/arith.yaml", 10, 10, "schema-violation", "error"),
        ("registry/modelgraded/fact.yaml", 1, 1, "schema-violation", "error"),
        ("registry/modelgraded/fact.yaml", 4, 3, "unknown-key", "warning"),
    ]
    messages = {(d.path, d.span.line): d.message for d in found}
    assert (
        messages["registry/evals/arith.yaml", 4] == "unknown key 'metric'; did you mean 'metrics'?"
    )
    assert messages["registry/evals/arith.yaml", 7] == "unknown key 'arg'; did you mean 'args'?"
    assert "input_outputs" in messages["registry/modelgraded/fact.yaml", 1]


def test_a_basic_evals_samples_are_checked_at_their_line() -> None:
    """Match, Includes and FuzzyMatch assert `input` and `ideal` sample by sample; the samples
    file is checked once, whichever evals read it, and only for those classes."""
    evals = (
        ARITH
        + "arith.test.v0:\n"
        + MATCH.format("arith/samples.jsonl").replace(
            "basic.match:Match", "basic.includes:Includes"
        )
        + "other.dev.v0:\n  class: my.evals:Other\n  args: {samples_jsonl: other.jsonl}\n"
    )
    samples = (
        '{"input": [{"role": "user", "content": "1+1"}], "ideal": ["2", "two"]}\n'
        '{"input": "1+2", "answer": "3"}\n'
        '{"input": 3, "ideal": [3]}\n'
        "[]\n"
    )
    files = {
        "registry/evals/arith.yaml": evals,
        "registry/data/arith/samples.jsonl": samples,
        "registry/data/other.jsonl": "[]\n",
    }
    found = lint_files(files)
    assert sorted((d.path, d.span.line, d.span.column, d.rule) for d in found) == [
        ("registry/data/arith/samples.jsonl", 2, 1, "oaieval-sample"),
        ("registry/data/arith/samples.jsonl", 3, 11, "oaieval-sample"),
        ("registry/data/arith/samples.jsonl", 3, 23, "oaieval-sample"),
        ("registry/data/arith/samples.jsonl", 4, 1, "oaieval-sample"),
    ]
    assert found[0].message == "the sample has no 'ideal': the eval stops at it"


def test_choices_a_grader_cannot_score() -> None:
    spec = (
        "fact:\n  prompt: '{input} {completion}'\n  choice_strings: ['Yes', 'No.', 'Unsure']\n"
        "  choice_scores: {'Yes': 1.0, 'No.': 0.0}\n  input_outputs: {input: completion}\n"
        "ab:\n  prompt: '{input}'\n  choice_strings: AB\n  choice_scores: from_strings\n"
        "  input_outputs: {input: completion}\n"
        "named:\n  prompt: '{input}'\n  choice_strings: from_n\n  choice_scores: from_strings\n"
        "  input_outputs: {input: completion}\n"
    )
    found = lint_files({"registry/modelgraded/fact.yaml": spec})
    assert sorted((d.span.line, d.span.column, d.rule, d.message) for d in found) == [
        (3, 27, "oaieval-choices", "the choice 'No.' holds punctuation, which the grader refuses"),
        (
            4,
            18,
            "oaieval-choices",
            "no score for 'Unsure': the eval stops when the grader picks it",
        ),
        (8, 19, "oaieval-choices", "'from_strings' scores each choice as a number; 'A' is none"),
        (8, 19, "oaieval-choices", "'from_strings' scores each choice as a number; 'B' is none"),
    ]


def test_an_eval_that_changes_under_its_name_needs_a_new_version(tmp_path: Path) -> None:
    """In a real repository: a changed argument, and a changed samples file the eval reads,
    each at the changed line with the next name; a new name (.v1) or a change to the alias
    alone passes."""
    repo = Repo(tmp_path / "repo")
    repo.commit({"registry/evals/arith.yaml": ARITH, **DATA})
    repo.git("checkout", "-q", "-b", "change")

    def diff() -> list[tuple[str, int, int, str, str]]:
        report = evallint.api.check(cwd=repo.root, diff="main", cache=False)
        return [(d.path, d.span.line, d.span.column, d.rule, d.message) for d in report.diagnostics]

    few = ARITH.replace("args: {", "args: {num_few_shot: 4, ")
    repo.commit({"registry/evals/arith.yaml": few})
    assert diff() == [
        (
            "registry/evals/arith.yaml",
            5,
            24,
            "oaieval-version-not-bumped",
            "its argument 'num_few_shot' changed and 'arith.dev.v0' kept its name: rename it "
            "'arith.dev.v1'",
        )
    ]
    repo.commit({"registry/evals/arith.yaml": few.replace("arith.dev.v0", "arith.dev.v1")})
    assert diff() == []
    repo.commit(
        {
            "registry/evals/arith.yaml": ARITH,
            "registry/data/arith/samples.jsonl": DATA["registry/data/arith/samples.jsonl"] * 2,
        }
    )
    assert [f[:4] for f in diff()] == [
        ("registry/evals/arith.yaml", 5, 25, "oaieval-version-not-bumped")
    ]


def test_bump_renames_the_eval_and_fix_moves_its_alias(tmp_path: Path, run: Any) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit({"registry/evals/arith.yaml": ARITH, **DATA})
    repo.git("checkout", "-q", "-b", "change")
    few = ARITH.replace("args: {", "args: {num_few_shot: 4, ")
    repo.commit({"registry/evals/arith.yaml": few})
    code, out, _ = run("bump", "--diff", "main", cwd=repo.root)
    assert code == 0, out
    text = (repo.root / "registry/evals/arith.yaml").read_text(encoding="utf-8")
    assert "arith.dev.v1:\n" in text and "id: arith.dev.v0" in text
    code, out, _ = run("check", "--diff", "main", "--fix", cwd=repo.root)
    assert code == 0, out
    assert (repo.root / "registry/evals/arith.yaml").read_text(encoding="utf-8") == few.replace(
        "arith.dev.v0", "arith.dev.v1"
    )


def test_a_placeholder_no_sample_fills_and_a_key_input_outputs_reads() -> None:
    """Filled from the sample, the completions `input_outputs` names and the eval's
    `modelgraded_spec_args`; reported on the spec's prompt once an eval, and on each sample."""
    graded = (
        "fact:\n  prompt: 'Is {completion} true of {question}, as {judge} says?'\n"
        "  choice_strings: YN\n  input_outputs: {input: completion}\n"
        "alias:\n  id: fact\n"
    )
    evals = (
        "fact.dev.v0:\n  class: evals.elsuite.modelgraded.classify:ModelBasedClassify\n"
        "  args:\n    samples_jsonl: fact/samples.jsonl\n    modelgraded_spec: alias\n"
        "    modelgraded_spec_args: {judge: a teacher}\n"
    )
    samples = (
        '{"input": "Name a fruit.", "question": "Is it a fruit?"}\n{"input": "Name a car."}\n{}\n'
    )
    found = lint_files(
        {
            "registry/modelgraded/fact.yaml": graded,
            "registry/evals/fact.yaml": evals,
            "registry/data/fact/samples.jsonl": samples,
        }
    )
    assert sorted(
        (d.path, d.span.line, d.span.column) for d in found if d.rule == "oaieval-placeholder"
    ) == [
        ("registry/data/fact/samples.jsonl", 3, 1),
        ("registry/modelgraded/fact.yaml", 2, 11),
    ]
    (on_spec,) = [
        d for d in found if d.path.endswith("fact.yaml") and d.rule == "oaieval-placeholder"
    ]
    assert on_spec.message.startswith(
        "{question} is filled by nothing in the eval 'fact.dev.v0': line 2"
    )


def test_a_change_to_the_model_graded_spec_an_eval_grades_with_needs_a_new_version(
    tmp_path: Path, run: Any
) -> None:
    spec = "fact:\n  prompt: 'Is {completion} true of {input}?'\n  choice_strings: YN\n"
    spec += "  input_outputs: {input: completion}\n"
    graded = (
        "fact.dev.v0:\n  class: evals.elsuite.modelgraded.classify:ModelBasedClassify\n"
        "  args: {samples_jsonl: arith/samples.jsonl, modelgraded_spec: fact, "
        "eval_type: cot_classify}\n"
    )
    repo = Repo(tmp_path / "repo")
    repo.commit(
        {"registry/evals/fact.yaml": graded, "registry/modelgraded/fact.yaml": spec, **DATA}
    )
    repo.git("checkout", "-q", "-b", "change")
    repo.commit({"registry/modelgraded/fact.yaml": spec.replace("YN", "YNU")})
    expected = [
        [
            "registry/evals/fact.yaml",
            3,
            64,
            "its model-graded spec (registry/modelgraded/fact.yaml) changed and 'fact.dev.v0' "
            "kept its name: rename it 'fact.dev.v1'",
        ]
    ]
    # Under --base the whole tree is compared; under --diff the eval is not part of the change.
    code, out, _ = run("check", "--base", "main", "--format", "json", "--no-cache", cwd=repo.root)
    found = [
        [d["path"], d["line"], d["column"], d["message"]]
        for d in json.loads(out)["diagnostics"]
        if d["rule"] == "oaieval-version-not-bumped"
    ]
    assert (code, found) == (1, expected)


def test_a_model_graded_spec_is_looked_up_in_the_registry_and_the_packages() -> None:
    """`fact` is a spec of the registry evals 3.0.1 ships, which oaieval loads too."""
    spec = "fruit:\n  prompt: '{completion} {input}'\n  choice_strings: YN\n"
    spec += "  input_outputs: {input: completion}\n"

    def graded(name: str) -> str:
        return (
            "fact.dev.v0:\n  class: evals.elsuite.modelgraded.classify:ModelBasedClassify\n"
            f"  args: {{samples_jsonl: arith/samples.jsonl, modelgraded_spec: {name}, "
            "eval_type: classify}\n"
        )

    for name, expected in (("fruit", []), ("fact", []), ("fruits", [(3, 64)])):
        files = {"registry/evals/f.yaml": graded(name), "registry/modelgraded/f.yaml": spec}
        found = [
            (d.span.line, d.span.column, d.message)
            for d in lint_files({**files, **DATA})
            if d.rule == "oaieval-unknown-spec"
        ]
        assert [f[:2] for f in found] == expected, name
    assert found[0][2].endswith("did you mean 'fruit'?")
