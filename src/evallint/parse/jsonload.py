"""Strict JSON and JSONL, with a stdlib-only position walker run only when positions are needed.

JSON is parsed by the standard library, not by YAML: PyYAML's pure loader rejects tab-indented
JSON, YAML accepts things JSON forbids, and JSON must be strict here (duplicate keys, `NaN`,
trailing commas are errors).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, MutableMapping
from functools import cache
from typing import Any

from evallint.model import JSON, Pointer, Span
from evallint.parse.limits import ZERO_BYTES, beyond_limits
from evallint.parse.positions import LineIndex, Loaded, Problem, SourceMap

# The C string scanner json.loads itself uses; typeshed does not list it.
scanstring: Any = json.decoder.scanstring  # type: ignore[attr-defined]
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_LITERALS = ("true", "false", "null", "NaN", "Infinity", "-Infinity")
_WS = " \t\n\r"


class _Flags:
    __slots__ = ("suspect",)

    def __init__(self) -> None:
        self.suspect = False


def _strict_decoder(flags: _Flags) -> json.JSONDecoder:
    """A decoder that notes duplicate keys and NaN/Infinity in `flags` (one per file: building
    it costs as much as decoding a short JSONL line)."""

    def pairs(items: list[tuple[str, JSON]]) -> dict[str, JSON]:
        d = dict(items)
        if len(d) != len(items):
            flags.suspect = True
        return d

    def constant(name: str) -> float:
        flags.suspect = True
        return float(name.replace("Infinity", "inf"))

    return json.JSONDecoder(object_pairs_hook=pairs, parse_constant=constant)


def _strict_loads(text: str, flags: _Flags) -> JSON:
    return _strict_decoder(flags).decode(text)


class _Miss:
    """The fast path could not vouch for the text: the strict parser decides."""


MISS = _Miss()
# orjson reads an integer past 64 bits as a float; only a run of 19 digits can hold one, and
# not a run that starts after a decimal point: a fraction's digits (EEE scores often have 19)
# are a float's in both parsers.
_WIDE_INT = b"0" * 19


@cache
def fast_parser() -> tuple[Callable[[bytes], Any], Callable[[Any], bytes]] | None:
    """orjson's loads and dumps when the `fast` extra is installed (imported on first use)."""
    try:
        import orjson
    except ImportError:
        return None
    return orjson.loads, orjson.dumps


def quick_loads(raw: bytes) -> JSON | _Miss:
    """What the strict parser would return for `raw`, at C speed, or MISS.

    orjson rejects NaN, Infinity, trailing commas and bad escapes as the strict path does, but
    keeps the last of repeated keys silently. The colons tell: each key of the text has one,
    and so does each of the parsed data once written out compactly, while a colon inside a
    string stays one colon both ways (unless escaped as \\u003a, which is left to the strict
    path). Repeated keys drop keys and values, so the data has fewer colons than the text
    exactly when a key repeats. Any doubt (wide integers, an exception) is a MISS."""
    return quick_lines([raw])[0]


def quick_lines(raws: list[bytes]) -> list[JSON | _Miss]:
    """`quick_loads` of each of `raws` (the lines of a JSONL file: one call, not one a line)."""
    fast = fast_parser()
    if fast is None:
        return [MISS] * len(raws)
    loads, dumps = fast
    out: list[JSON | _Miss] = []
    for raw in raws:
        found: JSON | _Miss = MISS
        if b"\\u003" not in raw and not _may_widen(raw):
            try:
                data = loads(raw)
                if dumps(data).count(b":") == raw.count(b":"):
                    found = data
            except (ValueError, TypeError, RecursionError):  # orjson's errors are ValueErrors
                pass
        out.append(found)
    return out


def _may_widen(raw: bytes) -> bool:
    """Whether `raw` holds a run of 19 digits that does not follow a decimal point. With every
    digit made "0", each run is found at C speed; a find lands on a run's start unless a digit
    precedes it (then it is the rest of a run already judged, skipped 19 digits at a time)."""
    zeros = raw.translate(ZERO_BYTES)
    at = zeros.find(_WIDE_INT)
    while at >= 0:
        if at == 0 or zeros[at - 1] not in b".0":
            return True
        at = zeros.find(_WIDE_INT, at + len(_WIDE_INT))
    return False


class _Budget:
    """Importing orjson (with the uuid and platform modules it pulls in) costs a one-file run
    2.6 ms, more than the fast path saves on a few small files: it is first asked once this
    process has read FAST_AFTER bytes of JSON. Either path gives the same data and findings
    (the strict one is the reference), so where the switch falls changes no result."""

    FAST_AFTER = 256 * 1024
    read = 0


def worth_fast(raw: bytes) -> bool:
    """Whether to ask the fast parser of `raw`, counting it against `_Budget`."""
    _Budget.read += len(raw)
    return _Budget.read >= _Budget.FAST_AFTER


def load_json(text: str, *, record: bool = False, raw: bytes | None = None) -> Loaded:
    """`raw`: the bytes `text` was decoded from, when known, for the fast path."""
    found = quick_loads(raw) if raw is not None and worth_fast(raw) else MISS
    if not isinstance(found, _Miss):
        beyond = beyond_limits(text, found, digits=False)
        if beyond is not None:
            return Loaded(None, False, (beyond,), None)
        return Loaded(found, True, (), seeking_map(text) if record else None)
    flags = _Flags()
    try:
        data = _strict_loads(text, flags)
    except json.JSONDecodeError as exc:
        pos = _decode_pos(exc)
        line = text.count("\n", 0, pos) + 1
        col = pos - text.rfind("\n", 0, pos)
        span = Span(line, col, line, col + 1)
        return Loaded(None, False, (Problem(span, _decode_message(exc)),), None)
    except (RecursionError, ValueError):  # nesting, or an integer past Python's own limit
        data = None
    beyond = beyond_limits(text, data)
    if beyond is not None:
        return Loaded(None, False, (beyond,), None)
    smap = None
    problems: tuple[Problem, ...] = ()
    if record and not flags.suspect:
        # Positions for findings: seek just the pointers asked for; duplicate keys (suspect)
        # need the full walk, which also reports them.
        smap = seeking_map(text)
    elif record or flags.suspect:
        walker = _Walker(text, LineIndex(text))
        walker.value(_skip(text, 0), ())
        smap, problems = walker.smap, tuple(walker.problems)
    return Loaded(data, True, problems, smap)


def load_jsonl(text: str, *, record: bool = False, raw: bytes | None = None) -> Loaded:
    """One record per line; data is the list of records, pointers start with the record index.
    `raw`: the bytes `text` was decoded from, when known, for the fast path."""
    records: list[JSON] = []
    problems: list[Problem] = []
    index = LineIndex(text)
    walker = _Walker(text, index)
    offset = 0
    flags = _Flags()
    decode = _strict_decoder(flags).decode
    lines = text.split("\n")
    quick = (
        quick_lines(raw.split(b"\n"))
        if raw is not None and worth_fast(raw)
        else [MISS] * len(lines)
    )
    for number, line in enumerate(lines, start=1):
        start, offset = offset, offset + len(line) + 1
        if not line.strip():
            continue
        found, strict = quick[number - 1], False
        if found is MISS:  # the fast path declined: the strict one decides and reports
            strict, flags.suspect = True, False
            try:
                found = decode(line)
            except json.JSONDecodeError as exc:
                col = _decode_pos(exc) + 1  # a line of its own: the offset is the column
                span = Span(number, col, number, col + 1)
                problems.append(Problem(span, _decode_message(exc)))
                continue
            except (RecursionError, ValueError):
                found = None
        beyond = beyond_limits(line, found, digits=strict)
        if beyond is not None:
            s = beyond.span
            problems.append(Problem(Span(number, s.column, number, s.end_column), beyond.message))
            continue
        records.append(found)
        if record or (strict and flags.suspect):
            walker.value(_skip(text, start), (len(records) - 1,))
    problems.extend(walker.problems)
    smap = walker.smap if record else None
    # A line that is not JSON is reported and left out; the other records are still checked
    # (one bad line in a million should not hide the rest, nor depend on where chunks fall).
    return Loaded(records, True, tuple(problems), smap)


def _decode_pos(exc: json.JSONDecodeError) -> int:
    """Where the text stops being JSON, the same on every Python: from 3.13 the stdlib stops at
    a trailing comma itself, before it at the bracket the comma stands before."""
    if exc.msg.startswith("Illegal trailing comma"):
        return _skip(exc.doc, exc.pos + 1)
    return exc.pos


def _decode_message(exc: json.JSONDecodeError) -> str:
    pos = _decode_pos(exc)
    before = exc.doc[:pos].rstrip(_WS)
    if exc.doc[pos : pos + 1] in ("}", "]") and before.endswith(","):
        return "invalid JSON: trailing comma"
    message = exc.msg.lower().removesuffix(" at")  # the stdlib appends the position to it
    if message == "invalid control character":
        char = exc.doc[exc.pos : exc.pos + 1]
        message += f" U+{ord(char):04X} inside a string (escape it)" if char else ""
    return f"invalid JSON: {message}"


def _skip(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i] in _WS:
        i += 1
    return i


def seeking_map(text: str) -> SourceMap:
    """A source map of valid, duplicate-free JSON that finds each span on first use."""
    seeker = _Seeker(text, LineIndex(text))
    return SourceMap(seeker.index, _Lazy(seeker, 0), _Lazy(seeker, 1))


class _Lazy(MutableMapping[Pointer, Span]):
    """Value spans (part 0) or key spans (part 1), sought on demand; iterates what was found."""

    def __init__(self, seeker: _Seeker, part: int) -> None:
        self.seeker, self.part = seeker, part
        self.found: dict[Pointer, Span] = {}

    def __getitem__(self, pointer: Pointer) -> Span:
        span = self.found.get(pointer)
        if span is None:
            offsets = self.seeker.seek(pointer)
            if offsets is None or offsets[self.part] is None:
                raise KeyError(pointer)
            start, end = offsets[self.part]  # type: ignore[misc]
            span = self.found[pointer] = self.seeker.index.span(start, end)
        return span

    def __setitem__(self, pointer: Pointer, span: Span) -> None:
        self.found[pointer] = span

    def __delitem__(self, pointer: Pointer) -> None:
        del self.found[pointer]

    def __iter__(self) -> Iterator[Pointer]:
        return iter(self.found)

    def __len__(self) -> int:
        return len(self.found)


Offsets = tuple[tuple[int, int], tuple[int, int] | None]  # value (start, end), key or None


class _Seeker:
    """Finds one pointer's offsets by descending the text, skipping every sibling value with the
    C scanner json.loads uses. A finding costs the bytes before it, not a walk of the file."""

    def __init__(self, text: str, index: LineIndex) -> None:
        self.text, self.index = text, index
        self.scan: Any = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
        # The root needs no scan: json.loads accepted the text, so only whitespace follows it.
        root = (_skip(text, 0), len(text.rstrip(_WS)))
        self.memo: dict[Pointer, Offsets | None] = {(): (root, None)}
        # container pointer -> (offset, count) where its scan goes on; None: scanned whole
        self.cursor: dict[Pointer, tuple[int, int] | None] = {}

    def _end(self, i: int) -> int:
        end: int = self.scan(self.text, i)[1]
        return end

    def seek(self, pointer: Pointer) -> Offsets | None:
        if pointer in self.memo:
            return self.memo[pointer]
        parent = self.seek(pointer[:-1])
        found = None if parent is None else self._child(pointer[:-1], parent[0][0], pointer[-1])
        self.memo[pointer] = found
        return found

    def _child(self, at: Pointer, i: int, part: str | int) -> Offsets | None:
        """The child `part` of the container at `at` (starting at offset `i`). Every sibling
        passed on the way is remembered, and the scan of a container resumes where the last
        one stopped: thousands of findings in one object cost one pass over it, not one each."""
        text = self.text
        opener = text[i]
        if opener not in "{[" or (opener == "{") != isinstance(part, str):
            return None
        resume = self.cursor.get(at, (_skip(text, i + 1), 0))
        if resume is None:
            return None  # scanned to its end already: `part` is not there
        i, count = resume
        while text[i] not in "]}":
            key = None
            if opener == "{":
                name, after = scanstring(text, i + 1)
                key = (i, after)
                i = _skip(text, _skip(text, after) + 1)  # past the colon
                child: str | int = name
            else:
                child = count
            end = self._end(i)
            found = ((i, end), key)
            self.memo.setdefault((*at, child), found)  # a repeated key: the first, as before
            count += 1
            i = _skip(text, end)
            if text[i] == ",":
                i = _skip(text, i + 1)
            if child == part:
                self.cursor[at] = (i, count)
                return found
        self.cursor[at] = None
        return None


def _duplicate(key: str, line: int, same: bool) -> str:
    """What a repeated key means to the runners: Python's json (and JavaScript's JSON.parse)
    keep the last value, so only a different value is lost; strict parsers reject both."""
    if same:
        return (
            f"duplicate key {key!r} (first on line {line}), with the same value: json loaders "
            "keep the last, so it reads the same, but strict JSON parsers reject the file"
        )
    return f"duplicate key {key!r} (first on line {line}): json loaders keep only this last value"


class _Walker:
    """Re-reads already validated JSON text to find spans, duplicate keys and NaN/Infinity."""

    def __init__(self, text: str, index: LineIndex) -> None:
        self.text = text
        self.index = index
        self.smap = SourceMap(index)
        self.problems: list[Problem] = []
        # Values of repeated keys, decoded once each: a large value repeated under many
        # duplicates must not be parsed again for every one of them.
        self._values: dict[int, object] = {}

    def _value(self, at: int) -> object:
        if at not in self._values:
            try:
                self._values[at] = json.JSONDecoder().raw_decode(self.text, at)[0]
            except ValueError:
                self._values[at] = object()  # equal to nothing: told as a different value
        return self._values[at]

    def value(self, i: int, pointer: Pointer) -> int:
        # Iterative over containers so depth is bounded only by what json.loads accepted.
        stack: list[Any] = []
        end = self._one(i, pointer, stack)
        while stack:
            end = self._step(stack)
        return end

    def _one(self, i: int, pointer: Pointer, stack: list[Any]) -> int:
        text = self.text
        c = text[i]
        if c == "{" or c == "[":
            stack.append([c, i, pointer, _skip(text, i + 1), 0, {}])
            return i
        end: int = scanstring(text, i + 1)[1] if c == '"' else self._scalar(i)
        self.smap.values[pointer] = self.index.span(i, end)
        return end

    def _scalar(self, i: int) -> int:
        for literal in _LITERALS:
            if self.text.startswith(literal, i):
                if literal[-1] == "y" or literal == "NaN":
                    self.problems.append(
                        Problem(
                            self.index.span(i, i + len(literal)), f"{literal} is not valid JSON"
                        )
                    )
                return i + len(literal)
        m = _NUMBER.match(self.text, i)
        return m.end() if m else i + 1

    def _step(self, stack: list[Any]) -> int:
        frame = stack[-1]
        opener, start, pointer, i, count, seen = frame
        text = self.text
        if text[i] in "]}":
            stack.pop()
            self.smap.values[pointer] = self.index.span(start, i + 1)
            return self._after(stack, i + 1)
        if opener == "{":
            key, after_key = scanstring(text, i + 1)
            key_span = self.index.span(i, after_key)
            value_at = _skip(text, _skip(text, after_key) + 1)  # past the colon
            if key in seen:
                line, first_at = seen[key]
                same = self._value(first_at) == self._value(value_at)
                self.problems.append(
                    Problem(key_span, _duplicate(key, line, same), "duplicate-key", mild=same)
                )
            else:
                seen[key] = (key_span.line, value_at)
            child: Pointer = (*pointer, key)
            self.smap.keys[child] = key_span
            i = value_at
        else:
            child = (*pointer, count)
        frame[4] = count + 1
        frame[3] = i
        depth = len(stack)
        end = self._one(i, child, stack)
        if len(stack) > depth:
            return end
        return self._after(stack, end)

    def _after(self, stack: list[Any], end: int) -> int:
        if stack:
            i = _skip(self.text, end)
            if self.text[i] == ",":
                i = _skip(self.text, i + 1)
            stack[-1][3] = i
        return end
