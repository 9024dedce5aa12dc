"""promptfoo rules about what a config reads at run time: the tests of its test files, the
variables its prompts use, and the cells of its CSV test files.

Files are read as promptfoo reads them (never run): prompt texts for their `{{ variables }}`,
YAML and JSON test files for their tests, CSV test files for their `__expected` cells.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

from evallint.formats.promptfoo import kinds as promptfoo
from evallint.kinds.base import FileRef
from evallint.model import JSON, Finding, Pointer, Severity
from evallint.rules.api import file_refs_of, within
from evallint.rules.base import rule

KINDS = promptfoo.KINDS


def refs_of(doc: Document) -> tuple[FileRef, ...]:
    """The files a config names, worked out once a document for all the rules that ask
    (`missing-file` among them)."""
    return file_refs_of(doc, promptfoo.CONFIG)


if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context


# What a test must hold for promptfoo to run it (a value JavaScript counts as true).
_TEST_NEEDS = ("assert", "vars", "options", "metadata", "provider", "providerOutput")


def _runnable(test: dict[str, JSON]) -> bool:
    if any(test.get(k) not in (None, False, 0, "") for k in _TEST_NEEDS):
        return True
    threshold = test.get("threshold")
    return isinstance(threshold, int | float) and not isinstance(threshold, bool)


def named_tests(doc: Document, ctx: Context) -> Iterator[tuple[Pointer, Document]]:
    """(where the config names it, the file parsed) of each YAML, JSON or CSV test file it
    names, read once a run (absent or unreadable files are other rules')."""
    for at, _, found in _test_files(doc, ctx):
        if not isinstance(found, str):
            yield at, found


def _test_files(doc: Document, ctx: Context) -> list[tuple[Pointer, str, Document | str]]:
    """(where, path, the file parsed or why it cannot be) of each listed test file; worked out
    once a document and view of the files, for the four rules that ask."""
    if ctx.others is None:
        return []
    key = ("promptfoo-tests", doc.path)
    found = ctx.others.memo.get(key)
    if found is None:
        found = ctx.others.memo[key] = list(_find_test_files(doc, ctx))
    return cast("list[tuple[Pointer, str, Document | str]]", found)  # only this writes the key


def _find_test_files(doc: Document, ctx: Context) -> Iterator[tuple[Pointer, str, Document | str]]:
    from evallint.kinds.base import candidates
    from evallint.parse import format_of

    for ref in refs_of(doc):
        if not ref.pointer or ref.pointer[0] != "tests" or ref.function:
            continue
        for place in candidates(doc.path, ref, ctx.root_name)[:1]:
            for path in _globbed(place, ctx.files) if ref.glob else (place,):
                readable = format_of(path) is not None or path.lower().endswith(".csv")
                if path in ctx.files and readable and ctx.others is not None:
                    yield ref.pointer, path, ctx.others.parsed(path)


# What a workbook's bytes start with: a zip archive (.xlsx), an OLE compound file (.xls).
_WORKBOOKS = {".xlsx": b"PK\x03\x04", ".xls": b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"}


def _workbooks(doc: Document, ctx: Context) -> Iterator[tuple[Pointer, str]]:
    """(where, path) of each Excel test file the config names whose bytes are no workbook of
    its kind (its cells are not read here; a corrupt one must not pass in silence)."""
    from evallint.kinds.base import candidates

    for ref in refs_of(doc):
        if not ref.pointer or ref.pointer[0] != "tests" or ref.glob or ctx.others is None:
            continue
        for place in candidates(doc.path, ref, ctx.root_name)[:1]:
            magic = _WORKBOOKS.get(place[place.rfind(".") :].lower())
            raw = ctx.others.raw(place) if magic and place in ctx.files else None
            if isinstance(raw, bytes) and not raw.startswith(magic or b""):
                yield ref.pointer, place


def _globbed(pattern: str, files: frozenset[str]) -> list[str]:
    """The project's files a test-file glob (`tests/*.yaml`) names, in order; matched in time
    linear in each path, whatever the pattern."""
    from evallint.config import Glob

    glob = Glob(pattern)
    folder = pattern.split("*", 1)[0].rpartition("/")[0]
    start = f"{folder}/" if folder else ""
    return sorted(f for f in files if f.startswith(start) and glob.match(f))


@rule("promptfoo-test-file", Severity.ERROR, kinds=KINDS, reads_files=True)
def promptfoo_test_file(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A test file the config names does not parse: promptfoo cannot load it.

    promptfoo reads a test file's tests when it loads the config; a file that is not valid
    YAML, JSON or CSV (or not UTF-8) fails the whole eval before any test runs. CSV is read as
    promptfoo's reader reads it: a row with more or fewer fields than the header, an empty line
    among the rows included, or a quote never closed, fails the file. Reported on the
    config's line that names the file, with the file's own line and column. The file is read,
    never run; one evallint cannot read (over `max-file-size`, not a regular file) is reported
    too, since its tests were not checked.

    Bad (promptfooconfig.yaml):
        prompts: ["Answer: {{question}}"]
        providers: [openai:gpt-4.1-mini]
        tests: file://broken.yaml
    Given (broken.yaml):
        - vars: {question: How long do refunds take?
    Given (cases.yaml):
        - vars: {question: How long do refunds take?}
    Good (promptfooconfig.yaml):
        prompts: ["Answer: {{question}}"]
        providers: [openai:gpt-4.1-mini]
        tests: file://cases.yaml
    """
    for at, place in _workbooks(doc, ctx):
        yield Finding(
            at,
            f"{place} is no Excel workbook (a .xlsx file is a zip archive, a .xls one an OLE "
            "file): promptfoo cannot load its tests",
        )
    for at, place, found in _test_files(doc, ctx):
        if isinstance(found, str):
            if found != "leads out of the repository":  # path-outside-repo's
                yield Finding(at, f"{place} {found}: its tests were not checked")
            continue
        # A JSONL file reads as its good lines with a problem for each bad one: promptfoo parses
        # every line, and one that does not parse fails the file.
        if found.ok and not (found.fmt == "jsonl" and found.problems):
            continue
        where = "".join(
            f" (line {p.span.line}, column {p.span.column}: {p.message})"
            for p in found.problems[:1]
        )
        yield Finding(at, f"{place} does not parse{where}: promptfoo cannot load its tests")


@rule("promptfoo-empty-test", Severity.ERROR, kinds=KINDS, reads_files=True)
def promptfoo_empty_test(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A test with none of `assert`, `vars`, `options`, `metadata`, `provider`, `providerOutput`
    or a numeric `threshold`: promptfoo refuses to load the config.

    Most often a test file's rows hold the variables at the top level instead of under `vars`
    (`- question: ...` for `- vars: {question: ...}`). Tests written in the config and those of
    the YAML and JSON test files it names are checked; a finding in a test file is placed there.

    Bad (promptfooconfig.yaml):
        prompts: ["Answer: {{question}}"]
        providers: [openai:gpt-4.1-mini]
        tests:
          - question: How long do refunds take?
    Good (promptfooconfig.yaml):
        prompts: ["Answer: {{question}}"]
        providers: [openai:gpt-4.1-mini]
        tests:
          - vars: {question: How long do refunds take?}
    """
    why = (
        "promptfoo refuses a test with none of assert, vars, options, metadata, provider, "
        "providerOutput or a numeric threshold"
    )
    data = doc.data if isinstance(doc.data, dict) else {}
    for i, test in promptfoo.indexed(data.get("tests")):
        if "path" not in test and "$ref" not in test and not _runnable(test):
            yield Finding(("tests", i), why)
    for _, found in named_tests(doc, ctx):
        if found.fmt == "csv":
            continue  # a CSV row's columns are its vars
        for i, test in promptfoo.indexed(found.data):
            if not _runnable(test):
                yield Finding((i,), f"{why} (the test file of {doc.path})", path=found.path)


def _inline_prompts(doc: Document) -> Iterator[tuple[Pointer, str]]:
    """(where, text) of each prompt written in the config itself (not a file it names)."""
    data = doc.data if isinstance(doc.data, dict) else {}
    found = data.get("prompts")
    files = {ref.pointer for ref in refs_of(doc) if ref.pointer[0] == "prompts"}
    written: list[tuple[Pointer, JSON]] = []
    if isinstance(found, str):
        written.append((("prompts",), found))
    for i, prompt in enumerate(found if isinstance(found, list) else ()):
        at: Pointer = ("prompts", i)
        if isinstance(prompt, dict):
            at, prompt = (*at, "raw"), prompt.get("raw")
        written.append((at, prompt))
    for at, text in written:
        if isinstance(text, str) and at not in files and "{" in text:
            yield at, text


@rule("promptfoo-template", Severity.ERROR, kinds=KINDS, reads_files=True, precision="high")
def promptfoo_template(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A prompt's Nunjucks tag or block is never closed: promptfoo cannot render the prompt.

    promptfoo renders each prompt with Nunjucks for every test; an unclosed `{{`, `{%` or `{#`,
    or an `{% if %}` / `{% for %}` with no end, fails every test of the prompt at eval time.
    Prompts written in the config and the `.txt`, `.md` and `.j2` prompt files it names (the
    finding placed there) are read in one pass, linear in their length; what Nunjucks and
    Jinja spell differently (filters, its own tags) is not judged here.

    Bad (promptfooconfig.yaml):
        prompts: ["Answer {% if formal %}formally{% endif: {{question}}"]
        providers: [openai:gpt-4.1-mini]
        tests:
          - vars: {question: How long do refunds take?, formal: true}
    Good (promptfooconfig.yaml):
        prompts: ["Answer {% if formal %}formally{% endif %}: {{question}}"]
        providers: [openai:gpt-4.1-mini]
        tests:
          - vars: {question: How long do refunds take?, formal: true}
    """
    for at, text in _inline_prompts(doc):
        for start, end, message in _unclosed(text):
            yield Finding(at, message, within=within(doc, at, text, start, end).within)
    for found in _prompt_files(doc, ctx):
        for start, end, message in _unclosed(found.text):
            yield Finding((), message, within=(start, end), path=found.path)


def _unclosed(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, message) of each tag or block of a template never closed."""
    from evallint.parse.jinja import problems

    if "verbatim" in text:
        return  # Nunjucks' raw block, which the scanner does not know
    for found in problems(text, frozenset()):
        if "is never closed" in found.message:
            yield found.start, found.end, f"{found.message}: promptfoo cannot render this prompt"


# Prompt files promptfoo renders as one template (a `.txt` file's `---` parts alike).
_TEMPLATES = (".txt", ".md", ".j2")


def _prompt_files(doc: Document, ctx: Context) -> Iterator[Document]:
    """The template files the config's prompts name, each read once."""
    from evallint.kinds.base import candidates

    for ref in refs_of(doc):
        if ref.glob or ref.function or ref.pointer[0] != "prompts" or ctx.others is None:
            continue
        for place in candidates(doc.path, ref, ctx.root_name)[:1]:
            if place in ctx.files and place.lower().endswith(_TEMPLATES):
                found = ctx.others.parsed(place)
                if not isinstance(found, str):
                    yield found
