"""Cross-file rules: references resolve, composites stay shallow and acyclic, ids are unique."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.ai_eval import kinds as ai_eval
from evallint.kinds import REFERRING, items
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


class _Components:
    """The strongly connected components of the composite graph, found once per project by
    Tarjan's algorithm (iterative), from each rubric a rule asks about that no earlier search
    reached: a rubric is on a cycle exactly when its component holds another rubric or itself
    as a target. Every rubric and edge is visited once, so a chain or a cycle of thousands
    costs linear time, not a search per rubric."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.component: dict[str, int] = {}  # rubric path -> its component's number
        self.looped: set[int] = set()  # components that hold a cycle
        self._targets: dict[str, list[Definition]] = {}
        self.rings: dict[int, list[Definition]] = {}  # simple cycles, in order
        self.place: dict[str, int] = {}  # a ring member's place in its ring

    def targets(self, node: Definition) -> list[Definition]:
        """The rubrics `node`'s composite checks resolve to, resolved once."""
        found = self._targets.get(node.path)
        if found is None:
            resolved = (res.target for _, res in composite_targets(self.project, node.doc))
            found = self._targets[node.path] = [t for t in resolved if t is not None]
        return found

    def of(self, node: Definition) -> int:
        if node.path not in self.component:
            self._search(node)
        return self.component[node.path]

    def _search(self, root: Definition) -> None:
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[Definition] = []
        on_stack: set[str] = set()
        work: list[tuple[Definition, list[Definition], int]] = [(root, self.targets(root), 0)]
        index[root.path] = low[root.path] = 0
        stack.append(root)
        on_stack.add(root.path)
        while work:
            node, targets, i = work.pop()
            if i < len(targets):
                work.append((node, targets, i + 1))
                nxt = targets[i]
                if nxt.path in self.component:
                    continue  # a component an earlier search closed
                if nxt.path not in index:
                    index[nxt.path] = low[nxt.path] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt.path)
                    work.append((nxt, self.targets(nxt), 0))
                elif nxt.path in on_stack:
                    low[node.path] = min(low[node.path], index[nxt.path])
                continue
            if work:
                parent = work[-1][0]
                low[parent.path] = min(low[parent.path], low[node.path])
            if low[node.path] == index[node.path]:
                self._close(node, stack, on_stack)

    def _close(self, head: Definition, stack: list[Definition], on_stack: set[str]) -> None:
        number = len(self.looped) + len(self.component) + 1
        members = []
        while True:
            member = stack.pop()
            on_stack.discard(member.path)
            self.component[member.path] = number
            members.append(member)
            if member.path == head.path:
                break
        if len(members) > 1 or any(t.path == head.path for t in self.targets(head)):
            self.looped.add(number)
            self._ring(members, number)

    def _ring(self, members: list[Definition], number: int) -> None:
        """A component that is one simple cycle (each member names one other member) keeps its
        order: a cycle through any member is then read off it, with no search."""
        inside = {m.path for m in members}
        following: dict[str, Definition] = {}
        for m in members:
            nexts = [t for t in self.targets(m) if t.path in inside]
            if len(nexts) != 1:
                return
            following[m.path] = nexts[0]
        order, node = [members[0]], following[members[0].path]
        while node.path != members[0].path and len(order) <= len(members):
            order.append(node)
            node = following[node.path]
        if len(order) == len(members):
            self.rings[number] = order
            self.place.update((m.path, i) for i, m in enumerate(order))


def on_cycle(project: Project, start: Definition, first: Definition) -> bool:
    """Whether `first` leads back to `start` through composite checks."""
    parts = project.facts.get(_Components, project)
    home = parts.of(start)
    return home in parts.looped and parts.of(first) == home


def cycle_text(project: Project, start: Definition, first: Definition) -> str | None:
    """The cycle from `start` through `first` back to `start`, for people; None if none."""
    parts = project.facts.get(_Components, project)
    home = parts.of(start)
    if home not in parts.looped or parts.of(first) != home:
        return None
    ring = parts.rings.get(home)
    if ring is not None:  # one simple cycle: read off its order, only the names shown
        at, n = parts.place[start.path], len(ring)
        if n < 12:
            return _chain([ring[(at + i) % n].label for i in range(n + 1)])
        return _chain(None, n, ring, at)
    path = cycle_through(project, start, first)
    return _chain([d.label for d in [start, *path]])


def cycle_through(project: Project, start: Definition, first: Definition) -> list[Definition]:
    """The composite path from `first` back to `start`, if there is one: a breadth-first walk
    inside their component, which holds every such path."""
    parts = project.facts.get(_Components, project)
    home = parts.of(start)
    if home not in parts.looped or parts.of(first) != home:
        return []
    came: dict[str, Definition | None] = {first.path: None}
    queue, at = [first], 0
    while at < len(queue):
        node = queue[at]
        at += 1
        if node.path == start.path:
            path = [node]
            while (back := came[path[-1].path]) is not None:
                path.append(back)
            return path[::-1]
        for nxt in parts.targets(node):
            if nxt.path not in came and parts.component.get(nxt.path) == home:
                came[nxt.path] = node
                queue.append(nxt)
    return []


def _chain(
    names: list[str] | None, n: int = 0, ring: list[Definition] | None = None, at: int = 0
) -> str:
    """A cycle for people: whole when short, else its start and end with the count between
    (a cycle of thousands of rubrics would make every message megabytes long). `names`, or
    for a long simple cycle its `ring` read from place `at` (n members, n + 1 names)."""
    if names is not None and len(names) <= 12:
        return " → ".join(names)
    if names is None:
        assert ring is not None
        head = [ring[(at + i) % n].label for i in range(6)]
        tail = [ring[(at + n - 3 + i) % n].label for i in range(4)]
        return " → ".join([*head, f"… ({n + 1 - 10:,} more)", *tail])
    hidden = len(names) - 10
    return " → ".join([*names[:6], f"… ({hidden:,} more)", *names[-4:]])


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
        chain = cycle_text(ctx.project, me, res.target)
        if chain is not None:
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
        if target is None or (me is not None and on_cycle(ctx.project, me, target)):
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
