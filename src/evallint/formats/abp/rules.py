"""ai_best_practices evals.json: the keys its runners read without a default."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.abp import kinds as abp
from evallint.model import Finding, Severity
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context


@rule("evals-key-missing", Severity.ERROR, kinds=(abp.EVALS,))
def evals_key_missing(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An evals.json has no `evals` list, so its runner runs no case at all.

    The ai_best_practices runner reads `evals` (or, without it, the legacy `behavioral_cases`,
    which is checked like `evals`) and runs zero cases when neither is there;
    agent-module-documentation's runner reads `spec["evals"]` and stops with a KeyError. Real
    files that say `cases` do both.

    Bad (evals/refunds/evals.json):
        {"skill_name": "refunds", "cases": [{"id": "window", "prompt": "a"}]}
    Good (evals/refunds/evals.json):
        {"skill_name": "refunds", "evals": [{"id": "window", "prompt": "a"}]}
    """
    if not isinstance(doc.data, dict) or abp.case_key(doc.data) in doc.data:
        return
    if "cases" in doc.data:
        yield Finding(
            ("cases",),
            "the runner reads 'evals', not 'cases': no case in this file "
            "would run; rename the key to 'evals'",
            on_key=True,
        )
    else:
        yield Finding((), "no 'evals' list: no case in this file would run")


@rule("skill-name-missing", Severity.WARNING, kinds=(abp.EVALS,))
def skill_name_missing(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An evals.json names no `skill_name`, which some runners read without a default.

    agent-module-documentation's runner reads `spec["skill_name"]` and stops with a KeyError
    without it; the ai_best_practices port falls back to a default name. A `name` or
    `data_name` key in its place is not read.

    Bad (evals/refunds/evals.json):
        {"name": "refunds", "evals": [{"id": "window", "prompt": "a"}]}
    Good (evals/refunds/evals.json):
        {"skill_name": "refunds", "evals": [{"id": "window", "prompt": "a"}]}
    """
    if not isinstance(doc.data, dict) or "skill_name" in doc.data:
        return
    instead = next((k for k in ("name", "data_name") if k in doc.data), None)
    if instead is not None:
        yield Finding(
            (instead,),
            f"{instead!r} is not read; runners read 'skill_name', and some stop without it",
            on_key=True,
        )
    else:
        yield Finding((), "no 'skill_name': some runners read it and stop without it")
