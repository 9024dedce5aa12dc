"""What adding costs: a format is its package (`formats/<name>/`: its kinds, its rules) and its
name in the registry, plus its generated schema; an output format its module and its row. This
test adds a toy format and an output format to a copy of the package and checks that nothing
else was edited, and that everything that lists kinds, rules or formats takes them up:
detection, validation, the rule running on the new kind, `--format`, `evallint rules`, SARIF's
rule list, the docs' generated tables and `init vscode`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO

KIND = '''"""A toy format: `*.toy.yaml` files holding `answers`."""

from __future__ import annotations

from evallint.kinds.base import Kind

TOY = Kind(
    name="toy-suite",
    title="Toy suite",
    formats=frozenset({"yaml"}),
    schema="toy-suite",
    about="a `*.toy.yaml` file",
    by_path=lambda path: path.endswith(".toy.yaml"),
    editor_globs=("**/*.toy.yaml",),
)

KINDS = (TOY,)
'''

SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "required": ["answers"],
    "properties": {"answers": {"type": "array", "items": {"type": "string"}}},
    "additionalProperties": False,
}

RULES = '''"""Toy rules."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.toy import kinds as toy
from evallint.model import Finding, Severity
from evallint.rules.base import rule

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context


@rule("toy-empty-answer", Severity.ERROR, kinds=(toy.TOY,))
def toy_empty_answer(doc: Document, ctx: Context) -> Iterator[Finding]:
    """An answer is empty.

    Bad (a.toy.yaml):
        answers: [""]
    Good (a.toy.yaml):
        answers: ["yes"]
    """
    data = doc.data if isinstance(doc.data, dict) else {}
    for i, answer in enumerate(data.get("answers") or []):
        if answer == "":
            yield Finding(("answers", i), "this answer is empty")
'''

FORMAT = '''"""Tab-separated findings."""

from __future__ import annotations

from evallint.model import Report


def render_tsv(report: Report, *, verbose: bool = False) -> str:
    rows = [f"{d.path}\\t{d.span.line}\\t{d.span.column}\\t{d.rule}" for d in report.diagnostics]
    return "".join(row + "\\n" for row in rows)
'''


def _insert(path: Path, after: str, text: str) -> None:
    """One line into a registry, after an anchor that must be there."""
    source = path.read_text(encoding="utf-8")
    assert after in source, f"{path.name} no longer holds {after!r}"
    path.write_text(source.replace(after, after + text, 1), encoding="utf-8")


_IGNORE = shutil.ignore_patterns("__pycache__", "_compiled")


def _package_with_additions(tmp: Path) -> Path:
    pkg = tmp / "pkg" / "evallint"
    shutil.copytree(REPO / "src" / "evallint", pkg, ignore=_IGNORE)
    shutil.copytree(REPO / "schema", pkg / "schema")
    # The format: its package (kinds, rules) and its name in the registry; its schema is
    # generated into schema/.
    toy = pkg / "formats" / "toy"
    toy.mkdir()
    (toy / "__init__.py").write_text('"""A toy format."""\n', encoding="utf-8")
    (toy / "kinds.py").write_text(KIND, encoding="utf-8")
    (toy / "rules.py").write_text(RULES, encoding="utf-8")
    source = f'"""The toy schema."""\n\nSCHEMAS = {{"toy-suite": lambda: {SCHEMA!r}}}\n'
    (toy / "schemas.py").write_text(source, encoding="utf-8")
    _insert(pkg / "formats" / "__init__.py", "NAMES = (", '"toy", ')
    # The generated schema, as tools/schemas.py writes it from the package's sources.
    code = "import schemas; print(schemas.render(schemas.all_schemas()['toy-suite']()))"
    path = os.pathsep.join((str(pkg.parent), str(REPO / "tools")))
    written = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    (pkg / "schema" / "toy-suite.schema.json").write_text(written, encoding="utf-8")
    # The output format: its module and its row.
    (pkg / "output" / "tsv.py").write_text(FORMAT, encoding="utf-8")
    _insert(
        pkg / "output" / "__init__.py",
        "FORMATTERS: Mapping[str, Output] = {\n",
        '    "tsv": Output("evallint.output.tsv", "render_tsv", machine=True),\n',
    )
    return pkg.parent


def _run(pkg: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(pkg), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "evallint", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _touched(pkg: Path) -> list[str]:
    """The files of the copy that differ from the package's, or are new."""
    base = REPO / "src" / "evallint"
    out = []
    for path in sorted(pkg.rglob("*")):
        rel = path.relative_to(pkg)
        if path.is_dir() or "__pycache__" in rel.parts or rel.parts[0] == "schema":
            continue
        old = base / rel
        if not old.is_file() or old.read_bytes() != path.read_bytes():
            out.append(rel.as_posix())
    return out


def test_a_new_format_and_output_format_need_no_other_edit(tmp_path: Path) -> None:
    pkg = _package_with_additions(tmp_path)
    assert _touched(pkg / "evallint") == [
        "formats/__init__.py",  # the one registry line
        "formats/toy/__init__.py",
        "formats/toy/kinds.py",
        "formats/toy/rules.py",
        "formats/toy/schemas.py",
        "output/__init__.py",  # the output format's row
        "output/tsv.py",
    ]
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.toy.yaml").write_text('answers: ["yes", ""]\n', encoding="utf-8")
    (project / "b.toy.yaml").write_text("answer: [yes]\n", encoding="utf-8")  # its schema

    found = _run(pkg, project, "check", "--format", "tsv", ".")
    assert found.returncode == 1, found.stdout + found.stderr
    assert found.stdout.splitlines() == [
        "a.toy.yaml\t1\t18\ttoy-empty-answer",
        "b.toy.yaml\t1\t1\tunknown-key",  # its misspelt required key: one finding
    ], found.stdout + found.stderr

    rules = _run(pkg, project, "rules", "--long")
    assert "toy-empty-answer (error; toy-suite)" in rules.stdout, rules.stderr

    sarif = json.loads(_run(pkg, project, "check", "--format", "sarif", ".").stdout)
    ids = [r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]]
    assert "toy-empty-answer" in ids
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} >= {"toy-empty-answer"}

    code = (
        "from evallint.output.docs import kinds_table, rules_table, formats_usage; "
        "print(kinds_table()); print(rules_table()); print(formats_usage())"
    )
    env = {**os.environ, "PYTHONPATH": str(pkg)}
    docs = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert "| `toy-suite` | a `*.toy.yaml` file | `schema/toy-suite.schema.json` |" in docs
    assert "| `toy-empty-answer` | error | toy-suite | An answer is empty. |" in docs
    assert "tsv" in docs.splitlines()[-1].split("|")

    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    init = _run(pkg, project, "init", "vscode")
    assert init.returncode == 0, init.stdout + init.stderr
    settings = (project / ".vscode" / "settings.json").read_text(encoding="utf-8")
    assert "**/*.toy.yaml" in settings and "toy-suite.schema.json" in settings
