"""A baseline of accepted findings: adopt evallint in a repository that has findings today
without fixing them first, and fail only on new ones.

`check --write-baseline FILE` records each finding by its line-free fingerprint (rule, file,
the text of its line and its message with numbers left out), so a finding keeps its place in
the baseline when lines above it move. `check --baseline FILE` then reports only findings the
file does not hold, as many times as it holds each. With `--diff`, the file is read as the base
commit has it: a pull request cannot accept its own new findings by editing the baseline.
`parse-error` is never accepted: nothing else can be checked in such a file.
"""

from __future__ import annotations

import json
from collections import Counter

from evallint.errors import EvallintError
from evallint.model import Diagnostic, Report
from evallint.records import replace

FORMAT = 1
NEVER = frozenset({"parse-error"})


def render(report: Report) -> str:
    """The baseline file of a report: counts by fingerprint, with each finding's rule, file and
    message beside it for a reviewer (only the fingerprints are read back)."""
    kept = [d for d in report.diagnostics if d.rule not in NEVER]
    counts = Counter(_key(d) for d in kept)
    entries = [
        {"fingerprint": k, "count": counts[k], "rule": d.rule, "path": d.path, "message": d.message}
        for k, d in {_key(d): d for d in kept}.items()
    ]
    entries.sort(key=lambda e: (str(e["path"]), str(e["rule"]), str(e["fingerprint"])))
    return json.dumps({"version": FORMAT, "findings": entries}, indent=2, ensure_ascii=False) + "\n"


def parse(text: str | bytes, where: str) -> Counter[str]:
    """The accepted fingerprints and how many of each; a file of another shape is an error."""
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise EvallintError(f"the baseline {where} is not JSON: {exc}") from None
    findings = data.get("findings") if isinstance(data, dict) else None
    if (
        not isinstance(data, dict)
        or data.get("version") != FORMAT
        or not isinstance(findings, list)
    ):
        raise EvallintError(
            f"the baseline {where} is not an evallint baseline (version {FORMAT}); "
            "write one with --write-baseline"
        )
    out: Counter[str] = Counter()
    for entry in findings:
        key = entry.get("fingerprint") if isinstance(entry, dict) else None
        count = entry.get("count", 1) if isinstance(entry, dict) else None
        if not isinstance(key, str) or not isinstance(count, int) or count < 1:
            raise EvallintError(
                f"the baseline {where} has an entry without a fingerprint and a count"
            )
        out[key] += count
    return out


def without(report: Report, accepted: Counter[str], where: str) -> Report:
    """The report less the findings the baseline accepts, each as many times as it holds it;
    a note says how many were left out, so a run never looks cleaner than it is unsaid."""
    left = Counter(accepted)
    kept: list[Diagnostic] = []
    hidden = 0
    for d in report.diagnostics:
        key = _key(d)
        if d.rule not in NEVER and left[key] > 0:
            left[key] -= 1
            hidden += d.weight
            continue
        kept.append(d)
    if not hidden:
        return report
    plural = "" if hidden == 1 else "s"
    note = f"{hidden:,} finding{plural} accepted by the baseline {where} not shown"
    return replace(
        report,
        diagnostics=tuple(kept),
        notes=(*report.notes, note),
        accepted=report.accepted + hidden,
    )


def _key(d: Diagnostic) -> str:
    return d.fingerprint or f"{d.rule}:{d.path}:{d.message}"
