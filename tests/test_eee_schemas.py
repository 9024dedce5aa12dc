"""Our EEE schemas (written from `formats/eee/schemas*.py`) constrain what EEE's published ones
do, place by place: the same types, enums, required keys, bounds, patterns and closed objects,
in both directions. A keyword our generator drops (as it once dropped the items of
`available_tools`) is caught here even where no record of the corpus uses that place.

Equal in meaning counts as equal: an `allOf` is its branches' constraints in one place; an
`enum` of strings is a string; a character class is compared with its ranges sorted.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from conftest import shared_or_skip
from evallint.formats.eee.kinds import CHECKED
from evallint.validation.schemas import load_schema
from evallint.validation.vocabulary import KEYWORDS, SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_ONE

Constraint = tuple[str, str, str]  # (place, keyword, value as JSON)
# The keywords that constrain a value where they are (not those that hold other schemas, which
# the walk follows, nor annotations).
_ANNOTATIONS = {"$ref", "$schema", "$id", "$comment", "$anchor", "title", "description"}
_ANNOTATIONS |= {"default", "examples", "readOnly", "writeOnly", "deprecated", "format"}
_ANNOTATIONS |= {"contentEncoding", "contentMediaType"}
_KEYWORDS = sorted(KEYWORDS - {*SCHEMA_MAPS, *SCHEMA_LISTS, *SCHEMA_ONE} - _ANNOTATIONS)
_DEPTH = 30


def _resolve(root: dict[str, Any], schema: Any) -> Any:
    for _ in range(_DEPTH):
        if not (isinstance(schema, dict) and "$ref" in schema):
            break
        target: Any = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target[part]
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def _sorted_class(found: re.Match[str]) -> str:
    return "[" + "".join(sorted(re.findall(r".-.|.", found.group(1)))) + "]"


def _value(keyword: str, value: Any) -> str:
    if keyword == "type":
        value = sorted(value) if isinstance(value, list) else [value]
    elif keyword in ("required", "enum"):
        value = sorted(map(str, value))
    elif keyword == "pattern":
        value = re.sub(r"\[([^\]]+)\]", _sorted_class, value)
    return json.dumps(value)


def _walk(root: dict[str, Any], schema: Any, place: str, out: set[Constraint]) -> None:
    schema = _resolve(root, schema)
    if not isinstance(schema, dict) or place.count("/") > _DEPTH:
        return
    enum = schema.get("enum")
    if isinstance(enum, list) and "type" not in schema and all(isinstance(e, str) for e in enum):
        out.add((place, "type", _value("type", "string")))
    out.update((place, k, _value(k, schema[k])) for k in _KEYWORDS if k in schema)
    extra = schema.get("additionalProperties")
    if extra is False:
        out.add((place, "additionalProperties", "false"))
    elif isinstance(extra, dict):
        _walk(root, extra, f"{place}/*", out)
    for name, sub in (schema.get("properties") or {}).items():
        _walk(root, sub, f"{place}/{name}", out)
    if isinstance(schema.get("items"), dict):
        _walk(root, schema["items"], f"{place}/[]", out)
    for sub in schema.get("allOf") or []:
        _walk(root, sub, place, out)
    for combinator in ("anyOf", "oneOf"):
        for i, sub in enumerate(schema.get(combinator) or []):
            _walk(root, sub, f"{place}/{combinator}{i}", out)


def constraints(schema: dict[str, Any]) -> set[Constraint]:
    out: set[Constraint] = set()
    _walk(schema, schema, "", out)
    return out


PAIRS = [(f"eval.schema.{v}.json", f"eee/eval_{v}") for v in CHECKED] + [
    (f"instance_level_eval.schema.{v}.json", f"eee/instance_{v}") for v in CHECKED if v >= "0.2.0"
]


@pytest.mark.parametrize(("official", "ours"), PAIRS, ids=[p[1] for p in PAIRS])
def test_our_eee_schemas_constrain_what_the_published_ones_do(official: str, ours: str) -> None:
    path = shared_or_skip("corpus", "eee", "schema") / official
    if not path.exists():
        pytest.skip(f"EEE publishes no {official}")
    theirs = constraints(json.loads(path.read_text(encoding="utf-8")))
    mine = constraints(load_schema(ours))
    assert len(theirs) > 40  # the walk reached the records' depths
    assert sorted(theirs - mine) == []  # a constraint we dropped
    assert sorted(mine - theirs) == []  # one we added: a false error on a record EEE accepts


def test_the_comparison_sees_a_dropped_keyword() -> None:
    schema = load_schema("eee/eval_0.2.2")
    result = schema["properties"]["evaluation_results"]["items"]
    args = result["properties"]["generation_config"]["properties"]["generation_args"]
    tools = args["properties"]["agentic_eval_config"]["properties"]["available_tools"]
    dropped = json.loads(json.dumps(schema))
    moved = dropped["properties"]["evaluation_results"]["items"]["properties"]
    moved["generation_config"]["properties"]["generation_args"]["properties"][
        "agentic_eval_config"
    ]["properties"]["available_tools"] = {k: v for k, v in tools.items() if k != "items"}
    assert constraints(schema) - constraints(dropped)


@pytest.mark.parametrize(
    ("released", "variant"),
    [("0.1.0", "0.1.0+main-2026-01-30"), ("0.3.0", "0.3.0+pr258")],
)
def test_the_variants_eee_published_under_one_version_constrain_alike(
    released: str, variant: str
) -> None:
    """EEE edited 0.1.0 and 0.3.0 in place: the later texts add keys outside `properties` (no
    validator reads them) and change a default (an annotation). A record one accepts, the
    other accepts, so a finding needs no "another variant accepts it" hint; if EEE publishes a
    variant that differs, this fails and the hint becomes worth writing."""
    root = shared_or_skip("corpus", "eee", "schema")
    first = json.loads((root / f"eval.schema.{released}.json").read_text(encoding="utf-8"))
    later = json.loads((root / f"eval.schema.{variant}.json").read_text(encoding="utf-8"))
    assert constraints(first) == constraints(later)
