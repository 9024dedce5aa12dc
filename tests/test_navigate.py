"""Where a key is being written, and which keys the schema allows there (the editor's key
completion), from the indentation of the lines above."""

from __future__ import annotations

from evallint.session.keys import key_path, keys_at
from evallint.validation.schemas import load_schema


def test_the_keys_above_a_key_being_written_through_lists() -> None:
    text = "tests:\n  - id: a\n    input:\n      - role: user\n        con"
    lines = text.split("\n")
    assert key_path(lines, 4, lines[4]) == ["tests", "input"]
    labels = [k for k, _ in keys_at(load_schema("agentv-v4"), ["tests", "input"])]
    assert "content" in labels and "role" in labels
    assert key_path(lines, 1, "  - id: a") is None  # in a value, not a key
    assert key_path(["id: x", "ver"], 1, "ver") == []


def test_keys_with_their_descriptions_and_nothing_where_the_schema_has_no_object() -> None:
    rubric = load_schema("rubric")
    assert ("threshold", "Pass mark for the score.") in keys_at(rubric, ["scoring"])
    assert keys_at(rubric, ["id"]) == []
    assert keys_at(rubric, ["no", "such"]) == []
