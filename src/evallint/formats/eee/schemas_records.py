"""Every Eval Ever aggregate record schemas, one per version, written as 0.2.0 plus deltas
(docs/formats/eee.md §3 says what changed in each version)."""

from __future__ import annotations

import copy

from evallint.formats.eee.schemas_parts import (
    DRAFT,
    S,
    generation_config,
    metric_config,
    model_info,
    open_object,
    ref,
    source_data,
    source_metadata,
    string_map,
    t,
    uncertainty,
)


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
