"""The generated-code tuning keeps fastjsonschema's behaviour and drops its frame copies."""

from __future__ import annotations

from typing import Any

import fastjsonschema
import pytest

from evallint.validation.codegen import entry_name, tune
from evallint.validation.raised import SchemaFailure, SchemaFailures
from evallint.validation.schemas import NO_NETWORK, compile_schema, load_schema, schema_names

ITEMS_BY_REF: dict[str, Any] = {
    "definitions": {"row": {"type": "object", "required": ["id"]}},
    "type": "object",
    "properties": {"rows": {"type": "array", "items": {"$ref": "#/definitions/row"}}},
}


def _errors(check: Any, data: Any) -> list[tuple[str | None, str]]:
    try:
        check(data)
    except (fastjsonschema.JsonSchemaValuesException, SchemaFailures) as exc:
        return [(e.name, e.message) for e in exc.errors]
    return []


def test_tuned_code_has_no_locals_copy() -> None:
    code = fastjsonschema.compile_to_code(ITEMS_BY_REF, handlers=NO_NETWORK, fast_fail=False)
    assert "format(**locals())" in code
    assert "locals()" not in tune(code)


def test_tuned_validator_names_the_same_paths() -> None:
    data = {"rows": [{"id": 1}, {}, {"x": 2}]}
    upstream = fastjsonschema.compile(ITEMS_BY_REF, handlers=NO_NETWORK, fast_fail=False)
    ours = compile_schema(ITEMS_BY_REF)
    assert _errors(ours, data) == _errors(upstream, data)
    assert [name for name, _ in _errors(ours, data)] == ["data.rows[1]", "data.rows[2]"]


def test_braces_that_are_not_placeholders_are_left_alone() -> None:
    code = 'x = "a{b}c{{".format(**locals())\ny = "p[{i}]".format(**locals())\n'
    assert tune(code) == 'x = "a{b}c{{".format(**locals())\ny = f"p[{i}]"\n'


@pytest.mark.parametrize("name", schema_names())
def test_every_bundled_schema_compiles_tuned_to_the_same_errors(name: str) -> None:
    schema = load_schema(name)
    upstream = fastjsonschema.compile(
        schema, handlers=NO_NETWORK, use_default=False, fast_fail=False
    )
    documents: list[Any] = [{}, {"questions": [{}], "checks": [{}], "tests": [{}]}, []]
    for data in documents:
        assert _errors(compile_schema(schema), data) == _errors(upstream, data), data


@pytest.mark.parametrize("name", schema_names())
def test_tuned_code_raises_our_failures_and_never_imports_fastjsonschema(name: str) -> None:
    """Validating a document must not import fastjsonschema: the generated code's one import
    of it is pointed at our classes (a release that changes that line fails here)."""
    code = fastjsonschema.compile_to_code(
        load_schema(name), handlers=NO_NETWORK, use_default=False, fast_fail=False
    )
    assert "fastjsonschema" in code
    assert "fastjsonschema" not in tune(code)


@pytest.mark.parametrize("name", schema_names())
def test_tuned_code_imports_decimal_only_for_multiple_of(name: str) -> None:
    """Our schemas name Decimal only in type tests: float stands in, and the import goes. A
    schema with `multipleOf` (Decimal arithmetic) keeps it."""
    code = fastjsonschema.compile_to_code(
        load_schema(name), handlers=NO_NETWORK, use_default=False, fast_fail=False
    )
    assert "from decimal import Decimal" not in tune(code)
    divisible = fastjsonschema.compile_to_code({"multipleOf": 0.1}, handlers=NO_NETWORK)
    assert "from decimal import Decimal" in tune(divisible)
    namespace: dict[str, object] = {}
    exec(tune(divisible), namespace)  # the tuned code still checks multipleOf
    validate = namespace[entry_name(tune(divisible))]
    assert callable(validate)
    validate(0.3)
    with pytest.raises(SchemaFailure):
        validate(0.35)


def test_a_failure_carries_its_keyword_and_argument() -> None:
    with pytest.raises(SchemaFailures) as raised:
        compile_schema({"properties": {"a": {"enum": [1, 2]}}})({"a": 3})
    (failure,) = raised.value.errors
    assert isinstance(failure, SchemaFailure)
    assert (failure.name, failure.rule, failure.rule_definition) == ("data.a", "enum", [1, 2])
