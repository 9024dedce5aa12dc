"""AgentV rules beyond the schema: keys from another dialect, rubric score ranges, and the
functions script references name."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

from evallint.formats.agentv import kinds as agentv
from evallint.formats.agentv import kinds_files as agentv_files
from evallint.formats.agentv.rules_rejected import REPLACED_TYPES
from evallint.kinds.base import candidates
from evallint.model import JSON, Finding, Fix, Pointer, Severity
from evallint.rules.api import function_error
from evallint.rules.base import rule
from evallint.suggest import sole, suggest

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context


# (where, key) -> what to write instead, per dialect; AgentV's own hints are the model.
_V4_CASE = {
    "expected_outcome": "'criteria' (renamed in AgentV 2.7)",
    "outcome": "'criteria' (renamed in AgentV 2.7)",
    "input_messages": "'input' (renamed in AgentV 2.9)",
    "expected_messages": "'expected_output' (renamed in AgentV 2.9)",
    "assert": "'assertions'",
    "evaluators": "'assertions'",
}
# (where, key) pairs a dialect's runner still reads, with a deprecation warning of its own: the
# hint names the current spelling without saying the old one is ignored. AgentV 4.42.4:
# eval-validator.ts DEPRECATED_TOP_LEVEL_FIELDS and DEPRECATED_TEST_FIELDS, and grader-parser.ts
# (`type: rubric` maps to an llm-grader with rubrics).
_STILL_READ: Mapping[str, frozenset[tuple[str, str]]] = {
    agentv.V4.name: frozenset(
        {
            ("root", "evalcases"),
            ("root", "eval_cases"),
            ("root", "assert"),
            ("case", "expected_outcome"),
            ("case", "assert"),
            ("case", "evaluators"),
            ("type", "rubric"),  # not a kind: AgentV's grader type
        }
    ),
}
_RENAMES: Mapping[str, Mapping[str, Mapping[str, str]]] = {
    agentv.V4.name: {
        "root": {
            "evalcases": "'tests'",
            "eval_cases": "'tests'",
            "cases": "'tests'",
            "assert": "'assertions' (the v4 name)",
            "prompts": "v5's 'prompts' (this file is otherwise AgentV 4)",
        },
        "case": _V4_CASE,
        "type": {
            "code_judge": "'code-grader'",
            "code-judge": "'code-grader'",
            "llm_judge": "'llm-grader'",
            "llm-judge": "'llm-grader'",
            "rubric": "'rubrics'",  # not a kind: AgentV's grader type
        },
    },
    agentv.SPEC.name: {
        "case": {
            "criteria": "'expected_outcome' (the spec's name; 'criteria' is AgentV 4's)",
            "outcome": "'expected_outcome'",
            "assertions": "'execution.evaluators'",
        },
        # The spec's current docs: `tests` with `criteria` and `assert`.
        "test": {"outcome": "'criteria'", "assertions": "'assert' (the spec's name)"},
        "type": {
            "llm-grader": "'llm_judge'",
            "code-grader": "'code_judge'",
            "code": "'code_judge'",
        },
    },
    agentv.V2.name: {
        "root": {"tests": "'evalcases' (this file is otherwise agentv-eval-v2)"},
        "case": {
            "expected_outcome": "'outcome' (the agentv-eval-v2 name)",
            "input": "'input_messages'",
            "expected_output": "'expected_messages'",
        },
        # AgentV 1.x read `code_judge` beside `outcome` and `input_messages`: no hint here.
    },
    # What AgentV 5 rejects outright is agentv-rejected's (an error), not a hint here.
    agentv.NEXT.name: {
        "root": {"assertions": "'assert' (the v5 name)"},
        "case": {"assertions": "'assert' (the v5 name)"},
        "type": {"code-grader": "'script'"},
    },
}


@rule("agentv-migration", Severity.WARNING, kinds=agentv.SUITES)
def agentv_migration(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A suite uses a key or grader type from another AgentV dialect, or one that was renamed.

    AgentV's format changed shape several times (`evalcases` → `tests`, `expected_outcome` →
    `criteria`, `assert` → `assertions`, judges → graders). evallint detects the dialect of each
    file and names the replacement for keys from another one, as AgentV's own hints do.

    Bad (evals/refunds.eval.yaml):
        tests:
          - id: window
            input: "How long do refunds take?"
            criteria: Mentions the 30-day window.
            assert:
              - type: contains
                value: "30 days"
    Good (evals/refunds.eval.yaml):
        tests:
          - id: window
            input: "How long do refunds take?"
            criteria: Mentions the 30-day window.
            assertions:
              - type: contains
                value: "30 days"
    """
    table = _RENAMES.get(ctx.kind.name, {})
    read = _STILL_READ.get(ctx.kind.name, frozenset())
    if not isinstance(doc.data, dict):
        return
    for key in doc.data:
        if key in table.get("root", {}):
            hint = table["root"][key]
            yield Finding(
                (key,),
                _deprecated(repr(key), hint)
                if ("root", key) in read
                else f"{key!r} belongs to another AgentV dialect; use {hint}",
                on_key=True,
            )
    yield from _case_migrations(doc.data, ctx, table, read)
    # Every grader, as unknown-grader-type sees them: the suite's own and group members too.
    for at, grader in agentv.graders_of(doc):
        kind = grader.get("type")
        if isinstance(kind, str) and kind in table.get("type", {}):
            hint = table["type"][kind]
            yield Finding(
                (*at, "type"),
                _deprecated(f"grader type {kind!r}", hint)
                if ("type", kind) in read
                else f"grader type {kind!r} is not used in this dialect; use {hint}",
            )


def _case_migrations(
    data: dict[str, JSON],
    ctx: Context,
    table: Mapping[str, Mapping[str, str]],
    read: AbstractSet[tuple[str, str]],
) -> Iterator[Finding]:
    """`agentv_migration` of each case's keys."""
    list_key, cases = agentv.case_list(data)
    # A dialect may name a `tests` entry's keys otherwise than an `evalcases` one (the spec).
    renamed = table.get("test" if list_key == "tests" and "test" in table else "case", {})
    for i, case in cases:
        where: Pointer = (list_key, i)
        for key in case:
            if key in renamed:
                hint = renamed[key]
                yield Finding(
                    (*where, key),
                    _deprecated(repr(key), hint)
                    if ("case", key) in read
                    else f"{key!r} is not read in this dialect; use {hint}",
                    on_key=True,
                )


def _deprecated(what: str, hint: str) -> str:
    return f"{what} is deprecated in this dialect (still read, with a warning); use {hint}"


def _find_ranges(data: JSON, where: Pointer) -> Iterator[tuple[Pointer, JSON]]:
    """Every `score_ranges` value in the document (rubric items sit at several depths)."""
    stack: list[tuple[Pointer, JSON]] = [(where, data)]
    while stack:
        pointer, value = stack.pop()
        if isinstance(value, dict):
            for key, child in value.items():
                if key == "score_ranges":
                    yield (*pointer, key), child
                elif isinstance(child, dict | list):
                    stack.append(((*pointer, key), child))
        elif isinstance(value, list):
            stack.extend(
                ((*pointer, i), child)
                for i, child in enumerate(value)
                if isinstance(child, dict | list)
            )


Range = tuple[Pointer, int | None, int | None, bool]  # where, low, high, at the key


def _ranges(value: JSON, pointer: Pointer) -> list[Range]:
    """(where, low, high, on_key) per range; None where a bound is not an integer."""
    out: list[Range] = []
    if isinstance(value, dict):  # {0: "...", 5: "..."}: keys are lower bounds
        lows = []
        for key in value:
            lows.append((key, int(key) if str(key).isdigit() else None))
        for n, (key, low) in enumerate(lows):
            nxt = lows[n + 1][1] if n + 1 < len(lows) else 11
            high = nxt - 1 if low is not None and nxt is not None else None
            out.append(((*pointer, key), low, high, True))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            pair = item.get("score_range") if isinstance(item, dict) else None
            ok = (
                isinstance(pair, list)
                and len(pair) == 2
                and all(isinstance(x, int) and not isinstance(x, bool) for x in pair)
            )
            where = (*pointer, i, "score_range") if isinstance(item, dict) else (*pointer, i)
            out.append((where, pair[0] if ok else None, pair[1] if ok else None, False))  # type: ignore[index]
    return out


def range_problems(value: JSON, pointer: Pointer) -> Iterator[tuple[Pointer, str, bool]]:
    """(where, message, at the key) for the first thing wrong with a set of score ranges."""
    if not isinstance(value, dict | list):
        yield (
            pointer,
            (
                "score_ranges must be a list of {score_range: [low, high], outcome} or "
                "a map from lower bounds to outcomes"
            ),
            False,
        )
        return
    expected = 0
    for where, low, high, on_key in _ranges(value, pointer):
        problem = _range_problem(low, high, expected)
        if problem:
            yield where, problem, on_key
            return
        expected = (high or 0) + 1
    if expected != 11:
        yield pointer, f"score ranges stop at {expected - 1}; they must cover 0 to 10", False


def _range_problem(low: int | None, high: int | None, expected: int) -> str | None:
    if low is None or high is None:
        return "a score range needs two whole numbers from 0 to 10"
    if not 0 <= low <= high <= 10:
        return f"score range [{low}, {high}] is outside 0 to 10 or reversed"
    if low != expected:
        what = (
            "overlaps the one before"
            if low < expected
            else f"leaves {expected}-{low - 1} uncovered"
        )
        return (
            f"score range [{low}, {high}] {what}; ranges must be in order and cover 0 to "
            "10 without gaps"
        )
    return None


@rule("score-ranges", Severity.ERROR, kinds=agentv.SUITES)
def score_ranges(doc: Document, ctx: Context) -> Iterator[Finding]:
    """Rubric score ranges are not whole numbers 0 to 10, in order, without overlaps or gaps.

    AgentV only notices some of this at run time (it warns on gaps); `agentv validate` checks
    none of it. Both forms are read: a list of `{score_range: [low, high], outcome}` and a map
    from lower bounds to outcomes.

    Bad (evals/tone.eval.yaml):
        tests:
          - id: tone
            criteria: Polite and clear.
            assertions:
              - type: rubrics
                rubrics:
                  - id: polite
                    outcome: Polite
                    score_ranges:
                      - {score_range: [0, 4], outcome: Rude}
                      - {score_range: [4, 10], outcome: Polite}
    Good (evals/tone.eval.yaml):
        tests:
          - id: tone
            criteria: Polite and clear.
            assertions:
              - type: rubrics
                rubrics:
                  - id: polite
                    outcome: Polite
                    score_ranges:
                      - {score_range: [0, 4], outcome: Rude}
                      - {score_range: [5, 10], outcome: Polite}
    """
    for pointer, value in _find_ranges(doc.data, ()):
        for where, message, on_key in range_problems(value, pointer):
            yield Finding(where, message, on_key=on_key)


@functools.lru_cache(maxsize=2)
def _assertion_files(files: frozenset[str]) -> Mapping[str, frozenset[str]]:
    """`.agentv/assertions/` folder -> the custom assertion types it defines, once per run."""
    out: dict[str, set[str]] = {}
    for path in files:
        folder, _, name = path.rpartition("/")
        if (folder == ".agentv/assertions" or folder.endswith("/.agentv/assertions")) and (
            name.endswith(agentv.CUSTOM_ASSERTIONS)
        ):
            out.setdefault(folder, set()).add(name.rsplit(".", 1)[0])
    return {folder: frozenset(names) for folder, names in out.items()}


def _custom_types(doc: Document, ctx: Context) -> frozenset[str]:
    """Custom assertions the runner discovers in `.agentv/assertions/` folders above the suite."""
    defined = _assertion_files(ctx.files)
    found: set[str] = set()
    here = doc.path.rpartition("/")[0]
    while True:
        found |= defined.get(f"{here}/.agentv/assertions" if here else ".agentv/assertions", set())
        if not here:
            return frozenset(found)
        here = here.rpartition("/")[0]


@rule("unknown-grader-type", Severity.WARNING, kinds=agentv.SUITES, fixable=True)
def unknown_grader_type(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A grader's `type` is none the dialect's runner knows (a misspelling, most often).

    AgentV warns "Unknown assertion type" and the grader does not run as meant; the older
    AgentV releases skip such an evaluator ("Skipping evaluator with invalid name/type"). The
    known types are each dialect's runner's: AgentV 4.42.4 (`code-grader`, `contains-any`, ...;
    snake_case is read as kebab-case), its next dialect (`llm-rubric`, `script`, ...; any with a
    `not-` prefix), AgentV 2.x for agentevals suites and 0.10 to 1.x for agentv-eval-v2 ones
    (`llm_judge`, `code_judge`, ...), plus custom assertions in an `.agentv/assertions/` folder
    above the suite. Types from another dialect get `agentv-migration` instead.

    Bad (evals/refunds.eval.yaml):
        tests:
          - id: window
            criteria: Mentions the 30-day window.
            input: "How long do refunds take?"
            assertions:
              - type: contains-anyy
                value: ["30 days"]
    Good (evals/refunds.eval.yaml):
        tests:
          - id: window
            criteria: Mentions the 30-day window.
            input: "How long do refunds take?"
            assertions:
              - type: contains-any
                value: ["30 days"]
    """
    known = agentv.GRADER_TYPES.get(ctx.kind.name)
    if known is None:
        return
    renamed = _RENAMES.get(ctx.kind.name, {}).get("type", {})
    custom: frozenset[str] | None = None
    for where, grader in agentv.graders_of(doc):
        written = grader.get("type")
        if not isinstance(written, str) or written in renamed:
            continue
        name = agentv.grader_type(ctx.kind.name, written)
        if name in known or name in renamed:
            continue
        if ctx.kind.name == agentv.NEXT.name and (
            name in agentv.UNSUPPORTED or written.replace("_", "-") in REPLACED_TYPES
        ):
            continue  # AgentV 5 rejects it: agentv-rejected says so, as an error
        if custom is None:
            custom = _custom_types(doc, ctx)
        if name in custom:
            continue
        hint = suggest(name, sorted(known | custom))
        tail = f"; did you mean {hint!r}?" if hint else ""
        only = sole(name, sorted(known | custom))
        fix = Fix((*where, "type"), written, only) if only else None
        yield Finding((*where, "type"), f"unknown grader type {written!r}{tail}", fix=fix)


@rule("agentv-function", Severity.ERROR, kinds=(agentv.NEXT,), reads_files=True)
def agentv_function(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A script case file or extension that names a function its module does not have.

    AgentV 5 calls the function after the colon: `tests: file://cases.py:make_cases` runs the
    Python function for its cases, and `extensions: [file://hooks.mjs:beforeAll]` imports the
    module's `beforeAll` export. A function that is not there fails the run before any test.
    The module is parsed (Python) or searched (JavaScript), never run.

    Bad (checkout.eval.yaml):
        prompts: ["{{ input }}"]
        tests: file://cases.py:make_case
    Given (cases.py):
        def make_cases():
            return [{"id": "refund", "vars": {"input": "Refund policy?"}}]
    Good (checkout.eval.yaml):
        prompts: ["{{ input }}"]
        tests: file://cases.py:make_cases
    """
    for ref in agentv_files.next_file_refs(doc.data):
        if ref.function is None:
            continue
        found = [p for p in candidates(doc.path, ref, ctx.root_name) if p in ctx.files]
        error = function_error(found[0], ref.function, ctx) if found else None
        if error is not None:
            yield Finding(ref.pointer, f"{ref.path}:{ref.function}: {error}")
