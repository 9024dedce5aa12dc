"""Dataset content hygiene, in every format that declares its items: a repeated input, one
input with two exact answers, an expectation the input states, an empty expectation."""

from __future__ import annotations

from conftest import lint_files
from evallint.kinds.itemized import normalized
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


def _record(sample: str, raw: str, reference: list[str], choices: list[str] | None = None) -> str:
    import json

    given: dict[str, object] = {"raw": raw, "reference": reference}
    if choices is not None:
        given["choices"] = choices
    return json.dumps(
        {
            "schema_version": "0.2.2",
            "evaluation_id": "e/1",
            "model_id": "org/model",
            "evaluation_name": "bench",
            "sample_id": sample,
            "interaction_type": "single_turn",
            "input": given,
            "output": {"raw": ["4"]},
            "answer_attribution": [],
            "evaluation": {"score": 1.0, "is_correct": True},
        }
    )


RECORDS = "\n".join(
    [
        _record("s1", "What is 2+2?", ["4"], ["3", "4"]),
        _record("s1", "What is 2+2?", ["4"], ["3", "4"]),  # another epoch of s1: no repeat
        _record("s2", "what is 2+2", ["4"], ["3", "4"]),
        _record("s3", "Pick one", ["B"], ["3", "4"]),  # a label
        _record("s4", "Pick one more", ["five"], ["3", "4"]),
        _record("s5", "Say: the sum of two and two", ["the sum of two and two"]),  # no echo
        _record("s6", "Anything", [" "]),
    ]
)
FILES = {
    "results/run.jsonl": RECORDS + "\n",
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
        ("results/run.jsonl", 3, 177),
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
        ("results/run.jsonl", 7, 203),
    ]


def test_an_answer_that_is_none_of_the_choices() -> None:
    """A label (`B`, a number within the choices) names a choice; a text must be one."""
    assert _found("answer-not-a-choice") == [("results/run.jsonl", 5, 208)]


def test_inputs_are_compared_as_a_reader_would() -> None:
    assert normalized("  Can I\n return   it?! ") == normalized("can i return it")
    assert normalized("1+1") != normalized("1+2")


def test_the_hygiene_group_selects_its_rules() -> None:
    assert expand_rules(["hygiene"]) == (
        "duplicate-input",
        "conflicting-expected",
        "expected-in-input",
        "empty-expected",
        "answer-not-a-choice",
        "shared-item",
    )
