"""Drupal ai_best_practices: `evals.json` (inline graders) and `static-checks.json`."""

from __future__ import annotations

from collections.abc import Iterator

from evallint.kinds.base import ContentTest, FileRef, Item, Kind, items, named
from evallint.model import JSON, Pointer


def _named(*names: str) -> ContentTest:
    def test(path: str, data: JSON) -> bool:
        return isinstance(data, dict) and path.rsplit("/", 1)[-1].lower() in names

    return test


def _evals_shape(path: str, data: JSON) -> bool:
    """evals.json by name, or by its keys (an `evals` list beside skill metadata)."""
    if not isinstance(data, dict):
        return False
    if path.rsplit("/", 1)[-1].lower() == "evals.json":
        return True
    return isinstance(data.get("evals"), list) and ("skill_name" in data or "skill_file" in data)


SCRIPTS = ("setup", "reset", "verify", "cleanup")


def _skill_file(data: JSON) -> Iterator[FileRef]:
    """The runner reads `skill_file` as a path from the project root, then as a skill's name
    (`skills/<skill_file>/SKILL.md`; only a bare name can be one, so only then is it tried)."""
    if isinstance(data, dict) and isinstance(data.get("skill_file"), str):
        name = data["skill_file"]
        also = (f"skills/{name}/SKILL.md",) if name and "/" not in name else ()
        yield FileRef(("skill_file",), name, search="site", also=also)


LEGACY_CASES = "behavioral_cases"


def case_key(data: JSON) -> str:
    """Where the runner reads the cases: `evals`, else the legacy `behavioral_cases` (the
    ai_best_practices runner reads `data.get("evals", data.get("behavioral_cases", []))`)."""
    if isinstance(data, dict) and "evals" not in data and LEGACY_CASES in data:
        return LEGACY_CASES
    return "evals"


def evals_files(data: JSON) -> Iterator[FileRef]:
    """skill_file and the case scripts, which the runner resolves from the root of the project it
    works in (the repository, or the Drupal site that holds it)."""
    yield from _skill_file(data)
    key = case_key(data)
    for i, case in items(data, key):
        for script in SCRIPTS:
            if isinstance(case.get(script), str):
                yield FileRef((key, i, script), case[script], search="site")


def evals_ids(data: JSON) -> Iterator[tuple[Pointer, JSON]]:
    key = case_key(data)
    for i, case in items(data, key):
        if "id" in case:
            yield (key, i, "id"), case["id"]


def cases(data: JSON) -> Iterator[Item]:
    """Each case: its `prompt`, and its `expected_output` (a description the grader reads)."""
    key = case_key(data)
    for i, case in items(data, key):
        prompt, expected = case.get("prompt"), case.get("expected_output")
        if not isinstance(prompt, str):
            continue
        ident = case.get("id")
        has = isinstance(expected, str)
        yield Item(
            at=(key, i),
            input=prompt,
            input_at=(key, i, "prompt"),
            ident=ident if isinstance(ident, str) else None,
            expected=(expected,) if isinstance(expected, str) else None,
            expected_at=((key, i, "expected_output"),) if has else (),
            whole=case,
            own=("id", "prompt"),
        )


EVALS = Kind(
    name="abp-evals",
    about="an `evals.json`, or an `evals` list beside `skill_name`/`skill_file` (Drupal "
    "ai_best_practices)",
    title="ai_best_practices evals.json",
    schema="abp-evals",
    formats=frozenset({"json"}),
    by_content=_evals_shape,
    case_ids=evals_ids,
    item_view=cases,
    item_needles=(b"prompt",),
    file_refs=evals_files,
    claim=named("evals.json"),
    markers=(("evals", "skill_name"), ("evals", "skill_file")),
    editor_globs=("**/evals.json",),
)

STATIC_CHECKS = Kind(
    name="abp-static-checks",
    about="a `static-checks.json`",
    title="ai_best_practices static-checks.json",
    schema="abp-static-checks",
    formats=frozenset({"json"}),
    by_content=_named("static-checks.json"),
    file_refs=lambda data: _skill_file(data),
    claim=named("static-checks.json"),
    editor_globs=("**/static-checks.json",),
)

KINDS = (EVALS, STATIC_CHECKS)
