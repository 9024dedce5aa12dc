"""OpenAI evals registry files, as the `evals` package (3.0.1) loads them.

A registry is a folder `registry/` whose resource folders (`evals/`, `eval_sets/`,
`modelgraded/`, `completion_fns/`, `solvers/`) hold `*.yaml` files (only those, and only directly
inside), each a mapping of names to specs. The names of one resource type share one namespace
across files: a name defined twice stops the whole registry loading. A spec is an alias (a text,
or a mapping with `id`) or the spec itself (`class` and `args` for an eval, `evals` for a set,
`prompt` for a model-graded spec). Samples (`args.samples_jsonl`) live under `registry/data/`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from evallint.kinds.base import Item, Kind, PathTest
from evallint.model import JSON

# The resource folders the registry loads, and the kind each file there is.
PARTS = ("evals", "eval_sets", "modelgraded", "completion_fns", "solvers")


def registry_part(path: str) -> str | None:
    """The resource folder a file is a registry file of (`registry/evals/x.yaml`: `evals`);
    None for any other file, a `.yml` or one further down included (the loader reads neither)."""
    if "registry/" not in path:
        return None  # (most files of a run: no list made)
    parts = path.split("/")
    if len(parts) < 3 or parts[-3] != "registry" or not parts[-1].endswith(".yaml"):
        return None
    return parts[-2] if parts[-2] in PARTS else None


_VERSIONED = re.compile(r"^(?P<stem>.+)\.v(?P<n>\d+)$")


def next_version(name: str) -> str | None:
    """`arith.dev.v1` of `arith.dev.v0`: an eval's version is the last part of its name. None
    for a name without one."""
    found = _VERSIONED.match(name)
    return f"{found['stem']}.v{int(found['n']) + 1}" if found else None


def registry_root(path: str) -> str:
    """`a/registry/` of `a/registry/evals/x.yaml`."""
    return path.rsplit("/", 2)[0] + "/"


def _in(part: str) -> PathTest:
    def test(path: str) -> bool:
        return registry_part(path) == part

    return test


def _entries(data: JSON) -> bool:
    """A registry file: a mapping of names to specs (each a text alias or a mapping)."""
    return (
        isinstance(data, dict)
        and bool(data)
        and all(isinstance(v, dict | str) for v in data.values())
    )


def samples_of(path: str, spec: JSON) -> tuple[str, str] | None:
    """(as written, its project path) of the samples an eval of the evals file `path` reads
    (`registry/data/<samples_jsonl>`); None where it names none, or a URL, an absolute path or
    a pattern, which are not followed."""
    args = spec.get("args") if isinstance(spec, dict) else None
    written = args.get("samples_jsonl") if isinstance(args, dict) else None
    if not isinstance(written, str) or "://" in written or written.startswith("/"):
        return None
    if "*" in written:
        return None
    return written, registry_root(path) + "data/" + written.strip("/")


def graded_evals(path: str, data: JSON) -> Iterator[tuple[str, dict[str, JSON], str]]:
    """(name, args, the spec's name) of each model-graded eval of an evals file (one whose
    `args` name a `modelgraded_spec`)."""
    if registry_part(path) != "evals" or not isinstance(data, dict):
        return
    for name, spec in data.items():
        args = spec.get("args") if isinstance(spec, dict) else None
        graded = args.get("modelgraded_spec") if isinstance(args, dict) else None
        if isinstance(name, str) and isinstance(args, dict) and isinstance(graded, str):
            yield name, args, graded


def reads(path: str, data: JSON) -> Iterator[str]:
    """The samples files an evals file's evals read (`registry/data/<samples_jsonl>`): a change
    to one is checked in the evals that read it (their version)."""
    if registry_part(path) != "evals" or not isinstance(data, dict):
        return
    for spec in data.values():
        found = samples_of(path, spec)
        if found is not None:
            yield found[1]


def readable(path: str, data: JSON, files: frozenset[str]) -> bool:
    """A samples file: a `.jsonl` file under a registry's `data/` folder."""
    return path.endswith(".jsonl") and "registry/data/" in path


# PyYAML's safe loader keeps the last of duplicate keys without a word, and the spec classes
# (pydantic dataclasses) ignore keys they do not know.
_LOADER_WARNS = frozenset({"duplicate-key", "unknown-key", "key-typo"})


def _kind(name: str, title: str, part: str, holds: str) -> Kind:
    """The kind of the files of one resource folder of a registry."""
    evals = part == "evals"
    return Kind(
        name=name,
        title=title,
        formats=frozenset({"yaml"}),
        schema=name,
        about=f"a `*.yaml` file directly in a `registry/{part}/` folder: {holds}",
        by_path=_in(part),
        weighs=_entries,
        editor_globs=(f"**/registry/{part}/*.yaml",),
        warns=_LOADER_WARNS,
        reads=reads if evals else None,
        readable=readable if evals else None,
    )


EVALS = _kind(
    "oaieval-evals",
    "OpenAI evals registry evals",
    "evals",
    "eval names mapped to an alias (`id`) or a spec (`class`, `args`)",
)
EVAL_SETS = _kind(
    "oaieval-sets",
    "OpenAI evals registry eval sets",
    "eval_sets",
    "set names mapped to their `evals`",
)
MODELGRADED = _kind(
    "oaieval-modelgraded",
    "OpenAI evals model-graded specs",
    "modelgraded",
    "spec names mapped to a `prompt` and its choices",
)


COMPLETION_FNS = _kind(
    "oaieval-completion-fns",
    "OpenAI evals completion functions",
    "completion_fns",
    "names mapped to a `class` and its `args`",
)
SOLVERS = _kind(
    "oaieval-solvers",
    "OpenAI evals solvers",
    "solvers",
    "solver names mapped to a `class` and its `args`",
)


def _samples_path(path: str) -> bool:
    return path.endswith(".jsonl") and "registry/data/" in path


def _samples_weigh(data: JSON) -> bool:
    """Samples: JSONL records, the first an object with `input` (every class reads it)."""
    first = data[0] if isinstance(data, list) and data else None
    return isinstance(first, dict) and "input" in first


def _prompt_text(value: JSON) -> str | None:
    """A prompt as text: itself, or each chat message as `role: content`, one a line."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(m, dict) for m in value):
        return "\n".join(f"{m.get('role')}: {m.get('content')}" for m in value)
    return None


def samples(data: JSON) -> Iterator[Item]:
    """Each sample: its `input`, and its `ideal` (the answer a basic class compares with)."""
    for i, sample in enumerate(data if isinstance(data, list) else ()):
        text = _prompt_text(sample.get("input")) if isinstance(sample, dict) else None
        if text is None or not isinstance(sample, dict):
            continue
        ideal = sample.get("ideal")
        listed = [ideal] if isinstance(ideal, str) else ideal if isinstance(ideal, list) else []
        texts = tuple(x for x in listed if isinstance(x, str))
        at = (i,)
        yield Item(
            at=at,
            input=text,
            input_at=(i, "input"),
            expected=texts or None,
            expected_at=((i, "ideal"),) * len(texts)
            if isinstance(ideal, str)
            else tuple((i, "ideal", j) for j, x in enumerate(listed) if isinstance(x, str)),
            exact=True,
            whole=sample,
            own=("input",),
        )


SAMPLES = Kind(
    name="oaieval-samples",
    title="OpenAI evals samples",
    formats=frozenset({"jsonl"}),
    about="a `.jsonl` file under a `registry/data/` folder whose records hold `input`",
    by_path=_samples_path,
    weighs=_samples_weigh,
    per_record=True,
    item_view=samples,
    item_needles=(b"input",),
)

KINDS = (EVALS, EVAL_SETS, MODELGRADED, COMPLETION_FNS, SOLVERS, SAMPLES)
