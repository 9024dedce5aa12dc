"""Counts are never capped: the repeat cap shortens what a person reads (text, annotations),
while JSON, SARIF and the Action's counts carry every finding."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

import jsonschema
import pytest

import evallint.output.sarif as sarif
from evallint.model import Diagnostic, Report, Severity, Span
from evallint.output import formatter
from test_eee import SAMPLE
from test_formatters import check_sarif

Run = Callable[..., tuple[int, str, str]]
Tree = Callable[[Mapping[str, str | bytes]], Path]

BAD = json.dumps({**SAMPLE, "interaction_type": "single"})
RECORDS = {"data/records.jsonl": "\n".join([BAD] * 25) + "\n"}
MESSAGE = "'single' is not one of 'single_turn', 'multi_turn', 'agentic'"


def _same(n: int, group: str = "") -> tuple[Diagnostic, ...]:
    return tuple(
        Diagnostic("a.yaml", Span(i, 1, i, 2), "key-typo", Severity.WARNING, f"w{i}", group=group)
        for i in range(1, n + 1)
    )


def test_capping_keeps_the_first_of_each_group_and_counts_the_rest() -> None:
    report = Report((*_same(15, group="g"), *_same(3)), 1)
    capped = report.capped(10)
    assert [d.message for d in capped.diagnostics] == [f"w{i}" for i in range(1, 11)] + [
        "w1",
        "w2",
        "w3",
    ]
    assert capped.diagnostics[9].more == 5
    assert capped.diagnostics[9].text == "w10 (5 more like this in this file not shown)"
    assert capped.count(Severity.WARNING) == report.count(Severity.WARNING) == 18
    assert capped.capped(4).count(Severity.WARNING) == 18  # capping twice loses nothing
    assert report.capped(0) is report


def test_text_is_capped_but_its_summary_counts_everything(run: Run, tree: Tree) -> None:
    code, out, _ = run("check", cwd=tree(RECORDS))
    lines = out.splitlines()
    assert code == 1
    assert len(lines) == 11
    assert lines[9] == (
        f"data/records.jsonl:10:150: error: {MESSAGE} (15 more like this in this file not "
        "shown) [schema-violation]"
    )
    assert lines[10].startswith("1 file checked: 25 errors in 1 file (")


def test_json_carries_every_finding(run: Run, tree: Tree) -> None:
    code, out, _ = run("check", "--format", "json", cwd=tree(RECORDS))
    found = json.loads(out)["diagnostics"]
    assert code == 1
    assert [(d["line"], d["message"]) for d in found] == [(n, MESSAGE) for n in range(1, 26)]


def test_sarif_and_the_action_outputs_carry_every_finding(
    run: Run, tree: Tree, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tree(RECORDS)
    outputs = root / "outputs.txt"
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    code, out, _ = run("check", "--format", "github", "--sarif-output", "x.sarif", cwd=root)
    assert code == 1
    assert outputs.read_text().splitlines()[:2] == ["error-count=25", "warning-count=0"]
    results = json.loads((root / "x.sarif").read_text())["runs"][0]["results"]
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results] == [
        *range(1, 26)
    ]
    # The log a person reads is still capped: ten annotations, the last counting the rest.
    annotations = [line for line in out.splitlines() if line.startswith("::error ")]
    assert len(annotations) == 10
    assert annotations[-1].endswith(f"{MESSAGE} (15 more like this in this file not shown)")


def test_sarif_keeps_the_worst_results_within_githubs_limit(
    monkeypatch: pytest.MonkeyPatch, sarif_validator: jsonschema.Draft4Validator
) -> None:
    monkeypatch.setattr(sarif, "RESULTS", 4)
    error = Diagnostic("b.yaml", Span(1, 1, 1, 2), "parse-error", Severity.ERROR, "broken")
    report = Report((*_same(5), error), 2)
    log = check_sarif(formatter("sarif")(report), sarif_validator)
    run = log["runs"][0]
    assert [r["message"]["text"] for r in run["results"]] == ["w1", "w2", "w3", "broken"]
    notice = run["invocations"][0]["toolExecutionNotifications"][0]
    assert notice["message"]["text"] == (
        "2 more results are not included: GitHub code scanning takes at most 4 a run "
        "(the worst come first; the JSON format lists them all)"
    )
