"""Rule documentation, generated from the rules themselves."""

from __future__ import annotations

import re

from evallint.rules import ALL_RULES
from evallint.rules.base import Rule


def kinds_of(rule: Rule, quote: str = "", everything: str = "all kinds") -> str:
    """The kinds a rule applies to, said shortly: every kind, all but a few, or a list."""
    from evallint.kinds import BY_NAME

    if not rule.kinds:
        return everything
    left = sorted(set(BY_NAME) - rule.kinds)
    if 0 < len(left) <= 2 and len(rule.kinds) > len(left):
        return f"{everything}, but " + ", ".join(f"{quote}{k}{quote}" for k in left)
    return ", ".join(f"{quote}{k}{quote}" for k in sorted(rule.kinds))


def _text(rule: Rule) -> str:
    kinds = kinds_of(rule)
    body = "\n".join(f"    {line}" if line else "" for line in rule.description.splitlines())
    return f"{rule.id} ({rule.severity.label}; {kinds})\n    {rule.summary}\n\n{body}\n"


def rule_markdown(rule: Rule) -> str:
    kinds = kinds_of(rule, "`")
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


def rules_listing() -> str:
    """One line a rule: its id, default severity, whether `--fix` or `bump` fixes it, and the
    kinds it reads (as `ruff rule --all` and `ruff linter` list theirs)."""
    rows = [("RULE", "SEVERITY", "FIXABLE", "KINDS")]
    rows += [
        (r.id, r.severity.label, "yes" if r.fixable else "no", kinds_of(r, everything="all"))
        for r in ALL_RULES
    ]
    wide = [max(len(row[i]) for row in rows) for i in range(3)]
    return "".join(f"{a:<{wide[0]}}  {b:<{wide[1]}}  {c:<{wide[2]}}  {d}\n" for a, b, c, d in rows)


def render_rules(*, markdown: bool = False) -> str:
    if markdown:
        return "# evallint rules\n\n" + "\n".join(rule_markdown(r) for r in ALL_RULES)
    return "\n".join(_text(r) for r in ALL_RULES)


# Tables the docs hold that the code owns: each sits between `<!-- generated: NAME -->` and
# `<!-- end: NAME -->` in README.md or docs/, and `python3 tools/docs.py` writes it (a test
# fails while one is stale). A rule, kind or format added to its registry reaches them all.


def _default(rule: Rule) -> str:
    strict = f" ({rule.strict.label} under --strict)" if rule.strict else ""
    return rule.severity.label + strict


def rules_table() -> str:
    rows = [
        f"| `{r.id}` | {_default(r)} | {kinds_of(r, everything='all')} | {r.summary} |"
        for r in ALL_RULES
    ]
    return "\n".join(["| rule | default | kinds | what it reports |", "|---|---|---|---|", *rows])


def kinds_table() -> str:
    from evallint.kinds import KINDS

    rows = []
    for kind in KINDS:
        schema = kind.schema_docs or (f"schema/{kind.schema}.schema.json" if kind.schema else "")
        rows.append(f"| `{kind.name}` | {kind.about} | `{schema}` |")
    return "\n".join(["| kind | how a file is recognised | schema |", "|---|---|---|", *rows])


def markers_table() -> str:
    from evallint.kinds import KINDS

    rows = [
        f"| `{kind.name}` | "
        + "; or ".join(", ".join(f"`{key}`" for key in keys) for keys in kind.markers)
        + " |"
        for kind in KINDS
        if kind.markers
    ]
    return "\n".join(["| kind | markers (all of one set) |", "|---|---|", *rows])


def formats_usage() -> str:
    """The `--format` choices as the README's usage line writes them."""
    from evallint.output import FORMATTERS

    return "|".join(["auto", *FORMATTERS])


GENERATED = {"rules": rules_table, "kinds": kinds_table, "markers": markers_table}
_BLOCK = re.compile(r"(<!-- generated: ([a-z]+)[^>]*-->\n)(.*?)(\n<!-- end: \2 -->)", re.S)


def fill(text: str) -> str:
    """`text` with every generated table written anew."""
    return _BLOCK.sub(lambda m: m[1] + GENERATED[m[2]]() + m[4], text)
