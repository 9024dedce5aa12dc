"""promptfoo configs: claimed by name, `$schema` or promptfoo's own keys, and checked as promptfoo
loads and runs them, at exact lines and columns."""

from __future__ import annotations

from pathlib import Path

import pytest

import evallint.api
from conftest import lint_files
from evallint.kinds import BY_NAME, content_kind, path_kind
from test_git import Repo

CONFIG = """\
description: Refund answers
prompts:
  - file://prompts/summary.txt
  - "Answer: {{question}}"
providers: [openai:gpt-4.1-mini]
defaultTest:
  assert:
    - type: latency
      threshold: 5000
tests:
  - vars: {question: How long do refunds take?}
    assert:
      - type: icontains
        value: 30 days
      - type: similar
        value: Refunds take 30 days.
        threshold: 0.8
      - type: python
        value: file://checks.py:grade
      - type: llm-rubric
        value: Says the window is 30 days
        threshold: 0.9
  - file://cases/*.yaml
"""
GIVEN = {
    "prompts/summary.txt": "Summarise: {{question}}\n",
    "checks.py": "def grade(output, context):\n    return '30' in output\n",
    "cases/more.yaml": "- vars: {question: Can I return shoes?}\n",
}


def _at(files: dict[str, str], path: str = "promptfooconfig.yaml") -> list[tuple[int, int, str]]:
    return [
        (d.span.line, d.span.column, d.rule)
        for d in lint_files({**GIVEN, **files})
        if d.path == path
    ]


def test_a_clean_config_has_no_finding() -> None:
    assert _at({"promptfooconfig.yaml": CONFIG}) == []


@pytest.mark.parametrize(
    "name",
    [
        "promptfooconfig.yaml",
        "evals/promptfooconfig.compare.yaml",
        "promptfoo_multipletest.yml",
        "redteam/promptfoo-redteam.yaml",
        "promptfooconfig.json",
    ],
)
def test_promptfoo_names_claim_a_file(name: str) -> None:
    fmt = "json" if name.endswith(".json") else "yaml"
    assert path_kind(name, fmt) is BY_NAME["promptfoo"]


def test_keys_only_promptfoo_spells_claim_a_file_never_an_agentv_suite() -> None:
    data = {"prompts": ["x"], "providers": ["echo"], "defaultTest": {"vars": {"a": 1}}}
    assert content_kind("config.yaml", data, "yaml") is BY_NAME["promptfoo"]
    both = {"prompts": ["x"], "tests": [{"vars": {"a": 1}, "assert": []}]}
    # promptfoo's shape and AgentV's next dialect: neither claims it by content alone.
    assert content_kind("config.yaml", both, "yaml") is None
    assert content_kind("suite.yaml", both, "yaml") is BY_NAME["agentv-next"]
    declared = {"$schema": "https://promptfoo.dev/config-schema.json", "tests": []}
    assert content_kind("x.yaml", declared, "yaml") is BY_NAME["promptfoo"]


def test_a_modeline_naming_promptfoos_schema_claims_a_file() -> None:
    text = "# yaml-language-server: $schema=https://promptfoo.dev/config-schema.json\n" + CONFIG
    diags = lint_files({**GIVEN, "my-eval.yaml": text.replace("icontains", "icontain")})
    assert [(d.span.line, d.rule) for d in diags] == [(14, "promptfoo-assertion-type")]


def test_an_unknown_assertion_type_gets_a_did_you_mean() -> None:
    text = CONFIG.replace("type: icontains", "type: not-icontain")
    diags = [d for d in lint_files({**GIVEN, "promptfooconfig.yaml": text})]
    assert [(d.span.line, d.span.column, d.rule) for d in diags] == [
        (13, 15, "promptfoo-assertion-type")
    ]
    assert diags[0].message.endswith("did you mean 'not-icontains'?")
    redteam = CONFIG.replace("type: icontains", "type: promptfoo:redteam:pii")
    assert _at({"promptfooconfig.yaml": redteam}) == []


def test_a_dropped_assert_or_threshold_is_an_error_other_keys_a_warning() -> None:
    text = (
        CONFIG.replace("description:", "descripton:")
        .replace("    assert:\n      - type: icontains", "    asserts:\n      - type: icontains")
        .replace("defaultTest:\n  assert:", "defaultTest:\n  treshold: 0.5\n  assert:")
    )
    diags = lint_files({**GIVEN, "promptfooconfig.yaml": text})
    assert [(d.span.line, d.span.column, d.rule, d.severity.label) for d in diags] == [
        (1, 1, "promptfoo-unknown-key", "warning"),
        (7, 3, "promptfoo-dropped-key", "error"),
        (13, 5, "promptfoo-dropped-key", "error"),
    ]


def test_assert_written_under_vars_is_an_error() -> None:
    text = CONFIG.replace(
        "  - vars: {question: How long do refunds take?}\n    assert:",
        "  - vars:\n      question: How long?\n      assert:",
    )
    found_ = [
        (d.span.line, d.span.column, d.rule)
        for d in lint_files({**GIVEN, "promptfooconfig.yaml": text})
    ]
    assert (13, 7, "promptfoo-dropped-key") in found_


def test_a_threshold_off_a_unit_scale_is_an_error_a_raw_grader_score_is_not() -> None:
    text = CONFIG.replace("threshold: 0.8", "threshold: 8")
    assert _at({"promptfooconfig.yaml": text}) == [(17, 20, "promptfoo-threshold-scale")]


def test_a_threshold_given_as_text_is_a_schema_error() -> None:
    text = CONFIG.replace("threshold: 0.8", 'threshold: "0.8"')
    assert _at({"promptfooconfig.yaml": text}) == [(17, 20, "schema-violation")]


def test_a_null_var_and_a_missing_provider_are_what_promptfoo_rejects() -> None:
    text = CONFIG.replace("{question: How long do refunds take?}", "{question: }")
    assert _at({"promptfooconfig.yaml": text}) == [(11, 22, "schema-violation")]
    text = CONFIG.replace("providers: [openai:gpt-4.1-mini]\n", "")
    assert _at({"promptfooconfig.yaml": text}) == [(1, 1, "schema-violation")]


def test_files_resolve_from_the_configs_folder_with_globs_and_functions() -> None:
    text = (
        CONFIG.replace("prompts/summary.txt", "prompts/sumary.txt")
        .replace("checks.py:grade", "checks.py:grde")
        .replace("cases/*.yaml", "case/*.yaml")
    )
    diags = lint_files({**GIVEN, "promptfooconfig.yaml": text})
    assert [(d.span.line, d.span.column, d.rule) for d in diags] == [
        (3, 5, "missing-file"),
        (19, 16, "promptfoo-function"),
        (23, 5, "missing-file"),
    ]
    assert diags[1].message.endswith("checks.py defines no 'grde'; did you mean 'grade'?")
    assert "matches no file" in diags[2].message


def test_a_prompt_glob_that_matches_nothing_says_the_text_is_sent() -> None:
    text = CONFIG.replace("file://prompts/summary.txt", "file://prompts/*.md")
    diags = lint_files({**GIVEN, "promptfooconfig.yaml": text})
    assert [(d.span.line, d.rule) for d in diags] == [(3, "missing-file")]
    assert diags[0].message.endswith("promptfoo then sends the path text itself as the prompt")


def test_other_addresses_and_plain_prompts_are_not_files() -> None:
    text = CONFIG.replace("file://cases/*.yaml", "huggingface://datasets/org/name?split=test")
    text = text.replace('"Answer: {{question}}"', '"Is this right? Answer yes or no."')
    assert _at({"promptfooconfig.yaml": text}) == []


def test_a_javascript_function_is_found_by_its_name() -> None:
    text = CONFIG.replace("file://checks.py:grade", "file://checks.js:grade")
    js = {"checks.js": "module.exports.grade = (output) => output.includes('30');\n"}
    assert _at({"promptfooconfig.yaml": text, **js}) == []
    missing = {"checks.js": "module.exports.score = (output) => true;\n"}
    assert _at({"promptfooconfig.yaml": text, **missing}) == [(19, 16, "promptfoo-function")]


def test_assertion_templates_are_checked_where_they_are_written() -> None:
    text = (
        CONFIG.replace(
            "      - type: python\n        value: file://checks.py:grade\n",
            "      - $ref: '#/assertionTemplates/short'\n",
        )
        + "assertionTemplates:\n  short:\n    type: javascript\n    value: output.length < 9\n"
    )
    assert _at({"promptfooconfig.yaml": text}) == []
    typo = text.replace("type: javascript", "type: javascrpt")
    assert _at({"promptfooconfig.yaml": typo}) == [(25, 11, "promptfoo-assertion-type")]


def test_agentvs_own_export_names_stay_agentv_suites() -> None:
    data = {"prompts": ["x"], "default_test": {"vars": {}}, "tests": [{"vars": {"a": 1}}]}
    assert content_kind("host.agentv.yaml", data, "yaml") is BY_NAME["agentv-next"]


@pytest.mark.parametrize(
    ("pattern", "matches"),
    [
        ("prompts/*.txt", True),
        ("**/summary.*", True),
        ("**/*mary.txt", True),
        ("prompts/**", True),
        ("**/*.md", False),
        ("prompt/*.txt", False),
        ("**/sum*.md", False),
        ("prompts/[st]*.txt", True),  # a class is not expanded here: counted as found
    ],
)
def test_a_glob_is_matched_by_whichever_literal_it_fixes(pattern: str, matches: bool) -> None:
    text = CONFIG.replace("file://prompts/summary.txt", f"file://{pattern}")
    assert (_at({"promptfooconfig.yaml": text}) == []) is matches


def test_a_variable_no_test_sets_is_found_at_the_test() -> None:
    """As in promptfoo's own huggingface-pii example: the prompt reads {{person_type}}, the
    tests set `topic`."""
    text = CONFIG.replace('{{question}}"', '{{question}} as {{ persona | upper }}"')
    diags = lint_files({**GIVEN, "promptfooconfig.yaml": text})
    # The tests of the test files its glob names (`file://cases/*.yaml`) lack it too.
    assert [(d.path, d.span.line, d.span.column, d.rule) for d in diags] == [
        ("cases/more.yaml", 1, 9, "promptfoo-missing-var"),
        ("promptfooconfig.yaml", 11, 11, "promptfoo-missing-var"),
    ]
    assert "{{persona}}" in diags[1].message
    # The prompt file's variables count too; defaultTest.vars supply every test.
    given = {**GIVEN, "prompts/summary.txt": "{% set tone = 'kind' %}{{tone}} {{topic}}\n"}
    assert [(d.path, d.rule) for d in lint_files({**given, "promptfooconfig.yaml": CONFIG})] == [
        ("cases/more.yaml", "promptfoo-missing-var"),
        ("promptfooconfig.yaml", "promptfoo-missing-var"),
    ]
    supplied = CONFIG.replace("defaultTest:\n", "defaultTest:\n  vars: {topic: refunds}\n")
    assert lint_files({**given, "promptfooconfig.yaml": supplied}) == []


def test_variables_of_a_prompt_that_cannot_be_read_are_not_guessed() -> None:
    text = CONFIG.replace("file://prompts/summary.txt", "file://prompts/*.txt")
    given = {**GIVEN, "prompts/summary.txt": "{{unknown}}\n"}
    assert lint_files({**given, "promptfooconfig.yaml": text}) == []


VERSIONED = CONFIG.replace("description: Refund answers\n", "metadata: {version: 1.2.0}\n")


def test_a_config_with_a_version_needs_a_bump_when_what_it_grades_changes() -> None:
    head = VERSIONED.replace("threshold: 0.8", "threshold: 0.6")
    diags = lint_files(
        {**GIVEN, "promptfooconfig.yaml": head}, base={"promptfooconfig.yaml": VERSIONED}
    )
    assert [(d.span.line, d.span.column, d.rule) for d in diags] == [(17, 9, "version-not-bumped")]
    assert diags[0].message.endswith("bump it: 1.2.0 → 2.0.0")
    assert diags[0].fix is not None and diags[0].fix.text == "2.0.0"
    bumped = head.replace("version: 1.2.0", "version: 2.0.0")
    base = {"promptfooconfig.yaml": VERSIONED}
    assert lint_files({**GIVEN, "promptfooconfig.yaml": bumped}, base=base) == []
    # Bookkeeping is no change to what is graded; a config without a version opts out.
    notes = VERSIONED.replace("metadata: {", "outputPath: out.json\nmetadata: {")
    found = lint_files({**GIVEN, "promptfooconfig.yaml": notes}, base=base)
    assert [d.rule for d in found] == ["version-non-score-change"]
    plain = {"promptfooconfig.yaml": CONFIG}
    changed = CONFIG.replace("threshold: 0.8", "threshold: 0.6")
    assert lint_files({**GIVEN, "promptfooconfig.yaml": changed}, base=plain) == []


def test_a_csv_cell_with_an_unknown_type_is_reported_in_the_csv_at_the_cell() -> None:
    text = CONFIG.replace("file://cases/*.yaml", "file://cases.csv")
    csv = (
        "question,__expected,__expected2,_description\n"
        "How long?,contains:30 days,not-icontains:never,\n"
        'Gift cards?,"contians:no refund",similar(0.8):No refunds on gift cards,\n'
        "Shoes?,Answer: yes,javascript:output.length < 99,\n"
    )
    diags = lint_files({**GIVEN, "promptfooconfig.yaml": text, "cases.csv": csv})
    assert [(d.path, d.span.line, d.span.column, d.span.end_column, d.rule) for d in diags] == [
        ("cases.csv", 1, 33, 45, "promptfoo-csv-test"),
        ("cases.csv", 3, 13, 33, "promptfoo-csv-test"),
    ]
    said = [d.message for d in diags]
    assert said[0].endswith("is read as a variable; did you mean '__description'?")
    assert said[1].startswith("__expected: 'contians' is no assertion type")


@pytest.mark.parametrize(
    ("rows", "where"),
    [
        (
            "How long?,contains:30\nShoes?\n",
            "line 3, column 1: this row has 1 field where the header has 2",
        ),
        ("How long?,contains:30\n\nShoes?,x\n", "line 3, column 1: this row has 1 field"),
        ('How long?,"contains:30\nShoes?,x\n', "line 2, column 11: a quote is never closed"),
    ],
)
def test_a_csv_test_file_promptfoo_cannot_read_is_an_error_on_the_line_naming_it(
    rows: str, where: str
) -> None:
    text = CONFIG.replace("file://cases/*.yaml", "file://cases.csv")
    diags = lint_files(
        {**GIVEN, "promptfooconfig.yaml": text, "cases.csv": "question,__expected\n" + rows}
    )
    assert [(d.path, d.span.line, d.span.column, d.rule) for d in diags] == [
        ("promptfooconfig.yaml", 23, 5, "promptfoo-test-file")
    ]
    assert where in diags[0].message


def test_a_variable_no_column_or_test_file_sets_is_found_in_that_file() -> None:
    text = CONFIG.replace("file://cases/*.yaml", "file://cases.csv\n  - file://more.yaml")
    text = text.replace("Answer: {{question}}", "Answer as {{persona}}: {{question}}")
    files = {
        "promptfooconfig.yaml": text,
        "cases.csv": "question,__expected\nHow long?,contains:30\n",
        "more.yaml": "- vars: {question: Shoes?, persona: a clerk}\n- vars: {question: Hats?}\n",
    }
    diags = lint_files({**GIVEN, **files})
    assert [(d.path, d.span.line, d.span.column, d.rule) for d in diags] == [
        ("cases.csv", 1, 1, "promptfoo-missing-var"),
        ("more.yaml", 2, 9, "promptfoo-missing-var"),
        ("promptfooconfig.yaml", 11, 11, "promptfoo-missing-var"),
    ]
    assert "no column of this file sets" in diags[0].message


def _diff(repo: Repo) -> list[tuple[str, int, str]]:
    report = evallint.api.check(cwd=repo.root, diff="main", cache=False)
    return [(d.path, d.span.line, d.rule) for d in report.diagnostics]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        # A prompt file's new variable that no test sets (nor those of `cases/*.yaml`).
        (
            {"prompts/summary.txt": "Summarise for {{persona}}: {{question}}\n"},
            [("cases/more.yaml", 1), ("promptfooconfig.yaml", 11)],
        ),
        # A script's function renamed under the config that calls it.
        (
            {"checks.py": "def grade_it(output, context):\n    return True\n"},
            [("promptfooconfig.yaml", 19)],
        ),
    ],
)
def test_a_diff_that_changes_a_file_a_config_reads_checks_the_config(
    tmp_path: Path, change: dict[str, str], expected: list[tuple[str, int]]
) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit({**GIVEN, "promptfooconfig.yaml": CONFIG})
    repo.git("checkout", "-q", "-b", "change")
    repo.commit(change)
    assert [(path, line) for path, line, _ in _diff(repo)] == expected


@pytest.mark.parametrize(
    ("change", "at"),
    [
        ({"prompts/summary.txt": "Summarise briefly: {{question}}\n"}, (3, 5)),
        ({"checks.py": "def grade(output, context):\n    return '3' in output\n"}, (19, 16)),
    ],
)
def test_a_versioned_config_needs_a_bump_when_a_file_it_reads_changes(
    tmp_path: Path, change: dict[str, str], at: tuple[int, int]
) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit({**GIVEN, "promptfooconfig.yaml": VERSIONED})
    repo.git("checkout", "-q", "-b", "change")
    repo.commit(change)
    report = evallint.api.check(cwd=repo.root, diff="main", cache=False)
    found = [(d.path, d.span.line, d.span.column, d.rule) for d in report.diagnostics]
    assert found == [("promptfooconfig.yaml", *at, "version-not-bumped")]
    assert f"{next(iter(change))} (read by this file) changed" in report.diagnostics[0].message
    repo.commit({"promptfooconfig.yaml": VERSIONED.replace("1.2.0", "2.0.0")})
    assert evallint.api.check(cwd=repo.root, diff="main", cache=False).diagnostics == ()


def test_a_diff_that_deletes_a_prompt_file_reports_the_config(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit({**GIVEN, "promptfooconfig.yaml": CONFIG})
    repo.git("checkout", "-q", "-b", "change")
    repo.git("rm", "-q", "prompts/summary.txt")
    repo.git("commit", "-qm", "drop")
    assert _diff(repo) == [("promptfooconfig.yaml", 3, "missing-file")]


@pytest.mark.parametrize(
    "bad",
    [
        "scenarios: 5",
        "scenarios: [5, {config: 5, tests: 5}]",
        "tests: 5",
        "tests: [[1], {vars: 5, assert: 5}, {path: 5}]",
        "defaultTest: [1]",
        "defaultTest: {vars: [1], assert: {type: x}, options: 5}",
        "prompts: [{id: 5}, [1], null]",
        "assertionTemplates: [1]",
        "tests: [{assert: [{type: assert-set, assert: [[1], {assert: 5}]}]}]",
    ],
)
def test_any_shape_of_a_config_gives_findings_never_a_crash(bad: str) -> None:
    """Every key a rule walks, in shapes promptfoo rejects: a schema finding, no traceback."""
    text = f"providers: [echo]\nprompts: [hi]\n{bad}\n".replace(
        "prompts: [hi]\nprompts:", "prompts:"
    )
    diags = lint_files({"promptfooconfig.yaml": text})
    assert {d.rule for d in diags} & {"schema-violation", "yaml-implicit-type"}, diags


def test_an_unclosed_nunjucks_tag_in_a_prompt_is_found_at_its_column() -> None:
    text = CONFIG.replace('"Answer: {{question}}"', '"Answer {% if q %}yes: {{question}"')
    diags = lint_files({**GIVEN, "promptfooconfig.yaml": text})
    assert [(d.span.line, d.span.column, d.rule) for d in diags] == [(4, 28, "promptfoo-template")]
    # Nunjucks' own filters and tags are not judged.
    own = CONFIG.replace("{{question}}", "{{ question | nl2br }}{% elseif x %}")
    assert _at({"promptfooconfig.yaml": own}) == []


def test_a_test_file_that_does_not_parse_is_an_error_on_the_line_naming_it() -> None:
    text = CONFIG.replace("file://cases/*.yaml", "file://cases/more.yaml")
    broken = {**GIVEN, "cases/more.yaml": "- vars: {question: Can I return shoes?\n"}
    diags = lint_files({**broken, "promptfooconfig.yaml": text})
    assert [(d.path, d.span.line, d.span.column, d.rule) for d in diags] == [
        ("promptfooconfig.yaml", 23, 5, "promptfoo-test-file")
    ]
    assert "cases/more.yaml does not parse (line 2, column 1:" in diags[0].message


def test_a_csv_test_file_with_a_field_over_csvs_own_limit_is_read() -> None:
    text = CONFIG.replace("file://cases/*.yaml", "file://cases.csv")
    csv = "question,__expected\n" + "x" * 200_000 + ",contians:30 days\n"
    diags = lint_files({**GIVEN, "promptfooconfig.yaml": text, "cases.csv": csv})
    assert [(d.path, d.span.line, d.rule) for d in diags] == [
        ("cases.csv", 2, "promptfoo-csv-test")
    ]


def test_a_provider_promptfoo_cannot_build_is_an_error_at_its_id() -> None:
    providers = """\
providers:
  - opnai:gpt-4.1-mini
  - id: bam:chat:granite
  - {id: "sagemaker:anthropic:ep", config: {region: us-east-1}}
  - sagemaker:my-endpoint
  - {lambdalabs:chat:llama3: {config: {}}}
  - {id: "sagemaker:llama:ep"}
  - file://providers/custom.py:call_api
  - file://providers/custom.ts
  - promptfoo:redteam:crescendo
  - "{{ env.PROVIDER }}"
  - echo
"""
    text = CONFIG.replace("providers: [openai:gpt-4.1-mini]\n", providers)
    found = [
        d
        for d in lint_files({**GIVEN, "promptfooconfig.yaml": text})
        if d.rule == "promptfoo-provider"
    ]
    assert [(d.span.line, d.span.column) for d in found] == [
        (6, 5), (7, 9), (8, 10), (9, 5), (10, 6)
    ]  # fmt: skip
    assert "did you mean 'openai'?" in found[0].message
    assert "IBM BAM" in found[1].message
    assert "'anthropic'" in found[2].message
    assert "needs its model type" in found[3].message


@pytest.mark.parametrize(
    ("providers", "at"),
    [
        ("providers: {id: echo}\n", (5, 12)),
        ("providers: []\n", (5, 12)),
        ("providers:\n  - echo\n  - {label: x}\n", (7, 5)),
        ("targets: [echo, {echo: }]\n", (5, 17)),
    ],
)
def test_a_provider_promptfoo_cannot_read_is_an_error_where_it_is(
    providers: str, at: tuple[int, int]
) -> None:
    text = CONFIG.replace("providers: [openai:gpt-4.1-mini]\n", providers)
    found = lint_files({**GIVEN, "promptfooconfig.yaml": text})
    assert [(d.span.line, d.span.column) for d in found if d.rule == "promptfoo-provider"] == [at]


def test_a_scenarios_tests_are_checked_with_each_of_its_configs() -> None:
    text = """\
prompts: ["Answer as {{persona}} in {{language}}: {{question}}"]
providers: [echo]
scenarios:
  - config:
      - vars: {language: French}
      - vars: {language: German, persona: a clerk}
    tests:
      - vars: {question: How long?, persona: an agent}
      - vars: {question: Shoes?}
  - config:
      - vars: {language: French, question: Hats?}
"""
    found = [
        (d.span.line, d.span.column, d.message)
        for d in lint_files({"promptfooconfig.yaml": text})
        if d.rule == "promptfoo-missing-var"
    ]
    assert [f[:2] for f in found] == [(9, 15), (11, 15)]
    assert "{{persona}}, which this test does not set" in found[0][2]
    assert "{{persona}}, which this scenario config does not set" in found[1][2]


def test_an_unclosed_tag_in_a_prompt_file_is_found_in_that_file(tmp_path: Path) -> None:
    broken = "Summarise for a customer.\n{% if formal %}Be formal.\n{{question}}\n"
    files = {**GIVEN, "promptfooconfig.yaml": CONFIG, "prompts/summary.txt": broken}
    found = [(d.path, d.span.line, d.span.column, d.rule) for d in lint_files(files)]
    assert found == [("prompts/summary.txt", 2, 1, "promptfoo-template")]
    # The same when the change touches the prompt file alone.
    repo = Repo(tmp_path / "repo")
    repo.commit({**GIVEN, "promptfooconfig.yaml": CONFIG})
    repo.git("checkout", "-q", "-b", "change")
    repo.commit({"prompts/summary.txt": broken})
    assert _diff(repo) == [("prompts/summary.txt", 2, "promptfoo-template")]


def test_a_variable_no_prompt_or_assertion_mentions_is_a_note_with_its_likely_name() -> None:
    text = CONFIG.replace(
        "  - vars: {question: How long do refunds take?}",
        "  - vars: {questoin: How long do refunds take?, tone: kind}",
    )
    found = [
        (d.span.line, d.span.column, d.severity.label, d.message)
        for d in lint_files({**GIVEN, "promptfooconfig.yaml": text})
        if d.rule == "promptfoo-unused-var"
    ]
    assert [f[:3] for f in found] == [(11, 12, "note"), (11, 49, "note")]
    assert found[0][3].endswith("did you mean 'question'?")
    # A provider that runs code of its own may read any variable: nothing is said.
    coded = text.replace("providers: [openai:gpt-4.1-mini]", "providers: [file://provider.py]")
    files = {**GIVEN, "promptfooconfig.yaml": coded, "provider.py": "def call_api(p, o, c): ...\n"}
    assert not [d for d in lint_files(files) if d.rule == "promptfoo-unused-var"]


def test_a_prompt_named_by_a_path_of_promptfoos_list_is_read_as_a_file() -> None:
    text = CONFIG.replace("file://prompts/summary.txt", "prompt.yaml")
    found = [(d.span.line, d.rule) for d in lint_files({**GIVEN, "promptfooconfig.yaml": text})]
    assert found == [(3, "missing-file")]


def test_a_test_file_evallint_cannot_read_is_an_error_never_a_silent_pass() -> None:
    from evallint.config import Config

    text = CONFIG.replace("file://cases/*.yaml", "file://cases.csv")
    csv = "question,__expected\n" + "How long?,contians:30\n" * 100
    files = {**GIVEN, "promptfooconfig.yaml": text, "cases.csv": csv}
    found = lint_files(files, Config(max_file_size=1000))
    assert [(d.path, d.span.line, d.span.column, d.rule) for d in found] == [
        ("promptfooconfig.yaml", 23, 5, "promptfoo-test-file")
    ]
    assert found[0].message == "cases.csv is over max-file-size: its tests were not checked"


EXTERNAL = 'prompts: ["Answer: {{q}}"]\nproviders: [echo]\ntests: {}\n'
BROKEN_TESTS = (
    "- vars: {q: hi}\n  asserts:\n    - type: contains\n      value: x\n"
    "- vars: {q: ho}\n  assert:\n    - {type: containz, value: y, valeu: z}\n"
    "    - {type: similar, value: y, threshold: 8}\n"
)


def _placed(files: dict[str, str]) -> list[tuple[str, int, int, str]]:
    return sorted((d.path, d.span.line, d.span.column, d.rule) for d in lint_files(files))


@pytest.mark.parametrize(
    ("named", "path"),
    [
        ("file://tests.yaml", "tests.yaml"),
        ("tests.yaml", "tests.yaml"),
        ("file://cases/*.yaml", "cases/more.yaml"),
        ("[file://tests.yaml]", "tests.yaml"),
    ],
)
def test_the_tests_of_a_test_file_are_checked_there(named: str, path: str) -> None:
    """promptfoo reads a test file's tests as the config's own: each test rule checks them, at
    their lines in the file (they were skipped as "no kind matches")."""
    files = {"promptfooconfig.yaml": EXTERNAL.format(named), path: BROKEN_TESTS}
    assert _placed(files) == [
        (path, 2, 3, "promptfoo-dropped-key"),
        (path, 7, 14, "promptfoo-assertion-type"),
        (path, 7, 34, "promptfoo-unknown-key"),
        (path, 8, 44, "promptfoo-threshold-scale"),
    ]


def test_a_jsonl_test_file_is_checked_line_by_line() -> None:
    cases = '{"vars": {"q": "hi"}}\n{"vars": {"q": "ho"}, "assert": [{"type": "containz"}]}\n'
    files = {"promptfooconfig.yaml": EXTERNAL.format("file://cases.jsonl"), "cases.jsonl": cases}
    assert _placed(files) == [("cases.jsonl", 2, 43, "promptfoo-assertion-type")]


def test_a_test_file_two_configs_name_gets_each_finding_once() -> None:
    files = {
        "a/promptfooconfig.yaml": EXTERNAL.format("file://../tests.yaml"),
        "b/promptfooconfig.yaml": EXTERNAL.format("file://../tests.yaml"),
        "tests.yaml": BROKEN_TESTS,
    }
    assert len(_placed(files)) == 4


def test_prompts_promptfoo_cannot_load() -> None:
    config = (
        "prompts:\n"
        "  - {id: file://prompts/summary.txt}\n"
        "  - {raw: 'Answer: {{question}}', label: plain}\n"
        "  - 'Answer in English/French: {{question}}'\n"
        "  - Give a score from 1 to 2.55\n"
        "  - |\n    Answer in English/French: {{question}}\n"
        "  - file://prompts/*.txt\n"
        "providers: [openai:gpt-4.1-mini]\ntests:\n  - vars: {question: Refunds?}\n"
    )
    found = [
        (d.span.line, d.span.column, d.rule)
        for d in lint_files({**GIVEN, "promptfooconfig.yaml": config})
        if d.rule == "promptfoo-prompt"
    ]
    assert found == [
        (2, 5, "promptfoo-prompt"),
        (4, 5, "promptfoo-prompt"),
        (5, 5, "promptfoo-prompt"),
    ]


def test_an_llm_rubric_threshold_above_one_with_the_default_prompt() -> None:
    text = CONFIG.replace("threshold: 0.9", "threshold: 8")
    found = [
        d
        for d in lint_files({**GIVEN, "promptfooconfig.yaml": text})
        if d.rule == "promptfoo-rubric-threshold"
    ]
    assert [(d.span.line, d.span.column) for d in found] == [(22, 20)]
    assert "use 0.8 for a 0..10 scale" in found[0].message
    custom = text.replace(
        "defaultTest:\n", "defaultTest:\n  options: {rubricPrompt: 'Score 0-10'}\n"
    )
    assert [
        d.rule
        for d in lint_files({**GIVEN, "promptfooconfig.yaml": custom})
        if d.rule == "promptfoo-rubric-threshold"
    ] == []


def test_red_team_plugin_ids_and_graders_are_promptfoos() -> None:
    config = (
        'prompts: ["Answer: {{q}}"]\ntargets: [echo]\nredteam:\n'
        "  plugins: [cybercrime, pii:direct, {id: harmfull}, file://mine.js, default]\n"
        "tests:\n  - vars: {q: hi}\n"
        "    assert: [{type: 'promptfoo:redteam:pii'}, {type: 'promptfoo:redteam:cybercrim'}]\n"
    )
    found = [
        (d.span.line, d.span.column, d.rule) for d in lint_files({"promptfooconfig.yaml": config})
    ]
    assert found == [
        (4, 13, "promptfoo-redteam-plugin"),
        (4, 42, "promptfoo-redteam-plugin"),
        (7, 54, "promptfoo-assertion-type"),
    ]
