"""The score-affecting projection of a versioned file, and what changed between two of them.

The projection is parsed content, never text: reformatting, quoting, comments, key order and
the order of keyed items (checks, questions) are not changes. Fields that cannot change a score
are dropped, at the top level and inside keyed items.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from evallint.model import JSON, Pointer
from evallint.records import record


@record
class Policy:
    """What of a kind's document affects scores: the rest is dropped before comparing."""

    non_score: frozenset[str]  # dropped at the top level and inside keyed items
    keyed: Mapping[str, str]  # list field -> the key that identifies its items (a set, not a list)


POLICIES: Mapping[str, Policy] = {
    "rubric": Policy(
        frozenset({"description", "metadata", "tags", "notes", "version"}), {"checks": "id"}
    ),
    "judge": Policy(
        frozenset(
            {"description", "validation", "applicable_to", "metadata", "tags", "notes", "version"}
        ),
        {},
    ),
    "dataset": Policy(
        frozenset({"description", "metadata", "tags", "notes", "version"}), {"questions": "id"}
    ),
    # What promptfoo sends and grades: prompts, providers, tests, defaultTest, scenarios,
    # derived metrics, assertion templates, filters, red-team settings; the rest is bookkeeping
    # (its version is in `metadata`).
    "promptfoo": Policy(
        frozenset(
            {
                "$schema",
                "description",
                "tags",
                "metadata",
                "outputPath",
                "sharing",
                "writeLatestResults",
                "env",
                "tracing",
                "commandLineOptions",
                "evaluateOptions",
                "extensions",
            }
        ),
        {},
    ),
}


def policy_for(kind: str, extra: tuple[str, ...] = ()) -> Policy:
    """The built-in policy of a kind, with a project's own non-score fields added."""
    base = POLICIES[kind]
    return Policy(base.non_score | frozenset(extra), base.keyed) if extra else base


def project(data: JSON, policy: Policy) -> JSON:
    if not isinstance(data, dict):
        return data
    out: dict[str, JSON] = {}
    for key, value in data.items():
        if key in policy.non_score:
            continue
        id_key = policy.keyed.get(key)
        if id_key is not None and isinstance(value, list):
            out[key] = {
                _item_key(item, id_key, i): _drop(item, policy.non_score)
                for i, item in enumerate(value)
            }
        else:
            out[key] = value
    return out


def _item_key(item: JSON, id_key: str, index: int) -> str:
    ident = item.get(id_key) if isinstance(item, dict) else None
    return str(ident) if isinstance(ident, str | int) else f"#{index}"


def _drop(item: JSON, non_score: frozenset[str]) -> JSON:
    if not isinstance(item, dict):
        return item
    return {k: v for k, v in item.items() if k not in non_score}


@record
class Change:
    """A score-affecting difference between two versions of a document."""

    name: str  # for people: checks[mentions_refund].values
    pointer: Pointer  # where it is in the head document (the nearest existing place)


def changes(base: JSON, head: JSON, policy: Policy, head_data: JSON) -> list[Change]:
    """Every difference between two projections, named, and placed in the head document."""
    out = []
    for path in _diff(base, head, ()):
        out.append(Change(_name(path, policy), _to_pointer(path, policy, head_data)))
    return out


def _diff(a: JSON, b: JSON, path: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                yield (*path, key)
            else:
                yield from _diff(a[key], b[key], (*path, key))
    elif type(a) is not type(b) or a != b:
        yield path


def _name(path: tuple[str, ...], policy: Policy) -> str:
    parts: list[str] = []
    for depth, part in enumerate(path):
        if depth == 1 and path[0] in policy.keyed:
            parts[-1] += f"[{part}]"
        else:
            parts.append(str(part))
    return ".".join(parts) or "(the whole file)"


def _to_pointer(path: tuple[str, ...], policy: Policy, data: JSON) -> Pointer:
    """Projection path back to a pointer into the head data; stops where the head has nothing."""
    pointer: list[str | int] = []
    cur = data
    for depth, part in enumerate(path):
        if depth == 1 and path[0] in policy.keyed and isinstance(cur, list):
            id_key = policy.keyed[path[0]]
            index = next(
                (i for i, item in enumerate(cur) if _item_key(item, id_key, i) == part), None
            )
            if index is None:
                break
            pointer.append(index)
            cur = cur[index]
        elif isinstance(cur, dict) and part in cur:
            pointer.append(part)
            cur = cur[part]
        else:
            break
    return tuple(pointer)
