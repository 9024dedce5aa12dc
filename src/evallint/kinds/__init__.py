"""The file kinds evallint knows, and how a file is given one.

A kind is data (see `kinds/base.py`); each format describes its kinds in its own package
(`formats/<name>/kinds.py`), and this registry gathers them in the order `formats.NAMES` gives.
Nothing outside a format's package names its kinds: rules and the engine choose kinds by what
they hold (`VERSIONED`, `REFERRING`, ...), and a test keeps it so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from importlib import import_module

from evallint.formats import NAMES
from evallint.kinds.base import Kind, PathTest, items
from evallint.model import JSON

__all__ = [
    "BY_NAME",
    "COMPOSING",
    "KINDS",
    "NAMING_FILES",
    "READING",
    "REFERRING",
    "VERSIONED",
    "Kind",
    "claimed_kind",
    "companions",
    "content_kind",
    "declared_kind",
    "items",
    "kind_named",
    "near_kind",
    "not_ours",
    "path_kind",
    "sniffed_kind",
    "warns_in",
]


def _kinds() -> list[tuple[Kind, str]]:
    """Every format's kinds, each with its format's name, in the registry's order; a
    `fallback` kind after all others."""
    found = [
        (kind, name)
        for name in NAMES
        for kind in import_module(f"evallint.formats.{name}.kinds").KINDS
    ]
    return sorted(found, key=lambda pair: pair[0].fallback)


_FOUND = _kinds()
_FORMAT_OF = {kind.name: name for kind, name in _FOUND}
# Order matters: the first kind whose evidence matches wins.
KINDS: tuple[Kind, ...] = tuple(kind for kind, _ in _FOUND)

BY_NAME: Mapping[str, Kind] = {k.name: k for k in KINDS}

# Kinds by what they hold, for rules that apply to every kind that has it.
VERSIONED = tuple(k for k in KINDS if k.versioned)  # an id and a version the version rules track
REFERRING = tuple(k for k in KINDS if k.references)  # rubric/{id}@{pin} references
NAMING_FILES = tuple(k for k in KINDS if k.file_refs)  # files the format reads at run time
COMPOSING = tuple(k for k in KINDS if k.composes)  # definers composed of others of their kind
READING = tuple(k for k in KINDS if k.reads)  # files that load other files' content at run time
PATTERNED = tuple(k for k in KINDS if k.patterns)  # regular expressions a runner compiles
CASED = tuple(k for k in KINDS if k.case_ids)  # cases (tests) with ids
ITEMIZED = tuple(k for k in KINDS if k.item_view)  # datasets whose items the hygiene rules read
DATASETS = tuple(k for k in ITEMIZED if not k.results)  # whose items no other dataset may hold
NAMESPACED = tuple(k for k in KINDS if k.namespace)  # what references name: rubric/{id}
# Hidden folders formats keep eval files in; the releases `--eee-version` may force.
EVAL_FOLDERS = frozenset(f for k in KINDS for f in k.folders)
RELEASES = tuple(dict.fromkeys(r for k in KINDS if k.forced_schema for r in k.releases))
_OWNERS = tuple(k for k in KINDS if k.owns)
_COMPANIONS = tuple(dict.fromkeys(k.companion for k in KINDS if k.companion))


def companions(path: str) -> list[str]:
    """The files that read `path` beside them, or that it reads (`Kind.companion`), whatever
    the kinds of the two: a change to `path` is checked in them."""
    return sorted({c for find in _COMPANIONS if (c := find(path)) is not None and c != path})


def warns_in(kind: str, rule: str) -> bool:
    """Whether the kind's runner only warns of what the rule finds (`Kind.warns`)."""
    found = BY_NAME.get(kind)
    return found is not None and rule in found.warns


def kind_named(name: str | None) -> Kind | None:
    """The kind a configuration names (its names are checked when it is read)."""
    return BY_NAME[name] if name else None


_MODELINE = re.compile(r"^#\s*yaml-language-server:\s*\$schema=(\S+)", re.M)
# A top-level `$schema` as written, for files that do not parse: "$schema": "...", $schema: ...
_SCHEMA_KEY = re.compile(r"""["']?\$schema["']?[ \t]*:[ \t]*["']?([^\s"',}]+)""")
HEAD = 4096  # how far into a file its declaration is looked for


def _schema_kind(ref: str) -> Kind | None:
    """A `$schema` value or modeline naming one of our schemas: by `$id` or by file name."""
    name = ref.rsplit("/", 1)[-1].rsplit(":", 1)[-1].removesuffix(".json")
    name = name.removesuffix(".schema")
    for kind in KINDS:
        if kind.schema == name or any(part in ref for part in kind.declared_by):
            return kind
    return None


def declared_kind(text: str, data: JSON) -> Kind | None:
    """The kind a file declares: a yaml-language-server modeline, or a top-level `$schema`."""
    # A plain find first: the regex costs ~25 us a file, and JSON never has the comment.
    m = _MODELINE.search(text, 0, HEAD) if text.find("yaml-language-server", 0, HEAD) >= 0 else None
    if m:
        found = _schema_kind(m.group(1))
        if found:
            return found
    if isinstance(data, dict) and isinstance(data.get("$schema"), str):
        return _schema_kind(data["$schema"])
    return None


def declared_in_text(text: str) -> Kind | None:
    """The kind a file that does not parse declares, read from its first bytes."""
    found = declared_kind(text, None)
    if found is None and text.find("$schema", 0, HEAD) >= 0:
        m = _SCHEMA_KEY.search(text, 0, HEAD)
        found = _schema_kind(m.group(1)) if m else None
    return found


def not_ours(path: str, data: JSON) -> str | None:
    """Why a parsed file that no kind matches is another tool's, when it plainly is."""
    for kind in KINDS:
        why = kind.disowns(path, data) if kind.disowns else None
        if why:
            return why
    return None


def _owner(path: str, data: JSON) -> str | None:
    """The format whose runner owns a file whatever keys it shares (`Kind.owns`)."""
    for kind in _OWNERS:
        if kind.owns is not None and kind.owns(path, data):
            return _FORMAT_OF[kind.name]
    return None


def tooling(path: str) -> bool:
    """CI configuration (`.github/workflows/eval.yml`) is never an eval file by itself."""
    return path.startswith(".github/")


def _path_tests(test: Callable[[Kind], PathTest | None]) -> dict[str, list[tuple[Kind, PathTest]]]:
    """For each format, the kinds with a path test and the test, in kind order: asked of every
    file of a run, so the kinds without one are not visited."""
    found: dict[str, list[tuple[Kind, PathTest]]] = {}
    for kind in KINDS:
        fn = test(kind)
        if fn is not None:
            for fmt in kind.formats:
                found.setdefault(fmt, []).append((kind, fn))
    return found


_BY_PATH = _path_tests(lambda kind: kind.by_path)
_CLAIMS = _path_tests(lambda kind: kind.claim)


def _first_by_path(path: str, tests: list[tuple[Kind, PathTest]]) -> Kind | None:
    if tooling(path):
        return None
    for kind, test in tests:
        if test(path):
            return kind
    return None


def path_kind(path: str, fmt: str) -> Kind | None:
    """The kind a file's path makes it, whatever its content (`rubrics/`, `judges/`)."""
    return _first_by_path(path, _BY_PATH.get(fmt, []))


def claimed_kind(path: str, fmt: str) -> Kind | None:
    """The kind a file's path claims it for, before its content is read (see Kind.claim)."""
    return _first_by_path(path, _CLAIMS.get(fmt, []))


def content_kind(path: str, data: JSON, fmt: str) -> Kind | None:
    if tooling(path):
        return None
    owner = _owner(path, data) if _OWNERS else None
    tests = _BY_CONTENT if owner is not None else _UNOWNED  # (an owner's test needs its owning)
    for kind, test, name in tests.get(fmt, ()):
        if (owner is None or name == owner) and test(path, data):
            return kind
    return None


# For each format, the kinds with a content test, the test and the kind's format's name, in
# kind order: asked of every file no declaration or path places (most of a large tree).
_BY_CONTENT = {
    fmt: [(k, k.by_content, _FORMAT_OF[k.name]) for k in KINDS if k.by_content and fmt in k.formats]
    for fmt in dict.fromkeys(f for k in KINDS for f in k.formats)
}

# The same, without the kinds that own files (`Kind.owns`): a file no kind owns is not asked
# their tests, which would only say no.
_UNOWNED = {fmt: [t for t in found if not t[0].owns] for fmt, found in _BY_CONTENT.items()}


_MARKS: dict[str, re.Pattern[str]] = {}


def _marked(text: str, key: str, fmt: str) -> bool:
    """Whether `key` is written as a mapping key somewhere in the text."""
    rx = _MARKS.get(f"{fmt}:{key}")
    if rx is None:
        quoted = f'"{re.escape(key)}"[ \\t]*:'
        # YAML: the key starts a line (after indentation and a sequence dash), quoted or not.
        bare = f"""(?m)^[ \\t]*(?:-[ \\t]+)*["']?{re.escape(key)}["']?[ \\t]*:"""
        rx = _MARKS[f"{fmt}:{key}"] = re.compile(bare if fmt == "yaml" else quoted)
    return rx.search(text) is not None


def sniffed_kind(path: str, text: str, fmt: str) -> Kind | None:
    """The kind whose markers a file that does not parse carries in its raw text."""
    if tooling(path):
        return None
    for kind in KINDS:
        if fmt in kind.formats and any(
            all(_marked(text, key, fmt) for key in keys) for keys in kind.markers
        ):
            return kind
    return None


# For each kind, the marker keys of the other kinds.
_MARKER_KEYS = {
    kind.name: frozenset(
        k for other in KINDS if other is not kind for keys in other.markers for k in keys
    )
    for kind in KINDS
}


def near_kind(path: str, data: JSON, fmt: str) -> Kind | None:
    """The kind a parsed file would be, were one of its top-level keys not misspelt
    (`questons:`): it is that kind, and its checks report the typo."""
    from evallint.suggest import suggest

    if not isinstance(data, dict) or tooling(path) or not_ours(path, data):
        return None
    if _owner(path, data) is not None:
        return None  # promptfoo's `defaultTest` is no misspelt `default_test`
    for kind in KINDS:
        if fmt not in kind.formats:
            continue
        for keys in kind.markers:
            missing = [k for k in keys if k not in data]
            if len(missing) != 1:
                continue
            # With no other marker key to go by, the misspelt one must hold a list or mapping;
            # another kind's own marker key is that kind's spelling, not a slip (AgentV's
            # `default_test` is no misspelt `defaultTest`).
            typos = [
                k
                for k in data
                if k not in keys
                and k not in _MARKER_KEYS.get(kind.name, ())
                and (len(keys) > 1 or isinstance(data[k], list | dict))
            ]
            if any(suggest(t, missing) == missing[0] for t in typos):
                return kind
    return None
