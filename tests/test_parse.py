"""Parsing: data, positions and every hostile shape, in YAML, JSON and JSONL."""

from __future__ import annotations

import time

import pytest

from conftest import shared_or_skip
from evallint.model import Span
from evallint.parse import decode, parse
from evallint.parse.jsonload import _skip, _Walker, load_json, load_jsonl, seeking_map
from evallint.parse.positions import LineIndex
from evallint.parse.yamlload import load_yaml


def problems(text: str, fmt: str = "yaml") -> list[tuple[int, int, str, str]]:
    doc = parse(f"x.{fmt}", text.encode(), fmt)  # type: ignore[arg-type]
    return [(p.span.line, p.span.column, p.rule, p.message) for p in doc.problems]


def test_yaml_data_and_spans() -> None:
    loaded = load_yaml("a:\n  - 1\n  - {b: x}\nc: 'q'\n", record=True)
    assert loaded.data == {"a": [1, {"b": "x"}], "c": "q"}
    assert loaded.smap is not None
    assert loaded.smap.values[("a", 1, "b")] == Span(3, 9, 3, 10)
    assert loaded.smap.keys[("c",)] == Span(4, 1, 4, 2)
    assert loaded.smap.values[("a",)] == Span(2, 3, 4, 1)


def test_yaml_timestamps_stay_text_and_keys_are_raw_text() -> None:
    data = load_yaml("d: 2026-01-31\n1: one\nyes: y\n").data
    assert data == {"d": "2026-01-31", "1": "one", "yes": "y"}


def test_yaml_merge_keys_and_anchors() -> None:
    data = load_yaml("base: &b {x: 1, y: 2}\nitem:\n  <<: *b\n  y: 3\n").data
    assert data["item"] == {"x": 1, "y": 3}


def test_yaml_duplicate_key_points_at_second_and_names_first() -> None:
    assert problems("a: 1\nb: 2\na: 3\n") == [
        (3, 1, "duplicate-key", "duplicate key 'a' (first on line 1)")
    ]


def test_yaml_syntax_error_position() -> None:
    assert problems("a: 1\n  b: 2\n") == [
        (2, 4, "parse-error", "invalid YAML: mapping values are not allowed in this context")
    ]


def test_yaml_alias_bomb_is_stopped_quickly() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 10):
        refs = ", ".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    started = time.perf_counter()
    found = problems("\n".join(lines) + "\n")
    assert time.perf_counter() - started < 1
    assert len(found) == 1
    line, _, rule, message = found[0]
    assert rule == "parse-error" and "alias bomb" in message and line < 10


def test_yaml_deep_nesting_is_an_error_in_bounded_time() -> None:
    started = time.perf_counter()
    found = problems("[" * 1_000_000 + "]" * 1_000_000)
    assert time.perf_counter() - started < 1
    assert found == [(1, 201, "parse-error", "nesting deeper than 200 levels")]
    block = "".join(" " * i + "k:\n" for i in range(300))
    assert problems(block)[0][2:] == ("parse-error", "nesting deeper than 200 levels")


@pytest.mark.parametrize(("column", "expected"), [(1006, (3, 206)), (100, (3, 100))])
def test_libyaml_stopping_at_its_own_depth_bound_is_our_nesting_finding(
    column: int, expected: tuple[int, int]
) -> None:
    """From PyYAML 6.0.4, libyaml stops past 1,000 levels, its scanner reading ahead of the
    events the builder sees. The finding is still where the text first nests past 200 levels
    (or, should libyaml stop before that, where it stopped), whatever PyYAML is installed."""
    import yaml

    from evallint.parse import yamlload

    text = "description: x\nname: d\ndeep: " + "[" * 2000 + "\n"
    mark = yaml.Mark("<text>", 0, 2, column - 1, None, None)  # type: ignore[arg-type]
    stopped = yaml.MarkedYAMLError(
        "while increasing flow level", mark, "exceeded maximum nesting depth", mark
    )
    loaded = yamlload._too_deep(text, stopped, False)
    assert not loaded.ok and loaded.data is None
    assert [(p.span.line, p.span.column, p.message) for p in loaded.problems] == [
        (*expected, "nesting deeper than 200 levels")
    ]


def test_past_libyamls_bound_the_problems_on_the_way_are_kept() -> None:
    """As when the builder stops by itself: a repeated key before the nesting is reported too,
    and a mark past the text's last line is no error of evallint's own."""
    import yaml

    from evallint.parse import yamlload

    text = "a: 1\na: 2\ndeep: " + "[" * 2000 + "\n"
    for line, column in ((2, 1005), (40, 0)):
        mark = yaml.Mark("<text>", 0, line, column, None, None)  # type: ignore[arg-type]
        stopped = yaml.MarkedYAMLError(None, None, "exceeded maximum nesting depth", mark)
        found = [
            (p.span.line, p.span.column, p.rule)
            for p in yamlload._too_deep(text, stopped, False).problems
        ]
        assert found == [(2, 1, "duplicate-key"), (3, 206, "parse-error")], (line, column)


def test_yaml_unsafe_tags_are_refused() -> None:
    assert problems("a: !!python/object/apply:os.system [ls]\n") == [
        (
            1,
            4,
            "parse-error",
            "unsupported YAML tag 'tag:yaml.org,2002:python/object/apply:os.system'",
        )
    ]


def test_yaml_undefined_and_recursive_alias() -> None:
    assert problems("a: *nope\n")[0][3] == "alias *nope names no anchor defined before it"
    assert problems("a: &r [1, *r]\n")[0][3] == "alias *r names no anchor defined before it"


def test_yaml_second_document_is_reported() -> None:
    assert problems("a: 1\n---\nb: 2\n") == [
        (
            2,
            1,
            "parse-error",
            "a second YAML document starts here; an eval file holds one, and loaders reject "
            "the file",
        )
    ]


def test_invalid_utf8_position() -> None:
    doc = parse("x.yaml", b"a: 1\nb: caf\xe9\n", "yaml")
    assert [(p.span.line, p.span.column, p.message) for p in doc.problems] == [
        (2, 7, "not valid UTF-8: byte 0xe9 at offset 11")
    ]
    assert not doc.ok


def test_bom_is_accepted() -> None:
    assert decode(b"\xef\xbb\xbfa: 1") == "a: 1"


def test_json_with_tabs_and_crlf() -> None:
    text = '{\r\n\t"a": 1,\r\n\t"b": [true, "x\\u00e9"]\r\n}\r\n'
    loaded = load_json(text, record=True)
    assert loaded.data == {"a": 1, "b": [True, "xé"]}
    assert loaded.smap is not None
    assert loaded.smap.values[("b", 1)] == Span(3, 14, 3, 23)
    assert loaded.smap.keys[("a",)] == Span(2, 2, 2, 5)


def test_json_non_ascii_columns_count_code_points() -> None:
    loaded = load_json('{"é€": "日本", "k": 1}', record=True)
    assert loaded.smap is not None
    assert loaded.smap.values[("k",)] == Span(1, 19, 1, 20)


def test_json_strictness() -> None:
    assert problems('{"a": 1, "a": 2}', "json") == [
        (
            1,
            10,
            "duplicate-key",
            "duplicate key 'a' (first on line 1): json loaders keep only this last value",
        )
    ]
    # As in real evals.json files: harmless to the runner, and the message says so.
    assert problems('{"a": {"b": [1]},\n "a": {"b": [1]}}', "json") == [
        (
            2,
            2,
            "duplicate-key",
            "duplicate key 'a' (first on line 1), with the same value: json loaders keep the "
            "last, so it reads the same, but strict JSON parsers reject the file",
        )
    ]
    assert problems('{"a": NaN}', "json") == [(1, 7, "parse-error", "NaN is not valid JSON")]
    assert problems('{"a": -Infinity}', "json") == [
        (1, 7, "parse-error", "-Infinity is not valid JSON")
    ]
    assert problems('{"a": [1,\n 2,]}', "json") == [
        (2, 4, "parse-error", "invalid JSON: trailing comma")
    ]
    assert problems('{"a": 1', "json") == [
        (1, 8, "parse-error", "invalid JSON: expecting ',' delimiter")
    ]


def test_json_deep_nesting() -> None:
    started = time.perf_counter()
    assert problems("[" * 100_000 + "]" * 100_000, "json") == [
        (1, 201, "parse-error", "nesting deeper than 200 levels")
    ]
    assert time.perf_counter() - started < 1


def test_jsonl_records_keep_their_lines() -> None:
    loaded = load_jsonl('{"a": 1}\n\n{"b": [2]}\n{bad\n', record=True)
    assert loaded.data == [{"a": 1}, {"b": [2]}]
    assert loaded.smap is not None
    assert loaded.smap.values[(1, "b", 0)] == Span(3, 8, 3, 9)
    assert [(p.span.line, p.span.column) for p in loaded.problems] == [(4, 2)]
    assert loaded.ok  # the bad line is reported; the other records are still checked


def test_suggestions() -> None:
    from evallint.suggest import suggest

    assert suggest("tome", ["tone", "tool"]) == "tone"
    assert suggest("expecteed_facts", ["expected_facts", "expected"]) == "expected_facts"
    assert suggest("Expected-Facts", ["expected_facts"]) == "expected_facts"
    assert suggest("must_contain", ["must_not_contain", "must_contain_any"]) == "must_contain_any"
    assert suggest("tnoe", ["tone"]) == "tone"
    assert suggest("privacy_tier", ["input", "criteria", "expected"]) is None
    assert suggest("ab", ["ac"]) is None


def test_suggestions_asked_of_fewer_names_answer_as_asked_of_all() -> None:
    """The search asks difflib only of names whose length can reach the cutoff: on random
    slips of real names and random words, it answers as difflib asked of every name does."""
    import difflib
    import random
    import string

    from evallint.formats.promptfoo import kinds_keys_openai
    from evallint.suggest import CUTOFF, _norm, _one_edit, suggest

    def plain(word: str, names: list[str]) -> str | None:
        same = [c for c in names if _norm(c) == _norm(word)]
        if same:
            return same[0]
        found = difflib.get_close_matches(word, names, n=3, cutoff=CUTOFF)
        if not found and len(word) >= 3:
            found = [c for c in names if _one_edit(word, c)][:1]
        best = [c for c in found if c.startswith(word)] or found
        return best[0] if best else None

    rng = random.Random(5)
    names = sorted(kinds_keys_openai.NAMED | {"", "a", "ab", "tone", "Expected-Facts"})
    letters = string.ascii_lowercase + "_-"
    words = ["", "a", *(c[: rng.randint(0, len(c))] + rng.choice(letters) + c[1:] for c in names)]
    words += ["".join(rng.choice(letters) for _ in range(rng.randint(0, 20))) for _ in range(500)]
    assert [suggest(w, names) for w in words] == [plain(w, names) for w in words]


def _full_map(text: str) -> tuple[dict, dict]:  # type: ignore[type-arg]
    walker = _Walker(text, LineIndex(text))
    walker.value(_skip(text, 0), ())
    return dict(walker.smap.values), dict(walker.smap.keys)


SEEK_CASES = [
    '{"a": [1, {"b": "x\\"}"}, [ ]], "c" : {}, "d": -1.5e3, "é": "ü"}',
    '\r\n\t[ {"k":\ttrue}, null,\n  "s" ,{"deep": [[[0]]]} ]\n',
    '"just a string"',
]


def test_seeking_map_finds_what_the_full_walk_finds() -> None:
    for text in SEEK_CASES:
        values, keys = _full_map(text)
        lazy = seeking_map(text)
        assert {p: lazy.values[p] for p in values} == values, text
        assert {p: lazy.keys[p] for p in keys} == keys, text


def test_seeking_map_misses_are_misses() -> None:
    lazy = seeking_map('{"a": [1, 2], "b": {"c": null}}')
    assert lazy.values.get(("a", 2)) is None
    assert lazy.values.get(("b", "x", "y")) is None
    assert lazy.values.get(("a", "0")) is None  # a key into a list
    assert lazy.locate(("b", "c", "zz")) == Span(1, 26, 1, 30)


def test_seeking_map_on_real_records() -> None:
    root = shared_or_skip("corpus", "eee", "datastore-v0.2.0")
    for path in sorted(root.rglob("*.json"))[:200]:
        text = path.read_text(encoding="utf-8")
        values, keys = _full_map(text)
        lazy = seeking_map(text)
        assert all(lazy.values[p] == s for p, s in values.items()), path
        assert all(lazy.keys[p] == s for p, s in keys.items()), path


# Verdicts of a YAML 1.2 parser that checks flow indentation (the `yaml` package AgentV loads
# suites with, 2.x): (text, where the first under-indented line starts, or None when it loads).
FLOW_INDENT = [
    ('k: "a\nb"\n', (2, 1)),
    ('k: "a\n b"\n', None),
    ("k: 'a\nb'\n", (2, 1)),
    ('tests:\n  - id: a\n    command: ["python3", "-c", "import x\nprint(1)"]\n', (4, 1)),
    ('tests:\n  - id: a\n    command: ["python3", "-c", "import x\n    print(1)"]\n', (4, 5)),
    ('tests:\n  - id: a\n    command: ["python3", "-c", "import x\n     print(1)"]\n', None),
    ("k: [a\nb]\n", (2, 1)),
    ('- b: {x: "y\n  z"}\n', (2, 3)),
    ('- "a\nb"\n', (2, 1)),
    ('- "a\n b"\n', None),
    ('k: "a\n\n  b"\n', None),
    ("k: [\n  a,\n]\n", None),
    ("x:\n  k: [\n  a,\n    ]\n", (3, 3)),
    ("x:\n  k: {\n    a: 1\n  }\n", None),
    ('{\n"a": 1\n}\n', None),
    ("k: |\n  a\n  b\n", None),
]


@pytest.mark.parametrize(("text", "where"), FLOW_INDENT)
def test_under_indented_flow_lines_that_libyaml_accepts_are_errors(
    text: str, where: tuple[int, int] | None
) -> None:
    loaded = load_yaml(text)
    got = [(p.span.line, p.span.column, p.rule) for p in loaded.problems]
    # The loader marks them; the reader makes them parse-errors but for a libyaml runner's kinds.
    assert got == ([] if where is None else [(*where, "flow-indent")])


def test_a_json_key_repeated_with_the_same_value_is_a_warning() -> None:
    from conftest import lint_files
    from evallint.config import Config

    text = '{"id": 1, "prompt": "p", "id": 1, "prompt": "q"}\n'
    files = {"evals/evals.json": '{"skill_name": "s", "evals": [' + text.strip() + "]}\n"}
    found = [(d.span.column, d.rule, d.severity.label) for d in lint_files(files)]
    assert [f for f in found if f[1] == "duplicate-key"] == [
        (56, "duplicate-key", "warning"),
        (65, "duplicate-key", "error"),
    ]
    # A level the settings give the rule is the level of every such finding.
    config = Config(severities={"duplicate-key": "error"})
    strict = [d.severity.label for d in lint_files(files, config) if d.rule == "duplicate-key"]
    assert strict == ["error", "error"]


def test_a_tagged_value_is_placed_where_written_without_a_second_parse() -> None:
    """A finding on a `!function` value is placed from the span its loader saw, with no source
    map (thousands of harness files have one such finding each); where an alias or a merge key
    repeats the value, the source map places it, at the repeat."""
    from evallint.parse import _source_map

    text = (
        "task: demo\n"
        "process_docs: !function utils.process_docs\n"
        "metric_list:\n"
        "  - metric: acc\n"
        "    aggregation: &agg !function utils.agg\n"
        "  - metric: f1\n"
        "    aggregation: *agg\n"
        "\u2028\n"
        "last: !function utils.last\n"
    )
    doc = parse("tasks/demo.yaml", text.encode(), "yaml")
    full = load_yaml(text, record=True).smap
    assert full is not None
    for pointer in [("process_docs",), ("metric_list", 0, "aggregation"), ("last",)]:
        assert doc.locate(pointer) == full.locate(pointer)
    assert doc.locate(("last",)) == Span(10, 7, 10, 27)  # the U+2028 is a YAML line break
    assert doc.line_text(2) == "process_docs: !function utils.process_docs"
    assert doc._facts is not None and all(k[0] is not _source_map for k in doc._facts._found or {})
    assert doc.locate(("metric_list", 1, "aggregation")) == Span(7, 18, 7, 22)  # the alias
    assert doc.line_text(7) == "    aggregation: *agg"


_SEEK_TEXTS = [
    "",
    "# only a comment\n",
    "a",
    "- 1\n- [2, 3]\n- {x: 1}\n",
    "---\na: 1\n...\n",
    "base: &b {x: 1, y: [1, 2]}\nchild:\n  <<: *b\n  y: 3\n  z: *b\n",
    "a: !function utils.x\nb: [!function u.y]\n",
    "k: |\n  multi\n  line\nl: >\n  folded\nm: 'q\n  uoted'\n",
    "? complex\n: value\n",
    "1: one\n2: [a, b]\nnull: x\n",
    "a:\n- b:\n  - c: {d: [1, {e: f}]}\n",
    "x: &a [1, 2]\ny: *a\nz: [*a, *a]\n",
    "\u2028a: 1\nb:\u2028 2\n",
    "a: 1\r\nb:\r\n  - 2\r\n",
]


def _seek_agrees(text: str) -> int:
    """Every pointer the full source map holds, and some it does not, placed alike by a seek."""
    from evallint.parse.yamlseek import Seeker

    smap = load_yaml(text, record=True).smap
    assert smap is not None
    seeker = Seeker(text, LineIndex(text, yaml=True))
    pointers = list(smap.values)
    pointers += [(*p, "absent") for p in pointers[:9]] + [(*p, 7) for p in pointers[:9]]
    for pointer in pointers:
        for on_key in (False, True):
            got = seeker.locate(pointer, on_key=on_key)
            assert got == smap.locate(pointer, on_key=on_key), (text[:80], pointer, on_key)
    return len(pointers)


def test_a_seek_places_a_value_where_the_source_map_does() -> None:
    """A finding in a YAML file is placed by a pass over its events up to the value (no value
    built); it must land where the full source map puts it: merges, aliases, flow and block
    collections, folded and quoted scalars, YAML's own line breaks."""
    assert sum(_seek_agrees(text) for text in _SEEK_TEXTS) > 100


def test_a_seek_agrees_with_the_source_map_on_the_corpora() -> None:
    import random

    root = shared_or_skip("corpus")
    files = sorted(p for p in root.rglob("*.y*ml") if p.is_file() and p.stat().st_size < 200_000)
    checked = 0
    for path in random.Random(5).sample(files, min(400, len(files))):
        doc = parse(str(path), path.read_bytes(), "yaml")
        if doc.ok and doc.text and not any(p.rule == "duplicate-key" for p in doc.problems):
            checked += _seek_agrees(doc.text)
    assert checked > 5000


def test_a_file_with_many_findings_gets_the_full_map() -> None:
    """Each seek is a pass over the events: past a few, the one full map answers the rest."""
    from evallint.parse import SEEKS, _source_map

    text = "".join(f"k{i}: {i}\n" for i in range(50))
    doc = parse("x.yaml", text.encode(), "yaml")
    spans = [doc.locate((f"k{i}",)) for i in range(50)]
    width = [len(str(i)) for i in range(50)]
    assert spans == [Span(i + 1, w + 4, i + 1, 2 * w + 4) for i, w in enumerate(width)]
    assert doc.facts.has(_source_map) and doc.facts.get(_source_map, doc) is not None
    assert SEEKS < 50
