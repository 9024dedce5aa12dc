"""Every rule is documented, and its Bad/Good examples behave as the docs say."""

from __future__ import annotations

import inspect
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import lint_files
from evallint.output.docs import render_rules
from evallint.rules import ALL_RULES
from evallint.rules.base import Rule, cleandoc


def test_ids_are_unique_kebab_case() -> None:
    ids = [r.id for r in ALL_RULES]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", i) for i in ids)


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.id)
def test_rule_has_summary_description_and_examples(rule: Rule) -> None:
    assert rule.summary and not rule.summary.endswith(" ")
    labels = {e.label for e in rule.examples}
    assert {"Bad", "Good"} <= labels, "needs a Bad and a Good example"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.id)
def test_bad_example_fires_and_good_example_does_not(rule: Rule) -> None:
    given = {e.path: e.text for e in rule.examples if e.label == "Given"}
    base = {e.path: e.text for e in rule.examples if e.label == "Base"} or None
    for example in rule.examples:
        if example.label not in ("Bad", "Good"):
            continue
        files = {**given, example.path: example.text}
        # A bad example's finding may sit in a file it reads (a CSV test file's cell).
        places = (example.path,) if example.good else (example.path, *given)
        fired = [d.rule for d in lint_files(files, base=base) if d.path in places]
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


JSON_EXEMPT = {"parse-error", "yaml-implicit-type", "unused-suppression", "path-outside-repo"}


def _json_kinds(rule: Rule) -> bool:
    from evallint.kinds import KINDS

    return any("json" in k.formats for k in KINDS if rule.applies_to(k.name))


@pytest.mark.parametrize(
    "rule", [r for r in ALL_RULES if r.id not in JSON_EXEMPT and _json_kinds(r)], ids=lambda r: r.id
)
def test_bad_example_fires_in_json_too(rule: Rule) -> None:
    import json

    from evallint.parse import parse

    for example in rule.examples:
        if example.label != "Bad" or rule.id == "duplicate-key":
            continue
        if not example.path.endswith((".yaml", ".yml")):
            continue  # already JSON or JSONL
        given = {e.path: e.text for e in rule.examples if e.label == "Given"}
        data = parse(example.path, example.text.encode(), "yaml").data
        path = example.path.rsplit(".", 1)[0] + ".json"
        bases = [e for e in rule.examples if e.label == "Base"]
        base = None
        if bases:
            before = parse(bases[0].path, bases[0].text.encode(), "yaml").data
            base = {path: json.dumps(before, indent=2)}
        files = {**given, path: json.dumps(data, indent=2)}
        places = (path, *given)  # a finding may sit in a file it reads, as in YAML
        assert rule.id in [d.rule for d in lint_files(files, base=base) if d.path in places]


def test_duplicate_key_in_json() -> None:
    text = '{\n  "id": "accuracy",\n  "version": "1.0.0",\n  "template": "a",\n  "id": "b"\n}\n'
    assert [(d.span.line, d.span.column, d.rule) for d in lint_files({"judges/a.json": text})] == [
        (5, 3, "duplicate-key")
    ]


@pytest.mark.parametrize("name", ["docs/checks.md"])
def test_the_generated_tables_are_the_codes(name: str) -> None:
    """The rules, kinds and markers tables are written from the registries: a rule or kind
    added to its registry reaches the docs by `python3 tools/docs.py`, never by hand."""
    from conftest import REPO
    from evallint.output.docs import fill

    text = (REPO / name).read_text(encoding="utf-8")
    assert "<!-- generated: " in text, f"{name} holds no generated table"
    assert fill(text) == text, f"{name} is stale: run python3 tools/docs.py"


def test_every_generated_table_is_in_the_docs() -> None:
    from conftest import REPO
    from evallint.output.docs import GENERATED

    docs = "".join((REPO / n).read_text(encoding="utf-8") for n in ("README.md", "docs/checks.md"))
    assert [n for n in GENERATED if f"<!-- generated: {n} " not in docs] == []


def test_the_readme_usage_offers_every_format() -> None:
    from conftest import REPO
    from evallint.output.docs import formats_usage

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"[--format {formats_usage()}]" in readme


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.id)
def test_docs_are_cleaned_as_inspect_cleans_them(rule: Rule) -> None:
    """The rule docs are cleaned without importing `inspect`, to the same text."""
    doc = rule.check.__doc__ if rule.check is not None else None
    if doc is not None:
        assert cleandoc(doc) == inspect.cleandoc(doc)


@given(
    st.lists(st.sampled_from(["", " ", "    ", "\t", "a", "  b", "\tc d", "    e  "]), max_size=8)
)
def test_cleandoc_is_inspects_on_any_layout(lines: list[str]) -> None:
    doc = "\n".join(lines)
    assert cleandoc(doc) == inspect.cleandoc(doc)
