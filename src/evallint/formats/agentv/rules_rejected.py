"""What an AgentV release rejects that an older one read, with what to write instead.

The facts are those of each dialect's runner: AgentV 4.42.4 (npm `latest`) for v4 suites, and
5.3.1-next.1 for the next dialect (eval-validator.ts, environment-recipe.ts). Each entry maps
what a file may still say to the step that replaces it; the runner's own hints are the model.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from evallint.formats.agentv import kinds as agentv
from evallint.kinds.base import items
from evallint.model import JSON, Finding, Pointer, Severity
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context

# workspace.repos[] keys AgentV 4.38 removed; 4.42.4's validator and loader reject them.
_REPO: Mapping[str, str] = {
    "source": "name the repository under 'repo'",
    "checkout": "set the repo's 'commit', 'base_commit' and 'ancestor'",
    "clone": "set the repo's 'sparse' if needed",
}
_REPO_REMOVED = (4, 38)  # the release that removed them
_AGENTV_5 = "AgentV 5 rejects it"

# Top-level keys of earlier suites that AgentV 5 rejects.
_ROOT: Mapping[str, str] = {
    "experiment": "tag the suite (tags.experiment) or pass --experiment",
    "imports": "name the files on the command line, and case files under 'tests'",
    "expected_output": "put the reference in default_test.vars.expected_output and grade it "
    "with an assertion",
    "input": "write the prompt under 'prompts' and its data in default_test.vars or tests[].vars",
    "workers": "set evaluate_options.max_concurrency",
    "model": "set the model in providers[].config",
    "policy": "put repeat and budget_usd under evaluate_options",
    "target": "use 'providers'",
    "targets": "use 'providers' (an id becomes its label, a provider its id)",
    "eval_cases": "use 'tests'",
    "evalcases": "use 'tests'",
    "repeat": "use evaluate_options.repeat",
    "runs": "use evaluate_options.repeat, a whole number",
    "early_exit": "use evaluate_options.repeat, a whole number",
    "budget_usd": "use evaluate_options.budget_usd",
    "on_run_complete": "use an extension with an afterAll hook",
    "preprocessors": "use default_test.options.transform or an assertion's transform",
    "providerPromptMap": "use 'providers'",
    "provider_prompt_map": "use 'providers'",
}
# A test's keys AgentV 5 rejects.
_TEST: Mapping[str, str] = {
    "input": "write the prompt under 'prompts' and this test's data in 'vars'",
    "expected_output": "put the reference in vars.expected_output and grade it with an assertion",
    "provider_output": "use a provider with a fixed output (provider: cli) or a replay target",
    "preprocessors": "use options.transform or an assertion's transform",
    "postprocess": "use options.transform",
    "eval_cases": "list the rows under 'tests'",
    "evalcases": "list the rows under 'tests'",
}
# Grader types AgentV 5 no longer takes (as it compares them: `_` read as `-`).
REPLACED_TYPES: Mapping[str, str] = {
    "llm-grader": "'llm-rubric' (or 'agent-rubric' for an agentic check)",
    "llm-judge": "'llm-rubric' (or 'agent-rubric' for an agentic check)",
    "skill-trigger": "'skill-used' (or 'not-skill-used') with the skill as its value",
    "tool-trajectory": "the trajectory:* types (tool-used, tool-sequence, tool-args-match)",
    "composite": "'assert-set'",
    "g-eval": "'llm-rubric'",
    "rubrics": "'llm-rubric' with a value",
    "rubric": "'llm-rubric' with a value",  # not a kind: a grader type
    "script-grader": "'script'",
    "code-judge": "'script'",
}
# `workspace` is gone from AgentV 5 eval files: each key, and where its job went.
_WORKSPACE: Mapping[str, str] = {
    "template": "environment.workdir and environment.setup",
    "repos": "environment.setup.command to fetch the repositories",
    "scope": "an environment at suite or test level",
    "docker": "environment.type: docker with an image or a context",
    "hooks": "environment.setup, and extensions for lifecycle hooks",
    "env": "the top-level env, or environment.env",
    "mode": "--workspace-path, or execution.workspace_path in .agentv/config.local.yaml",
    "isolation": "an environment at suite or test level",
    "path": "environment.workdir",
}
# The keys of an environment recipe, per type; any other is refused.
_RECIPE: Mapping[str, frozenset[str]] = {
    "host": frozenset({"type", "workdir", "setup", "env"}),
    "docker": frozenset(
        {"type", "workdir", "context", "dockerfile", "image", "env", "resources", "mounts"}
        | {"secrets", "setup"}
    ),
}
_SETUP = frozenset({"command", "cwd", "timeout_ms"})


@rule("agentv-rejected", Severity.ERROR, kinds=(agentv.V4, agentv.NEXT))
def agentv_rejected(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A key, shape or grader type the suite's AgentV release rejects, once read by an earlier one.

    AgentV removes keys between releases and its validator then refuses the whole file: 4.38
    and later refuse `workspace.repos[].source`, `checkout` and `clone` (`agentv-version` in the
    settings names the release a project runs; the default is npm's latest, 4.42.4); AgentV 5
    refuses `workspace` (now `environment`), a test's `input` and `expected_output` (now
    `vars`), `criteria` beside `assert`, an object `repeat`, keys an environment recipe does not
    have, and the grader types it replaced or does not support yet. Each finding says what to
    write instead.

    Bad (evals/refunds.eval.yaml):
        prompts: ["{{ question }}"]
        evaluate_options:
          repeat: {count: 3}
        tests:
          - vars: {question: How long do refunds take?}
            assert:
              - type: rubrics
                value: Mentions the 30-day window.
    Good (evals/refunds.eval.yaml):
        prompts: ["{{ question }}"]
        evaluate_options:
          repeat: 3
        tests:
          - vars: {question: How long do refunds take?}
            assert:
              - type: llm-rubric
                value: Mentions the 30-day window.
    """
    data = doc.data
    if not isinstance(data, dict):
        return
    if ctx.kind.name == agentv.V4.name:
        runs = ctx.config.agentv_version
        if _release(runs) < _REPO_REMOVED:
            return  # the settings say the project runs a release that still reads them
        why = f"AgentV 4.38 removed it and {runs} refuses the file"
        yield from _repos(data.get("workspace"), ("workspace",), why)
        for i, case in agentv.case_list(data)[1]:
            yield from _repos(case.get("workspace"), ("tests", i, "workspace"), why)
        return
    yield from _keys(data, (), _ROOT)
    for where, part in _scopes(data):
        yield from _workspace(part.get("workspace"), (*where, "workspace"))
        yield from _environment(part.get("environment"), (*where, "environment"))
    yield from _tests(data)
    yield from _repeats(data)
    yield from _types(data)


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def _keys(data: dict[str, JSON], where: Pointer, table: Mapping[str, str]) -> Iterator[Finding]:
    for key in data:
        if key in table:
            yield Finding((*where, key), f"{key!r}: {_AGENTV_5}; {table[key]}", on_key=True)


def _scopes(data: dict[str, JSON]) -> Iterator[tuple[Pointer, dict[str, JSON]]]:
    """The suite and each test: where `workspace` and `environment` may be written."""
    yield (), data
    for i, case in items(data, "tests"):
        yield ("tests", i), case


def _repos(workspace: JSON, where: Pointer, why: str) -> Iterator[Finding]:
    for i, repo in items(workspace, "repos"):
        for key in repo:
            if key in _REPO:
                yield Finding(
                    (*where, "repos", i, key),
                    f"workspace repo key {key!r}: {why}; {_REPO[key]}",
                    on_key=True,
                )


def _workspace(workspace: JSON, where: Pointer) -> Iterator[Finding]:
    if workspace is None:
        return
    if not isinstance(workspace, dict) or not workspace:
        yield Finding(where, f"'workspace': {_AGENTV_5}; write an 'environment' recipe instead")
        return
    for key in workspace:
        instead = _WORKSPACE.get(key, "an 'environment' recipe")
        yield Finding((*where, key), f"workspace.{key}: {_AGENTV_5}; use {instead}", on_key=True)


def _environment(recipe: JSON, where: Pointer) -> Iterator[Finding]:
    if isinstance(recipe, str):
        if not recipe.startswith("file://"):
            yield Finding(where, "an environment is a recipe, or a file:// reference to one")
        return
    if not isinstance(recipe, dict):
        return
    kind = recipe.get("type")
    known = _RECIPE.get(kind) if isinstance(kind, str) else None
    if known is None:
        at = (*where, "type") if "type" in recipe else where
        yield Finding(at, "an environment recipe's type is 'host' or 'docker'")
        return
    for key in recipe:
        if key not in known:
            yield Finding(
                (*where, key),
                f"{key!r} is not a key of a {recipe['type']} environment recipe; AgentV 5 "
                f"takes {', '.join(sorted(known))}",
                on_key=True,
            )
    setup = recipe.get("setup")
    for key in setup if isinstance(setup, dict) else ():
        if key not in _SETUP:
            yield Finding(
                (*where, "setup", key),
                f"{key!r} is not a key of environment.setup; AgentV 5 takes command (an argv "
                "list), cwd and timeout_ms",
                on_key=True,
            )


def _tests(data: dict[str, JSON]) -> Iterator[Finding]:
    for i, case in items(data, "tests"):
        yield from _keys(case, ("tests", i), _TEST)
        if "criteria" in case and "assert" in case:
            yield Finding(
                ("tests", i, "criteria"),
                f"'criteria' beside 'assert': {_AGENTV_5}; write the criteria as an "
                "'llm-rubric' assertion, or the case's description",
                on_key=True,
            )


def _repeats(data: dict[str, JSON]) -> Iterator[Finding]:
    """`repeat` is a whole number of runs; AgentV 5 removed the object shape."""
    places: list[tuple[Pointer, JSON]] = [(("evaluate_options",), data.get("evaluate_options"))]
    places.append((("default_test", "options"), _at(data, "default_test", "options")))
    for i, case in items(data, "tests"):
        places += [(("tests", i, part), case.get(part)) for part in ("options", "run")]
    for where, holder in places:
        repeat = holder.get("repeat") if isinstance(holder, dict) else None
        if repeat is None or (type(repeat) is int and repeat >= 1):
            continue
        yield Finding(
            (*where, "repeat"),
            f"'repeat' is a whole number of runs (repeat: 3); {_AGENTV_5} as "
            + ("an object, the shape it removed" if isinstance(repeat, dict) else "written"),
        )


def _at(data: dict[str, JSON], *path: str) -> JSON:
    value: JSON = data
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _types(data: dict[str, JSON]) -> Iterator[Finding]:
    for where, grader in agentv.all_graders(data):
        written = grader.get("type")
        if not isinstance(written, str):
            continue
        name = written.replace("_", "-")
        if name in REPLACED_TYPES:
            instead = REPLACED_TYPES[name]
            yield Finding((*where, "type"), f"grader type {written!r}: {_AGENTV_5}; use {instead}")
        elif name.removeprefix("not-") in agentv.UNSUPPORTED:
            yield Finding(
                (*where, "type"),
                f"grader type {written!r} is a promptfoo type AgentV 5 does not support yet; "
                "its validator rejects it",
            )
