"""A partial run costs what the change costs: 3 changed files in trees of growing size.

    python benchmarks/bench_diff.py [--files 2000 20000 100000] [--runs 5]

For each tree size, in paired runs (median, with the spread, ratios pair by pair):
- `check --diff main` with a warm cache, against the floor: the same 3 files checked in a
  repository that holds nothing else (`--no-cache`), which is the cost of the change alone;
- `check --diff main` with a cold cache (removed before each run), against the same floor;
- the 3 files named on the command line in the full tree (pre-commit's shape), warm;
- git alone saying what changed (`git diff --name-status main` beside the untracked walk, as
  a --diff run starts them), against the same floor: what any tool that asks git pays.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import judge, question, rubric
from common import evallint_cmd, paired, spread

SETTLE = 15  # seconds to wait before timing, once a tree is made and its cache written
CHANGED = ["datasets/set_0.yaml", "datasets/set_1.yaml", "rubrics/rubric_0.yaml"]


def generate(root: Path, files: int) -> None:
    import random

    rng = random.Random(11)
    rubrics, judges = files // 12, files // 50
    datasets = files - rubrics - judges
    for sub in ("datasets", "rubrics", "judges"):
        (root / sub).mkdir(parents=True)
    for i in range(rubrics):
        (root / "rubrics" / f"rubric_{i}.yaml").write_text(rubric(i, judges))
    for i in range(judges):
        (root / "judges" / f"judge_{i}.yaml").write_text(judge(i))
    for d in range(datasets):
        body = "".join(question(rng, d, q, rubrics) for q in range(5))
        (root / "datasets" / f"set_{d}.yaml").write_text(f"id: set_{d}\nquestions:\n{body}")


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=b@example.com", "-c", "user.name=bench", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def settle(root: Path) -> None:
    """Refresh git's index as any `git status` does. Files written in the second the index was
    written are "racily clean": until the index is written again, every `ls-files --modified`
    reads them whole to compare (70 ms a run in a fresh 2,250-file tree). A working copy that
    has seen one `git status` is not like that, and these runs measure that one."""
    git(root, "status", "--porcelain")


def edit(root: Path) -> None:
    for path in CHANGED:  # a tags edit: not score-affecting, but a real change
        text = (root / path).read_text()
        (root / path).write_text(text.replace("\n", "\ntags: [edited]\n", 1))


def alone(root: Path, tree: Path) -> list[Path]:
    """The changed files in a repository of their own."""
    for path in CHANGED:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(tree / path, root / path)
    git(root, "init", "-q", "-b", "main")
    return [root / p for p in CHANGED]


def measure(files: int, runs: int, tmp: Path) -> list[str]:
    tree = tmp / f"tree{files}"
    tree.mkdir()
    generate(tree, files)
    git(tree, "init", "-q", "-b", "main")
    git(tree, "add", "-A")
    git(tree, "commit", "-qm", "base")
    git(tree, "checkout", "-qb", "feature")
    edit(tree)
    time.sleep(1)  # the index must be newer than every file (see `settle`)
    settle(tree)
    floor = [*evallint_cmd(), "check", "--no-cache", *map(str, alone(tmp / f"alone{files}", tree))]
    diff = [*evallint_cmd(), "check", "--diff", "main"]
    cold = ["sh", "-c", 'rm -rf .evallint_cache && exec "$@"', "-", *diff]
    named = [*evallint_cmd(), "check", *CHANGED]
    # Warm: the first run at this base fills the cache, the next writes the memo of the base's
    # tree (`paired` makes one more run before it times any). Then the system writes the new
    # files out (a fresh tree's 100,000 files, the cache's 35 MB) and settles: in the first ten
    # seconds after a tree of 100,000 files is made, `git diff` alone takes 0.11 s, not 0.07.
    subprocess.run(diff, cwd=tree, check=False, capture_output=True)
    subprocess.run(diff, cwd=tree, check=False, capture_output=True)
    os.sync()
    time.sleep(SETTLE)
    warm_w, floor_w, warm_r = paired(diff, floor, tree, runs)
    cold_w, _, cold_r = paired(cold, floor, tree, runs)
    named_w, _, named_r = paired(named, floor, tree, runs)
    asked = "git diff --name-status -z main -- & git ls-files -z --others --exclude-standard; wait"
    git_w, _, git_r = paired(["sh", "-c", f"({asked}) >/dev/null"], floor, tree, runs)
    return [
        f"| {files:,} | `--diff main`, warm cache | {spread(warm_w, ' s')} | "
        f"{spread(floor_w, ' s')} | {spread(warm_r)}x |",
        f"| {files:,} | `--diff main`, cold cache | {spread(cold_w, ' s')} | | {spread(cold_r)}x |",
        f"| {files:,} | the 3 files named, warm | {spread(named_w, ' s')} | | {spread(named_r)}x |",
        f"| {files:,} | git alone: the change and the untracked files | {spread(git_w, ' s')} | "
        f"| {spread(git_r)}x |",
    ]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, nargs="+", default=[2000, 20000, 100000])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    rows = [
        "| tree files | run | evallint | the 3 files alone | ratio |",
        "|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for files in args.files:
            rows += measure(files, args.runs, Path(tmp))
            print(rows[-4:], file=sys.stderr, flush=True)
    print(f"3 files changed; median (min to max) of {args.runs} paired runs")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
