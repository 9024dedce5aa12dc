"""promptfoo providers: an id promptfoo cannot load fails the whole config.

`promptfoo validate` and `eval` build every provider of `providers` (or `targets`) before
anything runs; an id no provider of the release answers to ("Could not identify provider"), a
provider the release retired, or a SageMaker model type it does not read fails the config.
Only what the id itself says is checked: what an id's model or endpoint is, the provider's
service decides. Of a provider's `config`, the keys of the providers that drop what they do not
know, by the release's own lists: HTTP (its config schema) and Ollama (the sets it sorts its
config by).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

from evallint.formats.promptfoo import kinds as promptfoo
from evallint.formats.promptfoo import kinds_ollama as ollama
from evallint.formats.promptfoo.kinds_http import CONFIG_KEYS as HTTP_KEYS
from evallint.model import JSON, Finding, Pointer, Severity
from evallint.rules.base import rule
from evallint.suggest import suggest

if TYPE_CHECKING:
    from evallint.parse import Document
    from evallint.rules.api import Context

KINDS = promptfoo.KINDS

# The ids promptfoo 0.123.1's provider registry answers to: a prefix before `:` (the model or
# endpoint follows), or the whole id. Written from its registry's tests.
PREFIXES = frozenset(
    {
        "a2a", "abliteration", "ai21", "aimlapi", "alibaba", "alicloud", "aliyun", "anthropic",
        "atlascloud", "azure", "azureopenai", "bam", "bedrock", "bedrock-agent", "cerebras",
        "cloudera", "cloudflare-ai", "cloudflare-gateway", "cohere", "cometapi", "dashscope",
        "databricks", "deepseek", "docker", "elevenlabs", "envoy", "exec", "f5", "fal",
        "fireworks", "github", "golang", "google", "groq", "helicone", "hf", "http", "https",
        "huggingface", "hyperbolic", "jfrog", "litellm", "llama", "llamaapi", "localai", "mcp",
        "meta", "minimax", "mistral", "mlflow-gateway", "modelslab", "moonshot", "n8n", "novita",
        "nscale", "nvidia", "ollama", "openai", "openclaw", "opencode", "openinterpreter",
        "openrouter", "orcarouter", "package", "palm", "perplexity", "portkey", "python",
        "quiverai", "qwak", "replicate", "ruby", "sagemaker", "slack", "snowflake", "togetherai",
        "transformers", "transformers.js", "truefoundry", "vercel", "vertex", "voyage",
        "watsonx", "webhook", "ws", "wss", "xai",
    }
)  # fmt: skip
WHOLE = frozenset(
    {
        "a2a", "agentic:memory-poisoning", "browser", "echo", "http", "https", "llama", "mcp",
        "n8n", "openclaw", "opencode", "openinterpreter", "promptfoo:manual-input",
        "promptfoo:simulated-user", "sequence", "slack", "websocket", "ws", "wss",
    }
)  # fmt: skip
# Ids under `promptfoo:` that name a family of their own (a model served by promptfoo, a red
# team strategy's attacker); red team ids are many and change often, so any is taken.
FAMILIES = ("promptfoo:model:", "promptfoo:redteam:")
# Scripts promptfoo runs as a provider, by the file's extension (`file://` for all but
# JavaScript, which any path ending so names).
SCRIPTS = (".py", ".go", ".rb")
JAVASCRIPT = (".js", ".cjs", ".mjs", ".ts", ".cts", ".mts")
CONFIG_FILES = (".yaml", ".yml", ".json")
RETIRED = {
    "bam": "promptfoo removed the IBM BAM provider (the service ended in March 2025); "
    "use `watsonx:`",
}
# The model types a SageMaker id may name (`sagemaker:<type>:<endpoint>`), and the embedding
# forms, which take no type.
SAGEMAKER_TYPES = ("openai", "llama", "huggingface", "jumpstart", "custom")
EMBEDDING = ("embedding", "embeddings")
# Keys of a provider's options: a one-key object whose key is none of these maps an id to them.
OPTION_KEYS = frozenset({"id", "label", "config", "prompts", "transform", "delay", "env", "inputs"})


Provider = tuple[Pointer, str, dict[str, JSON], bool]


def providers(data: JSON) -> Iterator[Provider]:
    """(place of the id, id, options) of each provider of a config, as promptfoo reads them:
    an id, an object with an `id`, or a one-key object mapping an id to its options (the id
    is then the key)."""
    if not isinstance(data, dict):
        return
    for key in ("providers", "targets"):
        found = data.get(key)
        if isinstance(found, str) and found:
            yield (key,), found, {}, False
        for i, item in enumerate(found if isinstance(found, list) else ()):
            if isinstance(item, str) and item:
                yield (key, i), item, {}, False
            elif isinstance(item, dict):
                yield from _options(item, (key, i))


def _options(item: dict[str, JSON], at: Pointer) -> Iterator[Provider]:
    named = item.get("id")
    if isinstance(named, str) and named:
        yield (*at, "id"), named, item, False
        return
    if len(item) == 1:
        ((key, options),) = item.items()
        if isinstance(key, str) and key and key not in OPTION_KEYS and isinstance(options, dict):
            yield (*at, key), key, options, True


def _readable(item: JSON) -> bool:
    """Whether promptfoo reads a list item as a provider: a non-empty id, an object with one,
    or a one-key object mapping an id to its options."""
    if isinstance(item, str):
        return bool(item)
    if not isinstance(item, dict):
        return False
    named = item.get("id")
    if isinstance(named, str) and named:
        return True
    if len(item) != 1:
        return False
    ((key, options),) = item.items()
    return bool(key) and key not in OPTION_KEYS and isinstance(options, dict)


UNREADABLE = (
    "promptfoo cannot read this provider: write an id, an object with an `id`, "
    "or `{<id>: {<options>}}`"
)


def _shapes(data: JSON) -> Iterator[Finding]:
    """Where a config's `providers` (or `targets`) is no list promptfoo reads."""
    for key in ("providers", "targets"):
        if not isinstance(data, dict) or key not in data:
            continue
        found = data[key]
        if isinstance(found, str) and found:
            continue
        if not isinstance(found, list):
            yield Finding((key,), f"'{key}' is no provider id or list of providers: " + REFUSED)
        elif not found:
            yield Finding((key,), f"'{key}' lists no provider: " + REFUSED)
        for i, item in enumerate(found if isinstance(found, list) else ()):
            if not _readable(item):
                yield Finding((key, i), UNREADABLE)


REFUSED = "promptfoo refuses the config"


def _known(written: str) -> bool:
    lowered = written.lower()
    if written.startswith("file://"):
        path = written.removeprefix("file://")
        if path.endswith(CONFIG_FILES) or lowered.endswith(JAVASCRIPT):
            return True
        # A function after a script (`x.py:call_api`); promptfoo's JavaScript test takes none,
        # but the form is not worth an error.
        return any(path.endswith(end) or f"{end}:" in path for end in (*SCRIPTS, *JAVASCRIPT))
    if lowered.endswith(JAVASCRIPT) or written.startswith("promptfoo://provider/"):
        return True
    if written in WHOLE or written.startswith(FAMILIES):
        return True
    head, colon, _ = written.partition(":")
    return bool(colon) and head in PREFIXES


def _sagemaker(written: str, options: dict[str, JSON]) -> str | None:
    """Why promptfoo refuses a SageMaker id, if it does: no model type, or one it does not
    read. An endpoint named with a colon or `jumpstart` is read in ways not worth guessing."""
    parts = written.split(":")
    if len(parts) < 2 or len(parts) > 3 or parts[1] in EMBEDDING:
        return None
    config = options.get("config")
    named = parts[1] if len(parts) == 3 else None
    if named is None and isinstance(config, dict):
        named = config.get("modelType")
    if named is None:
        return "a SageMaker endpoint needs its model type: `sagemaker:<type>:<endpoint>`"
    if not isinstance(named, str) or named in SAGEMAKER_TYPES or "jumpstart" in parts[-1]:
        return None
    return f"SageMaker model type {named!r} is none promptfoo reads ({', '.join(SAGEMAKER_TYPES)})"


def problem(written: str, options: dict[str, JSON]) -> str | None:
    """What promptfoo says when it builds this provider, if it refuses it."""
    if "{{" in written:
        return None  # promptfoo renders the environment into it first
    head = written.partition(":")[0]
    if head in RETIRED and ":" in written:
        return RETIRED[head]
    if head == "sagemaker":
        return _sagemaker(written, options)
    if _known(written):
        return None
    hint = suggest(head, PREFIXES) if ":" in written else suggest(written, WHOLE)
    tail = f"; did you mean {hint!r}?" if hint else ""
    return f"promptfoo knows no provider {written!r}: the config fails to load{tail}"


@rule("promptfoo-provider", Severity.ERROR, kinds=KINDS, precision="high")
def promptfoo_provider(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A provider promptfoo cannot build: the config fails to load, nothing runs.

    promptfoo builds each provider of `providers` (or `targets`) when it loads a config. An
    entry it cannot read (no id, an empty list, an object of options under no id), an id
    none of its providers answers to ("Could not identify provider"), a provider it retired,
    or a SageMaker model type it does not read stops the whole run. Ids are those promptfoo
    0.123 knows; ids with `{{ env.* }}` in them are rendered by promptfoo, and not checked.

    Bad (promptfooconfig.yaml):
        prompts: ["Summarise: {{text}}"]
        providers: [opnai:gpt-4.1-mini]
        tests:
          - vars: {text: The refund window is 30 days.}
    Good (promptfooconfig.yaml):
        prompts: ["Summarise: {{text}}"]
        providers: [openai:gpt-4.1-mini]
        tests:
          - vars: {text: The refund window is 30 days.}
    """
    yield from _shapes(doc.data)
    for at, written, options, on_key in providers(doc.data):
        said = problem(written, options)
        if said is not None:
            yield Finding(at, said, on_key=on_key)


def _http(written: str) -> bool:
    """Whether promptfoo builds its HTTP provider for this id."""
    return written.startswith(("http:", "https:")) or written in ("http", "https")


def config_at(at: Pointer, on_key: bool) -> Pointer:
    """Where a provider's `config` is, from where its id is (`providers`)."""
    return (*at, "config") if on_key else (*at[:-1], "config")


What = TypeVar("What")


def config_keys(
    data: JSON, what: Callable[[str], What | None], said: Callable[[str, What], str | None]
) -> Iterator[Finding]:
    """A finding at each key of a provider's `config` that `said` has words for, for each
    provider whose id `what` knows (and tells what of it the words depend on: its endpoint).
    Each message names its key, but they are one problem for the repeat cap: a config of
    thousands of keys shows a person the first ones and counts the rest, unplaced."""
    for at, written, options, on_key in providers(data):
        known = what(written)
        config = options.get("config")
        if known is None or not isinstance(config, dict):
            continue
        where = config_at(at, on_key)
        for key in config:
            text = said(key, known) if isinstance(key, str) else None
            if text is not None:
                yield Finding((*where, key), text, on_key=True, group="config key")


def _dropped(key: str) -> str:
    hint = "transformResponse" if key == "transform" else suggest(key, HTTP_KEYS)
    if key == "transform":
        tail = "; did you mean 'transformResponse' (or `transform` beside `config`)?"
    else:
        tail = f"; did you mean {hint!r}?" if hint else ""
    return (
        f"promptfoo's HTTP provider drops {key!r} from its config without a word, so it has "
        f"no effect{tail}"
    )


@rule("promptfoo-http-config-key", Severity.WARNING, kinds=KINDS, precision="high")
def promptfoo_http_config_key(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A key of an HTTP provider's `config` that promptfoo drops.

    promptfoo 0.123's HTTP provider (an id `http:`, `https:`, `http` or `https`) parses its
    `config` with a schema that strips every key it does not name, without a warning: a
    misspelt key has no effect. A `transform` there (promptfoo's `transformResponse` was
    meant, or the provider's own `transform`, beside `config`) leaves the response as the
    service sends it, so the tests grade raw JSON.

    Bad (promptfooconfig.yaml):
        prompts: ["{{question}}"]
        providers:
          - id: https://example.com/chat
            config: {body: {q: "{{prompt}}"}, transform: json.answer}
        tests:
          - vars: {question: Hi}
    Good (promptfooconfig.yaml):
        prompts: ["{{question}}"]
        providers:
          - id: https://example.com/chat
            config: {body: {q: "{{prompt}}"}, transformResponse: json.answer}
        tests:
          - vars: {question: Hi}
    """
    yield from config_keys(doc.data, _http_kind, _http_dropped)


def _http_kind(written: str) -> bool | None:
    return True if _http(written) else None


def _http_dropped(key: str, _: bool) -> str | None:
    return None if key in HTTP_KEYS else _dropped(key)


def _ollama_endpoint(written: str) -> str | None:
    """The Ollama endpoint promptfoo builds a provider for from its id (`ollama:chat:m`,
    `ollama:completion:m`, `ollama:embeddings:m`; any other `ollama:m` is a completion one),
    or None for another provider."""
    if not written.startswith("ollama:"):
        return None
    named = written.split(":")[1]
    if named == "chat":
        return "chat"
    return "embedding" if named in ("embedding", "embeddings") else "completion"


# What a slip may have meant: the options and the keys promptfoo reads itself (not the path it
# sets on every provider).
_OLLAMA_HINTS = (ollama.OPTION_KEYS | ollama.INTERNAL) - {"basePath", "passthrough"}


# Keys other providers take that real Ollama configs carry (`max_tokens`, `base_url`), and what
# the Ollama provider reads instead: the option of that meaning, or the environment.
_OLLAMA_INSTEAD = {
    "max_tokens": "; Ollama's option for it is 'num_predict'",
    "max_new_tokens": "; Ollama's option for it is 'num_predict'",
    **dict.fromkeys(
        ("base_url", "baseUrl", "apiBaseUrl", "apiHost", "host", "url"),
        "; the provider reads the server's address from OLLAMA_BASE_URL in the environment",
    ),
    **dict.fromkeys(
        ("apiKey", "api_key"), "; the provider reads a key from OLLAMA_API_KEY in the environment"
    ),
}


def _ollama_dropped(key: str, endpoint: str) -> str | None:
    if key in ollama.INTERNAL or key == "passthrough":
        return None
    if key not in ollama.OPTION_KEYS:
        hint = suggest(key, _OLLAMA_HINTS)
        other = " (other request fields go under `passthrough`)"
        tail = _OLLAMA_INSTEAD.get(key) or (f"; did you mean {hint!r}?" if hint else other)
        return (
            f"promptfoo's Ollama provider drops {key!r} from its config without a word (it "
            f"sends Ollama's options and a few fields beside them), so it has no effect{tail}"
        )
    if key in ollama.TOP_LEVEL and key not in ollama.ENDPOINT_KEYS[endpoint]:
        return (
            f"promptfoo's Ollama {endpoint} provider does not send {key!r}: its endpoint does "
            "not take it (promptfoo only warns when the eval runs)"
        )
    return None


@rule("promptfoo-ollama-config-key", Severity.WARNING, kinds=KINDS, precision="high")
def promptfoo_ollama_config_key(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A key of an Ollama provider's `config` that promptfoo does not send.

    promptfoo 0.123's Ollama providers (`ollama:chat:<model>`, `ollama:completion:<model>`,
    `ollama:embeddings:<model>`; `ollama:<model>` is a completion one) send Ollama's options
    in the request's `options` and a few fields beside them; any other key of `config` is
    dropped with no word but a debug log line, so a misspelt option has no effect. A field
    the provider's endpoint does not take (`suffix` on a chat provider, `tools` on a
    completion one) is dropped too, with a warning only when the eval runs.

    Bad (promptfooconfig.yaml):
        prompts: ["{{question}}"]
        providers:
          - id: ollama:chat:llama3.2
            config: {temprature: 0.2, suffix: "."}
        tests:
          - vars: {question: Hi}
    Good (promptfooconfig.yaml):
        prompts: ["{{question}}"]
        providers:
          - id: ollama:chat:llama3.2
            config: {temperature: 0.2}
        tests:
          - vars: {question: Hi}
    """
    yield from config_keys(doc.data, _ollama_endpoint, _ollama_dropped)
