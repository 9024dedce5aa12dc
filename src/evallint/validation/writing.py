"""What the formats' schema sources (`formats/<name>/schemas*.py`) write schemas with: the
patterns spelt once (semver, pins, snake_case ids) and small builders. Never imported by a run:
`tools/schemas.py` calls the sources and writes schema/."""

from __future__ import annotations

from typing import Any

NUM = "(?:0|[1-9][0-9]*)"
_IDENT = "(?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)"
PRE = rf"(?:-{_IDENT}(?:\.{_IDENT})*)?"
BUILD = r"(?:\+[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*)?"
SEMVER = rf"^{NUM}\.{NUM}\.{NUM}{PRE}{BUILD}$"
PIN = rf"(?:@{NUM}(?:\.{NUM}(?:\.{NUM}{PRE}{BUILD})?)?)?"
SNAKE = "^[a-z][a-z0-9_]*$"
DRAFT = "http://json-schema.org/draft-07/schema#"

S = dict[str, Any]


def string(description: str, **extra: Any) -> S:
    return {"type": "string", "description": description, **extra}


def strings(description: str, *, min_items: int = 0) -> S:
    out: S = {"type": "array", "description": description, "items": {"type": "string"}}
    if min_items:
        out["minItems"] = min_items
    return out


def integer(description: str, minimum: int, maximum: int | None = None) -> S:
    out: S = {"type": "integer", "description": description, "minimum": minimum}
    if maximum is not None:
        out["maximum"] = maximum
    return out


SEMVER_DEF: S = {
    "title": "a semantic version such as 1.2.0",
    "type": "string",
    "pattern": SEMVER,
}


def ref_def(kind: str) -> S:
    return {
        "title": f"a {kind} reference {kind}/<id> with an optional @MAJOR, @MAJOR.MINOR or "
        "@MAJOR.MINOR.PATCH pin",
        "type": "string",
        "pattern": rf"^{kind}/[a-z][a-z0-9_]*{PIN}$",
    }


ID_DEF: S = {"title": "a snake_case id", "type": "string", "pattern": SNAKE}


def root(name: str, title: str, description: str, body: S) -> S:
    return {
        "$schema": DRAFT,
        "$id": f"urn:evallint:schema:{name}",
        "title": title,
        "description": description,
        **body,
    }


# Shared by ai_eval's markdown checks and ai_best_practices' static grader.
MARKDOWN_RULES: dict[str, S] = {
    "min_headings": integer("At least this many headings.", 0),
    "max_heading_level": integer("No heading deeper than this level.", 1, 6),
    "required_sections": strings("Headings that must be present."),
    "forbidden_patterns": strings("Regular expressions that must not match."),
    "min_code_blocks": integer("At least this many fenced code blocks.", 0),
    "min_paragraphs": integer("At least this many paragraphs.", 0),
    "no_h1": {"type": "boolean", "description": "true: the answer must not contain an H1."},
}
