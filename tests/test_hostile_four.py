"""Hostile input, fourth pass: the newer surfaces (promptfoo, the pull request's own settings and
cache, the baseline, the language server). Each case ends with a finding or a plain error, in
seconds, never a hang, a traceback or "clean" about something unread."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import lint_files
from test_git import Repo

Run = Callable[..., tuple[int, str, str]]

DEEP = "a/" * 200 + "zzz.txtq"  # a path none of the patterns below matches, deep


@pytest.mark.parametrize("parts", [1, 2, 4, 8, 16, 22, 32, 64])
def test_globs_of_many_folder_spans_take_linear_time(parts: int) -> None:
    """`**/` repeated (cases 1 and 2: 22 of them hung a run for minutes in a regex)."""
    from evallint.config import Glob

    for pattern in ("**/" * parts + "x/zzz.txt", "*a" * parts + "b", "**a" * parts + "b"):
        started = time.perf_counter()
        assert not Glob(pattern).match(DEEP)
        assert not Glob(pattern).match("a" * 5000)
        assert time.perf_counter() - started < 5.0, pattern  # the hang was minutes


PROMPTFOO = (
    "prompts:\n  - file://" + "**/" * 22 + "x/zzz.txt\nproviders: [echo]\n"
    "tests:\n  - vars: {q: hi}\n"
)


def test_a_promptfoo_glob_of_many_parts_cannot_hang_the_check() -> None:
    started = time.perf_counter()
    lint_files({"promptfooconfig.yaml": PROMPTFOO, ("a/" * 60) + "zzz.txtq": "x"})
    assert time.perf_counter() - started < 5.0


@pytest.mark.parametrize(
    "settings",
    [
        'exclude = ["' + "**/" * 22 + 'x/zzz.txt"]\n',
        '[kinds]\nrubric = ["' + "**/" * 22 + 'x/zzz.yaml"]\n',
        '[per-file-ignores]\n"' + "**/" * 22 + 'x/zzz.yaml" = ["key-typo"]\n',
    ],
)
def test_a_settings_glob_of_many_parts_cannot_hang_the_run(
    run: Run, tmp_path: Path, settings: str
) -> None:
    deep = tmp_path / ("a/" * 40)
    deep.mkdir(parents=True)
    (deep / "zzz.yamlq.yaml").write_text("a: 1\n")
    (tmp_path / ".evallint.toml").write_text(settings)
    started = time.perf_counter()
    code, _, err = run("check", ".", cwd=tmp_path)
    assert code in (0, 1), err
    assert time.perf_counter() - started < 5.0


RUBRIC = (
    'id: r\nversion: "1.0.0"\nchecks: [{kind: php_lint, id: l}]\nscoring: {combine: all_pass}\n'
)


def test_strict_in_diff_mode_errors_when_the_settings_exclude_everything(
    run: Run, tmp_path: Path
) -> None:
    """Case 7: the pull request's `exclude = ["**"]` checked nothing and passed under --strict
    in --diff, where a full check errors."""
    repo = Repo(tmp_path / "repo")
    repo.commit({"rubrics/r.yaml": RUBRIC})
    repo.git("checkout", "-qb", "pr")
    repo.commit(
        {
            ".evallint.toml": 'exclude = ["**"]\n',
            "rubrics/r.yaml": RUBRIC.replace("all_pass", "min"),
        }
    )
    code, out, _ = run("check", "--strict", "--diff", "main", cwd=repo.root)
    assert code == 1, out
    assert "the configuration's exclude leaves nothing to check (1 file excluded)" in out
    # Settings the base had already: the change's excluded files are counted the same way.
    repo.git("checkout", "-q", "main")
    repo.commit({".evallint.toml": 'exclude = ["**"]\n'})
    repo.git("checkout", "-qb", "later")
    repo.commit({"rubrics/r.yaml": RUBRIC.replace("all_pass", "min")})
    code, out, _ = run("check", "--strict", "--diff", "main", cwd=repo.root)
    assert code == 1 and "leaves nothing to check" in out, out


def test_a_jsonl_test_file_that_does_not_parse_is_an_error() -> None:
    """Case 9: a JSONL test file came back read, with a problem for its bad line, and passed."""
    config = 'prompts: ["Answer: {{q}}"]\nproviders: [echo]\ntests: file://cases.jsonl\n'
    cases = '{"vars": {"q": "hi"}}\n{"vars": {"q": \n'
    found = lint_files({"promptfooconfig.yaml": config, "cases.jsonl": cases})
    assert [(d.path, d.span.line, d.span.column, d.rule) for d in found] == [
        ("promptfooconfig.yaml", 3, 8, "promptfoo-test-file")
    ]
    assert "(line 2, column" in found[0].message


@pytest.mark.parametrize("what", ["zero", "fifo", "outside", "folder"])
def test_the_baseline_is_read_as_every_other_input(run: Run, tmp_path: Path, what: str) -> None:
    """Case 11: `--baseline FILE` read a link to /dev/zero whole (a MemoryError), hung on a FIFO
    and read a file outside the repository."""
    import os

    root = tmp_path / "repo"
    root.mkdir()
    (root / "rubrics").mkdir()
    (root / "rubrics/r.yaml").write_text(RUBRIC)
    target = root / "accepted.json"
    if what == "zero":
        target.symlink_to("/dev/zero")
    elif what == "fifo":
        os.mkfifo(target)
    elif what == "outside":
        (tmp_path / "elsewhere.json").write_text('{"version": 1, "findings": []}')
        target.symlink_to(tmp_path / "elsewhere.json")
    else:
        target.mkdir()
    started = time.perf_counter()
    code, out, err = run("check", "--baseline", "accepted.json", ".", cwd=root)
    assert code == 2 and "the baseline accepted.json" in err, out + err
    assert "internal error" not in err
    assert time.perf_counter() - started < 5.0


def _big_script() -> str:
    """A valid Python module of 1.3 MB that defines `grade` (over the parse limit)."""
    body = "".join(f"def f{i}(a, b):\n    return a + b * {i}\n" for i in range(30_000))
    return body + "def grade(output, context):\n    return True\n"


def test_a_python_script_over_the_parse_limit_is_a_finding_not_a_pass() -> None:
    """Case 3: a 10 MB script was parsed whole (4.8 GB); under a memory cap the error was
    swallowed and the run was clean. Now it is not parsed, and the reference says so."""
    import resource

    config = (
        'prompts: ["Answer: {{q}}"]\nproviders: [echo]\ntests:\n  - vars: {q: hi}\n'
        "    assert:\n      - {type: python, value: 'file://checks.py:grade'}\n"
    )
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    found = lint_files({"promptfooconfig.yaml": config, "checks.py": _big_script()})
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert [(d.path, d.span.line) for d in found] == [("promptfooconfig.yaml", 6)]
    assert "over the 1,048,576-byte limit for parsing Python" in found[0].message
    assert grown < 150 * 1024  # KiB: the script was not parsed


def test_a_harness_function_in_a_module_over_the_limit_is_said_not_checked() -> None:
    task = "task: demo\ndataset_path: d\nprocess_docs: !function utils.grade\n"
    found = lint_files({"tasks/demo/demo.yaml": task, "tasks/demo/utils.py": _big_script()})
    assert [(d.span.line, d.rule) for d in found] == [(3, "lm-eval-function-unverified")]
    assert "over the 1,048,576-byte limit" in found[0].message


def test_a_csv_test_file_costs_one_pass_however_many_configs_name_it(
    run: Run, tmp_path: Path
) -> None:
    """Case 10: CSV cells cost configs x rows, with difflib for each distinct misspelt type
    once the hint caches overflowed (400,000 rows: 53 s). Each file is read once a run, each
    word compared once, and past 2,000 distinct words one finding says how many were not."""
    rows = ["question,__expected"] + [f"q{i},contians{i}:x" for i in range(100_000)]
    (tmp_path / "tests.csv").write_text("\n".join(rows) + "\n")
    config = 'prompts: ["Answer: {{question}}"]\nproviders: [echo]\ntests: file://../tests.csv\n'
    for name in "abcd":
        (tmp_path / name).mkdir()
        (tmp_path / name / "promptfooconfig.yaml").write_text(config)
    started = time.perf_counter()
    code, out, _ = run("check", "--no-cache", "--format", "json", ".", cwd=tmp_path)
    elapsed = time.perf_counter() - started
    import json

    found = json.loads(out)["diagnostics"]
    assert code == 0 and elapsed < 5.0, elapsed
    assert {d["path"] for d in found} == {"tests.csv"}
    assert any("98,000 more distinct cell prefixes" in d["message"] for d in found)


def test_a_kinds_mapping_to_a_kind_of_another_file_type(run: Run, tmp_path: Path) -> None:
    """A YAML file made a JSONL kind was checked as nothing and passed."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data/x.yaml").write_text('{"a": 1}\n')
    (tmp_path / ".evallint.toml").write_text('[kinds]\neee-instance = ["*.yaml"]\n')
    code, _, err = run("check", ".", cwd=tmp_path)
    assert code == 2 and "kinds.eee-instance: '*.yaml' names yaml files" in err
    (tmp_path / ".evallint.toml").write_text('[kinds]\neee-instance = ["data/**"]\n')
    code, out, _ = run("check", ".", cwd=tmp_path)
    assert code == 1, out
    assert "data/x.yaml:1:1: error: the settings make this yaml file a eee-instance" in out


def test_a_corrupt_workbook_is_a_finding() -> None:
    import io
    import zipfile

    config = 'prompts: ["Answer: {{q}}"]\nproviders: [echo]\ntests: file://tests.xlsx\n'
    found = lint_files({"promptfooconfig.yaml": config, "tests.xlsx": b"not a zip at all"})
    assert [(d.span.line, d.span.column, d.rule) for d in found] == [(3, 8, "promptfoo-test-file")]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("xl/workbook.xml", "<workbook/>")
    assert lint_files({"promptfooconfig.yaml": config, "tests.xlsx": buffer.getvalue()}) == []


def test_a_hugging_face_eval_yaml_that_is_not_utf8_is_a_parse_error() -> None:
    text = b"name: D\xe9mo\ndescription: d\nevaluation_framework: inspect-ai\ntasks:\n  - id: a\n"
    found = lint_files({"eval.yaml": text})
    assert [(d.span.line, d.span.column, d.rule) for d in found] == [(1, 8, "parse-error")]
