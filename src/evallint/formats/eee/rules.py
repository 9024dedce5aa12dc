"""The Every Eval Ever rule families."""

from __future__ import annotations

from evallint.formats.eee import rules_prose, rules_records

FAMILIES = (rules_records, rules_prose)
