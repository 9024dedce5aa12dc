"""Our schemas: only enforced keywords, the same verdicts as jsonschema, shipped intact."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import schemas

from conftest import REPO, gate_or_skip, import_or_gate
from evallint.model import Tagged
from evallint.parse import parse
from evallint.validation.raised import SchemaFailures
from evallint.validation.schemas import (
    NO_NETWORK,
    compile_schema,
    fast_compile,
    fast_verdict,
    load_schema,
    schema_dir,
    schema_names,
    validate,
    validator,
)
from evallint.validation.vocabulary import KEYWORDS, SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_ONE
from test_rules_ai_eval import DATASET, JUDGE, RUBRIC

SCHEMA_FILES = sorted((REPO / "schema").rglob("*.schema.json"))

# What fastjsonschema's draft-07 generator enforces, plus annotations every validator ignores.
ENFORCED = {
    "type",
    "enum",
    "const",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "properties",
    "patternProperties",
    "additionalProperties",
    "required",
    "dependencies",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "items",
    "additionalItems",
    "contains",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "$ref",
}
ANNOTATIONS = {
    "$schema",
    "$id",
    "$comment",
    "title",
    "description",
    "default",
    "examples",
    "definitions",
}
# Where a schema holds other schemas: the linter's own vocabulary, plus draft-07's
# `dependencies` (a map whose values may be schemas).
SUBSCHEMA_MAPS = {*SCHEMA_MAPS, "dependencies"}
SUBSCHEMA_LISTS = set(SCHEMA_LISTS)
SUBSCHEMA_ONE = set(SCHEMA_ONE)


def test_what_our_schemas_may_use_is_json_schema() -> None:
    """What the bundled schemas may use is a part of the vocabulary the linter knows."""
    assert ENFORCED | ANNOTATIONS <= KEYWORDS


def keywords(schema: Any, where: str = "#") -> Iterator[tuple[str, str]]:
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        yield where, key
        if key in SUBSCHEMA_MAPS and isinstance(value, dict):
            for name, sub in value.items():
                yield from keywords(sub, f"{where}/{key}/{name}")
        elif key in SUBSCHEMA_LISTS:
            for i, sub in enumerate(value):
                yield from keywords(sub, f"{where}/{key}/{i}")
        elif key in SUBSCHEMA_ONE:
            yield from keywords(value, f"{where}/{key}")


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=lambda p: p.name)
def test_schema_uses_only_enforced_keywords(path: Path) -> None:
    schema = json.loads(path.read_text())
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    ignored = [
        f"{where}: {key}" for where, key in keywords(schema) if key not in ENFORCED | ANNOTATIONS
    ]
    assert ignored == [], "fastjsonschema would silently ignore these keywords"


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=lambda p: p.name)
def test_schema_is_valid_draft7_with_id_and_descriptions(path: Path) -> None:
    schema = json.loads(path.read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    assert schema["$id"].startswith("urn:evallint:schema:")
    missing = [
        name
        for where, key in keywords(schema)
        if key == "properties" and "/if" not in where
        for name, sub in _at(schema, where)["properties"].items()
        if "description" not in sub and "$ref" not in sub
    ]
    assert missing == []


def _at(schema: Any, where: str) -> Any:
    node = schema
    for part in where.split("/")[1:]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def test_generated_schemas_are_up_to_date() -> None:
    for name, build in schemas.all_schemas().items():
        committed = (REPO / "schema" / f"{name}.schema.json").read_text()
        assert committed == schemas.render(build()), (
            f"schema/{name}.schema.json is stale: run python tests/schemas.py"
        )


def test_packaged_schemas_equal_the_top_level_ones() -> None:
    packaged = schema_dir()
    for path in SCHEMA_FILES:
        assert (packaged / path.relative_to(REPO / "schema")).read_bytes() == path.read_bytes()


def test_remote_refs_are_refused() -> None:
    from evallint.errors import EvallintError

    for ref in ("https://example.com/s.json", "file:///etc/passwd", "ftp://x/y", "urn:x:y"):
        with pytest.raises(EvallintError, match="never reads the network"):
            compile_schema({"$ref": ref})
    assert "anything" in NO_NETWORK


def test_the_fast_engine_refuses_remote_refs_too() -> None:
    import_or_gate("jsonschema_rs", "the `fast` extra (jsonschema-rs) is not installed")
    for ref in ("https://example.com/s.json", "file:///etc/passwd"):
        with pytest.raises(ValueError, match="never reads the network"):
            fast_compile({"$ref": ref})


def test_validation_never_mutates_the_data() -> None:
    data = {"questions": [{"id": "q", "input": "x"}]}
    before = json.dumps(data, sort_keys=True)
    validate("dataset", data)
    assert json.dumps(data, sort_keys=True) == before


# Every document the rule tests use, valid and invalid, for the differential test.
def _variants() -> Iterator[tuple[str, str]]:
    yield "rubric", RUBRIC
    yield "judge", JUDGE
    yield "dataset", DATASET
    yield "rubric", RUBRIC.replace("all_pass", "weighted")
    yield "rubric", RUBRIC.replace('"1.0.0"', '"1.0"')
    yield "rubric", RUBRIC.replace("values: [please]", "values: []")
    yield "rubric", RUBRIC.replace("kind: must_contain_any", "kind: markdown_structure")
    yield "rubric", RUBRIC.replace("kind: must_contain_any", "kind: json_schema")
    yield "rubric", RUBRIC.replace("kind: must_contain_any", "kind: custom_kind")
    yield "rubric", RUBRIC + "extra: {x: 1}\n"
    yield "rubric", RUBRIC.replace("  combine: all_pass\n", "  combine: min\n  treshold: 1\n")
    yield "judge", JUDGE.replace("binary", "levels")
    yield "judge", JUDGE.replace("binary", "levels") + "level_names: [bad, good]\n"
    yield "judge", JUDGE.replace("tpr: 0.9", "tpr: 1.5")
    yield "judge", JUDGE.replace("2026-10-30", "2026-13-01")
    yield "dataset", DATASET.replace("rubric/tone@1", "rubric/tone@1.2.3-rc.1")
    yield "dataset", DATASET.replace("rubric/tone@1", "rubric/tone@1.2-rc.1")
    yield "dataset", DATASET.replace("id: q1", "id: 1")
    yield "dataset", "questions: []\n"
    yield "dataset", DATASET + "    expected: {format: xml}\n"
    yield "dataset", DATASET + "    expected_tools: [{should_run: true}]\n"


@pytest.mark.parametrize(("name", "text"), list(_variants()))
def test_fastjsonschema_and_jsonschema_agree(name: str, text: str) -> None:
    data = parse("x.yaml", text.encode(), "yaml").data
    try:
        validator(name)(data)
        ours = True
    except SchemaFailures:
        ours = False
    reference = jsonschema.Draft7Validator(
        load_schema(name), format_checker=jsonschema.FormatChecker()
    )
    assert ours == reference.is_valid(data)


def test_wheel_installs_use_pre_generated_validators() -> None:
    """An installed wheel (CI installs the package as users do, by building one) carries a
    validator generated for every bundled schema, and uses it."""
    import evallint
    from evallint.validation import schemas

    if not (Path(evallint.__file__).parent / "_compiled").is_dir():
        gate_or_skip("an editable install: validators are compiled at run time")
    for path in SCHEMA_FILES:
        name = path.relative_to(REPO / "schema").as_posix().removesuffix(".schema.json")
        assert schemas._generated(name) is not None, name


def _documents() -> Iterator[tuple[str, bytes]]:
    """Every document the suite knows: rule examples, examples/, and the corpora if present."""
    from conftest import SHARED, walk_files
    from evallint.rules import ALL_RULES

    for rule in ALL_RULES:
        for example in rule.examples:
            yield example.path, example.text.encode()
    for path in walk_files(REPO / "examples"):
        yield path.relative_to(REPO).as_posix(), path.read_bytes()
    for corpus in ("agentv", "drupal"):
        root = SHARED / "corpus" / corpus
        if root.is_dir():
            for path in walk_files(root):
                yield path.relative_to(root).as_posix(), path.read_bytes()


def test_both_engines_agree_on_every_document_of_every_kind() -> None:
    from conftest import DictSource
    from evallint.config import Config
    from evallint.project import Entry
    from evallint.read import read_entry

    docs = dict(_documents())
    source, compared = DictSource(docs), 0
    for path in docs:
        entry = read_entry(path, source, Config())
        if not isinstance(entry, Entry) or not entry.doc.ok or entry.kind.schema is None:
            continue
        name = entry.kind.schema
        try:
            validator(name)(entry.doc.data)
            ours = True
        except SchemaFailures:
            ours = False
        reference = jsonschema.Draft7Validator(
            load_schema(name), format_checker=jsonschema.FormatChecker()
        )
        assert ours == reference.is_valid(entry.doc.data), (path, name)
        compared += 1
    assert compared >= 20  # 26 from the project alone; hundreds more with the corpora


def _fastjsonschema_verdict(name: str, data: Any) -> bool:
    try:
        validator(name)(data)
    except SchemaFailures:
        return False
    return True


def _named_documents() -> Iterator[tuple[str, str, Any]]:
    """(where, schema name, data) for every document and record the suite and corpora hold."""
    from conftest import SHARED, DictSource
    from evallint.config import Config
    from evallint.project import Entry
    from evallint.read import read_entry

    for name, text in _variants():
        yield f"variant of {name}", name, parse("x.yaml", text.encode(), "yaml").data
    docs = dict(_documents())
    source = DictSource(docs)
    for path in docs:
        entry = read_entry(path, source, Config())
        if isinstance(entry, Entry) and entry.doc.ok:
            records = entry.doc.data if entry.kind.per_record else [entry.doc.data]
            for record in records if isinstance(records, list) else []:
                schema = entry.kind.schema_for(record)
                if schema is not None:
                    yield path, schema, record
    eee = SHARED / "corpus" / "eee"
    for file in sorted(eee.rglob("*.json")) if eee.is_dir() else []:
        if file.is_file() and "schema" not in file.parts:
            data = json.loads(file.read_bytes())
            version = data.get("schema_version") if isinstance(data, dict) else None
            for schema in {f"eee/eval_{version}", "eee/eval_0.3.0"} & set(schema_names()):
                yield str(file), schema, data
    for file in sorted(p for p in eee.rglob("*.jsonl") if p.is_file()) if eee.is_dir() else []:
        for n, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
            record = json.loads(line) if line.strip() else None
            for version in ("0.2.0", "0.3.0") if isinstance(record, dict) else ():
                yield f"{file}:{n}", f"eee/instance_{version}", record


def test_jsonschema_rs_gives_fastjsonschemas_verdict_on_every_document() -> None:
    import_or_gate("jsonschema_rs", "the `fast` extra (jsonschema-rs) is not installed")
    compared = invalid = 0
    for where, name, data in _named_documents():
        quick = fast_verdict(name)
        assert quick is not None
        verdict = _fastjsonschema_verdict(name, data)
        assert quick(data) == verdict, (where, name)
        compared, invalid = compared + 1, invalid + (not verdict)
    assert compared >= 30 and invalid >= 5


def test_the_closed_copy_says_valid_only_where_the_walk_and_the_validator_find_nothing() -> None:
    import_or_gate("jsonschema_rs", "the `fast` extra (jsonschema-rs) is not installed")
    from evallint.validation.keys import _closed_verdict, walk_keys

    shortcut = walked = 0
    for where, name, data in _named_documents():
        quick = _closed_verdict(name)
        if quick is not None and quick(data):
            # A clean record is then checked no further: the walk and the validator agree.
            assert walk_keys(name, data) == [], (where, name)
            assert _fastjsonschema_verdict(name, data), (where, name)
            shortcut += 1
        walked += 1
    assert shortcut >= 20 and walked > shortcut


def test_a_function_tag_takes_the_fast_engines_path() -> None:
    """jsonschema-rs takes no subclass of str; a harness config's `!function` values are
    asked again as plain text, so the config gets the fast engine's verdict (the same as
    fastjsonschema's), not the slow path: 43% of the harness's task tree took it."""
    import_or_gate("jsonschema_rs", "the `fast` extra (jsonschema-rs) is not installed")
    from evallint.validation.keys import _closed_verdict

    text = (
        "task: demo\ndataset_path: demo/data\noutput_type: generate_until\n"
        "doc_to_text: !function utils.text\nprocess_docs: !function utils.docs\n"
    )
    data = parse("tasks/demo.yaml", text.encode(), "yaml").data
    quick, closed = fast_verdict("lm-eval-task"), _closed_verdict("lm-eval-task")
    assert quick is not None and closed is not None
    assert quick(data) and closed(data) and _fastjsonschema_verdict("lm-eval-task", data)
    data["output_type"] = Tagged("utils.kind")  # a type the schema's enum has no place for
    assert not quick(data) and not _fastjsonschema_verdict("lm-eval-task", data)


def test_the_closed_copy_closes_objects_that_name_their_keys_only_where_it_is_safe() -> None:
    from evallint.validation.keys import _sound, closed_copy

    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "a": {"type": "object", "properties": {"b": {}}, "additionalProperties": True}
        },
        "additionalProperties": {"type": "string"},
        "definitions": {"free": {"type": "object"}},
        "if": {"properties": {"a": {"properties": {"c": {}}}}},
    }
    copy = closed_copy(schema)
    assert copy["properties"]["a"]["additionalProperties"] is False
    assert copy["additionalProperties"] == {"type": "string"}  # a schema for the other keys
    assert copy["definitions"]["free"] == {"type": "object"}  # names no keys: free-form
    assert copy["if"] == schema["if"]  # a condition must accept what it accepted
    assert schema["properties"]["a"]["additionalProperties"] is True  # a copy, not an edit
    assert _sound(schema)
    # A branch that refines its parent's object is covered by the parent's closing; members of
    # an allOf whose parent names no properties are closed themselves.
    refined = closed_copy(
        {
            "properties": {"kind": {}, "extra": {}},
            "if": {"properties": {"kind": {"const": "x"}}},
            "then": {"properties": {"extra": {"type": "string"}}},
            "allOf": [{"properties": {"kind": {}}}],
        }
    )
    assert refined["additionalProperties"] is False
    assert "additionalProperties" not in refined["then"]
    assert "additionalProperties" not in refined["allOf"][0]
    assert closed_copy({"allOf": [{"properties": {"a": {}}}]})["allOf"][0] == {
        "properties": {"a": {}},
        "additionalProperties": False,
    }
    # An object can match the free-form alternative while the walk sees the other's keys.
    mixed = {"anyOf": [{"type": "object", "properties": {"a": {}}}, {"type": "object"}]}
    assert not _sound(mixed)
    # Two alternatives share a key whose schemas differ in structure.
    a = {"type": "object", "properties": {"x": {"properties": {"p": {}}}}}
    b = {"type": "object", "properties": {"x": {"properties": {"q": {}}}}}
    assert not _sound({"oneOf": [a, b]})
    assert _sound({"oneOf": [a, {"type": "object", "properties": {"y": {}}}]})
    assert not _sound({"anyOf": [{"items": {"properties": {}}}, {"type": "array"}]})


def test_an_anyof_alternatives_validator_is_its_own_whatever_its_address() -> None:
    """The validator of an anyOf alternative is found by the alternative's content: fastjsonschema
    hands each error a fresh copy of the schema, and a freed copy's address is soon another's
    (keyed by `id()`, one shape's messages were given for another, now and then, in large runs)."""
    from evallint.validation.raised import SchemaFailures
    from evallint.validation.schemas import _branch

    root: dict[str, Any] = {}
    for i in range(200):
        alternative: dict[str, Any] = {"type": "string"} if i % 2 else {"type": "array"}
        check = _branch(root, alternative)
        try:
            check("text")
            took = True
        except SchemaFailures:
            took = False
        assert took == bool(i % 2), i
        del alternative, check
