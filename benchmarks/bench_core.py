"""evallint vs check-jsonschema vs the parse floor on a generated ai_eval repository.

    python benchmarks/bench_core.py [--datasets 2000] [--questions 50] [--rubrics 200]
                                    [--judges 50] [--keep DIR]

check-jsonschema (`pip install '.[bench]'`) runs once per kind with our own schemas on the same
files; the floor is reading and parsing every file with PyYAML's C loader and nothing else.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import evallint_cmd, median_wall, peer_cmd, table, timed

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


def parse_floor(root: Path) -> float:
    started = time.perf_counter()
    for path in sorted(root.rglob("*.yaml")):
        yaml.load(path.read_bytes(), Loader=yaml.CSafeLoader)
    return time.perf_counter() - started


def peer(root: Path) -> tuple[float, int] | None:
    cmd = peer_cmd()
    if cmd is None:
        return None
    total, worst = 0.0, 0
    for kind, folder in (("dataset", "datasets"), ("rubric", "rubrics"), ("judge", "judges")):
        files = sorted(str(p) for p in (root / folder).glob("*.yaml"))
        schema = str(schema_dir() / f"{kind}.schema.json")
        wall, code = timed([*cmd, "--schemafile", schema, *files], root)
        total, worst = total + wall, max(worst, code)
    return total, worst


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", type=int, default=2000)
    ap.add_argument("--questions", type=int, default=50)
    ap.add_argument("--rubrics", type=int, default=200)
    ap.add_argument("--judges", type=int, default=50)
    ap.add_argument("--keep", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        generate(root, args.datasets, args.questions, args.rubrics, args.judges)
        size = sum(p.stat().st_size for p in root.rglob("*.yaml")) / 1e6
        files = args.datasets + args.rubrics + args.judges
        print(f"{files} files, {size:.1f} MB, {args.datasets * args.questions} questions")
        ours, code = timed([*evallint_cmd(), "check", "."], root, runs=3)
        assert code == 0, f"evallint exit {code} on a clean generated repo"
        floor = parse_floor(root)
        single = median_wall([*evallint_cmd(), "check", "rubrics/rubric_0.yaml"], root, 15)
        rows = [
            ("evallint check (full repo)", f"{ours:.2f} s", "1.0x"),
            ("parse floor (PyYAML C loader, load only)", f"{floor:.2f} s", f"{floor / ours:.2f}x"),
        ]
        theirs = peer(root)
        if theirs is not None:
            rows.append(
                (
                    "check-jsonschema, our schemas, 3 runs",
                    f"{theirs[0]:.2f} s",
                    f"{theirs[0] / ours:.1f}x slower",
                )
            )
        rows.append(("evallint check on one file (median of 15)", f"{single * 1000:.0f} ms", ""))
        print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
