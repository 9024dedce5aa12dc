"""Where each value and key of a parsed document sits in its text."""

from __future__ import annotations

import bisect
import re
from collections.abc import MutableMapping

from evallint.model import JSON, Pointer, Span
from evallint.records import field, record

# Every line break libyaml counts; JSON counts only LF.
YAML_BREAKS = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_BREAK_CHARS = "\r\n\x85\u2028\u2029"


class LineIndex:
    """Turns character offsets into 1-based (line, column); columns count code points.

    `yaml`: lines end where YAML's do (a lone CR, NEL, LS and PS too), so positions agree with
    the parser's marks."""

    def __init__(self, text: str, *, yaml: bool = False) -> None:
        self.text = text
        if yaml and any(c in text for c in _BREAK_CHARS[:1] + _BREAK_CHARS[2:]):
            self.starts = [0, *(m.end() for m in YAML_BREAKS.finditer(text))]
            return
        starts = [0]
        find = text.find
        i = find("\n")
        while i != -1:
            starts.append(i + 1)
            i = find("\n", i + 1)
        self.starts = starts

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def offset(self, line: int, column: int) -> int:
        return self.starts[line - 1] + column - 1

    def span(self, start: int, end: int) -> Span:
        line, col = self.position(start)
        end_line, end_col = self.position(end)
        return Span(line, col, end_line, end_col)

    def line_end(self, line: int) -> int:
        """Column just past the last character of a 1-based line (its line break excluded)."""
        if not 1 <= line <= len(self.starts):
            return 1
        start = self.starts[line - 1]
        stop = self.starts[line] if line < len(self.starts) else len(self.text)
        while stop > start and self.text[stop - 1] in _BREAK_CHARS:
            stop -= 1
        return stop - start + 1


@record(frozen=False)
class SourceMap:
    """Spans by pointer, for values and for the keys that lead to them."""

    lines: LineIndex
    # Mappings, not dicts: JSON fills them lazily, finding only the spans a finding asks for.
    values: MutableMapping[Pointer, Span] = field(default_factory=dict)
    keys: MutableMapping[Pointer, Span] = field(default_factory=dict)
    # Raw text of unquoted YAML scalars that YAML typed as something other than a string.
    plain: dict[Pointer, str] = field(default_factory=dict)

    def locate(self, pointer: Pointer, *, on_key: bool = False) -> Span:
        """Exact span, else the nearest ancestor's; a multi-line value is cut to its first line."""
        if on_key and pointer in self.keys:
            return self.keys[pointer]
        for n in range(len(pointer), -1, -1):
            span = self.values.get(pointer[:n])
            if span is not None:
                return self.first_line(span)
        return Span(1, 1, 1, 1)

    def first_line(self, span: Span) -> Span:
        if span.end_line == span.line:
            return span
        return Span(span.line, span.column, span.line, self.lines.line_end(span.line))


# The rule of a problem that is a custom tag (`yaml-tag:!function`): the reader decides, by the
# file's kind, whether its runner knows the tag (see `Kind.tags`).
TAG_RULE = "yaml-tag:"
# The rule of a flow value's line indented no further than its block: libyaml reads it, the YAML
# spec does not. The reader makes it a parse-error but for kinds whose runner reads with libyaml.
FLOW_INDENT = "flow-indent"


@record
class Problem:
    """Something wrong with a file's text itself, found while reading it."""

    span: Span
    message: str
    rule: str = "parse-error"
    # Harmless to every runner of the format (a JSON key repeated with the same value): at most
    # a warning, unless the settings give the rule a level.
    mild: bool = False


@record
class Loaded:
    """What a loader makes of a text: the data, whether it could be read at all, its problems,
    and (when asked for) where each value sits."""

    data: JSON
    ok: bool
    problems: tuple[Problem, ...]
    smap: SourceMap | None
