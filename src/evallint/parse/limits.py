"""The bounds every parser applies, the same for YAML and JSON (the README's safety section)."""

from __future__ import annotations

from evallint.model import JSON

MAX_DEPTH = 200  # nested lists and mappings
MAX_DIGITS = 4000  # digits of one integer, under Python's own 4,300-digit conversion limit
MAX_ALIAS_BYTES = 1024 * 1024  # characters that YAML aliases may add beyond the text
MAX_ALIAS_NODES = 100_000  # nodes that YAML aliases may add beyond the text


def too_deep(data: JSON) -> bool:
    """Whether parsed data nests past MAX_DEPTH (lists and mappings), without recursion."""
    level: list[JSON] = [data] if isinstance(data, dict | list) else []
    for _ in range(MAX_DEPTH):  # level i holds the containers at depth i + 1
        level = [
            child
            for node in level
            for child in (node.values() if isinstance(node, dict) else node)
            if isinstance(child, dict | list)
        ]
        if not level:
            return False
    return True
