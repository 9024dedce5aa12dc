"""Versions are compared as semver compares them; plain ones without importing semver."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import semver
from hypothesis import given
from hypothesis import strategies as st

from evallint.refs import Version, parse_version

_NUMBER = st.one_of(st.integers(0, 3), st.integers(0, 10**20)).map(str)
_IDENT = st.one_of(_NUMBER, st.sampled_from(["alpha", "beta", "rc", "x-1", "01", "a.b", ""]))
_TEXT = st.builds(
    lambda m, n, p, pre, build: (
        f"{m}.{n}.{p}"
        + (f"-{'.'.join(pre)}" if pre else "")
        + (f"+{'.'.join(build)}" if build else "")
    ),
    _NUMBER,
    _NUMBER,
    _NUMBER,
    st.lists(_IDENT, max_size=2),
    st.lists(_IDENT, max_size=2),
)
# Texts that are no version, or almost one.
_ODD = st.one_of(
    st.text(alphabet="0123456789.-+av ", max_size=12),
    st.sampled_from(
        ["1.0", "01.0.0", "1.0.0 ", "v1.0.0", "1.0.0-", "\u0661.\u0660.\u0660", "1.0.0+"]
    ),
)


def _theirs(text: str) -> semver.Version | None:
    try:
        return semver.Version.parse(text)
    except (ValueError, TypeError):
        return None


@given(st.one_of(_TEXT, _ODD))
def test_a_text_is_a_version_when_semver_says_so(text: str) -> None:
    ours, theirs = parse_version(text), _theirs(text)
    assert (ours is None) == (theirs is None)
    if ours is None or theirs is None:
        return
    assert str(ours) == str(theirs)
    assert (ours.major, ours.minor, ours.patch) == (theirs.major, theirs.minor, theirs.patch)
    assert ours.prerelease == theirs.prerelease
    assert str(ours.bump_major()) == str(theirs.bump_major())
    assert str(ours.bump_minor()) == str(theirs.bump_minor())
    assert str(ours.bump_patch()) == str(theirs.bump_patch())
    assert str(ours.finalize_version()) == str(theirs.finalize_version())
    assert pickle.loads(pickle.dumps(ours)) == ours


@given(_TEXT, _TEXT)
def test_two_versions_compare_as_semver_compares_them(a: str, b: str) -> None:
    ours_a, ours_b, theirs_a, theirs_b = parse_version(a), parse_version(b), _theirs(a), _theirs(b)
    if ours_a is None or ours_b is None or theirs_a is None or theirs_b is None:
        return
    expected = theirs_a.compare(theirs_b)
    assert ours_a.compare(ours_b) == expected
    assert (ours_a < ours_b, ours_a == ours_b, ours_a > ours_b) == (
        expected < 0,
        expected == 0,
        expected > 0,
    )
    assert (ours_a <= ours_b, ours_a >= ours_b) == (expected <= 0, expected >= 0)
    if expected == 0:
        assert hash(ours_a) == hash(ours_b)
    assert max(ours_a, ours_b).compare(ours_a if expected >= 0 else ours_b) == 0


def test_plain_versions_are_compared_without_importing_semver() -> None:
    code = (
        "import sys; from evallint.refs import parse_version, pick; "
        "v = [parse_version(t) for t in ('1.2.0', '1.10.0', '0.9.9')]; "
        "assert pick('1', v)[1] == parse_version('1.10.0') and sorted(v)[0] == v[2]; "
        "print('semver' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path.cwd()
    )
    assert out.stdout.strip() == "False"
    assert isinstance(parse_version("1.0.0-rc.1"), Version)
