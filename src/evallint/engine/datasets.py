"""What a run keeps of each dataset for the rule that compares datasets (`shared-item`): the
digests of its inputs (`kinds/itemized.py`), read from every chunk of a streamed file."""

from __future__ import annotations

from evallint.io.source import Source
from evallint.kinds.itemized import digests, release, split
from evallint.project import Entry, Kept, shared_only
from evallint.read import chunks
from evallint.records import replace

__all__ = ["RULE", "compared", "entry_digests", "kept_of", "release"]

RULE = "shared-item"


def compared(entry: Entry) -> bool:
    """Whether the entry is a dataset whose items are held against other datasets'."""
    kind = entry.kind
    return kind.item_view is not None and not kind.results and entry.doc.ok


def entry_digests(entry: Entry, source: Source, limit: int) -> bytes:
    """The digests of the entry's distinct inputs; a streamed file's read chunk by chunk (each
    parsed again when its rules run: memory stays flat)."""
    if entry.rest is None:
        return digests(entry.doc, entry.kind)
    seen: dict[bytes, None] = {}
    for doc, _, _ in chunks(entry, source, limit):
        seen.update(dict.fromkeys(split(digests(doc, entry.kind))))
    return b"".join(seen)


def kept_of(entry: Entry, source: Source, compares: bool, limit: int) -> Entry:
    """What the project keeps of a file of the run (`shared_only`); of a dataset, when the run
    compares datasets (`compares`), with its inputs' digests (`limit`: max-file-size)."""
    shared = shared_only(entry)
    if not compares or not compared(entry):
        return shared
    found = entry_digests(entry, source, limit)
    if isinstance(shared, Kept):
        return shared.with_items(found)
    return replace(shared, items=found)
