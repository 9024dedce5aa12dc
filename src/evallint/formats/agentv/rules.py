"""The AgentV rule families."""

from __future__ import annotations

from evallint.formats.agentv import (
    rules_cases,
    rules_prompts,
    rules_rejected,
    rules_suites,
    rules_v2,
)

FAMILIES = (rules_suites, rules_rejected, rules_cases, rules_prompts, rules_v2)
