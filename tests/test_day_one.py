"""A new user's first day, end to end: fixes and bumps that leave a passing tree, the version
rules of every format in one selection, and a report that says only what is so."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import REPO
from test_git import Repo

Run = Callable[..., tuple[int, str, str]]


def _examples(root: Path) -> Repo:
    """The example repository, committed on `main`, with a branch `change` checked out."""
    shutil.copytree(REPO / "examples", root)
    repo = Repo(root)
    repo.git("add", "-A")
    repo.git("commit", "-qm", "examples")
    repo.git("checkout", "-qb", "change")
    return repo


def _edit(repo: Repo, path: str, old: str, new: str) -> None:
    text = (repo.root / path).read_text(encoding="utf-8")
    assert old in text, (path, old)
    (repo.root / path).write_text(text.replace(old, new, 1), encoding="utf-8")


def _threshold_and_typo(repo: Repo) -> None:
    """A rubric's threshold changed without a bump, and a key misspelt in a dataset."""
    _edit(repo, "rubrics/helpful_tone.yaml", "threshold: 0.7", "threshold: 0.8")
    _edit(repo, "datasets/support_refunds.yaml", "    criteria: Says", "    critera: Says")
    repo.git("commit", "-qam", "change")


def test_fix_in_diff_mode_leaves_a_branch_that_passes(tmp_path: Path, run: Run) -> None:
    """The typo's fix undoes the dataset's only change, so it is not bumped; the rubric's bump
    moves the pins on its old version (`rubric/helpful_tone@1`, in two files)."""
    repo = _examples(tmp_path / "repo")
    _threshold_and_typo(repo)
    code, out, _ = run("check", "--diff", "main", "--fix", cwd=repo.root)
    assert code == 0, out
    assert run("check", "--diff", "main", cwd=repo.root)[0] == 0
    dataset = (repo.root / "datasets/support_refunds.yaml").read_text(encoding="utf-8")
    assert "rubric/helpful_tone@2" in dataset and "rubric/helpful_tone@1" not in dataset
    tone = (repo.root / "rubrics/helpful_tone.yaml").read_text(encoding="utf-8")
    assert 'version: "2.0.0"' in tone


def test_a_fix_that_undoes_the_change_bumps_nothing(tmp_path: Path, run: Run) -> None:
    repo = _examples(tmp_path / "repo")
    _edit(repo, "datasets/support_refunds.yaml", "    criteria: Says", "    critera: Says")
    repo.git("commit", "-qam", "typo")
    code, out, _ = run("check", "--diff", "main", "--fix", cwd=repo.root)
    assert code == 0 and "fixed 1 finding in 1 file" in out, out
    assert repo.git("diff", "main", "--stat") == ""


def test_update_refs_after_a_plain_bump_moves_the_pins_it_stranded(
    tmp_path: Path, run: Run
) -> None:
    repo = _examples(tmp_path / "repo")
    _edit(repo, "rubrics/helpful_tone.yaml", "threshold: 0.7", "threshold: 0.8")
    repo.git("commit", "-qam", "threshold")
    code, out, _ = run("bump", "--diff", "main", cwd=repo.root)
    lines = out.splitlines()
    assert code == 1 and lines[0].startswith("compared with main (merge base "), out
    assert lines[1:3] == ["rubrics/helpful_tone.yaml:2: 1.0.3 → 2.0.0", "1 change written"]
    assert "move it to rubric/helpful_tone@2 (bump --update-refs does)" in out
    code, out, _ = run("bump", "--diff", "main", "--update-refs", cwd=repo.root)
    assert code == 0, out
    assert "datasets/support_refunds.yaml:27: rubric/helpful_tone@1 → rubric/helpful_tone@2" in out
    assert run("check", "--diff", "main", cwd=repo.root)[0] == 0


TEMPLATE = (
    "dataset_path: d\noutput_type: generate_until\nnum_fewshot: 0\nmetadata:\n  version: 1.0\n"
)
CHILD = "include: _template_yaml\ntask: demo_{}\ndoc_to_text: q\n"


def test_bump_raises_a_harness_version_in_an_included_template(tmp_path: Path, run: Run) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit(
        {
            "tasks/demo/_template_yaml": TEMPLATE,
            **{f"tasks/demo/{n}.yaml": CHILD.format(n) for n in "ab"},
        }
    )
    repo.git("checkout", "-qb", "change")
    repo.commit({"tasks/demo/_template_yaml": TEMPLATE.replace("num_fewshot: 0", "num_fewshot: 3")})
    assert run("check", "--diff", "main", cwd=repo.root)[0] == 1
    code, out, _ = run("bump", "--diff", "main", cwd=repo.root)
    assert (code, out.splitlines()[1:]) == (
        0,
        ["tasks/demo/_template_yaml:5: 1.0 → 2.0", "1 change written"],
    ), out
    assert run("check", "--diff", "main", cwd=repo.root)[0] == 0


def test_the_versions_group_selects_every_formats_version_rules() -> None:
    from evallint.rules import ALL_RULES
    from evallint.session.settings import expand_rules

    chosen = expand_rules(["versions"])
    assert {"version-not-bumped", "lm-eval-version-not-bumped"} <= set(chosen)
    assert set(chosen) == {r.id for r in ALL_RULES if r.needs_base}


def test_the_tools_own_files_are_never_skipped_eval_files(tmp_path: Path, run: Run) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit({"rubrics/r.yaml": 'id: r\nversion: "1.0.0"\nchecks: []\n'})
    assert run("init", "vscode", cwd=repo.root)[0] == 0
    run("check", "--write-baseline", "accepted.json", cwd=repo.root)
    (repo.root / ".evallint_cache").mkdir(exist_ok=True)
    (repo.root / ".evallint_cache/x.json").write_text("{}")
    repo.git("add", "-A", "-f")
    _, out, _ = run("check", "-v", "--baseline", "accepted.json", cwd=repo.root)
    skipped = [line for line in out.splitlines() if line.startswith("skipped ")]
    assert skipped == ["skipped .vscode/settings.json: no kind matches"], out


def test_a_baseline_that_hides_findings_says_so_in_the_summary(tmp_path: Path, run: Run) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit({"rubrics/r.yaml": 'id: r\nversion: "1.0.0"\nchecks: []\n'})
    run("check", "--write-baseline", "accepted.json", cwd=repo.root)
    code, out, _ = run("check", "--baseline", "accepted.json", cwd=repo.root)
    assert code == 0
    assert out.splitlines()[-1].startswith(
        "1 file checked: no problems, 2 accepted by the baseline"
    )


def test_rules_lists_one_line_per_rule(run: Run) -> None:
    from evallint.rules import ALL_RULES

    code, out, _ = run("rules")
    lines = out.splitlines()
    assert code == 0 and len(lines) == len(ALL_RULES) + 1, out
    assert lines[0].split() == ["RULE", "SEVERITY", "FIXABLE", "KINDS"]
    typo = next(line for line in lines if line.startswith("key-typo "))
    assert typo.split()[1:3] == ["error", "yes"]
    code, long, _ = run("rules", "--long")
    assert code == 0 and long.count("\n") > 10 * len(ALL_RULES)


def test_version_names_the_distribution(run: Run) -> None:
    from evallint import __version__

    assert run("--version") == (0, f"evallint-git {__version__}\n", "")


def test_verbose_help_says_what_it_lists(run: Run) -> None:
    _, out, _ = run("check", "--help")
    text = " ".join(out.split())
    assert "each file skipped (with why) and the kind each checked file was read as" in text


@pytest.mark.parametrize("hook", ["evallint", "evallint-versions"])
def test_hook_files_take_an_extension_less_harness_template(hook: str) -> None:
    import re

    import yaml

    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    found = next(h for h in hooks if h["id"] == hook)
    for path in ("tasks/demo/_template_yaml", "prompts/p.txt", "tests.csv", "r.yaml"):
        assert re.search(found["files"], path), (hook, path)
    if hook == "evallint-versions":
        assert found["entry"] == "evallint check --diff --select versions"


def test_json_report_keeps_its_shape_with_a_baseline(tmp_path: Path, run: Run) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit({"rubrics/r.yaml": 'id: r\nversion: "1.0.0"\nchecks: []\n'})
    run("check", "--write-baseline", "accepted.json", cwd=repo.root)
    _, out, _ = run("check", "--format", "json", "--baseline", "accepted.json", cwd=repo.root)
    assert json.loads(out)["diagnostics"] == []


def test_a_version_finding_says_when_the_change_is_a_typo(tmp_path: Path, run: Run) -> None:
    repo = _examples(tmp_path / "repo")
    _edit(repo, "datasets/support_refunds.yaml", '    input: "I bought', '    inptu: "I bought')
    repo.git("commit", "-qam", "typo")
    _, out, _ = run("check", "--diff", "main", "--format", "json", cwd=repo.root)
    (version,) = [d for d in json.loads(out)["diagnostics"] if d["rule"] == "version-not-bumped"]
    assert version["message"].endswith(
        "(the change is the misspelt key 'inptu': fix it first, and the bump may not be needed)"
    )


# Edits of the examples a branch might make: (file, old, new).
EDITS = [
    ("rubrics/helpful_tone.yaml", "threshold: 0.7", "threshold: 0.8"),
    ("rubrics/helpful_tone.yaml", "weight: 2", "weight: 3"),
    ("datasets/support_refunds.yaml", "    criteria: Says", "    critera: Says"),
    ("datasets/support_refunds.yaml", '    input: "I bought', '    inptu: "I bought'),
    ("datasets/support_refunds.yaml", "30 days of delivery", "14 days of delivery"),
    ("rubrics/support_answer.yaml", "rubric/helpful_tone@1", "rubric/helpful_tone@1.0"),
    ("judges/tone.yaml", "version:", "verison:"),
]


@pytest.mark.parametrize("seed", range(4))
def test_fix_in_diff_mode_introduces_no_finding_on_random_edits(
    tmp_path: Path, run: Run, seed: int
) -> None:
    """After `check --diff main --fix`, `check --diff main` finds nothing the fix made: every
    finding left was there before the fix (by file and rule), and no pin dangles."""
    import random

    repo = _examples(tmp_path / "repo")
    for path, old, new in random.Random(seed).sample(EDITS, 3):
        text = (repo.root / path).read_text(encoding="utf-8")
        if old in text:
            _edit(repo, path, old, new)
    repo.git("commit", "-qam", "edits")

    def found() -> set[tuple[str, str]]:
        _, out, _ = run("check", "--diff", "main", "--format", "json", cwd=repo.root)
        return {(d["path"], d["rule"]) for d in json.loads(out)["diagnostics"]}

    before = found()
    run("check", "--diff", "main", "--fix", cwd=repo.root)
    after = found()
    assert after <= before, (seed, after - before)
    assert not {rule for _, rule in after} & {"unknown-ref-version", "unknown-ref"}
