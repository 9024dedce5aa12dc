"""The keys a YAML eval file may hold where a key is being written, with their documentation
from the file's schema: for an editor's completion. Pure: the lines, the cursor, the schema."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from evallint.validation.schemas import deref

# A key being written: indentation, list dashes, and the key's start (no colon yet).
_TYPING = re.compile(r"^(\s*)((?:-\s+)*)([\w$.-]*)$")
# A line that holds a key: indentation, list dashes, the key.
_KEYED = re.compile(r"""^(\s*)((?:-\s+)*)(["']?)([^\s#:"'][^:#"']*)\3\s*:(?:\s|$)""")
_MAX_DEPTH = 64
# How much of a line the key patterns read: a key is far shorter, and a pattern run over a
# 100 KB line of spaces backtracks quadratically (a folded line blocked the server 10 s).
_MAX_KEY_LINE = 512


def key_path(lines: Sequence[str], row: int, before: str) -> list[str] | None:
    """The keys of the mappings that hold the key being written on `row` (0-based), outermost
    first, read from the indentation of the lines above; None when no key is being written."""
    typing = _TYPING.match(before) if len(before) <= _MAX_KEY_LINE else None
    if typing is None:
        return None
    column = len(typing.group(1)) + len(typing.group(2))
    path: list[str] = []
    for line in reversed(lines[:row]):
        keyed = _KEYED.match(line, 0, _MAX_KEY_LINE)
        if keyed is None:
            continue
        at = len(keyed.group(1)) + len(keyed.group(2))
        if at < column:  # a key left of ours: the mapping that holds ours hangs from it
            path.insert(0, keyed.group(4).strip())
            column = at
            if at == 0 or len(path) > _MAX_DEPTH:
                break
    return path


def keys_at(schema: dict[str, Any], path: Sequence[str]) -> list[tuple[str, str]]:
    """(key, description) of the object at `path` in the schema (lists stepped through)."""
    node = _object(schema, _deref(schema, schema))
    for key in path:
        if node is None:
            return []
        found = (node.get("properties") or {}).get(key)
        node = _object(schema, _deref(schema, found)) if found is not None else None
    if node is None:
        return []
    props = node.get("properties") or {}
    return [(k, str(_deref(schema, v).get("description", ""))) for k, v in sorted(props.items())]


def _deref(root: dict[str, Any], schema: Any) -> dict[str, Any]:
    """What a (bundled, so well-formed) schema's `$ref` chain leads to; {} for no schema."""
    found = deref(root, schema)
    return found if isinstance(found, dict) else {}


def _object(root: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any] | None:
    """The object schema a value takes: through a list's items, and the first alternative of
    `anyOf`/`oneOf` that has properties."""
    for _ in range(_MAX_DEPTH):
        if "properties" in schema:
            return schema
        if isinstance(schema.get("items"), dict):
            schema = _deref(root, schema["items"])
            continue
        branches = [_deref(root, b) for b in schema.get("anyOf", schema.get("oneOf", []))]
        shaped = [b for b in branches if "properties" in b or "items" in b]
        if not shaped:
            return None
        schema = shaped[0]
    return None
