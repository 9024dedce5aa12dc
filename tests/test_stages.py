"""Each stage on its own, beside the end-to-end tests: configuration, kinds, reading, the index,
one file's checks, the workers, the run's phases, and the small pieces they share."""

from __future__ import annotations

import datetime
import json
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DictSource, baseline_of, lint_files
from evallint.baseline import base_project
from evallint.config import Config, glob_regex
from evallint.engine import crossing, file, index, parallel
from evallint.engine.file import Run, active_rules, check_entry
from evallint.engine.run import lint
from evallint.facts import Facts
from evallint.formats.agentv import kinds as agentv
from evallint.formats.ai_eval import kinds as ai_eval
from evallint.formats.eee import kinds as eee
from evallint.formats.promptfoo import kinds as promptfoo
from evallint.io import discover
from evallint.kinds import (
    BY_NAME,
    KINDS,
    NAMING_FILES,
    REFERRING,
    VERSIONED,
    content_kind,
    declared_kind,
    kind_named,
    path_kind,
)
from evallint.model import Diagnostic, Edit, Finding, Location, Severity, Skipped, Span
from evallint.parse import Document
from evallint.project import Entry, Project, unpack_kept
from evallint.read import read_entry
from evallint.records import fields_of
from evallint.rules import ALL_RULES, BY_ID
from evallint.rules.api import Context
from evallint.rules.base import rule
from evallint.validation.schemas import Engines
from test_eee import MINIMAL_0_2_0, RECORD_PATH, SAMPLE
from test_rules_ai_eval import RUBRIC as RUBRIC_TEXT

# Pinned to a version the run's rubric does not define: the run breaks it.
DATASET_TEXT = "questions:\n  - id: q1\n    input: hi\n    rubric_ref: rubric/tone@2\n"


def _entry(path: str, text: str, config: Config | None = None) -> Entry:
    found = read_entry(path, DictSource({path: text}), config or Config())
    assert isinstance(found, Entry), found
    return found


# -- config ------------------------------------------------------------------------------------


def test_globs_span_folders_only_with_double_stars() -> None:
    assert glob_regex("rubrics/*.yaml").fullmatch("rubrics/a.yaml")
    assert not glob_regex("rubrics/*.yaml").fullmatch("rubrics/x/a.yaml")
    assert glob_regex("**/rubrics/*.yaml").fullmatch("a/b/rubrics/a.yaml")
    assert glob_regex("vendor").fullmatch("vendor/x/y.yaml")  # a folder covers what is below


def test_the_first_matching_kind_glob_names_the_kind() -> None:
    config = Config(kinds=(("evals/*.yaml", "rubric"), ("evals/**", "judge")), exclude=("tmp",))
    assert config.kind_name("evals/a.yaml") == "rubric"
    assert config.kind_name("evals/x/a.yaml") == "judge"
    assert config.kind_name("other.yaml") is None
    assert config.excluded("tmp/a.yaml") and not config.excluded("tmpx/a.yaml")


# -- kinds -------------------------------------------------------------------------------------


def test_every_kind_is_registered_once_and_comes_back_from_a_pickle_as_itself() -> None:
    assert len(BY_NAME) == len(KINDS)
    for kind in KINDS:
        assert pickle.loads(pickle.dumps(kind)) is kind
    assert kind_named("rubric") is ai_eval.RUBRIC and kind_named(None) is None


def test_kinds_are_grouped_by_what_they_hold() -> None:
    assert set(VERSIONED) == {ai_eval.RUBRIC, ai_eval.JUDGE, ai_eval.DATASET, promptfoo.CONFIG}
    assert set(REFERRING) == {ai_eval.RUBRIC, ai_eval.DATASET}
    assert set(agentv.SUITES) <= set(NAMING_FILES)
    assert set(eee.RECORDS) == {eee.AGGREGATE, eee.INSTANCE}


def test_evidence_by_path_content_and_declaration() -> None:
    assert path_kind("x/rubrics/a.yaml", "yaml") is ai_eval.RUBRIC
    assert content_kind("a.yaml", {"questions": []}, "yaml") is ai_eval.DATASET
    modeline = "# yaml-language-server: $schema=../schema/judge.schema.json\n"
    assert declared_kind(modeline, {}) is ai_eval.JUDGE


# -- io ----------------------------------------------------------------------------------------


def test_discover_lists_a_folder_outside_git_and_honours_excludes(tmp_path: Path) -> None:
    (tmp_path / "rubrics").mkdir()
    (tmp_path / "rubrics" / "a.yaml").write_text(RUBRIC_TEXT)
    (tmp_path / "rubrics" / "b.yaml").write_text(RUBRIC_TEXT)
    (tmp_path / "notes.txt").write_text("x")
    config = Config(exclude=("rubrics/b.yaml",))
    paths, skipped, listed, _ = discover.select(["."], tmp_path, tmp_path, False, config)
    assert paths == ["notes.txt", "rubrics/a.yaml"]
    assert skipped == [Skipped("rubrics/b.yaml", "excluded by the configuration")]
    assert listed == paths
    assert discover.checkable(paths) == ["rubrics/a.yaml"]


# -- read --------------------------------------------------------------------------------------


def test_reading_skips_other_formats_and_fails_closed_on_a_claimed_file() -> None:
    source = DictSource({"notes.md": "x", "rubrics/a.yaml": "id: [unclosed\n"})
    assert isinstance(read_entry("notes.md", source, Config()), Skipped)
    broken = read_entry("rubrics/a.yaml", source, Config())  # claimed by its folder
    assert isinstance(broken, Entry) and not broken.doc.ok
    assert [p.rule for p in broken.doc.problems] == ["parse-error"]


# -- the index ---------------------------------------------------------------------------------


def test_the_index_reads_definers_and_the_files_a_change_may_break() -> None:
    files = {
        "rubrics/tone.yaml": RUBRIC_TEXT,
        "datasets/d.yaml": DATASET_TEXT,
        "datasets/other.yaml": "questions: []\n",
    }
    source = DictSource(files)
    linted = [_entry("rubrics/tone.yaml", RUBRIC_TEXT)]
    indexed = index.build(linted, sorted(files), source, Config())
    assert sorted(indexed.project.entries) == ["datasets/d.yaml", "rubrics/tone.yaml"]
    assert [e.doc.path for e in indexed.affected] == ["datasets/d.yaml"]
    assert indexed.naming == ()


# -- one file's checks -------------------------------------------------------------------------


def _run(config: Config | None = None) -> Run:
    config = config or Config()
    return Run(config, active_rules(config, ALL_RULES), datetime.date(2026, 11, 1))


def _context(entry: Entry, run: Run, project: Project) -> Context:
    return Context(entry.kind, run.config, project, run.today, engines=run.engines)


def test_one_file_checks_cap_repeats_and_count_the_rest() -> None:
    text = "questions:\n" + "".join(f"  - id: q1\n    input: x{i}\n" for i in range(5))
    entry = _entry("datasets/d.yaml", text)
    run = _run(Config(max_repeats=2))
    found = check_entry(entry, _context(entry, run, Project([entry])), run, DictSource({}))
    dupes = [d for d in found if d.rule == "duplicate-question-id"]
    assert [(d.span.line, d.more) for d in dupes] == [(4, 0), (6, 2)]


def test_active_rules_follow_select_ignore_and_severities() -> None:
    config = Config(select=("key-typo", "unknown-key"), ignore=("unknown-key",))
    chosen = {r.id for r, _ in active_rules(config, ALL_RULES)}
    assert chosen == {"key-typo", "parse-error", "path-outside-repo"}  # these always run
    off = Config(severities={"key-typo": "off"})
    assert "key-typo" not in {r.id for r, _ in active_rules(off, ALL_RULES)}


def test_a_version_finding_carries_its_fix_placed_at_the_version_scalar() -> None:
    old = RUBRIC_TEXT
    new = old.replace("[please]", "[please, thanks]")
    report = lint(
        ["rubrics/tone.yaml"],
        DictSource({"rubrics/tone.yaml": new}),
        Config(),
        tree=["rubrics/tone.yaml"],
        baseline=baseline_of({"rubrics/tone.yaml": old}),
        rules=[BY_ID["version-not-bumped"]],
    )
    (found,) = report.diagnostics
    assert found.fix is not None
    start = new.index('"1.0.0"') + 1
    assert found.fix == Edit(start, start + len("1.0.0"), "2.0.0")


# -- the workers -------------------------------------------------------------------------------


def test_a_packed_entry_keeps_what_other_files_read() -> None:
    rubric = _entry("rubrics/tone.yaml", RUBRIC_TEXT)
    assert crossing.pack(rubric) is rubric  # definers cross whole
    record = _entry(
        "records/x.json",
        '{"schema_version": "0.2.0", "evaluation_id": "e1", "evaluation_results": []}',
    )
    packed = crossing.pack(record)
    assert isinstance(packed, tuple)  # a record crosses as a tuple
    back = unpack_kept(packed)
    assert back.kind is record.kind and back.doc.path == record.doc.path
    assert back.doc.data == {"evaluation_id": "e1"}


def test_a_record_is_kept_as_its_shared_values_alone() -> None:
    """What the project keeps of a file that defines nothing is a `Kept`: its document is made
    on use and holds what `Kind.shared` names, as the whole document said it."""
    import pickle

    from evallint.project import ABSENT, Kept, shared_only
    from evallint.records import FrozenRecordError

    text = '{"schema_version": "0.2.0", "evaluation_id": "e1", "evaluation_results": []}'
    kept = shared_only(_entry("records/x.json", text))
    assert isinstance(kept, Kept) and kept.path == "records/x.json" and kept.rest is None
    assert kept.doc.data == {"evaluation_id": "e1"} and kept.doc.ok and kept.doc.fmt == "json"
    assert shared_only(kept) is kept
    assert kept.solid() == Entry(kept.doc, kept.kind)
    assert pickle.loads(pickle.dumps(kept)).doc == kept.doc
    with pytest.raises(FrozenRecordError):
        kept.path = "y.json"
    with pytest.raises(FrozenRecordError):
        del kept.ok
    # A record without the shared key keeps what it has: the key is absent, not null.
    bare = shared_only(_entry("records/y.json", text.replace('"evaluation_id": "e1", ', "")))
    assert isinstance(bare, Kept) and bare.doc.data == {}
    assert pickle.loads(pickle.dumps(bare)).doc.data == {}
    # A kind that keeps several keys (`Kind.held` too): those written, a null one as null.
    config = "task: t\ntag: null\ndataset_path: d\noutput_type: generate_until\n"
    held = shared_only(_entry("tasks/t.yaml", config))
    assert isinstance(held, Kept) and held.doc.data == {"task": "t", "tag": None}
    assert pickle.loads(pickle.dumps(held)).doc.data == {"task": "t", "tag": None}
    assert (held.top("task"), held.top("tag"), held.top("group")) == ("t", None, ABSENT)
    assert held.top("dataset_path") is ABSENT  # not kept: not known to the project
    assert held.sound and held.solid().top("tag") is None and held.solid().sound
    assert held.kept() == held.solid().kept() == ("t", ABSENT, None)  # `kept_keys`' order
    assert bare.kept() == bare.solid().kept() == (ABSENT,)
    listed = Kept("tasks/l.yaml", "yaml", True, held.kind, False, None)  # no mapping
    assert listed.kept() == listed.solid().kept() == (ABSENT, ABSENT, ABSENT)
    # A dataset shares no key: an empty mapping, or nothing when it is not a mapping.
    assert shared_only(_entry("datasets/d.yaml", "id: d\nquestions: []\n")).doc.data == {}
    assert shared_only(_entry("datasets/e.yaml", "- a\n")).doc.data is None


def test_forked_workers_give_what_one_process_gives() -> None:
    files = {f"rubrics/r{i}.yaml": RUBRIC_TEXT.replace("tone", f"r{i}") for i in range(6)}
    files["rubrics/r5.yaml"] = files["rubrics/r5.yaml"].replace("[please]", "3")
    paths = sorted(files)
    source = DictSource(files)
    serial = parallel.Serial(paths, _run(), source)
    forked = parallel.Forked(paths, 2, _run(), source)
    one, two = serial.read(), forked.read()
    assert [e.doc.path for e in one[0]] == [e.doc.path for e in two[0]] == paths
    head = Project(one[0])
    # Rules that need no project run as each file is read; the rest once the project is built.
    found = sorted(one[1] + serial.check(head), key=lambda d: d.path)
    assert [(d.path, d.rule) for d in found] == [("rubrics/r5.yaml", "schema-violation")]
    assert found == sorted(two[1] + forked.check(head), key=lambda d: d.path)


def test_workers_get_the_whole_index_when_it_comes_in_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The index crosses in chunks of INDEX_CHUNK entries: a rule in a worker still sees the
    files of every chunk (here the first rubric and the last define one id)."""
    monkeypatch.setattr(parallel, "INDEX_CHUNK", 2)
    files = {f"rubrics/r{i}.yaml": RUBRIC_TEXT.replace("tone", f"r{i}") for i in range(7)}
    files["rubrics/r6.yaml"] = files["rubrics/r0.yaml"]
    paths = sorted(files)
    source = DictSource(files)
    serial = parallel.Serial(paths, _run(), source)
    forked = parallel.Forked(paths, 2, _run(), source)
    head = Project(forked.read()[0])
    found = forked.check(head)
    assert [(d.path, d.rule) for d in found] == [("rubrics/r6.yaml", "duplicate-definition")]
    assert found == serial.check(Project(serial.read()[0]))


def test_a_worker_killed_before_the_index_fails_the_run_not_the_pipe() -> None:
    """A pipe broken by a dead worker is an internal error: the command reads a broken pipe
    as its reader having all it wanted (exit 0), which would pass the run."""
    paths = [f"rubrics/r{i}.yaml" for i in range(4)]
    source = DictSource({p: RUBRIC_TEXT.replace("tone", p[9:11]) for p in paths})
    forked = parallel.Forked(paths, 2, _run(), source)
    head = Project(forked.read()[0])
    for proc in forked._procs:
        proc.kill()
        proc.join()
    with pytest.raises(RuntimeError, match="worker process ended"):
        forked.check(head)


def _records(count: int) -> dict[str, str]:
    """EEE aggregate records in their layout, two of them sharing an evaluation_id."""
    files = {}
    for i in range(count):
        record = {**MINIMAL_0_2_0, "evaluation_id": f"e{min(i, count - 2)}"}
        files[f"data/b/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d{i:02x}.json"] = json.dumps(record)
    return files


def test_workers_hand_bare_records_over_and_end() -> None:
    """What waits for phase two is all bare records: the workers send them with their places
    and end (no index goes to them), and the findings are one process's."""
    files = _records(7)
    paths = sorted(files)
    source = DictSource(files)
    serial = parallel.Serial(paths, _run(), source)
    forked = parallel.Forked(paths, 2, _run(), source)
    one, two = serial.read(), forked.read()
    assert [e.path for e in two[0]] == [e.path for e in one[0]] == paths
    assert forked._handed is not None and all(not p.is_alive() for p in forked._procs)
    found = sorted(two[1] + forked.check(Project(two[0])), key=lambda d: d.path)
    assert [d.rule for d in found] == ["eee-duplicate-evaluation-id"] * 2
    assert found == sorted(one[1] + serial.check(Project(one[0])), key=lambda d: d.path)


class _Pipe:
    """What a worker sends, kept."""

    def __init__(self) -> None:
        self.sent: list[object] = []

    def send(self, message: object) -> None:
        self.sent.append(message)


def test_a_worker_keeps_nothing_of_a_record_it_has_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker sends its files as it reads them, INDEX_CHUNK at a time; of a bare record it
    keeps only its place in the run's paths, so its memory does not grow with its share. A
    rubric is kept: the index is built from it without its being sent back."""
    monkeypatch.setattr(parallel, "INDEX_CHUNK", 2)
    files = {**_records(5), "rubrics/tone.yaml": RUBRIC_TEXT}
    paths = sorted(files)
    pipe = _Pipe()
    places = range(1, len(paths), 2)
    mine = [paths[p] for p in places]  # every other file: what one worker took
    taken = [range(p, p + 1) for p in places]
    share = parallel._read_share(pipe, paths, taken, _run(), DictSource(files))  # type: ignore[arg-type]
    _, _, left, kept, sent = share
    assert len(pipe.sent) == 2  # three files, two a message
    assert list(kept) == [p for p in mine if p.startswith("rubrics/")]
    assert [paths[p] for p in sent] == mine  # each entry sent, by its place in the run's paths
    records = [p for p in mine if not p.startswith("rubrics/")]
    assert [mine[w] for w in left if isinstance(w, int)] == records


def test_the_files_are_cut_in_ranges_of_one_folder_that_workers_take_in_turn() -> None:
    """A range holds one folder's files (its templates and modules are then parsed by one
    worker), at most `size` of them; every place is in one range, in order. Workers take the
    next range as each finishes one: together they take each once, each its own in order."""
    paths = [f"a/{i:02}.yaml" for i in range(3)] + [f"b/{i:02}.yaml" for i in range(40)]
    paths += [f"c/{i}.yaml" for i in range(2)] + ["d/x/1.yaml", "d/x/2.yaml", "e.yaml"]
    ranges = parallel.chunks(paths, size=16)
    assert [p for r in ranges for p in r] == list(range(len(paths)))
    assert [len(r) for r in ranges] == [3, 16, 16, 8, 2, 2, 1]
    assert all(len({paths[p].rpartition("/")[0] for p in r}) == 1 for r in ranges)
    import multiprocessing

    taken = multiprocessing.get_context("fork").Value("q", 0)
    first, second = parallel._taken(ranges, taken), parallel._taken(ranges, taken)
    got = [next(first), next(second), next(second), *first, *second]
    assert got == ranges


def test_workers_keep_what_is_not_a_bare_record_and_get_the_index() -> None:
    files = {**_records(3), "rubrics/tone.yaml": RUBRIC_TEXT}
    paths = sorted(files)
    forked = parallel.Forked(paths, 2, _run(), DictSource(files))
    entries = forked.read()[0]
    assert forked._handed is None
    found = forked.check(Project(entries))
    assert [d.rule for d in found] == ["eee-duplicate-evaluation-id"] * 2


def test_a_failing_share_of_a_split_map_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="in a worker process: ZeroDivisionError"):
        parallel.split_map(lambda x: 1 // x, [1, 0, 2, 3], 2)


def test_the_worker_count_follows_jobs_and_run_size() -> None:
    assert parallel.count_for(10, None) == 1
    assert parallel.count_for(1, 8) == 1
    assert parallel.count_for(3, 2) in (1, 2)  # 1 where fork is not available


# -- the run's phases --------------------------------------------------------------------------


def test_the_base_project_is_the_head_with_changed_files_as_they_were() -> None:
    head = Project([_entry("rubrics/tone.yaml", RUBRIC_TEXT.replace("1.0.0", "2.0.0"))])
    baseline = baseline_of({"rubrics/tone.yaml": RUBRIC_TEXT})
    base = base_project(head, baseline)
    assert [str(d.version) for d in base.versions("rubric", "tone")] == ["1.0.0"]


# -- shared pieces -----------------------------------------------------------------------------


def test_facts_are_computed_once_per_function_and_key() -> None:
    calls: list[int] = []

    def square(n: int) -> int:
        calls.append(n)
        return n * n

    facts = Facts()
    assert facts.get(square, 3) == 9 and facts.get(square, 3) == 9
    assert facts.get(square, 4, key="four") == 16
    assert calls == [3, 4]


def test_the_engines_policy_asks_the_fast_engine_only_past_its_threshold() -> None:
    few, many = Engines(fast_from=2), Engines(fast_from=0)
    assert [few.bulk("rubric") for _ in range(3)] == [False, False, True]
    assert many.bulk("rubric")


# -- the two phases of a file's check ------------------------------------------------------------


def test_a_skeleton_keeps_only_the_places_asked_for_where_they_were() -> None:
    data = {"a": [{"x": 1, "y": 2}, {"x": 3}, 4], "b": {"c": 5}, "d": 6}
    assert file.skeleton(data, [("a", 1, "x"), ("d",)]) == {"a": [None, {"x": 3}, None], "d": 6}
    assert file.skeleton(data, [("b",), ("b", "c")]) == {"b": {"c": 5}}
    assert file.skeleton(data, [("zz", 0), ("a", 9)]) == {"a": [None, None, None]}
    assert file.skeleton(data, []) == {}
    assert file.skeleton(data, [()]) is data


def _twin_records() -> tuple[str, str, DictSource]:
    """Two EEE records that share one evaluation_id: (their text, the second's path, both)."""
    record = {**MINIMAL_0_2_0, "evaluation_id": "same"}
    text = json.dumps(record, indent=2) + "\n"
    other = RECORD_PATH.replace("3f2b1c9e", "4c1d2e3f")
    return text, other, DictSource({RECORD_PATH: text, other: text})


def test_phase_one_keeps_of_a_record_only_what_the_project_rules_read() -> None:
    """An EEE record's own rules run as it is read; for the duplicate-id rule only its
    evaluation_id is kept, and the finding is placed by reading the file again."""
    text, other, source = _twin_records()
    run = _run()
    entries, found, _, pending = file.read_all([RECORD_PATH, other], source, run)
    # Bare entries: a Pending is made only for what phase one leaves beside the entry.
    assert all(isinstance(p, Entry) for p in pending)
    assert [p.doc.text for p in pending if isinstance(p, Entry)] == ["", ""]
    assert [p.doc.data for p in pending if isinstance(p, Entry)] == [{"evaluation_id": "same"}] * 2
    later = file.check_all(pending, run, source, Project(entries))
    line = text.splitlines().index('  "evaluation_id": "same",') + 1
    assert [(d.path, d.span.line, d.span.column, d.rule) for d in later] == [
        (RECORD_PATH, line, 20, "eee-duplicate-evaluation-id"),
        (other, line, 20, "eee-duplicate-evaluation-id"),
    ]
    assert all(d.source == '  "evaluation_id": "same",' for d in later)
    assert found == []


def test_a_rule_that_reads_the_project_without_saying_so_fails_loudly() -> None:
    def peeks(doc: Document, ctx: Context) -> Iterator[Finding]:
        ctx.project.ids("rubric")  # not a kind: a namespace
        return iter(())

    undeclared = rule("peeks", Severity.ERROR)(peeks)
    declared = rule("peeks", Severity.ERROR, reads_project=True)(peeks)
    files = {"rubrics/tone.yaml": RUBRIC_TEXT}
    with pytest.raises(RuntimeError, match="reads_project=True"):
        lint(sorted(files), DictSource(files), Config(), tree=sorted(files), rules=[undeclared])
    report = lint(sorted(files), DictSource(files), Config(), tree=sorted(files), rules=[declared])
    assert report.diagnostics == ()


def test_an_escaped_envelope_reference_is_still_checked() -> None:
    """The text pre-check that spares most records the walk cannot be evaded by escapes."""
    details = {"rubric": "rubric/tone@2"}
    record = {**MINIMAL_0_2_0, "eval_library": {"name": "e", "additional_details": details}}
    rubric = RUBRIC_TEXT.replace("id: refunds", "id: tone")
    for spelt in ("\\u0072ubric\\/tone@2", "rubric\\/tone@2"):  # JSON may escape any "/"
        text = json.dumps(record).replace("rubric/tone@2", spelt)
        assert "rubric/" not in text
        files = {"rubrics/tone.yaml": rubric, RECORD_PATH: text}
        found = [(d.path, d.rule) for d in lint_files(files) if d.rule == "eee-envelope-ref"]
        assert found == [(RECORD_PATH, "eee-envelope-ref")], spelt


@pytest.mark.parametrize(
    "spelt",
    ["judge/tone@2", "\\u006audge/tone@2", "judge\\/tone@2", "\\u006Audge\\/tone@2"],
)
def test_a_judge_reference_is_seen_however_spelt(spelt: str) -> None:
    """A judge reference in a record that never spells "rubric" (the pre-check looks for
    "judge" only where a "j" is, and for escapes only where a backslash is)."""
    details = {"scorer": "judge/tone@2"}
    record = {**MINIMAL_0_2_0, "eval_library": {"name": "e", "additional_details": details}}
    text = json.dumps(record).replace("judge/tone@2", spelt)
    assert "rubric" not in text
    files = {"rubrics/x.yaml": RUBRIC_TEXT, RECORD_PATH: text}  # no judge 'tone'
    found = [(d.path, d.rule) for d in lint_files(files) if d.rule == "eee-envelope-ref"]
    assert found == [(RECORD_PATH, "eee-envelope-ref")], spelt


def test_a_file_read_in_chunks_is_checked_in_phase_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No rule of an instance file needs the project: its chunks are checked as they are read,
    and nothing of it waits for phase two."""
    from evallint import read
    from evallint.io.source import FsSource

    monkeypatch.setattr(read, "CHUNK", 1024)
    sample = {**SAMPLE, "sample_hash": "00"}
    lines = [json.dumps({**sample, "sample_id": str(i)}) for i in range(40)]
    (tmp_path / "x_samples.jsonl").write_text("\n".join(lines) + "\n")
    run = _run(Config(select=("eee-sample-hash",)))
    _, found, _, pending = file.read_all(["x_samples.jsonl"], FsSource(tmp_path), run)
    assert pending == []
    assert [(d.span.line, d.rule) for d in found][:2] == [
        (1, "eee-sample-hash"),
        (2, "eee-sample-hash"),
    ]
    assert len(found) == 10 and found[-1].more == 30  # the repeat cap counted across chunks


def test_a_slim_file_that_changed_before_phase_two_is_placed_at_its_start() -> None:
    text, other, source = _twin_records()
    run = _run()
    entries, _, _, pending = file.read_all([RECORD_PATH, other], source, run)
    source.files[RECORD_PATH] = b'{"evaluation_id": '  # rewritten mid-run, no longer JSON
    later = file.check_all(pending, run, source, Project(entries))
    assert [(d.path, d.span.line, d.span.column) for d in later] == [
        (RECORD_PATH, 1, 1),
        (other, text.splitlines().index('  "evaluation_id": "same",') + 1, 20),
    ]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "b/c", "c", "d.yaml", "e"]), max_size=8),
    st.lists(st.sampled_from(["a", "b", "b/c", "c", "d.yaml", "e", "z"]), max_size=8),
    st.booleans(),
)
def test_the_tree_outside_the_run_is_the_same_walked_or_looked_up(
    files: list[str], mine: list[str], walk: bool
) -> None:
    """`index._rest` walks two ordered lists for a large run and uses a set otherwise; both
    give the tree's files that the run does not read, in the tree's order."""
    files, mine = sorted(set(files)), sorted(set(mine)) if walk else list(dict.fromkeys(mine))
    linted = [Entry(Document(p, "yaml", "", None, True, ()), BY_NAME["dataset"]) for p in mine]
    expected = [p for p in files if p not in set(mine)]
    original = index.WALK_FROM
    try:
        index.WALK_FROM = 0
        assert index._rest(files, linted) == expected
    finally:
        index.WALK_FROM = original


def test_phase_two_checks_only_the_files_a_rule_wants(monkeypatch: pytest.MonkeyPatch) -> None:
    """The harness's phase-two rules look at groups and at task names written twice
    (`Rule.wants`): the other configs get no second check, and a file with a suppression
    comment is checked as before (its unused comments are reported there)."""
    checked: list[str] = []
    real = file._check_document

    def counted(doc: Document, *args: Any) -> Any:
        part = args[-1] if args else None
        if isinstance(part, file.Part) and not part.problems:
            checked.append(doc.path)
        return real(doc, *args)

    monkeypatch.setattr(file, "_check_document", counted)
    task = "task: {}\ndataset_path: d\n"
    files = {f"tasks/t{i}.yaml": task.format(f"t{i}") for i in range(5)}
    files["tasks/u.yaml"] = task.format("t0")
    files["tasks/g.yaml"] = "group: g\ntask: [t1, nowhere]\n"
    files["tasks/s.yaml"] = task.format("s") + "# evallint: ignore[lm-eval-duplicate-task]\n"
    got = [(d.path, d.rule) for d in lint_files(files)]
    assert got == [
        ("tasks/g.yaml", "lm-eval-unknown-task"),
        ("tasks/s.yaml", "unused-suppression"),
        ("tasks/u.yaml", "lm-eval-duplicate-task"),
    ]
    assert sorted(checked) == ["tasks/g.yaml", "tasks/s.yaml", "tasks/t0.yaml", "tasks/u.yaml"]


def test_workers_hand_slim_waiting_files_over_too() -> None:
    """What waits for phase two in a harness tree is light: bare configs, a config whose class
    the member rules read (a slim entry), one with a suppression comment (a slim file with its
    comments). The workers hand it all over and end; this process keeps what a rule wants and
    checks it, with the findings one process gives (the unused comment's included)."""
    task = "task: {}\ndataset_path: d\n"
    files = {f"tasks/t{i}.yaml": task.format(f"t{i}") for i in range(4)}
    files["tasks/c.yaml"] = "group: cg\ntask: c\nclass: !function utils.C\n"
    files["tasks/g.yaml"] = "group: g\ntask: [t1, nowhere]\n"
    files["tasks/s.yaml"] = task.format("s") + "# evallint: ignore[lm-eval-duplicate-task]\n"
    paths = sorted(p for p in files if p.endswith(".yaml"))
    source = DictSource(files)
    serial = parallel.Serial(paths, _run(), source)
    forked = parallel.Forked(paths, 2, _run(), source)
    one, two = serial.read(), forked.read()
    assert forked._handed is not None and all(not p.is_alive() for p in forked._procs)
    assert any(isinstance(w, file.Pending) for w in forked._handed)
    assert any(type(w) is Entry and w.doc.text == "" for w in forked._handed)
    found = sorted(two[1] + forked.check(Project(two[0])), key=lambda d: d.path)
    assert [(d.path, d.rule) for d in found] == [
        ("tasks/c.yaml", "lm-eval-function-unverified"),  # no module read in this run
        ("tasks/g.yaml", "lm-eval-unknown-task"),
        ("tasks/s.yaml", "unused-suppression"),
    ]
    assert found == sorted(one[1] + serial.check(Project(one[0])), key=lambda d: d.path)


def test_a_finding_crosses_between_processes_whole() -> None:
    """Workers send their findings back flat (a record's state would cost more): every field
    arrives, those left out of equality too."""
    fix = Edit(2, 3, "x")
    related = (Location("b.yaml", Span(1, 1, 1, 2), "first here"),)
    sent = Diagnostic(
        "a.yaml", Span(3, 15, 3, 40), "r", Severity.NOTE, "m", related, "f" * 16, "g", 2, fix, "src"
    )
    back = pickle.loads(pickle.dumps(sent, pickle.HIGHEST_PROTOCOL))
    names = fields_of(sent)
    assert [getattr(back, f) for f in names] == [getattr(sent, f) for f in names]
    assert type(back.severity) is Severity and type(back.span) is Span
