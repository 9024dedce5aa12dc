"""Shared test helpers: lint text in memory, run the CLI in-process, find ../shared."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import NoReturn

import jsonschema
import pytest
from hypothesis import settings

from evallint.baseline import Baseline
from evallint.cli.main import main
from evallint.config import Config
from evallint.engine.run import lint
from evallint.io.gitout import Base, Change
from evallint.model import Diagnostic
from evallint.parse.positions import LineIndex
from evallint.project import Entry
from evallint.read import read_entry

REPO = Path(__file__).resolve().parent.parent
# The schema generators live in tools/ (not shipped); tests import them by plain name.
sys.path.insert(0, str(REPO / "tools"))
SHARED = REPO.parent / "shared"
# The commands the test extra installs (evallint, ruff, mypy, pre-commit, zizmor) are those
# beside the Python that runs the suite, whether or not its environment was activated.
os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])
# The suite runs on every core, beside other work in CI: a property's example may take several
# times its usual time, which says nothing of the property. Timing is measured by benchmarks/.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")


@pytest.fixture(autouse=True)
def _fast_json_from_the_first_byte(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process tests read small files: ask the fast JSON path of every one of them, as a
    large run does, so both paths stay exercised (the CLI in a subprocess takes the strict one
    for small files; test_fastjson checks the switch)."""
    from evallint.parse import jsonload

    monkeypatch.setattr(jsonload._Budget, "FAST_AFTER", 0)


class DictSource:
    """Files held in memory, for tests that need no disk and no git."""

    def __init__(self, files: Mapping[str, str | bytes]) -> None:
        self.files = {p: v.encode() if isinstance(v, str) else v for p, v in files.items()}

    def size(self, path: str) -> int:
        return len(self.read(path))

    def read(self, path: str) -> bytes:
        found = self.files.get(path)
        if found is None:  # as a file source says of a file it does not have
            raise FileNotFoundError(path)
        return found

    def outside(self, path: str) -> bool:
        """A file written as `# symlink -> TARGET` stands for a symlink (as the rule docs
        show one): it leads out of the project when its target does."""
        text = self.files.get(path, b"")
        if not text.startswith(b"# symlink -> "):
            return False
        target = text.split(b"->", 1)[1].strip().decode()
        joined = os.path.normpath(os.path.join(os.path.dirname(path), target))
        return os.path.isabs(target) or joined == ".." or joined.startswith("../")


def baseline_of(base: Mapping[str, str | bytes]) -> Baseline:
    """A baseline without git: each file of `base` is what that path held at the base."""
    source = DictSource(base)
    before = {}
    for path in base:
        entry = read_entry(path, source, Config())
        if isinstance(entry, Entry):
            before[path] = entry
    changes = tuple(Change("M", p, p) for p in sorted(base))
    return Baseline(Base("main", "0123456789abcdef0123456789abcdef01234567"), changes, before)


def lint_files(
    files: Mapping[str, str | bytes],
    config: Config | None = None,
    base: Mapping[str, str | bytes] | None = None,
) -> list[Diagnostic]:
    baseline = baseline_of(base) if base is not None else None
    # With a base, the files as it has them, as git gives them to a diff run.
    touched = frozenset(p for p in files if base is not None and base.get(p) != files[p])
    prior = (lambda paths: DictSource({p: base[p] for p in paths if p in base})) if base else None
    report = lint(
        sorted(files),
        DictSource(files),
        config or Config(),
        tree=sorted(files),
        baseline=baseline,
        touched=touched,
        prior=prior,
    )
    lines: dict[str, int] = {}
    for d in report.diagnostics:
        if d.path in files:
            if d.path not in lines:
                lines[d.path] = line_count(files[d.path])
            assert 1 <= d.span.line <= lines[d.path] and d.span.column >= 1, (d, lines[d.path])
    return list(report.diagnostics)


def line_count(content: str | bytes) -> int:
    """The lines a finding may be on: no finding lies outside its file's text (a place past
    the last line is a place no editor, GitHub annotation or SARIF viewer can show)."""
    text = content.decode("utf-8", "replace") if isinstance(content, bytes) else content
    return len(LineIndex(text, yaml=True).starts)


def found(
    path: str,
    text: str | bytes,
    config: Config | None = None,
    given: Mapping[str, str | bytes] | None = None,
) -> list[tuple[int, int, str, str]]:
    """(line, column, rule, message) of every diagnostic for one file (`given`: files beside it)."""
    files = {**(given or {}), path: text}
    return [
        (d.span.line, d.span.column, d.rule, d.text)
        for d in lint_files(files, config)
        if d.path == path
    ]


def spans(
    path: str, text: str | bytes, given: Mapping[str, str | bytes] | None = None
) -> list[tuple[int, int, int, int, str]]:
    files = {**(given or {}), path: text}
    return [
        (d.span.line, d.span.column, d.span.end_line, d.span.end_column, d.rule)
        for d in lint_files(files)
        if d.path == path
    ]


@pytest.fixture
def run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., tuple[int, str, str]]:
    """run(*argv, cwd=PATH) -> (exit code, stdout, stderr), through main() in this process."""

    def call(*argv: str, cwd: Path | None = None) -> tuple[int, str, str]:
        if cwd is not None:
            monkeypatch.chdir(cwd)
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return call


@pytest.fixture
def tree(tmp_path: Path) -> Callable[[Mapping[str, str | bytes]], Path]:
    """Write a folder of files (no git) and return its path."""

    def write(files: Mapping[str, str | bytes]) -> Path:
        for rel, content in files.items():
            path = tmp_path / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        return tmp_path

    return write


# CI sets it: there, a gate whose tool is missing (ruff, mypy, actionlint, zizmor, pre-commit,
# the `fast` extra, a wheel install) fails instead of skipping, since a gate that does not run
# passes in silence.
IN_CI = os.environ.get("EVALLINT_CI") == "1"


def gate_or_skip(reason: str) -> NoReturn:
    """A gate cannot run here: a failure in CI (`EVALLINT_CI=1`), else a skip with the reason."""
    if IN_CI:
        pytest.fail(f"{reason}, and CI must run this gate (EVALLINT_CI=1)")
    pytest.skip(reason, allow_module_level=True)


def import_or_gate(module: str, reason: str) -> None:
    """`pytest.importorskip`, as a gate."""
    try:
        __import__(module)
    except ImportError:
        gate_or_skip(reason)


def shared_or_skip(*parts: str) -> Path:
    if parts[:1] == ("corpus",) and os.environ.get("EVALLINT_CORPORA") == "0":
        pytest.skip(
            "EVALLINT_CORPORA=0: the corpus-wide runs are one stage of CI (.ci/run runs them "
            "in its first environment), not repeated in each"
        )
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(
            f"../shared/{'/'.join(parts)} is not beside this checkout: the shared "
            "reference data (real corpora, the OASIS SARIF schema) is not part of the "
            "project, so a fresh clone runs without it"
        )
    return path


def walk_files(root: Path) -> Iterator[Path]:
    for folder, _, files in os.walk(root):
        for name in sorted(files):
            yield Path(folder) / name


@pytest.fixture(scope="session")
def sarif_validator() -> jsonschema.Draft4Validator:
    schema = json.loads(shared_or_skip("sarif", "sarif-schema-2.1.0.json").read_text())
    return jsonschema.Draft4Validator(schema)


@pytest.fixture
def no_ci_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No CI or hook variables: they choose a diff's base before any argument does."""
    for name in ("GITHUB_BASE_REF", "PRE_COMMIT_FROM_REF", "PRE_COMMIT", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
