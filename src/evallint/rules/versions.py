"""Version rules: score-affecting changes need the bump that says so (cargo-semver-checks style).

In 0.y.z a minor bump counts as major, and in 0.0.z every bump does; a prerelease at the base
promises nothing, so any increase will do.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.kinds import VERSIONED
from evallint.kinds.projection import Change, Policy, changes, policy_for, project
from evallint.model import Finding, Fix, Pointer, Severity
from evallint.project import Definition
from evallint.records import record
from evallint.refs import Version, parse_version
from evallint.rules.api import file_refs_of
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context


def smallest_major(v: Version) -> Version:
    if v.prerelease:
        return v.finalize_version()
    if v.major > 0:
        return v.bump_major()
    if v.minor > 0:
        return v.bump_minor()
    return v.bump_patch()


def is_major(old: Version, new: Version) -> bool:
    """Whether old → new is a major bump, as cargo-semver-checks reads versions."""
    if old.prerelease:
        return bool(new > old)
    if old.major > 0:
        return new.major > old.major
    if old.minor > 0:
        return new.major > 0 or new.minor > old.minor
    return new.major > 0 or new.minor > 0 or new.patch > old.patch


def bump_name(old: Version, new: Version) -> str:
    if new.major != old.major:
        return "major"
    if new.minor != old.minor:
        return "minor"
    return "patch" if new.patch != old.patch else "prerelease"


@record
class Verdict:
    """What the version rules say of a document against its base."""

    rule: str
    message: str
    at: Change | None  # the first score-affecting change, when there is one
    bump_to: Version | None = None  # the smallest version that would satisfy the rule
    within: tuple[int, int] | None = None  # the first changed line inside `at`'s value text


def _changed(doc: Document, ctx: Context, before: Document) -> list[Change]:
    policy = policy_for(ctx.kind.name, ctx.config.non_score_fields.get(ctx.kind.name, ()))
    found = changes(project(before.data, policy), project(doc.data, policy), policy, doc.data)
    return found + _read_changes(doc, ctx)


def _read_changes(doc: Document, ctx: Context) -> list[Change]:
    """The files a document of a kind that loads files at run time (a promptfoo config's
    prompts, tests and scripts) names whose bytes differ from the base's: a change to one is
    a change to what is sent or graded. A file new in the change is named by a change to the
    document itself; one named through a glob is not compared."""
    from evallint.kinds.base import candidates

    kind, others, then = ctx.kind, ctx.others, ctx.base_files
    if kind.reads is None or kind.file_refs is None or others is None or then is None:
        return []
    out, seen = [], set()
    for ref in file_refs_of(doc, kind):
        for place in [] if ref.glob else candidates(doc.path, ref, ctx.root_name)[:1]:
            if place in seen or place not in others.listed:
                continue
            seen.add(place)
            now, was = others.raw(place), then.raw(place)
            if isinstance(now, bytes) and isinstance(was, bytes) and now != was:
                out.append(Change(f"{place} (read by this file)", ref.pointer))
    return out


def _first(doc: Document, found: list[Change]) -> Change:
    return min(found, key=lambda c: (doc.locate(c.pointer).line, doc.locate(c.pointer).column))


def _what(found: list[Change]) -> str:
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return f"{found[0].name} changed{more}"


def verdict(doc: Document, ctx: Context) -> Verdict | None:
    # Per view of the other files: a check against the files as they were (what a change to a
    # file the document reads causes) must not be answered from the check of the files now.
    return doc.facts.get(_verdict, doc, ctx, key=ctx.others)


def _verdict(doc: Document, ctx: Context) -> Verdict | None:
    if ctx.baseline is None:  # nothing to compare with (and no version to parse)
        return None
    versioned = ctx.kind.versioned
    found = versioned(doc.data) if versioned else None
    version = parse_version(found[1]) if found else None
    if found is None or version is None:
        return None
    at_base = _base_versions(doc, ctx, found[0])
    same = next((d for d in at_base if d.version.compare(version) == 0), None)
    if same is not None:
        return _same_version(doc, ctx, same)
    before = ctx.baseline.before.get(doc.path)
    # Where the base has this file: where it was (a rename), or, unchanged, where it is.
    was = before.doc.path if before else doc.path if ctx.kind.reads else None
    prev = next((d for d in at_base if d.path == was), None)
    highest = max((d.version for d in at_base), default=None)
    if highest is not None and version < highest:
        return _not_increased(
            version, prev.version if prev else None, highest, ctx.baseline.base.label
        )
    if prev is None:
        return None
    changed = _changed(doc, ctx, prev.doc)
    if not changed or is_major(prev.version, version):
        return None
    need = smallest_major(prev.version)
    first = _first(doc, changed)
    return Verdict(
        "version-bump-too-small",
        f"{_what(changed)}, which changes scores; {prev.version} → {version} is a "
        f"{bump_name(prev.version, version)} bump, a major one is required: "
        f"{prev.version} → {need}",
        first,
        need,
        _changed_line(doc, prev.doc, first.pointer),
    )


def _base_versions(doc: Document, ctx: Context, ident: str) -> list[Definition]:
    """Every version of this artifact at the base: across the tree for rubrics and judges,
    the file's own previous content for kinds nothing refers to (datasets)."""
    assert ctx.baseline is not None
    if ctx.kind.namespace and ctx.base_project is not None:
        return ctx.base_project.versions(ctx.kind.namespace, ident)
    before = ctx.baseline.before.get(doc.path)
    if before is not None and before.kind.name == ctx.kind.name:
        then: Document | None = before.doc
    else:
        then = _unchanged(doc, ctx) if before is None else None
    found = ctx.kind.versioned(then.data) if then is not None and ctx.kind.versioned else None
    version = parse_version(found[1]) if found else None
    if then is None or found is None or version is None:
        return []
    return [Definition(ctx.kind.name, found[0], version, then.path, then)]


def _unchanged(doc: Document, ctx: Context) -> Document | None:
    """A file the change left as it was, checked because a file it reads changed: the base
    has it as it is now (only kinds that read files at run time are checked so)."""
    then = ctx.base_files.parsed(doc.path) if ctx.base_files and ctx.kind.reads else None
    return then if then is not None and not isinstance(then, str) and then.ok else None


def _same_version(doc: Document, ctx: Context, same: Definition) -> Verdict | None:
    found = _changed(doc, ctx, same.doc)
    if not found:
        policy = policy_for(ctx.kind.name, ctx.config.non_score_fields.get(ctx.kind.name, ()))
        everything = Policy(frozenset({"version"}), policy.keyed)  # order-insensitive, all fields
        if project(same.doc.data, everything) != project(doc.data, everything):
            return Verdict(
                "version-non-score-change",
                "only fields that do not affect scores changed; no bump needed",
                None,
            )
        return None
    where = "" if same.path == doc.path else f" (as defined in {same.path} at the base)"
    need = smallest_major(same.version)
    first = _first(doc, found)
    return Verdict(
        "version-not-bumped",
        f"{_what(found)}, which changes scores, but the version is still "
        f"{same.version}{where}; bump it: {same.version} → {need}",
        first,
        need,
        _changed_line(doc, same.doc, first.pointer),
    )


def _not_increased(version: Version, prev: Version | None, highest: Version, label: str) -> Verdict:
    if prev is not None and version < prev:
        return Verdict(
            "version-not-increased", f"version {version} is lower than {prev} at {label}", None
        )
    return Verdict(
        "version-not-increased",
        f"new version {version} is not greater than {highest}, the highest at {label}",
        None,
    )


def _report(doc: Document, ctx: Context, rule_id: str) -> Iterator[Finding]:
    found = verdict(doc, ctx)
    if found is None or found.rule != rule_id:
        return
    at_version = ctx.kind.version_at
    version_line = (doc.path, at_version, "the version declared here")
    fix = _bump(doc, found, at_version)
    if found.at is None:
        yield Finding(at_version, found.message, fix=fix)
    else:
        at = found.at.pointer
        yield Finding(at, found.message, related=(version_line,), fix=fix, within=found.within)


def _changed_line(doc: Document, before: Document, pointer: Pointer) -> tuple[int, int] | None:
    """The first line of a multi-line value (a block scalar's template, say) that differs from
    the base's, as offsets into the value's text: a finding on `template: |` would sit outside
    the lines the change touched, where a pull request shows nothing. Only for places with no
    list index, which name the same value in both documents."""
    if any(isinstance(part, int) for part in pointer):
        return None
    new, old = doc.raw(pointer), before.raw(pointer)
    if new is None or old is None or "\n" not in new:
        return None
    new_lines, old_lines = new.split("\n"), old.split("\n")
    k = next(
        (i for i, line in enumerate(new_lines) if i >= len(old_lines) or line != old_lines[i]),
        len(new_lines) - 1,
    )
    start = sum(len(line) + 1 for line in new_lines[:k])
    text = new_lines[k]
    indent = len(text) - len(text.lstrip(" \t"))
    return start + indent, start + max(len(text.rstrip()), indent + 1)


def _bump(doc: Document, found: Verdict, at: Pointer) -> Fix | None:
    """The version raised to the smallest one the rule accepts (`evallint bump`)."""
    old: object = doc.data
    for part in at:
        old = old.get(part) if isinstance(old, dict) else None
    if found.bump_to is None or not isinstance(old, str):
        return None
    return Fix(at, old, str(found.bump_to))


@rule(
    "version-not-bumped",
    Severity.ERROR,
    kinds=VERSIONED,
    needs_base=True,
    reads_files=True,  # a file a promptfoo config reads changed
    fixable=True,
    bumps=True,
)
def version_not_bumped(doc: Document, ctx: Context) -> Iterator[Finding]:
    """Score-affecting content changed but the version did not (edited in place).

    Runs in diff mode (`--diff`) and with `--base REF`. Compares the parsed content with the
    base, minus fields that cannot change a score (see the README's policy table), so
    reformatting, reordering checks and editing descriptions never fire. Also catches a file
    for a version that already existed at the base, in a layout with one file per version.
    Reported on the first changed line, with the `version:` line as a related location.

    Base (rubrics/refunds.yaml):
        id: refunds
        version: "1.2.0"
        checks:
          - kind: must_contain_any
            id: window
            values: ["30 days"]
        scoring: {combine: all_pass}
    Bad (rubrics/refunds.yaml):
        id: refunds
        version: "1.2.0"
        checks:
          - kind: must_contain_any
            id: window
            values: ["30 days", "a month"]
        scoring: {combine: all_pass}
    Good (rubrics/refunds.yaml):
        id: refunds
        version: "2.0.0"
        checks:
          - kind: must_contain_any
            id: window
            values: ["30 days", "a month"]
        scoring: {combine: all_pass}
    """
    yield from _report(doc, ctx, "version-not-bumped")


@rule(
    "version-bump-too-small",
    Severity.ERROR,
    kinds=VERSIONED,
    needs_base=True,
    reads_files=True,  # a file a promptfoo config reads changed
    fixable=True,
    bumps=True,
)
def version_bump_too_small(doc: Document, ctx: Context) -> Iterator[Finding]:
    """Score-affecting content changed with a bump smaller than major.

    Scores from before and after are not comparable, so the change needs a major bump (in
    0.y.z a minor bump, in 0.0.z any bump). The message names the change, the bump found and the
    smallest valid version.

    Base (rubrics/refunds.yaml):
        id: refunds
        version: "1.2.0"
        checks:
          - kind: must_contain_any
            id: window
            values: ["30 days"]
        scoring: {combine: all_pass}
    Bad (rubrics/refunds.yaml):
        id: refunds
        version: "1.3.0"
        checks:
          - kind: must_contain_any
            id: window
            values: ["30 days", "a month"]
        scoring: {combine: all_pass}
    Good (rubrics/refunds.yaml):
        id: refunds
        version: "2.0.0"
        checks:
          - kind: must_contain_any
            id: window
            values: ["30 days", "a month"]
        scoring: {combine: all_pass}
    """
    yield from _report(doc, ctx, "version-bump-too-small")


@rule("version-not-increased", Severity.ERROR, kinds=VERSIONED, needs_base=True)
def version_not_increased(doc: Document, ctx: Context) -> Iterator[Finding]:
    """The version went down, or a new version is not above the highest one at the base.

    Base (rubrics/refunds.yaml):
        id: refunds
        version: "1.2.0"
        checks:
          - kind: must_contain_any
            id: window
            values: ["30 days"]
        scoring: {combine: all_pass}
    Bad (rubrics/refunds.yaml):
        id: refunds
        version: "1.1.0"
        checks: [{kind: must_contain_any, id: window, values: ["30 days"]}]
        scoring: {combine: all_pass}
    Good (rubrics/refunds.yaml):
        id: refunds
        version: "1.2.1"
        checks: [{kind: must_contain_any, id: window, values: ["30 days"]}]
        scoring: {combine: all_pass}
    """
    yield from _report(doc, ctx, "version-not-increased")


@rule("version-non-score-change", Severity.NOTE, kinds=VERSIONED, needs_base=True)
def version_non_score_change(doc: Document, ctx: Context) -> Iterator[Finding]:
    """Only fields that cannot change a score changed, so the version may stay.

    Base (rubrics/refunds.yaml):
        id: refunds
        version: "1.2.0"
        checks: [{kind: must_contain_any, id: window, values: ["30 days"]}]
        scoring: {combine: all_pass}
    Bad (rubrics/refunds.yaml):
        id: refunds
        version: "1.2.0"
        description: Checks the refund window is stated (reworded).
        checks: [{kind: must_contain_any, id: window, values: ["30 days"]}]
        scoring: {combine: all_pass}
    Good (rubrics/refunds.yaml):
        id: refunds
        version: "1.2.0"
        checks: [{kind: must_contain_any, id: window, values: ["30 days"]}]
        scoring: {combine: all_pass}
    """
    yield from _report(doc, ctx, "version-non-score-change")
