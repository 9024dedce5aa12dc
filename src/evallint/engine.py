"""The pipeline for a set of files: read, parse, classify, run rules, place findings, sort."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from evallint.config import Config
from evallint.kinds import Kind, content_kind, declared_kind, path_kind
from evallint.model import Diagnostic, Finding, Location, Report, Severity, Span
from evallint.parse import Document, format_of, parse
from evallint.rules import ALL_RULES
from evallint.rules.base import Rule
from evallint.schemas import SchemaError, validate
from evallint.schemawalk import ObjectKeys, unknown_keys


class Source(Protocol):
    """Where file bytes come from: the working tree, or a git revision (later)."""

    def size(self, path: str) -> int: ...

    def read(self, path: str) -> bytes: ...


@dataclass(frozen=True, slots=True)
class Context:
    """What a rule may know besides its document."""

    kind: Kind
    config: Config

    def schema_errors(self, doc: Document) -> list[SchemaError]:
        if "schema" not in doc.memo:
            doc.memo["schema"] = validate(self.kind.schema, doc.data) if self.kind.schema else []
        return doc.memo["schema"]  # type: ignore[no-any-return]

    def object_keys(self, doc: Document) -> list[ObjectKeys]:
        if "keys" not in doc.memo:
            doc.memo["keys"] = unknown_keys(self.kind.schema, doc.data) if self.kind.schema else []
        return doc.memo["keys"]  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class Skipped:
    path: str
    reason: str


def lint(
    paths: Sequence[str], source: Source, config: Config, *, rules: Sequence[Rule] = ALL_RULES
) -> Report:
    started = time.perf_counter()
    active = config.active_rules(rules)
    diagnostics: list[Diagnostic] = []
    skipped: list[str] = []
    checked = 0
    for path in paths:
        result = check_file(path, source, config, active)
        if isinstance(result, Skipped):
            skipped.append(f"{result.path}: {result.reason}")
            continue
        checked += 1
        diagnostics.extend(result)
    diagnostics.sort(key=Diagnostic.sort_key)
    return Report(tuple(diagnostics), checked, time.perf_counter() - started, tuple(skipped))


def read_document(
    path: str, source: Source, config: Config
) -> tuple[Document | None, Kind | None, Skipped | None]:
    fmt = format_of(path)
    if fmt is None:
        return None, None, Skipped(path, "not YAML, JSON or JSONL")
    forced = config.kind_for(path)
    size = source.size(path)
    if size > config.max_file_size:
        kind = forced or path_kind(path, fmt)
        if kind is None:
            return None, None, Skipped(path, f"{size:,} bytes, over max-file-size")
        problem = (
            f"file is {size:,} bytes, over the {config.max_file_size:,}-byte limit (max-file-size)"
        )
        return Document(path, fmt, "", None, False, ()), kind, Skipped(path, problem)
    doc = parse(path, source.read(path), fmt)
    kind = forced or declared_kind(doc.text, doc.data) or path_kind(path, fmt)
    if kind is None and doc.ok:
        kind = content_kind(doc.data, fmt)
    if kind is None:
        reason = "not readable, and no kind claims it" if not doc.ok else "no kind matches"
        return doc, None, Skipped(path, reason)
    return doc, kind, None


def check_file(
    path: str, source: Source, config: Config, active: Sequence[tuple[Rule, Severity]]
) -> list[Diagnostic] | Skipped:
    doc, kind, skipped = read_document(path, source, config)
    if kind is None or doc is None:
        assert skipped is not None
        return skipped
    if skipped is not None:  # too large, but of a known kind: that is a finding
        return [Diagnostic(path, Span(1, 1, 1, 2), "parse-error", Severity.ERROR, skipped.reason)]
    levels = {r.id: level for r, level in active}
    out = [
        Diagnostic(path, p.span, p.rule, levels[p.rule], p.message)
        for p in doc.problems
        if p.rule in levels
    ]
    if doc.ok:
        ctx = Context(kind, config)
        for rule, level in active:
            if rule.check is not None and rule.applies_to(kind.name):
                out.extend(place(doc, f, rule.id, level) for f in rule.check(doc, ctx))
    return out


def place(doc: Document, finding: Finding, rule_id: str, level: Severity) -> Diagnostic:
    """A symbolic finding becomes a diagnostic at an exact position."""
    span = doc.locate(finding.pointer, on_key=finding.on_key)
    related = tuple(
        Location(path or doc.path, doc.locate(ptr), note)
        for path, ptr, note in finding.related
        if path in (None, doc.path)
    )
    return Diagnostic(doc.path, span, rule_id, level, finding.message, related)
