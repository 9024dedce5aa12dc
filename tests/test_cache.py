"""The tree cache: a partial run reads only what it needs, never uses a summary of other bytes,
survives damage and concurrent runs, and is never read when a change could have planted it.
Real git repositories in temporary folders."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evallint.config import Config
from evallint.engine import run as run_module
from evallint.engine import summary
from evallint.engine.run import lint
from evallint.io import discover
from evallint.io.cache import FOLDER, MemoryCache, TreeCache, blob_id, open_cache
from evallint.io.source import FsSource
from evallint.model import JSON
from test_git import RUBRIC, Repo

Run = Callable[..., tuple[int, str, str]]
WRONG_PIN = (
    "datasets/d0.yaml:4:17: error: 'rubric/r1@2.0.0' matches no version of rubric 'r1'; "
    "it has 1.0.0 [unknown-ref-version]"
)


def _rubric(ident: str, version: str = "1.0.0") -> str:
    return RUBRIC.replace("id: refunds", f"id: {ident}").replace('"1.2.0"', f'"{version}"')


def _dataset(ref: str) -> str:
    return f'questions:\n  - id: q1\n    input: "Hi {ref}?"\n    rubric_ref: {ref}\n'


# Base refs from the environment would pick another base than the one each test names.
pytestmark = pytest.mark.usefixtures("no_ci_env")


@pytest.fixture
def r(tmp_path: Path) -> Repo:
    """Ten rubrics and ten datasets; d0 pins rubric r1 at 2.0.0, which only r1's bump makes."""
    root = tmp_path / "repo"
    r = Repo(root)
    files = {f"rubrics/r{i}.yaml": _rubric(f"r{i}") for i in range(10)}
    files |= {f"datasets/d{i}.yaml": _dataset(f"rubric/r{i}@1.0.0") for i in range(1, 10)}
    files["datasets/d0.yaml"] = _dataset("rubric/r1@2.0.0")
    r.commit(files, "base")
    return r


class Counting(FsSource):
    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.reads: list[str] = []

    def read_capped(self, path: str, limit: int | None) -> bytes | int:
        self.reads.append(path)  # every read of a whole file comes here
        return super().read_capped(path, limit)


def _files(cache: Path) -> dict[str, JSON]:
    """The summaries: the first of the cache file's two lines."""
    files: dict[str, JSON] = json.loads(cache.read_bytes().split(b"\n")[0])["files"]
    return files


def _put_files(cache: Path, files: dict[str, JSON]) -> None:
    """Write the summaries, keeping the texts line after them."""
    texts = cache.read_bytes().split(b"\n", 1)[1]
    cache.write_bytes(json.dumps({"files": files}).encode() + b"\n" + texts)


def _lint(
    r: Repo, paths: list[str], *, listed: bool = True, config: Config | None = None
) -> tuple[list[str], list[str]]:
    """(the diagnostics as text, the files read) of a run over `paths` as pre-commit passes
    them, with the cache on disk; `listed`: the clean files' keys come with the tree's listing,
    as in the command (else the cache asks git for them)."""
    tree, blobs = discover.listing(r.root, True, Config())
    store, why = open_cache(
        r.root, True, Config(), tree, enabled=True, blobs=blobs if listed else None
    )
    assert why is None
    source = Counting(r.root)
    report = lint(paths, source, config or Config(), tree=tree, store=store)
    store.save()
    shown = [f"{d.path}:{d.span.line}:{d.span.column}: {d.rule}" for d in report.diagnostics]
    return shown, source.reads


def test_a_warm_run_reads_only_the_files_it_checks(r: Repo) -> None:
    cold, read_cold = _lint(r, ["datasets/d5.yaml"])
    # Its own file, and every other file once to summarize it: the rubric it resolves to is
    # not read again, as its summary holds what the dataset's rules read of it.
    assert cold == [] and len(read_cold) == 20 and read_cold.count("rubrics/r5.yaml") == 1
    warm, read_warm = _lint(r, ["datasets/d5.yaml"])
    assert warm == []
    assert read_warm == ["datasets/d5.yaml"]


def test_what_a_rubric_needs_of_its_questions_comes_from_its_summary(r: Repo) -> None:
    """question-missing-inputs reads the rubric's digest (composites included): the same
    finding cold and warm, without parsing either rubric in the warm run."""
    facts = _rubric("facts").replace("checks:\n", "checks:\n  - {kind: fact_match, id: f1}\n")
    outer = _rubric("outer").replace(
        "checks:\n", "checks:\n  - {kind: composite, id: c, rubric_ref: rubric/facts@1}\n"
    )
    r.commit(
        {
            "rubrics/facts.yaml": facts,
            "rubrics/outer.yaml": outer,
            "datasets/q.yaml": _dataset("rubric/outer@1.0.0"),
        },
        "facts",
    )
    expected = ["datasets/q.yaml:4:17: question-missing-inputs"]
    cold, _ = _lint(r, ["datasets/q.yaml"])
    warm, read_warm = _lint(r, ["datasets/q.yaml"])
    assert cold == warm == expected
    assert read_warm == ["datasets/q.yaml"]


@pytest.mark.parametrize("listed", [True, False])
def test_a_summary_is_used_only_for_the_bytes_it_was_made_from(r: Repo, listed: bool) -> None:
    def found() -> list[str]:
        return _lint(r, ["datasets/d0.yaml"], listed=listed)[0]

    assert found() == ["datasets/d0.yaml:4:17: unknown-ref-version"]
    # r1 bumped in the working tree only (not staged): git's blob id is not the file's.
    r.write({"rubrics/r1.yaml": _rubric("r1", "2.0.0")})
    assert found() == []
    r.git("commit", "-qam", "bump r1")  # now clean, with a new blob id
    assert found() == []
    r.git("revert", "--no-edit", "HEAD")  # the old blob again: its summary still holds
    assert found() == ["datasets/d0.yaml:4:17: unknown-ref-version"]


def test_a_damaged_cache_is_ignored_and_rebuilt(r: Repo) -> None:
    first = _lint(r, ["datasets/d0.yaml"])[0]
    (cache,) = (r.root / FOLDER).glob("tree-*.json")
    damages = (
        b"\x00not json",
        b'{"files": []}',
        b'{"files": {"rubrics/r1.yaml": 7}}',
        b'{"files": {"gone.yaml": 7, "rubrics/r2.yaml": [1, 2, 3]}}\n["a", 2]',
        b"[" * 100_000,  # nested past the recursion limit
    )
    for damage in damages:
        cache.write_bytes(damage)
        assert _lint(r, ["datasets/d0.yaml"])[0] == first
        assert "rubrics/r1.yaml" in _files(cache)
    # An entry of the right key but the wrong shape is a miss, not a crash.
    files = _files(cache)
    files["rubrics/r1.yaml"][1] = ["rubric/r1", "no-such-kind", 3, None, None, None]
    _put_files(cache, files)
    assert _lint(r, ["datasets/d0.yaml"])[0] == first


def test_a_lying_entry_cannot_be_made_for_other_bytes(r: Repo) -> None:
    """Entries are keyed by content: one claiming r1 defines 2.0.0 holds only for bytes whose
    blob id it names, which the real r1 does not have."""
    _lint(r, ["datasets/d0.yaml"])
    (cache,) = (r.root / FOLDER).glob("tree-*.json")
    files = _files(cache)
    key = blob_id(_rubric("r1", "2.0.0").encode())
    files["rubrics/r1.yaml"] = [key, ["", "rubric", "r1", "2.0.0", "'2.0.0'", {}]]
    _put_files(cache, files)
    assert _lint(r, ["datasets/d0.yaml"])[0] == ["datasets/d0.yaml:4:17: unknown-ref-version"]


@pytest.mark.parametrize("settings", ["", 'exclude = [".*"]\n'])
def test_a_committed_cache_is_never_read(r: Repo, run: Run, settings: str) -> None:
    """A pull request can commit `.evallint_cache/`; its summaries would hide what it breaks.
    Its settings cannot hide the folder from the test either (`exclude = [".*"]`)."""
    if settings:
        (r.root / ".evallint.toml").write_text(settings)
    _lint(r, ["datasets/d0.yaml"])
    (cache,) = (r.root / FOLDER).glob("tree-*.json")
    files = _files(cache)
    files["rubrics/r1.yaml"][1] = ["", "rubric", "r1", "2.0.0", "'2.0.0'"]  # a lie
    _put_files(cache, files)
    r.git("add", "-f", FOLDER)
    r.git("commit", "-qm", "plant a cache")
    code, out, _ = run("check", "datasets/d0.yaml", cwd=r.root)
    assert code == 1
    assert WRONG_PIN in out
    assert f"{FOLDER}/ is part of the change or the tree, so it is not used" in out


def test_a_linked_cache_folder_is_never_used(r: Repo, run: Run, tmp_path: Path) -> None:
    away = tmp_path / "away"
    away.mkdir()
    (r.root / FOLDER).symlink_to(away)
    code, out, _ = run("check", "datasets/d0.yaml", cwd=r.root)
    assert code == 1 and f"{FOLDER} is a symlink, so it is not used" in out
    assert list(away.iterdir()) == []


def test_no_cache_writes_nothing(r: Repo, run: Run) -> None:
    code, out, _ = run("check", "--no-cache", "datasets/d0.yaml", cwd=r.root)
    assert code == 1 and out.startswith(WRONG_PIN)
    assert not (r.root / FOLDER).exists()
    assert run("check", "datasets/d5.yaml", cwd=r.root)[0] == 0
    assert (r.root / FOLDER / ".gitignore").read_text().endswith("*\n")
    assert r.git("status", "--porcelain") == ""  # the cache never shows as a change


def test_two_runs_at_once_share_the_cache(r: Repo) -> None:
    cmd = [sys.executable, "-m", "evallint", "check", "--format", "json", "datasets/d0.yaml"]
    for _ in range(3):
        procs = [
            subprocess.Popen(cmd, cwd=r.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for _ in range(4)
        ]
        outs = [p.communicate() for p in procs]
        assert [p.returncode for p in procs] == [1] * 4, outs
        found = [json.loads(out)["diagnostics"] for out, _ in outs]
        assert all(f == found[0] for f in found) and len(found[0]) == 1
        (cache,) = (r.root / FOLDER).glob("tree-*.json")
        assert len(_files(cache)) == 19
    assert [p.name for p in (r.root / FOLDER).iterdir() if p.name.startswith(".tmp")] == []


def test_summaries_reject_what_to_json_never_writes() -> None:
    digest = {"expected_facts": ["fact_match check 'f'"], "composite": ["rubric/b@1"]}
    good = summary.Summary("rubric/a@1 rubric/b", "rubric", "a", "1.0.0", "'1.0.0'", digest)
    assert summary.Summary.from_json(good.to_json()) == good
    assert summary.Summary.from_json("rubric/a") == summary.Summary("rubric/a")
    damaged: list[JSON] = [
        None,
        3,
        [],
        ["", None, "", None],
        [["x"], "rubric", "", None, None, None],
        ["", "rubric", "a", None, None],  # the format before digests
    ]
    for bad in damaged:
        assert summary.Summary.from_json(bad) is None
    assert summary.Summary.from_json(["", "rubric", 1, None, None, None]) is None
    assert summary.Summary.from_json(["", "rubric", "a", 1.0, None, None]) is None
    assert summary.Summary.from_json(["", None, "a", None, None, None]) is None
    assert summary.Summary.from_json(["", "dataset", "a", None, None, None]) is None  # no definer
    digest_damages: list[JSON] = [[], {"composite": "rubric/b"}, {"composite": [1]}]
    for damage in digest_damages:
        assert summary.Summary.from_json(["", "rubric", "a", None, None, damage]) is None


def test_a_definer_whose_id_cannot_be_read_is_named_from_its_summary(r: Repo, run: Run) -> None:
    """The cold run learns it from the file, the warm one from the cache, and the workers of a
    split run from the parent; each says the same."""
    r.commit({"rubrics/r1.yaml": "id: r1\nchecks: [\n"}, "break r1")
    expected = (
        "datasets/d1.yaml:4:17: error: no rubric with id 'r1' in the project; rubrics/r1.yaml "
        "is a rubric file whose id cannot be read [unknown-ref]"
    )
    for jobs in ("1", "1", "2"):
        code, out, _ = run(
            "check", "--jobs", jobs, "datasets/d1.yaml", "datasets/d2.yaml", cwd=r.root
        )
        assert code == 1 and out.splitlines()[0] == expected


def test_an_untracked_file_is_hashed_and_its_summary_reused(r: Repo) -> None:
    """Git knows no blob id for it: it is read and hashed each run, but an unchanged one is not
    summarized again, and the cache is not written again for it."""
    r.write({"datasets/new.yaml": _dataset("rubric/r3@1.0.0")})
    _lint(r, ["datasets/d5.yaml"])
    (cache,) = (r.root / FOLDER).glob("tree-*.json")
    before = cache.stat().st_mtime_ns
    shown, reads = _lint(r, ["datasets/d5.yaml"])
    assert shown == [] and "datasets/new.yaml" in reads
    assert cache.stat().st_mtime_ns == before
    r.write({"datasets/new.yaml": _dataset("rubric/r3@9.0.0")})
    assert _lint(r, ["datasets/d5.yaml"])[0] == []  # not the run's to report
    assert cache.stat().st_mtime_ns != before


def test_a_warm_partial_run_in_a_large_tree_never_reads_through_a_link_out(
    r: Repo, tmp_path: Path
) -> None:
    """Past 1,000 files a warm partial run learns no links folder by folder: the files git does
    not know clean (a committed link, an untracked one) are asked one by one, and a link that
    leaves the project is still never read."""
    outside = tmp_path / "outside.yaml"
    outside.write_text(_rubric("leaked", "9.9.9"))
    r.commit({f"notes/n{i}.txt": "x\n" for i in range(1000)}, "notes")
    (r.root / "rubrics" / "tracked.yaml").symlink_to(outside)
    r.git("add", "-A")
    r.git("commit", "-qm", "a tracked link")
    (r.root / "rubrics" / "untracked.yaml").symlink_to(outside)
    r.write({"datasets/leak.yaml": _dataset("rubric/leaked@9")})
    for _ in range(2):  # cold, then warm
        shown, reads = _lint(r, ["datasets/leak.yaml"])
        assert shown == ["datasets/leak.yaml:4:17: unknown-ref"]
        assert not {"rubrics/tracked.yaml", "rubrics/untracked.yaml"} & set(reads)


def test_a_definer_gone_since_its_summary_stays_of_its_kind(tmp_path: Path) -> None:
    """A judge known by its summary that no longer reads when a rule parses it (changed or
    removed since the listing) is an empty, unparsed judge: never taken for another kind."""
    from evallint.formats.ai_eval import kinds as ai_eval

    entry = summary.load_definer("judges/gone.yaml", ai_eval.JUDGE, FsSource(tmp_path), Config())
    assert entry.kind is ai_eval.JUDGE
    assert not entry.doc.ok and entry.doc.data == {}


@pytest.mark.parametrize("spelt", ["rubric\\/r3@1.0.0", "\\u0072ubric/r3@1.0.0"])
def test_a_reference_spelt_with_escapes_is_still_found_by_its_summary(r: Repo, spelt: str) -> None:
    """A JSON dataset may escape any character of its reference (an escaped slash, `\\u0072`):
    the summary must still name it, or a change to the rubric would not be checked against it."""
    ref = '"rubric_ref": "' + spelt + '"'
    r.commit({"datasets/j.json": '{"questions": [{"id": "q", "input": "x", ' + ref + "}]}"})
    assert _lint(r, ["rubrics/r3.yaml"])[0] == []  # cold, then the cache is warm
    r.write({"rubrics/r3.yaml": _rubric("r3", "2.0.0")})
    shown, _ = _lint(r, ["rubrics/r3.yaml"])
    assert [s for s in shown if s.startswith("datasets/j.json")] == [
        "datasets/j.json:1:56: unknown-ref-version"
    ]


def test_keys_the_listing_gave_are_used_without_asking_git(tmp_path: Path) -> None:
    """Outside a git work tree git could answer nothing: the keys can only be the listing's."""
    store, _ = open_cache(tmp_path, True, Config(), ["a.yaml"], enabled=True, blobs={"a.yaml": "k"})
    assert store.known() == {"a.yaml": "k"}


@pytest.mark.parametrize(
    ("tree", "listed"),
    [
        (["a.yaml", ".evallint_cache"], True),
        ([".evallint_cache/tree-1.json", "b.yaml"], True),
        ([".evallint_cache2/x.json", ".evallint_cache.md", "a.yaml"], False),
    ],
)
def test_a_cache_the_tree_lists_is_told_from_names_that_only_start_alike(
    tmp_path: Path, tree: list[str], listed: bool
) -> None:
    assert (open_cache(tmp_path, True, Config(), tree, enabled=True)[1] is not None) == listed


def test_summaries_made_by_two_processes_are_those_one_makes(
    r: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold cache in a large tree is filled by forked processes, each a share of the files:
    the findings and the cache they leave are those of one process."""
    one = _lint(r, ["datasets/d0.yaml"])[0]
    (cache,) = (r.root / FOLDER).glob("tree-*.json")
    alone = cache.read_bytes()
    cache.unlink()
    monkeypatch.setattr(summary, "SPLIT_FROM", 2)
    monkeypatch.setattr(summary, "count_for", lambda files, jobs: 2)
    assert (
        _lint(r, ["datasets/d0.yaml"])[0] == one == ["datasets/d0.yaml:4:17: unknown-ref-version"]
    )
    assert cache.read_bytes() == alone


def test_a_split_map_keeps_the_order_of_its_items() -> None:
    from evallint.engine.parallel import split_map

    assert split_map(str, list(range(11)), 3) == [str(i) for i in range(11)]


def test_a_whole_run_neither_loads_the_cache_nor_asks_git_for_keys(
    r: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every eval file is in the run: no summary of another file is needed. A file of the
    run that is of no kind (read, and skipped) is not outside it either."""
    _lint(r, ["datasets/d0.yaml"])  # a cache on disk, as a warm run would find it
    (r.root / "notes.json").write_text('{"a": 1}\n', encoding="utf-8")

    def refuse(*args: object) -> None:
        raise AssertionError("a whole run asked for the cache")

    monkeypatch.setattr(TreeCache, "known", refuse)
    monkeypatch.setattr(TreeCache, "kept", refuse)
    monkeypatch.setattr(run_module, "_asks_many", lambda paths, store: True)
    tree = sorted(p.relative_to(r.root).as_posix() for p in r.root.rglob("*.yaml"))
    tree = sorted([p for p in tree if not p.startswith(".")] + ["notes.json"])
    store, _ = open_cache(r.root, True, Config(), tree, enabled=True)
    report = lint(tree, FsSource(r.root), Config(), tree=tree, store=store)
    assert [d.rule for d in report.diagnostics] == ["unknown-ref-version"]


def test_a_run_over_datasets_never_parses_what_files_mention(r: Repo) -> None:
    """What files that define nothing mention matters only to a run whose own files define
    ids, or that compares datasets (`shared-item`, off here): a dataset's run never parses
    that line (damaged here: the run is the same, and the file is not written again)."""
    config = Config(ignore=("shared-item",))
    first = _lint(r, ["datasets/d0.yaml"], config=config)[0]
    (cache,) = (r.root / FOLDER).glob("tree-*.json")
    files, texts = cache.read_bytes().split(b"\n")
    assert b"rubric/r2@1.0.0" in texts and b"rubric/r2@" not in files
    (held,) = [t for t in json.loads(texts) if "rubric/r2@1.0.0" in t]
    assert _files(cache)["datasets/d2.yaml"][1] == json.loads(texts).index(held)
    cache.write_bytes(files + b"\n\x00damaged")
    again, reads = _lint(r, ["datasets/d0.yaml"], config=config)
    assert again == first and reads == ["datasets/d0.yaml"]
    assert cache.read_bytes() == files + b"\n\x00damaged"


@pytest.mark.parametrize("texts", [b"\x00damaged", b"[1, 2]", b"[]", b""])
def test_a_rubrics_run_finds_who_names_it_and_survives_a_damaged_texts_line(
    r: Repo, texts: bytes
) -> None:
    """r1's own run: the datasets its new version breaks are known from what they mention;
    with that line damaged, the datasets are read and summarized again, to the same findings."""
    _lint(r, ["rubrics/r1.yaml"])
    r.write({"rubrics/r1.yaml": _rubric("r1", "3.0.0")})  # d0 pins 2.0.0, d1 pins 1.0.0
    expected = [f"datasets/d{i}.yaml:4:17: unknown-ref-version" for i in (0, 1)]
    warm, reads = _lint(r, ["rubrics/r1.yaml"])
    assert warm == expected
    assert sorted(reads) == ["datasets/d0.yaml", "datasets/d1.yaml", "rubrics/r1.yaml"]
    (cache,) = (r.root / FOLDER).glob("tree-*.json")
    cache.write_bytes(cache.read_bytes().split(b"\n")[0] + b"\n" + texts)
    rebuilt, reads = _lint(r, ["rubrics/r1.yaml"])
    assert rebuilt == expected and len(reads) > 10  # every dataset summarized again
    again, reads = _lint(r, ["rubrics/r1.yaml"])
    assert again == expected and len(reads) == 3  # and kept again


@given(st.lists(st.sampled_from([b"checks", b"scoring", b"template", b"chec", b"\n", b"x"])))
def test_a_file_may_define_an_id_when_it_holds_every_needle_of_a_defining_kind(
    parts: list[bytes],
) -> None:
    from evallint.kinds import KINDS

    raw = b" ".join(parts)
    expected = any(all(n in raw for n in k.needles) for k in KINDS if k.defines)
    assert summary.may_define(raw) == expected


def test_an_editor_outside_git_keeps_summaries_while_the_files_stay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside git an editor writes no cache: it keeps the summaries in memory, and takes one
    again only while the file's `stat` is the one it was made from."""
    import os
    import time

    from evallint.session.editor import Project

    def put(path: str, text: str, age: int) -> None:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
        past = time.time() - age
        os.utime(tmp_path / path, (past, past))  # not modified in the last moments: not racy

    for i in range(5):
        put(f"rubrics/r{i}.yaml", _rubric(f"r{i}"), 3600)
    put("datasets/d0.yaml", _dataset("rubric/r1@2.0.0"), 3600)
    made: list[str] = []
    read: list[str] = []
    real, real_read = summary.summarize, summary.read_bytes

    def counted(path: str, *rest: Any) -> Any:
        made.append(path)
        return real(path, *rest)

    def reading(path: str, *rest: Any) -> Any:
        read.append(path)
        return real_read(path, *rest)

    monkeypatch.setattr(summary, "summarize", counted)
    monkeypatch.setattr(summary, "read_bytes", reading)
    # Writing a file sets its change time to now: no racy window, so a second run may trust it.
    monkeypatch.setattr(MemoryCache, "RACY_NS", 0)
    editor, open_files = Project(tmp_path), {"datasets/d0.yaml": _dataset("rubric/r1@2.0.0")}

    def rules() -> list[str]:
        return [d.rule for d in editor.check(open_files).diagnostics]

    assert rules() == ["unknown-ref-version"] and len(made) == 5
    made.clear()
    read.clear()
    assert rules() == ["unknown-ref-version"] and made == read == []
    put("rubrics/r1.yaml", _rubric("r1", "2.0.0"), 1800)
    assert rules() == [] and made == read == ["rubrics/r1.yaml"]
    # Changed a moment ago, it may change again within its time stamp: each run reads it.
    monkeypatch.setattr(MemoryCache, "RACY_NS", 60_000_000_000)
    put("rubrics/r2.yaml", _rubric("r2", "3.0.0"), 0)
    for _ in range(2):
        read.clear()
        assert rules() == [] and read == ["rubrics/r2.yaml"]
    assert not (tmp_path / FOLDER).exists()
