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

# A file of each kind the YAML settings map, with one key its schema does not allow.
BAD = {
    "rubrics/tone.yaml": (
        'id: tone\nversion: "1.0.0"\nchecks: [{kind: php_lint, id: lint}]\n'
        "scoring: {combine: all_pass, treshold: 0.7}\n",
        3,
    ),
    "judges/accuracy.yaml": (
        'id: accuracy\nversion: "1.0.0"\nscore_type: binary\ntemplate: "{{ output }}"\n'
        "validation: {tpr: 0.9, validated_on: 2026-01-01}\n",
        4,
    ),
    "datasets/refunds.yaml": ("questions:\n  - id: q1\n    input: 3\n", 2),
    "evals/refunds.eval.yaml": ("tests:\n  - id: a\n    criteria: c\n    input: 3\n", 3),
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
            self.inbox.put(json.loads(stream.read(length)))

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        data = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.proc.stdin.write(f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
        self.proc.stdin.flush()

    def diagnostics(self, uri: str, timeout: float = 30) -> list[dict[str, Any]]:
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
                if params["uri"] == uri and params["diagnostics"]:
                    found: list[dict[str, Any]] = params["diagnostics"]
                    return found
        return []

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
def client(tmp_path: Path) -> Any:
    server = _server()
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


@pytest.mark.parametrize("path", sorted(BAD))
def test_the_editor_shows_the_schema_error_at_its_line(
    client: tuple[_Client, Path], path: str
) -> None:
    lsp, root = client
    text, line = BAD[path]
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    lsp.send(
        {
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {
                    "uri": target.as_uri(),
                    "languageId": "yaml",
                    "version": 1,
                    "text": text,
                }
            },
        }
    )
    found = lsp.diagnostics(target.as_uri())
    assert [d["range"]["start"]["line"] for d in found] == [line], found


def test_json_kinds_go_to_vs_codes_json_schemas(tmp_path: Path) -> None:
    init_vscode(tmp_path)
    written = json.loads((tmp_path / ".vscode" / "settings.json").read_text())
    assert {tuple(e["fileMatch"]): e["url"] for e in written["json.schemas"]} == {
        ("**/evals.json",): "./.vscode/evallint/abp-evals.schema.json",
        ("**/static-checks.json",): "./.vscode/evallint/abp-static-checks.schema.json",
    }
    assert "./.vscode/evallint/agentv-v4.schema.json" in written["yaml.schemas"]
    for entry in written["json.schemas"]:
        assert (tmp_path / entry["url"][2:]).is_file()
