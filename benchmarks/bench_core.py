"""evallint vs check-jsonschema vs the parse floor on a generated ai_eval repository.

    python benchmarks/bench_core.py [--datasets 2000] [--questions 50] [--rubrics 200]
                                    [--judges 50] [--runs 5] [--keep DIR]

check-jsonschema (`pip install '.[bench]'`) runs once per kind with our own schemas on the same
files; the floor is reading and parsing every file with PyYAML's C loader and nothing else (a
process of its own). Paired runs: medians with their spread, ratios pair by pair.
"""

from __future__ import annotations

import argparse
import random
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import evallint_cmd, paired, peer_cmd, spread

from evallint.validation.schemas import schema_dir


def question(rng: random.Random, d: int, q: int, rubrics: int) -> str:
    ref = f"rubric/rubric_{rng.randrange(rubrics)}@1"
    return (
        f"  - id: d{d}_q{q}\n"
        f'    input: "Customer {q} asks about order {rng.randrange(10**6)}: can I get a refund?"\n'
        "    criteria: Explains the 30-day window and how to start a return.\n"
        "    expected_facts:\n"
        "      - refunds are accepted within 30 days\n"
        "      - store credit after that\n"
        f"    rubric_ref: {ref}\n"
        "    expected:\n"
        "      format: text\n"
    )


def rubric(i: int, judges: int) -> str:
    return (
        f'id: rubric_{i}\nversion: "1.{i % 5}.0"\ndescription: Generated rubric {i}.\n'
        "checks:\n"
        '  - kind: must_contain_any\n    id: window\n    values: ["30 days", "thirty days"]\n'
        '  - kind: must_not_contain\n    id: promise\n    values: ["guaranteed"]\n'
        f"  - kind: llm_judge\n    id: judge\n    judge_prompt_ref: judge/judge_{i % judges}@1\n"
        "  - kind: regex\n    id: order\n    pattern: 'order [0-9]+'\n"
        "scoring:\n  combine: all_pass\n"
    )


def judge(i: int) -> str:
    return (
        f'id: judge_{i}\nversion: "1.0.{i}"\nscore_type: binary\n'
        "template: |\n  Question: {{ input }}\n  Answer: {{ output }}\n  Reply pass or fail.\n"
    )


def generate(root: Path, datasets: int, questions: int, rubrics: int, judges: int) -> None:
    rng = random.Random(7)
    for sub in ("datasets", "rubrics", "judges"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    for d in range(datasets):
        body = "".join(question(rng, d, q, rubrics) for q in range(questions))
        (root / "datasets" / f"set_{d}.yaml").write_text(f"id: set_{d}\nquestions:\n{body}")
    for i in range(rubrics):
        (root / "rubrics" / f"rubric_{i}.yaml").write_text(rubric(i, judges))
    for i in range(judges):
        (root / "judges" / f"judge_{i}.yaml").write_text(judge(i))


# The floor, as a whole process like the others: read and parse every file, nothing else.
FLOOR = """
import pathlib, sys, yaml
for path in sorted(pathlib.Path(sys.argv[1]).rglob("*.yaml")):
    yaml.load(path.read_bytes(), Loader=yaml.CSafeLoader)
"""


def peer_script(root: Path) -> list[str] | None:
    """check-jsonschema once per kind with our schemas, as one shell command."""
    cmd = peer_cmd()
    if cmd is None:
        return None
    parts = []
    for kind, folder in (("dataset", "datasets"), ("rubric", "rubrics"), ("judge", "judges")):
        files = " ".join(shlex.quote(str(p)) for p in sorted((root / folder).glob("*.yaml")))
        schema = shlex.quote(str(schema_dir() / f"{kind}.schema.json"))
        parts.append(f"{shlex.join(cmd)} --schemafile {schema} {files}")
    return ["sh", "-c", "; ".join(parts)]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", type=int, default=2000)
    ap.add_argument("--questions", type=int, default=50)
    ap.add_argument("--rubrics", type=int, default=200)
    ap.add_argument("--judges", type=int, default=50)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keep", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        generate(root, args.datasets, args.questions, args.rubrics, args.judges)
        size = sum(p.stat().st_size for p in root.rglob("*.yaml")) / 1e6
        files = args.datasets + args.rubrics + args.judges
        print(f"{files} files, {size:.1f} MB, {args.datasets * args.questions} questions")
        ours = [*evallint_cmd(), "check", "."]
        code = subprocess.run(ours, cwd=root, capture_output=True, check=False).returncode
        assert code == 0, f"evallint exit {code} on a clean generated repo"
        walls, floor, ratio = paired(ours, [sys.executable, "-c", FLOOR, "."], root, args.runs)
        print(f"{args.runs} paired runs (median, min to max), ratios pair by pair")
        print(f"evallint {spread(walls, ' s')}; parse floor {spread(floor, ' s')}")
        print(f"evallint / floor: {spread(ratio)}")
        theirs = peer_script(root)
        if theirs is not None:
            walls, _, ratio = paired(theirs, ours, root, args.runs)
            print(f"check-jsonschema with our schemas: {spread(walls, ' s')}")
            print(f"check-jsonschema / evallint: {spread(ratio)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
