"""Rule documentation, generated from the rules themselves."""

from __future__ import annotations

import re

from evallint.rules import ALL_RULES
from evallint.rules.base import Rule


def _text(rule: Rule) -> str:
    kinds = ", ".join(sorted(rule.kinds)) or "all kinds"
    body = "\n".join(f"    {line}" if line else "" for line in rule.description.splitlines())
    return f"{rule.id} ({rule.severity.label}; {kinds})\n    {rule.summary}\n\n{body}\n"


def rule_markdown(rule: Rule) -> str:
    kinds = ", ".join(f"`{k}`" for k in sorted(rule.kinds)) or "all kinds"
    parts = [
        f"### `{rule.id}`\n",
        f"{rule.summary}\n",
        f"Default severity: **{rule.severity.label}**. Applies to: {kinds}.\n",
    ]
    prose = re.split(r"\n(?:Bad|Good|Given|Base) \(", "\n" + rule.description, maxsplit=1)[0]
    prose = prose.strip()
    if prose:
        parts.append(prose + "\n")
    for ex in rule.examples:
        parts.append(f"{ex.label} (`{ex.path}`):\n\n```yaml\n{ex.text}```\n")
    return "\n".join(parts)


def render_rule(rule: Rule, *, markdown: bool = False) -> str:
    """One rule's page (`evallint rule ID`): its docs, and how it runs."""
    if markdown:
        return rule_markdown(rule)
    strict = f"; {rule.strict.label} under --strict" if rule.strict else ""
    facts = [
        f"    Default severity: {rule.severity.label}{strict}.",
        _fixable(rule),
    ]
    if rule.needs_base:
        facts.append("    Runs only with a base to compare with (--diff or --base).")
    return _text(rule) + "\n" + "\n".join(facts) + "\n"


def _fixable(rule: Rule) -> str:
    if not rule.fixable:
        return "    Fixable: no."
    also = " or `evallint bump`" if rule.needs_base else ""
    return f"    Fixable: yes (`evallint check --fix`{also})."


def render_rules(*, markdown: bool = False) -> str:
    if markdown:
        return "# evallint rules\n\n" + "\n".join(rule_markdown(r) for r in ALL_RULES)
    return "\n".join(_text(r) for r in ALL_RULES)
