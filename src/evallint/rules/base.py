"""What a rule is: a function that yields symbolic findings, plus its id, severity and docs."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Literal

from evallint.model import Finding, Pointer, Severity
from evallint.records import field, record

if TYPE_CHECKING:
    from evallint.kinds import Kind
    from evallint.parse import Document
    from evallint.project import Definition, Entry, Project
    from evallint.rules.api import Context

Check = Callable[["Document", "Context"], Iterable[Finding]]
# The places of its own document a rule that reads the project looks at: all a run keeps of
# that document between reading it and building the project.
Keeps = Callable[["Document"], Iterable[Pointer]]
# Why a file is checked: it is in the run ("own": every rule), the run's ids affect it ("refs":
# rules that look at other files' definitions), or it names a file the change deletes ("files").
Scope = Literal["own", "refs", "files"]
# What a definer asks of the files that refer to it (a rubric's checks ask questions for facts):
# truthy when a change to the definer may give a referrer a finding of the rule, so that a
# partial run checks the referrers outside it (`Rule.asks`).
Asks = Callable[["Project", "Definition"], object]
# Whether a rule that needs the project may find anything in a file, from what the project
# keeps of it (`Entry.top`) and the project: phase two makes no document for a file that no
# rule of its wants (most of a large tree, for rules that look at few files).
Wants = Callable[["Entry", "Context"], bool]

_KEBAB = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
_EXAMPLE = re.compile(
    r"^(?P<label>Bad|Good|Given|Base) \((?P<path>[^)]+)\):\n(?P<body>(?:(?: {4}.*)?\n)+)", re.M
)


@record
class Example:
    """A file of a rule's documentation example, tested as the docs show it."""

    label: str  # "Bad", "Good"; "Given": a file beside both; "Base": the file at the git base
    path: str
    text: str

    @property
    def good(self) -> bool:
        return self.label == "Good"


# How sure a rule's findings are (SARIF's `precision`): a rule that guesses (a misspelling, an
# input that looks unused) is less certain than one that reads facts.
Precision = Literal["very-high", "high", "medium", "low"]


@record(kw_only=True)
class Rule:
    """A rule: its stable id, level, the kinds it reads, its docs and its check."""

    id: str
    severity: Severity
    kinds: frozenset[str]  # empty: every kind
    summary: str
    description: str
    check: Check | None = field(compare=False)  # None: reported by the engine itself
    strict: Severity | None = None  # the severity under --strict, when it is higher
    cross_file: bool = False  # also run on files outside the run that the run's files affect
    needs_base: bool = False  # reports only when the run has a base (--diff, --base)
    reads_files: bool = False  # looks at other files' existence: run where a deletion breaks it
    fixable: bool = False  # its findings may carry a safe fix (`check --fix` applies them)
    reads_project: bool = False  # reads other files' definitions (beyond cross_file's rules)
    keeps: Keeps | None = field(default=None, compare=False)  # None: the whole document
    asks: Asks | None = field(default=None, compare=False)
    wants: Wants | None = field(default=None, compare=False)  # None: every file
    precision: Precision = "very-high"
    bumps: bool = False  # `evallint bump` fixes its findings (by raising versions)
    group: str = ""  # a group of rules selected together (`--select hygiene`)
    # Always on: no setting, flag or comment turns it off (nothing else can be checked in a
    # file it reports).
    always_on: bool = False

    @property
    def uses_project(self) -> bool:
        """Whether it needs the project, so runs once every file is read: a rule that does not
        runs as soon as its file is parsed, and the file is not kept for it."""
        return self.cross_file or self.needs_base or self.reads_project

    def applies_to(self, kind: str) -> bool:
        return not self.kinds or kind in self.kinds

    def runs_in(self, scope: Scope) -> bool:
        """Whether it runs on a file checked for `scope` (see `Scope`)."""
        if scope == "own":
            return True
        return self.cross_file if scope == "refs" else self.reads_files

    @property
    def examples(self) -> tuple[Example, ...]:
        return tuple(
            Example(
                m.group("label"),
                m.group("path"),
                "\n".join(line[4:] for line in m.group("body").splitlines()).strip("\n") + "\n",
            )
            for m in _EXAMPLE.finditer(self.description + "\n")
        )


def _docs(doc: str | None) -> tuple[str, str]:
    summary, _, rest = cleandoc(doc or "").partition("\n")
    return summary.strip(), rest.strip("\n")


def cleandoc(doc: str) -> str:
    """`inspect.cleandoc`, without importing `inspect` (with `ast`, `dis` and `tokenize`) into
    every run for the rule docs: the first line stripped, the others dedented by their common
    indent, blank lines at either end dropped."""
    lines = doc.expandtabs().split("\n")
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.lstrip()]
    margin = min(indents, default=0)
    lines = [lines[0].lstrip(), *(line[margin:] for line in lines[1:])]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines)


def rule(
    rule_id: str,
    severity: Severity,
    *,
    kinds: Iterable[Kind] = (),
    strict: Severity | None = None,
    cross_file: bool = False,
    needs_base: bool = False,
    reads_files: bool = False,
    fixable: bool = False,
    reads_project: bool = False,
    keeps: Keeps | None = None,
    asks: Asks | None = None,
    wants: Wants | None = None,
    precision: Precision = "very-high",
    bumps: bool = False,
    group: str = "",
) -> Callable[[Check], Rule]:
    """Wrap a check function in a `Rule`; the docstring's first line is the summary."""
    assert _KEBAB.match(rule_id), rule_id

    def wrap(check: Check) -> Rule:
        summary, description = _docs(check.__doc__)
        return Rule(
            id=rule_id,
            severity=severity,
            kinds=frozenset(k.name for k in kinds),
            summary=summary,
            description=description,
            check=check,
            strict=strict,
            cross_file=cross_file,
            needs_base=needs_base,
            reads_files=reads_files,
            fixable=fixable,
            reads_project=reads_project,
            keeps=keeps,
            asks=asks,
            wants=wants,
            precision=precision,
            bumps=bumps,
            group=group,
        )

    return wrap


def builtin(rule_id: str, severity: Severity, doc: str, *, always_on: bool = False) -> Rule:
    """A rule the engine reports itself (parse problems), documented like the others."""
    summary, description = _docs(doc)
    return Rule(
        id=rule_id,
        severity=severity,
        kinds=frozenset(),
        summary=summary,
        description=description,
        check=None,
        always_on=always_on,
    )
