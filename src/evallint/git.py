"""The only module that talks to git.

Listing files runs `git ls-files` directly: importing GitPython costs ~116 ms, most of what a
pre-commit run of one file may take. Revisions and diffs (which need its object model) import
GitPython on first use.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from evallint.errors import EvallintError


def clean_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment without inherited GIT_* variables (a hook's GIT_DIR would redirect us)."""
    env = os.environ if environ is None else environ
    return {k: v for k, v in env.items() if not k.startswith("GIT_") or k == "GIT_EXEC_PATH"}


def list_files(root: Path, pathspecs: Sequence[str]) -> list[str] | None:
    """Tracked files plus untracked ones git does not ignore; None when git is unusable."""
    cmd = ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *pathspecs]
    try:
        proc = subprocess.run(cmd, cwd=root, capture_output=True, env=clean_env(), check=False)
    except OSError:  # no git executable
        return None
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip()
        if "not a git repository" in message:
            return None
        raise EvallintError(f"git ls-files failed: {message}")
    return [p for p in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if p]
