"""The hygiene group's cost: bench_core's generated ai_eval tree (100,000 questions by default),
or as many Every Eval Ever instance records (multiple-choice samples, `--eee`), checked with
every rule against every rule but the `hygiene` group, in paired runs.

    python benchmarks/bench_hygiene.py [--datasets 2000] [--questions 50] [--runs 7] [--eee]

The goal: at most 1.2x the run without the group.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import generate
from common import evallint_cmd, paired, spread


def eee(root: Path, files: int, records: int) -> None:
    """`files` instance files of `records` multiple-choice samples each, every input its own."""
    (root / "results").mkdir()
    for f in range(files):
        lines = []
        for r in range(records):
            given = {"raw": f"Question {f}-{r}: which is it?", "reference": ["b"]}
            given["choices"] = ["a", "b", "c", "d"]
            record = {
                "schema_version": "0.2.2",
                "evaluation_id": f"bench/{f}",
                "model_id": "org/model",
                "evaluation_name": "bench",
                "sample_id": f"s{r}",
                "interaction_type": "single_turn",
                "input": given,
                "output": {"raw": ["b"]},
                "answer_attribution": [],
                "evaluation": {"score": 1.0, "is_correct": True},
            }
            lines.append(json.dumps(record))
        (root / "results" / f"run-{f}.jsonl").write_text("\n".join(lines) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", type=int, default=2000)
    ap.add_argument("--questions", type=int, default=50)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--eee", action="store_true", help="EEE instance records, not ai_eval")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if args.eee:
            eee(root, args.datasets // 100, args.questions * 100)
            print(f"{args.datasets * args.questions} EEE records in {args.datasets // 100} files")
        else:
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
