"""The ai_eval rule families."""

from __future__ import annotations

from evallint.formats.ai_eval import rules_checks, rules_datasets, rules_judges, rules_references

FAMILIES = (rules_references, rules_judges, rules_checks, rules_datasets)
