"""Input a pull request controls: the cost must stay linear, whatever the file says.

    python benchmarks/bench_hostile.py [--rubrics 2400] [--records 100000] [--runs 5]

- files whose findings a pull request can multiply: 5,000 unknown keys on one 224 KB line,
  in JSON and SARIF; a JSON rubric with 8,000 unknown keys; a promptfoo OpenAI provider's
  config with 8,000 unknown keys, each weighed for a did-you-mean; an EEE record with 4,000
  scores out of range, in JSON, SARIF and the Action's `--format github --sarif-output`;
- a settings glob that backtracking regexes take exponential time on, against a long name;
- a promptfoo config whose 2,000 prompt globs match nothing in a 10,000-file tree;
- `GITHUB_EVENT_PATH=/dev/zero` in a pull request's `--diff` run (read with a cap);
- a chain of --rubrics composite rubrics, each including the next, and the same rubrics in
  one cycle (every rubric on it gets a finding): wall time and peak memory of
  `evallint check --format json`, the median of --runs, with the JSON output's size;
- --records EEE instance records with their canonical `sample_hash`, against the same records
  without one, in paired runs: what checking the hash costs.

Each figure is a median with its spread; the targets are under 2 s and 200 MiB a case.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_eee import SAMPLE
from common import evallint_cmd, paired, spread, with_peak_memory


def composites(root: Path, n: int, cycle: bool) -> None:
    """n rubrics, r{i} including r{i+1}; the last includes the first when `cycle`."""
    (root / "rubrics").mkdir(parents=True)
    for i in range(n):
        last = i == n - 1 and not cycle
        check = (
            "{kind: php_lint, id: lint}"
            if last
            else f"{{kind: composite, id: part, rubric_ref: rubric/r{(i + 1) % n}@1.0.0}}"
        )
        text = f'id: r{i}\nversion: "1.0.0"\nchecks: [{check}]\nscoring: {{combine: min}}\n'
        (root / "rubrics" / f"r{i}.yaml").write_text(text)


def records(path: Path, n: int, hashed: bool) -> None:
    with path.open("w") as f:
        for i in range(n):
            record = {**SAMPLE, "sample_id": str(i)}
            record["input"] = {"raw": f"What is {i} + 2?", "reference": [str(i + 2)]}
            if hashed:
                canonical = json.dumps(record["input"], sort_keys=True, separators=(",", ":"))
                record["sample_hash"] = hashlib.sha256(canonical.encode()).hexdigest()
            f.write(json.dumps(record) + "\n")


def _score(i: int) -> dict[str, object]:
    """A valid result but for its score, above its metric's maximum."""
    return {
        "evaluation_name": f"m{i}",
        "source_data": {"source_type": "url", "dataset_name": "d", "url": ["https://x.test"]},
        "metric_config": {
            "lower_is_better": False,
            "score_type": "continuous",
            "min_score": 0,
            "max_score": 1,
        },
        "score_details": {"score": 2},
    }


def cases(root: Path) -> list[tuple[str, Path, list[str], dict[str, str]]]:
    """(case, folder, arguments after `check`, environment) of each hostile input."""
    out: list[tuple[str, Path, list[str], dict[str, str]]] = []
    one = root / "one_line"
    (one / "datasets").mkdir(parents=True)
    keys = ",".join(f'"k{i:05d}": 1' for i in range(5000))
    (one / "datasets" / "d.json").write_text(f'{{"id": "d", "questions": [{{{keys}}}]}}\n')
    out += [
        ("5,000 unknown keys on one 224 KB line, JSON", one, ["--format", "json"], {}),
        ("the same, SARIF", one, ["--format", "sarif"], {}),
    ]
    rub = root / "json_rubric"
    (rub / "rubrics").mkdir(parents=True)
    many = {f"key_{i}": i for i in range(8000)}
    rubric = {"id": "r", "version": "1.0.0", "checks": [], "scoring": {"combine": "min"}, **many}
    (rub / "rubrics" / "r.json").write_text(json.dumps(rubric, indent=2))
    out.append(("a JSON rubric with 8,000 unknown keys, JSON", rub, ["--format", "json"], {}))
    keyed = root / "provider_keys"
    keyed.mkdir()
    # Names of the letters promptfoo's own keys are made of, so that did-you-mean weighs each
    # against many of them.
    rng = random.Random(2)
    names: dict[str, int] = {}
    while len(names) < 8000:
        names["".join(rng.choice("temperatureaxoksn_") for _ in range(rng.randint(6, 16)))] = 1
    config = {"prompts": ["{{q}}"], "providers": [{"id": "openai:chat:m", "config": names}]}
    (keyed / "promptfooconfig.json").write_text(json.dumps(config))
    out.append(("an OpenAI provider's config with 8,000 unknown keys", keyed, [], {}))
    eee = root / "eee_scores"
    folder = eee / "data" / "c" / "dev" / "m"
    folder.mkdir(parents=True)
    record = {
        "schema_version": "0.2.0",
        "evaluation_id": "e/1",
        "retrieved_timestamp": "1700000000",
        "source_metadata": {"source_type": "evaluation_run", "source_organization_name": "o"},
        "model_info": {"name": "m", "id": "dev/m"},
        "evaluation_results": [_score(i) for i in range(4000)],
    }
    name = "00000000-0000-4000-8000-000000000000.json"
    (folder / name).write_text(json.dumps(record, indent=2))
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": "/dev/null"}
    out += [
        ("an EEE record with 4,000 scores out of range, JSON", eee, ["--format", "json"], {}),
        ("the same, SARIF", eee, ["--format", "sarif"], {}),
        (
            "the same, `--format github --sarif-output`",
            eee,
            ["--format", "github", "--sarif-output", "out.sarif"],
            env,
        ),
    ]
    glob = root / "glob"
    (glob / "rubrics").mkdir(parents=True)
    (glob / ".evallint.toml").write_text('exclude = ["**a**a**a**a**a**a**a**a**b"]\n')
    (glob / "rubrics" / ("a" * 200 + ".yaml")).write_text("id: x\n")
    out.append(("an `exclude` glob of 8 `**a` against a 205-character name", glob, [], {}))
    globs = root / "promptfoo_globs"
    for i in range(10_000):
        (globs / f"d{i % 100}").mkdir(parents=True, exist_ok=True)
        (globs / f"d{i % 100}" / f"f{i}.txt").write_text("x\n")
    prompts = "".join(f"  - file://**/*nomatch{i}.txt\n" for i in range(2000))
    (globs / "promptfooconfig.yaml").write_text(f"prompts:\n{prompts}providers: [echo]\n")
    out.append(("a promptfoo config with 2,000 prompt globs in a 10,000-file tree", globs, [], {}))
    event = root / "event"
    event.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=event, check=True)
    pr = {"GITHUB_EVENT_PATH": "/dev/zero", "GITHUB_EVENT_NAME": "pull_request"}
    out.append(("`--diff` with `GITHUB_EVENT_PATH=/dev/zero`", event, ["--diff"], pr))
    return out


def hostile_rows(tmp: Path, runs: int) -> None:
    print(f"hostile inputs; median (min to max) of {runs} runs")
    print("| case | wall | peak memory |")
    print("|---|---|---|")
    for case, folder, args, env in cases(tmp / "hostile"):
        cmd = [*evallint_cmd(), "check", "--no-cache", "--exit-zero", *args]
        seen = [_with_env(cmd, folder, env) for _ in range(runs)]
        walls, peaks = [s[0] for s in seen], [s[1] for s in seen]
        print(f"| {case} | {spread(walls, ' s')} | {spread(peaks, ' MB')} |")
    print()


def _with_env(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """`with_peak_memory` with variables set (the probe passes its environment on)."""
    import os

    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return with_peak_memory(cmd, cwd)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def composite_rows(tmp: Path, n: int, runs: int) -> None:
    print(f"| {n:,} composite rubrics | wall | peak memory | JSON output |")
    print("|---|---|---|---|")
    for name, cycle in (("a chain", False), ("a cycle", True)):
        root = tmp / name.replace(" ", "_")
        composites(root, n, cycle)
        cmd = [*evallint_cmd(), "check", "--no-cache", "--format", "json", "--exit-zero", "."]
        seen = [with_peak_memory(cmd, root) for _ in range(runs)]
        out = subprocess.run(cmd, cwd=root, capture_output=True, check=True).stdout
        walls, peaks = [s[0] for s in seen], [s[1] for s in seen]
        print(
            f"| {name} | {spread(walls, ' s')} | {spread(peaks, ' MB')} | {len(out) / 1e6:.1f} MB |"
        )


def hash_row(tmp: Path, n: int, runs: int) -> None:
    hashed, bare = tmp / "h_samples.jsonl", tmp / "b_samples.jsonl"
    records(hashed, n, True)
    records(bare, n, False)
    check = [*evallint_cmd(), "check", "--no-cache", "--exit-zero"]
    with_hash, without, ratio = paired([*check, hashed.name], [*check, bare.name], tmp, runs)
    rate = sorted(n / s for s in with_hash)[len(with_hash) // 2]
    print(f"\n{n:,} EEE instance records; median (min to max) of {runs} paired runs")
    print("| with canonical sample_hash | without | ratio | records/s with |")
    print("|---|---|---|---|")
    print(
        f"| {spread(with_hash, ' s')} | {spread(without, ' s')} | {spread(ratio)}x | {rate:,.0f} |"
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rubrics", type=int, default=2400)
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        hostile_rows(Path(tmp), args.runs)
        composite_rows(Path(tmp), args.rubrics, args.runs)
        hash_row(Path(tmp), args.records, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
