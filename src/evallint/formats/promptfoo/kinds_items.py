"""A promptfoo config's tests as the hygiene rules see them: a test's input is its `vars` (the
one value where there is one, else every var), and what it expects is the value of its text
assertions: `equals` compares the output whole, the `contains` family looks for the text in it.
A value with a `{{template}}` is rendered per test, so it is not a text to compare."""

from __future__ import annotations

import json
from collections.abc import Iterator

from evallint.kinds.base import Item
from evallint.model import JSON, Pointer

# Assertions whose value is a text the output must hold (a list of texts for the `-all`/`-any`
# forms): found in the test's own vars, an echo of the input passes them.
_HOLDS = frozenset({"contains", "icontains", "contains-all", "icontains-all", "starts-with"})


def _input(vars_: JSON) -> str | None:
    """The test's input as one text: its one var's text, or every var as canonical JSON."""
    if not isinstance(vars_, dict) or not vars_:
        return None
    if len(vars_) == 1:
        (only,) = vars_.values()
        if isinstance(only, str):
            return only
    return json.dumps(vars_, sort_keys=True, ensure_ascii=False, default=str)


def _texts(value: JSON, at: Pointer) -> Iterator[tuple[Pointer, str]]:
    listed = [(at, value)] if isinstance(value, str) else []
    if isinstance(value, list):
        listed = [((*at, j), v) for j, v in enumerate(value)]
    for where, text in listed:
        if isinstance(text, str) and "{{" not in text and not text.startswith("file://"):
            yield where, text


def _expected(test: dict[str, JSON], at: Pointer) -> tuple[list[tuple[Pointer, str]], bool]:
    """(each expected text and where, whether they are compared whole). A test with `equals`
    expects its values (two tests of one input that expect other values: one is scored wrong);
    else the texts its `contains` family looks for."""
    equals: list[tuple[Pointer, str]] = []
    holds: list[tuple[Pointer, str]] = []
    checks = test.get("assert")
    for j, check in enumerate(checks if isinstance(checks, list) else ()):
        kind = check.get("type") if isinstance(check, dict) else None
        if not isinstance(check, dict) or not isinstance(kind, str):
            continue
        where = (*at, "assert", j, "value")
        if kind == "equals" and isinstance(check.get("value"), str):
            equals += [(w, t) for w, t in _texts(check["value"], where) if t]  # "": no output
        elif kind in _HOLDS:
            holds += list(_texts(check.get("value"), where))
    return (equals, True) if equals else (holds, False)


def tests(data: JSON) -> Iterator[Item]:
    """Each inline test of the config with vars."""
    listed = data.get("tests") if isinstance(data, dict) else None
    for i, test in enumerate(listed if isinstance(listed, list) else ()):
        text = _input(test.get("vars")) if isinstance(test, dict) else None
        if text is None or not isinstance(test, dict):
            continue
        at = ("tests", i)
        expected, exact = _expected(test, at)
        ident = test.get("description")
        yield Item(
            at=at,
            input=text,
            input_at=(*at, "vars"),
            ident=ident if isinstance(ident, str) else None,
            expected=tuple(t for _, t in expected) or None,
            expected_at=tuple(w for w, _ in expected),
            exact=exact,
            whole=test,
            own=("vars", "description"),
        )
