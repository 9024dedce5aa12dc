"""Diff mode and version rules on real git repositories made in temporary folders."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evallint.baseline import load_baseline
from evallint.config import Config
from evallint.engine.run import lint
from evallint.io.git import (
    UNTRACKED,
    DiffListing,
    GitRepo,
    Listing,
    Pending,
    clean_blobs,
    deleted_files,
    tree_files,
)
from evallint.io.gitout import TreeIds, base_tree, packed_tree, tagged, unpacked_tree
from evallint.io.source import FsSource

Run = Callable[..., tuple[int, str, str]]

RUBRIC = """\
# refund rubric
id: refunds
version: "1.2.0"
description: States the refund window.
checks:
  - kind: must_contain_any
    id: window
    values: ["30 days"]
  - kind: must_not_contain
    id: promise
    values: ["guaranteed"]
scoring:
  combine: all_pass
"""

DATASET = """\
questions:
  - id: q1
    input: "How long do refunds take?"
    rubric_ref: rubric/refunds@1.2.0
"""


class Repo:
    def __init__(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.root = root
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        cmd = [
            "git",
            "-c",
            "user.email=t@example.com",
            "-c",
            "user.name=t",
            "-c",
            "commit.gpgsign=false",
            *args,
        ]
        return subprocess.run(cmd, cwd=self.root, check=True, capture_output=True, text=True).stdout

    def write(self, files: dict[str, str]) -> None:
        for rel, text in files.items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)

    def commit(self, files: dict[str, str], message: str = "change") -> str:
        self.write(files)
        self.git("add", "-A")
        self.git("commit", "-qm", message)
        return self.git("rev-parse", "HEAD").strip()


# Base refs from the environment would pick another base than the one each test names.
pytestmark = pytest.mark.usefixtures("no_ci_env")


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "repo")


@pytest.fixture
def branch(tmp_path: Path) -> Repo:
    """A repo with the rubric and dataset on main, and a feature branch checked out."""
    root = tmp_path / "repo"
    r = Repo(root)
    r.commit({"rubrics/refunds.yaml": RUBRIC, "datasets/d.yaml": DATASET}, "base")
    r.git("checkout", "-qb", "feature")
    return r


def diff(r: Repo, base: str = "main") -> list[tuple[object, ...]]:
    repo = GitRepo(r.root)
    baseline = load_baseline(repo, repo.base(base, {}), Config())
    tree = sorted(
        p.relative_to(r.root).as_posix() for p in r.root.rglob("*.yaml") if ".git" not in p.parts
    )
    report = lint(
        [p for p in baseline.changed_paths if p in tree],
        FsSource(r.root),
        Config(),
        tree=tree,
        baseline=baseline,
    )
    return [
        (
            d.path,
            d.span.line,
            d.span.column,
            d.rule,
            d.message,
            [(x.path, x.span.line) for x in d.related],
        )
        for d in report.diagnostics
    ]


def test_score_change_without_bump(branch: Repo) -> None:
    branch.write({"rubrics/refunds.yaml": RUBRIC.replace('["30 days"]', '["30 days", "a month"]')})
    assert diff(branch) == [
        (
            "rubrics/refunds.yaml",
            8,
            13,
            "version-not-bumped",
            "checks[window].values changed, which changes scores, but the version is still 1.2.0; "
            "bump it: 1.2.0 → 2.0.0",
            [("rubrics/refunds.yaml", 3)],
        )
    ]


def test_bump_too_small_names_the_smallest_valid_version(branch: Repo) -> None:
    text = RUBRIC.replace('"1.2.0"', '"1.3.0"').replace("all_pass", "min")
    branch.write(
        {"rubrics/refunds.yaml": text, "datasets/d.yaml": DATASET.replace("@1.2.0", "@1.3.0")}
    )
    assert diff(branch) == [
        (
            "rubrics/refunds.yaml",
            13,
            12,
            "version-bump-too-small",
            "scoring.combine changed, which changes scores; 1.2.0 → 1.3.0 is a minor bump, a major "
            "one is required: 1.2.0 → 2.0.0",
            [("rubrics/refunds.yaml", 3)],
        )
    ]


def test_major_bump_is_clean(branch: Repo) -> None:
    text = RUBRIC.replace('"1.2.0"', '"2.0.0"').replace("all_pass", "min")
    branch.write({"rubrics/refunds.yaml": text, "datasets/d.yaml": DATASET.replace("@1.2.0", "@2")})
    assert diff(branch) == []


def test_reformatting_and_reordering_do_not_fire(branch: Repo) -> None:
    reordered = """\
# same rubric, rewritten
version: '1.2.0'
id: refunds
scoring: {combine: all_pass}
checks:
  - {id: promise, kind: must_not_contain, values: [guaranteed]}
  - id: window
    values:
      - 30 days
    kind: must_contain_any   # same check, other order
description: States the refund window.
"""
    branch.write({"rubrics/refunds.yaml": reordered})
    assert diff(branch) == []


def test_non_score_change_is_only_a_note(branch: Repo) -> None:
    branch.write({"rubrics/refunds.yaml": RUBRIC.replace("States the", "Checks the")})
    assert [d[3] for d in diff(branch)] == ["version-non-score-change"]


def test_version_decreased(branch: Repo) -> None:
    branch.write(
        {
            "rubrics/refunds.yaml": RUBRIC.replace('"1.2.0"', '"1.1.9"'),
            "datasets/d.yaml": DATASET.replace("@1.2.0", "@1.1.9"),
        }
    )
    assert diff(branch) == [
        (
            "rubrics/refunds.yaml",
            3,
            10,
            "version-not-increased",
            "version 1.1.9 is lower than 1.2.0 at main",
            [],
        )
    ]


def test_one_file_per_version_layout(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    r = Repo(root)
    r.commit({"rubrics/refunds/1.2.0.yaml": RUBRIC})
    r.git("checkout", "-qb", "feature")
    # A new file for an older version, and an in-place edit of the kept one.
    r.write(
        {
            "rubrics/refunds/1.1.0.yaml": RUBRIC.replace('"1.2.0"', '"1.1.0"'),
            "rubrics/refunds/1.2.0.yaml": RUBRIC.replace("all_pass", "any_pass"),
        }
    )
    found = diff(r)
    assert [(d[0], d[3]) for d in found] == [
        ("rubrics/refunds/1.1.0.yaml", "version-not-increased"),
        ("rubrics/refunds/1.2.0.yaml", "version-not-bumped"),
    ]
    assert found[0][4] == "new version 1.1.0 is not greater than 1.2.0, the highest at main"


def test_zero_major_versions(branch: Repo) -> None:
    base = RUBRIC.replace('"1.2.0"', '"0.3.1"')
    branch.git("checkout", "-q", "main")
    branch.commit(
        {"rubrics/refunds.yaml": base, "datasets/d.yaml": DATASET.replace("@1.2.0", "@0.3")}
    )
    branch.git("checkout", "-q", "feature")
    branch.git("reset", "-q", "--hard", "main")
    branch.write(
        {"rubrics/refunds.yaml": base.replace('"0.3.1"', '"0.3.2"').replace("all_pass", "min")}
    )
    assert [d[4] for d in diff(branch)] == [
        "scoring.combine changed, which changes scores; 0.3.1 → 0.3.2 is a patch bump, a major "
        "one is required: 0.3.1 → 0.4.0"
    ]
    branch.write(
        {"rubrics/refunds.yaml": base.replace('"0.3.1"', '"0.4.0"').replace("all_pass", "min")}
    )
    assert [d[3] for d in diff(branch)] == ["unknown-ref-version"]  # the dataset's @0.3 pin
    branch.write({"datasets/d.yaml": DATASET.replace("@1.2.0", "@0.4")})
    assert diff(branch) == []


def test_zero_zero_versions_need_any_bump(branch: Repo) -> None:
    from evallint.refs import parse_version
    from evallint.rules.versions import is_major, smallest_major

    v = parse_version
    assert str(smallest_major(v("0.0.3"))) == "0.0.4"  # type: ignore[arg-type]
    assert is_major(v("0.0.3"), v("0.0.4"))  # type: ignore[arg-type]
    assert not is_major(v("0.1.3"), v("0.1.4"))  # type: ignore[arg-type]
    assert is_major(v("2.0.0-rc.1"), v("2.0.0-rc.2"))  # type: ignore[arg-type]
    assert is_major(v("1.2.0"), v("2.0.0-rc.1"))  # type: ignore[arg-type]


def test_prerelease_base_accepts_any_increase(branch: Repo) -> None:
    pre = RUBRIC.replace('"1.2.0"', '"2.0.0-rc.1"')
    branch.git("checkout", "-q", "main")
    branch.commit(
        {"rubrics/refunds.yaml": pre, "datasets/d.yaml": DATASET.replace("@1.2.0", "@2.0.0-rc.1")}
    )
    branch.git("checkout", "-q", "feature")
    branch.git("reset", "-q", "--hard", "main")
    branch.write(
        {
            "rubrics/refunds.yaml": pre.replace("rc.1", "rc.2").replace("all_pass", "min"),
            "datasets/d.yaml": DATASET.replace("@1.2.0", "@2.0.0-rc.2"),
        }
    )
    assert diff(branch) == []


def test_pure_rename_is_not_a_change(branch: Repo) -> None:
    branch.git("mv", "rubrics/refunds.yaml", "rubrics/refund_policy.yaml")
    assert diff(branch) == []


def test_rename_with_an_edit_compares_with_the_old_path(branch: Repo) -> None:
    branch.git("mv", "rubrics/refunds.yaml", "rubrics/refund_policy.yaml")
    branch.write(
        {
            "rubrics/refund_policy.yaml": RUBRIC.replace('"1.2.0"', '"1.2.1"').replace(
                "all_pass", "any_pass"
            ),
            "datasets/d.yaml": DATASET.replace("@1.2.0", "@1.2"),
        }
    )
    assert [(d[0], d[3]) for d in diff(branch)] == [
        ("rubrics/refund_policy.yaml", "version-bump-too-small")
    ]


def test_deleting_a_referenced_rubric_reports_the_unchanged_dataset(branch: Repo) -> None:
    branch.git("rm", "-q", "rubrics/refunds.yaml")
    assert diff(branch) == [
        ("datasets/d.yaml", 4, 17, "unknown-ref", "no rubric with id 'refunds' in the project", [])
    ]


def test_untracked_files_are_checked(branch: Repo) -> None:
    branch.write({"rubrics/new.yaml": "id: new\nversion: 1.0\n"})
    assert [d[3] for d in diff(branch)] == [
        "schema-violation",
        "schema-violation",
        "yaml-implicit-type",
    ]


def test_the_untracked_files_of_the_listing_are_the_changes_git_gives(branch: Repo) -> None:
    """A --diff run takes the change and the untracked files from its listing's calls."""
    branch.write(
        {"rubrics/new.yaml": "id: new\n", "notes/a b.yaml": "x: 1\n", ".gitignore": "*.log\n"}
    )
    branch.write({"run.log": "ignored\n"})
    repo = GitRepo(branch.root)
    base = repo.base("main", {})
    listing = DiffListing(branch.root, base, Pending(branch.root, UNTRACKED))
    asked = repo.changes(base)
    assert listing.changes() == asked
    assert sorted(c.path for c in asked if c.status == "U") == [
        ".gitignore",
        "notes/a b.yaml",
        "rubrics/new.yaml",
    ]


def _working_tree(repo: Repo) -> tuple[set[str], dict[str, str]]:
    """What `DiffListing` must say, asked of the working tree itself: its files (git's listing),
    and each regular file's blob id as `git hash-object` reads its bytes now."""
    listed = Listing(repo.root, ["."]).result()
    assert listed is not None
    regular = [
        p for p in listed.files if (repo.root / p).is_file() and not (repo.root / p).is_symlink()
    ]
    ids = repo.git("hash-object", "--no-filters", "--", *regular).split() if regular else []
    return set(listed.files), dict(zip(regular, ids, strict=True))


def _assert_listing_is_the_working_tree(repo: Repo) -> None:
    listing = DiffListing(
        repo.root, GitRepo(repo.root).base("main", {}), Pending(repo.root, UNTRACKED)
    )
    found = listing.result()
    files, ids = _working_tree(repo)
    assert set(found.files) == files
    # Every key the listing trusts is the file's content now; a file it has no key for is read.
    assert {p: ids.get(p) for p in found.blobs} == found.blobs


def test_the_diff_listing_is_the_working_tree_after_every_kind_of_change(branch: Repo) -> None:
    """The base's tree with the change applied is the working tree: staged, unstaged, reverted,
    renamed, deleted both ways, linked, untracked, ignored, and a file whose stat data alone
    changed."""
    names = ("keep", "edit", "stage", "revert", "gone", "rm", "move", "touch", "mode")
    branch.commit({f"f/{n}.yaml": f"{n}: 1\n" for n in names}, "more")
    branch.git("checkout", "-q", "main")
    branch.git("merge", "-q", "--ff-only", "feature")
    branch.git("checkout", "-q", "feature")
    branch.commit({"f/branch.yaml": "b: 1\n"}, "on the branch")
    branch.write(
        {"f/edit.yaml": "edit: 2\n", "f/stage.yaml": "stage: 2\n", "f/revert.yaml": "r: 2\n"}
    )
    branch.git("add", "f/stage.yaml", "f/revert.yaml")
    branch.write({"f/revert.yaml": "revert: 1\n"})  # staged, then put back as the base has it
    (branch.root / "f/gone.yaml").unlink()
    branch.git("rm", "-q", "f/rm.yaml")
    branch.git("mv", "f/move.yaml", "f/moved.yaml")
    (branch.root / "f/touch.yaml").touch()
    (branch.root / "f/mode.yaml").chmod(0o755)
    (branch.root / "f/link.yaml").symlink_to("keep.yaml")
    branch.write({"f/new.yaml": "n: 1\n", ".gitignore": "*.log\n", "x.log": "i\n"})
    _assert_listing_is_the_working_tree(branch)


@given(st.lists(st.tuples(st.sampled_from("ewdrsa"), st.integers(0, 5)), max_size=12))
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_the_diff_listing_is_the_working_tree_after_any_change(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, int]]
) -> None:
    """Random edits (e), writes of new files (w), deletions (d), renames (r), staging (s) and
    adds of everything (a), on top of a branch: the listing still says what the tree holds."""
    repo = Repo(tmp_path_factory.mktemp("random") / "repo")
    repo.commit({f"{i}.yaml": f"v: {i}\n" for i in range(6)}, "base")
    repo.git("checkout", "-qb", "feature")
    for n, (step, i) in enumerate(steps):
        path = repo.root / f"{i}.yaml"
        if step == "e" and path.exists():
            path.write_text(f"v: {i}\nedit: {n}\n")
        elif step == "w":
            repo.write({f"new/{i}.yaml": f"n: {n}\n"})
        elif step == "d" and path.exists():
            path.unlink()
        elif step == "r" and path.exists():
            path.rename(repo.root / f"{i}-{n}.yaml")
        elif step == "s" and path.exists():
            repo.git("add", "--", path.name)
        elif step == "a":
            repo.git("add", "-A")
    _assert_listing_is_the_working_tree(repo)


def test_pre_existing_problems_are_not_reported(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    r = Repo(root)
    r.commit(
        {
            "rubrics/refunds.yaml": RUBRIC,
            "datasets/old.yaml": DATASET.replace("@1.2.0", "@9") + "    expecteed_facts: [x]\n",
        }
    )
    r.git("checkout", "-qb", "feature")
    r.write({"datasets/new.yaml": DATASET.replace("How long", "How fast")})
    assert diff(r) == []


def test_cli_diff_says_which_base(branch: Repo, run: Run) -> None:
    branch.write({"rubrics/refunds.yaml": RUBRIC.replace("all_pass", "min")})
    sha = branch.git("rev-parse", "main").strip()
    code, out, _ = run("check", "--diff", "main", cwd=branch.root)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"compared with main (merge base {sha[:10]})"
    assert lines[1].startswith("rubrics/refunds.yaml:13:12: error: scoring.combine changed")
    assert lines[2].startswith("1 file checked: 1 error")
    code, out, _ = run("check", "--diff", "main", "--format", "json", cwd=branch.root)
    assert json.loads(out)["notes"] == [f"compared with main (merge base {sha[:10]})"]


def test_cli_base_from_each_environment_variable(
    branch: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    branch.git("branch", "-q", "release", "main")
    monkeypatch.setenv("PRE_COMMIT_FROM_REF", "release")
    assert run("check", "--diff", cwd=branch.root)[1].startswith("compared with release (")
    branch.git("update-ref", "refs/remotes/origin/trunk", "main")
    monkeypatch.setenv("GITHUB_BASE_REF", "trunk")
    assert run("check", "--diff", cwd=branch.root)[1].startswith("compared with origin/trunk (")
    monkeypatch.delenv("GITHUB_BASE_REF")
    monkeypatch.delenv("PRE_COMMIT_FROM_REF")
    assert run("check", "--diff", cwd=branch.root)[1].startswith("compared with main (")


def test_unknown_base_fails_closed(branch: Repo, run: Run) -> None:
    code, out, err = run("check", "--diff", "nope", cwd=branch.root)
    assert code == 2 and out == ""
    assert err.startswith("evallint: error: unknown git ref 'nope'")


def test_a_base_that_reads_as_an_option_is_no_ref(branch: Repo, run: Run) -> None:
    """git would take `--output=<file>` for an option of its own, and write that file."""
    code, out, err = run("check", "--diff=--output=written.txt", cwd=branch.root)
    assert code == 2 and out == ""
    assert err.startswith("evallint: error: unknown git ref '--output=written.txt'")
    assert not (branch.root / "written.txt").exists()


def test_missing_pull_request_base_fails_closed(
    branch: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_BASE_REF", "develop")
    code, _, err = run("check", "--diff", cwd=branch.root)
    assert code == 2
    assert "the pull request base 'develop' is not in this clone" in err
    assert "fetch-depth: 0" in err and "git fetch --depth=1 origin develop" in err


def test_shallow_clone_without_the_base_fails_closed(
    branch: Repo, run: Run, tmp_path: Path
) -> None:
    branch.git("checkout", "-q", "main")
    for i in range(3):
        branch.commit({"datasets/d.yaml": DATASET + f"# {i}\n"}, f"main {i}")
    branch.git("checkout", "-q", "feature")
    branch.commit({"datasets/e.yaml": DATASET}, "feature work")
    clone = tmp_path / "shallow"
    subprocess.run(
        [
            "git",
            "clone",
            "-q",
            "--depth=1",
            "--no-local",
            "--branch",
            "feature",
            branch.root.as_uri(),
            str(clone),
        ],
        check=True,
    )
    subprocess.run(
        ["git", "fetch", "-q", "--depth=1", "origin", "main:refs/remotes/origin/main"],
        cwd=clone,
        check=True,
    )
    code, out, err = run("check", "--diff", "origin/main", cwd=clone)
    assert code == 2 and out == ""
    assert "no merge base between 'origin/main' and HEAD (this clone is shallow)" in err
    assert "fetch-depth: 0" in err


def test_no_base_anywhere_fails_closed(tmp_path: Path, run: Run) -> None:
    root = tmp_path / "repo"
    r = Repo(root)
    r.git("checkout", "-qb", "trunk")
    r.commit({"datasets/d.yaml": DATASET})
    code, out, err = run("check", "--diff", cwd=root)
    assert code == 2 and "no base to compare with: pass --diff BASE" in err, (out, err)


def test_not_a_git_repository(tmp_path: Path, run: Run) -> None:
    code, _, err = run("check", "--diff", "main", cwd=tmp_path)
    assert code == 2 and "is not inside a git work tree" in err


def test_base_in_a_full_check(branch: Repo, run: Run) -> None:
    branch.write({"rubrics/refunds.yaml": RUBRIC.replace("all_pass", "min")})
    code, out, _ = run("check", "--base", "main", cwd=branch.root)
    assert code == 1 and "[version-not-bumped]" in out and "2 files checked" in out


def _bumped(out: str) -> list[str]:
    """`bump`'s lines after the first, which names the base it compared with."""
    first, *rest = out.splitlines()
    assert first.startswith("compared with main (merge base "), first
    return rest


def test_bump_keeps_comments_and_updates_pins(branch: Repo, run: Run) -> None:
    edited = RUBRIC.replace("all_pass", "min").replace('"1.2.0"', '"1.2.0"  # keep me')
    branch.write({"rubrics/refunds.yaml": edited})
    code, out, _ = run("bump", "--diff", "main", "--update-refs", cwd=branch.root)
    assert code == 0
    assert _bumped(out) == [
        "datasets/d.yaml:4: rubric/refunds@1.2.0 → rubric/refunds@2.0.0",
        "rubrics/refunds.yaml:3: 1.2.0 → 2.0.0",
        "2 changes written",
    ]
    assert (branch.root / "rubrics/refunds.yaml").read_text() == edited.replace(
        '"1.2.0"', '"2.0.0"'
    )
    assert "rubric/refunds@2.0.0" in (branch.root / "datasets/d.yaml").read_text()
    assert run("check", "--diff", "main", cwd=branch.root)[0] == 0
    assert _bumped(run("bump", "--diff", "main", cwd=branch.root)[1]) == ["nothing to bump"]


def test_pre_commit_compares_the_staged_change_with_head(
    branch: Repo, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRE_COMMIT", "1")
    branch.write({"rubrics/refunds.yaml": RUBRIC.replace("all_pass", "min")})
    branch.git("add", "-A")
    code, out, _ = run("check", "--diff", cwd=branch.root)
    assert code == 1
    assert out.startswith("compared with HEAD (") and "[version-not-bumped]" in out


def test_only_changed_files_passed_still_resolve_against_the_tree(branch: Repo, run: Run) -> None:
    branch.write({"datasets/d.yaml": DATASET.replace("@1.2.0", "@1.2")})
    code, out, _ = run("check", "datasets/d.yaml", cwd=branch.root)
    assert (code, out.splitlines()[0][:28]) == (0, "1 file checked: no problems ")


def test_project_extends_the_non_score_fields(branch: Repo, run: Run) -> None:
    branch.write({"rubrics/refunds.yaml": RUBRIC.replace("scoring:", "owner: support\nscoring:")})
    code, out, _ = run("check", "--diff", "main", cwd=branch.root)
    assert code == 1 and "owner changed, which changes scores" in out
    branch.write({".evallint.toml": '[non-score-fields]\nrubric = ["owner"]\n'})
    code, out, _ = run("check", "--diff", "main", cwd=branch.root)
    assert code == 0 and "[version-non-score-change]" in out
    branch.write({".evallint.toml": '[non-score-fields]\nrubrik = ["owner"]\n'})
    code, _, err = run("check", "--diff", "main", cwd=branch.root)
    assert code == 2 and "unknown kind 'rubrik'; did you mean 'rubric'?" in err


def test_one_listing_call_gives_the_files_and_the_clean_blob_ids(repo: Repo) -> None:
    """The tree's listing and the content keys of its clean files come from one `ls-files`:
    deleted files are not listed, and only clean regular tracked files have a key."""
    files = {n: f"{n}\n" for n in ("clean.yaml", "edited.yaml", "gone.yaml", "staged.yaml")}
    repo.commit({**files, ".gitignore": "ignored.yaml\n"}, "base")
    (repo.root / "link.yaml").symlink_to("clean.yaml")
    repo.git("add", "link.yaml")
    repo.write({"edited.yaml": "now\n", "new.yaml": "u\n", "ignored.yaml": "i\n"})
    (repo.root / "gone.yaml").unlink()
    repo.git("rm", "-q", "staged.yaml")
    names, blobs = tree_files(repo.root, ["."]) or ([], {})
    assert sorted(names) == [".gitignore", "clean.yaml", "edited.yaml", "link.yaml", "new.yaml"]
    clean = repo.git("hash-object", "clean.yaml", ".gitignore").split()
    assert blobs == {"clean.yaml": clean[0], ".gitignore": clean[1]}
    assert clean_blobs(repo.root) == blobs
    listed = Listing(repo.root, ["."]).result()
    assert listed is not None and listed.untracked == ["new.yaml"]
    assert listed.deleted == ["gone.yaml"]  # staged.yaml left the index: git diff --cached says
    assert deleted_files(repo.root, listed) == deleted_files(repo.root)
    assert deleted_files(repo.root) == {"gone.yaml", "staged.yaml"}


def _tagged_plainly(lines: list[str]) -> tuple[list[str], dict[str, str], list[str], list[str]]:
    """What `ls-files -t --stage` lines say, read one field at a time: the reference the
    listing's fixed-column fast path must agree with."""
    files: dict[str, None] = {}
    blobs: dict[str, str] = {}
    changed, gone, untracked = [], [], []
    for line in lines:
        if line[0] == "?":
            files[line[2:]] = None
            untracked.append(line[2:])
            continue
        head, path = line.split("\t", 1)
        tag, mode, *rest = head.split(" ")
        if tag == "C":
            changed.append(path)
        elif tag == "R":
            gone.append(path)
        else:
            files[path] = None
            if tag == "H" and rest[-1] == "0" and mode in ("100644", "100755"):
                blobs[path] = rest[0]
    for path in gone:
        files.pop(path, None)
    for path in (*changed, *gone):
        blobs.pop(path, None)
    return list(files), blobs, untracked, list(dict.fromkeys(gone))


_PATHS = st.text(st.sampled_from("ab/ \t?H0.-"), min_size=1, max_size=12)
_LINES = st.one_of(
    st.builds(
        lambda tag, mode, blob, stage, path: f"{tag} {mode} {blob} {stage}\t{path}",
        st.sampled_from("HHHHSMhK"),
        st.sampled_from(["100644", "100755", "120000", "160000"]),
        st.sampled_from(["a" * 40, "b" * 64, "0123456789abcdef0123456789abcdef01234567"]),
        st.sampled_from("00000123"),
        _PATHS,
    ),
    st.builds(lambda path: f"? {path}", _PATHS),
    st.builds(lambda tag, path: f"{tag} \t{path}", st.sampled_from("CR"), _PATHS),
)


@given(st.lists(_LINES, max_size=30))
def test_the_listing_reads_every_line_as_a_plain_reading_does(lines: list[str]) -> None:
    # git's index holds one entry per path and stage: keep the first of any repeat.
    seen: set[tuple[str, str]] = set()
    unique = []
    for line in lines:
        head, _, path = line.partition("\t")
        key = (path, head.rpartition(" ")[2]) if line[0] not in "?CR" else (line, "")
        if key not in seen:
            seen.add(key)
            unique.append(line)
    lines = unique
    found = tagged(lines)
    files, blobs, untracked, deleted = _tagged_plainly(lines)
    # The files in no order that matters (every caller sorts them); the rest as listed.
    assert sorted(found.files) == sorted(files)
    assert (found.blobs, found.untracked, found.deleted) == (blobs, untracked, deleted)


_TREE_ENTRIES = st.builds(
    lambda mode, blob, path: f"{mode} {'commit' if mode == '160000' else 'blob'} {blob}\t{path}",
    st.sampled_from(["100644", "100644", "100755", "120000", "160000"]),
    st.sampled_from(["a" * 40, "b" * 64, "0123456789abcdef0123456789abcdef01234567"]),
    _PATHS,
)


@given(st.lists(_TREE_ENTRIES, max_size=30), st.booleans())
def test_the_base_tree_is_read_as_a_plain_reading_does(entries: list[str], plain: bool) -> None:
    """`ls-tree -r` entries, cut at C speed when all are regular SHA-1 files, else one by one:
    either way what a field-by-field reading gives."""
    if plain:  # the fast path's case: regular files with SHA-1 ids only
        entries = [e for e in entries if e[:6] in ("100644", "100755") and e[52:53] == "\t"]
    entries = list({e.split("\t", 1)[1]: e for e in entries}.values())  # a tree lists a path once
    files: list[str] = []
    blobs: dict[str, str] = {}
    for entry in entries:
        head, path = entry.split("\t", 1)
        mode, kind, blob = head.split(" ")
        files.append(path)
        if kind == "blob" and mode in ("100644", "100755"):
            blobs[path] = blob
    assert base_tree(entries) == (files, blobs)
    # A listing kept between runs reads back as it was written (its paths sorted); bytes it did
    # not write, never.
    back = unpacked_tree(packed_tree(files, blobs))
    assert back is not None and back[0] == sorted(files) and dict(back[1]) == blobs
    packed = packed_tree(files, blobs)
    for broken in (packed[:-1] if files else packed + b"x", b"", packed.replace(b"listing", b"x")):
        assert unpacked_tree(broken) is None


@given(
    st.dictionaries(_PATHS, st.sampled_from(["", "a" * 40, "b" * 64]), max_size=30),
    st.lists(st.tuples(st.booleans(), _PATHS), max_size=40),
    st.integers(0, 3),
)
def test_kept_blob_ids_answer_as_a_dict_does(
    listed: dict[str, str], asked: list[tuple[bool, str]], after: int
) -> None:
    """Looked up by bisection, then (past `DICT_AFTER` questions) in a dict: either way as the
    dict of the regular files' ids answers, pops included."""
    paths = sorted(listed)
    ids = TreeIds(paths, [listed[p] for p in paths])
    ids.DICT_AFTER = after
    plain = {p: i for p, i in listed.items() if i}
    for pop, path in asked:
        if pop:
            assert ids.pop(path) == plain.pop(path, None)
        else:
            assert (path in ids, ids.get(path)) == (path in plain, plain.get(path))
        assert len(ids) == len(plain) and dict(ids) == plain


def test_a_git_command_that_fails_says_what_git_said(branch: Repo) -> None:
    """GitPython's errors carried git's own words; the direct calls keep them."""
    from evallint.errors import EvallintError

    repo = GitRepo(branch.root)
    assert repo.read_many("main", ["rubrics/refunds.yaml"])["rubrics/refunds.yaml"] == (
        RUBRIC.encode()
    )
    assert repo.read_many("main", ["rubrics/none.yaml"]) == {}
    with pytest.raises(EvallintError, match=r"git ls-tree failed \(exit code 128\): fatal: "):
        repo.read_many("0" * 40, ["rubrics/refunds.yaml"])


def test_a_base_version_the_clone_lacks_fails_closed(branch: Repo, run: Run) -> None:
    """A partial clone may lack the base's blob of a changed file: never compared as a new
    file (which would skip its version rules), and never fetched."""
    blob = branch.git("rev-parse", "main:rubrics/refunds.yaml").strip()
    branch.write({"rubrics/refunds.yaml": RUBRIC.replace("30 days", "31 days")})
    branch.git("add", "rubrics/refunds.yaml")  # staged: git's diff needs only the ids
    (branch.root / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    code, out, err = run("check", "--diff", "main", cwd=branch.root)
    assert code == 2 and out == ""
    assert "git has no copy of 'rubrics/refunds.yaml' at " in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("name", "before", "after", "noted"),
    [
        (".evallint.toml", "", 'ignore = ["unknown-ref"]\n', True),
        (".evallint.toml", None, 'exclude = ["datasets/**"]\n', True),
        ("pyproject.toml", '[project]\nname = "x"\n', '[project]\nname = "y"\n', False),
        ("pyproject.toml", "[tool.evallint]\n", "[tool.evallint]\nstrict = true\n", True),
    ],
)
def test_a_change_to_the_settings_is_noted(
    repo: Repo, run: Run, name: str, before: str | None, after: str, noted: bool
) -> None:
    """A pull request is checked with the settings it brings: one that ignores a rule or
    excludes a folder says so in the report, for whoever reviews it."""
    repo.commit({"datasets/d.yaml": DATASET, **({name: before} if before is not None else {})})
    repo.git("checkout", "-qb", "feature")
    repo.write({name: after})
    code, out, err = run("check", "--diff", "main", "--format", "json", cwd=repo.root)
    notes = json.loads(out).get("notes", [])
    said = f"the change edits evallint's settings in {name}: every file is checked, by the "
    assert any(n.startswith(said) for n in notes) is noted, (code, err, notes)


def test_a_change_to_the_settings_is_checked_whole(repo: Repo, run: Run) -> None:
    """Settings that leave the rubric out break the dataset naming it, which the change does
    not touch: the run checks every file, by the settings the change brings."""
    repo.commit({"datasets/d.yaml": DATASET, "rubrics/refunds.yaml": RUBRIC})
    repo.git("checkout", "-qb", "feature")
    repo.write({".evallint.toml": 'exclude = ["rubrics/**"]\n'})
    code, out, _ = run("check", "--diff", "main", "--format", "json", cwd=repo.root)
    found = [(d["path"], d["rule"], d["line"], d["column"]) for d in json.loads(out)["diagnostics"]]
    assert code == 1 and found == [("datasets/d.yaml", "unknown-ref", 4, 17)]


def test_a_bump_that_cannot_be_written_is_said_and_fails(repo: Repo, run: Run) -> None:
    """A version spelt with an escape is no text to edit: bump writes the others, names this
    one for the user, and exits 1, as the version rules still fail."""
    spelt = json.dumps(
        {
            "id": "c",
            "version": "1.0.0",
            "checks": [{"kind": "must_contain_any", "id": "w", "values": ["30 days"]}],
            "scoring": {"combine": "all_pass"},
        }
    ).replace('"1.0.0"', '"1.0\\u002e0"')
    repo.commit({"rubrics/c.json": spelt})
    repo.git("checkout", "-qb", "feature")
    repo.write({"rubrics/c.json": spelt.replace("30 days", "31 days")})
    code, out, _ = run("bump", "--diff", "main", cwd=repo.root)
    assert code == 1
    assert _bumped(out) == [
        "nothing to bump",
        "rubrics/c.json:1:99: not bumped, bump it by hand: checks[w].values changed, which "
        "changes scores, but the version is still 1.0.0; bump it: 1.0.0 → 2.0.0",
    ]


def _suite(*paths: str) -> str:
    """An AgentV suite whose one case reads these files."""
    files = "".join(f"          - type: file\n            value: {p}\n" for p in paths)
    return (
        "name: s\ntests:\n  - id: a\n    criteria: c\n    input:\n      - role: system\n"
        f"        content:\n{files}      - role: user\n        content: hi\n"
    )


def test_a_file_in_a_submodule_is_not_said_to_be_missing(tmp_path: Path, run: Run) -> None:
    """git lists a submodule as one entry, not the files the runner reads in it: a file named
    there was said not to exist. It is a note now, not checked."""
    sub = Repo(tmp_path / "sub")
    sub.commit({"prompts/policy.md": "30 days.\n"})
    repo = Repo(tmp_path / "repo")
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub.root), "vendor")
    repo.commit({"evals/s.eval.yaml": _suite("../vendor/prompts/policy.md", "../nothere.md")})
    code, out, _ = run("check", "--format", "json", cwd=repo.root)
    found = [(d["line"], d["column"], d["rule"]) for d in json.loads(out)["diagnostics"]]
    assert (code, found) == (1, [(9, 20, "file-not-checked"), (11, 20, "missing-file")])
    assert "lies under 'vendor', which the listing holds as one entry" in out


def test_a_file_under_a_symlinked_folder(tmp_path: Path, run: Run) -> None:
    """A symlink to a folder is one entry too: inside the repository, not checked (a note);
    leading out of it, an error, and never followed."""
    repo = Repo(tmp_path / "repo")
    repo.write({"real/p.md": "x\n", "evals/s.eval.yaml": _suite("../inside/p.md", "../out/x")})
    (repo.root / "inside").symlink_to("real")
    (repo.root / "out").symlink_to(tmp_path)
    repo.git("add", "-A")
    code, out, _ = run("check", "--format", "json", cwd=repo.root)
    found = [(d["line"], d["column"], d["rule"]) for d in json.loads(out)["diagnostics"]]
    assert (code, found) == (1, [(9, 20, "file-not-checked"), (11, 20, "missing-file")])
    assert "lies under 'out', a symlink that leads outside the repository" in out


BUMP_TREE = {
    "judges/tone.yaml": 'id: tone\nversion: "1.0.0"\nscore_type: binary\n'
    'template: "Is {{ output }} polite?"\n',
    "rubrics/refunds.yaml": 'id: refunds\nversion: "1.2.0"\nchecks:\n  - kind: llm_judge\n'
    "    id: tone\n    judge_prompt_ref: judge/tone@1.0.0\nscoring:\n  combine: all_pass\n",
    "datasets/a.yaml": 'id: a\nversion: "1.0.0"\nquestions:\n  - id: q1\n    input: hi\n'
    "    rubric_ref: rubric/refunds@1.2\n",
    "datasets/b.yaml": 'id: b\nversion: "1.0.0"\nquestions:\n  - id: q1\n    input: hi\n'
    "    rubric_ref: rubric/refunds@1.2.0\n",
}


def _judge_edited(tmp_path: Path) -> Repo:
    r = Repo(tmp_path / "repo")
    r.commit(BUMP_TREE, "base")
    r.git("checkout", "-qb", "feature")
    r.write({"judges/tone.yaml": BUMP_TREE["judges/tone.yaml"].replace("polite", "kind")})
    return r


def test_bump_names_the_pins_it_leaves_dangling_and_fails(tmp_path: Path, run: Run) -> None:
    r = _judge_edited(tmp_path)
    code, out, _ = run("bump", "--diff", "main", cwd=r.root)
    assert code == 1
    assert _bumped(out) == [
        "judges/tone.yaml:2: 1.0.0 → 2.0.0",
        "1 change written",
        "rubrics/refunds.yaml:6: judge/tone@1.0.0 no longer resolves once judge/tone@1.0.0 is "
        "2.0.0; move it to judge/tone@2.0.0 (bump --update-refs does)",
    ]


def test_bump_update_refs_reaches_a_fixed_point_in_one_run(tmp_path: Path, run: Run) -> None:
    """The judge's bump moves the rubric's pin, which is a score-affecting edit of the rubric:
    it is bumped in turn, and so the exact and the range pins on it move, and the datasets that
    hold them are bumped. One run leaves nothing for a second, and the tree clean."""
    r = _judge_edited(tmp_path)
    code, out, _ = run("bump", "--diff", "main", "--update-refs", cwd=r.root)
    assert code == 0, out
    assert sorted(_bumped(out)) == [
        "7 changes written",
        "datasets/a.yaml:2: 1.0.0 → 2.0.0",
        "datasets/a.yaml:6: rubric/refunds@1.2 → rubric/refunds@2.0",
        "datasets/b.yaml:2: 1.0.0 → 2.0.0",
        "datasets/b.yaml:6: rubric/refunds@1.2.0 → rubric/refunds@2.0.0",
        "judges/tone.yaml:2: 1.0.0 → 2.0.0",
        "rubrics/refunds.yaml:2: 1.2.0 → 2.0.0",
        "rubrics/refunds.yaml:6: judge/tone@1.0.0 → judge/tone@2.0.0",
    ]
    code, out, _ = run("check", "--diff", "main", cwd=r.root)
    assert code == 0, out
    again = run("bump", "--diff", "main", "--update-refs", cwd=r.root)[1]
    assert _bumped(again) == ["nothing to bump"]
