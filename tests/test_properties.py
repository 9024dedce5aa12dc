"""Property-based: mutated example files never crash evallint, and never pass unread.

Byte flips, deleted lines, renamed keys and swapped value types applied to the files in
`examples/`; each run must end in exit 0 or 1 with no internal error, and a file that no
longer parses must never be reported clean.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REPO, DictSource
from evallint.config import Config
from evallint.engine.run import lint
from evallint.parse import eval_files, format_of, parse
from evallint.project import Entry
from evallint.read import read_entry
from test_eee import MINIMAL_0_2_0

EXAMPLES = {
    p.relative_to(REPO / "examples").as_posix(): p.read_bytes()
    for p in sorted((REPO / "examples").rglob("*"))
    # The CI examples (a GitHub workflow, a GitLab pipeline) are not eval files.
    if p.is_file() and format_of(p.name) is not None and not {"workflows", "gitlab"} & {*p.parts}
}
# examples/ has no Every Eval Ever record: the minimal one of the EEE tests stands in.
EXAMPLES["data/c/acme/m/c8ab4e94-d8e8-417f-be18-fececf3c815c.json"] = json.dumps(
    MINIMAL_0_2_0, indent=1
).encode()
PATHS = sorted(EXAMPLES)
Mutation = Callable[[bytes, st.DrawFn], bytes]


def _flip(raw: bytes, draw: st.DrawFn) -> bytes:
    at = draw(st.integers(0, max(len(raw) - 1, 0)))
    byte = draw(st.integers(0, 255))
    return raw[:at] + bytes([byte]) + raw[at + 1 :]


def _drop_line(raw: bytes, draw: st.DrawFn) -> bytes:
    lines = raw.split(b"\n")
    del lines[draw(st.integers(0, len(lines) - 1))]
    return b"\n".join(lines)


def _rename_key(raw: bytes, draw: st.DrawFn) -> bytes:
    keys = [k for k in (b"questions", b"checks", b"id", b"version", b"evals", b"tests") if k in raw]
    if not keys:
        return raw
    key = draw(st.sampled_from(keys))
    return raw.replace(key, key[:-1] + b"x", 1)


def _swap_value(raw: bytes, draw: st.DrawFn) -> bytes:
    value = draw(st.sampled_from([b"[]", b"{}", b"1e400", b"9" * 5000, b"null", b"[[[[[[", b"'"]))
    at = raw.find(b": ", draw(st.integers(0, max(len(raw) - 1, 0))))
    if at < 0:
        return raw
    end = raw.find(b"\n", at)
    return raw[: at + 2] + value + (raw[end:] if end >= 0 else b"")


MUTATIONS: list[Mutation] = [_flip, _drop_line, _rename_key, _swap_value]


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, bytes]:
    path = draw(st.sampled_from(PATHS))
    raw = EXAMPLES[path]
    for _ in range(draw(st.integers(1, 3))):
        raw = draw(st.sampled_from(MUTATIONS))(raw, draw)
    return path, raw


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(mutated())
def test_mutated_examples_never_crash_and_never_pass_unread(case: tuple[str, bytes]) -> None:
    path, raw = case
    files = {**EXAMPLES, path: raw}
    report = lint(sorted(files), DictSource(files), Config(), tree=sorted(files))
    assert report.exit_code(strict=False) in (0, 1)
    fmt = format_of(path)
    assert fmt is not None
    doc = parse(path, raw, fmt)
    if not doc.ok:
        # Every example is claimed by its path: a file that no longer parses is reported.
        assert any(d.path == path and d.rule == "parse-error" for d in report.diagnostics)


def test_every_example_is_claimed_by_its_path() -> None:
    for path in PATHS:
        broken = read_entry(path, DictSource({path: b"\xff"}), Config())
        assert isinstance(broken, Entry) and not broken.doc.ok, path


def test_examples_are_found() -> None:
    # Each example of every kind is mutated; a missing one would weaken the test in silence.
    assert len(PATHS) >= 10


@given(st.text(alphabet="aY./jsonlJSONLymlYAML", max_size=14))
def test_the_tree_filter_keeps_exactly_the_paths_with_a_format(path: str) -> None:
    assert eval_files([path]) == ([path] if format_of(path) is not None else [])
