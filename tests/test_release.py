"""What a user installs and pins: the distribution's own name, its license, and an Action that
installs only its own code."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import REPO

# "evallint" on the package index is another project (an eval-dataset auditor with the same
# command and import names); installing it by that name installs a stranger's code.
NAME = "evallint-git"


def _project() -> dict[str, object]:
    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    project = data["project"]
    assert isinstance(project, dict)
    return project


def test_the_distribution_has_its_own_name() -> None:
    assert _project()["name"] == NAME


def test_every_install_instruction_names_this_distribution() -> None:
    """README, examples and the Action: no `pip install evallint` (the other project)."""
    texts = {
        p: p.read_text(encoding="utf-8")
        for p in [REPO / "README.md", REPO / "action.yml", *(REPO / "examples").rglob("*.y*ml")]
    }
    texts |= {p: p.read_text(encoding="utf-8") for p in (REPO / "docs").rglob("*.md")}
    for path, text in texts.items():
        for line in text.splitlines():
            if "pip install" in line and "evallint" in line:
                assert NAME in line or "'.[" in line or " . " in f"{line} ", (path, line)


def test_the_action_installs_only_its_own_code() -> None:
    """No input chooses a package by name: the Action installs the commit the workflow pinned."""
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    assert "version" not in action["inputs"]
    install = next(s for s in action["runs"]["steps"] if s["name"] == "Install evallint")
    assert '"$ACTION_PATH[fast]"' in install["run"]
    assert f"pip show --quiet {NAME}" in install["run"]


def test_the_wheel_carries_the_license(tmp_path: Path) -> None:
    assert (REPO / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path), "."],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("evallint_git-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA")))
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert b"\nName: evallint-git\n" in metadata and b"\nLicense-Expression: MIT\n" in metadata


def test_every_runtime_dependency_is_imported() -> None:
    """A dependency no module imports is only more code to trust on the runner."""
    modules = {"pyyaml": "yaml", "fastjsonschema": "fastjsonschema", "semver": "semver"}
    source = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "src").rglob("*.py"))
    requirements = _project()["dependencies"]
    assert isinstance(requirements, list)
    for requirement in requirements:
        name = re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower()
        module = modules.get(name)
        assert module is not None, f"{name}: which module does it give?"
        assert re.search(rf"^\s*(import|from) {module}\b", source, re.M), name


_PIN = re.compile(r"(?:evallint/evallint@|rev: |EVALLINT_REV: \")([0-9a-f]{40})\"? # v(\S+)")
PINNED_FILES = ["README.md", "examples/workflows/evallint.yml", "examples/gitlab/.gitlab-ci.yml"]


def _version() -> str:
    from evallint import __version__

    return __version__


def test_version_changelog_and_pins_agree(run: Any) -> None:
    """What `--version` prints, the newest CHANGELOG release and every pin in the README and the
    examples: one version, and the pins one full commit SHA (a tag can move; zizmor asks for
    SHAs)."""
    version = _version()
    code, out, _ = run("--version")
    assert (code, out) == (0, f"{NAME} {version}\n")
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    newest = re.search(r"^## (\d+\.\d+\.\d+) - \d{4}-\d{2}-\d{2}$", changelog, re.M)
    assert newest is not None and newest.group(1) == version
    pins = [
        (path, m.group(1), m.group(2))
        for path in PINNED_FILES
        for m in _PIN.finditer((REPO / path).read_text(encoding="utf-8"))
    ]
    assert {path for path, _, _ in pins} == set(PINNED_FILES), pins
    assert len({sha for _, sha, _ in pins}) == 1, pins
    assert {v for _, _, v in pins} == {version}, pins
    for path in PINNED_FILES:  # no tag or branch pin left behind
        text = (REPO / path).read_text(encoding="utf-8")
        assert not re.search(r"evallint/evallint@v\d|rev: v\d|PINNED", text), path


def test_the_pinned_commit_is_the_release(tmp_path: Path) -> None:
    """The SHA the README pins holds the version its comment names (when this clone has the
    history: a shallow clone or a source archive does not)."""
    sha = _PIN.search((REPO / "README.md").read_text(encoding="utf-8"))
    assert sha is not None
    proc = subprocess.run(
        ["git", "show", f"{sha.group(1)}:src/evallint/about.py"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        pytest.skip("the pinned commit is not in this clone's history (shallow, or no git)")
    assert f'__version__ = "{sha.group(2)}"' in proc.stdout


def test_the_readme_starts_with_what_a_new_user_needs() -> None:
    """The quick start (Action, pre-commit, command line) on the first screen; internals, long
    speed tables and design notes live in docs/."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    lines = readme.splitlines()
    start = lines.index("## Quick start")
    assert start < 40
    quick = "\n".join(lines[start : start + 45])
    assert "uses: evallint/evallint@" in quick and "id: evallint-versions" in quick
    assert "pip install" in quick
    assert len(readme.encode()) < 40_000
    for doc in ("checks.md", "speed.md", "design.md"):
        assert f"](docs/{doc})" in readme


# Each format the README's list names (in bold), and a kind that stands for it: a new format
# in the README needs its row here, and the pinned release must hold that kind.
FORMAT_KINDS = {
    "ai_eval": "rubric",
    "AgentV": "agentv-v4",
    "agentevals": "agentevals",
    "ai_best_practices": "abp-evals",
    "EEE": "eee-aggregate",
    "Hugging Face Hub": "hf-benchmark",
    "lm-evaluation-harness": "lm-eval-task",
    "promptfoo": "promptfoo",
    "OpenAI evals": "oaieval-evals",
}


def _first_screen() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    start = readme.index("## Quick start")
    return "\n".join(readme[: start + 45])


def test_the_pinned_release_holds_every_format_and_command_the_readme_names(
    tmp_path: Path,
) -> None:
    """What a team pins is what the README offers: the kinds and subcommands of the pinned
    commit, read from its own source (unpacked by git, imported in a separate interpreter)."""
    screen = _first_screen()
    listed = re.findall(r"^- \*\*([^*]+)\*\*(?: and \*\*([^*]+)\*\*)?:", screen, re.M)
    names = {n for pair in listed for n in pair if n}
    assert names == set(FORMAT_KINDS), names
    from evallint.cli.parser import SUBCOMMANDS

    # Every command the README shows anywhere (`evallint lsp` is far below the first screen).
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    commands = set(re.findall(r"\bevallint (\w+)", readme)) & set(SUBCOMMANDS)
    assert {"check", "bump", "init", "rules", "lsp"} <= commands
    sha = _PIN.search(screen)
    assert sha is not None
    archive = subprocess.run(
        ["git", "archive", "--format=tar", sha.group(1), "src"], cwd=REPO, capture_output=True
    )
    if archive.returncode != 0:
        pytest.skip("the pinned commit is not in this clone's history (shallow, or no git)")
    subprocess.run(["tar", "-x", "-C", str(tmp_path)], input=archive.stdout, check=True)
    code = (
        "import json; from evallint.kinds import KINDS; from evallint.cli.parser import "
        "SUBCOMMANDS; print(json.dumps([[k.name for k in KINDS], list(SUBCOMMANDS)]))"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, 'src'); {code}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    import json

    kinds, subcommands = json.loads(done.stdout)
    assert {FORMAT_KINDS[n] for n in names} <= set(kinds), kinds
    assert commands <= set(subcommands), subcommands
