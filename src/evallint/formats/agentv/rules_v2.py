"""agentv-eval-v2 suites: the keys the schema they declare requires, said with what AgentV 0.10
to 1.x did without them (yaml-parser.ts; the schema is AgentV 0.10's eval-schema.json)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.agentv import kinds as agentv
from evallint.kinds.base import items
from evallint.model import Finding, Severity
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context

_DECLARED = "agentv-eval-v2"


@rule("agentv-v2-required", Severity.WARNING, kinds=(agentv.V2,))
def agentv_v2_required(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A case or evaluator lacks a key the agentv-eval-v2 schema requires.

    AgentV 0.10 to 1.x skip an evaluator without a `name` ("Skipping evaluator with invalid
    name/type"), so it never grades. A suite that declares `$schema: agentv-eval-v2` also
    promises each case's `expected_messages`: editors that read that schema flag the case,
    though AgentV 0.10 runs an outcome-only case without them.

    Bad (evals/refunds.yaml):
        $schema: agentv-eval-v2
        evalcases:
          - id: window
            outcome: Mentions the 30-day window.
            input_messages: [{role: user, content: How long do refunds take?}]
            execution:
              evaluators:
                - {type: llm_judge}
    Good (evals/refunds.yaml):
        $schema: agentv-eval-v2
        evalcases:
          - id: window
            outcome: Mentions the 30-day window.
            input_messages: [{role: user, content: How long do refunds take?}]
            expected_messages: [{role: assistant, content: Within 30 days.}]
            execution:
              evaluators:
                - {name: policy, type: llm_judge}
    """
    data = doc.data
    if not isinstance(data, dict):
        return
    declared = data.get("$schema") == _DECLARED
    for where, grader in agentv.all_graders(data):
        if not isinstance(grader.get("name"), str) or not grader["name"]:
            yield Finding(
                where,
                "this evaluator has no 'name': AgentV 0.10 to 1.x skip it, so it never grades",
            )
    for i, case in items(data, "evalcases") if declared else ():
        if "expected_messages" not in case and "id" in case:
            yield Finding(
                ("evalcases", i, "id"),
                "the agentv-eval-v2 schema this file declares requires 'expected_messages' "
                "(editors flag the case); AgentV 0.10 runs it without them",
                on_key=True,
            )
