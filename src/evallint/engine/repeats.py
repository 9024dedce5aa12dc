"""How often one finding repeats in a file before the rest are only counted."""

from __future__ import annotations

from evallint.model import Diagnostic
from evallint.records import field, record, replace


@record(frozen=False)
class Repeats:
    """The first `limit` findings of each message (or group) of a rule in one file; the last
    one shown counts the rest (0: no limit).

    A million-record JSONL file with one systematic mistake would otherwise print a million
    lines. The rest are counted, never placed: positions are the costly part. Runs that write
    JSON or SARIF check with no limit, as machine outputs carry every finding.
    """

    limit: int
    seen: dict[tuple[str, str], int] = field(default_factory=dict)
    last: dict[tuple[str, str], Diagnostic] = field(default_factory=dict)  # last one shown

    def admit(self, key: tuple[str, str]) -> bool:
        n = self.seen[key] = self.seen.get(key, 0) + 1
        return not self.limit or n <= self.limit

    def shown(self, key: tuple[str, str], diagnostic: Diagnostic) -> None:
        self.last[key] = diagnostic

    def finish(self, out: list[Diagnostic]) -> list[Diagnostic]:
        counted: dict[int, Diagnostic] = {}
        for key, n in self.seen.items():
            if self.limit and n > self.limit and key in self.last:
                d = self.last[key]
                counted[id(d)] = replace(d, more=n - self.limit)
        return [counted.get(id(d), d) for d in out] if counted else out
