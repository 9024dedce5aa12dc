"""The rule registry: the shared rule families, then each format's (`formats.NAMES`), each a
module of rules."""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from types import ModuleType

from evallint.formats import NAMES
from evallint.rules import (
    cases,
    files,
    hygiene,
    keys,
    parse_rules,
    regex,
    schema_rules,
    suppressed,
    versions,
)
from evallint.rules.base import Rule


def _format_families(name: str) -> tuple[ModuleType, ...]:
    """A format's rule families: its `rules` module, or the modules it lists as `FAMILIES`."""
    try:
        module = import_module(f"evallint.formats.{name}.rules")
    except ModuleNotFoundError as exc:
        if exc.name != f"evallint.formats.{name}.rules":
            raise
        return ()  # a format of kinds alone: the shared rules are all it has
    families: tuple[ModuleType, ...] = getattr(module, "FAMILIES", (module,))
    return families


# The rule families, in the order `evallint rules` lists them; each lists its rules in the order
# it defines them. A rule added to a family needs no line here.
FAMILIES = (
    parse_rules,
    schema_rules,
    keys,
    versions,
    cases,
    files,
    regex,
    hygiene,
    *(family for name in NAMES for family in _format_families(name)),
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
