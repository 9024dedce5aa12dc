"""Every Eval Ever rules."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.eee import CHECKED, LEGACY, declared_version
from evallint.model import Finding, Severity
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.engine import Context
    from evallint.parse import Document


@rule("eee-schema-version", Severity.ERROR, kinds=("eee-aggregate",))
def eee_schema_version(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An EEE record declares no `schema_version`, or one no EEE release has.

    Each record is validated against the schema of the version it declares, so the version must
    be one of the released ones. (0.0.1 and 0.1.0 are recognised but not yet checked.)

    Bad (data/helm/acme/model-x/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json):
        {"schema_version": "0.2.9", "evaluation_results": []}
    Good (data/helm/acme/model-x/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json):
        {"schema_version": "0.1.0", "evaluation_results": []}
    """
    version = declared_version(doc.data)
    if version in CHECKED or version in LEGACY:
        return
    known = ", ".join(LEGACY + CHECKED)
    if not isinstance(version, str):
        yield Finding(
            ("schema_version",), f"schema_version must be a string naming a release: {known}"
        )
    else:
        yield Finding(
            ("schema_version",), f"no EEE release has schema_version {version!r}; known: {known}"
        )
