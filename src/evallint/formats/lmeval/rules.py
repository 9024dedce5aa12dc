"""The lm-evaluation-harness rule families (`rules_read` is what they share)."""

from __future__ import annotations

from evallint.formats.lmeval import rules_index, rules_tasks, rules_versions

FAMILIES = (rules_tasks, rules_index, rules_versions)
