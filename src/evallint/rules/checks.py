"""Check sanity a schema cannot express: patterns compile, schemas are schemas, weights count.

Nothing here runs a pattern or a schema against anything: they are only compiled.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from evallint.kinds import agentv, ai_eval, items
from evallint.model import Finding, Pointer, Severity
from evallint.rules.base import rule
from evallint.suggest import suggest
from evallint.validation.vocabulary import KEYWORDS, SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_ONE, TYPES

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context

_FLAGS = {
    "i": re.IGNORECASE,
    "m": re.MULTILINE,
    "s": re.DOTALL,
    "x": re.VERBOSE,
    "u": 0,
}  # PCRE's u (UTF-8) is Python's default for str patterns


def _checks(doc: Document, kind: str) -> Iterator[tuple[int, dict[str, Any]]]:
    for i, check in items(doc.data, "checks"):
        if check.get("kind") == kind:
            yield i, check


# JavaScript's RegExp (AgentV) spells named groups (?<n>...) and \\k<n>; Python (?P<n>...).
_JS_TO_PY = ((re.compile(r"\(\?<(?=[A-Za-z_])"), "(?P<"), (re.compile(r"\\k<(\w+)>"), r"(?P=\1)"))
_PY_ONLY = (  # (construct, what JavaScript makes of it, what to write instead)
    ("(?P<", "", "(?<name>…)"),
    ("(?P=", "", "\\k<name>"),
    ("(?#", "", "no comments"),
    # Not errors in JavaScript: an escaped letter is the letter (an error with the u flag).
    ("\\A", "the letter 'A', not the start of the text", "^"),
    ("\\Z", "the letter 'Z', not the end of the text", "$"),
)


def _agentv_patterns(doc: Document) -> Iterator[tuple[Pointer, str]]:
    list_key, cases = agentv.case_list(doc.data)
    for i, case in cases:
        for at, grader in agentv.graders(case, (list_key, i)):
            if grader.get("type") == "regex" and isinstance(grader.get("value"), str):
                yield (*at, "value"), grader["value"]


def _js_problem(doc: Document, pointer: Pointer, pattern: str) -> Finding | None:
    for construct, reading, instead in _PY_ONLY:
        if construct in pattern:
            said = (
                f"reads {construct!r} as {reading}" if reading else f"does not accept {construct!r}"
            )
            return Finding(
                pointer, f"JavaScript's RegExp, which AgentV uses, {said}; write {instead}"
            )
    translated = pattern
    for rx, repl in _JS_TO_PY:
        translated = rx.sub(repl, translated)
    exc = compile_error(translated)
    if exc is not None:
        return _at_pattern(doc, pointer, pattern if translated == pattern else translated, exc)
    return None


def compile_error(pattern: str, flags: int = 0) -> re.error | None:
    """Why Python's `re` cannot take a pattern from a file, if it cannot (never a crash)."""
    try:
        re.compile(pattern, flags)
    except re.error as exc:
        return exc
    except (OverflowError, RecursionError, MemoryError, ValueError) as exc:
        # a{4294967296}: a repeat count or nesting beyond what the engine can represent
        return re.error(f"beyond what the regex engine can hold: {exc}")
    return None


@rule(
    "invalid-regex",
    Severity.ERROR,
    kinds=(ai_eval.RUBRIC, *agentv.SUITES),
)
def invalid_regex(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A regex check's pattern does not compile.

    Compiled with Python's `re` (never run). ai_eval is PHP, so its regex executor (none ships
    in 1.0.0-beta3) would use PCRE, which also accepts a few constructs Python rejects (`\\K`,
    `(?|`, recursion); the message quotes the compiler so such a case is easy to judge. AgentV
    runs patterns with JavaScript's RegExp: Python-only spellings such as `(?P<name>...)` are
    reported with the JavaScript one. Reported at the column of the error inside the pattern
    when the pattern is written without escapes.

    Bad (rubrics/format.yaml):
        id: format
        version: "1.0.0"
        checks: [{kind: regex, id: version, pattern: 'v(\\d+'}]
        scoring: {combine: all_pass}
    Good (rubrics/format.yaml):
        id: format
        version: "1.0.0"
        checks: [{kind: regex, id: version, pattern: 'v(\\d+)'}]
        scoring: {combine: all_pass}
    """
    if ctx.kind.name != ai_eval.RUBRIC.name:
        for pointer, text in _agentv_patterns(doc):
            found = _js_problem(doc, pointer, text)
            if found is not None:
                yield found
        return
    for i, check in _checks(doc, "regex"):
        pattern, flags = check.get("pattern"), check.get("flags", "")
        if not isinstance(pattern, str):
            continue
        bits = 0
        for letter in flags if isinstance(flags, str) else "":
            if letter not in _FLAGS:
                yield Finding(
                    ("checks", i, "flags"),
                    f"unknown regex flag {letter!r}; expected some of {', '.join(sorted(_FLAGS))}",
                )
            bits |= _FLAGS.get(letter, 0)
        exc = compile_error(pattern, bits)
        if exc is not None:
            yield _at_pattern(doc, ("checks", i, "pattern"), pattern, exc)


def _at_pattern(doc: Document, pointer: Pointer, pattern: str, exc: re.error) -> Finding:
    message = f"pattern does not compile: {exc.msg}"
    if exc.pos is not None:
        message += f" at position {exc.pos}"
    raw = doc.raw(pointer) or ""
    where = raw.find(pattern)
    if where < 0 or exc.pos is None:
        return Finding(pointer, message)
    start = where + exc.pos
    return Finding(pointer, message, within=(start, min(start + 1, where + len(pattern))))


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
