"""Patterns compile: the regular expressions eval files hold (`Kind.patterns`), compiled as
their runner's engine reads them and never run."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.kinds import PATTERNED
from evallint.kinds.base import Pattern
from evallint.model import Finding, Pointer, Severity
from evallint.rules.api import compile_error
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context

_FLAGS = {
    "i": re.IGNORECASE,
    "m": re.MULTILINE,
    "s": re.DOTALL,
    "x": re.VERBOSE,
    "u": 0,
}  # PCRE's u (UTF-8) is Python's default for str patterns


# JavaScript's RegExp (AgentV) spells named groups (?<n>...) and \\k<n>; Python (?P<n>...).
_JS_TO_PY = ((re.compile(r"\(\?<(?=[A-Za-z_])"), "(?P<"), (re.compile(r"\\k<(\w+)>"), r"(?P=\1)"))
_PY_ONLY = (  # (construct, what JavaScript makes of it, what to write instead)
    ("(?P<", "", "(?<name>…)"),
    ("(?P=", "", "\\k<name>"),
    ("(?#", "", "no comments"),
    # Not errors in JavaScript: an escaped letter is the letter (an error with the u flag).
    ("\\A", "the letter 'A', not the start of the text", "^"),
    ("\\Z", "the letter 'Z', not the end of the text", "$"),
)


def _js_problem(doc: Document, pointer: Pointer, pattern: str) -> Finding | None:
    for construct, reading, instead in _PY_ONLY:
        if construct in pattern:
            said = (
                f"reads {construct!r} as {reading}" if reading else f"does not accept {construct!r}"
            )
            return Finding(
                pointer, f"JavaScript's RegExp, which AgentV uses, {said}; write {instead}"
            )
    translated = pattern
    for rx, repl in _JS_TO_PY:
        translated = rx.sub(repl, translated)
    exc = compile_error(translated)
    if exc is not None:
        return _at_pattern(doc, pointer, pattern if translated == pattern else translated, exc)
    return None


@rule("invalid-regex", Severity.ERROR, kinds=PATTERNED)
def invalid_regex(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A regex check's pattern does not compile.

    Compiled with Python's `re` (never run). ai_eval is PHP, so its regex executor (none ships
    in 1.0.0-beta3) would use PCRE, which also accepts a few constructs Python rejects (`\\K`,
    `(?|`, recursion); the message quotes the compiler so such a case is easy to judge. AgentV
    runs patterns with JavaScript's RegExp: Python-only spellings such as `(?P<name>...)` are
    reported with the JavaScript one. Reported at the column of the error inside the pattern
    when the pattern is written without escapes.

    Bad (rubrics/format.yaml):
        id: format
        version: "1.0.0"
        checks: [{kind: regex, id: version, pattern: 'v(\\d+'}]
        scoring: {combine: all_pass}
    Good (rubrics/format.yaml):
        id: format
        version: "1.0.0"
        checks: [{kind: regex, id: version, pattern: 'v(\\d+)'}]
        scoring: {combine: all_pass}
    """
    for found in ctx.kind.patterns(doc.data) if ctx.kind.patterns else ():
        if found.engine == "javascript":
            problem = _js_problem(doc, found.at, found.text)
            if problem is not None:
                yield problem
        else:
            yield from _pcre_problems(doc, found)


def _pcre_problems(doc: Document, found: Pattern) -> Iterator[Finding]:
    bits = 0
    for letter in found.flags if isinstance(found.flags, str) else "":
        if letter not in _FLAGS:
            yield Finding(
                found.flags_at,
                f"unknown regex flag {letter!r}; expected some of {', '.join(sorted(_FLAGS))}",
            )
        bits |= _FLAGS.get(letter, 0)
    exc = compile_error(found.text, bits)
    if exc is not None:
        yield _at_pattern(doc, found.at, found.text, exc)


def _at_pattern(doc: Document, pointer: Pointer, pattern: str, exc: re.error) -> Finding:
    message = f"pattern does not compile: {exc.msg}"
    if exc.pos is not None:
        message += f" at position {exc.pos}"
    raw = doc.raw(pointer) or ""
    where = raw.find(pattern)
    if where < 0 or exc.pos is None:
        return Finding(pointer, message)
    start = where + exc.pos
    return Finding(pointer, message, within=(start, min(start + 1, where + len(pattern))))
