"""Input a pull request controls: the cost must stay linear, whatever the file says.

    python benchmarks/bench_hostile.py [--rubrics 2400] [--records 100000] [--runs 5]

- a chain of --rubrics composite rubrics, each including the next, and the same rubrics in
  one cycle (every rubric on it gets a finding): wall time and peak memory of
  `evallint check --format json`, the median of --runs, with the JSON output's size;
- --records EEE instance records with their canonical `sample_hash`, against the same records
  without one, in paired runs: what checking the hash costs.

Each figure is a median with its spread; the targets are under 2 s and 200 MiB a case.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_eee import SAMPLE
from common import evallint_cmd, paired, spread, with_peak_memory


def composites(root: Path, n: int, cycle: bool) -> None:
    """n rubrics, r{i} including r{i+1}; the last includes the first when `cycle`."""
    (root / "rubrics").mkdir(parents=True)
    for i in range(n):
        last = i == n - 1 and not cycle
        check = (
            "{kind: php_lint, id: lint}"
            if last
            else f"{{kind: composite, id: part, rubric_ref: rubric/r{(i + 1) % n}@1.0.0}}"
        )
        text = f'id: r{i}\nversion: "1.0.0"\nchecks: [{check}]\nscoring: {{combine: min}}\n'
        (root / "rubrics" / f"r{i}.yaml").write_text(text)


def records(path: Path, n: int, hashed: bool) -> None:
    with path.open("w") as f:
        for i in range(n):
            record = {**SAMPLE, "sample_id": str(i)}
            record["input"] = {"raw": f"What is {i} + 2?", "reference": [str(i + 2)]}
            if hashed:
                canonical = json.dumps(record["input"], sort_keys=True, separators=(",", ":"))
                record["sample_hash"] = hashlib.sha256(canonical.encode()).hexdigest()
            f.write(json.dumps(record) + "\n")


def composite_rows(tmp: Path, n: int, runs: int) -> None:
    print(f"| {n:,} composite rubrics | wall | peak memory | JSON output |")
    print("|---|---|---|---|")
    for name, cycle in (("a chain", False), ("a cycle", True)):
        root = tmp / name.replace(" ", "_")
        composites(root, n, cycle)
        cmd = [*evallint_cmd(), "check", "--no-cache", "--format", "json", "--exit-zero", "."]
        seen = [with_peak_memory(cmd, root) for _ in range(runs)]
        out = subprocess.run(cmd, cwd=root, capture_output=True, check=True).stdout
        walls, peaks = [s[0] for s in seen], [s[1] for s in seen]
        print(
            f"| {name} | {spread(walls, ' s')} | {spread(peaks, ' MB')} | {len(out) / 1e6:.1f} MB |"
        )


def hash_row(tmp: Path, n: int, runs: int) -> None:
    hashed, bare = tmp / "h_samples.jsonl", tmp / "b_samples.jsonl"
    records(hashed, n, True)
    records(bare, n, False)
    check = [*evallint_cmd(), "check", "--no-cache", "--exit-zero"]
    with_hash, without, ratio = paired([*check, hashed.name], [*check, bare.name], tmp, runs)
    rate = sorted(n / s for s in with_hash)[len(with_hash) // 2]
    print(f"\n{n:,} EEE instance records; median (min to max) of {runs} paired runs")
    print("| with canonical sample_hash | without | ratio | records/s with |")
    print("|---|---|---|---|")
    print(
        f"| {spread(with_hash, ' s')} | {spread(without, ' s')} | {spread(ratio)}x | {rate:,.0f} |"
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rubrics", type=int, default=2400)
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        composite_rows(Path(tmp), args.rubrics, args.runs)
        hash_row(Path(tmp), args.records, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
