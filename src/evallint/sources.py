"""Where file bytes come from. The working tree here; git revisions live in `git.py`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO


class FsSource:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._base = str(root)

    def _full(self, path: str) -> str:
        # Plain strings: a run reads thousands of files and pathlib costs ~30 us each.
        return path if os.path.isabs(path) else os.path.join(self._base, path)

    def size(self, path: str) -> int:
        return os.stat(self._full(path)).st_size

    def read(self, path: str) -> bytes:
        with open(self._full(path), "rb") as f:
            return f.read()

    def open(self, path: str) -> BinaryIO:
        return open(self._full(path), "rb")

    def outside(self, path: str) -> bool:
        """Whether the path, followed through symlinks, leaves the project."""
        full = self._full(path)
        if not os.path.islink(full):
            return False  # listings never descend into linked folders, so only links can leave
        try:
            return not Path(self._full(path)).resolve().is_relative_to(self.root.resolve())
        except (OSError, RuntimeError):  # a symlink loop
            return True
