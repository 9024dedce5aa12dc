"""Rubric check sanity a schema cannot express: schemas are schemas, weights count, kinds are
known. Nothing here runs a schema against anything: they are only compiled."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from evallint.formats.ai_eval import kinds as ai_eval
from evallint.kinds import items
from evallint.model import Finding, Pointer, Severity
from evallint.rules.api import compile_error
from evallint.rules.base import rule
from evallint.suggest import suggest
from evallint.validation.schemas import load_schema
from evallint.validation.vocabulary import KEYWORDS, SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_ONE, TYPES

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context


def _checks(doc: Document, kind: str) -> Iterator[tuple[int, dict[str, Any]]]:
    for i, check in items(doc.data, "checks"):
        if check.get("kind") == kind:
            yield i, check


def schema_problems(schema: Any, pointer: Pointer) -> Iterator[tuple[Pointer, str, bool]]:
    """(pointer, message, on_key) for what makes `schema` not a JSON Schema."""
    if isinstance(schema, bool):
        return
    if not isinstance(schema, dict):
        yield (
            pointer,
            f"a schema must be an object or a boolean, not {type(schema).__name__}",
            False,
        )
        return
    for key, value in schema.items():
        here = (*pointer, key)
        if key not in KEYWORDS:
            hint = suggest(key, KEYWORDS)
            if hint:
                yield here, f"unknown schema keyword {key!r}; did you mean {hint!r}?", True
        elif key == "type":
            names = enumerate(value) if isinstance(value, list) else [(None, value)]
            for n, bad in names:
                if not isinstance(bad, str) or bad not in TYPES:  # {} or [] are not hashable
                    at = here if n is None else (*here, n)
                    yield (
                        at,
                        f"{bad!r} is not a JSON Schema type; expected one of "
                        f"{', '.join(sorted(TYPES))}",
                        False,
                    )
        elif key == "required" and not (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        ):
            yield here, "required must be a list of property names", False
        elif key == "pattern" and isinstance(value, str):
            exc = compile_error(value)
            if exc is not None:
                yield here, f"pattern does not compile: {exc.msg}", False
        elif key in SCHEMA_MAPS:
            if isinstance(value, dict):
                for name, sub in value.items():
                    yield from schema_problems(sub, (*here, name))
            else:
                yield here, f"{key} must map names to schemas", False
        elif key in SCHEMA_LISTS:
            if isinstance(value, list):
                for n, sub in enumerate(value):
                    yield from schema_problems(sub, (*here, n))
            else:
                yield here, f"{key} must be a list of schemas", False
        elif key in SCHEMA_ONE and key == "items" and isinstance(value, list):
            for n, sub in enumerate(value):  # draft-07 tuple form
                yield from schema_problems(sub, (*here, n))
        elif key in SCHEMA_ONE:
            yield from schema_problems(value, here)


@rule("invalid-json-schema", Severity.ERROR, kinds=(ai_eval.RUBRIC,))
def invalid_json_schema(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A json_schema check embeds something that is not a valid JSON Schema.

    Checks types, `required`, sub-schema shapes and patterns, and reports misspelt keywords
    (`requried`), which a validator would silently ignore.

    Bad (rubrics/summary.yaml):
        id: summary
        version: "1.0.0"
        checks:
          - kind: json_schema
            id: shape
            schema: {type: obj, requried: [version]}
        scoring: {combine: all_pass}
    Good (rubrics/summary.yaml):
        id: summary
        version: "1.0.0"
        checks:
          - kind: json_schema
            id: shape
            schema: {type: object, required: [version]}
        scoring: {combine: all_pass}
    """
    for i, check in _checks(doc, "json_schema"):
        if isinstance(check.get("schema"), dict):
            for pointer, message, on_key in schema_problems(
                check["schema"], ("checks", i, "schema")
            ):
                yield Finding(pointer, message, on_key=on_key)


@rule("weight-ignored", Severity.NOTE, kinds=(ai_eval.RUBRIC,), precision="high")
def weight_ignored(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A check has a `weight`, but the rubric does not combine with `weighted_avg`.

    Weights count only under `scoring.combine: weighted_avg`; elsewhere they have no effect,
    which is usually not what the author meant.

    Bad (rubrics/tone.yaml):
        id: tone
        version: "1.0.0"
        checks: [{kind: php_lint, id: lint, weight: 2}]
        scoring: {combine: all_pass}
    Good (rubrics/tone.yaml):
        id: tone
        version: "1.0.0"
        checks: [{kind: php_lint, id: lint, weight: 2}]
        scoring: {combine: weighted_avg}
    """
    scoring = doc.data.get("scoring") if isinstance(doc.data, dict) else None
    combine = scoring.get("combine") if isinstance(scoring, dict) else None
    if not isinstance(combine, str) or combine == "weighted_avg":
        return
    for i, check in items(doc.data, "checks"):
        if "weight" in check:
            yield Finding(
                ("checks", i, "weight"),
                f"weight has no effect: scoring.combine is {combine!r}, not 'weighted_avg'",
                on_key=True,
            )


def known_check_kinds() -> list[str]:
    kinds: list[str] = load_schema(ai_eval.RUBRIC.name)["definitions"]["check"]["properties"][
        "kind"
    ]["examples"]
    return kinds


@rule("unknown-check-kind", Severity.WARNING, kinds=(ai_eval.RUBRIC,))
def unknown_check_kind(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A rubric check has a `kind` no built-in executor runs.

    Executors can add kinds, so this is a warning; a check no executor claims is left out of the
    score. A kind close to a built-in one is reported with the kind it probably meant.

    Bad (rubrics/tone.yaml):
        id: tone
        version: "1.0.0"
        checks: [{kind: must_contain, id: polite, values: [please]}]
        scoring: {combine: all_pass}
    Good (rubrics/tone.yaml):
        id: tone
        version: "1.0.0"
        checks: [{kind: must_contain_any, id: polite, values: [please]}]
        scoring: {combine: all_pass}
    """
    checks = doc.data.get("checks") if isinstance(doc.data, dict) else None
    if not isinstance(checks, list):
        return
    known = known_check_kinds()
    for i, check in enumerate(checks):
        kind = check.get("kind") if isinstance(check, dict) else None
        if isinstance(kind, str) and kind not in known:
            hint = suggest(kind, known)
            tail = f"; did you mean {hint!r}?" if hint else " (no built-in executor runs it)"
            yield Finding(("checks", i, "kind"), f"unknown check kind {kind!r}{tail}")
