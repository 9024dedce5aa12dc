"""Which keys a schema knows at each object of a document, for unknown-key and did-you-mean rules.

The walk follows the data and the schema together: `$ref`, `allOf`, `anyOf`/`oneOf` (all
alternatives), `if`/`then`/`else` (the `if` is evaluated), `properties`, `patternProperties`,
`additionalProperties` and `items`. It descends only where the schema describes structure, so
free-form objects (`metadata`) cost nothing and are never reported.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

from evallint.model import JSON, Pointer
from evallint.records import record
from evallint.validation.raised import SchemaFailure
from evallint.validation.schemas import (
    FEW,
    Engines,
    compile_schema,
    deref,
    fast_compile,
    json_type,
    load_schema,
    resolve,
)

Schema = dict[str, Any]


@record
class ObjectKeys:
    """An object holding keys its schema does not name."""

    pointer: Pointer
    known: frozenset[str]
    closed: bool  # additionalProperties: false; unknown keys are errors
    unknown: tuple[str, ...]


def closed_clean(schema_name: str, data: JSON, engines: Engines = FEW) -> bool:
    """Whether the closed copy of the schema accepts the data (with the `fast` extra, past the
    engines' threshold): then it is valid, and every object holds only keys its schema names."""
    quick = closed_check(schema_name, engines)
    return bool(quick and quick(data))


def closed_check(
    schema_name: str, engines: Engines = FEW, documents: int = 1
) -> Callable[[JSON], bool] | None:
    """`closed_clean`'s yes/no for `documents` more documents of one schema (a JSONL chunk asks
    once for all its records), or None when the fast engine is not asked."""
    if not engines.bulk(f"keys:{schema_name}", documents):
        return None
    return _closed_verdict(schema_name)


def unknown_keys(schema_name: str, data: JSON, engines: Engines = FEW) -> list[ObjectKeys]:
    """Every object that holds keys its schema does not name, in document order."""
    if closed_clean(schema_name, data, engines):
        return []  # every object holds only keys its schema names: nothing to walk for
    return walk_keys(schema_name, data)


def walk_keys(schema_name: str, data: JSON) -> list[ObjectKeys]:
    """`unknown_keys` by the walk alone."""
    walker = _Walker(load_schema(schema_name))
    walker.walk([walker.root], data, ())
    return walker.found


class _Walker:
    def __init__(self, root: Schema) -> None:
        self.root = root
        self.found: list[ObjectKeys] = []

    def walk(self, schemas: list[Schema], data: JSON, pointer: Pointer) -> None:
        shape, items = self.plan(schemas, data)
        if isinstance(data, dict):
            self.walk_object(shape, data, pointer)
        elif isinstance(data, list) and items:
            for i, item in enumerate(data):
                if isinstance(item, dict | list):
                    self.walk(items, item, (*pointer, i))

    def plan(self, schemas: list[Schema], data: JSON) -> tuple[_Shape, list[Schema]]:
        """The shape and item schemas of `schemas` here; kept when no condition is involved."""
        key = tuple([id(s) for s in schemas])
        plan = _PLANS.get(key)
        if plan is None:
            flat = [s for schema in schemas for s in self.applicable(schema, data)]
            items = [s["items"] for s in flat if isinstance(s.get("items"), dict)]
            plan = (_shape(tuple(id(s) for s in flat), flat), items)
            if all(id(s) in _STATIC for s in schemas):
                _PLANS[key] = plan
        return plan

    def walk_object(self, shape: _Shape, data: dict[str, JSON], pointer: Pointer) -> None:
        known, patterns = shape.known, shape.patterns
        # Open objects that name no keys (free-form details) or take any key by a schema have
        # nothing to suggest; only closed objects make an unknown key a finding by itself.
        if shape.closed or (known and not shape.extra):
            unknown = [k for k in data if k not in known and not any(p.search(k) for p in patterns)]
            if unknown:
                self.found.append(ObjectKeys(pointer, known, shape.closed, tuple(unknown)))
        for key, value in data.items():
            if not isinstance(value, dict | list):
                continue
            subs = shape.properties.get(key, [])
            if patterns:
                subs = subs + [sub for pat, sub in shape.pattern_subs if pat.search(key)]
            if not subs and key not in known:
                subs = list(shape.extra)
            if subs:
                self.walk(subs, value, (*pointer, key))

    def applicable(self, schema: Schema, data: JSON) -> list[Schema]:
        # Most subschemas flatten the same way whatever the data; only `if` depends on it, and
        # our conditions read a few properties, so the flattening is cached by their values.
        cached = _STATIC.get(id(schema))
        if cached is not None:
            return cached
        key = self._signature(schema, data)
        if key is not None and key in _CONDITIONAL:
            return _CONDITIONAL[key]
        out, conditional = self._flatten(schema, data)
        if not conditional:
            _STATIC[id(schema)] = out
        elif key is not None:
            _CONDITIONAL[key] = out
        return out

    def _signature(self, schema: Schema, data: JSON) -> tuple[object, ...] | None:
        keys = _condition_keys(id(schema), self, schema)
        if keys is None or not isinstance(data, dict):
            return None
        values = tuple(data.get(k, _ABSENT) for k in keys)
        if not all(
            v is None or isinstance(v, str | int | float | bool) or v is _ABSENT for v in values
        ):
            return None
        return (id(schema), *(type(v).__name__ for v in values), *values)

    def conditions(self, schema: Schema) -> Iterator[Schema]:
        """Every `if` reachable while flattening `schema`, on every branch."""
        stack, seen = [schema], set()
        while stack:
            s = stack.pop()
            if id(s) in seen:
                continue
            seen.add(id(s))
            if "$ref" in s:
                stack.append(self.resolve(s["$ref"]))
            for key in ("allOf", "anyOf", "oneOf"):
                stack.extend(x for x in s.get(key, ()) if isinstance(x, dict))
            if "if" in s and isinstance(s["if"], dict):
                yield s["if"]
                stack.extend(s[k] for k in ("then", "else") if isinstance(s.get(k), dict))

    def _flatten(self, schema: Schema, data: JSON) -> tuple[list[Schema], bool]:
        out: list[Schema] = []
        conditional = False
        stack = [schema]
        while stack:
            s = stack.pop()
            if "$ref" in s:
                stack.append(self.resolve(s["$ref"]))
            out.append(s)
            for key in ("allOf", "anyOf", "oneOf"):
                stack.extend(x for x in s.get(key, ()) if isinstance(x, dict))
            if "if" in s:
                conditional = True
                branch = s.get("then") if self.holds(s["if"], data) else s.get("else")
                if isinstance(branch, dict):
                    stack.append(branch)
        return out, conditional

    def resolve(self, ref: str) -> Schema:
        found: Schema = resolve(self.root, ref)
        return found

    def holds(self, condition: Schema, data: JSON) -> bool:
        simple = _simple(condition, data)
        if simple is not None:
            return simple
        return bool(_condition(id(condition), self.root, condition)(data))


# Schemas are loaded once per process, so their ids are stable cache keys.
_STATIC: dict[int, list[Schema]] = {}
_CONDITIONAL: dict[tuple[object, ...], list[Schema]] = {}
_PLANS: dict[tuple[int, ...], tuple[_Shape, list[Schema]]] = {}
_KEYS: dict[int, tuple[str, ...] | None] = {}
_ABSENT = object()


def _condition_keys(key: int, walker: _Walker, schema: Schema) -> tuple[str, ...] | None:
    """The properties a schema's conditions read; None when a condition is not that simple."""
    if key not in _KEYS:
        names: set[str] = set()
        simple = True
        for condition in walker.conditions(schema):
            props = condition.get("properties", {})
            if not set(condition) <= {"properties", "required"} or any(
                not set(sub) <= {"const", "enum"} for sub in props.values()
            ):
                simple = False
                break
            names.update(props)
            names.update(condition.get("required", ()))
        _KEYS[key] = tuple(sorted(names)) if simple else None
    return _KEYS[key]


@record
class _Shape:
    """What a set of applicable schemas says about an object's keys, worked out once."""

    known: frozenset[str]
    closed: bool
    patterns: tuple[re.Pattern[str], ...]
    extra: tuple[Schema, ...]  # additionalProperties schemas
    properties: dict[str, list[Schema]]  # key -> every subschema `properties` gives it
    pattern_subs: tuple[tuple[re.Pattern[str], Schema], ...]


_SHAPES: dict[tuple[int, ...], _Shape] = {}


def _shape(key: tuple[int, ...], flat: list[Schema]) -> _Shape:
    # Schemas are loaded once per process, so their ids are stable cache keys.
    shape = _SHAPES.get(key)
    if shape is None:
        properties: dict[str, list[Schema]] = {}
        for s in flat:
            for name, sub in s.get("properties", {}).items():
                properties.setdefault(name, []).append(sub)
        pattern_subs = tuple(
            (re.compile(p), sub) for s in flat for p, sub in s.get("patternProperties", {}).items()
        )
        shape = _SHAPES[key] = _Shape(
            known=frozenset(properties),
            closed=any(s.get("additionalProperties") is False for s in flat),
            patterns=tuple(p for p, _ in pattern_subs),
            extra=tuple(
                s["additionalProperties"]
                for s in flat
                if isinstance(s.get("additionalProperties"), dict)
            ),
            properties=properties,
            pattern_subs=pattern_subs,
        )
    return shape


_CONDITIONS: dict[int, Any] = {}


def _simple(condition: Schema, data: JSON) -> bool | None:
    """`if` conditions made of `required` and `properties` with `const`/`enum`, evaluated directly
    (compiling each with fastjsonschema costs ~4 ms apiece at start-up); None: not that simple."""
    if not set(condition) <= {"properties", "required"}:
        return None
    props = condition.get("properties", {})
    if any(not set(sub) <= {"const", "enum"} for sub in props.values()):
        return None
    if not isinstance(data, dict):
        return True  # properties and required constrain only objects
    if any(k not in data for k in condition.get("required", ())):
        return False
    for key, sub in props.items():
        if key in data:
            value = data[key]
            if "const" in sub and not _same(value, sub["const"]):
                return False
            if "enum" in sub and not any(_same(value, e) for e in sub["enum"]):
                return False
    return True


def _same(a: JSON, b: JSON) -> bool:
    # JSON equality: true is not 1, unlike Python's.
    return type(a) is type(b) and bool(a == b)


def _condition(key: int, root: Schema, condition: Schema) -> Any:
    check = _CONDITIONS.get(key)
    if check is None:
        validate = compile_schema(
            {**condition, "definitions": root.get("definitions", {})}, fast_fail=True
        )

        def check(data: JSON) -> bool:
            try:
                validate(data)
            except SchemaFailure:
                return False
            return True

        _CONDITIONS[key] = check
    return check


@functools.cache
def _closed_verdict(name: str) -> Callable[[JSON], bool] | None:
    """jsonschema-rs's yes/no on the closed copy of a schema: True means the walk finds nothing.

    The walk costs a Python call per object; on a datastore of valid records it finds nothing,
    and the compiled copy says so about twenty times faster. None without the `fast` extra, under
    EVALLINT_ENGINE=python, or for a schema whose alternatives make the copy unsound (`_sound`).
    """
    schema = load_schema(name)
    return fast_compile(closed_copy(schema)) if _sound(schema) else None


# Keywords whose subschemas must hold for the document to be valid: closing an object inside
# them can only reject more documents. `if`, `not`, `contains` and `propertyNames` are left as
# they are: closing there would change which documents they accept. `allOf` members and
# `then`/`else` describe the same value as their parent; the others describe other values, or
# (`anyOf`/`oneOf`) alternatives that `_sound` reasons about one by one.
_SAME_VALUE_ONE: tuple[str, ...] = ("then", "else")
_SAME_VALUE_LISTS: tuple[str, ...] = ("allOf",)
_OTHER_MAPS: tuple[str, ...] = ("properties", "patternProperties", "definitions")
_OTHER_ONE: tuple[str, ...] = ("additionalProperties", "items")
_OTHER_LISTS: tuple[str, ...] = ("anyOf", "oneOf", "items")


def closed_copy(schema: Schema, covered: bool = False) -> Schema:
    """The schema with `additionalProperties: false` on every object that names its properties
    and takes any other key (`true` or absent), unless a schema of the same value already
    closes it (`covered`: a parent whose `allOf` member or `then` branch this is).

    A document valid under the copy holds, at every object the walk visits, only keys one of the
    object's schemas names, so the walk would report nothing there (given `_sound`). Closing a
    `then` branch that adds a property on its own would reject every document instead.
    """
    out = dict(schema)
    if not covered and out.get("properties") and out.get("additionalProperties", True) is True:
        out["additionalProperties"] = False
    same = covered or out.get("additionalProperties") is False
    for key in _OTHER_MAPS:
        if isinstance(out.get(key), dict):
            out[key] = {
                k: closed_copy(v) if isinstance(v, dict) else v for k, v in out[key].items()
            }
    for keys, cover in ((_SAME_VALUE_ONE, same), (_OTHER_ONE, False)):
        for key in keys:
            if isinstance(out.get(key), dict):
                out[key] = closed_copy(out[key], cover)
    for keys, cover in ((_SAME_VALUE_LISTS, same), (_OTHER_LISTS, False)):
        for key in keys:
            if isinstance(out.get(key), list):
                out[key] = [closed_copy(v, cover) if isinstance(v, dict) else v for v in out[key]]
    return out


def _sound(root: Schema) -> bool:
    """Whether "valid under the closed copy" implies "the walk reports nothing".

    The walk takes every alternative of an `anyOf`/`oneOf` at once, validation only the one that
    matches. They agree when the alternatives cannot both describe one value: at most one takes
    arrays with structured items, and objects are taken either by one alternative, or by several
    that each name their properties directly and share only keys whose schemas are the same or
    hold no structure. Conditions must not `$ref` what the copy changes.
    """
    for node in _nodes(root):
        for key in ("if", "not", "contains", "propertyNames"):
            if any("$ref" in sub for sub in _nodes(node.get(key))):
                return False
        for key in ("anyOf", "oneOf"):
            alternatives = node.get(key)
            if isinstance(alternatives, list) and not _disjoint(root, alternatives):
                return False
    return True


def _disjoint(root: Schema, alternatives: list[Any]) -> bool:
    alts = [deref(root, a) for a in alternatives if isinstance(a, dict)]
    arrays = [a for a in alts if _takes(a, "array")]
    if sum(_structured(root, a.get("items")) for a in arrays) and len(arrays) > 1:
        return False
    objects = [a for a in alts if _takes(a, "object")]
    if len(objects) <= 1 or not any(_structured(root, a) for a in objects):
        return True
    if any(not a.get("properties") or set(a) & _COMBINING for a in objects):
        return False
    seen: dict[str, Any] = {}
    for alt in objects:
        for name, sub in alt["properties"].items():
            sub = deref(root, sub)
            if name in seen and seen[name] is not sub and _structured(root, sub):
                return False
            seen.setdefault(name, sub)
    return True


_COMBINING = {"allOf", "anyOf", "oneOf", "if", "patternProperties", "$ref"}
_STRUCTURE = {"properties", "patternProperties", "additionalProperties", "items"} | _COMBINING


def _takes(schema: Schema, kind: str) -> bool:
    if "const" in schema or "enum" in schema:
        values = [schema["const"]] if "const" in schema else schema["enum"]
        return any(json_type(v) == kind for v in values)
    types = schema.get("type", kind)
    return kind in (types if isinstance(types, list) else [types])


def _structured(root: Schema, schema: Any) -> bool:
    """Whether the walk could find anything at or below this schema."""
    schema = deref(root, schema)
    return isinstance(schema, dict) and bool(set(schema) & _STRUCTURE)


def _nodes(schema: Any) -> Iterator[Schema]:
    """Every schema object inside a schema (and some plain objects, which is harmless here)."""
    if isinstance(schema, dict):
        yield schema
        for value in schema.values():
            yield from _nodes(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _nodes(value)
