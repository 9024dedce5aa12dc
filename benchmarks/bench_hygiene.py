"""The hygiene group's cost: bench_core's generated ai_eval tree (100,000 questions by default),
checked with every rule against every rule but the `hygiene` group, in paired runs.

    python benchmarks/bench_hygiene.py [--datasets 2000] [--questions 50] [--runs 7]

The goal: at most 1.2x the run without the group.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import generate
from common import evallint_cmd, paired, spread


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", type=int, default=2000)
    ap.add_argument("--questions", type=int, default=50)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate(root, args.datasets, args.questions, 200, 50)
        print(f"{args.datasets * args.questions} questions in {args.datasets} datasets")
        check = [*evallint_cmd(), "check", "--no-cache", "."]
        walls, without, ratio = paired(check, [*check, "--ignore", "hygiene"], root, args.runs)
        print(f"{args.runs} paired runs (median, min to max), ratios pair by pair")
        print(f"all rules {spread(walls, ' s')}; without hygiene {spread(without, ' s')}")
        print(f"with / without: {spread(ratio)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
