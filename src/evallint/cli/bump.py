"""`evallint bump`: apply the fixes the version rules offer, touching only those scalars.

It is a check run (the same reading, index and rules as `evallint check`, with the version
rules that can ask for a bump) whose fixes are written. Edits are made on the text, at the
spans the parser found, so comments, quoting, key order and line endings stay as they were.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from pathlib import Path

from evallint.baseline import Baseline
from evallint.cli.fixing import Change, changes_of, write
from evallint.config import Config
from evallint.engine.run import lint
from evallint.io.source import Source
from evallint.model import Edit, Fix
from evallint.project import Entry
from evallint.read import read_entry
from evallint.records import record, replace
from evallint.refs import Version, parse_ref, parse_version, pick
from evallint.rules import BUMPED, BY_ID

MAX_ROUNDS = 100  # `bump --update-refs`: rounds of bumps and moved pins


def settle(
    paths: Sequence[str],
    cwd: Path,
    root: Path,
    in_git: bool,
    config: Config,
    *,
    diff: str | None,
    base: str | None,
    today: datetime.date | None,
    update_refs: bool,
) -> tuple[list[str], list[str], str]:
    """`bump` as the command runs it: the changes written, a line each; what is left for the
    user; and which base the versions were compared with."""
    from evallint.io.source import FsSource
    from evallint.session.selection import choose, prior_reader

    edits: list[str] = []
    left: list[str] = []
    note = ""
    # Moving pins edits the files that hold them, which the next round may have to bump in
    # turn (a rubric whose judge pin moved, a dataset whose rubric pin moved): rounds go on
    # until one changes nothing. Each round bumps files the last did not, so the tree bounds
    # them; the limit only guards against a defect.
    for _ in range(MAX_ROUNDS):
        chosen = choose(paths, cwd, root, in_git, config, diff=diff, base=base)
        assert chosen.baseline is not None
        note = note or chosen.baseline.note()
        done, left = bump(
            chosen.paths,
            chosen.tree,
            FsSource(root),
            root,
            config,
            chosen.baseline,
            update_refs=update_refs,
            today=today,
            # The base's files, for the version rules that compare a file with its includes'.
            prior=prior_reader(root, chosen.base[0]) if chosen.base else None,
            touched=chosen.touched,
        )
        edits += done
        if not done or not update_refs:
            break
    else:
        left.append(f"bump did not settle after {MAX_ROUNDS} rounds; run it again")
    return edits, left, note


def bump(
    paths: Sequence[str],
    tree: Sequence[str],
    source: Source,
    root: Path,
    config: Config,
    baseline: Baseline,
    *,
    update_refs: bool,
    today: datetime.date | None = None,
    prior: Callable[[list[str]], Source] | None = None,
    touched: frozenset[str] = frozenset(),
) -> tuple[list[str], list[str]]:
    """One round: the changes written, a line each; and what is left for the user, a line
    each: bumps that could not be written (a version spelt with escapes, say), and, without
    `update_refs`, the pins the bumps leave dangling. With `update_refs` those pins move with
    the versions they named, which is itself a score-affecting edit of the files that hold
    them: the caller runs rounds until nothing is left to bump."""
    # Whatever the configuration selects, bump runs the rules it is named for.
    wanted = replace(config, select=BUMPED, ignore=(), max_repeats=0)
    rules = [BY_ID[r] for r in BUMPED]
    report = lint(
        paths,
        source,
        wanted,
        tree=tree,
        today=today,
        baseline=baseline,
        rules=rules,
        prior=prior,
        touched=touched,
    )
    texts: dict[str, str] = {}
    changes = changes_of(report.diagnostics, source, texts, BUMPED)
    left = [
        f"{d.path}:{d.span.line}:{d.span.column}: not bumped, bump it by hand: {d.message}"
        for d in report.diagnostics
        if d.rule in BUMPED and d.fix is None
    ]
    # A bump made before (a plain `bump`, or by hand) strands pins as one made now does: with
    # `update_refs` they move too.
    made = _made(baseline, source, config) if update_refs else []
    for pin in _stranded(changes, tree, source, config, made):
        if update_refs and pin.edit is not None:
            texts.setdefault(pin.path, pin.entry.doc.text)
            changes.append(Change(pin.path, pin.edit, pin.text))
        else:
            how = "by hand" if update_refs else "(bump --update-refs does)"
            left.append(
                f"{pin.path}:{pin.line}: {pin.text} no longer resolves once {pin.moved}; "
                f"move it to {pin.new} {how}"
            )
    return write(changes, texts, source, root), left


@record
class _Target:
    """A rubric or judge a bump moves: its reference prefix and the version it leaves."""

    prefix: str  # `rubric/{id}@`
    old: Version
    new: Version


@record
class _Pin:
    """A pin a bump strands, and where it goes."""

    path: str
    entry: Entry
    edit: Edit | None  # None: the pin is not written as its text (escapes): moved by hand
    text: str
    new: str
    line: int
    moved: str  # "rubric/x@1.2.0 is 2.0.0", for people


def _targets(bumped: list[Change], source: Source, config: Config) -> list[_Target]:
    out = []
    for c in bumped:
        prefix = _ref_prefix(c.path, source, config)
        old, new = parse_version(c.old), parse_version(c.edit.text)
        if prefix and old is not None and new is not None:
            out.append(_Target(prefix, old, new))
    return out


def _made(baseline: Baseline, source: Source, config: Config) -> list[_Target]:
    """The rubrics and judges whose version the change already raised from the base's."""
    out = []
    for path, was in baseline.before.items():
        if not was.kind.namespace or not was.kind.defines:
            continue
        old = was.kind.defines(was.doc.data)
        now = read_entry(path, source, config)
        new = (
            now.kind.defines(now.doc.data) if isinstance(now, Entry) and now.kind.defines else None
        )
        if not old or not new or old[0] != new[0]:
            continue
        before, after = parse_version(old[1]), parse_version(new[1])
        if before is not None and after is not None and after.compare(before) > 0:
            out.append(_Target(f"{was.kind.namespace}/{old[0]}@", before, after))
    return out


def _stranded(
    bumped: list[Change],
    tree: Sequence[str],
    source: Source,
    config: Config,
    made: Sequence[_Target] = (),
) -> list[_Pin]:
    """Pins that resolved to a version a bump replaces and resolve to nothing after it: an
    exact pin on it, or a range (`@1.2`, `@1`) it was the last version of. `made`: bumps the
    tree holds already, whose old version it no longer defines."""
    targets = [*_targets(bumped, source, config), *made]
    if not targets:
        return []
    entries = _reading(tree, source, config, [t.prefix.split("/", 1)[1][:-1] for t in targets])
    before: dict[str, list[Version]] = {t.prefix: [] for t in targets}
    for t in made:  # the version it had, as if the bump were being made now
        before[t.prefix].append(t.old)
    for entry in entries:
        kind = entry.kind
        found = kind.defines(entry.doc.data) if kind.namespace and kind.defines else None
        version = parse_version(found[1]) if found else None
        key = f"{kind.namespace}/{found[0]}@" if found else ""
        if version is not None and key in before:
            before[key].append(version)
    moves = {t.prefix: t for t in targets}
    out = []
    for entry in entries:
        for pointer, text in entry.kind.references(entry.doc.data) if entry.kind.references else ():
            pin = _moved_pin(text, moves, before)
            if pin is not None:
                edit = entry.doc.edit(Fix(pointer, text, pin[0]))
                line = entry.doc.locate(pointer).line
                out.append(_Pin(entry.doc.path, entry, edit, text, pin[0], line, pin[1]))
    return out


def _moved_pin(
    text: str, moves: dict[str, _Target], before: dict[str, list[Version]]
) -> tuple[str, str] | None:
    """The reference a stranded pin becomes, and what moved; None for a pin that still
    resolves (or never named a moved version)."""
    ref = parse_ref(text)
    if ref is None or ref.pin is None:
        return None
    prefix = f"{ref.namespace}/{ref.id}@"
    target = moves.get(prefix)
    if target is None:
        return None
    versions = before[prefix]
    outcome, chosen = pick(ref.pin, versions)
    if outcome != "ok" or chosen is None or chosen.compare(target.old) != 0:
        return None
    after = [v for v in versions if v.compare(target.old) != 0] + [target.new]
    if pick(ref.pin, after)[0] == "ok":
        return None
    new = target.new
    parts = ref.pin.count(".")
    pin = (
        str(new)
        if parse_version(ref.pin)
        else ".".join(map(str, (new.major, new.minor)[: parts + 1]))
    )
    return f"{prefix}{pin}", f"{prefix}{target.old} is {new}"


def _reading(tree: Sequence[str], source: Source, config: Config, ids: list[str]) -> list[Entry]:
    """The tree's eval files that mention one of `ids` (a byte search first: most do not)."""
    needles = [i.encode() for i in ids]
    leaves = getattr(source, "outside", None)
    out = []
    for path in tree:
        if leaves is not None and leaves(path):
            continue  # never read, let alone rewrite, a file outside the project
        try:
            raw = source.read(path)
        except OSError:
            continue
        if not any(n in raw for n in needles):
            continue
        entry = read_entry(path, source, config)
        if isinstance(entry, Entry) and entry.doc.ok:
            out.append(entry)
    return out


def _ref_prefix(path: str, source: Source, config: Config) -> str:
    """`rubric/{id}@` for a file that defines a rubric or judge; "" for others."""
    found = read_entry(path, source, config)
    if not isinstance(found, Entry) or not found.kind.namespace or not found.kind.defines:
        return ""
    defined = found.kind.defines(found.doc.data)
    return f"{found.kind.namespace}/{defined[0]}@" if defined else ""
