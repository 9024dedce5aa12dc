"""lm-evaluation-harness rules: includes, `!function` references, and what a task needs whole.

The harness (0.4.13) loads a config by loading each `include:` first, relative to the including
file, in order, and letting the file's own keys win; the seen set spans the whole load, so a
file reached twice is an "Include cycle" even without a loop. A `!function mod.fn` is imported
from `mod.py` beside the file that writes the tag (dots are folders), else as an installed
module. Findings about a template are reported on the template, once, whichever task reached it:
the engine places a finding with `path` in that file and drops repeats.
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.kinds import lmeval
from evallint.model import JSON, Finding, Pointer, Severity, Tagged
from evallint.parse import format_of
from evallint.parse.python import Module
from evallint.records import record
from evallint.rules.base import rule
from evallint.suggest import suggest
from evallint.validation.schemas import load_schema

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context

# How deep an include chain is followed: far past any real one (upstream's deepest is 4).
MAX_INCLUDE_DEPTH = 32


@record
class Link:
    """One `include:` entry and what became of it."""

    at: str  # the file that writes it
    pointer: Pointer
    target: str  # the included file's project path ("" when it has none)
    problem: str | None = None


@record
class Chain:
    """A config as the harness merges it, and the files and links that made it."""

    merged: dict[str, JSON]
    links: tuple[Link, ...]
    templates: tuple[Document, ...]  # every included file that was read, in load order


def _entries(data: dict[str, JSON]) -> list[tuple[Pointer, JSON]]:
    found = data.get("include")
    if isinstance(found, list):
        return [(("include", i), inc) for i, inc in enumerate(found)]
    return [] if found is None else [(("include",), found)]


def _target(at: str, written: str) -> str | None:
    """The project path the harness would open, or None when it lies outside the project."""
    if written.startswith(("/", "~")) or "\\" in written:
        return None
    folder = at.rpartition("/")[0]
    normal = posixpath.normpath(f"{folder}/{written}" if folder else written)
    return None if normal == ".." or normal.startswith("../") else normal


class _Loader:
    """One load of a config through its includes, as the harness does it."""

    def __init__(self, ctx: Context, root: str) -> None:
        self.ctx, self.seen, self.root = ctx, set[str](), root
        self.top: Pointer = ()  # the root's include entry the load is under
        self.links: list[Link] = []
        self.templates: list[Document] = []

    def load(self, path: str, data: dict[str, JSON], depth: int) -> dict[str, JSON]:
        self.seen.add(path)
        merged: dict[str, JSON] = {}
        for pointer, written in _entries(data):
            if not isinstance(written, str):
                continue  # the schema reports it
            if depth == 0:
                self.top = pointer
            found = self.include(path, pointer, written, depth)
            if found is not None:
                found.pop("task_list", None)  # never inherited
                merged.update(found)
        merged.update((k, v) for k, v in data.items() if k != "include")
        return merged

    def include(
        self, path: str, pointer: Pointer, written: str, depth: int
    ) -> dict[str, JSON] | None:
        target = _target(path, written)
        problem, doc = self.open(target, written, depth)
        if target in self.seen or depth >= MAX_INCLUDE_DEPTH:
            # Reached twice, or too deep: a fact of this load, not of the file that writes the
            # include; reported where the root's load went that way.
            path, pointer = self.root, self.top
        self.links.append(Link(path, pointer, target or "", problem))
        if problem is not None or doc is None or not isinstance(doc.data, dict):
            return None
        self.templates.append(doc)
        return self.load(doc.path, doc.data, depth + 1)

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
        doc = others.parsed(target) if others is not None else "cannot be read"
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


def chain(doc: Document, ctx: Context) -> Chain:
    """The document's config merged through its includes (worked out once a document)."""
    return doc.facts.get(_chain, doc, ctx)


def _chain(doc: Document, ctx: Context) -> Chain:
    loader = _Loader(ctx, doc.path)
    data = doc.data if isinstance(doc.data, dict) else {}
    merged = loader.load(doc.path, data, 0)
    return Chain(merged, tuple(loader.links), tuple(loader.templates))


def _here(
    doc: Document,
    at: str,
    pointer: Pointer,
    message: str,
    *,
    on_key: bool = False,
    within: tuple[int, int] | None = None,
) -> Finding:
    """A finding in the document, or in the template `at` (placed there, once)."""
    elsewhere = None if at == doc.path else at
    return Finding(pointer, message, on_key=on_key, within=within, path=elsewhere)


@rule("lm-eval-include", Severity.ERROR, kinds=lmeval.KINDS, reads_files=True)
def lm_eval_include(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An `include:` the harness cannot load: missing, outside the repository, unparsable, or
    reached twice.

    The harness loads each include relative to the file that names it, before the file's own
    keys. A missing or broken include fails the task when the harness indexes it (the task
    silently disappears from `--tasks list`). The harness keeps one set of files seen for the
    whole load, so a file reached twice, by a loop or by two includes of one template, is an
    "Include cycle". Reported on the file that writes the include, once.

    Bad (tasks/demo/demo.yaml):
        include: _defaults.yaml
        task: demo
    Given (tasks/demo/_default.yaml):
        output_type: generate_until
        dataset_path: demo/data
    Good (tasks/demo/demo.yaml):
        include: _default.yaml
        task: demo
    """
    for link in chain(doc, ctx).links:
        if link.problem is not None:
            yield _here(doc, link.at, link.pointer, link.problem)


def _functions(data: JSON, pointer: Pointer = ()) -> Iterator[tuple[Pointer, str]]:
    """(where, `mod.fn`) of every `!function` value, depth first."""
    stack: list[tuple[Pointer, JSON]] = [(pointer, data)]
    while stack:
        at, value = stack.pop()
        if isinstance(value, Tagged):
            yield at, str(value)
        elif isinstance(value, dict):
            stack.extend(((*at, k), v) for k, v in reversed(list(value.items())))
        elif isinstance(value, list):
            stack.extend(((*at, i), v) for i, v in reversed(list(enumerate(value))))


def _tasks_root(folder: str) -> str | None:
    """The `tasks` folder a config's folder lies in: where `lm_eval.tasks.x.utils` is found."""
    parts = folder.split("/")
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] == "tasks":
            return "/".join(parts[: i + 1])
    return None


@record
class Verdict:
    """What a `!function` reference resolves to: an error, a note, or nothing (found)."""

    error: str | None = None
    note: str | None = None


def _verdict(folder: str, spec: str, ctx: Context) -> Verdict:
    module, _, name = spec.strip().rpartition(".")
    if not module or not name:
        return Verdict(f"!function {spec!r} names no module: the harness needs `module.name`")
    local = posixpath.normpath(f"{folder}/{module.replace('.', '/')}.py".lstrip("/"))
    if module.startswith("lm_eval.tasks.") and local not in ctx.files:
        root = _tasks_root(folder)
        if root is not None:
            local = f"{root}/{module.removeprefix('lm_eval.tasks.').replace('.', '/')}.py"
    if local.startswith("../") or local not in ctx.files or ctx.others is None:
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


def _references(doc: Document, ctx: Context) -> Iterator[Reference]:
    """Each `!function` of the document and of the templates it includes, with its verdict:
    (file, where, offsets within the root's text for a value a duplicate key replaced)."""
    for source in (doc, *chain(doc, ctx).templates):
        for pointer, spec in _functions(source.data):
            yield source.path, pointer, None, _cached_verdict(source.path, spec, ctx)
        if any(p.rule == "duplicate-key" for p in source.problems):
            for within, spec in _superseded(source):
                yield source.path, (), within, _cached_verdict(source.path, spec, ctx)


def _superseded(doc: Document) -> Iterator[tuple[tuple[int, int], str]]:
    """The `!function` values of keys written again later: the harness's loader imports the
    function as it reads each value, so the replaced one must exist too."""
    import yaml

    smap = doc.source_map()
    if smap is None:
        return
    lines = smap.lines
    kept = set()
    for pointer, _ in _functions(doc.data):
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


@rule("lm-eval-function", Severity.ERROR, kinds=lmeval.KINDS, reads_files=True)
def lm_eval_function(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A `!function module.name` whose module or name does not exist.

    The harness imports `module.py` from the folder of the file that writes the tag (dots in
    `module` are folders; `lm_eval.tasks.x.y` is `x/y.py` under the task tree) and looks the
    name up; a missing module or name fails the task when it is built. The module is parsed,
    never imported: a name counts when the module binds it (`def`, `class`, assignment,
    import). Reported on the file that writes the tag, once.

    Bad (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        process_docs: !function utils.proces_docs
    Given (tasks/demo/utils.py):
        def process_docs(dataset):
            return dataset
    Good (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        process_docs: !function utils.process_docs
    """
    for at, pointer, within, verdict in _references(doc, ctx):
        if verdict.error is not None:
            yield _here(doc, at, pointer, verdict.error, within=within)


@rule("lm-eval-function-unverified", Severity.NOTE, kinds=lmeval.KINDS, reads_files=True)
def lm_eval_function_unverified(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A `!function` that cannot be checked by reading the repository.

    The module is not in the repository (the harness imports it from the environment), does
    not parse here, or can make names as it runs (`globals()` written in a loop, `setattr`, a
    star import): the name may exist, so this is a note that says why it was not decided.

    Bad (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        process_results: !function my_package.scoring.score
    Good (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        process_results: !function utils.score
    Given (tasks/demo/utils.py):
        def score(doc, results):
            return {"acc": 1.0}
    """
    for at, pointer, within, verdict in _references(doc, ctx):
        if verdict.note is not None:
            yield _here(doc, at, pointer, verdict.note, within=within)


def _is_task(doc: Document) -> bool:
    """A file the harness indexes as a task it builds from the config (not a Python class)."""
    data = doc.data
    return (
        doc.path.endswith(".yaml")
        and isinstance(data, dict)
        and isinstance(data.get("task"), str)
        and "group" not in data
    )


@rule("lm-eval-missing-choices", Severity.ERROR, kinds=lmeval.KINDS, reads_files=True)
def lm_eval_missing_choices(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A `multiple_choice` task with no `doc_to_choice`, in the file or its includes.

    A multiple-choice task scores the model's likelihood of each choice; without
    `doc_to_choice` (or a promptsource `use_prompt`) the harness has no choices and the task
    fails when it builds its requests. Reported at `output_type` when the file writes it, else
    at `task`.

    Bad (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        output_type: multiple_choice
        doc_to_text: "{{question}}"
        doc_to_target: label
    Good (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        output_type: multiple_choice
        doc_to_text: "{{question}}"
        doc_to_target: label
        doc_to_choice: ["no", "yes"]
    """
    if not _is_task(doc):
        return
    merged = chain(doc, ctx).merged
    if merged.get("output_type") != "multiple_choice" or "class" in merged:
        return
    if merged.get("doc_to_choice") is None and merged.get("use_prompt") is None:
        data = doc.data if isinstance(doc.data, dict) else {}
        where: Pointer = ("output_type",) if "output_type" in data else ("task",)
        yield Finding(
            where,
            "output_type multiple_choice needs doc_to_choice; none is set here or in the includes",
        )


@functools.cache
def _known() -> frozenset[str]:
    name = lmeval.TASK.schema
    return frozenset(load_schema(name)["properties"]) if name else frozenset()


def _unknown(data: dict[str, JSON], merged: dict[str, JSON]) -> Iterator[tuple[str, str]]:
    """(key, hint) of the keys a task config cannot take; none when a class reads the config."""
    if "class" in merged:
        return
    known = _known()
    for key in data:
        if key not in known:
            yield key, suggest(key, known) or ""


@rule("lm-eval-unknown-key", Severity.ERROR, kinds=lmeval.KINDS, reads_files=True, fixable=False)
def lm_eval_unknown_key(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A key no task config takes, where only the includes tell whether a Python class reads it.

    The harness builds a task with `TaskConfig(**config)`, which fails on a key it does not
    know; a config whose includes name a `class` hands every key to that class instead. The
    schema reports unknown keys of a file that includes nothing; this rule those of a file
    with includes (once the merged config is known to have no `class`), and those of an
    included template without a YAML extension, which is checked only through its includers.

    Bad (tasks/demo/demo.yaml):
        include: _default.yaml
        task: demo
        doc_to_taget: label
    Given (tasks/demo/_default.yaml):
        output_type: generate_until
        dataset_path: demo/data
    Good (tasks/demo/demo.yaml):
        include: _default.yaml
        task: demo
        doc_to_target: label
    """
    data = doc.data if isinstance(doc.data, dict) else {}
    found = chain(doc, ctx)
    sources: list[tuple[str, dict[str, JSON]]] = []
    if "include" in data:
        sources.append((doc.path, data))
    sources += [(t.path, t.data) for t in found.templates if format_of(t.path) is None]
    for at, keys in sources:
        for key, hint in _unknown(keys, found.merged):
            tail = f"; did you mean {hint!r}?" if hint else ""
            message = f"unknown key {key!r}: the harness's task config does not take it{tail}"
            yield _here(doc, at, (key,), message, on_key=True)


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


def _templates(data: JSON) -> Iterator[tuple[Pointer, str]]:
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


def _within(doc: Document, pointer: Pointer, value: str, start: int, end: int) -> Finding:
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


@rule("lm-eval-template", Severity.ERROR, kinds=lmeval.KINDS, reads_files=True)
def lm_eval_template(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A Jinja template the harness cannot compile: an unclosed `{{`, an unbalanced block, an
    unknown tag or filter.

    `doc_to_text`, `doc_to_target`, `doc_to_choice`, `description` and the other prompt fields
    are Jinja templates, rendered for every document; one that does not compile fails the task
    when it runs, often after the model is loaded. The filters are Jinja's and the harness's
    `regex_replace`. Read in one pass, in time linear in the template.

    Bad (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        doc_to_text: "Question: {{question}\\nAnswer:"
    Good (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        doc_to_text: "Question: {{question}}\\nAnswer:"
    """
    from evallint.parse.jinja import FILTERS, problems

    filters = FILTERS | {"regex_replace"}
    for source in (doc, *chain(doc, ctx).templates):
        for pointer, text in _templates(source.data):
            for p in problems(text, filters):
                placed = _within(source, pointer, text, p.start, p.end)
                at = None if source.path == doc.path else source.path
                yield Finding(pointer, p.message, within=placed.within, path=at)
