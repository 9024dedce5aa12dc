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


def parse_version(text: object) -> semver.Version | None:
    if not isinstance(text, str):
        return None
    return _parse_version(text)


@functools.lru_cache(maxsize=4096)
def _parse_version(text: str) -> semver.Version | None:
    # Versions repeat across a tree ("1.0.0"), and parsing one is ~15 us; Version is immutable.
    # semver is imported on the first version read: its import (6 ms, with its command line)
    # is most of what a one-file check of a dataset without references would spend on it.
    import semver

    try:
        return semver.Version.parse(text)
    except (ValueError, TypeError):
        return None


Outcome = Literal["ok", "no-version", "bad-pin", "unknown-id"]


def pick(
    pin: str | None, versions: Sequence[semver.Version]
) -> tuple[Outcome, semver.Version | None]:
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
