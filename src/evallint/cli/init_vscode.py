"""`evallint init vscode`: point the YAML extension and VS Code's JSON support at our schemas
for the conventional layout."""

from __future__ import annotations

import json
from pathlib import Path

from evallint.errors import EvallintError
from evallint.kinds import KINDS
from evallint.validation.schemas import schema_dir

# schema name -> the globs its kind is found by in the conventional layout, for the YAML
# extension (yaml.schemas) and for VS Code's own JSON support (json.schemas). EEE records are
# left out: each declares its schema version, which no one glob can choose.
GLOBS = {k.schema: list(k.editor_globs) for k in KINDS if k.schema and k.editor_globs}


def schema_entries(folder: str) -> dict[str, list[str]]:
    """`yaml.schemas`: schema file -> the YAML globs."""
    found = {
        f"./{folder}/{name}.schema.json": [g for g in globs if not g.endswith(".json")]
        for name, globs in GLOBS.items()
    }
    return {url: globs for url, globs in found.items() if globs}


def json_entries(folder: str) -> list[dict[str, object]]:
    """`json.schemas`: [{fileMatch, url}] for the JSON globs."""
    out: list[dict[str, object]] = []
    for name, globs in GLOBS.items():
        matched = [g for g in globs if g.endswith(".json")]
        if matched:
            out.append({"fileMatch": matched, "url": f"./{folder}/{name}.schema.json"})
    return out


def init_vscode(root: Path, folder: str = ".vscode/evallint") -> list[str]:
    """Export the schemas under `folder` and merge `yaml.schemas` into the workspace settings."""
    settings_path = root / ".vscode" / "settings.json"
    settings: dict[str, object] = {}
    if settings_path.is_file():
        text = settings_path.read_text(encoding="utf-8")
        try:
            loaded = json.loads(text) if text.strip() else {}
        except ValueError:
            snippet = json.dumps({"yaml.schemas": schema_entries(folder)}, indent=2)
            raise EvallintError(
                f"{settings_path.relative_to(root)} is not plain JSON (comments?)"
                f"; it was left as it is. Add this to it:\n{snippet}"
            ) from None
        if not isinstance(loaded, dict):
            raise EvallintError(f"{settings_path.relative_to(root)} does not hold a JSON object")
        settings = loaded
    written = []
    target = root / folder
    target.mkdir(parents=True, exist_ok=True)
    for name in GLOBS:
        out = target / f"{name}.schema.json"
        out.write_bytes((schema_dir() / f"{name}.schema.json").read_bytes())
        written.append(out.relative_to(root).as_posix())
    current = settings.get("yaml.schemas")
    merged = dict(current) if isinstance(current, dict) else {}
    merged.update(schema_entries(folder))
    settings["yaml.schemas"] = merged
    ours = json_entries(folder)
    urls = {entry["url"] for entry in ours}
    existing = settings.get("json.schemas")
    kept = [
        e
        for e in (existing if isinstance(existing, list) else [])
        if not (isinstance(e, dict) and e.get("url") in urls)
    ]
    settings["json.schemas"] = [*kept, *ours]
    settings_path.parent.mkdir(parents=True, exist_ok=True)
    settings_path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    written.append(settings_path.relative_to(root).as_posix())
    return written
