"""Hugging Face Hub rules: what the schema cannot say of a benchmark's `eval.yaml` and a model's
`.eval_results/*.yaml`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.hf import kinds as hf
from evallint.kinds.base import items
from evallint.model import Finding, Fix, Severity
from evallint.rules.base import rule
from evallint.suggest import suggest

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context


@rule("hf-unknown-framework", Severity.WARNING, kinds=(hf.BENCHMARK,), precision="high")
def hf_unknown_framework(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A benchmark names an evaluation framework the Hub does not list (a misspelling, most often).

    The Hub shows a benchmark's leaderboard only for the frameworks it knows (huggingface.js
    `EVALUATION_FRAMEWORKS`). The list grows every month, so a name outside it is a warning:
    check the spelling, or that the framework was added to the Hub.

    Bad (eval.yaml):
        name: Tiny Bench
        description: A small benchmark.
        evaluation_framework: inspect_ai
        tasks:
          - id: tiny
    Good (eval.yaml):
        name: Tiny Bench
        description: A small benchmark.
        evaluation_framework: math-arena
        tasks:
          - id: tiny
    """
    framework = doc.data.get("evaluation_framework") if isinstance(doc.data, dict) else None
    if isinstance(framework, str) and framework not in hf.FRAMEWORKS:
        hint = suggest(framework, hf.FRAMEWORKS)
        tail = f"; did you mean {hint!r}?" if hint else ""
        yield Finding(
            ("evaluation_framework",),
            f"evaluation framework {framework!r} is not one the Hub lists{tail}",
        )


@rule("hf-inspect-component", Severity.WARNING, kinds=(hf.BENCHMARK,), precision="high")
def hf_inspect_component(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An `inspect-ai` task names a solver or scorer Inspect AI does not build from an eval.yaml.

    Inspect AI makes a benchmark's tasks from its `eval.yaml` with a fixed set of solvers
    (`generate`, `multiple_choice`, `chain_of_thought`, ...) and scorers (`match`, `choice`,
    `model_graded_qa`, ...). A name outside them is most often a misspelling; a newer Inspect may
    know more, so it is a warning.

    Bad (eval.yaml):
        name: Tiny Bench
        description: A small benchmark.
        evaluation_framework: inspect-ai
        tasks:
          - id: tiny
            field_spec: {input: question, target: answer}
            solvers: [{name: generat}]
            scorers: [{name: match}]
    Good (eval.yaml):
        name: Tiny Bench
        description: A small benchmark.
        evaluation_framework: inspect-ai
        tasks:
          - id: tiny
            field_spec: {input: question, target: answer}
            solvers: [{name: generate}]
            scorers: [{name: match}]
    """
    data = doc.data if isinstance(doc.data, dict) else {}
    if data.get("evaluation_framework") != "inspect-ai":
        return
    known = {"solvers": hf.INSPECT_SOLVERS, "scorers": hf.INSPECT_SCORERS}
    for i, task in items(data, "tasks"):
        for key, names in known.items():
            for j, part in items(task, key):
                name = part.get("name")
                if isinstance(name, str) and name not in names:
                    hint = suggest(name, names)
                    tail = f"; did you mean {hint!r}?" if hint else ""
                    what = key.removesuffix("s")
                    yield Finding(
                        ("tasks", i, key, j, "name"),
                        f"{what} {name!r} is not one Inspect AI builds from an eval.yaml{tail}",
                    )


# YAML 1.1's timestamps, which PyYAML (and so `huggingface_hub`) reads as dates, not text.
_TIMESTAMP = re.compile(
    r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}"
    r"(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?"
)


# Keys only an Inspect AI task holds (never a benchmark's top level).
_TASK_KEYS = ("field_spec", "solvers", "scorers")


@rule("hf-misplaced-task-key", Severity.ERROR, kinds=(hf.BENCHMARK,), precision="high")
def hf_misplaced_task_key(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A task's key written at the top level of an `inspect-ai` benchmark: Inspect never reads it.

    Inspect AI builds each task of `tasks` from the task's own `field_spec`, `solvers` and
    `scorers`; the same keys at the top level are not a default for the tasks, and the task
    that lacks them is refused. Reported on each such key, naming the task it belongs in.

    Bad (eval.yaml):
        name: Tiny Bench
        description: A small benchmark.
        evaluation_framework: inspect-ai
        field_spec: {input: question, target: answer}
        tasks:
          - id: tiny
            solvers: [{name: generate}]
            scorers: [{name: match}]
    Good (eval.yaml):
        name: Tiny Bench
        description: A small benchmark.
        evaluation_framework: inspect-ai
        tasks:
          - id: tiny
            field_spec: {input: question, target: answer}
            solvers: [{name: generate}]
            scorers: [{name: match}]
    """
    data = doc.data if isinstance(doc.data, dict) else {}
    if data.get("evaluation_framework") != "inspect-ai":
        return
    ids = [t.get("id") for _, t in items(data, "tasks")]
    named = [i for i in ids if isinstance(i, str)]
    where = f"the task {named[0]!r}" if len(ids) == 1 and named else "each task of `tasks`"
    for key in _TASK_KEYS:
        if key in data:
            yield Finding(
                (key,),
                f"{key!r} is a task's key written at the top level: Inspect AI reads it only "
                f"inside a task; move it into {where}",
                on_key=True,
            )


@rule("hf-unquoted-date", Severity.WARNING, kinds=(hf.RESULTS,), fixable=True)
def hf_unquoted_date(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A result's `date` is written unquoted, so YAML reads it as a date object, not as text.

    The Hub reads `date` as an ISO-8601 string. PyYAML, which `huggingface_hub` reads the file
    with, turns an unquoted `2025-01-15` into a date object; quoted, it stays the text the Hub
    expects.

    Bad (.eval_results/gpqa.yaml):
        - dataset: {id: Idavidrein/gpqa, task_id: gpqa_diamond}
          value: 0.412
          date: 2025-01-15
    Good (.eval_results/gpqa.yaml):
        - dataset: {id: Idavidrein/gpqa, task_id: gpqa_diamond}
          value: 0.412
          date: "2025-01-15"
    """
    for i, result in enumerate(doc.data if isinstance(doc.data, list) else []):
        if not isinstance(result, dict) or not isinstance(result.get("date"), str):
            continue
        raw = doc.raw((i, "date"))
        if raw is not None and _TIMESTAMP.fullmatch(raw.strip()):
            yield Finding(
                (i, "date"),
                f"{raw.strip()} is read by YAML as a date, not as text; quote it",
                fix=Fix((i, "date"), raw.strip(), f'"{raw.strip()}"'),
            )
