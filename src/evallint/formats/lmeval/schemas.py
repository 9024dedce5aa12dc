"""The lm-evaluation-harness schemas, written from the harness's `TaskConfig`, `FewshotConfig`,
`GroupConfig` and `AggMetricConfig` fields and what its task builder does with them (0.4.13).

One schema covers a file on its own, as written: a task, a group or a template that others
`include`. Nothing is required (a template holds part of a task, its includer the rest); what a
whole task needs is checked by rules on the merged configuration. The harness builds a task with
`TaskConfig(**config)`, so a key it does not know fails the task: every object the harness
unpacks into a dataclass is closed. Types are checked only where a wrong one fails the build;
elsewhere the harness passes values through.
"""

from __future__ import annotations

from typing import Any

S = dict[str, Any]
DRAFT = "http://json-schema.org/draft-07/schema#"

OUTPUT_TYPES = ("loglikelihood", "multiple_choice", "loglikelihood_rolling", "generate_until")


def _any(description: str) -> S:
    return {"description": description}


def _string(description: str) -> S:
    return {"type": "string", "description": description}


def _text_or_function(description: str) -> S:
    """A template, a `!function`, or (as the harness allows) a column's index or a constant."""
    return _any(f"{description} A Jinja template, a `!function`, or an index.")


_NAMES: S = {
    "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
}

METRIC: S = {
    "type": "object",
    "description": "One metric: its name (or `!function`), how it aggregates, and its arguments "
    "(every other key is passed to the metric).",
    "required": ["metric"],
    "properties": {
        "metric": _string("The metric's name in the harness's registry, or `!function`."),
        "aggregation": _string("The aggregation's name, or `!function`."),
        "higher_is_better": _any("Whether more is better (read as true or false)."),
        "hf_evaluate": _any("Load the metric from `evaluate` (only a YAML `true` does)."),
    },
}

FILTER: S = {
    "type": "object",
    "description": "A named pipeline of filters applied to the model's output.",
    "required": ["name", "filter"],
    "properties": {
        "name": _string("The pipeline's name, reported beside each metric."),
        "filter": {
            "type": "array",
            "description": "The filters, in order.",
            "items": {
                "type": "object",
                "description": "One filter by its registered name; other keys are its arguments.",
                "required": ["function"],
                "properties": {"function": _string("The filter's registered name.")},
            },
        },
    },
}

FEWSHOT: S = {
    "type": "object",
    "description": "How few-shot examples are drawn and formatted (`FewshotConfig`).",
    "additionalProperties": False,
    "properties": {
        "sampler": _string("The sampler's name (default, first_n, ...)."),
        "split": {"type": ["string", "null"], "description": "The split examples come from."},
        "process_docs": _string("A `!function` that prepares the examples."),
        "fewshot_indices": {
            "type": ["array", "null"],
            "description": "Which documents of the split to use.",
            "items": {"type": "integer"},
        },
        "samples": {
            "type": ["array", "string"],
            "description": "The examples themselves, or a `!function` that returns them.",
        },
        "doc_to_text": _text_or_function("The examples' input."),
        "doc_to_choice": _any("The examples' choices: a template, a list, or `!function`."),
        "doc_to_target": _text_or_function("The examples' target."),
        "gen_prefix": _string("Text put before each example's answer."),
        "fewshot_delimiter": _string("Text between examples."),
        "target_delimiter": _string("Text between an example's input and its target."),
    },
}

AGG_METRIC: S = {
    "type": "object",
    "description": "A metric aggregated over the group's tasks (`AggMetricConfig`).",
    "required": ["metric"],
    "additionalProperties": False,
    "properties": {
        "metric": _string("The metric its tasks report."),
        "filter_list": {**_NAMES, "description": "The filter pipelines to aggregate over."},
        "aggregation": _string("`mean` (the only built-in), or `!function`."),
        "weight_by_size": _any("Weight each task by its size (read as true or false)."),
    },
}

STRUCTURE: S = {
    "task": {
        "description": "A task's name; in a group, the tasks, groups and tags it holds.",
        "anyOf": [
            {"type": "string"},
            {
                "type": "array",
                "items": {"anyOf": [{"type": "string"}, {"type": "object"}]},
            },
        ],
    },
    "group": _string("The group's name: the file is a group."),
    "group_alias": _string("The group's name in results tables."),
    "tag": {**_NAMES, "description": "Tags: names that run several tasks at once."},
    "task_alias": _string("The task's name in results tables."),
    "include": {**_NAMES, "description": "Files this one extends; its own keys win."},
    "task_list": {"type": "array", "description": "Tasks defined in this file (not inherited)."},
    "class": _string("A `!function` naming a Python task class."),
    "aggregate_metric_list": {
        "description": "The group's aggregated metrics.",
        "anyOf": [AGG_METRIC, {"type": "array", "items": AGG_METRIC}],
    },
}

DATASET: S = {
    "custom_dataset": _string("A `!function` that builds the dataset."),
    "dataset_path": _string("The dataset's Hugging Face id or loader."),
    "dataset_name": {"type": ["string", "null"], "description": "The dataset's configuration."},
    "dataset_kwargs": {
        "type": ["object", "null"],
        "description": "Arguments for `datasets.load_dataset`.",
    },
    "training_split": {"type": ["string", "null"], "description": "The training split."},
    "validation_split": {"type": ["string", "null"], "description": "The validation split."},
    "test_split": {"type": ["string", "null"], "description": "The test split."},
    "fewshot_split": {"type": ["string", "null"], "description": "Where examples come from."},
    "process_docs": _string("A `!function` applied to each split's documents."),
}

PROMPT: S = {
    "doc_to_text": _text_or_function("The model's input for a document."),
    "doc_to_target": _text_or_function("The expected answer."),
    "doc_to_choice": _any("The choices: a template, a list, a mapping, or `!function`."),
    "doc_to_image": _any("The document's images: a template, a list, or `!function`."),
    "doc_to_audio": _any("The document's audio: a template, a list, or `!function`."),
    "process_results": _string("A `!function` that scores one document."),
    "use_prompt": _string("A promptsource prompt, as `source:name`."),
    "description": _string("A Jinja template put before the examples."),
    "target_delimiter": _string("Text between the input and the target."),
    "fewshot_delimiter": _string("Text between examples."),
    "fewshot_config": FEWSHOT,
    "gen_prefix": _string("Text put before the answer."),
    "doc_to_decontamination_query": _string("What decontamination compares."),
}

SCORING: S = {
    "num_fewshot": {"type": ["integer", "null"], "description": "Examples before each document."},
    "metric_list": {"type": "array", "description": "The metrics.", "items": METRIC},
    "output_type": {
        "enum": list(OUTPUT_TYPES),
        "description": "What the model is asked for; it sets the request type.",
    },
    "generation_kwargs": {
        "type": ["object", "null"],
        "description": "Generation arguments (`until`, `max_gen_toks`, ...).",
        "properties": {
            "until": {**_NAMES, "description": "Where generation stops."},
        },
    },
    "repeats": {"type": "integer", "description": "How many times each request is sent."},
    "filter_list": {"type": "array", "description": "Filter pipelines.", "items": FILTER},
    "should_decontaminate": _any("Run decontamination (read as true or false)."),
    "unsafe_code": _any("The task runs model-written code (anything but `false` says so)."),
    "metadata": _any("Free data passed to the task; `version` is reported with results."),
}


def lm_eval_task() -> S:
    return {
        "$schema": DRAFT,
        "$id": "urn:evallint:schema:lm-eval-task",
        "title": "lm-evaluation-harness task config",
        "description": "A task, group or template of lm-evaluation-harness, as one file holds it.",
        "type": "object",
        "additionalProperties": False,
        "properties": {**STRUCTURE, **DATASET, **PROMPT, **SCORING},
    }


def lm_eval_open_task() -> S:
    """A config whose top-level keys the schema cannot judge alone: a Python task class reads the
    whole config (`class: !function ...`), or an include may name one. Nested objects stay
    closed; a rule checks the top level against the merged config."""
    schema = lm_eval_task()
    del schema["additionalProperties"]
    schema["$id"] = "urn:evallint:schema:lm-eval-open-task"
    schema["title"] = "lm-evaluation-harness task config (open top level)"
    schema["description"] = (
        "A task whose top-level keys a Python class may read, or whose includes decide that."
    )
    return schema


SCHEMAS = {"lm-eval-task": lm_eval_task, "lm-eval-open-task": lm_eval_open_task}
