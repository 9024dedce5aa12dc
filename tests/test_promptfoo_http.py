"""`promptfoo-http-config-key`: the keys promptfoo's HTTP provider strips from its `config`, at
their lines, and exactly those promptfoo 0.123.1 strips when it builds the provider (its own
`loadApiProvider`, offline: building a provider calls nothing)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import found
from evallint.formats.promptfoo.kinds_http import CONFIG_KEYS
from test_promptfoo_conformance import node_oracle

CONFIG = """\
prompts: ["{{question}}"]
providers:
  - id: https://example.com/chat
    config:
      body: {q: "{{prompt}}"}
      transform: json.answer
      hedaers: {a: b}
  - https://example.com/x:
      config: {url: "https://x", maxRetrys: 2}
  - id: openai:gpt-4.1-mini
    config: {whatever: 1}
  - id: http
    config: {url: "https://example.com", method: GET, transformResponse: json.x}
tests:
  - vars: {question: Hi}
"""


def test_the_keys_it_drops_are_found_at_their_lines() -> None:
    got = [
        (line, col, text)
        for line, col, rule, text in found("promptfooconfig.yaml", CONFIG)
        if rule == "promptfoo-http-config-key"
    ]
    assert [(line, col) for line, col, _ in got] == [(6, 7), (7, 7), (9, 34)]
    assert "did you mean 'transformResponse' (or `transform` beside `config`)?" in got[0][2]
    assert got[1][2].endswith("did you mean 'headers'?")
    assert got[2][2].endswith("did you mean 'maxRetries'?")


def test_the_rule_reads_the_generated_list() -> None:
    assert {"transformResponse", "body", "url"} <= CONFIG_KEYS and "transform" not in CONFIG_KEYS


ORACLE = """
import { readFileSync } from "node:fs";
const mod = await import(process.argv[2] + "/dist/src/index.js");
const out = [];
for (const config of JSON.parse(readFileSync(0, "utf8"))) {
  try {
    const provider = await mod.loadApiProvider("https://example.com/api", { options: { config } });
    out.push(Object.keys(provider.config ?? {}));
  } catch (e) {
    out.push({ error: String(e?.message ?? e).slice(0, 300) });
  }
}
process.stdout.write(JSON.stringify(out));
"""

# Configs promptfoo builds: each key of our list with a value of its type, and slips.
PLANTED: list[dict[str, object]] = [
    {"body": {"q": "{{prompt}}"}, "transform": "json.x", "transformResponse": "json.y"},
    {"method": "GET", "headerz": {"a": "b"}, "queryParams": {"q": "1"}, "url": "https://x"},
    {"request": "GET / HTTP/1.1\nHost: x\n\n", "useHttps": True, "maxRetrys": 2},
    {"body": "{{prompt}}", "maxRetries": 1, "stateful": True, "sessionParser": "json.id"},
    {"body": {"q": 1}, "transformRequest": "x", "validateStatus": "s < 500", "responseParse": "a"},
    {"body": {"q": 1}, "tools": [], "tool_choice": "auto", "transformToolsFormat": "openai"},
    {"body": {"q": 1}, "sessionSource": "client", "responseParser": "json.a", "timeout": 5},
]


def test_the_keys_it_drops_are_those_promptfoo_strips(tmp_path: Path) -> None:
    verdicts = node_oracle(ORACLE, PLANTED, tmp_path)
    for config, kept in zip(PLANTED, verdicts, strict=True):
        assert isinstance(kept, list), (config, kept)  # built: the config is one it accepts
        text = "providers:\n  - id: https://example.com/api\n    config: " + json.dumps(config)
        text = 'prompts: ["{{q}}"]\n' + text + "\ntests:\n  - vars: {q: Hi}\n"
        flagged = {
            re.search(r"drops '([^']+)'", message)[1]  # type: ignore[index]
            for *_, rule, message in found("promptfooconfig.yaml", text)
            if rule == "promptfoo-http-config-key"
        }
        assert flagged == set(config) - set(kept), (config, kept)
