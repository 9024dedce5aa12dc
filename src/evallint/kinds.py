"""The file kinds evallint knows, and how a file is given one.

A kind is data: its schema, the formats it may be written in, and the evidence that a file is of
that kind (its path, its content). Later formats register here by adding a `Kind` to `KINDS`;
the engine never names a kind.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from evallint.model import JSON

PathTest = Callable[[str], bool]
ContentTest = Callable[[JSON], bool]


@dataclass(frozen=True, slots=True)
class Kind:
    name: str
    title: str
    schema: str | None
    formats: frozenset[str]
    by_path: PathTest | None = None  # path evidence, strongest after config and $schema
    by_content: ContentTest | None = None  # top-level keys, for files the path does not place


def in_dir(name: str) -> PathTest:
    def test(path: str) -> bool:
        return name in path.split("/")[:-1]

    return test


def has_keys(*keys: str) -> ContentTest:
    def test(data: JSON) -> bool:
        return isinstance(data, dict) and all(k in data for k in keys)

    return test


_DATA = frozenset({"yaml", "json"})

KINDS: tuple[Kind, ...] = (
    Kind(
        "rubric",
        "ai_eval rubric",
        "rubric",
        _DATA,
        in_dir("rubrics"),
        has_keys("checks", "scoring"),
    ),
    Kind(
        "judge",
        "ai_eval judge",
        "judge",
        _DATA,
        in_dir("judges"),
        has_keys("id", "version", "template"),
    ),
    Kind("dataset", "ai_eval dataset", "dataset", _DATA, None, has_keys("questions")),
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
    m = _MODELINE.search(text, 0, 4096)
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


def content_kind(data: JSON, fmt: str) -> Kind | None:
    for kind in KINDS:
        if kind.by_content and fmt in kind.formats and kind.by_content(data):
            return kind
    return None
