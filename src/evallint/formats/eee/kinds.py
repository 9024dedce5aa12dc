"""Every Eval Ever (EEE) result records: aggregate `*.json` files, validated by declared version."""

from __future__ import annotations

import re
from collections.abc import Iterator

from evallint.formats.eee.kinds_items import samples
from evallint.kinds.base import Kind
from evallint.model import JSON, Pointer

# Every released aggregate version; each has its schema in schema/eee/eval_<version>.schema.json.
CHECKED = ("0.0.1", "0.1.0", "0.2.0", "0.2.1", "0.2.2", "0.2.3", "0.3.0")


def declared_version(data: JSON) -> JSON:
    return data.get("schema_version") if isinstance(data, dict) else None


def aggregate_schema(data: JSON) -> str | None:
    version = declared_version(data)
    return f"eee/eval_{version}" if version in CHECKED else None


def _is_aggregate(path: str, data: JSON) -> bool:
    # Without `schema_version` it is still a record (eee-schema-version says what is missing).
    return (
        isinstance(data, dict)
        and "evaluation_results" in data
        and ("schema_version" in data or "model_info" in data)
    )


_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.json$", re.I)


def in_layout(path: str) -> bool:
    """`data/<collection>/<developer>/<model>/<uuid>.json`: where EEE keeps aggregates."""
    parts = path.split("/")
    return len(parts) >= 5 and parts[-5] == "data" and bool(_UUID.match(parts[-1]))


# The maps of ai_eval versions an aggregate may record, and the namespace each names.
VERSION_MAPS = {"rubric_versions": "rubric", "judge_versions": "judge"}


def additional_details(data: object, where: Pointer) -> Iterator[tuple[Pointer, dict[str, object]]]:
    """Every `additional_details` object in a record, with where it is."""
    stack: list[tuple[Pointer, object]] = [(where, data)]
    while stack:
        pointer, value = stack.pop()
        if isinstance(value, dict):
            for key, child in value.items():
                if key == "additional_details" and isinstance(child, dict):
                    yield (*pointer, key), child
                elif isinstance(child, dict | list):
                    stack.append(((*pointer, key), child))
        elif isinstance(value, list):
            stack.extend(((*pointer, i), c) for i, c in enumerate(value))


def decoded(value: object) -> object:
    """0.2.1+ keeps only strings in additional_details: structured values are JSON-encoded."""
    import json

    if isinstance(value, str) and value[:1] in "[{":
        try:
            return json.loads(value)
        except (ValueError, RecursionError):  # not JSON, or nested past what Python reads
            return value
    return value


def envelope_refs(data: object) -> Iterator[tuple[Pointer, str]]:
    """(where, "rubric/id@version") for each ai_eval version an aggregate records."""
    for pointer, details in additional_details(data, ()):
        for key, raw in details.items():
            value, here = decoded(raw), (*pointer, key)
            namespace = VERSION_MAPS.get(key)
            if namespace and isinstance(value, dict):
                for ident, version in value.items():
                    yield here, f"{namespace}/{ident}@{version}"
            values = value if isinstance(value, list) else [value]
            for item in values:
                if isinstance(item, str) and item.startswith(("rubric/", "judge/")):
                    yield here, item


def envelope_mentions(data: JSON) -> list[str]:
    """The references an aggregate's envelope records, as text (`Kind.mentions`)."""
    return [text for _, text in envelope_refs(data)]


def datastore_root(path: str) -> str:
    """The folder holding `data/` above a record, else the repository root ("")."""
    parts = path.split("/")[:-1]
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] == "data":
            return "/".join(parts[:i])
    return ""


INSTANCES = "_samples.jsonl"  # what an instance file's name ends with


def beside(path: str) -> str | None:
    """The record file beside a record file: an aggregate `<uuid>.json` and its instance file
    `<uuid>_samples.jsonl` sit side by side, and each is read with the other. None for a path
    that is neither."""
    if path.endswith(INSTANCES):
        return path.removesuffix(INSTANCES) + ".json"
    if path.endswith(".json"):
        return path.removesuffix(".json") + INSTANCES
    return None


AGGREGATE = Kind(
    name="eee-aggregate",
    about="Every Eval Ever result records: a `.json` at "
    "`data/<collection>/<developer>/<model>/<uuid>.json`, or with `evaluation_results` beside "
    "`schema_version` or `model_info`; validated against the schema of the version it declares "
    "(0.0.1, 0.1.0, 0.2.0 to 0.3.0)",
    schema_docs="schema/eee/eval_<version>.schema.json",
    title="Every Eval Ever aggregate record",
    formats=frozenset({"json"}),
    by_content=_is_aggregate,
    schema_of=aggregate_schema,
    forced_schema=lambda v: f"eee/eval_{v}" if v in CHECKED else None,
    releases=CHECKED,
    shared=("evaluation_id",),  # eee-duplicate-evaluation-id compares it across files
    mentions=envelope_mentions,
    mention_needles=(b"_versions",),  # rubric_versions, judge_versions
    claim=in_layout,
    markers=(("schema_version", "evaluation_results"), ("model_info", "evaluation_results")),
    companion=beside,
)


INSTANCE_VERSIONS = ("0.2.0", "0.2.1", "0.2.2", "0.2.3", "0.3.0")


# Every spelling of an instance schema's version producers use (`instance_level_eval_0.2.2`, or
# the aggregate's `0.2.1`), looked up once per record instead of worked out.
_INSTANCE = {v: v for v in INSTANCE_VERSIONS} | {
    f"instance_level_eval_{v}": v for v in INSTANCE_VERSIONS
}
_INSTANCE_SCHEMA = {spelling: f"eee/instance_{v}" for spelling, v in _INSTANCE.items()}


def instance_schema(data: JSON) -> str | None:
    """The instance schema a record's `schema_version` names (a JSONL file asks once per
    record, so this is one dictionary lookup, not a chain of calls)."""
    version = data.get("schema_version") if data.__class__ is dict else None
    return _INSTANCE_SCHEMA.get(version) if version.__class__ is str else None


def unknown_instance_versions(records: list[JSON]) -> list[int]:
    """The indexes of the records whose `schema_version` names no instance schema: one pass
    over a chunk's thousands of records, with no call per record."""
    known = _INSTANCE
    return [
        i
        for i, record in enumerate(records)
        if record.__class__ is not dict
        or (version := record.get("schema_version")).__class__ is not str
        or version not in known
    ]


# Keys of an instance record; OpenAI evals keeps its samples as `<name>_samples.jsonl` too
# (`input`, `ideal`), so the name alone claims a file only in EEE's own layout.
_INSTANCE_KEYS = ("schema_version", "evaluation_id", "sample_id", "interaction_type")


def _instance_layout(path: str) -> bool:
    """`data/<collection>/<developer>/<model>/<uuid>_samples.jsonl`, beside its aggregate."""
    return path.endswith(INSTANCES) and in_layout(path.removesuffix(INSTANCES) + ".json")


def _is_instance(path: str, data: JSON) -> bool:
    first = data[0] if isinstance(data, list) and data else None
    if not isinstance(first, dict):
        return _instance_layout(path)
    if path.endswith(INSTANCES):
        return _instance_layout(path) or any(k in first for k in _INSTANCE_KEYS)
    return all(k in first for k in _INSTANCE_KEYS[1:])


INSTANCE = Kind(
    name="eee-instance",
    about="Every Eval Ever instance records: a `.jsonl` named `*_samples.jsonl`, or whose "
    "records carry `evaluation_id`, `sample_id` and `interaction_type` (a `*_samples.jsonl` "
    "outside EEE's layout needs one of those keys or `schema_version`); each line validated "
    "against the instance schema its `schema_version` names (0.2.0 to 0.3.0)",
    schema_docs="schema/eee/instance_<version>.schema.json",
    title="Every Eval Ever instance records",
    formats=frozenset({"jsonl"}),
    by_content=_is_instance,
    schema_of=instance_schema,
    per_record=True,
    forced_schema=lambda v: f"eee/instance_{v}" if v in INSTANCE_VERSIONS else None,
    claim=_instance_layout,
    item_view=samples,
    results=True,
    markers=(("evaluation_id", "sample_id", "interaction_type"),),
    companion=beside,
)

RECORDS = (AGGREGATE, INSTANCE)
KINDS = RECORDS
