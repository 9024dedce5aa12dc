"""The EEE v0.2.0 datastore (5,320 aggregate records) and a large instance JSONL, in one run.

    python benchmarks/bench_eee.py [--shared ../shared] [--records 1000000]

Times `evallint check` (all rules) against check-jsonschema with EEE's own 0.2.0 schema on the
same files, and against the floor of reading and parsing each file with the json module. Then
generates an instance file of --records lines and reports records per second, beside the floor
of parsing each line with json.loads.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import evallint_cmd, peer_cmd, timed, with_peak_memory

SAMPLE = {
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


def _parse_all(root: Path, files: list[str]) -> float:
    started = time.perf_counter()
    for name in files:
        json.loads((root / name).read_bytes())
    return time.perf_counter() - started


def datastore(shared: Path) -> None:
    """Best of three runs each: evallint, the parse floor, check-jsonschema."""
    source = shared / "corpus" / "eee" / "datastore-v0.2.0"
    schema = shared / "corpus" / "eee" / "schema" / "eval.schema.0.2.0.json"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "store"
        shutil.copytree(source, root)
        files = sorted(str(p.relative_to(root)) for p in root.rglob("*.json") if p.is_file())
        ours, _ = timed([*evallint_cmd(), "check", "."], root, runs=3)
        floor = min(_parse_all(root, files) for _ in range(3))
        print(
            f"{len(files)} EEE records: evallint {ours:.2f} s; parse floor {floor:.2f} s "
            f"({ours / floor:.1f}x the floor)"
        )
        peer = peer_cmd()
        if peer:
            theirs, _ = timed([*peer, "--schemafile", str(schema), *files], root, runs=3)
            print(
                f"check-jsonschema with EEE's 0.2.0 schema: {theirs:.2f} s "
                f"({theirs / ours:.1f}x slower than evallint)"
            )


def instances(records: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "records.jsonl"
        with path.open("w") as out:
            for i in range(records):
                out.write(json.dumps({**SAMPLE, "sample_id": str(i)}) + "\n")
        size = path.stat().st_size
        ours, peak = with_peak_memory([*evallint_cmd(), "check", "records.jsonl"], Path(tmp))
        started = time.perf_counter()
        with path.open("rb") as f:
            for line in f:
                json.loads(line)
        floor = time.perf_counter() - started
        print(
            f"{records:,} instance records: evallint {records / ours:,.0f} records/s "
            f"({ours:.2f} s, {size / 1e6:,.0f} MB file, streamed, peak memory {peak:,.0f} MB); "
            f"json.loads per line {records / floor:,.0f} records/s"
        )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    ap.add_argument("--records", type=int, default=1_000_000)
    args = ap.parse_args()
    if (args.shared / "corpus" / "eee").is_dir():
        datastore(args.shared)
    instances(args.records)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
