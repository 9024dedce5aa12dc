"""The promptfoo rule families."""

from __future__ import annotations

from evallint.formats.promptfoo import (
    rules_config,
    rules_csv,
    rules_files,
    rules_prompts,
    rules_provider_keys,
    rules_providers,
    rules_redteam,
    rules_vars,
)

FAMILIES = (
    rules_config,
    rules_files,
    rules_vars,
    rules_csv,
    rules_providers,
    rules_provider_keys,
    rules_prompts,
    rules_redteam,
)
