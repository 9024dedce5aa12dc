"""The AgentV corpus (713 files) and the ai_best_practices evals.json corpus, in one run.

    python benchmarks/bench_corpora.py [--shared ../shared] [--runs 5]

Times `evallint check` over both (copied into one temporary folder) against the floor of
reading and parsing every YAML and JSON file with PyYAML's C loader and the json module (a
process of its own), in paired runs: medians with their spread, ratios pair by pair.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import evallint_cmd, paired, spread

# The floor, as a whole process like evallint: read and parse every YAML and JSON file.
FLOOR = """
import json, pathlib, sys, yaml
for path in pathlib.Path(sys.argv[1]).rglob("*"):
    if path.suffix in (".yaml", ".yml") and path.is_file():
        yaml.load(path.read_bytes(), Loader=yaml.CSafeLoader)
    elif path.suffix == ".json" and path.is_file():
        json.loads(path.read_bytes())
"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    corpus = args.shared / "corpus"
    if not corpus.is_dir():
        print(f"no corpus at {corpus}: pass --shared")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        shutil.copytree(corpus / "agentv", root / "agentv")
        shutil.copytree(corpus / "drupal", root / "drupal")
        files = sum(1 for p in root.rglob("*") if p.is_file())
        ours = [*evallint_cmd(), "check", "."]
        walls, floor, ratio = paired(ours, [sys.executable, "-c", FLOOR, "."], root, args.runs)
        print(f"{files} files (AgentV corpus and evals.json corpus), {args.runs} paired runs")
        print(f"evallint {spread(walls, ' s')}; parse floor {spread(floor, ' s')}")
        print(f"evallint / floor: {spread(ratio)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
