"""Never crash, never hang: each hostile input is a finding on its file, in bounded time.

Budgets asserted here are loose (seconds, for noisy CI machines); what they guard against took
tens of seconds to hours before.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import found, import_or_gate
from evallint.config import Config
from evallint.model import Diagnostic, Report, Severity, Span
from test_eee import MINIMAL_0_2_0

Run = Callable[..., tuple[int, str, str]]
Tree = Callable[[dict[str, str | bytes]], Path]
T = TypeVar("T")
UUID = "c8ab4e94-d8e8-417f-be18-fececf3c815c"


def _timed(budget: float, call: Callable[[], T]) -> T:
    started = time.perf_counter()
    result = call()
    assert time.perf_counter() - started < budget
    return result


def test_template_scanner_is_linear() -> None:
    # `{{` then 400 spaces took 20 s in a regex that grew as n**4.
    judge = "id: j\nversion: '1.0.0'\ntemplate: |\n  Rate {{ output }} {{" + " " * 5000 + "x\n"
    got = _timed(2.0, lambda: found("judges/j.yaml", judge))
    assert got == [(4, 21, "template-variable", "unbalanced '{{' in template")]
    many = "template: '" + "{{ output }} }} " * 20_000 + "'\nid: j\nversion: '1.0.0'\n"
    got = _timed(5.0, lambda: found("judges/j.yaml", many))
    assert len(got) == 10  # capped; each stray }} found once


def test_alias_amplification_is_bounded_by_bytes() -> None:
    head = "questions:\n  - id: q0\n    input: x\n    rubric_ref: &b " + "a" * 1_000_000 + "\n"
    rest = "".join(f"  - id: q{i}\n    input: x\n    rubric_ref: *b\n" for i in range(1, 2000))
    got = _timed(5.0, lambda: found("datasets/d.yaml", head + rest))
    assert got == [
        (
            10,
            17,
            "parse-error",
            "aliases expand this document past 2,139,478 characters (an alias bomb?)",
        )
    ]


@pytest.mark.parametrize(
    ("path", "text", "at"),
    [
        (
            "rubrics/r.yaml",
            "id: r\nversion: '1.0.0'\nchecks:\n  - {kind: regex, id: a, pattern: 'a{4294967296}'}\n"
            "scoring: {combine: all_pass}\n",
            (4, 35),
        ),
        (
            "suites/x.eval.yaml",
            "tests:\n  - id: a\n    input: hi\n    assertions:\n"
            "      - {type: regex, value: 'a{4294967296}'}\n",
            (5, 30),
        ),
    ],
)
def test_a_pattern_the_engine_cannot_hold_is_invalid_regex(
    path: str, text: str, at: tuple[int, int]
) -> None:
    got = [g for g in found(path, text) if g[2] == "invalid-regex"]
    assert got == [
        (
            *at,
            "invalid-regex",
            "pattern does not compile: beyond what the regex engine can hold: "
            "the repetition number is too large",
        )
    ]


def test_json_schema_pattern_the_engine_cannot_hold() -> None:
    rubric = (
        "id: r\nversion: '1.0.0'\nchecks:\n  - kind: json_schema\n    id: s\n    schema:\n"
        "      type: string\n      pattern: 'a{4294967296}'\nscoring: {combine: all_pass}\n"
    )
    got = [g[:3] for g in found("rubrics/r.yaml", rubric) if g[2] == "invalid-json-schema"]
    assert got == [(8, 16, "invalid-json-schema")]


def test_json_schema_type_that_is_a_mapping_or_a_list() -> None:
    # Found by the property test: an unhashable type crashed the membership test.
    rubric = (
        "id: r\nversion: '1.0.0'\nchecks:\n  - kind: json_schema\n    id: s\n    schema:\n"
        "      type: {}\n      items: {type: [[a]]}\nscoring: {combine: all_pass}\n"
    )
    got = [g[:3] for g in found("rubrics/r.yaml", rubric) if g[2] == "invalid-json-schema"]
    assert got == [(7, 13, "invalid-json-schema"), (8, 22, "invalid-json-schema")]


def test_huge_integers_are_parse_errors_everywhere() -> None:
    digits = "1" * 5000
    assert found("datasets/d.json", '{"questions": [], "n": ' + digits + "}") == [
        (1, 24, "parse-error", "an integer of more than 4,000 digits")
    ]
    assert found("datasets/d.yaml", "questions: []\nn: " + digits + "\n") == [
        (2, 4, "parse-error", "an integer of 5,000 digits; at most 4,000")
    ]


def test_a_huge_integer_elsewhere_in_the_tree_does_not_cost_another_file(
    run: Run, tree: Tree
) -> None:
    root = tree(
        {
            "rubrics/big.json": '{"id": "big", "n": ' + "9" * 5000 + "}",
            "datasets/d.yaml": "questions:\n  - id: q1\n    input: hi\n",
        }
    )
    code, out, err = run("check", "datasets/d.yaml", cwd=root)
    assert (code, err) == (0, "") and out.startswith("1 file checked: no problems")


def test_deep_brackets_inside_a_string_are_only_text() -> None:
    record = dict(MINIMAL_0_2_0, schema_version="0.2.1")
    record["eval_library"] = {
        "name": "x",
        "version": "1",
        "additional_details": {"x": "[" * 100_000},
    }
    got = found(f"data/c/acme/m/{UUID}.json", json.dumps(record))
    assert [g for g in got if g[2] in ("parse-error", "eee-envelope-ref")] == []


def test_instance_ids_of_the_wrong_type_are_findings() -> None:
    aggregate = dict(MINIMAL_0_2_0, evaluation_results=[{"evaluation_name": "n"}])
    aggregate["detailed_evaluation_results"] = {
        "format": "jsonl",
        "file_path": f"data/c/acme/m/{UUID}_samples.jsonl",
        "total_rows": 1,
    }
    record = {
        "schema_version": "instance_level_eval_0.2.0",
        "evaluation_id": "e",
        "model_id": "acme/m",
        "evaluation_name": {},
        "evaluation_result_id": [1],
        "sample_id": "s",
        "interaction_type": "single_turn",
    }
    given = {f"data/c/acme/m/{UUID}.json": json.dumps(aggregate)}
    got = found(f"data/c/acme/m/{UUID}_samples.jsonl", json.dumps(record) + "\n", given=given)
    assert (1, 112, "eee-instance-ids", "no result of the aggregate is named {}") in got


def test_a_lone_carriage_return_is_a_line_break_as_in_yaml() -> None:
    got = found("rubrics/m.yaml", "id:\r x\nchecks:\n  - kind: llm_j")
    assert (4, 11, "unknown-check-kind") in [g[:3] for g in got]


def test_file_names_that_are_not_utf8_are_escaped_in_every_format(
    run: Run, tree: Tree, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tree({"rubrics/x.yaml": "id: [\n"})
    os.rename(root / "rubrics/x.yaml", os.fsencode(root / "rubrics") + b"/bad\xffname.yaml")
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    for fmt in ("text", "json", "sarif", "github"):
        code, out, err = run("check", "--format", fmt, cwd=root)
        assert (code, err) == (1, ""), fmt
        assert "bad%FFname.yaml" in out if fmt == "sarif" else "bad\\udcffname.yaml" in out
    assert json.loads(run("check", "--format", "json", cwd=root)[1])["diagnostics"][0]["path"] == (
        "rubrics/bad\udcffname.yaml"
    )
    assert "bad\\udcffname.yaml" in summary.read_text()


def test_plain_github_lines_cannot_forge_workflow_commands() -> None:
    from evallint.output.github import render_github

    forged = "rubrics/z\n::error file=README.md,line=1::FORGED\n::add-mask::x.yaml"
    diagnostics = tuple(
        Diagnostic(path, Span(1, 1, 1, 2), "parse-error", Severity.ERROR, "bad")
        for path in [f"0/{i}.yaml" for i in range(10)] + [forged, "::warning::x.yaml"]
    )
    lines = render_github(Report(diagnostics, 12)).splitlines()
    assert lines[10] == "%3A:warning::x.yaml:1:1: error: bad [parse-error]"
    assert lines[11] == (
        "rubrics/z%0A::error file=README.md,line=1::FORGED%0A::add-mask::x.yaml:1:1: "
        "error: bad [parse-error]"
    )


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("select = [[1]]", "select.0: expected string, got array"),
        ("ignore = [{a = 1}]", "ignore.0: expected string, got object"),
        ("kinds = [1]", "kinds: expected object, got array"),
        ("rules = 5", "rules: expected object, got integer 5"),
        ('[rules]\nparse-error = "note"', "rules: parse-error cannot be turned off or down"),
        ('ignore = ["parse-error"]', "ignore: parse-error cannot be turned off or down"),
        (
            'key-typo = "error"',
            "key-typo: unknown key 'key-typo'; did you mean [rules] key-typo = ...?",
        ),
        (
            '[non-score-fields]\nrubrik = ["x"]',
            "non-score-fields: unknown kind 'rubrik'; did you mean 'rubric'?",
        ),
    ],
)
def test_configuration_of_the_wrong_shape_is_one_line(
    run: Run, tree: Tree, toml: str, message: str
) -> None:
    root = tree({".evallint.toml": toml + "\n"})
    assert run("check", cwd=root) == (
        2,
        "",
        f"evallint: error: invalid configuration in .evallint.toml: {message}\n",
    )


@pytest.mark.parametrize(
    ("toml", "message"), [("tool = 5", "tool"), ("[tool]\nevallint = 5", "tool.evallint")]
)
def test_pyproject_tool_table_of_the_wrong_shape(
    run: Run, tree: Tree, toml: str, message: str
) -> None:
    root = tree({"pyproject.toml": toml + "\n"})
    err = f"evallint: error: invalid configuration in pyproject.toml: {message} must be a table\n"
    assert run("check", cwd=root) == (2, "", err)


def test_an_exclude_that_leaves_nothing_says_so(run: Run, tree: Tree) -> None:
    root = tree({"rubrics/x.yaml": "id: [\n", ".evallint.toml": 'exclude = ["**"]\n'})
    code, out, _ = run("check", cwd=root)
    assert code == 0
    assert out.splitlines()[0] == (
        "the configuration's exclude leaves nothing to check (1 file excluded)"
    )
    code, out, _ = run("check", "--strict", cwd=root)
    assert (code, out.splitlines()[0]) == (
        1,
        ".evallint.toml:1:1: error: the configuration's exclude leaves nothing to check "
        "(1 file excluded) [parse-error]",
    )


def test_fifos_are_reported_never_read(run: Run, tree: Tree) -> None:
    root = tree({"datasets/ok.yaml": "questions:\n  - id: q1\n    input: hi\n"})
    os.mkfifo(root / "datasets/fifo.yaml")
    os.mkfifo(root / "notes.yaml")
    code, out, _ = _timed(10.0, lambda: run("check", cwd=root))
    assert code == 1
    assert out.splitlines() == [
        "datasets/fifo.yaml:1:1: error: cannot be read: not a regular file (a FIFO, device or "
        "socket), not read [parse-error]",
        out.splitlines()[1],
    ]
    assert out.splitlines()[1].startswith(
        "2 files checked, 1 unreadable file skipped (-v lists them): 1 error"
    )
    code, out, _ = _timed(10.0, lambda: run("check", "datasets/ok.yaml", cwd=root))
    assert code == 0


def _aggregate_pointing_at(file_path: str) -> str:
    record = dict(MINIMAL_0_2_0)
    record["detailed_evaluation_results"] = {"format": "jsonl", "file_path": file_path}
    return json.dumps(record)


@pytest.mark.parametrize(
    ("file_path", "message"),
    [
        ("../../../../etc/passwd", "'../../../../etc/passwd' lies outside the repository"),
        ("/etc/passwd", "'/etc/passwd' lies outside the repository"),
    ],
)
def test_companion_paths_that_leave_the_repository_are_errors(file_path: str, message: str) -> None:
    got = found(f"data/c/acme/m/{UUID}.json", _aggregate_pointing_at(file_path))
    companion = [g for g in got if g[2] == "eee-companion"]
    assert len(companion) == 1 and companion[0][3].startswith(message), got


def test_a_companion_that_is_a_link_out_of_the_repository_is_an_error(run: Run, tree: Tree) -> None:
    companion = f"data/c/acme/m/{UUID}_samples.jsonl"
    root = tree({f"data/c/acme/m/{UUID}.json": _aggregate_pointing_at(companion)})
    os.symlink("/dev/zero", root / companion)
    code, out, _ = _timed(10.0, lambda: run("check", cwd=root))
    assert code == 1
    assert "is a symlink that leads outside the repository; it is not read [eee-companion]" in out


def test_an_unreadable_aggregate_is_not_blamed_on_its_companion() -> None:
    got = found(
        f"data/c/acme/m/{UUID}_samples.jsonl",
        '{"schema_version": "0.3.0"}\n',
        given={f"data/c/acme/m/{UUID}.json": '{"schema_version": "0.2.0",}'},
    )
    assert [g for g in got if g[2] == "eee-companion"] == []


def test_an_explicit_path_through_a_linked_folder_is_not_read(
    run: Run, tree: Tree, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (outside / "broken.yaml").write_text("id: [\n")
    root = tree({"rubrics/ok.yaml": "id: x\n"})
    os.symlink(outside, root / "rubrics/linkdir")
    code, out, _ = run("check", "-v", "rubrics/linkdir/broken.yaml", cwd=root)
    assert code == 1  # a rubric by its path: evallint would check it, and cannot
    assert out.splitlines() == [
        "rubrics/linkdir/broken.yaml:1:1: error: rubrics/linkdir/broken.yaml is outside the "
        "project; it is not read [path-outside-repo]",
        out.splitlines()[1],
    ]
    assert out.splitlines()[1].startswith("1 file checked: 1 error in 1 file")


BROKEN_RUBRIC = 'id: tone\nversion: "1.0.0"\nchecks: [{kind: php_lint, id: lint}]\n'  # no scoring


@pytest.mark.parametrize("git", [True, False], ids=["git", "walk"])
@pytest.mark.parametrize("named", [".", "rubrics", "rubrics/"])
def test_a_folder_linked_inside_the_project_is_checked_once_where_it_lies(
    run: Run, tree: Tree, git: bool, named: str
) -> None:
    """`rubrics` links to `store/r`, which holds a rubric its content alone does not tell (it
    lacks `scoring`): the link's path says rubric, so it is checked, once, under its own path;
    a link to a folder that holds it (`loop` -> `.`) is not followed."""
    import subprocess

    root = tree({"store/r/tone.yaml": BROKEN_RUBRIC})
    os.symlink("store/r", root / "rubrics")
    os.symlink(".", root / "loop")
    if git:
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    code, out, _ = run("check", named, cwd=root)
    assert code == 1, out
    assert out.splitlines()[:-1] == [
        "store/r/tone.yaml:1:1: error: missing required key 'scoring' [schema-violation]"
    ]
    assert out.splitlines()[-1].startswith("1 file checked: 1 error in 1 file")


def test_schema_into_a_closed_pipe_ends_quietly() -> None:
    import subprocess
    import sys

    for _ in range(3):
        proc = subprocess.run(
            f"{sys.executable} -m evallint schema rubric | head -1",
            shell=True,
            capture_output=True,
            text=True,
        )
        assert (proc.stdout, proc.stderr) == ("{\n", "")


def test_a_run_that_cannot_start_says_so_to_github(
    run: Run, tree: Tree, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tree({".evallint.toml": "rules = 5\n"})
    summary, output = tmp_path / "summary.md", tmp_path / "output"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_OUTPUT", str(output))
    code, out, err = run("check", cwd=root)
    message = "invalid configuration in .evallint.toml: rules: expected object, got integer 5"
    assert (code, err) == (2, f"evallint: error: {message}\n")
    assert out == f"::error title=evallint could not run::{message}\n"
    assert summary.read_text() == (
        "## evallint\n\nThe check could not run: invalid configuration in \\.evallint\\.toml: "
        "rules: expected object, got integer 5\n"
    )
    assert output.read_text() == "error-count=\nwarning-count=\n"


def test_a_pull_request_base_the_clone_lacks_fails_closed(
    tmp_path: Path, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_git import Repo

    root = tmp_path / "repo"
    root.mkdir()
    repo = Repo(root)
    repo.commit({"rubrics/x.yaml": "id: x\n"})
    event = tmp_path / "event.json"
    missing = "0123456789abcdef0123456789abcdef01234567"
    event.write_text(json.dumps({"pull_request": {"base": {"sha": missing}}}))
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    for name in ("GITHUB_BASE_REF", "PRE_COMMIT_FROM_REF", "PRE_COMMIT", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    code, _, err = run("check", "--diff", cwd=root)
    assert code == 2
    assert err.startswith(
        "evallint: error: the pull request base 0123456789ab (GITHUB_EVENT_PATH) is not in "
        "this clone: fetch the history it needs"
    )


def test_missing_files_are_set_lookups() -> None:
    from conftest import DictSource
    from evallint.config import Config
    from evallint.engine.run import lint

    refs = "".join(
        f"          - {{type: file, value: prompts/missing{i}.md}}\n" for i in range(20_000)
    )
    suite = "tests:\n  - id: a\n    input:\n      - role: user\n        content:\n" + refs
    files: dict[str, str | bytes] = {f"tree/f{i}.txt": "" for i in range(20_000)}
    files["suites/x.eval.yaml"] = suite
    report = _timed(
        30.0,
        lambda: lint(["suites/x.eval.yaml"], DictSource(files), Config(), tree=sorted(files)),
    )
    assert sum(d.rule == "missing-file" for d in report.diagnostics) == 20_000


def test_a_worker_failure_is_one_line(
    run: Run, tree: Tree, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*args: object) -> list[object]:
        raise ValueError("boom")

    monkeypatch.setattr("evallint.rules.api.validate", boom)  # a bug of ours, in every worker
    monkeypatch.delenv("EVALLINT_DEBUG", raising=False)
    root = tree({f"rubrics/r{i}.yaml": f"id: r{i}\n" for i in range(4)})
    code, out, err = run("check", "--jobs", "2", cwd=root)
    assert (code, out) == (2, "")
    assert err == (
        "evallint: internal error: RuntimeError: in a worker process: ValueError: boom "
        "(set EVALLINT_DEBUG=1 for a traceback, and please report it)\n"
    )


def test_a_large_tree_learns_its_links_from_folder_reads_and_still_refuses_them(
    tmp_path: Path,
) -> None:
    """Past 1,000 files the run reads each folder once for its symlinks instead of asking every
    file; a link that leads out is still never followed."""
    from evallint.config import Config
    from evallint.engine.run import lint
    from evallint.io.source import FsSource

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("secret")
    root = tmp_path / "repo"
    (root / "evals").mkdir(parents=True)
    for i in range(1100):
        (root / "evals" / f"p{i}.md").write_text("x")
    os.symlink(outside / "secret.md", root / "evals" / "policy.md")
    suite = (
        "tests:\n  - id: a\n    criteria: c\n    input:\n      - role: user\n"
        "        content:\n          - type: file\n            value: policy.md\n"
    )
    (root / "evals" / "x.eval.yaml").write_text(suite)
    tree = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    source = FsSource(root)
    report = lint(["evals/x.eval.yaml"], source, Config(), tree=tree)
    assert [d.message for d in report.diagnostics] == [
        "'policy.md' is a symlink that leads outside the repository; it is not followed"
    ]
    assert source.outside("evals/policy.md") and not source.outside("evals/p1.md")


def test_a_large_value_repeated_under_many_duplicate_keys_is_decoded_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Telling whether duplicate values are the same parses each value once, not the first
    value again for every duplicate (a 1.6 MB file with 300 duplicates took 33 s that way)."""
    import json as stdlib_json

    from evallint.parse.jsonload import load_json

    calls = []
    original = stdlib_json.JSONDecoder.raw_decode

    def counting(self: stdlib_json.JSONDecoder, s: str, idx: int = 0) -> tuple[object, int]:
        calls.append(idx)
        return original(self, s, idx)

    monkeypatch.setattr(stdlib_json.JSONDecoder, "raw_decode", counting)
    big = "[" + ",".join(["1"] * 10_000) + "]"
    text = '{"a": ' + big + "," + ",".join(['"a": 1'] * 300) + "}"
    loaded = load_json(text)
    assert sum(p.rule == "duplicate-key" for p in loaded.problems) == 300
    assert len(calls) == len(set(calls)) <= 302  # the document once, then each value once


def test_an_integer_python_can_read_but_past_the_limit_is_still_a_parse_error() -> None:
    """4,100 digits parse in Python (its limit is 4,300), so only the text scan catches them."""
    digits = "7" * 4100
    padding = " " * 5000  # a long file: the scan runs only on files longer than the limit
    text = '{"questions": [],' + padding + '"n": 1' + digits + "}"
    assert found("datasets/d.json", text) == [
        (1, 5023, "parse-error", "an integer of more than 4,000 digits")
    ]


def test_a_file_is_read_whole_in_one_open_and_never_past_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`read_capped` reads with plain system calls: a file over the limit gives its size and is
    not read; one that grows past its stat while it is read is read whole, up to the limit."""
    from evallint.io.source import FsSource

    source = FsSource(tmp_path)
    data = bytes(range(256)) * 1000
    (tmp_path / "f.json").write_bytes(data)
    (tmp_path / "empty.json").write_bytes(b"")
    assert source.read_capped("f.json", None) == source.read("f.json") == data
    assert source.read_capped("f.json", len(data)) == data
    assert source.read_capped("f.json", len(data) - 1) == len(data)
    assert source.read("empty.json") == b""
    real = os.fstat

    def stale(fd: int) -> os.stat_result:  # the size as a stat taken before the file grew
        found = list(real(fd))
        found[6] = 10
        return os.stat_result(found)

    monkeypatch.setattr(os, "fstat", stale)
    assert source.read_capped("f.json", None) == data
    got = source.read_capped("f.json", 100_000)
    assert isinstance(got, int) and 100_000 < got <= len(data)


def test_a_socket_is_no_file_to_read(tmp_path: Path) -> None:
    import socket

    from evallint.io.source import FsSource, NotRegular

    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(tmp_path / "s.yaml"))
        with pytest.raises(NotRegular):
            FsSource(tmp_path).read("s.yaml")
        with pytest.raises(FileNotFoundError):
            FsSource(tmp_path).read("absent.yaml")


def test_a_lone_surrogate_in_a_key_is_a_finding_once_the_fast_engine_answers(
    run: Run, tree: Tree
) -> None:
    """jsonschema-rs cannot take a lone surrogate ("\\ud800"); past the first 32 documents of
    a schema it is asked first, and its error once ended the whole run (exit 2). It has no
    verdict there, so fastjsonschema decides, as for any document it rejects."""
    import_or_gate("jsonschema_rs", "the fast engine comes with the `fast` extra")
    rubric = (
        '{{"id": "r{i}", "version": "1.0.0", "checks": [{{"kind": "php_lint", "id": "lint"}}], '
        '"scoring": {{"combine": "all_pass"{extra}}}}}\n'
    )
    files: dict[str, str | bytes] = {
        f"rubrics/r{i}.json": rubric.format(i=i, extra="") for i in range(40)
    }
    files["rubrics/zz.json"] = rubric.format(i=99, extra=', "\\ud800": 1')
    code, out, _ = run("check", "--no-cache", cwd=tree(files))
    assert code == 1
    assert out.splitlines()[0].startswith(
        "rubrics/zz.json:1:118: error: unknown key '\\ud800'; expected one of"
    )


def test_text_output_shows_control_characters_as_escapes(run: Run, tree: Tree) -> None:
    """A newline in a file name would start a line of its own, which GitHub reads as a
    workflow command; an escape sequence would drive the terminal."""
    forged = "rubrics/z\n::error file=README.md,line=1::FORGED\x1b[2J.yaml"
    root = tree({forged: "id: [\n"})
    for flags in ([], ["--verbose"]):
        code, out, _ = run("check", "--show-source", *flags, cwd=root)
        assert code == 1
        assert not any(line.startswith("::") for line in out.splitlines())
        assert "\x1b" not in out
        shown = "rubrics/z\\n::error file=README.md,line=1::FORGED\\x1b[2J.yaml"
        assert f"{shown}:2:1: error:" in out


@pytest.mark.parametrize("name", [".evallint.toml", "pyproject.toml"])
@pytest.mark.parametrize("shape", ["folder", "fifo", "broken link", "too large"])
def test_settings_that_are_no_regular_file_stop_the_run(
    run: Run, tree: Tree, name: str, shape: str
) -> None:
    """A pull request could commit a folder, a pipe or a dangling link by the settings' name
    to drop them, or a huge file: a configuration error (exit 2), never silence or a hang."""
    root = tree({"rubrics/tone.yaml": "id: tone\nversion: 1.0\n"})
    target = root / name
    if shape == "folder":
        target.mkdir()
    elif shape == "fifo":
        os.mkfifo(target)
    elif shape == "broken link":
        target.symlink_to(root / "nowhere.toml")
    else:
        target.write_text("# x\n" * 300_000)
    code, out, err = run("check", cwd=root)
    assert (code, out) == (2, ""), err
    assert err.startswith(f"evallint: error: {name} is ")


@pytest.mark.parametrize(
    ("event", "why"),
    [
        ('{"pull_request": {"base": {"sha": "deadbeef"}}}', 'is "deadbeef", not a commit id'),
        ('{"pull_request": {"base": {"sha": null}}}', "is null, not a commit id"),
        ('{"pull_request": {}}', "it holds no pull_request.base.sha"),
        ("not json", "it is not JSON"),
        (None, "No such file or directory"),
        ("/dev/zero", "it is larger than 32 MiB"),
    ],
)
def test_a_pull_request_event_without_a_readable_base_fails_closed(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, event: str | None, why: str
) -> None:
    """In a pull request, --diff without a base takes the event's: when it cannot be read,
    any other base (main, master) would compare with the wrong commit. A file without bound
    (/dev/zero) is read no further than any event could be."""
    from test_git import Repo

    repo = Repo(tmp_path / "repo")
    repo.commit({"rubrics/tone.yaml": 'id: tone\nversion: "1.0.0"\n'})
    path = tmp_path / "event.json"
    if event == "/dev/zero":
        path = Path("/dev/zero")
    elif event is not None:
        path.write_text(event)
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(path))
    code, out, err = run("check", "--diff", "--format", "text", cwd=repo.root)
    assert (code, out) == (2, "")
    assert err.startswith("evallint: error: the pull request's base commit cannot be read")
    assert why in err


def test_workers_end_with_their_run(tmp_path: Path) -> None:
    """SIGTERM to a run with --jobs 2 ends its workers too (within a second), rather than
    leaving them running, reparented to init."""
    import signal
    import subprocess
    import sys

    root = tmp_path / "tree"
    rubric = 'id: r{i}\nversion: "1.0.0"\nchecks: [{{kind: php_lint, id: lint}}]\n'
    rubric += "scoring: {{combine: all_pass}}\n" + "# padding\n" * 400
    (root / "rubrics").mkdir(parents=True)
    for i in range(3000):
        (root / "rubrics" / f"r{i}.yaml").write_text(rubric.format(i=i))
    cmd = [sys.executable, "-m", "evallint", "check", "--jobs", "2", "--no-cache", "."]
    proc = subprocess.Popen(
        cmd, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        children: list[str] = []
        deadline = time.monotonic() + 20
        while not children and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
            found = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
            children = found.read_text().split() if found.exists() else []
        if not children:
            pytest.skip("the run ended before its workers could be seen")
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 1
        alive = list(children)
        while alive and time.monotonic() < deadline:
            alive = [pid for pid in children if _alive(int(pid))]
            time.sleep(0.05)
        assert alive == [], "workers outlived their run"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, reaped by init soon, counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_a_lone_surrogate_in_an_instance_input_is_hashed_not_a_crash(run: Run, tree: Tree) -> None:
    """EEE's hash recipes encode the input: a lone surrogate ("\\ud800") once ended the run."""
    record = (
        '{"schema_version": "0.3.0", "evaluation_id": "e", "model_id": "m", '
        '"evaluation_name": "n", "sample_id": "1", "sample_hash": "00", '
        '"interaction_type": "single_turn", "input": {"raw": "\\ud800", "reference": ["a"]}, '
        '"output": {"raw": ["a"]}, "answer_attribution": [], '
        '"evaluation": {"score": 1, "is_correct": true}}\n'
    )
    code, out, err = run("check", "--no-cache", cwd=tree({"x_samples.jsonl": record}))
    assert (code, err) == (1, "")
    assert "[eee-sample-hash]" in out


@pytest.mark.parametrize("pattern", ["**a**a**a**a**a**a**a**a**b", "*a*a*a*a*a*a*a*a*b"])
@pytest.mark.parametrize("where", ["exclude", "kinds", "per-file-ignores"])
def test_a_settings_glob_cannot_hang_the_run(
    run: Run, tree: Tree, pattern: str, where: str
) -> None:
    """Settings are the pull request's: a glob that makes a backtracking regex take
    exponential time on a long file name is matched in linear time."""
    setting = {
        "exclude": f'exclude = ["{pattern}"]\n',
        "kinds": f'[kinds]\njudge = ["{pattern}"]\n',
        "per-file-ignores": f'[per-file-ignores]\n"{pattern}" = ["key-typo"]\n',
    }[where]
    name = "datasets/" + "a" * 200 + ".yaml"
    root = tree({name: "questions:\n  - id: q1\n    input: hi\n", ".evallint.toml": setting})
    code, out, err = _timed(10, lambda: run("check", cwd=root))
    assert code == 0, out + err


@given(
    st.lists(st.sampled_from(["a", "b", "/", "*", "**", "?", "**/", "."]), max_size=8).map("".join),
    st.text(alphabet="ab/.", max_size=12),
)
@settings(max_examples=500)
def test_the_linear_glob_matcher_agrees_with_the_glob_regex(pattern: str, path: str) -> None:
    from evallint.config import Glob, glob_regex

    glob = Glob(pattern)
    glob.regex = None  # the automaton, whatever the pattern
    assert glob.match(path) == (glob_regex(pattern).fullmatch(path) is not None)


def test_a_glob_matches_ten_thousand_characters_in_linear_time() -> None:
    from evallint.config import Glob

    assert Glob("**a**a**a**a**a**a**a**a**b").regex is None  # never the backtracking regex
    assert _timed(2, lambda: Glob("**a**a**a**a**a**a**a**a**b").match("a" * 10_000)) is False
    assert _timed(2, lambda: Glob("**a**a**a**a**b").match("a" * 10_000 + "b")) is True


def test_json_positions_cost_one_pass_however_many_findings() -> None:
    """8,000 unknown keys in one JSON object once took 80 s: each position was sought by a
    scan of the object from its start."""
    keys = ", ".join(f'"k{i}": 1' for i in range(8000))
    rubric = (
        '{"id": "r", "version": "1.0.0", "checks": [{"kind": "php_lint", "id": "lint"}],\n'
        f' "scoring": {{"combine": "all_pass", {keys}}}}}\n'
    )
    config = Config(max_repeats=0)
    got = _timed(10, lambda: found("rubrics/r.json", rubric, config))
    assert len(got) == 8000
    assert got[-1][:3] == (2, rubric.splitlines()[1].index('"k7999"') + 1, "unknown-key")
