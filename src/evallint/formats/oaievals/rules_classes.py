"""The `class:` of OpenAI evals registry specs: the `module:Name` the registry imports and calls
when the eval, completion function or solver runs (`make_object`), at any depth (a solver's
`args` hold the solvers it wraps).

Where the module is in the repository (a fork of the `evals` package holds it beside its
registry), the module is parsed, never imported, and what it binds decides: an error. Where the
registry goes with an installed `evals`, the modules and classes evals 3.0.1 ships (generated
from the package) are the judge; a registry may go with another release, so a name that release
lacks is a warning naming it. A module of another package is not followed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.oaievals import kinds as oaievals
from evallint.model import JSON, Finding, Pointer, Severity
from evallint.records import record
from evallint.rules.base import rule
from evallint.suggest import suggest

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context

KINDS = (oaievals.EVALS, oaievals.COMPLETION_FNS, oaievals.SOLVERS)
# Where a project keeps its importable packages: the repository's top, or `src/`.
_ROOTS = ("", "src/")


@record
class Verdict:
    """What a `class:` resolves to: an error (the repository's code says no), a warning (it
    cannot be confirmed: the release the list is from lacks it, or its module is too large to
    read), or nothing."""

    error: str | None = None
    warning: str | None = None


def classes(data: JSON, at: Pointer = ()) -> Iterator[tuple[Pointer, str]]:
    """(where, text) of each `class:` written `module:Name`, in specs and in their `args`."""
    if isinstance(data, dict):
        written = data.get("class")
        if isinstance(written, str) and ":" in written:
            yield (*at, "class"), written
        for key, value in data.items():
            if key != "class" and isinstance(value, dict | list):
                yield from classes(value, (*at, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from classes(value, (*at, i))


def _local(module: str, files: frozenset[str]) -> tuple[str | None, bool]:
    """(the project path of `module`, whether the project holds its top package)."""
    parts = module.split(".")
    stem = "/".join(parts)
    top = False
    for root in _ROOTS:
        for path in (f"{root}{stem}.py", f"{root}{stem}/__init__.py"):
            if path in files:
                return path, True
        top = top or f"{root}{parts[0]}/__init__.py" in files
    return None, top


def verdict(written: str, ctx: Context) -> Verdict:
    """Worked out once a run for each `class:` text: a registry repeats a few hundred times."""
    memo = ctx.others.memo if ctx.others is not None else {}
    key = ("oaieval-class", written)
    found = memo.get(key)
    if not isinstance(found, Verdict):
        found = memo[key] = _verdict(written, ctx)
    return found


def _verdict(written: str, ctx: Context) -> Verdict:
    module, _, name = written.strip().partition(":")
    if not module or not name:
        return Verdict()  # not `module:Name`: the schema says so
    path, top = _local(module, ctx.files)
    if path is not None and ctx.others is not None:
        return _in_repository(written, name, path, ctx)
    if top:
        return Verdict(
            error=f"{written!r}: this repository holds the package {module.split('.')[0]!r} "
            f"but no module {module!r}, so the registry cannot import it"
        )
    if module.split(".")[0] == "evals":
        return _in_release(written, module, name)
    return Verdict()  # another package's module: not followed


def _in_repository(written: str, name: str, path: str, ctx: Context) -> Verdict:
    assert ctx.others is not None
    found = ctx.others.python(path)
    if isinstance(found, str):
        return Verdict(error=f"{written!r}: {path} {found}")
    if found.unread:  # never passed in silence
        return Verdict(warning=f"{written!r}: {path} {found.error}; {name!r} was not checked")
    if found.error is not None:
        return Verdict(error=f"{written!r}: {path} {found.error}, so the registry cannot import it")
    if found.dynamic is not None or name in found.names:
        return Verdict()
    hint = suggest(name, found.names)
    tail = f"; did you mean {hint!r}?" if hint else ""
    return Verdict(error=f"{written!r}: {path} defines no {name!r}{tail}")


def _in_release(written: str, module: str, name: str) -> Verdict:
    from evallint.formats.oaievals.kinds_classes import MODULES, RELEASE  # a table: when asked

    names = MODULES.get(module)
    if names is None:
        hint = suggest(module, MODULES)
        tail = f"; did you mean {hint!r}?" if hint else ""
        return Verdict(
            warning=f"{written!r}: evals {RELEASE} ships no module {module!r}{tail} (a registry "
            "that goes with another release of evals may have it)"
        )
    if name in names:
        return Verdict()
    hint = suggest(name, names)
    tail = f"; did you mean {hint!r}?" if hint else ""
    return Verdict(
        warning=f"{written!r}: {module} of evals {RELEASE} has no class {name!r}{tail} (a "
        "registry that goes with another release of evals may have it)"
    )


def _findings(doc: Document, ctx: Context, warning: bool) -> Iterator[Finding]:
    for pointer, written in classes(doc.data):
        found = verdict(written, ctx)
        message = found.warning if warning else found.error
        if message is not None:
            yield Finding(pointer, message)


@rule("oaieval-class", Severity.ERROR, kinds=KINDS, reads_files=True, precision="high")
def oaieval_class(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A `class:` the repository's own package does not define: the eval cannot start.

    The registry imports `module` and takes `Name` from it when the eval, completion function or
    solver runs. Where the module is in the repository (a fork of `evals`, or a project's own
    package beside its registry), it is parsed (never imported): a name it does not bind, or a
    module the repository's package lacks, stops the run. With a did-you-mean.

    Given (registry/data/arith/samples.jsonl):
        {"input": [{"role": "user", "content": "1+1"}], "ideal": "2"}
    Given (myevals/__init__.py):
        VERSION = 1
    Given (myevals/arith.py):
        class ArithEval:
            pass
    Bad (registry/evals/arith.yaml):
        arith.dev.v0:
          class: myevals.arith:ArithEvals
          args: {samples_jsonl: arith/samples.jsonl}
    Good (registry/evals/arith.yaml):
        arith.dev.v0:
          class: myevals.arith:ArithEval
          args: {samples_jsonl: arith/samples.jsonl}
    """
    return _findings(doc, ctx, warning=False)


@rule("oaieval-class-unconfirmed", Severity.WARNING, kinds=KINDS, reads_files=True)
def oaieval_class_unconfirmed(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A `class:` evallint cannot confirm: evals 3.0.1 does not ship it, or its module is too large.

    Where the repository does not hold the `evals` package, the registry runs with an installed
    one; the modules and classes of evals 3.0.1 (the release on the package index, listed from
    it) are the judge. A registry that goes with a checkout of another release may name what
    3.0.1 lacks, so this is a warning naming the release, with a did-you-mean. A module of the
    repository over the size evallint parses is said here too, never passed in silence.

    Given (registry/data/arith/samples.jsonl):
        {"input": [{"role": "user", "content": "1+1"}], "ideal": "2"}
    Bad (registry/evals/arith.yaml):
        arith.dev.v0:
          class: evals.elsuite.basic.match:Mach
          args: {samples_jsonl: arith/samples.jsonl}
    Good (registry/evals/arith.yaml):
        arith.dev.v0:
          class: evals.elsuite.basic.match:Match
          args: {samples_jsonl: arith/samples.jsonl}
    """
    return _findings(doc, ctx, warning=True)
