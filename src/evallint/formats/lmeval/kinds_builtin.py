"""The task, group and tag names lm-evaluation-harness registers from its own task tree, from
`builtin_names.txt.gz` (written by `tools/lmeval_names.py` from the installed harness; its first
line names the release): a group outside the harness may name one of them."""

from __future__ import annotations

import functools


@functools.cache
def builtin() -> tuple[str, frozenset[str]]:
    """(the release the names are of, the names); read once, when a rule first asks."""
    # Imported here: `importlib.resources` brings `inspect` (and `ast`, `dis`) with it on some
    # Pythons, which a one-file run must not pay for.
    import gzip
    from importlib import resources

    raw = resources.files(__package__).joinpath("builtin_names.txt.gz").read_bytes()
    header, *names = gzip.decompress(raw).decode("utf-8").splitlines()
    release = header.removeprefix("# lm-eval ").partition(":")[0]
    return release, frozenset(names)
