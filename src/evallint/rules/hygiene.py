"""Dataset content hygiene: what the items of a dataset say, in any format that declares its
items (`Kind.item_view`). One pass over a file's items, one hash per normalized input."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.kinds import DATASETS, ITEMIZED, Kind
from evallint.kinds.base import Item, grading
from evallint.kinds.itemized import each_digest, normalized, split
from evallint.kinds.itemized import items as _doc_items
from evallint.kinds.itemized import keys as _keys
from evallint.model import Finding, Severity
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.config import Config
    from evallint.parse import Document
    from evallint.project import Project
    from evallint.rules.api import Context


def _items(doc: Document, ctx: Context) -> tuple[Item, ...]:
    """The document's items, worked out once for the rules."""
    return _doc_items(doc, ctx.kind)


def _expects(item: Item) -> frozenset[str] | None:
    return None if item.expected is None else frozenset(map(normalized, item.expected))


def _repeats(doc: Document, ctx: Context) -> tuple[tuple[Item, Item], ...]:
    """(first, again) for each item whose input an earlier item of the file already asked, and
    that is graded the same way, or (exact graders) expects another answer: the same input
    graded another way is a second test of one answer, which is no repeat. Worked out once for
    both rules; an item's grading is written out only when its input meets another's."""
    return doc.facts.get(_pairs, doc, ctx.kind, key=ctx.kind.name)


def _pairs(doc: Document, kind: Kind) -> tuple[tuple[Item, Item], ...]:
    first: dict[str, Item] = {}
    met: dict[str, list[Item]] = {}  # only inputs asked again get a list
    for item, key in zip(_doc_items(doc, kind), _keys(doc, kind), strict=True):
        if key:
            seen = first.setdefault(key, item)
            if seen is not item:
                met.setdefault(key, [seen]).append(item)
    out: list[tuple[Item, Item]] = []
    for same in met.values():
        out += _within(same)
    return tuple(sorted(out, key=lambda pair: pair[1].input_at))


def _within(same: list[Item]) -> Iterator[tuple[Item, Item]]:
    """The repeats among items of one input, in file order."""
    seen: dict[str, Item] = {}
    exact: Item | None = None
    for item in same:
        first = seen.setdefault(grading(item), item)
        if first is not item:
            yield first, item
            continue
        if item.exact and exact is None:
            exact = item
        elif item.exact and exact is not None and _conflict(exact, item):
            yield exact, item


def _conflict(first: Item, again: Item) -> bool:
    before, now = _expects(first), _expects(again)
    return again.exact and before is not None and now is not None and before != now


# What a chunk of a streamed file keeps of an input's first item for the chunks after it: its
# line in the file, its id, what it expects as written, and whether exactly; never the item (a
# streamed file is read in chunks so that its records need not all be held). A tuple, not a
# record: one is made for each input of files of a million records.
_Earlier = tuple[int, str | None, tuple[str, ...] | None, bool]


def _carried(doc: Document, ctx: Context) -> list[tuple[Item, _Earlier, bool]]:
    """Of a streamed file (read in chunks), the items that ask an input a chunk before this one
    asked first: (item, the first, whether the two conflict). Across chunks two items are one
    repeat when they expect the same (the first's other keys are not kept); within a chunk the
    whole grading is compared (`_repeats`)."""
    if not ctx.streamed or ctx.others is None:
        return []
    return doc.facts.get(_carry, doc, ctx, key=ctx.kind.name)


def _carry(doc: Document, ctx: Context) -> list[tuple[Item, _Earlier, bool]]:
    assert ctx.others is not None
    earlier = ctx.others.memo.setdefault(("hygiene-inputs", doc.path), {})
    assert isinstance(earlier, dict)
    found: list[tuple[Item, _Earlier, bool]] = []
    fresh: dict[int, _Earlier] = {}
    met: set[int] = set()  # a later item of this chunk is compared with its first (`_repeats`)
    lines = _record_lines(doc)
    for item, key in zip(_doc_items(doc, ctx.kind), _keys(doc, ctx.kind), strict=True):
        digest = hash(key)  # one number an input: a streamed file's memory stays flat
        if not key or digest in met:
            continue
        met.add(digest)
        first = earlier.get(digest)
        if first is None:
            index = item.at[0] if len(item.at) == 1 else None
            if lines is not None and isinstance(index, int):
                line = lines[index]
            else:
                line = doc.locate(item.at).line
            fresh[digest] = (ctx.lines + line, item.ident, item.expected, item.exact)
            continue
        now, before = _expects(item), _set(first[2])
        if item.exact and first[3] and None not in (now, before) and now != before:
            found.append((item, first, True))
        elif now == before:
            found.append((item, first, False))
    earlier.update(fresh)
    return found


def _set(expected: tuple[str, ...] | None) -> frozenset[str] | None:
    return None if expected is None else frozenset(map(normalized, expected))


def _record_lines(doc: Document) -> list[int] | None:
    """The line of each record of a JSONL document, where every written line is one (no line
    was left out as unreadable): found from the text, not the source map, which walks every
    record. None otherwise (the source map then says)."""
    if doc.fmt != "jsonl" or not isinstance(doc.data, list):
        return None
    lines = [n for n, text in enumerate(doc.text.split("\n"), start=1) if text.strip()]
    return lines if len(lines) == len(doc.data) else None


def _earlier_named(first: _Earlier) -> str:
    line, ident = first[0], first[1]
    return f"{ident!r} (line {line})" if ident else f"the item on line {line}"


def _named(item: Item, doc: Document, ctx: Context) -> str:
    line = ctx.lines + doc.locate(item.at).line  # a streamed file's chunk starts further down
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
                f"the same input as {_named(first, doc, ctx)}: the question counts twice",
                related=((doc.path, first.input_at, "first asked here"),),
            )
    for again, earlier, conflict in _carried(doc, ctx):
        if not conflict:
            message = f"the same input as {_earlier_named(earlier)}: the question counts twice"
            yield Finding(again.input_at, message)


@rule("conflicting-expected", Severity.ERROR, kinds=ITEMIZED, group="hygiene")
def conflicting_expected(doc: Document, ctx: Context) -> Iterator[Finding]:
    """Two items ask the same input and expect different exact answers.

    Where the grader compares the answer with the expectation whole (an OpenAI evals `Match`
    sample's `ideal`, a promptfoo test's `equals`), one of the two is scored wrong whatever the
    model says. Reported on the
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
                f"the same input as {_named(first, doc, ctx)} expects something else: one of "
                "the two is scored wrong whatever the answer",
                related=((doc.path, first.input_at, "first asked here"),),
            )
    for again, earlier, conflict in _carried(doc, ctx):
        if conflict:
            yield Finding(
                again.expected_at[0] if again.expected_at else again.input_at,
                f"the same input as {_earlier_named(earlier)} expects something else: one of "
                "the two is scored wrong whatever the answer",
            )


def _words(wanted: str, asked: str) -> bool:
    """Whether `wanted` is in `asked` as whole words (a plain search found it somewhere)."""
    return re.search(rf"(?<!\w){re.escape(wanted)}(?!\w)", asked) is not None


# An expectation shorter than this is found in inputs by chance ("2", "yes").
MIN_LEAK = 12


@rule("expected-in-input", Severity.WARNING, kinds=ITEMIZED, group="hygiene")
def expected_in_input(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An item's expected answer or fact is written in its own input.

    A grader that looks for the expectation in the answer is satisfied by a model that repeats
    the question. Expectations of 12 characters or more are looked for, after the same
    normalizing as inputs, as whole words. Not in a multiple-choice item (its input lists the
    answer among the choices) nor in a result record (which grader scored it is not known).

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
        if not item.echo or item.choices:
            continue
        asked, low = "", ""
        for text, at in zip(item.expected or (), item.expected_at, strict=False):
            words = text.split(None, 1)
            if len(text) < MIN_LEAK or not words:
                continue
            # Most expectations share not even their first word with the input: a plain search
            # for it rules them out before anything is normalized.
            low = low or item.input.casefold()
            if words[0].casefold() not in low:
                continue
            asked = asked or normalized(item.input)
            wanted = normalized(text)
            if len(wanted) >= MIN_LEAK and wanted in asked and _words(wanted, asked):
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


def _label(text: str, count: int) -> bool:
    """Whether an answer names a choice by its label: a letter (`B`) or a number (0- or
    1-based) within the choices."""
    text = text.strip().rstrip(".)")
    if len(text) == 1 and text.isalpha() and text.isascii():
        return ord(text.upper()) - ord("A") < count
    return text.isdigit() and int(text) <= count


@rule("answer-not-a-choice", Severity.ERROR, kinds=ITEMIZED, group="hygiene")
def answer_not_a_choice(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A multiple-choice item's expected answer is none of its choices.

    No answer the model picks among the choices is scored right. An answer is one of the
    choices when it is one after the same normalizing as inputs, or names one by its label
    (a letter, or a number within the choices).

    Bad (results/run.jsonl):
        {"schema_version": "0.2.2", "evaluation_id": "e/1", "model_id": "org/model", "evaluation_name": "bench", "sample_id": "s1", "interaction_type": "single_turn", "input": {"raw": "2+2?", "reference": ["5"], "choices": ["3", "4"]}, "output": {"raw": ["4"]}, "answer_attribution": [], "evaluation": {"score": 0.0, "is_correct": false}}
    Good (results/run.jsonl):
        {"schema_version": "0.2.2", "evaluation_id": "e/1", "model_id": "org/model", "evaluation_name": "bench", "sample_id": "s1", "interaction_type": "single_turn", "input": {"raw": "2+2?", "reference": ["4"], "choices": ["3", "4"]}, "output": {"raw": ["4"]}, "answer_attribution": [], "evaluation": {"score": 1.0, "is_correct": true}}
    """
    for item in _items(doc, ctx):
        choices = item.choices
        if not choices:
            continue
        for text, at in zip(item.expected or (), item.expected_at, strict=False):
            if text in choices or _label(text, len(choices)):
                continue  # most answers are a choice as written: nothing is normalized
            if normalized(text) not in {normalized(c) for c in choices if isinstance(c, str)}:
                yield Finding(at, f"{text!r} is none of the {len(choices)} choices offered")


def _firsts(project: Project, config: Config) -> dict[bytes, str]:
    """Each input's digest -> the first dataset (in path order) that asks it, of the datasets
    the run keeps digests of and the configuration does not let share items."""
    out: dict[bytes, str] = {}
    for path in sorted(project.entries):
        joined = getattr(project.entries[path], "items", None)  # a definer known by summary: none
        if joined and not config.shares(path):
            for key in split(joined):
                out.setdefault(key, path)
    return out


@rule(
    "shared-item",
    Severity.NOTE,
    kinds=DATASETS,
    group="hygiene",
    cross_file=True,
    reads_project=True,
    precision="medium",
)
def shared_item(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An item of this dataset asks the same input as an item of another dataset.

    Where one of the two is shown to the model (few-shot examples, a split a prompt was tuned
    on), the other scores it on an answer it was given. Inputs are compared as
    `duplicate-input` compares them, across every dataset of the project but result records.
    Reported on the item of the dataset later in path order, naming the earlier one. A note:
    two test suites of one project often ask one input on purpose (the same question under
    other graders); a project that keeps splits in git raises it (`[rules] shared-item =
    "error"`), and lists the datasets that may share items in the `share-items` setting.

    Given (datasets/dev.yaml):
        questions:
          - {id: window, input: "Can I return it?"}
    Bad (datasets/test.yaml):
        questions:
          - {id: window, input: "Can I return it?"}
    Good (datasets/test.yaml):
        questions:
          - {id: late, input: "Can I return it after two months?"}
    """
    if ctx.config.shares(doc.path):
        return
    firsts = ctx.project.facts.get(_firsts, ctx.project, ctx.config)
    if not firsts:
        return
    # The digests were worked out in phase one; the items are made again only where one of
    # them is another dataset's (a dataset waiting for the project holds no items).
    for i, found in enumerate(each_digest(doc, ctx.kind)):
        first = firsts.get(found) if found else None
        if first is not None and first < doc.path:
            yield Finding(
                _doc_items(doc, ctx.kind)[i].input_at,
                f"also an item of {first}: if that dataset is shown to the model (few-shot "
                "examples, a split a prompt was tuned on), this item's answer is known to it",
            )
