"""Writing the fixes findings carry: only the characters at fault change, in files the run
reported, inside the project; or, for `--show-fixes`, the unified diff of what would."""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable
from pathlib import Path

from evallint.errors import EvallintError
from evallint.io.source import Source
from evallint.model import Diagnostic, Edit
from evallint.parse import Problem, decode
from evallint.records import record


@record
class Change:
    """One edit of one file, with the text it replaces."""

    path: str
    edit: Edit
    old: str


def text_of(source: Source, path: str) -> str:
    """The file's text as the parser read it (a BOM is not part of it), so offsets agree."""
    text = decode(source.read(path))
    if isinstance(text, Problem):  # it parsed a moment ago: it changed under the run
        raise EvallintError(f"{path} changed while it was checked; nothing was written")
    return text


def changes_of(
    diagnostics: Iterable[Diagnostic], source: Source, texts: dict[str, str], rules: Collection[str]
) -> list[Change]:
    """The fixes of these rules' findings, each file's text read once into `texts`."""
    out = []
    for d in diagnostics:
        if d.rule in rules and d.fix is not None:
            text = texts.setdefault(d.path, text_of(source, d.path))
            out.append(Change(d.path, d.fix, text[d.fix.start : d.fix.end]))
    return out


def _fixed(text: str, mine: list[Change]) -> tuple[str, list[Change]]:
    """The text with the changes made, last first; a change overlapping one kept is dropped."""
    kept: list[Change] = []
    for c in sorted(mine, key=lambda c: c.edit.start, reverse=True):
        if kept and c.edit.end > kept[-1].edit.start:
            continue
        kept.append(c)
        text = text[: c.edit.start] + c.edit.text + text[c.edit.end :]
    return text, kept[::-1]


def _by_path(changes: list[Change], source: Source) -> dict[str, list[Change]]:
    leaves = getattr(source, "outside", None)
    out: dict[str, list[Change]] = {}
    for c in changes:
        if leaves is None or not leaves(c.path):  # never write through a link that leads out
            out.setdefault(c.path, []).append(c)
    return dict(sorted(out.items()))


def write(changes: list[Change], texts: dict[str, str], source: Source, root: Path) -> list[str]:
    """Writes the changes; one `path:line: old → new` line each."""
    done = []
    for path, mine in _by_path(changes, source).items():
        original = texts[path]
        text, kept = _fixed(original, mine)
        bom = "\ufeff" if source.read(path).startswith(b"\xef\xbb\xbf") else ""
        (root / path).write_bytes((bom + text).encode("utf-8"))
        done += [
            f"{path}:{original.count(chr(10), 0, c.edit.start) + 1}: {c.old} → {c.edit.text}"
            for c in kept
        ]
    return done


def unified_diff(changes: list[Change], texts: dict[str, str], source: Source) -> str:
    out: list[str] = []
    for path, mine in _by_path(changes, source).items():
        before = texts[path]
        after, _ = _fixed(before, mine)
        out += difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            f"a/{path}",
            f"b/{path}",
        )
    return "".join(out)
