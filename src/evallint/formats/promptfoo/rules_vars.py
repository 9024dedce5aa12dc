"""promptfoo variables: what each test sets against what its prompts use.

promptfoo renders a prompt with Nunjucks for each test, its `vars` merged over
`defaultTest.vars` (and a scenario's config); a variable no test sets is rendered empty, one no
prompt uses is sent nowhere. Prompts are read as promptfoo reads them (inline, or their
files), tests wherever they are written (the config, its YAML, JSON and CSV test files).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

from evallint.formats.promptfoo import kinds as promptfoo
from evallint.formats.promptfoo.rules_files import named_tests, refs_of
from evallint.model import JSON, Finding, Pointer, Severity
from evallint.rules.api import csv_table
from evallint.rules.base import rule
from evallint.suggest import suggest

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context

KINDS = promptfoo.KINDS


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
    (a script, a glob, a missing file), since its variables are then unknown. Read once a
    document and view of the files, for both variable rules."""
    if ctx.others is None:
        return _read_prompts(doc, ctx)
    key = ("promptfoo-prompts", doc.path)
    if key not in ctx.others.memo:
        ctx.others.memo[key] = _read_prompts(doc, ctx)
    return cast("list[str] | None", ctx.others.memo[key])  # only this writes the key


def _read_prompts(doc: Document, ctx: Context) -> list[str] | None:
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
    used = set().union(*map(_used, texts)) - base
    for i, test in promptfoo.indexed(data.get("tests")):
        missing = _lacking(test, used)
        if missing:
            yield Finding(("tests", i, "vars") if "vars" in test else ("tests", i), missing)
    yield from _scenarios_lacking(data, used)
    for _, found in named_tests(doc, ctx):
        if found.ok and found.fmt == "csv":
            yield from _csv_lacking(found, used)
        elif found.ok:
            for i, test in promptfoo.indexed(found.data):
                missing = _lacking(test, used)
                if missing:
                    at = (i, "vars") if "vars" in test else (i,)
                    yield Finding(at, missing, path=found.path)


def _scenarios_lacking(data: dict[str, JSON], used: set[str]) -> Iterator[Finding]:
    """Each scenario's tests run once with each of its configs, their vars merged (a scenario
    without tests runs each config as a test): a test lacking a variable with any config."""
    for s, scenario in promptfoo.indexed(data.get("scenarios")):
        configs = list(promptfoo.indexed(scenario.get("config")))
        sets = [_vars(c.get("vars")) if not _transforms(c) else None for _, c in configs]
        if None in sets or any("prompts" in c for _, c in configs):
            continue
        tests = scenario.get("tests")
        if tests is None:
            for (i, config), own in zip(configs, sets, strict=True):
                missing = _unset(used - (own or set()), "this scenario config does not set")
                if missing:
                    at = ("scenarios", s, "config", i)
                    yield Finding((*at, "vars") if "vars" in config else at, missing)
            continue
        for j, test in promptfoo.indexed(tests):
            missing = next(filter(None, (_lacking(test, used - (v or set())) for v in sets)), None)
            if missing:
                at = ("scenarios", s, "tests", j)
                yield Finding((*at, "vars") if "vars" in test else at, missing)


def _lacking(test: dict[str, JSON], used: set[str]) -> str | None:
    """What a test lacks of the variables its prompts use; None when it lacks none, or when
    its variables are not all in sight (a file, `transformVars`, its own prompts)."""
    own = _vars(test.get("vars"))
    if own is None or "prompts" in test or _transforms(test) or "path" in test:
        return None
    return _unset(used - own, "this test does not set")


def _unset(missing: set[str], who: str) -> str | None:
    if not missing:
        return None
    names = ", ".join("{{" + m + "}}" for m in sorted(missing))
    return f"the prompts use {names}, which {who}: promptfoo renders it empty"


def _csv_lacking(found: Document, used: set[str]) -> Iterator[Finding]:
    """A CSV test file whose columns lack a variable the prompts use, at its header."""
    table = csv_table(found)
    if len(table.records) < 2:
        return  # no rows, no tests
    header = table.fields(0)
    columns = {name.strip() for name, _, _ in header}
    missing = _unset(used - columns, "no column of this file sets")
    if missing:
        yield Finding((), missing, within=(header[0][1], header[-1][2]), path=found.path)


def _transforms(test: JSON) -> bool:
    options = test.get("options") if isinstance(test, dict) else None
    return isinstance(options, dict) and "transformVars" in options


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Providers whose code may read a test's variables itself (scripts, commands): with one of them,
# no variable is known to be unused.
_CODE = ("file://", "exec:", "python:", "golang:", "ruby:", "package:")
# promptfoo's own providers that render a test's variables themselves, wherever they are named
# (a simulated user reads `{{instructions}}`; red team providers their goals).
_OWN = ("promptfoo:simulated-user", "promptfoo:redteam:", "agentic:")


def _mentioned(doc: Document, ctx: Context, texts: list[str]) -> Counter[str] | None:
    """How often each word appears in the config's text, its prompts and the scripts it names:
    a variable mentioned more often than it is set may be read. Counted at C speed over the
    texts (a comment counts too: never a note where a name is written twice). None when a
    script it names cannot be read, or it names a provider of promptfoo's that reads
    variables of its own."""
    from evallint.kinds.base import candidates

    if not doc.text or any(own in doc.text for own in _OWN):
        return None
    words = Counter(_WORD.findall(doc.text))
    for text in texts:
        words.update(_WORD.findall(text))
    for ref in refs_of(doc):
        if not ref.path.lower().endswith(promptfoo.SCRIPTS):
            continue
        place = candidates(doc.path, ref, ctx.root_name)[:1]
        raw = ctx.others.raw(place[0]) if place and ctx.others is not None else None
        if not isinstance(raw, bytes) or ref.glob:
            return None
        words.update(_WORD.findall(raw.decode("utf-8", "replace")))
    return words


def _var_maps(data: dict[str, JSON]) -> Iterator[tuple[Pointer, dict[str, JSON]]]:
    """(where, mapping) of each `vars` mapping written in the config."""
    holders: list[tuple[Pointer, JSON]] = [(("defaultTest",), data.get("defaultTest"))]
    holders += [(("tests", i), t) for i, t in promptfoo.indexed(data.get("tests"))]
    for s, scenario in promptfoo.indexed(data.get("scenarios")):
        for part in ("config", "tests"):
            holders += [
                (("scenarios", s, part, i), t) for i, t in promptfoo.indexed(scenario.get(part))
            ]
    for at, holder in holders:
        found = holder.get("vars") if isinstance(holder, dict) else None
        if isinstance(found, dict):
            yield (*at, "vars"), found


@rule(
    "promptfoo-unused-var",
    Severity.NOTE,
    kinds=KINDS,
    reads_files=True,
    precision="medium",
)
def promptfoo_unused_var(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A test sets a variable that no prompt, assertion or script of the config mentions.

    promptfoo sends a test's variables only where a template names them; one named nowhere
    does nothing, most often a misspelling of the variable the prompt uses (which is then
    rendered empty). A variable counts as used when its name appears in a prompt, anywhere in
    the config but where it is set (a comment too), or in a script the config names; with a
    provider that runs code of its own (a script, a command), every variable may be read, and
    none is reported.

    Bad (promptfooconfig.yaml):
        prompts: ["Answer: {{question}}"]
        providers: [openai:gpt-4.1-mini]
        defaultTest:
          vars: {question: How long do refunds take?}
        tests:
          - vars: {questoin: Can I return shoes?}
    Good (promptfooconfig.yaml):
        prompts: ["Answer: {{question}}"]
        providers: [openai:gpt-4.1-mini]
        defaultTest:
          vars: {question: How long do refunds take?}
        tests:
          - vars: {question: Can I return shoes?}
    """
    from evallint.formats.promptfoo.rules_providers import providers

    data = doc.data if isinstance(doc.data, dict) else {}
    texts = _prompt_texts(doc, ctx)
    code = any(p[1].startswith(_CODE) or p[1].endswith(promptfoo.SCRIPTS) for p in providers(data))
    words = _mentioned(doc, ctx, texts) if texts and not code and "redteam" not in data else None
    if texts is None or words is None:
        return
    used = set().union(*map(_used, texts))
    maps = list(_var_maps(data))
    set_here = Counter(name for _, found in maps for name in found)
    for at, found in maps:
        for name in found:
            if words[name] <= set_here[name]:
                hint = suggest(name, sorted(used - set(found)))
                tail = f"; did you mean {hint!r}?" if hint else ""
                yield Finding(
                    (*at, name),
                    f"variable {name!r} is used by no prompt, assertion or script: promptfoo "
                    f"sends it nowhere{tail}",
                    on_key=True,
                )
