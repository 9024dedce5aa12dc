"""promptfoo rules about what a config reads at run time: the tests of its test files, the
variables its prompts use, and the cells of its CSV test files.

Files are read as promptfoo reads them (never run): prompt texts for their `{{ variables }}`,
YAML and JSON test files for their tests, CSV test files for their `__expected` cells.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.kinds import promptfoo
from evallint.kinds.base import FileRef
from evallint.model import JSON, Finding, Pointer, Severity
from evallint.rules.api import within
from evallint.rules.base import rule
from evallint.suggest import suggest

KINDS = promptfoo.KINDS


def refs_of(doc: Document) -> tuple[FileRef, ...]:
    """The files a config names, worked out once a document for the rules that ask."""
    return doc.facts.get(_refs, doc)


def _refs(doc: Document) -> tuple[FileRef, ...]:
    return tuple(promptfoo.file_refs(doc.data))


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


def _test_files(doc: Document, ctx: Context) -> Iterator[tuple[Pointer, str]]:
    """(where the config names it, project path) of each YAML or JSON test file it names."""
    from evallint.kinds.base import candidates
    from evallint.parse import format_of

    for ref in refs_of(doc):
        if ref.glob or not ref.pointer or ref.pointer[0] != "tests" or ref.function:
            continue
        for place in candidates(doc.path, ref, ctx.root_name)[:1]:
            if place in ctx.files and format_of(place) in ("yaml", "json", "jsonl"):
                yield ref.pointer, place


@rule("promptfoo-test-file", Severity.ERROR, kinds=KINDS, reads_files=True)
def promptfoo_test_file(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A YAML or JSON test file the config names does not parse: promptfoo cannot load it.

    promptfoo reads a test file's tests when it loads the config; a file that is not valid
    YAML or JSON (or not UTF-8) fails the whole eval before any test runs. Reported on the
    config's line that names the file, with the file's own line and column. The file is read,
    never run.

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
    for at, place in _test_files(doc, ctx):
        found = ctx.others.parsed(place) if ctx.others is not None else None
        if found is None or isinstance(found, str) or found.ok:
            continue  # absent or unreadable: missing-file's and path-outside-repo's
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
    for _, place in _test_files(doc, ctx):
        found = ctx.others.parsed(place) if ctx.others is not None else None
        if found is None or isinstance(found, str) or not isinstance(found.data, list):
            continue
        for i, test in promptfoo.indexed(found.data):
            if not _runnable(test):
                yield Finding((i,), f"{why} (the test file of {doc.path})", path=place)


# Names a promptfoo prompt may use that no test sets: its own globals and Nunjucks' loop.
_GLOBALS = frozenset({"env", "loop", "_conversation", "true", "false", "none", "null"})


def _used(text: str) -> set[str]:
    """The variables a Nunjucks template reads in `{{ ... }}`, less those it binds itself
    (`{% set x %}`, `{% for x in ... %}`): the first name of each output, read in one pass."""
    used: set[str] = set()
    bound: set[str] = set()
    i = 0
    while (j := text.find("{", i)) >= 0:
        two, k = text[j : j + 2], text.find("}", j + 2)
        if k < 0:
            break
        if two in ("{{", "{%"):
            words = text[j + 2 : k].strip("-~ \t\r\n").replace(",", " ").split()
            if two == "{{" and words:
                used.add(_name(words[0]))
            elif two == "{%" and len(words) > 1 and words[0] in ("set", "for", "macro"):
                bound.update(_name(w) for w in words[1:] if w not in ("in", "="))
        i = k + 1
    return {u for u in used if u and u not in bound and u not in _GLOBALS}


def _name(word: str) -> str:
    end = 0
    while end < len(word) and (word[end].isalnum() or word[end] == "_"):
        end += 1
    return word[:end] if end and not word[0].isdigit() else ""


def _prompt_texts(doc: Document, ctx: Context) -> list[str] | None:
    """The text of every prompt, inline or read from its file; None when one cannot be read
    (a script, a glob, a missing file), since its variables are then unknown."""
    from evallint.kinds.base import candidates

    data = doc.data if isinstance(doc.data, dict) else {}
    found = data.get("prompts")
    written = [found] if isinstance(found, str) else found if isinstance(found, list) else None
    if not written:
        return None
    files = {ref.pointer: ref for ref in refs_of(doc) if ref.pointer[0] == "prompts"}
    texts = []
    for i, prompt in enumerate(written):
        at = ("prompts",) if isinstance(found, str) else ("prompts", i)
        ref = files.get(at)
        if isinstance(prompt, str) and ref is None:
            texts.append(prompt)
            continue
        if ref is None or ref.glob or ref.function or ctx.others is None:
            return None
        place = candidates(doc.path, ref, ctx.root_name)[:1]
        raw = ctx.others.raw(place[0]) if place and not place[0].endswith(promptfoo.SCRIPTS) else ""
        if not isinstance(raw, bytes):
            return None
        texts.append(raw.decode("utf-8", "replace"))
    return texts


def _vars(value: JSON) -> set[str] | None:
    """The variables a `vars` value sets; None when they are in a file."""
    if value is None:
        return set()
    return set(value) if isinstance(value, dict) else None


@rule(
    "promptfoo-missing-var",
    Severity.WARNING,
    kinds=KINDS,
    reads_files=True,
    precision="high",
)
def promptfoo_missing_var(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A prompt uses a `{{ variable }}` that a test does not set: promptfoo renders it empty.

    Nunjucks renders an unset variable as nothing, so the model gets a prompt with a hole and
    the test is graded anyway. Each test written in the config is checked against the
    variables its prompts use (inline, or read from `.txt`, `.md`, `.j2`, `.json` and `.yaml`
    prompt files), with `defaultTest.vars`. Tests whose variables come from a file, a
    `transformVars`, or that choose their prompts are left alone.

    Bad (promptfooconfig.yaml):
        prompts: ["Answer as {{persona}}: {{question}}"]
        providers: [openai:gpt-4.1-mini]
        tests:
          - vars: {question: How long do refunds take?}
    Good (promptfooconfig.yaml):
        prompts: ["Answer as {{persona}}: {{question}}"]
        providers: [openai:gpt-4.1-mini]
        defaultTest:
          vars: {persona: a support agent}
        tests:
          - vars: {question: How long do refunds take?}
    """
    texts = _prompt_texts(doc, ctx)
    data = doc.data if isinstance(doc.data, dict) else {}
    default = data.get("defaultTest") if isinstance(data.get("defaultTest"), dict) else {}
    base = _vars(default.get("vars")) if isinstance(default, dict) else None
    if not texts or base is None or _transforms(default):
        return
    used = set().union(*map(_used, texts))
    for i, test in promptfoo.indexed(data.get("tests")):
        own = _vars(test.get("vars"))
        if own is None or "prompts" in test or _transforms(test) or "path" in test:
            continue
        missing = sorted(used - own - base)
        if missing:
            names = ", ".join("{{" + m + "}}" for m in missing)
            yield Finding(
                ("tests", i, "vars") if "vars" in test else ("tests", i),
                f"the prompts use {names}, which this test does not set: promptfoo renders "
                "it empty",
            )


def _transforms(test: JSON) -> bool:
    options = test.get("options") if isinstance(test, dict) else None
    return isinstance(options, dict) and "transformVars" in options


# What a CSV `__expected` cell may start with besides an assertion type (promptfoo's
# `assertionFromString`); anything else is compared with the output as a whole.
_CELL_PREFIXES = ("javascript:", "fn:", "eval:", "grade:", "llm-rubric:", "python:", "file://")
# Columns promptfoo reads itself; a near miss is read as a variable instead.
_COLUMNS = (
    "__expected",
    "__prefix",
    "__suffix",
    "__description",
    "__providerOutput",
    "__metric",
    "__threshold",
    "__metadata",
    "__config",
)


def _cell_type(cell: str) -> str | None:
    """The assertion type a cell's prefix names, when it looks like one and is none promptfoo
    knows (`contians:30 days`); None when the cell is a known form or plain text."""
    if cell.startswith(_CELL_PREFIXES):
        return None
    head = cell.split(":", 1)[0] if ":" in cell else ""
    word = head.removeprefix("not-").split("(", 1)[0]
    if not word or not all(c.isalnum() or c == "-" for c in word) or not word[0].isalpha():
        return None
    plain = promptfoo.ASSERTION_TYPES
    rest = cell[len(head) + 1 :]
    if word in plain or any(f"{word}:{rest}".startswith(f"{t}") for t in plain if ":" in t):
        return None
    return word


def _csv_findings(text: str, name: str) -> Iterator[str]:
    import io

    # A field may be as long as the file (which is under max-file-size already); csv's own
    # limit of 128 KiB is not promptfoo's.
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    reader = csv.DictReader(io.StringIO(text.removeprefix("\ufeff")))
    for column in reader.fieldnames or ():
        key = column.strip()
        if key.startswith("_") and not key.startswith(_COLUMNS):
            hint = suggest(key.split(":", 1)[0], _COLUMNS)
            if hint:
                yield (f"{name}: column {key!r} is read as a variable; did you mean {hint!r}?")
    for row, record in enumerate(reader, start=2):
        for column, value in record.items():
            if not isinstance(column, str) or not column.strip().startswith("__expected"):
                continue
            cell = value.strip() if isinstance(value, str) else ""
            word = _cell_type(cell) if cell else None
            hint = suggest(word, promptfoo.ASSERTION_TYPES) if word else None
            if word and hint:
                yield (
                    f"{name} line {row}, {column.strip()}: {word!r} is no assertion type, so "
                    f"promptfoo checks that the output equals the whole cell; did you mean "
                    f"{hint!r}?"
                )


@rule(
    "promptfoo-csv-test",
    Severity.WARNING,
    kinds=KINDS,
    reads_files=True,
    precision="high",
)
def promptfoo_csv_test(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A CSV test file whose `__expected` cell or special column promptfoo reads otherwise.

    A cell starts with its assertion type (`contains:30 days`, `not-icontains:refund`,
    `similar(0.8):...`); a cell whose prefix is no type promptfoo knows (`contians:30 days`)
    becomes an `equals` check on the whole cell, which fails whatever the model says. A column
    that misspells a special one (`__expeced`, `_description`) is read as a variable. Reported
    on the config's line that names the file, with the file's line.

    Bad (promptfooconfig.yaml):
        prompts: ["Answer: {{question}}"]
        providers: [openai:gpt-4.1-mini]
        tests: file://tests.csv
    Given (tests.csv):
        question,__expected
        How long do refunds take?,contians:30 days
    Good (promptfooconfig.yaml):
        prompts: ["Answer: {{question}}"]
        providers: [openai:gpt-4.1-mini]
        tests: file://tests_fixed.csv
    Given (tests_fixed.csv):
        question,__expected
        How long do refunds take?,contains:30 days
    """
    from evallint.kinds.base import candidates

    for ref in refs_of(doc):
        if ref.glob or ref.pointer[0] != "tests" or not ref.path.lower().endswith(".csv"):
            continue
        place = candidates(doc.path, ref, ctx.root_name)[:1]
        raw = ctx.others.raw(place[0]) if place and ctx.others is not None else None
        if isinstance(raw, bytes):
            text = raw.decode("utf-8", "replace")
            try:
                found = list(_csv_findings(text, place[0]))
            except csv.Error as exc:  # a NUL byte: read here as nowhere else
                found = [f"{place[0]} could not be read as CSV ({exc}); its cells were not checked"]
            for message in found:
                yield Finding(ref.pointer, message, group="promptfoo-csv-test")


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


@rule("promptfoo-template", Severity.ERROR, kinds=KINDS, precision="high")
def promptfoo_template(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A prompt's Nunjucks tag or block is never closed: promptfoo cannot render the prompt.

    promptfoo renders each prompt with Nunjucks for every test; an unclosed `{{`, `{%` or `{#`,
    or an `{% if %}` / `{% for %}` with no end, fails every test of the prompt at eval time.
    Prompts written in the config are read in one pass (linear in their length); what
    Nunjucks and Jinja spell differently (filters, its own tags) is not judged here.

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
    from evallint.parse.jinja import problems

    for at, text in _inline_prompts(doc):
        if "verbatim" in text:
            continue  # Nunjucks' raw block, which the scanner does not know
        for found in problems(text, frozenset()):
            if "is never closed" in found.message:
                placed = within(doc, at, text, found.start, found.end)
                message = f"{found.message}: promptfoo cannot render this prompt"
                yield Finding(at, message, within=placed.within)
