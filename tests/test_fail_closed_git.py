"""Every route crossed with every hostile payload, in diff mode on a real git repository and
through the real pre-commit hook: exactly one parse-error per file, at its line and column."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import REPO, gate_or_skip
from test_fail_closed import JSON_PAYLOADS, JSON_ROUTES, YAML_PAYLOADS, YAML_ROUTES
from test_git import Repo

Run = Callable[..., tuple[int, str, str]]
# The configuration the payload table assumes (test_fail_closed.CONFIG), as a project writes it.
CONFIG = 'max-file-size = 262144\n\n[kinds]\njudge = ["graders/*.yaml"]\n'


def _groups() -> list[tuple[str, dict[str, tuple[bytes, tuple[int, int]]]]]:
    """One payload at a time across every route: path -> (bytes, where the error is)."""
    out = []
    for name in YAML_PAYLOADS.keys() | JSON_PAYLOADS.keys():
        files = {}
        for routes, payloads in ((YAML_ROUTES, YAML_PAYLOADS), (JSON_ROUTES, JSON_PAYLOADS)):
            if name not in payloads:
                continue
            body, (line, col) = payloads[name]
            for path, head in routes.values():
                at = (1, 1) if line == -1 else (head.count("\n") + line, col)
                files[path] = (head.encode() + body, at)
        out.append((name, files))
    return sorted(out)


GROUPS = _groups()


def _expected(files: dict[str, tuple[bytes, tuple[int, int]]]) -> list[str]:
    return sorted(f"{path}:{line}:{col}: error:" for path, (_, (line, col)) in files.items())


def _errors(out: str) -> list[str]:
    return sorted(
        line.split(" error:")[0] + " error:" for line in out.splitlines() if ": error: " in line
    )


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    root = tmp_path / "repo"
    r = Repo(root)
    r.commit({"README.md": "x\n", ".evallint.toml": CONFIG}, "base")
    r.git("checkout", "-qb", "feature")
    return r


def _store(r: Repo, files: dict[str, tuple[bytes, tuple[int, int]]]) -> None:
    for rel, (raw, _) in files.items():
        path = r.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(raw)
    r.git("add", "-A")
    r.git("commit", "-qm", "payload")


@pytest.mark.parametrize(("name", "files"), GROUPS, ids=[g[0] for g in GROUPS])
def test_diff_mode_gives_one_parse_error_per_file(
    name: str, files: dict[str, tuple[bytes, tuple[int, int]]], repo: Repo, run: Run
) -> None:
    _store(repo, files)
    code, out, _ = run("check", "--diff", "main", cwd=repo.root)
    assert code == 1
    assert _errors(out) == _expected(files)
    assert all("[parse-error]" in line for line in out.splitlines() if ": error: " in line)


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout as a committed repository, so pre-commit installs the hook once."""
    if shutil.which("pre-commit") is None:
        gate_or_skip("pre-commit is not installed here (the test extra installs it)")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    copy = tmp_path_factory.mktemp("hook-repo")
    for rel in filter(None, listed.split("\0")):
        if (REPO / rel).is_file():
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, copy / rel)
    Repo(copy).commit({}, "the hook")
    return copy


def _pre_commit(
    hook_repo: Path, root: Path, home: Path, files: dict[str, bytes]
) -> subprocess.CompletedProcess[str]:
    """`pre-commit run` on staged files, as a project sets it up (try-repo would reinstall the
    hook for each run; the try-repo route itself is tested in test_action)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env["PRE_COMMIT_HOME"] = str(home)
    rev = Repo(hook_repo).git("rev-parse", "HEAD").strip()
    hooks = f"repos:\n  - repo: {hook_repo}\n    rev: {rev}\n    hooks:\n      - id: evallint\n"
    r = Repo(root)
    r.commit({".evallint.toml": CONFIG, ".pre-commit-config.yaml": hooks}, "base")
    for rel, raw in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(raw)
    r.git("add", "-A")  # staged, as at `git commit`
    return subprocess.run(
        [shutil.which("pre-commit") or "pre-commit", "run", "--verbose"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_pre_commit_gives_one_parse_error_per_file(
    hook_repo: Path, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    home = tmp_path_factory.getbasetemp() / "pre-commit-home"
    for name, files in GROUPS:
        root = tmp_path / name.replace(" ", "-")
        proc = _pre_commit(hook_repo, root, home, {p: raw for p, (raw, _) in files.items()})
        assert proc.returncode == 1, (name, proc.stdout + proc.stderr)
        assert _errors(proc.stdout) == _expected(files), name


def test_pre_commit_passes_a_jsonl_file_holding_a_nul_byte(
    hook_repo: Path, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # identify tags such a file `binary`; the hook must still hand it to evallint.
    path = "data/c/d/m/c8ab4e94-d8e8-417f-be18-fececf3c815c_samples.jsonl"
    raw = b'{"schema_version": "0.2.0", "a": "a\x00b"}\n'
    home = tmp_path_factory.getbasetemp() / "pre-commit-home"
    proc = _pre_commit(hook_repo, tmp_path / "nul", home, {path: raw})
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (
        f"{path}:1:36: error: invalid JSON: invalid control character U+0000 inside a string "
        "(escape it) [parse-error]"
    ) in proc.stdout
