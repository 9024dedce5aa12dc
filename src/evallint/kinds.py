"""The file kinds evallint knows, and how a file is given one.

A kind is data (see `formats/base.py`); each format family describes its kinds in its own module
under `formats/`, and this registry lists them. The engine never names a kind.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from evallint.formats import abp, agentv, ai_eval, eee
from evallint.formats.base import Kind, items
from evallint.model import JSON

__all__ = ["BY_NAME", "KINDS", "Kind", "content_kind", "declared_kind", "items", "path_kind"]

# Order matters: the first kind whose evidence matches wins.
KINDS: tuple[Kind, ...] = (
    ai_eval.RUBRIC,
    ai_eval.JUDGE,
    abp.EVALS,
    abp.STATIC_CHECKS,
    agentv.V2,
    agentv.SPEC,
    agentv.V4,
    agentv.NEXT,
    eee.AGGREGATE,
    eee.INSTANCE,
    ai_eval.DATASET,
)

BY_NAME: Mapping[str, Kind] = {k.name: k for k in KINDS}

_MODELINE = re.compile(r"^#\s*yaml-language-server:\s*\$schema=(\S+)", re.M)


def _schema_kind(ref: str) -> Kind | None:
    """A `$schema` value or modeline naming one of our schemas: by `$id` or by file name."""
    name = ref.rsplit("/", 1)[-1].rsplit(":", 1)[-1].removesuffix(".json")
    name = name.removesuffix(".schema")
    for kind in KINDS:
        if kind.schema == name:
            return kind
    return None


def declared_kind(text: str, data: JSON) -> Kind | None:
    """The kind a file declares: a yaml-language-server modeline, or a top-level `$schema`."""
    # A plain find first: the regex costs ~25 us a file, and JSON never has the comment.
    m = _MODELINE.search(text, 0, 4096) if text.find("yaml-language-server", 0, 4096) >= 0 else None
    if m:
        found = _schema_kind(m.group(1))
        if found:
            return found
    if isinstance(data, dict) and isinstance(data.get("$schema"), str):
        return _schema_kind(data["$schema"])
    return None


def path_kind(path: str, fmt: str) -> Kind | None:
    for kind in KINDS:
        if kind.by_path and fmt in kind.formats and kind.by_path(path):
            return kind
    return None


def content_kind(path: str, data: JSON, fmt: str) -> Kind | None:
    for kind in KINDS:
        if kind.by_content and fmt in kind.formats and kind.by_content(path, data):
            return kind
    return None
