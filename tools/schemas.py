"""Writes every schema under schema/; shared patterns are spelt once here.

Run: python tools/schemas.py  (the JSON files are committed; a test checks they are up to date,
so an edit here without a rerun fails the suite). Facts evallint's code owns, such as the EEE
versions, are read from the package, so they are written once.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from evallint.formats.eee.kinds import CHECKED

NUM = "(?:0|[1-9][0-9]*)"
_IDENT = "(?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)"
PRE = rf"(?:-{_IDENT}(?:\.{_IDENT})*)?"
BUILD = r"(?:\+[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*)?"
SEMVER = rf"^{NUM}\.{NUM}\.{NUM}{PRE}{BUILD}$"
PIN = rf"(?:@{NUM}(?:\.{NUM}(?:\.{NUM}{PRE}{BUILD})?)?)?"
SNAKE = "^[a-z][a-z0-9_]*$"
DRAFT = "http://json-schema.org/draft-07/schema#"

S = dict[str, Any]


def string(description: str, **extra: Any) -> S:
    return {"type": "string", "description": description, **extra}


def strings(description: str, *, min_items: int = 0) -> S:
    out: S = {"type": "array", "description": description, "items": {"type": "string"}}
    if min_items:
        out["minItems"] = min_items
    return out


def integer(description: str, minimum: int, maximum: int | None = None) -> S:
    out: S = {"type": "integer", "description": description, "minimum": minimum}
    if maximum is not None:
        out["maximum"] = maximum
    return out


SEMVER_DEF: S = {
    "title": "a semantic version such as 1.2.0",
    "type": "string",
    "pattern": SEMVER,
}


def ref_def(kind: str) -> S:
    return {
        "title": f"a {kind} reference {kind}/<id> with an optional @MAJOR, @MAJOR.MINOR or "
        "@MAJOR.MINOR.PATCH pin",
        "type": "string",
        "pattern": rf"^{kind}/[a-z][a-z0-9_]*{PIN}$",
    }


ID_DEF: S = {"title": "a snake_case id", "type": "string", "pattern": SNAKE}

EXPECTED_TOOL: S = {
    "type": "object",
    "description": "A tool the model should (or should not) call.",
    "required": ["tool"],
    "properties": {
        "tool": string("Tool name as the agent reports it."),
        "should_run": {"type": "boolean", "description": "false: the tool must not be called."},
    },
}


def root(name: str, title: str, description: str, body: S) -> S:
    return {
        "$schema": DRAFT,
        "$id": f"urn:evallint:schema:{name}",
        "title": title,
        "description": description,
        **body,
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


MARKDOWN_RULES: dict[str, S] = {
    "min_headings": integer("At least this many headings.", 0),
    "max_heading_level": integer("No heading deeper than this level.", 1, 6),
    "required_sections": strings("Headings that must be present."),
    "forbidden_patterns": strings("Regular expressions that must not match."),
    "min_code_blocks": integer("At least this many fenced code blocks.", 0),
    "min_paragraphs": integer("At least this many paragraphs.", 0),
    "no_h1": {"type": "boolean", "description": "true: the answer must not contain an H1."},
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


def abp_evals() -> S:
    case: S = {
        "type": "object",
        "description": "One case. Unknown keys are allowed; misspelt known ones are reported.",
        # Both runners read case["id"] and case["prompt"] without a default (a KeyError).
        "required": ["id", "prompt"],
        "properties": {
            "id": {"type": ["string", "integer"], "description": "Case id, unique in the file."},
            "prompt": string("What the skill under test is asked."),
            "expected_output": string("What a good answer does (for people and LLM graders)."),
            "expectations": strings("Statements a grader checks (not run by the text grader)."),
            "files": strings("Input files given with the prompt."),
            "must_contain_any": strings("Passes if any appears (case-insensitive)."),
            "must_not_contain": strings("Fails if any appears (case-insensitive)."),
            "check_php_lint": {"type": "boolean", "description": "Lint fenced PHP blocks."},
            "check_markdown_structure": {
                "type": "object",
                "description": "Markdown rules; the grader ignores unknown rule keys.",
                "additionalProperties": False,
                "properties": MARKDOWN_RULES,
            },
            "mode": {
                "description": "How the case is run.",
                "enum": ["recipe", "execution", "introspection"],
            },
            "difficulty": string("How hard the case is."),
            "persona": string("Who is asking."),
            "source": {
                "type": ["string", "object"],
                "description": "Where the case comes from (text or a provenance record).",
            },
            "setup": string("Script run before the case (path from the repository root)."),
            "reset": string("Script that resets state (path from the repository root)."),
            "verify": string(
                "Script that grades an execution case (path from the repository root)."
            ),
            "cleanup": string("Script run after the case (path from the repository root)."),
        },
    }
    return root(
        "abp-evals",
        "ai_best_practices evals.json",
        "Skill eval cases with inline grading keys (Drupal ai_best_practices).",
        {
            "type": "object",
            "properties": {
                "$schema": string("The schema this file follows."),
                "skill_name": string("Name of the skill under test."),
                "skill_file": string("The skill's SKILL.md, from the repository root."),
                "description": string("What the cases cover."),
                "module": string("Drupal module the cases are about."),
                "version": string("Module version line, such as 1.15.x."),
                "note": string("Free text for people."),
                "evals": {
                    "type": "array",
                    "description": "The cases.",
                    "items": {"$ref": "#/definitions/case"},
                },
                "behavioral_cases": {
                    "type": "array",
                    "description": "The cases under their legacy key (read only without `evals`).",
                    "items": {"$ref": "#/definitions/case"},
                },
            },
            "definitions": {"case": case},
        },
    )


STATIC_CHECKS: dict[str, list[str]] = {
    "file_exists": ["path"],
    "frontmatter_fields": ["fields"],
    "contains": ["text"],
    "order": ["first", "second"],
    "max_lines": ["limit"],
}


def abp_static_checks() -> S:
    assertion: S = {
        "type": "object",
        "description": "One check on the skill file; `check` selects its arguments.",
        # The runner reads a["id"], a["description"] and a["check"] without a default.
        "required": ["id", "description", "check"],
        "properties": {
            "id": string("Assertion id."),
            "description": string("What the assertion is for."),
            "check": {"description": "Kind of check.", "enum": list(STATIC_CHECKS)},
            "path": string("File that must exist (file_exists)."),
            "fields": strings("Frontmatter fields that must be present (frontmatter_fields)."),
            "text": string("Text that must appear (contains)."),
            "first": string("Text that must come first (order)."),
            "second": string("Text that must come after it (order)."),
            "limit": integer("Most lines allowed (max_lines).", 1),
        },
        "allOf": [
            {
                "if": {"properties": {"check": {"const": name}}, "required": ["check"]},
                "then": {"required": args},
            }
            for name, args in STATIC_CHECKS.items()
        ],
    }
    return root(
        "abp-static-checks",
        "ai_best_practices static-checks.json",
        "Static checks on a skill's SKILL.md.",
        {
            "type": "object",
            "required": ["assertions"],
            "properties": {
                "$schema": string("The schema this file follows."),
                "skill_file": string("The skill's SKILL.md, from the repository root."),
                "assertions": {
                    "type": "array",
                    "description": "The checks.",
                    "minItems": 1,
                    "items": {"$ref": "#/definitions/assertion"},
                },
            },
            "definitions": {"assertion": assertion},
        },
    )


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


def config() -> S:
    """The configuration: the [tool.evallint] table, or .evallint.toml."""
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "urn:evallint:schema:config",
        "title": "evallint configuration",
        "description": "The [tool.evallint] table of pyproject.toml, or the whole of "
        ".evallint.toml.",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "strict": {
                "type": "boolean",
                "description": "Warnings fail the run too (exit code 1).",
            },
            "exclude": {
                "type": "array",
                "description": "Globs of paths never checked, relative to the project root.",
                "items": {"type": "string"},
            },
            "kinds": {
                "type": "object",
                "description": "Kind name to the globs of files of that kind; wins "
                "over every other evidence.",
                "additionalProperties": {"type": "array", "items": {"type": "string"}},
            },
            "rules": {
                "type": "object",
                "description": "Rule id to its severity, or off.",
                "additionalProperties": {"enum": ["error", "warning", "note", "off"]},
            },
            "select": {
                "type": "array",
                "description": "Only these rules run (parse-error always does).",
                "items": {"type": "string"},
            },
            "ignore": {
                "type": "array",
                "description": "These rules do not run.",
                "items": {"type": "string"},
            },
            "skip-folders": {
                "type": "array",
                "description": "Folder names a walk outside git never enters (default: "
                "node_modules, __pycache__, .tox, build, dist, venv, site-packages); hidden "
                "folders and virtual environments are never walked.",
                "items": {"type": "string"},
            },
            "per-file-ignores": {
                "type": "object",
                "description": "Glob of paths to the rule ids not reported in those files.",
                "additionalProperties": {"type": "array", "items": {"type": "string"}},
            },
            "max-file-size": {
                "type": "integer",
                "description": "Largest file read, in bytes; a larger eval file is a parse-error.",
                "minimum": 1,
            },
            "max-repeats": {
                "type": "integer",
                "description": "Identical problems (same rule, same message) "
                "printed per file in the text output and "
                "annotations before the rest are only counted; "
                "0 prints them all. JSON and SARIF always "
                "carry every finding.",
                "minimum": 0,
            },
            "template-variables": {
                "type": "array",
                "description": "Variables a judge template may use; "
                "replaces the default input, output, "
                "expected, context.",
                "items": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_.]*$"},
            },
            "validation-max-age-days": {
                "type": "integer",
                "description": "Days after "
                "validation.validated_at before a "
                "judge's TPR/TNR figures count as "
                "stale.",
                "minimum": 1,
            },
            "non-score-fields": {
                "type": "object",
                "description": "Kind (rubric, judge, dataset) to more "
                "fields that cannot change a score, for "
                "the version rules.",
                "additionalProperties": {"type": "array", "items": {"type": "string"}},
            },
            "eee-version": {
                "description": "Validate every Every Eval Ever record against "
                "this schema version instead of the one it "
                "declares, to see what an upgrade would break.",
                "enum": list(CHECKED),
            },
            "agentv-version": {
                "description": "The AgentV release the project runs its v4 suites on "
                "(default 4.42.4, npm's latest): keys a later release removed are not "
                "held against an earlier one.",
                "type": "string",
                "pattern": "^[0-9]+\\.[0-9]+(\\.[0-9]+)?$",
            },
        },
    }


def render(schema: S) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


SCHEMAS = {
    "dataset": dataset,
    "rubric": rubric,
    "judge": judge,
    "abp-evals": abp_evals,
    "abp-static-checks": abp_static_checks,
    "agentv-v2": agentv_v2,
    "agentevals": agentevals,
    "agentv-v4": agentv_v4,
    "agentv-next": agentv_next,
    "config": config,
}


def all_schemas() -> dict[str, Any]:
    """Schema name (its path under schema/, without .schema.json) to its builder."""
    from schemas_eee import AGGREGATES, INSTANCES
    from schemas_hf import SCHEMAS as HF
    from schemas_lmeval import SCHEMAS as LM_EVAL
    from schemas_promptfoo import SCHEMAS as PROMPTFOO

    out: dict[str, Any] = {**SCHEMAS, **HF, **LM_EVAL, **PROMPTFOO}
    out.update({f"eee/eval_{v}": build for v, build in AGGREGATES.items()})
    out.update({f"eee/instance_{v}": build for v, build in INSTANCES.items()})
    return out


def main() -> int:
    out = Path(__file__).resolve().parent.parent / "schema"
    for name, build in all_schemas().items():
        target = out / f"{name}.schema.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render(build()), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
