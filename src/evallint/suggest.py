"""Did-you-mean: the known name a misspelt one most likely meant."""

from __future__ import annotations

import functools
from collections.abc import Iterable

CUTOFF = 0.8


def _norm(name: str) -> str:
    return name.lower().replace("-", "").replace("_", "")


def suggest(word: str, candidates: Iterable[str]) -> str | None:
    known = candidates if isinstance(candidates, frozenset) else frozenset(candidates)
    return _suggest(word, _ordered(known))


@functools.lru_cache(maxsize=256)
def _ordered(known: frozenset[str]) -> tuple[str, ...]:
    """The names in order, once per set (a set's hash is kept; a rule asks of one set often)."""
    return tuple(sorted(known))


Named = tuple[tuple[int, str], ...]  # (letters as bits, name) of names of one length


@functools.lru_cache(maxsize=256)
def _index(candidates: tuple[str, ...]) -> tuple[dict[str, str], dict[int, Named]]:
    """Each normalised name's first name, and the names by length with their letters, in
    order: what `_suggest` asks of the candidates for every word, made once for them."""
    norms: dict[str, str] = {}
    by_length: dict[int, list[tuple[int, str]]] = {}
    for c in candidates:
        norms.setdefault(_norm(c), c)
        by_length.setdefault(len(c), []).append((_letters(c), c))
    return norms, {m: tuple(names) for m, names in by_length.items()}


def _letters(name: str) -> int:
    """A name's letters as bits (a letter's code point modulo 61). Of two names, the bits of
    one the other lacks count distinct letters it lacks, or fewer (letters may share a bit),
    never more."""
    bits = 0
    for ch in name:
        bits |= 1 << (ord(ch) % 61)
    return bits


@functools.lru_cache(maxsize=4096)
def _suggest(word: str, candidates: tuple[str, ...]) -> str | None:
    norms, by_length = _index(candidates)
    # Case and separator slips (Expected-Facts) are always a match, whatever their length.
    same = norms.get(_norm(word))
    if same is not None:
        return same
    import difflib  # a run without a misspelt name never needs it

    # difflib keeps a name only if its matching letters reach the cutoff, and a letter of one
    # name the other lacks matches nothing: names that cannot reach it (by length, or by the
    # letters one lacks, counted as difflib computes its ratio) are not asked. The answer is
    # the same, asked of fewer names.
    n, mine = len(word), _letters(word)
    close = [
        c
        for m, named in by_length.items()
        if m + n == 0 or 2.0 * min(m, n) / (m + n) >= CUTOFF
        for bits, c in named
        if m + n == 0
        or 2.0 * min(n - (mine & ~bits).bit_count(), m - (bits & ~mine).bit_count()) / (m + n)
        >= CUTOFF
    ]
    found = difflib.get_close_matches(word, close, n=3, cutoff=CUTOFF)
    if not found and n >= 3:
        # One slip in a short name (tome for tone) falls below any useful ratio cutoff: the
        # first such name in order (names one longer, as long, or one shorter).
        edits = [
            c for m in (n - 1, n, n + 1) for _, c in by_length.get(m, ()) if _one_edit(word, c)
        ]
        found = [min(edits)] if edits else []
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
