"""Findings one slip causes, told as one: in a change, a misspelt key is also a changed field,
so the version rule asks for a bump the typo's fix may undo. The version finding says so, and
`--fix` fixes the typo first and judges the version again (`cli/checking.py`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from evallint.model import Diagnostic
from evallint.records import replace

TYPO = "key-typo"
_TYPO = re.compile(r"unknown key '(?P<key>[^']*)'; did you mean '(?P<meant>[^']*)'\?")
# The first field a version finding names: `questions[refund_window].inptu changed`.
_CHANGED = re.compile(r"^(?:\S*\.)?(?P<key>[^.\s\[\]]+) changed")


def fold(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    """The findings, with each version finding whose first changed field is a misspelt key of
    its file saying that the change is the typo."""
    typos = {
        (d.path, m["key"]) for d in diagnostics if d.rule == TYPO and (m := _TYPO.match(d.message))
    }
    if not typos:
        return list(diagnostics)
    out = []
    for d in diagnostics:
        changed = _CHANGED.match(d.message) if d.rule.endswith("version-not-bumped") else None
        if changed and (d.path, changed["key"]) in typos:
            key = changed["key"]
            d = replace(
                d,
                message=f"{d.message} (the change is the misspelt key {key!r}: fix it first, "
                "and the bump may not be needed)",
            )
        out.append(d)
    return out
