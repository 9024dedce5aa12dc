"""promptfoo red-team rules: the plugin ids a config's `redteam` names, as promptfoo 0.123.1's
config schema reads them (the lists are generated from the package: `kinds/promptfoo_redteam`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from evallint.formats.promptfoo import kinds as promptfoo
from evallint.formats.promptfoo.kinds_redteam import PLUGINS, VERSION
from evallint.model import Finding, Severity
from evallint.rules.base import rule
from evallint.suggest import suggest

if TYPE_CHECKING:
    from evallint.model import JSON, Pointer
    from evallint.parse import Document
    from evallint.rules.api import Context


@rule("promptfoo-redteam-plugin", Severity.ERROR, kinds=promptfoo.KINDS, precision="high")
def promptfoo_redteam_plugin(doc: Document, ctx: Context) -> Iterator[Finding]:
    """A red-team plugin id promptfoo does not know: the config does not load.

    `redteam.plugins` names built-in plugins, collections of them (`harmful`, `default`) or
    aliases (`owasp:llm`), or a plugin of the project's own as `file://...`; any other id
    fails the config ("Invalid plugin id ... Custom plugins must start with file://"). A
    misspelling is offered its fix. The ids are promptfoo 0.123.1's, generated from the package.

    Bad (promptfooconfig.yaml):
        prompts: ["Answer: {{question}}"]
        targets: [openai:gpt-4.1-mini]
        redteam:
          plugins: [cybercrime, pii:direct]
    Good (promptfooconfig.yaml):
        prompts: ["Answer: {{question}}"]
        targets: [openai:gpt-4.1-mini]
        redteam:
          plugins: [harmful:cybercrime, pii:direct]
    """
    redteam = doc.data.get("redteam") if isinstance(doc.data, dict) else None
    found = redteam.get("plugins") if isinstance(redteam, dict) else None
    for at, plugin in _ids(found):
        if plugin.startswith("file://") or plugin in PLUGINS:
            continue
        hint = suggest(plugin, PLUGINS) or next(
            (p for p in sorted(PLUGINS) if p.endswith(f":{plugin}")), None
        )
        tail = f"; did you mean {hint!r}?" if hint else ""
        yield Finding(
            at,
            f"red-team plugin {plugin!r} is none promptfoo {VERSION} knows (a plugin of your "
            f"own is `file://...`): the config does not load{tail}",
        )


def _ids(found: JSON) -> Iterator[tuple[Pointer, str]]:
    """(where, id) of each plugin: a text, or an object's `id`."""
    for i, item in enumerate(found if isinstance(found, list) else ()):
        if isinstance(item, str):
            yield ("redteam", "plugins", i), item
        elif isinstance(item, dict) and isinstance(item.get("id"), str):
            yield ("redteam", "plugins", i, "id"), item["id"]
