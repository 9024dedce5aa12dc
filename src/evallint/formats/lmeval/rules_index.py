"""lm-evaluation-harness rules about the harness's task index: what name a config registers
under, as lm-eval 0.4.13's `TaskIndex` reads the tree (every `*.yaml`, in path order, includes
resolved; a config with `group` is a group, a `class` a Python task, else a task)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.lmeval import kinds as lmeval
from evallint.formats.lmeval.rules_read import chain
from evallint.model import Finding, Severity
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.project import Entry, Project
    from evallint.rules.api import Context


@rule("lm-eval-group-task", Severity.ERROR, kinds=lmeval.KINDS, reads_files=True)
def lm_eval_group_task(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A task config that also has `group`: the harness indexes it as a group, and the task
    never registers.

    lm-eval 0.4.13 reads a config with `group` as a group whatever else it holds (a `class`
    aside), so `--tasks demo` fails with "not a registered task/group/tag name". The `group`
    is often inherited from a template. To list a task under a shared name, write `tag:`; a
    group is a file of its own whose `task:` lists its members. Reported on the `group` key,
    in the file that writes it.

    Bad (tasks/demo/demo.yaml):
        group: demo_suite
        task: demo
        dataset_path: demo/data
    Good (tasks/demo/demo.yaml):
        tag: demo_suite
        task: demo
        dataset_path: demo/data
    """
    if not doc.path.endswith(".yaml") or not isinstance(doc.data, dict):
        return
    found = chain(doc, ctx)
    merged = found.merged
    task, group = merged.get("task"), merged.get("group")
    if not isinstance(task, str) or group is None or "class" in merged:
        return
    at = found.origins.get("group", doc.path)
    # In a template, one finding for every task that includes it (the engine drops repeats).
    what = (
        f"task {task!r} never registers"
        if at == doc.path
        else ("the tasks that include this file never register")
    )
    yield Finding(
        ("group",),
        f"the harness indexes a config with `group` as group {group!r}, so {what}; write "
        f"`tag: {group}` to list a task under that name, or define the group in a file of "
        "its own (`task:` a list of its members)",
        on_key=True,
        path=None if at == doc.path else at,
    )


@rule(
    "lm-eval-duplicate-task",
    Severity.ERROR,
    kinds=lmeval.KINDS,
    reads_project=True,
    cross_file=True,
    keeps=lambda doc: [("task",), ("group",)],
    wants=lambda entry, ctx: _twice(entry, ctx.project),
)
def lm_eval_duplicate_task(doc: Document, ctx: Context) -> Iterator[Finding]:
    """Two configs register one task name: the harness keeps the first, in path order.

    lm-eval 0.4.13 reads the task tree's `*.yaml` files sorted by path and skips a task whose
    name it has indexed ("Duplicate task name ... Skipping duplicate"): the later config is
    never run, whatever it says. Reported on each later config's `task`, naming the first.

    Given (tasks/a/demo.yaml):
        task: demo
        dataset_path: demo/a
    Bad (tasks/b/demo.yaml):
        task: demo
        dataset_path: demo/b
    Good (tasks/b/demo.yaml):
        task: demo_b
        dataset_path: demo/b
    """
    name = _name(doc.path, doc.data)
    if name is None:
        return
    for first in ctx.project.facts.get(_by_name, ctx.project).get(name, ()):
        if first >= doc.path:
            return
        # The project keeps only the name of a file outside the run: whether the earlier file
        # registers it (no `group`, which makes it a group) is read from the file itself.
        found = ctx.others.parsed(first) if ctx.others is not None else None
        data = found.data if found is not None and not isinstance(found, str) else None
        if _name(first, data) == name:
            yield Finding(
                ("task",),
                f"task {name!r} is registered by {first}, which the harness reads first (in "
                "path order): this config is skipped as a duplicate and never runs",
            )
            return


def _name(path: str, data: object) -> str | None:
    """The task name a config registers under by its own keys (a group registers none)."""
    if not path.endswith(".yaml") or not isinstance(data, dict) or "group" in data:
        return None
    task = data.get("task")
    return task if isinstance(task, str) and task else None


def _twice(entry: Entry, project: Project) -> bool:
    """Whether another config of the project writes the file's `task` name too."""
    task = entry.top("task")
    paths = project.facts.get(_by_name, project).get(task, ()) if isinstance(task, str) else ()
    return len(paths) > 1


def _by_name(project: Project) -> dict[str, list[str]]:
    """Task name -> the configs that write it as their `task`, in path order."""
    out: dict[str, list[str]] = {}
    kind = lmeval.TASK
    for path, entry in project.entries.items():
        if entry.kind is kind and path.endswith(".yaml"):
            task = entry.top("task")
            if isinstance(task, str) and task:
                out.setdefault(task, []).append(path)
    for paths in out.values():
        paths.sort()
    return out
