"""lm-evaluation-harness task configs: tasks, groups, and the templates they `include`.

The harness (0.4.13) indexes every `*.yaml` file under its task folders: a file with `class` is
a Python task, one with `group` a group, one with `task` a task; anything else is skipped (a
template, read only through `include:`). Its loader is PyYAML's safe loader plus the `!function
module.name` tag, which names a Python function beside the file. Go-task's `Taskfile.yml`,
Ansible's `tasks:` lists, compose and Kubernetes files share none of its keys.
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Iterator

from evallint.kinds.base import Kind
from evallint.model import JSON, Pointer, Tagged

# Keys no other common YAML writes: a file with `task`, `group` or `include` and one of them, or
# a template with two of them, is a harness config.
TASK_KEYS = frozenset(
    {
        "dataset_path",
        "dataset_name",
        "doc_to_text",
        "doc_to_target",
        "doc_to_choice",
        "output_type",
        "metric_list",
        "filter_list",
        "fewshot_config",
        "num_fewshot",
        "test_split",
        "validation_split",
        "fewshot_split",
        "process_docs",
        "process_results",
        "generation_kwargs",
        "aggregate_metric_list",
        "target_delimiter",
        "fewshot_delimiter",
        "task_alias",
        "group_alias",
        "custom_dataset",
        "class",
    }
)


def _is_config(path: str, data: JSON) -> bool:
    """`task`, `group` or `include` beside a key only the harness writes; a task or group that
    includes its template; or a template with two keys only the harness writes."""
    if not isinstance(data, dict):
        return False
    own = sum(1 for k in data if k in TASK_KEYS)
    named = isinstance(data.get("task"), str | list)
    if named and ("include" in data or "group" in data):
        return True
    if named or "group" in data or "include" in data:
        return own >= 1
    return own >= 2


def schema_of(data: JSON) -> str:
    """A Python task's class reads the whole config, and an include may name such a class: the
    top level of either is checked by a rule that knows the merged config."""
    if isinstance(data, dict) and ("class" in data or "include" in data):
        return "lm-eval-open-task"
    return "lm-eval-task"


def include_entries(data: dict[str, JSON]) -> list[tuple[Pointer, JSON]]:
    """(where, as written) of each `include:` entry: one text, or a list of them."""
    found = data.get("include")
    if isinstance(found, list):
        return [(("include", i), inc) for i, inc in enumerate(found)]
    return [] if found is None else [(("include",), found)]


def include_target(at: str, written: str) -> str | None:
    """The project path the harness opens for an include written in `at`, or None when it lies
    outside the project (an absolute path, a home folder, a climb past the root)."""
    if written.startswith(("/", "~")) or "\\" in written:
        return None
    folder = at.rpartition("/")[0]
    if "/" not in written and written not in ("", ".", ".."):
        return f"{folder}/{written}" if folder else written  # beside it (most): nothing to fold
    normal = posixpath.normpath(f"{folder}/{written}" if folder else written)
    return None if normal == ".." or normal.startswith("../") else normal


def functions(data: JSON, pointer: Pointer = ()) -> list[tuple[Pointer, str]]:
    """(where, `mod.fn`) of every `!function` value, depth first. A walk without a call or
    a generator a value (asked of the thousands of a harness tree's files that write a tag);
    a pointer is made only for what may hold a tag, never for a plain scalar."""
    found: list[tuple[Pointer, str]] = []
    stack: list[tuple[Pointer, JSON]] = [(pointer, data)]
    pop, push = stack.pop, stack.append
    while stack:
        at, value = pop()
        if isinstance(value, Tagged):
            found.append((at, str(value)))
        elif isinstance(value, dict):
            for key, item in reversed(value.items()):
                if isinstance(item, _MAY_TAG):
                    push(((*at, key), item))
        elif isinstance(value, list):
            for i in range(len(value) - 1, -1, -1):
                if isinstance(value[i], _MAY_TAG):
                    push(((*at, i), value[i]))
    return found


_MAY_TAG = (dict, list, Tagged)  # what a tag may be, or be inside


def module_paths(folder: str, module: str) -> list[str]:
    """Where the harness looks for `module` (`utils`, `sub.utils`) named in a file of `folder`:
    beside it, dots as folders; for `lm_eval.tasks.x.y`, also `x/y.py` under the task tree the
    folder lies in (the harness imports it from its own package)."""
    local = posixpath.normpath(f"{folder}/{module.replace('.', '/')}.py".lstrip("/"))
    tried = [local]
    parts = folder.split("/")
    if module.startswith("lm_eval.tasks.") and "tasks" in parts:
        root = "/".join(parts[: len(parts) - parts[::-1].index("tasks")])
        tried.append(f"{root}/{module.removeprefix('lm_eval.tasks.').replace('.', '/')}.py")
    return tried


def reads(path: str, data: JSON) -> Iterator[str]:
    """The files the harness loads with this one: its includes and its functions' modules."""
    if not isinstance(data, dict):
        return
    for _, written in include_entries(data):
        if isinstance(written, str) and (target := include_target(path, written)) is not None:
            yield target
    folder = path.rpartition("/")[0]
    for _, spec in functions(data):
        module = spec.strip().rpartition(".")[0]
        if module:
            yield from module_paths(folder, module)


@functools.lru_cache(maxsize=2)
def _yaml_folders(files: frozenset[str]) -> frozenset[str]:
    """The folders that hold a `.yaml` file (worked out once a run: a frozenset keeps its
    hash)."""
    return frozenset(p.rpartition("/")[0] for p in files if p.endswith(".yaml"))


def readable(path: str, data: JSON, files: frozenset[str]) -> bool:
    """A file a harness config can read: a config itself (a template, a task another extends),
    or a Python module in a folder where configs lie, or below one (`sub.utils.fn`)."""
    if data is not None:
        return _is_config(path, data)
    if not path.endswith(".py"):
        return False
    known = _yaml_folders(files)
    folder = path.rpartition("/")[0]
    while True:
        if folder in known:
            return True
        if not folder:
            return False
        folder = folder.rpartition("/")[0]


TASK = Kind(
    name="lm-eval-task",
    title="lm-evaluation-harness task config",
    formats=frozenset({"yaml"}),
    schema="lm-eval-task",
    about="an lm-evaluation-harness task, group or template: `task`, `group` or `include` beside "
    "a key only the harness writes (`dataset_path`, `doc_to_text`, `output_type`, ...), or two "
    "such keys",
    by_content=_is_config,
    schema_of=schema_of,
    markers=(
        ("task", "dataset_path"),
        ("task", "doc_to_text"),
        ("task", "output_type"),
        ("task", "include"),
        ("task", "group"),  # a group listing its members (its content makes it one too)
        ("group", "aggregate_metric_list"),
    ),
    tags=frozenset({Tagged.tag}),
    reads=reads,
    readable=readable,
    # Its loader is libyaml's, which reads a flow value's lines at any indentation.
    lenient=frozenset({"flow-indent"}),
    # The harness only warns of these (or keeps the last of duplicate keys without a word), and
    # builds the task: a misspelt `higher_is_better` takes the metric's default.
    warns=frozenset({"duplicate-key", "key-typo"}),
    editor_globs=(),
    shared=("task",),  # lm-eval-duplicate-task compares it across files
    held=("group", "tag"),  # with `task`, the names a config registers (lm-eval-unknown-task)
    named_by=("task", "group", "tag"),  # groups list their members by these names
)

KINDS = (TASK,)
