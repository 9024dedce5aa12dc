"""EEE rules that exist only in EEE's prose (contributing guide, field notes): warnings."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.eee import kinds as eee
from evallint.formats.eee.kinds import datastore_root
from evallint.kinds.base import items
from evallint.model import Finding, Severity
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.project import Project
    from evallint.rules.api import Context

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
_EPOCH = re.compile(r"^[0-9]+(?:\.[0-9]+)?$")


def _ids(ctx: Context) -> dict[str, str | list[str]]:
    """evaluation_id -> the file that uses it, or the files when several do, over every record
    the run has read."""
    return ctx.project.facts.get(_group_ids, ctx.project)


def _group_ids(project: Project) -> dict[str, str | list[str]]:
    # A path, not a list of one, for the common unique id: a list each would cost a large
    # datastore's run 70 bytes a record. The entries are walked as the project holds them and
    # the few groups sorted after: a sorted copy of every (path, entry) pair was a large run's
    # peak (1.4 MB at 21,000 records).
    groups: dict[str, str | list[str]] = {}
    aggregate = eee.AGGREGATE.name
    for path, entry in project.entries.items():
        data = entry.data if entry.kind.name == aggregate else None
        if isinstance(data, dict) and isinstance(ident := data.get("evaluation_id"), str):
            found = groups.setdefault(ident, path)
            if isinstance(found, list):
                found.append(path)
            elif found is not path:
                groups[ident] = [found, path]
    for found in groups.values():
        if isinstance(found, list):
            found.sort()
    return groups


@rule(
    "eee-duplicate-evaluation-id",
    Severity.WARNING,
    kinds=(eee.AGGREGATE,),
    reads_project=True,
    cross_file=True,
    keeps=lambda doc: [("evaluation_id",)],
)
def eee_duplicate_evaluation_id(doc: Document, ctx: Context) -> Iterator[Finding]:
    """Several records share one `evaluation_id`, which EEE asks to be unique in a datastore.

    Instance records name their aggregate by it, and EEE's field guide puts the variants of a
    run (effort, date, scaffold) in the id. Each record of a group is reported once, naming the
    others. (A run over part of the tree also reads the records outside it that hold an id
    of its own, and reports what the change duplicates in both.)

    Given (data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json):
        {"schema_version": "0.2.0", "evaluation_id": "bench/acme_m/1760000000", "retrieved_timestamp": "1760000000", "source_metadata": {"source_type": "documentation", "source_organization_name": "o", "evaluator_relationship": "other"}, "model_info": {"name": "m", "id": "acme/m"}, "evaluation_results": []}
    Bad (data/bench/acme/m/4c1d2e3f-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json):
        {"schema_version": "0.2.0", "evaluation_id": "bench/acme_m/1760000000", "retrieved_timestamp": "1760000000", "source_metadata": {"source_type": "documentation", "source_organization_name": "o", "evaluator_relationship": "other"}, "model_info": {"name": "m", "id": "acme/m"}, "evaluation_results": []}
    Good (data/bench/acme/m/4c1d2e3f-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json):
        {"schema_version": "0.2.0", "evaluation_id": "bench/acme_m/1760000001", "retrieved_timestamp": "1760000001", "source_metadata": {"source_type": "documentation", "source_organization_name": "o", "evaluator_relationship": "other"}, "model_info": {"name": "m", "id": "acme/m"}, "evaluation_results": []}
    """
    ident = doc.data.get("evaluation_id") if isinstance(doc.data, dict) else None
    if not isinstance(ident, str):
        return
    users = _ids(ctx).get(ident, [])
    others = [p for p in users if p != doc.path] if isinstance(users, list) else []
    if others:
        listed = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        yield Finding(("evaluation_id",), f"evaluation_id {ident!r} is also used by {listed}")


@rule("eee-layout", Severity.WARNING, kinds=(eee.AGGREGATE,))
def eee_layout(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A record is not at `data/<collection>/<developer>/<model>/<uuid>.json`.

    The developer folder is the part of `model_info.id` before the `/` (letter case aside), and
    the file name is a lower-case UUID4, as EEE's datastore lays records out.

    Bad (data/bench/acme-ai/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json):
        {"schema_version": "0.2.0", "evaluation_id": "bench/acme_m/1760000000", "retrieved_timestamp": "1760000000", "source_metadata": {"source_type": "documentation", "source_organization_name": "o", "evaluator_relationship": "other"}, "model_info": {"name": "m", "id": "acme/m"}, "evaluation_results": []}
    Good (data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json):
        {"schema_version": "0.2.0", "evaluation_id": "bench/acme_m/1760000000", "retrieved_timestamp": "1760000000", "source_metadata": {"source_type": "documentation", "source_organization_name": "o", "evaluator_relationship": "other"}, "model_info": {"name": "m", "id": "acme/m"}, "evaluation_results": []}
    """
    root = datastore_root(doc.path)
    rel = doc.path[len(root) + 1 :] if root else doc.path
    parts = rel.split("/")
    if len(parts) != 5 or parts[0] != "data":
        yield Finding((), f"{rel} is not at data/<collection>/<developer>/<model>/<uuid>.json")
        return
    stem = parts[4].removesuffix(".json")
    if not _UUID.match(stem):
        yield Finding((), f"the file name {parts[4]!r} is not a lower-case UUID4")
    info = doc.data.get("model_info") if isinstance(doc.data, dict) else None
    model = info.get("id") if isinstance(info, dict) else None
    # Letter case alone is not a mismatch: EEE derives the folder from the id and says nothing of
    # case, and the datastore holds both `Alibaba` and `alibaba`.
    if (
        isinstance(model, str)
        and "/" in model
        and model.split("/", 1)[0].lower() != parts[2].lower()
    ):
        yield Finding(
            ("model_info", "id"),
            f"the developer folder is {parts[2]!r}, but "
            f"model_info.id says {model.split('/', 1)[0]!r}",
        )


def _bound(value: object) -> float | None:
    if type(value) is float:  # most scores and bounds: one test, not three
        return value
    if isinstance(value, int | float) and value.__class__ is not bool:  # true is not a bound
        return float(value)
    if value == "Infinity" or value == "-Infinity":
        return float(str(value).replace("Infinity", "inf"))
    return None


@rule("eee-score-range", Severity.WARNING, kinds=(eee.AGGREGATE,))
def eee_score_range(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A score lies outside its metric's `min_score`..`max_score`, or a levels score is off.

    `levels` scores are whole numbers indexing `level_names` (or -1 when `has_unknown_level`).

    Bad (data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json):
        {"schema_version": "0.2.0", "evaluation_id": "e", "retrieved_timestamp": "1760000000", "source_metadata": {"source_type": "documentation", "source_organization_name": "o", "evaluator_relationship": "other"}, "model_info": {"name": "m", "id": "acme/m"}, "evaluation_results": [{"evaluation_name": "n", "source_data": {"dataset_name": "d", "source_type": "other"}, "metric_config": {"lower_is_better": false, "score_type": "continuous", "min_score": 0, "max_score": 1}, "score_details": {"score": 87.5}}]}
    Good (data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json):
        {"schema_version": "0.2.0", "evaluation_id": "e", "retrieved_timestamp": "1760000000", "source_metadata": {"source_type": "documentation", "source_organization_name": "o", "evaluator_relationship": "other"}, "model_info": {"name": "m", "id": "acme/m"}, "evaluation_results": [{"evaluation_name": "n", "source_data": {"dataset_name": "d", "source_type": "other"}, "metric_config": {"lower_is_better": false, "score_type": "continuous", "min_score": 0, "max_score": 1}, "score_details": {"score": 0.875}}]}
    """
    for i, result in items(doc.data, "evaluation_results"):
        metric, details = result.get("metric_config"), result.get("score_details")
        score = details.get("score") if isinstance(details, dict) else None
        value = _bound(score)
        if not isinstance(metric, dict) or value is None:
            continue
        if metric.get("score_type") == "levels":
            names = metric.get("level_names")
            top = len(names) - 1 if isinstance(names, list) else None
            low = -1 if metric.get("has_unknown_level") else 0
            if top is not None and (value != int(value) or not low <= value <= top):
                yield Finding(
                    ("evaluation_results", i, "score_details", "score"),
                    f"a levels score must be a whole number from {low} to {top}, not {score!r}",
                    group="levels score out of range",
                )
            continue
        low_b, high_b = _bound(metric.get("min_score")), _bound(metric.get("max_score"))
        if low_b is not None and high_b is not None and not low_b <= value <= high_b:
            # One kind of mismatch, whatever the bounds: capped together per file.
            yield Finding(
                ("evaluation_results", i, "score_details", "score"),
                f"score {score!r} is outside {metric.get('min_score')!r} to "
                f"{metric.get('max_score')!r}",
                group="score out of range",
            )


@rule("eee-retrieved-timestamp", Severity.WARNING, kinds=(eee.AGGREGATE,))
def eee_retrieved_timestamp(doc: Document, ctx: Context) -> Iterator[Finding]:
    """`retrieved_timestamp` is not a Unix time written as a string.

    EEE's schema types it only as a string; its contributing guide asks for Unix epoch seconds,
    such as "1760492095.8105888".

    Bad (data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json):
        {"schema_version": "0.2.0", "evaluation_id": "e", "retrieved_timestamp": "2026-01-31T12:00:00Z", "source_metadata": {"source_type": "documentation", "source_organization_name": "o", "evaluator_relationship": "other"}, "model_info": {"name": "m", "id": "acme/m"}, "evaluation_results": []}
    Good (data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json):
        {"schema_version": "0.2.0", "evaluation_id": "e", "retrieved_timestamp": "1769860800", "source_metadata": {"source_type": "documentation", "source_organization_name": "o", "evaluator_relationship": "other"}, "model_info": {"name": "m", "id": "acme/m"}, "evaluation_results": []}
    """
    stamp = doc.data.get("retrieved_timestamp") if isinstance(doc.data, dict) else None
    if isinstance(stamp, str) and not _EPOCH.match(stamp):
        yield Finding(
            ("retrieved_timestamp",),
            f"{stamp!r} is not Unix epoch seconds (such as '1760492095.8105888')",
        )
