"""Shared benchmark helpers: timing whole commands and printing a table."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path


def timed(cmd: Sequence[str], cwd: Path, *, runs: int = 1) -> tuple[float, int]:
    """Best wall time in seconds over `runs`, and the last exit code."""
    best, code = float("inf"), 0
    for _ in range(runs):
        started = time.perf_counter()
        code = subprocess.run(
            list(cmd), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
        ).returncode
        best = min(best, time.perf_counter() - started)
    return best, code


_PROBE = """
import resource, subprocess, sys, time
started = time.perf_counter()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(time.perf_counter() - started, peak)
"""


def with_peak_memory(cmd: Sequence[str], cwd: Path) -> tuple[float, float]:
    """Wall seconds and peak resident memory (MB, the largest process) of one run, measured
    from a fresh process so earlier runs do not count."""
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, *cmd], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.split()
    return float(out[0]), float(out[1]) / 1024  # ru_maxrss is in KiB on Linux


def median_wall(cmd: Sequence[str], cwd: Path, runs: int) -> float:
    walls = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(list(cmd), cwd=cwd, stdout=subprocess.DEVNULL, check=False)
        walls.append(time.perf_counter() - started)
    return statistics.median(walls)


def evallint_cmd() -> list[str]:
    return [sys.executable, "-m", "evallint"]


def peer_cmd() -> list[str] | None:
    exe = shutil.which("check-jsonschema")
    return [exe] if exe else None


def table(rows: Sequence[tuple[str, str, str]]) -> str:
    out = ["| run | wall | vs evallint |", "|---|---|---|"]
    out += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return "\n".join(out)
