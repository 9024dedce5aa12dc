"""lm-evaluation-harness's whole upstream task tree, against the harness's own verdict.

The tree is the stored copy in `../shared/corpus/other/lm-eval-harness/upstream/tasks` (its
SOURCE.md gives the commit). Not all of it builds: the afrimmlu prompt templates name an
aggregation `utils.weighted_f1_score` their `utils.py` lacks (175 tasks include them), and an
evalita group file names a missing function under a key it writes twice, and an afrimgsm group
lists a task nothing defines. evallint must give errors there and nowhere else. The oracle test
asks lm-eval 0.4.13,
installed in a venv of its own (never the project's; `.ci/run` makes it), for its index's and
its loader's verdict on every file.
"""

from __future__ import annotations

import json
import os
import posixpath
import shutil
import subprocess
import sys
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
import yaml

import evallint.api
from conftest import shared_or_skip
from evallint.config import Config
from evallint.engine.run import lint
from evallint.io.source import FsSource
from evallint.model import Report, Severity
from evallint.parse import eval_files
from test_git import Repo

TREE = ("corpus", "other", "lm-eval-harness", "upstream", "tasks")
ORACLE = Path(__file__).with_name("lmeval_oracle.py")
PACKAGES = (
    ["lm_eval==0.4.13", "--no-deps"],
    ["pyyaml", "jinja2", "numpy", "requests", "datasets", "sacrebleu", "typing_extensions"],
    # What most task modules import (the rest of them, their verdict is "environment").
    ["scikit-learn", "evaluate"],
)

# The files the harness cannot build, and the rule that says why (reported on the file that
# holds the mistake: a template once, not each of its tasks).
EXPECTED = {
    **{
        f"afrimmlu/{way}/prompt_{n}/afrimmlu_{way}": "lm-eval-function"
        for way in ("direct", "translate")
        for n in range(1, 6)
    },
    "evalita_llm/_evalita-mp_ner-fic_group_p1.yaml": "lm-eval-function",
    "afrimgsm/direct/afrimgsm.yaml": "lm-eval-unknown-task",
}
# What the harness only warns of (or passes over) may be a warning, never an error.
WARNINGS = {"duplicate-key", "key-typo"}


@cache
def _report() -> tuple[Path, Report]:
    root = shared_or_skip(*TREE)
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    return root, lint(eval_files(files), FsSource(root), Config(), tree=files)


def test_errors_are_exactly_where_the_harness_cannot_build() -> None:
    _, report = _report()
    errors = {d.path: d.rule for d in report.diagnostics if d.severity is Severity.ERROR}
    assert errors == EXPECTED
    warned = Counter(d.rule for d in report.diagnostics if d.severity is Severity.WARNING)
    assert set(warned) <= WARNINGS, warned


def test_every_file_the_harness_indexes_is_claimed() -> None:
    _, report = _report()
    claimed = {path for path, label in report.kinds if label.startswith("lm-eval-task ")}
    yaml_files = {p for p in eval_files(_files()) if p.endswith(".yaml")}
    assert yaml_files - claimed == set()
    assert not report.unreadable


def _files() -> list[str]:
    root, _ = _report()
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def _oracle_python() -> Path:
    """A Python with lm-eval 0.4.13 and what its index and loader import, installed apart from
    the project's environment (`.ci/run` makes one: see ORACLE_PACKAGES there)."""
    found = os.environ.get("EVALLINT_LM_EVAL_PYTHON")
    if not found or not Path(found).is_file():
        pytest.skip(
            "no lm-eval 0.4.13 to compare with: EVALLINT_LM_EVAL_PYTHON names a Python that has "
            f"it, in a venv of its own ({' '.join(' '.join(p) for p in PACKAGES)}); .ci/run "
            "installs one"
        )
    return Path(found)


def _includes(root: Path, path: str, seen: set[str]) -> set[str]:
    """The files a config includes, through every level (read here, as the harness does)."""

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda loader, node: None)
    try:
        data = yaml.load((root / path).read_text(encoding="utf-8"), Loader=Loader)
    except (OSError, yaml.YAMLError):
        return seen
    found = data.get("include") if isinstance(data, dict) else None
    for inc in found if isinstance(found, list) else [found] if found else []:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(path), str(inc)))
        if target not in seen:
            seen.add(target)
            _includes(root, target, seen)
    return seen


def test_the_harness_agrees() -> None:
    """0 false errors and 0 misses against lm-eval 0.4.13 on every file it gives a verdict."""
    root, report = _report()
    python = _oracle_python()
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [str(python), str(ORACLE), str(root)],
        capture_output=True,
        text=True,
        timeout=1800,
        env=env,
        check=True,
    )
    verdicts: dict[str, str] = json.loads(done.stdout)
    errors = {d.path for d in report.diagnostics if d.severity is Severity.ERROR}
    tally: Counter[str] = Counter()
    for path, verdict in verdicts.items():
        way = verdict.partition(":")[0]
        reached = {path} | _includes(root, path, set())
        if way in ("missing", "load", "template", "member"):
            assert reached & errors, f"the harness cannot build {path} ({verdict}); no error"
        elif way in ("index", "skip"):
            assert not reached & errors, f"the harness builds {path}; evallint gives an error"
        tally[way] += 1
    print(f"\nlm-eval 0.4.13 on {len(verdicts)} files: {dict(tally)}", file=sys.stderr)
    # The 175 afrimmlu tasks, the evalita group file and the afrimgsm group; the rest it builds.
    assert tally["index"] > 13_000 and tally["missing"] == 176 and tally["member"] == 1


# Defects planted in real task files: (file, text replaced, replacement, the rule that must
# report it, the file it must be reported on). "" as the replacement deletes the file.
MUTATIONS = [
    ("arc/arc_easy.yaml", "doc_to_target:", "doc_to_taget:", "unknown-key", "arc/arc_easy.yaml"),
    (
        "mmlu/default/mmlu_anatomy.yaml",
        '"task_alias"',
        '"task_alais"',
        "lm-eval-unknown-key",
        "mmlu/default/mmlu_anatomy.yaml",
    ),
    ("mmlu/default/_default_template_yaml", "", "", "lm-eval-include", None),
    (
        "hellaswag/utils.py",
        "def process_docs",
        "def process_doc",
        "lm-eval-function",
        "hellaswag/hellaswag.yaml",
    ),
    (
        "arc/arc_easy.yaml",
        '"Question: {{question}}\\nAnswer:"\ndoc_to_target',
        '"Question: {{question}\\nAnswer:"\ndoc_to_target',
        "lm-eval-template",
        "arc/arc_easy.yaml",
    ),
    (
        "arc/arc_easy.yaml",
        'doc_to_choice: "{{choices.text}}"\n',
        "",
        "lm-eval-missing-choices",
        "arc/arc_easy.yaml",
    ),
    (
        "mmlu/default/_default_template_yaml",
        "doc_to_choice: [",
        "doc_to_choices: [",
        "lm-eval-unknown-key",
        "mmlu/default/_default_template_yaml",
    ),
    (
        "arc/arc_easy.yaml",
        "output_type: multiple_choice",
        "output_type: multiple_choise",
        "schema-violation",
        "arc/arc_easy.yaml",
    ),
    (
        "mmlu/default/mmlu_anatomy.yaml",
        '"include": "_default_template_yaml"',
        '"include": "_default_template.yaml"',
        "lm-eval-include",
        "mmlu/default/mmlu_anatomy.yaml",
    ),
    (
        "mmlu/default/_mmlu_stem.yaml",
        "- mmlu_stem_tasks",
        "- mmlu_stem_taks",
        "lm-eval-unknown-task",
        "mmlu/default/_mmlu_stem.yaml",
    ),
]


@pytest.mark.parametrize(("path", "old", "new", "rule", "where"), MUTATIONS)
def test_planted_defects_are_caught(
    tmp_path: Path, path: str, old: str, new: str, rule: str, where: str | None
) -> None:
    source = shared_or_skip(*TREE)
    root = tmp_path / "tasks"
    for folder in ("arc", "hellaswag", "mmlu/default"):
        shutil.copytree(source / folder, root / folder)
    for package in ("__init__.py", "_index.py", "manager.py"):  # the harness's own task tree
        shutil.copy(source / package, root / package)
    clean = _errors(root)
    target = root / path
    if old:
        text = target.read_text(encoding="utf-8")
        assert old in text, old
        target.write_text(text.replace(old, new, 1), encoding="utf-8")
    else:
        target.unlink()
    new_errors = _errors(root) - clean
    assert any(r == rule and (where is None or p == where) for p, r in new_errors), new_errors


def _errors(root: Path) -> set[tuple[str, str]]:
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    report = lint(eval_files(files), FsSource(root), Config(), tree=files)
    return {(d.path, d.rule) for d in report.diagnostics if d.severity is Severity.ERROR}


def test_version_rules_on_real_task_histories(tmp_path: Path) -> None:
    """Real tasks in a real git history: a function body and a shared template change."""
    source = shared_or_skip(*TREE)
    repo = Repo(tmp_path / "repo")
    for folder in ("hellaswag", "mmlu/default"):
        shutil.copytree(source / folder, repo.root / "tasks" / folder)
    repo.commit({})
    repo.git("checkout", "-q", "-b", "change")
    utils = repo.root / "tasks/hellaswag/utils.py"
    text = utils.read_text(encoding="utf-8")
    assert "def process_docs" in text
    utils.write_text(text.replace('ctx = doc["ctx_a"]', 'ctx = doc["ctx_a"].strip()'), "utf-8")
    template = repo.root / "tasks/mmlu/default/_default_template_yaml"
    yaml_text = template.read_text(encoding="utf-8")
    template.write_text(yaml_text.replace("sampler: first_n", "sampler: default"), "utf-8")
    repo.commit({})
    report = evallint.api.check(cwd=repo.root, diff="main", cache=False)
    got = sorted((d.path, d.span.line, d.rule) for d in report.diagnostics)
    # The template's finding sits on its changed key (`fewshot_config`, whose `sampler` moved);
    # the function's, changed in another file, on the task's version.
    changed_line = yaml_text.splitlines().index("fewshot_config:") + 1
    assert got == [
        ("tasks/hellaswag/hellaswag.yaml", 22, "lm-eval-version-not-bumped"),
        ("tasks/mmlu/default/_default_template_yaml", changed_line, "lm-eval-version-not-bumped"),
    ]


INDEXED = """
import json, sys
from pathlib import Path
from lm_eval.tasks._index import TaskIndex
index = TaskIndex.build([Path(sys.argv[1])])
print(json.dumps({k: [v.kind.name, str(v.yaml_path)] for k, v in index.items()}))
"""


def test_the_harness_index_drops_what_the_index_rules_report(tmp_path: Path) -> None:
    """A task config with `group` registers a group, not the task; of two configs with one
    task name the later is skipped: lm-eval 0.4.13's own index says so, and evallint reports
    exactly those two files."""
    oracle = _oracle_python()
    root = tmp_path / "t"
    (root / "b").mkdir(parents=True)
    task = "task: {}\ndataset_path: d\noutput_type: generate_until\ndoc_to_text: q\n"
    (root / "demo.yaml").write_text("group: suite\n" + task.format("demo"))
    (root / "a.yaml").write_text(task.format("demo2"))
    (root / "b/a.yaml").write_text(task.format("demo2").replace("path: d", "path: e"))
    done = subprocess.run(
        [str(oracle), "-c", INDEXED, str(root)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    index = json.loads(done.stdout.splitlines()[-1])
    assert index == {
        "suite": ["GROUP", str(root / "demo.yaml")],
        "demo2": ["TASK", str(root / "a.yaml")],
    }
    files = ["a.yaml", "b/a.yaml", "demo.yaml"]
    report = lint(files, FsSource(root), Config(), tree=files)
    assert sorted((d.path, d.rule) for d in report.diagnostics) == [
        ("b/a.yaml", "lm-eval-duplicate-task"),
        ("demo.yaml", "lm-eval-group-task"),
    ]


def test_a_group_member_is_what_the_harness_registers(tmp_path: Path) -> None:
    """A name another config writes only in a prompt, or that only groups name, is no member
    lm-eval 0.4.13 finds; a tag a template gives through `include:` is: the harness's own
    verdict on each group, and evallint's errors on exactly those."""
    python = _oracle_python()
    files = {
        "demo/demo.yaml": "task: demo\ndataset_path: d\ndoc_to_text: 'like ghost'\n",
        "demo/_t_yaml": "tag: [tmpl_tag]\ndataset_path: d\n",
        "demo/t.yaml": "include: _t_yaml\ntask: t\n",
        "demo/_g.yaml": "group: g\ntask: [demo, tmpl_tag, ghost]\n",
        "demo/_h.yaml": "group: h\ntask:\n  - g\n  - twice\n",
        "demo/_k.yaml": "group: k\ntask: [twice, t]\n",
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    done = subprocess.run(
        [str(python), str(ORACLE), str(tmp_path)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    verdicts = json.loads(done.stdout)
    members = {path: v for path, v in verdicts.items() if v.startswith("member:")}
    assert members == {
        "demo/_g.yaml": "member:ghost",
        "demo/_h.yaml": "member:twice",
        "demo/_k.yaml": "member:twice",
    }
    report = lint(sorted(files), FsSource(tmp_path), Config(), tree=sorted(files))
    found = {(d.path, d.rule, d.message.split("'")[1]) for d in report.diagnostics}
    assert found == {(p, "lm-eval-unknown-task", v.partition(":")[2]) for p, v in members.items()}
