"""Bytes to `Document`: decoding, format dispatch, and positions on demand."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Literal

from evallint.facts import Facts
from evallint.model import JSON, Edit, Fix, Pointer, Span, Tagged
from evallint.parse.jsonload import load_json, load_jsonl, seeking_map
from evallint.parse.positions import LineIndex, Loaded, Problem, SourceMap
from evallint.records import field, record

if TYPE_CHECKING:
    from evallint.parse.yamlseek import Seeker

# `csv` and `text` are read only as files others name (promptfoo's test files and prompt
# templates), never claimed as eval files.
Format = Literal["yaml", "json", "jsonl", "csv", "text"]
FORMATS: dict[str, Format] = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".jsonl": "jsonl"}


def load_yaml(text: str, *, record: bool = False) -> Loaded:
    return _yaml_loader()(text, record=record)


@functools.cache
def _yaml_loader() -> Callable[..., Loaded]:
    # Imported on first use: PyYAML costs ~20 ms of start-up that a JSON-only run never needs;
    # once (an import statement in a function runs at every call: a large tree's files).
    from evallint.parse.yamlload import load_yaml as load

    return load


def ready_yaml() -> None:
    """Import the YAML reader now: a process about to fork workers that read YAML does it once
    for all of them (each would import it on its own), and has it for what it reads later."""
    _yaml_loader()


def load_csv(text: str, *, record: bool = False) -> Loaded:
    from evallint.parse.csvload import load_csv as load  # only runs that read CSV test files

    return load(text, record=record)


def load_text(text: str, *, record: bool = False) -> Loaded:
    """A text read as a whole (a prompt template): findings in it are placed by offsets."""
    smap = SourceMap(LineIndex(text, yaml=True)) if record else None
    if smap is not None:
        smap.values[()] = smap.lines.span(0, len(text))
    return Loaded(text, True, (), smap)


_LOADERS = {
    "yaml": load_yaml,
    "json": load_json,
    "jsonl": load_jsonl,
    "csv": load_csv,
    "text": load_text,
}

__all__ = ["FORMATS", "Document", "Format", "Problem", "decode", "format_of", "parse"]


@record
class Document:
    """A file as parsed: its data, its text for positions, and what parsing found."""

    path: str  # project-relative, POSIX separators
    fmt: Format
    text: str
    data: JSON
    ok: bool  # False when the text could not be read as data at all
    problems: tuple[Problem, ...]
    # What is worked out once about it, made on first use: a large run keeps a small document
    # per checked file, most never asked (a cache, so set even on a frozen document).
    _facts: Facts | None = field(default=None, init=False, compare=False, repr=False)

    @property
    def facts(self) -> Facts:
        found = self._facts
        if found is None:
            found = Facts()
            object.__setattr__(self, "_facts", found)
        return found

    def source_map(self) -> SourceMap | None:
        """Spans are found by a second pass, paid only by files that have findings."""
        return self.facts.get(_source_map, self)

    def locate(self, pointer: Pointer, *, on_key: bool = False) -> Span:
        written = None if on_key else _written_at(self.data, pointer)
        if written is not None and written.line == written.end_line:
            return written  # on one line (most): no index of the text's lines needed
        if written is not None and (lines := self.lines()) is not None:
            return SourceMap(lines).first_line(written)
        seeker = self._seeker()
        if seeker is not None:
            from evallint.parse.yamlseek import Unsupported

            with contextlib.suppress(Unsupported):
                return seeker.locate(pointer, on_key=on_key)
        smap = self.source_map()
        return smap.locate(pointer, on_key=on_key) if smap is not None else Span(1, 1, 1, 2)

    def _seeker(self) -> Seeker | None:
        """A YAML file's first few findings are placed by seeking their values (`yamlseek`),
        while no full source map is made; a file with more gets the map, which answers all."""
        if self.fmt != "yaml" or not self.text or self.facts.has(_source_map):
            return None
        if not self.ok or any(p.rule == "duplicate-key" for p in self.problems):
            return None  # a pointer written twice: the map knows which one the data holds
        seeker = self.facts.get(_yaml_seeker, self)
        return seeker if seeker.passes < SEEKS else None

    def lines(self) -> LineIndex | None:
        """Where the text's lines start: a YAML text's are found alone (the same as its source
        map's), so a finding placed without the map costs no second parse."""
        if self.fmt == "yaml" and self.text:
            return self.facts.get(_yaml_lines, self.text)
        smap = self.source_map()
        return smap.lines if smap is not None else None

    def line_text(self, line: int) -> str:
        lines = self.lines()
        if lines is None or not 1 <= line <= len(lines.starts):
            return ""
        start = lines.starts[line - 1]
        return self.text[start : start + lines.line_end(line) - 1]

    def raw(self, pointer: Pointer) -> str | None:
        """The value's text as written in the file (quotes, block indicators and all)."""
        smap = self.source_map()
        span = smap.values.get(pointer) if smap is not None else None
        if smap is None or span is None:
            return None
        lines = smap.lines
        start = lines.offset(span.line, span.column)
        return self.text[start : lines.offset(span.end_line, span.end_column)]

    def edit(self, fix: Fix) -> Edit | None:
        """Where `fix` applies in the text; None when the value is not written as its text
        (escapes, a key that is not there), which is left for a person."""
        smap = self.source_map()
        spans = (smap.keys if fix.on_key else smap.values) if smap is not None else None
        span = spans.get(fix.pointer) if spans is not None else None
        if smap is None or span is None:
            return None
        start = smap.lines.offset(span.line, span.column)
        inner = self.text.find(fix.old, start, smap.lines.offset(span.end_line, span.end_column))
        return Edit(inner, inner + len(fix.old), fix.new) if inner >= 0 else None

    def locate_within(self, pointer: Pointer, start: int, end: int) -> Span:
        """A span inside a value, from offsets into its `raw` text."""
        smap = self.source_map()
        span = smap.values.get(pointer) if smap is not None else None
        if smap is None or span is None:
            return self.locate(pointer)
        base = smap.lines.offset(span.line, span.column)
        return smap.lines.span(base + start, base + end)


# Passes over a file's events before its full source map is cheaper (one costs at most a parse
# of the text without positions; the map, one to two parses).
SEEKS = 4


def _yaml_seeker(doc: Document) -> Seeker:
    from evallint.parse.yamlseek import Seeker

    lines = doc.lines()
    assert lines is not None  # a YAML document with text
    return Seeker(doc.text, lines)


def _yaml_lines(text: str) -> LineIndex:
    return LineIndex(text, yaml=True)


def _written_at(data: JSON, pointer: Pointer) -> Span | None:
    """The span of a tagged scalar at `pointer`, as its loader saw it written there (not where
    an alias or a merge key repeats it: those are found by the source map)."""
    for part in pointer:
        if isinstance(data, dict) and isinstance(part, str):
            data = data.get(part)
        elif isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
            data = data[part]
        else:
            return None
    at = data.at if isinstance(data, Tagged) else None
    return at[1] if at is not None and at[0] == pointer else None


def _source_map(doc: Document) -> SourceMap | None:
    if not doc.text:
        # A document kept without its text (what the project keeps of a file): no positions,
        # so findings sit at the start of the file rather than anywhere false.
        return None
    if doc.fmt == "json" and not doc.problems:
        # Duplicate-free JSON without NaN (the first parse reports those as problems): seek the
        # spans, without parsing the file again.
        return seeking_map(doc.text)
    return _LOADERS[doc.fmt](doc.text, record=True).smap


def format_of(path: str) -> Format | None:
    dot = path.rfind(".")
    return FORMATS.get(path[dot:].lower()) if dot != -1 else None


_SUFFIXES = tuple(FORMATS)


def eval_files(paths: Iterable[str]) -> list[str]:
    """The paths whose format_of is not None, at C speed for a tree of 100,000 files: every
    suffix starts with its only dot, so ending with one is having it as the last suffix."""
    return [p for p in paths if p.lower().endswith(_SUFFIXES)]


def decode(raw: bytes, base: int = 0) -> str | Problem:
    """UTF-8 (a BOM is allowed); otherwise a problem at the first bad byte (`base`: the
    offset of `raw` in its file)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        head = raw[: exc.start]
        line = head.count(b"\n") + 1
        col = len(head[head.rfind(b"\n") + 1 :].decode("utf-8", "replace")) + 1
        return Problem(
            Span(line, col, line, col + 1),
            f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at offset {base + exc.start}",
        )
    return text[1:] if text.startswith("\ufeff") else text


def parse(path: str, raw: bytes, fmt: Format, base: int = 0) -> Document:
    """`base`: the offset of `raw` in its file (a chunk of a streamed JSONL file), for the byte
    offsets messages give."""
    text = decode(raw, base)
    bad: tuple[Problem, ...] = ()
    if isinstance(text, Problem):
        if fmt != "jsonl":
            return Document(path, fmt, "", None, False, (text,))
        # One bad byte costs its record, never the file: the other lines are still checked.
        text, bad = _decode_lines(raw, base)
        loaded = load_jsonl(text)
    elif fmt in ("yaml", "csv", "text"):
        loaded = _LOADERS[fmt](text)
    else:  # the JSON loaders may take the bytes' fast path (the text without its BOM)
        start = 3 if raw.startswith(b"\xef\xbb\xbf") else 0
        load = load_json if fmt == "json" else load_jsonl
        loaded = load(text, raw=raw[start:] if start else raw)
    return Document(path, fmt, text, loaded.data, loaded.ok, bad + loaded.problems)


def _decode_lines(raw: bytes, base: int = 0) -> tuple[str, tuple[Problem, ...]]:
    """JSONL decoded line by line; a line that is not UTF-8 is reported and left blank."""
    lines, problems, offset = [], [], base
    for number, line in enumerate(raw.split(b"\n"), start=1):
        found = decode(line, offset)
        offset += len(line) + 1
        if number > 1 and isinstance(found, str) and line.startswith(b"\xef\xbb\xbf"):
            found = "\ufeff" + found  # a BOM is allowed only at the file's start
        if isinstance(found, Problem):
            span = found.span
            problems.append(
                Problem(Span(number, span.column, number, span.end_column), found.message)
            )
            found = ""
        lines.append(found)
    return "\n".join(lines), tuple(problems)
