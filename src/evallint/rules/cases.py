"""Rules about the cases (tests) of eval suites, whatever their format (`Kind.case_ids`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.kinds import CASED
from evallint.model import Finding, Severity
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context


@rule("duplicate-case-id", Severity.ERROR, kinds=CASED)
def duplicate_case_id(doc: Document, ctx: Context) -> Iterator[Finding]:
    """Two cases (tests) in one file share an id.

    AgentV stops the run with "Duplicate test ID" (its `validate` does not look); the
    ai_best_practices runner saves each case's trace as `<id>.json`, so the second overwrites
    the first; the Hub makes a leaderboard of each benchmark task id. Reported on the second,
    naming the line of the first.

    Bad (evals/refunds/evals.json):
        {"evals": [{"id": "w", "prompt": "a"}, {"id": "w", "prompt": "b"}], "skill_name": "r"}
    Good (evals/refunds/evals.json):
        {"evals": [{"id": "w", "prompt": "a"}, {"id": "c", "prompt": "b"}], "skill_name": "r"}
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
