"""Rules about keys a schema does not know: misspellings, closed objects, unknown check kinds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.kinds import KINDS
from evallint.model import Finding, Fix, Pointer, Severity
from evallint.rules.api import held_keys
from evallint.rules.base import rule
from evallint.suggest import sole, suggest

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context


# The kinds whose unknown keys these rules report: all but those a family's rule covers.
SCHEMA_KEYED = tuple(k for k in KINDS if not k.own_keys)


@rule("unknown-key", Severity.ERROR, kinds=SCHEMA_KEYED, fixable=True)
def unknown_key(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A key that is not allowed in this object.

    Some objects are closed (a rubric's `scoring`, a judge's `validation`, an EEE record's
    root): their schema names every key they may hold, so any other key is a mistake. A runner
    that validates on load rejects the file (EEE's `validate`, ai_eval's strict mode) or warns
    and ignores the key (ai_eval's default soft mode), so the value never counts.

    Bad (rubrics/tone.yaml):
        id: tone
        version: "1.0.0"
        checks: [{kind: php_lint, id: lint}]
        scoring: {combine: all_pass, treshold: 0.7}
    Good (rubrics/tone.yaml):
        id: tone
        version: "1.0.0"
        checks: [{kind: php_lint, id: lint}]
        scoring: {combine: all_pass, threshold: 0.7}
    """
    for obj in ctx.object_keys(doc):
        if obj.closed:
            held = held_keys(doc.data, obj.pointer)
            for key in obj.unknown:
                free = [k for k in obj.known if k not in held]
                hint = suggest(key, free)
                tail = (
                    f"; did you mean {hint!r}?"
                    if hint
                    else f"; expected one of {', '.join(map(repr, sorted(obj.known)))}"
                )
                # Renamed only when the meant key is the one close name (and absent: `free`).
                only = sole(key, free)
                fix = Fix((*obj.pointer, key), key, only, on_key=True) if only else None
                tail += _missing(doc, ctx, obj.pointer, hint)
                yield Finding(
                    (*obj.pointer, key), f"unknown key {key!r}{tail}", on_key=True, fix=fix
                )


# Keys no runner reads to score: a misspelling of one of these loses text, never points.
PROSE_KEYS = frozenset(
    {"description", "notes", "note", "tags", "metadata", "title", "name", "comment", "summary"}
)


@rule("key-typo", Severity.ERROR, kinds=SCHEMA_KEYED, fixable=True, precision="high")
def key_typo(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An unknown key is close to a known one the runner reads to score: a misspelling.

    Objects that allow extension keys (questions, rubric roots, checks) accept unknown keys, so a
    misspelt `expected_facts` loads silently and the grader sees no facts: the file runs and
    scores wrong. A key close to a known key at the same place is reported with the key it
    probably meant; keys far from every known key are left alone as extensions. A misspelling
    of a key that cannot change a score (`description`, `notes`, `tags`, `metadata`, `title`,
    `name`) is `prose-key-typo`, a warning.

    Bad (datasets/refunds.yaml):
        questions:
          - id: q1
            input: "How long do refunds take?"
            expecteed_facts: ["within 30 days"]
    Good (datasets/refunds.yaml):
        questions:
          - id: q1
            input: "How long do refunds take?"
            expected_facts: ["within 30 days"]
    """
    yield from _typos(doc, ctx, prose=False)


@rule("prose-key-typo", Severity.WARNING, kinds=SCHEMA_KEYED, fixable=True, precision="high")
def prose_key_typo(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An unknown key is close to a known key that cannot change a score: a misspelling.

    Like `key-typo`, but the key it probably meant (`description`, `notes`, `tags`,
    `metadata`, `title`, `name`) is text no runner scores with: the file scores as intended and
    only the text is lost, so this stays a warning.

    Bad (datasets/refunds.yaml):
        descriptoin: Refund questions
        questions:
          - id: q1
            input: "How long do refunds take?"
            expected_facts: ["within 30 days"]
    Good (datasets/refunds.yaml):
        description: Refund questions
        questions:
          - id: q1
            input: "How long do refunds take?"
            expected_facts: ["within 30 days"]
    """
    yield from _typos(doc, ctx, prose=True)


def _typos(doc: Document, ctx: Context, *, prose: bool) -> Iterator[Finding]:
    """Misspelt keys of open objects whose meant key is (or is not) one of PROSE_KEYS."""
    for obj in ctx.object_keys(doc):
        if not obj.closed:
            # A known key the object already holds is not what a sibling meant to write
            # (`difficulty_note` beside `difficulty` is a note, not a misspelling).
            held = held_keys(doc.data, obj.pointer)
            for key in obj.unknown:
                hint = suggest(key, [k for k in obj.known if k not in held])
                if hint is not None and (hint in PROSE_KEYS) == prose:
                    # The target key is absent (see `held`): renaming cannot collide.
                    yield Finding(
                        (*obj.pointer, key),
                        f"unknown key {key!r}; did you mean {hint!r}?"
                        + _missing(doc, ctx, obj.pointer, hint),
                        on_key=True,
                        fix=Fix((*obj.pointer, key), key, hint, on_key=True),
                    )


def _missing(doc: Document, ctx: Context, pointer: Pointer, hint: str | None) -> str:
    """What the slip causes besides: the required key it meant is missing (which
    `schema-violation` then leaves to this finding)."""
    if hint is None or (pointer, hint) not in ctx.misspelt_required(doc):
        return ""
    return f" (so the required {hint!r} is missing)"
