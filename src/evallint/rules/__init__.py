"""The rule registry: a literal tuple of rule families, each a module of rules."""

from __future__ import annotations

from collections.abc import Mapping

from evallint.rules import (
    agentv,
    agentv_cases,
    agentv_prompts,
    agentv_rejected,
    agentv_v2,
    cases,
    checks,
    datasets,
    eee,
    eee_prose,
    files,
    hf,
    judges,
    keys,
    lmeval,
    lmeval_index,
    lmeval_versions,
    oaievals,
    parse_rules,
    promptfoo,
    promptfoo_csv,
    promptfoo_files,
    promptfoo_prompts,
    promptfoo_providers,
    promptfoo_redteam,
    promptfoo_vars,
    references,
    schema_rules,
    suppressed,
    versions,
)
from evallint.rules.base import Rule

# The rule families, in the order `evallint rules` lists them; each lists its rules in the order
# it defines them. A rule added to a family needs no line here.
FAMILIES = (
    parse_rules,
    schema_rules,
    keys,
    references,
    judges,
    checks,
    datasets,
    versions,
    cases,
    files,
    agentv,
    agentv_rejected,
    agentv_cases,
    agentv_prompts,
    agentv_v2,
    eee,
    eee_prose,
    hf,
    lmeval,
    lmeval_index,
    lmeval_versions,
    oaievals,
    promptfoo,
    promptfoo_files,
    promptfoo_vars,
    promptfoo_csv,
    promptfoo_providers,
    promptfoo_prompts,
    promptfoo_redteam,
    suppressed,
)
ALL_RULES: tuple[Rule, ...] = tuple(
    found for family in FAMILIES for found in vars(family).values() if isinstance(found, Rule)
)

BY_ID: Mapping[str, Rule] = {r.id: r for r in ALL_RULES}
# What the engine, settings, SARIF and `bump` need to know of rules, derived from the rules.
ALWAYS_ON = frozenset(r.id for r in ALL_RULES if r.always_on)
BUMPED = tuple(r.id for r in ALL_RULES if r.bumps)  # the rules `evallint bump` answers
UNUSED_SUPPRESSION = suppressed.UNUSED_SUPPRESSION.id
