"""Every Eval Ever rules."""

from __future__ import annotations

import contextlib
import functools
import posixpath
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from evallint.formats.eee import kinds as eee
from evallint.formats.eee.kinds import (
    CHECKED,
    INSTANCE_VERSIONS,
    VERSION_MAPS,
    additional_details,
    datastore_root,
    declared_version,
    envelope_refs,
    unknown_instance_versions,
)
from evallint.kinds import NAMESPACED
from evallint.model import Finding, Pointer, Severity
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.read import Scan
    from evallint.rules.api import Context


@rule("eee-schema-version", Severity.ERROR, kinds=eee.RECORDS)
def eee_schema_version(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An EEE record declares no `schema_version`, or one no EEE release has.

    evallint validates each record against the schema of the version it declares, so the
    version must be a released one, from 0.0.1 to 0.3.0 (the values `--eee-version` accepts);
    without one the record could not be checked at all. EEE's own `validate` does not compare
    the value: it checks every record against its newest models.

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
    if version is None and isinstance(doc.data, dict) and "schema_version" not in doc.data:
        yield Finding((), f"the record declares no schema_version; known releases: {known}")
    elif not isinstance(version, str):
        yield Finding(
            ("schema_version",), f"schema_version must be a string naming a release: {known}"
        )
    else:
        yield Finding(
            ("schema_version",), f"no EEE release has schema_version {version!r}; known: {known}"
        )


def _record_versions(doc: Document) -> Iterator[Finding]:
    known = ", ".join(f"instance_level_eval_{v}" for v in INSTANCE_VERSIONS[:-1]) + ", 0.3.0"
    records = doc.data if isinstance(doc.data, list) else []
    for i in unknown_instance_versions(records):
        record = records[i]
        version = declared_version(record)
        missing = not isinstance(record, dict) or "schema_version" not in record
        yield Finding(
            (i,) if missing else (i, "schema_version"),
            "the record declares no schema_version; known: " + known
            if missing
            else f"no EEE instance schema has version {version!r}; known: {known}",
            group="unknown instance version",
        )


def companion_path(doc: Document) -> tuple[str, str] | None:
    """(file_path as written, project path) of an aggregate's instance companion; the project
    path is "" when file_path leads out of the repository (it is then never read)."""
    detailed = doc.data.get("detailed_evaluation_results") if isinstance(doc.data, dict) else None
    written = detailed.get("file_path") if isinstance(detailed, dict) else None
    if not isinstance(written, str):
        return None
    base = datastore_root(doc.path)
    joined = posixpath.normpath(f"{base}/{written}" if base else written)
    if written.startswith("/") or joined == ".." or joined.startswith("../"):
        return written, ""
    return written, joined


@rule("eee-companion", Severity.ERROR, kinds=eee.RECORDS, reads_files=True)
def eee_companion(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An aggregate's instance file is missing, or an instance file has no aggregate.

    `detailed_evaluation_results.file_path` resolves from the datastore root (the folder that
    holds `data/`), else from the repository root. An instance file `<uuid>_samples.jsonl` must
    sit beside `<uuid>.json`, whose `file_path` names it.

    Given (data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json):
        {"schema_version": "0.2.0", "evaluation_id": "e", "retrieved_timestamp": "1", "source_metadata": {"source_type": "documentation", "source_organization_name": "o", "evaluator_relationship": "other"}, "model_info": {"name": "m", "id": "acme/m"}, "evaluation_results": [], "detailed_evaluation_results": {"file_path": "data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e_samples.jsonl"}}
    Bad (data/bench/acme/m/00000000-1d2a-4b3c-8d4e-5f6a7b8c9d0e_samples.jsonl):
        {"schema_version": "0.3.0", "evaluation_id": "e", "model_id": "acme/m", "evaluation_name": "n", "sample_id": "1", "interaction_type": "single_turn", "input": {"raw": "q", "reference": ["a"]}, "output": {"raw": ["a"]}, "answer_attribution": [], "evaluation": {"score": 1, "is_correct": true}}
    Good (data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e_samples.jsonl):
        {"schema_version": "0.3.0", "evaluation_id": "e", "model_id": "acme/m", "evaluation_name": "n", "sample_id": "1", "interaction_type": "single_turn", "input": {"raw": "q", "reference": ["a"]}, "output": {"raw": ["a"]}, "answer_attribution": [], "evaluation": {"score": 1, "is_correct": true}}
    """
    others = ctx.others
    if others is None:
        return
    if ctx.kind.name == eee.AGGREGATE.name:
        problem = _companion_problem(companion_path(doc), ctx)
        if problem:
            yield Finding(("detailed_evaluation_results", "file_path"), problem)
        return
    if not doc.path.endswith("_samples.jsonl") or ctx.chunk:
        return  # once per file, on its first chunk
    sibling = doc.path.removesuffix("_samples.jsonl") + ".json"
    aggregate = others.load(sibling)
    if (aggregate is None or not aggregate.ok) and sibling in ctx.files:
        return  # it is there but cannot be read: its own parse-error says so
    points = companion_path(aggregate) if aggregate is not None else None
    if points is None or points[1] != doc.path:
        what = (
            "does not name this file in detailed_evaluation_results.file_path"
            if aggregate is not None
            else "does not exist"
        )
        yield Finding((0,), f"no aggregate record points at this file: {sibling} {what}")


def _companion_problem(found: tuple[str, str] | None, ctx: Context) -> str | None:
    """What is wrong with where an aggregate's file_path leads, if anything."""
    if found is None:
        return None
    written, path = found
    if not path:
        return f"{written!r} lies outside the repository; file_path is a path inside the datastore"
    if path not in ctx.files:
        return f"{written!r} does not exist (looked for {path})"
    if ctx.outside(path):
        return f"{written!r} is a symlink that leads outside the repository; it is not read"
    if ctx.others is not None and ctx.others.scan(path) is None:
        return f"{written!r} cannot be read as a regular file"
    return None


def _companion(doc: Document, ctx: Context) -> tuple[dict[str, object], Scan] | None:
    found = companion_path(doc)
    scanned = ctx.others.scan(found[1]) if found and found[1] and ctx.others else None
    detailed = doc.data.get("detailed_evaluation_results")
    return (detailed, scanned) if scanned is not None and isinstance(detailed, dict) else None


@rule("eee-checksum", Severity.ERROR, kinds=(eee.AGGREGATE,))
def eee_checksum(doc: Document, ctx: Context) -> Iterator[Finding]:
    """The companion file's checksum is not the one the aggregate declares.

    `checksum` is the `hash_algorithm` (sha256 or md5, as the schema allows) of the instance
    file's exact bytes. EEE's `validate` does not compare them; its converter publisher re-hashes
    the file (sha256) and refuses a mismatch, so a hand-edited file with a stale checksum passes
    `validate` and fails publication.

    Given (data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e_samples.jsonl):
        {}
    Bad (data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json):
        {"schema_version": "0.2.0", "evaluation_id": "e", "retrieved_timestamp": "1", "source_metadata": {"source_type": "documentation", "source_organization_name": "o", "evaluator_relationship": "other"}, "model_info": {"name": "m", "id": "acme/m"}, "evaluation_results": [], "detailed_evaluation_results": {"file_path": "data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e_samples.jsonl", "hash_algorithm": "sha256", "checksum": "00"}}
    Good (data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json):
        {"schema_version": "0.2.0", "evaluation_id": "e", "retrieved_timestamp": "1", "source_metadata": {"source_type": "documentation", "source_organization_name": "o", "evaluator_relationship": "other"}, "model_info": {"name": "m", "id": "acme/m"}, "evaluation_results": [], "detailed_evaluation_results": {"file_path": "data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e_samples.jsonl", "hash_algorithm": "md5", "checksum": "8a80554c91d9fca8acb82f023de02f11"}}
    """
    found = _companion(doc, ctx)
    if found is None:
        return
    detailed, scanned = found
    algorithm, declared = detailed.get("hash_algorithm", "sha256"), detailed.get("checksum")
    if algorithm not in ("sha256", "md5") or not isinstance(declared, str):
        return
    actual = scanned.digests[str(algorithm)]
    if actual != declared.lower():
        yield Finding(
            ("detailed_evaluation_results", "checksum"),
            f"the {algorithm} of the companion file is {actual}, not {declared}",
        )


@rule("eee-total-rows", Severity.ERROR, kinds=(eee.AGGREGATE,))
def eee_total_rows(doc: Document, ctx: Context) -> Iterator[Finding]:
    """`total_rows` is not the number of records in the companion file.

    Records are the non-blank lines of the JSONL file (lines end at `\\n`); blank lines are not
    counted (EEE's publisher rejects them, so they should not be there at all).

    Given (data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e_samples.jsonl):
        {}
    Bad (data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json):
        {"schema_version": "0.2.0", "evaluation_id": "e", "retrieved_timestamp": "1", "source_metadata": {"source_type": "documentation", "source_organization_name": "o", "evaluator_relationship": "other"}, "model_info": {"name": "m", "id": "acme/m"}, "evaluation_results": [], "detailed_evaluation_results": {"file_path": "data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e_samples.jsonl", "total_rows": 2}}
    Good (data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json):
        {"schema_version": "0.2.0", "evaluation_id": "e", "retrieved_timestamp": "1", "source_metadata": {"source_type": "documentation", "source_organization_name": "o", "evaluator_relationship": "other"}, "model_info": {"name": "m", "id": "acme/m"}, "evaluation_results": [], "detailed_evaluation_results": {"file_path": "data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e_samples.jsonl", "total_rows": 1}}
    """
    found = _companion(doc, ctx)
    if found is None:
        return
    detailed, scanned = found
    declared = detailed.get("total_rows")
    rows = scanned.records
    if isinstance(declared, int) and not isinstance(declared, bool) and declared != rows:
        yield Finding(
            ("detailed_evaluation_results", "total_rows"),
            f"the companion file has {rows} record{'' if rows == 1 else 's'}, not {declared}",
        )


def _aggregate_of(doc: Document, ctx: Context) -> Document | None:
    if ctx.others is None or not doc.path.endswith("_samples.jsonl"):
        return None
    found = ctx.others.load(doc.path.removesuffix("_samples.jsonl") + ".json")
    return found if found is not None and isinstance(found.data, dict) else None


@rule("eee-instance-ids", Severity.ERROR, kinds=(eee.INSTANCE,))
def eee_instance_ids(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An instance record does not belong to its aggregate.

    Every record's `evaluation_id` and `model_id` must equal the aggregate's `evaluation_id`
    and `model_info.id`; `evaluation_result_id` and `evaluation_name` must name one of its
    results. Each kind of mismatch is shown for the first `max-repeats` records, then counted.

    Given (data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json):
        {"schema_version": "0.2.0", "evaluation_id": "e", "retrieved_timestamp": "1", "source_metadata": {"source_type": "documentation", "source_organization_name": "o", "evaluator_relationship": "other"}, "model_info": {"name": "m", "id": "acme/m"}, "evaluation_results": [{"evaluation_name": "n", "source_data": {"dataset_name": "d", "source_type": "other"}, "metric_config": {"lower_is_better": false}, "score_details": {"score": 1}}], "detailed_evaluation_results": {"file_path": "data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e_samples.jsonl"}}
    Bad (data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e_samples.jsonl):
        {"schema_version": "0.3.0", "evaluation_id": "None_samples", "model_id": "acme/m", "evaluation_name": "n", "sample_id": "1", "interaction_type": "single_turn", "input": {"raw": "q", "reference": ["a"]}, "output": {"raw": ["a"]}, "answer_attribution": [], "evaluation": {"score": 1, "is_correct": true}}
    Good (data/bench/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e_samples.jsonl):
        {"schema_version": "0.3.0", "evaluation_id": "e", "model_id": "acme/m", "evaluation_name": "n", "sample_id": "1", "interaction_type": "single_turn", "input": {"raw": "q", "reference": ["a"]}, "output": {"raw": ["a"]}, "answer_attribution": [], "evaluation": {"score": 1, "is_correct": true}}
    """
    aggregate = _aggregate_of(doc, ctx)
    if aggregate is None or not isinstance(doc.data, list):
        return
    agg = aggregate.data
    info = agg.get("model_info")
    expect = {
        "evaluation_id": agg.get("evaluation_id"),
        "model_id": info.get("id") if isinstance(info, dict) else None,
    }
    results = [r for r in agg.get("evaluation_results", []) if isinstance(r, dict)]
    names = {_scalar(r.get("evaluation_name")) for r in results}
    ids = {_scalar(r.get("evaluation_result_id")) for r in results} - {None}
    for i, record in enumerate(doc.data):
        if not isinstance(record, dict):
            continue
        for key, want in expect.items():
            if want is not None and key in record and record[key] != want:
                yield Finding(
                    (i, key),
                    f"{key} is {record[key]!r}; the aggregate {aggregate.path} says {want!r}",
                    group=key,
                )
        name, rid = record.get("evaluation_name"), record.get("evaluation_result_id")
        if name is not None and results and _scalar(name) not in names:
            yield Finding(
                (i, "evaluation_name"),
                f"no result of the aggregate is named {name!r}",
                group="evaluation_name",
            )
        if rid is not None and ids and _scalar(rid) not in ids:
            yield Finding(
                (i, "evaluation_result_id"),
                f"no result of the aggregate has evaluation_result_id {rid!r}",
                group="evaluation_result_id",
            )


def _scalar(value: object) -> object:
    """A value that can be looked up in a set; a list or mapping (a mistake the schema reports)
    stands for itself by its text."""
    return value if value is None or isinstance(value, str | int | float | bool) else repr(value)


def canonical_sample_hash(record: dict[str, object]) -> str | None:
    """EEE's canonical hash of a record's input; None when it has no `input` object. Asked
    first, and alone for the common record whose hash is canonical: the legacy recipes cost
    three more hashes and a JSON dump."""
    source = record.get("input")
    if not isinstance(source, dict):
        return None
    text = input_text(source.get("raw"), source.get("reference"))
    digest: str = _sha256()(text.encode("utf-8", "surrogatepass")).hexdigest()
    return digest


def input_text(raw: object, reference: object) -> str:
    """The canonical JSON text of `{"raw": raw, "reference": reference}`. The common input, a
    string and a list of strings, is written directly with json's own C escaper for each
    string (a third of the general encoder's cost a record); any other, by that encoder."""
    if type(raw) is str and type(reference) is list:
        escape = _escaper()
        with contextlib.suppress(TypeError):  # an item that is no string: the encoder's case
            return f'{{"raw":{escape(raw)},"reference":[{",".join(map(escape, reference))}]}}'
    return _canonical_json()({"raw": raw, "reference": reference})


@functools.cache
def _sha256() -> Callable[[bytes], Any]:
    """hashlib's sha256, imported on first use: a one-file run of other kinds never needs it."""
    from hashlib import sha256

    return sha256


@functools.cache
def _escaper() -> Callable[[str], str]:
    """`json.dumps`' escaping of a string with `ensure_ascii` (its default), quotes included."""
    from json import encoder

    return encoder.encode_basestring_ascii


@functools.cache
def _canonical_json() -> Callable[[object], str]:
    """`json.dumps(value, sort_keys=True, separators=(",", ":"))`, the same text, with the C
    encoder made once: `dumps` builds an encoder per call, which was most of a record's
    check (4.8 us of 6.7; 1.3 us so). A test holds it to `dumps` on any JSON value."""
    import json
    from json import encoder

    make = getattr(encoder, "c_make_encoder", None)
    if make is None:  # a Python without the json C accelerator
        return json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode
    basic = json.JSONEncoder()
    # (markers, default, encoder, indent, key and item separators, sort_keys, skipkeys,
    # allow_nan): dumps' defaults, but no markers, as parsed data holds no cycle.
    make_text = make(
        None, basic.default, encoder.encode_basestring_ascii, None, ":", ",", True, False, True
    )
    return lambda value: "".join(make_text(value, 0))


def sample_hashes(record: dict[str, object]) -> dict[str, str]:
    """The hash each known recipe gives; the first is EEE's canonical one."""
    import hashlib
    import json

    canonical = canonical_sample_hash(record)
    source = record.get("input")
    if canonical is None or not isinstance(source, dict):
        return {}
    raw, reference = source.get("raw"), source.get("reference")
    refs = reference if isinstance(reference, list) else [reference] if reference else []
    payload = {"raw": raw, "reference": reference}
    text = {
        "lm_eval (default separators)": json.dumps(payload, sort_keys=True),
        "inspect (raw + references)": f"{raw}{''.join(str(r) for r in refs)}",
        "HELM (raw + first reference)": f"{raw}{refs[0] if refs else ''}",
    }
    legacy = {
        name: hashlib.sha256(t.encode("utf-8", "surrogatepass")).hexdigest()
        for name, t in text.items()
    }
    return {"canonical": canonical, **legacy}


@rule("eee-sample-hash", Severity.WARNING, kinds=(eee.INSTANCE,))
def eee_sample_hash(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A record's `sample_hash` is not EEE's canonical hash of its input.

    The canonical recipe is the sha256 of `{"raw": input.raw, "reference": input.reference}` as
    JSON with sorted keys and no spaces. Converters have used other recipes; a mismatch names
    the one that matches, so samples can still be joined across runs once it is fixed.

    Bad (data/samples.jsonl):
        {"schema_version": "0.3.0", "evaluation_id": "e", "model_id": "m", "evaluation_name": "n", "sample_id": "1", "sample_hash": "00", "interaction_type": "single_turn", "input": {"raw": "q", "reference": ["a"]}, "output": {"raw": ["a"]}, "answer_attribution": [], "evaluation": {"score": 1, "is_correct": true}}
    Good (data/samples.jsonl):
        {"schema_version": "0.3.0", "evaluation_id": "e", "model_id": "m", "evaluation_name": "n", "sample_id": "1", "sample_hash": "9956fe955042acc90a5e6c14392567b444513f41083303ae46783a02f0a4a67e", "interaction_type": "single_turn", "input": {"raw": "q", "reference": ["a"]}, "output": {"raw": ["a"]}, "answer_attribution": [], "evaluation": {"score": 1, "is_correct": true}}
    """
    for i, record in enumerate(doc.data if isinstance(doc.data, list) else []):
        declared = record.get("sample_hash") if record.__class__ is dict else None
        if declared.__class__ is not str:
            continue
        canonical = canonical_sample_hash(record)
        if canonical is None or declared == canonical or declared.lower() == canonical:
            continue
        hashes = sample_hashes(record)
        legacy = next((name for name, h in hashes.items() if h == declared.lower()), None)
        why = f"it matches the {legacy} recipe" if legacy else "no known recipe gives it"
        yield Finding(
            (i, "sample_hash"),
            f"sample_hash is not the canonical hash of the "
            f"input ({hashes['canonical'][:12]}...); {why}",
            group=why,
        )


def _envelope_places(doc: Document) -> list[Pointer]:
    """Where eee-envelope-ref looks: every `additional_details`, in a record whose text could
    hold a reference (the walk is skipped for the rest; escapes, `\\u0072` or JSON's `\\/`,
    could spell one)."""
    if not _may_name_versions(doc.text):
        return []
    return [pointer for pointer, _ in additional_details(doc.data, ())]


def _may_name_versions(text: str) -> bool:
    """Whether `text` could hold an ai_eval reference or version map. Both maps' keys and every
    reference spell a namespace ("rubric", "judge"), unless a JSON escape (`\\u0072`, or
    `\\/`) spells it. A one-character test is a memchr, a word costs a scan of its own: each
    namespace is looked for only where its first letter is, escapes only where a backslash is.
    """
    return any(ns[0] in text and ns in text for ns in _NAMESPACES) or (
        "\\" in text and ("\\u" in text or "\\/" in text)
    )


_NAMESPACES = tuple(VERSION_MAPS.values())
assert all(key.startswith(_NAMESPACES) for key in VERSION_MAPS)


@rule(
    "eee-envelope-ref",
    Severity.ERROR,
    kinds=(eee.AGGREGATE,),
    cross_file=True,
    keeps=lambda doc: _envelope_places(doc),
)
def eee_envelope_ref(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A result record names a rubric or judge version the repository does not define.

    When the repository holds ai_eval rubrics and judges, the versions an EEE record says it
    was scored with (`rubric/{id}@{version}` values, or `rubric_versions` / `judge_versions`
    maps, in any `additional_details`) must exist, so the scores can be traced back.

    Given (rubrics/tone.yaml):
        id: tone
        version: "1.0.0"
        checks: [{kind: php_lint, id: lint}]
        scoring: {combine: all_pass}
    Bad (results/data/run/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json):
        {"schema_version": "0.2.1", "evaluation_id": "e", "retrieved_timestamp": "1", "source_metadata": {"source_type": "evaluation_run", "source_organization_name": "o", "evaluator_relationship": "first_party"}, "model_info": {"name": "m", "id": "acme/m"}, "evaluation_results": [], "eval_library": {"name": "ai_eval", "version": "1.0", "additional_details": {"rubric": "rubric/tone@2.0.0"}}}
    Good (results/data/run/acme/m/3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e.json):
        {"schema_version": "0.2.1", "evaluation_id": "e", "retrieved_timestamp": "1", "source_metadata": {"source_type": "evaluation_run", "source_organization_name": "o", "evaluator_relationship": "first_party"}, "model_info": {"name": "m", "id": "acme/m"}, "evaluation_results": [], "eval_library": {"name": "ai_eval", "version": "1.0", "additional_details": {"rubric": "rubric/tone@1.0.0"}}}
    """
    from evallint.refs import parse_ref

    if not any(ctx.project.ids(k.namespace) for k in NAMESPACED if k.namespace):
        return
    for pointer, text in envelope_refs(doc.data):
        ref = parse_ref(text)
        if ref is None:
            yield Finding(pointer, f"{text!r} is not a reference like rubric/<id>@<version>")
            continue
        found = ctx.project.resolve(ref)
        if found.outcome == "unknown-id":
            yield Finding(
                pointer,
                f"the record names {text!r}, but no {ref.namespace} "
                f"{ref.id!r} is defined in this repository",
            )
        elif found.outcome != "ok":
            known = ", ".join(str(d.version) for d in ctx.project.versions(ref.namespace, ref.id))
            yield Finding(
                pointer,
                f"the record names {text!r}, but {ref.namespace} {ref.id!r} has only {known}",
            )
