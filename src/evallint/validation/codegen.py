"""The Python that fastjsonschema generates: tuned before it is compiled, and named.

Standalone (standard library only) so the wheel build hook can load it by path.

fastjsonschema names each array item's path for its error messages with
`"...[{data_x}]".format(**locals())`, and builds that name on every `$ref` call inside an
array, whether or not anything fails. `locals()` copies the whole frame each time: on the EEE
datastore it was a third of all validation time. An f-string builds the same text from the
same variables without the copy.
"""

from __future__ import annotations

import re

_FORMAT_LOCALS = re.compile(r'"((?:[^"\\]|\\.)*)"\.format\(\*\*locals\(\)\)')
_PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")


def _as_fstring(match: re.Match[str]) -> str:
    body = match.group(1)
    # Only strings whose every brace is a plain `{name}` placeholder mean the same as f-strings.
    rest = _PLACEHOLDER.sub("", body)
    if "{" in rest or "}" in rest:
        return match.group(0)
    return f'f"{body}"'


_IMPORT = "from fastjsonschema import JsonSchemaValueException, JsonSchemaValuesException\n"
_OURS = (
    "from evallint.validation.raised import SchemaFailure as JsonSchemaValueException, "
    "SchemaFailures as JsonSchemaValuesException\n"
)


def tune(code: str) -> str:
    """The same validator, without a frame copy per array item, raising our failure classes
    (validation/raised.py): a document that passes needs no fastjsonschema import."""
    return _FORMAT_LOCALS.sub(_as_fstring, code.replace(_IMPORT, _OURS))


def entry_name(code: str) -> str:
    """The validator function generated code starts with (the one to call)."""
    found = re.search(r"^def (\w+)\(", code, re.M)
    if found is None:
        raise ValueError("fastjsonschema generated no validator function")
    return found.group(1)


def module_name(name: str) -> str:
    """Module of a schema's pre-generated validator: `eee/eval_0.2.0` -> `eee__eval_0_2_0`."""
    return re.sub(r"[^0-9a-zA-Z_]", "_", name.replace("/", "__"))
