"""Facts worked out once about a document or a project, whichever caller asks first."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar, TypeVarTuple, cast

_T = TypeVar("_T")
_Args = TypeVarTuple("_Args")


class Facts:
    """A cache of what is known about its owner, keyed by the function that computes each fact.

    Keying by the function (not by a name) makes a fact's type its function's return type, and
    two callers share a fact only by calling the same function. `args` are what computing needs
    (the owner, the run's context), not what tells facts apart: that is `key`, when one function
    gives the owner several facts (one per rubric, say).
    """

    __slots__ = ("_found",)

    def __init__(self) -> None:
        # Made on first use: a run keeps a small document per checked file, most never asked.
        self._found: dict[tuple[object, Hashable], object] | None = None

    def get(self, compute: Callable[[*_Args], _T], *args: *_Args, key: Hashable = None) -> _T:
        at = (compute, key)
        found = self._found
        if found is None:
            found = self._found = {}
        if at not in found:
            found[at] = compute(*args)
        # Sound: only `compute` writes under a key that starts with `compute`.
        return cast(_T, found[at])

    def has(self, compute: Callable[..., object], key: Hashable = None) -> bool:
        """Whether the fact is worked out already (some are cheaper to do without)."""
        return self._found is not None and (compute, key) in self._found

    def drop(self, compute: Callable[..., object], key: Hashable = None) -> None:
        """Forget a fact (worked out again if asked): what is large and no longer needed."""
        if self._found is not None:
            self._found.pop((compute, key), None)
