"""The code itself: ruff and mypy clean, as part of the one test command."""

from __future__ import annotations

import shutil
import subprocess
import sys

from conftest import REPO, gate_or_skip


def _tool(name: str) -> list[str]:
    if shutil.which(name) is None:
        gate_or_skip(f"{name} is not installed (it comes with the test extra)")
    return [name]


def test_ruff_lint_and_format() -> None:
    ruff = _tool("ruff")
    for args in (["check", "src", "tests"], ["format", "--check", "src", "tests"]):
        proc = subprocess.run([*ruff, *args], cwd=REPO, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_strict() -> None:
    _tool("mypy")
    proc = subprocess.run([sys.executable, "-m", "mypy"], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
