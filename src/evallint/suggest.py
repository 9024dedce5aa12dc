"""Did-you-mean: the known name a misspelt one most likely meant."""

from __future__ import annotations

import difflib
import functools
from collections.abc import Iterable

CUTOFF = 0.8


def _norm(name: str) -> str:
    return name.lower().replace("-", "").replace("_", "")


def suggest(word: str, candidates: Iterable[str]) -> str | None:
    return _suggest(word, tuple(sorted(set(candidates))))


@functools.lru_cache(maxsize=4096)
def _suggest(word: str, candidates: tuple[str, ...]) -> str | None:
    # Case and separator slips (Expected-Facts) are always a match, whatever their length.
    norm = _norm(word)
    for c in candidates:
        if _norm(c) == norm:
            return c
    found = difflib.get_close_matches(word, candidates, n=3, cutoff=CUTOFF)
    # Among equally close names, one that extends what was typed (must_contain -> _any) wins.
    extending = [c for c in found if c.startswith(word)]
    best = extending or found
    return best[0] if best else None
