"""lm-evaluation-harness task configs: claimed by their keys, read with the harness's `!function`
tag, merged through includes, and checked at exact lines and columns."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

import evallint.api
from conftest import DictSource, found, lint_files
from evallint.config import Config
from evallint.engine.run import lint
from evallint.project import Entry
from evallint.read import read_entry
from test_git import Repo, Run

TASK = """\
task: demo
dataset_path: demo/data
output_type: multiple_choice
test_split: test
doc_to_text: "{{question}}"
doc_to_target: label
doc_to_choice: ["no", "yes"]
process_docs: !function utils.process_docs
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""

UTILS = """\
import datasets


def process_docs(dataset: datasets.Dataset) -> datasets.Dataset:
    return dataset
"""


def _at(path: str, text: str, given: dict[str, str] | None = None) -> list[tuple[int, int, str]]:
    return [(line, col, rule) for line, col, rule, _ in found(path, text, given=given)]


def _kind(path: str, text: str) -> str | None:
    entry = read_entry(path, DictSource({path: text}), Config())
    return entry.kind.name if isinstance(entry, Entry) else None


def test_a_clean_task_with_its_module_has_no_finding() -> None:
    assert found("tasks/demo/demo.yaml", TASK, given={"tasks/demo/utils.py": UTILS}) == []


def test_tasks_groups_and_templates_are_claimed_by_the_harnesss_keys() -> None:
    assert _kind("tasks/demo/demo.yaml", TASK) == "lm-eval-task"
    assert _kind("x/demo.yaml", "include: _t.yaml\ntask: demo\n") == "lm-eval-task"
    group = "group: demo\ntask: [a, b]\naggregate_metric_list: [{metric: acc}]\n"
    assert _kind("x/_demo.yaml", group) == "lm-eval-task"
    template = "dataset_path: d\noutput_type: generate_until\ndoc_to_text: q\n"
    assert _kind("x/_default_template.yaml", template) == "lm-eval-task"


# Other tools' YAML in their documented shapes: none is ever a harness config.
OTHERS = {
    "Taskfile.yml": "version: '3'\ntasks:\n  build:\n    cmds: [go build ./...]\n",
    "playbook.yml": "- hosts: all\n  tasks:\n    - name: ping\n      ansible.builtin.ping:\n",
    "roles/web/tasks/main.yml": "- name: install\n  ansible.builtin.apt: {name: nginx}\n",
    "docker-compose.yml": "services:\n  web:\n    image: nginx\n    ports: ['80:80']\n",
    "k8s/job.yaml": "apiVersion: batch/v1\nkind: Job\nmetadata: {name: task}\nspec: {}\n",
    ".github/workflows/eval.yml": "on: push\njobs:\n  task:\n    runs-on: ubuntu-latest\n",
}


def test_it_never_claims_other_tools_yaml() -> None:
    for path, text in OTHERS.items():
        assert _kind(path, text) is None, path


def test_the_function_tag_is_read_only_in_harness_configs() -> None:
    """`!function` is the harness's tag; in any other kind it stays a parse-error."""
    assert _kind("tasks/demo/demo.yaml", TASK) == "lm-eval-task"
    rubric = "id: tone\nversion: '1.0.0'\nchecks: !function utils.checks\nscoring: {}\n"
    assert _at("rubrics/tone.yaml", rubric) == [(3, 9, "parse-error")]
    other = "task: demo\ndataset_path: d\nprocess_docs: !python/name:os.system\n"
    assert _at("tasks/demo/demo.yaml", other) == [(3, 15, "parse-error")]


def test_unknown_keys_are_errors_with_did_you_mean() -> None:
    """`TaskConfig(**config)` fails on a key it does not know."""
    text = TASK.replace("doc_to_target:", "doc_to_taget:")
    got = found("tasks/demo/demo.yaml", text, given={"tasks/demo/utils.py": UTILS})
    assert [(line, col, rule) for line, col, rule, _ in got] == [(6, 1, "unknown-key")]
    assert got[0][3].endswith("did you mean 'doc_to_target'?")
    bad = TASK.replace("output_type: multiple_choice", "output_type: multiple_choise")
    assert _at("tasks/demo/demo.yaml", bad, {"tasks/demo/utils.py": UTILS}) == [
        (3, 14, "schema-violation")
    ]


def test_what_the_harness_only_warns_of_is_a_warning() -> None:
    """Duplicate keys (the last wins) and a misspelt metric argument (the default is used)."""
    text = TASK.replace("metadata:", "test_split: validation\nmetadata:")
    text = text.replace("higher_is_better: true", "high_is_better: true")
    got = lint_files({"tasks/demo/demo.yaml": text, "tasks/demo/utils.py": UTILS})
    assert [(d.span.line, d.rule, d.severity.label) for d in got] == [
        (12, "key-typo", "warning"),
        (13, "duplicate-key", "warning"),
    ]


def test_flow_lines_libyaml_reads_are_no_error_here() -> None:
    """The harness reads with libyaml, which takes a quoted value's lines at any indentation."""
    text = TASK.replace('doc_to_text: "{{question}}"', 'doc_to_text: "{{question}}\nAnswer:"')
    assert _at("tasks/demo/demo.yaml", text, {"tasks/demo/utils.py": UTILS}) == []
    rubric = 'id: tone\nversion: "1.0.0"\ndescription: "a\nb"\nchecks: []\n'
    assert (4, 1, "parse-error") in _at("rubrics/tone.yaml", rubric)


def test_functions_are_found_by_parsing_the_module_beside_the_file() -> None:
    given = {"tasks/demo/utils.py": UTILS}
    text = TASK.replace("utils.process_docs", "utils.proces_docs")
    got = found("tasks/demo/demo.yaml", text, given=given)
    assert [(line, col, rule) for line, col, rule, _ in got] == [(8, 15, "lm-eval-function")]
    assert got[0][3].endswith("defines no 'proces_docs'; did you mean 'process_docs'?")
    gone = _at("tasks/demo/demo.yaml", TASK.replace("utils.", "helpers."), given)
    assert gone == [(8, 15, "lm-eval-function-unverified")]  # an installed module, perhaps
    bare = _at("tasks/demo/demo.yaml", TASK.replace("utils.process_docs", "process_docs"), given)
    assert bare == [(8, 15, "lm-eval-function")]


def test_a_name_bound_inside_a_function_or_a_class_is_not_the_modules() -> None:
    """The harness looks the name up on the module: a function defined inside another, or a
    class's method, is no attribute of it (AttributeError when the task is built). Names a
    top-level `if`, `try`, `with`, loop or `match` binds are the module's."""
    module = (
        "def outer(dataset):\n    def helper(doc):\n        return doc\n    return dataset\n"
        "class Scorer:\n    def score(self):\n        return 1\n"
        "try:\n    import numpy\nexcept ImportError:\n    def fallback(doc):\n        return doc\n"
        "match 1:\n    case {'k': found, **rest}:\n        pass\n    case _:\n        made = 1\n"
    )
    given = {"tasks/demo/utils.py": module}
    for name in ("helper", "score"):
        text = TASK.replace("utils.process_docs", f"utils.{name}")
        assert _at("tasks/demo/demo.yaml", text, given) == [(8, 15, "lm-eval-function")], name
    for name in ("outer", "Scorer", "fallback", "numpy", "found", "rest", "made"):
        text = TASK.replace("utils.process_docs", f"utils.{name}")
        assert _at("tasks/demo/demo.yaml", text, given) == [], name


def test_a_module_that_makes_names_as_it_runs_gets_a_note_not_an_error() -> None:
    made = "SUBJECTS = ['a', 'b']\nfor s in SUBJECTS:\n    globals()[f'process_{s}'] = len\n"
    text = TASK.replace("utils.process_docs", "utils.process_a")
    got = found("tasks/demo/demo.yaml", text, given={"tasks/demo/utils.py": made})
    assert [(line, col, rule) for line, col, rule, _ in got] == [
        (8, 15, "lm-eval-function-unverified")
    ]
    assert "writes globals()" in got[0][3]


def test_dotted_harness_modules_resolve_under_the_task_tree() -> None:
    text = TASK.replace("utils.process_docs", "lm_eval.tasks.shared.helpers.process_docs")
    given = {"lm_eval/tasks/shared/helpers.py": UTILS}
    assert _at("lm_eval/tasks/demo/demo.yaml", text, given) == []
    broken = text.replace("helpers.process_docs", "helpers.nothing")
    assert _at("lm_eval/tasks/demo/demo.yaml", broken, given) == [(8, 15, "lm-eval-function")]


def test_a_replaced_duplicate_value_is_still_imported() -> None:
    """The harness's loader imports each `!function` as it reads it, the replaced one too."""
    text = TASK.replace(
        "process_docs: !function utils.process_docs",
        "process_docs: !function utils.gone\nprocess_docs: !function utils.process_docs",
    )
    assert _at("tasks/demo/demo.yaml", text, {"tasks/demo/utils.py": UTILS}) == [
        (8, 15, "lm-eval-function"),
        (9, 1, "duplicate-key"),
    ]


TEMPLATE = """\
dataset_path: demo/data
output_type: multiple_choice
doc_to_text: "{{question}}"
doc_to_choice: !function utils.choices
"""


def test_includes_resolve_from_the_including_file() -> None:
    child = "include: _template_yaml\ntask: demo_{}\ndoc_to_target: label\n"
    files = {
        "tasks/demo/_template_yaml": TEMPLATE,
        "tasks/demo/utils.py": "def choices(doc):\n    return ['a', 'b']\n",
        "tasks/demo/a.yaml": child.format("a"),
        "tasks/demo/b.yaml": child.format("b"),
    }
    assert lint_files(files) == []
    missing = {**files, "tasks/demo/a.yaml": child.format("a").replace("_template", "_templ")}
    got = [(d.path, d.span.line, d.span.column, d.rule) for d in lint_files(missing)]
    assert got == [("tasks/demo/a.yaml", 1, 10, "lm-eval-include")]


def test_a_finding_in_a_template_is_reported_once_on_the_template() -> None:
    """Two tasks include a template whose function is missing: one finding, on the template."""
    child = "include: _template_yaml\ntask: demo_{}\ndoc_to_target: label\n"
    files = {
        "tasks/demo/_template_yaml": TEMPLATE,
        "tasks/demo/utils.py": "def choice(doc):\n    return ['a', 'b']\n",
        "tasks/demo/a.yaml": child.format("a"),
        "tasks/demo/b.yaml": child.format("b"),
    }
    got = [(d.path, d.span.line, d.span.column, d.rule) for d in lint_files(files)]
    assert got == [("tasks/demo/_template_yaml", 4, 16, "lm-eval-function")]


def test_include_cycles_and_diamonds_are_errors_as_the_harness_has_them() -> None:
    """The harness's seen set spans the whole load: a file reached twice is an include cycle."""
    loop = {
        "t/a.yaml": "include: b.yaml\ntask: a\ndataset_path: d\n",
        "t/b.yaml": "include: a.yaml\ndataset_path: d\noutput_type: generate_until\n",
    }
    looped = [(d.path, d.span.line, d.span.column, d.rule) for d in lint_files(loop)]
    assert ("t/a.yaml", 1, 10, "lm-eval-include") in looped
    diamond = {
        "t/x.yaml": "include: [l.yaml, r.yaml]\ntask: x\n",
        "t/l.yaml": "include: _base\ndataset_path: d\noutput_type: generate_until\n",
        "t/r.yaml": "include: _base\ndataset_path: d\noutput_type: generate_until\n",
        "t/_base": "doc_to_text: q\n",
    }
    got = [(d.path, d.span.line, d.rule) for d in lint_files(diamond) if d.path == "t/x.yaml"]
    assert got == [("t/x.yaml", 1, "lm-eval-include")]


def test_an_include_outside_the_repository_is_reported_never_read() -> None:
    text = "include: ../../../etc/passwd\ntask: demo\ndataset_path: d\n"
    assert _at("tasks/demo.yaml", text) == [(1, 10, "lm-eval-include")]
    absolute = "include: /etc/passwd\ntask: demo\ndataset_path: d\n"
    assert _at("tasks/demo.yaml", absolute) == [(1, 10, "lm-eval-include")]


def test_unknown_keys_of_a_file_with_includes_wait_for_the_merged_config() -> None:
    """A template that names a Python `class` hands every key to it (unitxt's `recipe`)."""
    classy = "class: !function task.Unitxt\ndataset_path: d\n"
    task = "class Unitxt:\n    pass\n"
    child = "task: news\ninclude: unitxt\nrecipe: card=cards.ag_news\n"
    given = {"tasks/u/unitxt": classy, "tasks/u/task.py": task}
    assert _at("tasks/u/news.yaml", child, given) == []
    plain = {"tasks/u/unitxt": "dataset_path: d\noutput_type: generate_until\n"}
    assert _at("tasks/u/news.yaml", child, plain) == [(3, 1, "lm-eval-unknown-key")]


def test_multiple_choice_needs_choices_in_the_file_or_its_includes() -> None:
    given = {"tasks/demo/utils.py": UTILS}
    text = TASK.replace('doc_to_choice: ["no", "yes"]\n', "")
    assert _at("tasks/demo/demo.yaml", text, given) == [(3, 14, "lm-eval-missing-choices")]
    files = {
        "tasks/demo/_t_yaml": "output_type: multiple_choice\ndataset_path: d\n",
        "tasks/demo/a.yaml": "include: _t_yaml\ntask: a\ndoc_to_text: q\n",
    }
    got = [(d.path, d.span.line, d.span.column, d.rule) for d in lint_files(files)]
    assert got == [("tasks/demo/a.yaml", 2, 7, "lm-eval-missing-choices")]


def test_templates_are_read_as_jinja_at_exact_columns() -> None:
    given = {"tasks/demo/utils.py": UTILS}
    text = TASK.replace('"{{question}}"', '"Q: {{question}\\nA:"')
    got = found("tasks/demo/demo.yaml", text, given=given)
    assert [(line, col, rule) for line, col, rule, _ in got] == [(5, 18, "lm-eval-template")]
    assert got[0][3] == "{{ is never closed by }}"
    plain = TASK.replace('"{{question}}"', "'{{ question | uper }}'")
    assert _at("tasks/demo/demo.yaml", plain, given) == [(5, 29, "lm-eval-template")]
    ok = TASK.replace('"{{question}}"', "\"{{ question | regex_replace('a', 'b') }}\"")
    assert _at("tasks/demo/demo.yaml", ok, given) == []
    block = TASK.replace('"{{question}}"', '"{% if question %}{{question}}"')
    assert _at("tasks/demo/demo.yaml", block, given) == [(5, 15, "lm-eval-template")]
    # Braces written as escapes only (no brace in the text): read as the loader reads them.
    escaped = TASK.replace('"{{question}}"', '"Q: \\u007b\\u007bquestion}\\nA:"')
    assert "{" not in escaped and "\\u007b" in escaped
    assert _at("tasks/demo/demo.yaml", escaped, given) == [(5, 18, "lm-eval-template")]


def test_the_template_scanner_takes_linear_time_on_hostile_text() -> None:
    from evallint.parse.jinja import problems

    for text in ("{{ '" * 200_000, "{% if a %}" * 100_000, "{{ (" * 200_000, "{" * 400_000):
        started = time.perf_counter()
        assert len(list(problems(text))) <= 100_001
        # Under a second on these machines; a scanner quadratic in 400,000 characters is not.
        assert time.perf_counter() - started < 5.0


def _diff(repo: Repo) -> list[tuple[str, int, str]]:
    report = evallint.api.check(cwd=repo.root, diff="main", cache=False)
    return [(d.path, d.span.line, d.rule) for d in report.diagnostics]


def test_a_diff_that_changes_a_template_checks_the_tasks_that_include_it(tmp_path: Path) -> None:
    """The template has no eval file's extension; its includers lie outside the change."""
    repo = Repo(tmp_path / "repo")
    child = "include: _template_yaml\ntask: demo_{}\ndoc_to_target: label\n"
    repo.commit(
        {
            "tasks/demo/_template_yaml": "dataset_path: d\noutput_type: multiple_choice\n"
            "doc_to_choice: [a, b]\n",
            "tasks/demo/a.yaml": child.format("a"),
            "tasks/demo/b.yaml": child.format("b"),
        }
    )
    repo.git("checkout", "-q", "-b", "change")
    repo.commit({"tasks/demo/_template_yaml": "dataset_path: d\noutput_type: multiple_choice\n"})
    assert _diff(repo) == [
        ("tasks/demo/a.yaml", 1, "lm-eval-version-missing"),
        ("tasks/demo/a.yaml", 2, "lm-eval-missing-choices"),
        ("tasks/demo/b.yaml", 1, "lm-eval-version-missing"),
        ("tasks/demo/b.yaml", 2, "lm-eval-missing-choices"),
    ]


def test_a_diff_that_changes_a_module_checks_the_tasks_that_name_it(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit(
        {"tasks/demo/demo.yaml": TASK, "tasks/demo/utils.py": UTILS, "other.yaml": "a: 1\n"}
    )
    repo.git("checkout", "-q", "-b", "change")
    repo.commit({"tasks/demo/utils.py": UTILS.replace("def process_docs", "def process")})
    assert _diff(repo) == [("tasks/demo/demo.yaml", 8, "lm-eval-function")]
    repo.commit({"tasks/demo/utils.py": UTILS})
    assert _diff(repo) == []


VERSIONED = """\
task: demo
dataset_path: demo/data
process_docs: !function utils.process_docs
num_fewshot: 0
metadata:
  version: 1.0
"""


def test_a_scoring_change_needs_a_version_bump(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit({"tasks/demo/demo.yaml": VERSIONED, "tasks/demo/utils.py": UTILS})
    repo.git("checkout", "-q", "-b", "change")
    repo.commit({"tasks/demo/demo.yaml": VERSIONED.replace("num_fewshot: 0", "num_fewshot: 5")})
    # On the changed line, where the change is (the fix raises metadata.version).
    assert _diff(repo) == [("tasks/demo/demo.yaml", 4, "lm-eval-version-not-bumped")]
    bumped = VERSIONED.replace("num_fewshot: 0", "num_fewshot: 5").replace("1.0", "2.0")
    repo.commit({"tasks/demo/demo.yaml": bumped})
    assert _diff(repo) == []


def test_prose_changes_need_no_bump(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit({"tasks/demo/demo.yaml": VERSIONED, "tasks/demo/utils.py": UTILS})
    repo.git("checkout", "-q", "-b", "change")
    repo.commit({"tasks/demo/demo.yaml": VERSIONED + "tag: [demo_tasks]\ntask_alias: Demo\n"})
    assert _diff(repo) == []


def test_a_changed_function_body_needs_a_bump_of_the_tasks_naming_it(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.commit({"tasks/demo/demo.yaml": VERSIONED, "tasks/demo/utils.py": UTILS})
    repo.git("checkout", "-q", "-b", "change")
    body = UTILS.replace("return dataset", "return dataset.shuffle(seed=1)")
    repo.commit({"tasks/demo/utils.py": body})
    got = evallint.api.check(cwd=repo.root, diff="main", cache=False).diagnostics
    assert [(d.path, d.span.line, d.span.column, d.rule) for d in got] == [
        ("tasks/demo/demo.yaml", 6, 12, "lm-eval-version-not-bumped")
    ]
    assert got[0].message.startswith("process_docs changed (through tasks/demo/utils.py)")
    repo.commit({"tasks/demo/utils.py": body + "\n\n# a comment elsewhere\n"})
    repo.commit({"tasks/demo/demo.yaml": VERSIONED.replace("1.0", "2.0")})
    assert _diff(repo) == []


def test_a_template_change_is_reported_once_on_the_templates_version(tmp_path: Path) -> None:
    """The version lives in the template 3 tasks include: one finding, on the template."""
    repo = Repo(tmp_path / "repo")
    template = (
        "dataset_path: d\noutput_type: generate_until\nnum_fewshot: 0\nmetadata:\n  version: 1.0\n"
    )
    child = "include: _template_yaml\ntask: demo_{}\ndoc_to_text: q\n"
    repo.commit(
        {
            "tasks/demo/_template_yaml": template,
            **{f"tasks/demo/{n}.yaml": child.format(n) for n in "abc"},
        }
    )
    repo.git("checkout", "-q", "-b", "change")
    repo.commit({"tasks/demo/_template_yaml": template.replace("num_fewshot: 0", "num_fewshot: 3")})
    assert _diff(repo) == [("tasks/demo/_template_yaml", 3, "lm-eval-version-not-bumped")]
    repo.commit(
        {
            "tasks/demo/_template_yaml": template.replace(
                "num_fewshot: 0", "num_fewshot: 3"
            ).replace("1.0", "2.0")
        }
    )
    assert _diff(repo) == []


def test_a_task_without_a_version_gets_a_note(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    plain = "task: demo\ndataset_path: d\nnum_fewshot: 0\n"
    repo.commit({"tasks/demo/demo.yaml": plain})
    repo.git("checkout", "-q", "-b", "change")
    repo.commit({"tasks/demo/demo.yaml": plain.replace("0", "2")})
    assert _diff(repo) == [("tasks/demo/demo.yaml", 1, "lm-eval-version-missing")]
    got = evallint.api.check(cwd=repo.root, diff="main", cache=False).diagnostics
    assert [(d.span.line, d.span.column) for d in got] == [(1, 7)]  # at the task's name


def test_a_task_in_a_yml_file_is_never_indexed() -> None:
    text = "task: demo\ndataset_path: d\n"
    assert _at("tasks/demo/demo.yml", text) == [(1, 1, "lm-eval-yml-not-indexed")]
    assert _at("tasks/demo/demo.yaml", text) == []
    assert _at("tasks/demo/_t.yml", "dataset_path: d\noutput_type: generate_until\n") == []


HARNESS = {"tasks/__init__.py": "", "tasks/_index.py": "", "tasks/manager.py": ""}


def test_a_group_naming_what_no_file_defines() -> None:
    """In the harness's own tree an error; elsewhere a built-in task of lm-eval 0.4.13 is a
    note, and a name that is neither is an error, with the built-in name it may mean."""
    files = {
        "tasks/demo/demo.yaml": "task: demo\ndataset_path: d\ntag: [demo_tag]\n",
        "tasks/demo/_g.yaml": "group: g\ntask:\n  - demo\n  - demo_tag\n  - dmeo\n"
        "  - task: other\n  - task: inline\n    dataset_path: d\n",
    }
    builtins = {"tasks/demo/_b.yaml": "group: b\ntask: [hellaswag, hellaswg, demo]\n"}
    got = [(d.path, d.span.line, d.span.column, d.rule) for d in lint_files({**files, **HARNESS})]
    assert got == [
        ("tasks/demo/_g.yaml", 5, 5, "lm-eval-unknown-task"),
        ("tasks/demo/_g.yaml", 6, 11, "lm-eval-unknown-task"),
    ]
    got = [(d.path, d.span.line, d.span.column, d.rule) for d in lint_files(files)]
    assert got == [
        ("tasks/demo/_g.yaml", 5, 5, "lm-eval-unknown-task"),
        ("tasks/demo/_g.yaml", 6, 11, "lm-eval-unknown-task"),
    ]
    found = lint_files({**files, **builtins})
    got = [(d.path, d.span.line, d.span.column, d.rule) for d in found]
    assert got == [
        ("tasks/demo/_b.yaml", 2, 8, "lm-eval-task-elsewhere"),
        ("tasks/demo/_b.yaml", 2, 19, "lm-eval-unknown-task"),
        ("tasks/demo/_g.yaml", 5, 5, "lm-eval-unknown-task"),
        ("tasks/demo/_g.yaml", 6, 11, "lm-eval-unknown-task"),
    ]
    assert found[0].message == (
        "'hellaswag' is a built-in task of lm-eval 0.4.13, not defined in this repository: not "
        "checked here"
    )
    assert found[1].message.endswith("did you mean 'hellaswag'?")


def test_one_module_text_in_many_folders_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The harness tree copies its helper modules into many folders: each text is parsed once
    a run, and each copy still answers for its own folder."""
    import evallint.parse.python as python

    parsed: list[bytes] = []
    real = python.read_module

    def counted(raw: bytes) -> python.Module:
        parsed.append(raw)
        return real(raw)

    monkeypatch.setattr(python, "read_module", counted)
    task = TASK.replace("utils.process_docs", "utils.process_dcos")
    files = {f"tasks/{name}/{name}.yaml": task.replace("demo", name) for name in ("a", "b")}
    files |= {f"tasks/{name}/utils.py": UTILS for name in ("a", "b")}
    got = [(d.path, d.rule, d.message.partition(": ")[2]) for d in lint_files(files)]
    assert got == [
        (
            f"tasks/{name}/{name}.yaml",
            "lm-eval-function",
            f"tasks/{name}/utils.py defines no 'process_dcos'; did you mean 'process_docs'?",
        )
        for name in ("a", "b")
    ]
    assert len(parsed) == 1


def test_the_harnesss_own_package_is_found_above_a_file() -> None:
    from evallint.formats.lmeval.rules_read import in_harness

    package = frozenset({"lm_eval/tasks/_index.py", "lm_eval/tasks/manager.py"})
    files = package | {"lm_eval/tasks/__init__.py"}
    assert in_harness("lm_eval/tasks/arc/arc.yaml", files)
    assert in_harness("lm_eval/tasks/_g.yaml", files)
    assert not in_harness("lm_eval/other/arc.yaml", files)
    assert not in_harness("lm_eval/tasks/arc/arc.yaml", package)  # no __init__.py
    root = frozenset({"_index.py", "manager.py", "__init__.py"})
    assert in_harness("arc/arc.yaml", root) and in_harness("g.yaml", root)


def test_a_member_is_what_a_config_registers_not_any_text() -> None:
    """lm-eval 0.4.13 registers a config's `task`, `group` and `tag` (its includes merged): a
    name another config writes only in a prompt, or that two groups name, is registered by
    none, and the group fails ("not a registered task"). A tag a template gives is one."""
    files = {
        "tasks/demo/demo.yaml": "task: demo\ndataset_path: d\ndoc_to_text: 'like ghost'\n",
        "tasks/demo/_t_yaml": "tag: [tmpl_tag]\ndataset_path: d\n",
        "tasks/demo/t.yaml": "include: _t_yaml\ntask: t\n",
        "tasks/demo/_g.yaml": "group: g\ntask: [demo, tmpl_tag, ghost, twice]\n",
        "tasks/demo/_h.yaml": "group: h\ntask:\n  - g\n  - twice\n",
    }
    want = [
        ("tasks/demo/_g.yaml", 2, 24, "lm-eval-unknown-task"),
        ("tasks/demo/_g.yaml", 2, 31, "lm-eval-unknown-task"),
        ("tasks/demo/_h.yaml", 4, 5, "lm-eval-unknown-task"),
    ]
    got = [(d.path, d.span.line, d.span.column, d.rule) for d in lint_files({**files, **HARNESS})]
    assert got == want
    # A run of the group files alone (pre-commit's) does not parse the rest of the tree: a
    # name a file outside the run writes anywhere may be one it registers, and is not reported.
    tree = sorted({**files, **HARNESS})
    groups = ["tasks/demo/_g.yaml", "tasks/demo/_h.yaml"]
    report = lint(groups, DictSource({**files, **HARNESS}), Config(), tree=tree)
    got = [(d.path, d.span.line, d.span.column, d.rule) for d in report.diagnostics]
    assert got == want[1:]


def test_a_diff_searches_for_readers_only_of_files_a_config_can_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search reads every file of the tree: a rubric or a script no config can read is not
    looked for (a large tree's edit of one rubric would pay for it)."""
    import evallint.io.git as git

    asked: list[object] = []
    real = git.grep_files

    def counted(root: Path, needles: list[bytes]) -> set[str] | None:
        asked.append(needles)
        return real(root, needles)

    monkeypatch.setattr(git, "grep_files", counted)
    repo = Repo(tmp_path / "repo")
    rubric = "id: tone\nversion: '1.0.0'\nchecks: []\nscoring: {combine: all_pass}\n"
    files = {"rubrics/tone.yaml": rubric, "scripts/run.py": "X = 1\n", **_TASK_FILES}
    repo.commit(files)
    repo.git("checkout", "-q", "-b", "change")
    repo.commit({"rubrics/tone.yaml": rubric.replace("1.0.0", "2.0.0"), "scripts/run.py": "X=2\n"})
    _diff(repo)
    assert asked == []
    repo.commit({"tasks/demo/utils.py": UTILS + "\n# more\n"})
    _diff(repo)
    assert asked == [[b"utils"], [b"demo.yaml"]]  # and what includes its reader


_TASK_FILES = {"tasks/demo/demo.yaml": TASK, "tasks/demo/utils.py": UTILS}


def test_the_search_for_readers_reads_nothing_through_a_link_out() -> None:
    """Outside git every candidate is read: a link out of the repository is not."""
    from evallint.engine.readers import readers

    files = {
        "tasks/demo/_template_yaml": TEMPLATE,
        "tasks/demo/a.yaml": "include: _template_yaml\ntask: a\ndoc_to_target: label\n",
        "tasks/demo/evil.yaml": "# symlink -> ../../../elsewhere/_template_yaml\n",
    }

    read_paths: list[str] = []

    class Recording(DictSource):
        def read(self, path: str) -> bytes:
            read_paths.append(path)
            return super().read(path)

    source = Recording(files)
    found = readers(
        ["tasks/demo/_template_yaml"],
        set(),
        frozenset(files),
        source,
        Config(),
        lambda needles: None,
        source.outside,
    )
    assert [(entry.path, read) for entry, read in found] == [
        ("tasks/demo/a.yaml", "tasks/demo/_template_yaml")
    ]
    assert "tasks/demo/evil.yaml" not in read_paths


BROKEN_TEMPLATES = {
    "syntax": (b"dataset_path: [d\n", "does not parse"),
    "bytes": (b"dataset_path: d\xff\n", "not valid UTF-8"),
    "not a mapping": (b"a" * 5000 + b"\n", "holds no mapping"),
}


@pytest.mark.parametrize("how", BROKEN_TEMPLATES)
def test_a_diff_that_breaks_a_template_reports_its_includers(tmp_path: Path, how: str) -> None:
    """A template that no longer parses is still one the tasks read: never "no problems"."""
    repo = Repo(tmp_path / "repo")
    good = "dataset_path: d\noutput_type: generate_until\ndoc_to_text: q\n"
    repo.commit(
        {
            "tasks/demo/_template_yaml": good,
            "tasks/demo/a.yaml": "include: _template_yaml\ntask: a\n",
        }
    )
    repo.git("checkout", "-q", "-b", "change")
    raw, message = BROKEN_TEMPLATES[how]
    (repo.root / "tasks/demo/_template_yaml").write_bytes(raw)
    repo.commit({})
    got = evallint.api.check(cwd=repo.root, diff="main", cache=False).diagnostics
    assert [(d.path, d.span.line, d.span.column, d.rule) for d in got] == [
        ("tasks/demo/a.yaml", 1, 10, "lm-eval-include")
    ]
    assert message in got[0].message


def test_a_diff_that_removes_a_function_from_a_module_reports_its_users(tmp_path: Path) -> None:
    """A module that parses as YAML too (`def f(d):` is a mapping key) is still a module."""
    repo = Repo(tmp_path / "repo")
    task = "task: b\ndataset_path: d\nprocess_docs: !function utils.f\n"
    repo.commit({"tasks/demo/b.yaml": task, "tasks/demo/utils.py": "def f(d):\n    return d\n"})
    repo.git("checkout", "-q", "-b", "change")
    repo.commit({"tasks/demo/utils.py": "def g(d):\n    return d\n"})
    assert _diff(repo) == [("tasks/demo/b.yaml", 3, "lm-eval-function")]


def test_bump_raises_a_harness_version_by_one(tmp_path: Path, run: Run) -> None:
    """`evallint bump` answers lm-eval-version-not-bumped as the harness's guide asks."""
    repo = Repo(tmp_path / "repo")
    repo.commit({"tasks/demo/demo.yaml": VERSIONED, "tasks/demo/utils.py": UTILS})
    repo.git("checkout", "-q", "-b", "change")
    changed = VERSIONED.replace("num_fewshot: 0", "num_fewshot: 5")
    repo.write({"tasks/demo/demo.yaml": changed.replace("1.0", "1.0  # kept")})
    code, out, _ = run("bump", "--diff", "main", cwd=repo.root)
    assert (code, out.splitlines()[1:]) == (
        0,
        ["tasks/demo/demo.yaml:6: 1.0 → 2.0", "1 change written"],
    )
    assert (repo.root / "tasks/demo/demo.yaml").read_text() == changed.replace("1.0", "2.0  # kept")
    assert _diff(repo) == []


def test_a_bump_is_offered_only_for_a_version_that_is_a_plain_number() -> None:
    from evallint.formats.lmeval.rules_versions import _raised_by_one

    assert [_raised_by_one(v) for v in (1.0, 3, "1.0", "1.5", "7")] == [
        "2.0",
        "4",
        "2.0",
        "2.5",
        "8",
    ]
    # No fix where the harness's "by 1" has no plain reading, nor for hostile text.
    assert {_raised_by_one(v) for v in (True, None, "v1", "²", "1.²", "9" * 5000, 1e300)} == {None}


def test_an_include_of_any_name_is_read_as_yaml() -> None:
    """The harness loads an include as YAML whatever its name: a `.txt` template was a false
    lm-eval-include error ("holds no mapping")."""
    template = "dataset_path: d\noutput_type: generate_until\ndoc_to_text: q\n"
    files = {"tasks/_tmpl.txt": template, "tasks/demo.yaml": "include: _tmpl.txt\ntask: demo\n"}
    assert lint_files(files) == []


def test_a_task_with_a_group_never_registers() -> None:
    """0.4.13 indexes a config with `group` as a group: the task is no registered name."""
    own = "group: suite\ntask: demo\ndataset_path: d\noutput_type: generate_until\n"
    found = lint_files({"tasks/demo.yaml": own})
    assert [(d.path, d.span.line, d.span.column, d.rule) for d in found] == [
        ("tasks/demo.yaml", 1, 1, "lm-eval-group-task")
    ]
    assert "write `tag: suite`" in found[0].message
    # Inherited from a template: reported once, on the template's key.
    template = "group: suite\ndataset_path: d\noutput_type: generate_until\n"
    child = "include: _t_yaml\ntask: demo_{}\ndoc_to_text: q\n"
    files = {"tasks/_t_yaml": template, **{f"tasks/{n}.yaml": child.format(n) for n in "ab"}}
    assert [(d.path, d.span.line, d.rule) for d in lint_files(files)] == [
        ("tasks/_t_yaml", 1, "lm-eval-group-task")
    ]
    # A group file (task: a list) and a Python task with a group are what they say.
    group = "group: suite\ntask: [demo_a, demo_b]\n"
    python = "group: suite\ntask: demo_py\nclass: !function task.Demo\n"
    module = "class Demo:\n    pass\n"
    files = {"tasks/suite.yaml": group, "tasks/py.yaml": python, "tasks/task.py": module}
    assert [d.rule for d in lint_files(files) if d.rule == "lm-eval-group-task"] == []


def test_two_configs_of_one_task_name_are_an_error_on_the_later() -> None:
    first = "task: demo\ndataset_path: demo/a\noutput_type: generate_until\ndoc_to_text: q\n"
    files = {"tasks/a/demo.yaml": first, "tasks/b/demo.yaml": first.replace("/a", "/b")}
    found = lint_files(files)
    assert [(d.path, d.span.line, d.span.column, d.rule) for d in found] == [
        ("tasks/b/demo.yaml", 1, 7, "lm-eval-duplicate-task")
    ]
    assert "registered by tasks/a/demo.yaml" in found[0].message


def test_a_function_path_the_harness_cannot_import_is_an_error() -> None:
    """0.4.13 turns the dots of `../shared/utils` into folders (`///shared/utils.py`): an
    error, where it was a note."""
    task = "task: demo\ndataset_path: d\nprocess_docs: !function ../shared/utils.f\n"
    files = {"tasks/demo/demo.yaml": task, "tasks/shared/utils.py": "def f(d):\n    return d\n"}
    found = lint_files(files)
    assert [(d.span.line, d.rule, d.severity.label) for d in found] == [
        (3, "lm-eval-function", "error")
    ]
    assert "///shared/utils.py" in found[0].message


def test_a_description_change_needs_a_bump(tmp_path: Path) -> None:
    """0.4.13 puts `description` at the head of every prompt: it changes scores."""
    repo = Repo(tmp_path / "repo")
    repo.commit(
        {
            "tasks/demo/demo.yaml": VERSIONED + "description: 'Answer briefly.'\n",
            "tasks/demo/utils.py": UTILS,
        }
    )
    repo.git("checkout", "-q", "-b", "change")
    repo.commit({"tasks/demo/demo.yaml": VERSIONED + "description: 'Answer in full.'\n"})
    assert _diff(repo) == [("tasks/demo/demo.yaml", 7, "lm-eval-version-not-bumped")]


def test_the_version_rule_runs_under_base_as_under_diff(tmp_path: Path, run: Run) -> None:
    """`check --base main` compared no harness version: the base's files were not read."""
    repo = Repo(tmp_path / "repo")
    template = (
        "dataset_path: d\noutput_type: generate_until\nnum_fewshot: 0\nmetadata:\n  version: 1.0\n"
    )
    child = "include: _template_yaml\ntask: demo\ndoc_to_text: q\n"
    repo.commit({"tasks/demo/_template_yaml": template, "tasks/demo/a.yaml": child})
    repo.git("checkout", "-q", "-b", "change")
    repo.commit({"tasks/demo/_template_yaml": template.replace("num_fewshot: 0", "num_fewshot: 3")})
    _, out, _ = run("check", "--base", "main", "--format", "json", "--no-cache", cwd=repo.root)
    assert [(d["path"], d["line"], d["rule"]) for d in json.loads(out)["diagnostics"]] == [
        ("tasks/demo/_template_yaml", 3, "lm-eval-version-not-bumped")
    ]


@pytest.mark.parametrize("how", ["diff", "named"])
def test_deleting_a_config_reports_the_groups_naming_its_task(tmp_path: Path, how: str) -> None:
    """A group names its members by the names their configs register, not by path: deleting
    the config that registers one breaks the group (lm-eval 0.4.13: "not a registered task")."""
    repo = Repo(tmp_path / "repo")
    repo.commit(
        {
            "tasks/demo/demo.yaml": "task: demo\ndataset_path: d\ntag: [demo_tag]\n",
            "tasks/demo/other.yaml": "task: other\ndataset_path: d\n",
            "tasks/demo/_g.yaml": "group: g\ntask:\n  - demo\n  - demo_tag\n  - other\n",
            **HARNESS,
        }
    )
    repo.git("checkout", "-q", "-b", "change")
    repo.git("rm", "-q", "tasks/demo/demo.yaml")
    if how == "diff":
        repo.git("commit", "-q", "-m", "delete")
        report = evallint.api.check(cwd=repo.root, diff="main", cache=False)
    else:  # pre-commit's run is named the files that stay: here, another config of the folder
        report = evallint.api.check(["tasks/demo/other.yaml"], cwd=repo.root, cache=False)
    got = [(d.path, d.span.line, d.span.column, d.rule) for d in report.diagnostics]
    assert got == [
        ("tasks/demo/_g.yaml", 3, 5, "lm-eval-unknown-task"),
        ("tasks/demo/_g.yaml", 4, 5, "lm-eval-unknown-task"),
    ]


def test_a_deleted_name_no_argument_can_hold_is_searched_for_without_git(tmp_path: Path) -> None:
    """A name written with an escape git's arguments cannot carry (`\\0`), or too long for one,
    is looked for by reading the files: no crash, and the group naming it is still found (a
    name that is no word is not decided in a partial run, and not reported)."""
    for name, want in (('"a\\0b"', []), ('"' + "z" * 200_000 + '"', ["lm-eval-unknown-task"])):
        repo = Repo(tmp_path / f"repo{len(name)}")
        value = name.encode().decode("unicode_escape").strip('"')
        group = "group: g\ntask:\n  - " + name + "\n"
        repo.commit(
            {
                "tasks/demo/demo.yaml": f"task: {name}\ndataset_path: d\n",
                "tasks/demo/_g.yaml": group,
                **HARNESS,
            }
        )
        repo.git("checkout", "-q", "-b", "change")
        repo.git("rm", "-q", "tasks/demo/demo.yaml")
        repo.git("commit", "-q", "-m", "delete")
        report = evallint.api.check(cwd=repo.root, diff="main", cache=True)
        assert [d.rule for d in report.diagnostics] == want, value[:8]
