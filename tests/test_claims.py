"""A file is claimed by what it is: its path and name are evidence, its content decides. Other
tools' files that share a name or a folder with ours are left alone, with the reason; Git LFS
pointers are said to be pointers."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import lint_files, shared_or_skip
from evallint.config import Config
from evallint.formats.promptfoo import kinds as promptfoo_kinds
from evallint.kinds import KINDS
from evallint.model import Severity

Run = Callable[..., tuple[int, str, str]]

# OpenAI evals' samples: chat `input` and `ideal`, named `<name>_samples.jsonl`.
OPENAI_SAMPLES = (
    '{"input": [{"role": "system", "content": "Add."}, {"role": "user", "content": "1+1"}], '
    '"ideal": "2"}\n'
)
EEE_LINE = (
    '{"schema_version": "instance_level_eval_0.2.2", "evaluation_id": "e", "sample_id": "1"}\n'
)


def _found(files: dict[str, str], config: Config | None = None) -> list[tuple[str, int, str]]:
    return [(d.path, d.span.line, d.rule) for d in lint_files(files, config)]


def test_other_tools_samples_files_are_not_eee_records() -> None:
    assert _found({"registry/data/arith/arith_samples.jsonl": OPENAI_SAMPLES}) == []


def test_a_samples_file_with_eee_keys_is_still_an_eee_record() -> None:
    found = _found({"results/run_samples.jsonl": EEE_LINE})
    assert found and all(path == "results/run_samples.jsonl" for path, _, _ in found)
    assert {rule for _, _, rule in found} >= {"schema-violation"}


def test_a_samples_file_in_eees_layout_is_claimed_whatever_it_holds() -> None:
    """Beside its aggregate in EEE's layout the name is EEE's: a file that does not parse
    there is a parse-error, never a skip."""
    path = "data/helm/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e_samples.jsonl"
    assert "parse-error" in {rule for _, _, rule in _found({path: "{not json\n"})}
    assert _found({"elsewhere/x_samples.jsonl": "{not json\n"}) == []


PROJECT_RUBRIC = "name: helpfulness\ncriteria:\n  - {id: a, weight: 1}\nscale: [1, 5]\n"


def test_a_projects_own_rubric_format_is_not_an_ai_eval_rubric(run: Run, tmp_path: Path) -> None:
    assert _found({"evals/rubrics/rubric_v1.yaml": PROJECT_RUBRIC}) == []
    (tmp_path / "evals/rubrics").mkdir(parents=True)
    (tmp_path / "evals/rubrics/rubric_v1.yaml").write_text(PROJECT_RUBRIC)
    code, out, _ = run("check", "-v", ".", cwd=tmp_path)
    assert code == 0, out
    assert (
        "skipped evals/rubrics/rubric_v1.yaml: its keys are another tool's, not ai_eval "
        "rubric's (its folder's name alone is no claim)"
    ) in out


def test_a_misspelt_ai_eval_file_in_its_folder_is_still_claimed() -> None:
    rubric = 'id: r\nversion: "1.0.0"\nchekcs: []\nscoring: {combine: all_pass}\n'
    assert ("rubrics/r.yaml", 3, "key-typo") in _found({"rubrics/r.yaml": rubric})
    judge = 'id: j\nversion: "1.0.0"\ntemplat: "Grade {{ output }}"\n'
    assert ("judges/j.yaml", 3, "key-typo") in _found({"judges/j.yaml": judge})
    dataset = "questons:\n  - {id: q, input: hi}\n"
    assert ("datasets/d.yaml", 1, "key-typo") in _found({"datasets/d.yaml": dataset})


def test_other_tools_files_in_judges_and_datasets_folders_are_left_alone() -> None:
    judge = "name: strict\nprompt: Grade it.\nmodel: gpt-4.1\n"
    rows = "name: refunds\nsplits: [train, test]\nfeatures: {q: string}\n"
    assert _found({"judges/strict.yaml": judge, "datasets/refunds.yaml": rows}) == []


POINTER = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:8d2599ae3a6c1008a4091b67335cd7f9ca9301a49ddb842d5ffebf46b1245160\n"
    "size 3852\n"
)


def test_a_git_lfs_pointer_is_one_finding_whatever_its_path() -> None:
    paths = [
        "rubrics/tone.yaml",
        "data/helm/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e_samples.jsonl",
        "registry/data/arith/arith_samples.jsonl",
        "evals.json",
    ]
    found = lint_files(dict.fromkeys(paths, POINTER))
    assert sorted((d.path, d.span.line, d.span.column, d.rule) for d in found) == sorted(
        (p, 1, 1, "git-lfs-pointer") for p in paths
    )
    assert all(d.severity is Severity.WARNING for d in found)
    assert "(3,852 bytes)" in found[0].message and "lfs: true" in found[0].message


def test_a_setting_makes_a_pointer_an_error() -> None:
    config = Config(severities={"git-lfs-pointer": "error"})
    (found,) = lint_files({"rubrics/tone.yaml": POINTER}, config)
    assert found.severity is Severity.ERROR


def test_a_pointer_is_never_dropped_unsaid(run: Run, tmp_path: Path) -> None:
    """A run that selects other rules still counts the pointer as a file it did not read."""
    (tmp_path / "rubrics").mkdir()
    (tmp_path / "rubrics/tone.yaml").write_text(POINTER)
    code, out, _ = run("check", "--select", "key-typo", ".", cwd=tmp_path)
    assert code == 0 and "1 unreadable file skipped" in out, out


def test_the_openai_registry_gives_no_error_on_samples_or_pointers(run: Run) -> None:
    root = shared_or_skip("corpus", "other", "openai-evals", "upstream")
    _, out, _ = run("check", "--format", "json", "--no-cache", ".", cwd=root)
    found = json.loads(out)["diagnostics"]
    # The only errors are the registry's own two evals whose samples file is misspelt
    # (`butteryfly`; the data files say `butterfly`): `oaieval` fails reading them.
    errors = [(d["path"], d["rule"]) for d in found if d["severity"] == "error"]
    assert errors == [("registry/evals/stock-options.yaml", "oaieval-samples")] * 2
    pointers = [d for d in found if d["rule"] == "git-lfs-pointer"]
    assert len(pointers) > 600  # the registry's JSONL files are all pointers in git
    assert all(d["severity"] == "warning" for d in pointers)


_OWNER_KEYS = sorted(
    {"$schema", "name", "tests", "prompts", "providers", "evalcases", "task", "defaultTest"}
    | set(promptfoo_kinds._ONLY_SET)
    | set(promptfoo_kinds._CORE_SET)
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(_OWNER_KEYS),
        st.one_of(st.none(), st.just("https://promptfoo.dev/config-schema.json"), st.just([])),
    ),
    st.sampled_from(["a.yaml", "promptfooconfig.yaml", "x/promptfoo.yaml", "evals/EVAL.yaml"]),
)
def test_a_kind_that_owns_files_claims_by_content_only_files_it_owns(
    data: dict[str, object], path: str
) -> None:
    """A file no kind owns is not asked the owning kinds' content tests (they would say no):
    that holds only while each such kind's content test implies its owning."""
    for kind in KINDS:
        if kind.owns is not None and kind.by_content is not None and kind.by_content(path, data):
            assert kind.owns(path, data), (kind.name, path, data)
