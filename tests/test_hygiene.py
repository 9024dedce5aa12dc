"""Dataset content hygiene, in every format that declares its items: a repeated input, one
input with two exact answers, an expectation the input states, an empty expectation."""

from __future__ import annotations

from conftest import lint_files
from evallint.rules.hygiene import normalized
from evallint.session.settings import expand_rules

DATASET = """\
questions:
  - id: window
    input: "Can I return it?"
    expected_facts: ["refunds are accepted within 30 days"]
  - id: window_again
    input: "can I  return it"
    expected_facts: ["refunds are accepted within 30 days"]
  - id: tone
    input: "Can I return it?"
    expected_facts: ["  "]
  - id: leak
    input: "Refunds are accepted within 30 days. Can I return it after 20?"
    expected_facts: ["refunds are accepted within 30 days"]
"""
EVALS = """\
{"skill_name": "refunds", "evals": [
  {"id": "a", "prompt": "Can I return it?", "expected_output": "Yes, within 30 days."},
  {"id": "b", "prompt": "Can I return it.", "expected_output": "Yes, within 30 days."},
  {"id": "c", "prompt": "Is it too late after two months?", "expected_output": ""},
  {"id": "d", "prompt": "Say: store credit applies.", "expected_output": "store credit applies"},
  {"id": "e", "prompt": "Can I return it?", "expected_output": "Yes.", "source": {"session": 2}}
]}
"""
SUITE = """\
tests:
  - id: a
    criteria: Says yes.
    input: Can I return it?
    expected_output: Yes, within thirty days.
  - id: b
    criteria: Says yes.
    input: "can i return it"
    expected_output: Yes, within thirty days.
  - id: c
    criteria: Says no.
    input: Too late?
    expected_output: " "
  - id: d
    criteria: Says yes, politely.
    input: Can I return it?
    expected_output: Yes, within thirty days.
"""
SAMPLES = """\
{"input": [{"role": "user", "content": "1+1"}], "ideal": "2"}
{"input": [{"role": "user", "content": "1+1"}], "ideal": "3"}
{"input": [{"role": "user", "content": "1+1 "}], "ideal": "2"}
{"input": [{"role": "user", "content": "Say the answer to all"}], "ideal": ["the answer to all",""]}
"""
CONFIG = """\
prompts: ["Answer: {{question}}"]
providers: [echo]
tests:
  - vars: {question: "What is 1+1?"}
    assert: [{type: equals, value: "2"}]
  - vars: {question: "what is 1+1"}
    assert: [{type: equals, value: "3"}]
  - vars: {question: "Capital of France?"}
    assert: [{type: contains, value: Paris}]
  - vars: {question: "capital of france"}
    assert: [{type: contains, value: Paris}]
  - vars: {question: "Repeat: the capital is Paris, exactly"}
    assert: [{type: icontains, value: "the capital is Paris"}]
  - vars: {question: "Anything?"}
    assert: [{type: contains-all, value: [Paris, " "]}]
  - vars: {question: "capital of france"}
    assert: [{type: contains, value: "{{answer}}"}]
"""
FILES = {
    "promptfooconfig.yaml": CONFIG,
    "datasets/refunds.yaml": DATASET,
    "evals/refunds/evals.json": EVALS,
    "refunds.eval.yaml": SUITE,
    "registry/data/arith/samples.jsonl": SAMPLES,
}


def _found(rule: str) -> list[tuple[str, int, int]]:
    return sorted((d.path, d.span.line, d.span.column) for d in lint_files(FILES) if d.rule == rule)


def test_an_input_asked_twice_and_graded_alike_counts_twice() -> None:
    """Not when the second grades it another way (other criteria, a rubric: a second test of
    one answer), nor for provenance (`source`) alone."""
    assert _found("duplicate-input") == [
        ("datasets/refunds.yaml", 6, 12),
        ("evals/refunds/evals.json", 3, 25),
        ("promptfooconfig.yaml", 10, 11),
        ("refunds.eval.yaml", 8, 12),
        ("registry/data/arith/samples.jsonl", 3, 11),
    ]
    (first,) = [d for d in lint_files(FILES) if d.rule == "duplicate-input" and d.span.line == 6]
    assert first.message == "the same input as 'window' (line 2): the question counts twice"


def test_one_input_with_two_exact_answers_is_an_error() -> None:
    """Only where the grader compares the answer whole (an OpenAI evals sample's `ideal`, a
    promptfoo `equals`): one finding for the slip, never also a duplicate."""
    assert _found("conflicting-expected") == [
        ("promptfooconfig.yaml", 7, 36),
        ("registry/data/arith/samples.jsonl", 2, 58),
    ]


def test_an_expectation_the_input_states() -> None:
    assert _found("expected-in-input") == [
        ("datasets/refunds.yaml", 13, 22),
        ("evals/refunds/evals.json", 5, 74),
        ("promptfooconfig.yaml", 13, 39),
        ("registry/data/arith/samples.jsonl", 4, 77),
    ]


def test_an_empty_expectation() -> None:
    assert _found("empty-expected") == [
        ("datasets/refunds.yaml", 10, 22),
        ("evals/refunds/evals.json", 4, 80),
        ("promptfooconfig.yaml", 15, 50),
        ("refunds.eval.yaml", 13, 22),
        ("registry/data/arith/samples.jsonl", 4, 97),
    ]


def test_inputs_are_compared_as_a_reader_would() -> None:
    assert normalized("  Can I\n return   it?! ") == normalized("can i return it")
    assert normalized("1+1") != normalized("1+2")


def test_the_hygiene_group_selects_the_four_rules() -> None:
    assert expand_rules(["hygiene"]) == (
        "duplicate-input",
        "conflicting-expected",
        "expected-in-input",
        "empty-expected",
    )
