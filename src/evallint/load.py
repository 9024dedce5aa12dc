"""Reading one file: size limits, parsing, and the kind it is given."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from evallint.config import Config
from evallint.kinds import content_kind, declared_kind, path_kind
from evallint.model import Diagnostic, Severity, Span
from evallint.parse import format_of, parse
from evallint.project import Entry


class Source(Protocol):
    """Where file bytes come from: the working tree, or a git revision."""

    def size(self, path: str) -> int: ...

    def read(self, path: str) -> bytes: ...


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
    if size > config.max_file_size:
        if (forced or path_kind(path, fmt)) is None:
            return Skipped(path, f"{size:,} bytes, over max-file-size")
        message = (
            f"file is {size:,} bytes, over the {config.max_file_size:,}-byte limit (max-file-size)"
        )
        return Diagnostic(path, Span(1, 1, 1, 2), "parse-error", Severity.ERROR, message)
    doc = parse(path, source.read(path), fmt)
    kind = forced or declared_kind(doc.text, doc.data) or path_kind(path, fmt)
    if kind is None and doc.ok:
        kind = content_kind(path, doc.data, fmt)
    if kind is None:
        reason = "not readable, and no kind claims it" if not doc.ok else "no kind matches"
        return Skipped(path, reason)
    return Entry(doc, kind)
