"""AgentV suites, each with AgentV's own verdict: `agentv validate` of AgentV 4.42.4 (npm's
`latest`) on every suite of AgentV's repository at that tag, and on suites planted here.

The corpus copy left out scripts and folders the suites name (SOURCE.md), so where AgentV says
"not found" evallint must say `missing-file` on the same file; everything else AgentV rejects,
evallint rejects, and what AgentV accepts evallint does not call an error. Where they differ,
DIFFERENCES says why, with AgentV's evidence.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import shared_or_skip, walk_files
from evallint.config import Config
from evallint.engine.run import lint
from evallint.io.source import FsSource

CORPUS = ("corpus", "agentv", "EntityProcess", "agentv@v4.42.4")

# Suites where evallint's verdict is not AgentV 4.42.4 validate's, and the evidence.
DIFFERENCES = {
    "examples/features/workspace-shared-config/evals/accuracy/dataset.eval.yaml": (
        "the shared workspace.yaml's template is looked up by AgentV (workspace-path-validator.ts "
        "reads the file); evallint checks that workspace.yaml exists, not what it names"
    ),
    "examples/features/workspace-shared-config/evals/regression/dataset.eval.yaml": (
        "as accuracy/dataset.eval.yaml: the template a shared workspace file names"
    ),
}

# Suites planted beside the corpus: (name, text, AgentV rejects it, evallint's error rules).
REPO = "    - {path: app, repo: org/app, %s}\n"
PLANTED = [
    ("clean", "tests:\n  - {id: a, criteria: c, input: hi}\n", False, ()),
    (
        "repo-source",
        "workspace:\n  repos:\n" + REPO % "source: {type: git}" + "tests:\n"
        "  - {id: a, criteria: c, input: hi}\n",
        True,
        ("agentv-rejected",),
    ),
    (
        "repo-checkout",
        "workspace:\n  repos:\n" + REPO % "checkout: {ref: main}" + "tests:\n"
        "  - {id: a, criteria: c, input: hi}\n",
        True,
        ("agentv-rejected",),
    ),
    (
        "repo-clone",
        "workspace:\n  repos:\n" + REPO % "clone: {depth: 1}" + "tests:\n"
        "  - {id: a, criteria: c, input: hi}\n",
        True,
        ("agentv-rejected",),
    ),
    (
        "missing-template",
        "workspace:\n  template: ./nowhere\ntests:\n  - {id: a, criteria: c, input: hi}\n",
        True,
        ("missing-file",),
    ),
    (
        "missing-hook-script",
        "workspace:\n  hooks:\n    before_all:\n      command: [node, ./nowhere.mjs]\n"
        "tests:\n  - {id: a, criteria: c, input: hi}\n",
        True,
        ("missing-file",),
    ),
    (
        "no-id",
        "tests:\n  - {criteria: c, input: hi}\n",
        True,
        ("schema-violation",),
    ),
    (
        "hook-binary",
        "workspace:\n  hooks:\n    before_all:\n      command: [git, status]\n"
        "tests:\n  - {id: a, criteria: c, input: hi}\n",
        False,
        (),
    ),
]


def _agentv() -> Path:
    found = os.environ.get("EVALLINT_AGENTV")
    if not found or not Path(found).is_file():
        pytest.skip(
            "no AgentV 4.42.4 to compare with: EVALLINT_AGENTV names its command, installed "
            "from the npm registry (`npm install agentv@4.42.4`); .ci/run installs one"
        )
    return Path(found)


_FILE = re.compile(r"^[✓✗⚠] (.+)$")
_ERROR = re.compile(r"^  ✗ (.*)$")


def _validate(cli: Path, root: Path) -> dict[str, list[str]]:
    """AgentV's errors per suite it validated (a project path), run with a throwaway home."""
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "HOME": home, "AGENTV_DISABLE_TELEMETRY": "1"}
        env["PATH"] = f"{cli.parent}{os.pathsep}{env.get('PATH', '')}"
        proc = subprocess.run(
            [str(cli), "validate", "."],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in proc.stdout.splitlines():
        if (head := _FILE.match(line)) and head.group(1).startswith(str(root)):
            current = out.setdefault(Path(head.group(1)).relative_to(root).as_posix(), [])
        elif (error := _ERROR.match(line)) and current is not None:
            current.append(error.group(1))
    assert out, f"AgentV validated nothing:\n{proc.stdout}\n{proc.stderr}"
    return out


def _repository(tmp: Path) -> Path:
    """The corpus and the planted suites in a git repository (AgentV resolves files from it)."""
    root = tmp / "agentv"
    shutil.copytree(shared_or_skip(*CORPUS), root)
    for name, text, _, _ in PLANTED:
        (root / "planted" / f"{name}.eval.yaml").parent.mkdir(exist_ok=True)
        (root / "planted" / f"{name}.eval.yaml").write_text(text)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "corpus"]):
        subprocess.run([*git, *args], cwd=root, check=True)
    return root


def _errors(root: Path) -> dict[str, list[tuple[int, str]]]:
    tree = sorted(p.relative_to(root).as_posix() for p in walk_files(root) if ".git" not in p.parts)
    report = lint(tree, FsSource(root), Config(), tree=tree)
    out: dict[str, list[tuple[int, str]]] = {}
    for d in report.diagnostics:
        if d.severity.label == "error":
            out.setdefault(d.path, []).append((d.span.line, d.rule))
    return out


def test_agentv_4_42_validate_and_evallint_agree(tmp_path: Path) -> None:
    cli = _agentv()
    root = _repository(tmp_path)
    theirs, ours = _validate(cli, root), _errors(root)
    disagree = []
    for path, rejected in sorted(theirs.items()):
        if path in DIFFERENCES:
            continue
        found = [m for m in rejected if "not found" not in m]
        not_found = [m for m in rejected if "not found" in m]
        mine = [rule for _, rule in ours.get(path, []) if rule != "missing-file"]
        missing = [rule for _, rule in ours.get(path, []) if rule == "missing-file"]
        if bool(found) != bool(mine) or (not_found and not missing):
            disagree.append((path, rejected, ours.get(path, [])))
    assert disagree == []
    assert len(theirs) >= 100 + len(PLANTED)
    for name, _, refused, rules in PLANTED:
        path = f"planted/{name}.eval.yaml"
        assert bool(theirs[path]) == refused, (path, theirs[path])
        assert sorted({rule for _, rule in ours.get(path, [])}) == sorted(rules), path
