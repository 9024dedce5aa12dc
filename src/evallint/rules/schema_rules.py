"""Rules that report what a file's JSON Schema rejects."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.kinds import VERSIONED
from evallint.model import Finding, Fix, Severity
from evallint.rules.api import missing_key
from evallint.rules.base import rule
from evallint.validation.schemas import SchemaError, json_type

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context


def _yaml_trap(doc: Document, err: SchemaError) -> str | None:
    """The unquoted text behind a value YAML 1.1 typed where the schema wants a string."""
    if doc.fmt != "yaml" or err.keyword != "type" or isinstance(err.value, dict | list):
        return None
    wanted = err.expected if isinstance(err.expected, list) else [err.expected]
    if "string" not in wanted:
        return None
    smap = doc.source_map()
    raw = smap.plain.get(err.pointer) if smap is not None else None
    # Nothing, or a tilde, is no text anyone meant to write: quoting it would make a text of
    # it ("" after `key:` even breaks the line). That is a missing value: schema-violation's.
    return None if raw in ("", "~") else raw


@rule("schema-violation", Severity.ERROR)
def schema_violation(doc: Document, ctx: Context) -> Iterator[Finding]:
    """The file does not match the JSON Schema of its kind.

    Missing required keys are reported on the object that lacks them; wrong types, values outside
    an enum (with a did-you-mean), malformed versions and references on the value itself.
    `evallint schema NAME` prints the schema.

    Bad (rubrics/tone.yaml):
        id: tone
        version: "1.0.0"
        checks:
          - kind: must_contain_any
            id: polite
        scoring: {combine: all_pass}
    Good (rubrics/tone.yaml):
        id: tone
        version: "1.0.0"
        checks:
          - kind: must_contain_any
            id: polite
            values: [please, thank you]
        scoring: {combine: all_pass}
    """
    folded = ctx.misspelt_required(doc)
    for err in ctx.schema_errors(doc):
        if _yaml_trap(doc, err) is not None:
            continue
        if (err.pointer, missing_key(err)) in folded:
            continue  # a misspelling of it is there: the key rules report the one slip
        yield Finding(err.pointer, err.message, on_key=err.keyword == "required")


@rule("yaml-implicit-type", Severity.ERROR, fixable=True)
def yaml_implicit_type(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An unquoted YAML value is read as a number, boolean or null where text is expected.

    YAML 1.1 reads `version: 1.10` as the number 1.1, and `no`, `off`, `yes`, `on` as booleans.
    Quote such values. Unquoted dates are kept as text, so `validated_at: 2026-01-31` is fine.
    Nothing after the key, or `~`, is a missing value rather than a word to quote: that is a
    `schema-violation`, with no fix.

    Bad (judges/accuracy.yaml):
        id: accuracy
        version: 1.10
        template: "Score {{ output }}"
    Good (judges/accuracy.yaml):
        id: accuracy
        version: "1.10.0"
        template: "Score {{ output }}"
    """
    for err in ctx.schema_errors(doc):
        raw = _yaml_trap(doc, err)
        if raw is not None:
            text = _meant(raw, err, ctx)
            if text is None:
                advice = 'nor is it a semantic version (such as "1.0.0")'
            elif text == raw:
                advice = f'quote it: "{text}"'
            else:
                advice = f'write it as text: "{text}"'
            yield Finding(
                err.pointer,
                f"{raw} is read by YAML as {_as_read(err.value)}, not as text; {advice}",
                fix=Fix(err.pointer, raw, f'"{text}"') if text is not None else None,
            )


_SHORT_VERSION = re.compile(r"(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))?")


def _meant(raw: str, err: SchemaError, ctx: Context) -> str | None:
    """The text a trapped value stands for. A versioned file's `version` must be a full
    semantic version, so `1.10` quoted as "1.10" would still be rejected: it is "1.10.0";
    and `yes` stands for no version at all (None: no fix can say which)."""
    if err.pointer == ctx.kind.version_at and ctx.kind in VERSIONED:
        if not _SHORT_VERSION.fullmatch(raw):
            return None
        return raw + ".0" * (2 - raw.count("."))
    return raw


def _as_read(value: object) -> str:
    """What YAML made of a value, in YAML's spelling (`false`, `null`), not Python's."""
    if value is None:
        return "null"
    shown = str(value).lower() if isinstance(value, bool) else repr(value)
    return f"the {json_type(value)} {shown}"
