"""AgentV / agentevals eval suites (`EVAL.yaml`, `EVAL.*.yaml`, `*.eval.yaml`, `suite.yaml`), in
four dialects.

Which dialect a file is written in is read from its `$schema` marker and its keys; which files
are suites at all, from the file name, the marker, or keys no other format uses (`evalcases`, or
`tests` whose items carry AgentV's `criteria` or `assertions`). A bare `tests` list is not enough:
promptfoo configs look the same.
"""

from __future__ import annotations

import posixpath
import re
from collections import deque
from collections.abc import Iterator

from evallint.kinds.base import ContentTest, FileRef, Kind, PathTest, items, weighs_for
from evallint.kinds.promptfoo import ONLY as PROMPTFOO_ONLY
from evallint.kinds.promptfoo import is_config as is_promptfoo_config
from evallint.model import JSON, Pointer

_SUITE_NAME = re.compile(r"(?:^|.*\.)(?:eval|agentv)\.ya?ml$|^suite\.ya?ml$", re.I)
# `eval.yaml` itself (any case) is a name other tools use too: Hugging Face benchmarks (with
# `evaluation_framework` and `tasks`), inspect_evals' metadata (`title`, `tasks`, `contributors`),
# skill graders and run configs. Such a file is an AgentV suite only when its keys weigh for
# AgentV (`weighs_for`): keys only AgentV's dialects use, or a misspelling of `tests`.
_SHARED_NAME = re.compile(r"^eval\.ya?ml$", re.I)
_AGENTV_ROOT = frozenset(
    {
        "tests",
        "evalcases",
        "execution",
        "assertions",
        "assert",
        "input",
        "input_files",
        "target",
        "workspace",
        "preprocessors",
        "governance",
        "requires",
        "default_test",
        "prompts",
        "providers",
        "evaluate_options",
        "scenarios",
    }
)
_OTHER_ROOT = frozenset(
    {
        "evaluation_framework",
        "tasks",
        "title",
        "contributors",
        "group",
        "external_assets",
        "arxiv",
        "dataset_samples",
        "skills",
        "graders",
        "model",
        "models",
    }
)
# The spec's EVAL.yaml with a variant in its name (EVAL.live.yaml): written in capitals, as the
# spec writes it (a lower-case eval.config.yaml may be anything).
_SPEC_VARIANT = re.compile(r"^EVAL\.[^/]+\.ya?ml$")
V2_MARKERS = ("agentv-eval-v2", "agentevo-eval-v2")
_NEXT_ROOT = ("prompts", "default_test", "providers", "evaluate_options", "scenarios")
_V4_TEST = ("criteria", "assertions", "expected_output", "input")


def is_suite_name(path: str) -> bool:
    """A name AgentV gives its suites (a file that does not parse is claimed by it)."""
    name = path.rsplit("/", 1)[-1]
    return bool(_SUITE_NAME.match(name) or _SPEC_VARIANT.match(name))


def is_own_suite_name(path: str) -> bool:
    """A name only AgentV gives its files: a file that does not parse is claimed by it. The
    spec's `EVAL.yaml`, in capitals, is one; a shared `eval.yaml` that does not parse is
    claimed by AgentV's markers in its text, if any."""
    name = path.rsplit("/", 1)[-1]
    return is_suite_name(path) and (name.startswith("EVAL.") or not _SHARED_NAME.match(name))


def other_tools_eval(path: str, data: JSON) -> str | None:
    """Why a file named `eval.yaml` is another tool's, when its keys do not weigh for AgentV."""
    if not _SHARED_NAME.match(path.rsplit("/", 1)[-1]) or not isinstance(data, dict):
        return None
    if _named_suite(path, data):
        return None
    if "evaluation_framework" in data:
        return "a Hugging Face benchmark eval.yaml (its keys are not AgentV's)"
    if "title" in data and "tasks" in data:
        return "inspect_evals metadata (its keys are not AgentV's)"
    return "an eval.yaml of another tool (its keys are not AgentV's)"


def _named_suite(path: str, data: dict[str, JSON]) -> bool:
    """Whether the file's name makes a parsed file a suite: AgentV's own names, and the shared
    `eval.yaml` when its keys weigh for AgentV."""
    if not is_suite_name(path):
        return False
    if not _SHARED_NAME.match(path.rsplit("/", 1)[-1]):
        return True
    schema = data.get("$schema")
    if isinstance(schema, str) and ("agentv" in schema or "agentevals" in schema):
        return True
    return weighs_for(data, _AGENTV_ROOT, _OTHER_ROOT, near=("tests", "evalcases"))


def _cases(data: dict[str, JSON]) -> list[dict[str, JSON]]:
    found = data.get("evalcases")
    return [c for c in found if isinstance(c, dict)] if isinstance(found, list) else []


def is_promptfoo(path: str, data: JSON) -> bool:
    """A promptfoo config, or a file with a key only promptfoo spells: never an AgentV suite,
    whatever keys it shares with one."""
    return is_promptfoo_config(path, data) or (
        isinstance(data, dict) and any(k in data for k in PROMPTFOO_ONLY)
    )


def dialect(path: str, data: JSON) -> str | None:
    """agentv-v2, agentevals, agentv-v4, agentv-next, or None when not an AgentV suite."""
    if not isinstance(data, dict) or is_promptfoo(path, data):
        return None
    if data.get("$schema") in V2_MARKERS:
        return "agentv-v2"
    if "evalcases" in data:
        cases = _cases(data)
        spec_like = "name" in data or any("expected_outcome" in c or "input" in c for c in cases)
        return "agentevals" if spec_like else "agentv-v2"
    tests = data.get("tests")
    if "name" in data and _spec_graders(data, tests):
        return "agentevals"  # the spec's current docs: tests, assert, snake_case judges
    if any(k in data for k in _NEXT_ROOT) or (
        _uses(tests, ("vars",)) and not _uses(tests, ("input", "expected_output", "assertions"))
    ):
        # promptfoo's shape too: AgentV's only by its name, or a key only AgentV's tests hold.
        return "agentv-next" if _named_suite(path, data) or _uses(tests, ("criteria",)) else None
    if _named_suite(path, data) or _uses(tests, _V4_TEST):
        return "agentv-v4"
    return None


# Grader types only the agentevals spec spells this way (AgentV 4 writes them kebab-case).
_SPEC_TYPES = frozenset(
    {"code_judge", "llm_judge", "tool_trajectory", "field_accuracy", "execution_metrics"}
)


def _spec_graders(data: dict[str, JSON], tests: JSON) -> bool:
    """Whether the suite's `assert` lists use the spec's snake_case judge types."""
    lists = [data.get("assert")]
    if isinstance(tests, list):
        lists += [t.get("assert") for t in tests if isinstance(t, dict)]
    return any(
        isinstance(g, dict) and g.get("type") in _SPEC_TYPES
        for found in lists
        if isinstance(found, list)
        for g in found
    )


def _uses(tests: JSON, keys: tuple[str, ...]) -> bool:
    return isinstance(tests, list) and any(
        isinstance(t, dict) and any(k in t for k in keys) for t in tests
    )


def _is(name: str) -> ContentTest:
    def test(path: str, data: JSON) -> bool:
        return dialect(path, data) == name

    return test


def case_ids(data: JSON) -> Iterator[tuple[Pointer, JSON]]:
    key = "evalcases" if isinstance(data, dict) and "evalcases" in data else "tests"
    for i, case in items(data, key):
        if "id" in case:
            yield (key, i, "id"), case["id"]


_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.I)


def _local(value: str) -> bool:
    """A path or `file://` URL; other URLs (git URL references) are fetched, not files."""
    return value.startswith("file://") or not _URL.match(value)


def _message_files(messages: JSON, where: Pointer) -> Iterator[FileRef]:
    if not isinstance(messages, list):
        return
    for i, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            for j, block in enumerate(content):
                if (
                    isinstance(block, dict)
                    and block.get("type") == "file"
                    and isinstance(block.get("value"), str)
                    and _local(block["value"])
                ):
                    yield FileRef(
                        (*where, i, "content", j, "value"), block["value"], search="ancestors"
                    )


def _grader_files(graders: JSON, where: Pointer) -> Iterator[FileRef]:
    if not isinstance(graders, list):
        return
    for i, grader in enumerate(graders):
        prompt = grader.get("prompt") if isinstance(grader, dict) else None
        # Only `file://` names a file that must exist: AgentV 4 reads any other prompt as inline
        # text, and 2.x used a bare path only when found (else inline text, with a warning).
        if isinstance(prompt, str) and prompt.strip().startswith("file://"):
            yield FileRef((*where, i, "prompt"), prompt.strip(), search="ancestors")
        if isinstance(grader, dict):
            for key in ("evaluators", "assertions"):
                yield from _grader_files(grader.get(key), (*where, i, key))


# AgentV 5 reads `cases.py:make_cases` as a script and the function that returns its cases
# (case-file-loader.ts parseDatasetFunctionReference); AgentV 4 has no such suffix.
_SCRIPT_FUNCTION = re.compile(r"\.(?:mjs|cjs|js|py):([^/\\:]+)$", re.I)


def _case_file(pointer: Pointer, text: str, scripts: bool) -> FileRef:
    found = _SCRIPT_FUNCTION.search(text) if scripts else None
    if found is None:
        return FileRef(pointer, text)
    return FileRef(pointer, text[: found.start(1) - 1], function=found.group(1))


def _extensions(data: dict[str, JSON]) -> Iterator[FileRef]:
    """AgentV 5's `extensions: [file://hooks.mjs:beforeAll]`: a module and the hook it exports,
    resolved from the suite's folder (yaml-parser.ts parseExtensionString)."""
    entries = data.get("extensions")
    for i, entry in enumerate(entries if isinstance(entries, list) else []):
        if isinstance(entry, str) and entry.startswith("file://"):
            cut = entry.rfind(":")
            if cut > len("file://") and entry[cut + 1 :]:
                yield FileRef(("extensions", i), entry[:cut], function=entry[cut + 1 :])


# What AgentV 4.42 takes for a file in a hook's command (workspace-path-validator.ts).
_HOOK_SCRIPTS = (".mjs", ".cjs", ".js", ".ts", ".sh", ".bash", ".zsh", ".py", ".rb", ".pl")
_HOOKS = ("before_all", "before_each", "after_each", "after_all")


def _workspace_files(data: dict[str, JSON]) -> Iterator[FileRef]:
    """AgentV 4's `workspace.template` and the scripts its hooks run: the validator refuses a
    suite whose template or script is not there. A hook's files are resolved from its `cwd`
    (itself from the suite's folder), literally as AgentV 4 runs them (it fills no
    `{{workspace_path}}` there); an absolute path lies outside the project."""
    workspace = data.get("workspace")
    if isinstance(workspace, str) and _plain(workspace):
        yield FileRef(("workspace",), workspace)  # a shared workspace file
    if not isinstance(workspace, dict):
        return
    template = workspace.get("template")
    if isinstance(template, str) and _plain(template):
        yield FileRef(("workspace", "template"), template)
    hooks = workspace.get("hooks")
    for name in _HOOKS if isinstance(hooks, dict) else ():
        hook = hooks.get(name)  # type: ignore[union-attr]
        if not isinstance(hook, dict):
            continue
        cwd = hook.get("cwd")
        if cwd is not None and not (isinstance(cwd, str) and _plain(cwd)):
            continue
        key = "command" if "command" in hook else "script"
        command = hook.get(key)
        for i, arg in enumerate(command if isinstance(command, list) else []):
            if isinstance(arg, str) and _plain(arg) and _script_like(arg):
                path = posixpath.normpath(posixpath.join(cwd, arg)) if cwd else arg
                yield FileRef(("workspace", "hooks", name, key, i), path)


def _plain(path: str) -> bool:
    return bool(path) and not path.startswith("/")


def _script_like(arg: str) -> bool:
    return arg.startswith(("./", "../")) or arg.endswith(_HOOK_SCRIPTS)


def file_refs(data: JSON) -> Iterator[FileRef]:
    """Content-block files, judge prompt files and case files, resolved from the suite's folder."""
    return _file_refs(data, scripts=False)


def v4_file_refs(data: JSON) -> Iterator[FileRef]:
    """As `file_refs`, with the workspace template and hook scripts AgentV 4.42 checks."""
    if isinstance(data, dict):
        yield from _workspace_files(data)
    yield from _file_refs(data, scripts=False)


def next_file_refs(data: JSON) -> Iterator[FileRef]:
    """As `file_refs`, with AgentV 5's script case files (`cases.py:fn`) and extensions."""
    if isinstance(data, dict):
        yield from _extensions(data)
    yield from _file_refs(data, scripts=True)


def _file_refs(data: JSON, *, scripts: bool) -> Iterator[FileRef]:
    if not isinstance(data, dict):
        return
    key = "evalcases" if "evalcases" in data else "tests"
    tests = data.get(key)
    if isinstance(tests, str):
        yield _case_file((key,), tests, scripts)
    yield from _message_files(data.get("input"), ("input",))
    execution = data.get("execution")
    if isinstance(execution, dict):
        yield from _grader_files(execution.get("evaluators"), ("execution", "evaluators"))
    yield from _grader_files(data.get("assertions"), ("assertions",))
    for i, case in enumerate(tests if isinstance(tests, list) else []):
        if isinstance(case, str):
            yield _case_file((key, i), case, scripts)
            continue
        if not isinstance(case, dict):
            continue
        for field in ("input", "input_messages", "expected_output", "expected_messages"):
            yield from _message_files(case.get(field), (key, i, field))
        yield from _grader_files(case.get("assertions"), (key, i, "assertions"))
        inner = case.get("execution")
        if isinstance(inner, dict):
            yield from _grader_files(inner.get("evaluators"), (key, i, "execution", "evaluators"))


_YAML = frozenset({"yaml"})


def case_list(data: JSON) -> tuple[str, list[tuple[int, dict[str, JSON]]]]:
    """The key a suite lists its cases under (the dialects differ), and each case object."""
    key = "evalcases" if isinstance(data, dict) and "evalcases" in data else "tests"
    return key, list(items(data, key))


def graders(case: dict[str, JSON], where: Pointer) -> Iterator[tuple[Pointer, dict[str, JSON]]]:
    """Each grader object of a case, under any dialect's key, with where it is."""
    for key in ("assertions", "assert", "evaluators"):
        for i, grader in items(case, key):
            yield (*where, key, i), grader
    execution = case.get("execution")
    if isinstance(execution, dict):
        for i, grader in items(execution, "evaluators"):
            yield (*where, "execution", "evaluators", i), grader


_REFS = {"agentv-v4": v4_file_refs, "agentv-next": next_file_refs}


def all_graders(data: JSON) -> Iterator[tuple[Pointer, dict[str, JSON]]]:
    """Every grader of a suite: the suite's own, each case's, and the children of groups."""
    todo: deque[tuple[Pointer, dict[str, JSON]]] = deque()
    if isinstance(data, dict):
        todo += graders(data, ())
    list_key, cases = case_list(data)
    for i, case in cases:
        todo += graders(case, (list_key, i))
    while todo:
        where, grader = todo.popleft()
        yield where, grader
        for key in ("assert", "assertions"):
            todo += (((*where, key, j), child) for j, child in items(grader, key))


def _kind(
    name: str,
    title: str,
    about: str,
    claim: PathTest | None = None,
    markers: tuple[tuple[str, ...], ...] = (),
) -> Kind:
    return Kind(
        name=name,
        title=title,
        about=about,
        schema=name,
        formats=_YAML,
        by_content=_is(name),
        case_ids=case_ids,
        file_refs=_REFS.get(name, file_refs),
        claim=claim,
        markers=markers,
    )


V2 = _kind(
    "agentv-v2",
    "AgentV eval (agentv-eval-v2)",
    "AgentV late 2025: `$schema: agentv-eval-v2`, or `evalcases` with `outcome`/`input_messages`",
    markers=(("evalcases",),),
)
SPEC = _kind(
    "agentevals",
    "agentevals EVAL.yaml",
    "the agentevals spec: `evalcases` with `name` or `expected_outcome`",
)
# A suite's file name claims it for AgentV; its keys then tell the dialect, v4 when they cannot.
V4 = _kind(
    "agentv-v4",
    "AgentV eval (v4)",
    "AgentV's stable line: `EVAL.yaml`, `*.eval.yaml`, `suite.yaml` (any case), `EVAL.*.yaml` "
    "such as `EVAL.live.yaml` (in capitals, as the spec writes it), and `eval.yaml` when its keys "
    "are AgentV's (Hugging Face, inspect_evals and other tools use the name too); the keys may "
    "name another AgentV dialect; or `tests` with `criteria`/`assertions`",
    is_own_suite_name,
    (("tests", "criteria"), ("tests", "assertions")),
)
# A file that does not parse is claimed by its marker keys: `default_test` is AgentV 5's own
# spelling (promptfoo writes `defaultTest`), and tests with `vars` are its test shape.
NEXT = _kind(
    "agentv-next",
    "AgentV eval (v5, next)",
    "AgentV 5 prereleases: `prompts`, `default_test`, or tests with `vars` and `assert` "
    "(checked loosely)",
    markers=(("default_test", "tests"), ("tests", "vars", "assert")),
)

SUITES = (V2, SPEC, V4, NEXT)  # the AgentV dialects, oldest first


# The grader types each dialect's runner knows; anything else gets AgentV's own "Unknown
# assertion type" warning, unless a custom assertion of that name sits in an `.agentv/assertions/`
# folder above the suite. AgentV 4.42.4: types.ts GRADER_KIND_VALUES (checked after `_` → `-`);
# next (v5): the registered kinds of types.ts at 5.3.1-next.1, any of them with a `not-` prefix.
_V4_TYPES = frozenset(
    {
        "code-grader", "llm-grader", "rubric", "composite", "tool-trajectory", "field-accuracy",
        "latency", "cost", "token-usage", "execution-metrics", "skill-trigger", "contains",
        "contains-any", "contains-all", "icontains", "icontains-any", "icontains-all",
        "starts-with", "ends-with", "regex", "is-json", "equals", "rubrics", "inline-assert",
    }
)  # fmt: skip
_NEXT_TYPES = frozenset(
    {
        "script", "llm-rubric", "agent-rubric", "assert-set", "skill-used",
        "trajectory:tool-used", "trajectory:tool-args-match", "trajectory:tool-sequence",
        "trajectory:step-count", "trajectory:goal-success", "field-accuracy", "latency", "cost",
        "token-usage", "execution-metrics", "contains", "contains-any", "contains-all",
        "icontains", "icontains-any", "icontains-all", "starts-with", "ends-with", "regex",
        "is-json", "equals", "javascript", "python", "webhook", "similar",
    }
)  # fmt: skip
# Promptfoo types AgentV's next dialect names but rejects as "future scope" (an error there,
# eval-validator.ts at 5.3.1-next.1), so they get that message, not a did-you-mean.
UNSUPPORTED = frozenset(
    {
        "answer-relevance", "bleu", "classifier", "contains-html", "contains-json",
        "contains-sql", "contains-xml", "context-faithfulness", "context-recall",
        "context-relevance", "conversation-relevance", "factuality", "finish-reason", "gleu",
        "guardrails", "is-html", "is-refusal", "is-sql", "is-valid-function-call",
        "is-valid-openai-function-call", "is-valid-openai-tools-call", "is-xml", "levenshtein",
        "meteor", "model-graded-closedqa", "model-graded-factuality", "moderation", "perplexity",
        "perplexity-score", "pi", "rouge-n", "ruby", "similar:cosine", "similar:dot",
        "similar:euclidean", "select-best", "human", "max-score", "tool-call-f1",
        "trace-error-spans", "trace-span-count", "trace-span-duration", "search-rubric",
        "word-count",
    }
)  # fmt: skip
GRADER_TYPES: dict[str, frozenset[str]] = {V4.name: _V4_TYPES, NEXT.name: _NEXT_TYPES}
CUSTOM_ASSERTIONS = (".ts", ".js", ".mts", ".mjs", ".cts", ".cjs")  # .agentv/assertions/<type>.*


def grader_type(dialect_name: str, written: str) -> str:
    """The type as the dialect's runner compares it: snake_case is read as kebab-case, and in
    the next dialect a `not-` prefix negates any type."""
    if dialect_name == V4.name:
        return written.replace("_", "-")
    if dialect_name == NEXT.name:
        return written.replace("_", "-").removeprefix("not-")
    return written
