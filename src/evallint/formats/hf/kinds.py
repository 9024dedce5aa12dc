"""Hugging Face Hub evaluation files: a benchmark dataset's `eval.yaml`, and a model repository's
`.eval_results/*.yaml` results.

A benchmark's `eval.yaml` names its evaluation framework and its tasks (the Hub's eval-results
documentation; for `inspect-ai`, Inspect AI's own task model, which rejects unknown task keys
and needs at least one solver and one scorer). A results file is a list of results, each with
`dataset.id`, `dataset.task_id` and `value` (`huggingface_hub`'s parser); `source` needs a
`url`. What depends on the Hub (a task id in another repository, a verify token) cannot be
checked offline and is never claimed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from evallint.kinds.base import Kind, items
from evallint.model import JSON, Pointer

# The Hub's evaluation frameworks (huggingface.js `packages/tasks/src/eval.ts`); the list grows
# monthly, so a name outside it is a warning with a did-you-mean, never an error.
FRAMEWORKS = (
    "exgentic",
    "inspect-ai",
    "math-arena",
    "mteb",
    "olmocr-bench",
    "harbor",
    "archipelago",
    "apex-evals",
    "screenspot-pro",
    "swe-bench",
    "swe-bench-pro",
    "nemo-evaluator",
    "yc-bench",
    "open-asr-leaderboard",
    "mdpbench",
    "parsebench",
    "video-mme-v2",
    "claw-eval",
    "wildclawbench",
)
# The solvers and scorers Inspect AI builds from an `eval.yaml` (its `HFSolver` and `HFScorer`
# names); a version of Inspect may know more, so another name is a warning.
INSPECT_SOLVERS = (
    "prompt_template",
    "system_message",
    "user_message",
    "chain_of_thought",
    "use_tools",
    "generate",
    "self_critique",
    "multiple_choice",
)
INSPECT_SCORERS = (
    "includes",
    "match",
    "pattern",
    "answer",
    "exact",
    "f1",
    "model_graded_qa",
    "model_graded_fact",
    "choice",
    "math",
)

_EVAL_NAME = re.compile(r"^eval\.ya?ml$", re.I)


def _is_benchmark(path: str, data: JSON) -> bool:
    """A benchmark's `eval.yaml`: `evaluation_framework`, or `tasks` as mappings with an `id`
    beside the benchmark's `name` or `description`."""
    if not isinstance(data, dict) or not _EVAL_NAME.match(path.rsplit("/", 1)[-1]):
        return False
    if "evaluation_framework" in data:
        return True
    tasks = data.get("tasks")
    return (
        ("name" in data or "description" in data)
        and isinstance(tasks, list)
        and any(isinstance(t, dict) and "id" in t for t in tasks)
    )


def task_ids(data: JSON) -> Iterator[tuple[Pointer, JSON]]:
    for i, task in items(data, "tasks"):
        if "id" in task:
            yield ("tasks", i, "id"), task["id"]


BENCHMARK = Kind(
    name="hf-benchmark",
    title="Hugging Face benchmark eval.yaml",
    formats=frozenset({"yaml"}),
    schema="hf-benchmark",
    about="a Hugging Face benchmark's `eval.yaml`: `evaluation_framework`, or `tasks` with ids "
    "beside `name`/`description`; Inspect AI's task model for `inspect-ai` tasks",
    by_content=_is_benchmark,
    case_ids=task_ids,
    # A benchmark that does not parse is claimed by the key only it writes.
    markers=(("evaluation_framework",),),
    editor_globs=(),
)


def in_results(path: str) -> bool:
    """A YAML file directly under a `.eval_results/` folder."""
    if ".eval_results/" not in path:
        return False  # (most files of a run: no list made)
    parts = path.split("/")
    return len(parts) >= 2 and parts[-2] == ".eval_results"


RESULTS = Kind(
    name="hf-eval-results",
    folders=frozenset({".eval_results"}),
    title="Hugging Face model eval results",
    formats=frozenset({"yaml"}),
    schema="hf-eval-results",
    about="a YAML file under `.eval_results/` in a model repository: a list of results, each "
    "with `dataset.id`, `dataset.task_id` and `value`",
    by_path=in_results,
    top_level="list",
    editor_globs=("**/.eval_results/*.yaml", "**/.eval_results/*.yml"),
    # `huggingface_hub` reads the keys it knows and passes over the rest, and the Hub's push-time
    # check is not documented to refuse them: a key it does not know is a warning.
    warns=frozenset({"unknown-key"}),
)


def _is_inspect_evals(path: str, data: JSON) -> bool:
    """inspect_evals' metadata `eval.yaml`: a `title` and `tasks` named by `name`."""
    if not isinstance(data, dict) or not _EVAL_NAME.match(path.rsplit("/", 1)[-1]):
        return False
    tasks = data.get("tasks")
    return (
        "title" in data
        and "evaluation_framework" not in data
        and isinstance(tasks, list)
        and any(isinstance(t, dict) and "name" in t for t in tasks)
    )


# The registry of Inspect AI's evaluations (inspect_evals) keeps an `eval.yaml` of metadata beside
# each evaluation's code: claimed so that it is never misread as another tool's, and checked for
# the types its site generator reads; nothing that needs Inspect's code.
INSPECT_EVALS = Kind(
    name="inspect-evals-meta",
    title="inspect_evals evaluation metadata",
    formats=frozenset({"yaml"}),
    schema="inspect-evals-meta",
    about="inspect_evals' `eval.yaml` metadata: a `title` and `tasks` named by `name`",
    by_content=_is_inspect_evals,
    markers=(("title", "tasks", "name"),),
)

KINDS = (BENCHMARK, RESULTS, INSPECT_EVALS)
