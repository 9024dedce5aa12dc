"""`evallint init vscode`: point the YAML extension and VS Code's JSON support at our schemas.

Files are matched to schemas by the detection the linter itself uses. Kinds a path claims
whatever the file holds (rubrics/, judges/, datasets/, evals.json) get their globs, so files
added later are matched too; a suite's dialect is told by its keys, which no glob can see (an
agentevals `EVAL.yaml` is no AgentV v4 suite), so each suite found today is matched by its own
path, and `init vscode` run again picks up new ones. Kinds whose schema each file's content
chooses (EEE records, by the version they declare; lm-evaluation-harness configs, open where a
Python class may read any key) are left out: no one setting can choose for them, and a tree of
thousands of them would make thousands of settings. A kind whose runner's loader knows a custom
YAML tag (`!function`) has it declared in `yaml.customTags`, so the editor does not flag it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from evallint.config import Config
from evallint.errors import EvallintError
from evallint.io.discover import select
from evallint.io.source import FsSource
from evallint.kinds import KINDS
from evallint.project import Entry
from evallint.read import read_entry
from evallint.validation.schemas import schema_dir

# schema name -> the globs its kind is found by in the conventional layout.
GLOBS = {k.schema: list(k.editor_globs) for k in KINDS if k.schema and k.editor_globs}


def detected(root: Path, config: Config, in_git: bool) -> dict[str, list[str]]:
    """schema name -> the files of the tree the linter reads as a kind no glob finds."""
    paths, _, _, _ = select([], root, root, in_git, config)
    source = FsSource(root)
    found: dict[str, list[str]] = {}
    for path in paths:
        try:
            entry = read_entry(path, source, config)
        except OSError:
            continue
        kind = entry.kind if isinstance(entry, Entry) else None
        if kind is not None and kind.tags:
            found.setdefault(_TAGS, []).extend(sorted(kind.tags))
        if kind is not None and kind.schema and not kind.editor_globs and not kind.schema_of:
            found.setdefault(kind.schema, []).append(path)
    return found


_TAGS = ""  # the key of `detected`'s answer that holds the custom tags the kinds found use


def _globs(extra: dict[str, list[str]]) -> dict[str, list[str]]:
    every = {name: list(globs) for name, globs in GLOBS.items()}
    for name, paths in extra.items():
        # A path is a glob matching itself once its glob characters are escaped.
        every.setdefault(name, []).extend(re.sub(r"([*?\[\]{}])", r"[\1]", p) for p in paths)
    return every


def schema_entries(folder: str, extra: dict[str, list[str]] | None = None) -> dict[str, list[str]]:
    """`yaml.schemas`: schema file -> the YAML globs."""
    found = {
        f"./{folder}/{name}.schema.json": [g for g in globs if not g.endswith(".json")]
        for name, globs in _globs(extra or {}).items()
    }
    return {url: globs for url, globs in found.items() if globs}


def json_entries(folder: str, extra: dict[str, list[str]] | None = None) -> list[dict[str, object]]:
    """`json.schemas`: [{fileMatch, url}] for the JSON globs."""
    out: list[dict[str, object]] = []
    for name, globs in _globs(extra or {}).items():
        matched = [g for g in globs if g.endswith(".json")]
        if matched:
            out.append({"fileMatch": matched, "url": f"./{folder}/{name}.schema.json"})
    return out


def init_vscode(
    root: Path,
    folder: str = ".vscode/evallint",
    config: Config | None = None,
    in_git: bool | None = None,
) -> tuple[list[str], str | None]:
    """Export the schemas under `folder` and merge `yaml.schemas` and `json.schemas` into the
    workspace settings: (the files written, and a snippet to paste when the settings file holds
    comments or trailing commas, VS Code's JSONC, which is left untouched rather than lose
    them)."""
    git = (root / ".git").exists() if in_git is None else in_git
    extra = detected(root, config or Config(), git)
    tags = sorted(set(extra.pop(_TAGS, [])))
    names = sorted({*GLOBS, *extra})
    target = root / folder
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names:
        out = target / f"{name}.schema.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes((schema_dir() / f"{name}.schema.json").read_bytes())
        written.append(out.relative_to(root).as_posix())
    settings_path = root / ".vscode" / "settings.json"
    settings = _read_settings(settings_path, root)
    ours_yaml, ours_json = schema_entries(folder, extra), json_entries(folder, extra)
    custom = [f"{tag} scalar" for tag in tags]
    if settings is None:
        pasted: dict[str, object] = {"yaml.schemas": ours_yaml, "json.schemas": ours_json}
        if custom:
            pasted["yaml.customTags"] = custom
        return written, json.dumps(pasted, indent=2)
    current = settings.get("yaml.schemas")
    merged = {
        url: globs
        for url, globs in (current.items() if isinstance(current, dict) else ())
        if not str(url).startswith(f"./{folder}/")  # ours, from an earlier run: replaced
    }
    merged.update(ours_yaml)
    settings["yaml.schemas"] = merged
    existing = settings.get("json.schemas")
    kept = [
        e
        for e in (existing if isinstance(existing, list) else [])
        if not (isinstance(e, dict) and str(e.get("url", "")).startswith(f"./{folder}/"))
    ]
    settings["json.schemas"] = [*kept, *ours_json]
    if custom:
        have = settings.get("yaml.customTags")
        others = [t for t in (have if isinstance(have, list) else []) if t not in custom]
        settings["yaml.customTags"] = [*others, *custom]
    settings_path.parent.mkdir(parents=True, exist_ok=True)
    settings_path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    written.append(settings_path.relative_to(root).as_posix())
    return written, None


def _read_settings(path: Path, root: Path) -> dict[str, object] | None:
    """The workspace settings as an object to merge into; None for JSONC (comments, trailing
    commas), which VS Code allows and a rewrite would lose, and for anything but a regular
    file, which is not written to."""
    if path.is_symlink() or (os.path.lexists(path) and not path.is_file()):
        return None  # a link (perhaps out of the project) or a pipe: never written through
    if not path.is_file():
        return {}
    text = path.read_text(encoding="utf-8")
    try:
        loaded = json.loads(text) if text.strip() else {}
    except ValueError:
        return None
    if not isinstance(loaded, dict):
        raise EvallintError(f"{path.relative_to(root)} does not hold a JSON object")
    return loaded
