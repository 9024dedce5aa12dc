"""`evallint lsp` end to end: a real server process on stdio, driven by a small JSON-RPC client.

Parity with `evallint check`, findings from unsaved buffers, a dataset's finding appearing and
going as the rubric it names is edited in memory, code actions whose edits lint clean, and a
server that outlives hostile buffers.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from queue import Empty, Queue
from typing import Any
from urllib.parse import unquote

import pytest

from conftest import REPO, import_or_gate
from test_git import RUBRIC

import_or_gate("pygls", "evallint lsp needs the lsp extra (pygls), which the test extra installs")

TIMEOUT = 60


class Client:
    """The editor's side: requests answered by id, notifications kept in order."""

    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "evallint", "lsp"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.root = root
        self.next_id = 0
        self.messages: Queue[dict[str, Any]] = Queue()
        self.diagnostics: dict[str, list[dict[str, Any]]] = {}
        self.logged: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = 0
            while (line := out.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line:
                return
            self.messages.put(json.loads(out.read(length)))

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        stdin = self.proc.stdin
        assert stdin is not None
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        wanted = self.next_id
        self.send({"id": wanted, "method": method, "params": params})
        for message in self._incoming():
            if message.get("id") == wanted and "method" not in message:
                assert "error" not in message, message
                return message.get("result")
        raise AssertionError(f"no answer to {method}")

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.send({"method": method, "params": params})

    def _incoming(self) -> Iterator[dict[str, Any]]:
        while True:
            try:
                message = self.messages.get(timeout=TIMEOUT)
            except Empty:
                return
            if message.get("method") == "textDocument/publishDiagnostics":
                params = message["params"]
                # pygls writes a URI as it normalizes it (`%40` as `@`), as editors compare them.
                self.diagnostics[unquote(params["uri"])] = params["diagnostics"]
            elif message.get("method") == "window/logMessage":
                self.logged.append(message["params"]["message"])
            elif "id" in message and "method" in message:  # a request of the server's
                self.send({"id": message["id"], "result": None})
            yield message

    def published(self, uri: str) -> list[dict[str, Any]]:
        """The diagnostics of `uri` after everything sent so far has been handled: a request
        answered after them (the server handles messages in order) marks the point."""
        self.request("textDocument/codeAction", _range_params(uri))
        return self.diagnostics.get(unquote(uri), [])

    def uri(self, rel: str) -> str:
        return (self.root / rel).resolve().as_uri()

    def open(self, rel: str, text: str | None = None) -> str:
        uri = self.uri(rel)
        body = (self.root / rel).read_text(encoding="utf-8") if text is None else text
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": body}},
        )
        return uri

    def change(self, uri: str, text: str, version: int = 2) -> None:
        self.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": text}],
            },
        )

    def close(self) -> None:
        try:
            self.request("shutdown", {})
            self.notify("exit", {})
            self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


def _range_params(uri: str, line: int = 0, end: int = 10_000) -> dict[str, Any]:
    return {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": line, "character": 0}, "end": {"line": end, "character": 0}},
        "context": {"diagnostics": []},
    }


@pytest.fixture
def client_for() -> Iterator[Any]:
    started: list[Client] = []

    def start(root: Path) -> Client:
        client = Client(root)
        client.request(
            "initialize",
            {"processId": None, "rootUri": root.resolve().as_uri(), "capabilities": {}},
        )
        client.notify("initialized", {})
        started.append(client)
        return client

    yield start
    for client in started:
        client.close()


def _git_repo(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    return root


DATASET = (
    "id: refunds\nquestions:\n  - id: q1\n    input: How long do refunds take?\n"
    "    rubric_ref: rubric/refunds@1.2.0\n"
)


def _found(diagnostics: list[dict[str, Any]]) -> list[tuple[int, int, str]]:
    """(line, column, rule) as the CLI writes them: 1-based."""
    return sorted(
        (d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1, d["code"])
        for d in diagnostics
    )


def _parity(client: Client, root: Path, cli: list[dict[str, Any]]) -> int:
    """Open each eval file of `root` alone and compare the server's findings with the CLI's:
    places, ids, severities, messages. The number of findings compared."""
    files = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.suffix in (".yaml", ".yml", ".json", ".jsonl") and ".git" not in p.parts
    )
    levels = {3: "note", 2: "warning", 1: "error"}
    compared = 0
    for rel in files:
        uri = client.open(rel)
        mine = client.published(uri)
        client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        theirs = [d for d in cli if d["path"] == rel]
        assert _found(mine) == sorted((d["line"], d["column"], d["rule"]) for d in theirs), rel
        assert sorted((levels[d["severity"]], d["message"]) for d in mine) == sorted(
            (d["severity"], d["message"]) for d in theirs
        ), rel
        compared += len(mine)
    return compared


@pytest.mark.parametrize("corpus", ["examples", "drupal", "agentv"])
def test_the_servers_findings_are_the_commands(client_for: Any, run: Any, corpus: str) -> None:
    """Parity: every eval file of `examples/` and of the real corpora, opened as it is, gets
    the findings `evallint check` gives it over the same folder."""
    from conftest import shared_or_skip

    root = REPO / "examples" if corpus == "examples" else shared_or_skip("corpus", corpus)
    _, out, _ = run("check", "--format", "json", "--no-cache", ".", cwd=root)
    cli = json.loads(out)["diagnostics"]
    compared = _parity(client_for(root), root, cli)
    assert compared == len(cli)
    if corpus != "examples":  # outside git the server keeps no cache: it writes nothing there
        assert not (root / ".evallint_cache").exists()


def test_findings_come_from_the_unsaved_buffer_with_rule_links(
    tmp_path: Path, client_for: Any
) -> None:
    root = _git_repo(tmp_path, {"rubrics/refunds.yaml": RUBRIC, "datasets/d.yaml": DATASET})
    client = client_for(root)
    uri = client.open("datasets/d.yaml", DATASET.replace("    input:", "    inptu:"))
    found = client.published(uri)
    assert _found(found) == [(3, 5, "schema-violation"), (4, 5, "key-typo")]
    typo = next(d for d in found if d["code"] == "key-typo")
    assert typo["severity"] == 1 and typo["source"] == "evallint"
    assert typo["codeDescription"]["href"].endswith("RULES.md#key-typo")
    assert typo["message"] == "unknown key 'inptu'; did you mean 'input'?"
    assert typo["range"] == {
        "start": {"line": 3, "character": 4},
        "end": {"line": 3, "character": 9},
    }


def test_an_unsaved_rubric_edit_moves_an_open_datasets_findings(
    tmp_path: Path, client_for: Any
) -> None:
    """Cross-file, live: the dataset pins rubric/refunds@1.2.0; the rubric's version edited in
    memory (never saved) leaves the pin dangling, and edited back, resolves it again."""
    root = _git_repo(tmp_path, {"rubrics/refunds.yaml": RUBRIC, "datasets/d.yaml": DATASET})
    client = client_for(root)
    dataset = client.open("datasets/d.yaml")
    rubric = client.open("rubrics/refunds.yaml")
    assert client.published(dataset) == []
    client.change(rubric, RUBRIC.replace('version: "1.2.0"', 'version: "1.3.0"'))
    assert [d["code"] for d in client.published(dataset)] == ["unknown-ref-version"]
    client.change(rubric, RUBRIC, version=3)
    assert client.published(dataset) == []
    assert (root / "rubrics/refunds.yaml").read_text(encoding="utf-8") == RUBRIC


def test_a_code_action_fixes_and_the_result_lints_clean(tmp_path: Path, client_for: Any) -> None:
    root = _git_repo(tmp_path, {"rubrics/refunds.yaml": RUBRIC, "datasets/d.yaml": DATASET})
    client = client_for(root)
    text = DATASET.replace("    input:", "    inptu:")
    uri = client.open("datasets/d.yaml", text)
    assert [d["code"] for d in client.published(uri)] == ["schema-violation", "key-typo"]
    actions = client.request("textDocument/codeAction", _range_params(uri, 3, 3))
    titles = [a["title"] for a in actions]
    assert "Ignore key-typo on this line" in titles
    fix = next(a for a in actions if a["title"].startswith("Fix: unknown key 'inptu'"))
    assert fix["kind"] == "quickfix" and fix["isPreferred"] is True
    (edit,) = fix["edit"]["changes"][uri]
    lines = text.split("\n")
    row, start, end = edit["range"]["start"]["line"], edit["range"]["start"], edit["range"]["end"]
    lines[row] = lines[row][: start["character"]] + edit["newText"] + lines[row][end["character"] :]
    client.change(uri, "\n".join(lines))
    assert client.published(uri) == []


def test_hostile_buffers_never_end_the_server(tmp_path: Path, client_for: Any) -> None:
    """Each payload gets its findings (a parse-error, most often); the server answers the next
    request every time."""
    root = _git_repo(tmp_path, {"rubrics/refunds.yaml": RUBRIC})
    client = client_for(root)
    payloads = [
        "id: [\n",
        "a: " + "[" * 5000 + "\n",
        "x: &a [*a]\n",
        '{"\\ud800": 1}',
        "\x00\x01\x02",
        "questions:\n" + "  - id: q\n" * 5000,
        "",
    ]
    uri = client.open("rubrics/hostile.yaml", "id: x\n")
    for version, text in enumerate(payloads, start=2):
        client.change(uri, text, version)
        client.published(uri)  # answered: the server is alive
    assert client.proc.poll() is None
    assert [d["code"] for d in client.published(uri)] == ["parse-error"]


def test_without_the_extra_the_command_says_what_to_install(tmp_path: Path) -> None:
    """A plain install has no pygls: `evallint lsp` says which extra to install, exit 2."""
    code = (
        "import sys; sys.modules['pygls'] = None; sys.modules['lsprotocol'] = None; "
        "from evallint.cli.main import main; sys.exit(main(['lsp']))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 2
    assert "pip install 'evallint-git[lsp]'" in done.stderr
