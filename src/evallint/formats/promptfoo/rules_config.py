"""promptfoo rules: what a config's schema cannot say, checked as promptfoo runs the config.

`promptfoo validate` checks a test's and an assertion's types, and reads prompt and test files;
it accepts any assertion type, drops every key it does not know without a word, and never opens
an assertion's script. These rules find what then fails at eval time, or silently changes what
is graded: an unknown assertion type, a dropped `assert` or `threshold`, a script function that
does not exist, a threshold off its assertion's scale.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.promptfoo import kinds as promptfoo
from evallint.formats.promptfoo.kinds_redteam import GRADERS, VERSION
from evallint.formats.promptfoo.rules_files import named_tests, refs_of
from evallint.model import JSON, Finding, Fix, Pointer, Severity
from evallint.rules.api import function_error, held_keys
from evallint.rules.base import rule
from evallint.suggest import sole, suggest

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context

KINDS = promptfoo.KINDS


def _tests(data: JSON) -> Iterator[tuple[Pointer, dict[str, JSON]]]:
    """Each test-like object of a config: the tests, `defaultTest`, a scenario's configs and
    tests."""
    if not isinstance(data, dict):
        return
    for key in ("tests",):
        for i, test in promptfoo.indexed(data.get(key)):
            yield (key, i), test
    if isinstance(data.get("defaultTest"), dict):
        yield ("defaultTest",), data["defaultTest"]
    for i, scenario in promptfoo.indexed(data.get("scenarios")):
        for part in ("config", "tests"):
            for j, test in promptfoo.indexed(scenario.get(part)):
                yield ("scenarios", i, part, j), test


def file_tests(doc: Document, ctx: Context) -> Iterator[tuple[str, Pointer, dict[str, JSON]]]:
    """(file, where, test) of each test of the YAML, JSON and JSONL test files the config
    names (`tests: file://tests.yaml`, a bare path, a glob): promptfoo reads them as it reads
    the config's own tests, so the test rules check them, placing findings in the file. A file
    several configs name gets each finding once (the engine drops repeats)."""
    for _, found in named_tests(doc, ctx):
        if found.fmt != "csv":
            for i, test in promptfoo.indexed(found.data):
                yield found.path, (i,), test


def _everywhere(
    doc: Document, ctx: Context
) -> Iterator[tuple[str | None, Pointer, dict[str, JSON]]]:
    """(file, where, assertion) of the config's assertions (file None) and its test files'."""
    for at, check in _assertions(doc.data):
        yield None, at, check
    for path, at, test in file_tests(doc, ctx):
        for where, check in _assertions(None, [(at, test)]):
            yield path, where, check


def _assertions(
    data: JSON, tests: list[tuple[Pointer, dict[str, JSON]]] | None = None
) -> Iterator[tuple[Pointer, dict[str, JSON]]]:
    """Each assertion of a config (or of `tests`), an `assert-set`'s members too, and the
    reusable ones of `assertionTemplates` (an assertion that is a `$ref` to one is checked
    there)."""
    todo = [((*at, "assert"), test) for at, test in (_tests(data) if tests is None else tests)]
    templates = data.get("assertionTemplates") if isinstance(data, dict) else None
    for name, check in templates.items() if isinstance(templates, dict) else ():
        if isinstance(check, dict):
            yield ("assertionTemplates", name), check
            todo.append((("assertionTemplates", name, "assert"), check))
    while todo:
        at, holder = todo.pop()
        for j, check in promptfoo.indexed(holder.get("assert")):
            if "$ref" not in check:
                yield (*at, j), check
                todo.append(((*at, j, "assert"), check))


@rule(
    "promptfoo-assertion-type",
    Severity.ERROR,
    kinds=KINDS,
    fixable=True,
    precision="high",
    reads_files=True,
)
def promptfoo_assertion_type(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An assertion's `type` is none promptfoo runs.

    `promptfoo validate` accepts any `type`; the eval then fails the assertion with "Unknown
    assertion type". Every type promptfoo 0.123 runs is known here, with its `not-` form, and
    `promptfoo:redteam:*` graders.

    Bad (promptfooconfig.yaml):
        prompts: ["Summarise: {{text}}"]
        providers: [openai:gpt-4.1-mini]
        tests:
          - vars: {text: The refund window is 30 days.}
            assert:
              - type: contians
                value: "30 days"
    Good (promptfooconfig.yaml):
        prompts: ["Summarise: {{text}}"]
        providers: [openai:gpt-4.1-mini]
        tests:
          - vars: {text: The refund window is 30 days.}
            assert:
              - type: contains
                value: "30 days"
    """
    known, plain = promptfoo.KNOWN_TYPES, promptfoo.ASSERTION_TYPES
    for path, at, check in _everywhere(doc, ctx):
        written = check.get("type")
        if not isinstance(written, str):
            if "type" in check:
                yield Finding((*at, "type"), f"assertion type {written!r} is not text", path=path)
            continue
        if written in known or written in GRADERS:
            continue
        if written.startswith("promptfoo:redteam:"):
            hint = suggest(written, GRADERS)
            tail = f"; did you mean {hint!r}?" if hint else ""
            yield Finding(
                (*at, "type"),
                f'promptfoo {VERSION} has no grader {written!r} ("Unknown grader"): the '
                f"assertion fails at eval{tail}",
                path=path,
            )
            continue
        negated = written.startswith("not-")
        hint = suggest(written.removeprefix("not-"), plain)
        meant = f"not-{hint}" if negated and hint else hint
        tail = f"; did you mean {meant!r}?" if meant else ""
        only = sole(written, known)
        fix = Fix((*at, "type"), written, only) if only else None
        yield Finding(
            (*at, "type"),
            f"unknown assertion type {written!r}: promptfoo fails it at eval{tail}",
            fix=fix,
            path=path,
        )


# Keys whose misspelling drops what decides a test's result: its assertions, its threshold.
_DECIDING = ("assert", "threshold")
_LOST = {
    "assert": "and the assertions under it with it: nothing is checked",
    "threshold": "so the score is not held to it",
}


def _unknown(doc: Document, ctx: Context) -> Iterator[tuple[Pointer, str, str | None, bool]]:
    """(object, key, hint, drops checks) for each key promptfoo does not read."""
    for obj in ctx.object_keys(doc):
        if not obj.closed:
            continue
        held = held_keys(doc.data, obj.pointer)
        free = [k for k in obj.known if k not in held]
        for key in obj.unknown:
            hint = suggest(key, free)
            yield obj.pointer, key, hint, hint in _DECIDING and hint in obj.known


_KEYS: dict[str, frozenset[str]] = {}


def _test_keys() -> dict[str, frozenset[str]]:
    """The keys promptfoo keeps of a test and of an assertion (the schema's), read once."""
    if not _KEYS:
        from evallint.validation.schemas import load_schema

        parts = load_schema(promptfoo.CONFIG.schema or "").get("definitions", {})
        for part in ("test", "assertion"):
            _KEYS[part] = frozenset(parts.get(part, {}).get("properties", {}))
    return _KEYS


def _file_unknown(
    doc: Document, ctx: Context
) -> Iterator[tuple[str, Pointer, str, str | None, bool]]:
    """(file, object, key, hint, drops checks) for each key promptfoo does not read in the
    tests of the test files the config names, and in their assertions: the schema's test and
    assertion keys, as promptfoo keeps them."""
    for path, at, test in file_tests(doc, ctx):
        known = _test_keys()
        objects = [(at, test, known["test"])]
        objects += [
            (where, check, known["assertion"]) for where, check in _assertions(None, [(at, test)])
        ]
        for pointer, obj, keys in objects:
            free = [k for k in keys if k not in obj]
            for key in obj:
                if key not in keys:
                    hint = suggest(key, free)
                    yield path, pointer, key, hint, hint in _DECIDING


def _renamed(pointer: Pointer, key: str, hint: str | None, free: frozenset[str]) -> Fix | None:
    only = sole(key, free) if hint else None
    return Fix((*pointer, key), key, only, on_key=True) if only else None


@rule(
    "promptfoo-dropped-key",
    Severity.ERROR,
    kinds=KINDS,
    fixable=True,
    precision="high",
    reads_files=True,
)
def promptfoo_dropped_key(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A misspelt `assert` or `threshold`: promptfoo drops it, and the test passes unchecked.

    promptfoo drops keys it does not know without a word. A test's `asserts:` or `assertion:`
    loses every assertion (the test passes whatever the output); a `treshold:` loses the score
    the test must reach. A variable named `assert` (an assertion list written under `vars`)
    is sent to the prompt as text instead of being checked.

    Bad (promptfooconfig.yaml):
        prompts: ["Summarise: {{text}}"]
        providers: [openai:gpt-4.1-mini]
        tests:
          - vars: {text: The refund window is 30 days.}
            asserts:
              - type: contains
                value: "30 days"
    Good (promptfooconfig.yaml):
        prompts: ["Summarise: {{text}}"]
        providers: [openai:gpt-4.1-mini]
        tests:
          - vars: {text: The refund window is 30 days.}
            assert:
              - type: contains
                value: "30 days"
    """
    found = [(None, *u) for u in _unknown(doc, ctx)] + list(_file_unknown(doc, ctx))
    for path, pointer, key, hint, drops in found:
        if drops:
            free = frozenset([hint]) if hint else frozenset()
            lost = _LOST["assert" if hint == "assert" else "threshold"]
            yield Finding(
                (*pointer, key),
                f"unknown key {key!r}: promptfoo drops it, {lost}; did you mean {hint!r}?",
                on_key=True,
                fix=_renamed(pointer, key, hint, free),
                path=path,
            )
    for at, test in _tests(doc.data):
        held = test.get("vars")
        if isinstance(held, dict) and isinstance(held.get("assert"), list) and "assert" not in test:
            yield Finding(
                (*at, "vars", "assert"),
                "'assert' is written under 'vars': promptfoo sends it to the prompt as a "
                "variable and checks nothing; move it up beside 'vars'",
                on_key=True,
            )


@rule(
    "promptfoo-unknown-key",
    Severity.WARNING,
    kinds=KINDS,
    fixable=True,
    precision="high",
    reads_files=True,
)
def promptfoo_unknown_key(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A key promptfoo does not read: it is dropped when the config loads.

    promptfoo keeps the keys it knows of a config, a test and an assertion, and drops any other
    without a word, so what it held never counts. A misspelling is offered its fix.
    (A dropped `assert` or `threshold` is `promptfoo-dropped-key`, an error.)

    Bad (promptfooconfig.yaml):
        descripton: Refund answers
        prompts: ["Summarise: {{text}}"]
        providers: [openai:gpt-4.1-mini]
    Good (promptfooconfig.yaml):
        description: Refund answers
        prompts: ["Summarise: {{text}}"]
        providers: [openai:gpt-4.1-mini]
    """
    found = [(None, *u) for u in _unknown(doc, ctx)] + list(_file_unknown(doc, ctx))
    for path, pointer, key, hint, drops in found:
        if drops:
            continue
        tail = f"; did you mean {hint!r}?" if hint else ""
        free = frozenset([hint]) if hint else frozenset()
        yield Finding(
            (*pointer, key),
            f"unknown key {key!r}: promptfoo drops it{tail}",
            on_key=True,
            fix=_renamed(pointer, key, hint, free),
            path=path,
        )


# Assertion types whose score promptfoo fixes on 0..1 (similarity and classifier scores,
# overlap metrics); other types' thresholds are on their own scales (milliseconds, dollars, a
# distance, a grader's raw score).
UNIT_SCALE = frozenset(
    {
        "similar",
        "similar:cosine",
        "classifier",
        "answer-relevance",
        "context-faithfulness",
        "context-recall",
        "context-relevance",
        "conversation-relevance",
        "rouge-n",
        "bleu",
        "gleu",
        "meteor",
        "perplexity-score",
    }
)


@rule("promptfoo-threshold-scale", Severity.ERROR, kinds=KINDS, precision="high", reads_files=True)
def promptfoo_threshold_scale(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A threshold outside its assertion's 0..1 scale: the assertion always passes or never does.

    Similarity, classifier, context and overlap scores run from 0 to 1, so a threshold of 8
    (written for a 0..10 scale) can never be reached. Only these types are checked: `latency`
    is in milliseconds, `cost` in dollars, `levenshtein` a distance, and `llm-rubric` compares
    the grader's raw score, so `threshold: 8` is valid there.

    Bad (promptfooconfig.yaml):
        prompts: ["Summarise: {{text}}"]
        providers: [openai:gpt-4.1-mini]
        tests:
          - vars: {text: The refund window is 30 days.}
            assert:
              - type: similar
                value: Refunds are possible for 30 days.
                threshold: 8
    Good (promptfooconfig.yaml):
        prompts: ["Summarise: {{text}}"]
        providers: [openai:gpt-4.1-mini]
        tests:
          - vars: {text: The refund window is 30 days.}
            assert:
              - type: similar
                value: Refunds are possible for 30 days.
                threshold: 0.8
    """
    for path, at, check in _everywhere(doc, ctx):
        kind, limit = check.get("type"), check.get("threshold")
        if not isinstance(kind, str) or kind.removeprefix("not-") not in UNIT_SCALE:
            continue
        if isinstance(limit, int | float) and not isinstance(limit, bool) and not 0 <= limit <= 1:
            yield Finding(
                (*at, "threshold"),
                f"{kind.removeprefix('not-')} scores from 0 to 1; a threshold of {limit} "
                "decides nothing (the assertion always passes, or never does)",
                path=path,
            )


@rule("promptfoo-function", Severity.ERROR, kinds=KINDS, reads_files=True)
def promptfoo_function(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A `file://script.py:function` whose script has no such function.

    promptfoo calls the named function of a Python or JavaScript script (an assertion, a test
    generator, a scoring function, a transform) at eval time; a missing one fails there, after
    the providers were paid. The script is parsed (Python) or searched (JavaScript), never run.

    Bad (promptfooconfig.yaml):
        prompts: ["Summarise: {{text}}"]
        providers: [openai:gpt-4.1-mini]
        tests:
          - vars: {text: The refund window is 30 days.}
            assert:
              - type: python
                value: file://checks.py:grade_sumary
    Given (checks.py):
        def grade_summary(output, context):
            return "30 days" in output
    Good (promptfooconfig.yaml):
        prompts: ["Summarise: {{text}}"]
        providers: [openai:gpt-4.1-mini]
        tests:
          - vars: {text: The refund window is 30 days.}
            assert:
              - type: python
                value: file://checks.py:grade_summary
    """
    from evallint.kinds.base import candidates

    for ref in refs_of(doc):
        if ref.function is None or ref.glob:
            continue
        for place in candidates(doc.path, ref, ctx.root_name)[:1]:
            error = function_error(place, ref.function, ctx)
            if error is not None:
                yield Finding(ref.pointer, f"{ref.path}:{ref.function}: {error}")
