"""OpenAI evals model-graded specs: the choices a grader may answer with, and their scores, as
`evals.elsuite.modelgraded.classify_utils` (3.0.1) reads them for every sample."""

from __future__ import annotations

import string
from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.oaievals import kinds as oaievals
from evallint.model import JSON, Finding, Pointer, Severity
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context

# Named choice lists, made from the number of completions at run time.
_NAMED = frozenset({"from_n", "from_n_abc", "from_n_ABC"})


def _choices(spec: dict[str, JSON]) -> list[tuple[Pointer, str]] | None:
    """Each choice and where it is written; a text is its characters, as the grader iterates
    it. None when the choices are named or not texts (the schema's)."""
    written = spec.get("choice_strings")
    if isinstance(written, str):
        return None if written in _NAMED else [(("choice_strings",), c) for c in written]
    if isinstance(written, list) and all(isinstance(c, str) for c in written):
        return [(("choice_strings", i), c) for i, c in enumerate(written)]
    return None


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def choice_problems(spec: dict[str, JSON]) -> Iterator[tuple[Pointer, str]]:
    choices = _choices(spec)
    if choices is None:
        return
    for at, choice in choices:
        if any(c in string.punctuation for c in choice):
            yield at, f"the choice {choice!r} holds punctuation, which the grader refuses"
    scores = spec.get("choice_scores")
    if scores == "from_strings":
        for at, choice in choices:
            if not _number(choice):
                yield at, f"'from_strings' scores each choice as a number; {choice!r} is none"
    elif isinstance(scores, dict):
        missing = [c for _, c in choices if c not in scores]
        if missing:
            said = ", ".join(map(repr, dict.fromkeys(missing)))
            yield (
                ("choice_scores",),
                f"no score for {said}: the eval stops when the grader picks it",
            )


@rule("oaieval-choices", Severity.ERROR, kinds=(oaievals.MODELGRADED,))
def oaieval_choices(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A model-graded spec's choices cannot all be graded.

    The grader asserts that no choice holds punctuation, scores a choice by looking it up in
    `choice_scores` (a choice without a score stops the eval when the grader picks it), and
    with `choice_scores: from_strings` reads each choice as a number. A `choice_strings` text
    is read as its characters (`ABC` is the choices A, B and C). Unquoted `Yes` and `No` are
    booleans to the registry's YAML loader, not choices (a schema error).

    Bad (registry/modelgraded/fact.yaml):
        fact:
          prompt: "Is {completion} true of {input}?"
          choice_strings: ["Yes", "No", "Unsure"]
          choice_scores: {"Yes": 1.0, "No": 0.0}
          input_outputs: {input: completion}
    Good (registry/modelgraded/fact.yaml):
        fact:
          prompt: "Is {completion} true of {input}?"
          choice_strings: ["Yes", "No", "Unsure"]
          choice_scores: {"Yes": 1.0, "No": 0.0, "Unsure": 0.5}
          input_outputs: {input: completion}
    """
    for name, spec in doc.data.items() if isinstance(doc.data, dict) else ():
        if isinstance(spec, dict) and "id" not in spec:
            for at, message in choice_problems(spec):
                yield Finding((name, *at), message)


def prompt_texts(prompt: JSON) -> Iterator[tuple[Pointer, str]]:
    """(where, text) of what the grader formats: a text prompt, or each message's content."""
    if isinstance(prompt, str):
        yield (), prompt
    for i, message in enumerate(prompt if isinstance(prompt, list) else ()):
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            yield (i, "content"), content


def format_problem(text: str) -> str | None:
    """Why `str.format` with names only cannot fill `text`, as `format_necessary` fills it."""
    try:
        fields = [f[1] for f in string.Formatter().parse(text) if f[1] is not None]
    except ValueError as exc:
        return f"{exc} (write a literal brace as {{{{ or }}}})"
    positional = next((f for f in fields if f == "" or f.isdigit()), None)
    if positional is not None:
        return f"{{{positional}}} is a positional field, and the prompt is filled by name only"
    quoted = next((f for f in fields if f[:1] in "\"'"), None)
    if quoted is not None:  # JSON written into a prompt: `{"ok": true}` is the field `"ok"`
        return (
            f"{{{quoted}...}} is read as a field named {quoted!r}, which no sample gives "
            "(write a literal brace as {{ or }})"
        )
    return None


@rule("oaieval-prompt-format", Severity.ERROR, kinds=(oaievals.MODELGRADED,), precision="high")
def oaieval_prompt_format(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A model-graded prompt that Python's `str.format` cannot fill: every sample fails.

    The grader fills its prompt (a text, or each chat message's content) with `str.format` and
    named values only, for every sample: a lone `{` or `}` stops it ("Single '}' encountered"),
    and so does a positional field (`{}`, `{0}`) or JSON written in the prompt (`{"ok": true}`
    is a field named `"ok"`, which no sample gives). A literal brace is written twice.

    Bad (registry/modelgraded/fact.yaml):
        fact:
          prompt: 'Answer as JSON {"ok": true}. Is {completion} true of {input}?'
          choice_strings: "YN"
          input_outputs: {input: completion}
    Good (registry/modelgraded/fact.yaml):
        fact:
          prompt: 'Answer as JSON {{"ok": true}}. Is {completion} true of {input}?'
          choice_strings: "YN"
          input_outputs: {input: completion}
    """
    for name, spec in doc.data.items() if isinstance(doc.data, dict) else ():
        if isinstance(spec, dict) and "id" not in spec:
            for at, text in prompt_texts(spec.get("prompt")):
                problem = format_problem(text)
                if problem is not None:
                    yield Finding((name, "prompt", *at), f"the grader cannot fill it: {problem}")
