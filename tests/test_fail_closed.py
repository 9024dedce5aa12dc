"""Fail closed: an eval file that cannot be read is a parse-error, never a silent skip.

Every route by which a file becomes an eval file (its folder, its name, the EEE layout, a
modeline or `$schema`, the configuration, the markers in its raw text) crossed with every
hostile payload gives exactly one parse-error, at its line and column, in full runs, runs on
named files (pre-commit's shape) and diff runs on a real git repository.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import found
from evallint.config import Config
from test_git import Repo

Run = Callable[..., tuple[int, str, str]]
Tree = Callable[[dict[str, str | bytes]], Path]

UUID = "c8ab4e94-d8e8-417f-be18-fececf3c815c"

# route -> (path, the first lines of a file of that kind: a mapping that carries its markers)
YAML_ROUTES = {
    "rubrics folder": ("rubrics/tone.yaml", "checks: []\nscoring: {}\n"),
    "judges folder": ("judges/acc.yaml", "id: acc\nversion: '1.0.0'\n"),
    "datasets folder": ("datasets/d.yaml", "description: x\nname: d\n"),
    "EVAL.yaml": ("suites/EVAL.yaml", "name: s\ndescription: x\n"),
    "*.eval.yaml": ("suites/refunds.eval.yaml", "name: s\ndescription: x\n"),
    "suite.yaml": ("suites/suite.yaml", "name: s\ndescription: x\n"),
    "modeline": (
        "misc/r.yaml",
        "# yaml-language-server: $schema=../schema/rubric.schema.json\nid: r\n",
    ),
    "$schema key": ("misc/s.yaml", "$schema: ../schema/judge.schema.json\nid: j\n"),
    "configured glob": ("graders/g.yaml", "id: g\nversion: '1.0.0'\n"),
    "markers only": ("misc/q.yaml", "questions:\n  - id: q1\n"),
    "hf benchmark markers": ("bench/eval.yaml", "evaluation_framework: mteb\nname: b\n"),
    "lm-eval task markers": (
        "tasks/demo/demo.yaml",
        "task: demo\ndataset_path: d\nprocess_docs: !function utils.f\n",
    ),
    "lm-eval group markers": ("tasks/demo/_g.yaml", "group: g\naggregate_metric_list: []\n"),
    "lm-eval group listing markers": ("tasks/demo/_l.yaml", "group: g\ntask: [a, b]\n"),
    "promptfoo name": ("evals/promptfooconfig.compare.yaml", "prompts: [hi]\nproviders: [echo]\n"),
    "promptfoo keys": ("misc/pf.yaml", "defaultTest: {}\nprompts: [hi]\n"),
    "promptfoo modeline": (
        "misc/pf2.yaml",
        "# yaml-language-server: $schema=https://promptfoo.dev/config-schema.json\nprompts: [hi]\n",
    ),
}
JSON_ROUTES = {
    "evals.json": ("skills/a/evals/evals.json", '{"skill_name": "a",\n'),
    "static-checks.json": ("skills/a/evals/static-checks.json", '{"skill_name": "a",\n'),
    "datasets folder": ("datasets/d.json", '{"description": "x",\n'),
    "EEE layout": (f"data/c/dev/model/{UUID}.json", '{"evaluation_id": "x",\n'),
    "$schema key": ("misc/s.json", '{"$schema": "../schema/dataset.schema.json",\n'),
    "markers only": ("misc/r.json", '{"schema_version": "0.2.0", "evaluation_results": [],\n'),
    "promptfooconfig.json": ("evals/promptfooconfig.json", '{"prompts": ["hi"],\n'),
}
CONFIG = Config(kinds=(("graders/*.yaml", "judge"),), max_file_size=256 * 1024)

# payload -> (text appended after the route's lines, (line, column) of the error, counted
# from the payload's first line)
YAML_PAYLOADS: dict[str, tuple[bytes, tuple[int, int]]] = {
    "syntax error": (b"bad: [1, 2\n", (2, 1)),
    "invalid UTF-8": (b"note: caf\xe9\n", (1, 10)),
    "NUL byte": (b"note: a\x00b\n", (1, 8)),
    "tab indentation": (b"outer:\n\tinner: 1\n", (2, 1)),
    "several documents": (b"---\nid: other\n", (1, 1)),
    "alias bomb": (
        b"a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        + b"".join(
            f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]\n".encode()
            for p, c in zip("abcdef", "bcdefg", strict=True)
        ),
        (5, 36),
    ),
    "deep nesting": (b"deep: " + b"[" * 100_000 + b"\n", (1, 206)),
    "unsafe tag": (b"x: !!python/object:os.system ls\n", (1, 4)),
    "custom tag": (b"x: !include other.yaml\n", (1, 4)),
    "line over max-file-size": (b"note: " + b"x" * 300_000 + b"\n", (-1, 1)),
}
JSON_PAYLOADS: dict[str, tuple[bytes, tuple[int, int]]] = {
    "syntax error": (b'"a": [1,}\n', (1, 9)),
    "trailing comma": (b'"a": 1,}\n', (1, 8)),
    "invalid UTF-8": (b'"a": "caf\xe9"}\n', (1, 10)),
    "NUL byte": (b'"a": "a\x00b"}\n', (1, 8)),
    "deep nesting": (b'"a": ' + b"[" * 100_000 + b"}\n", (1, 205)),
    "line over max-file-size": (b'"a": "' + b"x" * 300_000 + b'"}\n', (-1, 1)),
}


def _cases() -> list[tuple[str, str, bytes, tuple[int, int]]]:
    out = []
    for routes, payloads in ((YAML_ROUTES, YAML_PAYLOADS), (JSON_ROUTES, JSON_PAYLOADS)):
        for route, (path, head) in routes.items():
            for payload, (body, (line, col)) in payloads.items():
                at = (1, 1) if line == -1 else (head.count("\n") + line, col)
                out.append((f"{route}: {payload}", path, head.encode() + body, at))
    return out


CASES = _cases()


@pytest.mark.parametrize(("name", "path", "raw", "at"), CASES, ids=[c[0] for c in CASES])
def test_every_route_and_payload_is_one_parse_error(
    name: str, path: str, raw: bytes, at: tuple[int, int]
) -> None:
    got = found(path, raw, CONFIG)
    assert [(line, col, rule) for line, col, rule, _ in got] == [(*at, "parse-error")], got


NOT_A_MAPPING = {
    "empty": (b"", "the file holds no data"),
    "only a comment": (b"# nothing yet\n", "the file holds no data"),
    "a list": (b"- a\n- b\n", "the top level is a list"),
    "a scalar": (b"just text\n", "the top level is text"),
}


@pytest.mark.parametrize("shape", NOT_A_MAPPING)
@pytest.mark.parametrize(
    "path",
    [
        "rubrics/tone.yaml",
        "datasets/d.yaml",
        "suites/EVAL.yaml",
        "skills/a/evals/evals.json",
        f"data/c/dev/model/{UUID}.json",
    ],
)
def test_a_claimed_file_that_is_not_a_mapping_is_a_parse_error(path: str, shape: str) -> None:
    raw, message = NOT_A_MAPPING[shape]
    if path.endswith(".json"):
        raw = {b"": b"", b"# nothing yet\n": b"", b"- a\n- b\n": b'["a"]', b"just text\n": b"1"}[
            raw
        ]
        message = message.replace("text", "a number") if shape == "a scalar" else message
    got = found(path, raw)
    if shape in ("empty", "only a comment") and path.endswith(".json"):
        assert [g[:3] for g in got] == [(1, 1, "parse-error")]  # empty JSON is invalid JSON
        assert got[0][3] == "invalid JSON: expecting value"
        return
    assert [(line, col, rule) for line, col, rule, _ in got] == [(1, 1, "parse-error")], got
    assert got[0][3].startswith(message), got


def test_a_bom_is_allowed() -> None:
    text = "\ufeffid: tone\nversion: '1.0.0'\nchecks: [{kind: php_lint, id: lint}]\n"
    assert found("rubrics/tone.yaml", (text + "scoring: {combine: all_pass}\n").encode()) == []


def test_the_key_that_names_the_kind_misspelt_still_claims_the_file() -> None:
    got = found("misc/d.yaml", "questons:\n  - id: q1\n    input: hi\n")
    assert got == [
        (
            1,
            1,
            "key-typo",
            "unknown key 'questons'; did you mean 'questions'? (so the required 'questions' "
            "is missing)",
        ),
    ]
    # A record without schema_version is still a record, and says what it lacks.
    record = '{"evaluation_id": "x", "model_info": {"id": "a/b"}, "evaluation_results": []}'
    got = found("misc/r.json", record)
    assert (1, 1, "eee-schema-version") in [g[:3] for g in got]
    assert any("declares no schema_version" in g[3] for g in got)


def test_a_file_no_kind_claims_that_does_not_parse_is_counted(run: Run, tree: Tree) -> None:
    root = tree({"notes/broken.yaml": "a: [\n", "notes/fine.yaml": "a: 1\n"})
    code, out, _ = run("check", cwd=root)
    assert code == 0
    assert out.startswith("0 files checked, 1 unreadable file skipped (-v lists them): no problems")
    code, out, _ = run("check", "-v", cwd=root)
    assert out.splitlines()[0].startswith("skipped notes/broken.yaml: does not parse (invalid YAML")


def test_strict_makes_a_named_unreadable_file_an_error(run: Run, tree: Tree) -> None:
    root = tree({"notes/broken.yaml": "a: [\n"})
    assert run("check", "--strict", cwd=root)[0] == 0  # found by the walk: counted, not failed
    code, out, _ = run("check", "--strict", "notes/broken.yaml", cwd=root)
    assert code == 1
    assert out.splitlines()[0] == (
        "notes/broken.yaml:2:1: error: invalid YAML: while parsing a flow node: "
        "did not find expected node content [parse-error]"
    )


def test_json_output_lists_skipped_files(run: Run, tree: Tree) -> None:
    import json

    root = tree({"notes/broken.json": "{", "notes/other.txt": "x"})
    payload = json.loads(run("check", "--format", "json", cwd=root)[1])
    assert payload["skipped"] == [
        {
            "path": "notes/broken.json",
            "reason": "does not parse (invalid JSON: expecting property name enclosed in "
            "double quotes)",
            "unreadable": True,
        }
    ]


def test_an_oversized_claimed_file_is_a_parse_error(run: Run, tree: Tree) -> None:
    padded = '{"skill_name": "x", "evals": []}' + " " * 2048
    root = tree(
        {
            "skills/r/eval/evals.json": padded,
            "notes/big.json": '{"questions": []}' + " " * 2048,
            "notes/other.json": "[" + " " * 2048 + "]",
            ".evallint.toml": "max-file-size = 1024\n",
        }
    )
    code, out, _ = run("check", cwd=root)
    assert code == 1
    assert out.splitlines()[:2] == [
        "notes/big.json:1:1: error: file is 2,065 bytes, over the 1,024-byte limit "
        "(max-file-size) [parse-error]",
        "skills/r/eval/evals.json:1:1: error: file is 2,080 bytes, over the 1,024-byte limit "
        "(max-file-size) [parse-error]",
    ]
    assert "1 unreadable file skipped" in out.splitlines()[2]


def test_jsonl_with_a_bad_byte_reports_the_line_and_checks_the_rest() -> None:
    good = '{"schema_version": "instance_level_eval_0.2.0", "evaluation_id": "e"}'
    raw = (good + "\n").encode() + b'{"a": "\xff"}\n' + b'{"schema_version": 7}\n'
    got = found("runs/x_samples.jsonl", raw)
    parse = [g for g in got if g[2] == "parse-error"]
    assert parse == [(2, 8, "parse-error", "not valid UTF-8: byte 0xff at offset 77")]
    assert (3, 20, "eee-schema-version") in [g[:3] for g in got]


def test_nothing_under_github_is_an_eval_file_by_its_name() -> None:
    assert found(".github/workflows/eval.yml", "on: push\njobs: {}\n") == []
    assert found(".github/workflows/eval.yml", "on: [\n") == []


def test_a_spec_suite_variant_is_claimed_by_its_name() -> None:
    """EVAL.live.yaml is an AgentV suite by its name: broken, it is an error, never a skip."""
    assert found("evals/EVAL.live.yaml", "description: [broken\n") == [
        (
            2,
            1,
            "parse-error",
            "invalid YAML: while parsing a flow sequence: did not find expected ',' or ']'",
        )
    ]


def test_diff_mode_reports_a_broken_claimed_file(tmp_path: Path, run: Run) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    repo = Repo(root)
    repo.commit({"README.md": "x\n"}, "base")
    repo.git("checkout", "-qb", "feature")
    repo.commit(
        {
            "skills/routing/eval/evals.json": '{"skill_name": "x" "evals": []}',
            f"data/c/d/m/{UUID}.json": '{"schema_version": "0.2.0", "evaluation_results": [1,]}',
            "evals/datasets/bomb.yaml": "questions: [\n",
        }
    )
    code, out, _ = run("check", "--diff", "main", cwd=root)
    assert code == 1, out
    assert [line.rsplit(" [", 1)[-1] for line in out.splitlines()[1:4]] == ["parse-error]"] * 3
    assert out.splitlines()[4].startswith("3 files checked: 3 errors")
    # pre-commit's shape: the changed files named on the command line
    code, out, _ = run("check", "evals/datasets/bomb.yaml", f"data/c/d/m/{UUID}.json", cwd=root)
    assert code == 1 and out.splitlines()[2].startswith("2 files checked: 2 errors"), out


def test_suppression_markers_count_only_in_real_yaml_comments() -> None:
    evals = '{"skill_name": "x # evallint: ignore"}'
    assert [g[2] for g in found("skills/a/evals/evals.json", evals)] == ["evals-key-missing"]
    dataset = 'description: "see # evallint: ignore"\nquestons: []\n'
    assert (2, 1, "key-typo") in [g[:3] for g in found("misc/d.yaml", dataset)]
    block = "description: |\n  # evallint: ignore\nquestons: []\n"
    assert (3, 1, "key-typo") in [g[:3] for g in found("misc/d.yaml", block)]
    comment = "description: x\n# evallint: ignore[key-typo]\nquestons: []\n"
    assert (3, 1, "key-typo") not in [g[:3] for g in found("misc/d.yaml", comment)]
    trailing = "description: x  # evallint: ignore[key-typo]\nquestons: []\n"  # its line only
    assert (2, 1, "key-typo") in [g[:3] for g in found("misc/d.yaml", trailing)]


def test_suppressed_findings_do_not_spend_the_repeat_cap() -> None:
    typo = "    expecteed_facts: [x]"
    lines = "".join(f"  - id: q{i}\n    input: x\n{typo}  # evallint: ignore\n" for i in range(10))
    dataset = "questions:\n" + lines + f"  - id: q10\n    input: x\n{typo}\n"
    got = [g[:3] for g in found("datasets/d.yaml", dataset) if g[2] == "key-typo"]
    assert got == [(34, 5, "key-typo")]


WIDE = {"UTF-16 with a BOM": "utf-16", "UTF-16 without": "utf-16-le", "UTF-32": "utf-32"}


@pytest.mark.parametrize("encoding", WIDE)
@pytest.mark.parametrize("route", sorted(YAML_ROUTES))
def test_a_file_in_a_wide_encoding_is_one_parse_error_whatever_claimed_it(
    route: str, encoding: str
) -> None:
    """Runners read UTF-8: a UTF-16 or UTF-32 file is broken, and its kind is still told by
    what it says (a content-claimed dataset was once skipped as "not valid UTF-8")."""
    path, head = YAML_ROUTES[route]
    got = found(path, (head + "note: x\n").encode(WIDE[encoding]), CONFIG)
    assert [(line, rule) for line, _, rule, _ in got] == [(1, "parse-error")], got


@pytest.mark.parametrize(
    ("path", "raw", "at"),
    [
        # AgentV 5 (next) claimed by its keys, broken before the end.
        (
            "misc/next.yaml",
            b'prompts: ["{{ q }}"]\ntests:\n  - vars: {q: hi}\n    assert: [\n',
            (5, 1),
        ),
        # An EEE instance file whose every record is cut short: no good line tells its kind.
        (
            "misc/records.jsonl",
            b'{"evaluation_id": "e", "sample_id": "1", "interaction_type": "single\n'
            b'{"evaluation_id": "e", "sample_id": "2", "interaction_type": "single\n',
            (1, 62),
        ),
    ],
)
def test_content_claimed_files_that_do_not_parse_are_parse_errors(
    path: str, raw: bytes, at: tuple[int, int]
) -> None:
    got = found(path, raw, CONFIG)
    assert [(line, col, rule) for line, col, rule, _ in got][:1] == [(*at, "parse-error")], got


def test_a_content_claimed_file_over_the_limit_behind_blank_lines_is_a_parse_error(
    run: Run, tree: Tree
) -> None:
    """Its kind is in what follows the blank lines, which are skipped to find it."""
    record = '{"evaluation_id": "e", "sample_id": "1", "interaction_type": "single_turn"}\n'
    root = tree(
        {"misc/r.jsonl": "\n" * 100_000 + record, ".evallint.toml": "max-file-size = 1000\n"}
    )
    code, out, _ = run("check", cwd=root)
    assert code == 1
    assert out.splitlines()[0].startswith("misc/r.jsonl:1:1: error: file is 100,076 bytes")
