"""The fast JSON path (orjson, the `fast` extra) against the strict stdlib parser.

The fast path may decline (MISS) whenever it likes; when it answers, its data must be exactly
what the strict parser gives (types included: 1 is not 1.0), and the text must have had no
repeated key and no NaN or Infinity, which the strict path reports.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import import_or_gate, shared_or_skip
from evallint.model import JSON
from evallint.parse import parse
from evallint.parse.jsonload import MISS, _Flags, _strict_loads, quick_loads

import_or_gate("orjson", "the fast JSON path needs the `fast` extra (orjson)")


def strict(text: str) -> tuple[JSON, bool] | None:
    """The strict path's data and whether it saw a repeated key or NaN; None if it rejects."""
    flags = _Flags()
    try:
        return _strict_loads(text, flags), flags.suspect
    except (ValueError, RecursionError):
        return None


def agrees(raw: bytes) -> bool:
    """The fast path declined, or said exactly what the strict path says of a clean text."""
    fast = quick_loads(raw)
    if fast is MISS:
        return False
    expected = strict(raw.decode("utf-8"))
    assert expected is not None, raw[:200]
    data, suspect = expected
    assert not suspect, raw[:200]
    assert repr(fast) == repr(data), raw[:200]  # repr tells 1 from 1.0 and -0.0 from 0.0
    return True


def test_every_record_of_the_corpora() -> None:
    """Every JSON file and JSONL line of the shared corpora: same data, or a decline; and the
    fast path must answer for nearly all of them, or it would prove nothing."""
    corpus = shared_or_skip("corpus")
    answered = declined = 0
    for path in sorted(corpus.rglob("*.json*")):
        if not path.is_file() or path.suffix not in (".json", ".jsonl"):
            continue
        raw = path.read_bytes()
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        units = [raw] if path.suffix == ".json" else [u for u in raw.split(b"\n") if u.strip()]
        for unit in (u.removeprefix(b"\xef\xbb\xbf") for u in units):
            if strict(unit.decode("utf-8")) is None:
                continue  # not JSON at all (a Git LFS pointer, say): no record to agree on
            if agrees(unit):
                answered += 1
            else:
                declined += 1
    print(f"fast path answered {answered}, declined {declined}")
    assert answered > 5000
    assert declined < answered / 20, (answered, declined)


KEYS = st.sampled_from(["a", "b", "a:b", ":", "\\", 'q"', "é", "a\\"])
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet=st.sampled_from(["a", ":", '"', "\\", "é", "\n", "\u2028", "😀"])),
)
# Objects are lists of pairs, so that a key may repeat at any depth.
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4).map(lambda v: ("list", v))
        | st.lists(st.tuples(KEYS, inner), max_size=4).map(lambda v: ("object", v))
    ),
    max_leaves=25,
)


def render(value: object, data: st.DataObject) -> str:
    """JSON text for `value` in a drawn style: spacing, and escapes that hide a colon."""
    draw = data.draw
    space = draw(st.sampled_from(["", " ", "\n  ", "\t"]))
    if isinstance(value, tuple) and value[0] == "list":
        items = [render(v, data) for v in value[1]]
        return "[" + space + ("," + space).join(items) + space + "]"
    if isinstance(value, tuple) and value[0] == "object":
        pairs = [
            render(k, data) + draw(st.sampled_from([":", " : ", ":\n"])) + render(v, data)
            for k, v in value[1]
        ]
        return "{" + space + ("," + space).join(pairs) + space + "}"
    text = json.dumps(value, ensure_ascii=draw(st.booleans()))
    if isinstance(value, str) and draw(st.booleans()):
        text = text.replace(":", draw(st.sampled_from(["\\u003a", "\\u003A", ":"])))
    return text


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_generated_texts_with_repeated_keys_at_any_depth(data: st.DataObject) -> None:
    text = render(data.draw(VALUES), data)
    expected = strict(text)
    fast = quick_loads(text.encode())
    if expected is None or expected[1]:  # rejected, or a key repeats: the strict path decides
        assert fast is MISS, text
    else:
        assert fast is MISS or repr(fast) == repr(expected[0]), text


NUMBERS = st.builds(
    lambda sign, whole, frac, exp: f"{sign}{whole}{frac}{exp}",
    st.sampled_from(["", "-"]),
    st.from_regex(r"0|[1-9][0-9]{0,24}", fullmatch=True),
    st.sampled_from([""]) | st.from_regex(r"\.[0-9]{1,25}", fullmatch=True),
    st.sampled_from([""]) | st.from_regex(r"[eE][-+]?[0-9]{1,3}", fullmatch=True),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(NUMBERS, min_size=1, max_size=4))
def test_long_numbers_read_alike(numbers: list[str]) -> None:
    """Numbers with long runs of digits: a fraction's (EEE scores often carry 19 digits) may take
    the fast path; an integer part that could pass 64 bits may not."""
    text = "[" + ", ".join(numbers) + "]"
    expected = strict(text)
    fast = quick_loads(text.encode())
    if expected is None:  # a float past the double range: rejected by both
        assert fast is MISS, text
    else:
        assert fast is MISS or repr(fast) == repr(expected[0]), text


def test_a_long_fraction_takes_the_fast_path() -> None:
    assert quick_loads(b'{"score": 0.0024489795918367346, "n": 7}') == {
        "score": 0.0024489795918367346,
        "n": 7,
    }


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 1}',
        '{"x": {"a": "p:q", "a": "r"}}',
        '[{"k": 1}, {"k": 2, "j": {"k": 3, "k": 3}}]',
        '{"a": 1, "\\u0061": 2}',
        '{"a:b": 1, "a\\u003ab": 2, "a:b": 3}',
        '{"n": NaN}',
        '{"n": -Infinity}',
        '{"n": 12345678901234567890123}',
        "[0.5, -12345678901234567890]",
        '{"n": 12345678901234567890.5}',
        '{"n": 1e400}',
        "[1, 2,]",
        '"\\ud800"',
    ],
)
def test_what_the_fast_path_leaves_to_the_strict_one(text: str) -> None:
    assert quick_loads(text.encode()) is MISS


def test_a_repeated_key_is_reported_through_the_fast_path(tmp_path: Path) -> None:
    raw = b'{\n  "id": "x",\n  "score": 1,\n  "id": "y"\n}\n'
    doc = parse("r.json", raw, "json")
    assert [(p.span.line, p.span.column, p.rule) for p in doc.problems] == [(4, 3, "duplicate-key")]
    clean = parse("r.json", b'\xef\xbb\xbf{"id": "x:y", "n": 12}', "json")
    assert clean.problems == () and clean.data == {"id": "x:y", "n": 12}


def test_jsonl_lines_take_the_fast_path_and_keep_their_findings() -> None:
    raw = b'{"a": 1}\n{"a": 1, "a": 2}\n{"a": NaN}\n\n{"b": [1, 2,]}\n{"c": "d"}\n'
    doc = parse("r.jsonl", raw, "jsonl")
    assert isinstance(doc.data, list) and len(doc.data) == 4
    assert doc.data[:2] == [{"a": 1}, {"a": 2}] and doc.data[3] == {"c": "d"}
    found = sorted((p.span.line, p.span.column, p.message.split(":")[0]) for p in doc.problems)
    assert found == [
        (2, 10, "duplicate key 'a' (first on line 2)"),
        (3, 7, "NaN is not valid JSON"),
        (5, 13, "invalid JSON"),
    ]


def test_a_run_of_a_few_small_files_does_not_import_the_fast_parser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """orjson's import costs more than it saves on a few small files; past the budget, the
    fast parser reads the rest."""
    import subprocess
    import sys

    (tmp_path / "datasets").mkdir()
    (tmp_path / "datasets" / "d.json").write_text('{"id": "d", "version": "1.0.0"}')
    probe = (
        "import sys; from evallint.cli.main import main; main(['check', '-q', '--exit-zero',"
        " 'datasets/d.json']); print('orjson' in sys.modules)"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert run.stdout.split()[-1] == "False", run.stdout
    from evallint.parse import jsonload

    monkeypatch.setattr(jsonload._Budget, "FAST_AFTER", 100)
    monkeypatch.setattr(jsonload._Budget, "read", 0)
    assert not jsonload.worth_fast(b"x" * 99)
    assert jsonload.worth_fast(b"x")
