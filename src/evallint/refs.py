"""`rubric/{id}@{pin}` references: parsing them and resolving them against defined versions."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from evallint.records import record

if TYPE_CHECKING:
    import semver

_REF = re.compile(r"^(?P<ns>rubric|judge)/(?P<id>[a-z][a-z0-9_]*)(?:@(?P<pin>.+))?$")
_PARTIAL = re.compile(r"^(0|[1-9][0-9]*)(?:\.(0|[1-9][0-9]*))?$")


@record
class Ref:
    """A reference to a rubric or judge: `namespace/id`, pinned or not."""

    namespace: str  # "rubric" or "judge": the kind it points at
    id: str
    pin: str | None

    def __str__(self) -> str:
        return f"{self.namespace}/{self.id}" + (f"@{self.pin}" if self.pin else "")


def parse_ref(text: str) -> Ref | None:
    # Anything but a string (a damaged cache's summary, say) is no reference, never an error.
    return _parse_ref(text) if isinstance(text, str) else None


@functools.lru_cache(maxsize=4096)
def _parse_ref(text: str) -> Ref | None:
    # A tree names the same few refs thousands of times; a Ref is immutable.
    m = _REF.match(text)
    return Ref(m["ns"], m["id"], m["pin"]) if m else None


def parse_version(text: object) -> Version | None:
    if not isinstance(text, str):
        return None
    return _parse_version(text)


# A version that is only MAJOR.MINOR.PATCH, as SemVer 2.0 writes them (no leading zeros).
_PLAIN = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")


@functools.lru_cache(maxsize=4096)
def _parse_version(text: str) -> Version | None:
    # Versions repeat across a tree ("1.0.0"), and parsing one is ~15 us; Version is immutable.
    plain = _PLAIN.fullmatch(text)
    if plain is not None:
        return Version(text, (int(plain[1]), int(plain[2]), int(plain[3])), None)
    if text.count(".") < 2:
        return None  # no MAJOR.MINOR.PATCH (a partial pin, "1.2"): semver need not be asked
    import semver

    try:
        return Version(text, None, semver.Version.parse(text))
    except (ValueError, TypeError):
        return None


class Version:
    """A SemVer version. A plain MAJOR.MINOR.PATCH (almost every version of a tree) compares
    as its three numbers, which is SemVer's order for them; any other (a prerelease, build
    metadata) is semver's own `Version`, and so is every comparison that involves one. semver
    is imported only then: its import (7 ms, with `inspect`) was a tenth of a one-file run."""

    __slots__ = ("_full", "_plain", "_text")

    def __init__(
        self, text: str, plain: tuple[int, int, int] | None, full: semver.Version | None
    ) -> None:
        self._text, self._plain, self._full = text, plain, full

    def as_semver(self) -> semver.Version:
        """This version as semver's own."""
        if self._full is None:
            import semver

            assert self._plain is not None
            self._full = semver.Version(*self._plain)
        return self._full

    @staticmethod
    def of(full: semver.Version) -> Version:
        return Version(str(full), None, full)

    @property
    def major(self) -> int:
        return self._plain[0] if self._plain is not None else self.as_semver().major

    @property
    def minor(self) -> int:
        return self._plain[1] if self._plain is not None else self.as_semver().minor

    @property
    def patch(self) -> int:
        return self._plain[2] if self._plain is not None else self.as_semver().patch

    @property
    def prerelease(self) -> str | None:
        return None if self._plain is not None else self.as_semver().prerelease

    def compare(self, other: Version) -> int:
        """-1, 0 or 1, as SemVer orders the two (build metadata does not count)."""
        if self._plain is not None and other._plain is not None:
            return (self._plain > other._plain) - (self._plain < other._plain)
        return int(self.as_semver().compare(other.as_semver()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Version) and self.compare(other) == 0

    def __hash__(self) -> int:
        # Equal versions hash alike: build metadata does not count, as in `compare`.
        if self._plain is not None:
            return hash(self._plain)
        full = self.as_semver()
        key = (full.major, full.minor, full.patch)
        return hash(key if full.prerelease is None else (*key, full.prerelease))

    def __lt__(self, other: Version) -> bool:
        return self.compare(other) < 0

    def __le__(self, other: Version) -> bool:
        return self.compare(other) <= 0

    def __gt__(self, other: Version) -> bool:
        return self.compare(other) > 0

    def __ge__(self, other: Version) -> bool:
        return self.compare(other) >= 0

    def __str__(self) -> str:
        return self._text if self._plain is not None else str(self.as_semver())

    def __repr__(self) -> str:
        return f"Version({str(self)!r})"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return _parse_version, (self._text,)

    def bump_major(self) -> Version:
        return Version.of(self.as_semver().bump_major())

    def bump_minor(self) -> Version:
        return Version.of(self.as_semver().bump_minor())

    def bump_patch(self) -> Version:
        return Version.of(self.as_semver().bump_patch())

    def finalize_version(self) -> Version:
        return Version.of(self.as_semver().finalize_version())


Outcome = Literal["ok", "no-version", "bad-pin", "unknown-id"]


def pick(pin: str | None, versions: Sequence[Version]) -> tuple[Outcome, Version | None]:
    """The version a pin resolves to, as the ai_eval loader resolves it.

    A full pin matches exactly; `@1.2` takes the highest 1.2.x and `@1` the highest 1.x.y; no pin
    takes the highest. Prereleases are chosen only by an exact pin.
    """
    if pin is None:
        stable = [v for v in versions if not v.prerelease]
        return ("ok", max(stable)) if stable else ("no-version", None)
    full = parse_version(pin)
    if full is not None:
        exact = [v for v in versions if v.compare(full) == 0]
        return ("ok", exact[0]) if exact else ("no-version", None)
    m = _PARTIAL.match(pin)
    if m is None:
        return "bad-pin", None
    major, minor = int(m[1]), (int(m[2]) if m[2] is not None else None)
    fits = [
        v
        for v in versions
        if not v.prerelease and v.major == major and (minor is None or v.minor == minor)
    ]
    return ("ok", max(fits)) if fits else ("no-version", None)
