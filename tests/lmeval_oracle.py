"""The harness's own verdict on a task tree, run by the lm-eval package in a venv of its own.

Usage: python lmeval_oracle.py TASKS_FOLDER. Prints one JSON object: each `*.yaml` file the
harness's index walks, as a path from TASKS_FOLDER, to its verdict:

- `index:<kind>`: the index reads it (TASK, GROUP, PY_TASK), and its functions resolve;
- `skip:<why>`: the index skips it as no task, group or class (a template);
- `load:<error>`: the index cannot load it (YAML, include);
- `template:<error>`: a prompt field is a Jinja template the harness's environment cannot
  compile;
- `missing:<error>`: a `!function` names a module or function that is not there;
- `member:<name>`: a group lists a name the index does not hold, which the harness builds as an
  inline task with no dataset;
- `environment:<error>`: a module it names imports a package this venv lacks (no verdict).

Resolving a `!function` imports the module, which is what the harness does to build a task:
this runs the task tree's own Python, so it is run only on the stored upstream tree, with the
network refused.
"""

from __future__ import annotations

import importlib
import io
import json
import socket
import sys
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any


def _refuse(*args: object, **kwargs: object) -> None:
    raise OSError("the oracle has no network")


TEMPLATED = (
    "doc_to_text",
    "doc_to_target",
    "doc_to_choice",
    "doc_to_image",
    "doc_to_audio",
    "description",
    "gen_prefix",
)


def _template_error(config: dict[str, Any], env: Any) -> str | None:
    """The first prompt field the harness's Jinja environment cannot compile. With functions
    unresolved, a `!function` value is a path with no braces: it compiles."""
    fewshot = config.get("fewshot_config")
    for fields in (config, fewshot if isinstance(fewshot, dict) else {}):
        for key in TEMPLATED:
            value = fields.get(key)
            if isinstance(value, str):
                try:
                    env.from_string(value)
                except Exception as exc:
                    return f"{key}: {type(exc).__name__}: {exc}"
    return None


def _verdict(path: Path, index: Any, loader: Any, env: Any) -> str:
    try:
        config = loader.load_yaml(path, resolve_func=False)
        kind = index.TaskIndex._kind_of(config).name
    except ValueError as exc:
        if "Unknown config shape" in str(exc):
            return f"skip:{exc}"[:200]
        return f"load:{exc}"[:200]
    except Exception as exc:  # the index skips any file it cannot load
        return f"load:{type(exc).__name__}: {exc}"[:200]
    broken = _template_error(config, env)
    if broken is not None:
        return f"template:{broken}"[:200]
    try:
        loader.load_yaml(path, resolve_func=True)
    except AttributeError as exc:
        return f"missing:{exc}"[:200]
    except ImportError as exc:
        if "Cannot import module" in str(exc) and "lm_eval" not in str(exc):
            return f"missing:{exc}"[:200]
        return f"environment:{exc}"[:200]
    except (Exception, SystemExit) as exc:  # a task module may exit when a tool is missing
        return f"environment:{type(exc).__name__}: {exc}"[:200]
    return f"index:{kind}"


def _unknown_members(registry: dict[str, Any], index: Any) -> list[tuple[Path, str]]:
    """Each group's string member (or `task:` entry with an alias only) the index lacks."""
    out = []
    for entry in registry.values():
        if entry.kind != index.Kind.GROUP or entry.yaml_path is None:
            continue
        members = entry.cfg.get("task")
        for item in members if isinstance(members, list) else [members]:
            name = item if isinstance(item, str) else None
            if isinstance(item, dict) and set(item) <= {"task", "task_alias"}:
                name = item.get("task")
            if isinstance(name, str) and name not in registry:
                out.append((entry.yaml_path, name))
    return out


def main(folder: str) -> int:
    socket.socket.connect = _refuse  # type: ignore[method-assign]
    index = importlib.import_module("lm_eval.tasks._index")
    loader = importlib.import_module("lm_eval.tasks._yaml_loader")
    env = importlib.import_module("lm_eval.utils").env
    root = Path(folder).resolve()
    out: dict[str, str] = {}
    with redirect_stdout(io.StringIO()):  # task modules print as they import
        for path in index.TaskIndex._iter_yaml_files(root):
            out[path.relative_to(root).as_posix()] = _verdict(path, index, loader, env)
        for path, name in _unknown_members(index.TaskIndex.build([root]), index):
            out[path.relative_to(root).as_posix()] = f"member:{name}"
    json.dump(out, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
