"""The file kinds evallint knows, and how a file is given one.

A kind is data: its schema, the formats it may be written in, and the evidence that a file is of
that kind (its path, its content). Later formats register here by adding a `Kind` to `KINDS`;
the engine never names a kind.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from evallint.model import JSON, Pointer

PathTest = Callable[[str], bool]
ContentTest = Callable[[JSON], bool]
Defines = Callable[[JSON], tuple[str, str] | None]  # (id, version) this file defines
References = Callable[[JSON], Iterator[tuple[Pointer, str]]]  # (where, reference text)


@dataclass(frozen=True, slots=True)
class Kind:
    name: str
    title: str
    schema: str | None
    formats: frozenset[str]
    by_path: PathTest | None = None  # path evidence, strongest after config and $schema
    by_content: ContentTest | None = None  # top-level keys, for files the path does not place
    namespace: str | None = None  # what references call it: rubric/{id}, judge/{id}
    defines: Defines | None = None
    versioned: Defines | None = None  # (id, version) for version rules; may differ from defines
    references: References | None = None
    # Bytes that any file of this kind found only by content must contain; lets a partial run
    # index the rest of the tree without parsing every YAML file in it.
    needles: tuple[bytes, ...] = ()


def in_dir(name: str) -> PathTest:
    def test(path: str) -> bool:
        return name in path.split("/")[:-1]

    return test


def has_keys(*keys: str) -> ContentTest:
    def test(data: JSON) -> bool:
        return isinstance(data, dict) and all(k in data for k in keys)

    return test


def id_and_version(data: JSON) -> tuple[str, str] | None:
    if isinstance(data, dict) and isinstance(data.get("id"), str):
        version = data.get("version")
        return data["id"], version if isinstance(version, str) else ""
    return None


def dataset_version(data: JSON) -> tuple[str, str] | None:
    """Datasets need no id to be versioned: they are compared with their own file at the base."""
    if isinstance(data, dict) and isinstance(data.get("version"), str):
        ident = data.get("id")
        return ident if isinstance(ident, str) else "", data["version"]
    return None


def items(data: JSON, key: str) -> Iterator[tuple[int, dict[str, JSON]]]:
    """(index, object) for each object in the list under `key`; nothing if it is not a list."""
    found = data.get(key) if isinstance(data, dict) else None
    if isinstance(found, list):
        for i, item in enumerate(found):
            if isinstance(item, dict):
                yield i, item


def dataset_refs(data: JSON) -> Iterator[tuple[Pointer, str]]:
    for i, question in items(data, "questions"):
        if isinstance(question.get("rubric_ref"), str):
            yield ("questions", i, "rubric_ref"), question["rubric_ref"]


def rubric_refs(data: JSON) -> Iterator[tuple[Pointer, str]]:
    for i, check in items(data, "checks"):
        for key in ("judge_prompt_ref", "rubric_ref"):
            if isinstance(check.get(key), str):
                yield ("checks", i, key), check[key]
        for j, member in items(check, "jury"):
            if isinstance(member.get("judge_prompt_ref"), str):
                yield ("checks", i, "jury", j, "judge_prompt_ref"), member["judge_prompt_ref"]


_DATA = frozenset({"yaml", "json"})

KINDS: tuple[Kind, ...] = (
    Kind(
        "rubric",
        "ai_eval rubric",
        "rubric",
        _DATA,
        in_dir("rubrics"),
        has_keys("checks", "scoring"),
        namespace="rubric",
        defines=id_and_version,
        versioned=id_and_version,
        references=rubric_refs,
        needles=(b"checks", b"scoring"),
    ),
    Kind(
        "judge",
        "ai_eval judge",
        "judge",
        _DATA,
        in_dir("judges"),
        has_keys("id", "version", "template"),
        namespace="judge",
        defines=id_and_version,
        versioned=id_and_version,
        needles=(b"template",),
    ),
    Kind(
        "dataset",
        "ai_eval dataset",
        "dataset",
        _DATA,
        None,
        has_keys("questions"),
        versioned=dataset_version,
        references=dataset_refs,
        needles=(b"questions",),
    ),
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
