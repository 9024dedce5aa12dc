"""Judge rules: template variables, and whether the validation figures still describe the judge."""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.ai_eval import kinds as ai_eval
from evallint.model import Finding, Severity
from evallint.records import record
from evallint.rules.base import rule
from evallint.suggest import suggest

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_BRACES = re.compile(r"\{\{|\}\}")
_BODY = re.compile(r"[^{}]*+")  # a tag's text runs to the next brace


@record
class _Tag:
    """A Mustache tag: {{ name }}, {{{ name }}}, {{#name}}, {{/name}}, {{^name}}, {{& name}}."""

    start: int
    end: int
    name_start: int
    name_end: int
    balanced: bool  # {{{ closes with }}}, {{ with }}


def _tags(raw: str) -> Iterator[_Tag]:
    """Each tag, left to right, by a scanner that reads each character a bounded number of times
    (a regex for this grew as n**4 on `{{` followed by spaces)."""
    i = 0
    while (start := raw.find("{{", i)) >= 0:
        triple = raw.startswith("{", start + 2)
        body = start + 2 + triple
        stop = _BODY.match(raw, body).end()  # type: ignore[union-attr]
        if not raw.startswith("}}", stop):
            i = start + 1
            continue
        closes = raw.startswith("}}}", stop)
        text = raw[body:stop]
        lead = len(text) - len(text.lstrip())
        if text[lead : lead + 1] in ("#", "^", "/", "&"):
            lead += 1
            lead += len(text[lead:]) - len(text[lead:].lstrip())
        name_end = body + len(text.rstrip())
        yield _Tag(
            start, stop + 2 + closes, body + lead, max(body + lead, name_end), triple == closes
        )
        i = stop + 2 + closes


def template_problems(raw: str, known: tuple[str, ...]) -> Iterator[tuple[int, int, str]]:
    """(start, end, message) for each unknown variable or malformed tag in a template's text."""
    used: list[tuple[int, int]] = []
    for tag in _tags(raw):
        used.append((tag.start, tag.end))
        name = raw[tag.name_start : tag.name_end]
        if not tag.balanced or not _NAME.fullmatch(name):
            yield tag.start, tag.end, f"malformed template tag {raw[tag.start : tag.end]!r}"
        elif name.split(".")[0] not in known:
            hint = suggest(name, known)
            tail = f"; did you mean {{{{ {hint} }}}}?" if hint else f"; known: {', '.join(known)}"
            yield tag.name_start, tag.name_end, f"unknown template variable {name!r}{tail}"
    k = 0  # tags and braces both run left to right: one pass over each
    for m in _BRACES.finditer(raw):
        while k < len(used) and used[k][1] <= m.start():
            k += 1
        if not (k < len(used) and used[k][0] <= m.start()):
            yield m.start(), m.end(), f"unbalanced {m.group(0)!r} in template"


@rule("template-variable", Severity.ERROR, kinds=(ai_eval.JUDGE,))
def template_variable(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A judge template uses a variable the evaluator does not fill, or a malformed tag.

    The variables are `input`, `output`, `expected` and `context` (set `template-variables` in
    the configuration to change them). The proposal makes templates Mustache-style, and
    Mustache renders a variable it does not know as an empty string, so the judge grades without
    the text it was meant to see. Reported at the exact line and column, also
    inside multi-line block scalars.

    Bad (judges/accuracy.yaml):
        id: accuracy
        version: "1.0.0"
        template: |
          Question: {{ input }}
          Answer: {{ ouput }}
    Good (judges/accuracy.yaml):
        id: accuracy
        version: "1.0.0"
        template: |
          Question: {{ input }}
          Answer: {{ output }}
    """
    if not isinstance(doc.data, dict) or not isinstance(doc.data.get("template"), str):
        return
    raw = doc.raw(("template",))
    if raw is None:
        return
    for start, end, message in template_problems(raw, ctx.config.template_variables):
        yield Finding(("template",), message, within=(start, end))


def _validation(doc: Document) -> dict[str, object]:
    found = doc.data.get("validation") if isinstance(doc.data, dict) else None
    return found if isinstance(found, dict) else {}


@rule("judge-validation-stale", Severity.WARNING, kinds=(ai_eval.JUDGE,), strict=Severity.ERROR)
def judge_validation_stale(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A judge's validation is older than the allowed age (90 days by default).

    `validation.validated_at` dates the TPR/TNR figures. Models and data drift, so the ai_eval
    design asks for re-validation after 90 days (`validation-max-age-days` changes the window).
    The date compared with is today, or `--today`, or `SOURCE_DATE_EPOCH`. An error under
    `--strict`.

    Bad (judges/accuracy.yaml):
        id: accuracy
        version: "1.0.0"
        template: "Grade {{ output }}"
        validation: {validated_at: 2020-01-01}
    Good (judges/accuracy.yaml):
        id: accuracy
        version: "1.0.0"
        template: "Grade {{ output }}"
        validation: {validated_at: 2999-01-01}
    """
    text = _validation(doc).get("validated_at")
    try:
        when = datetime.date.fromisoformat(text) if isinstance(text, str) else None
    except ValueError:
        return  # the schema reports malformed dates
    if when is None:
        return
    age = (ctx.today - when).days
    limit = ctx.config.validation_max_age_days
    if age > limit:
        yield Finding(
            ("validation", "validated_at"),
            f"validated {age} days ago ({when}), more than {limit} days before "
            f"{ctx.today}; re-validate the judge",
        )


@rule("judge-validation-version", Severity.WARNING, kinds=(ai_eval.JUDGE,))
def judge_validation_version(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A judge's validation figures were measured on another version of it.

    `validation.validated_against` should equal the judge's `version`: after a template change
    the TPR/TNR numbers describe a judge that no longer exists.

    Bad (judges/accuracy.yaml):
        id: accuracy
        version: "2.0.0"
        template: "Grade {{ output }}"
        validation: {validated_against: "1.0.0"}
    Good (judges/accuracy.yaml):
        id: accuracy
        version: "2.0.0"
        template: "Grade {{ output }}"
        validation: {validated_against: "2.0.0"}
    """
    against = _validation(doc).get("validated_against")
    version = doc.data.get("version") if isinstance(doc.data, dict) else None
    if isinstance(against, str) and isinstance(version, str) and against != version:
        yield Finding(
            ("validation", "validated_against"),
            f"the TPR/TNR figures were measured on version {against}, not on the current {version}",
        )
