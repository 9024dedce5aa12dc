"""A deleted file breaks the eval files that name it: reported in diff mode, in pre-commit's
shape (named files) and, for a file deleted but not staged, in a full check. Real git
repositories in temporary folders."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from test_eee import MINIMAL_0_2_0
from test_git import Repo
from test_streaming import RECORD, sample

Run = Callable[..., tuple[int, str, str]]

SUITE = """\
name: refunds
tests:
  - id: window
    criteria: Says the 30-day window applies.
    input:
      - role: system
        content:
          - type: file
            value: prompts/policy.md
      - role: user
        content: Can I get a refund?
"""
FOLDER = "data/bench/acme/m"
UUID = "3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e"
SAMPLES = f"{FOLDER}/{UUID}_samples.jsonl"
MISSING = "evals/refunds.eval.yaml:9:20: error: 'prompts/policy.md' does not exist"


def _aggregate() -> str:
    record = {**MINIMAL_0_2_0, "detailed_evaluation_results": {"file_path": SAMPLES}}
    return json.dumps(record, indent=2) + "\n"


# Base refs from the environment would pick another base than the one each test names.
pytestmark = pytest.mark.usefixtures("no_ci_env")


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    root = tmp_path / "repo"
    r = Repo(root)
    r.commit(
        {
            "evals/refunds.eval.yaml": SUITE,
            "evals/prompts/policy.md": "Refunds within 30 days.\n",
            "evals/prompts/unused.md": "Nobody names this file.\n",
            "notes/todo.yaml": "items: []\n",
        },
        "base",
    )
    r.git("checkout", "-qb", "feature")
    return r


def _lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if not line.startswith("compared with")]


def test_diff_reports_the_suite_a_deleted_prompt_breaks(repo: Repo, run: Run) -> None:
    assert run("check", "--diff", "main", cwd=repo.root)[0] == 0
    repo.git("rm", "-q", "evals/prompts/policy.md")
    repo.git("commit", "-qm", "drop the prompt")
    code, out, _ = run("check", "--diff", "main", cwd=repo.root)
    assert code == 1
    assert _lines(out)[0].startswith(MISSING)


@pytest.mark.parametrize("spelt", ["prompts/polic\\x79.md", "prompts/polic\\u0079.md"])
def test_diff_reports_a_suite_that_spells_the_deleted_name_with_escapes(
    repo: Repo, run: Run, spelt: str
) -> None:
    """YAML may write any character of a name as an escape: the search for files that name a
    deleted file must not miss them (a file holding such an escape is read)."""
    repo.write({"evals/refunds.eval.yaml": SUITE.replace("prompts/policy.md", f'"{spelt}"')})
    repo.git("commit", "-qam", "spelt with an escape")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "feature")
    repo.git("checkout", "-q", "feature")
    assert run("check", "--diff", "main", cwd=repo.root)[0] == 0
    repo.git("rm", "-q", "evals/prompts/policy.md")
    code, out, _ = run("check", "--diff", "main", cwd=repo.root)
    assert code == 1
    assert "does not exist" in _lines(out)[0]


def test_a_deletion_nobody_notices_and_older_problems_stay_quiet(repo: Repo, run: Run) -> None:
    repo.write({"evals/refunds.eval.yaml": SUITE.replace("policy.md", "gone.md")})
    repo.git("commit", "-qam", "already broken on main")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "feature")
    repo.git("checkout", "-q", "feature")
    repo.git("rm", "-q", "evals/prompts/unused.md", "evals/prompts/policy.md")
    code, out, _ = run("check", "--diff", "main", cwd=repo.root)
    assert (code, _lines(out)[0][:16]) == (0, "0 files checked:")


def test_pre_commit_shape_reports_what_a_staged_deletion_breaks(repo: Repo, run: Run) -> None:
    repo.git("rm", "-q", "evals/prompts/policy.md")
    repo.write({"notes/todo.yaml": "items: [a]\n"})
    repo.git("add", "-A")
    code, out, _ = run("check", "notes/todo.yaml", cwd=repo.root)
    assert code == 1
    assert _lines(out)[0].startswith(MISSING)


@pytest.mark.parametrize("staged", [True, False])
def test_pre_commit_shape_reports_what_a_rename_breaks(repo: Repo, run: Run, staged: bool) -> None:
    """A file renamed away is gone under its old name: git reads a staged rename as a rename,
    not a deletion, unless asked not to."""
    if staged:
        repo.git("mv", "evals/prompts/policy.md", "evals/prompts/policy2.md")
    else:
        (repo.root / "evals/prompts/policy.md").rename(repo.root / "evals/prompts/policy2.md")
    repo.write({"notes/todo.yaml": "items: [a]\n"})
    code, out, _ = run("check", "notes/todo.yaml", cwd=repo.root)
    assert code == 1
    assert _lines(out)[0].startswith(MISSING)


@pytest.mark.parametrize("staged", [True, False])
def test_pre_commit_shape_reports_the_pin_a_deleted_rubric_breaks(
    repo: Repo, run: Run, staged: bool
) -> None:
    """pre-commit never passes a deleted file: a run over the files it does pass still counts
    the deleted rubric's id as its own, so the dataset left pointing at it is reported."""
    rubric = 'id: tone\nversion: "1.0.0"\nchecks: [{kind: php_lint, id: l}]\n'
    rubric += "scoring: {combine: all_pass}\n"
    dataset = '{"questions": [{"id": "q", "input": "x", "rubric_ref": "rubric\\/tone@1"}]}\n'
    repo.commit({"rubrics/tone.yaml": rubric, "datasets/d.json": dataset}, "a rubric")
    assert run("check", "notes/todo.yaml", cwd=repo.root)[0] == 0
    if staged:
        repo.git("rm", "-q", "rubrics/tone.yaml")
    else:
        (repo.root / "rubrics" / "tone.yaml").unlink()
    repo.write({"notes/todo.yaml": "items: [a]\n"})
    repo.git("add", "notes/todo.yaml")
    code, out, _ = run("check", "notes/todo.yaml", cwd=repo.root)
    assert code == 1
    assert _lines(out)[0] == (
        "datasets/d.json:1:56: error: no rubric with id 'tone' in the project [unknown-ref]"
    )


def test_the_api_reports_the_pin_a_deleted_rubric_breaks(repo: Repo) -> None:
    """`evallint.check` answers as the command does for pre-commit's shape."""
    import evallint

    rubric = 'id: tone\nversion: "1.0.0"\nchecks: [{kind: php_lint, id: l}]\n'
    rubric += "scoring: {combine: all_pass}\n"
    dataset = '{"questions": [{"id": "q", "input": "x", "rubric_ref": "rubric/tone@1"}]}\n'
    repo.commit({"rubrics/tone.yaml": rubric, "datasets/d.json": dataset}, "a rubric")
    repo.git("rm", "-q", "rubrics/tone.yaml")
    report = evallint.check(["notes/todo.yaml"], cwd=repo.root)
    found = [(d.path, d.span.line, d.span.column, d.rule) for d in report.diagnostics]
    assert found == [("datasets/d.json", 1, 56, "unknown-ref")]


def test_an_unstaged_deletion_counts_in_a_full_check(repo: Repo, run: Run) -> None:
    (repo.root / "evals/prompts/policy.md").unlink()  # rm, not git rm
    code, out, _ = run("check", cwd=repo.root)
    assert code == 1
    assert out.startswith(MISSING)
    code, out, _ = run("check", "notes/todo.yaml", cwd=repo.root)
    assert code == 1
    assert out.startswith(MISSING)


def test_diff_reports_the_aggregate_whose_instance_file_is_deleted(repo: Repo, run: Run) -> None:
    repo.commit({f"{FOLDER}/{UUID}.json": _aggregate(), SAMPLES: ""}, "records")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "feature")
    repo.git("checkout", "-q", "feature")
    repo.git("rm", "-q", SAMPLES)
    code, out, _ = run("check", "--diff", "main", cwd=repo.root)
    assert code == 1
    first = _lines(out)[0]
    assert first.startswith(f"{FOLDER}/{UUID}.json:") and first.endswith("[eee-companion]")
    assert f"does not exist (looked for {SAMPLES})" in first


INSTANCE = {**RECORD, "evaluation_id": "e"}  # an instance record of the aggregate "e"


def _records(repo: Repo, rows: int = 1) -> None:
    """An aggregate and its instance file, in agreement, on main and the branch."""
    import hashlib

    samples = "".join(json.dumps(sample(str(i), INSTANCE)) + "\n" for i in range(rows))
    detailed = {
        "file_path": SAMPLES,
        "total_rows": rows,
        "checksum": hashlib.sha256(samples.encode()).hexdigest(),
    }
    record = {**MINIMAL_0_2_0, "detailed_evaluation_results": detailed}
    repo.commit({f"{FOLDER}/{UUID}.json": json.dumps(record, indent=2) + "\n", SAMPLES: samples})
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "feature")
    repo.git("checkout", "-q", "feature")


@pytest.mark.parametrize("how", ["diff", "named"])
def test_a_changed_instance_file_reports_what_it_breaks_in_its_aggregate(
    repo: Repo, run: Run, how: str
) -> None:
    """The aggregate is not part of the change, but its checksum and row count read the
    instance file: a change that does not update them breaks it."""
    _records(repo)
    assert run("check", "--diff", "main", cwd=repo.root)[0] == 0
    with (repo.root / SAMPLES).open("a") as f:
        f.write(json.dumps(sample("9", INSTANCE)) + "\n")
    args = ["--diff", "main"] if how == "diff" else [SAMPLES]
    code, out, _ = run("check", *args, cwd=repo.root)
    rules = sorted(line.rpartition("[")[2] for line in _lines(out)[:-1])
    assert (code, rules) == (1, ["eee-checksum]", "eee-total-rows]"])
    assert all(line.startswith(f"{FOLDER}/{UUID}.json:") for line in _lines(out)[:-1])


@pytest.mark.parametrize("how", ["diff", "named"])
def test_a_changed_aggregate_reports_what_it_breaks_in_its_instance_file(
    repo: Repo, run: Run, how: str
) -> None:
    _records(repo)
    aggregate = repo.root / FOLDER / f"{UUID}.json"
    aggregate.write_text(
        aggregate.read_text().replace('"evaluation_id": "e"', '"evaluation_id": "f"')
    )
    args = ["--diff", "main"] if how == "diff" else [f"{FOLDER}/{UUID}.json"]
    code, out, _ = run("check", *args, cwd=repo.root)
    found = _lines(out)[:-1]
    assert code == 1 and len(found) == 1
    assert found[0].startswith(f"{SAMPLES}:1:") and found[0].endswith("[eee-instance-ids]")


def test_a_companion_already_out_of_step_stays_quiet(repo: Repo, run: Run) -> None:
    """What was broken before the change is not the change's to report."""
    _records(repo)
    with (repo.root / SAMPLES).open("a") as f:
        f.write(json.dumps(sample("8", INSTANCE)) + "\n")
    repo.git("commit", "-qam", "out of step on main")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "feature")
    repo.git("checkout", "-q", "feature")
    with (repo.root / SAMPLES).open("a") as f:
        f.write(json.dumps(sample("9", INSTANCE)) + "\n")
    # The checksum and the row count were wrong already: they stay wrong, with other values.
    code, out, _ = run("check", "--diff", "main", cwd=repo.root)
    # The changed instance file and the aggregate beside it, checked for what the change broke.
    assert (code, _lines(out)[0][:17]) == (0, "2 files checked: ")


OTHER = "4c1d2e3f-1d2a-4b3c-8d4e-5f6a7b8c9d0e"


@pytest.mark.parametrize(("how", "spelt"), [("diff", "e/1"), ("named", "e/1"), ("diff", "e\\/1")])
def test_a_new_record_that_takes_an_existing_evaluation_id_is_reported_in_both(
    repo: Repo, run: Run, how: str, spelt: str
) -> None:
    """The record already there is outside the change: a run over the change still reads it
    (found by its id, however JSON spells it), and both get the warning."""
    record = json.dumps({**MINIMAL_0_2_0, "evaluation_id": "e/1"}, indent=2)
    repo.commit({f"{FOLDER}/{UUID}.json": record.replace('"e/1"', f'"{spelt}"') + "\n"})
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "feature")
    repo.git("checkout", "-q", "feature")
    repo.write({f"{FOLDER}/{OTHER}.json": record + "\n"})
    args = ["--diff", "main"] if how == "diff" else [f"{FOLDER}/{OTHER}.json"]
    code, out, _ = run("check", *args, cwd=repo.root)
    found = sorted(line.partition(":")[0] for line in _lines(out)[:-1])
    assert code == 0 and "[eee-duplicate-evaluation-id]" in out
    assert found == sorted([f"{FOLDER}/{OTHER}.json", f"{FOLDER}/{UUID}.json"])


def test_a_deleted_aggregate_reports_the_instance_file_it_leaves_alone(
    repo: Repo, run: Run
) -> None:
    _records(repo)
    repo.git("rm", "-q", f"{FOLDER}/{UUID}.json")
    for args in (["--diff", "main"], ["notes/todo.yaml"]):
        code, out, _ = run("check", *args, cwd=repo.root)
        found = _lines(out)[:-1]
        assert code == 1 and len(found) == 1
        assert found[0].startswith(f"{SAMPLES}:1:1: error: no aggregate record points at this")


def test_a_record_the_memo_lacks_is_found_by_the_id_it_shares(
    repo: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The memo was written while the record was changed, so it lacks it; changed back, the
    record is summarized by the run itself, and found by the id a new record takes."""
    from evallint.engine import backed

    monkeypatch.setattr(backed, "MEMO_FROM", 1)
    record = json.dumps({**MINIMAL_0_2_0, "evaluation_id": "e/1"}, indent=2) + "\n"
    repo.commit({f"{FOLDER}/{UUID}.json": record})
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "feature")
    repo.git("checkout", "-q", "feature")
    repo.write({f"{FOLDER}/{UUID}.json": record.replace('"e/1"', '"e/2"')})
    run("check", "--diff", "main", cwd=repo.root)  # fills the cache
    run("check", "--diff", "main", cwd=repo.root)  # writes the memo, without the record
    repo.write({f"{FOLDER}/{UUID}.json": record, f"{FOLDER}/{OTHER}.json": record})
    code, out, _ = run("check", "--diff", "main", cwd=repo.root)
    found = sorted(line.partition(":")[0] for line in _lines(out)[:-1])
    assert code == 0 and found == sorted([f"{FOLDER}/{OTHER}.json", f"{FOLDER}/{UUID}.json"])
