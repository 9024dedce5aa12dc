"""The OpenAI evals rule families."""

from __future__ import annotations

from evallint.formats.oaievals import (
    rules_classes,
    rules_graded,
    rules_placeholders,
    rules_registry,
    rules_samples,
    rules_versions,
)

FAMILIES = (
    rules_registry,
    rules_classes,
    rules_graded,
    rules_samples,
    rules_placeholders,
    rules_versions,
)
