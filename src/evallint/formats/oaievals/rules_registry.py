"""OpenAI evals registry rules: what makes the `evals` package (3.0.1) refuse the registry or an
eval in it. The registry's files of one resource type are read once a run (`registry_index`),
whatever part of the tree the run checks, so a name another file defines or duplicates is
seen."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.oaievals import kinds as oaievals
from evallint.model import Finding, Fix, Severity
from evallint.records import record
from evallint.rules.base import rule
from evallint.suggest import suggest

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context

KINDS = oaievals.KINDS
# Keys the loader writes into every spec itself: a spec that has one is refused.
RESERVED = ("key", "group", "cls")


@record
class _Part:
    """The names of one resource type of one registry: where each is first defined, and the
    files that define it again."""

    first: dict[str, str]
    again: dict[str, list[str]]


def registry_index(ctx: Context, root: str, part: str) -> _Part:
    key = ("oaieval-registry", root, part)
    memo = ctx.others.memo if ctx.others is not None else {}
    found = memo.get(key)
    if isinstance(found, _Part):
        return found
    first: dict[str, str] = {}
    again: dict[str, list[str]] = {}
    folder = f"{root}{part}/"
    for path in sorted(p for p in ctx.files if p.startswith(folder)):
        if oaievals.registry_part(path) != part or ctx.others is None:
            continue
        doc = ctx.others.parsed(path)
        data = doc.data if not isinstance(doc, str) and doc.ok else None
        for name in data if isinstance(data, dict) else ():
            if isinstance(name, str):
                if name in first:
                    again.setdefault(name, []).append(path)
                else:
                    first[name] = path
    found = memo[key] = _Part(first, again)
    return found


def _part(doc: Document) -> tuple[str, str] | None:
    part = oaievals.registry_part(doc.path)
    return (oaievals.registry_root(doc.path), part) if part else None


@rule("oaieval-duplicate", Severity.ERROR, kinds=KINDS, reads_files=True, precision="high")
def oaieval_duplicate(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A name two registry files define: the registry refuses to load, and no eval runs.

    The `evals` package loads every `*.yaml` of a resource folder (`registry/evals/`, ...)
    into one namespace and stops at a name it has loaded ("duplicate entry"): every eval of the
    registry fails, not only this one. Reported on each later file's name (in path order),
    naming the first.

    Given (registry/data/arith/samples.jsonl):
        {"input": [{"role": "user", "content": "1+1"}], "ideal": "2"}
    Given (registry/evals/arith.yaml):
        arith.dev.v0:
          class: evals.elsuite.basic.match:Match
          args: {samples_jsonl: arith/samples.jsonl}
    Bad (registry/evals/more.yaml):
        arith.dev.v0:
          class: evals.elsuite.basic.match:Match
          args: {samples_jsonl: arith/samples.jsonl}
    Good (registry/evals/more.yaml):
        arith.dev.v1:
          class: evals.elsuite.basic.match:Match
          args: {samples_jsonl: arith/samples.jsonl}
    """
    where = _part(doc)
    if where is None or not isinstance(doc.data, dict) or ctx.others is None:
        return
    index = registry_index(ctx, *where)
    for name in doc.data:
        first = index.first.get(name) if isinstance(name, str) else None
        if first is not None and first != doc.path and doc.path in index.again.get(name, ()):
            yield Finding(
                (name,),
                f"{name!r} is defined in {first} too: the registry refuses to load "
                '("duplicate entry"), and no eval of it runs',
                on_key=True,
            )


@rule("oaieval-reserved-key", Severity.ERROR, kinds=KINDS, precision="high")
def oaieval_reserved_key(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A spec with `key`, `group` or `cls`, which the registry writes itself: it refuses to load.

    The loader sets each spec's `key` (its name), `group` (its file) and `cls` (its `class`),
    and stops with "a reserved keyword" where a spec already has one: every eval of the
    registry fails.

    Given (registry/data/arith/samples.jsonl):
        {"input": [{"role": "user", "content": "1+1"}], "ideal": "2"}
    Bad (registry/evals/arith.yaml):
        arith.dev.v0:
          cls: evals.elsuite.basic.match:Match
          args: {samples_jsonl: arith/samples.jsonl}
    Good (registry/evals/arith.yaml):
        arith.dev.v0:
          class: evals.elsuite.basic.match:Match
          args: {samples_jsonl: arith/samples.jsonl}
    """
    for name, spec in doc.data.items() if isinstance(doc.data, dict) else ():
        for key in RESERVED if isinstance(spec, dict) else ():
            if key in spec:
                yield Finding(
                    (name, key),
                    f"{key!r} is a reserved keyword the registry writes itself: it refuses to "
                    "load" + ("; the eval's class is `class`" if key == "cls" else ""),
                    on_key=True,
                )


@rule(
    "oaieval-unknown-name",
    Severity.ERROR,
    kinds=KINDS,
    reads_files=True,
    precision="high",
    fixable=True,
)
def oaieval_unknown_name(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An alias names a spec the registry does not define: the eval is "not found".

    An alias (`arith: {id: arith.dev.v0}`, or a text) leads to another name of its resource
    type; the `evals` package finds no spec for a name it does not hold ("not found") and
    `oaieval` stops. With a did-you-mean; an alias to a version the file no longer holds, where
    it holds the next one (`evallint bump` renamed the eval), is fixed by `--fix`.

    Given (registry/data/arith/samples.jsonl):
        {"input": [{"role": "user", "content": "1+1"}], "ideal": "2"}
    Bad (registry/evals/arith.yaml):
        arith:
          id: arith.dev.v1
        arith.dev.v0:
          class: evals.elsuite.basic.match:Match
          args: {samples_jsonl: arith/samples.jsonl}
    Good (registry/evals/arith.yaml):
        arith:
          id: arith.dev.v0
        arith.dev.v0:
          class: evals.elsuite.basic.match:Match
          args: {samples_jsonl: arith/samples.jsonl}
    """
    where = _part(doc)
    if where is None or where[1] == "eval_sets" or not isinstance(doc.data, dict):
        return
    if ctx.others is None:
        return
    names = registry_index(ctx, *where).first
    for name, spec in doc.data.items():
        alias = spec if isinstance(spec, str) else None
        if isinstance(spec, dict) and isinstance(spec.get("id"), str):
            alias = spec["id"]
        if isinstance(name, str) and alias is not None and alias not in names:
            hint = suggest(alias, names)
            tail = f"; did you mean {hint!r}?" if hint else ""
            at = (name,) if isinstance(spec, str) else (name, "id")
            moved = hint is not None and hint == oaievals.next_version(alias) and hint in doc.data
            fix = Fix(at, alias, hint) if moved and hint is not None else None
            yield Finding(at, f"{alias!r} is no name of {where[0]}{where[1]}/{tail}", fix=fix)


@rule("oaieval-set-member", Severity.WARNING, kinds=(oaievals.EVAL_SETS,), reads_files=True)
def oaieval_set_member(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An eval set's member matches no eval: the set silently runs nothing for it.

    `oaievalset` runs the evals whose names match each member (`*` matches any text), so a
    member that matches none, a misspelling most often, drops out without a word.

    Given (registry/data/arith/samples.jsonl):
        {"input": [{"role": "user", "content": "1+1"}], "ideal": "2"}
    Given (registry/evals/arith.yaml):
        arith.dev.v0:
          class: evals.elsuite.basic.match:Match
          args: {samples_jsonl: arith/samples.jsonl}
    Bad (registry/eval_sets/math.yaml):
        math:
          evals: [arith.dev.v1]
    Good (registry/eval_sets/math.yaml):
        math:
          evals: [arith.dev.v0, arith.*]
    """
    if not isinstance(doc.data, dict) or ctx.others is None:
        return
    root = oaievals.registry_root(doc.path)
    names = registry_index(ctx, root, "evals").first
    for name, spec in doc.data.items():
        members = spec.get("evals") if isinstance(spec, dict) else None
        for i, member in enumerate(members if isinstance(members, list) else ()):
            if not isinstance(member, str) or _matches(member, names):
                continue
            hint = suggest(member, names) if "*" not in member else None
            tail = f"; did you mean {hint!r}?" if hint else ""
            yield Finding(
                (name, "evals", i),
                f"{member!r} matches no eval of {root}evals/: the set runs nothing for it{tail}",
            )


def _matches(member: str, names: dict[str, str]) -> bool:
    """Whether a member names an eval: itself, or as `oaievalset`'s pattern (`*`: any text)."""
    if member in names:
        return True
    if "*" not in member:
        return False
    pattern = re.compile("^" + ".*".join(re.escape(p) for p in member.split("*")) + "$")
    return any(pattern.match(n) for n in names)


@rule("oaieval-samples", Severity.ERROR, kinds=(oaievals.EVALS,), reads_files=True)
def oaieval_samples(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An eval's `samples_jsonl` names no file or folder under `registry/data/`.

    The eval reads its samples from `registry/data/<samples_jsonl>` (a `.jsonl` file, or a
    folder of them) when it runs: a path that is not there fails the eval after the run began.

    Given (registry/data/arith/samples.jsonl):
        {"input": [{"role": "user", "content": "1+1"}], "ideal": "2"}
    Bad (registry/evals/arith.yaml):
        arith.dev.v0:
          class: evals.elsuite.basic.match:Match
          args: {samples_jsonl: arith/sample.jsonl}
    Good (registry/evals/arith.yaml):
        arith.dev.v0:
          class: evals.elsuite.basic.match:Match
          args: {samples_jsonl: arith/samples.jsonl}
    """
    if not isinstance(doc.data, dict) or oaievals.registry_part(doc.path) != "evals":
        return
    data_folder = oaievals.registry_root(doc.path) + "data/"
    for name, spec in doc.data.items():
        found = oaievals.samples_of(doc.path, spec)
        if found is None:
            continue
        path, full = found
        if full in ctx.files or any(f.startswith(full + "/") for f in ctx.files):
            continue
        yield Finding(
            (name, "args", "samples_jsonl"),
            f"{path!r} is no file or folder under {data_folder}: the eval fails when it reads "
            "its samples",
        )


@rule("oaieval-unknown-spec", Severity.ERROR, kinds=(oaievals.EVALS,), reads_files=True)
def oaieval_unknown_spec(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An eval's `modelgraded_spec` names no model-graded spec: the eval stops as it starts.

    A model-graded eval looks its spec up by name in the registry, which holds the specs of
    `registry/modelgraded/` and those of the registry the `evals` package ships (3.0.1: `fact`,
    `closedqa`, ...); with none of that name it has no prompt and stops. With a did-you-mean.

    Given (registry/data/fact/samples.jsonl):
        {"input": "Name a fruit."}
    Given (registry/modelgraded/fruit.yaml):
        fruit:
          prompt: "Is {completion} a fruit? {input}"
          choice_strings: "YN"
          input_outputs: {input: completion}
    Bad (registry/evals/fact.yaml):
        fact.dev.v0:
          class: evals.elsuite.modelgraded.classify:ModelBasedClassify
          args: {samples_jsonl: fact/samples.jsonl, modelgraded_spec: fruits, eval_type: classify}
    Good (registry/evals/fact.yaml):
        fact.dev.v0:
          class: evals.elsuite.modelgraded.classify:ModelBasedClassify
          args: {samples_jsonl: fact/samples.jsonl, modelgraded_spec: fruit, eval_type: classify}
    """
    if ctx.others is None:
        return
    from evallint.formats.oaievals.kinds_classes import BUILTIN_SPECS  # a table: when asked

    names = registry_index(ctx, oaievals.registry_root(doc.path), "modelgraded").first
    for name, _, graded in oaievals.graded_evals(doc.path, doc.data):
        if graded in names or graded in BUILTIN_SPECS:
            continue
        hint = suggest(graded, [*names, *BUILTIN_SPECS])
        tail = f"; did you mean {hint!r}?" if hint else ""
        yield Finding(
            (name, "args", "modelgraded_spec"),
            f"{graded!r} is no model-graded spec of this registry nor of evals 3.0.1's: the eval "
            f"stops as it starts{tail}",
        )
