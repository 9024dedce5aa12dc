"""Every Eval Ever rules."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.eee import CHECKED, INSTANCE_VERSIONS, declared_version, instance_version
from evallint.model import Finding, Severity
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.engine import Context
    from evallint.parse import Document


@rule("eee-schema-version", Severity.ERROR, kinds=("eee-aggregate", "eee-instance"))
def eee_schema_version(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An EEE record declares no `schema_version`, or one no EEE release has.

    Each record is validated against the schema of the version it declares, so the version must
    be one of the released ones: 0.0.1, 0.1.0, 0.2.0 to 0.2.3, 0.3.0.

    Bad (data/helm/acme/model-x/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json):
        {"schema_version": "0.2.9", "evaluation_results": []}
    Good (data/helm/acme/model-x/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json):
        {"schema_version": "0.2.0", "evaluation_id": "helm/acme_model-x/1760000000",
         "retrieved_timestamp": "1760000000",
         "source_metadata": {"source_type": "documentation", "source_organization_name": "HELM",
                             "evaluator_relationship": "third_party"},
         "model_info": {"name": "model-x", "id": "acme/model-x"}, "evaluation_results": []}
    """
    if ctx.kind.per_record:
        yield from _record_versions(doc)
        return
    version = declared_version(doc.data)
    if version in CHECKED:
        return
    known = ", ".join(CHECKED)
    if not isinstance(version, str):
        yield Finding(
            ("schema_version",), f"schema_version must be a string naming a release: {known}"
        )
    else:
        yield Finding(
            ("schema_version",), f"no EEE release has schema_version {version!r}; known: {known}"
        )


SHOWN = 10  # per file: a million records with the same wrong version are one problem


def _record_versions(doc: Document) -> Iterator[Finding]:
    known = ", ".join(f"instance_level_eval_{v}" for v in INSTANCE_VERSIONS[:-1]) + ", 0.3.0"
    bad = [
        i
        for i, record in enumerate(doc.data if isinstance(doc.data, list) else [])
        if instance_version(record) is None
    ]
    for i in bad[:SHOWN]:
        version = declared_version(doc.data[i])
        yield Finding(
            (i, "schema_version"), f"no EEE instance schema has version {version!r}; known: {known}"
        )
    if len(bad) > SHOWN:
        yield Finding(
            (bad[SHOWN], "schema_version"),
            f"{len(bad) - SHOWN} more records have an unknown schema_version",
        )
