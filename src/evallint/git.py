"""The only module that talks to git (through GitPython, imported on first use)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from evallint.errors import EvallintError


def list_files(root: Path, pathspecs: Sequence[str]) -> list[str] | None:
    """Tracked files plus untracked ones git does not ignore; None when git is unusable."""
    try:
        import git
    except ImportError:  # GitPython raises ImportError when no git executable is found
        return None
    try:
        repo = git.Repo(root)
        out = repo.git.ls_files(
            "-z", "--cached", "--others", "--exclude-standard", "--", *pathspecs
        )
    except git.exc.InvalidGitRepositoryError:
        return None
    except git.exc.GitCommandError as exc:
        raise EvallintError(f"git ls-files failed: {exc.stderr.strip()}") from None
    return [p for p in out.split("\0") if p]
