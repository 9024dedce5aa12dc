"""Judge rules: template variables, and whether the validation figures still describe the judge."""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.model import Finding, Severity
from evallint.rules.base import rule
from evallint.suggest import suggest

if TYPE_CHECKING:
    from evallint.engine import Context
    from evallint.parse import Document

# A Mustache tag: {{ name }}, {{{ name }}}, {{#name}}, {{/name}}, {{^name}}, {{& name}}.
_TAG = re.compile(r"\{\{(\{?)\s*([#^/&]?)\s*([^{}]*?)\s*(\}?)\}\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_BRACES = re.compile(r"\{\{|\}\}")


def template_problems(raw: str, known: tuple[str, ...]) -> Iterator[tuple[int, int, str]]:
    """(start, end, message) for each unknown variable or malformed tag in a template's text."""
    used: list[tuple[int, int]] = []
    for m in _TAG.finditer(raw):
        used.append(m.span())
        name = m.group(3)
        if bool(m.group(1)) != bool(m.group(4)) or not _NAME.fullmatch(name):
            yield m.start(), m.end(), f"malformed template tag {m.group(0)!r}"
        elif name.split(".")[0] not in known:
            hint = suggest(name, known)
            tail = f"; did you mean {{{{ {hint} }}}}?" if hint else f"; known: {', '.join(known)}"
            yield m.start(3), m.end(3), f"unknown template variable {name!r}{tail}"
    for m in _BRACES.finditer(raw):
        if not any(start <= m.start() < end for start, end in used):
            yield m.start(), m.end(), f"unbalanced {m.group(0)!r} in template"


@rule("template-variable", Severity.ERROR, kinds=("judge",))
def template_variable(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A judge template uses a variable the evaluator does not fill, or a malformed tag.

    The variables are `input`, `output`, `expected` and `context` (set `template-variables` in
    the configuration to change them). An unknown one renders as an empty string, so the judge
    grades without the text it was meant to see. Reported at the exact line and column, also
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


@rule("judge-validation-stale", Severity.WARNING, kinds=("judge",), strict=Severity.ERROR)
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


@rule("judge-validation-version", Severity.WARNING, kinds=("judge",))
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
