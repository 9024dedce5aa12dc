"""A baseline of accepted findings: written once, it hides exactly what it holds (surviving
moved lines), never a parse error, and in a run over a change it is read as the base has it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from test_git import Repo

Run = Callable[..., tuple[int, str, str]]
Tree = Callable[[dict[str, str | bytes]], Path]

TYPO = "questions:\n  - id: q1\n    input: hi\n    expecteed_facts: [x]\n"
MORE = TYPO + "  - id: q2\n    input: hi\n    expecteed_facts: [y]\n"


def test_a_baseline_hides_what_it_holds_and_survives_moved_lines(run: Run, tree: Tree) -> None:
    root = tree({"datasets/d.yaml": TYPO})
    code, out, _ = run("check", "--write-baseline", "accepted.json", cwd=root)
    assert (code, out) == (0, "wrote 1 finding to the baseline accepted.json\n")
    written = json.loads((root / "accepted.json").read_text())
    assert [(e["rule"], e["path"], e["count"]) for e in written["findings"]] == [
        ("key-typo", "datasets/d.yaml", 1)
    ]
    (root / "datasets/d.yaml").write_text("# moved down\n\n" + TYPO)
    code, out, _ = run("check", "--baseline", "accepted.json", cwd=root)
    assert code == 0
    assert out.splitlines() == [
        "1 finding accepted by the baseline accepted.json not shown",
        out.splitlines()[1],
    ]
    assert out.splitlines()[1].startswith("1 file checked: no problems")
    # A second finding of the same kind is new: the baseline holds one.
    (root / "datasets/d.yaml").write_text(MORE)
    code, out, _ = run("check", "--baseline", "accepted.json", cwd=root)
    assert code == 1
    assert out.splitlines()[1].startswith("datasets/d.yaml:7:5: error: unknown key")


def test_a_parse_error_is_never_accepted(run: Run, tree: Tree) -> None:
    root = tree({"datasets/d.yaml": "questions: [\n"})
    code, out, _ = run("check", "--write-baseline", "accepted.json", cwd=root)
    assert (code, out) == (0, "wrote 0 findings to the baseline accepted.json\n")
    assert run("check", "--baseline", "accepted.json", cwd=root)[0] == 1


def test_a_baseline_that_is_not_one_is_a_usage_error(run: Run, tree: Tree) -> None:
    root = tree({"datasets/d.yaml": TYPO, "bad.json": '{"findings": 1}', "nope.json": "{"})
    code, _, err = run("check", "--baseline", "bad.json", cwd=root)
    assert (code, err) == (
        2,
        "evallint: error: the baseline bad.json is not an evallint baseline (version 1); "
        "write one with --write-baseline\n",
    )
    assert run("check", "--baseline", "nope.json", cwd=root)[0] == 2
    code, _, err = run("check", "--baseline", "missing.json", cwd=root)
    assert (code, err) == (
        2,
        "evallint: error: cannot read the baseline missing.json: No such file or directory\n",
    )


def test_a_change_cannot_accept_its_own_findings(run: Run, tmp_path: Path) -> None:
    """With --diff the baseline is read as the base has it: a pull request that writes its new
    finding into the baseline still fails."""
    repo = Repo(tmp_path / "repo")
    repo.commit({"datasets/d.yaml": TYPO})
    run("check", "--write-baseline", "accepted.json", cwd=repo.root)
    repo.commit({"accepted.json": (repo.root / "accepted.json").read_text()})
    repo.git("checkout", "-qb", "feature")
    repo.commit({"datasets/d.yaml": MORE})
    run("check", "--write-baseline", "accepted.json", cwd=repo.root)  # now accepts both
    repo.commit({"accepted.json": (repo.root / "accepted.json").read_text()})
    code, out, _ = run("check", "--diff", "main", "--baseline", "accepted.json", cwd=repo.root)
    assert code == 1
    assert "datasets/d.yaml:7:5: error: unknown key 'expecteed_facts'" in out
    assert "1 finding accepted by the baseline accepted.json not shown" in out
    # Without a baseline at the base, everything the change touches is reported, and said so.
    repo.git("checkout", "-q", "main")
    repo.git("checkout", "-qb", "other")
    repo.git("rm", "-q", "accepted.json")
    repo.git("commit", "-qm", "drop")
    repo.git("checkout", "-qb", "later")
    repo.commit({"datasets/d.yaml": MORE, "accepted.json": "{}"})
    code, out, _ = run("check", "--diff", "other", "--baseline", "accepted.json", cwd=repo.root)
    assert code == 1
    assert "the baseline accepted.json is not in other: every finding is reported" in out
