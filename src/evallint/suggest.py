"""Did-you-mean: the known name a misspelt one most likely meant."""

from __future__ import annotations

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
    import difflib  # a run without a misspelt name never needs it

    found = difflib.get_close_matches(word, candidates, n=3, cutoff=CUTOFF)
    if not found and len(word) >= 3:
        # One slip in a short name (tome for tone) falls below any useful ratio cutoff.
        found = [c for c in candidates if _one_edit(word, c)][:1]
    # Among equally close names, one that extends what was typed (must_contain -> _any) wins.
    extending = [c for c in found if c.startswith(word)]
    best = extending or found
    return best[0] if best else None


def _one_edit(a: str, b: str) -> bool:
    """True when one insertion, deletion, substitution or swap of neighbours turns a into b."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        swapped = a[i + 1 : i + 2] == b[i : i + 1] and a[i : i + 1] == b[i + 1 : i + 2]
        return a[i + 1 :] == b[i + 1 :] or (swapped and a[i + 2 :] == b[i + 2 :])
    return a[i + 1 :] == b[i:] if len(a) > len(b) else a[i:] == b[i + 1 :]


def sole(word: str, candidates: Iterable[str]) -> str | None:
    """The one known name a single slip away from `word` (a case or separator change, or one
    edit): the name a fix may write without asking. None when no name, or more than one, is
    that close: a person chooses."""
    norm = _norm(word)
    near = {c for c in candidates if _norm(c) == norm or _one_edit(word, c)}
    return near.pop() if len(near) == 1 else None
