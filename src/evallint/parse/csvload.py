"""CSV test files, read as promptfoo reads them (csv-parse with `columns: true`), with the
place of every cell.

promptfoo's reader differs from Python's `csv` where it matters to a linter: the first line
break it meets outside quotes (`\\r\\n`, `\\n` or `\\r`) is the only one that ends a record;
a quote inside an unquoted field, or after a closing quote, is kept as text (its lenient
retry); a record with another number of fields than the header, an empty line included, or a
quote never closed, fails the whole file. Read in one pass: a line without quotes is split at
C speed, any other read field by field, each field found by a search.
"""

from __future__ import annotations

import functools
import itertools
import re

from evallint.model import JSON
from evallint.parse.positions import LineIndex, Loaded, Problem, SourceMap
from evallint.records import field, record

# (text, start, end): a field's value and its offsets in the file (quotes included).
Field = tuple[str, int, int]
_BREAKS = ("\r\n", "\n", "\r")


@record
class Table:
    """A CSV file as records of values, the record delimiter, and each record's offset (None
    for a text without quotes: worked out when a field's place is first asked); `error` is
    what stopped the reader, if anything: (start, end, message), with the records before it."""

    text: str
    records: list[list[str]]
    starts: tuple[int, ...] | None
    breaker: str
    error: tuple[int, int, str] | None
    _reader: _Reader | None = field(default=None, init=False, compare=False)

    def fields(self, i: int) -> tuple[Field, ...]:
        """Record `i`'s fields with their offsets (quotes included)."""
        starts = self.starts
        if starts is None:  # each line of a text without quotes is its record, joined again
            lines = map(len, map(",".join, self.records))
            starts = tuple(
                itertools.accumulate(lines, lambda a, n: a + n + len(self.breaker), initial=0)
            )
            object.__setattr__(self, "starts", starts)
        reader = self._reader
        if reader is None:  # one for every field asked of the file
            reader = _Reader(self.text, self.breaker)
            object.__setattr__(self, "_reader", reader)
        reader.pos = starts[i]
        found = _record(reader)
        return found if isinstance(found, tuple) else ()


class _Reader:
    __slots__ = ("breaker", "pos", "stop", "text")

    def __init__(self, text: str, breaker: str = "") -> None:
        self.text, self.pos, self.breaker = text, 0, breaker
        # Until the record delimiter is known, any line break may end a field.
        self.stop = re.compile("," + "|" + re.escape(breaker) if breaker else r"[,\r\n]")

    def ends(self, at: int) -> int:
        """The record delimiter's length at `at` (0 if none), learnt from the first line break
        met outside quotes."""
        text = self.text
        if self.breaker:
            return len(self.breaker) if text.startswith(self.breaker, at) else 0
        for brk in _BREAKS:
            if text.startswith(brk, at):
                self.breaker = brk
                self.stop = re.compile("," + "|" + re.escape(brk))
                return len(brk)
        return 0

    def quoted(self, start: int) -> tuple[str, int, bool] | None:
        """A field opening with a quote: (value, where it ends, whether it goes on unquoted
        after a quote followed by text); None when the quote is never closed."""
        text, parts, p = self.text, [], start + 1
        while (q := text.find('"', p)) >= 0:
            if text.startswith('""', q):  # an escaped quote
                parts.append(text[p : q + 1])
                p = q + 2
                continue
            parts.append(text[p:q])
            after = q + 1
            if after == len(text) or text[after] == "," or self.ends(after):
                return "".join(parts), after, False
            return '"' + "".join(parts) + '"', after, True
        return None

    def unquoted(self, start: int) -> tuple[str, int]:
        found = self.stop.search(self.text, start)
        end = found.start() if found else len(self.text)
        return self.text[start:end], end

    def field(self) -> Field | None:
        start = self.pos
        if self.text.startswith('"', start):
            got = self.quoted(start)
            if got is None:
                return None
            value, after, goes_on = got
            if goes_on:
                rest, after = self.unquoted(after)
                value += rest
        else:
            value, after = self.unquoted(start)
        self.pos = after
        return value, start, after


def _record(reader: _Reader) -> tuple[Field, ...] | str:
    """The fields of the record at the reader's place, field by field; or why it fails."""
    text, fields = reader.text, []
    while True:
        got = reader.field()
        if got is None:
            return "a quote is never closed: promptfoo cannot read the file"
        fields.append(got)
        at = reader.pos
        if at < len(text) and text[at] == ",":
            reader.pos = at + 1
            if reader.pos < len(text):
                continue
            fields.append(("", reader.pos, reader.pos))  # a delimiter ends the file
        else:
            reader.pos = at + reader.ends(at)
        return tuple(fields)


def _next(reader: _Reader) -> list[str] | str:
    """The values of the next record: a line with no quote is split at C speed (most lines of
    most files), any other read field by field."""
    text, brk, start = reader.text, reader.breaker, reader.pos
    end = text.find(brk, start) if brk else -1
    if brk:  # `end` is found only when the record delimiter is known
        line = text[start : end if end >= 0 else len(text)]
        if '"' not in line:
            reader.pos = end + len(brk) if end >= 0 else len(text)
            return line.split(",")
    found = _record(reader)
    return found if isinstance(found, str) else [f[0] for f in found]


# The file's parse and the rules' look at its fields share one scan.
@functools.lru_cache(maxsize=2)
def scan(text: str) -> Table:
    """The records of a CSV text, stopping where promptfoo's reader stops."""
    brk = _first_break(text)
    if brk is not None and '"' not in text:
        return _plain(text, brk)
    reader = _Reader(text, brk or "")
    records: list[list[str]] = []
    starts: list[int] = []
    while reader.pos < len(text):
        start = reader.pos
        got = _next(reader)
        if isinstance(got, str):
            error = (reader.pos, reader.pos + 1, got)
            return Table(text, records, tuple(starts), reader.breaker, error)
        if records and len(got) != len(records[0]):
            end, brk = reader.pos, reader.breaker
            end -= len(brk) if brk and end > start and text.endswith(brk, 0, end) else 0
            error = (start, end, _width(len(got), len(records[0])))
            return Table(text, records, tuple(starts), reader.breaker, error)
        records.append(got)
        starts.append(start)
    return Table(text, records, tuple(starts), reader.breaker, None)


def _first_break(text: str) -> str | None:
    """The record delimiter, when the text's first line break comes before any quote (so it is
    outside quotes); "" when it has none, None when a quote comes first."""
    found = re.search("[\r\n]", text)
    if found is None:
        return None if '"' in text else ""
    at = found.start()
    if '"' in text[:at]:
        return None
    return "\r\n" if text.startswith("\r\n", at) else text[at]


def _plain(text: str, brk: str) -> Table:
    """A text without quotes: every line break of its kind ends a record, every comma a field,
    split at C speed (most test files are such)."""
    lines = text.split(brk) if brk else [text]
    if lines[-1] == "":
        lines.pop()  # the break that ends the last record starts none
    records = [line.split(",") for line in lines]
    width = len(records[0]) if records else 0
    if len(set(map(len, records))) <= 1:
        return Table(text, records, None, brk, None)
    bad = next(i for i, r in enumerate(records) if len(r) != width)
    start = sum(map(len, lines[:bad])) + bad * len(brk)
    error = (start, start + len(lines[bad]), _width(len(records[bad]), width))
    return Table(text, records[:bad], None, brk, error)


def _width(got: int, header: int) -> str:
    said = f"this row has {_fields(got)} where the header has {header}"
    return f"{said}: promptfoo cannot read the file"


def _fields(n: int) -> str:
    return f"{n} field" if n == 1 else f"{n} fields"


def load_csv(text: str, *, record: bool = False) -> Loaded:
    """The records as lists of values, the header first (as csv-parse reads them, before it
    makes objects of the rows). Findings in a CSV file are placed by offsets (`Finding.within`
    the whole text), so its map holds only the text's span."""
    table = scan(text)
    rows: list[JSON] = list(table.records)
    if table.error is None and not record:
        return Loaded(rows, True, (), None)
    lines = LineIndex(text, yaml=True)  # only for a problem's place, or a finding's
    problems: tuple[Problem, ...] = ()
    if table.error is not None:
        start, end, message = table.error
        problems = (Problem(lines.span(start, max(end, start + 1)), message),)
    smap = SourceMap(lines) if record else None
    if smap is not None:
        smap.values[()] = lines.span(0, len(text))
    return Loaded(rows, table.error is None, problems, smap)
