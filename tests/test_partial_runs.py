"""A run over a change finds what the change causes: every finding a full check has after the
change, and did not have before it, is in `--diff`'s report and in pre-commit's run over the
files the change touched; and neither reports a finding the full check does not have. Random
changes to a tree of every kind (hypothesis), in real git repositories."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evallint
from evallint.engine import backed
from evallint.model import Diagnostic
from test_deletions import INSTANCE, SUITE
from test_eee import MINIMAL_0_2_0
from test_git import Repo
from test_streaming import sample

pytestmark = pytest.mark.usefixtures("no_ci_env")

FOLDER = "data/bench/acme/m"
UUIDS = [f"{i}f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e" for i in range(3)]
# The version rules compare with a base: only a run over a change has them.
VERSION_RULES = {"version-not-bumped", "version-bump-too-small", "version-not-increased"}
VERSION_RULES |= {"version-non-score-change"}


def _rubric(ident: str, version: str = "1.0.0") -> str:
    return (
        f'id: {ident}\nversion: "{version}"\nchecks:\n'
        '  - kind: must_contain_any\n    id: window\n    values: ["30 days"]\n'
        "scoring:\n  combine: all_pass\n"
    )


def _judge(ident: str, version: str = "1.0.0") -> str:
    return (
        f'id: {ident}\nversion: "{version}"\nscore_type: continuous\n'
        "template: |\n  Rate from 0 to 1.\n  Reply: {{ output }}\n"
    )


def _judged(ident: str, judge: str, version: str = "1.0.0") -> str:
    """A rubric with an LLM judge."""
    return (
        f'id: {ident}\nversion: "{version}"\nchecks:\n'
        f"  - kind: llm_judge\n    id: tone\n    judge_prompt_ref: judge/{judge}\n"
        "scoring:\n  combine: all_pass\n"
    )


def _composite(ident: str, ref: str) -> str:
    """A rubric made of another."""
    return (
        f'id: {ident}\nversion: "1.0.0"\nchecks:\n'
        f"  - kind: composite\n    id: part\n    rubric_ref: {ref}\n"
        "scoring:\n  combine: min\n"
    )


def _dataset(ref: str) -> str:
    return f'questions:\n  - id: q1\n    input: "Hi?"\n    rubric_ref: {ref}\n'


def _samples(ident: str, rows: int) -> str:
    return "".join(
        json.dumps(sample(str(i), INSTANCE, evaluation_id=ident)) + "\n" for i in range(rows)
    )


def _aggregate(ident: str, samples: str, uuid: str) -> str:
    detailed = {
        "file_path": f"{FOLDER}/{uuid}_samples.jsonl",
        "total_rows": samples.count("\n"),
        "checksum": hashlib.sha256(samples.encode()).hexdigest(),
    }
    record = {**MINIMAL_0_2_0, "evaluation_id": ident, "detailed_evaluation_results": detailed}
    # Scored with rubric r1 or judge j0 at 1.0.0, as version maps (no "rubric/r1" in the bytes),
    # or with rubric r2 named as a reference.
    details = {
        UUIDS[1]: {"rubric_versions": json.dumps({"r1": "1.0.0"})},
        UUIDS[2]: {"judge_versions": json.dumps({"j0": "1.0.0"}), "rubric": "rubric/r2@1.0.0"},
    }
    if uuid in details:
        record["eval_library"] = {
            "name": "ai_eval",
            "version": "1.0",
            "additional_details": details[uuid],
        }
    return json.dumps(record, indent=2) + "\n"


def _tree() -> dict[str, str]:
    files = {f"rubrics/r{i}.yaml": _rubric(f"r{i}") for i in range(3)}
    files |= {f"datasets/d{i}.yaml": _dataset(f"rubric/r{i}@1.0.0") for i in range(3)}
    files |= {"evals/refunds.eval.yaml": SUITE, "evals/prompts/policy.md": "30 days.\n"}
    files |= {f"judges/j{i}.yaml": _judge(f"j{i}") for i in range(2)}
    files |= {
        "rubrics/t0.yaml": _judged("t0", "j0@1.0.0"),
        "rubrics/t1.yaml": _judged("t1", "j1@1"),
    }
    files["rubrics/c0.yaml"] = _composite("c0", "rubric/t0@1.0.0")
    files["rubrics/c1.yaml"] = _composite("c1", "rubric/c0@1.0.0")
    files["datasets/dc.yaml"] = _dataset("rubric/c0@1.0.0")
    files["skills/refunds/SKILL.md"] = "# Refunds\n"
    files["evals/refunds/evals.json"] = json.dumps(
        {"skill_name": "refunds", "skill_file": "skills/refunds/SKILL.md", "evals": []}
    )
    for i, uuid in enumerate(UUIDS):
        samples = _samples(f"e{i}", 2)
        files[f"{FOLDER}/{uuid}_samples.jsonl"] = samples
        files[f"{FOLDER}/{uuid}.json"] = _aggregate(f"e{i}", samples, uuid)
    return files


def _change(repo: Repo, step: str, i: int, n: int) -> None:
    """One random change: of a rubric, a dataset, a prompt, an EEE record or instance file."""
    root, uuid = repo.root, UUIDS[i % 3]
    aggregate, samples = root / FOLDER / f"{uuid}.json", root / FOLDER / f"{uuid}_samples.jsonl"
    if step == "v" and (root / f"rubrics/r{i % 3}.yaml").exists():
        repo.write({f"rubrics/r{i % 3}.yaml": _rubric(f"r{i % 3}", f"{1 + n % 2}.0.0")})
    elif step == "d":
        (root / f"rubrics/r{i % 3}.yaml").unlink(missing_ok=True)
    elif step == "p":
        repo.write({f"datasets/d{i % 3}.yaml": _dataset(f"rubric/r{n % 3}@{1 + n % 2}.0.0")})
    elif step == "m" and (root / "evals/prompts/policy.md").exists():
        (root / "evals/prompts/policy.md").rename(root / f"evals/prompts/moved{n}.md")
    elif step == "i" and samples.exists():  # an instance file that its aggregate no longer fits
        with samples.open("a") as f:
            f.write(json.dumps(sample(str(n), INSTANCE, evaluation_id=f"e{i % 3}")))
            f.write("\n")
    elif step == "a" and aggregate.exists():  # an aggregate that changes its id
        aggregate.write_text(aggregate.read_text().replace(f'"e{i % 3}"', f'"x{n}"', 1))
    elif step == "c" and aggregate.exists():  # a copy of a record: its evaluation id twice
        (root / FOLDER / f"{n}c{uuid[2:]}.json").write_text(aggregate.read_text())
    elif step == "x":
        aggregate.unlink(missing_ok=True)
    elif step == "y":
        samples.unlink(missing_ok=True)
    elif step == "j" and (root / f"judges/j{i % 2}.yaml").exists():
        repo.write({f"judges/j{i % 2}.yaml": _judge(f"j{i % 2}", f"{2 + n % 2}.0.0")})
    elif step == "q":
        (root / f"judges/j{i % 2}.yaml").unlink(missing_ok=True)
    elif step == "t" and (root / "rubrics/t0.yaml").exists():
        repo.write({"rubrics/t0.yaml": _judged("t0", f"j{i % 2}@1.0.0", f"{1 + n % 3}.0.0")})
    elif step == "o":
        repo.write({"rubrics/c0.yaml": _composite("c0", f"rubric/{['t0', 't1', 'c0'][i % 3]}@^1")})
    elif step == "f" and (root / f"rubrics/r{i % 3}.yaml").exists():  # now needs facts
        text = _rubric(f"r{i % 3}", f"{1 + n % 2}.0.0")
        repo.write(
            {
                f"rubrics/r{i % 3}.yaml": text.replace(
                    "checks:\n", "checks:\n  - {kind: fact_match, id: f1}\n"
                )
            }
        )
    elif step == "g" and (root / "rubrics/t0.yaml").exists():  # composed by c0: needs facts
        text = _judged("t0", "j0@1.0.0", f"{1 + n % 2}.0.0")
        repo.write(
            {
                "rubrics/t0.yaml": text.replace(
                    "checks:\n", "checks:\n  - {kind: fact_match, id: f1}\n"
                )
            }
        )
    elif step == "k" and (root / "rubrics/t0.yaml").exists():  # t0 composes c1: a cycle
        repo.write({"rubrics/t0.yaml": _composite("t0", f"rubric/c1@{1 + n % 2}.0.0")})
    elif step == "b" and (root / "rubrics/t0.yaml").exists():  # no longer reads
        repo.write({"rubrics/t0.yaml": "id: [\n"})
    elif step == "D" and (root / f"rubrics/r{i % 3}.yaml").exists():  # defined twice
        # Named to sort first: the finding is on the other file, which the change left alone.
        (root / f"rubrics/a{n}.yaml").write_text((root / f"rubrics/r{i % 3}.yaml").read_text())
    elif step == "e" and (root / "rubrics/t0.yaml").exists():  # c0 composes a composite now
        repo.write({"rubrics/t0.yaml": _composite("t0", f"rubric/r{i % 3}@1.0.0")})
    elif step == "h":
        (root / "skills/refunds/SKILL.md").unlink(missing_ok=True)
    elif step == "S":  # settings that leave a rubric out: the datasets naming it break
        repo.write({".evallint.toml": f'exclude = ["rubrics/r{i % 3}.yaml"]\n'})
    elif step == "r" and (root / f"rubrics/r{i % 3}.yaml").exists():  # moved: same id
        (root / "rubrics/moved").mkdir(exist_ok=True)
        (root / f"rubrics/r{i % 3}.yaml").rename(root / f"rubrics/moved/r{i % 3}.yaml")
    elif step == "l" and (root / "evals/prompts/policy.md").exists():  # a prompt as a link
        (root / "evals/prompts/policy.md").unlink()
        (root / "evals/prompts/policy.md").symlink_to("../../skills/refunds/SKILL.md")
    elif step == "z" and (root / f"judges/j{i % 2}.yaml").exists():  # emptied
        (root / f"judges/j{i % 2}.yaml").write_text("")
    elif step == "n":  # a new dataset, naming a version that may not be there
        repo.write({f"datasets/new{n}.yaml": _dataset(f"rubric/t{i % 2}@{1 + n % 3}.0.0")})
    elif step == "J" and (root / f"judges/j{i % 2}.yaml").exists():  # another id, same file
        repo.write({f"judges/j{i % 2}.yaml": _judge(f"k{i % 2}")})
    elif step == "s":
        repo.git("add", "-A")
    elif step == "K":  # a commit on the branch: --diff still compares with main, pre-commit with it
        repo.git("add", "-A")
        repo.git("commit", "-q", "--allow-empty", "-m", f"step {n}")


Key = tuple[str, str, int, int]


def _keys(diagnostics: tuple[Diagnostic, ...]) -> set[Key]:
    return {(d.path, d.rule, d.span.line, d.span.column) for d in diagnostics}


def _pending(repo: Repo) -> list[str]:
    """The files pre-commit would name: those the pending change adds or modifies."""
    listed = repo.git("diff", "--name-only", "-z", "HEAD") + repo.git(
        "ls-files", "-z", "--others", "--exclude-standard"
    )
    return sorted({p for p in listed.split("\0") if p and (repo.root / p).is_file()})


@given(
    st.lists(
        st.tuples(st.sampled_from("vdpmiacxyjqtofgksKbDehSrlznJ"), st.integers(0, 5)),
        min_size=1,
        max_size=5,
    ),
    st.sampled_from(["cold", "warm", "memo"]),
)
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_a_run_over_a_change_finds_what_the_change_causes(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, int]], cache: str
) -> None:
    """`cache`: "memo", the runs ask the memo of the base's tree (as in a large tree), written
    by runs before the change; "warm", they take the summaries earlier runs kept (no memo, as
    in a small tree, or one whose settings changed); "cold", they read every file."""
    repo = Repo(tmp_path_factory.mktemp("partial") / "repo")
    repo.commit(_tree(), "base")
    root = repo.root
    memo = cache != "cold"  # whether the runs after the change use the cache
    with pytest.MonkeyPatch.context() as large:
        if cache == "memo":
            large.setattr(backed, "MEMO_FROM", 1)
        if memo:
            evallint.check(cwd=root, diff="main")  # fills the cache
            evallint.check(cwd=root, diff="main")  # writes the memo, when asked to
        before = _keys(evallint.check(cwd=root, cache=False).diagnostics)
        repo.git("checkout", "-qb", "feature")
        for n, (step, i) in enumerate(steps):
            _change(repo, step, i, n)
        after = _keys(evallint.check(cwd=root, cache=False).diagnostics)
        caused = after - before
        diff = _keys(evallint.check(cwd=root, diff="main", cache=memo).diagnostics)
        diff = {k for k in diff if k[1] not in VERSION_RULES}
        assert caused <= diff, f"--diff misses {sorted(caused - diff)}"
        assert diff <= after, f"--diff reports what a full check does not: {sorted(diff - after)}"
        named = _pending(repo)
        # pre-commit's hook is not run for a settings file, and a run over named files checks
        # those files: what new settings break elsewhere is --diff's to find.
        if named and ".evallint.toml" not in named:
            # pre-commit's run answers for the pending change: against HEAD, not main.
            caused = after - _at_head(repo, before)
            found = _keys(evallint.check(named, cwd=root, cache=memo).diagnostics)
            assert caused <= found, f"the named run misses {sorted(caused - found)}"
            assert found <= after, f"the named run reports more: {sorted(found - after)}"
            # Only what the named files cause: never more than --diff against HEAD finds.
            diff_head = evallint.check(cwd=root, diff="HEAD", cache=memo).diagnostics
            head = {k for k in _keys(diff_head) if k[1] not in VERSION_RULES}
            assert found <= head, f"the named run reports old findings: {sorted(found - head)}"


def _at_head(repo: Repo, at_main: set[Key]) -> set[Key]:
    """A full check's findings in HEAD's tree (`at_main` when HEAD is main's commit)."""
    if repo.git("rev-parse", "HEAD") == repo.git("rev-parse", "main"):
        return at_main
    head = repo.root.parent / "head"
    repo.git("worktree", "add", "-q", "--detach", str(head), "HEAD")
    try:
        return _keys(evallint.check(cwd=head, cache=False).diagnostics)
    finally:
        repo.git("worktree", "remove", "--force", str(head))


def _after_change(
    tmp_path: Path,
    memo: bool,
    monkeypatch: pytest.MonkeyPatch,
    change: tuple[str, int, int],
    named: str,
) -> list[tuple[Diagnostic, ...]]:
    """The findings of `--diff` and of the run over `named`, after one change of a fresh tree
    (`memo`: asking the memo of the base, written by runs before the change)."""
    repo = Repo(tmp_path / "repo")
    repo.commit(_tree(), "base")
    if memo:
        monkeypatch.setattr(backed, "MEMO_FROM", 1)
        evallint.check(cwd=repo.root, diff="main")  # fills the cache
        evallint.check(cwd=repo.root, diff="main")  # writes the memo
    _change(repo, *change)
    return [
        evallint.check(cwd=repo.root, diff="main", cache=memo).diagnostics,
        evallint.check([named], cwd=repo.root, cache=memo).diagnostics,
    ]


@pytest.mark.parametrize("memo", [False, True])
def test_a_rubric_that_now_asks_for_facts_breaks_datasets_that_name_its_composer(
    tmp_path: Path, memo: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """dc names c0, which composes t0: when t0 asks for expected facts (keeping its version,
    so c0 still composes it), dc's questions lack them, though the change names neither."""
    for found in _after_change(tmp_path, memo, monkeypatch, ("g", 0, 0), "rubrics/t0.yaml"):
        assert ("datasets/dc.yaml", "question-missing-inputs") in {(d.path, d.rule) for d in found}


@pytest.mark.parametrize("memo", [False, True])
def test_a_cycle_through_the_run_is_reported_in_every_rubric_on_it(
    tmp_path: Path, memo: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """c1 composes c0, which composes t0: when t0 comes to compose c1, the cycle is c1's too,
    though c1 names no rubric of the change."""
    for found in _after_change(tmp_path, memo, monkeypatch, ("k", 0, 0), "rubrics/t0.yaml"):
        cycles = {d.path for d in found if d.rule == "composite-cycle"}
        assert cycles == {"rubrics/t0.yaml", "rubrics/c0.yaml", "rubrics/c1.yaml"}


@pytest.mark.parametrize("memo", [False, True])
def test_a_record_that_names_a_rubric_in_a_version_map_is_checked_when_the_rubric_moves_on(
    tmp_path: Path, memo: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record says `{"rubric_versions": "{\\"r1\\": \\"1.0.0\\"}"}`: its bytes never spell
    `rubric/r1`, so its summary keeps the references read from its data. r1 becomes 2.0.0."""
    record = f"{FOLDER}/{UUIDS[1]}.json"
    for found in _after_change(tmp_path, memo, monkeypatch, ("v", 1, 1), "rubrics/r1.yaml"):
        assert (record, "eee-envelope-ref") in {(d.path, d.rule) for d in found}


def test_a_copied_record_is_found_twice_with_a_warm_cache_and_no_memo(tmp_path: Path) -> None:
    """A record copied (its evaluation id twice), in a tree too small for a memo, with the
    summaries earlier runs kept: the run's files define no id, so it had not read the texts
    the cache keeps apart, and the search for the record holding the same id found none."""
    repo = Repo(tmp_path / "repo")
    repo.commit(_tree(), "base")
    evallint.check(cwd=repo.root, diff="main")  # fills the cache
    _change(repo, "c", 0, 0)
    copy = f"{FOLDER}/0c{UUIDS[0][2:]}.json"
    twice = {(f"{FOLDER}/{UUIDS[0]}.json", 3, 20), (copy, 3, 20)}
    for found in (
        evallint.check(cwd=repo.root, diff="main").diagnostics,
        evallint.check([copy], cwd=repo.root).diagnostics,
    ):
        dup = {
            (d.path, d.span.line, d.span.column)
            for d in found
            if d.rule == "eee-duplicate-evaluation-id"
        }
        assert dup == twice


def test_a_named_run_never_blocks_on_an_untouched_files_old_finding(tmp_path: Path) -> None:
    """A dataset's dangling reference was committed; a run over a judge whose description
    changed (pre-commit's) reports nothing of it, while a change that breaks the dataset's
    reference is still reported there."""
    repo = Repo(tmp_path / "repo")
    tree = _tree()
    tree["datasets/old.yaml"] = _dataset("rubric/nonexistent@1.0.0")
    repo.commit(tree, "base")
    full = evallint.check(cwd=repo.root, cache=False).diagnostics
    assert ("datasets/old.yaml", "unknown-ref") in {(d.path, d.rule) for d in full}
    judge = next(p for p in sorted(tree) if p.startswith("judges/"))
    (repo.root / judge).write_text(tree[judge] + "description: reworded\n")
    assert evallint.check([judge], cwd=repo.root, cache=False).diagnostics == ()
    rubric = next(p for p in sorted(tree) if p.startswith("rubrics/") and "id: r0\n" in tree[p])
    (repo.root / rubric).write_text(tree[rubric].replace("id: r0\n", "id: gone\n"))
    found = evallint.check([rubric], cwd=repo.root, cache=False).diagnostics
    assert {(d.path, d.rule) for d in found} >= {("datasets/d0.yaml", "unknown-ref")}
    assert "datasets/old.yaml" not in {d.path for d in found}
