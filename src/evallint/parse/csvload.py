"""CSV test files, read as promptfoo reads them (csv-parse with `columns: true`), with the
place of every cell.

promptfoo's reader differs from Python's `csv` where it matters to a linter: the first line
break it meets outside quotes (`\\r\\n`, `\\n` or `\\r`) is the only one that ends a record;
a quote inside an unquoted field, or after a closing quote, is kept as text (its lenient
retry); a record with another number of fields than the header, an empty line included, or a
quote never closed, fails the whole file. Read in one pass, each field found by a search.
"""

from __future__ import annotations

import re

from evallint.model import JSON
from evallint.parse.positions import LineIndex, Loaded, Problem, SourceMap
from evallint.records import record

# (text, start, end): a field's value and its offsets in the file (quotes included).
Field = tuple[str, int, int]
_BREAKS = ("\r\n", "\n", "\r")


@record
class Table:
    """A CSV file as records of fields; `error` is what stopped the reader, if anything:
    (start, end, message), and the records before it."""

    records: tuple[tuple[Field, ...], ...]
    error: tuple[int, int, str] | None


class _Reader:
    __slots__ = ("breaker", "pos", "stop", "text")

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.breaker = text, 0, ""
        self.stop = re.compile(r"[,\r\n]")  # until the record delimiter is known

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


def scan(text: str) -> Table:
    """The records of a CSV text, stopping where promptfoo's reader stops."""
    reader, records = _Reader(text), list[tuple[Field, ...]]()
    fields: list[Field] = []
    while reader.pos < len(text) or fields:
        got = reader.field()
        if got is None:
            said = "a quote is never closed: promptfoo cannot read the file"
            return Table(tuple(records), (reader.pos, reader.pos + 1, said))
        fields.append(got)
        at = reader.pos
        if at < len(text) and text[at] == ",":
            reader.pos = at + 1
            if reader.pos < len(text):
                continue
            fields.append(("", reader.pos, reader.pos))  # a delimiter ends the file
        else:
            reader.pos = at + reader.ends(at)
        if records and len(fields) != len(records[0]):
            said = f"this row has {_fields(len(fields))}, the header {_fields(len(records[0]))}: "
            error = (fields[0][1], fields[-1][2], said + "promptfoo cannot read the file")
            return Table(tuple(records), error)
        records.append(tuple(fields))
        fields = []
    return Table(tuple(records), None)


def _fields(n: int) -> str:
    return f"{n} field" if n == 1 else f"{n} fields"


def load_csv(text: str, *, record: bool = False) -> Loaded:
    """The rows as objects keyed by the header's names, as csv-parse gives them. Findings in
    a CSV file are placed by offsets (`Finding.within` the whole text), so its map holds
    only the text's span."""
    table = scan(text)
    names = [f[0] for f in table.records[0]] if table.records else []
    rows: list[JSON] = [
        {name: f[0] for name, f in zip(names, fields, strict=False)} for fields in table.records[1:]
    ]
    lines = LineIndex(text, yaml=True)
    problems: tuple[Problem, ...] = ()
    if table.error is not None:
        start, end, message = table.error
        problems = (Problem(lines.span(start, max(end, start + 1)), message),)
    smap = SourceMap(lines) if record else None
    if smap is not None:
        smap.values[()] = lines.span(0, len(text))
    return Loaded(rows, table.error is None, problems, smap)
