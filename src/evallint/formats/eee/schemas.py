"""Every Eval Ever schemas, one per version, written as 0.2.0 plus deltas.

The constraints follow EEE's published schemas (see docs/formats/eee.md §3 for what changed in
each version); the descriptions are ours. `tools/schemas.py` writes them to schema/eee/: the
aggregates of `schemas_records.py`, and the instance-level schemas here.
"""

from __future__ import annotations

from evallint.formats.eee.schemas_parts import DRAFT, S, open_object, t
from evallint.formats.eee.schemas_records import AGGREGATES


def _strings_or_string(description: str) -> S:
    return {
        "description": description,
        "oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}],
    }


def instance_0_2_0() -> S:
    """One JSONL line of instance-level results (instance_level_eval_0.2.0)."""
    turn: S = {
        "type": "object",
        "description": "One turn of the conversation.",
        "required": ["turn_idx", "role"],
        "properties": {
            "turn_idx": t("integer", "Position of the turn, from 0.", minimum=0),
            "role": t("string", "Who speaks."),
            "content": t(["string", "null"], "What was said."),
            "reasoning_trace": t(["string", "null"], "Reasoning, if any."),
            "tool_calls": {
                "type": ["array", "null"],
                "description": "Tools called.",
                "items": {
                    "type": "object",
                    "required": ["id", "name"],
                    "properties": {
                        "id": t("string", "Call id."),
                        "name": t("string", "Tool name."),
                        "arguments": open_object("Call arguments."),
                    },
                },
            },
            "tool_call_id": {
                "description": "The call(s) a tool turn answers.",
                "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
            },
        },
    }
    null_or = {"minimum": 0}
    return {
        "$schema": DRAFT,
        "$id": "urn:evallint:schema:eee/instance_0.2.0",
        "title": "Every Eval Ever instance record 0.2.0",
        "description": "One sample's result, one JSONL line (instance_level_eval_0.2.0).",
        "type": "object",
        "required": [
            "schema_version",
            "evaluation_id",
            "model_id",
            "evaluation_name",
            "sample_id",
            "interaction_type",
            "input",
            "answer_attribution",
            "evaluation",
        ],
        "additionalProperties": True,
        "properties": {
            "schema_version": t("string", "The record's schema version."),
            "evaluation_id": t("string", "The aggregate's evaluation_id."),
            "model_id": t("string", "The aggregate's model_info.id."),
            "evaluation_name": t("string", "Which result of the aggregate."),
            "sample_id": t(["integer", "string"], "Sample id."),
            "sample_hash": t("string", "Hash of the input, to match samples across runs."),
            "interaction_type": {
                "type": "string",
                "description": "Shape of the exchange.",
                "enum": ["single_turn", "multi_turn", "agentic"],
            },
            "input": {
                "type": "object",
                "description": "What the model was given.",
                "required": ["raw", "reference"],
                "properties": {
                    "raw": t("string", "Raw input."),
                    "formatted": t("string", "Input as formatted for the model."),
                    "reference": _strings_or_string("Correct answer(s)."),
                    "choices": {
                        "type": "array",
                        "description": "Choices offered.",
                        "items": {"type": "string"},
                    },
                },
            },
            "output": {
                "type": ["object", "null"],
                "description": "What the model answered.",
                "required": ["raw"],
                "properties": {
                    "raw": _strings_or_string("The response(s)."),
                    "reasoning_trace": _strings_or_string("Reasoning."),
                },
            },
            "interactions": {"type": ["array", "null"], "description": "The turns.", "items": turn},
            "answer_attribution": {
                "type": "array",
                "description": "Where the graded answer came from.",
                "items": {
                    "type": "object",
                    "required": [
                        "turn_idx",
                        "source",
                        "extracted_value",
                        "extraction_method",
                        "is_terminal",
                    ],
                    "properties": {
                        "turn_idx": t("integer", "Turn of the answer.", minimum=0),
                        "source": t("string", "Part of the turn."),
                        "extracted_value": t("string", "The answer extracted."),
                        "extraction_method": t("string", "How it was extracted."),
                        "is_terminal": t("boolean", "Whether it was final."),
                    },
                },
            },
            "evaluation": {
                "type": "object",
                "description": "How the sample scored.",
                "required": ["score", "is_correct"],
                "properties": {
                    "score": t(["number", "boolean"], "The score."),
                    "is_correct": t("boolean", "Whether it was right."),
                    "num_turns": t("integer", "Turns taken.", minimum=1),
                    "tool_calls_count": t("integer", "Tool calls.", minimum=0),
                },
            },
            "token_usage": {
                "type": ["object", "null"],
                "description": "Tokens used.",
                "required": ["input_tokens", "output_tokens", "total_tokens"],
                "properties": {
                    "input_tokens": t("integer", "Input.", minimum=0),
                    "output_tokens": t("integer", "Output.", minimum=0),
                    "total_tokens": t("integer", "Total.", minimum=0),
                    "input_tokens_cache_write": t(["integer", "null"], "Cache writes.", **null_or),
                    "input_tokens_cache_read": t(["integer", "null"], "Cache reads.", **null_or),
                    "reasoning_tokens": t(["integer", "null"], "Reasoning.", **null_or),
                },
            },
            "performance": {
                "type": ["object", "null"],
                "description": "Timings.",
                "additionalProperties": True,
                "properties": {
                    "latency_ms": t(["number", "null"], "Latency.", **null_or),
                    "time_to_first_token_ms": t(["number", "null"], "First token.", **null_or),
                    "generation_time_ms": t(["number", "null"], "Generation.", **null_or),
                },
            },
            "error": t(["string", "null"], "An error, if the sample failed."),
            "metadata": open_object("Free-form data."),
        },
        "allOf": [
            {
                "if": {"properties": {"interaction_type": {"const": "single_turn"}}},
                "then": {
                    "required": ["output"],
                    "properties": {
                        "output": {"type": "object", "description": "Required."},
                        "interactions": {"type": "null", "description": "Not used."},
                    },
                },
            },
            {
                "if": {"properties": {"interaction_type": {"enum": ["multi_turn", "agentic"]}}},
                "then": {
                    "required": ["interactions"],
                    "properties": {
                        "output": {"type": "null", "description": "Not used."},
                        "interactions": {"type": "array", "description": "Required."},
                        # Published as is: there is no `metrics` property, so this rule
                        # never fires; evaluation.num_turns was meant.
                        "metrics": {
                            "required": ["num_turns"],
                            "description": "As published (a dead rule).",
                        },
                    },
                },
            },
        ],
    }


def instance_0_2_1() -> S:
    s = instance_0_2_0()
    s["$id"] = "urn:evallint:schema:eee/instance_0.2.1"
    s["title"] = "Every Eval Ever instance record 0.2.1"
    s["description"] = "One sample's result, one JSONL line (instance_level_eval_0.2.1)."
    p = s["properties"]
    s["additionalProperties"] = False
    p["sample_id"] = t("string", "Sample id.")
    p["sample_hash"] = t(["string", "null"], "Hash of the input, to match samples across runs.")
    p["input"]["properties"]["reference"] = {
        "type": "array",
        "description": "Correct answers.",
        "items": {"type": "string"},
    }
    p["input"]["properties"]["formatted"]["type"] = ["string", "null"]
    p["input"]["properties"]["choices"]["type"] = ["array", "null"]
    p["output"]["properties"] = {
        "raw": {"type": "array", "description": "The responses.", "items": {"type": "string"}},
        "reasoning_trace": {
            "type": ["array", "null"],
            "description": "Reasoning.",
            "items": {"type": "string"},
        },
    }
    turn = p.pop("interactions")["items"]
    turn["properties"]["tool_call_id"] = {
        "type": ["array", "null"],
        "description": "The calls a tool turn answers.",
        "items": {"type": "string"},
    }
    turn["properties"]["tool_calls"]["items"]["properties"]["arguments"] = {
        "type": ["object", "null"],
        "description": "Call arguments (string values).",
        "additionalProperties": {"type": "string"},
    }
    p["messages"] = {"type": ["array", "null"], "description": "The turns.", "items": turn}
    p["evaluation"]["properties"]["score"] = t("number", "The score.")
    p["evaluation"]["properties"]["num_turns"]["type"] = ["integer", "null"]
    p["evaluation"]["properties"]["tool_calls_count"]["type"] = ["integer", "null"]
    del p["performance"]["additionalProperties"]
    p["performance"]["properties"]["additional_details"] = {
        "type": ["object", "null"],
        "description": "More timings (string values).",
        "additionalProperties": {"type": "string"},
    }
    p["metadata"] = {
        "type": ["object", "null"],
        "description": "Free-form data (strings).",
        "additionalProperties": {"type": "string"},
    }
    single, multi = s["allOf"]
    single["then"]["properties"] = {
        "output": {"type": "object", "not": {"type": "null"}, "description": "Required."},
        "messages": {"type": "null", "description": "Not used."},
    }
    multi["then"]["required"] = ["messages"]
    multi["then"]["properties"] = {
        "output": {"type": "null", "description": "Not used."},
        "messages": {"type": "array", "not": {"type": "null"}, "description": "Required."},
        "metrics": {"required": ["num_turns"], "description": "As published (a dead rule)."},
    }
    return s


def instance_0_2_2(version: str = "0.2.2") -> S:
    s = instance_0_2_1()
    s["$id"] = f"urn:evallint:schema:eee/instance_{version}"
    s["title"] = f"Every Eval Ever instance record {version}"
    s["description"] = f"One sample's result, one JSONL line (instance schema {version})."
    s["properties"]["evaluation_result_id"] = t("string", "The aggregate result it belongs to.")
    return s


INSTANCES = {
    "0.2.0": instance_0_2_0,
    "0.2.1": instance_0_2_1,
    "0.2.2": instance_0_2_2,
    "0.2.3": lambda: instance_0_2_2("0.2.3"),
    "0.3.0": lambda: instance_0_2_2("0.3.0"),
}


SCHEMAS = {
    **{f"eee/eval_{v}": build for v, build in AGGREGATES.items()},
    **{f"eee/instance_{v}": build for v, build in INSTANCES.items()},
}
