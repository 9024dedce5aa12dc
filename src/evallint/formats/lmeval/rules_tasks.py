"""lm-evaluation-harness rules: includes, `!function` references, templates, and what a task
needs whole (`rules_read.py` reads a config as the harness does).

Findings about a template are reported on the template, once, whichever task reached it: the
engine places a finding with `path` in that file and drops repeats.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from evallint.formats.lmeval import kinds as lmeval
from evallint.formats.lmeval.kinds_builtin import builtin
from evallint.formats.lmeval.rules_names import defined_elsewhere
from evallint.formats.lmeval.rules_read import (
    chain,
    in_harness,
    is_task,
    references,
    templates,
)
from evallint.model import JSON, Finding, Pointer, Severity
from evallint.parse import format_of
from evallint.project import ABSENT, Entry
from evallint.rules.api import within
from evallint.rules.base import Check, Rule, rule
from evallint.suggest import suggest
from evallint.validation.schemas import load_schema

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.parse.jinja import Problem
    from evallint.rules.api import Context


def _here(
    doc: Document,
    at: str,
    pointer: Pointer,
    message: str,
    *,
    on_key: bool = False,
    within: tuple[int, int] | None = None,
) -> Finding:
    """A finding in the document, or in the template `at` (placed there, once)."""
    elsewhere = None if at == doc.path else at
    return Finding(pointer, message, on_key=on_key, within=within, path=elsewhere)


@rule("lm-eval-include", Severity.ERROR, kinds=lmeval.KINDS, reads_files=True)
def lm_eval_include(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An `include:` the harness cannot load: missing, outside, broken, or reached twice.

    The harness loads each include relative to the file that names it, before the file's own
    keys. A missing or broken include fails the task when the harness indexes it (the task
    silently disappears from `--tasks list`). The harness keeps one set of files seen for the
    whole load, so a file reached twice, by a loop or by two includes of one template, is an
    "Include cycle". Reported on the file that writes the include, once.

    Bad (tasks/demo/demo.yaml):
        include: _defaults.yaml
        task: demo
    Given (tasks/demo/_default.yaml):
        output_type: generate_until
        dataset_path: demo/data
    Good (tasks/demo/demo.yaml):
        include: _default.yaml
        task: demo
    """
    for link in chain(doc, ctx).links:
        if link.problem is not None:
            yield _here(doc, link.at, link.pointer, link.problem)


@rule("lm-eval-function", Severity.ERROR, kinds=lmeval.KINDS, reads_files=True)
def lm_eval_function(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A `!function module.name` whose module or name does not exist.

    The harness imports `module.py` from the folder of the file that writes the tag (dots in
    `module` are folders; `lm_eval.tasks.x.y` is `x/y.py` under the task tree) and looks the
    name up; a missing module or name fails the task when it is built. The module is parsed,
    never imported: a name counts when the module binds it (`def`, `class`, assignment,
    import). Reported on the file that writes the tag, once.

    Bad (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        process_docs: !function utils.proces_docs
    Given (tasks/demo/utils.py):
        def process_docs(dataset):
            return dataset
    Good (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        process_docs: !function utils.process_docs
    """
    for at, pointer, offsets, verdict in references(doc, ctx):
        if verdict.error is not None:
            yield _here(doc, at, pointer, verdict.error, within=offsets)


@rule("lm-eval-function-unverified", Severity.NOTE, kinds=lmeval.KINDS, reads_files=True)
def lm_eval_function_unverified(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A `!function` that cannot be checked by reading the repository.

    The module is not in the repository (the harness imports it from the environment), does
    not parse here, or can make names as it runs (`globals()` written in a loop, `setattr`, a
    star import): the name may exist, so this is a note that says why it was not decided.

    Bad (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        process_results: !function my_package.scoring.score
    Good (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        process_results: !function utils.score
    Given (tasks/demo/utils.py):
        def score(doc, results):
            return {"acc": 1.0}
    """
    for at, pointer, offsets, verdict in references(doc, ctx):
        if verdict.note is not None:
            yield _here(doc, at, pointer, verdict.note, within=offsets)


@rule("lm-eval-missing-choices", Severity.ERROR, kinds=lmeval.KINDS, reads_files=True)
def lm_eval_missing_choices(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A `multiple_choice` task with no `doc_to_choice`.

    A multiple-choice task scores the model's likelihood of each choice; without
    `doc_to_choice` (or a promptsource `use_prompt`) the harness has no choices and the task
    fails when it builds its requests. Reported at `output_type` when the file writes it, else
    at `task`.

    Bad (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        output_type: multiple_choice
        doc_to_text: "{{question}}"
        doc_to_target: label
    Good (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        output_type: multiple_choice
        doc_to_text: "{{question}}"
        doc_to_target: label
        doc_to_choice: ["no", "yes"]
    """
    if not is_task(doc):
        return
    merged = chain(doc, ctx).merged
    if merged.get("output_type") != "multiple_choice" or "class" in merged:
        return
    if merged.get("doc_to_choice") is None and merged.get("use_prompt") is None:
        data = doc.data if isinstance(doc.data, dict) else {}
        where: Pointer = ("output_type",) if "output_type" in data else ("task",)
        yield Finding(
            where,
            "output_type multiple_choice needs doc_to_choice; none is set here or in the includes",
        )


@functools.cache
def _known() -> frozenset[str]:
    name = lmeval.TASK.schema
    return frozenset(load_schema(name)["properties"]) if name else frozenset()


def _unknown(data: dict[str, JSON], merged: dict[str, JSON]) -> Iterator[tuple[str, str]]:
    """(key, hint) of the keys a task config cannot take; none when a class reads the config."""
    if "class" in merged:
        return
    known = _known()
    for key in data:
        if key not in known:
            yield key, suggest(key, known) or ""


@rule("lm-eval-unknown-key", Severity.ERROR, kinds=lmeval.KINDS, reads_files=True, fixable=False)
def lm_eval_unknown_key(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A key no task config takes, known once the includes are merged.

    The harness builds a task with `TaskConfig(**config)`, which fails on a key it does not
    know; a config whose includes name a `class` hands every key to that class instead. The
    schema reports unknown keys of a file that includes nothing; this rule those of a file
    with includes (once the merged config is known to have no `class`), and those of an
    included template without a YAML extension, which is checked only through its includers.

    Bad (tasks/demo/demo.yaml):
        include: _default.yaml
        task: demo
        doc_to_taget: label
    Given (tasks/demo/_default.yaml):
        output_type: generate_until
        dataset_path: demo/data
    Good (tasks/demo/demo.yaml):
        include: _default.yaml
        task: demo
        doc_to_target: label
    """
    data = doc.data if isinstance(doc.data, dict) else {}
    found = chain(doc, ctx)
    sources: list[tuple[str, dict[str, JSON]]] = []
    if "include" in data:
        sources.append((doc.path, data))
    sources += [(t.path, t.data) for t in found.templates if format_of(t.path) is None]
    for at, keys in sources:
        for key, hint in _unknown(keys, found.merged):
            tail = f"; did you mean {hint!r}?" if hint else ""
            message = f"unknown key {key!r}: the harness's task config does not take it{tail}"
            yield _here(doc, at, (key,), message, on_key=True)


@rule("lm-eval-template", Severity.ERROR, kinds=lmeval.KINDS, reads_files=True)
def lm_eval_template(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A Jinja template the harness cannot compile.

    `doc_to_text`, `doc_to_target`, `doc_to_choice`, `description` and the other prompt fields
    are Jinja templates, rendered for every document; one that does not compile fails the task
    when it runs, often after the model is loaded. The filters are Jinja's and the harness's
    `regex_replace`. Read in one pass, in time linear in the template.

    Bad (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        doc_to_text: "Question: {{question}\\nAnswer:"
    Good (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        doc_to_text: "Question: {{question}}\\nAnswer:"
    """
    for source in (doc, *chain(doc, ctx).templates):
        at = None if source.path == doc.path else source.path
        for pointer, message, offsets in source.facts.get(_template_problems, source):
            yield Finding(pointer, message, within=offsets, path=at)


def _template_problems(source: Document) -> list[tuple[Pointer, str, tuple[int, int] | None]]:
    """(where, what, offsets in the value) of each Jinja problem of a file's templates: worked
    out once a file, however many configs include it (57 tasks include mmlu's template)."""
    text = source.text
    if text and "{" not in text and "\\" not in text:
        # No value can hold a brace: one is written as it is or escaped (`\u007b`). Most files.
        return []
    fields = list(templates(source.data))
    if not fields:
        return []  # most files: nothing written with a Jinja delimiter
    problems, filters = _scanner()
    return [
        (pointer, p.message, within(source, pointer, text, p.start, p.end).within)
        for pointer, text in fields
        for p in problems(text, filters)
    ]


@functools.cache
def _scanner() -> tuple[Callable[[str, frozenset[str]], Iterator[Problem]], frozenset[str]]:
    """The template scanner, and Jinja's filters with the harness's own: imported and made
    once, not for each file (an import statement in a function runs at every call)."""
    from evallint.parse.jinja import FILTERS, problems

    return problems, FILTERS | {"regex_replace"}


@rule("lm-eval-yml-not-indexed", Severity.WARNING, kinds=lmeval.KINDS, precision="high")
def lm_eval_yml_not_indexed(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A task or group in a `.yml` file, which the harness never indexes.

    The harness's task index reads `*.yaml` files only: a task or group written in a `.yml`
    file is not registered, and `--tasks name` says it does not exist. It still loads when
    another config includes it, so it is a warning.

    Bad (tasks/demo/demo.yml):
        task: demo
        dataset_path: demo/data
    Good (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
    """
    data = doc.data if isinstance(doc.data, dict) else {}
    named = "task" if isinstance(data.get("task"), str) else "group" if "group" in data else ""
    if named and doc.path.lower().endswith(".yml"):
        yield Finding(
            (named,),
            f"the harness indexes only *.yaml files: this {named} is never registered "
            "(rename the file to .yaml, unless other configs only include it)",
            on_key=True,
        )


# What makes a group a task of its own (the harness builds its members with these).
_INLINE = ("dataset_path", "custom_dataset", "class")
# The keys of a group's `task:` entry that only look a name up (any other key may make it a
# task defined in place, which the harness builds as it is).
_LOOKUP = frozenset({"task", "task_alias"})


def _members(data: dict[str, JSON], at: Pointer = ()) -> Iterator[tuple[Pointer, str]]:
    """(where, name) of each task, group or tag a group names, through inline subgroups."""
    found = data.get("task")
    for i, item in enumerate(found if isinstance(found, list) else [found] if found else []):
        if isinstance(item, str):
            yield (*at, "task", i), item
        elif isinstance(item, dict) and "group" in item:
            yield from _members(item, (*at, "task", i))
        elif isinstance(item, dict) and isinstance(name := item.get("task"), str):
            if not _LOOKUP.issuperset(item):
                continue  # perhaps a task defined here, not a name
            yield (*at, "task", i, "task"), name


def _lists_members(doc: Document) -> bool:
    """Whether the config is a group that lists members (not a task with a dataset)."""
    data = doc.data
    return isinstance(data, dict) and "group" in data and not any(k in data for k in _INLINE)


def _unknown_members(doc: Document, ctx: Context) -> Iterator[tuple[Pointer, str]]:
    data = doc.data if isinstance(doc.data, dict) else {}
    if not _lists_members(doc):
        return
    for pointer, name in _members(data):
        if not defined_elsewhere(name, doc, ctx):
            yield pointer, name


def _in_harness(doc: Document, ctx: Context) -> bool:
    return in_harness(doc.path, ctx.files)


# A did-you-mean looks through some 15,000 built-in names: given for a file's first few only.
_HINTS = 20


def _near(name: str, names: frozenset[str]) -> str | None:
    """The built-in name `name` most likely meant, among those of about its length and its
    first letter (a slip keeps both; comparing with all of them costs 50 ms a name)."""
    first, size = name[:1].lower(), len(name)
    return suggest(name, (n for n in names if abs(len(n) - size) <= 3 and n[:1].lower() == first))


def _group_keys(doc: Document) -> list[Pointer]:
    """What the member rules read of a config in phase two (with the keys the project keeps,
    so that a task's kept values stay one tuple)."""
    data = doc.data if isinstance(doc.data, dict) else {}
    inline = [(k,) for k in _INLINE] if "group" in data else []
    return [("task",), ("group",), ("tag",), *inline]


def _member_rule(rule_id: str, severity: Severity) -> Callable[[Check], Rule]:
    """A rule on a group's members, which are looked up among the names every config registers
    (`rules_names.py`): it reads the project."""
    return rule(
        rule_id,
        severity,
        kinds=lmeval.KINDS,
        reads_files=True,
        reads_project=True,
        keeps=_group_keys,
        wants=_is_group,
    )


def _is_group(entry: Entry, ctx: Context) -> bool:
    """What the member rules check: a config that names a group (one test for both rules,
    asked once of each file)."""
    return entry.top("group") is not ABSENT


@_member_rule("lm-eval-unknown-task", Severity.ERROR)
def lm_eval_unknown_task(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A group names a task, group or tag that is defined nowhere.

    In the harness's task package (`lm_eval/tasks/`, its built-in tasks), a group's member
    that no file defines is built as an inline task with no dataset, and the group fails to
    load. A name is defined by the `task`, `group` or `tag` of a config (its includes merged):
    a name another config writes only in a prompt, or that only groups name, is not. A run of
    some files only (pre-commit's, `--diff`) does not parse the rest of the tree, and takes
    a name any file outside the run writes for one it may define. Outside the harness's own tree a
    member may also be one of the harness's built-in tasks (lm-eval 0.4.13's, listed from the
    release: `lm-eval-task-elsewhere`, a note); one that is neither fails the group ("not a
    registered task"), unless an `--include_path` outside the repository defines it.

    Given (tasks/_index.py):
        INDEX = {}
    Given (tasks/manager.py):
        MANAGER = None
    Given (tasks/__init__.py):
        VERSION = 1
    Given (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
    Bad (tasks/demo/_demo_group.yaml):
        group: demo_all
        task: [demo, dmeo]
    Good (tasks/demo/_demo_group.yaml):
        group: demo_all
        task: [demo]
    """
    if not _lists_members(doc):
        return  # most configs: no members, and no lookups
    inside = _in_harness(doc, ctx)
    for count, (pointer, name) in enumerate(_unknown_members(doc, ctx)):
        if inside:
            yield Finding(
                pointer, f"{name!r} is not a task, group or tag any file of the tree defines"
            )
            continue
        release, names = builtin()
        if name not in names:
            hint = _near(name, names) if count < _HINTS else None
            tail = f"; did you mean {hint!r}?" if hint else ""
            yield Finding(
                pointer,
                f"{name!r} is defined nowhere in this repository and is no built-in task, group "
                f"or tag of lm-eval {release}: the group fails to load unless an --include_path "
                f"outside the repository defines it{tail}",
            )


@_member_rule("lm-eval-task-elsewhere", Severity.NOTE)
def lm_eval_task_elsewhere(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A group names a built-in task of the harness, which this repository does not define.

    The harness looks names up in its own built-in tasks (lm-eval 0.4.13's are listed from the
    release) and in every `--include_path`: a built-in task is not checked here, and a harness
    of another release may lack it. A name that is not built in is `lm-eval-unknown-task`.

    Given (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
    Bad (tasks/demo/_demo_group.yaml):
        group: demo_all
        task: [demo, hellaswag]
    Good (tasks/demo/_demo_group.yaml):
        group: demo_all
        task: [demo]
    """
    if not _lists_members(doc) or _in_harness(doc, ctx):
        return
    for pointer, name in _unknown_members(doc, ctx):
        release, names = builtin()
        if name in names:
            yield Finding(
                pointer,
                f"{name!r} is a built-in task of lm-eval {release}, not defined in this "
                "repository: not checked here",
            )
