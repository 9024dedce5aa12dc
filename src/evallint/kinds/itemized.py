"""What is read of a dataset's items, once per document: the items (`Kind.item_view`), each
input normalized, and a digest of each input that crosses processes and runs (the project and
the index keep these, so a file's items are compared with every other dataset's without
holding their documents)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from evallint.kinds.base import Item, Kind
from evallint.model import JSON

if TYPE_CHECKING:
    from evallint.parse import Document

_TRAILING = ".?!;:,\u2026\u3002\uff1f\uff01"  # and the ellipsis, CJK stop, full-width ? and !


def normalized(text: str) -> str:
    """Whitespace collapsed, case folded, trailing punctuation dropped: how two inputs are told
    to be the same question."""
    return " ".join(text.split()).casefold().rstrip(_TRAILING).rstrip()


def view(data: JSON, kind: Kind) -> tuple[Item, ...]:
    return tuple(kind.item_view(data)) if kind.item_view is not None else ()


def items(doc: Document, kind: Kind) -> tuple[Item, ...]:
    """The document's items, worked out once whoever asks."""
    return doc.facts.get(view, doc.data, kind, key=kind.name)


def keys(doc: Document, kind: Kind) -> list[str]:
    """Each item's normalized input, in item order."""
    return doc.facts.get(_keys, doc, kind, key=kind.name)


def _keys(doc: Document, kind: Kind) -> list[str]:
    return [normalized(item.input) for item in items(doc, kind)]


def release(doc: Document, kind: Kind) -> None:
    """Forget the document's items and normalized inputs, keeping their digests: a dataset
    waiting for the project (`shared-item`) holds 8 bytes an item, not the items."""
    doc.facts.drop(view, kind.name)
    doc.facts.drop(_keys, kind.name)


DIGEST = 8  # bytes: about one chance in 2**33 that two of 65,536 distinct inputs collide


def digested(keys: Iterable[str]) -> list[bytes]:
    """Each normalized input's digest: the same in every process and run (`hash` is not)."""
    try:  # hashlib would load OpenSSL's bindings (6 ms) for a one-file run; BLAKE2 is built in
        from _blake2 import blake2b
    except ImportError:  # a Python built without it
        from hashlib import blake2b

    return [blake2b(k.encode("utf-8", "surrogatepass"), digest_size=DIGEST).digest() for k in keys]


def each_digest(doc: Document, kind: Kind) -> list[bytes]:
    """Each item's input digest, in item order (b"" for an empty input)."""
    return doc.facts.get(_each, doc, kind, key=kind.name)


def _each(doc: Document, kind: Kind) -> list[bytes]:
    found = keys(doc, kind)
    distinct = [k for k in dict.fromkeys(found) if k]  # an input asked again is hashed once
    made = dict(zip(distinct, digested(distinct), strict=True))
    return [made.get(k, b"") for k in found]


def digests(doc: Document, kind: Kind) -> bytes:
    """The digests of the document's distinct inputs, in the order first asked, joined."""
    return b"".join(dict.fromkeys(d for d in each_digest(doc, kind) if d))


def split(joined: bytes) -> list[bytes]:
    return [joined[i : i + DIGEST] for i in range(0, len(joined), DIGEST)]


TOKEN = "item:"  # an input's digest in a summary's mentions: no reference can start so


def tokens(joined: bytes) -> list[str]:
    """How a summary's mentions hold the digests (`engine/summary.py`)."""
    return [TOKEN + d.hex() for d in split(joined)]
