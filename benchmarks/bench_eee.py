"""The EEE v0.2.0 datastore (5,320 aggregate records) and a large instance JSONL, in one run.

    python benchmarks/bench_eee.py [--shared ../shared] [--records 1000000] [--runs 5]

Times `evallint check` (all rules) against check-jsonschema with EEE's own 0.2.0 schema on the
same files, and against the floor of reading and parsing each file with the json module (a
process of its own, as the others are), in paired runs: each figure is a median with its
spread, and each ratio is taken pair by pair. Then peak memory on the datastore copied 1, 2
and 4 times (each copy's evaluation ids made its own, so the copies are distinct records), with
one job and with two (median of --runs). Then generates an instance file of --records lines
and reports records per second, beside the floor of parsing each line with json.loads.
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
from common import evallint_cmd, paired, peer_cmd, spread, with_peak_memory

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


# The floor, as a whole process like the others: read and parse every record with json.loads.
FLOOR = """
import json, os, sys
for folder, _, names in os.walk(sys.argv[1]):
    for name in names:
        if name.endswith(".json"):
            with open(os.path.join(folder, name), "rb") as f:
                json.loads(f.read())
"""


def datastore(shared: Path, runs: int) -> None:
    """Paired runs: evallint against the parse floor, then against check-jsonschema."""
    source = shared / "corpus" / "eee" / "datastore-v0.2.0"
    schema = shared / "corpus" / "eee" / "schema" / "eval.schema.0.2.0.json"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "store"
        shutil.copytree(source, root)
        files = sorted(str(p.relative_to(root)) for p in root.rglob("*.json") if p.is_file())
        ours = [*evallint_cmd(), "check", "."]
        walls, floor, ratio = paired(ours, [sys.executable, "-c", FLOOR, "."], root, runs)
        print(f"{len(files)} EEE records, {runs} paired runs (median, min to max)")
        print(f"evallint {spread(walls, ' s')}; parse floor {spread(floor, ' s')}")
        print(f"evallint / floor: {spread(ratio)}")
        peer = peer_cmd()
        if peer:
            theirs = [*peer, "--schemafile", str(schema), *files]
            walls, _, ratio = paired(theirs, ours, root, runs)
            print(f"check-jsonschema with EEE's 0.2.0 schema: {spread(walls, ' s')}")
            print(f"check-jsonschema / evallint: {spread(ratio)}")


def scaled(shared: Path, runs: int) -> None:
    """Peak memory of a full check as the tree grows: it should stay flat."""
    import statistics

    source = shared / "corpus" / "eee" / "datastore-v0.2.0"
    with tempfile.TemporaryDirectory() as tmp:
        rows: list[str] = []
        medians: dict[tuple[int, str], float] = {}
        for times in (1, 2, 4):
            root = Path(tmp) / f"x{times}"
            for k in range(times):
                copy = root / f"c{k}"
                shutil.copytree(source, copy)
                for path in copy.rglob("*.json") if k else ():
                    if path.is_file():
                        raw = path.read_bytes()
                        for sep in (b'"evaluation_id": "', b'"evaluation_id":"'):
                            raw = raw.replace(sep, sep + f"c{k}-".encode(), 1)
                        path.write_bytes(raw)
            cells = []
            for jobs in ("1", "2"):
                cmd = [*evallint_cmd(), "check", ".", "--jobs", jobs, "--exit-zero"]
                peaks = [with_peak_memory(cmd, root)[1] for _ in range(runs)]
                medians[times, jobs] = statistics.median(peaks)
                cells.append(f"{medians[times, jobs]:.1f} MB ({min(peaks):.1f}-{max(peaks):.1f})")
            rows.append(f"| {times}x ({5320 * times:,} records) | {cells[0]} | {cells[1]} |")
    print("| datastore | peak memory, --jobs 1 | --jobs 2 |\n|---|---|---|")
    print("\n".join(rows))
    growth = [f"{medians[4, j] / medians[1, j]:.2f}x with --jobs {j}" for j in ("1", "2")]
    print(f"4x against 1x (medians): {', '.join(growth)}")


def instances(records: int, runs: int) -> None:
    """One file of `records` instance records, streamed: evallint and the floor (reading and
    parsing each line with `json.loads`) in turn, `runs` times; median and spread of each."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "records.jsonl"
        with path.open("w") as out:
            for i in range(records):
                out.write(json.dumps({**SAMPLE, "sample_id": str(i)}) + "\n")
        size = path.stat().st_size
        walls, peaks, floors = [], [], []
        for _ in range(runs):
            wall, peak = with_peak_memory([*evallint_cmd(), "check", "records.jsonl"], Path(tmp))
            walls.append(wall)
            peaks.append(peak)
            started = time.perf_counter()
            with path.open("rb") as f:
                for line in f:
                    json.loads(line)
            floors.append(time.perf_counter() - started)

        def rate(seconds: list[float]) -> str:
            per = sorted(records / s for s in seconds)
            return f"{per[len(per) // 2]:,.0f} ({per[0]:,.0f} to {per[-1]:,.0f})"

        print(
            f"{records:,} instance records ({size / 1e6:,.0f} MB file, streamed), {runs} runs: "
            f"evallint {rate(walls)} records/s, {spread(walls, ' s')}, peak memory "
            f"{spread(peaks, ' MB')}; json.loads per line in the same runs "
            f"{rate(floors)} records/s"
        )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    if (args.shared / "corpus" / "eee").is_dir():
        datastore(args.shared, args.runs)
        scaled(args.shared, args.runs)
    instances(args.records, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
