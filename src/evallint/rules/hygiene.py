"""Dataset content hygiene: what the items of a dataset say, in any format that declares its
items (`Kind.item_view`). One pass over a file's items, one hash per normalized input."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.kinds import ITEMIZED, Kind
from evallint.kinds.base import Item
from evallint.model import JSON, Finding, Severity
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context

_SPACE = re.compile(r"\s+")
_TRAILING = ".?!;:,\u2026\u3002\uff1f\uff01"  # and the ellipsis, CJK stop, full-width ? and !


def normalized(text: str) -> str:
    """Whitespace collapsed, case folded, trailing punctuation dropped: how two inputs are told
    to be the same question."""
    return _SPACE.sub(" ", text).strip().casefold().rstrip(_TRAILING).rstrip()


def _items(doc: Document, ctx: Context) -> tuple[Item, ...]:
    """The document's items, worked out once for the four rules."""
    return doc.facts.get(_view, doc.data, ctx.kind, key=ctx.kind.name)


def _view(data: JSON, kind: Kind) -> tuple[Item, ...]:
    return tuple(kind.item_view(data)) if kind.item_view is not None else ()


def _expects(item: Item) -> frozenset[str] | None:
    return None if item.expected is None else frozenset(map(normalized, item.expected))


def _repeats(doc: Document, ctx: Context) -> Iterator[tuple[Item, Item]]:
    """(first, again) for each item whose input an earlier item of the file already asked, and
    that is graded the same way, or (exact graders) expects another answer: the same input
    graded another way is a second test of one answer, which is no repeat."""
    seen: dict[tuple[str, str], Item] = {}
    exact: dict[str, Item] = {}
    for item in _items(doc, ctx):
        key = normalized(item.input)
        if not key:
            continue
        first = seen.setdefault((key, item.grading), item)
        if first is not item:
            yield first, item
            continue
        earlier = exact.setdefault(key, item) if item.exact else None
        if earlier is not None and earlier is not item and _conflict(earlier, item):
            yield earlier, item


def _conflict(first: Item, again: Item) -> bool:
    before, now = _expects(first), _expects(again)
    return again.exact and before is not None and now is not None and before != now


def _named(item: Item, doc: Document) -> str:
    line = doc.locate(item.at).line
    return f"{item.ident!r} (line {line})" if item.ident else f"the item on line {line}"


@rule("duplicate-input", Severity.WARNING, kinds=ITEMIZED, group="hygiene")
def duplicate_input(doc: Document, ctx: Context) -> Iterator[Finding]:
    """Two items of a dataset ask the same input.

    Inputs are compared after collapsing whitespace, folding case and dropping trailing
    punctuation; the two are graded the same way (every other key of the item but its id and
    provenance: `metadata`, `source`). The second is scored as one more item, so the question
    counts twice in the score. Reported on the second, naming the first. The same input graded
    another way (other assertions, another rubric) is a second test of the answer and no
    repeat; where the two expect different exact answers, `conflicting-expected` reports it.

    Bad (datasets/refunds.yaml):
        questions:
          - {id: window, input: "Can I return it?"}
          - {id: window_again, input: "can I return it"}
    Good (datasets/refunds.yaml):
        questions:
          - {id: window, input: "Can I return it?"}
          - {id: late, input: "Can I return it after two months?"}
    """
    for first, again in _repeats(doc, ctx):
        if not _conflict(first, again):
            yield Finding(
                again.input_at,
                f"the same input as {_named(first, doc)}: the question counts twice",
                related=((doc.path, first.input_at, "first asked here"),),
            )


@rule("conflicting-expected", Severity.ERROR, kinds=ITEMIZED, group="hygiene")
def conflicting_expected(doc: Document, ctx: Context) -> Iterator[Finding]:
    """Two items ask the same input and expect different exact answers.

    Where the grader compares the answer with the expectation whole (an OpenAI evals `Match`
    sample's `ideal`), one of the two is scored wrong whatever the model says. Reported on the
    second item's expectation, naming the first.

    Bad (registry/data/arith/samples.jsonl):
        {"input": "What is 1+1?", "ideal": "2"}
        {"input": "what is 1+1", "ideal": "3"}
    Good (registry/data/arith/samples.jsonl):
        {"input": "What is 1+1?", "ideal": "2"}
        {"input": "What is 1+2?", "ideal": "3"}
    """
    for first, again in _repeats(doc, ctx):
        if _conflict(first, again):
            yield Finding(
                again.expected_at[0] if again.expected_at else again.input_at,
                f"the same input as {_named(first, doc)} expects something else: one of the "
                "two is scored wrong whatever the answer",
                related=((doc.path, first.input_at, "first asked here"),),
            )


# An expectation shorter than this is found in inputs by chance ("2", "yes").
MIN_LEAK = 12


@rule("expected-in-input", Severity.WARNING, kinds=ITEMIZED, group="hygiene")
def expected_in_input(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An item's expected answer or fact is written in its own input.

    A grader that looks for the expectation in the answer is satisfied by a model that repeats
    the question. Expectations of 12 characters or more are looked for, after the same
    normalizing as inputs, as whole words.

    Bad (datasets/refunds.yaml):
        questions:
          - id: window
            input: "Refunds are accepted within 30 days. Can I return it?"
            expected_facts: ["refunds are accepted within 30 days"]
    Good (datasets/refunds.yaml):
        questions:
          - id: window
            input: "Can I return it after 20 days?"
            expected_facts: ["refunds are accepted within 30 days"]
    """
    for item in _items(doc, ctx):
        asked = f" {normalized(item.input)} "
        for text, at in zip(item.expected or (), item.expected_at, strict=False):
            wanted = normalized(text)
            if len(wanted) >= MIN_LEAK and re.search(rf"(?<!\w){re.escape(wanted)}(?!\w)", asked):
                yield Finding(
                    at,
                    "the input already states this expectation: repeating the "
                    "question passes the grader",
                )


@rule("empty-expected", Severity.ERROR, kinds=ITEMIZED, group="hygiene")
def empty_expected(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An item's expected answer or fact is empty.

    The grader looks for nothing (an empty fact is in every answer) or compares the answer
    with nothing, so the item's score says nothing of the answer.

    Bad (datasets/refunds.yaml):
        questions:
          - {id: window, input: "Can I return it?", expected_facts: ["  "]}
    Good (datasets/refunds.yaml):
        questions:
          - {id: window, input: "Can I return it?", expected_facts: ["30 days"]}
    """
    for item in _items(doc, ctx):
        for text, at in zip(item.expected or (), item.expected_at, strict=False):
            if not text.strip():
                yield Finding(at, "an empty expectation: any answer meets it")
