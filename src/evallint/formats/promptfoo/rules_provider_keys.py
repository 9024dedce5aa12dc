"""promptfoo's OpenAI, Anthropic and Bedrock providers: a `config` key no code reads.

These providers have no list of their keys (unlike HTTP's schema or Ollama's sets): they build
each request from the keys they name, in their own code and in helpers. A key no code of the
provider reads by that name, and no code of promptfoo reads off any config, changes nothing
(`kinds_keys_<provider>`, read from the release by the list tool). What the provider is, an id
says: `openai:...`, `anthropic:...` (but its Claude Agent SDK ids, another provider's code),
`bedrock:...`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from importlib import import_module
from typing import TYPE_CHECKING

from evallint.formats.promptfoo import kinds as promptfoo
from evallint.formats.promptfoo.rules_providers import config_keys
from evallint.model import Finding, Severity
from evallint.rules.base import rule
from evallint.suggest import suggest

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context

KINDS = promptfoo.KINDS

NAMES = {"openai": "OpenAI", "anthropic": "Anthropic", "bedrock": "Bedrock"}


@functools.cache
def known_names(provider: str) -> tuple[frozenset[str], frozenset[str]]:
    """The names the provider may read, and those its own code reads off its config (for
    did-you-mean): its generated list, imported when a config first names the provider (four
    thousand names a run without such a config need not build)."""
    found = import_module(f"evallint.formats.promptfoo.kinds_keys_{provider}")
    return found.READ, found.NAMED


# Where a provider takes request fields it does not name.
EXTRA = {"openai": "passthrough", "anthropic": "extra_body", "bedrock": "passthrough"}
_ADDRESS = "; promptfoo's key for the API's address is 'apiBaseUrl'"
_OPENAI_MAX = "; OpenAI's is 'max_tokens' ('max_completion_tokens' for reasoning models)"
_ANTHROPIC_NONE = "; Anthropic's Messages API takes no such field"
# Keys real configs carry for a system message, which these providers take from the prompt.
_SYSTEM = dict.fromkeys(
    ("system_prompt", "systemMessage", "system_message"),
    "; the system message goes in the prompt (a chat prompt with a `system` role)",
)
# What other providers (and SDKs) call a setting, and what this provider reads instead: a
# likeness of spelling would point elsewhere (`baseURL` is not the chat provider's `base_url`).
INSTEAD = {
    "openai": {
        **_SYSTEM,
        **dict.fromkeys(
            ("maxTokens", "max_tokens_to_sample", "maxOutputTokens", "max_new_tokens"), _OPENAI_MAX
        ),
        "num_predict": _OPENAI_MAX,
        **dict.fromkeys(("stop_sequences", "stopSequences"), "; OpenAI's is 'stop'"),
        **dict.fromkeys(("top_k", "topK"), "; OpenAI's chat API has no top-k sampling"),
        **dict.fromkeys(("baseURL", "apiBase", "api_base"), _ADDRESS),
    },
    "anthropic": {
        **_SYSTEM,
        **dict.fromkeys(
            (
                "maxTokens", "max_completion_tokens", "maxOutputTokens", "max_output_tokens",
                "max_new_tokens", "num_predict",
            ),
            "; Anthropic's is 'max_tokens'",
        ),
        **dict.fromkeys(("stop", "stopSequences"), "; Anthropic's is 'stop_sequences'"),
        **dict.fromkeys(
            ("seed", "frequency_penalty", "presence_penalty", "logprobs"), _ANTHROPIC_NONE
        ),
        **dict.fromkeys(("base_url", "baseURL", "baseUrl", "apiBase", "api_base"), _ADDRESS),
        "user": "; Anthropic takes a user's id as `metadata: {user_id: ...}`",
    },
    "bedrock": {**_SYSTEM, **dict.fromkeys(("baseURL", "apiBase", "api_base"), _ADDRESS)},
}  # fmt: skip


def family(written: str) -> str | None:
    """Which of the three providers promptfoo builds for this id, if one."""
    head, colon, _ = written.partition(":")
    if not colon:
        return None  # promptfoo answers to `openai:...`, not `openai` (another rule says so)
    if head == "anthropic" and written.startswith(
        ("anthropic:claude-agent-sdk", "anthropic:claude-code")
    ):
        return None
    return head if head in NAMES else None


def unread(key: str, provider: str) -> str | None:
    """What to say of a key of this provider's config, if no code reads it."""
    read, named = known_names(provider)
    if key in read:
        return None
    hint = suggest(key, named)
    tail = INSTEAD[provider].get(key) or (
        f"; did you mean {hint!r}?"
        if hint
        else f" (other fields of the API's request go under `{EXTRA[provider]}`)"
    )
    return (
        f"no code of promptfoo's {NAMES[provider]} providers reads {key!r} from a config, "
        f"so it has no effect{tail}"
    )


@rule("promptfoo-provider-config-key", Severity.WARNING, kinds=KINDS, precision="high")
def promptfoo_provider_config_key(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A key of an OpenAI, Anthropic or Bedrock provider's `config` that promptfoo never reads.

    promptfoo 0.123's OpenAI (`openai:...`), Anthropic (`anthropic:...`) and Bedrock
    (`bedrock:...`) providers build each request from the config keys they name; any other
    key is ignored without a word, so a misspelt key, or another provider's name for a
    setting (`maxTokens`, `stop_sequences`, `baseURL`), has no effect and the eval runs on
    the defaults. A key is reported only when no code of the provider reads a key of that
    name, and no code of promptfoo reads it off any config. Fields of the API the provider
    does not name go under `passthrough` (OpenAI, Bedrock) or `extra_body` (Anthropic).

    Bad (promptfooconfig.yaml):
        prompts: ["{{question}}"]
        providers:
          - id: openai:chat:gpt-4.1-mini
            config: {maxTokens: 200, temprature: 0}
        tests:
          - vars: {question: Hi}
    Good (promptfooconfig.yaml):
        prompts: ["{{question}}"]
        providers:
          - id: openai:chat:gpt-4.1-mini
            config: {max_tokens: 200, temperature: 0}
        tests:
          - vars: {question: Hi}
    """
    yield from config_keys(doc.data, family, unread)
