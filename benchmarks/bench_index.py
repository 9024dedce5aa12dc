"""What the project index and cross-file rules add to a full check, on the core benchmark repo.

    python benchmarks/bench_index.py [--datasets 2000] [--questions 50] [--runs 5]

Times, in one process: reading and parsing every file, then building the index (median of
--runs, with the spread); then whole CLI runs with all rules and with only the single-file
core rules, in paired runs, the ratio taken pair by pair: what the cross-file rules add.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import generate
from common import evallint_cmd, paired, spread

from evallint.config import Config
from evallint.engine import index
from evallint.io.source import FsSource
from evallint.project import Entry
from evallint.read import read_entry

CORE = (
    "parse-error,duplicate-key,schema-violation,yaml-implicit-type,unknown-key,key-typo,"
    "unknown-check-kind"
)


def phases(root: Path) -> tuple[float, float]:
    source, config = FsSource(root), Config()
    paths = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.yaml"))
    started = time.perf_counter()
    entries = [e for e in (read_entry(p, source, config) for p in paths) if isinstance(e, Entry)]
    parsed = time.perf_counter() - started
    started = time.perf_counter()
    index.build(entries, paths, source, config)
    return parsed, time.perf_counter() - started


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", type=int, default=2000)
    ap.add_argument("--questions", type=int, default=50)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate(root, args.datasets, args.questions, 200, 50)
        found = [phases(root) for _ in range(args.runs)]
        share = [indexed / parsed for parsed, indexed in found]
        print(
            f"{args.runs} runs: read + parse every file {spread([p for p, _ in found], ' s')}; "
            f"build the index {spread([i * 1000 for _, i in found], ' ms')}; "
            f"index / parsing {spread(share)}"
        )
        full = [*evallint_cmd(), "check", "."]
        walls, _, ratio = paired(full, [*full, "--select", CORE], root, args.runs)
        print(f"evallint check, all rules: {spread(walls, ' s')}")
        print(f"all rules / core rules only, pair by pair: {spread(ratio)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
