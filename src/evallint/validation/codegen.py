"""The Python that fastjsonschema generates: tuned before it is compiled, and named.

Standalone (standard library only) so the wheel build hook can load it by path.

fastjsonschema names each array item's path for its error messages with
`"...[{data_x}]".format(**locals())`, and builds that name on every `$ref` call inside an
array, whether or not anything fails. `locals()` copies the whole frame each time: on the EEE
datastore it was a third of all validation time. An f-string builds the same text from the
same variables without the copy.
"""

from __future__ import annotations

import binascii
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


_DECIMAL = "from decimal import Decimal\n"
# The generated code names Decimal only in type tests (`(int, float, Decimal)`) unless a schema
# has `multipleOf`; evallint's parsers never give a decimal.Decimal, so float stands in for it
# there and a run does not import decimal (0.9 ms of a one-file check).
_NO_DECIMAL = "Decimal = float  # parsed documents hold no decimal.Decimal: the same tests\n"


def tune(code: str) -> str:
    """The same validator, without a frame copy per array item, raising our failure classes
    (validation/raised.py): a document that passes needs no fastjsonschema import."""
    code = code.replace(_IMPORT, _OURS)
    if "Decimal(" not in code:
        code = code.replace(_DECIMAL, _NO_DECIMAL)
    return _FORMAT_LOCALS.sub(_as_fstring, code)


def entry_name(code: str) -> str:
    """The validator function generated code starts with (the one to call)."""
    found = re.search(r"^def (\w+)\(", code, re.M)
    if found is None:
        raise ValueError("fastjsonschema generated no validator function")
    return found.group(1)


def module_name(name: str) -> str:
    """Module of a schema's pre-generated validator: `eee/eval_0.2.0` -> `eee__eval_0_2_0`."""
    return re.sub(r"[^0-9a-zA-Z_]", "_", name.replace("/", "__"))


def stamp(raw: bytes) -> str:
    """What ties a generated module to its schema file's bytes: their size and CRC-32. It only
    has to notice a schema changed since the build (the files are ours, not an adversary's),
    and binascii imports in a tenth of hashlib's time, which a one-file run would pay."""
    return f"{len(raw)}:{binascii.crc32(raw):08x}"
