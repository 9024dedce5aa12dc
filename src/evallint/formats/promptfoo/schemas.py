"""The promptfoo config schema, written from promptfoo's documented config (0.123) and what
`promptfoo validate` rejects when it loads a config: a test's and an assertion's types are
checked there, so they are here; a wrong type at the root is only a warning there, so the root's
keys are named (for editors and unknown-key warnings) without types that would be errors.

Objects list the keys promptfoo reads: any other key is dropped when promptfoo loads the
config, which `promptfoo-unknown-key` and `promptfoo-dropped-key` report (the schema keeps them
closed so that editors flag them too). Assertion types are offered to editors, never enforced
here: `promptfoo-assertion-type` reports an unknown one with a did-you-mean."""

from __future__ import annotations

from typing import Any

from evallint.formats.promptfoo.kinds import ASSERTION_TYPES, SPECIAL_TYPES

S = dict[str, Any]
DRAFT = "http://json-schema.org/draft-07/schema#"


def _text(description: str) -> S:
    return {"type": "string", "description": description}


def _number(description: str) -> S:
    return {"type": "number", "description": description}


def _object(description: str) -> S:
    return {"type": "object", "description": description}


def _any(description: str) -> S:
    return {"description": description}


def _strings(description: str) -> S:
    return {"type": "array", "description": description, "items": {"type": "string"}}


# A var's value: promptfoo rejects a test whose var is null (an empty `name:` in YAML).
VAR_VALUE: S = {
    "description": "A variable's value: text, a number, a flag, a list or a mapping "
    "(`file://` loads a file).",
    "type": ["string", "number", "boolean", "array", "object"],
}

# promptfoo resolves JSON references in a config before it reads it: an object may be a
# `$ref` to another part of it (`#/assertionTemplates/name`).
REF: S = _text("A reference to another part of the config, which stands in for this object.")

ASSERTION: S = {
    "type": "object",
    "description": "One assertion on the output: its `type`, and what it compares with.",
    "anyOf": [{"required": ["type"]}, {"required": ["$ref"]}],
    "additionalProperties": False,
    "properties": {
        "$ref": REF,
        "type": {
            "description": "The assertion type (a `not-` prefix inverts it).",
            # The types are offered to editors; any value passes here (promptfoo loads any, and
            # `promptfoo-assertion-type` reports one it does not run).
            "anyOf": [
                {"enum": [*ASSERTION_TYPES, *(f"not-{t}" for t in ASSERTION_TYPES)]},
                {"enum": list(SPECIAL_TYPES)},
                {},
            ],
        },
        "value": _any("What the output is compared with; `file://` loads it from a file."),
        "config": _object("Settings of the assertion."),
        "threshold": _number("The score the assertion must reach, on its own scale."),
        "weight": _number("The assertion's weight in the test's score (0: reported only)."),
        "provider": _any("The grading provider, for model-graded assertions."),
        "rubricPrompt": _any("The grading prompt, for model-graded assertions."),
        "metric": _text("The named metric the assertion's score counts towards."),
        "transform": _text("A transform of the output before the assertion."),
        "contextTransform": _text("How context is taken from the output, for context-* types."),
        "assert": {
            "type": "array",
            "description": "The assertions of an `assert-set`.",
            "items": {"$ref": "#/definitions/assertion"},
        },
    },
}

# A test case; the keys of `defaultTest` and a scenario's `config` entries too.
TEST: S = {
    "type": "object",
    "description": "One test case: its variables, and the assertions on each prompt's output.",
    "additionalProperties": False,
    "properties": {
        "$ref": REF,
        "description": _text("What the test checks."),
        "vars": {
            "type": "object",
            "description": "The variables the prompts are rendered with.",
            "additionalProperties": VAR_VALUE,
        },
        "provider": {
            "description": "The provider that grades this test's model-graded assertions.",
            "type": ["string", "object"],
        },
        "providers": _strings("The providers this test runs against (labels or ids)."),
        "prompts": _strings("The prompts this test runs with (labels or ids)."),
        "providerOutput": {
            "description": "A fixed output to assert on, instead of calling a provider.",
            "type": ["string", "object"],
        },
        "assert": {
            "type": "array",
            "description": "The assertions on the output.",
            "items": {"$ref": "#/definitions/assertion"},
        },
        "assertScoringFunction": _any("A `file://` script that scores the assertions."),
        "options": {
            "type": "object",
            "description": "Per-test options: prefix, suffix, transform, grading provider.",
            "properties": {
                "repeat": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "How many times the test runs.",
                },
            },
        },
        "threshold": _number("The score the test must reach (default: every assertion passes)."),
        "metadata": _object("Data kept with the test's results."),
        "path": _text("A test generator: `file://` script and function."),
        "config": _object("The settings passed to a test generator."),
    },
}


# `defaultTest` takes a test's keys but its description (promptfoo drops that one).
DEFAULT: S = {
    **TEST,
    "properties": {k: v for k, v in TEST["properties"].items() if k != "description"},
}


def _or_file(description: str, shape: S) -> S:
    """An object of `shape`, or a string naming a file (`file://`, a bare path, a glob). Written
    with the object's keywords beside `type` (they apply to objects only), not as `anyOf`: an
    unknown key is then the object's, reported as one, never "no shape matches"."""
    return {**shape, "type": ["string", "object"], "description": description}


def promptfoo() -> S:
    root_keys = {
        "$schema": _text("The schema this config follows (promptfoo's, for editors)."),
        "description": _any("What the eval is about."),
        "tags": _any("Labels of the eval."),
        "providers": _any("The providers (models) to evaluate."),
        "targets": _any("The targets to evaluate (another name for `providers`)."),
        "prompts": {
            "description": "The prompts: texts, `file://` paths or globs, or objects with an id.",
            "type": ["string", "array", "object"],
            "items": {"type": ["string", "object"]},
        },
        "tests": {
            **_or_file("The test cases, or a file, glob or generator of them.", TEST),
            "type": ["string", "array", "object"],
            "items": _or_file("A test case, or a file or glob of them.", TEST),
        },
        "scenarios": {
            "type": "array",
            "description": "Groups of tests run under each of several configurations.",
            "items": {
                "type": ["string", "object"],
                "description": "A scenario, or a file of them.",
                "required": ["config", "tests"],
                "additionalProperties": False,
                "properties": {
                    "description": _text("What the scenario covers."),
                    "config": {
                        "type": "array",
                        "description": "The configurations: each runs every test of the scenario.",
                        "items": {"$ref": "#/definitions/test"},
                    },
                    "tests": {
                        "type": "array",
                        "description": "The scenario's tests.",
                        "items": {"$ref": "#/definitions/test"},
                    },
                },
            },
        },
        "defaultTest": _or_file("What every test inherits: vars, assertions, options.", DEFAULT),
        "outputPath": _any("Where results are written."),
        "sharing": _any("Whether and where results are shared."),
        "nunjucksFilters": _any("Custom Nunjucks filters, by name."),
        "env": _any("Environment variables for providers."),
        "derivedMetrics": {
            "type": "array",
            "description": "Metrics computed from named scores.",
            "items": {
                "type": "object",
                "required": ["name", "value"],
                "properties": {"name": _text("The metric's name."), "value": _any("Its formula.")},
            },
        },
        "extensions": _any("Hooks run around the eval (`file://script.py:function`)."),
        "metadata": _any("Data kept with the eval's results."),
        "redteam": _any("Red-team generation settings."),
        "assertionTemplates": {
            "type": "object",
            "description": "Reusable assertions, used with `$ref: '#/assertionTemplates/name'`.",
            "additionalProperties": {"$ref": "#/definitions/assertion"},
        },
        "writeLatestResults": _any("Whether the latest results are written."),
        "tracing": _object("Tracing settings."),
        "evaluateOptions": {
            "type": "object",
            "description": "Evaluation settings: concurrency, repeats, delays.",
            "properties": {
                "maxConcurrency": _number("How many calls run at once."),
                "repeat": _number("How many times each test runs."),
                "delay": _number("Milliseconds between calls."),
                "timeoutMs": _number("Milliseconds a call may take."),
                "maxEvalTimeMs": _number("Milliseconds the whole eval may take."),
                "showProgressBar": {"type": "boolean", "description": "Show progress."},
                "cache": {"type": "boolean", "description": "Cache provider calls."},
            },
        },
        "commandLineOptions": _any("Defaults for command-line flags."),
    }
    return {
        "$schema": DRAFT,
        "$id": "urn:evallint:schema:promptfoo",
        "title": "promptfoo config",
        "description": "A promptfoo eval config: prompts, providers and tests with assertions.",
        "type": "object",
        "anyOf": [{"required": ["providers"]}, {"required": ["targets"]}],
        "additionalProperties": False,
        "properties": root_keys,
        "definitions": {"test": TEST, "assertion": ASSERTION},
    }


SCHEMAS = {"promptfoo": promptfoo}
