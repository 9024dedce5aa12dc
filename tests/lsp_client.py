"""A small Language Server Protocol client over stdio, as an editor drives `evallint lsp`: for
the end-to-end tests and the benchmark (it needs nothing beyond the standard library)."""

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
        self.request("textDocument/codeAction", range_params(uri))
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


def range_params(uri: str, line: int = 0, end: int = 10_000) -> dict[str, Any]:
    return {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": line, "character": 0}, "end": {"line": end, "character": 0}},
        "context": {"diagnostics": []},
    }
