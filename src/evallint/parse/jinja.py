"""Jinja templates' structure, read in one pass: unclosed tags, unbalanced blocks, unknown tags
and filters, at character offsets. No regular expression and no backtracking: a hostile template
costs time linear in its length.

What Jinja's parser also rejects inside an expression (a bad operator, say) is not judged here;
every problem reported is one Jinja 3 reports when it compiles the template.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator

from evallint.records import record

# Jinja 3's built-in filters (a runner adds its own: lm-evaluation-harness's `regex_replace`).
FILTERS = frozenset(
    (
        "abs",
        "attr",
        "batch",
        "capitalize",
        "center",
        "count",
        "d",
        "default",
        "dictsort",
        "e",
        "escape",
        "filesizeformat",
        "first",
        "float",
        "forceescape",
        "format",
        "groupby",
        "indent",
        "int",
        "items",
        "join",
        "last",
        "length",
        "list",
        "lower",
        "map",
        "max",
        "min",
        "pprint",
        "random",
        "reject",
        "rejectattr",
        "replace",
        "reverse",
        "round",
        "safe",
        "select",
        "selectattr",
        "slice",
        "sort",
        "string",
        "striptags",
        "sum",
        "title",
        "tojson",
        "trim",
        "truncate",
        "unique",
        "upper",
        "urlencode",
        "urlize",
        "wordcount",
        "wordwrap",
        "xmlattr",
    )
)
# Tags that open a block, and the tag that closes each.
_BLOCKS = {
    "if": "endif",
    "for": "endfor",
    "macro": "endmacro",
    "call": "endcall",
    "filter": "endfilter",
    "with": "endwith",
    "block": "endblock",
    "autoescape": "endautoescape",
}
_SINGLE = frozenset({"set", "include", "import", "from", "extends", "print"})
_MIDDLE = {"elif": ("if",), "else": ("if", "for")}
_CLOSERS = {"{{": "}}", "{%": "%}"}
_PAIRS = {"(": ")", "[": "]", "{": "}"}
_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


@record
class Problem:
    start: int
    end: int
    message: str


@record
class _Open:
    name: str
    start: int
    end: int


def problems(text: str, filters: frozenset[str] = FILTERS) -> Iterator[Problem]:
    """What Jinja would refuse in `text`; after an unclosed tag, nothing more is read."""
    stack: list[_Open] = []
    i = 0
    while (j := text.find("{", i)) >= 0:
        two = text[j : j + 2]
        if two == "{#":
            k = text.find("#}", j + 2)
            if k < 0:
                yield Problem(j, j + 2, "the comment {# is never closed by #}")
                return
            i = k + 2
            continue
        if two not in _CLOSERS:
            i = j + 1
            continue
        k = _closing(text, j + 2, _CLOSERS[two])
        if k < 0:
            yield Problem(j, j + 2, f"{two} is never closed by {_CLOSERS[two]}")
            return
        yield from _filters(text, j + 2, k, filters)
        if two == "{%":
            found = yield from _tag(text, j, k, stack)
            if found is not None:
                i = found
                continue
        i = k + 2
    for left in reversed(stack):
        yield Problem(
            left.start,
            left.end,
            f"{{% {left.name} %}} is never closed by "
            f"{{% {_BLOCKS.get(left.name, 'end' + left.name)} %}}",
        )


def _closing(text: str, i: int, close: str) -> int:
    """Where the tag that starts at `i` ends: `close` outside strings and brackets."""
    depth, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "'\"":
            end = _string_end(text, i)
            if end < 0:
                return -1
            i = end
            continue
        if depth == 0 and text.startswith(close, i):
            return i
        if c in _PAIRS:
            depth += 1
        elif c in ")]}" and depth:
            depth -= 1
        i += 1
    return -1


def _string_end(text: str, i: int) -> int:
    """The offset after the string literal that starts at `i`, or -1."""
    quote, i, n = text[i], i + 1, len(text)
    while i < n:
        if text[i] == "\\":
            i += 2
        elif text[i] == quote:
            return i + 1
        else:
            i += 1
    return -1


def _filters(text: str, i: int, end: int, filters: frozenset[str]) -> Iterator[Problem]:
    """Each `| name` outside strings whose name Jinja does not know."""
    while i < end:
        c = text[i]
        if c in "'\"":
            i = max(_string_end(text, i), i + 1)
            continue
        i += 1
        if c != "|":
            continue
        while i < end and text[i] in " \t\r\n":
            i += 1
        start = i
        while i < end and text[i] in _WORD:
            i += 1
        name = text[start:i]
        if name and name not in filters:
            yield Problem(start, i, f"no filter named {name!r}")


def _tag(text: str, j: int, k: int, stack: list[_Open]) -> Generator[Problem, None, int | None]:
    """A `{% ... %}` tag: blocks opened and closed in order, no unknown tag. Returns where to
    read on after `{% raw %}` (None: after the tag)."""
    body = text[j + 2 : k].strip("-+ \t\r\n")
    name = body.split(None, 1)[0] if body else ""
    if name == "raw":
        close = text.find("endraw", k)
        return None if close < 0 else close
    if name in _BLOCKS or (name == "set" and "=" not in body):
        stack.append(_Open(name, j, k + 2))
    elif name in _MIDDLE:
        if not stack or stack[-1].name not in _MIDDLE[name]:
            yield Problem(j, k + 2, f"{{% {name} %}} outside an {{% if %}} block")
    elif name.startswith("end"):
        opened = name[3:]
        if not stack or stack[-1].name != opened:
            yield Problem(j, k + 2, f"{{% {name} %}} closes no open {{% {opened} %}}")
        else:
            stack.pop()
    elif name not in _SINGLE:
        yield Problem(j, k + 2, f"unknown tag {name!r}")
    return None
