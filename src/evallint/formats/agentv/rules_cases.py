"""The case files AgentV suites name (`tests: ./cases.yaml`, `./dataset.jsonl`, `./cases/`):
loaded as AgentV loads them, and each case checked as the suite's own would be, in the case
file, at its line. AgentV 4.42.4 and 5.3.1-next.1: case-file-loader.ts.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.agentv import kinds as agentv
from evallint.formats.agentv.kinds_files import is_case_ref
from evallint.kinds.base import FileRef, candidates
from evallint.model import JSON, Finding, Pointer, Severity
from evallint.rules.api import file_refs_of
from evallint.rules.base import rule
from evallint.suggest import suggest
from evallint.validation.keys import walk_keys
from evallint.validation.schemas import validate

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context

# The case files checked here. AgentV 4 loads no other format; AgentV 5 also reads JSON, CSV
# and scripts (a script's function is agentv-function's), which are not checked here.
_FORMATS = (".yaml", ".yml", ".jsonl")
_FOLDER_CASE = ("case.yaml", "case.yml")  # a folder of cases: one per subfolder


@rule("agentv-case-file", Severity.ERROR, kinds=(agentv.V4, agentv.NEXT), reads_files=True)
def agentv_case_file(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A case file a suite names that AgentV cannot load, or a case in it AgentV refuses.

    A suite may keep its cases in another file (`tests: ./cases.yaml`, `./dataset.jsonl`) or a
    folder of `<case>/case.yaml` files. AgentV loads them when the suite runs: a file that does
    not parse, a YAML file that is not a list of cases, or a JSONL line that is not an object
    stops the run; a case is then read as the suite's own. Each case is checked here against
    the suite's dialect (its keys, their types, a misspelt key), at its line in the case file;
    a case without an `id` is one AgentV skips.

    Bad (evals/cases.yaml):
        - idd: refund-window
          criteria: Mentions the 30-day window.
          input: How long do refunds take?
    Given (evals/refunds.eval.yaml):
        tests: ./cases.yaml
    Good (evals/cases.yaml):
        - id: refund-window
          criteria: Mentions the 30-day window.
          input: How long do refunds take?
    """
    for ref in _case_refs(doc, ctx):
        for path in _case_paths(doc.path, ref, ctx):
            if path.lower().endswith(_FORMATS):
                yield from _check_file(path, ref, ctx)
                continue
            name = path.rpartition("/")[2]
            if ctx.kind.name == agentv.V4.name and "." in name:
                tail = name.rpartition(".")[2]
                message = f"AgentV 4 loads case files in YAML or JSONL, not .{tail}"
                yield Finding(ref.pointer, message)


def _case_refs(doc: Document, ctx: Context) -> Iterator[FileRef]:
    """The suite's references to case files: `tests` as a path, or a path among its tests."""
    for ref in file_refs_of(doc, ctx.kind):
        if is_case_ref(ref) and not ref.function and not ref.glob:
            yield ref


def _case_paths(doc_path: str, ref: FileRef, ctx: Context) -> list[str]:
    """The files the reference loads: the file, or each subfolder's case.yaml of a folder."""
    for place in candidates(doc_path, ref, ctx.root_name):
        if place in ctx.files:
            return [] if ctx.outside(place) else [place]  # a link out is missing-file's
        inside = _folder_cases(ctx.files).get(place.rstrip("/"))
        if inside:
            return inside
    return []  # nowhere: missing-file says so


@functools.lru_cache(maxsize=2)
def _folder_cases(files: frozenset[str]) -> dict[str, list[str]]:
    """Folder -> the `<case>/case.yaml` files of its subfolders, once a run: a suite naming
    many folders costs a lookup each, never a pass over the tree."""
    out: dict[str, list[str]] = {}
    for path in files:
        folder, _, name = path.rpartition("/")
        if name in _FOLDER_CASE and folder:
            out.setdefault(folder.rpartition("/")[0], []).append(path)
    for found in out.values():
        found.sort()
    return out


def _check_file(path: str, ref: FileRef, ctx: Context) -> Iterator[Finding]:
    assert ctx.others is not None  # the rule reads files
    found = ctx.others.parsed(path)
    if isinstance(found, str):
        yield Finding(ref.pointer, f"case file {path} cannot be read: {found}")
        return
    broken = [p for p in found.problems if p.rule == "parse-error"]
    if not found.ok or broken:
        first = broken[0] if broken else found.problems[0]
        yield Finding(
            ref.pointer,
            f"case file {path} does not load: line {first.span.line}: {first.message}",
        )
        return
    one = path.rpartition("/")[2] in _FOLDER_CASE
    data = found.data
    if one and isinstance(data, dict) and data.get("id") is None:
        # AgentV gives a folder's case the folder's name for an id (case-file-loader.ts).
        data = {**data, "id": path.rsplit("/", 2)[-2]}
    cases = [data] if one else data
    if not isinstance(cases, list):
        yield Finding((), "a case file holds a list of cases; AgentV refuses anything else",
                      path=path)  # fmt: skip
        return
    yield from _check_cases(path, cases, one, ctx)


def _check_cases(path: str, cases: list[JSON], one: bool, ctx: Context) -> Iterator[Finding]:
    def at(pointer: Pointer) -> Pointer:
        return pointer[1:] if one else pointer  # a folder's case.yaml is the case itself

    # The v4 schema requires an id (AgentV 4 refuses the file); AgentV 5 skips such a case.
    unnamed = ctx.kind.name == agentv.NEXT.name
    for i, case in enumerate(cases):
        if not isinstance(case, dict):
            yield Finding(at((i,)), "a case is a mapping; AgentV refuses the file", path=path)
        elif "id" not in case and unnamed:
            yield Finding(at((i,)), "this case has no 'id': AgentV skips it", path=path)
    schema = ctx.kind.schema
    if schema is None:
        return
    wrapped: JSON = {"tests": cases}
    for error in validate(schema, wrapped, ctx.engines):
        if error.pointer[:1] == ("tests",) and len(error.pointer) > 1:
            yield Finding(at(error.pointer[1:]), error.message, path=path)
    for obj in walk_keys(schema, wrapped):
        if obj.pointer[:1] != ("tests",) or len(obj.pointer) < 2:
            continue
        for key in obj.unknown:
            hint = suggest(key, sorted(obj.known))
            if hint:
                yield Finding(
                    at((*obj.pointer[1:], key)),
                    f"unknown key {key!r}; did you mean {hint!r}?",
                    on_key=True,
                    path=path,
                )
