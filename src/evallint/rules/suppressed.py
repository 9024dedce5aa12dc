"""The suppression comments' own problem, which the engine finds once a file's rules have run
(so it is listed last); this entry documents it."""

from __future__ import annotations

from evallint.model import Severity
from evallint.rules.base import builtin

UNUSED_SUPPRESSION = builtin(
    "unused-suppression",
    Severity.WARNING,
    """
    A `# evallint: ignore[...]` comment names no rule, or silences nothing.

    Reported at the rule id in the comment: an id that is not a rule (with the closest one), an
    id whose rule ran on the file and found nothing on the comment's line or the next, and
    `parse-error`, which cannot be silenced. A bare `# evallint: ignore` that silences nothing
    is reported at the comment. Rules the configuration turns off, and the version rules in a
    run without a base, may still be waited for, so their ids are not reported. Add
    `unused-suppression` to the comment's list to keep it anyway.

    Bad (datasets/refunds.yaml):
        questions:
          - id: q1
            input: Can I get a refund?  # evallint: ignore[key-typ]
    Good (datasets/refunds.yaml):
        questions:
          - id: q1
            input: Can I get a refund?
""",
)
