"""AgentV / agentevals eval suites (`EVAL.yaml`, `EVAL.*.yaml`, `*.eval.yaml`, `suite.yaml`), in
four dialects.

Which dialect a file is written in is read from its `$schema` marker and its keys; which files
are suites at all, from the file name, the marker, or keys no other format uses (`evalcases`, or
`tests` whose items carry AgentV's `criteria` or `assertions`). A bare `tests` list is not enough:
promptfoo configs look the same.
"""

from __future__ import annotations

import functools
import re
from collections import deque
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from evallint.formats.agentv.kinds_files import case_refs, file_refs, next_file_refs, v4_file_refs
from evallint.kinds.base import (
    ContentTest,
    Item,
    Kind,
    PathTest,
    Pattern,
    items,
    weighs_for,
)
from evallint.model import JSON, Pointer

if TYPE_CHECKING:
    from evallint.parse import Document

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
        # agent-eval-harness's run configs (`execution` beside these is theirs, not AgentV's)
        "runner",
        "judges",
        "thresholds",
        "dataset",
        "outputs",
        "hooks",
        "matrix",
        "permissions",
        "traces",
    }
)
# The spec's EVAL.yaml with a variant in its name (EVAL.live.yaml): written in capitals, as the
# spec writes it (a lower-case eval.config.yaml may be anything).
_SPEC_VARIANT = re.compile(r"^EVAL\.[^/]+\.ya?ml$")
V2_MARKERS = ("agentv-eval-v2", "agentevo-eval-v2")
_NEXT_ROOTS = frozenset(("prompts", "default_test", "providers", "evaluate_options", "scenarios"))
_V4_TEST = ("criteria", "assertions", "expected_output", "input")


def is_suite_name(path: str) -> bool:
    """A name AgentV gives its suites (a file that does not parse is claimed by it)."""
    name = path.rsplit("/", 1)[-1]
    low = name.lower()
    if "eval" not in low and "agentv" not in low and not low.startswith("suite."):
        return False  # what both patterns need, found at C speed (most names have none)
    return bool(_SUITE_NAME.match(name) or _SPEC_VARIANT.match(name))


def is_own_suite_name(path: str) -> bool:
    """A name only AgentV gives its files: a file that does not parse is claimed by it. The
    spec's `EVAL.yaml`, in capitals, is one; a shared `eval.yaml` that does not parse is
    claimed by AgentV's markers in its text, if any."""
    name = path.rsplit("/", 1)[-1]
    return is_suite_name(path) and (name.startswith("EVAL.") or not _SHARED_NAME.match(name))


# AgentV's own configuration (`.agentv/config.yaml`, `providers.yaml`, ...): not eval files,
# though `providers:` and `defaults:` look like a promptfoo config's keys.
_CONFIG_NAME = re.compile(r"(?:^|/)\.agentv/(?:config|providers|targets|defaults)\.ya?ml$")


def other_tools_eval(path: str, data: JSON) -> str | None:
    """Why a file is another tool's, plainly: AgentV's own configuration, or a file named
    `eval.yaml` whose keys do not weigh for AgentV."""
    if not isinstance(data, dict):
        return None
    schema = data.get("$schema")
    if _CONFIG_NAME.search(path) or (isinstance(schema, str) and "agentv-config" in schema):
        return "AgentV's own configuration, not an eval file"
    if not _SHARED_NAME.match(path.rsplit("/", 1)[-1]):
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


def dialect(path: str, data: JSON) -> str | None:
    """agentv-v2, agentevals, agentv-v4, agentv-next, or None when not an AgentV suite (a file
    promptfoo owns is never asked: `Kind.owns`)."""
    if not isinstance(data, dict):
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
    if not _NEXT_ROOTS.isdisjoint(data) or (
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
        return _asked(path, data) == name

    return test


# The file last asked its dialect, and the answer: each of the four suite kinds asks every
# file in turn (a large tree is mostly other formats' files). The data is held, so it is the
# same object, never one made later at the same address.
_LAST: list[JSON] = [None, None, None]


def _asked(path: str, data: JSON) -> str | None:
    if _LAST[1] is not data or _LAST[0] != path:
        _LAST[:] = (path, data, dialect(path, data))
    found: str | None = _LAST[2]
    return found


def case_ids(data: JSON) -> Iterator[tuple[Pointer, JSON]]:
    key = "evalcases" if isinstance(data, dict) and "evalcases" in data else "tests"
    for i, case in items(data, key):
        if "id" in case:
            yield (key, i, "id"), case["id"]


_YAML = frozenset({"yaml"})


def case_list(data: JSON) -> tuple[str, list[tuple[int, dict[str, JSON]]]]:
    """The key a suite lists its cases under (the dialects differ), and each case object."""
    key = "evalcases" if isinstance(data, dict) and "evalcases" in data else "tests"
    return key, list(items(data, key))


def _text(value: JSON) -> str | None:
    """An input as text: itself, or each message as `role: content` (a content block as its
    type and value), one a line."""
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        return None
    lines = []
    for message in value:
        if not isinstance(message, dict):
            return None
        content = message.get("content")
        if isinstance(content, list):
            content = " ".join(
                f"{b.get('type')}:{b.get('value', b.get('text'))}"
                for b in content
                if isinstance(b, dict)
            )
        lines.append(f"{message.get('role')}: {content}")
    return "\n".join(lines)


def cases(data: JSON) -> Iterator[Item]:
    """Each case: its input (a text or messages), and its `expected_output` text (what graders
    compare the answer with; read by LLM graders, so never compared whole here)."""
    key, found = case_list(data)
    for i, case in found:
        written = next((k for k in ("input", "input_messages") if k in case), None)
        text = _text(case.get(written)) if written else None
        if text is None or written is None:
            continue
        expected, ident = case.get("expected_output"), case.get("id")
        has = isinstance(expected, str)
        yield Item(
            at=(key, i),
            input=text,
            input_at=(key, i, written),
            ident=ident if isinstance(ident, str) else None,
            expected=(expected,) if isinstance(expected, str) else None,
            expected_at=((key, i, "expected_output"),) if has else (),
            whole=case,
            own=("id", written),
        )


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
_CASE_FILES = (".yaml", ".yml", ".jsonl")


def reads(path: str, data: JSON) -> Iterator[str]:
    """The case files a suite loads (`tests: ./cases.yaml`), for a partial run to check the
    suite when one changes. A folder of cases is left to a full run."""
    from evallint.kinds.base import candidates

    for ref in case_refs(data):
        if ref.path.lower().endswith(_CASE_FILES):
            yield from candidates(path, ref)


@functools.lru_cache(maxsize=2)
def _has_suites(files: frozenset[str]) -> bool:
    return any(is_suite_name(f) for f in files)


def readable(path: str, data: JSON, files: frozenset[str]) -> bool:
    """A file a suite can load as its cases: a YAML list or a JSONL file, where the tree holds
    a suite by its name."""
    if not path.lower().endswith(_CASE_FILES):
        return False
    return (data is None or isinstance(data, list)) and _has_suites(files)


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
# The older dialects' evaluator types, as written (no `_` → `-`): AgentV skips any other with
# a warning ("Skipping evaluator with invalid name/type"). agentv-eval-v2 suites ran on AgentV
# 0.10 (types.ts: code, llm_judge) and 1.x (1.6.1 adds code_judge, rubric, composite,
# tool_trajectory); agentevals suites on AgentV 2.x (2.6.1's list), whose spec names the same.
_V2_TYPES = frozenset({"code", "llm_judge", "code_judge", "rubric", "composite", "tool_trajectory"})
_SPEC_TYPES_RUN = frozenset(
    {
        "code_judge", "llm_judge", "rubric", "composite", "tool_trajectory", "field_accuracy",
        "latency", "cost", "token_usage", "execution_metrics",
    }
)  # fmt: skip
_TYPES_OF = {
    "agentv-v2": _V2_TYPES,
    "agentevals": _SPEC_TYPES_RUN,
    "agentv-v4": _V4_TYPES,
    "agentv-next": _NEXT_TYPES,
}


def patterns(data: JSON) -> Iterator[Pattern]:
    """The patterns of `regex` graders, which AgentV compiles with JavaScript's RegExp."""
    list_key, cases = case_list(data)
    for i, case in cases:
        for at, grader in graders(case, (list_key, i)):
            if grader.get("type") == "regex" and isinstance(grader.get("value"), str):
                yield Pattern(at=(*at, "value"), text=grader["value"], engine="javascript")


def graders_of(doc: Document) -> tuple[tuple[Pointer, dict[str, JSON]], ...]:
    """Every grader of a suite, found once for all its rules."""
    return doc.facts.get(_graders, doc.data)


def _graders(data: JSON) -> tuple[tuple[Pointer, dict[str, JSON]], ...]:
    return tuple(all_graders(data))


def _kind(
    name: str,
    title: str,
    about: str,
    claim: PathTest | None = None,
    markers: tuple[tuple[str, ...], ...] = (),
    disowns: Callable[[str, JSON], str | None] | None = None,
) -> Kind:
    return Kind(
        name=name,
        title=title,
        about=about,
        schema=name,
        formats=_YAML,
        by_content=_is(name),
        # The next dialect's test ids are checked by AgentV's own loader.
        case_ids=None if name == "agentv-next" else case_ids,
        patterns=patterns,
        item_view=cases,
        item_needles=(b"input",),
        grader_types=_TYPES_OF[name],
        disowns=disowns,
        file_refs=_REFS.get(name, file_refs),
        reads=reads if name in _REFS else None,
        readable=readable if name in _REFS else None,
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
    disowns=other_tools_eval,
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
KINDS = SUITES


GRADER_TYPES: dict[str, frozenset[str]] = {k.name: k.grader_types for k in SUITES}
CUSTOM_ASSERTIONS = (".ts", ".js", ".mts", ".mjs", ".cts", ".cjs")  # .agentv/assertions/<type>.*


def grader_type(dialect_name: str, written: str) -> str:
    """The type as the dialect's runner compares it: snake_case is read as kebab-case, and in
    the next dialect a `not-` prefix negates any type."""
    if dialect_name == V4.name:
        return written.replace("_", "-")
    if dialect_name == NEXT.name:
        return written.replace("_", "-").removeprefix("not-")
    return written
