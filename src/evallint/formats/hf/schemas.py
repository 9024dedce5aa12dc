"""The Hugging Face Hub schemas, written from the Hub's eval-results documentation, Inspect AI's
task model (for `inspect-ai` tasks) and `huggingface_hub`'s results parser. Names the package
owns (the frameworks, Inspect's solvers and scorers) are read from it: a name outside those
lists is a warning of its rules, never a schema error, since the lists grow."""

from __future__ import annotations

from typing import Any

S = dict[str, Any]
DRAFT = "http://json-schema.org/draft-07/schema#"


def _string(description: str) -> S:
    return {"type": "string", "description": description}


def _component(what: str) -> S:
    # Open: Inspect ignores other keys here (a misspelt `args` is a key-typo, not an unknown key).
    return {
        "type": "object",
        "description": f"One {what}, by its name in Inspect AI, with its arguments.",
        "required": ["name"],
        "properties": {
            "name": _string(f"The {what}'s name."),
            "args": {"type": "object", "description": "Its arguments."},
        },
    }


FIELD_SPEC: S = {
    "type": "object",
    "description": "Which columns of the dataset are the input, the target and the choices.",
    # Every field has a default (`input`, `target`, ...); Inspect rejects a key it does not know.
    "additionalProperties": False,
    "properties": {
        "input": _string("The column holding the input."),
        "target": _string("The column holding the target, or `literal:<value>`."),
        "choices": {
            "description": "The column of choices, or a list of columns.",
            "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
        },
        "input_image": _string("The column holding an image input."),
        "id": _string("The column holding each sample's id."),
        "metadata": {
            "type": "array",
            "description": "Columns kept as each sample's metadata.",
            "items": {"type": "string"},
        },
        "sandbox": _string("The column naming each sample's sandbox."),
        "files": _string("The column holding each sample's files."),
        "setup": _string("The column holding each sample's setup script."),
        "checkpoint": _string("The column holding each sample's checkpoint."),
        "description": _string("The column holding each sample's description."),
    },
}

TASK_COMMON: S = {
    "id": _string("The task's id, unique in the benchmark: one leaderboard each."),
    "config": _string("The dataset configuration (default: `default`)."),
    "split": _string("The dataset split (default: `test`)."),
}

# Inspect reads its task model leniently (pydantic's lax mode): these texts are booleans to it,
# and a number written as text is a number.
LAX_BOOLEANS = ("0", "off", "f", "false", "n", "no", "1", "on", "t", "true", "y", "yes")

INSPECT_TASK: S = {
    "type": "object",
    "description": "An Inspect AI task: Inspect rejects any key it does not know.",
    # Inspect needs `id` only beside another task; the Hub needs it on every task at push.
    "required": ["id", "field_spec", "solvers", "scorers"],
    "additionalProperties": False,
    "properties": {
        **TASK_COMMON,
        "field_spec": FIELD_SPEC,
        "shuffle_choices": {
            "description": "Shuffle the choices.",
            "anyOf": [{"type": "boolean"}, {"enum": [0, 1, *LAX_BOOLEANS]}],
        },
        "epochs": {
            "description": "Runs of each sample.",
            "anyOf": [
                {"type": "integer", "minimum": 1},
                {"type": "string", "pattern": "^[1-9][0-9]*$"},
            ],
        },
        "epoch_reducer": {
            "type": "string",
            "description": "How the epochs' scores combine.",
            "pattern": r"^(pass_at_\d+|at_least_\d+|max|mode|median|mean)$",
            "title": "pass_at_N, at_least_N, max, mode, median or mean",
        },
        "solvers": {
            "type": "array",
            "description": "The solvers, in order.",
            "minItems": 1,
            "items": _component("solver"),
        },
        "scorers": {
            "type": "array",
            "description": "The scorers.",
            "minItems": 1,
            "items": _component("scorer"),
        },
    },
}


def hf_benchmark() -> S:
    task: S = {
        "type": "object",
        "description": "One task: a leaderboard of the benchmark.",
        "required": ["id"],
        "properties": TASK_COMMON,
    }
    return {
        "$schema": DRAFT,
        "$id": "urn:evallint:schema:hf-benchmark",
        "title": "Hugging Face benchmark eval.yaml",
        "description": "A benchmark dataset's evaluation: its framework and its tasks.",
        "type": "object",
        "required": ["name", "description", "evaluation_framework", "tasks"],
        "properties": {
            "name": _string("The benchmark's display name."),
            "description": _string("What the benchmark measures."),
            "evaluation_framework": _string("The one framework the benchmark runs with."),
            "tasks": {"type": "array", "description": "The tasks.", "minItems": 1},
        },
        "if": {
            "properties": {"evaluation_framework": {"const": "inspect-ai"}},
            "required": ["evaluation_framework"],
        },
        "then": {
            "properties": {"tasks": {"description": "Inspect AI's tasks.", "items": INSPECT_TASK}}
        },
        "else": {"properties": {"tasks": {"description": "The tasks.", "items": task}}},
    }


def hf_eval_results() -> S:
    result: S = {
        "type": "object",
        "description": "One result of the model on a benchmark's task.",
        "required": ["dataset", "value"],
        "additionalProperties": False,
        "properties": {
            "dataset": {
                "type": "object",
                "description": "The benchmark dataset and task.",
                "required": ["id", "task_id"],
                "additionalProperties": False,
                "properties": {
                    "id": _string("The benchmark dataset's id on the Hub (`org/name`)."),
                    "task_id": _string("The task's id in the benchmark's eval.yaml."),
                    "revision": _string("The dataset's git revision."),
                },
            },
            "value": {"description": "The metric value."},
            "verifyToken": _string("A signature that proves the evaluation's provenance."),
            "date": _string("When the evaluation ran, an ISO-8601 date or datetime."),
            "source": {
                "type": "object",
                "description": "Where the result comes from.",
                "required": ["url"],
                "additionalProperties": False,
                "properties": {
                    "url": _string("A link to the evaluation's source."),
                    "name": _string("The source's display name."),
                    "user": _string("A Hub user to credit."),
                    "org": _string("A Hub organization to credit."),
                },
            },
            "notes": _string("How the evaluation was set up."),
            "evaluation_framework": _string(
                "The framework that ran it, as the benchmark's eval.yaml names it."
            ),
        },
    }
    return {
        "$schema": DRAFT,
        "$id": "urn:evallint:schema:hf-eval-results",
        "title": "Hugging Face model eval results",
        "description": "A model repository's results on Hub benchmarks, in `.eval_results/`.",
        "type": "array",
        "items": result,
    }


def inspect_evals_meta() -> S:
    """Open: the registry adds keys as it grows; the types its pages read are checked."""
    return {
        "$schema": DRAFT,
        "$id": "urn:evallint:schema:inspect-evals-meta",
        "title": "inspect_evals evaluation metadata",
        "description": "An evaluation's metadata in the inspect_evals registry.",
        "type": "object",
        "required": ["title", "tasks"],
        "properties": {
            "title": _string("The evaluation's title."),
            "description": _string("What the evaluation measures."),
            "group": _string("The group the registry lists it under."),
            "contributors": {
                "type": "array",
                "description": "Who contributed it.",
                "items": {"type": "string"},
            },
            "tasks": {
                "type": "array",
                "description": "The evaluation's tasks.",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "description": "One task, by the name of its Inspect task function.",
                    "required": ["name"],
                    "properties": {"name": _string("The task's name.")},
                },
            },
        },
    }


SCHEMAS = {
    "hf-benchmark": hf_benchmark,
    "hf-eval-results": hf_eval_results,
    "inspect-evals-meta": inspect_evals_meta,
}
