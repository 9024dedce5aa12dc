"""The daily experience: source frames, colour, statistics, quiet and exit-zero runs, one
rule's page, and usage errors that show the command's own usage."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import REPO
from evallint.cli.checking import _color
from evallint.model import Diagnostic, Report, Severity, Span
from evallint.output.text import render_text

Run = Callable[..., tuple[int, str, str]]
Tree = Callable[[dict[str, str | bytes]], Path]
GOLDEN = REPO / "tests" / "golden"

RUBRIC = (
    "id: tone\nversion: 1.10\nchecks:\n  - {kind: must_contain_any, id: polite, values: [please]}\n"
    "scoring: {combine: all_pass, treshold: 0.7}\n"
)


def _report() -> Report:
    return Report(
        (
            Diagnostic(
                "rubrics/tone.yaml",
                Span(2, 10, 2, 14),
                "yaml-implicit-type",
                Severity.ERROR,
                '1.10 is read by YAML as the number 1.1, not as text; quote it: "1.10"',
                source="version: 1.10",
            ),
            Diagnostic(
                "rubrics/tone.yaml",
                Span(5, 30, 5, 38),
                "unknown-key",
                Severity.ERROR,
                "unknown key 'treshold'; did you mean 'threshold'?",
                source="scoring: {combine: all_pass, treshold: 0.7}",
            ),
            Diagnostic(
                "datasets/refunds.yaml",
                Span(4, 2, 4, 17),
                "key-typo",
                Severity.WARNING,
                "unknown key 'expecteed_facts'; did you mean 'expected_facts'?",
                source="\texpecteed_facts: [a]",
            ),
        ),
        2,
        0.11,
    )


@pytest.mark.parametrize(("color", "golden"), [(False, "frames.text"), (True, "frames.color.text")])
def test_source_frames_with_and_without_colour(color: bool, golden: str) -> None:
    got = render_text(_report(), show_source=True, color=color)
    assert got == (GOLDEN / golden).read_text(encoding="utf-8")


def test_statistics_count_per_rule_most_first() -> None:
    report = _report()
    capped = Report((*report.diagnostics, report.diagnostics[2]), 2, 0.11)
    assert render_text(capped, statistics=True).splitlines() == [
        "2  warning  key-typo",
        "1  error    unknown-key",
        "1  error    yaml-implicit-type",
        "2 files checked: 2 errors, 2 warnings in 2 files (0.11 s)",
    ]


def test_quiet_prints_the_findings_alone() -> None:
    lines = render_text(_report(), quiet=True).splitlines()
    assert len(lines) == 3 and all(line.endswith("]") for line in lines)
    assert render_text(Report((), 3), quiet=True) == ""


def test_colour_follows_no_color_force_color_and_the_terminal() -> None:
    assert _color({}, terminal=True) and not _color({}, terminal=False)
    assert not _color({"NO_COLOR": "1"}, terminal=True)
    assert _color({"FORCE_COLOR": "1"}, terminal=False)
    assert not _color({"NO_COLOR": "1", "FORCE_COLOR": "1"}, terminal=True)


def test_check_flags_end_to_end(run: Run, tree: Tree) -> None:
    root = tree({"rubrics/tone.yaml": RUBRIC})
    code, out, _ = run("check", "--show-source", cwd=root)
    assert code == 1
    assert "2 | version: 1.10\n  |          ^^^^\n" in out
    code, out, _ = run("check", "--exit-zero", "--quiet", cwd=root)
    assert code == 0 and "files checked" not in out and out.count("\n") == 2
    code, out, _ = run("check", "--statistics", cwd=root)
    assert out.splitlines()[0] == "1  error    unknown-key [*]"
    code, out, _ = run("check", "--format", "json", "--show-source", cwd=root)
    assert "^" not in out and json.loads(out)["files_checked"] == 1


def test_an_unknown_option_shows_the_commands_own_usage(run: Run, tree: Tree) -> None:
    code, out, err = run("check", "--fixx", cwd=tree({}))
    assert code == 2 and out == ""
    assert err.startswith("usage: evallint check ")
    assert err.rstrip().endswith("evallint check: error: unrecognized arguments: --fixx")


def test_one_rules_page_and_a_suggestion_for_an_unknown_id(run: Run, tree: Tree) -> None:
    code, out, _ = run("rule", "key-typo", cwd=tree({}))
    assert code == 0
    assert out.startswith("key-typo (error; all kinds, but promptfoo)\n    An unknown key is close")
    assert "Default severity: error." in out and "Fixable: yes (`evallint check --fix`)." in out
    code, out, _ = run("rule", "version-not-bumped", cwd=tree({}))
    assert "Fixable: yes (`evallint check --fix` or `evallint bump`)." in out
    code, out, err = run("rule", "key-typp", cwd=tree({}))
    assert (code, out) == (2, "")
    assert err == "evallint: error: no rule 'key-typp'; did you mean 'key-typo'?\n"


def test_per_file_ignores_silence_rules_by_glob(run: Run, tree: Tree) -> None:
    config = (
        '[tool.evallint.per-file-ignores]\n"legacy/**" = ["unknown-key", "yaml-implicit-type"]\n'
    )
    root = tree(
        {"pyproject.toml": config, "legacy/rubrics/tone.yaml": RUBRIC, "rubrics/tone.yaml": RUBRIC}
    )
    code, out, _ = run("check", "--format", "json", cwd=root)
    found = {(d["path"], d["rule"]) for d in json.loads(out)["diagnostics"]}
    assert found == {
        ("rubrics/tone.yaml", "unknown-key"),
        ("rubrics/tone.yaml", "yaml-implicit-type"),
    }
    bad = '[tool.evallint.per-file-ignores]\n"x/**" = ["key-typ", "parse-error"]\n'
    code, out, err = run("check", cwd=tree({"pyproject.toml": bad}))
    assert code == 2
    assert err == (
        "evallint: error: invalid configuration in pyproject.toml: per-file-ignores.x/**: "
        "unknown rule 'key-typ'; did you mean 'key-typo'?; per-file-ignores.x/**: parse-error "
        "cannot be ignored\n"
    )


def test_a_rule_id_at_the_top_level_of_the_configuration_belongs_under_rules(
    run: Run, tree: Tree
) -> None:
    code, _, err = run("check", cwd=tree({".evallint.toml": 'key-typo = "error"\n'}))
    assert code == 2
    assert "unknown key 'key-typo'; did you mean [rules] key-typo = ...?" in err


def test_the_summary_counts_the_files_with_findings_also_outside_the_run() -> None:
    """One rubric changed breaks a dataset elsewhere: one file checked, two with findings."""
    first = _report().diagnostics[0]
    other = Diagnostic("datasets/d.yaml", Span(3, 5, 3, 9), "unknown-ref", Severity.ERROR, "x")
    text = render_text(Report((first, other), 1, 0.5))
    assert text.splitlines()[-1] == "1 file checked: 2 errors in 2 files (0.50 s)"


def test_the_project_is_the_one_that_holds_the_checked_path(
    run: Run, tree: Tree, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Whatever the current folder: its configuration, and the files references resolve
    against, are the checked path's project's."""
    import subprocess

    root = tree(
        {
            ".evallint.toml": '[rules]\nunknown-key = "off"\n',
            "rubrics/tone.yaml": RUBRIC,
            "examples/rubrics/other.yaml": RUBRIC.replace("tone", "other"),
        }
    )
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    _, out, _ = run("check", "--format", "json", str(root / "examples"), cwd=elsewhere)
    outside_git = {(d["path"], d["rule"]) for d in json.loads(out)["diagnostics"]}
    assert outside_git == {
        ("rubrics/other.yaml", "yaml-implicit-type"),
        ("rubrics/other.yaml", "unknown-key"),
    }
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    _code, out, _ = run("check", "--format", "json", str(root / "examples"), cwd=elsewhere)
    in_git = {(d["path"], d["rule"]) for d in json.loads(out)["diagnostics"]}
    assert in_git == {("examples/rubrics/other.yaml", "yaml-implicit-type")}


def test_a_walk_outside_git_skips_dependencies_caches_and_environments(
    run: Run, tree: Tree
) -> None:
    files = {
        f"{folder}/rubrics/tone.yaml": RUBRIC
        for folder in ("node_modules/pkg", "__pycache__", "build", "dist", ".tox", "env", "ok")
    }
    root = tree({**files, "env/pyvenv.cfg": "home = /usr\n"})
    _, out, _ = run("check", "--format", "json", cwd=root)
    assert {d["path"].split("/")[0] for d in json.loads(out)["diagnostics"]} == {"ok"}
    (root / ".evallint.toml").write_text('skip-folders = ["ok"]\n')
    _code, out, _ = run("check", "--format", "json", cwd=root)
    assert {d["path"].split("/")[0] for d in json.loads(out)["diagnostics"]} == {
        "node_modules",
        "__pycache__",
        "build",
        "dist",
    }


def test_the_step_summary_shows_file_controlled_text_as_text() -> None:
    """A message naming `rubric/<id>` keeps `<id>`; a file named with HTML, Markdown or a
    backtick is shown as written, not rendered."""
    from evallint.output.github import render_summary

    messages = Diagnostic(
        "rubrics/<b>bold</b>.yaml",
        Span(3, 1, 3, 2),
        "unknown-ref",
        Severity.ERROR,
        "no rubric with id 'tone'; write rubric/<id>@1 | see [docs](x)",
    )
    tick = Diagnostic("rubrics/a`b.yaml", Span(1, 1, 1, 2), "parse-error", Severity.ERROR, "x")
    text = render_summary(Report((messages, tick), 2, notes=("compared with <i>main</i>",)), {})
    assert "| `rubrics/<b>bold</b>.yaml:3` | error | `unknown-ref` |" in text
    assert "write rubric/\\<id\\>@1 \\| see \\[docs\\]\\(x\\)" in text
    assert "| `` rubrics/a`b.yaml:1 `` |" in text
    assert "> compared with \\<i\\>main\\</i\\>" in text
    # A `|` in a file name would split the table's cells, even inside a code span.
    pipes = Diagnostic("rubrics/a|b``c.yaml", Span(1, 1, 1, 2), "parse-error", Severity.ERROR, "x")
    table = render_summary(Report((pipes,), 1), {}).splitlines()[-1]
    assert table == "| ``` rubrics/a\\|b``c.yaml:1 ``` | error | `parse-error` | x |"


def test_summary_links_point_at_the_pull_requests_head(
    run: Run, tree: Tree, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    head = "a" * 40
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"head": {"sha": head}}}))
    summary = tmp_path / "summary.md"
    for name, value in {
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": "acme/evals",
        "GITHUB_SHA": "b" * 40,  # the temporary merge commit
    }.items():
        monkeypatch.setenv(name, value)
    code, _, _ = run("check", "--format", "github", cwd=tree({"rubrics/tone.yaml": RUBRIC}))
    assert code == 1
    assert f"https://github.com/acme/evals/blob/{head}/rubrics/tone.yaml#L2" in summary.read_text()
    assert "b" * 40 not in summary.read_text()


def test_bash_completion_offers_commands_and_each_commands_options(tmp_path: Path) -> None:
    import shutil
    import subprocess

    from evallint.cli.completion import render
    from evallint.cli.parser import build_parser

    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    script = tmp_path / "evallint.bash"
    script.write_text(render("bash", build_parser()))

    def offered(*words: str) -> list[str]:
        probe = (
            f"source {script}; COMP_WORDS=(evallint {' '.join(words)}); "
            f"COMP_CWORD={len(words)}; _evallint; printf '%s\\n' \"${{COMPREPLY[@]}}\""
        )
        done = subprocess.run([bash, "-c", probe], capture_output=True, text=True, check=True)
        return done.stdout.split()

    assert offered("ch") == ["check"]
    assert offered("check", "--exit") == ["--exit-zero"]
    assert "--update-refs" in offered("bump", "--") and "--update-refs" not in offered(
        "check", "--"
    )


def test_fish_and_zsh_completion_name_every_command() -> None:
    from evallint.cli.completion import render
    from evallint.cli.parser import build_parser

    fish = render("fish", build_parser())
    assert "complete -c evallint -n __fish_use_subcommand -a rule -d " in fish
    assert "complete -c evallint -n '__fish_seen_subcommand_from check' -l statistics" in fish
    assert render("zsh", build_parser()).startswith("autoload -U +X bashcompinit && bashcompinit\n")


FIXABLE = {
    "rubrics/tone.yaml": (
        "id: tone\nversion: 1.10  # keep me\nchecks: [{kind: php_lint, id: lint}]\n"
        "scoring: {combine: all_pass}\n",
        'id: tone\nversion: "1.10.0"  # keep me\nchecks: [{kind: php_lint, id: lint}]\n'
        "scoring: {combine: all_pass}\n",
    ),
    "datasets/d.yaml": (
        "questions:\n  - id: q1\n    input: hi\n    expecteed_facts: [a]  # note\n",
        "questions:\n  - id: q1\n    input: hi\n    expected_facts: [a]  # note\n",
    ),
    "datasets/d.json": (
        '{\n  "questions": [{"id": "q1", "input": "hello", "expecteed_facts": ["a"]}]\n}\n',
        '{\n  "questions": [{"id": "q1", "input": "hello", "expected_facts": ["a"]}]\n}\n',
    ),
}
CLEAN = "questions:\n  - id: q2\n    input: 'yes'\n    expected_facts: [b]\n"


def test_fix_changes_only_the_bytes_at_fault_and_the_rules_then_pass(run: Run, tree: Tree) -> None:
    root = tree({**{p: before for p, (before, _) in FIXABLE.items()}, "datasets/clean.yaml": CLEAN})
    stamp = (root / "datasets/clean.yaml").stat().st_mtime_ns
    code, out, _ = run("check", "--fix", "--format", "json", cwd=root)
    for path, (_, after) in FIXABLE.items():
        assert (root / path).read_text() == after, path
    assert (root / "datasets/clean.yaml").stat().st_mtime_ns == stamp  # never touched
    left = json.loads(out)
    assert left["notes"] == ["fixed 3 findings in 3 files"]
    assert left["diagnostics"] == []  # "1.10.0", not "1.10", which is no semantic version
    assert code == 0


def test_show_fixes_prints_the_diff_and_writes_nothing(run: Run, tree: Tree) -> None:
    before, _ = FIXABLE["datasets/d.yaml"]
    root = tree({"datasets/d.yaml": before})
    code, out, _ = run("check", "--show-fixes", cwd=root)
    assert (root / "datasets/d.yaml").read_text() == before
    assert out.startswith(
        "--- a/datasets/d.yaml\n+++ b/datasets/d.yaml\n@@ -1,4 +1,4 @@\n questions:\n"
    )
    assert "-    expecteed_facts: [a]  # note\n+    expected_facts: [a]  # note\n" in out
    assert code == 1  # the misspelt key is still there: --show-fixes writes nothing


def test_a_misspelt_key_whose_target_is_there_is_not_renamed(run: Run, tree: Tree) -> None:
    text = (
        "questions:\n  - id: q1\n    input: hi\n    expected_facts: [a]\n    expected_fact: [b]\n"
    )
    root = tree({"datasets/d.yaml": text})
    run("check", "--fix", cwd=root)
    assert (root / "datasets/d.yaml").read_text() == text


def test_show_fixes_keeps_a_machine_format_stdout_clean(run: Run, tree: Tree) -> None:
    before, _ = FIXABLE["datasets/d.yaml"]
    root = tree({"datasets/d.yaml": before})
    code, out, err = run("check", "--show-fixes", "--format", "json", cwd=root)
    assert (code, out) == (2, "")
    assert err == (
        "evallint: error: --show-fixes prints a diff on stdout, which --format json needs for "
        "itself: add --output FILE\n"
    )
    code, out, _ = run("check", "--show-fixes", "--format", "json", "--output", "r.json", cwd=root)
    assert out.startswith("--- a/datasets/d.yaml") and json.loads((root / "r.json").read_text())


# Plain values YAML 1.1 may type (and two it may not), and places a value may stand in.
TRAPS = ["yes", "No", "on", "OFF", "1.10", "12", "0x1F", "017", "12:30", "1_000", "+1", ".inf"]
TRAPS += ["-.Inf", ".NaN", "true", "NULL", "null", "~", "", "2026-01-31", "1e3", "plain text"]
SPOTS = [
    "questions:\n  - id: q1\n    input: {v}\n",
    "questions:\n  - id: q1\n    input: {v}  # a note\n",
    "questions:\n  - {{id: q1, input: {v}}}\n",
    "questions:\n  - id: q1\n    input: &a {v}\n    criteria: *a\n",
    "questions:\n  - id: q1\n    input:\n      {v}\n",
]


@given(st.sampled_from(TRAPS), st.sampled_from(SPOTS))
@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_fix_never_breaks_a_file_and_keeps_the_text_as_written(
    run: Run, value: str, spot: str
) -> None:
    """`--fix` quotes a value YAML typed, so it reads as the text written; the file still
    parses, nothing is left for the rule, and a second `--fix` changes nothing."""
    import tempfile

    import yaml

    original = spot.format(v=value)
    try:
        yaml.safe_load(original)
    except yaml.YAMLError:
        assume(False)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "datasets" / "d.yaml"
        path.parent.mkdir()
        path.write_text(original)
        _, out, _ = run("check", "--fix", "--format", "json", cwd=Path(tmp))
        fixed = path.read_text()
        question = yaml.safe_load(fixed)["questions"][0]
        left = {d["rule"] for d in json.loads(out)["diagnostics"]}
        assert not left & {"parse-error", "yaml-implicit-type"}, (fixed, left)
        if fixed != original:
            assert question["input"] == value, fixed
        run("check", "--fix", cwd=Path(tmp))
        assert path.read_text() == fixed


VERSIONED_FILES = {
    "rubrics/r.yaml": "id: r\nversion: {v}\nchecks: [{{kind: php_lint, id: lint}}]\n"
    "scoring: {{combine: all_pass}}\n",
    "judges/j.yaml": 'id: j\nversion: {v}\ntemplate: "Score {{{{ output }}}}"\n',
    "datasets/d.yaml": "id: d\nversion: {v}\nquestions:\n  - id: q1\n    input: hi\n"
    "    expecteed_facts: [x]\n",
}


@given(
    st.sampled_from(sorted(VERSIONED_FILES)),
    st.sampled_from(["1", "1.10", "2.0", "0.9", "10", "1.2.3", "yes"]),
)
@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_fix_introduces_no_finding_of_its_own(run: Run, path: str, value: str) -> None:
    """Whatever `--fix` writes is valid where it is written: every finding after the fix was
    there before it (`version: 1.10` becomes "1.10.0", not "1.10", which is no version)."""
    import tempfile

    text = VERSIONED_FILES[path].format(v=value)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / path).parent.mkdir()
        (Path(tmp) / path).write_text(text)
        _, out, _ = run("check", "--format", "json", cwd=Path(tmp))
        before = {(d["rule"], d["path"]) for d in json.loads(out)["diagnostics"]}
        _, out, _ = run("check", "--fix", "--format", "json", cwd=Path(tmp))
        after = {(d["rule"], d["path"]) for d in json.loads(out)["diagnostics"]}
        assert after <= before, ((Path(tmp) / path).read_text(), before, after)
        assert ("key-typo", "datasets/d.yaml") not in after


def test_a_single_close_name_is_renamed_by_fix_and_a_choice_is_left_to_a_person(
    run: Run, tree: Tree
) -> None:
    """unknown-key and unknown-grader-type with one name a single slip away get the rename fix
    (marked [*]); `tr` is a slip from both `tpr` and `tnr`, so no fix guesses."""
    rubric = (
        'id: tone\nversion: "1.0.0"\nchecks: [{kind: php_lint, id: lint}]\n'
        "scoring: {combine: all_pass, treshold: 0.7}\n"
    )
    suite = (
        "tests:\n  - id: w\n    criteria: c\n    input: hi\n    assertions:\n"
        '      - type: contains-anyy\n        value: ["30 days"]\n'
    )
    judge = (
        'id: j\nversion: "1.0.0"\ntemplate: "{{ output }}"\n'
        "validation: {tr: 0.9, validated_at: 2026-01-01}\n"
    )
    root = tree({"rubrics/tone.yaml": rubric, "evals/r.eval.yaml": suite, "judges/j.yaml": judge})
    _, out, _ = run("check", "--no-show-source", "--today", "2026-01-02", cwd=root)
    assert out.splitlines()[:3] == [
        "evals/r.eval.yaml:6:15: warning: unknown grader type 'contains-anyy'; did you mean "
        "'contains-any'? [unknown-grader-type] [*]",
        "judges/j.yaml:4:14: error: unknown key 'tr'; did you mean 'tpr'? [unknown-key]",
        "rubrics/tone.yaml:4:30: error: unknown key 'treshold'; did you mean 'threshold'? "
        "[unknown-key] [*]",
    ]
    run("check", "--fix", cwd=root)
    assert (root / "rubrics/tone.yaml").read_text() == rubric.replace("treshold", "threshold")
    assert (root / "evals/r.eval.yaml").read_text() == suite.replace("anyy", "any")
    assert (root / "judges/j.yaml").read_text() == judge
