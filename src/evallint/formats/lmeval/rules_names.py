"""Which task, group and tag names a tree defines, for the members a group names.

The harness registers each `*.yaml` config it indexes under its `task`, `group` and `tag` (its
includes merged in). The project keeps those three keys of every config it holds (`Kind.held`),
so a name one of them writes is looked up, not searched for. A name can still come from a file
the project does not hold as a config: a template a config includes (often with no extension),
a file of another kind or one that does not parse, or, in a partial run, any file outside it.
Only when a name is registered by no held config are those files' words read, once a run.
"""

from __future__ import annotations

import re
from types import EllipsisType
from typing import TYPE_CHECKING

from evallint.formats.lmeval import kinds as lmeval
from evallint.model import JSON
from evallint.project import ABSENT
from evallint.records import record

if TYPE_CHECKING:
    from collections.abc import Sequence

    from evallint.parse import Document
    from evallint.project import Project
    from evallint.rules.api import Context

# What a task, group or tag name is made of, as bytes; the YAML text around names (quotes,
# brackets, commas, colons) is turned to spaces, and what is left split into words, at C speed.
_NAME = re.compile(rb"[A-Za-z0-9_][A-Za-z0-9_.\-+]*")
_SPACES = bytes.maketrans(b"\"',[]{}:#|&*!>", b" " * 14)


def defined_elsewhere(name: str, doc: Document, ctx: Context) -> bool:
    """Whether a file other than `doc` registers `name`, or may (writes it, and the project
    does not hold it as a config whose keys say what it registers)."""
    project = ctx.project
    if project.facts.get(registered, project).elsewhere(name, doc.path):
        return True
    word = name.encode("utf-8", "surrogateescape")
    if _NAME.fullmatch(word) is None:
        return True  # not a word the search keeps: not decided, so not reported
    return word in unheld_words(project, ctx)


@record
class Registered:
    """The names the project's configs register by their own keys, and those configs."""

    first: dict[str, str]  # name -> the first config that registers it
    many: set[str]  # the names more than one config registers
    held: frozenset[str]  # the configs: `*.yaml`, read whole, a mapping

    def elsewhere(self, name: str, path: str) -> bool:
        """Whether a config other than `path` registers `name`."""
        first = self.first.get(name)
        return first is not None and (first != path or name in self.many)


# `registered` reads a config's kept values in this order (`Entry.kept`).
assert lmeval.TASK.kept_keys == ("task", "group", "tag")


def registered(project: Project) -> Registered:
    """What the project's configs register: worked out once a project."""
    first: dict[str, str] = {}
    many: set[str] = set()
    held = []
    for path, entry in project.entries.items():
        if entry.kind is not lmeval.TASK or not path.endswith(".yaml") or not entry.sound:
            continue
        task, group, tag = entry.kept()
        if task is ABSENT and not isinstance(entry.data, dict):
            continue  # no mapping: the harness indexes nothing of it
        held.append(path)
        # Most configs register one task name and nothing else: no list made for it.
        names: Sequence[str]
        if isinstance(task, str) and group is ABSENT and tag is ABSENT:
            names = (task,)
        else:
            names = _names(task, group, tag)
        for name in names:
            if first.setdefault(name, path) != path:
                many.add(name)
    return Registered(first, many, frozenset(held))


Value = JSON | EllipsisType


def _names(task: Value, group: Value, tag: Value) -> list[str]:
    """The names a config's `task`, `group` and `tag` register, and those of the groups and
    tasks its `task` list defines in place (a member written as a mapping)."""
    out = [task] if isinstance(task, str) else []
    for value in group, tag:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, list):
            out += [v for v in value if isinstance(v, str)]
    for item in task if isinstance(task, list) else ():
        if isinstance(item, dict):
            out += _names(item.get("task"), item.get("group"), item.get("tag"))
    return out


def unheld_words(project: Project, ctx: Context) -> frozenset[bytes]:
    """The words of the tree's YAML files and extension-less templates that the project does
    not hold as configs (`Registered.held`). Read once a run and view of the files (a `--diff`
    run asks of the files as the base had them too), by a run that asks."""
    others = ctx.others
    if others is None:
        return frozenset()
    key = ("lm-eval-unheld-words", id(project))
    found = others.memo.get(key)
    if isinstance(found, frozenset):
        return found
    held = project.facts.get(registered, project).held
    words: set[bytes] = set()
    for path in ctx.files:
        if path not in held and (path.endswith(".yaml") or "." not in path.rpartition("/")[2]):
            raw = others.raw(path)
            if isinstance(raw, bytes):
                words.update(raw.translate(_SPACES).split())
    others.memo[key] = found = frozenset(words)
    return found
