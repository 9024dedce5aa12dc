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
