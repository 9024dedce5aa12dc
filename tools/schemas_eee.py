"""Every Eval Ever aggregate record schemas, one per version, written as 0.2.0 plus deltas.

The constraints follow EEE's published schemas (see docs/formats/eee.md §3 for what changed in
each version); the descriptions are ours. `tools/schemas.py` writes them to schema/eee/.
"""

from __future__ import annotations

import copy
from typing import Any

S = dict[str, Any]
DRAFT = "http://json-schema.org/draft-07/schema#"


def t(kind: str | list[str], description: str, **extra: Any) -> S:
    return {"type": kind, "description": description, **extra}


def open_object(description: str) -> S:
    return {"type": "object", "description": description, "additionalProperties": True}


def string_map(description: str) -> S:
    return {
        "type": "object",
        "description": description,
        "additionalProperties": {"type": "string"},
    }


def ref(name: str) -> S:
    return {"$ref": f"#/definitions/{name}"}


def model_info() -> S:
    return {
        "type": "object",
        "description": "The model that was evaluated (or that judged).",
        "required": ["name", "id"],
        "properties": {
            "name": t("string", "Model name."),
            "id": t("string", "Model id: developer/model as on Hugging Face, or the API id."),
            "developer": t("string", "Who made the model."),
            "inference_platform": t("string", "Where the model was run."),
            "inference_engine": {
                "type": "object",
                "description": "The serving software.",
                "properties": {
                    "name": t("string", "Engine name."),
                    "version": t("string", "Engine version."),
                },
            },
            "additional_details": ref("details"),
        },
    }


def source_data() -> S:
    details = ref("details")
    return {
        "source_data_url": {
            "type": "object",
            "description": "Data fetched from URLs.",
            "required": ["dataset_name", "source_type", "url"],
            "additionalProperties": True,
            "properties": {
                "dataset_name": t("string", "Dataset name."),
                "source_type": {"const": "url", "description": "url"},
                "url": {
                    "type": "array",
                    "description": "Where the data is.",
                    "minItems": 1,
                    "items": {"type": "string"},
                },
                "additional_details": details,
            },
        },
        "source_data_hf": {
            "type": "object",
            "description": "Data from a Hugging Face dataset.",
            "required": ["dataset_name", "source_type"],
            "additionalProperties": True,
            "properties": {
                "dataset_name": t("string", "Dataset name."),
                "source_type": {"const": "hf_dataset", "description": "hf_dataset"},
                "hf_repo": t("string", "Repository id."),
                "hf_split": t("string", "Split."),
                "samples_number": t("integer", "How many samples were used."),
                "sample_ids": {
                    "type": "array",
                    "description": "Which samples were used.",
                    "items": {"type": ["integer", "string"]},
                },
                "additional_details": details,
            },
        },
        "source_data_private": {
            "type": "object",
            "description": "Data that is not public.",
            "required": ["dataset_name", "source_type"],
            "properties": {
                "dataset_name": t("string", "Dataset name."),
                "source_type": {"const": "other", "description": "other"},
                "additional_details": details,
            },
        },
    }


def metric_config() -> S:
    return {
        "type": "object",
        "description": "What the score measures and on what scale.",
        "required": ["lower_is_better"],
        "properties": {
            "evaluation_description": t("string", "What the metric measures."),
            "lower_is_better": t("boolean", "Whether smaller scores are better."),
            "score_type": {
                "type": "string",
                "description": "Kind of score.",
                "enum": ["binary", "continuous", "levels"],
            },
            "level_names": {
                "type": "array",
                "description": "Names of the levels.",
                "items": {"type": "string"},
            },
            "level_metadata": {
                "type": "array",
                "description": "Notes on the levels.",
                "items": {"type": "string"},
            },
            "has_unknown_level": t("boolean", "Whether -1 means unknown."),
            "min_score": t("number", "Lowest possible score."),
            "max_score": t("number", "Highest possible score."),
            "llm_scoring": {
                "type": "object",
                "description": "How LLM judges scored.",
                "additionalProperties": True,
                "required": ["judges", "input_prompt"],
                "properties": {
                    "judges": {
                        "type": "array",
                        "description": "The judges.",
                        "minItems": 1,
                        "items": ref("judge_config"),
                    },
                    "input_prompt": t("string", "The judge prompt."),
                    "aggregation_method": {
                        "type": "string",
                        "description": "How judge scores combine.",
                        "enum": ["majority_vote", "average", "weighted_average", "median"],
                    },
                    "expert_baseline": t("number", "Human expert agreement."),
                    "additional_details": ref("details"),
                },
            },
        },
        "if": {"properties": {"score_type": {"const": "levels"}}},
        "then": {"required": ["level_names", "has_unknown_level"]},
        "else": {
            "if": {"properties": {"score_type": {"const": "continuous"}}},
            "then": {"required": ["min_score", "max_score"]},
        },
    }


def uncertainty() -> S:
    return {
        "type": "object",
        "description": "How sure the score is.",
        "properties": {
            "standard_error": {
                "type": "object",
                "description": "Standard error.",
                "required": ["value"],
                "properties": {
                    "value": t("number", "The error."),
                    "method": t("string", "How it was computed."),
                },
            },
            "confidence_interval": {
                "type": "object",
                "description": "Confidence interval.",
                "required": ["lower", "upper"],
                "properties": {
                    "lower": t("number", "Lower bound."),
                    "upper": t("number", "Upper bound."),
                    "confidence_level": t("number", "Level, 0 to 1.", minimum=0, maximum=1),
                    "method": t("string", "How it was computed."),
                },
            },
            "standard_deviation": t("number", "Standard deviation."),
            "num_samples": t("integer", "Samples behind the score."),
            "num_bootstrap_samples": t("integer", "Bootstrap resamples."),
        },
    }


def generation_config() -> S:
    details = ref("details")
    args: S = {
        "type": "object",
        "description": "Sampling and harness settings.",
        "additionalProperties": True,
        "properties": {
            "temperature": t(["null", "number"], "Sampling temperature."),
            "top_p": t(["null", "number"], "Nucleus sampling."),
            "top_k": t(["null", "number"], "Top-k sampling."),
            "max_tokens": t("integer", "Longest output.", minimum=1),
            "execution_command": t("string", "The command that ran the eval."),
            "reasoning": t("boolean", "Whether reasoning was on."),
            "prompt_template": t("string", "The prompt template."),
            "agentic_eval_config": {
                "type": "object",
                "description": "Agent settings.",
                "properties": {
                    "available_tools": {
                        "type": "array",
                        "description": "Tools offered.",
                        "items": {
                            "type": "object",
                            "description": "One tool.",
                            "properties": {
                                "name": t("string", "Tool name (bash, calculator, ...)."),
                                "description": t("string", "What the tool does."),
                                "parameters": details,
                            },
                        },
                    },
                    "additional_details": details,
                },
            },
            "eval_plan": {
                "type": "object",
                "description": "The harness's plan.",
                "properties": {
                    "name": t("string", "Plan name."),
                    "steps": {"type": "array", "description": "Plan steps."},
                    "config": details,
                },
            },
            "eval_limits": {
                "type": "object",
                "description": "Limits.",
                "properties": {
                    "time_limit": t("integer", "Seconds."),
                    "message_limit": t("integer", "Messages."),
                    "token_limit": t("integer", "Tokens."),
                },
            },
            "sandbox": {
                "type": "object",
                "description": "Sandbox.",
                "properties": {"type": t("string", "Kind."), "config": t("string", "Settings.")},
            },
            "max_attempts": t("integer", "Attempts allowed."),
            "incorrect_attempt_feedback": t("string", "Feedback after a wrong attempt."),
        },
    }
    return {
        "type": "object",
        "description": "How outputs were generated.",
        "properties": {"generation_args": args, "additional_details": details},
    }


def source_metadata() -> S:
    """Who published the results: the same in every aggregate version."""
    return {
        "type": "object",
        "description": "Who published the results.",
        "required": ["source_type", "source_organization_name", "evaluator_relationship"],
        "properties": {
            "source_name": t("string", "Leaderboard or platform name."),
            "source_type": {
                "type": "string",
                "description": "Kind of source.",
                "enum": ["documentation", "evaluation_run"],
            },
            "source_organization_name": t("string", "Organisation."),
            "source_organization_url": t("string", "Its web site."),
            "source_organization_logo_url": t("string", "Its logo."),
            "evaluator_relationship": {
                "type": "string",
                "description": "Evaluator vs model maker.",
                "enum": ["first_party", "third_party", "collaborative", "other"],
            },
        },
    }


def v0_2_0() -> S:
    result: S = {
        "type": "object",
        "description": "One benchmark result.",
        "required": ["evaluation_name", "source_data", "metric_config", "score_details"],
        "properties": {
            "evaluation_name": t("string", "Which evaluation."),
            "source_data": {
                "description": "Where the data came from.",
                "oneOf": [
                    ref("source_data_url"),
                    ref("source_data_hf"),
                    ref("source_data_private"),
                ],
            },
            "evaluation_timestamp": t("string", "When it was evaluated."),
            "metric_config": metric_config(),
            "score_details": {
                "type": "object",
                "description": "The score.",
                "required": ["score"],
                "properties": {
                    "score": t("number", "The score."),
                    "details": ref("details"),
                    "uncertainty": uncertainty(),
                },
            },
            "generation_config": generation_config(),
        },
    }
    return {
        "$schema": DRAFT,
        "$id": "urn:evallint:schema:eee/eval_0.2.0",
        "title": "Every Eval Ever aggregate record 0.2.0",
        "description": "Evaluation results of one model on one benchmark (schema 0.2.0).",
        "type": "object",
        "required": [
            "schema_version",
            "evaluation_id",
            "retrieved_timestamp",
            "source_metadata",
            "model_info",
            "evaluation_results",
        ],
        "additionalProperties": False,
        "properties": {
            "schema_version": t("string", "The record's schema version."),
            "evaluation_id": t("string", "Id of this evaluation run."),
            "evaluation_timestamp": t("string", "When the evaluation ran."),
            "retrieved_timestamp": t("string", "When this record was made (Unix time)."),
            "source_metadata": source_metadata(),
            "model_info": ref("model_info"),
            "evaluation_results": {"type": "array", "description": "The results.", "items": result},
            "detailed_evaluation_results": {
                "description": "The instance-level companion file.",
                "properties": {
                    "format": {
                        "type": "string",
                        "description": "File format.",
                        "enum": ["jsonl", "json"],
                    },
                    "file_path": t("string", "Path of the companion file."),
                    "hash_algorithm": {
                        "type": "string",
                        "description": "Checksum algorithm.",
                        "enum": ["sha256", "md5"],
                    },
                    "checksum": t("string", "Hash of the companion's bytes."),
                    "total_rows": t("integer", "Records in the companion."),
                },
            },
        },
        "definitions": {
            "details": open_object("Free-form details."),
            "judge_config": {
                "type": "object",
                "description": "One judge.",
                "required": ["model_info"],
                "properties": {
                    "model_info": ref("model_info"),
                    "temperature": t("number", "Sampling temperature."),
                    "weight": t("number", "Weight."),
                },
            },
            "model_info": model_info(),
            **source_data(),
        },
    }


def with_version(schema: S, version: str) -> S:
    out = copy.deepcopy(schema)
    out["$id"] = f"urn:evallint:schema:eee/eval_{version}"
    out["title"] = f"Every Eval Ever aggregate record {version}"
    out["description"] = f"Evaluation results of one model on one benchmark (schema {version})."
    return out


def v0_2_1() -> S:
    s = with_version(v0_2_0(), "0.2.1")
    s["required"].append("eval_library")
    s["properties"]["eval_library"] = {
        "type": "object",
        "description": "The harness that produced the results.",
        "required": ["name", "version"],
        "properties": {
            "name": t("string", "Harness name."),
            "version": t("string", "Harness version, or unknown."),
            "additional_details": ref("details"),
        },
    }
    s["definitions"]["details"] = string_map("Details; values are strings (JSON-encode others).")
    s["properties"]["source_metadata"]["properties"]["additional_details"] = ref("details")
    result = s["properties"]["evaluation_results"]["items"]
    metric = result["properties"]["metric_config"]
    metric["properties"]["additional_details"] = ref("details")
    args = result["properties"]["generation_config"]["properties"]["generation_args"]
    args["additionalProperties"] = False
    args["properties"]["eval_plan"]["properties"]["steps"]["items"] = {"type": "string"}
    s["definitions"]["judge_config"]["properties"]["additional_details"] = ref("details")
    s["definitions"]["source_data_hf"]["properties"]["sample_ids"]["items"] = {"type": "string"}
    for name in ("source_data_url", "source_data_hf"):
        del s["definitions"][name]["additionalProperties"]
    detailed = s["properties"]["detailed_evaluation_results"]
    detailed["type"] = "object"
    detailed["properties"]["additional_details"] = ref("details")
    return s


def v0_2_2() -> S:
    s = with_version(v0_2_1(), "0.2.2")
    result = s["properties"]["evaluation_results"]["items"]
    result["properties"]["evaluation_result_id"] = t("string", "Id of this result.")
    metric = result["properties"]["metric_config"]["properties"]
    metric["metric_id"] = t("string", "Canonical metric id.")
    metric["metric_name"] = t("string", "Metric name.")
    metric["metric_kind"] = t("string", "Kind of metric.")
    metric["metric_unit"] = t("string", "Unit.")
    metric["metric_parameters"] = {
        "type": "object",
        "description": "Parameters of the metric.",
        "additionalProperties": {"type": ["string", "number", "boolean", "null"]},
    }
    return s


UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}"


def v0_2_3(version: str = "0.2.3") -> S:
    s = with_version(v0_2_2(), version)
    info = s["definitions"]["model_info"]
    info["required"] = ["name", "id", "additional_details"]
    info["properties"]["additional_details"] = {
        "allOf": [
            ref("details"),
            {
                "required": ["deployment_type", "model_availability"],
                "properties": {
                    "deployment_type": {
                        "description": "How the model is deployed.",
                        "enum": ["self_deployed", "externally_managed", "unknown"],
                    },
                    "model_availability": {
                        "description": "Whether weights are open.",
                        "enum": ["open_weights", "closed_weights", "unknown"],
                    },
                },
            },
        ],
        "description": "Details; deployment_type and model_availability are required.",
    }
    metric = s["properties"]["evaluation_results"]["items"]["properties"]["metric_config"]
    bound = {
        "description": "A bound: a number, Infinity, -Infinity, or null.",
        "oneOf": [{"type": "number"}, {"enum": ["Infinity", "-Infinity"]}, {"type": "null"}],
    }
    metric["properties"]["min_score"] = bound
    metric["properties"]["max_score"] = copy.deepcopy(bound)
    metric["if"]["required"] = ["score_type"]
    metric["else"]["if"]["required"] = ["score_type"]
    detailed = s["properties"]["detailed_evaluation_results"]
    detailed["required"] = ["format", "file_path"]
    detailed["properties"]["format"]["enum"] = ["jsonl"]
    detailed["properties"]["file_path"]["pattern"] = (
        f"^data/[^/]+/[^/]+/[^/]+/{UUID}_samples\\.jsonl$"
    )
    return s


def v0_3_0() -> S:
    return v0_2_3("0.3.0")


AGGREGATES = {"0.2.0": v0_2_0, "0.2.1": v0_2_1, "0.2.2": v0_2_2, "0.2.3": v0_2_3, "0.3.0": v0_3_0}


def legacy_sample() -> S:
    pair = {
        "type": "array",
        "description": "A choice and its response.",
        "minItems": 2,
        "maxItems": 2,
        "items": [{"type": "string"}, {"type": "string"}],
    }
    return {
        "type": "object",
        "description": "One sample's result, inline.",
        "required": ["sample_id", "input", "ground_truth", "response"],
        "properties": {
            "sample_id": t("string", "Sample id."),
            "input": t("string", "Raw input."),
            "prompt": t("string", "Full prompt."),
            "ground_truth": {
                "description": "Correct answer or answers.",
                "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
            },
            "response": t("string", "The model's response."),
            "choices": {
                "description": "Possible responses, or choice/response pairs.",
                "oneOf": [
                    {"type": "array", "items": {"type": "string"}},
                    {"type": "array", "items": pair},
                ],
            },
            "full_logprobs": {
                "type": "array",
                "description": "Log probabilities per position.",
                "items": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["token_id", "logprob", "decoded_token"],
                        "properties": {
                            "token_id": t("number", "Token id."),
                            "logprob": t("number", "Log probability."),
                            "decoded_token": t("string", "The token's text."),
                        },
                    },
                },
            },
        },
    }


def v0_1_0() -> S:
    """0.1.0: `source_data` at the root, samples inline; generation settings unconstrained.

    EEE 0.1.0 (and 0.0.1) put `generation_args` and `additional_details` directly under
    `generation_config` rather than under `properties`, so no validator enforced them; ours
    does not either, or the verdicts would differ.
    """
    details = open_object("Free-form details.")
    metric = copy.deepcopy(metric_config())
    del metric["properties"]["llm_scoring"]
    result: S = {
        "type": "object",
        "description": "One benchmark result.",
        "required": ["evaluation_name", "metric_config", "score_details"],
        "properties": {
            "evaluation_name": t("string", "Which evaluation."),
            "evaluation_timestamp": t("string", "When it was evaluated."),
            "metric_config": metric,
            "score_details": {
                "description": "The score.",
                "required": ["score"],
                "properties": {"score": t("number", "The score."), "details": details},
            },
            "detailed_evaluation_results_url": t("string", "Where per-sample results are."),
            "generation_config": t("object", "How outputs were generated (not constrained)."),
        },
    }
    return {
        "$schema": DRAFT,
        "$id": "urn:evallint:schema:eee/eval_0.1.0",
        "title": "Every Eval Ever aggregate record 0.1.0",
        "description": "Evaluation results of one model on one benchmark (schema 0.1.0).",
        "type": "object",
        "required": [
            "schema_version",
            "evaluation_id",
            "retrieved_timestamp",
            "source_data",
            "source_metadata",
            "model_info",
            "evaluation_results",
        ],
        "additionalProperties": False,
        "properties": {
            "schema_version": t("string", "The record's schema version."),
            "evaluation_id": t("string", "Id of this evaluation run."),
            "retrieved_timestamp": t("string", "When this record was made (Unix time)."),
            "source_data": {
                "description": "Where the data came from: URLs, or a Hugging Face dataset.",
                "oneOf": [
                    {"type": "array", "items": {"type": "string"}},
                    {
                        "type": "object",
                        "required": ["dataset_name"],
                        "properties": {
                            "dataset_name": t("string", "Dataset name."),
                            "hf_repo": t("string", "Repository id."),
                            "hf_split": t("string", "Split."),
                            "samples_number": t("integer", "Samples used."),
                            "sample_ids": {
                                "type": "array",
                                "description": "Samples used.",
                                "items": {"type": ["integer", "string"]},
                            },
                            "additional_details": details,
                        },
                    },
                ],
            },
            "source_metadata": source_metadata(),
            "model_info": {
                "type": "object",
                "description": "The model that was evaluated.",
                "required": ["name", "id"],
                "properties": {
                    "name": t("string", "Model name."),
                    "id": t("string", "Model id."),
                    "developer": t("string", "Who made the model."),
                    "inference_platform": t("string", "Where the model was run."),
                    "inference_engine": t("string", "The serving software."),
                    "additional_details": details,
                },
            },
            "evaluation_results": {"type": "array", "description": "The results.", "items": result},
            "detailed_evaluation_results_per_samples": {
                "description": "Per-sample results: a link, or the samples themselves.",
                "anyOf": [{"type": "string"}, {"type": "array", "items": legacy_sample()}],
            },
        },
    }


def v0_0_1() -> S:
    s = with_version(v0_1_0(), "0.0.1")
    s["required"] = [
        "schema_version",
        "evaluation_id",
        "evaluation_source",
        "retrieved_timestamp",
        "source_data",
        "source_metadata",
        "model_info",
        "evaluation_results",
    ]
    s["properties"]["evaluation_source"] = {
        "type": "object",
        "description": "Where the results were taken from.",
        "required": ["evaluation_source_name", "evaluation_source_type"],
        "properties": {
            "evaluation_source_name": t("string", "Name of the source."),
            "evaluation_source_type": {
                "type": "string",
                "description": "Kind of source.",
                "enum": ["leaderboard", "evaluation_platform"],
            },
        },
    }
    meta = s["properties"]["source_metadata"]
    meta["required"] = ["source_organization_name", "evaluator_relationship"]
    del meta["properties"]["source_name"], meta["properties"]["source_type"]
    return s


AGGREGATES.update({"0.0.1": v0_0_1, "0.1.0": v0_1_0})


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
