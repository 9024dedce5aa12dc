"""Real files from public repositories, each with the verdict of the runner that reads it.

The files are the stored copies in `../shared/corpus/` (their SOURCE.md gives each repository,
commit and licence); where a copy left out a file the eval names (scripts, CSVs, `.txt`), the
test writes an empty stand-in at the path the repository has it, so that the verdict is the one
on the real repository. Each case says where the runner's verdict comes from.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import shared_or_skip, walk_files
from evallint.config import Config
from evallint.engine.run import lint
from evallint.io.source import FsSource
from evallint.session.settings import expand_rules

HYGIENE = frozenset(expand_rules(["hygiene"]))

AGENTV = ("corpus", "agentv", "EntityProcess")


@dataclass(frozen=True)
class Case:
    corpus: tuple[str, ...]  # the subtree, under ../shared, that is the repository's root
    path: str  # the eval file, from that root
    found: list[tuple[int, int, str]]  # (line, column, rule) evallint must report, all of them
    why: str  # the runner's verdict, and where it comes from
    stand_ins: tuple[str, ...] = ()  # files the repository has that the copy left out
    root_name: str = ""  # the folder name the root must have (site-root paths name it)
    extra: Mapping[str, str] = field(default_factory=dict)  # a stand-in's text, where it matters


CASES = [
    Case(
        (*AGENTV, "agentv@v4.42.4", "evals", "agentic-engineering", "workspace-template"),
        "evals/deploy-auto/deploy-plan.yaml",
        [],
        "AgentV 4.42.4 finds plugins/deploy-auto/... through its search roots: the suite's folder, "
        "then each parent up to the repository root (file-resolver.ts buildSearchRoots)",
    ),
    Case(
        (*AGENTV, "agentv@v4.42.4", "evals", "agentic-engineering", "workspace-template"),
        "evals/deploy-auto/deploy-execute.eval.yaml",
        [],
        "a leading / is dropped and the path tried from every search root (resolveFileReference)",
    ),
    Case(
        (*AGENTV, "agentv@v2.6.1"),
        "examples/features/git-url-references/evals/dataset.yaml",
        [],
        "AgentV 2.6.1 fetches a `type: file` URL (git URL references); no name is needed",
    ),
    Case(
        (*AGENTV, "agentv@v2.6.1"),
        "examples/features/local-cli/evals/dataset.yaml",
        [],
        "evalcases with expected_outcome and no name load in AgentV 2.6.1 (yaml-parser.ts)",
        stand_ins=("examples/features/local-cli/evals/example.txt",),
    ),
    Case(
        (*AGENTV, "agentv@v0.10.0"),
        "docs/examples/simple/evals/coding/example-eval.yaml",
        [(115, 5, "agentv-v2-required")],
        "AgentV 0.10: expected_messages is optional, for outcome-only cases (yaml-parser.ts), "
        "so the case the declared schema flags is a warning, not an error",
        stand_ins=("docs/examples/simple/evals/local-cli/attachments/example.txt",),
    ),
    Case(
        (*AGENTV, "agentv"),
        "evals/agentv-self/agentv-self.eval.yaml",
        [(9, 3, "agentv-rejected")] + [(n, 5, "agentv-rejected") for n in (18, 62, 95)],
        'AgentV 5.3.1-next.1 validate: "workspace.hooks has been removed from public eval '
        "YAML\" and \"Do not combine test-level 'criteria' with 'assert'\", errors "
        "(eval-validator.ts), on AgentV's own suite",
    ),
    Case(
        (*AGENTV, "agentv"),
        "examples/showcase/cross-repo-sync/evals/suite.yaml",
        [],
        "AgentV 5 imports each extension module and calls the hook after the colon "
        "(yaml-parser.ts parseExtensionString); the repository's scripts export beforeEach and "
        "afterEach",
        stand_ins=(
            "examples/showcase/cross-repo-sync/scripts/setup.ts",
            "examples/showcase/cross-repo-sync/scripts/reset.ts",
        ),
        extra={
            "examples/showcase/cross-repo-sync/scripts/setup.ts": "export async function "
            "beforeEach(context) {}\n",
            "examples/showcase/cross-repo-sync/scripts/reset.ts": "export function "
            "afterEach(context) {}\n",
        },
    ),
    Case(
        (*AGENTV, "agentv"),
        "examples/showcase/multi-model-benchmark/evals/benchmark.eval.yaml",
        [(9, 5, "agentv-rejected")],
        "AgentV 5.3.1-next.1 validate: \"Invalid 'evaluate_options.repeat' field (must be a "
        'positive integer). The repeat object shape has been removed", an error',
    ),
    Case(
        ("corpus", "drupal", "agent-module-documentation"),
        "modules/pa/pathauto/1.15.x/eval/evals.json",
        [(3, 17, "file-not-checked")],
        "run-matrix.py runs verify/reset scripts from the Drupal site root that holds the "
        "repository (agent-module-documentation/evaluation/verify/...), and reads the skill "
        "from the site's own .agents/ folder, beside the repository",
        stand_ins=tuple(
            f"evaluation/verify/pathauto-{name}.sh"
            for name in (
                "article-pattern-cleanup",
                "article-pattern-setup",
                "blog-pattern",
                "max-length-cleanup",
                "max-length-setup",
                "reset",
                "separator-cleanup",
                "separator-setup",
                "user-pattern",
            )
        ),
        root_name="agent-module-documentation",
    ),
    Case(
        ("corpus", "drupal", "agent-module-documentation"),
        "modules/de/devel_php/2.0.x/eval/evals.json",
        [(1, 1, "skill-name-missing"), (4, 3, "evals-key-missing")],
        "run-matrix.py reads spec['evals'] and spec['skill_name']: a KeyError on each",
        root_name="agent-module-documentation",
    ),
]


def _tree(case: Case, tmp: Path) -> Path:
    source = shared_or_skip(*case.corpus)
    root = tmp / (case.root_name or "repo")
    shutil.copytree(source, root)
    for rel in case.stand_ins:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(case.extra.get(rel, ""))
    return root


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.path.rsplit("/", 2)[-2])
def test_the_verdict_is_the_runners(case: Case, tmp_path: Path) -> None:
    root = _tree(case, tmp_path)
    for rel in case.stand_ins:
        assert (root / rel).is_file()
    tree = sorted(p.relative_to(root).as_posix() for p in walk_files(root))
    report = lint([case.path], FsSource(root), Config(), tree=tree)
    # What the items say (the hygiene group) is no runner's verdict.
    found = [d for d in report.diagnostics if d.path == case.path and d.rule not in HYGIENE]
    got = [(d.span.line, d.span.column, d.rule) for d in found]
    assert got == case.found, case.why


def test_promptfoo_configs_are_checked_as_promptfoos() -> None:
    """The only findings are the three scoring scripts the corpus did not copy (promptfoo fails
    those assertions at eval time)."""
    root = shared_or_skip("corpus", "other", "promptfoo")
    paths = sorted(p.relative_to(root).as_posix() for p in walk_files(root) if p.suffix == ".yaml")
    report = lint(
        paths,
        FsSource(root),
        Config(),
        tree=sorted(p.relative_to(root).as_posix() for p in walk_files(root)),
    )
    assert report.files_checked == 4 and report.skipped == ()
    assert [(d.path.split("/")[0], d.span.line, d.rule) for d in report.diagnostics] == [
        ("assertion-scoring-override", 9, "missing-file"),
        ("assertion-scoring-override", 39, "missing-file"),
        ("assertion-scoring-override", 49, "missing-file"),
    ]
