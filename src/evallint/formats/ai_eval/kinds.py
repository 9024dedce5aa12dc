"""The Drupal ai_eval trio: datasets, rubrics and judges (issue #3586842)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from evallint.kinds.base import (
    Digest,
    Item,
    Kind,
    Pattern,
    has_keys,
    in_dir,
    items,
    weighs_for,
)
from evallint.model import JSON, Pointer


def id_and_version(data: JSON) -> tuple[str, str] | None:
    if isinstance(data, dict) and isinstance(data.get("id"), str):
        version = data.get("version")
        return data["id"], version if isinstance(version, str) else ""
    return None


def dataset_version(data: JSON) -> tuple[str, str] | None:
    """Datasets need no id to be versioned: they are compared with their own file at the base."""
    if isinstance(data, dict) and isinstance(data.get("version"), str):
        ident = data.get("id")
        return ident if isinstance(ident, str) else "", data["version"]
    return None


def dataset_refs(data: JSON) -> Iterator[tuple[Pointer, str]]:
    for i, question in items(data, "questions"):
        if isinstance(question.get("rubric_ref"), str):
            yield ("questions", i, "rubric_ref"), question["rubric_ref"]


def rubric_refs(data: JSON) -> Iterator[tuple[Pointer, str]]:
    for i, check in items(data, "checks"):
        for key in ("judge_prompt_ref", "rubric_ref"):
            if isinstance(check.get(key), str):
                yield ("checks", i, key), check[key]
        for j, member in items(check, "jury"):
            if isinstance(member.get("judge_prompt_ref"), str):
                yield ("checks", i, "jury", j, "judge_prompt_ref"), member["judge_prompt_ref"]


def rubric_digest(data: JSON) -> Digest:
    """What a dataset's rules read of a rubric: the question fields its checks grade against
    (each with the first check that does), and the rubrics its composite checks name."""
    out: Digest = {}
    for _, check in items(data, "checks"):
        kind, cid = check.get("kind"), check.get("id", "?")
        if kind == "fact_match" and not check.get("facts"):
            out.setdefault("expected_facts", [f"fact_match check {cid!r}"])
        if kind == "tool_usage" and not check.get("expected_tools"):
            out.setdefault("expected_tools", [f"tool_usage check {cid!r}"])
        if kind == "composite" and isinstance(check.get("rubric_ref"), str):
            out.setdefault("composite", []).append(check["rubric_ref"])
    return out


# Keys other tools' rubrics, judges and datasets use at their top level, which ai_eval's never
# do: a file of a folder named `rubrics/`, `judges/` or `datasets/` whose keys weigh for these
# more than for ours is another tool's (`weighs_for`).
_THEIRS = frozenset(
    {
        "name", "criteria", "criterion", "scale", "levels", "dimensions", "rubric", "rubrics",
        "items", "categories", "weights", "score_range", "prompt", "model", "examples", "data",
        "samples", "rows", "columns", "features", "splits", "tasks", "tests", "cases",
    }
)  # fmt: skip


def _weighs(ours: frozenset[str], required: tuple[str, ...]) -> Callable[[JSON], bool]:
    def test(data: JSON) -> bool:
        # No keys to tell another tool's file by (empty, a list, a scalar): the folder claims
        # it, and it fails closed as a parse-error.
        if not isinstance(data, dict) or not data:
            return True
        return weighs_for(data, ours, _THEIRS, near=required)

    return test


def rubric_patterns(data: JSON) -> Iterator[Pattern]:
    """The patterns of `regex` checks, with their PCRE flag letters."""
    for i, check in items(data, "checks"):
        if check.get("kind") == "regex" and isinstance(check.get("pattern"), str):
            flags = check.get("flags", "")
            at = ("checks", i)
            yield Pattern(
                at=(*at, "pattern"),
                text=check["pattern"],
                engine="pcre",
                flags=flags,
                flags_at=(*at, "flags"),
            )


def questions(data: JSON) -> Iterator[Item]:
    """Each question: its `input`, and its `expected_facts` (facts an answer must state, looked
    for by the rubric's checks, so never compared whole). A hot path (every question of every
    dataset a run checks): plain loops, no generator per question."""
    for i, question in items(data, "questions"):
        text = question.get("input")
        if not isinstance(text, str):
            continue
        facts = question.get("expected_facts")
        expected: tuple[str, ...] | None = None
        expected_at: tuple[Pointer, ...] = ()
        if isinstance(facts, list) and facts:
            listed = [j for j, f in enumerate(facts) if isinstance(f, str)]
            if listed:
                expected = tuple([facts[j] for j in listed])
                expected_at = tuple([("questions", i, "expected_facts", j) for j in listed])
        ident = question.get("id")
        yield Item(
            at=("questions", i),
            input=text,
            input_at=("questions", i, "input"),
            ident=ident if isinstance(ident, str) else None,
            expected=expected,
            expected_at=expected_at,
            whole=question,
            own=_OWN,
        )


_OWN = ("id", "input")


# The question fields a rubric's checks may read (the digest's other key is "composite").
QUESTION_FIELDS = ("expected_facts", "expected_tools")

_DATA = frozenset({"yaml", "json"})

RUBRIC = Kind(
    name="rubric",
    title="ai_eval rubric",
    about="a YAML or JSON file under a folder named `rubrics`, or with `checks` and `scoring`",
    schema="rubric",
    formats=_DATA,
    by_path=in_dir("rubrics"),
    weighs=_weighs(frozenset({"id", "version", "checks", "scoring"}), ("checks", "scoring")),
    by_content=has_keys("checks", "scoring"),
    namespace="rubric",
    defines=id_and_version,
    versioned=id_and_version,
    references=rubric_refs,
    digest=rubric_digest,
    composes=True,
    patterns=rubric_patterns,
    needles=(b"checks", b"scoring"),
    markers=(("checks", "scoring"),),
    editor_globs=("**/rubrics/**/*.yaml", "**/rubrics/**/*.yml", "**/rubrics/**/*.json"),
)

JUDGE = Kind(
    name="judge",
    title="ai_eval judge",
    about="under a folder named `judges`, or with `id`, `version` and `template`",
    schema="judge",
    formats=_DATA,
    by_path=in_dir("judges"),
    weighs=_weighs(
        frozenset({"id", "version", "template", "applicable_to", "level_names", "score_type"}),
        ("template",),
    ),
    by_content=has_keys("id", "version", "template"),
    namespace="judge",
    defines=id_and_version,
    versioned=id_and_version,
    needles=(b"template",),
    markers=(("id", "version", "template"),),
    editor_globs=("**/judges/**/*.yaml", "**/judges/**/*.yml", "**/judges/**/*.json"),
)

DATASET = Kind(
    name="dataset",
    title="ai_eval dataset",
    about="under a folder named `datasets`, or a top-level `questions` list",
    schema="dataset",
    formats=_DATA,
    by_content=has_keys("questions"),
    versioned=dataset_version,
    references=dataset_refs,
    needles=(b"questions",),
    claim=in_dir("datasets"),
    weighs=_weighs(frozenset({"questions", "id", "version"}), ("questions",)),
    markers=(("questions",),),
    editor_globs=("**/datasets/**/*.yaml", "**/datasets/**/*.yml", "**/datasets/**/*.json"),
    item_view=questions,
    item_needles=(b"questions", b"input"),
    fallback=True,  # a `questions` list is common: any other kind claims first
)

KINDS = (RUBRIC, JUDGE, DATASET)
