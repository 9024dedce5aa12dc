"""`promptfoo-provider-config-key`: the keys of an OpenAI, Anthropic or Bedrock provider's
`config` that no code of promptfoo reads, at their lines; and, against promptfoo 0.123.1's own
providers making their requests to a stand-in server on the loopback, that a key the rule
reports changes nothing promptfoo sends, while the keys it leaves alone do."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import found, lint_files
from evallint.formats.promptfoo import kinds_keys_anthropic, kinds_keys_bedrock, kinds_keys_openai
from evallint.formats.promptfoo.rules_provider_keys import family
from test_promptfoo_conformance import node_oracle

RULE = "promptfoo-provider-config-key"
CONFIG = """\
prompts: ["{{question}}"]
providers:
  - id: openai:chat:gpt-4.1-mini
    config: {maxTokens: 200, temprature: 0, baseURL: x, passthrough: {a: 1}, apiKey: k}
  - anthropic:messages:claude-sonnet-4-5:
      config: {max_completion_tokens: 5, stop: [x], top_k: 3, base_url: u, user: me}
  - id: bedrock:us.anthropic.claude-3-5-haiku-20241022-v1:0
    config: {region: us-east-1, maxOutputTokens: 9, max_tokens: 4}
  - id: anthropic:claude-agent-sdk
    config: {anything: 1}
  - id: ollama:chat:m
    config: {temprature: 1}
tests:
  - vars: {question: Hi}
"""


def _flagged(text: str) -> list[tuple[int, int, str]]:
    return [
        (line, col, message)
        for line, col, rule, message in found("promptfooconfig.yaml", text)
        if rule == RULE
    ]


def test_the_keys_no_code_reads_are_found_at_their_lines() -> None:
    got = _flagged(CONFIG)
    assert [(line, col) for line, col, _ in got] == [
        (4, 14), (4, 30), (4, 45), (6, 16), (6, 42), (6, 63), (6, 76), (8, 33),
    ]  # fmt: skip
    said = [message for *_, message in got]
    assert said[0].startswith("no code of promptfoo's OpenAI providers reads 'maxTokens'")
    assert said[0].endswith(
        "OpenAI's is 'max_tokens' ('max_completion_tokens' for reasoning models)"
    )
    assert said[1].endswith("did you mean 'temperature'?")
    assert said[2].endswith("promptfoo's key for the API's address is 'apiBaseUrl'")
    assert said[3].endswith("Anthropic's is 'max_tokens'")
    assert said[4].endswith("Anthropic's is 'stop_sequences'")
    assert said[6].endswith("`metadata: {user_id: ...}`")
    assert said[7].endswith("(other fields of the API's request go under `passthrough`)")


def test_a_system_message_in_the_config_is_sent_to_the_prompt() -> None:
    text = CONFIG.replace("user: me}", "user: me, system_prompt: Be brief.}")
    said = [message for *_, message in _flagged(text)]
    assert said[-2].startswith("no code of promptfoo's Anthropic providers reads 'system_prompt'")
    assert said[-2].endswith(
        "the system message goes in the prompt (a chat prompt with a `system` role)"
    )


def test_thousands_of_unread_keys_show_the_first_and_count_the_rest() -> None:
    """One problem for the repeat cap, though each message names its key: a person sees the
    first ten at their places, the tenth counting the rest (machine outputs take them all)."""
    keys = ", ".join(f"k{i:04d}: 1" for i in range(2000))
    text = CONFIG.replace("{temperature: 0}", "{}").replace(
        "{maxTokens: 200, temprature: 0, baseURL: x, passthrough: {a: 1}, apiKey: k}",
        "{" + keys + "}",
    )
    got = [d for d in lint_files({"promptfooconfig.yaml": text}) if d.rule == RULE]
    assert [(d.span.line, d.span.column) for d in got[:2]] == [(4, 14), (4, 24)]
    assert len(got) == 10 and got[-1].more == 2000 + 5 - 10  # and the 5 keys of the others
    assert "'k0009'" in got[-1].message


def test_which_provider_an_id_builds() -> None:
    assert family("openai:gpt-4.1") == family("openai:responses:o3") == "openai"
    assert family("anthropic:claude-sonnet-4-5") == "anthropic"
    assert family("anthropic:claude-agent-sdk") is None  # another provider's code
    assert family("anthropic:claude-code:x") is None
    assert family("bedrock:converse:m") == "bedrock"
    assert family("azure:chat:x") is family("openai") is family("bedrock-agent:x") is None
    assert family("anthropic") is family("bedrock") is None


def test_shapes_it_does_not_read_pass() -> None:
    text = CONFIG.replace(
        "{maxTokens: 200, temprature: 0, baseURL: x, passthrough: {a: 1}, apiKey: k}", "[maxTokens]"
    )
    text = text.replace(
        "{max_completion_tokens: 5, stop: [x], top_k: 3, base_url: u, user: me}", "5"
    )
    text = text.replace("{region: us-east-1, maxOutputTokens: 9, max_tokens: 4}", "null")
    assert _flagged(text) == []


def test_the_rule_reads_the_generated_lists() -> None:
    openai, anthropic, bedrock = kinds_keys_openai, kinds_keys_anthropic, kinds_keys_bedrock
    assert {"max_tokens", "temperature", "apiKey", "passthrough", "apiBaseUrl"} <= openai.READ
    assert {"max_tokens", "stop_sequences", "extra_body", "thinking"} <= anthropic.READ
    assert {"region", "accessKeyId", "endpoint", "maxTokens"} <= bedrock.READ
    assert "maxTokens" not in openai.READ and "seed" not in anthropic.READ
    assert openai.NAMED <= openai.READ and anthropic.NAMED <= anthropic.READ
    assert openai.VERSION == anthropic.VERSION == bedrock.VERSION


# promptfoo's own providers, built by its `loadApiProvider` and called once for each config,
# against a stand-in server that answers as each API does: every request each call made (its
# path, its body, and its headers but for those that change from one request to the next).
ORACLE = """
import { readFileSync } from "node:fs";
import http from "node:http";
const ANSWERS = {
  "/v1/chat/completions": { id: "c", object: "chat.completion", created: 1, model: "m",
    choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } },
  "/v1/responses": { id: "r", object: "response", status: "completed", model: "m",
    output: [{ type: "message", id: "m", role: "assistant", status: "completed",
      content: [{ type: "output_text", text: "ok", annotations: [] }] }],
    usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } },
  "/v1/messages": { id: "m", type: "message", role: "assistant", model: "m",
    content: [{ type: "text", text: "ok" }], stop_reason: "end_turn",
    usage: { input_tokens: 1, output_tokens: 1 } },
  converse: { output: { message: { role: "assistant", content: [{ text: "ok" }] } },
    stopReason: "end_turn", usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    metrics: { latencyMs: 1 } },
};
const VOLATILE = new RegExp("^(date|x-amz-date|amz-sdk-invocation-id|amz-sdk-request"
  + "|user-agent|x-amz-user-agent|x-stainless-.*|content-length|connection|host|traceparent"
  + "|x-amz-content-sha256)$");
const seen = [];
const server = http.createServer((req, res) => {
  let text = "";
  req.on("data", (chunk) => (text += chunk));
  req.on("end", () => {
    // An AWS signature changes with the time; an API key's header does not.
    const kept = Object.entries(req.headers).filter(([k, v]) => !VOLATILE.test(k)
      && !(k === "authorization" && v.startsWith("AWS4")));
    const headers = Object.fromEntries(kept.sort());
    seen.push({ path: req.url, body: text, headers });
    const path = req.url.split("?")[0];
    const answer = ANSWERS[path] ?? (path.endsWith("/converse") ? ANSWERS.converse : null);
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(answer));
  });
});
await new Promise((ready) => server.listen(0, "127.0.0.1", ready));
const base = `http://127.0.0.1:${server.address().port}`;
Object.assign(process.env, { PROMPTFOO_CACHE_ENABLED: "false", PROMPTFOO_DISABLE_TELEMETRY: "1",
  LOG_LEVEL: "error", OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k", AWS_ACCESS_KEY_ID: "a",
  AWS_SECRET_ACCESS_KEY: "s", AWS_REGION: "us-east-1" });
const mod = await import(process.argv[2] + "/dist/src/index.js");
const out = [];
for (const [id, config] of JSON.parse(readFileSync(0, "utf8"))) {
  seen.length = 0;
  const url = base + (id.startsWith("anthropic:") ? "" : "/v1");
  const at = id.startsWith("bedrock:") ? { endpoint: base } : { apiBaseUrl: url };
  try {
    const provider = await mod.loadApiProvider(id, { options: { config: { ...config, ...at } } });
    await provider.callApi("hi");
  } catch (e) {}
  out.push(seen.slice());
}
server.close();
process.stdout.write(JSON.stringify(out));
process.exit(0);
"""

# Each provider with keys of its own (sent, or read as settings), other providers' names for
# them, and slips.
PLANTED: list[tuple[str, dict[str, object], set[str]]] = [
    ("openai:chat:gpt-4.1-mini", {"max_tokens": 7, "maxTokens": 9, "temperature": 0.3,
        "temprature": 0.5, "stop_sequences": ["x"], "top_k": 2, "seed": 4, "baseURL": "u"},
        {"max_tokens", "temperature", "seed"}),
    ("openai:gpt-4.1-mini", {"stop": ["y"], "topP": 0.5, "top_p": 0.4, "user": "me",
        "response_format": {"type": "json_object"}, "apiKey": "k2"},
        {"stop", "top_p", "user", "response_format", "apiKey"}),
    ("openai:responses:gpt-4.1-mini", {"max_output_tokens": 5, "maxOutputTokens": 6,
        "instructions": "be brief", "temperature": 0.2, "logprobs": True},
        {"max_output_tokens", "instructions", "temperature"}),
    ("anthropic:messages:claude-sonnet-4-5", {"max_tokens": 11, "max_completion_tokens": 12,
        "temperature": 0.1, "stop": ["s"], "stop_sequences": ["t"], "seed": 1, "top_k": 3,
        "metadata": {"user_id": "u"}, "user": "me", "frequency_penalty": 0.2},
        {"max_tokens", "temperature", "stop_sequences", "top_k", "metadata"}),
    ("anthropic:claude-sonnet-4-5", {"maxTokens": 5, "temprature": 0.4, "extra_body": {"x": 1},
        "topK": 3, "headers": {"x-h": "1"}, "base_url": "u"}, {"extra_body", "headers"}),
    ("bedrock:converse:amazon.nova-lite-v1:0", {"maxTokens": 13, "temperature": 0.1,
        "maxOutputTokens": 14, "temprature": 0.3, "topP": 0.6, "stopSequences": ["q"]},
        {"maxTokens", "temperature", "topP", "stopSequences"}),
]  # fmt: skip


def _config_text(id_: str, config: dict[str, object]) -> str:
    return (
        'prompts: ["{{q}}"]\n'
        f"providers:\n  - id: {id_}\n    config: {json.dumps(config)}\n"
        "tests:\n  - vars: {q: Hi}\n"
    )


def test_a_key_it_reports_changes_nothing_promptfoo_sends(tmp_path: Path) -> None:
    """Each config is sent whole, then without each of its keys in turn: without a key the
    rule reports, every request is as it was; without a key of the provider's own that the
    request carries (`sent`), it is not (so the comparison sees what a key does)."""
    cases: list[tuple[str, dict[str, object], set[str], str | None]]
    cases = [(id_, config, sent, None) for id_, config, sent in PLANTED]
    cases += [(id_, config, sent, key) for id_, config, sent in PLANTED for key in config]
    asked = [(id_, {k: v for k, v in config.items() if k != key}) for id_, config, _, key in cases]
    requests = node_oracle(ORACLE, asked, tmp_path)
    whole = {id_: made for (id_, *_, key), made in zip(cases, requests, strict=True) if not key}
    seen: dict[str, set[str]] = {}
    for (id_, config, sent, key), made in zip(cases, requests, strict=True):
        # Bedrock's provider needs the AWS SDK, an optional dependency promptfoo's install brings.
        assert made, (id_, "the provider made no request (for Bedrock: is the AWS SDK beside it?)")
        if key is None:
            continue
        flagged = {
            re.findall(r"reads '([^']+)'", message)[0]
            for *_, message in _flagged(_config_text(id_, config))
        }
        assert not flagged & sent
        if made != whole[id_]:
            seen.setdefault(id_, set()).add(key)
        assert key not in flagged or made == whole[id_], (id_, key, "a reported key was read")
    assert seen == {id_: sent for id_, _, sent in PLANTED}
