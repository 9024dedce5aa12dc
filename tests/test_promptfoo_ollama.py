"""`promptfoo-ollama-config-key`: the keys of an Ollama provider's `config` that promptfoo does
not send, at their lines, and exactly those promptfoo 0.123.1 leaves out of the request its own
providers make (to a stand-in for Ollama on the loopback, which answers every request)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import found
from evallint.formats.promptfoo import kinds_ollama
from test_promptfoo_conformance import node_oracle

RULE = "promptfoo-ollama-config-key"
CONFIG = """\
prompts: ["{{question}}"]
providers:
  - id: ollama:chat:llama3.2
    config: {temprature: 0.2, suffix: ".", temperature: 0.1, showThinking: true}
  - ollama:llama3:
      config: {tools: [], num_predcit: 5, raw: true, passthrough: {options: {seed: 1}}}
  - id: ollama:embeddings:x
    config: {dimensions: 3, xyzzy: 1}
  - id: openai:gpt-4.1-mini
    config: {temprature: 1}
tests:
  - vars: {question: Hi}
"""


def test_the_keys_it_does_not_send_are_found_at_their_lines() -> None:
    got = [
        (line, col, text)
        for line, col, rule, text in found("promptfooconfig.yaml", CONFIG)
        if rule == RULE
    ]
    assert [(line, col) for line, col, _ in got] == [(4, 14), (4, 31), (6, 16), (6, 27), (8, 29)]
    assert got[0][2].endswith("did you mean 'temperature'?")
    assert "Ollama chat provider does not send 'suffix'" in got[1][2]
    assert "Ollama completion provider does not send 'tools'" in got[2][2]
    assert got[3][2].endswith("did you mean 'num_predict'?")
    assert got[4][2].endswith("(other request fields go under `passthrough`)")


def test_what_other_providers_call_a_setting_is_named_as_ollama_reads_it() -> None:
    text = CONFIG.replace("{dimensions: 3, xyzzy: 1}", "{max_tokens: 9, base_url: x, apiKey: k}")
    got = [text for *_, rule, text in found("promptfooconfig.yaml", text) if rule == RULE][-3:]
    assert got[0].endswith("; Ollama's option for it is 'num_predict'")
    assert got[1].endswith("reads the server's address from OLLAMA_BASE_URL in the environment")
    assert got[2].endswith("reads a key from OLLAMA_API_KEY in the environment")


def test_the_rule_reads_the_generated_lists() -> None:
    assert {"temperature", "num_predict", "keep_alive"} <= kinds_ollama.OPTION_KEYS
    assert kinds_ollama.ENDPOINT_KEYS["chat"] < kinds_ollama.TOP_LEVEL <= kinds_ollama.OPTION_KEYS
    assert "showThinking" in kinds_ollama.INTERNAL


# promptfoo's own providers, built by its `loadApiProvider` and called once each, against a
# stand-in server: what each request carried (its `options` and the fields beside them).
ORACLE = """
import { readFileSync } from "node:fs";
import http from "node:http";
const bodies = [];
const server = http.createServer((req, res) => {
  let text = "";
  req.on("data", (chunk) => (text += chunk));
  req.on("end", () => {
    bodies.push(JSON.parse(text || "{}"));
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ response: "ok", message: { role: "assistant", content: "ok" },
      done: true, embedding: [0.1], embeddings: [[0.1]] }));
  });
});
await new Promise((ready) => server.listen(0, "127.0.0.1", ready));
process.env.OLLAMA_BASE_URL = `http://127.0.0.1:${server.address().port}`;
process.env.PROMPTFOO_CACHE_ENABLED = "false";
process.env.PROMPTFOO_DISABLE_TELEMETRY = "1";
process.env.LOG_LEVEL = "error";  // its warnings go to stdout, where the answer goes
const mod = await import(process.argv[2] + "/dist/src/index.js");
const out = [];
for (const [id, config] of JSON.parse(readFileSync(0, "utf8"))) {
  bodies.length = 0;
  try {
    const provider = await mod.loadApiProvider(id, { options: { config } });
    await (provider.callEmbeddingApi ? provider.callEmbeddingApi("hi") : provider.callApi("hi"));
  } catch (e) {}
  out.push(bodies[0] ?? null);
}
server.close();
process.stdout.write(JSON.stringify(out));
process.exit(0);
"""

# Each endpoint with options, fields of its own and of the others, promptfoo's own keys, and
# slips (`tfs_z`: an option current Ollama ignores, still sent).
PLANTED: list[tuple[str, dict[str, object]]] = [
    ("ollama:chat:m", {"temperature": 0.1, "temprature": 0.2, "suffix": ".", "think": True}),
    ("ollama:chat:m", {"num_ctx": 8, "tools": [], "keep_alive": "1m", "raw": True, "tfs_z": 1}),
    ("ollama:chat:m", {"format": "json", "truncate": True, "showThinking": False, "seed": 3}),
    ("ollama:completion:m", {"num_predict": 5, "system": "s", "tools": [], "num_predcit": 5}),
    ("ollama:m", {"template": "t", "suffix": ".", "raw": False, "dimensions": 3, "stop": ["x"]}),
    ("ollama:embeddings:m", {"dimensions": 3, "keep_alive": "1m", "temperature": 0.1, "x": 1}),
    ("ollama:embedding:m", {"truncate": True, "format": "json", "top_k": 4}),
    ("ollama:chat:m", {"max_tokens": 9, "base_url": "http://x", "apiKey": "k", "num_predict": 9}),
]


def _sent(body: dict[str, object]) -> set[str]:
    options = body.get("options")
    return set(body) | (set(options) if isinstance(options, dict) else set())


def test_the_keys_it_flags_are_those_promptfoo_does_not_send(tmp_path: Path) -> None:
    bodies = node_oracle(ORACLE, PLANTED, tmp_path)
    for (id_, config), body in zip(PLANTED, bodies, strict=True):
        assert isinstance(body, dict), (id_, config, body)  # the provider made its request
        text = f"providers:\n  - id: {id_}\n    config: {json.dumps(config)}"
        text = 'prompts: ["{{q}}"]\n' + text + "\ntests:\n  - vars: {q: Hi}\n"
        flagged = {
            re.search(r"(?:drops|does not send) '([^']+)'", message)[1]  # type: ignore[index]
            for *_, rule, message in found("promptfooconfig.yaml", text)
            if rule == "promptfoo-ollama-config-key"
        }
        # promptfoo's own keys are read, not sent: never flagged, as never sent.
        unsent = set(config) - _sent(body) - kinds_ollama.INTERNAL
        assert flagged == unsent, (id_, config, body)
