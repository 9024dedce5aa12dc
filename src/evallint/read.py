"""Reading one file: size limits, parsing, and the kind it is given."""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from typing import BinaryIO

from evallint.config import CACHE_FOLDER, Config, MiB
from evallint.io.source import Source, Streams, read_capped
from evallint.kinds import (
    claimed_kind,
    content_kind,
    declared_in_text,
    declared_kind,
    kind_named,
    near_kind,
    not_ours,
    path_kind,
    sniffed_kind,
)
from evallint.kinds.base import Kind
from evallint.model import JSON, Diagnostic, Severity, Skipped, Span
from evallint.parse import Document, Format, Problem, format_of, parse
from evallint.parse.positions import FLOW_INDENT, TAG_RULE
from evallint.project import Entry, Rest
from evallint.records import record


def read_entry(
    path: str, source: Source, config: Config, raw: bytes | None = None
) -> Entry | Skipped | Diagnostic:
    """`raw`: the file's bytes, when the caller has read them already.

    Fails closed: a file that a kind claims by its path, its declaration or the markers in its
    text, and that cannot be read, decoded or parsed, is a parse-error, never a skip.
    """
    fmt = format_of(path)
    if fmt is None:
        return Skipped(path, "not YAML, JSON or JSONL")
    if path.startswith(f"{CACHE_FOLDER}/"):  # what runs keep, committed or not: never an eval file
        return Skipped(path, OWN, own=True)
    forced = kind_named(config.kind_name(path))
    if forced is not None and fmt not in forced.formats:
        # The settings' [kinds] name a kind of another file type: never checked as nothing.
        read_as = ", ".join(sorted(forced.formats))
        message = f"the settings make this {fmt} file a {forced.name}, which is read from {read_as}"
        return Diagnostic(path, Span(1, 1, 1, 2), "parse-error", Severity.ERROR, message)
    if forced is None and config.folder_links:
        forced = _linked_kind(path, fmt, config)
    leaves = getattr(source, "outside", None)
    if leaves is not None and leaves(path):  # never read, whatever route brought it here
        message = f"{path} is a symlink that leads out of the project; it is not read"
        return _unread(path, fmt, forced, message, "", OUTSIDE)
    try:
        large = fmt == "jsonl" and raw is None and source.size(path) > CHUNK
        if large and isinstance(source, Streams):
            streamed = _first_chunk(path, source, config, forced)
            if streamed is not None:
                return streamed
        found = read_capped(source, path, config.max_file_size) if raw is None else raw
        size = found if isinstance(found, int) else len(found)
        if isinstance(found, int) or size > config.max_file_size:
            message = (
                f"file is {size:,} bytes, over the {config.max_file_size:,}-byte limit "
                "(max-file-size)"
            )
            return _unread(path, fmt, forced, message, _head(source, path))
        raw = found
    except OSError as exc:
        return _unread(path, fmt, forced, f"cannot be read: {exc.strerror or exc}", "")
    if raw.startswith(LFS_POINTER) and len(raw) < LFS_MAX:
        return _lfs(path, raw)
    doc = parse(path, raw, fmt)
    kind = _kind(doc, forced, raw)
    if doc.problems and (kind is not None or doc.ok):
        doc = _as_runner_reads(doc, kind)
    if kind is None:
        if doc.ok and not _all_broken(doc):
            if _own(doc.data):
                return Skipped(path, OWN, own=True)
            return Skipped(path, not_ours(path, doc.data) or _not_by_path(path, fmt) or NO_KIND)
        first = doc.problems[0]
        reason = f"does not parse ({first.message})"
        return Skipped(path, reason, unreadable=True, problem=(first.span, first.message))
    return Entry(_mapping_root(doc, kind), kind)


# Git LFS's pointer files: under 1,024 bytes, starting with the spec's version line (the
# "hawser" address is the spec's first name, which old pointers still carry).
LFS_POINTER = (
    b"version https://git-lfs.github.com/spec/v1\n",
    b"version https://hawser.github.com/spec/v1\n",
)
LFS_MAX = 1024


def _lfs(path: str, raw: bytes) -> Diagnostic:
    """One finding for a pointer file, whatever kind its path or name would make it."""
    fields = dict(
        line.split(" ", 1) for line in raw.decode("ascii", "replace").splitlines() if " " in line
    )
    size = fields.get("size", "").strip()
    what = f" ({int(size):,} bytes)" if size.isdigit() and len(size) < 19 else ""
    message = (
        f"a Git LFS pointer, not the file's content{what}: it was not checked; fetch the "
        "content (`git lfs pull`, or `lfs: true` on actions/checkout)"
    )
    return Diagnostic(path, Span(1, 1, 1, 2), "git-lfs-pointer", Severity.WARNING, message)


NO_KIND = "no kind matches"


def _not_by_path(path: str, fmt: Format) -> str | None:
    """Why a file its path would make one of ours is not: its keys are another tool's."""
    kind = path_kind(path, fmt) or claimed_kind(path, fmt)
    if kind is None:
        return None
    return f"its keys are another tool's, not {kind.title}'s (its folder's name alone is no claim)"


OWN = "evallint's own file"


def _own(data: object) -> bool:
    """evallint's own files, which no run lists as skipped eval files: a baseline
    (`--write-baseline`), and the schemas `init vscode` exports (their `$id` is ours wherever
    they were written)."""
    if not isinstance(data, dict):
        return False
    if isinstance(data.get("$id"), str) and data["$id"].startswith("urn:evallint:"):
        return True
    return data.keys() == {"version", "findings"} and isinstance(data["findings"], list)


def _as_runner_reads(doc: Document, kind: Kind | None) -> Document:
    """The document's problems as its kind's runner sees them: a custom tag it does not know
    makes the file unreadable (as any unknown tag does), one it knows is no problem, and a
    leniency of its loader (`Kind.lenient`) is none either; elsewhere that is a parse-error."""
    known = kind.tags if kind is not None else frozenset()
    lenient = kind.lenient if kind is not None else frozenset()
    kept: list[Problem] = []
    for p in doc.problems:
        if p.rule.startswith(TAG_RULE):
            if p.rule.removeprefix(TAG_RULE) in known:
                continue
            return Document(doc.path, doc.fmt, doc.text, None, False, (Problem(p.span, p.message),))
        if p.rule == FLOW_INDENT:
            if FLOW_INDENT not in lenient:
                kept.append(Problem(p.span, p.message))
            continue
        kept.append(p)
    if len(kept) == len(doc.problems) and kept == list(doc.problems):
        return doc
    return Document(doc.path, doc.fmt, doc.text, doc.data, doc.ok, tuple(kept))


_SHAPES = {list: "a list", str: "text", int: "a number", float: "a number", bool: "a boolean"}


def _mapping_root(doc: Document, kind: Kind) -> Document:
    """A file of a kind whose top level is a mapping, holding nothing or something else, has
    no data to check: a parse-error, like any file that cannot be read as that kind."""
    wanted = list if kind.top_level == "list" else dict
    if not doc.ok or kind.per_record or isinstance(doc.data, wanted):
        return doc
    what = "lists of entries" if wanted is list else "mappings of keys"
    if doc.data is None:
        span, message = Span(1, 1, 1, 2), f"the file holds no data; {kind.name} files are {what}"
    else:
        shape = _SHAPES.get(type(doc.data), type(doc.data).__name__)
        shape = "a mapping" if isinstance(doc.data, dict) else shape
        span = doc.locate(())
        message = f"the top level is {shape}; {kind.name} files are {what}"
    problem = Problem(span, message)
    return Document(doc.path, doc.fmt, doc.text, None, False, (*doc.problems, problem))


def _linked_kind(path: str, fmt: Format, config: Config) -> Kind | None:
    """The kind a file's path under a linked folder gives it (`Config.folder_links`): the
    runner that reads `rubrics/` through the link reads a rubric there."""
    for view in config.views(path):
        found = kind_named(config.kind_name(view)) or path_kind(view, fmt)
        if found is not None:
            return found
    return None


def _kind(doc: Document, forced: Kind | None, raw: bytes) -> Kind | None:
    path, fmt = doc.path, doc.fmt
    if doc.ok and not _all_broken(doc):
        return (
            forced
            or declared_kind(doc.text, doc.data)
            or _weighed(path_kind(path, fmt), doc.data)
            or content_kind(path, doc.data, fmt)
            or _weighed(claimed_kind(path, fmt), doc.data)
            or near_kind(path, doc.data, fmt)
        )
    return _unparsed_kind(path, fmt, forced, sniff_text(raw))


def _weighed(kind: Kind | None, data: JSON) -> Kind | None:
    """The kind a parsed file's path gives it, if its keys are that format's (`Kind.weighs`):
    path and name are evidence, the content decides."""
    if kind is None or kind.weighs is None or kind.weighs(data):
        return kind
    return None


def _all_broken(doc: Document) -> bool:
    """A JSONL file none of whose lines is a record: nothing to tell its kind by but its text
    (one good line would, and the others are its findings)."""
    return doc.fmt == "jsonl" and not doc.data and bool(doc.problems)


# Encodings a file that is not UTF-8 may still be in, told by its first bytes; what it says is
# read only to find its kind (the file is then a parse-error: runners read UTF-8).
_WIDE = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def sniff_text(raw: bytes) -> str:
    """A file's bytes as text to look for marker keys in: UTF-16 or UTF-32 (with a byte-order
    mark, or told by the zero bytes of ASCII text without one), else UTF-8 with replacements."""
    for bom, codec in _WIDE:
        if raw.startswith(bom):
            return raw.decode(codec, "replace")
    head = raw[:64]
    if len(head) >= 8 and head.count(0) * 4 >= len(head):
        zeros = (head[0::4].count(0), head[1::4].count(0), head[2::4].count(0), head[3::4].count(0))
        if zeros[1] == zeros[2] == zeros[3] == len(head[1::4]) and not zeros[0]:
            return raw.decode("utf-32-le", "replace")
        if zeros[0] == zeros[1] == zeros[2] == len(head[0::4]) and not zeros[3]:
            return raw.decode("utf-32-be", "replace")
        if head[1::2].count(0) > head[0::2].count(0):
            return raw.decode("utf-16-le", "replace")
        return raw.decode("utf-16-be", "replace")
    return raw.decode("utf-8", "replace")


def _unparsed_kind(path: str, fmt: Format, forced: Kind | None, text: str) -> Kind | None:
    """The kind of a file whose content cannot be read as data: from all but its data."""
    return (
        forced
        or declared_in_text(text)
        or path_kind(path, fmt)
        or claimed_kind(path, fmt)
        or sniffed_kind(path, text, fmt)
    )


OUTSIDE = "path-outside-repo"  # the rule of a file that leads out of the project


def _unread(
    path: str,
    fmt: Format,
    forced: Kind | None,
    message: str,
    head: str,
    rule: str = "parse-error",
) -> Diagnostic | Skipped:
    """A file that was not read whole: an error when a kind claims it (`rule`: parse-error, or
    path-outside-repo for a link out of the project), else a skip counted as unreadable."""
    if _unparsed_kind(path, fmt, forced, head) is None:
        return Skipped(path, message, unreadable=True, rule=rule)
    return Diagnostic(path, Span(1, 1, 1, 2), rule, Severity.ERROR, message)


def _head(source: Source, path: str) -> str:
    """The first bytes of a file too large to read, to look for what it declares: FIRST bytes
    past any leading whitespace (a record behind a million blank lines is still a record), the
    whitespace skipped block by block up to the file's end."""
    try:
        if isinstance(source, Streams):
            with source.open(path) as f:
                raw = f.read(FIRST)
                while raw and not raw.strip():
                    raw = f.read(FIRST)
                start = len(raw) - len(raw.lstrip())
                raw = raw[start:] + f.read(start)
        else:
            whole = source.read(path)
            raw = whole[len(whole) - len(whole.lstrip()) :][:FIRST]
    except OSError:
        return ""
    return sniff_text(raw)


# A JSONL file larger than CHUNK bytes, of a kind checked record by record, is read in chunks of
# about CHUNK bytes of whole lines (then max-file-size does not apply to the file, only to each
# line: memory stays flat). Its entry keeps only the first FIRST bytes, enough to tell its kind.
# 1 MiB: parsed, a chunk takes about 30 times its size; at 8 MiB a streamed file peaked at 230 MB
# of memory, at 1 MiB at 60 MB, no slower.
CHUNK = 1 * MiB
FIRST = 64 * 1024


def _first_chunk(path: str, source: Streams, config: Config, forced: Kind | None) -> Entry | None:
    with source.open(path) as f:
        raw = next(_line_blocks(f, FIRST, config.max_file_size), None)
    if raw is None:
        return None  # a first line over max-file-size: read as a whole file, and refused
    doc = parse(path, raw, "jsonl")
    kind = _kind(doc, forced, raw)
    if kind is None or not kind.per_record:
        return None  # read whole, under max-file-size
    return Entry(doc, kind, Rest(len(raw), raw.count(b"\n")))


def chunks(entry: Entry, source: Source, limit: int) -> Iterator[tuple[Document, int, int]]:
    """(document, lines of the file before it, chunk number) for each part of an entry: the
    entry's own document, then for a streamed file the rest, one chunk at a time. `limit`: the
    longest line read (max-file-size); the file is not read past a longer one."""
    yield entry.doc, 0, 0
    rest = entry.rest
    if rest is None or not isinstance(source, Streams):
        return
    path, lines, number, offset = entry.doc.path, rest.lines, 1, rest.offset
    with source.open(path) as f:
        f.seek(offset)
        for raw in _line_blocks(f, CHUNK, limit):
            if raw is None:
                message = (
                    f"line {lines + 1} is over max-file-size ({limit:,} bytes); "
                    "the rest of the file is not read"
                )
                problem = Problem(Span(1, 1, 1, 2), message)
                yield Document(path, "jsonl", "", [], True, (problem,)), lines, number
                return
            yield parse(path, raw, "jsonl", offset), lines, number
            lines, number, offset = lines + raw.count(b"\n"), number + 1, offset + len(raw)


def _line_blocks(f: BinaryIO, size: int, limit: int) -> Iterator[bytes | None]:
    """Blocks of about `size` bytes that end at a line's end (or the file's); None for a line
    longer than `limit`, after which nothing more is read."""
    carry = b""
    while block := f.read(size):
        data = carry + block
        if carry and data.find(b"\n", 0, limit + 1) < 0 and len(data) > limit:
            yield None
            return
        cut = data.rfind(b"\n") + 1
        if cut:
            carry = data[cut:]
            yield data[:cut]
        else:
            carry = data
    if carry:
        yield carry if len(carry) <= limit else None


@record
class Scan:
    """What one pass over a large file's bytes tells: its digests and record count."""

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
