"""The ai_eval schemas (dataset, rubric, judge), written from the ai_eval schemas proposal.
`tools/schemas.py` writes them to schema/."""

from __future__ import annotations

from evallint.validation.writing import (
    ID_DEF,
    MARKDOWN_RULES,
    SEMVER_DEF,
    S,
    integer,
    ref_def,
    root,
    string,
    strings,
)

EXPECTED_TOOL: S = {
    "type": "object",
    "description": "A tool the model should (or should not) call.",
    "required": ["tool"],
    "properties": {
        "tool": string("Tool name as the agent reports it."),
        "should_run": {"type": "boolean", "description": "false: the tool must not be called."},
    },
}


def dataset() -> S:
    question: S = {
        "type": "object",
        "description": "One test case. Extra keys are allowed for domain bundles.",
        "required": ["id", "input"],
        "properties": {
            "id": string("Stable id of the question; results are keyed by it.", minLength=1),
            "input": string("The prompt sent to the system under test."),
            "criteria": string("What a good answer does; fed to LLM judges."),
            "expected": {
                "type": "object",
                "description": "Expected shape of the answer.",
                "properties": {
                    "format": {"description": "Answer format.", "enum": ["json", "text"]}
                },
            },
            "expected_facts": strings("Facts the answer must state (fact_match, accuracy)."),
            "expected_tools": {
                "type": "array",
                "description": "Tools the agent is expected to call (tool_usage).",
                "items": {"$ref": "#/definitions/expected_tool"},
            },
            "rubric_ref": {"$ref": "#/definitions/rubric_ref"},
            "bundle": string("Domain extension bundle, such as rag or agent."),
            "metadata": {"type": "object", "description": "Grader-specific data."},
        },
    }
    return root(
        "dataset",
        "ai_eval dataset",
        "Questions an eval runs, with what graders expect.",
        {
            "type": "object",
            "required": ["questions"],
            "properties": {
                "$schema": string("The schema this file follows."),
                "id": string("Dataset id."),
                "version": {"$ref": "#/definitions/semver"},
                "description": string("What this dataset covers."),
                "metadata": {"type": "object", "description": "Free-form data about the dataset."},
                "questions": {
                    "type": "array",
                    "description": "The questions; at least one.",
                    "minItems": 1,
                    "items": {"$ref": "#/definitions/question"},
                },
            },
            "definitions": {
                "semver": SEMVER_DEF,
                "rubric_ref": {
                    **ref_def("rubric"),
                    "description": "Rubric that grades this question.",
                },
                "question": question,
                "expected_tool": EXPECTED_TOOL,
            },
        },
    )


def values(description: str) -> S:
    return {
        "required": ["values"],
        "properties": {
            "values": strings(description, min_items=1),
            "case_sensitive": {"type": "boolean", "description": "Default false."},
        },
    }


def check_kinds() -> dict[str, S]:
    judge_ref: S = {"$ref": "#/definitions/judge_ref"}
    return {
        "must_contain_any": values("Passes when the output contains any of these."),
        "must_not_contain": values("Fails when the output contains any of these."),
        "regex": {
            "required": ["pattern"],
            "properties": {
                "pattern": string("Regular expression the output is searched with."),
                "flags": string("Regex flags, such as i or m."),
                "must_match": {"type": "boolean", "description": "false: must not match."},
            },
        },
        "json_schema": {
            "anyOf": [{"required": ["schema"]}, {"required": ["schema_ref"]}],
            "properties": {
                "schema": {"type": "object", "description": "JSON Schema the output must meet."},
                "schema_ref": string("Path of a JSON Schema file the output must meet."),
            },
        },
        "php_lint": {"properties": {}},
        "markdown_structure": {
            "anyOf": [{"required": [k]} for k in MARKDOWN_RULES],
            "properties": MARKDOWN_RULES,
        },
        "tool_usage": {
            "required": ["expected_tools"],
            "properties": {
                "expected_tools": {
                    "type": "array",
                    "description": "Tools the agent is expected to call.",
                    "minItems": 1,
                    "items": {"$ref": "#/definitions/expected_tool"},
                }
            },
        },
        "format": {
            "required": ["format"],
            "properties": {
                "format": {"description": "Answer format.", "enum": ["json", "text"]},
                "max_chars": integer("Longest accepted answer, in characters.", 1),
            },
        },
        "fact_match": {
            "properties": {
                "facts": strings("Facts to find; defaults to the question's expected_facts."),
            },
        },
        "llm_judge": {
            "required": ["judge_prompt_ref"],
            "properties": {
                "judge_prompt_ref": judge_ref,
                "jury": {
                    "type": "array",
                    "description": "Several judges whose scores are aggregated.",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "required": ["judge_prompt_ref"],
                        "properties": {
                            "judge_prompt_ref": judge_ref,
                            "weight": {
                                "type": "number",
                                "minimum": 0,
                                "description": "Weight of this judge.",
                            },
                        },
                    },
                },
                "aggregation": string("How jury scores combine, such as mean or median."),
            },
        },
        "composite": {
            "required": ["rubric_ref"],
            "properties": {"rubric_ref": {"$ref": "#/definitions/rubric_ref"}},
        },
    }


def rubric() -> S:
    kinds = check_kinds()
    check: S = {
        "type": "object",
        "description": "One check; `kind` selects its fields.",
        "required": ["kind", "id"],
        "properties": {
            "kind": string("Check kind.", examples=list(kinds)),
            "id": string("Stable id of the check; per-check results are keyed by it.", minLength=1),
            "weight": {
                "type": "number",
                "minimum": 0,
                "description": "Weight under scoring.combine: weighted_avg.",
            },
            "description": string("What the check is for (not score-affecting)."),
        },
        "allOf": [
            {
                "if": {"properties": {"kind": {"const": name}}, "required": ["kind"]},
                "then": {"$ref": f"#/definitions/check_{name}"},
            }
            for name in kinds
        ],
    }
    definitions: S = {
        "semver": SEMVER_DEF,
        "id": ID_DEF,
        "rubric_ref": {**ref_def("rubric"), "description": "Rubric this composite includes."},
        "judge_ref": {**ref_def("judge"), "description": "Judge prompt this check calls."},
        "expected_tool": EXPECTED_TOOL,
        "check": check,
    }
    for name, body in kinds.items():
        definitions[f"check_{name}"] = body
    return root(
        "rubric",
        "ai_eval rubric",
        "A versioned composition of checks.",
        {
            "type": "object",
            "required": ["id", "version", "checks", "scoring"],
            "properties": {
                "$schema": string("The schema this file follows."),
                "id": {"$ref": "#/definitions/id"},
                "version": {"$ref": "#/definitions/semver"},
                "description": string("What this rubric grades."),
                "metadata": {
                    "type": "object",
                    "description": "Free-form data (not score-affecting).",
                },
                "checks": {
                    "type": "array",
                    "description": "The checks; at least one.",
                    "minItems": 1,
                    "items": {"$ref": "#/definitions/check"},
                },
                "scoring": {
                    "type": "object",
                    "description": "How check results combine into a score.",
                    "required": ["combine"],
                    "additionalProperties": False,
                    "properties": {
                        "combine": {
                            "description": "Combination of check results.",
                            "enum": [
                                "all_pass",
                                "any_pass",
                                "weighted_avg",
                                "min",
                                "max",
                                "median",
                            ],
                        },
                        "threshold": {"type": "number", "description": "Pass mark for the score."},
                    },
                },
            },
            "definitions": definitions,
        },
    )


def judge() -> S:
    validation: S = {
        "type": "object",
        "description": "How well this judge agrees with human labels.",
        "additionalProperties": False,
        "properties": {
            "tpr": {
                "type": "number",
                "minimum": 0,
                "maximum": 1,
                "description": "True positive rate.",
            },
            "tnr": {
                "type": "number",
                "minimum": 0,
                "maximum": 1,
                "description": "True negative rate.",
            },
            "validated_against": {"$ref": "#/definitions/semver"},
            "validated_at": {"$ref": "#/definitions/date"},
            "sample_size": integer("Labelled samples used.", 1),
        },
    }
    return root(
        "judge",
        "ai_eval judge",
        "An LLM-as-judge prompt template, versioned.",
        {
            "type": "object",
            "required": ["id", "version", "template"],
            "properties": {
                "$schema": string("The schema this file follows."),
                "id": {"$ref": "#/definitions/id"},
                "version": {"$ref": "#/definitions/semver"},
                "template": string(
                    "Prompt with {{ input }}, {{ output }}, {{ expected }}, {{ context }}.",
                    minLength=1,
                ),
                "score_type": {
                    "description": "Kind of score the judge returns.",
                    "enum": ["binary", "continuous", "levels"],
                },
                "level_names": strings("Names of the levels, lowest first.", min_items=1),
                "validation": validation,
                "applicable_to": strings("Domains the judge was validated on."),
                "description": string("What the judge assesses (not score-affecting)."),
                "metadata": {
                    "type": "object",
                    "description": "Free-form data (not score-affecting).",
                },
            },
            "if": {"properties": {"score_type": {"const": "levels"}}, "required": ["score_type"]},
            "then": {"required": ["level_names"]},
            "definitions": {
                "semver": SEMVER_DEF,
                "id": ID_DEF,
                "date": {
                    "title": "a date as YYYY-MM-DD",
                    "type": "string",
                    "pattern": "^[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])$",
                },
            },
        },
    )


SCHEMAS = {
    "dataset": dataset,
    "rubric": rubric,
    "judge": judge,
}
