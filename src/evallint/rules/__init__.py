"""The rule registry: a literal tuple, in the order `evallint rules` lists them."""

from __future__ import annotations

from collections.abc import Mapping

from evallint.rules import (
    agentv,
    cases,
    checks,
    datasets,
    eee,
    eee_prose,
    files,
    judges,
    keys,
    parse_rules,
    references,
    schema_rules,
    versions,
)
from evallint.rules.base import Rule

ALL_RULES: tuple[Rule, ...] = (
    parse_rules.PARSE_ERROR,
    parse_rules.DUPLICATE_KEY,
    schema_rules.schema_violation,
    schema_rules.yaml_implicit_type,
    keys.unknown_key,
    keys.key_typo,
    keys.unknown_check_kind,
    references.unknown_ref,
    references.unknown_ref_version,
    references.unpinned_ref,
    references.composite_cycle,
    references.composite_depth,
    references.duplicate_definition,
    judges.template_variable,
    judges.judge_validation_stale,
    judges.judge_validation_version,
    checks.invalid_regex,
    checks.invalid_json_schema,
    checks.weight_ignored,
    datasets.duplicate_question_id,
    datasets.question_missing_inputs,
    versions.version_not_bumped,
    versions.version_bump_too_small,
    versions.version_not_increased,
    versions.version_non_score_change,
    cases.duplicate_case_id,
    cases.evals_key_missing,
    files.missing_file,
    agentv.agentv_migration,
    agentv.score_ranges,
    eee.eee_schema_version,
    eee.eee_companion,
    eee.eee_checksum,
    eee.eee_total_rows,
    eee.eee_instance_ids,
    eee.eee_sample_hash,
    eee.eee_envelope_ref,
    eee_prose.eee_duplicate_evaluation_id,
    eee_prose.eee_layout,
    eee_prose.eee_score_range,
    eee_prose.eee_retrieved_timestamp,
    parse_rules.UNUSED_SUPPRESSION,
)

BY_ID: Mapping[str, Rule] = {r.id: r for r in ALL_RULES}
ALWAYS_ON = frozenset({"parse-error"})
