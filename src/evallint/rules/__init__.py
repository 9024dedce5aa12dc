"""The rule registry: a literal tuple, in the order `evallint rules` lists them."""

from __future__ import annotations

from collections.abc import Mapping

from evallint.rules import keys, parse_rules, references, schema_rules
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
)

BY_ID: Mapping[str, Rule] = {r.id: r for r in ALL_RULES}
ALWAYS_ON = frozenset({"parse-error"})
