"""A judge's `prompt` written as a bare path: which AgentV reads it as a file, and which sends
the path's text itself to the judge."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.agentv import kinds as agentv
from evallint.kinds.base import FileRef, candidates
from evallint.model import Finding, Severity
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context

# A text file's extensions: with them, or with a slash, one word is what an author means as a
# file.
_TEXT_FILES = (".md", ".txt", ".j2", ".jinja", ".jinja2", ".prompt", ".tmpl", ".hbs", ".yml")
_YAML = ".yaml"


def _pathlike(text: str) -> bool:
    """One word (no space), no scheme before its first slash (`https://...` is no file), and a
    slash or a text file's extension. Plain string tests: linear on any value."""
    if not text or any(c.isspace() for c in text):
        return False
    if ":" in text.partition("/")[0]:
        return False
    return "/" in text or text.lower().endswith((*_TEXT_FILES, _YAML))


# Dialects whose AgentV reads a bare prompt as a file when it finds one (0.10 to 2.x), and
# the one that never does (4.x: only `file://` names a file, grader-parser.ts).
_FOUND_OR_TEXT = frozenset({agentv.V2.name, agentv.SPEC.name})


@rule(
    "agentv-prompt-path",
    Severity.WARNING,
    kinds=(agentv.V2, agentv.SPEC, agentv.V4),
    reads_files=True,
)
def agentv_prompt_path(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A judge's `prompt` that reads as a file path, which AgentV sends as the prompt's text.

    AgentV 0.10 to 2.x read a bare `prompt: prompts/judge.md` as a file when they find it
    (from the suite's folder up to the repository's root), and otherwise send the words
    `prompts/judge.md` to the judge as its whole prompt, with only a warning in the log.
    AgentV 4 never reads a bare path: only `file://` names a file. Either way the judge grades
    without its instructions.

    Bad (evals/refunds.eval.yaml):
        tests:
          - id: window
            criteria: Mentions the 30-day window.
            input: How long do refunds take?
            assertions:
              - {type: llm-grader, prompt: prompts/judge.md}
    Given (evals/prompts/judge.md):
        Does the answer state the 30-day refund window? Answer pass or fail.
    Good (evals/refunds.eval.yaml):
        tests:
          - id: window
            criteria: Mentions the 30-day window.
            input: How long do refunds take?
            assertions:
              - {type: llm-grader, prompt: "file://prompts/judge.md"}
    """
    reads = ctx.kind.name in _FOUND_OR_TEXT
    for where, grader in agentv.graders_of(doc):
        prompt = grader.get("prompt")
        text = prompt.strip() if isinstance(prompt, str) else ""
        if not _pathlike(text):
            continue
        if not reads:
            yield Finding(
                (*where, "prompt"),
                f"AgentV 4 sends the text {text!r} itself as the judge's prompt (only file:// "
                f"names a file); write 'file://{text}' to read the file",
            )
            continue
        tried = candidates(doc.path, FileRef((), text, search="ancestors"), ctx.root_name)
        if not any(place in ctx.files for place in tried):
            yield Finding(
                (*where, "prompt"),
                f"no file {text!r} (looked for {', '.join(tried) or 'nothing inside the project'})"
                f"; AgentV then sends the text {text!r} itself as the judge's prompt",
            )
