"""Reading one file: size limits, parsing, and the kind it is given."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO, Protocol, runtime_checkable

from evallint.config import Config, MiB
from evallint.formats.base import Kind
from evallint.kinds import content_kind, declared_kind, path_kind
from evallint.model import Diagnostic, Severity, Span
from evallint.parse import Document, format_of, parse
from evallint.project import Entry, Rest


class Source(Protocol):
    """Where file bytes come from: the working tree, or a git revision."""

    def size(self, path: str) -> int: ...

    def read(self, path: str) -> bytes: ...


@runtime_checkable
class Streams(Protocol):
    """A source that can also hand out a file to read in parts (the working tree)."""

    def size(self, path: str) -> int: ...

    def read(self, path: str) -> bytes: ...

    def open(self, path: str) -> BinaryIO: ...


@dataclass(frozen=True, slots=True)
class Skipped:
    path: str
    reason: str


def read_entry(path: str, source: Source, config: Config) -> Entry | Skipped | Diagnostic:
    fmt = format_of(path)
    if fmt is None:
        return Skipped(path, "not YAML, JSON or JSONL")
    forced = config.kind_for(path)
    size = source.size(path)
    if fmt == "jsonl" and size > CHUNK and isinstance(source, Streams):
        streamed = _first_chunk(path, source, forced)
        if streamed is not None:
            return streamed
    if size > config.max_file_size:
        if (forced or path_kind(path, fmt)) is None:
            return Skipped(path, f"{size:,} bytes, over max-file-size")
        message = (
            f"file is {size:,} bytes, over the {config.max_file_size:,}-byte limit (max-file-size)"
        )
        return Diagnostic(path, Span(1, 1, 1, 2), "parse-error", Severity.ERROR, message)
    doc = parse(path, source.read(path), fmt)
    kind = _kind(doc, forced)
    if kind is None:
        reason = "not readable, and no kind claims it" if not doc.ok else "no kind matches"
        return Skipped(path, reason)
    return Entry(doc, kind)


def _kind(doc: Document, forced: Kind | None) -> Kind | None:
    kind = forced or declared_kind(doc.text, doc.data) or path_kind(doc.path, doc.fmt)
    if kind is None and doc.ok:
        kind = content_kind(doc.path, doc.data, doc.fmt)
    return kind


# A JSONL file larger than CHUNK bytes, of a kind checked record by record, is read in chunks of
# about CHUNK bytes of whole lines (then max-file-size does not apply: memory stays flat). Its
# entry keeps only the first FIRST bytes, enough to tell its kind.
CHUNK = 8 * MiB
FIRST = 64 * 1024


def _first_chunk(path: str, source: Streams, forced: Kind | None) -> Entry | None:
    with source.open(path) as f:
        lines = f.readlines(FIRST)
    raw = b"".join(lines)
    doc = parse(path, raw, "jsonl")
    kind = _kind(doc, forced)
    if kind is None or not kind.per_record:
        return None  # read whole, under max-file-size
    return Entry(doc, kind, Rest(len(raw), len(lines)))


def chunks(entry: Entry, source: Source) -> Iterator[tuple[Document, int, int]]:
    """(document, lines of the file before it, chunk number) for each part of an entry: the
    entry's own document, then for a streamed file the rest, one chunk at a time."""
    yield entry.doc, 0, 0
    rest = entry.rest
    if rest is None or not isinstance(source, Streams):
        return
    lines, number = rest.lines, 1
    with source.open(entry.doc.path) as f:
        f.seek(rest.offset)
        while block := f.readlines(CHUNK):
            yield parse(entry.doc.path, b"".join(block), "jsonl"), lines, number
            lines, number = lines + len(block), number + 1


@dataclass(frozen=True, slots=True)
class Scan:
    digests: dict[str, str]  # hash algorithm -> hex digest of the file's bytes
    records: int  # non-blank lines


def scan(source: Source, path: str) -> Scan:
    """sha256, md5 and the count of non-blank lines, in one pass over blocks of the file."""
    import hashlib

    hashes = {name: hashlib.new(name) for name in ("sha256", "md5")}
    records, tail = 0, b""
    for block in _blocks(source, path):
        for h in hashes.values():
            h.update(block)
        lines = (tail + block).split(b"\n")
        tail = lines.pop()  # may go on in the next block
        records += sum(1 for line in lines if line.strip())
    records += bool(tail.strip())
    return Scan({name: h.hexdigest() for name, h in hashes.items()}, records)


def _blocks(source: Source, path: str) -> Iterator[bytes]:
    if not isinstance(source, Streams):
        yield source.read(path)
        return
    with source.open(path) as f:
        while block := f.read(MiB):
            yield block
