"""The memo of a base's tree: a --diff run that asks it by id finds what one that reads every
file finds, after any change, and a damaged, stale or planted memo is never believed.
Real git repositories in temporary folders; the tree-size threshold is lowered to reach them."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evallint.engine import backed
from evallint.errors import EvallintError
from evallint.io import cache as cache_module
from evallint.io import git as git_module
from evallint.io import memo as memo_module
from evallint.io.cache import FOLDER
from evallint.io.gitout import packed_tree
from evallint.io.source import FsSource
from test_git import Repo

Run = Callable[..., tuple[int, str, str]]

pytestmark = pytest.mark.usefixtures("no_ci_env")


def _judge(ident: str, version: str = "1.0.0") -> str:
    return (
        f'id: {ident}\nversion: "{version}"\nscore_type: continuous\n'
        "template: |\n  Rate from 0 to 1.\n  Reply: {{ output }}\n"
    )


def _rubric(ident: str, version: str = "1.0.0", judge: str = "j0@1.0.0") -> str:
    return (
        f'id: {ident}\nversion: "{version}"\nchecks:\n'
        f"  - kind: llm_judge\n    id: tone\n    judge_prompt_ref: judge/{judge}\n"
        "scoring:\n  combine: all_pass\n"
    )


def _dataset(ref: str) -> str:
    return f'questions:\n  - id: q1\n    input: "Hi {ref}?"\n    rubric_ref: {ref}\n'


BASE = {
    **{f"judges/j{i}.yaml": _judge(f"j{i}") for i in range(3)},
    **{f"rubrics/r{i}.yaml": _rubric(f"r{i}", judge=f"j{i % 3}@1.0.0") for i in range(6)},
    **{f"datasets/d{i}.yaml": _dataset(f"rubric/r{i}@1.0.0") for i in range(6)},
    "rubrics/unversioned.yaml": _rubric("loose").replace('"1.0.0"', "1", 1),
    "rubrics/broken.yaml": "id: [\n",
    "datasets/loose.yaml": _dataset("rubric/loose@1.0.0"),
}


@pytest.fixture(autouse=True)
def _memo_in_small_trees(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(backed, "MEMO_FROM", 1)


def _repo(root: Path) -> Repo:
    repo = Repo(root)
    repo.commit(BASE, "base")
    return repo


def _findings(run: Run, repo: Repo, *flags: str) -> tuple[int, list[dict[str, object]]]:
    code, out, err = run("check", "--diff", "main", "--format", "json", *flags, cwd=repo.root)
    assert code in (0, 1), err
    return code, json.loads(out)["diagnostics"]


def _warmed(run: Run, repo: Repo) -> tuple[int, list[dict[str, object]]]:
    """Run twice: the first run fills the cache, the second writes the memo from it."""
    _findings(run, repo)
    found = _findings(run, repo)
    assert len(_memos(repo)) == 1
    return found


def _memos(repo: Repo) -> list[Path]:
    return sorted((repo.root / FOLDER).glob("memo-*.sqlite"))


def _same_as_reading_every_file(run: Run, repo: Repo) -> None:
    assert _findings(run, repo) == _findings(run, repo, "--no-cache")


def _change(repo: Repo, step: str, i: int, n: int) -> None:
    """One random change of the base's tree, staged or not."""
    rubric = repo.root / f"rubrics/r{i}.yaml"
    if step == "v" and rubric.exists():
        rubric.write_text(_rubric(f"r{i}", ["1.0.0", "1.1.0", "2.0.0"][n % 3]))
    elif step == "p":
        repo.write({f"datasets/d{i}.yaml": _dataset(f"rubric/r{n % 6}@{['1.0.0', '^2'][n % 2]}")})
    elif step == "j":
        repo.write({f"judges/j{i % 3}.yaml": _judge(f"j{i % 3}", "2.0.0")})
    elif step == "d" and rubric.exists():
        rubric.unlink()
    elif step == "m" and rubric.exists():
        rubric.rename(repo.root / f"rubrics/moved{i}-{n}.yaml")
    elif step == "n":
        # A second r{n}, after the first in path order: the memo's is added to the project last.
        repo.write({f"rubrics/z{i}.yaml": _rubric(f"r{n % 6}", "1.0.0")})
    elif step == "b" and rubric.exists():
        rubric.write_text("id: [\n")
    elif step == "f":
        repo.write({"rubrics/broken.yaml": _rubric("fixed")})
    elif step == "s":
        repo.git("add", "-A")
    elif step == "c":
        repo.git("checkout", "-q", "--", ".")
    elif step == "k":  # the base moves on: its memo is the last base's, lacking what changed
        repo.git("add", "-A")
        repo.git("commit", "-q", "--allow-empty", "-m", f"step {n}")


def test_a_memo_is_written_once_and_then_asked(run: Run, tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    repo.write({"rubrics/r1.yaml": _rubric("r1", "1.1.0")})
    cold = _findings(run, repo)
    assert _memos(repo) == []  # a cold cache: no memo, which a CI job would never ask
    assert _findings(run, repo) == cold
    assert len(_memos(repo)) == 1
    stamp = _memos(repo)[0].stat().st_mtime_ns
    assert _findings(run, repo) == cold == _findings(run, repo, "--no-cache")
    assert _memos(repo)[0].stat().st_mtime_ns >= stamp  # touched when used, not rewritten


def test_a_run_that_asks_the_memo_reads_only_its_own_files(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _repo(tmp_path / "repo")
    repo.write({"rubrics/r1.yaml": _rubric("r1", "1.1.0"), "datasets/d2.yaml": _dataset("x")})
    _warmed(run, repo)
    reads: list[str] = []
    real = FsSource.read_capped

    def counting(self: FsSource, path: str, limit: int | None) -> bytes | int:
        reads.append(path)
        return real(self, path, limit)

    monkeypatch.setattr(FsSource, "read_capped", counting)
    _, found = _findings(run, repo)
    # Its two files, and d1, whose pin of r1 the change may break: never the rest of the tree
    # (what rules read of r1's judge is in its summary).
    assert sorted(set(reads)) == ["datasets/d1.yaml", "datasets/d2.yaml", "rubrics/r1.yaml"]
    assert found


@given(
    st.lists(st.tuples(st.sampled_from("vpjdmnbfsck"), st.integers(0, 5)), max_size=8),
    st.booleans(),
)
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_a_run_that_asks_the_memo_finds_what_reading_every_file_finds(
    tmp_path_factory: pytest.TempPathFactory, run: Run, steps: list[tuple[str, int]], remake: bool
) -> None:
    """The memo is made by the first run, before any change, and asked after each change.
    `remake`: it is made again after the first change, so it lacks the files that change
    touched, and asked after each next one, which may leave them as the base has them."""
    repo = _repo(tmp_path_factory.mktemp("memo") / "repo")
    _warmed(run, repo)
    for n, (step, i) in enumerate(steps):
        _change(repo, step, i, n)
        if remake and n == 0:
            _memos(repo)[0].unlink()
            _findings(run, repo)
        _same_as_reading_every_file(run, repo)
    assert len(_memos(repo)) == 1  # a base moved on by a few files asks the last one's memo


def test_a_base_moved_on_by_a_few_files_asks_the_last_bases_memo(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The memo of the old base has rows of r1 and d3 as they were: never served."""
    repo = _repo(tmp_path / "repo")
    _warmed(run, repo)
    repo.commit({"rubrics/r1.yaml": _rubric("r1", "3.0.0")}, "bump")
    repo.git("rm", "-q", "datasets/d3.yaml")
    repo.git("commit", "-qm", "drop")
    repo.write({"datasets/d2.yaml": _dataset("rubric/r1@1.0.0")})
    found = _findings(run, repo)
    assert found == _findings(run, repo, "--no-cache")
    assert found[0] == 1 and "matches no version" in str(found[1])
    assert len(_memos(repo)) == 1  # asked, not written again
    monkeypatch.setattr(cache_module, "NEAR_CHANGES", 1)  # too far: a memo of its own
    assert _findings(run, repo) == found
    assert len(_memos(repo)) == 2


def test_a_file_the_memo_lacks_is_read_when_the_change_leaves_it_alone(
    run: Run, tmp_path: Path
) -> None:
    """Made while r1 was changed, the memo lacks r1; reverted, r1 is the base's again."""
    repo = _repo(tmp_path / "repo")
    repo.write({"rubrics/r1.yaml": _rubric("r1", "1.1.0")})
    _warmed(run, repo)
    repo.git("checkout", "-q", "--", ".")
    repo.write({"datasets/d2.yaml": _dataset("rubric/r1@1.0.0")})
    code, found = _findings(run, repo)
    assert (code, found) == _findings(run, repo, "--no-cache")
    assert code == 0


def test_a_second_definer_in_the_memo_takes_its_place_in_path_order(
    run: Run, tmp_path: Path
) -> None:
    repo = _repo(tmp_path / "repo")
    _warmed(run, repo)
    repo.write({"rubrics/z.yaml": _rubric("r1")})
    code, found = _findings(run, repo)
    assert (code, found) == _findings(run, repo, "--no-cache")
    assert found


def _pending(repo: Repo) -> list[str]:
    """The files pre-commit would name: those the pending change adds or modifies."""
    listed = repo.git("diff", "--name-only", "-z", "HEAD") + repo.git(
        "ls-files", "-z", "--others", "--exclude-standard"
    )
    found = sorted({p for p in listed.split("\0") if p and (repo.root / p).is_file()})
    return found or ["datasets/d0.yaml"]


def _named(run: Run, repo: Repo, paths: list[str]) -> tuple[int, list[dict[str, object]]]:
    code, out, err = run("check", "--format", "json", *paths, cwd=repo.root)
    assert code in (0, 1), err
    return code, json.loads(out)["diagnostics"]


@given(
    st.lists(st.tuples(st.sampled_from("vpjdmnbfsck"), st.integers(0, 5)), max_size=8),
)
@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_files_named_in_a_large_tree_find_what_the_listing_of_the_tree_finds(
    tmp_path_factory: pytest.TempPathFactory, run: Run, steps: list[tuple[str, int]]
) -> None:
    """Pre-commit's run in a large tree takes HEAD's tree with the change applied and asks
    the memo of HEAD (after a commit, the last HEAD's): it finds what the run of a small tree
    finds, which lists the working tree and reads a summary per file."""
    repo = _repo(tmp_path_factory.mktemp("named") / "repo")
    for n, (step, i) in enumerate(steps):
        _change(repo, step, i, n)
        paths = _pending(repo)
        first, warm = _named(run, repo, paths), _named(run, repo, paths)
        with pytest.MonkeyPatch.context() as small:
            small.setattr(backed, "MEMO_FROM", 10**9)
            assert first == warm == _named(run, repo, paths)


@pytest.mark.parametrize("damage", [b"", b"not a database", b"SQLite format 3\x00" + b"\x00" * 90])
def test_a_damaged_memo_is_ignored_and_written_again(
    run: Run, tmp_path: Path, damage: bytes
) -> None:
    repo = _repo(tmp_path / "repo")
    repo.write({"rubrics/r2.yaml": _rubric("r2", "2.0.0")})
    first = _warmed(run, repo)
    [memo] = _memos(repo)
    memo.write_bytes(damage)
    assert _findings(run, repo) == first
    assert memo_module.open_memo(memo) is not None  # written again, whole


def test_a_row_that_does_not_read_is_summarized_from_its_file(run: Run, tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    repo.write({"datasets/d4.yaml": _dataset("rubric/r4@2.0.0")})
    first = _warmed(run, repo)
    [memo] = _memos(repo)
    db = sqlite3.connect(memo)
    db.execute("UPDATE files SET kind = 'nonsense', digest = '{' WHERE path = 'rubrics/r4.yaml'")
    db.commit()
    db.close()
    assert _findings(run, repo) == first


def test_a_memo_that_fails_in_the_middle_of_a_run_stops_it_and_is_removed(
    tmp_path: Path,
) -> None:
    """Damage that the opening checks cannot see (a disk that fails under a query) is no
    traceback: the run stops with a clear message, and the next run writes the memo again."""
    file = tmp_path / "memo-s-x.sqlite"
    memo_module.write_memo(file, [("a.yaml", None, None, None, None, None, None, "")], [])
    memo = memo_module.open_memo(file)
    assert memo is not None
    memo._db = sqlite3.connect(":memory:")  # a database without the memo's tables
    with pytest.raises(EvallintError, match=r"could not be read \(no such table: files\)"):
        memo.definers("rubric", "r")
    assert not file.exists()


def test_a_python_without_sqlite_runs_without_a_memo(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _repo(tmp_path / "repo")
    repo.write({"rubrics/r1.yaml": _rubric("r1", "1.1.0")})
    first = _warmed(run, repo)
    monkeypatch.setitem(sys.modules, "sqlite3", None)  # `import sqlite3` raises ImportError
    assert _findings(run, repo) == first
    _memos(repo)[0].unlink()
    assert _findings(run, repo) == first
    assert _memos(repo) == []


def test_a_memo_is_never_written_where_the_tree_could_plant_one(run: Run, tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    repo.commit({f"{FOLDER}/note.txt": "planted\n"}, "plant")
    repo.write({"rubrics/r1.yaml": _rubric("r1", "1.1.0")})
    _findings(run, repo)
    _findings(run, repo)
    assert _memos(repo) == []


def _listings(repo: Repo) -> list[Path]:
    return sorted((repo.root / FOLDER).glob("listing-*.bin"))


def test_a_kept_listing_of_the_base_is_read_and_git_lists_no_tree(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second run at a base keeps its listing; the next reads it, and asks git for the
    change alone. What it finds is what reading every file finds."""
    repo = _repo(tmp_path / "repo")
    repo.write({"rubrics/r1.yaml": _rubric("r1", "3.0.0"), "datasets/new.yaml": _dataset("x")})
    _warmed(run, repo)
    assert [p.name for p in _listings(repo)] == [
        f"listing-{repo.git('rev-parse', 'main').strip()}.bin"
    ]
    asked: list[tuple[str, ...]] = []
    real = git_module.Pending.__init__

    def spy(self: git_module.Pending, root: Path, args: tuple[str, ...], **kw: bool) -> None:
        asked.append(tuple(args))
        real(self, root, args, **kw)

    monkeypatch.setattr(git_module.Pending, "__init__", spy)
    found = _findings(run, repo)
    assert not [a for a in asked if a[0] == "ls-tree"]
    assert found == _findings(run, repo, "--no-cache")


@pytest.mark.parametrize("how", ["untracked", "committed", "link"])
def test_a_listing_the_change_plants_is_never_read_nor_written(
    run: Run, tmp_path: Path, how: str
) -> None:
    """A listing of the base that the change adds (untracked, committed on a branch, or a link
    to an endless file), which leaves out the rubric a dataset names: the run lists the base
    itself, never opens the planted file, and writes nothing."""
    repo = _repo(tmp_path / "repo")
    base = repo.git("rev-parse", "main").strip()
    fake = packed_tree(["datasets/d1.yaml"], {})
    planted = repo.root / FOLDER / f"listing-{base}.bin"
    if how != "untracked":
        repo.git("checkout", "-qb", "feature")
    planted.parent.mkdir()
    if how == "link":
        planted.symlink_to("/dev/zero")
    else:
        planted.write_bytes(fake)
    if how != "untracked":
        repo.git("add", "-A")
        repo.git("commit", "-qm", "plant")
    repo.write({"datasets/d1.yaml": _dataset("rubric/r1@1.0.0") + "# edited\n"})
    assert _findings(run, repo) == _findings(run, repo, "--no-cache")
    assert _findings(run, repo)[0] == 0  # r1 is there: the planted listing was not believed
    assert planted.is_symlink() if how == "link" else planted.read_bytes() == fake


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_kept_listing_that_is_no_regular_file_is_not_read(run: Run, tmp_path: Path) -> None:
    """A FIFO or a link where the listing is kept (not the change's doing): no wait, no read;
    git lists the tree, and the listing is written in its place (the link replaced, never
    written through)."""
    repo = _repo(tmp_path / "repo")
    repo.write({"rubrics/r1.yaml": _rubric("r1", "3.0.0")})
    expected = _warmed(run, repo)
    (listing,) = _listings(repo)
    for odd in ("fifo", "link"):
        listing.unlink()
        os.mkfifo(listing) if odd == "fifo" else listing.symlink_to("/dev/zero")
        assert _findings(run, repo) == expected
        assert listing.is_file() and not listing.is_symlink()


def test_only_the_latest_used_memos_are_kept(tmp_path: Path) -> None:
    folder = tmp_path / FOLDER
    folder.mkdir()
    for n in range(6):
        old = folder / f"memo-s-{n}.sqlite"
        old.write_bytes(b"")
        import os

        os.utime(old, (n, n))
    memo_module.write_memo(folder / "memo-s-new.sqlite", [], [])
    kept = sorted(p.name for p in folder.glob("memo-*.sqlite"))
    assert kept == ["memo-s-3.sqlite", "memo-s-4.sqlite", "memo-s-5.sqlite", "memo-s-new.sqlite"]


def test_a_memo_answers_by_id_and_by_mention(tmp_path: Path) -> None:
    file = tmp_path / "memo-s-x.sqlite"
    rows: list[memo_module.Row] = [
        ("a.yaml", None, None, None, None, None, None, "rubric/r@1 rubric/s"),
        ("b.yaml", "rubric", "rubric", "r", "1.0.0", "'1.0.0'", None, "judge/j@1"),
        ("c.yaml", "rubric", "rubric", "", None, None, None, ""),
    ]
    memo_module.write_memo(file, rows, ["gone.yaml"])
    memo = memo_module.open_memo(file)
    assert memo is not None
    assert memo.missing == {"gone.yaml"}
    assert memo.definers("rubric", "r") == [rows[1]]
    assert memo.mentioning(["rubric/r"]) == [rows[0]]
    assert memo.mentioning(["judge/j", "rubric/s"]) == [rows[0], rows[1]]
    assert memo.mentioning(["rubric/r@1"]) == []  # names are ids, not pins
    assert memo.broken() == [rows[2]]
    assert memo.at("b.yaml") == rows[1] and memo.at("a.yaml") is None
    assert memo.ids("rubric") == [("r", "b.yaml", "1.0.0")]
    memo.close()
