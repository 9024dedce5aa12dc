"""The samples of OpenAI evals: each line of a `samples_jsonl` file, as the class that reads it
needs it. Checked from the eval that names the file (only it says which class reads it), and
reported in the samples file, at the line and key."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.oaievals import kinds as oaievals
from evallint.model import JSON, Finding, Pointer, Severity
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context

# The basic classes and what each asserts of a sample before it asks the model (evals 3.0.1,
# evals/elsuite/basic/): `input` and `ideal` are there, `ideal` a text or a list of texts.
BASIC = frozenset(
    {
        "evals.elsuite.basic.match:Match",
        "evals.elsuite.basic.includes:Includes",
        "evals.elsuite.basic.fuzzy_match:FuzzyMatch",
    }
)


def _texts(value: JSON) -> bool:
    return isinstance(value, str) or (
        isinstance(value, list) and all(isinstance(v, str) for v in value)
    )


def _prompt(value: JSON) -> bool:
    """What the completion functions assert of a prompt: a text, or a list of tokens (numbers),
    of texts, or of chat messages (objects)."""
    return isinstance(value, str) or (
        isinstance(value, list)
        and any(all(isinstance(v, kind) for v in value) for kind in (int, str, dict))
    )


def sample_problems(sample: JSON) -> Iterator[tuple[Pointer, str]]:
    """What a basic class's assertions say of one sample, at the key they are about."""
    if not isinstance(sample, dict):
        yield (), "the sample is no JSON object: the eval stops ('sample must be a dict')"
        return
    for key in ("input", "ideal"):
        if key not in sample:
            yield (), f"the sample has no {key!r}: the eval stops at it"
    if "input" in sample and not _prompt(sample["input"]):
        yield (
            ("input",),
            "'input' is no prompt (a text, or a list of chat messages, texts or tokens)",
        )
    if "ideal" in sample and not _texts(sample["ideal"]):
        yield ("ideal",), "'ideal' is neither a text nor a list of texts: the eval stops at it"


def _samples_file(doc: Document, spec: JSON, ctx: Context) -> str | None:
    """The one samples file a basic eval reads, when it is a listed `.jsonl` file."""
    if not isinstance(spec, dict) or spec.get("class") not in BASIC:
        return None
    found = oaievals.samples_of(doc.path, spec)
    if found is None or not found[1].endswith(".jsonl"):
        return None
    return found[1] if found[1] in ctx.files else None


@rule("oaieval-sample", Severity.ERROR, kinds=(oaievals.EVALS,), reads_files=True)
def oaieval_sample(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A sample of a basic eval (Match, Includes, FuzzyMatch) lacks what its class asserts.

    Each of these classes asserts, sample by sample, that the sample is an object with `input`
    (a text or chat messages) and `ideal` (a text or a list of texts): the first sample that
    fails stops the eval midway. Reported in the samples file, at the line and key, once however
    many evals read it.

    Given (registry/evals/arith.yaml):
        arith.dev.v0:
          class: evals.elsuite.basic.match:Match
          args: {samples_jsonl: arith/samples.jsonl}
    Bad (registry/data/arith/samples.jsonl):
        {"input": [{"role": "user", "content": "1+1"}], "answer": "2"}
    Good (registry/data/arith/samples.jsonl):
        {"input": [{"role": "user", "content": "1+1"}], "ideal": "2"}
    """
    if ctx.others is None or not isinstance(doc.data, dict):
        return
    seen = set()
    for spec in doc.data.values():
        path = _samples_file(doc, spec, ctx)
        if path is None or path in seen:
            continue
        seen.add(path)
        samples = ctx.others.parsed(path, "jsonl")
        if isinstance(samples, str) or not isinstance(samples.data, list):
            continue  # unreadable or a Git LFS pointer: said of the file itself
        for i, sample in enumerate(samples.data):
            for at, message in sample_problems(sample):
                yield Finding((i, *at), message, path=path)
