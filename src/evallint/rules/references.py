"""Cross-file rules: references resolve, composites stay shallow and acyclic, ids are unique."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.kinds import REFERRING, ai_eval, items
from evallint.model import Finding, Pointer, Severity
from evallint.project import Definition, Entry, Project, Resolution
from evallint.rules.base import rule
from evallint.suggest import suggest

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context


def resolutions(doc: Document, ctx: Context) -> list[tuple[Pointer, Resolution]]:
    """Where the document refers, and what each reference resolves to in the context's project:
    worked out once for the three rules that read them (per project: a file outside the run
    is checked against the head and the base)."""
    return doc.facts.get(_resolutions, doc, ctx, key=ctx.project)


def _resolutions(doc: Document, ctx: Context) -> list[tuple[Pointer, Resolution]]:
    return [
        (pointer, ctx.project.resolve(ref))
        for pointer, _text, ref in ctx.project.references(Entry(doc, ctx.kind))
        if ref is not None
    ]


@rule("unknown-ref", Severity.ERROR, kinds=REFERRING, cross_file=True)
def unknown_ref(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A reference names a rubric or judge id that no file in the project defines.

    `rubric_ref` (in questions and composite checks) and `judge_prompt_ref` (in llm_judge checks
    and jury entries) must name an id that a rubric or judge file defines. The message suggests
    the closest known id, says when the id's file declares a version that is not semver, and
    names the rubric or judge files whose id cannot be read (they do not parse, or name no id):
    the one meant may be among them.

    Given (rubrics/refund_policy.yaml):
        id: refund_policy
        version: "1.0.0"
        checks: [{kind: php_lint, id: lint}]
        scoring: {combine: all_pass}
    Bad (datasets/refunds.yaml):
        questions:
          - id: q1
            input: "How long do refunds take?"
            rubric_ref: rubric/refund_polcy@1
    Good (datasets/refunds.yaml):
        questions:
          - id: q1
            input: "How long do refunds take?"
            rubric_ref: rubric/refund_policy@1
    """
    for pointer, res in resolutions(doc, ctx):
        if res.outcome == "unknown-id":
            ref = res.ref
            broken = ctx.project.unversioned_of(ref.namespace, ref.id)
            if broken:
                path, written = broken[0]
                why = (
                    "it declares no version"
                    if written is None
                    else f'its version {written} is not a semantic version string (such as "1.0.0")'
                )
                yield Finding(
                    pointer,
                    f"{ref.namespace} {ref.id!r} is defined in {path}, but {why}, so no "
                    "reference can resolve to it",
                )
                continue
            hint = suggest(ref.id, ctx.project.ids(ref.namespace))
            tail = f"; did you mean '{ref.namespace}/{hint}'?" if hint else ""
            tail += _unreadable(ref.namespace, ctx.project.broken.get(ref.namespace, []))
            yield Finding(pointer, f"no {ref.namespace} with id {ref.id!r} in the project{tail}")


def _unreadable(namespace: str, paths: list[str]) -> str:
    """The files that may define the id, but whose id cannot be read: where to look."""
    if not paths:
        return ""
    paths = sorted(paths)
    if len(paths) == 1:
        return f"; {paths[0]} is a {namespace} file whose id cannot be read"
    shown = ", ".join(paths[:3]) + (", ..." if len(paths) > 3 else "")
    return f"; {len(paths)} {namespace} files have no readable id ({shown})"


@rule("unknown-ref-version", Severity.ERROR, kinds=REFERRING, cross_file=True)
def unknown_ref_version(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A pinned reference matches no version of the rubric or judge it names.

    A full pin (`@1.2.3`, or `@1.2.3-rc.1`) must exist exactly; `@1.2` takes the highest 1.2.x
    and `@1` the highest 1.x.y, prereleases excluded. The message lists the versions that exist.

    Given (rubrics/tone.yaml):
        id: tone
        version: "1.0.0"
        checks: [{kind: php_lint, id: lint}]
        scoring: {combine: all_pass}
    Bad (datasets/refunds.yaml):
        questions:
          - id: q1
            input: "How long do refunds take?"
            rubric_ref: rubric/tone@9
    Good (datasets/refunds.yaml):
        questions:
          - id: q1
            input: "How long do refunds take?"
            rubric_ref: rubric/tone@1.0
    """
    for pointer, res in resolutions(doc, ctx):
        if res.outcome == "no-version":
            versions = ctx.project.versions(res.ref.namespace, res.ref.id)
            listed = ", ".join(str(v) for v in sorted(d.version for d in versions))
            yield Finding(
                pointer,
                f"{str(res.ref)!r} matches no version of "
                f"{res.ref.namespace} {res.ref.id!r}; it has {listed}",
            )


@rule("unpinned-ref", Severity.WARNING, kinds=REFERRING, strict=Severity.ERROR, cross_file=True)
def unpinned_ref(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A reference has no version pin, so what it grades with changes whenever a version is added.

    The ai_eval proposal (#3586842) says a missing pin "warns and resolves to latest minor",
    so what an unpinned `rubric/{id}` grades with moves whenever a version is released. Pin at
    least the major version (`@1`). An error under `--strict`, as the proposal's strict mode
    forbids unpinned references.

    Given (rubrics/tone.yaml):
        id: tone
        version: "1.0.0"
        checks: [{kind: php_lint, id: lint}]
        scoring: {combine: all_pass}
    Bad (datasets/refunds.yaml):
        questions:
          - id: q1
            input: "How long do refunds take?"
            rubric_ref: rubric/tone
    Good (datasets/refunds.yaml):
        questions:
          - id: q1
            input: "How long do refunds take?"
            rubric_ref: rubric/tone@1
    """
    for pointer, res in resolutions(doc, ctx):
        if res.ref.pin is None and res.target is not None:
            yield Finding(
                pointer,
                f"{str(res.ref)!r} has no version pin; it resolves to {res.target.label} today",
            )


def composite_targets(project: Project, rubric: Document) -> Iterator[tuple[Pointer, Resolution]]:
    for i, check in items(rubric.data, "checks"):
        ref_text = check.get("rubric_ref")
        if check.get("kind") == "composite" and isinstance(ref_text, str):
            from evallint.refs import parse_ref

            ref = parse_ref(ref_text)
            if ref is not None and ref.namespace == ai_eval.RUBRIC.name:
                yield ("checks", i, "rubric_ref"), project.resolve(ref)


def _defined(doc: Document, ctx: Context) -> Definition | None:
    found = ctx.kind.defines(doc.data) if ctx.kind.defines else None
    if not found or not ctx.kind.namespace:
        return None
    return next(
        (d for d in ctx.project.versions(ctx.kind.namespace, found[0]) if d.path == doc.path), None
    )


def cycle_through(project: Project, start: Definition, first: Definition) -> list[Definition]:
    """The composite path from `first` back to `start`, if there is one (depth-first)."""
    stack: list[tuple[Definition, list[Definition]]] = [(first, [first])]
    seen: set[str] = set()
    while stack:
        node, path = stack.pop()
        if node.path == start.path:
            return path
        if node.path in seen:
            continue
        seen.add(node.path)
        for _, res in composite_targets(project, node.doc):
            if res.target is not None:
                stack.append((res.target, [*path, res.target]))
    return []


@rule("composite-cycle", Severity.ERROR, kinds=(ai_eval.RUBRIC,), cross_file=True)
def composite_cycle(doc: Document, ctx: Context) -> Iterator[Finding]:
    """Composite checks lead back to the rubric they start from.

    Reported on each `rubric_ref` in the cycle, with the whole cycle spelt out. A rubric that
    includes itself is the shortest cycle.

    Bad (rubrics/tone.yaml):
        id: tone
        version: "1.0.0"
        checks: [{kind: composite, id: self, rubric_ref: rubric/tone@1}]
        scoring: {combine: all_pass}
    Good (rubrics/tone.yaml):
        id: tone
        version: "1.0.0"
        checks: [{kind: php_lint, id: lint}]
        scoring: {combine: all_pass}
    """
    me = _defined(doc, ctx)
    if me is None:
        return
    for pointer, res in composite_targets(ctx.project, doc):
        if res.target is None:
            continue
        path = cycle_through(ctx.project, me, res.target)
        if path:
            chain = " → ".join(d.label for d in [me, *path])
            yield Finding(pointer, f"composite references form a cycle: {chain}")


@rule("composite-depth", Severity.ERROR, kinds=(ai_eval.RUBRIC,), cross_file=True)
def composite_depth(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A composite check includes a rubric that has composite checks itself.

    Composites are limited to one level in v1 of the ai_eval rubric format: the rubric a
    composite names must be made of plain checks. (Cycles are reported by `composite-cycle`.)

    Given (rubrics/middle.yaml):
        id: middle
        version: "1.0.0"
        checks: [{kind: composite, id: inner, rubric_ref: rubric/inner@1}]
        scoring: {combine: all_pass}
    Given (rubrics/inner.yaml):
        id: inner
        version: "1.0.0"
        checks: [{kind: php_lint, id: lint}]
        scoring: {combine: all_pass}
    Bad (rubrics/outer.yaml):
        id: outer
        version: "1.0.0"
        checks: [{kind: composite, id: mid, rubric_ref: rubric/middle@1}]
        scoring: {combine: all_pass}
    Good (rubrics/outer.yaml):
        id: outer
        version: "1.0.0"
        checks: [{kind: composite, id: inner, rubric_ref: rubric/inner@1}]
        scoring: {combine: all_pass}
    """
    me = _defined(doc, ctx)
    for pointer, res in composite_targets(ctx.project, doc):
        target = res.target
        if target is None or (me is not None and cycle_through(ctx.project, me, target)):
            continue
        nested = [r.ref for _, r in composite_targets(ctx.project, target.doc)]
        if nested:
            yield Finding(
                pointer,
                f"{str(res.ref)!r} resolves to {target.label}, which has "
                f"composite checks itself ({', '.join(map(str, nested))}); "
                "composites may nest only one level",
            )


@rule(
    "duplicate-definition", Severity.ERROR, kinds=(ai_eval.RUBRIC, ai_eval.JUDGE), cross_file=True
)
def duplicate_definition(doc: Document, ctx: Context) -> Iterator[Finding]:
    """Two files define the same id and version.

    A reference to that id and version cannot say which of the two files it means, and they
    may differ. Reported on the later file (in path order), naming the other.

    Given (rubrics/tone.yaml):
        id: tone
        version: "1.0.0"
        checks: [{kind: php_lint, id: lint}]
        scoring: {combine: all_pass}
    Bad (rubrics/tone_copy.yaml):
        id: tone
        version: "1.0.0"
        checks: [{kind: php_lint, id: lint}]
        scoring: {combine: all_pass}
    Good (rubrics/tone_copy.yaml):
        id: tone_strict
        version: "1.0.0"
        checks: [{kind: php_lint, id: lint}]
        scoring: {combine: all_pass}
    """
    me = _defined(doc, ctx)
    if me is None:
        return
    same = [
        d for d in ctx.project.versions(me.namespace, me.id) if d.version.compare(me.version) == 0
    ]
    first = same[0]
    if first.path != doc.path:
        line = first.doc.locate(("id",)).line
        yield Finding(
            ("id",),
            f"{me.namespace} {me.label} is also defined in {first.path} (line {line})",
            related=((first.path, ("id",), "first definition"),),
        )
