"""Print pip constraints that pin every runtime dependency (and the `fast` and `lsp` extras) to
the lowest version pyproject.toml allows, so CI proves each floor is true."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

project = tomllib.loads(Path("pyproject.toml").read_text(encoding="utf-8"))["project"]
extras = project["optional-dependencies"]
for requirement in [*project["dependencies"], *extras["fast"], *extras["lsp"]]:
    found = re.fullmatch(r"([A-Za-z0-9_.-]+)(?:\[[^]]*\])?>=([0-9][0-9A-Za-z.]*)", requirement)
    if found is None:
        raise SystemExit(f"no floor to pin in {requirement!r}: give it as name>=version")
    print(f"{found[1]}=={found[2]}")
