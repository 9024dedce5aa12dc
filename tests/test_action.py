"""The GitHub Action and the pre-commit hooks, run for real."""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import yaml

from conftest import REPO, gate_or_skip
from test_git import DATASET, RUBRIC, Repo

ACTION = yaml.safe_load((REPO / "action.yml").read_text())


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        gate_or_skip(f"{name} is not installed here (the test extra installs it on Linux x86_64)")
    return found


def test_actionlint_passes() -> None:
    files = [".github/workflows/selftest.yml", "examples/workflows/evallint.yml"]
    proc = subprocess.run([_tool("actionlint"), *files], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_zizmor_passes() -> None:
    """With zizmor's default policy, as users run it on the workflow they copy: the example pins
    evallint by a full commit SHA."""
    files = ["action.yml", ".github/workflows/selftest.yml", "examples/workflows/evallint.yml"]
    proc = subprocess.run(
        [_tool("zizmor"), "--offline", "--no-config", *files],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_inputs_reach_scripts_only_through_env() -> None:
    for step in ACTION["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), f"expression inside run: in {step['name']!r}"
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", name) for name in ACTION["inputs"])


def _evaluate(value: str, inputs: dict[str, str], event: dict[str, Any]) -> str:
    def one(m: re.Match[str]) -> str:
        expr = m.group(1).strip()
        if expr.startswith("inputs."):
            return inputs[expr.removeprefix("inputs.")]
        if expr == "github.action_path":
            return str(REPO)
        if expr == "github.event.pull_request.base.sha":
            return str(event["pull_request"]["base"]["sha"])
        raise AssertionError(f"expression the simulation does not know: {expr}")

    return re.sub(r"\$\{\{(.*?)\}\}", one, value)


def run_action(
    root: Path, tmp: Path, event: dict[str, Any], given: dict[str, str]
) -> tuple[int, str, Path, Path]:
    """Each `run:` step of action.yml, as a runner would (installing is skipped: evallint is
    installed in this environment already)."""
    event_file, summary, output = tmp / "event.json", tmp / "summary.md", tmp / "output"
    event_file.write_text(json.dumps(event))
    inputs = {
        name: _evaluate(str(spec.get("default", "")), {}, event)
        for name, spec in ACTION["inputs"].items()
    } | given
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GIT_"))}
    base_env |= {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event_file),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_SHA": "f00dfeed",
        "GITHUB_REPOSITORY": "acme/evals",
        "GITHUB_SERVER_URL": "https://github.com",
    }
    code, out = 0, ""
    for step in ACTION["runs"]["steps"]:
        if "run" not in step or step["name"] == "Install evallint":
            continue
        if step.get("if") == "inputs.diff-base != ''" and not inputs["diff-base"]:
            continue
        env = base_env | {
            k: _evaluate(str(v), inputs, event) for k, v in step.get("env", {}).items()
        }
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
        )
        code, out = proc.returncode, out + proc.stdout
        if code:
            break
    return code, out, summary, output


def test_action_on_a_pull_request(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    repo = Repo(root)
    base = repo.commit({"rubrics/refunds.yaml": RUBRIC, "datasets/d.yaml": DATASET})
    repo.git("checkout", "-qb", "feature")
    repo.commit(
        {
            "rubrics/refunds.yaml": RUBRIC.replace("all_pass", "min"),
            "datasets/d.yaml": DATASET + "    metdata: {source: support}\n",
        }
    )
    event = {"pull_request": {"base": {"sha": base}, "head": {"sha": "feature"}}}
    code, out, summary, output = run_action(root, tmp_path, event, {})
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"::notice::compared with {base} (merge base {base[:10]})"
    assert lines[1].startswith(
        "::error file=rubrics/refunds.yaml,line=13,col=12,endLine=13,"
        "endColumn=15,title=evallint [version-not-bumped]::"
    )
    assert lines[2].startswith("::warning file=datasets/d.yaml,line=5,col=5,")
    text = summary.read_text()
    assert text.startswith("## evallint\n") and "| `version-not-bumped` | error | 1 |" in text
    assert "(https://github.com/acme/evals/blob/f00dfeed/rubrics/refunds.yaml#L13)" in text
    assert output.read_text().splitlines() == [
        "error-count=1",
        "warning-count=1",
        "sarif-file=evallint.sarif",
    ]
    sarif = json.loads((root / "evallint.sarif").read_text())
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == [
        "prose-key-typo",
        "version-not-bumped",
    ]


def test_action_with_a_baseline_fails_only_on_new_findings(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    repo = Repo(root)
    typo = DATASET + "    expecteed_facts: [x]\n"
    repo.write({"rubrics/refunds.yaml": RUBRIC, "datasets/d.yaml": typo})
    proc = subprocess.run(
        ["evallint", "check", "--write-baseline", "accepted.json"], cwd=root, capture_output=True
    )
    assert proc.returncode == 0, proc.stderr
    base = repo.commit({})
    repo.git("checkout", "-qb", "feature")
    repo.commit({"datasets/d.yaml": typo.replace("expecteed_facts: [x]", "expecteed_facts: [y]")})
    event = {"pull_request": {"base": {"sha": base}, "head": {"sha": "feature"}}}
    code, out, _, _ = run_action(root, tmp_path, event, {"baseline": "accepted.json"})
    assert code == 1, out  # the edited line is a new finding
    repo.commit({"datasets/d.yaml": typo + '  - id: q2\n    input: "And exchanges?"\n'})
    code, out, _, _ = run_action(root, tmp_path, event, {"baseline": "accepted.json"})
    assert code == 0, out
    assert "::notice::1 finding accepted by the baseline accepted.json not shown" in out


def test_action_outside_pull_requests_checks_everything(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    Repo(root).commit({"rubrics/refunds.yaml": RUBRIC, "datasets/d.yaml": DATASET})
    code, out, _, output = run_action(
        root,
        tmp_path,
        {"pull_request": {"base": {"sha": ""}}},
        {"strict": "true", "sarif-file": ""},
    )
    assert code == 0, out
    assert out.splitlines()[-1].startswith("2 files checked: no problems")
    assert output.read_text().splitlines() == ["error-count=0", "warning-count=0"]


def _untracked_sources() -> list[str]:
    """Files of the package git does not track: `pre-commit try-repo` installs this checkout
    as git has it, so a module not yet added would be missing there (an import error that
    reads like a circular import)."""
    listed = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard", "--", "src", "pyproject.toml"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    return listed.stdout.split() if listed.returncode == 0 else []


_HOME: list[str] = []


def _pre_commit_home() -> str:
    """One pre-commit home for the session: try-repo of a clean checkout installs the hooks
    once (at HEAD's commit) and every test reuses them (20 s each, where each had its own)."""
    if not _HOME:
        _HOME.append(tempfile.mkdtemp(prefix="evallint-pre-commit-"))
        atexit.register(shutil.rmtree, _HOME[0], True)
    return _HOME[0]


def _pre_commit(root: Path, tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    untracked = _untracked_sources()
    assert not untracked, (
        f"git does not track {', '.join(untracked)}: pre-commit installs the checkout as git "
        "has it, so `git add` these first"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env["PRE_COMMIT_HOME"] = _pre_commit_home()
    return subprocess.run(
        [_tool("pre-commit"), "try-repo", str(REPO), *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_pre_commit_hooks(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    repo = Repo(root)
    repo.commit({"rubrics/refunds.yaml": RUBRIC, "datasets/d.yaml": DATASET})
    repo.write(
        {
            "datasets/e.yaml": DATASET + "    expecteed_facts: [x]\n",
            "rubrics/refunds.yaml": RUBRIC.replace("all_pass", "min"),
            "notes/plain.json": "{}",
            "data/samples.jsonl": '{"a": 1}\n',
        }
    )
    repo.git("add", "-A")
    typo = "datasets/e.yaml:5:5: error: unknown key 'expecteed_facts'"
    _hook_says(root, tmp_path, ["evallint", "--verbose"], 1, typo)
    _hook_says(
        root, tmp_path, ["evallint-versions"], 1, "compared with HEAD", "[version-not-bumped]"
    )


def test_pre_commit_hooks_on_a_repositorys_first_commit(tmp_path: Path) -> None:
    """No HEAD yet: every staged file is new, so the versions hook has nothing to compare and
    passes; the main hook still checks every staged file, whatever the case of its suffix."""
    root = tmp_path / "repo"
    repo = Repo(root)
    repo.write({"rubrics/refunds.yaml": RUBRIC, "rubrics/tone.YAML": "id: tone\nversion: 1.0\n"})
    repo.git("add", "-A")
    new = "compared with HEAD (no commit yet: every file is new)"
    _hook_says(root, tmp_path, ["evallint-versions", "--verbose"], 0, new)
    _hook_says(root, tmp_path, ["evallint"], 1, "rubrics/tone.YAML:2:10: error: 1.0 is read by")


def test_pre_commit_checks_a_change_to_a_file_eval_files_read(tmp_path: Path) -> None:
    """A commit that changes only a script a promptfoo config names reaches the hook (its
    `files` take the files eval files read), which checks the config that reads it."""
    root = tmp_path / "repo"
    repo = Repo(root)
    config = (
        'prompts: ["Answer: {{question}}"]\nproviders: [openai:gpt-4.1-mini]\ntests:\n'
        "  - vars: {question: How long do refunds take?}\n    assert:\n"
        "      - {type: python, value: 'file://checks.py:grade'}\n"
    )
    script = "def grade(output, context):\n    return True\n"
    repo.commit({"promptfooconfig.yaml": config, "checks.py": script})
    repo.write({"checks.py": script.replace("def grade(", "def grade_answer(")})
    repo.git("add", "-A")
    said = "promptfooconfig.yaml:6:31: error: file://checks.py:grade: checks.py defines no"
    _hook_says(root, tmp_path, ["evallint"], 1, said)


def _hook_says(root: Path, tmp: Path, args: list[str], code: int, *said: str) -> None:
    """A hook run through pre-commit exits with `code` and prints each of `said`."""
    proc = _pre_commit(root, tmp, *args)
    assert proc.returncode == code, proc.stdout + proc.stderr
    for text in said:
        assert text in proc.stdout, proc.stdout


VERSIONED_FILES = {
    # ai_eval: a rubric's threshold.
    "rubrics/refunds.yaml": (RUBRIC, ("all_pass", "min")),
    # lm-evaluation-harness: an extension-less template three tasks include.
    "tasks/demo/_template_yaml": (
        "dataset_path: d\noutput_type: generate_until\nnum_fewshot: 0\nmetadata:\n  version: 1.0\n",
        ("num_fewshot: 0", "num_fewshot: 3"),
    ),
    # promptfoo: a config that declares its version in `metadata.version`.
    "promptfooconfig.yaml": (
        'prompts: ["Answer: {{question}}"]\nproviders: [openai:gpt-4.1-mini]\n'
        "metadata: {version: 1.2.0}\ntests:\n  - vars: {question: How long?}\n"
        "    assert:\n      - {type: icontains, value: 30 days}\n",
        ("30 days", "thirty days"),
    ),
}


def test_the_versions_hook_runs_the_version_rules_of_every_format(tmp_path: Path) -> None:
    """Staged score changes without a bump, one per format: the hook blocks each; after
    `evallint bump` (against HEAD, as the hook compares) it passes."""
    root = tmp_path / "repo"
    repo = Repo(root)
    child = "include: _template_yaml\ntask: demo_{}\ndoc_to_text: q\n"
    repo.commit(
        {
            **{path: text for path, (text, _) in VERSIONED_FILES.items()},
            **{f"tasks/demo/{n}.yaml": child.format(n) for n in "ab"},
        }
    )
    repo.write({path: text.replace(*change) for path, (text, change) in VERSIONED_FILES.items()})
    repo.git("add", "-A")
    _hook_says(
        root,
        tmp_path,
        ["evallint-versions"],
        1,
        "rubrics/refunds.yaml:13:12:",
        "[version-not-bumped]",
        "tasks/demo/_template_yaml:3:1:",
        "[lm-eval-version-not-bumped]",
        "promptfooconfig.yaml:7:7:",
    )
    bumped = subprocess.run(
        ["evallint", "bump", "--diff", "HEAD"], cwd=root, capture_output=True, text=True
    )
    assert bumped.returncode == 0, bumped.stdout + bumped.stderr
    repo.git("add", "-A")
    _hook_says(root, tmp_path, ["evallint-versions"], 0)
