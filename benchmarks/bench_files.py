"""What checking file references costs: 2,000 AgentV suites in a tree of 20,000 tracked files.

    python benchmarks/bench_files.py [--suites 2000] [--files 20000] [--runs 5] [--missing 0]

Each suite names four files (a content file beside it, a shared one at the root reached through
AgentV's parent-folder search, a `file://` grader prompt, a case file); with `--missing N`, the
content file of every N-th suite is missing. Times a full `evallint check` against the same run
without the two file rules (`--ignore missing-file,file-not-checked`), in paired runs, and
prints the median and spread of the ratio: the cost of the rules is the ratio minus one. Then
the rules' own share of one whole run, timed inside the process (median of --runs), which
holds when the machine's speed drifts between runs. With
missing files the full run also pays for reporting them (their positions are found by a second
parse of each file that has a finding).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import evallint_cmd, paired, spread

SUITE = """\
description: suite {i}
tests:
  - id: case-{i}
    criteria: Answers from the policy.
    input:
      - role: user
        content:
          - type: file
            value: {beside}
          - type: file
            value: ../../shared/{shared}.md
    assertions:
      - type: llm-grader
        prompt: file://prompts/grader-{grader}.md
  - file://cases/extra-{i}.yaml
"""


def generate(root: Path, suites: int, files: int, missing: int = 0) -> int:
    """Writes the tree and returns how many files it holds."""
    written = 0

    def write(rel: str, text: str) -> None:
        nonlocal written
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        written += 1

    for name in range(50):
        write(f"shared/s{name}.md", "shared\n")
        write(f"prompts/grader-{name}.md", "grade {{ output }}\n")
    for i in range(suites):
        folder = f"evals/team{i % 40}/suite{i}"
        gone = missing > 0 and i % missing == 0
        beside = f"missing-{i}.md" if gone else f"policy-{i}.md"
        if not gone:
            write(f"{folder}/policy-{i}.md", "policy\n")
        write(f"{folder}/cases/extra-{i}.yaml", f"- id: extra-{i}\n  criteria: c\n  input: hi\n")
        text = SUITE.format(i=i, beside=beside, shared=f"s{i % 50}", grader=i % 50)
        write(f"{folder}/suite-{i}.eval.yaml", text)
    for n in range(max(0, files - written)):
        write(f"src/pkg{n % 100}/module_{n}.py", "x = 1\n")
    return written


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--suites", type=int, default=2000)
    ap.add_argument("--files", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--missing", type=int, default=0, help="every N-th content file is missing")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        total = generate(root, args.suites, args.files, args.missing)
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        subprocess.run(["git", "add", "-A"], cwd=root, check=True)
        full = [*evallint_cmd(), "check", "."]
        without = [*full, "--ignore", "missing-file,file-not-checked"]
        walls_full, walls_without, ratios = paired(full, without, root, args.runs)
        gone = f", every {args.missing}th content file missing" if args.missing else ""
        print(f"{args.suites} suites, {total} tracked files{gone}, {args.runs} paired runs")
        print(f"evallint check: {spread(walls_full, ' s')}")
        print(f"without the file rules: {spread(walls_without, ' s')}")
        print(f"ratio (the file rules' cost + 1): {spread(ratios)}")
        shares = [share(root) for _ in range(args.runs)]
        print(f"the file rules' own time, in one process: {spread(shares)} of the run")
    return 0


# Times the two rules' own calls inside one whole check (one job, so every call is seen): a
# share of one run needs no pairing, so it holds when the machine's speed drifts.
SHARE = """
import sys, time
from evallint.cli.main import main
from evallint.rules import ALL_RULES
spent = 0.0
def timed(check):
    def run(*args):
        global spent
        started = time.perf_counter()
        found = list(check(*args))
        spent += time.perf_counter() - started
        return iter(found)
    return run
for rule in ALL_RULES:
    if rule.id in ("missing-file", "file-not-checked"):
        object.__setattr__(rule, "check", timed(rule.check))
sys.argv = ["evallint", "check", ".", "--jobs", "1"]
started = time.perf_counter()
try:
    main()
except SystemExit:
    pass
print(spent / (time.perf_counter() - started), file=sys.stderr)
"""


def share(root: Path) -> float:
    done = subprocess.run(
        [sys.executable, "-c", SHARE], cwd=root, capture_output=True, text=True, check=True
    )
    return float(done.stderr.split()[-1])


if __name__ == "__main__":
    raise SystemExit(main())
