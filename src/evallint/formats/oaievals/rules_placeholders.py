"""OpenAI evals model-graded evals: the grader's prompt is filled, sample by sample, from the
sample's keys, the completions its `input_outputs` names and the eval's
`modelgraded_spec_args` (evals 3.0.1, `ModelBasedClassify.eval_sample`): a placeholder none of
them fills, or an `input_outputs` key a sample lacks, stops the eval at that sample."""

from __future__ import annotations

import string
from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.oaievals import kinds as oaievals
from evallint.formats.oaievals.rules_graded import prompt_texts
from evallint.formats.oaievals.rules_registry import registry_index
from evallint.model import JSON, Finding, Severity
from evallint.rules.base import rule
from evallint.suggest import suggest

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context


def placeholders(prompt: JSON) -> list[str]:
    """The names a prompt's `{name}` fields ask for (a text, or each chat message's content),
    as `format_necessary` reads them; a field it cannot parse is left to the runner."""
    names: list[str] = []
    for _, text in prompt_texts(prompt):
        try:
            fields = [f[1] for f in string.Formatter().parse(text) if f[1]]
        except ValueError:
            continue
        names += [f.split(".", 1)[0].split("[", 1)[0] for f in fields]
    return list(dict.fromkeys(names))


def _spec(ctx: Context, root: str, name: str) -> tuple[str, str, dict[str, JSON]] | None:
    """The model-graded spec a name leads to, through aliases: its file, name and content."""
    assert ctx.others is not None
    defined = registry_index(ctx, root, "modelgraded").first
    for _ in range(len(defined) + 1):
        path = defined.get(name)
        doc = ctx.others.parsed(path) if path else None
        data = doc.data if doc is not None and not isinstance(doc, str) else None
        spec = data.get(name) if isinstance(data, dict) else None
        alias = spec.get("id") if isinstance(spec, dict) else spec
        if isinstance(spec, dict) and not isinstance(alias, str) and path is not None:
            return path, name, spec
        if not isinstance(alias, str):
            return None
        name = alias
    return None


def _samples(ctx: Context, path: str, spec: JSON) -> tuple[str, list[JSON]] | None:
    written = oaievals.samples_of(path, spec)
    if written is None or not written[1].endswith(".jsonl"):
        return None
    full = written[1]
    assert ctx.others is not None
    found = ctx.others.parsed(full, "jsonl") if full in ctx.files else None
    if found is None or isinstance(found, str) or not isinstance(found.data, list):
        return None  # missing (oaieval-samples), unreadable or a Git LFS pointer
    return full, found.data


def _problems(
    eval_name: str,
    graded: tuple[str, str, dict[str, JSON]],
    samples: tuple[str, list[JSON]],
    given: set[str],
) -> Iterator[Finding]:
    spec_path, spec_name, spec = graded
    samples_path, records = samples
    reads = spec.get("input_outputs")
    reads = reads if isinstance(reads, dict) else {}
    filled = given | {v for v in reads.values() if isinstance(v, str)}
    asked = placeholders(spec.get("prompt"))
    unfilled: set[str] = set()
    for i, sample in enumerate(records):
        keys = set(sample) if isinstance(sample, dict) else set()
        for key in (k for k in reads if k not in keys):
            message = (
                f"no {key!r}, which the grader's input_outputs reads: the eval {eval_name!r} "
                "stops at this sample"
            )
            yield Finding((i,), message, path=samples_path)
        for name in asked:
            if name not in filled and name not in keys and name not in unfilled:
                unfilled.add(name)
                yield Finding(
                    (spec_name, "prompt"),
                    f"{{{name}}} is filled by nothing in the eval {eval_name!r}: line {i + 1} of "
                    f"{samples_path} has no {name!r}, and no completion or modelgraded_spec_args "
                    "gives one; the eval stops there",
                    path=spec_path,
                )


@rule("oaieval-placeholder", Severity.ERROR, kinds=(oaievals.EVALS,), reads_files=True)
def oaieval_placeholder(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A model-graded eval's samples cannot fill its grader's prompt.

    For each sample the grader's prompt is filled from the sample's keys, the completions its
    spec's `input_outputs` names and the eval's `modelgraded_spec_args`; a `{placeholder}` none
    of them fills stops the eval at that sample ("Required: [...]"), and so does a sample
    without a key `input_outputs` reads. Reported on the spec's prompt (naming the eval and the
    first sample) and on each sample line.

    Given (registry/modelgraded/fact.yaml):
        fact:
          prompt: "Is {completion} true of {question}?"
          choice_strings: "YN"
          input_outputs: {input: completion}
    Given (registry/evals/fact.yaml):
        fact.dev.v0:
          class: evals.elsuite.modelgraded.classify:ModelBasedClassify
          args: {samples_jsonl: fact/samples.jsonl, modelgraded_spec: fact}
    Bad (registry/data/fact/samples.jsonl):
        {"input": "Name a fruit."}
    Good (registry/data/fact/samples.jsonl):
        {"input": "Name a fruit.", "question": "Is it a fruit?"}
    """
    if ctx.others is None or not isinstance(doc.data, dict):
        return
    root = oaievals.registry_root(doc.path)
    for name, args, graded_name in oaievals.graded_evals(doc.path, doc.data):
        graded = _spec(ctx, root, graded_name)
        samples = _samples(ctx, doc.path, doc.data[name])
        if graded is None or samples is None:
            continue
        extra = args.get("modelgraded_spec_args")
        given = set(extra) if isinstance(extra, dict) else set()
        yield from _problems(str(name), graded, samples, given)


# The answer prompts the grader appends for an eval's `eval_type` (3.0.1, ANSWER_PROMPTS).
EVAL_TYPES = ("classify", "classify_cot", "cot_classify", "cot_classify_jp")


@rule("oaieval-eval-type", Severity.ERROR, kinds=(oaievals.EVALS,), reads_files=True)
def oaieval_eval_type(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A model-graded eval the grader cannot read answers for: every sample stops.

    The grader reads its answer by the `eval_type` of the eval's `args` or of its model-graded
    spec; with neither, evals 3.0.1 stops at the first sample ("'NoneType' object has no
    attribute 'startswith'"). An `eval_type` in the eval's `args` also picks the answer prompt
    the grader appends, so it must be one the package has: `classify`, `classify_cot`,
    `cot_classify` or `cot_classify_jp`.

    Given (registry/modelgraded/fact.yaml):
        fact:
          prompt: "Is {completion} true of {input}?"
          choice_strings: "YN"
          input_outputs: {input: completion}
    Given (registry/data/fact/samples.jsonl):
        {"input": "Name a fruit."}
    Bad (registry/evals/fact.yaml):
        fact.dev.v0:
          class: evals.elsuite.modelgraded.classify:ModelBasedClassify
          args: {samples_jsonl: fact/samples.jsonl, modelgraded_spec: fact}
    Good (registry/evals/fact.yaml):
        fact.dev.v0:
          class: evals.elsuite.modelgraded.classify:ModelBasedClassify
          args: {samples_jsonl: fact/samples.jsonl, modelgraded_spec: fact, eval_type: cot_classify}
    """
    if ctx.others is None:
        return
    root = oaievals.registry_root(doc.path)
    for name, args, graded_name in oaievals.graded_evals(doc.path, doc.data):
        written = args.get("eval_type")
        if isinstance(written, str) and written not in EVAL_TYPES:
            hint = suggest(written, EVAL_TYPES)
            tail = f"; did you mean {hint!r}?" if hint else ""
            yield Finding(
                (name, "args", "eval_type"),
                f"{written!r} is no eval_type the grader has an answer prompt for{tail}",
            )
        graded = _spec(ctx, root, graded_name) if not written else None
        if graded is not None and not graded[2].get("eval_type"):
            yield Finding(
                (name, "args", "modelgraded_spec"),
                f"neither the eval nor the spec {graded[1]!r} gives an eval_type, by which the "
                "grader reads its answer: the eval stops at the first sample",
            )
