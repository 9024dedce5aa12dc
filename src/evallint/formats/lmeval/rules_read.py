"""How lm-evaluation-harness reads a config (0.4.13), for its rules: the includes merged as its
loader merges them, each `!function` resolved as its loader resolves it (the module parsed, never
imported), and the fields it renders as Jinja.

The loader loads each `include:` first, relative to the including file, in order, and lets the
file's own keys win; its seen set spans the whole load, so a file reached twice is an "Include
cycle" even without a loop. A `!function mod.fn` is imported from `mod.py` beside the file that
writes the tag (dots are folders), else as an installed module.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.lmeval import kinds as lmeval
from evallint.model import JSON, Pointer, Tagged
from evallint.records import record, replace
from evallint.suggest import suggest

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.parse.python import Module
    from evallint.rules.api import Context

# How deep an include chain is followed: far past any real one (upstream's deepest is 4).
MAX_INCLUDE_DEPTH = 32


@record
class Link:
    """One `include:` entry and what became of it."""

    at: str  # the file that writes it
    pointer: Pointer
    problem: str | None = None


@record
class Chain:
    """A config as the harness merges it, and the files and links that made it."""

    merged: dict[str, JSON]
    links: tuple[Link, ...]
    templates: tuple[Document, ...]  # every included file that was read, in load order
    origins: dict[str, str]  # top-level key -> the file whose value the merge kept


class _Loader:
    """One load of a config through its includes, as the harness does it."""

    def __init__(self, ctx: Context, root: str) -> None:
        self.ctx, self.root = ctx, root
        self.seen: set[str] = set()  # (`set[str]()` costs an exception a call: one a config)
        self.top: Pointer = ()  # the root's include entry the load is under
        self.links: list[Link] = []
        self.templates: list[Document] = []
        self.origins: dict[str, str] = {}

    def load(self, path: str, data: dict[str, JSON], depth: int) -> dict[str, JSON]:
        self.seen.add(path)
        merged: dict[str, JSON] = {}
        for pointer, written in lmeval.include_entries(data):
            if not isinstance(written, str):
                continue  # the schema reports it
            if depth == 0:
                self.top = pointer
            found = self.include(path, pointer, written, depth)
            if found is not None:
                merged.update(found)
                merged.pop("task_list", None)  # never inherited
        own = dict(data)  # a copy at C speed, then the one key dropped
        own.pop("include", None)
        merged.update(own)
        self.origins.update(dict.fromkeys(own, path))
        return merged

    def include(
        self, path: str, pointer: Pointer, written: str, depth: int
    ) -> dict[str, JSON] | None:
        target = lmeval.include_target(path, written)
        problem, doc = self.open(target, written, depth)
        if target in self.seen or depth >= MAX_INCLUDE_DEPTH:
            # Reached twice, or too deep: a fact of this load, not of the file that writes the
            # include; reported where the root's load went that way.
            path, pointer = self.root, self.top
        self.links.append(Link(path, pointer, problem))
        if problem is not None or doc is None or not isinstance(doc.data, dict):
            return None
        self.templates.append(doc)
        if "include" in doc.data:
            return self.load(doc.path, doc.data, depth + 1)
        # A template that includes nothing (most): loaded as it is, without a copy; the
        # merge above copies what it keeps.
        self.seen.add(doc.path)
        self.origins.update(doc.facts.get(_origins, doc))
        return doc.data

    def open(
        self, target: str | None, written: str, depth: int
    ) -> tuple[str | None, Document | None]:
        if target is None:
            return f"include {written!r} lies outside the repository; it is not read", None
        if target in self.seen:
            return (
                f"include {written!r} is reached twice in this config's includes; the harness "
                'stops at a file it has loaded once ("Include cycle")',
                None,
            )
        if depth >= MAX_INCLUDE_DEPTH:
            return f"include {written!r} is {depth} includes deep; it is not followed", None
        others = self.ctx.others
        # The harness loads any include as YAML, whatever its name (`_template.txt`).
        doc = others.parsed(target, "yaml") if others is not None else "cannot be read"
        if isinstance(doc, str):
            return f"include {written!r}: {target} {doc}", None
        if not doc.ok:
            first = doc.problems[0]
            return (
                f"include {written!r}: {target} does not parse (line {first.span.line}: "
                f"{first.message})",
                None,
            )
        if not isinstance(doc.data, dict):
            return f"include {written!r}: {target} holds no mapping; the harness needs one", None
        return None, doc


def _origins(doc: Document) -> dict[str, str]:
    """Each top-level key of a template that includes nothing, and the template: what its keys'
    origins are wherever it is included."""
    return dict.fromkeys(doc.data if isinstance(doc.data, dict) else (), doc.path)


def chain(doc: Document, ctx: Context) -> Chain:
    """The document's config merged through its includes, worked out once for each view of
    the files (`ctx.others`: a partial run asks again of the files as the base had them)."""
    if ctx.others is None:
        return _chain(doc, ctx)
    key = ("lm-eval-chain", doc.path)
    found = ctx.others.memo.get(key)
    if not isinstance(found, Chain):
        found = ctx.others.memo[key] = _chain(doc, ctx)
    return found


def _chain(doc: Document, ctx: Context) -> Chain:
    loader = _Loader(ctx, doc.path)
    data = doc.data if isinstance(doc.data, dict) else {}
    merged = loader.load(doc.path, data, 0)
    return Chain(merged, tuple(loader.links), tuple(loader.templates), loader.origins)


@record
class Verdict:
    """What a `!function` reference resolves to: an error, a note, or nothing (found)."""

    error: str | None = None
    note: str | None = None


def _verdict(folder: str, spec: str, ctx: Context) -> Verdict:
    module, _, name = spec.strip().rpartition(".")
    if not module or not name:
        return Verdict(f"!function {spec!r} names no module: the harness needs `module.name`")
    if "/" in module or "\\" in module or module.startswith("."):
        # 0.4.13 makes every dot a folder (`../shared/utils` is `///shared/utils.py`, from
        # the file system's root) and then imports the text as a module name: neither loads.
        return Verdict(
            f"!function {spec!r}: the harness turns each dot of {module!r} into a folder "
            f"({module.replace('.', '/')}.py, no file it can load) and cannot import it as a "
            "module; name a module beside the config (`utils.fn`), or below it with dots"
        )
    tried = lmeval.module_paths(folder, module)
    local = next((p for p in tried if p in ctx.files), tried[0])
    if local not in ctx.files or ctx.others is None:
        return Verdict(
            note=f"!function {spec!r}: {module} is not a module of this repository; "
            "the harness imports it from its environment, which is not checked"
        )
    found = ctx.others.python(local)
    if isinstance(found, str):
        return Verdict(f"!function {spec!r}: {local} {found}")
    return _named(spec, name, local, found)


def _named(spec: str, name: str, local: str, module: Module) -> Verdict:
    if module.error is not None:
        return Verdict(note=f"!function {spec!r}: {local} {module.error}; not checked")
    if name in module.names:
        return Verdict()
    if module.dynamic is not None:
        return Verdict(
            note=f"!function {spec!r}: {local} binds no {name!r} in its text, but "
            f"{module.dynamic}, so it may make {name!r} when imported"
        )
    hint = suggest(name, module.names)
    tail = f"; did you mean {hint!r}?" if hint else ""
    return Verdict(f"!function {spec!r}: {local} defines no {name!r}{tail}")


def _cached_verdict(at: str, spec: str, ctx: Context) -> Verdict:
    """Worked out once a run for each folder and reference: thousands of tasks share both."""
    key = ("lm-eval-function", at.rpartition("/")[0], spec)
    memo = ctx.others.memo if ctx.others is not None else {}
    found = memo.get(key)
    if not isinstance(found, Verdict):
        found = memo[key] = _verdict(key[1], spec, ctx)
    return found


Reference = tuple[str, Pointer, tuple[int, int] | None, Verdict]


def references(doc: Document, ctx: Context) -> list[Reference]:
    """Each `!function` of the document and of the templates it includes, with its verdict:
    (file, where, offsets within the root's text for a value a duplicate key replaced).
    Worked out once a document and view of the files, for the rules that ask."""
    if ctx.others is None:
        return list(_references(doc, ctx))
    key = ("lm-eval-references", doc.path)
    found = ctx.others.memo.get(key)
    if not isinstance(found, list):
        found = ctx.others.memo[key] = list(_references(doc, ctx))
    return found


def _references(doc: Document, ctx: Context) -> Iterator[Reference]:
    for source in (doc, *chain(doc, ctx).templates):
        for pointer, within, spec in source.facts.get(_tags, source):
            yield source.path, pointer, within, _cached_verdict(source.path, spec, ctx)


def _tags(source: Document) -> list[tuple[Pointer, tuple[int, int] | None, str]]:
    """(where, offsets for a value a duplicate key replaced, `mod.fn`) of each `!function` a
    file writes: walked once a file, however many configs include it."""
    if Tagged.tag not in source.text:
        return []  # no tag written: nothing to walk (most files)
    found: list[tuple[Pointer, tuple[int, int] | None, str]] = [
        (pointer, None, spec) for pointer, spec in lmeval.functions(source.data)
    ]
    if any(p.rule == "duplicate-key" for p in source.problems):
        found += [((), within, spec) for within, spec in _superseded(source)]
    return found


def _superseded(doc: Document) -> Iterator[tuple[tuple[int, int], str]]:
    """The `!function` values of keys written again later: the harness's loader imports the
    function as it reads each value, so the replaced one must exist too."""
    import yaml

    smap = doc.source_map()
    if smap is None:
        return
    lines = smap.lines
    kept = set()
    for pointer, _ in lmeval.functions(doc.data):
        span = smap.values.get(pointer)
        if span is not None:
            kept.add(lines.offset(span.line, span.column))
    root = smap.values.get(())
    base = lines.offset(root.line, root.column) if root is not None else 0
    try:
        for event in yaml.parse(doc.text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            marks = (event.start_mark, event.end_mark)
            if isinstance(event, yaml.ScalarEvent) and event.tag == Tagged.tag and all(marks):
                start, end = marks[0].index, marks[1].index  # type: ignore[union-attr]
                if start not in kept and start >= base:
                    yield (start - base, end - base), event.value
    except yaml.YAMLError:
        return


# The fields the harness renders with Jinja (delimiters are inserted verbatim, not rendered).
TEMPLATED = (
    "doc_to_text",
    "doc_to_target",
    "doc_to_choice",
    "doc_to_image",
    "doc_to_audio",
    "description",
    "gen_prefix",
)


def templates(data: JSON) -> Iterator[tuple[Pointer, str]]:
    """(where, text) of each templated field, in the config and in its `fewshot_config`."""
    if not isinstance(data, dict):
        return
    for scope, fields in ((), data), (("fewshot_config",), data.get("fewshot_config")):
        if not isinstance(fields, dict):
            continue
        for key in TEMPLATED:
            value = fields.get(key)
            if isinstance(value, str) and not isinstance(value, Tagged) and "{" in value:
                yield (*scope, key), value


# What a task's results do not depend on: a change to these alone needs no new version.
# (`description` is not among them: 0.4.13 puts it at the head of every prompt.)
NOT_SCORED = frozenset({"tag", "task_alias", "group_alias", "metadata", "include", "task_list"})


@record
class VersionChange:
    """A task whose scoring changed since the base: what changed, and its version then and now."""

    changed: tuple[str, ...]
    before: JSON
    after: JSON
    through: str  # "" when the task's own file changed it, else the file that did
    versioned_in: str  # the file whose `metadata` the task reports (its own, or a template's)


def version_of(merged: dict[str, JSON]) -> JSON:
    meta = merged.get("metadata")
    return meta.get("version") if isinstance(meta, dict) else None


def version_change(doc: Document, ctx: Context) -> VersionChange | None:
    """How the task's scoring changed against the base, through its includes and the
    functions they name; None when it did not, or nothing can be compared. Worked out once a
    document and view of the files, for both version rules."""
    if ctx.base_files is None or ctx.baseline is None or ctx.others is None:
        return None
    key = ("lm-eval-version", doc.path)
    memo = ctx.others.memo
    if key not in memo:
        memo[key] = _version_change(doc, ctx)
    found = memo[key]
    return found if isinstance(found, VersionChange) else None


def _version_change(doc: Document, ctx: Context) -> VersionChange | None:
    assert ctx.base_files is not None
    before = ctx.base_files.parsed(doc.path)
    if isinstance(before, str) or not before.ok or not isinstance(before.data, dict):
        return None  # a new task
    then = replace(ctx, others=ctx.base_files)
    head, base = chain(doc, ctx), chain(before, then)
    if any(link.problem for link in (*head.links, *base.links)):
        return None  # the include rule reports it
    keys = sorted((set(head.merged) | set(base.merged)) - NOT_SCORED)
    reasons = {k: why for k in keys if (why := _differs(k, head, base, ctx, then)) is not None}
    if not reasons:
        return None
    through = set(reasons.values()) - {doc.path}
    return VersionChange(
        tuple(reasons),
        version_of(base.merged),
        version_of(head.merged),
        ", ".join(sorted(through)),
        head.origins.get("metadata", doc.path),
    )


def _differs(key: str, head: Chain, base: Chain, ctx: Context, then: Context) -> str | None:
    """The file that changed a field: the one that writes its value, or the module of a
    function it names whose source changed; None when it did not change."""
    now, was = head.merged.get(key), base.merged.get(key)
    writer = head.origins.get(key) or base.origins.get(key, "")
    if now != was:
        return writer
    folder = writer.rpartition("/")[0]
    for _, spec in lmeval.functions(now):
        module, _, name = spec.strip().rpartition(".")
        if not module:
            continue
        path, source = _source(folder, module, name, ctx)
        if source is not None and source != _source(folder, module, name, then)[1]:
            return path  # (a function gone is lm-eval-function's to report)
    return None


def _source(folder: str, module: str, name: str, ctx: Context) -> tuple[str, str | None]:
    """The module the harness would import for `module`, and the text of its function `name`,
    in the view `ctx.others` gives of the files."""
    others = ctx.others
    tried = lmeval.module_paths(folder, module)
    for path in tried if others is not None else ():
        found = others.python(path) if others is not None else "absent"
        if not isinstance(found, str):
            return path, found.sources.get(name)
    return tried[0], None


def in_harness(path: str, files: frozenset[str]) -> bool:
    """Whether the file is in the harness's own task package (`lm_eval/tasks/`, with its index
    and manager beside the task folders), where the built-in tasks all are: a folder above it
    holds all three. A few lookups a file, whatever the tree's size."""
    folder = path
    while folder:
        folder = folder.rpartition("/")[0]
        at = f"{folder}/" if folder else ""
        if all(at + name in files for name in _PACKAGE):
            return True
    return False


_PACKAGE = ("_index.py", "manager.py", "__init__.py")


def is_task(doc: Document) -> bool:
    """A file the harness indexes as a task it builds from the config (not a Python class)."""
    data = doc.data
    return (
        doc.path.endswith(".yaml")
        and isinstance(data, dict)
        and isinstance(data.get("task"), str)
        and "group" not in data
    )
