"""The parts the Every Eval Ever record schemas share (model info, source data, metric and
generation configs), as EEE's published schemas define them; the descriptions are ours."""

from __future__ import annotations

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
