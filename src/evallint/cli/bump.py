"""`evallint bump`: apply the fixes the version rules offer, touching only those scalars.

It is a check run (the same reading, index and rules as `evallint check`, with the version
rules that can ask for a bump) whose fixes are written. Edits are made on the text, at the
spans the parser found, so comments, quoting, key order and line endings stay as they were.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path

from evallint.baseline import Baseline
from evallint.cli.fixing import Change, changes_of, write
from evallint.config import Config
from evallint.engine.run import lint
from evallint.io.source import Source
from evallint.model import Fix
from evallint.project import Entry
from evallint.read import read_entry
from evallint.records import replace
from evallint.rules import BY_ID

BUMPED = ("version-not-bumped", "version-bump-too-small")


def bump(
    paths: Sequence[str],
    tree: Sequence[str],
    source: Source,
    root: Path,
    config: Config,
    baseline: Baseline,
    *,
    update_refs: bool,
    today: datetime.date | None = None,
) -> tuple[list[str], list[str]]:
    """The changes written, a line each; and the bumps asked for that could not be written (a
    version spelt with escapes, say), a line each, for the user to make by hand."""
    # Whatever the configuration selects, bump runs the rules it is named for.
    wanted = replace(config, select=BUMPED, ignore=(), max_repeats=0)
    rules = [BY_ID[r] for r in BUMPED]
    report = lint(paths, source, wanted, tree=tree, today=today, baseline=baseline, rules=rules)
    texts: dict[str, str] = {}
    changes = changes_of(report.diagnostics, source, texts, BUMPED)
    if update_refs:
        changes += _pin_changes(changes, tree, source, config, texts)
    left = [
        f"{d.path}:{d.span.line}:{d.span.column}: not bumped, bump it by hand: {d.message}"
        for d in report.diagnostics
        if d.rule in BUMPED and d.fix is None
    ]
    return write(changes, texts, source, root), left


def _ref_prefix(path: str, source: Source, config: Config) -> str:
    """`rubric/{id}@` for a file that defines a rubric or judge; "" for others."""
    found = read_entry(path, source, config)
    if not isinstance(found, Entry) or not found.kind.namespace or not found.kind.defines:
        return ""
    defined = found.kind.defines(found.doc.data)
    return f"{found.kind.namespace}/{defined[0]}@" if defined else ""


def _pin_changes(
    bumped: list[Change], tree: Sequence[str], source: Source, config: Config, texts: dict[str, str]
) -> list[Change]:
    """Exact pins on a version that no longer exists now point at the version it became."""
    targets = {}
    for c in bumped:
        prefix = _ref_prefix(c.path, source, config)
        if prefix:
            targets[prefix + c.old] = prefix + c.edit.text
    out = []
    leaves = getattr(source, "outside", None)
    for path in tree if targets else ():
        if leaves is not None and leaves(path):
            continue  # never read, let alone rewrite, a file outside the project
        try:
            raw = source.read(path)
        except OSError:
            continue
        if not any(old.encode() in raw for old in targets):
            continue
        entry = read_entry(path, source, config)
        if not isinstance(entry, Entry) or entry.kind.references is None or not entry.doc.ok:
            continue
        for pointer, text in entry.kind.references(entry.doc.data):
            edit = entry.doc.edit(Fix(pointer, text, targets[text])) if text in targets else None
            if edit is not None:
                texts.setdefault(path, entry.doc.text)
                out.append(Change(path, edit, text))
    return out
