"""How a run's data crosses between its processes (`parallel.py`): files packed to their
least, a file of the run named by its place in the run's paths, and pickling made flat where
the records' own would cost (the data types know nothing of it)."""

from __future__ import annotations

import copyreg
from collections.abc import Callable, Sequence
from typing import Any, cast

from evallint.kinds import BY_NAME, Kind
from evallint.model import JSON, Diagnostic, Severity, Span
from evallint.parse import Document, Format
from evallint.project import Entry, Kept, PackedKept, Rest, shared_only, unpack_kept


def _kind(name: str) -> Kind:
    return BY_NAME[name]


def _reduce_kind(kind: Kind) -> tuple[Callable[[str], Kind], tuple[str]]:
    # Kinds hold functions; processes (forked after every kind is made) refer to them by name.
    return (_kind, (kind.name,))


def _reduce_document(doc: Document) -> tuple[type[Document], tuple[Any, ...]]:
    # Positional, without the facts (a cache): a record otherwise pickles as its state tuple
    # and is rebuilt field by field, which cost a third of sending a split run's index.
    return (Document, (doc.path, doc.fmt, doc.text, doc.data, doc.ok, doc.problems))


def _reduce_entry(entry: Entry) -> tuple[type[Entry], tuple[Document, Kind, Rest | None]]:
    return (Entry, (entry.doc, entry.kind, entry.rest))


def _reduce_diagnostic(d: Diagnostic) -> tuple[Callable[..., Diagnostic], tuple[Any, ...]]:
    # Flat, with the span's numbers and the level's: workers send back every finding of a
    # large run (the harness tree's 3,855), which pickled as records' states (the span's and
    # the level's too) cost the workers 16 ms and this process 15 ms after they end; flat, 4
    # and 6 ms.
    s = d.span
    return (_diagnostic, (d.path, s.line, s.column, s.end_line, s.end_column, d.rule,
                          int(d.severity), d.message, d.related, d.fingerprint, d.group,
                          d.more, d.fix, d.source))  # fmt: skip


def _diagnostic(
    path: str, line: int, column: int, end_line: int, end_column: int, rule: str, level: int,
    *rest: Any,
) -> Diagnostic:  # fmt: skip
    span = Span(line, column, end_line, end_column)
    return Diagnostic(path, span, rule, _LEVELS[level], *rest)


_LEVELS = {int(level): level for level in Severity}  # (calling the enum costs more)


copyreg.pickle(Kind, _reduce_kind)
copyreg.pickle(Document, _reduce_document)
copyreg.pickle(Entry, _reduce_entry)
copyreg.pickle(Diagnostic, _reduce_diagnostic)

# An entry as sent between processes: whole for a file that defines something (rubrics,
# judges, few), else as its `Kept` packs it (path, format, ok, kind, shared values): a tuple
# pickles ~10x faster than the objects, and thousands cross each way.
Packed = Entry | PackedKept
# A file crossing between processes (`send_form`): a file of the run by its place in the run's
# paths, a `Kept` packed, an entry whole.
PlacedKept = tuple[int, Format, bool, str, bool, JSON, bytes | None]
Sent = Entry | PackedKept | PlacedKept | tuple[int, Entry]


def pack(entry: Entry) -> Packed:
    """An entry as `project.shared_only` keeps it, in the form that crosses a pipe fastest."""
    shared = shared_only(entry)
    return shared.packed() if isinstance(shared, Kept) else shared


def send_form(entry: Entry, place: int | None) -> Sent:
    """`entry` packed to cross a pipe. A file of the run is named by its place in the run's
    paths, which every process has (forked with them): an int crosses faster than a path, and
    the other side keeps its own copy of the path, not a second one."""
    packed = pack(entry)
    if isinstance(packed, Entry):
        return packed if place is None else (place, packed)
    return packed if place is None else (place, *packed[1:])


def entry_of(sent: Sent, paths: Sequence[str]) -> Entry:
    """A file as it crossed (`send_form`): an entry whole, a pair (place, entry), or a packed
    `Kept` whose path may be its place in the run's `paths`."""
    if isinstance(sent, Entry):
        return sent
    if len(sent) == 2:
        return sent[1]
    at = sent[0]
    return unpack_kept(cast(PackedKept, sent), paths[at] if isinstance(at, int) else None)
