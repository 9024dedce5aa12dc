"""The JSON Schema vocabulary, across drafts: what a schema embedded in an eval file may say
(`invalid-json-schema` reads it), and where a schema holds other schemas. Tests that walk our
own schemas import it from here."""

from __future__ import annotations

TYPES = {"object", "array", "string", "number", "integer", "boolean", "null"}
SCHEMA_MAPS = ("properties", "patternProperties", "definitions", "$defs", "dependentSchemas")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
SCHEMA_ONE = (
    "not",
    "if",
    "then",
    "else",
    "items",
    "additionalItems",
    "contains",
    "propertyNames",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
)
KEYWORDS = {
    *SCHEMA_MAPS,
    *SCHEMA_LISTS,
    *SCHEMA_ONE,
    "type",
    "enum",
    "const",
    "required",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "dependencies",
    "dependentRequired",
    "$ref",
    "$schema",
    "$id",
    "$comment",
    "title",
    "description",
    "default",
    "examples",
    "readOnly",
    "writeOnly",
    "contentEncoding",
    "contentMediaType",
    "deprecated",
    "$anchor",
}
