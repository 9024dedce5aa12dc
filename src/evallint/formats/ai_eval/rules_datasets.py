"""Dataset rules: question ids, and whether each question gives its rubric what it needs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from evallint.formats.ai_eval import kinds as ai_eval
from evallint.kinds import items
from evallint.model import Finding, Severity
from evallint.parse import Document
from evallint.refs import parse_ref
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.project import Definition, Project
    from evallint.rules.api import Context


@rule("duplicate-question-id", Severity.ERROR, kinds=(ai_eval.DATASET,))
def duplicate_question_id(doc: Document, ctx: Context) -> Iterator[Finding]:
    """Two questions in one dataset share an id.

    The id is how a question is told apart in results and history (the ai_eval proposal makes
    `id` the one required name of a question), so two questions with one id cannot be told
    apart. Reported on the second, naming the line of the first.

    Bad (datasets/refunds.yaml):
        questions:
          - {id: q1, input: "How long do refunds take?"}
          - {id: q1, input: "Can I get store credit?"}
    Good (datasets/refunds.yaml):
        questions:
          - {id: q1, input: "How long do refunds take?"}
          - {id: q2, input: "Can I get store credit?"}
    """
    seen: dict[str, int] = {}
    for i, question in items(doc.data, "questions"):
        qid = question.get("id")
        if not isinstance(qid, str):
            continue
        if qid in seen:
            first = ("questions", seen[qid], "id")
            yield Finding(
                ("questions", i, "id"),
                f"duplicate question id {qid!r} (first on line {doc.locate(first).line})",
                related=((doc.path, first, "first use"),),
            )
        else:
            seen[qid] = i


def needs(project: Project, rubric: Definition) -> dict[str, str]:
    """Question fields a rubric relies on, with the check that needs each, composites included
    (read from the rubrics' digests: a rubric outside the run is not parsed for it)."""
    return project.facts.get(_needs, project, rubric, key=rubric.path)


def _needs(project: Project, rubric: Definition) -> dict[str, str]:
    digests = [rubric.digest()]
    for text in digests[0].get("composite", []):
        ref = parse_ref(text)
        target = (
            project.resolve(ref).target
            if ref and ref.namespace == ai_eval.RUBRIC.namespace
            else None
        )
        if target is not None:
            digests.append(target.digest())
    out: dict[str, str] = {}
    for digest in digests:
        for field in ai_eval.QUESTION_FIELDS:
            if digest.get(field):
                out.setdefault(field, digest[field][0])
    return out


def _asks(project: Project, target: Definition) -> bool:
    """A rubric asks questions for the fields its checks need: a change to it (or to one it
    composes) may leave a dataset that names it without them."""
    return target.namespace == ai_eval.RUBRIC.namespace and bool(needs(project, target))


@rule(
    "question-missing-inputs",
    Severity.WARNING,
    kinds=(ai_eval.DATASET,),
    cross_file=True,
    asks=_asks,
    precision="high",
)
def question_missing_inputs(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A question's rubric needs `expected_facts` or `expected_tools` the question does not give.

    A `fact_match` check with no `facts` of its own grades against the question's
    `expected_facts`; without them the check is skipped and the question scores on less than
    the rubric promises. Composites are followed one level.

    Given (rubrics/facts.yaml):
        id: facts
        version: "1.0.0"
        checks: [{kind: fact_match, id: facts}]
        scoring: {combine: all_pass}
    Bad (datasets/refunds.yaml):
        questions:
          - id: q1
            input: "How long do refunds take?"
            rubric_ref: rubric/facts@1
    Good (datasets/refunds.yaml):
        questions:
          - id: q1
            input: "How long do refunds take?"
            expected_facts: ["within 30 days"]
            rubric_ref: rubric/facts@1
    """
    for i, question in items(doc.data, "questions"):
        ref = (
            parse_ref(question["rubric_ref"])
            if isinstance(question.get("rubric_ref"), str)
            else None
        )
        target = ctx.project.resolve(ref).target if ref else None
        if target is None:
            continue
        for field, why in needs(ctx.project, target).items():
            if not _given(question, field):
                yield Finding(
                    ("questions", i, "rubric_ref"),
                    f"{target.label} has a {why} that reads the question's {field}, "
                    f"and this question has none",
                )


def _given(question: dict[str, Any], field: str) -> bool:
    value = question.get(field)
    return isinstance(value, list) and len(value) > 0
