"""The runners' own verdict on Hugging Face Hub files, run by `huggingface_hub` and Inspect AI in
a venv of their own.

Usage: python hf_oracle.py FILE... Prints one JSON object: each file to its verdict.

- A results file (in an `.eval_results/` folder) is read by `huggingface_hub`'s
  `parse_eval_result_entries`, as the Hub's model pages read it: `ok`, or `reject:<error>`.
- A benchmark `eval.yaml` whose framework is `inspect-ai` (or that names none, which Inspect
  reads alike) is read as Inspect AI's `hf/` task loader reads it, up to the point where it
  would download the dataset: `ok`, or `reject:<error>`.
- Any other file: `none` (no runner here to ask; the Hub's own push-time check is online).

Nothing here touches the network: the loader's steps that would are not taken.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any


def _results(path: Path) -> str:
    import yaml

    # Imported by name: the runners live in the oracle's venv, not the project's.
    parse = importlib.import_module("huggingface_hub").parse_eval_result_entries
    try:
        parse(yaml.safe_load(path.read_text(encoding="utf-8")))
    except Exception as exc:
        return f"reject:{type(exc).__name__}: {exc}"
    return "ok"


def _inspect(config: Any) -> str:
    """What `task_create_from_hf` checks before it loads the dataset."""
    task_model = importlib.import_module("inspect_ai._eval.task.hf").HFTask
    tasks = config.get("tasks") if isinstance(config, dict) else None
    if tasks is None:
        return "reject:eval.yaml does not include 'tasks' field."
    try:
        for task in tasks:
            model = task_model.model_validate(task)
            if len(tasks) > 1 and model.id is None:
                return "reject:Task 'id' field is required if there are more than 1 tasks"
    except Exception as exc:
        return f"reject:{type(exc).__name__}: {str(exc).splitlines()[0:2]}"
    return "ok"


def _benchmark(path: Path) -> str:
    load = importlib.import_module("inspect_ai._eval.task.hf")._load_eval_yaml
    try:
        config = load(path)
    except Exception as exc:
        return f"reject:{type(exc).__name__}: {exc}"
    framework = config.get("evaluation_framework") if isinstance(config, dict) else None
    if framework not in (None, "inspect-ai"):
        return "none"
    return _inspect(config)


def verdict(path: Path) -> str:
    if path.parent.name == ".eval_results":
        return _results(path)
    if path.name.lower() == "eval.yaml":
        return _benchmark(path)
    return "none"


if __name__ == "__main__":
    print(json.dumps({name: verdict(Path(name)) for name in sys.argv[1:]}))
