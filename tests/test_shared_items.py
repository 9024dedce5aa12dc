"""`shared-item`: an item of one dataset that another dataset of the project also asks, found
in whole runs (one process and several), over named files and changes (the index keeps each
dataset's input digests in its summary), in streamed files, and left alone where the
configuration lets datasets share items."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pytest

from conftest import lint_files
from evallint.config import Config
from evallint.engine.run import lint
from evallint.io.cache import MemoryCache
from evallint.io.source import FsSource
from evallint.model import Diagnostic, Severity
from evallint.read import CHUNK
from test_git import Repo

pytestmark = pytest.mark.usefixtures("no_ci_env")

DEV = 'questions:\n  - {id: window, input: "Can I return it?"}\n  - {id: fee, input: "Fee?"}\n'
TEST = (
    'questions:\n  - {id: late, input: "Too late?"}\n  - {id: window, input: "can I return it"}\n'
)
EVALS = json.dumps(
    {"skill_name": "refunds", "evals": [{"id": "a", "prompt": "Fee?", "expected_output": "No."}]}
)
SUITE = "tests:\n  - id: a\n    criteria: Says yes.\n    input: Too late?\n"
SAMPLES = '{"input": "Can I return it", "ideal": "Yes"}\n'
FILES = {
    "datasets/dev.yaml": DEV,
    "datasets/test.yaml": TEST,
    "skills/refunds/evals.json": EVALS,
    "suites/refunds.eval.yaml": SUITE,
    "registry/data/refunds/samples.jsonl": SAMPLES,
}
# (path, line, column, the earlier dataset named)
EXPECTED = [
    ("datasets/test.yaml", 3, 25, "datasets/dev.yaml"),
    ("registry/data/refunds/samples.jsonl", 1, 11, "datasets/dev.yaml"),
    ("skills/refunds/evals.json", 1, 59, "datasets/dev.yaml"),
    ("suites/refunds.eval.yaml", 4, 12, "datasets/test.yaml"),
]


def _shared(diagnostics: Iterable[Diagnostic]) -> list[tuple[str, int, int, str]]:
    return sorted(
        (d.path, d.span.line, d.span.column, d.text.split(" of ", 1)[1].split(":")[0])
        for d in diagnostics
        if d.rule == "shared-item"
    )


def test_an_item_another_dataset_asks_is_found_in_four_formats() -> None:
    """On the later dataset's input, naming the earliest dataset that asks it; a repeat within
    one dataset is `duplicate-input`'s, not this rule's."""
    assert _shared(lint_files(FILES)) == EXPECTED


def test_it_is_a_note_that_a_project_raises() -> None:
    found = [d for d in lint_files(FILES) if d.rule == "shared-item"]
    assert {d.severity for d in found} == {Severity.NOTE}
    raised = lint_files(FILES, Config(severities={"shared-item": "error"}))
    assert {d.severity for d in raised if d.rule == "shared-item"} == {Severity.ERROR}


def test_datasets_the_configuration_lets_share_items_are_left_alone() -> None:
    config = Config(share_items=("datasets/dev.yaml",))
    # Without dev.yaml in the comparison, the samples repeat test.yaml's item instead.
    assert _shared(lint_files(FILES, config)) == [
        ("registry/data/refunds/samples.jsonl", 1, 11, "datasets/test.yaml"),
        ("suites/refunds.eval.yaml", 4, 12, "datasets/test.yaml"),
    ]


def test_result_records_are_not_datasets() -> None:
    """Every run's records of one benchmark ask its items again: never held against others."""
    record = {
        "schema_version": "0.2.2",
        "evaluation_id": "e/1",
        "model_id": "org/model",
        "evaluation_name": "bench",
        "sample_id": "s1",
        "interaction_type": "single_turn",
        "input": {"raw": "Can I return it?", "reference": ["yes"]},
        "output": {"raw": ["yes"]},
        "answer_attribution": [],
        "evaluation": {"score": 1.0, "is_correct": True},
    }
    files = {
        "datasets/dev.yaml": DEV,
        "runs/a_samples.jsonl": json.dumps(record) + "\n",
        "runs/b_samples.jsonl": json.dumps(record) + "\n",
    }
    assert _shared(lint_files(files)) == []


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_several_processes_find_what_one_does(tmp_path: Path) -> None:
    # Enough files that the run is split between processes.
    files = {
        **FILES,
        **{f"datasets/more/{i:03}.yaml": DEV.replace("Fee", f"Fee {i}") for i in range(60)},
    }
    _write(tmp_path, files)
    paths = sorted(files)
    one = lint(paths, FsSource(tmp_path), Config(), tree=paths, jobs=1)
    many = lint(paths, FsSource(tmp_path), Config(), tree=paths, jobs=2)
    assert _shared(list(many.diagnostics)) == _shared(list(one.diagnostics))
    assert len(_shared(list(one.diagnostics))) == len(EXPECTED) + 60


@pytest.mark.parametrize("named", [p for p, *_ in EXPECTED] + ["datasets/dev.yaml"])
def test_a_run_over_named_files_reads_the_other_datasets(tmp_path: Path, named: str) -> None:
    """pre-commit passes the changed files: each finding the whole run has on a named file is
    there, and one on a later dataset outside the run that the named one now shares."""
    _write(tmp_path, FILES)
    whole = _shared(
        lint(sorted(FILES), FsSource(tmp_path), Config(), tree=sorted(FILES)).diagnostics
    )
    cache = MemoryCache(tmp_path, "")
    for store in (None, cache, cache):  # no cache, a cold one, the same warm
        report = lint([named], FsSource(tmp_path), Config(), tree=sorted(FILES), store=store)
        got = _shared(list(report.diagnostics))
        mine = [f for f in whole if f[0] == named or f[3] == named]
        assert [f for f in got if f[0] == named] == [f for f in whole if f[0] == named]
        assert set(got) <= set(whole) and set(mine) <= set(got), store


def test_a_diff_finds_the_item_a_change_shares(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    repo = Repo(tmp_path / "repo")
    repo.commit(
        {
            "datasets/dev.yaml": DEV,
            "datasets/test.yaml": 'questions:\n  - {id: a, input: "Hello?"}\n',
        }
    )
    repo.commit({"datasets/test.yaml": TEST})
    code, out, _ = run("check", "--diff", "HEAD~1", "--select", "shared-item", cwd=repo.root)
    assert "datasets/test.yaml:3:25: note: also an item of datasets/dev.yaml" in out, out
    # The earlier dataset changed: the later one outside the change gets the finding.
    repo.commit({"datasets/dev.yaml": DEV.replace("Fee?", "Too late?")})
    code, out, _ = run("check", "--diff", "HEAD~1", "--select", "shared-item", cwd=repo.root)
    assert "datasets/test.yaml:2:23: note: also an item of datasets/dev.yaml" in out, out
    assert code == 0


def test_a_streamed_file_is_compared_whole(tmp_path: Path) -> None:
    """A samples file larger than a chunk: its last record, chunks after the first, is found."""
    line = '{"input": "Question %d", "ideal": "x"}\n'
    count = CHUNK // len(line % 0) + 2000
    big = "".join(line % i for i in range(count))
    files = {
        "datasets/dev.yaml": f'questions:\n  - {{id: q, input: "Question {count - 1}"}}\n',
        "registry/data/z/samples.jsonl": big,
    }
    _write(tmp_path, files)
    paths = sorted(files)
    report = lint(paths, FsSource(tmp_path), Config(), tree=paths)
    assert _shared(list(report.diagnostics)) == [
        ("registry/data/z/samples.jsonl", count, 11, "datasets/dev.yaml")
    ]
    # Named alone, the other way round: the large file outside the run is read whole too.
    named = lint(["datasets/dev.yaml"], FsSource(tmp_path), Config(), tree=paths)
    assert _shared(list(named.diagnostics)) == _shared(list(report.diagnostics))
