"""Diff mode costs what the change costs: 20,000 eval files, 3 changed.

    python benchmarks/bench_diff.py [--files 20000]

Times `evallint check --diff main` against `evallint check` of the same 3 files (both resolve
references across the whole tree), in one run.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import judge, question, rubric
from common import evallint_cmd, timed


def generate(root: Path, files: int) -> list[str]:
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
    return ["datasets/set_0.yaml", "datasets/set_1.yaml", "rubrics/rubric_0.yaml"]


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=b@example.com", "-c", "user.name=bench", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=20000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        changed = generate(root, args.files)
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "base")
        git(root, "checkout", "-qb", "feature")
        for path in changed:  # a tags edit: not score-affecting, but a real change
            text = (root / path).read_text()
            (root / path).write_text(text.replace("\n", "\ntags: [edited]\n", 1))
        alone, _ = timed([*evallint_cmd(), "check", *changed], root, runs=3)
        diff, code = timed([*evallint_cmd(), "check", "--diff", "main"], root, runs=3)
        print(f"{args.files} files, {len(changed)} changed (exit {code})")
        print(
            f"evallint check of the 3 files: {alone:.2f} s; evallint check --diff main: "
            f"{diff:.2f} s ({diff / alone:.2f}x)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
