"""Where file bytes come from. The working tree here; git revisions live in `git.py`."""

from __future__ import annotations

import os
from pathlib import Path


class FsSource:
    def __init__(self, root: Path) -> None:
        self.root = root

    def _full(self, path: str) -> Path:
        return Path(path) if os.path.isabs(path) else self.root / path

    def size(self, path: str) -> int:
        return self._full(path).stat().st_size

    def read(self, path: str) -> bytes:
        return self._full(path).read_bytes()

    def outside(self, path: str) -> bool:
        """Whether the path, followed through symlinks, leaves the project."""
        try:
            return not self._full(path).resolve().is_relative_to(self.root.resolve())
        except (OSError, RuntimeError):  # a symlink loop
            return True
