"""Large JSONL files are checked in chunks: the same diagnostics as one whole document."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

import pytest

from evallint import read
from evallint.config import Config
from evallint.engine.run import lint
from evallint.io.source import FsSource
from evallint.model import Diagnostic
from test_eee import MINIMAL_0_2_0

FOLDER = "data/bench/acme/m"
UUID = "3f2b1c9e-1d2a-4b3c-8d4e-5f6a7b8c9d0e"
RECORD = {
    "schema_version": "0.3.0",
    "evaluation_id": "bench/acme_m/1760000000",
    "model_id": "acme/m",
    "evaluation_name": "bench",
    "sample_id": "0",
    "interaction_type": "single_turn",
    "input": {"raw": "What is 2 + 2?", "reference": ["4"]},
    "output": {"raw": ["4"]},
    "answer_attribution": [],
    "evaluation": {"score": 1.0, "is_correct": True},
}


def sample(ident: str, base: Mapping[str, object] = RECORD, **more: object) -> dict[str, object]:
    """An instance record of its own sample: its id, and an input no other sample asks (the
    hygiene rules report a question asked twice)."""
    given = base["input"]
    assert isinstance(given, dict)
    return {**base, "sample_id": ident, "input": {**given, "raw": f"Sample {ident}?"}, **more}


def _lines(count: int) -> list[str]:
    """Records with problems spread over the file: some far apart, some repeated."""
    out = []
    for i in range(count):
        record: dict[str, object] = sample(str(i))
        if i % 7 == 3:
            record["evaluation"] = {"score": "high", "is_correct": True}  # schema
        if i % 11 == 5:
            record["model_id"] = "acme/other"  # not the aggregate's
        if i % 13 == 0:
            record["sample_hash"] = f"{i:064x}"  # no recipe gives it
        if i == 40:
            record["schema_version"] = "9"
        if i == 395:
            record["interaction_type"] = "single"
        out.append(json.dumps(record))
    out[50] = '{"sample_id": "broken",'
    out[100] = ""
    return out


def _store(root: Path, lines: list[str]) -> None:
    folder = root / FOLDER
    folder.mkdir(parents=True)
    raw = ("\n".join(lines) + "\n").encode()
    (folder / f"{UUID}_samples.jsonl").write_bytes(raw)
    aggregate = {
        **MINIMAL_0_2_0,
        "evaluation_id": RECORD["evaluation_id"],
        "detailed_evaluation_results": {
            "format": "jsonl",
            "file_path": f"{FOLDER}/{UUID}_samples.jsonl",
            "hash_algorithm": "sha256",
            "checksum": hashlib.sha256(raw).hexdigest(),
            "total_rows": sum(1 for line in lines if line.strip()),
        },
    }
    (folder / f"{UUID}.json").write_text(json.dumps(aggregate, indent=2))


def _check(root: Path, jobs: int = 1) -> list[tuple[Diagnostic, str]]:
    paths = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    report = lint(paths, FsSource(root), Config(), tree=paths, jobs=jobs)
    return [(d, d.fingerprint) for d in report.diagnostics]


def test_a_file_checked_in_chunks_reports_what_the_whole_file_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _store(tmp_path, _lines(400))
    whole = _check(tmp_path)
    monkeypatch.setattr(read, "CHUNK", 4096)  # about 12 records a chunk, 30-odd chunks
    monkeypatch.setattr(read, "FIRST", 1024)
    streamed = _check(tmp_path)
    assert streamed == whole
    assert _check(tmp_path, jobs=2) == whole  # the worker that reads a file streams it
    rules = {d.rule for d, _ in whole}
    assert rules >= {
        "parse-error",
        "schema-violation",
        "eee-instance-ids",
        "eee-sample-hash",
        "eee-schema-version",
    }
    # Records after the bad line are still checked, at their own lines.
    late = [(d.span.line, d.span.column) for d, _ in whole if "'single' is not" in d.message]
    assert late == [(396, 163)]
    capped = [d.text for d, _ in whole if d.more]
    assert any("(26 more like this in this file not shown)" in m for m in capped)
    assert not [d for d, _ in whole if d.rule in ("eee-checksum", "eee-total-rows")]


def test_a_streamed_file_without_its_aggregate_is_reported_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _store(tmp_path, _lines(200))
    (tmp_path / FOLDER / f"{UUID}.json").unlink()
    monkeypatch.setattr(read, "CHUNK", 4096)
    monkeypatch.setattr(read, "FIRST", 1024)
    found = [d for d, _ in _check(tmp_path) if d.rule == "eee-companion"]
    assert [(d.span.line, d.span.column) for d in found] == [(1, 1)]


def test_the_companion_is_hashed_and_counted_in_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [json.dumps(sample(str(i))) for i in range(50)]
    _store(tmp_path, lines)
    monkeypatch.setattr(read, "MiB", 100)  # blocks end mid-line
    assert _check(tmp_path) == []
    (tmp_path / FOLDER / f"{UUID}_samples.jsonl").write_text("\n".join(lines[:-1]) + "\n\n")
    found = [(d.span.line, d.span.column, d.rule, d.message) for d, _ in _check(tmp_path)]
    messages = [f[3] for f in found]
    assert "the companion file has 49 records, not 50" in messages
    assert any(m.startswith("the sha256 of the companion file is ") for m in messages)
    # On the aggregate's values, as json.dumps(indent=2) lays them out.
    assert [f[:3] for f in found] == [(19, 17, "eee-checksum"), (20, 19, "eee-total-rows")]


def test_a_line_over_max_file_size_ends_the_read_with_a_parse_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [json.dumps(sample(str(i))) for i in range(60)]
    lines[30] = json.dumps(sample("x" * 5000))
    _store(tmp_path, lines)
    monkeypatch.setattr(read, "CHUNK", 1024)
    monkeypatch.setattr(read, "FIRST", 512)
    paths = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    report = lint(paths, FsSource(tmp_path), Config(max_file_size=4096), tree=paths, jobs=1)
    errors = [
        (d.span.line, d.span.column, d.rule, d.message)
        for d in report.diagnostics
        if d.path.endswith("l")
    ]
    assert errors == [
        (
            31,
            1,
            "parse-error",
            "line 31 is over max-file-size (4,096 bytes); the rest of the file is not read",
        )
    ]


def test_a_bad_byte_in_a_later_chunk_is_at_its_offset_in_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [line.encode() for line in _lines(400)]
    lines[300] = b'{"sample_id": "\xff"}'
    folder = tmp_path / FOLDER
    folder.mkdir(parents=True)
    raw = b"\n".join(lines) + b"\n"
    (folder / f"{UUID}_samples.jsonl").write_bytes(raw)
    bad = raw.index(b"\xff")
    expected = f"not valid UTF-8: byte 0xff at offset {bad}"
    whole = [d for d, _ in _check(tmp_path) if "UTF-8" in d.message]
    monkeypatch.setattr(read, "CHUNK", 4096)
    streamed = [d for d, _ in _check(tmp_path) if "UTF-8" in d.message]
    assert [(d.span.line, d.span.column, d.message) for d in whole] == [(301, 16, expected)]
    assert streamed == whole


def test_a_question_asked_again_chunks_later_is_found_at_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hygiene rules carry one number an input from chunk to chunk: a repeat far down the
    file is reported where the whole file reports it, naming the first's line."""
    lines = [json.dumps(sample(str(i))) for i in range(300)]
    lines[250] = json.dumps(sample("250", input={"raw": "Sample 7?", "reference": ["4"]}))
    lines[260] = json.dumps(sample("260", input={"raw": "sample 8", "reference": ["4"]}))
    _store(tmp_path, lines)

    def found() -> list[tuple[int, str, str]]:
        return [
            (d.span.line, d.rule, d.message)
            for d, _ in _check(tmp_path)
            if d.rule == "duplicate-input"
        ]

    whole = found()
    assert whole == [
        (251, "duplicate-input", "the same input as '7' (line 8): the question counts twice"),
        (261, "duplicate-input", "the same input as '8' (line 9): the question counts twice"),
    ]
    monkeypatch.setattr(read, "CHUNK", 4096)
    monkeypatch.setattr(read, "FIRST", 1024)
    assert found() == whole
