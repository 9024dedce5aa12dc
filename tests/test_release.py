"""What a user installs and pins: the distribution's own name, its license, and an Action that
installs only its own code."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

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
    import re

    modules = {"pyyaml": "yaml", "fastjsonschema": "fastjsonschema", "semver": "semver"}
    source = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "src").rglob("*.py"))
    requirements = _project()["dependencies"]
    assert isinstance(requirements, list)
    for requirement in requirements:
        name = re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower()
        module = modules.get(name)
        assert module is not None, f"{name}: which module does it give?"
        assert re.search(rf"^\s*(import|from) {module}\b", source, re.M), name
