"""What a one-file run (pre-commit's case) does not import, and the helpers that spare it."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from evallint import digests
from evallint.digests import sha1_hex, sha256_hex, text_sha256_hex

# Each costs a one-file run 1 to 10 ms and none is needed there: records are made without
# `dataclasses` (and so without `inspect`, `ast`, `dis`), rule docs are cleaned without
# `inspect`, fingerprints and the cache's name are hashed without OpenSSL's binding, and the
# schema engine is imported only for a file that fails its schema.
NOT_IMPORTED = ("dataclasses", "inspect", "ast", "dis", "hashlib", "_hashlib")


def _imported(root: Path, *args: str, watched: tuple[str, ...] = NOT_IMPORTED) -> list[str]:
    """The watched modules a check of `args` imported; the check itself must have run: exit
    code 0 (with --exit-zero), a summary of the files it checked, no internal error. (A check
    that crashed at start would import nothing, and pass for light.)"""
    code = (
        "import sys; from evallint.cli.main import main; "
        "code = main(['check', '--exit-zero', '--no-show-source', "
        f"*{args!r}]); print(code); print(sorted(m for m in {watched!r} if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    lines = out.stdout.splitlines()
    assert lines[-2] == "0", out.stdout + out.stderr
    assert "internal error" not in out.stderr, out.stderr
    assert any(" checked" in line for line in lines[:-2]), out.stdout
    return eval(lines[-1])  # type: ignore[no-any-return]  # a list's repr


def test_a_one_file_run_with_findings_imports_none_of_the_costly_modules(tmp_path: Path) -> None:
    (tmp_path / "datasets").mkdir()
    text = "id: d\nquestions:\n  - id: q1\n    input: x\n    rubric: rubric/missing@1.0.0\n"
    (tmp_path / "datasets" / "d.yaml").write_text(text)
    (tmp_path / "datasets" / "other.yaml").write_text("id: o\nquestions: []\n")  # the tree
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    assert _imported(tmp_path, "datasets/d.yaml") == []


def test_a_clean_json_file_imports_none_of_them_either(tmp_path: Path) -> None:
    (tmp_path / "datasets").mkdir()
    (tmp_path / "datasets" / "d.json").write_text('{"id": "d", "questions": []}\n')
    assert _imported(tmp_path, "datasets/d.json") == []


def test_a_reference_to_a_plain_version_is_resolved_without_semver(tmp_path: Path) -> None:
    """Plain MAJOR.MINOR.PATCH versions compare as numbers: semver's import (7 ms, with
    `inspect`) is for prereleases and build metadata only."""
    from test_git import RUBRIC

    (tmp_path / "rubrics").mkdir()
    (tmp_path / "datasets").mkdir()
    (tmp_path / "rubrics" / "refunds.yaml").write_text(RUBRIC)
    text = "id: d\nquestions:\n  - id: q1\n    input: x\n    rubric_ref: rubric/refunds@1.2.0\n"
    (tmp_path / "datasets" / "d.yaml").write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    assert _imported(tmp_path, "datasets/d.yaml", watched=("semver",)) == []
    (tmp_path / "rubrics" / "refunds.yaml").write_text(RUBRIC.replace('"1.2.0"', '"1.2.0-rc.1"'))
    assert _imported(tmp_path, "datasets/d.yaml", watched=("semver",)) == ["semver"]


def test_a_cache_of_a_few_megabytes_is_read_without_importing_orjson() -> None:
    """orjson's import (~8 ms) costs more than it saves on a cache document of a few MB."""
    code = (
        "import sys, json; from evallint.io import cache; "
        "doc = json.dumps({'files': {f'p{i}': ['k' * 40, i] for i in range(20000)}}).encode(); "
        "assert 256 * 1024 < len(doc) < cache.FAST_FROM; "
        "assert cache._loads(doc)['files']['p7'] == ['k' * 40, 7]; "
        "print('orjson' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_diff_run_imports_no_gitpython(tmp_path: Path) -> None:
    """git is asked directly: GitPython's import alone costs more than a one-file run."""
    (tmp_path / "datasets").mkdir()
    (tmp_path / "datasets" / "d.yaml").write_text("id: d\nquestions: []\n")
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=tmp_path, check=True)
    subprocess.run([*git, "add", "-A"], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=tmp_path, check=True)
    (tmp_path / "datasets" / "d.yaml").write_text("id: d\nquestions: [{id: q}]\n")
    assert _imported(tmp_path, "--diff", "main", watched=("git", "gitdb")) == []


@given(st.binary(max_size=300), st.booleans())
def test_the_digests_are_hashlibs(data: bytes, past_small: bool) -> None:
    """Below the threshold the builtin modules hash, past it hashlib: the same digests."""
    digests._hashed = digests._SMALL if past_small else 0
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()
    assert sha1_hex(data) == hashlib.sha1(data).hexdigest()
    assert text_sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_fingerprints_never_load_openssl() -> None:
    """A run with many findings hashes many fingerprints: hashlib's OpenSSL binding (3.6 MB
    resident) is loaded only once files worth it have been hashed."""
    probe = (
        "import sys; from evallint.digests import sha256_hex, text_sha256_hex\n"
        "for i in range(3000): text_sha256_hex(b'%d' % i * 100)\n"
        "print('_hashlib' in sys.modules)\n"
        "sha256_hex(bytes(300 * 1024)); print('_hashlib' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


def test_a_subcommand_is_parsed_by_its_own_parser_alone() -> None:
    """`evallint check ...` builds the check parser only, and reads argv as the whole one."""
    import argparse

    from evallint.cli.parser import SUBCOMMANDS, build_parser, command_of

    argv = ["check", "--diff", "main", "--format", "json", "-q", "a.yaml"]
    assert command_of(argv) == "check" and command_of(["--version"]) is None
    alone, whole = build_parser("check"), build_parser()
    assert vars(alone.parse_args(argv)) == vars(whole.parse_args(argv))
    subs = [a for a in alone._actions if isinstance(a, argparse._SubParsersAction)]
    assert list(subs[0].choices) == ["check"]
    subs = [a for a in whole._actions if isinstance(a, argparse._SubParsersAction)]
    assert list(subs[0].choices) == list(SUBCOMMANDS)
