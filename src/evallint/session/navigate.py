"""Where a place in an eval file leads, for an editor: the definition a reference resolves to
(`rubric/tone@1.2` → the rubric file of the version the pin picks), the file a path names (a
`file://` prompt, a content block, a case file), and what to say of it on hover. Pure over an
index the editor's session builds; nothing is opened but the project's own eval files.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from evallint.kinds import KINDS
from evallint.kinds.base import FileRef, candidates
from evallint.model import Pointer, Span
from evallint.project import Entry
from evallint.project import Project as Index
from evallint.records import record


@record
class Target:
    """A place to go: a project path, and where in it (None: the top of the file)."""

    path: str
    span: Span | None = None


@record
class Place:
    """What lies under the cursor: its span, where it leads, and what to say of it."""

    span: Span
    target: Target | None
    hover: str


def at(
    entry: Entry, index: Index, files: frozenset[str], root_name: str, line: int, column: int
) -> Place | None:
    """The reference or file path at `line`, `column` (1-based) of the entry's document."""
    for pointer, place in _places(entry, index, files, root_name):
        span = entry.doc.locate(pointer)
        if _inside(span, line, column):
            return Place(span, place[0], place[1])
    return None


Led = tuple[Target | None, str]


def _places(
    entry: Entry, index: Index, files: frozenset[str], root_name: str
) -> Iterator[tuple[Pointer, Led]]:
    for pointer, text, ref in index.references(entry):
        if ref is None:
            continue
        found = index.resolve(ref)
        target = found.target
        if target is None:
            yield pointer, (None, f"`{text}`: {found.outcome.replace('-', ' ')} in this project")
            continue
        about = target.doc.data.get("description") if target.doc.ok else None
        where = target.doc.locate(("version",)) if target.doc.ok else None
        note = f"\n\n{about}" if isinstance(about, str) else ""
        yield (
            pointer,
            (
                Target(target.path, where),
                f"`{text}` → **{target.label}** in `{target.path}`{note}",
            ),
        )
    for named in entry.kind.file_refs(entry.doc.data) if entry.kind.file_refs else ():
        yield named.pointer, _file(entry.path, named, files, root_name)


def _file(path: str, ref: FileRef, files: frozenset[str], root_name: str) -> Led:
    if ref.glob:
        return None, f"`{ref.path}`: a pattern of files"
    tried = candidates(path, ref, root_name)
    found = next((p for p in tried if p in files), None)
    if found is None:
        folder = next((p for p in tried if _holds(files, p.rstrip("/") + "/")), None)
        if folder is not None:
            return None, f"`{ref.path}` → the folder `{folder.rstrip('/')}`"
        return None, f"`{ref.path}`: no such file (looked for {', '.join(tried) or 'nothing'})"
    tail = f", function `{ref.function}`" if ref.function else ""
    return Target(found), f"`{ref.path}` → `{found}`{tail}"


def _inside(span: Span, line: int, column: int) -> bool:
    after_start = (line, column) >= (span.line, span.column)
    before_end = (line, column) <= (span.end_line, span.end_column)
    return after_start and before_end


def _holds(files: frozenset[str], prefix: str) -> bool:
    return any(f.startswith(prefix) for f in files)


# A reference being written (`rubric/ref`, `judge/accuracy@1.`), up to the cursor.
_REF = re.compile(r"(?<![\w/])([a-z_]+)/([\w.-]*)(?:@([\w.]*))?$")
# A grader's `type:` being written, in block or flow style.
_TYPE = re.compile(r"(?:^|[{,\s])type:\s*[\"']?([\w:-]*)$")


def complete(entry: Entry, index: Index, before: str) -> list[str]:
    """What may go where the line reads `before`: inside a reference, the project's ids of
    that namespace (or, after `@`, that id's versions); after `type:`, the grader types the
    file's dialect knows."""
    ref = _REF.search(before)
    if ref is not None and ref.group(1) in _NAMESPACES:
        namespace, ident, version = ref.groups()
        if version is None:
            return index.ids(namespace)
        return [str(d.version) for d in index.versions(namespace, ident)]
    if _TYPE.search(before):
        return sorted(_GRADER_TYPES.get(entry.kind.name, ()))
    return []


_NAMESPACES = frozenset(k.namespace for k in KINDS if k.namespace)
_GRADER_TYPES = {k.name: k.grader_types for k in KINDS}
