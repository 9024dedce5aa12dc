"""What a rule sees besides its document: the `Context` (the project, the configuration, the
base of a change, other files read on demand). Rules import this and what lies below it, never
the engine that runs them."""

from __future__ import annotations

import contextlib
import datetime
import re
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from evallint.config import Config
from evallint.io.source import Source, read_capped
from evallint.kinds import Kind
from evallint.kinds.base import FileRef
from evallint.model import JSON, Finding, Pointer
from evallint.parse import Document, Format, format_of, parse
from evallint.project import Entry, Project
from evallint.read import Scan, read_entry, scan
from evallint.records import record, replace
from evallint.suggest import suggest
from evallint.validation.keys import ObjectKeys, closed_check, walk_keys
from evallint.validation.schemas import FEW, Engines, SchemaError, validate

if TYPE_CHECKING:
    from evallint.baseline import Baseline
    from evallint.parse.csvload import Table
    from evallint.parse.python import Module


_MISSING = re.compile(r"missing required key '([^']*)'")


def missing_key(err: SchemaError) -> str | None:
    """The key a `required` schema error says is missing."""
    found = _MISSING.fullmatch(err.message) if err.keyword == "required" else None
    return found.group(1) if found else None


_KEY_RULES = frozenset({"key-typo", "unknown-key"})


def _misspelt_required(doc: Document, ctx: Context) -> frozenset[tuple[Pointer, str]]:
    # Where the kind's runner only warns of a misspelt key, the missing required key stays an
    # error of its own: folding it would leave a file the runner refuses with a warning.
    if not ctx.kind.warns.isdisjoint(_KEY_RULES):
        return frozenset()
    missing = {(err.pointer, key) for err in ctx.schema_errors(doc) if (key := missing_key(err))}
    if not missing:
        return frozenset()
    out = set()
    for obj in ctx.object_keys(doc):
        held = held_keys(doc.data, obj.pointer)
        free = [k for k in obj.known if k not in held]
        for key in obj.unknown:
            hint = suggest(key, free)
            if hint is not None and (obj.pointer, hint) in missing:
                out.add((obj.pointer, hint))
    return frozenset(out)


def held_keys(data: JSON, pointer: Pointer) -> frozenset[str]:
    """The keys of the object at `pointer` (none when no object is there): what a key rule
    may not suggest, since the object already holds it."""
    for part in pointer:
        if isinstance(data, dict):
            data = data.get(part)
        elif isinstance(data, list) and isinstance(part, int) and part < len(data):
            data = data[part]
        else:
            return frozenset()
    return frozenset(data) if isinstance(data, dict) else frozenset()


def within(doc: Document, pointer: Pointer, value: str, start: int, end: int) -> Finding:
    """Offsets into a value, as offsets into its text in the file where that text is the value
    written on one line (plain, or quoted with escapes); else the whole value."""
    raw = (doc.raw(pointer) or "").strip()
    if raw == value:
        return Finding(pointer, "", within=(start, end))
    first, last = _raw_offset(raw, start), _raw_offset(raw, end)
    if first is None or last is None:
        return Finding(pointer, "")
    return Finding(pointer, "", within=(first, last))


_ESCAPE_LENGTH = {"x": 4, "u": 6, "U": 10}


def _raw_offset(raw: str, offset: int) -> int | None:
    """Where the value's character `offset` lies in a quoted scalar's one-line text."""
    if len(raw) < 2 or raw[0] not in "'\"" or raw[-1] != raw[0] or "\n" in raw:
        return None
    quote, r, v = raw[0], 1, 0
    while v < offset and r < len(raw) - 1:
        if quote == '"' and raw[r] == "\\":
            r += _ESCAPE_LENGTH.get(raw[r + 1 : r + 2], 2)
        elif quote == "'" and raw.startswith("''", r):
            r += 2
        else:
            r += 1
        v += 1
    return r if v == offset else None


def never(path: str) -> bool:
    return False


class Others:
    """Other files of the project, for rules that check a file against its companions.

    Only listed files inside the project are read, each at most once.
    """

    def __init__(
        self, source: Source, config: Config, listed: frozenset[str], outside: Callable[[str], bool]
    ) -> None:
        self.source, self.config, self.listed, self.outside = source, config, listed, outside
        self._docs: dict[str, Document | None] = {}
        self._scans: dict[str, Scan | None] = {}
        self._raw: dict[str, Document | str] = {}
        self._modules: dict[str, Module | str] = {}
        self._texts: dict[bytes, Module] = {}  # each module text parsed, by its bytes
        self.memo: dict[object, object] = {}  # what rules work out once a run from these files

    def scan(self, path: str) -> Scan | None:
        """A listed file's digests and records, read in blocks: memory stays flat."""
        if path not in self._scans:
            self._scans[path] = None
            if path in self.listed and not self.outside(path):
                with contextlib.suppress(OSError):  # unreadable: no facts, as if absent
                    self._scans[path] = scan(self.source, path)
        return self._scans[path]

    def raw(self, path: str) -> bytes | str:
        """A listed file's bytes, or why it cannot be read (absent, outside, too large)."""
        if path not in self.listed:
            return "does not exist"
        if self.outside(path):
            return "leads out of the repository"
        try:
            found = read_capped(self.source, path, self.config.max_file_size)
        except OSError as exc:
            return f"cannot be read: {exc.strerror or exc}"
        return found if isinstance(found, bytes) else "is over max-file-size"

    def parsed(self, path: str, fmt: Format | None = None) -> Document | str:
        """A listed file parsed by its format (CSV by its name too), as YAML when its name has
        none (`include:` templates often have no extension), with no kind: the document, or
        why there is none. `fmt`: the format its reader reads whatever the name (the harness
        reads any include as YAML, `.txt` too)."""
        key = path if fmt is None else f"{fmt}:{path}"
        found = self._raw.get(key)
        if found is None:
            raw = self.raw(path)
            fmt = fmt or format_of(path) or _READ_AS.get(path[path.rfind(".") :].lower(), "yaml")
            found = self._raw[key] = raw if isinstance(raw, str) else parse(path, raw, fmt)
        return found

    def python(self, path: str) -> Module | str:
        """What a listed Python module binds, by parsing it (never importing it), or why it
        cannot be read."""
        found = self._modules.get(path)
        if found is None:
            raw = self.raw(path)
            # By content: a tree copies one helper module into many folders (the harness
            # tree's 560 modules hold 235 texts).
            found = raw if isinstance(raw, str) else self._texts.get(raw) or self._read(raw)
            self._modules[path] = found
        return found

    def _read(self, raw: bytes) -> Module:
        from evallint.parse.python import read_module  # `ast`: only a run that reads Python

        found = self._texts[raw] = read_module(raw)
        return found

    def load(self, path: str) -> Document | None:
        if path not in self._docs:
            found = (
                read_entry(path, self.source, self.config)
                if path in self.listed and not self.outside(path)
                else None
            )
            self._docs[path] = found.doc if isinstance(found, Entry) else None
        return self._docs[path]


_At = TypeVar("_At", bound=SchemaError | ObjectKeys)  # a finding of a unit, at a pointer
Unit = tuple[Pointer, str, JSON]  # where, which schema, the data


def _schema_errors(doc: Document, ctx: Context) -> list[SchemaError]:
    return ctx._per_unit(doc, lambda name, data: validate(name, data, ctx.engines))


def _object_keys(doc: Document, ctx: Context) -> list[ObjectKeys]:
    return ctx._per_unit(doc, walk_keys)  # units the closed copy called clean are left out


def _open_units(doc: Document, ctx: Context) -> list[Unit]:
    """The units the closed copy of their schema does not already call clean: one fast call
    answers both "valid?" and "every key named?" for the common record, so a clean record costs
    one engine call, not two (the closed copy only ever rejects more)."""
    units = doc.facts.get(_units, doc, ctx)
    if len(units) == 1:  # a document: no counting
        ((_, name, data),) = units
        check = closed_check(name, ctx.engines)
        return [] if check and check(data) else units
    counts = Counter(name for _, name, _ in units)  # a JSONL chunk asks once per schema
    quick = {name: closed_check(name, ctx.engines, n) for name, n in counts.items()}
    return [unit for unit in units if not ((check := quick[unit[1]]) and check(unit[2]))]


def _units(doc: Document, ctx: Context) -> list[Unit]:
    """(where, schema, data) for the document, or for each record of a JSONL kind."""
    kind = ctx.kind
    records = (
        enumerate(doc.data)
        if kind.per_record and isinstance(doc.data, list)
        else [(None, doc.data)]
    )
    out: list[Unit] = []
    forced = ctx.config.eee_version
    for i, data in records:
        name = (
            kind.forced_schema(forced) if forced and kind.forced_schema else kind.schema_for(data)
        )
        if name:
            out.append((() if i is None else (i,), name, data))
    return out


@record
class Context:
    """What a rule may know besides its document."""

    kind: Kind
    config: Config
    project: Project
    today: datetime.date
    baseline: Baseline | None = None  # with --diff or --base: the change and its base
    base_project: Project | None = None
    files: frozenset[str] = frozenset()  # every file of the project (for file references)
    outside: Callable[[str], bool] = never  # a listed path that leads out of the project
    others: Others | None = None  # companion files, read on demand
    chunk: int = 0  # which chunk of a large JSONL file (rules that report once use the first)
    lines: int = 0  # lines of the file before this chunk
    streamed: bool = False  # the file is read in chunks: what a rule carries between them
    engines: Engines = FEW  # when the fast validation engine is asked first
    root_name: str = ""  # the repository folder's own name (site-root paths start with it)
    # The project's files as the change's base has them (diff mode), read on demand: rules that
    # compare what a file reads (a template it includes, a module it names) then and now.
    base_files: Others | None = None

    def schema_errors(self, doc: Document) -> list[SchemaError]:
        return doc.facts.get(_schema_errors, doc, self)

    def object_keys(self, doc: Document) -> list[ObjectKeys]:
        return doc.facts.get(_object_keys, doc, self)

    def misspelt_required(self, doc: Document) -> frozenset[tuple[Pointer, str]]:
        """(object, key) of each required key the schema finds missing where the object holds
        a misspelling of it: one slip, which the key rules report (saying what it causes)
        and `schema-violation` does not report again."""
        return doc.facts.get(_misspelt_required, doc, self)

    def _per_unit(self, doc: Document, check: Callable[[str, JSON], list[_At]]) -> list[_At]:
        """`check` on each unit of the document, its pointers made the document's."""
        units = doc.facts.get(_open_units, doc, self)
        return [
            replace(found, pointer=(*at, *found.pointer))
            for at, name, data in units
            for found in check(name, data)
        ]


_WORD = re.compile(r"[A-Za-z_$][\w$]*")


def function_error(module: str, name: str, ctx: Context) -> str | None:
    """Why `name` is not in the script `module` (a project path), or None when it is or cannot
    be told. Python is parsed; JavaScript and others are searched for the name as a word. Of a
    dotted name (`Prompt.build`: a class's method) the first part is checked."""
    name = name.partition(".")[0]
    if ctx.others is None or module not in ctx.files:
        return None  # a missing script is missing-file's
    if module.endswith(".py"):
        found = ctx.others.python(module)
        if not isinstance(found, str) and found.unread:  # never passed in silence
            return f"{module} {found.error}: whether it defines {name!r} was not checked"
        if isinstance(found, str) or found.error is not None or found.dynamic is not None:
            return None
        if name in found.names:
            return None
        hint = suggest(name, found.names)
        return f"{module} defines no {name!r}" + (f"; did you mean {hint!r}?" if hint else "")
    raw = ctx.others.raw(module)
    if isinstance(raw, str) or not _WORD.fullmatch(name):
        return None
    text = raw.decode("utf-8", "replace")
    if re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", text):
        return None
    return f"{module} never names {name!r}"


def file_refs_of(doc: Document, kind: Kind) -> tuple[FileRef, ...]:
    """The files a document names (`Kind.file_refs`), worked out once for all its rules."""
    return doc.facts.get(_file_refs, doc.data, kind, key=kind.name)


def _file_refs(data: JSON, kind: Kind) -> tuple[FileRef, ...]:
    return tuple(kind.file_refs(data)) if kind.file_refs is not None else ()


# Files others name that are read by their own formats: promptfoo's CSV test files and prompt
# templates (placed by offsets); any other name without a format is read as YAML.
_READ_AS: dict[str, Format] = {".csv": "csv", ".txt": "text", ".md": "text", ".j2": "text"}


def csv_table(doc: Document) -> Table:
    """The records of a parsed CSV file with the places of their fields, scanned once a run
    (findings in a CSV file are placed by offsets)."""
    from evallint.parse.csvload import scan

    return doc.facts.get(scan, doc.text)


def compile_error(pattern: str, flags: int = 0) -> re.error | None:
    """Why Python's `re` cannot take a pattern from a file, if it cannot (never a crash)."""
    try:
        re.compile(pattern, flags)
    except re.error as exc:
        return exc
    except (OverflowError, RecursionError, MemoryError, ValueError) as exc:
        # a{4294967296}: a repeat count or nesting beyond what the engine can represent
        return re.error(f"beyond what the regex engine can hold: {exc}")
    return None
