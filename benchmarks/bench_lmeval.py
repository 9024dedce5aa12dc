"""lm-evaluation-harness's whole upstream task tree (13,879 YAML files, 665 modules), in one run.

    python benchmarks/bench_lmeval.py [--shared ../shared] [--runs 5]

Times `evallint check` (all rules, no cache) on the tree against the floor of parsing the same
files with PyYAML's C loader (the harness's own loader: `CSafeLoader` with a `!function`
constructor), each file once, the templates that `include:` names too, in a process of its
own as evallint is: paired runs, each figure a median with its spread, each ratio taken pair by
pair. There is no peer to run: no other tool reads these files but the harness, whose own
loading imports the task modules.

Then, in a git copy of the tree, a change to one shared template: `check --diff` (which checks
the template's includers) against a plain check of the same includers named on the command line.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import evallint_cmd, paired, spread

# The floor: every *.yaml file and every file an include names, parsed once each.
FLOOR = """
import os, sys, yaml
class Loader(yaml.CSafeLoader):
    pass
Loader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))
seen, todo = set(), []
for folder, _, names in os.walk(sys.argv[1]):
    todo += [os.path.join(folder, n) for n in names if n.endswith(".yaml")]
while todo:
    path = os.path.normpath(todo.pop())
    if path in seen or not os.path.isfile(path):
        continue
    seen.add(path)
    with open(path, "rb") as f:
        data = yaml.load(f, Loader=Loader)
    inc = data.get("include") if isinstance(data, dict) else None
    for name in inc if isinstance(inc, list) else [inc] if isinstance(inc, str) else []:
        todo.append(os.path.join(os.path.dirname(path), name))
"""

TEMPLATE = "mmlu/default/_default_template_yaml"


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def full(root: Path, runs: int) -> None:
    ours = [*evallint_cmd(), "check", ".", "--no-cache", "--exit-zero", "-q"]
    walls, floor, ratio = paired(ours, [sys.executable, "-c", FLOOR, "."], root, runs)
    count = sum(1 for _ in root.rglob("*.yaml"))
    print(f"{count:,} task YAML files, {runs} paired runs (median, min to max)")
    print(f"evallint {spread(walls, ' s')}; C-loader parse floor {spread(floor, ' s')}")
    print(f"evallint / floor: {spread(ratio)}")


def diff(root: Path, runs: int) -> None:
    """A change to a template 57 tasks include: `--diff` against the same files named."""
    includers = sorted(
        str(p.relative_to(root))
        for p in (root / "mmlu" / "default").glob("*.yaml")
        if "_default_template_yaml" in p.read_text(encoding="utf-8")
    )
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "tree")
    _git(root, "checkout", "-q", "-b", "change")
    path = root / TEMPLATE
    path.write_text(path.read_text(encoding="utf-8") + "num_fewshot: 0\n", encoding="utf-8")
    _git(root, "commit", "-qam", "change")
    check = [*evallint_cmd(), "check", "--exit-zero", "-q"]
    subprocess.run([*check, "."], cwd=root, capture_output=True)  # fill the cache
    walls, named, ratio = paired([*check, "--diff", "main"], [*check, *includers], root, runs)
    print(f"--diff main, {TEMPLATE} changed ({len(includers)} includers), {runs} paired runs")
    print(f"--diff {spread(walls, ' s')}; the includers named {spread(named, ' s')}")
    print(f"--diff / named: {spread(ratio)}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    source = args.shared / "corpus" / "other" / "lm-eval-harness" / "upstream" / "tasks"
    if not source.is_dir():
        print(f"no task tree at {source}")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "tasks"
        shutil.copytree(source, root)
        full(root, args.runs)
        diff(root, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
