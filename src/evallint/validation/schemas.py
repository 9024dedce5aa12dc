"""Bundled JSON Schemas: compiled once; errors turned into exact pointers and plain words.

fastjsonschema is compiled with `use_default=False` (it would otherwise write defaults into the
data the rules read), `fast_fail=False` (every error in a file, not the first), and `$ref`
handlers that refuse every scheme (by default it fetches remote refs with urllib).
"""

from __future__ import annotations

import functools
import importlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from evallint.errors import EvallintError
from evallint.model import JSON, Pointer
from evallint.records import field, record
from evallint.suggest import suggest
from evallint.validation.codegen import module_name, stamp
from evallint.validation.raised import SchemaFailure, SchemaFailures

Validator = Callable[[JSON], JSON]


def _refuse(uri: str) -> JSON:
    raise EvallintError(
        f"schema $ref {uri!r} is not resolved: evallint never reads the network "
        "or files outside its own schemas"
    )


class _RefuseAll(dict[str, Callable[[str], JSON]]):
    """A handler table that claims every URI scheme, so nothing falls through to urlopen."""

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: str) -> Callable[[str], JSON]:
        return _refuse


NO_NETWORK = _RefuseAll()


@functools.cache
def schema_dir() -> Path:
    # The wheel puts the schemas beside the package code (importlib.resources would say the
    # same, for ~25 ms of imports); a source checkout has them in the top-level schema/ folder.
    package = Path(__file__).resolve().parents[1]
    packaged = package / "schema"
    return packaged if packaged.is_dir() else package.parents[1] / "schema"


def schema_names() -> list[str]:
    root = schema_dir()
    return sorted(
        p.relative_to(root).as_posix().removesuffix(".schema.json")
        for p in root.rglob("*.schema.json")
    )


@functools.cache
def load_schema(name: str) -> dict[str, Any]:
    path = schema_dir() / f"{name}.schema.json"
    if not path.is_file():
        raise EvallintError(f"no bundled schema {name!r}; known: {', '.join(schema_names())}")
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return schema


def compile_schema(schema: dict[str, Any], *, fast_fail: bool = False) -> Validator:
    import fastjsonschema  # deferred: ~20 ms of import that a `rules` run never needs

    from evallint.validation.codegen import entry_name, tune

    code = tune(
        fastjsonschema.compile_to_code(
            schema, handlers=NO_NETWORK, use_default=False, fast_fail=fast_fail
        )
    )
    namespace: dict[str, Any] = {}
    # The code is generated from our bundled schemas, never from a linted repository.
    exec(compile(code, "<evallint schema>", "exec"), namespace)
    validator: Validator = namespace[entry_name(code)]
    return validator


def _generated(name: str) -> Validator | None:
    """The validator the wheel build generated for this schema, if it matches the schema file.

    Generating Python from a schema is cheap; compiling that Python costs most of a cold start
    (34 ms for the rubric schema). Wheels carry the generated modules, which pip byte-compiles at
    install time. A stale or missing module (an editable install) falls back to compiling.
    """
    try:
        module = importlib.import_module(f"evallint._compiled.{module_name(name)}")
    except ImportError:
        return None
    if getattr(module, "SCHEMA_STAMP", None) != stamp(
        (schema_dir() / f"{name}.schema.json").read_bytes()
    ):
        return None
    found: Validator = module.VALIDATE
    return found


@functools.cache
def validator(name: str) -> Validator:
    return _generated(name) or compile_schema(load_schema(name))


FAST_FROM = 32  # documents of one schema before jsonschema-rs pays for its ~25 ms start


@record(frozen=False, eq=False)  # one per run, shared by identity
class Engines:
    """When a run asks the fast engine (jsonschema-rs) first: only past the `fast_from`-th
    document of one schema, since a pre-commit run of a few files is faster without loading
    it; a run that knows it is large says so with `fast_from=0`."""

    fast_from: int = FAST_FROM
    _seen: dict[str, int] = field(default_factory=dict)

    def bulk(self, name: str, documents: int = 1) -> bool:
        """Count `documents` more of schema `name`; whether the fast engine is now asked."""
        n = self._seen[name] = self._seen.get(name, 0) + documents
        return n > self.fast_from


FEW = Engines()  # for one-off validations outside a run (the configuration)


@functools.cache
def fast_verdict(name: str) -> Callable[[JSON], bool] | None:
    """jsonschema-rs's yes/no for a bundled schema, when the `fast` extra is installed.

    It answers "valid" about fifteen times faster than fastjsonschema, and valid is the common
    case; an invalid document is validated again by fastjsonschema, so every message and
    position comes from one engine. Tests check that both give the same verdict on every
    document the suite knows.
    """
    return fast_compile(load_schema(name))


def fast_compile(schema: dict[str, Any]) -> Callable[[JSON], bool] | None:
    """jsonschema-rs's yes/no for a schema; None without the `fast` extra, or when
    EVALLINT_ENGINE=python turns it off."""
    import os

    if os.environ.get("EVALLINT_ENGINE") == "python":
        return None
    try:
        import jsonschema_rs
    except ImportError:
        return None
    # The retriever refuses every URI, so a $ref can never reach the network or the disk.
    compiled = jsonschema_rs.validator_for(schema, validate_formats=True, retriever=_refuse)
    is_valid = compiled.is_valid

    def check(data: JSON) -> bool:
        try:
            return bool(is_valid(data))
        except (UnicodeEncodeError, OverflowError):
            # Text the Rust engine cannot take (a lone surrogate, "\ud800", in a key or a
            # value): no verdict, so fastjsonschema decides, as for any document it rejects.
            return False
        except ValueError:
            # A text of a subclass of str (a YAML `!function` value) is no type the engine
            # takes: asked again with each as plain text, as every schema reads it. Without
            # this, every harness config naming a function took the slow path.
            return _plain_check(is_valid, data)

    return check


def _plain_check(is_valid: Callable[[JSON], object], data: JSON) -> bool:
    try:
        return bool(is_valid(_plain(data)))
    except (ValueError, OverflowError, RecursionError):
        return False


def _plain(value: JSON) -> JSON:
    if type(value) is str:  # most values: as they are, with no further test
        return value
    if isinstance(value, dict):
        return {k if type(k) is str else str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return str(value) if isinstance(value, str) else value


@record
class SchemaError:
    """One place a document breaks its JSON Schema."""

    pointer: Pointer
    keyword: str
    message: str
    value: JSON
    expected: JSON  # the keyword's argument (the `type`, the `enum` list, ...)


def validate(name: str, data: JSON, engines: Engines = FEW) -> list[SchemaError]:
    try:
        quick = engines.bulk(name) and fast_verdict(name)
        if quick and quick(data):
            return []
        return _run(validator(name), load_schema(name), data, ())
    except RecursionError:
        return [SchemaError((), "depth", "document is nested too deeply to validate", None, None)]


def _run(check: Validator, root: dict[str, Any], data: JSON, at: Pointer) -> list[SchemaError]:
    try:
        check(data)
    except SchemaFailures as exc:
        return [e for err in exc.errors for e in _convert(err, data, root, at)]
    return []


# By the alternative's content, never its `id()`: fastjsonschema's errors carry a copy of the
# schema each time, freed once handled, and a later copy of another alternative may take the
# same address (a stale validator then gave another shape's messages, now and then).
_BRANCHES: dict[tuple[int, str], Validator] = {}


def _branch(root: dict[str, Any], alternative: dict[str, Any]) -> Validator:
    """A validator for one alternative of an anyOf, with the root's definitions in reach."""
    key = (id(root), json.dumps(alternative, sort_keys=True, default=repr))
    found = _BRANCHES.get(key)
    if found is None:
        found = compile_schema({**alternative, "definitions": root.get("definitions", {})})
        _BRANCHES[key] = found
    return found


def _the_alternative(
    root: dict[str, Any], alternatives: JSON, value: JSON
) -> dict[str, Any] | None:
    """The one alternative of an anyOf that takes values of this type, if only one does."""
    kind = json_type(value)
    fits = []
    for alt in alternatives if isinstance(alternatives, list) else []:
        target = deref(root, alt)
        types = target.get("type") if isinstance(target, dict) else None
        names = types if isinstance(types, list) else [types]
        if kind in names or (kind == "integer" and "number" in names):
            fits.append(target)
    return fits[0] if len(fits) == 1 else None


def resolve(root: dict[str, Any], ref: str) -> Any:
    """What a local `$ref` (`#/definitions/x`) names inside `root`."""
    node: Any = root
    for part in ref.lstrip("#/").split("/"):
        node = node[part]
    return node


def deref(root: dict[str, Any], schema: Any) -> Any:
    """`schema`, or what its chain of `$ref`s leads to."""
    while isinstance(schema, dict) and "$ref" in schema:
        schema = resolve(root, schema["$ref"])
    return schema


def pointer_of(name: str, data: JSON) -> Pointer:
    """fastjsonschema's `data.a.b[3]` back to a pointer, by walking the real data.

    Its `.path` is ambiguous for keys holding '.' or '[' (fastjsonschema issue #97); walking the
    data and taking the longest key that fits is not.
    """
    rest = name[4:] if name.startswith("data") else name
    cur, out = data, []
    while rest:
        if rest[0] == "[" and isinstance(cur, list):
            close = rest.index("]")
            index = int(rest[1:close])
            out.append(index)
            cur, rest = cur[index], rest[close + 1 :]
        elif rest[0] == "." and isinstance(cur, dict):
            rest = rest[1:]
            key = max(
                (
                    k
                    for k in cur
                    if rest.startswith(k) and rest[len(k) : len(k) + 1] in ("", ".", "[")
                ),
                key=len,
                default=None,
            )
            if key is None:
                break
            out.append(key)
            cur, rest = cur[key], rest[len(key) :]
        else:
            break
    return tuple(out)


_JSON_TYPES = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    type(None): "null",
    int: "integer",
    float: "number",
}


def json_type(value: JSON) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _convert(
    err: SchemaFailure, data: JSON, root: dict[str, Any], at: Pointer
) -> Iterator[SchemaError]:
    keyword, arg, value = err.rule or "", err.rule_definition, err.value
    pointer = (*at, *pointer_of(err.name or "data", data))
    if keyword in ("anyOf", "oneOf") and isinstance(value, dict | list):
        # "matches no shape" says little; when only one shape takes this kind of value, say
        # what is wrong with the value as that shape.
        alternative = _the_alternative(root, arg, value)
        if alternative is not None:
            found = _run(_branch(root, alternative), root, value, pointer)
            if found:
                yield from found
                return
    if keyword == "additionalProperties":
        return  # the unknown-key rule owns these, with a did-you-mean
    if keyword == "required":
        for key in arg:
            if isinstance(value, dict) and key not in value:
                yield SchemaError(pointer, keyword, f"missing required key {key!r}", value, key)
        return
    yield SchemaError(pointer, keyword, _message(keyword, arg, value, err.definition), value, arg)


def _message(keyword: str, arg: JSON, value: JSON, definition: dict[str, Any]) -> str:
    if keyword == "type":
        wanted = " or ".join(arg) if isinstance(arg, list) else arg
        shown = "" if isinstance(value, dict | list) or value is None else f" {_short(value)}"
        return f"expected {wanted}, got {json_type(value)}{shown}"
    if keyword == "enum":
        hint = suggest(value, [str(a) for a in arg]) if isinstance(value, str) else None
        tail = f"; did you mean {hint!r}?" if hint else ""
        return f"{_short(value)} is not one of {', '.join(map(repr, arg))}{tail}"
    if keyword == "pattern":
        title = definition.get("title")
        return (
            f"{_short(value)} is not {title}"
            if title
            else f"{_short(value)} does not match {arg!r}"
        )
    if keyword in ("minItems", "minLength") and arg == 1:
        return "must not be empty"
    if keyword in ("anyOf", "oneOf"):
        keys = [
            next(iter(alt["required"]))
            for alt in arg
            if isinstance(alt, dict) and list(alt) == ["required"]
        ]
        if len(keys) == len(arg):
            return f"needs one of {', '.join(map(repr, keys))}"
        return "does not match any allowed shape"
    return _SIMPLE.get(keyword, "{keyword}: {arg!r}").format(
        keyword=keyword, arg=arg, value=_short(value)
    )


_SIMPLE = {
    "minItems": "needs at least {arg} items",
    "maxItems": "has more than {arg} items",
    "minLength": "must be at least {arg} characters long",
    "maxLength": "must be at most {arg} characters long",
    "minimum": "{value} is less than the minimum {arg}",
    "maximum": "{value} is more than the maximum {arg}",
    "exclusiveMinimum": "{value} must be more than {arg}",
    "exclusiveMaximum": "{value} must be less than {arg}",
    "const": "expected {arg!r}, got {value}",
    "format": "{value} is not a valid {arg}",
    "uniqueItems": "items must be unique",
    "minProperties": "needs at least {arg} keys",
    "not": "this value is not allowed here",
}


def _short(value: JSON) -> str:
    text = repr(value) if not isinstance(value, dict | list) else json_type(value)
    return text if len(text) <= 60 else text[:57] + "..."
