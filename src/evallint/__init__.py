"""evallint: a Git-native linter for LLM evaluation files.

`evallint.check(paths)` lints from Python and returns a `Report` (see `evallint.api`); it is
imported on first use, so `import evallint` stays light for the command line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evallint.about import __url__, __version__

if TYPE_CHECKING:
    from evallint.api import check

__all__ = ["__url__", "__version__", "check"]


def __getattr__(name: str) -> Any:
    if name == "check":
        from evallint.api import check

        return check
    raise AttributeError(f"module 'evallint' has no attribute {name!r}")
