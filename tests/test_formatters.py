"""Every output format on one fixed report, against golden files; SARIF against the OASIS schema.

EVALLINT_UPDATE_GOLDEN=1 rewrites the golden files (then review the diff).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conftest import REPO, lint_files
from evallint import __version__
from evallint.model import Diagnostic, Location, Report, Severity, Span
from evallint.output import FORMATTERS, formatter
from evallint.output.github import escape_data, escape_property, render_summary
from evallint.rules import ALL_RULES

GOLDEN = Path(__file__).parent / "golden"
ODD = "datasets/Données, v2/refund set.yaml"

REPORT = Report(
    diagnostics=(
        Diagnostic(
            ODD,
            Span(4, 5, 4, 20),
            "key-typo",
            Severity.WARNING,
            "unknown key 'expecteed_facts'; did you mean 'expected_facts'?",
            fingerprint="0a1b2c3d4e5f6071",
        ),
        Diagnostic(
            ODD,
            Span(7, 3, 7, 9),
            "duplicate-question-id",
            Severity.ERROR,
            "duplicate question id 'q1' (first on line 2)",
            (Location(ODD, Span(2, 9, 2, 11), "first use"),),
            "1122334455667788",
        ),
        Diagnostic(
            "rubrics/tone.yaml",
            Span(8, 13, 8, 20),
            "version-not-bumped",
            Severity.ERROR,
            "100% of checks changed:\nscoring.combine, which changes scores",
            (Location("rubrics/tone.yaml", Span(2, 10, 2, 17), "the version declared here"),),
            "99aabbccddeeff00",
        ),
        Diagnostic(
            "rubrics/tone.yaml",
            Span(9, 5, 9, 11),
            "weight-ignored",
            Severity.NOTE,
            "weight has no effect: scoring.combine is 'min', not 'weighted_avg'",
            fingerprint="0123456789abcdef",
        ),
    ),
    files_checked=3,
    seconds=0.25,
    notes=("compared with main (merge base 0123456789)",),
)


def golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("EVALLINT_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from the golden file"


def sarif_results(text: str) -> Any:
    log = json.loads(text)
    return log["runs"][0]["results"]


# Every format of the registry has its golden file `report.<format>` (SARIF's is its results,
# below): a new format is its module, its row and its golden file.
@pytest.mark.parametrize("fmt", [f for f in FORMATTERS if f != "sarif"])
def test_golden_formats(fmt: str) -> None:
    golden(f"report.{fmt}", formatter(fmt)(REPORT))


def test_golden_sarif_results() -> None:
    """Each result's `ruleIndex` points at its rule in the log's rule list; the golden file
    holds the rest, so that a rule added to the registry shifts no golden file."""
    text = formatter("sarif")(REPORT)
    rules = [r["id"] for r in json.loads(text)["runs"][0]["tool"]["driver"]["rules"]]
    results = sarif_results(text)
    for result in results:
        assert rules[result.pop("ruleIndex")] == result["ruleId"]
    golden(
        "report.sarif-results.json",
        json.dumps(results, indent=2, ensure_ascii=False) + "\n",
    )


def test_golden_step_summary() -> None:
    environ = {
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": "acme/evals",
        "GITHUB_SHA": "f00d",
    }
    golden("report.summary.md", render_summary(REPORT, environ))


def test_workflow_command_escaping() -> None:
    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"
    line = formatter("github")(REPORT).splitlines()[1]
    assert line.startswith("::error file=datasets/Données%2C v2/refund set.yaml,line=7,col=3,")


def test_annotations_are_capped_with_a_counting_notice() -> None:
    many = tuple(
        Diagnostic("a.yaml", Span(i, 1, i, 2), "key-typo", Severity.WARNING, f"w{i}")
        for i in range(1, 14)
    )
    out = formatter("github")(Report(many, 1)).splitlines()
    assert sum(line.startswith("::warning ") for line in out) == 10
    assert out[10].startswith("a.yaml:11:1: warning: w11 [key-typo]")
    assert out[13] == (
        "::notice::1 file checked: 13 warnings in 1 file (0.00 s); 3 more findings than "
        "GitHub shows as annotations are in the log above and in the step summary"
    )


def test_summary_stays_under_one_mebibyte() -> None:
    big = tuple(
        Diagnostic("a.yaml", Span(i, 1, i, 2), "key-typo", Severity.WARNING, "x" * 400)
        for i in range(1, 5000)
    )
    text = render_summary(Report(big, 1), {})
    assert len(text.encode()) < 1024 * 1024
    assert "more findings are not listed here" in text


def check_sarif(text: str, validator: jsonschema.Draft4Validator) -> dict[str, Any]:
    log: dict[str, Any] = json.loads(text)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, [e.message for e in errors][:5]
    # GitHub's required subset, beyond the schema.
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert log["$schema"] and driver["name"] == "evallint"
    assert driver["semanticVersion"] == __version__ and driver["informationUri"]
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["text"] and rule["help"]["markdown"] and rule["helpUri"]
        assert len(rule["fullDescription"]["text"]) <= 1024
        assert "security-severity" not in rule["properties"]
    for result in run["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["message"]["text"]
        assert result["partialFingerprints"]["primaryLocationLineHash"]
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"]
    return log


def test_fixed_report_sarif_is_valid(sarif_validator: jsonschema.Draft4Validator) -> None:
    log = check_sarif(formatter("sarif")(REPORT), sarif_validator)
    uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert uri["uri"] == "datasets/Donn%C3%A9es%2C%20v2/refund%20set.yaml"
    assert [r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]] == [r.id for r in ALL_RULES]


def test_every_rule_example_gives_valid_sarif(sarif_validator: jsonschema.Draft4Validator) -> None:
    diagnostics: list[Diagnostic] = []
    for rule in ALL_RULES:
        given = {e.path: e.text for e in rule.examples if e.label == "Given"}
        base = {e.path: e.text for e in rule.examples if e.label == "Base"} or None
        for example in rule.examples:
            if example.label == "Bad":
                diagnostics += lint_files({**given, example.path: example.text}, base=base)
    log = check_sarif(formatter("sarif")(Report(tuple(diagnostics), 1)), sarif_validator)
    assert len(log["runs"][0]["results"]) >= len(ALL_RULES)


def test_fingerprints_survive_a_blank_line_above() -> None:
    text = "questions:\n  - id: q1\n    input: x\n    expecteed_facts: [a]\n"
    before = lint_files({"datasets/d.yaml": text})
    after = lint_files({"datasets/d.yaml": "# moved\n\n" + text})
    assert [d.span.line for d in before] == [4] and [d.span.line for d in after] == [6]
    assert [d.fingerprint for d in before] == [d.fingerprint for d in after]
    dup = "questions:\n  - {id: a, input: x}\n  - {id: a, input: y}\n"
    first = lint_files({"datasets/d.yaml": dup})[0].fingerprint
    assert lint_files({"datasets/d.yaml": "\n" + dup})[0].fingerprint == first


def test_rules_page_is_generated_from_the_code() -> None:
    from evallint.output.docs import render_rules

    assert (REPO / "RULES.md").read_text(encoding="utf-8") == render_rules(markdown=True), (
        "RULES.md is stale: run python3 tools/docs.py"
    )


def test_sarif_leaves_the_category_to_the_uploader() -> None:
    """upload-sarif's `category:` becomes runAutomationDetails.id only when the file has none;
    a fixed id made two uploads in one repository replace each other."""
    from evallint.model import Report
    from evallint.output.sarif import render_sarif

    run = json.loads(render_sarif(Report((), 0)))["runs"][0]
    assert "automationDetails" not in run


# The Code Quality report as GitLab's documentation lists its fields ("Code Quality report
# format"): an array; each issue needs these, with one of these severities.
GITLAB_SHAPE = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["description", "check_name", "fingerprint", "severity", "location"],
        "properties": {
            "description": {"type": "string"},
            "check_name": {"type": "string"},
            "fingerprint": {"type": "string"},
            "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
            "location": {
                "type": "object",
                "required": ["path", "lines"],
                "properties": {
                    "path": {"type": "string"},
                    "lines": {
                        "type": "object",
                        "required": ["begin"],
                        "properties": {"begin": {"type": "integer", "minimum": 1}},
                    },
                },
            },
        },
    },
}


def test_gitlab_code_quality_has_the_documented_shape_and_unique_fingerprints() -> None:
    import jsonschema

    issues = json.loads(formatter("gitlab")(REPORT))
    jsonschema.validate(issues, GITLAB_SHAPE)
    assert len({i["fingerprint"] for i in issues}) == len(issues) == 4
    assert [i["severity"] for i in issues] == ["minor", "major", "major", "info"]


def test_junit_has_a_case_per_file_checked_and_a_failure_per_error() -> None:
    from xml.etree import ElementTree

    from evallint.model import Checked
    from evallint.records import replace

    paths = [ODD, "rubrics/tone.yaml", "ok.yaml"]
    checked = Checked(paths, ["dataset", "rubric", "rubric"])  # as a run reports them
    assert list(checked) == [
        (ODD, "dataset"),
        ("rubrics/tone.yaml", "rubric"),
        ("ok.yaml", "rubric"),
    ]
    assert checked[1:] == [("rubrics/tone.yaml", "rubric"), ("ok.yaml", "rubric")]
    # Equal and hashed as the pairs it stands for: two reports of one run are equal.
    again = Checked(paths, ["dataset", "rubric", "rubric"])
    assert checked == again == tuple(checked) and hash(checked) == hash(again)
    assert checked != Checked(paths, ["dataset", "rubric", "judge"])
    assert replace(REPORT, kinds=checked) == replace(REPORT, kinds=again)
    report = replace(REPORT, kinds=checked)
    root = ElementTree.fromstring(formatter("junit")(report))
    assert root.tag == "testsuites" and root.get("tests") == "3" and root.get("failures") == "2"
    (suite,) = root
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert list(cases) == [ODD, "rubrics/tone.yaml", "ok.yaml"]
    assert all(c.get("classname") == "evallint" for c in cases.values())
    assert [f.get("type") for f in cases[ODD].iter("failure")] == ["duplicate-question-id"]
    assert "key-typo" in (cases[ODD].findtext("system-out") or "")
    assert list(cases["ok.yaml"]) == []


def test_junit_fails_a_file_once_however_many_errors_it_has() -> None:
    """A test case fails once: `failures` never exceeds `tests`, and the one failure lists
    every error."""
    from xml.etree import ElementTree

    errors = tuple(
        Diagnostic("a.yaml", Span(i, 1, i, 2), "unknown-key", Severity.ERROR, f"e{i}")
        for i in (1, 2, 3)
    )
    root = ElementTree.fromstring(
        formatter("junit")(Report(errors, 1, kinds=(("a.yaml", "rubric"),)))
    )
    assert (root.get("tests"), root.get("failures")) == ("1", "1")
    (failure,) = root.iter("failure")
    assert failure.get("message") == "3 errors; first: e1"
    assert (failure.text or "").splitlines() == [
        f"a.yaml:{i}:1: error: e{i} [unknown-key]" for i in (1, 2, 3)
    ]


def test_the_gitlab_example_is_a_valid_gitlab_ci_file() -> None:
    """Linted with check-jsonschema's vendored GitLab CI schema, as GitLab's own lint would."""
    import shutil
    import subprocess

    from conftest import REPO

    tool = shutil.which("check-jsonschema")
    if tool is None:
        pytest.skip("check-jsonschema is not installed (pip install '.[test]')")
    example = REPO / "examples" / "gitlab" / ".gitlab-ci.yml"
    done = subprocess.run(
        [
            tool,
            "--builtin-schema",
            "vendor.gitlab-ci",
            "--data-transform",
            "gitlab-ci",
            str(example),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    text = example.read_text()
    assert "--format gitlab --output gl-code-quality-report.json" in text
    assert "codequality: gl-code-quality-report.json" in text


def test_gitlab_fingerprints_stay_when_a_finding_moves_to_another_line() -> None:
    from evallint.records import replace

    moved = replace(
        REPORT,
        diagnostics=tuple(
            replace(d, span=Span(d.span.line + 5, 1, d.span.line + 5, 2))
            for d in REPORT.diagnostics
        ),
    )
    before = [i["fingerprint"] for i in json.loads(formatter("gitlab")(REPORT))]
    after = [i["fingerprint"] for i in json.loads(formatter("gitlab")(moved))]
    assert before == after


def test_every_format_is_a_formatter_to_mypy(tmp_path: Path) -> None:
    """The registry names renderers by module and function (imported only when chosen), so
    mypy cannot see them through it: this test writes each row as a `Formatter` and asks
    mypy, so a renderer with the wrong signature fails here, not in a user's run."""
    import shutil
    import subprocess
    import sys

    from conftest import REPO, gate_or_skip

    if shutil.which("mypy") is None:
        gate_or_skip("mypy is not installed (it comes with the test extra)")
    lines = ["from evallint.output import Formatter"]
    for i, row in enumerate(FORMATTERS.values()):
        lines += [f"from {row.module} import {row.function} as f{i}", f"_{i}: Formatter = f{i}"]
    check = tmp_path / "formats_typed.py"
    check.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(check)],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
