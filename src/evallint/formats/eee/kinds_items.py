"""Every Eval Ever instance records as the hygiene rules see them: each sample's `input.raw`
asked once per `sample_id` (a record repeated under its id is another epoch of one sample),
what it expects (`input.reference`, the correct answers) and the choices it offered
(`input.choices`). A record holds what a run saw, so two samples of one input are one question
counted twice. Which grader scored it the record does not say: its references are not called
a conflict (two samples of one input with other references) nor an echo (a reference the input
states: the choices of a multiple-choice question, a passage an answer is taken from)."""

from __future__ import annotations

from collections.abc import Iterator

from evallint.kinds.base import Item
from evallint.model import JSON, Pointer


def _references(written: JSON, i: int) -> tuple[tuple[str, ...] | None, tuple[Pointer, ...]]:
    """The reference texts and where each is; one reference (most samples) the short way."""
    if written.__class__ is not list or not written:
        return None, ()
    assert isinstance(written, list)
    if len(written) == 1 and written[0].__class__ is str:
        return (written[0],), ((i, "input", "reference", 0),)
    kept = [(j, t) for j, t in enumerate(written) if isinstance(t, str)]
    return tuple(t for _, t in kept) or None, tuple((i, "input", "reference", j) for j, _ in kept)


_OWN = ("raw",)


def samples(data: JSON) -> Iterator[Item]:
    # The hot path of the hygiene rules on records of millions of samples: few calls a record.
    seen: set[str] = set()
    for i, record in enumerate(data if isinstance(data, list) else ()):
        given = record.get("input") if record.__class__ is dict else None
        raw = given.get("raw") if given.__class__ is dict else None
        if raw.__class__ is not str or not isinstance(record, dict) or not isinstance(given, dict):
            continue
        ident = record.get("sample_id")
        if ident.__class__ is str:
            if ident in seen:
                continue
            seen.add(ident)
        else:
            ident = None
        written = given.get("reference")
        expected: tuple[str, ...] | None
        expected_at: tuple[Pointer, ...]
        if written.__class__ is list and len(written) == 1 and written[0].__class__ is str:
            expected, expected_at = (written[0],), ((i, "input", "reference", 0),)
        else:
            expected, expected_at = _references(written, i)
        choices = given.get("choices")
        yield Item(
            at=(i,),
            input=raw,
            input_at=(i, "input", "raw"),
            ident=ident,
            expected=expected,
            expected_at=expected_at,
            # The rule that reads them takes only texts (a choice that is none is the schema's).
            choices=tuple(choices) if choices.__class__ is list and choices else None,
            echo=False,  # which grader scored it, the record does not say
            # How it is graded: what it was given but the raw input (the record's `input`
            # itself: nothing is made for it, and it is written out only where inputs meet).
            whole=given,
            own=_OWN,
        )
