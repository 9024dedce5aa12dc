"""The Python API as a harness calls it: `evallint.check(paths) -> Report`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import evallint
from evallint.api import Config, EvallintError, Report
from evallint.records import FrozenRecordError

RUBRIC = (
    "id: tone\nversion: 1.10\nchecks: [{kind: php_lint, id: lint}]\nscoring: {combine: all_pass}\n"
)


def _project(tmp_path: Path) -> Path:
    (tmp_path / "rubrics").mkdir()
    (tmp_path / "rubrics" / "tone.yaml").write_text(RUBRIC)
    return tmp_path


def test_check_returns_a_frozen_report_with_every_finding(tmp_path: Path) -> None:
    root = _project(tmp_path)
    report = evallint.check([root])  # outside git, the project is the folder named
    assert isinstance(report, Report) and report.files_checked == 1
    assert [(d.path, d.span.line, d.span.column, d.rule) for d in report.diagnostics] == [
        ("rubrics/tone.yaml", 2, 10, "yaml-implicit-type")
    ]
    assert report.exit_code(strict=False) == 1
    with pytest.raises(FrozenRecordError):
        report.files_checked = 0  # type: ignore[misc]


def test_a_configuration_can_be_given_and_relative_paths_start_at_cwd(tmp_path: Path) -> None:
    root = _project(tmp_path)
    quiet = Config(severities={"yaml-implicit-type": "off"})
    assert evallint.check(["rubrics"], config=quiet, cwd=root).diagnostics == ()


def test_what_the_command_exits_2_for_is_an_exception(tmp_path: Path) -> None:
    with pytest.raises(EvallintError, match="no such file or directory: 'missing'"):
        evallint.check(["missing"], cwd=tmp_path)


def test_importing_evallint_does_not_import_the_engine() -> None:
    code = "import sys, evallint; print(any(m.startswith('evallint.engine') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_package_says_it_is_typed() -> None:
    """PEP 561: a harness that type-checks its calls of `evallint.check` sees our hints."""
    assert (Path(evallint.__file__).parent / "py.typed").is_file()
