"""promptfoo configs (`promptfooconfig.yaml` and its variants): prompts, providers, tests with
their assertions, and the files those name.

A file is a promptfoo config by its name (a YAML file whose name holds `promptfoo`, a JSON file
named `promptfooconfig*`), by a `$schema` naming promptfoo's config schema, or by keys only
promptfoo spells (`defaultTest`, `evaluateOptions`, ...) beside its core keys. AgentV's next
dialect took promptfoo's shape, so these files are never AgentV suites.

Files resolve as promptfoo resolves them: from the config's folder, `file://` or a bare path,
a glob, and a `:function` suffix after a script's extension.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from evallint.formats.promptfoo.kinds_items import tests
from evallint.kinds.base import FileRef, Kind
from evallint.model import JSON, Pointer, names_of

# The assertion types promptfoo 0.123 runs (its handler table), each also with a `not-` prefix,
# and those it handles itself (`select-best`, `human`, `max-score`, `assert-set`).
ASSERTION_TYPES = (
    "agent-rubric",
    "answer-relevance",
    "bleu",
    "classifier",
    "contains",
    "contains-all",
    "contains-any",
    "contains-html",
    "contains-json",
    "contains-sql",
    "contains-xml",
    "context-faithfulness",
    "context-recall",
    "context-relevance",
    "conversation-relevance",
    "cost",
    "equals",
    "factuality",
    "finish-reason",
    "g-eval",
    "gleu",
    "guardrails",
    "icontains",
    "icontains-all",
    "icontains-any",
    "is-html",
    "is-json",
    "is-refusal",
    "is-sql",
    "is-valid-function-call",
    "is-valid-openai-function-call",
    "is-valid-openai-tools-call",
    "is-xml",
    "javascript",
    "latency",
    "levenshtein",
    "llm-rubric",
    "pi",
    "meteor",
    "model-graded-closedqa",
    "model-graded-factuality",
    "moderation",
    "perplexity",
    "perplexity-score",
    "python",
    "regex",
    "rouge-n",
    "ruby",
    "similar",
    "similar:cosine",
    "similar:dot",
    "similar:euclidean",
    "starts-with",
    "tool-call-f1",
    "skill-used",
    "trajectory:goal-success",
    "trajectory:tool-args-match",
    "trajectory:step-count",
    "trajectory:tool-sequence",
    "trajectory:tool-used",
    "trace-error-spans",
    "trace-span-count",
    "trace-span-duration",
    "search-rubric",
    "webhook",
    "word-count",
)
SPECIAL_TYPES = ("select-best", "human", "max-score", "assert-set")
KNOWN_TYPES = frozenset((*ASSERTION_TYPES, *(f"not-{t}" for t in ASSERTION_TYPES), *SPECIAL_TYPES))

# Root keys only promptfoo spells (camelCase; AgentV's next dialect writes `default_test`).
ONLY = (
    "defaultTest",
    "evaluateOptions",
    "derivedMetrics",
    "assertionTemplates",
    "nunjucksFilters",
    "writeLatestResults",
    "outputPath",
    "commandLineOptions",
    "redteam",
)
_CORE = ("prompts", "providers", "targets", "tests", "scenarios")
# As sets, for a file's keys: every YAML file of a run is asked (set operations run in C).
_ONLY_SET, _CORE_SET = frozenset(ONLY), frozenset(_CORE)
# Scripts whose path may carry `:function` (promptfoo splits it off after these extensions).
SCRIPTS = (".py", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".rb")
# What promptfoo reads as a prompt or test file by its extension.
_READ = (".txt", ".md", ".j2", ".json", ".jsonl", ".yaml", ".yml", ".csv", ".tsv", ".xlsx")


def named(path: str) -> bool:
    """A name promptfoo's own files have: YAML naming promptfoo, JSON named promptfooconfig."""
    name = path.rsplit("/", 1)[-1].lower()
    if name.endswith((".yaml", ".yml")):
        return "promptfoo" in name
    return name.startswith("promptfooconfig") and name.endswith(".json")


def declares(data: JSON) -> bool:
    schema = data.get("$schema") if isinstance(data, dict) else None
    return isinstance(schema, str) and "promptfoo" in schema


def is_config(path: str, data: JSON) -> bool:
    """A promptfoo config by its name, its `$schema`, or its keys: never an AgentV suite."""
    if not isinstance(data, dict):
        return False
    if named(path) or declares(data):
        return True
    own = len(_ONLY_SET.intersection(data))
    return own > 0 and own + len(_CORE_SET.intersection(data)) > 1


def owned(path: str, data: JSON) -> bool:
    """A promptfoo config, or a file with a key only promptfoo spells: never another format's,
    whatever keys it shares with one (AgentV suites hold `tests` and `prompts` too)."""
    return is_config(path, data) or (isinstance(data, dict) and not _ONLY_SET.isdisjoint(data))


def split_function(text: str) -> tuple[str, str | None]:
    """(path, function) of `checks.py:grade`; the function is None when none is written."""
    cut = text.rfind(":")
    if cut > 0 and text[:cut].lower().endswith(SCRIPTS):
        return text[:cut], text[cut + 1 :]
    return text, None


def is_glob(text: str) -> bool:
    return any(c in text for c in "*?[{")


# Extensions promptfoo loads a prompt from (any other, unless a glob, gives no prompt).
_PROMPT_FILES = (
    *SCRIPTS,
    ".txt",
    ".md",
    ".j2",
    ".json",
    ".jsonl",
    ".yaml",
    ".yml",
    ".csv",
    ".sh",
    ".bash",
    ".exe",
    ".bat",
    ".cmd",
    ".ps1",
    ".pl",
)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
# Endings that make a prompt a path whatever its length (promptfoo's own list), before or after
# a `:function`.
_NAMED = (
    *(".cjs", ".cts", ".j2", ".js", ".json", ".jsonl", ".md"),
    *(".mjs", ".mts", ".py", ".ts", ".txt", ".yml", ".yaml"),
)


# What glob's `hasMagic` (which promptfoo asks) sees as a pattern: `*`, `?`, a `[...]` class.
# Braces are not magic to it: `{{question}}` is text.
_MAGIC = re.compile(r"[*?]|\[[^\]]+\]")
_REGISTRIES = ("portkey://", "langfuse://", "helicone://")


def reads_as_missing_path(text: str) -> bool:
    """A one-line prompt promptfoo takes for a file path (its `maybeFilePath`: a `/`, a
    backslash, a `.` third or fourth from the end) with an ending no loader of its reads, and
    no glob magic: promptfoo finds no file and stops ("There are no prompts in ..."), where a
    text with a line break would have been the prompt."""
    if "\n" in text or any(r in text for r in _REGISTRIES) or _SCHEME.match(text):
        return False
    if text.startswith("exec:") or _MAGIC.search(text):
        return False
    if not (any(c in text for c in "/\\") or "." in text[-4:-2]):
        return False
    path, _ = split_function(text)
    return not path.lower().endswith(_PROMPT_FILES)


def _prompt_path(text: str) -> bool:
    """A prompt promptfoo reads as a file (its `maybeFilePath`, and a loader for the extension):
    one line, not a prompt registry's address, and a path by its `/`, `*`, backslash, a short
    extension, or an ending of its list (`prompt.yaml`)."""
    if "\n" in text or _SCHEME.match(text) or text.startswith("exec:"):
        return False
    path, _ = split_function(text)
    tokens = text.split(":")
    named = tokens[-1].endswith(_NAMED) or (len(tokens) > 1 and tokens[-2].endswith(_NAMED))
    if not named and not any(c in text for c in "/*\\") and "." not in text[-4:-2]:
        return False
    return is_glob(path) or path.lower().endswith(_PROMPT_FILES)


def _ref(pointer: Pointer, text: str, *, bare: str = "", note: str = "") -> FileRef | None:
    """The file a value names, when it names one: `file://...`, or a bare path where promptfoo
    takes one (`bare`: "prompt" for prompts, "test" for test lists). Other addresses
    (`huggingface://`, `https://` sheets, prompt registries) are not files."""
    named_file = text.startswith("file://")
    if not named_file and (not bare or _SCHEME.match(text) or not text.strip()):
        return None
    if not named_file and bare == "prompt" and not _prompt_path(text):
        return None
    path, function = split_function(text)
    head = path.partition("#")[0]
    if bare == "test" and head != path and head.lower().endswith((".xlsx", ".xls")):
        path = head  # `tests.xlsx#Sheet2`: a workbook and the sheet to read
    glob = is_glob(path.removeprefix("file://"))
    return FileRef(pointer, path, glob=glob, note=note if glob else "", function=function)


_LITERAL = "promptfoo then sends the path text itself as the prompt"


def _prompts(data: dict[str, JSON]) -> Iterator[FileRef]:
    found = data.get("prompts")
    entries: list[tuple[Pointer, JSON]] = []
    if isinstance(found, str):
        entries = [(("prompts",), found)]
    elif isinstance(found, dict):
        entries = [(("prompts", k), k) for k in found]
    elif isinstance(found, list):
        for i, p in enumerate(found):
            at: Pointer = ("prompts", i)
            entries.append((at, p) if not isinstance(p, dict) else ((*at, "id"), p.get("id")))
    for pointer, text in entries:
        if isinstance(text, str) and (ref := _ref(pointer, text, bare="prompt", note=_LITERAL)):
            yield ref


def _named(at: Pointer, value: JSON) -> Iterator[FileRef]:
    """A test list's entry that names tests elsewhere: a file, a glob, a generator's `path`."""
    if isinstance(value, dict):
        at, value = (*at, "path"), value.get("path")
    if isinstance(value, str) and (ref := _ref(at, value, bare="test")):
        yield ref


def _tests(data: dict[str, JSON], key: str) -> Iterator[FileRef]:
    found = data.get(key)
    if not isinstance(found, list):
        yield from _named((key,), found)
    for i, test in enumerate(found if isinstance(found, list) else ()):
        yield from _named((key, i), test)
        if isinstance(test, dict):
            yield from _case((key, i), test)


def _case(at: Pointer, test: dict[str, JSON]) -> Iterator[FileRef]:
    """Files one test names: var files, assertion values and scripts, rubric prompts."""
    for key in ("vars",):
        found = test.get(key)
        for name, value in found.items() if isinstance(found, dict) else ():
            values = value if isinstance(value, list) else [value]
            for j, v in enumerate(values):
                where = (*at, key, name, j) if isinstance(value, list) else (*at, key, name)
                if isinstance(v, str) and (ref := _ref(where, v, bare="")):
                    yield ref
    for key in ("assertScoringFunction",):
        if isinstance(test.get(key), str) and (ref := _ref((*at, key), test[key], bare="")):
            yield ref
    for j, check in indexed(test.get("assert")):
        yield from _assertion((*at, "assert", j), check)
    options = test.get("options")
    if isinstance(options, dict):
        for key in ("rubricPrompt", "transform", "transformVars"):
            value = options.get(key)
            if isinstance(value, str) and (ref := _ref((*at, "options", key), value, bare="")):
                yield ref


def indexed(found: JSON) -> Iterator[tuple[int, dict[str, JSON]]]:
    """(index, mapping) of each mapping in a list; nothing when `found` is no list."""
    for i, item in enumerate(found if isinstance(found, list) else ()):
        if isinstance(item, dict):
            yield i, item


def _assertion(at: Pointer, check: dict[str, JSON]) -> Iterator[FileRef]:
    for key in ("value", "rubricPrompt", "transform", "contextTransform"):
        value = check.get(key)
        values = value if isinstance(value, list) else [value]
        for j, v in enumerate(values):
            where = (*at, key, j) if isinstance(value, list) else (*at, key)
            if isinstance(v, str) and (ref := _ref(where, v, bare="")):
                yield ref
    for j, inner in indexed(check.get("assert")):  # an assert-set's members
        yield from _assertion((*at, "assert", j), inner)


def file_refs(data: JSON) -> Iterator[FileRef]:
    if not isinstance(data, dict):
        return
    yield from _prompts(data)
    yield from _tests(data, "tests")
    default = data.get("defaultTest")
    if isinstance(default, str) and (ref := _ref(("defaultTest",), default, bare="test")):
        yield ref
    elif isinstance(default, dict):
        yield from _case(("defaultTest",), default)
    scenarios = data.get("scenarios")
    for i, scenario in enumerate(scenarios if isinstance(scenarios, list) else ()):
        if isinstance(scenario, str) and (ref := _ref(("scenarios", i), scenario, bare="test")):
            yield ref
        elif isinstance(scenario, dict):
            yield from _tests(scenario, "tests")
            for j, each in indexed(scenario.get("config")):
                yield from _case(("scenarios", i, "config", j), each)


def reads(path: str, data: JSON) -> Iterator[str]:
    """The project files this config reads at run time (its prompts, tests and scripts), for a
    partial run to check it when one of them changes. Globs are left to a full run."""
    from evallint.kinds.base import candidates

    for ref in file_refs(data):
        if not ref.glob:
            yield from candidates(path, ref)


# The last file set asked about, by identity (hashing a large set would cost a pass over it),
# and its answer.
_ASKED: list[tuple[frozenset[str], bool]] = []


def _has_configs(files: frozenset[str]) -> bool:
    if _ASKED and _ASKED[0][0] is files:
        return _ASKED[0][1]
    # One search of the joined names at C speed: a tree of 100,000 files with no config (most
    # trees) pays a few milliseconds, not a name test a file.
    found = "promptfoo" in names_of(files).lower() and any(named(f) for f in files)
    _ASKED[:] = [(files, found)]
    return found


def readable(path: str, data: JSON, files: frozenset[str]) -> bool:
    """A file a promptfoo config can read: a prompt, test or script file, where the tree holds
    a config by its name."""
    return path.lower().endswith((*_READ, *SCRIPTS)) and _has_configs(files)


def version(data: JSON) -> tuple[str, str] | None:
    """A config opts in to the version rules with `metadata.version` (promptfoo passes
    `metadata` through untouched); it is compared with its own file at the base."""
    meta = data.get("metadata") if isinstance(data, dict) else None
    found = meta.get("version") if isinstance(meta, dict) else None
    return ("", found) if isinstance(found, str) else None


CONFIG = Kind(
    name="promptfoo",
    title="promptfoo config",
    formats=frozenset({"yaml", "json"}),
    schema="promptfoo",
    about="a promptfoo config: a YAML file whose name holds `promptfoo` (a JSON file named "
    "`promptfooconfig*`), a `$schema` naming promptfoo's config schema, or keys only promptfoo "
    "spells (`defaultTest`, `evaluateOptions`, ...) beside `prompts`, `providers` or `tests`",
    by_path=named,
    by_content=is_config,
    owns=owned,
    claim=named,
    declared_by=("promptfoo.dev/config-schema",),
    markers=(("defaultTest", "prompts"), ("defaultTest", "providers")),
    file_refs=file_refs,
    versioned=version,
    version_at=("metadata", "version"),
    reads=reads,
    readable=readable,
    # promptfoo keeps what it knows of a config and drops every other key without a word: its
    # rules tell a dropped key that loses checks (an error) from one that loses nothing.
    own_keys=True,
    grader_types=frozenset(ASSERTION_TYPES),
    item_view=tests,
    item_needles=(b"tests", b"vars"),
    editor_globs=("**/*promptfoo*.yaml", "**/*promptfoo*.yml", "**/promptfooconfig*.json"),
)

KINDS = (CONFIG,)
