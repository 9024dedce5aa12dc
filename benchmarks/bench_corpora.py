"""The AgentV corpus (713 files) and the ai_best_practices evals.json corpus, in one run.

    python benchmarks/bench_corpora.py [--shared ../shared]

Times `evallint check` over both (copied into one temporary folder) against the floor of
reading and parsing every YAML and JSON file with PyYAML's C loader and the json module.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import evallint_cmd, timed


def floor(root: Path) -> float:
    started = time.perf_counter()
    for path in root.rglob("*"):
        if path.suffix in (".yaml", ".yml"):
            yaml.load(path.read_bytes(), Loader=yaml.CSafeLoader)
        elif path.suffix == ".json":
            json.loads(path.read_bytes())
    return time.perf_counter() - started


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
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
        ours, _ = timed([*evallint_cmd(), "check", "."], root, runs=5)
        base = floor(root)
        print(f"{files} files (AgentV corpus and evals.json corpus)")
        print(f"evallint check: {ours:.2f} s (best of 5); parse floor: {base:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
