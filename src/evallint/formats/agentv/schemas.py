"""The AgentV and agentevals schemas, one per dialect. `tools/schemas.py` writes them to
schema/."""

from __future__ import annotations

from evallint.validation.writing import S, integer, root, string, strings

# AgentV / agentevals. Objects stay open (real suites carry keys no schema lists) and the known
# keys are named so misspellings are caught; types are given where every published schema agrees.

ROLES = ["system", "user", "assistant", "tool"]


def agentv_defs(block_types: list[str]) -> S:
    return {
        "content_block": {
            "type": "object",
            "description": "A content block: inline text, or a file read at run time.",
            "required": ["type", "value"],
            "properties": {
                "type": {"description": "Block type.", "enum": block_types},
                "value": {"description": "Text, or a file path for type: file."},
            },
        },
        "message": {
            "type": "object",
            "description": "A conversation message.",
            "required": ["role"],
            "properties": {
                "role": {"description": "Who speaks.", "enum": ROLES},
                "content": {
                    "description": "Text, structured data, or a list of content blocks.",
                    "anyOf": [
                        {"type": ["string", "object"]},
                        {"type": "array", "items": {"$ref": "#/definitions/content_block"}},
                    ],
                },
                "tool_calls": {"type": "array", "description": "Tool calls (assistant)."},
                "tool_call_id": string("The call a tool message answers."),
                "name": string("Tool name (tool messages)."),
            },
        },
        "messages": {
            "type": "array",
            "description": "Messages.",
            "items": {"$ref": "#/definitions/message"},
        },
        "input": {
            "description": "A prompt, or messages.",
            "anyOf": [{"type": "string"}, {"$ref": "#/definitions/messages"}],
        },
        "rubric_item": {
            "description": "A rubric: a plain criterion, or an object with weight and ranges.",
            "anyOf": [
                {"type": "string"},
                {
                    "type": "object",
                    "properties": {
                        "id": string("Rubric id."),
                        "expected_outcome": string("What meeting the rubric looks like."),
                        "outcome": string("What meeting the rubric looks like."),
                        "weight": {"type": "number", "minimum": 0, "description": "Weight."},
                        "required": {
                            "type": ["boolean", "number"],
                            "description": "A rubric that must pass.",
                        },
                        "min_score": {"type": "number", "description": "Pass mark, 0 to 1."},
                        "score_ranges": {
                            "type": ["object", "array"],
                            "description": "Scores 0 to 10 with their meaning.",
                        },
                    },
                },
            ],
        },
    }


def grader(types: list[str], description: str) -> S:
    return {
        "type": "object",
        "description": description,
        "properties": {
            "name": string("Name of this grader."),
            "type": string("Grader type.", examples=types),
            "weight": {"type": "number", "minimum": 0, "description": "Weight in the score."},
            "required": {"type": ["boolean", "number"], "description": "Must pass."},
            "min_score": {"type": "number", "description": "Pass mark, 0 to 1."},
            "negate": {"type": "boolean", "description": "Invert the result."},
            "threshold": {"type": "number", "description": "Pass threshold."},
            "value": {"description": "The value the grader compares with."},
            "prompt": {
                "type": ["string", "object"],
                "description": "An inline prompt, a prompt file, or a script that renders one.",
            },
            "script": {"type": ["string", "array"], "description": "Command (code graders)."},
            "command": {"type": ["string", "array"], "description": "Command (code graders)."},
            "cwd": string("Working folder of the command."),
            "target": {
                "type": ["string", "object"],
                "description": "Model target for judges; settings for code graders.",
            },
            "model": string("Model for judge graders."),
            "rubrics": {
                "type": "array",
                "description": "Rubric items.",
                "items": {"$ref": "#/definitions/rubric_item"},
            },
            "evaluators": {"type": "array", "description": "Children of a composite."},
            "assertions": {"type": "array", "description": "Children of a composite."},
            "aggregator": {"type": "object", "description": "How children combine."},
            "config": {"type": "object", "description": "Type-specific settings."},
            "mode": string("Matching mode (tool trajectories)."),
            "aggregation": string("How field scores combine (field accuracy)."),
            "fields": {"type": "array", "description": "Fields to compare (field accuracy)."},
            "expected": {"description": "Expected tool calls or fields."},
            "minimums": {"type": "object", "description": "Least calls per tool."},
        },
    }


V2_GRADERS = ["code", "llm_judge"]
SPEC_GRADERS = [
    "code_judge",
    "llm_judge",
    "rubric",
    "composite",
    "tool_trajectory",
    "field_accuracy",
    "execution_metrics",
]
V4_GRADERS = [
    "llm-grader",
    "code-grader",
    "rubrics",
    "composite",
    "tool-trajectory",
    "field-accuracy",
    "latency",
    "cost",
    "token-usage",
    "execution-metrics",
    "skill-trigger",
    "contains",
    "regex",
    "is-json",
    "equals",
    "llm_grader",
    "code_grader",
    "tool_trajectory",
    "field_accuracy",
    "token_usage",
    "execution_metrics",
    "is_json",
]


def agentv_v2() -> S:
    case: S = {
        "type": "object",
        "description": "One eval case.",
        # expected_messages is optional: outcome-only cases (AgentV 0.10 yaml-parser.ts).
        "required": ["id", "outcome", "input_messages"],
        "properties": {
            "id": string("Case id, unique in the file."),
            "conversation_id": string("Threads cases into one conversation."),
            "outcome": string("What the AI should accomplish."),
            "note": string("Free text for people."),
            "input_messages": {"$ref": "#/definitions/messages"},
            "expected_messages": {"$ref": "#/definitions/messages"},
            "execution": {
                "type": "object",
                "description": "Per-case target and evaluators.",
                "properties": {
                    "target": string("Target for this case."),
                    "evaluators": {
                        "type": "array",
                        "description": "Evaluators.",
                        "items": {"$ref": "#/definitions/grader"},
                    },
                },
            },
        },
    }
    return root(
        "agentv-v2",
        "AgentV eval (agentv-eval-v2)",
        "AgentV eval suites of late 2025: `$schema: agentv-eval-v2` and `evalcases`.",
        {
            "type": "object",
            "required": ["evalcases"],
            "properties": {
                "$schema": string("agentv-eval-v2 marks the dialect."),
                "description": string("What the suite covers."),
                "target": string("Default target."),
                "evalcases": {
                    "type": "array",
                    "minItems": 1,
                    "description": "The cases.",
                    "items": {"$ref": "#/definitions/case"},
                },
            },
            "definitions": {
                **agentv_defs(["text", "file", "image"]),
                "case": case,
                "grader": grader(V2_GRADERS, "An evaluator."),
            },
        },
    )


def agentevals() -> S:
    case: S = {
        "type": "object",
        "description": "One eval case; needs input or input_messages.",
        "required": ["id", "expected_outcome"],
        "anyOf": [{"required": ["input"]}, {"required": ["input_messages"]}],
        "properties": {
            "id": string("Case id, unique in the file."),
            "description": string("Human-readable description."),
            "expected_outcome": string("What success looks like."),
            "input": {"$ref": "#/definitions/input"},
            "input_messages": {"$ref": "#/definitions/messages"},
            "expected_output": {
                "description": "The reference answer.",
                "anyOf": [{"type": ["string", "object"]}, {"$ref": "#/definitions/messages"}],
            },
            "expected_messages": {"$ref": "#/definitions/messages"},
            "rubrics": {
                "type": "array",
                "description": "Rubric items.",
                "items": {"$ref": "#/definitions/rubric_item"},
            },
            "execution": {"$ref": "#/definitions/execution"},
            "conversation_id": string("Threads cases into one conversation."),
            "note": string("Free text for people."),
            "metadata": {"type": "object", "description": "Free-form data."},
        },
    }
    # A test of the spec's current docs: `criteria` for `expected_outcome`, and its own `assert`.
    test: S = {
        **case,
        "description": "One test (the spec's current form); needs input or input_messages.",
        "required": ["id", "criteria"],
        "properties": {
            **case["properties"],
            "criteria": string("What success looks like."),
            "assert": {
                "type": "array",
                "description": "Evaluators of this test.",
                "items": {"$ref": "#/definitions/grader"},
            },
        },
    }
    return root(
        "agentevals",
        "agentevals EVAL.yaml",
        "The agentevals specification (agentevals.io): `evalcases` as AgentV up to 2.6.1 "
        "loads it (the spec's `name` is optional there), or the current docs' `tests` with "
        "`assert`.",
        {
            "type": "object",
            # The spec asks for `name`; AgentV, its one runner, never required it (2.6.1).
            "if": {"not": {"required": ["tests"]}},
            "then": {"required": ["evalcases"]},
            "properties": {
                "$schema": string("The schema this file follows."),
                "name": string(
                    "Suite name: lowercase letters, digits and hyphens.",
                    pattern="^[a-z][a-z0-9-]*[a-z0-9]$",
                    minLength=2,
                    maxLength=64,
                ),
                "version": string("Specification version."),
                "description": string("What the suite covers.", maxLength=2048),
                "metadata": {"type": "object", "description": "Author, tags and the like."},
                "execution": {"$ref": "#/definitions/execution"},
                "evalcases": {
                    "type": "array",
                    "minItems": 1,
                    "description": "The cases.",
                    "items": {"$ref": "#/definitions/case"},
                },
                "tests": {
                    "type": "array",
                    "minItems": 1,
                    "description": "The cases (the spec's current name), or files to import.",
                    "items": {"anyOf": [{"type": "string"}, {"$ref": "#/definitions/test"}]},
                },
                "assert": {
                    "type": "array",
                    "description": "Evaluators of every test (the spec's current form).",
                    "items": {"$ref": "#/definitions/grader"},
                },
            },
            "definitions": {
                **agentv_defs(["text", "file", "image", "json"]),
                "case": case,
                "test": test,
                "grader": {
                    **grader(SPEC_GRADERS, "An evaluator."),
                    "required": ["name", "type"],
                    # What each evaluator type needs, as AgentV 2.6.1 loads it (the spec also asks
                    # for an llm_judge `prompt`; AgentV uses its default grader prompt without).
                    "allOf": [
                        {
                            "if": {"properties": {"type": {"const": kind}}, "required": ["type"]},
                            "then": {"required": [field]},
                        }
                        for kind, field in (
                            ("code_judge", "script"),
                            ("composite", "evaluators"),
                        )
                    ],
                },
                "execution": {
                    "type": "object",
                    "description": "Target, timeout and evaluators.",
                    "properties": {
                        "target": string("Target provider name."),
                        "timeout_seconds": integer("Longest run, in seconds.", 1, 3600),
                        "evaluators": {
                            "type": "array",
                            "description": "Evaluators.",
                            "items": {"$ref": "#/definitions/grader"},
                        },
                    },
                },
            },
        },
    )


def agentv_v4() -> S:
    test: S = {
        "type": "object",
        "description": "One test.",
        # AgentV 4.42.4 refuses a test without an id (eval-validator.ts: "Missing or invalid
        # 'id' field"), and its loader skips one.
        "required": ["id"],
        "properties": {
            "id": string("Test id, unique in the file.", minLength=1),
            "criteria": string("What success looks like."),
            "input": {"$ref": "#/definitions/input"},
            "expected_output": {
                "description": "The reference answer.",
                "anyOf": [{"type": ["string", "object"]}, {"$ref": "#/definitions/messages"}],
            },
            "assertions": {
                "type": "array",
                "description": "Graders for this test.",
                "items": {"anyOf": [{"type": "string"}, {"$ref": "#/definitions/grader"}]},
            },
            "vars": {"type": "object", "description": "Template variables."},
            "input_files": strings("Files given to the agent."),
            "execution": {"type": "object", "description": "Per-test execution settings."},
            "metadata": {"type": "object", "description": "Free-form data."},
            "conversation_id": string("Threads tests into one conversation."),
            "depends_on": {"type": ["string", "array"], "description": "Tests to run first."},
            "on_dependency_failure": {
                "description": "What a failed dependency does.",
                "enum": ["skip", "fail", "run"],
            },
            "mode": string("conversation for multi-turn tests."),
            "turns": {"type": "array", "description": "Turns of a conversation test."},
            "aggregation": string("How turn scores combine."),
            "on_turn_failure": string("continue or stop."),
            "window_size": {"type": "integer", "description": "Turns of history kept."},
            "workspace": {"type": ["object", "string"], "description": "Workspace setup."},
            "suite": string("Suite this test belongs to."),
            "evaluators": {"type": "array", "description": "Old name of assertions."},
            "note": string("Free text for people."),
        },
    }
    return root(
        "agentv-v4",
        "AgentV eval (v4)",
        "AgentV's stable line: `tests` with `criteria`, `input`, `assertions`.",
        {
            "type": "object",
            "required": ["tests"],
            "properties": {
                "$schema": string("The schema this file follows."),
                "name": string("Suite name."),
                "description": string("What the suite covers."),
                "category": string("Category."),
                "version": {"type": ["string", "number"], "description": "Suite version."},
                "author": string("Author."),
                "tags": {"type": ["array", "object"], "description": "Tags."},
                "license": string("Licence."),
                "requires": {"type": "object", "description": "Required tool versions."},
                "execution": {"type": "object", "description": "Targets, workers, thresholds."},
                "input": {"$ref": "#/definitions/input"},
                "input_files": strings("Files given to every test."),
                "assertions": {"type": "array", "description": "Graders for every test."},
                "workspace": {"type": ["object", "string"], "description": "Workspace setup."},
                "metadata": {"type": "object", "description": "Free-form data."},
                "governance": {"type": "object", "description": "Risk and compliance metadata."},
                "target": string("Default target."),
                "preprocessors": {"type": "array", "description": "Output preprocessors."},
                "tests": {
                    "description": "Tests, or a file of tests.",
                    "anyOf": [
                        {"type": "string"},
                        {
                            "type": "array",
                            "items": {
                                "anyOf": [{"type": "string"}, {"$ref": "#/definitions/test"}]
                            },
                        },
                    ],
                },
            },
            "definitions": {
                **agentv_defs(["text", "file", "image"]),
                "test": test,
                "grader": grader(V4_GRADERS, "A grader (assertion)."),
            },
        },
    )


def agentv_next() -> S:
    return root(
        "agentv-next",
        "AgentV eval (v5, next)",
        "AgentV's v5 prereleases: promptfoo-style `prompts`, `tests[].vars`, `assert`."
        " Checked loosely: the format is still moving.",
        {
            "type": "object",
            "properties": {
                name: {"description": f"{name} (v5)."}
                for name in (
                    "$schema",
                    "name",
                    "description",
                    "category",
                    "version",
                    "author",
                    "tags",
                    "license",
                    "requires",
                    "prompts",
                    "input_files",
                    "tests",
                    "providers",
                    "defaults",
                    "environment",
                    "evaluate_options",
                    "threshold",
                    "timeout_seconds",
                    "default_test",
                    "assert",
                    "scenarios",
                    "derived_metrics",
                    "output_path",
                    "env",
                    "nunjucks_filters",
                    "extensions",
                    "workspace",
                    "metadata",
                    "governance",
                )
            },
        },
    )


SCHEMAS = {
    "agentv-v2": agentv_v2,
    "agentevals": agentevals,
    "agentv-v4": agentv_v4,
    "agentv-next": agentv_next,
}
