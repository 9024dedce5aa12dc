"""One file, pre-commit's case: in a small repository, and in a 2,250-file tree.

    python benchmarks/bench_one.py [--runs 9]

Paired runs (median, with the spread, ratios pair by pair) of `evallint check` on one dataset:
- in the 2,250-file tree of `bench_core.py` (a git repository; the cache warmed by one run)
  against the same file in a repository that holds it alone: what the rest of the tree costs;
- in that small repository against `python -c pass`: what starting evallint costs (the file
  names rubrics the small repository does not hold: 50 findings);
- a small, clean JSON dataset in that repository against `python -c pass`: no PyYAML, nothing
  to report.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import generate
from bench_diff import git, settle
from common import evallint_cmd, paired, spread

FILE = "datasets/set_0.yaml"
CLEAN = "datasets/clean.json"
CLEAN_TEXT = (
    '{"id": "clean", "version": "1.0.0", "questions": '
    '[{"id": "q1", "input": "Summarise release 4.2.", "expected": {"format": "text"}}]}\n'
)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tree, small = Path(tmp) / "tree", Path(tmp) / "small"
        generate(tree, 2000, 50, 200, 50)
        git(tree, "init", "-q", "-b", "main")
        git(tree, "add", "-A")
        git(tree, "commit", "-qm", "base")
        time.sleep(1)  # the index must be newer than every file (see `settle`)
        settle(tree)
        (small / "datasets").mkdir(parents=True)
        shutil.copy(tree / FILE, small / FILE)
        (small / CLEAN).write_text(CLEAN_TEXT)
        git(small, "init", "-q", "-b", "main")
        check = [*evallint_cmd(), "check", "--exit-zero"]
        subprocess.run([*check, FILE], cwd=tree, capture_output=True, check=True)  # warm
        in_tree, alone, ratio = paired([*check, FILE], [*check, str(small / FILE)], tree, args.runs)
        start, floor, start_ratio = paired(
            [*check, FILE], [sys.executable, "-c", "pass"], small, args.runs
        )
        clean, clean_floor, clean_ratio = paired(
            [*check, CLEAN], [sys.executable, "-c", "pass"], small, args.runs
        )
    print(f"one file; median (min to max) of {args.runs} paired runs")
    print("| run | evallint | against | ratio |\n|---|---|---|---|")
    print(
        f"| one file in the 2,250-file tree, warm cache | {spread(in_tree, ' s')} | "
        f"the same file alone: {spread(alone, ' s')} | {spread(ratio)}x |"
    )
    print(
        f"| one file in a small repository | {spread(start, ' s')} | "
        f"`python -c pass`: {spread(floor, ' s')} | {spread(start_ratio)}x |"
    )
    print(
        f"| a clean JSON dataset in a small repository | {spread(clean, ' s')} | "
        f"`python -c pass`: {spread(clean_floor, ' s')} | {spread(clean_ratio)}x |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
