"""The OpenAI evals registry schemas, written from the `evals` package's (3.0.1) registry loader
and its spec classes. `tools/schemas.py` writes them to schema/.

What the loader does decides every constraint here:
- each file is a mapping of names to specs, and every spec must be a mapping: the loader writes
  the spec's `key`, `group` and `registry_path` into it, and a text stops the whole registry;
- a spec with `id` is an alias, followed to the spec it names; its other keys are the base
  eval's description (`metrics`, `description`, ...), never read to run it;
- a spec is built as a pydantic dataclass, which ignores keys it does not know: such a key is a
  warning (the kinds say the key rules only warn there), a missing or mistyped field an error.
"""

from __future__ import annotations

from typing import Any

from evallint.validation.writing import S, root, string, strings


def _optional(schema: S) -> S:
    """A field the spec class types `Optional`: null is accepted."""
    kind = schema["type"]
    return {**schema, "type": [*(kind if isinstance(kind, list) else [kind]), "null"]}


def _alias() -> S:
    return {
        "type": "object",
        "description": "An alias: the spec it names is the one run.",
        "required": ["id"],
        "properties": {
            "id": string("The name of the spec this name stands for (`arith.dev.v0`)."),
            "metrics": _optional(strings("The metrics the eval reports (description only).")),
            "description": _optional(string("What the eval measures.")),
            "disclaimer": _optional(string("A note shown with the results.")),
            "higher_is_better": {"description": "Whether a higher score is better."},
        },
        "additionalProperties": False,
    }


def _registry(name: str, title: str, description: str, spec: S) -> S:
    """A registry file: names mapped to an alias (`id`) or, without one, the spec itself."""
    entry: S = {
        "type": "object",
        "description": "A spec, or an alias with `id` (a text spec stops the registry loading).",
        "if": {"required": ["id"]},
        "then": {"$ref": "#/definitions/alias"},
        "else": {"$ref": "#/definitions/spec"},
    }
    body: S = {
        "type": "object",
        "additionalProperties": entry,
        "definitions": {"alias": _alias(), "spec": spec},
    }
    return root(name, title, description, body)


_CLASS = string(
    "The class that runs it, `module:Class` (`evals.elsuite.basic.match:Match`).",
    pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$",
    title="a class written `module:Class`, as the registry imports it",
)


# Keys the loader writes into each spec itself: `oaieval-reserved-key` reports them, once.
_RESERVED: S = {
    key: {"description": "Reserved: the registry loader writes it (oaieval-reserved-key)."}
    for key in ("key", "group", "cls")
}


def _class_spec(args: str) -> S:
    """A spec built from a class and its arguments (`EvalSpec`, `CompletionFnSpec`)."""
    return {
        "type": "object",
        # `cls` for `class` is one slip, which `oaieval-reserved-key` reports.
        "if": {"required": ["cls"]},
        "else": {"required": ["class"]},
        "properties": {
            **_RESERVED,
            "class": _CLASS,
            "args": {"type": ["object", "null"], "description": args},
        },
        "additionalProperties": False,
    }


def oaieval_evals() -> S:
    return _registry(
        "oaieval-evals",
        "OpenAI evals registry evals",
        "registry/evals/*.yaml: eval names mapped to an alias or a class and its arguments.",
        _class_spec("Keyword arguments of the class (`samples_jsonl`, ...)."),
    )


def oaieval_completion_fns() -> S:
    return _registry(
        "oaieval-completion-fns",
        "OpenAI evals completion functions",
        "registry/completion_fns/*.yaml: names mapped to an alias or a class and its arguments.",
        _class_spec("Keyword arguments of the class."),
    )


def oaieval_solvers() -> S:
    return _registry(
        "oaieval-solvers",
        "OpenAI evals solvers",
        "registry/solvers/*.yaml: solver names mapped to an alias or a class and its arguments.",
        _class_spec("Keyword arguments of the class."),
    )


def oaieval_sets() -> S:
    spec: S = {
        "type": "object",
        "required": ["evals"],
        "properties": {
            **_RESERVED,
            "evals": strings("Eval names or patterns (`arith.*`) the set runs.", min_items=1),
        },
        "additionalProperties": False,
    }
    return _registry(
        "oaieval-sets",
        "OpenAI evals registry eval sets",
        "registry/eval_sets/*.yaml: set names mapped to the evals they run.",
        spec,
    )


def _message() -> S:
    return {
        "type": "object",
        "required": ["role", "content"],
        "properties": {"role": string("system, user or assistant."), "content": string("Text.")},
    }


def oaieval_modelgraded() -> S:
    spec: S = {
        "type": "object",
        "required": ["prompt", "choice_strings", "input_outputs"],
        "properties": {
            **_RESERVED,
            "prompt": {
                "description": "The grader's prompt: a text with `{input}`-style placeholders, "
                "or chat messages.",
                "anyOf": [{"type": "string"}, {"type": "array", "items": _message()}],
            },
            "choice_strings": {
                "description": "The answers the grader may give, or a named set (`from_n`).",
                "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
            },
            "input_outputs": {
                "type": "object",
                "description": "The sample key each placeholder of the prompt is filled from, "
                "mapped to the placeholder of the completion graded.",
                "additionalProperties": {"type": "string"},
            },
            "choice_scores": {
                "description": "The score of each choice, or a named scoring (`from_strings`).",
                "anyOf": [
                    {"type": ["string", "null"]},
                    {"type": "object", "additionalProperties": {"type": "number"}},
                ],
            },
            "eval_type": _optional(string("How the grader answers (`cot_classify`, ...).")),
            "output_template": _optional(string("How a completion is shown to the grader.")),
        },
        "additionalProperties": False,
    }
    return _registry(
        "oaieval-modelgraded",
        "OpenAI evals model-graded specs",
        "registry/modelgraded/*.yaml: spec names mapped to a grading prompt and its choices.",
        spec,
    )


SCHEMAS: dict[str, Any] = {
    "oaieval-evals": oaieval_evals,
    "oaieval-sets": oaieval_sets,
    "oaieval-modelgraded": oaieval_modelgraded,
    "oaieval-completion-fns": oaieval_completion_fns,
    "oaieval-solvers": oaieval_solvers,
}
