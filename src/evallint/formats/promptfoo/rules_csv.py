"""promptfoo's CSV test files: each row a test, each `__expected` cell an assertion, checked
in the CSV file itself at the cell.

A column is a variable unless it is one promptfoo reads itself (`__expected`, `__prefix`, ...);
a cell of an `__expected` column starts with its assertion type. promptfoo takes what it does
not recognise as something else without a word: a misspelt column is a variable, a misspelt
type makes the cell an `equals` check on its whole text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.promptfoo import kinds as promptfoo
from evallint.formats.promptfoo.rules_files import named_tests
from evallint.model import Finding, Severity
from evallint.parse.csvload import Table
from evallint.rules.api import csv_table
from evallint.rules.base import rule
from evallint.suggest import suggest

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context

KINDS = promptfoo.KINDS

# What a CSV `__expected` cell may start with besides an assertion type (promptfoo's
# `assertionFromString`); anything else is compared with the output as a whole.
_CELL_PREFIXES = ("javascript:", "fn:", "eval:", "grade:", "llm-rubric:", "python:", "file://")
# Columns promptfoo reads itself; a near miss is read as a variable instead.
_COLUMNS = (
    "__expected",
    "__prefix",
    "__suffix",
    "__description",
    "__providerOutput",
    "__metric",
    "__threshold",
    "__metadata",
    "__config",
)


_PLAIN = frozenset(promptfoo.ASSERTION_TYPES)
_TYPE_LIKE = re.compile(r"[^\W\d_](?:[^\W_]|-)*")  # a letter, then letters, digits or dashes
_WITH_COLON = tuple(t for t in promptfoo.ASSERTION_TYPES if ":" in t)  # `similar:cosine`


def _cell_type(cell: str) -> str | None:
    """The assertion type a cell's prefix names, when it looks like one and is none promptfoo
    knows (`contians:30 days`); None when the cell is a known form or plain text."""
    if cell.startswith(_CELL_PREFIXES):
        return None
    head = cell.split(":", 1)[0] if ":" in cell else ""
    word = head.removeprefix("not-").split("(", 1)[0]
    if not _TYPE_LIKE.fullmatch(word):
        return None
    rest = cell[len(head) + 1 :]
    if word in _PLAIN or f"{word}:{rest}".startswith(_WITH_COLON):
        return None
    return word


# Distinct unknown prefixes one file's cells are compared with the assertion types for: a real
# file misspells a handful; a hostile one of 400,000 distinct words took minutes of difflib.
MAX_WORDS = 2000


def _hinted(hints: dict[str, str | None], word: str) -> str | None:
    """The type a misspelt one most likely means, worked out once a word in the file."""
    if word not in hints:
        hints[word] = suggest(word, promptfoo.ASSERTION_TYPES)
    return hints[word]


def _csv_findings(table: Table) -> list[tuple[str, int, int]]:
    """(message, start, end) for each misspelt special column and each `__expected` cell whose
    prefix is no assertion type; past MAX_WORDS distinct prefixes, one finding says how many
    more were not compared."""
    hints: dict[str, str | None] = {}
    out = list(_cells(table, hints))
    skipped = len(hints) - MAX_WORDS
    if skipped > 0 and table.records:
        _, start, end = table.fields(0)[0]
        out.append(
            (
                f"{skipped:,} more distinct cell prefixes were not compared with promptfoo's "
                f"assertion types (at most {MAX_WORDS:,} a file)",
                start,
                end,
            )
        )
    return out


def _cells(table: Table, hints: dict[str, str | None]) -> Iterator[tuple[str, int, int]]:
    header = table.fields(0) if table.records else ()
    for name, start, end in header:
        key = name.strip()
        if key.startswith("_") and not key.startswith(_COLUMNS):
            hint = suggest(key.split(":", 1)[0], _COLUMNS)
            if hint:
                yield f"column {key!r} is read as a variable; did you mean {hint!r}?", start, end
    expected = [i for i, f in enumerate(header) if f[0].strip().startswith("__expected")]
    for row, values in enumerate(table.records[1:], start=1):
        for i in expected:
            word = _cell_type(values[i].strip())
            if not word:
                continue
            if len(hints) >= MAX_WORDS and word not in hints:
                hints[word] = None  # counted, not compared
                continue
            hint = _hinted(hints, word)
            if word and hint:
                _, start, end = table.fields(row)[i]
                yield (
                    f"{header[i][0].strip()}: {word!r} is no assertion type, so promptfoo checks "
                    f"that the output equals the whole cell; did you mean {hint!r}?",
                    start,
                    end,
                )


@rule(
    "promptfoo-csv-test",
    Severity.WARNING,
    kinds=KINDS,
    reads_files=True,
    precision="high",
)
def promptfoo_csv_test(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A CSV test file whose `__expected` cell or special column promptfoo reads otherwise.

    A cell starts with its assertion type (`contains:30 days`, `not-icontains:refund`,
    `similar(0.8):...`); a cell whose prefix is no type promptfoo knows (`contians:30 days`)
    becomes an `equals` check on the whole cell, which fails whatever the model says. A column
    that misspells a special one (`__expeced`, `_description`) is read as a variable. Reported
    in the CSV file, at the cell or the column's name.

    Bad (promptfooconfig.yaml):
        prompts: ["Answer: {{question}}"]
        providers: [openai:gpt-4.1-mini]
        tests: file://tests.csv
    Given (tests.csv):
        question,__expected
        How long do refunds take?,contians:30 days
    Good (promptfooconfig.yaml):
        prompts: ["Answer: {{question}}"]
        providers: [openai:gpt-4.1-mini]
        tests: file://tests_fixed.csv
    Given (tests_fixed.csv):
        question,__expected
        How long do refunds take?,contains:30 days
    """
    for _, found in named_tests(doc, ctx):
        if found.fmt == "csv" and found.ok:
            for message, start, end in _once(found, ctx):
                yield Finding((), message, within=(start, end), path=found.path)


def _once(found: Document, ctx: Context) -> list[tuple[str, int, int]]:
    """A CSV file's findings, worked out once a run however many configs name the file."""
    memo = ctx.others.memo if ctx.others is not None else {}
    key = ("promptfoo-csv", found.path)
    known = memo.get(key)
    if not isinstance(known, list):
        known = memo[key] = _csv_findings(csv_table(found))
    return known
