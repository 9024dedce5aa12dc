"""The formats evallint reads, one package each: `formats/<name>/` holds all evallint knows of
one format (its kinds in `kinds*.py`, its rules in `rules*.py`, the source of its schemas in
`schemas.py`). This tuple is the one place that lists them: the kind registry, the rule
registry and the schema writer take each format's modules from it, and nothing else imports a
particular format.

The order is the order kinds claim files in (a kind marked `fallback` claims after every
other), and the order `evallint rules` lists each format's rules.
"""

from __future__ import annotations

NAMES = ("ai_eval", "abp", "promptfoo", "agentv", "eee", "hf", "lmeval", "oaievals")
