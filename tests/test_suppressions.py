"""Suppression comments are checked: an id that names no rule, and a comment that silences
nothing, are `unused-suppression` warnings at the exact place in the comment."""

from __future__ import annotations

from conftest import found
from evallint.config import Config

TYPO = "questions:\n  - id: q1\n    input: hi\n    expecteed_facts: [x]"
RUBRIC = (
    "id: tone\nversion: '1.0.0'\nchecks: [{kind: php_lint, id: lint}]\n"
    "scoring: {combine: all_pass}\n"
)


def unused(path: str, text: str, config: Config | None = None) -> list[tuple[int, int, str]]:
    return [(g[0], g[1], g[3]) for g in found(path, text, config) if g[2] == "unused-suppression"]


def test_an_id_that_is_no_rule_gets_a_did_you_mean_and_silences_nothing() -> None:
    text = TYPO + "  # evallint: ignore[key-typ]\n"
    got = found("datasets/d.yaml", text)
    assert [g[:3] for g in got] == [(4, 5, "key-typo"), (4, 46, "unused-suppression")]
    assert got[1][3] == "'key-typ' is not a rule id; did you mean 'key-typo'?"
    # Capitals or underscores no longer turn the comment into a bare ignore of every rule.
    capital = TYPO + "  # evallint: ignore[Key_Typo]\n"
    assert [g[2] for g in found("datasets/d.yaml", capital)] == ["key-typo", "unused-suppression"]
    assert unused("datasets/d.yaml", TYPO + "  # evallint: ignore[zzzz]\n") == [
        (4, 46, "'zzzz' is not a rule id (evallint rules lists them)")
    ]


def test_each_id_of_a_list_is_checked_at_its_own_column() -> None:
    text = TYPO + "  # evallint: ignore[key-typo,  unknown-key, parse-error]\n"
    assert unused("datasets/d.yaml", text) == [
        (
            4,
            57,
            "'unknown-key' is silenced here, but reports nothing on the lines this comment covers",
        ),
        (4, 70, "'parse-error' cannot be silenced: nothing else can be checked in such a file"),
    ]


def test_a_bare_ignore_that_silences_nothing_is_reported_at_the_comment() -> None:
    suite = "name: s  # evallint: ignore\ntests:\n  - id: a\n    input: hi\n    criteria: ok\n"
    assert unused("evals/EVAL.yaml", suite) == [(1, 10, "this suppression silences nothing")]
    # In a versioned file, a full run has no base: the version rules may still fire there.
    assert unused("datasets/d.yaml", "# evallint: ignore\n" + TYPO + "\n") == []


def test_what_may_still_be_waited_for_is_not_reported() -> None:
    # The version rules need a base; a full run has none.
    pinned = RUBRIC.replace("version: '1.0.0'", "version: '1.0.0'  # evallint: ignore")
    assert unused("rubrics/tone.yaml", pinned) == []
    named = RUBRIC.replace("'1.0.0'", "'1.0.0'  # evallint: ignore[version-not-bumped]")
    assert unused("rubrics/tone.yaml", named) == []
    # A rule the configuration turns off.
    off = TYPO + "\n  # evallint: ignore[unknown-key]\n"
    assert unused("datasets/d.yaml", off, Config(severities={"unknown-key": "off"})) == []
    assert unused("datasets/d.yaml", off) != []
    # The comment asks to be kept.
    kept = TYPO + "\n  # evallint: ignore[unknown-key, unused-suppression]\n"
    assert unused("datasets/d.yaml", kept) == []


def test_only_real_comments_are_suppressions() -> None:
    text = 'questions:\n  - id: q1\n    input: "see # evallint: ignore[nothing]"\n'
    assert found("datasets/d.yaml", text) == []
    json_text = '{"questions": [{"id": "q1", "input": "x # evallint: ignore[nothing]"}]}\n'
    assert found("datasets/d.json", json_text) == []


def test_problems_found_while_reading_can_be_silenced_except_parse_errors() -> None:
    twice = "questions: [{id: q1, input: hi}]\n" * 2
    assert [g[2] for g in found("datasets/d.yaml", twice)] == ["duplicate-key"]
    dup = twice.rstrip("\n") + "  # evallint: ignore[duplicate-key]\n"
    assert found("datasets/d.yaml", dup) == []
    broken = "questions: [  # evallint: ignore[parse-error]\n"
    assert [g[2] for g in found("datasets/d.yaml", broken)] == ["parse-error"]


def test_with_a_base_the_version_rules_ran_and_are_held_to_it() -> None:
    from conftest import lint_files

    named = RUBRIC.replace("'1.0.0'", "'1.0.0'  # evallint: ignore[version-not-bumped]")
    got = lint_files({"rubrics/tone.yaml": named}, base={"rubrics/tone.yaml": RUBRIC})
    assert [(d.span.line, d.span.column, d.rule) for d in got] == [(2, 38, "unused-suppression")]
    changed = RUBRIC.replace("php_lint", "regex, pattern: x")  # the finding is on line 3
    on_the_line = changed.replace(
        "id: lint}]", "id: lint}]  # evallint: ignore[version-not-bumped]"
    )
    above = changed.replace("checks:", "# evallint: ignore[version-not-bumped]\nchecks:")
    for text in (on_the_line, above):
        got = lint_files({"rubrics/tone.yaml": text}, base={"rubrics/tone.yaml": RUBRIC})
        assert [d.rule for d in got] == [], text  # the comment silenced the missing bump


def test_a_comment_after_code_covers_its_own_line_only() -> None:
    """As ruff's `noqa`: a trailing comment never reaches the next line; a comment on a line of
    its own covers the next line."""
    on_key = "questions:\n  - id: q1\n    input: hi  # evallint: ignore[key-typo]\n"
    on_key += "    expecteed_facts: [x]\n"
    assert [g[:3] for g in found("datasets/d.yaml", on_key)] == [
        (3, 35, "unused-suppression"),
        (4, 5, "key-typo"),
    ]
    above = "questions:\n  - id: q1\n    input: hi\n    # evallint: ignore[key-typo]\n"
    above += "    expecteed_facts: [x]\n"
    assert found("datasets/d.yaml", above) == []


def test_a_finding_inside_a_block_scalar_is_silenced_from_the_line_above_its_key() -> None:
    """A comment inside a block scalar is its text; the comment above the key (or after the
    block's indicator) covers every line of the block."""
    judge = 'id: j\nversion: "1.0.0"\n{note}template: |{tail}\n  Grade {{{{ outpt }}}}\n'
    assert [g[:3] for g in found("judges/j.yaml", judge.format(note="", tail=""))] == [
        (4, 12, "template-variable")
    ]
    above = judge.format(note="# evallint: ignore[template-variable]\n", tail="")
    assert found("judges/j.yaml", above) == []
    after = judge.format(note="", tail="  # evallint: ignore[template-variable]")
    assert found("judges/j.yaml", after) == []


def test_an_unclosed_or_run_on_marker_never_silences_every_rule() -> None:
    unclosed = TYPO + "  # evallint: ignore[unknown-key\n"
    assert [g[:3] for g in found("datasets/d.yaml", unclosed)] == [
        (4, 5, "key-typo"),
        (4, 46, "unused-suppression"),
    ]
    run_on = TYPO + "  # evallint: ignored\n"
    assert [g[2] for g in found("datasets/d.yaml", run_on)] == ["key-typo"]
