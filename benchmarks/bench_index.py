"""What the project index and cross-file rules add to a full check, on the core benchmark repo.

    python benchmarks/bench_index.py [--datasets 2000] [--questions 50]

Times, in one process: reading and parsing every file, building the index, and running the
rules (all rules, then only the single-file core rules); then whole CLI runs both ways.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import generate
from common import evallint_cmd, timed

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
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate(root, args.datasets, args.questions, 200, 50)
        parsed, indexed = phases(root)
        full, _ = timed([*evallint_cmd(), "check", "."], root, runs=3)
        core, _ = timed([*evallint_cmd(), "check", ".", "--select", CORE], root, runs=3)
        print(
            f"read + parse every file: {parsed:.2f} s; build the index: {indexed * 1000:.0f} ms "
            f"({indexed / parsed:.1%} of parsing)"
        )
        print(
            f"evallint check, all rules: {full:.2f} s; core rules only: {core:.2f} s; "
            f"cross-file work adds {(full - core) / core:.0%}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
