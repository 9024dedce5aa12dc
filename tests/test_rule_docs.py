"""Every rule is documented, and its Bad/Good examples behave as the docs say."""

from __future__ import annotations

import re

import pytest

from conftest import lint_files
from evallint.docs import render_rules
from evallint.rules import ALL_RULES
from evallint.rules.base import Rule


def test_ids_are_unique_kebab_case() -> None:
    ids = [r.id for r in ALL_RULES]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", i) for i in ids)


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.id)
def test_rule_has_summary_description_and_examples(rule: Rule) -> None:
    assert rule.summary and not rule.summary.endswith(" ")
    kinds = {e.good for e in rule.examples}
    assert kinds == {True, False}, "needs a Bad and a Good example"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.id)
def test_bad_example_fires_and_good_example_does_not(rule: Rule) -> None:
    for example in rule.examples:
        fired = [d.rule for d in lint_files({example.path: example.text})]
        if example.good:
            assert fired == [], f"good example of {rule.id} reports {fired}"
        else:
            assert rule.id in fired, f"bad example of {rule.id} reports only {fired}"


def test_rules_command_documents_every_rule() -> None:
    text = render_rules()
    markdown = render_rules(markdown=True)
    for rule in ALL_RULES:
        assert text.count(f"\n{rule.id} (") + text.startswith(f"{rule.id} (") == 1
        assert f"### `{rule.id}`" in markdown
