"""OpenAI evals versions: the version lives in the eval's name (`arith.dev.v0`). The registry's
guide asks for a new one (`.v1`) whenever what the eval measures changes, so results of the two
are never read as one; these rules compare each eval with the change's base."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.oaievals import kinds as oaievals
from evallint.formats.oaievals.rules_registry import registry_index
from evallint.model import JSON, Finding, Fix, Pointer, Severity
from evallint.records import record
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context, Others


@record
class _Change:
    at: Pointer
    what: str


def _spec_change(name: str, now: dict[str, JSON], then: dict[str, JSON]) -> _Change | None:
    """The first key of the spec that differs (its class, an argument)."""
    if now.get("class") != then.get("class"):
        return _Change((name, "class"), "its class")
    args, before = now.get("args"), then.get("args")
    if args == before:
        return None
    if isinstance(args, dict) and isinstance(before, dict):
        key = next(
            k for k in sorted(set(args) | set(before), key=str) if args.get(k) != before.get(k)
        )
        at: Pointer = (name, "args", key) if key in args else (name, "args")
        return _Change(at, f"its argument {key!r}")
    return _Change((name, "args"), "its arguments")


def _samples_change(
    name: str, spec: dict[str, JSON], path: str, now: Others, then: Others
) -> _Change | None:
    found = oaievals.samples_of(path, spec)
    if found is None:
        return None
    written, full = found
    head, base = now.raw(full), then.raw(full)
    if isinstance(head, str) or isinstance(base, str) or head == base:
        return None  # a missing file is oaieval-samples'; a folder of samples is not compared
    return _Change((name, "args", "samples_jsonl"), f"its samples ({written})")


def _graded_change(name: str, spec: dict[str, JSON], path: str, ctx: Context) -> _Change | None:
    """The model-graded spec the eval grades with, as its file has it now and at the base."""
    args = spec.get("args")
    graded = args.get("modelgraded_spec") if isinstance(args, dict) else None
    if not isinstance(graded, str) or ctx.others is None or ctx.base_files is None:
        return None
    where = registry_index(ctx, oaievals.registry_root(path), "modelgraded").first.get(graded)
    if where is None:
        return None  # a spec the registry lacks is oaieval-unknown-name's
    now, then = ctx.others.parsed(where), ctx.base_files.parsed(where)
    if isinstance(now, str) or isinstance(then, str):
        return None  # a new spec file: nothing to compare with
    before = then.data.get(graded) if isinstance(then.data, dict) else None
    after = now.data.get(graded) if isinstance(now.data, dict) else None
    if before is None or before == after:
        return None
    return _Change((name, "args", "modelgraded_spec"), f"its model-graded spec ({where})")


def changes(doc: Document, ctx: Context) -> Iterator[tuple[str, _Change]]:
    """Each eval of the file kept under its name at the base whose spec or samples changed."""
    if ctx.base_files is None or ctx.others is None or not isinstance(doc.data, dict):
        return
    before = ctx.base_files.parsed(doc.path)
    if isinstance(before, str) or not before.ok or not isinstance(before.data, dict):
        return  # a new file: every eval in it is new
    for name, spec in doc.data.items():
        then = before.data.get(name)
        if not (isinstance(spec, dict) and isinstance(then, dict) and "id" not in spec):
            continue
        found = (
            _spec_change(name, spec, then)
            or _samples_change(name, spec, doc.path, ctx.others, ctx.base_files)
            or _graded_change(name, spec, doc.path, ctx)
        )
        if found is not None:
            yield name, found


@rule(
    "oaieval-version-not-bumped",
    Severity.ERROR,
    kinds=(oaievals.EVALS,),
    needs_base=True,
    reads_files=True,
    fixable=True,
    bumps=True,
)
def oaieval_version_not_bumped(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An eval's class, arguments or samples changed and its name kept its version.

    An eval's version is the last part of its name (`arith.dev.v0`), and the registry's guide
    asks for a new version when an eval changes, so results recorded under the old name are
    never read as the new eval's. A change counts in the class, in an argument, in the content
    of the samples file it reads, and in the model-graded spec it grades with. Reported on the
    first changed key, naming the next version; `evallint bump` renames the eval, and `--fix`
    then moves the aliases that led to the old name (`oaieval-unknown-name`). Checked with
    `--diff` and `--base`.

    Given (registry/data/arith/samples.jsonl):
        {"input": [{"role": "user", "content": "1+1"}], "ideal": "2"}
    Given (registry/data/arith/hard.jsonl):
        {"input": [{"role": "user", "content": "17*23"}], "ideal": "391"}
    Base (registry/evals/arith.yaml):
        arith.dev.v0:
          class: evals.elsuite.basic.match:Match
          args: {samples_jsonl: arith/samples.jsonl}
    Bad (registry/evals/arith.yaml):
        arith.dev.v0:
          class: evals.elsuite.basic.match:Match
          args: {samples_jsonl: arith/hard.jsonl}
    Good (registry/evals/arith.yaml):
        arith.dev.v1:
          class: evals.elsuite.basic.match:Match
          args: {samples_jsonl: arith/hard.jsonl}
    """
    for name, found in changes(doc, ctx):
        after = oaievals.next_version(name)
        rename = f": rename it {after!r}" if after else ": give its name a version (.v0)"
        fix = Fix((name,), name, after, on_key=True) if after and after not in doc.data else None
        message = f"{found.what} changed and {name!r} kept its name{rename}"
        yield Finding(found.at, message, fix=fix)
