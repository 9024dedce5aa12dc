"""The bounds every parser applies, the same for YAML and JSON (the README's safety section)."""

from __future__ import annotations

from itertools import chain, compress

from evallint.model import JSON

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
