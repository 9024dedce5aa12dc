"""Every Eval Ever (EEE) result records: aggregate `*.json` files, validated by declared version."""

from __future__ import annotations

from evallint.formats.base import Kind
from evallint.model import JSON

# Every released aggregate version; each has its schema in schema/eee/eval_<version>.schema.json.
CHECKED = ("0.0.1", "0.1.0", "0.2.0", "0.2.1", "0.2.2", "0.2.3", "0.3.0")


def declared_version(data: JSON) -> JSON:
    return data.get("schema_version") if isinstance(data, dict) else None


def aggregate_schema(data: JSON) -> str | None:
    version = declared_version(data)
    return f"eee/eval_{version}" if version in CHECKED else None


def _is_aggregate(path: str, data: JSON) -> bool:
    return isinstance(data, dict) and "schema_version" in data and "evaluation_results" in data


AGGREGATE = Kind(
    "eee-aggregate",
    "Every Eval Ever aggregate record",
    None,
    frozenset({"json"}),
    None,
    _is_aggregate,
    schema_of=aggregate_schema,
)
