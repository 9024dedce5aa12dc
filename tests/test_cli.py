"""The command line, in-process: exit codes, formats, config, discovery."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import REPO
from test_eee import MINIMAL_0_2_0

Run = Callable[..., tuple[int, str, str]]
Tree = Callable[[dict[str, str | bytes]], Path]

CLEAN_RUBRIC = (
    "id: tone\nversion: '1.0.0'\nchecks: [{kind: php_lint, id: lint}]\n"
    "scoring: {combine: all_pass}\n"
)
TYPO_DATASET = "questions:\n  - id: q1\n    input: hi\n    expecteed_facts: [x]\n"
PROSE_TYPO_DATASET = "descriptoin: refunds\n" + TYPO_DATASET.replace("expecteed", "expected")
BAD_RUBRIC = (
    "id: tone\nversion: 1.0\nchecks: [{kind: php_lint, id: lint}]\nscoring: {combine: all_pass}\n"
)


def test_clean_tree_exits_0(run: Run, tree: Tree) -> None:
    root = tree({"rubrics/tone.yaml": CLEAN_RUBRIC})
    code, out, _ = run("check", cwd=root)
    assert code == 0
    assert out.startswith("1 file checked: no problems (")


def test_errors_exit_1_with_clickable_lines(run: Run, tree: Tree) -> None:
    root = tree({"rubrics/tone.yaml": BAD_RUBRIC})
    code, out, _ = run("check", cwd=root)
    assert code == 1
    assert out.splitlines()[0] == (
        "rubrics/tone.yaml:2:10: error: 1.0 is read by YAML as the number 1.0, not as text; "
        'write it as text: "1.0.0" [yaml-implicit-type] [*]'
    )
    assert out.splitlines()[1].startswith(
        "1 file checked: 1 error in 1 file, 1 fixable with --fix [*] ("
    )


def test_the_readmes_first_example_fails_by_default(run: Run, tree: Tree) -> None:
    """A misspelt key the grader reads loads silently and scores wrong: an error, exit 1."""
    root = tree({"datasets/d.yaml": TYPO_DATASET})
    code, out, _ = run("check", cwd=root)
    assert code == 1
    assert out.splitlines()[0] == (
        "datasets/d.yaml:4:5: error: unknown key 'expecteed_facts'; did you mean "
        "'expected_facts'? [key-typo] [*]"
    )


def test_warnings_pass_unless_strict(run: Run, tree: Tree) -> None:
    root = tree({"datasets/d.yaml": PROSE_TYPO_DATASET})
    assert run("check", cwd=root)[0] == 0
    assert run("check", "--strict", cwd=root)[0] == 1
    (root / ".evallint.toml").write_text("strict = true\n")
    assert run("check", cwd=root)[0] == 1


def test_usage_errors_exit_2(run: Run, tree: Tree) -> None:
    root = tree({"rubrics/tone.yaml": CLEAN_RUBRIC})
    code, _, err = run("check", "missing.yaml", cwd=root)
    assert (code, err) == (2, "evallint: error: no such file or directory: 'missing.yaml'\n")
    assert run("check", "--format", "xml", cwd=root)[0] == 2
    assert run(cwd=root)[0] == 2
    code, _, err = run("check", "--select", "key-tpyo", cwd=root)
    assert code == 2 and "unknown rule 'key-tpyo'; did you mean 'key-typo'?" in err


def test_bad_config_exits_2_with_did_you_mean(run: Run, tree: Tree) -> None:
    root = tree(
        {
            "rubrics/tone.yaml": CLEAN_RUBRIC,
            ".evallint.toml": 'stict = true\n[rules]\nkey-typo = "loud"\n',
        }
    )
    code, _, err = run("check", cwd=root)
    assert code == 2
    assert "rules.key-typo: 'loud' is not one of 'error', 'warning', 'note', 'off'" in err
    assert "unknown key 'stict'; did you mean 'strict'?" in err
    (root / ".evallint.toml").write_text("strict = [\n")
    code, _, err = run("check", cwd=root)
    assert code == 2 and err.startswith("evallint: error: cannot read .evallint.toml:")


def test_pyproject_table_and_rule_severities(run: Run, tree: Tree) -> None:
    root = tree(
        {
            "datasets/d.yaml": TYPO_DATASET,
            "pyproject.toml": '[tool.evallint.rules]\nkey-typo = "error"\n',
        }
    )
    code, out, _ = run("check", cwd=root)
    assert code == 1 and "error: unknown key 'expecteed_facts'" in out
    (root / "pyproject.toml").write_text('[tool.evallint.rules]\nkey-typo = "off"\n')
    assert "no problems" in run("check", cwd=root)[1]


def test_select_and_ignore(run: Run, tree: Tree) -> None:
    root = tree({"datasets/d.yaml": TYPO_DATASET, "rubrics/tone.yaml": BAD_RUBRIC})
    _, out, _ = run("check", "--select", "key-typo", cwd=root)
    assert "[key-typo]" in out and "[yaml-implicit-type]" not in out
    _, out, _ = run("check", "--ignore", "key-typo,yaml-implicit-type", cwd=root)
    assert "no problems" in out


def test_rules_are_selected_by_prefix_and_by_group_of_kinds(run: Run, tree: Tree) -> None:
    """`--select yaml` is every yaml-* rule; `--ignore rubric` every rule that reads only
    rubrics; a selector that names nothing is a usage error with a did-you-mean."""
    from evallint.session.settings import expand_rules

    assert expand_rules(["version"]) == (
        "version-not-bumped",
        "version-bump-too-small",
        "version-not-increased",
        "version-non-score-change",
    )
    # unknown-grader-type reads agentevals suites too: no longer agentv's alone.
    assert expand_rules(["agentv"]) == (
        "agentv-migration",
        "agentv-function",
        "agentv-rejected",
        "agentv-case-file",
        "agentv-prompt-path",
        "agentv-v2-required",
    )
    assert "eee-checksum" in expand_rules(["eee"]) and "missing-file" not in expand_rules(["eee"])
    root = tree({"datasets/d.yaml": TYPO_DATASET, "rubrics/tone.yaml": BAD_RUBRIC})
    _, out, _ = run("check", "--select", "yaml", cwd=root)
    assert "[yaml-implicit-type]" in out and "[key-typo]" not in out
    (root / ".evallint.toml").write_text('ignore = ["yaml"]\n')
    _, out, _ = run("check", cwd=root)
    assert "[key-typo]" in out and "[yaml-implicit-type]" not in out
    code, _, err = run("check", "--ignore", "eeee", cwd=root)
    assert (code, err) == (
        2,
        "evallint: error: --ignore: unknown rule 'eeee'; did you mean 'eee'?\n",
    )


@pytest.mark.parametrize("name", [".evallint.toml", "pyproject.toml"])
def test_a_settings_file_that_links_out_is_never_read(
    run: Run, tree: Tree, tmp_path_factory: pytest.TempPathFactory, name: str
) -> None:
    """A pull request may commit the settings file as a symlink to a file of the machine that
    checks it: evallint stops (exit 2) without reading it. A link inside the project is read."""
    elsewhere = tmp_path_factory.mktemp("elsewhere") / name
    elsewhere.write_text(
        '[tool.evallint]\nexclude = ["**"]\n' if name == "pyproject.toml" else 'exclude = ["**"]\n'
    )
    root = tree({"datasets/d.yaml": "questions: []\n"})
    (root / name).symlink_to(elsewhere)
    code, out, err = run("check", cwd=root)
    assert (code, out) == (2, "")
    said = f"{name} is a symlink that leads outside the repository; it is not read"
    assert err == f"evallint: error: {said}\n"
    (root / name).unlink()
    (root / "settings").mkdir()
    (root / "settings" / name).write_text(elsewhere.read_text())
    (root / name).symlink_to(f"settings/{name}")
    assert run("check", cwd=root)[0] == 0  # excluded: nothing to check, not strict


def test_config_kinds_and_exclude(run: Run, tree: Tree) -> None:
    root = tree(
        {
            "evals/graders/tone.yaml": BAD_RUBRIC,
            "legacy/rubrics/old.yaml": "id: [\n",
            ".evallint.toml": 'exclude = ["legacy"]\n[kinds]\nrubric = ["evals/graders/*.yaml"]\n',
        }
    )
    code, out, _ = run("check", cwd=root)
    assert code == 1
    assert out.splitlines()[0].startswith("evals/graders/tone.yaml:2:10: error:")
    assert "legacy" not in out


def test_json_output_shape(run: Run, tree: Tree) -> None:
    root = tree({"datasets/d.yaml": TYPO_DATASET})
    code, out, _ = run("check", "--format", "json", cwd=root)
    assert code == 1
    assert json.loads(out) == {
        "version": 1,
        "files_checked": 1,
        "diagnostics": [
            {
                "path": "datasets/d.yaml",
                "line": 4,
                "column": 5,
                "end_line": 4,
                "end_column": 20,
                "severity": "error",
                "rule": "key-typo",
                "message": "unknown key 'expecteed_facts'; did you mean 'expected_facts'?",
            }
        ],
    }


def test_output_file(run: Run, tree: Tree) -> None:
    root = tree({"datasets/d.yaml": TYPO_DATASET})
    code, out, _ = run("check", "--format", "json", "--output", "report.json", cwd=root)
    assert (code, out) == (1, "")
    assert json.loads((root / "report.json").read_text())["files_checked"] == 1


def test_verbose_lists_skipped_files(run: Run, tree: Tree) -> None:
    root = tree({"notes/x.yaml": "a: 1\n", "rubrics/tone.yaml": CLEAN_RUBRIC})
    _, out, _ = run("check", "-v", cwd=root)
    assert "skipped notes/x.yaml: no kind matches" in out


def test_oversized_file_is_an_error(run: Run, tree: Tree) -> None:
    root = tree(
        {
            "rubrics/big.yaml": "id: tone\n" + "# pad\n" * 100,
            ".evallint.toml": "max-file-size = 100\n",
        }
    )
    code, out, _ = run("check", cwd=root)
    assert code == 1
    assert out.splitlines()[0] == (
        "rubrics/big.yaml:1:1: error: file is 609 bytes, over the "
        "100-byte limit (max-file-size) [parse-error]"
    )


def test_symlink_leaving_the_project_is_not_read(run: Run, tree: Tree, tmp_path: Path) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-secret.yaml"
    outside.write_text("id: [secret\n")
    root = tree({"rubrics/tone.yaml": CLEAN_RUBRIC})
    (root / "rubrics" / "leak.yaml").symlink_to(outside)
    code, out, _ = run("check", "-v", cwd=root)
    assert code == 1  # a rubric by its path, never read: an error, never a silent skip
    assert (
        "rubrics/leak.yaml:1:1: error: rubrics/leak.yaml is a symlink to outside the project; "
        "it is not read [path-outside-repo]"
    ) in out
    assert "secret" not in out.replace(outside.name, "")
    # Where no kind claims the path, the link is counted as a file not read.
    (root / "rubrics" / "leak.yaml").unlink()
    (root / "notes.yaml").symlink_to(outside)
    code, out, _ = run("check", cwd=root)
    assert code == 0 and "1 unreadable file skipped" in out


def test_git_tree_walk_respects_gitignore(run: Run, tree: Tree) -> None:
    root = tree(
        {
            "rubrics/tone.yaml": CLEAN_RUBRIC,
            "rubrics/ignored.yaml": "id: [\n",
            "rubrics/new.yaml": BAD_RUBRIC,
            ".gitignore": "rubrics/ignored.yaml\n",
        }
    )
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "rubrics/tone.yaml", ".gitignore"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=root, check=True)
    (root / "sub").mkdir()
    assert "0 files checked" in run("check", cwd=root / "sub")[1]  # default: the cwd
    code, out, _ = run("check", "..", cwd=root / "sub")  # the root is found from a subfolder
    assert code == 1
    assert "ignored.yaml" not in out
    assert "rubrics/new.yaml:2:10" in out  # untracked, not ignored: checked
    assert "2 files checked" in out


def test_schema_command(run: Run, tmp_path: Path) -> None:
    code, out, _ = run("schema", "rubric")
    assert code == 0 and json.loads(out)["$id"] == "urn:evallint:schema:rubric"
    code, out, _ = run("schema")
    names = out.split()
    assert {
        "abp-evals",
        "agentv-v4",
        "config",
        "dataset",
        "eee/eval_0.0.1",
        "eee/eval_0.3.0",
        "judge",
        "rubric",
    } <= set(names)
    assert names == sorted(names)
    code, _, err = run("schema", "nope")
    assert code == 2 and "no bundled schema 'nope'" in err
    code, out, _ = run("schema", "--export", str(tmp_path / "out"))
    assert code == 0 and (tmp_path / "out" / "judge.schema.json").is_file()


def test_internal_errors_are_one_line(
    run: Run, tree: Tree, monkeypatch: pytest.MonkeyPatch
) -> None:
    import evallint.engine.run

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(evallint.engine.run, "lint", boom)
    root = tree({"rubrics/tone.yaml": CLEAN_RUBRIC})
    code, out, err = run("check", cwd=root)
    assert code == 2 and out == ""
    assert err.startswith("evallint: internal error: RuntimeError: kaboom")
    assert "Traceback" not in err


def test_python_dash_m_and_version() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "evallint", "check", "examples"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no problems" in proc.stdout


def test_the_command_exits_without_teardown_yet_writes_everything(tmp_path: Path) -> None:
    """`entry` ends the process with os._exit: every byte of output is flushed first, and the
    exit code is main's. A reader that leaves early gets no traceback and no noise."""
    questions = "".join(
        f"  - id: q{i}\n    input: x\n    rubric_ref: rubric/missing_{i}@1.0.0\n"
        for i in range(3000)
    )
    (tmp_path / "datasets").mkdir()
    (tmp_path / "datasets" / "d.yaml").write_text(f"id: d\nquestions:\n{questions}")
    cmd = [sys.executable, "-m", "evallint", "check", "--format", "json", "datasets/d.yaml"]
    whole = subprocess.run(cmd, cwd=tmp_path, capture_output=True, check=False)
    assert whole.returncode == 1 and whole.stderr == b""
    assert len(json.loads(whole.stdout)["diagnostics"]) == 3000  # far past a pipe's buffer
    text = subprocess.run(cmd[:4] + cmd[6:], cwd=tmp_path, capture_output=True, check=False)
    assert text.returncode == 1 and text.stdout.count(b"[unknown-ref]") == 3000
    last = text.stdout.splitlines()[-1]
    assert last.startswith(b"1 file checked: 3000 errors in 1 file (")
    # A command whose one write stays in the stream's buffer until the exit flushes it.
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    page = subprocess.run(
        [*cmd[:3], "rule", "parse-error"], capture_output=True, check=False, env=buffered
    )
    assert page.returncode == 0 and page.stdout.startswith(b"parse-error")
    head = subprocess.run(
        ["sh", "-c", " ".join(cmd) + " | head -c 10 >/dev/null"],
        cwd=tmp_path,
        capture_output=True,
        check=False,
    )
    assert b"Traceback" not in head.stderr and b"Exception ignored" not in head.stderr


def test_examples_lint_clean(run: Run) -> None:
    code, out, _ = run("check", "examples", cwd=REPO)
    assert code == 0, out
    assert "no problems" in out


def test_init_vscode_merges_settings(run: Run, tree: Tree) -> None:
    root = tree({".vscode/settings.json": '{"editor.tabSize": 2, "yaml.schemas": {"a.json": "x"}}'})
    code, out, _ = run("init", "vscode", cwd=root)
    assert code == 0 and "wrote .vscode/settings.json" in out
    settings = json.loads((root / ".vscode/settings.json").read_text())
    assert settings["editor.tabSize"] == 2
    assert settings["yaml.schemas"]["a.json"] == "x"
    assert settings["yaml.schemas"]["./.vscode/evallint/rubric.schema.json"] == [
        "**/rubrics/**/*.yaml",
        "**/rubrics/**/*.yml",
    ]
    assert json.loads((root / ".vscode/evallint/judge.schema.json").read_text())["$id"]


def test_init_vscode_leaves_commented_settings_alone(run: Run, tree: Tree) -> None:
    original = '{\n  // mine\n  "editor.tabSize": 2\n}\n'
    root = tree({".vscode/settings.json": original})
    code, out, _ = run("init", "vscode", cwd=root)
    assert code == 0 and "holds comments or trailing commas" in out
    assert '"yaml.schemas"' in out and '"json.schemas"' in out  # the whole snippet
    assert "wrote .vscode/evallint/rubric.schema.json" in out  # the schemas, still exported
    assert (root / ".vscode/settings.json").read_text() == original


def test_verbose_names_the_kind_of_each_file(run: Run, tree: Tree) -> None:
    root = tree(
        {
            "evals/basic.eval.yaml": "tests:\n  - {id: a, criteria: c}\n",
            "EVAL.yaml": "name: spec-suite\nevalcases:\n  - {id: a, expected_outcome: o, "
            "input: hi}\n",
        }
    )
    _, out, _ = run("check", "-v", cwd=root)
    assert "checked EVAL.yaml as agentevals (agentevals EVAL.yaml)" in out
    assert "checked evals/basic.eval.yaml as agentv-v4 (AgentV eval (v4))" in out


def test_index_never_reads_through_symlinks_out_of_the_project(
    run: Run, tree: Tree, tmp_path: Path
) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-outside.yaml"
    outside.write_text("id: leaked_secret\nversion: 1.0\nchecks: [1]\nscoring: {}\n")
    root = tree(
        {
            "datasets/d.yaml": "questions:\n  - {id: q, input: x, "
            "rubric_ref: rubric/leaked_secret@1}\n"
        }
    )
    (root / "rubrics").mkdir()
    (root / "rubrics" / "link.yaml").symlink_to(outside)
    code, out, _ = run("check", "datasets/d.yaml", cwd=root)
    assert code == 1
    assert "no rubric with id 'leaked_secret' in the project" in out
    assert "version" not in out and "1.0" not in out


def test_links_learnt_by_folder_still_leave_the_project(tmp_path: Path) -> None:
    """Large trees learn their symlinks one folder read at a time (not a stat a file): a link
    out is still told, and a path the listing did not hold is still asked of the disk."""
    import os

    from evallint.io.source import FsSource

    root = tmp_path / "repo"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "in.yaml").write_text("x: 1\n")
    away = tmp_path / "away.yaml"
    away.write_text("secret: 1\n")
    (root / "a" / "b" / "out.yaml").symlink_to(away)
    (root / "late.yaml").symlink_to(away)  # not in the listing
    source = FsSource(root)
    absolute = os.fspath(root / "a" / "b" / "out.yaml")
    source.know_links(frozenset({"a/b/in.yaml", "a/b/out.yaml", "gone/x.yaml", absolute}))
    assert not source.outside("a/b/in.yaml")
    assert source.outside("a/b/out.yaml")
    assert source.outside("late.yaml")
    assert not source.outside("gone/x.yaml")  # its folder could not be read: asked one by one
    assert source.outside(absolute)  # an absolute path is asked of the disk


def test_readme_configuration_example_is_valid() -> None:
    import re
    import tomllib

    from evallint.session.settings import from_table

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    example = re.search(r"```toml\n(.*?)```", readme[readme.index("## Configuration") :], re.S)
    assert example is not None
    config = from_table(tomllib.loads(example.group(1)), "README.md")
    assert config.non_score_fields == {"rubric": ("owner", "reviewed_by")}


def test_forked_workers_report_what_one_process_reports(run: Run, tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "repo"
    shutil.copytree(REPO / "examples", root)
    (root / "rubrics" / "broken.yaml").write_text(
        "id: broken\nversion: 1.0\n"
        "checks: [{kind: llm_judge, id: j, judge_prompt_ref: judge/nope}]\n"
        "scoring: {combine: all_pas}\n"
    )
    # Records in different workers share an id: the rule must see across the split.
    store = root / "data" / "bench" / "acme" / "m"
    store.mkdir(parents=True)
    for n in range(4):
        name = f"{n}c1d2e3f-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json"
        (store / name).write_text(json.dumps(MINIMAL_0_2_0))
    (root / "rubrics" / "bad.json").write_text('{"id": "b",}')
    (root / "notes.yaml").write_text("just: notes\n")
    serial = run("check", "--format", "json", "--jobs", "1", cwd=root)
    forked = run("check", "--format", "json", "--jobs", "3", cwd=root)
    assert serial[0] == forked[0] == 1
    found = json.loads(forked[1])["diagnostics"]
    assert json.loads(serial[1])["diagnostics"] == found
    assert {"eee-duplicate-evaluation-id", "parse-error", "unknown-ref"} <= {
        d["rule"] for d in found
    }
    # The verbose listing (kinds, skipped files) in the same order; the timing aside.
    one, many = (run("check", "-v", "--jobs", n, cwd=root)[1] for n in ("1", "3"))
    assert one.splitlines()[:-1] == many.splitlines()[:-1]
    assert "skipped notes.yaml: no kind matches" in many
    assert run("check", "--jobs", "0", cwd=root)[0] == 2


def test_statistics_mark_fixable_rules_and_refuse_machine_formats(run: Run, tree: Tree) -> None:
    root = tree({"datasets/d.yaml": TYPO_DATASET, "rubrics/tone.yaml": BAD_RUBRIC})
    code, out, _ = run("check", "--statistics", cwd=root)
    assert code == 1
    assert out.splitlines()[:2] == [
        "1  error    key-typo [*]",
        "1  error    yaml-implicit-type [*]",
    ]
    code, out, err = run("check", "--statistics", "--format", "json", cwd=root)
    assert (code, out) == (2, "")
    assert err == (
        "evallint: error: --statistics counts findings for people: it works with --format "
        "text, not --format json\n"
    )


def test_text_paths_are_relative_to_the_folder_run_in(run: Run, tree: Tree) -> None:
    """As ruff prints them, so a terminal opens them from there; machine formats and GitHub's
    annotations keep the project root's."""
    root = tree({"datasets/d.yaml": TYPO_DATASET, "rubrics/tone.yaml": BAD_RUBRIC})
    (root / ".evallint.toml").write_text("")
    _, out, _ = run("check", "..", cwd=root / "datasets")
    assert out.splitlines()[:2] == [
        "d.yaml:4:5: error: unknown key 'expecteed_facts'; did you mean 'expected_facts'? "
        "[key-typo] [*]",
        "../rubrics/tone.yaml:2:10: error: 1.0 is read by YAML as the number 1.0, not as text; "
        'write it as text: "1.0.0" [yaml-implicit-type] [*]',
    ]
    _, out, _ = run("check", "..", "--format", "json", cwd=root / "datasets")
    assert [d["path"] for d in json.loads(out)["diagnostics"]] == [
        "datasets/d.yaml",
        "rubrics/tone.yaml",
    ]


README_TREE: dict[str, str | bytes] = {
    "datasets/refunds.yaml": 'questions:\n  - id: q1\n    input: "How long do refunds take?"\n'
    '    expecteed_facts: ["within 30 days"]\n',
    "rubrics/tone.yaml": "id: tone\nversion: 1.10\nchecks:\n  - kind: must_contain\n"
    "    id: polite\n    values: [please]\nscoring: {combine: all_pass, treshold: 0.7}\n",
}


def test_the_readmes_console_example_is_what_evallint_prints(run: Run, tree: Tree) -> None:
    """The README's first example is real output, and it fails the check (exit 1) by default."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```console\n\$ evallint check\n(.*?)```", readme, re.S)
    assert block is not None
    root = tree(README_TREE)
    code, out, _ = run("check", "--no-show-source", cwd=root)
    assert code == 1
    timing = re.compile(r"\(\d+\.\d\d s\)$")
    shown = [timing.sub("", line) for line in block.group(1).splitlines()]
    assert [timing.sub("", line) for line in out.splitlines()] == shown
