"""Shared benchmark helpers: timing whole commands and printing a table."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

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


def evallint_cmd() -> list[str]:
    """The command, with the package's bytecode compiled first, as an install compiles it:
    where writing bytecode is turned off (PYTHONDONTWRITEBYTECODE), every run would otherwise
    compile the package's modules again, a third of a second no installed copy pays."""
    import compileall

    import evallint

    compileall.compile_dir(Path(evallint.__file__).parent, quiet=1)
    return [sys.executable, "-m", "evallint"]


def peer_cmd() -> list[str] | None:
    exe = shutil.which("check-jsonschema")
    return [exe] if exe else None


def paired(
    a: Sequence[str], b: Sequence[str], cwd: Path, runs: int
) -> tuple[list[float], list[float], list[float]]:
    """Wall seconds of `a` and `b` run in turn (A B A B ...) after one warm-up each, and the
    ratio a/b of each pair: a ratio holds when the machine's speed drifts between pairs."""

    def wall(cmd: Sequence[str]) -> float:
        started = time.perf_counter()
        subprocess.run(list(cmd), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - started

    wall(a), wall(b)
    walls_a, walls_b = [], []
    for _ in range(runs):
        walls_a.append(wall(a))
        walls_b.append(wall(b))
    return walls_a, walls_b, [x / y for x, y in zip(walls_a, walls_b, strict=True)]


def spread(values: Sequence[float], unit: str = "") -> str:
    """'median (min to max)' of a figure over runs."""

    def fmt(v: float) -> str:
        return f"{v:.2f}{unit}" if unit else f"{v:.3f}"

    return f"{fmt(statistics.median(values))} ({fmt(min(values))} to {fmt(max(values))})"
