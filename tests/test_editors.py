"""`evallint init vscode` as an editor uses it: the real yaml-language-server, driven over stdio
with the settings the command wrote, shows a schema error at the expected line for each kind.

The server comes from the npm registry (`npm install yaml-language-server`); the test runs when
EVALLINT_YAML_LANGUAGE_SERVER names its executable or it is on PATH, and says so when not.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import IO, Any

import pytest

from evallint.cli.init_vscode import init_vscode

# A file of each kind the YAML settings map: a clean text (no diagnostic at all: an agentevals
# EVAL.yaml once got AgentV v4's "Missing property tests"), a broken one, and the 0-based line
# of the broken one's schema error. Suites are matched by what their keys say, as the linter
# detects them; the clean text is on disk when `init vscode` runs.
KINDS: dict[str, tuple[str, str | None, int]] = {
    "rubrics/tone.yaml": (
        'id: tone\nversion: "1.0.0"\nchecks: [{kind: php_lint, id: lint}]\n'
        "scoring: {combine: all_pass, threshold: 0.7}\n",
        'id: tone\nversion: "1.0.0"\nchecks: [{kind: php_lint, id: lint}]\n'
        "scoring: {combine: all_pass, treshold: 0.7}\n",
        3,
    ),
    "judges/accuracy.yaml": (
        'id: accuracy\nversion: "1.0.0"\nscore_type: binary\ntemplate: "{{ output }}"\n',
        'id: accuracy\nversion: "1.0.0"\nscore_type: binary\ntemplate: "{{ output }}"\n'
        "validation: {tpr: 0.9, validated_on: 2026-01-01}\n",
        4,
    ),
    "datasets/refunds.yaml": (
        "questions:\n  - id: q1\n    input: hi\n",
        "questions:\n  - id: q1\n    input: 3\n",
        2,
    ),
    "evals/refunds.eval.yaml": (
        "tests:\n  - id: a\n    criteria: c\n    input: hi\n",
        "tests:\n  - id: a\n    criteria: c\n    input: hi\nname: [x]\n",
        4,
    ),
    # agentevals: `evalcases` with the spec's `expected_outcome` (no `tests`).
    "evals/review/EVAL.yaml": (
        "name: refunds\nevalcases:\n  - id: a\n    expected_outcome: o\n    input: hi\n",
        "name: refunds\nevalcases:\n  - id: a\n    input: hi\n",
        2,
    ),
    # AgentV v5 (next): its schema names the keys only, so a broken file shows nothing more.
    "evals/next.eval.yaml": (
        'prompts: ["{{ q }}"]\ntests:\n  - vars: {q: hi}\n    assert:\n'
        "      - {type: contains, value: hi}\n",
        None,
        0,
    ),
    # agentv-eval-v2, told by `outcome` (a `$schema: agentv-eval-v2` key would send the editor
    # looking for a schema file of that name, whatever the settings say).
    "evals/legacy.yaml": (
        "evalcases:\n  - id: a\n    outcome: o\n    input_messages: [{role: user, content: hi}]\n",
        "evalcases:\n  - id: a\n    outcome: o\n"
        "    input_messages: [{role: user, content: hi}]\n  - id: b\n",
        4,
    ),
}


def _server() -> str:
    found = os.environ.get("EVALLINT_YAML_LANGUAGE_SERVER") or shutil.which("yaml-language-server")
    if not found:
        pytest.skip("yaml-language-server is not installed (npm install yaml-language-server)")
    return found


class _Client:
    """Just enough of the Language Server Protocol: requests, notifications, and answers to the
    server's own `workspace/configuration` requests."""

    def __init__(self, server: str, settings: dict[str, Any]) -> None:
        self.settings = settings
        self.proc = subprocess.Popen(
            [server, "--stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        assert self.proc.stdout is not None
        threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True).start()

    def _read(self, stream: IO[bytes]) -> None:
        while True:
            length = 0
            while (line := stream.readline().decode()).strip():
                name, _, value = line.partition(":")
                length = int(value) if name.lower() == "content-length" else length
            if not length:
                return
            body = stream.read(length)
            if len(body) < length:
                return  # the server was stopped mid-message (the test is done with it)
            self.inbox.put(json.loads(body))

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        data = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.proc.stdin.write(f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
        self.proc.stdin.flush()

    def diagnostics(
        self, uri: str, timeout: float = 30, first: bool = False
    ) -> list[dict[str, Any]]:
        """The diagnostics the server publishes for `uri`: the first non-empty list, or with
        `first` the first list at all (a clean file's is empty)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                msg = self.inbox.get(timeout=0.5)
            except queue.Empty:
                continue
            if "id" in msg and "method" in msg:
                items = msg.get("params", {}).get("items", [])
                wanted = msg["method"] == "workspace/configuration"
                self.send(
                    {"id": msg["id"], "result": [self.settings] * len(items) if wanted else None}
                )
            elif msg.get("method") == "textDocument/publishDiagnostics":
                params = msg["params"]
                if params["uri"] == uri and (params["diagnostics"] or first):
                    found: list[dict[str, Any]] = params["diagnostics"]
                    return found
        return []

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
def client(tmp_path: Path) -> Any:
    server = _server()
    for path, (clean, _, _) in KINDS.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(clean)
    init_vscode(tmp_path)
    written = json.loads((tmp_path / ".vscode" / "settings.json").read_text())
    # As VS Code does: paths in yaml.schemas are relative to the workspace folder.
    schemas = {str(tmp_path / url[2:]): globs for url, globs in written["yaml.schemas"].items()}
    settings = {"schemas": schemas, "validate": True, "schemaStore": {"enable": False}}
    made = _Client(server, settings)
    made.send(
        {
            "id": 1,
            "method": "initialize",
            "params": {
                "processId": os.getpid(),
                "rootUri": tmp_path.as_uri(),
                "capabilities": {"workspace": {"configuration": True}},
            },
        }
    )
    made.send({"method": "initialized", "params": {}})
    made.send(
        {"method": "workspace/didChangeConfiguration", "params": {"settings": {"yaml": settings}}}
    )
    yield made, tmp_path
    made.close()


def _open(lsp: _Client, target: Path, text: str, version: int) -> None:
    document = {"uri": target.as_uri(), "languageId": "yaml", "version": version, "text": text}
    lsp.send({"method": "textDocument/didOpen", "params": {"textDocument": document}})


@pytest.mark.parametrize("path", sorted(KINDS))
def test_the_editor_is_quiet_on_a_clean_file_and_shows_a_broken_ones_line(
    client: tuple[_Client, Path], path: str
) -> None:
    lsp, root = client
    clean, broken, line = KINDS[path]
    target = root / path
    _open(lsp, target, clean, 1)
    assert lsp.diagnostics(target.as_uri(), first=True) == []
    lsp.send(
        {"method": "textDocument/didClose", "params": {"textDocument": {"uri": target.as_uri()}}}
    )
    if broken is None:
        return
    _open(lsp, target, broken, 2)
    found = lsp.diagnostics(target.as_uri())
    assert {d["range"]["start"]["line"] for d in found} == {line}, found


def test_json_kinds_go_to_vs_codes_json_schemas(tmp_path: Path) -> None:
    init_vscode(tmp_path)
    written = json.loads((tmp_path / ".vscode" / "settings.json").read_text())
    assert {tuple(e["fileMatch"]): e["url"] for e in written["json.schemas"]} == {
        ("**/evals.json",): "./.vscode/evallint/abp-evals.schema.json",
        ("**/static-checks.json",): "./.vscode/evallint/abp-static-checks.schema.json",
        ("**/rubrics/**/*.json",): "./.vscode/evallint/rubric.schema.json",
        ("**/judges/**/*.json",): "./.vscode/evallint/judge.schema.json",
        ("**/datasets/**/*.json",): "./.vscode/evallint/dataset.schema.json",
        ("**/promptfooconfig*.json",): "./.vscode/evallint/promptfoo.schema.json",
    }
    for entry in written["json.schemas"]:
        assert (tmp_path / entry["url"][2:]).is_file()


def test_suites_are_matched_by_the_linters_detection(tmp_path: Path) -> None:
    """Each suite found today by its own path, under the schema of the dialect its keys say;
    no glob sends every EVAL.yaml to one dialect."""
    for path, (clean, _, _) in KINDS.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(clean)
    init_vscode(tmp_path)
    written = json.loads((tmp_path / ".vscode" / "settings.json").read_text())["yaml.schemas"]
    suites = {url: globs for url, globs in written.items() if "/agent" in url}
    assert suites == {
        "./.vscode/evallint/agentv-v4.schema.json": ["evals/refunds.eval.yaml"],
        "./.vscode/evallint/agentevals.schema.json": ["evals/review/EVAL.yaml"],
        "./.vscode/evallint/agentv-next.schema.json": ["evals/next.eval.yaml"],
        "./.vscode/evallint/agentv-v2.schema.json": ["evals/legacy.yaml"],
    }


def test_settings_with_comments_are_left_as_they_are_and_a_whole_snippet_printed(
    tmp_path: Path,
) -> None:
    """VS Code's settings are JSONC: a rewrite would lose the comments. The schemas are still
    exported, and the snippet holds both settings."""
    settings = tmp_path / ".vscode" / "settings.json"
    settings.parent.mkdir()
    text = '{\n  // mine\n  "editor.tabSize": 2,\n}\n'
    settings.write_text(text)
    written, snippet = init_vscode(tmp_path)
    assert settings.read_text() == text
    assert ".vscode/evallint/rubric.schema.json" in written
    assert snippet is not None and set(json.loads(snippet)) == {"yaml.schemas", "json.schemas"}


def test_lower_case_suite_names_are_matched_and_examples_carry_no_modeline(tmp_path: Path) -> None:
    """`eval.yaml` and `suite.yaml` are AgentV suite names too; and a `$schema=../..` modeline
    in an example breaks once the file is copied elsewhere, so the examples carry none."""
    from conftest import REPO

    suite = "tests:\n  - id: a\n    criteria: c\n    input: hi\n"
    for path in ("a/eval.yaml", "b/suite.yaml"):
        (tmp_path / path).parent.mkdir(parents=True)
        (tmp_path / path).write_text(suite)
    init_vscode(tmp_path)
    written = json.loads((tmp_path / ".vscode" / "settings.json").read_text())["yaml.schemas"]
    assert written["./.vscode/evallint/agentv-v4.schema.json"] == ["a/eval.yaml", "b/suite.yaml"]
    for example in (REPO / "examples").rglob("*"):
        if example.is_file() and example.suffix in (".yaml", ".yml", ".json"):
            assert "$schema=" not in example.read_text(encoding="utf-8"), example


@pytest.mark.parametrize("shape", ["link out", "pipe"])
def test_settings_that_are_no_regular_file_are_never_written(tmp_path: Path, shape: str) -> None:
    """A settings.json that links out of the project, or is a pipe, is neither written
    through (a file elsewhere changed) nor waited on: the snippet is printed instead."""
    root, outside = tmp_path / "repo", tmp_path / "elsewhere.json"
    (root / ".vscode").mkdir(parents=True)
    outside.write_text("{}\n")
    target = root / ".vscode" / "settings.json"
    if shape == "link out":
        target.symlink_to(outside)
    else:
        os.mkfifo(target)
    written, snippet = init_vscode(root)
    assert snippet is not None and ".vscode/settings.json" not in written
    assert outside.read_text() == "{}\n"


def test_harness_configs_get_their_tag_declared_not_a_schema_each(tmp_path: Path) -> None:
    """lm-evaluation-harness trees hold thousands of configs, each choosing its schema by its
    keys: none is listed; the `!function` tag is declared so the YAML extension accepts it."""
    task = "task: demo\ndataset_path: d\nprocess_docs: !function utils.f\n"
    (tmp_path / "tasks" / "demo").mkdir(parents=True)
    (tmp_path / "tasks" / "demo" / "demo.yaml").write_text(task)
    settings = tmp_path / ".vscode" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"yaml.customTags": ["!Ref scalar"]}')
    init_vscode(tmp_path)
    written = json.loads(settings.read_text())
    assert written["yaml.customTags"] == ["!Ref scalar", "!function scalar"]
    assert not any("lm-eval" in url for url in written["yaml.schemas"])
