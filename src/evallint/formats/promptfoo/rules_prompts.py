"""promptfoo rules about prompts as promptfoo 0.123 reads a config's `prompts`, and the scale of
an `llm-rubric` grader's score."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.promptfoo import kinds as promptfoo
from evallint.formats.promptfoo.rules_config import file_tests
from evallint.model import JSON, Finding, Severity
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.model import Pointer
    from evallint.parse import Document
    from evallint.rules.api import Context

KINDS = promptfoo.KINDS


@rule("promptfoo-prompt", Severity.ERROR, kinds=KINDS, precision="high")
def promptfoo_prompt(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A prompt promptfoo cannot load: no `raw` or `label`, or a one-line path to nothing.

    In a list of prompts, promptfoo takes a text, or an object with a `raw` or `label` text,
    and refuses the config otherwise ("Invalid prompt ... must be either a string or an object
    with a 'raw' or 'label'"). A one-line prompt with a `/`, a backslash, or a `.` third or
    fourth from its end is read as a file path; with no file of an ending promptfoo loads, the
    eval stops ("There are no prompts in ..."). A prompt with a line break is never a path:
    write it as a block (`- |`).

    Bad (promptfooconfig.yaml):
        prompts:
          - "Answer in one or two sentences, in English/French: {{question}}"
        providers: [openai:gpt-4.1-mini]
    Good (promptfooconfig.yaml):
        prompts:
          - |
            Answer in one or two sentences, in English/French: {{question}}
        providers: [openai:gpt-4.1-mini]
    """
    data = doc.data if isinstance(doc.data, dict) else {}
    found = data.get("prompts")
    items: list[tuple[Pointer, JSON]] = []
    if isinstance(found, str):
        items = [(("prompts",), found)]
    elif isinstance(found, list):
        items = [(("prompts", i), p) for i, p in enumerate(found)]
    for at, prompt in items:
        if isinstance(prompt, dict):
            if not any(isinstance(prompt.get(k), str) for k in ("raw", "label")):
                yield Finding(
                    at,
                    "a prompt object needs a `raw` or `label` text: promptfoo refuses the "
                    'config ("Invalid prompt")',
                )
        elif not isinstance(prompt, str):
            yield Finding(at, f"a prompt is text or an object, not {prompt!r}")
        elif promptfoo.reads_as_missing_path(prompt) and prompt not in ctx.files:
            yield Finding(
                at,
                "promptfoo reads this one-line prompt as a file path (it has a `/`, a "
                'backslash, or a `.` near its end), finds no file and stops ("There are no '
                'prompts in ..."); write it as a block (`- |`): a prompt with a line break '
                "is never a path",
            )


@rule("promptfoo-rubric-threshold", Severity.WARNING, kinds=KINDS, reads_files=True)
def promptfoo_rubric_threshold(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An `llm-rubric` threshold above 1 with promptfoo's own grading prompt: it never passes.

    promptfoo's default rubric prompt asks the grader for a score from 0 to 1, and the
    assertion passes when the score reaches its threshold: `threshold: 8` (written for a 0..10
    scale) can never be reached. A threshold above 1 is kept where a `rubricPrompt` (on the
    assertion, the test's `options` or `defaultTest.options`) may ask for another scale.

    Bad (promptfooconfig.yaml):
        prompts: ["Summarise: {{text}}"]
        providers: [openai:gpt-4.1-mini]
        tests:
          - vars: {text: The refund window is 30 days.}
            assert:
              - type: llm-rubric
                value: Says the window is 30 days
                threshold: 8
    Good (promptfooconfig.yaml):
        prompts: ["Summarise: {{text}}"]
        providers: [openai:gpt-4.1-mini]
        tests:
          - vars: {text: The refund window is 30 days.}
            assert:
              - type: llm-rubric
                value: Says the window is 30 days
                threshold: 0.8
    """
    data = doc.data if isinstance(doc.data, dict) else {}
    if _custom_prompt(data.get("defaultTest")):
        return
    tests: list[tuple[str | None, Pointer, dict[str, JSON]]] = [
        (None, ("tests", i), t) for i, t in promptfoo.indexed(data.get("tests"))
    ]
    tests += list(file_tests(doc, ctx))
    for path, at, test in tests:
        if _custom_prompt(test):
            continue
        for j, check in promptfoo.indexed(test.get("assert")):
            limit = check.get("threshold")
            if check.get("type") != "llm-rubric" or "rubricPrompt" in check:
                continue
            if isinstance(limit, int | float) and not isinstance(limit, bool) and limit > 1:
                yield Finding(
                    (*at, "assert", j, "threshold"),
                    f"promptfoo's default rubric prompt scores from 0 to 1: a threshold of "
                    f"{limit} is never reached (use {limit / 10:g} for a 0..10 scale, or give "
                    "a `rubricPrompt` that asks for another scale)",
                    path=path,
                )


def _custom_prompt(test: JSON) -> bool:
    """Whether a test (or `defaultTest`) sets its own grading prompt for its assertions."""
    options = test.get("options") if isinstance(test, dict) else None
    return isinstance(options, dict) and "rubricPrompt" in options
