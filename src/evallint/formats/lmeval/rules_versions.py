"""lm-evaluation-harness versions: a task's `metadata.version` goes up when its scoring changes
(in the task, a template it includes, or a function a `!function` names), as the harness's
new-task guide asks; `evallint bump` raises it by 1."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.lmeval import kinds as lmeval
from evallint.formats.lmeval.rules_read import VersionChange, is_task, version_change
from evallint.model import JSON, Finding, Fix, Pointer, Severity
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context


def _version_at(doc: Document) -> Pointer:
    """Where a task's version is, or would go: its own `metadata.version`, else its include."""
    data = doc.data if isinstance(doc.data, dict) else {}
    meta = data.get("metadata")
    if isinstance(meta, dict) and "version" in meta:
        return ("metadata", "version")
    return ("include",) if "include" in data else ("task",)


def _what(found: VersionChange) -> str:
    names = ", ".join(found.changed[:3]) + (" and more" if len(found.changed) > 3 else "")
    return f"{names} changed" + (f" (through {found.through})" if found.through else "")


def _raised(before: JSON, after: JSON) -> bool:
    """Whether the version went up: numbers as numbers, text as semver where it parses."""
    from evallint.refs import parse_version

    if isinstance(before, int | float) and isinstance(after, int | float):
        return after > before
    old, new = parse_version(str(before)), parse_version(str(after))
    if old is not None and new is not None:
        return bool(new > old)
    return str(after) != str(before)


@rule(
    "lm-eval-version-not-bumped",
    Severity.ERROR,
    kinds=lmeval.KINDS,
    needs_base=True,
    reads_files=True,
    fixable=True,
    bumps=True,
)
def lm_eval_version_not_bumped(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A task's scoring changed and its `metadata.version` did not go up.

    The harness reports a task's `metadata.version` with its results, and its new-task guide
    asks for an increase (by 1: `1.0` to `2.0`) whenever the scoring changes, so that results
    of two versions are never compared as one. Score-affecting is every field but `tag`, the
    aliases and `metadata` (`description` heads every prompt); a change counts when it reaches
    the task through an included template, or through the source of a function a `!function`
    names. Reported on the first changed key of the file the change is in (the version, where
    a function's source changed), with the fix on `metadata.version`. Checked with `--diff`
    and `--base`.

    Base (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        num_fewshot: 0
        metadata:
          version: 1.0
    Bad (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        num_fewshot: 5
        metadata:
          version: 1.0
    Good (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        num_fewshot: 5
        metadata:
          version: 2.0
    """
    found = version_change(doc, ctx) if is_task(doc) else None
    if found is None or found.after is None or _raised(found.before, found.after):
        return
    message = (
        f"{_what(found)}, which changes scores; metadata.version is still {found.after}: "
        "raise it (the harness's guide: by 1)"
    )
    raised = _raised_by_one(found.after)
    fix = Fix(("metadata", "version"), str(found.after), raised) if raised else None
    if found.versioned_in != doc.path:  # the template's version: one finding there, for all
        # On the template's first changed key, where the change is, when the change is there.
        at = None
        if found.through == found.versioned_in:
            message = message.replace(f" (through {found.through})", "", 1)
            at = _changed_at(ctx, found.versioned_in, found.changed)
        yield Finding(
            at or ("metadata", "version"),
            message,
            path=found.versioned_in,
            fix=fix,
            on_key=at is not None,
        )
    else:
        at = _changed_at(ctx, doc.path, found.changed, doc.data) if not found.through else None
        yield Finding(at or _version_at(doc), message, fix=fix, on_key=at is not None)


def _changed_at(
    ctx: Context, path: str, changed: tuple[str, ...], data: JSON = None
) -> Pointer | None:
    """The first changed top-level key the file writes itself: where the finding goes."""
    if data is None and ctx.others is not None:
        found = ctx.others.parsed(path, "yaml")
        data = found.data if not isinstance(found, str) else None
    keys = data if isinstance(data, dict) else {}
    return next(((key,) for key in changed if key in keys), None)


def _raised_by_one(version: JSON) -> str | None:
    """The version the harness's guide asks for, written as the old one is (`1.0` to `2.0`,
    `3` to `4`, `"1.0"` to `"2.0"`); None for a version that is no such number."""
    if isinstance(version, bool) or not isinstance(version, int | float | str):
        return None
    major, dot, minor = str(version).partition(".")
    # ASCII digits only (`²` is a digit to isdigit, not to int), and few of them (int() of
    # thousands of digits is refused, and no version is that long).
    if not (major.isascii() and major.isdigit() and len(major) <= 18):
        return None
    if dot and not (minor.isascii() and minor.isdigit()):
        return None
    return f"{int(major) + 1}{dot}{minor}"
    if isinstance(version, int):
        return str(version + 1)
    if isinstance(version, float) and version.is_integer():
        return str(version + 1)
    if isinstance(version, str) and version.isdigit():
        return str(int(version) + 1)
    if isinstance(version, str) and version.count(".") == 1 and version.replace(".", "").isdigit():
        major, minor = version.split(".")
        return f"{int(major) + 1}.{minor}"
    return None


@rule(
    "lm-eval-version-missing",
    Severity.NOTE,
    kinds=lmeval.KINDS,
    needs_base=True,
    reads_files=True,
)
def lm_eval_version_missing(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A task's scoring changed and it has no `metadata.version` to say so.

    Results of the task before and after the change carry the same (missing) version. The
    harness's guide asks every task for `metadata.version`, raised when scoring changes.

    Base (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        num_fewshot: 0
    Bad (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        num_fewshot: 5
    Good (tasks/demo/demo.yaml):
        task: demo
        dataset_path: demo/data
        num_fewshot: 5
        metadata:
          version: 1.0
    """
    found = version_change(doc, ctx) if is_task(doc) else None
    if found is not None and found.after is None and found.before is None:
        yield Finding(
            _version_at(doc),
            f"{_what(found)}, which changes scores; the task has no metadata.version: add one",
        )
