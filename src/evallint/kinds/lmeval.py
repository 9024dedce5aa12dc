"""lm-evaluation-harness task configs: tasks, groups, and the templates they `include`.

The harness (0.4.13) indexes every `*.yaml` file under its task folders: a file with `class` is
a Python task, one with `group` a group, one with `task` a task; anything else is skipped (a
template, read only through `include:`). Its loader is PyYAML's safe loader plus the `!function
module.name` tag, which names a Python function beside the file. Go-task's `Taskfile.yml`,
Ansible's `tasks:` lists, compose and Kubernetes files share none of its keys.
"""

from __future__ import annotations

from evallint.kinds.base import Kind
from evallint.model import JSON, Tagged

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


TASK = Kind(
    name="lm-eval-task",
    title="lm-evaluation-harness task config",
    formats=frozenset({"yaml"}),
    schema="lm-eval-task",
    schema_docs="schema/lm-eval-task.schema.json",
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
        ("group", "aggregate_metric_list"),
    ),
    tags=frozenset({Tagged.tag}),
    # Its loader is libyaml's, which reads a flow value's lines at any indentation.
    lenient=frozenset({"flow-indent"}),
    # The harness only warns of these (or keeps the last of duplicate keys without a word), and
    # builds the task: a misspelt `higher_is_better` takes the metric's default.
    warns=frozenset({"duplicate-key", "key-typo"}),
    editor_globs=(),
)

KINDS = (TASK,)
