"""The bounds every parser applies, the same for YAML and JSON (the README's safety section)."""

from __future__ import annotations

import re
from itertools import chain, compress

from evallint.model import JSON, Span
from evallint.parse.positions import Problem

MAX_DEPTH = 200  # nested lists and mappings
MAX_DIGITS = 4000  # digits of one integer, under Python's own 4,300-digit conversion limit
MAX_ALIAS_BYTES = 1024 * 1024  # characters that YAML aliases may add beyond the text
MAX_ALIAS_NODES = 100_000  # nodes that YAML aliases may add beyond the text


def too_deep(data: JSON) -> bool:
    """Whether parsed data nests past MAX_DEPTH (lists and mappings), without recursion."""
    level: list[JSON] = [data] if data.__class__ in (dict, list) else []
    for _ in range(MAX_DEPTH):  # level i holds the containers at depth i + 1
        # Python runs once per container; the values themselves are sifted in C (a record's
        # long lists of numbers would otherwise cost a call each, level after level).
        values = list(
            chain.from_iterable([n.values() if n.__class__ is dict else n for n in level])
        )
        level = list(compress(values, map(_CONTAINER, map(type, values))))
        if not level:
            return False
    return True


_CONTAINER = {dict, list}.__contains__


# Digits to "0", so that a run of digits of any kind is one substring search.
ZERO_BYTES = bytes.maketrans(b"123456789", b"0" * 9)
_DIGITS = re.compile(rf"(?<![0-9])[0-9]{{{MAX_DIGITS + 1}}}")  # linear: starts a run only
# The cheap test first: with every digit made "0", a run too long is one substring search
# (4x faster than the regex, which then only says where).
_LONG_RUN = b"0" * (MAX_DIGITS + 1)
# A string runs to its closing quote or, unterminated, to the end: every match moves on, so
# the scan is linear even on hostile text.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*+(?:"|\\?\Z)|[\[\]{}]', re.S)


def beyond_limits(text: str, data: JSON, *, digits: bool = True) -> Problem | None:
    """Nesting past MAX_DEPTH or an integer past MAX_DIGITS, where the text has it (`data`:
    None when the parser gave up on either; `digits`: False when the text is known to hold no
    long run of digits). Cheap for the common file: only a file with more brackets than
    MAX_DEPTH can nest that deep, and only a long one can hold such a number."""
    if data is None or (text.count("[") + text.count("{") > MAX_DEPTH and too_deep(data)):
        offset = _deep_offset(text)
        if offset is not None:
            return _problem_at(text, offset, f"nesting deeper than {MAX_DEPTH} levels")
    if not digits:
        return None
    if data is None or (len(text) > MAX_DIGITS and _long_run(text)):
        m = _DIGITS.search(text)
        if m is not None:
            message = f"an integer of more than {MAX_DIGITS:,} digits"
            return _problem_at(text, m.start(), message)
    if data is None:  # not reached: the parser gave up for one of the reasons above
        return _problem_at(text, 0, "nesting or numbers beyond what can be read")
    return None


def _long_run(text: str) -> bool:
    """Whether `text` holds more than MAX_DIGITS ASCII digits in a row. Bytes translate at C
    speed, a str through a mapping about 40 times slower; UTF-8 writes no other character with
    an ASCII byte, so the runs are the same."""
    return _LONG_RUN in text.encode("utf-8", "surrogatepass").translate(ZERO_BYTES)


def _deep_offset(text: str) -> int | None:
    """Where the first list or mapping deeper than MAX_DEPTH opens (strings skipped)."""
    depth = 0
    for m in _TOKENS.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return m.start()
        elif c in "]}":
            depth -= 1
    return None


def _problem_at(text: str, offset: int, message: str) -> Problem:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return Problem(Span(line, col, line, col + 1), message)
