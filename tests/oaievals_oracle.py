"""The `evals` package's (3.0.1) own verdict on OpenAI evals registries, run in a venv of its own.

Usage: python oaievals_oracle.py REGISTRY... Prints one JSON object: each registry folder to a
list of its problems, each `[file, message]` (file relative to the registry, or "" where the
registry as a whole refuses to load). With `--classes MODULE:NAME...`: each to "ok", "no module"
or "no name" as the registry's `make_object` would find it, or "unknown: why" where the module
needs a package this venv lacks (the evals package's own modules only: nothing of a registry).
With `--prompts REGISTRY...`: each model-graded spec's prompt filled as the grader fills it
(`format_prompt`) from a sample with `input` and `ideal`, the completions its `input_outputs`
names and `completion`: each registry to the specs that fail, `[file, message]`.

Each registry is loaded as `oaieval` and `oaievalset` load one: every eval is built
(`Registry.get_eval`), every eval set and every model-graded spec too, and an eval's samples
path is looked up as `Eval.get_samples` looks it up (under the registry's `data/`; a file or a
folder). Nothing is run, imported from the registry or fetched.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any

# The module reads an API key when imported; nothing here calls the API.
os.environ.setdefault("OPENAI_API_KEY", "unused")


def _file(spec: Any, root: Path, part: str) -> str:
    group = spec.get("group", "") if isinstance(spec, dict) else getattr(spec, "group", "")
    return f"{part}/{group}.yaml"


def _samples(spec: Any, root: Path) -> str | None:
    args = spec.args or {}
    path = args.get("samples_jsonl") if isinstance(args, dict) else None
    if not isinstance(path, str):
        return None
    found = root / "data" / path
    return None if found.exists() else f"samples {path!r} not found"


def _load(root: Path) -> list[list[str]]:
    registry = importlib.import_module("evals.registry").Registry([root])
    out: list[list[str]] = []
    for part, raw, get in (
        ("evals", "_evals", registry.get_eval),
        ("eval_sets", "_eval_sets", registry.get_eval_set),
        ("modelgraded", "_modelgraded_specs", registry.get_modelgraded_spec),
    ):
        try:
            names = dict(getattr(registry, raw))
        except Exception as exc:  # the registry refuses to load: every eval fails
            return [["", f"{type(exc).__name__}: {exc}"]]
        for name, spec in names.items():
            where = _file(spec, root, part)
            try:
                built = get(name)
            except Exception as exc:
                out.append([where, f"{name}: {type(exc).__name__}: {str(exc)[:200]}"])
                continue
            if built is None:
                out.append([where, f"{name}: not found"])
            elif part == "evals" and (missing := _samples(built, root)):
                out.append([where, f"{name}: {missing}"])
    return out


def _class(written: str) -> str:
    module, _, name = written.partition(":")
    try:
        found = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing and (module == missing or module.startswith(missing + ".")):
            return "no module"
        return f"unknown: {exc}"
    except Exception as exc:  # a module that needs what this venv lacks, or an API
        return f"unknown: {type(exc).__name__}: {str(exc)[:100]}"
    return "ok" if hasattr(found, name) else "no name"


def _prompts(root: Path) -> list[list[str]]:
    registry = importlib.import_module("evals.registry").Registry([root])
    fill = importlib.import_module("evals.elsuite.utils").format_prompt
    out: list[list[str]] = []
    for name, spec in dict(registry._modelgraded_specs).items():
        built = registry.get_modelgraded_spec(name)
        given = {"input": "i", "ideal": "d", "completion": "c"}
        given |= {v: "o" for v in (built.input_outputs or {}).values()}
        try:
            fill(built.prompt, **given)
        except Exception as exc:
            out.append([_file(spec, root, "modelgraded"), f"{name}: {type(exc).__name__}: {exc}"])
    return out


def main(paths: list[str]) -> int:
    if paths[:1] == ["--prompts"]:
        print(json.dumps({path: _prompts(Path(path).resolve()) for path in paths[1:]}))
    elif paths[:1] == ["--classes"]:
        print(json.dumps({written: _class(written) for written in paths[1:]}))
    else:
        print(json.dumps({path: _load(Path(path).resolve()) for path in paths}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
