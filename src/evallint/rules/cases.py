"""Rules about the cases (tests) of eval suites and skill eval files."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.kinds import abp, agentv
from evallint.model import Finding, Severity
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context


@rule("duplicate-case-id", Severity.ERROR, kinds=(abp.EVALS, agentv.V2, agentv.SPEC, agentv.V4))
def duplicate_case_id(doc: Document, ctx: Context) -> Iterator[Finding]:
    """Two cases (tests) in one file share an id.

    Results and `depends_on` are keyed by id, so one case overwrites the other (AgentV finds
    this only at run time). Reported on the second, naming the line of the first.

    Bad (evals/refunds/evals.json):
        {"evals": [{"id": "window", "prompt": "a"}, {"id": "window", "prompt": "b"}]}
    Good (evals/refunds/evals.json):
        {"evals": [{"id": "window", "prompt": "a"}, {"id": "credit", "prompt": "b"}]}
    """
    if ctx.kind.case_ids is None:
        return
    seen: dict[object, tuple[str | int, ...]] = {}
    for pointer, ident in ctx.kind.case_ids(doc.data):
        if not isinstance(ident, str | int) or isinstance(ident, bool):
            continue
        if ident in seen:
            first = seen[ident]
            yield Finding(
                pointer,
                f"duplicate case id {ident!r} (first on line {doc.locate(first).line})",
                related=((doc.path, first, "first use"),),
            )
        else:
            seen[ident] = pointer


@rule("evals-key-missing", Severity.ERROR, kinds=(abp.EVALS,))
def evals_key_missing(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An evals.json has no `evals` list, so its runner runs no case at all.

    The ai_best_practices runner reads only `evals`; real files that say `cases` load without
    an error and run zero cases.

    Bad (evals/refunds/evals.json):
        {"skill_name": "refunds", "cases": [{"id": "window", "prompt": "a"}]}
    Good (evals/refunds/evals.json):
        {"skill_name": "refunds", "evals": [{"id": "window", "prompt": "a"}]}
    """
    if not isinstance(doc.data, dict) or "evals" in doc.data:
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
