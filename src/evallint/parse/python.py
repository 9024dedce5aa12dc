"""The names a Python module defines, read by parsing it: never imported, never executed.

A runner that names a function in a module (lm-evaluation-harness's `!function utils.fn`) imports
the module and looks the name up. What `ast` sees bound at module level is defined; a module may
also make names as it runs (`globals()[name] = ...` in a loop, `setattr` on itself, a star
import, a module `__getattr__`), and then a name not seen may still exist: that is said, not
guessed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping

from evallint.records import field, record

# Calls through which a module can bind names its text does not spell.
_DYNAMIC_CALLS = {"globals": "writes globals()", "vars": "writes vars()", "exec": "runs exec()"}
_DYNAMIC_WORDS = (
    b"globals",
    b"vars(",
    b"exec(",
    b"setattr",
    b"import *",
    b"__getattr__",
    b"global ",
)


@record
class Module:
    """What a module binds at its top level, and why it may bind more."""

    names: frozenset[str]
    dynamic: str | None = None  # why names may exist that the text does not bind
    error: str | None = None  # why the module could not be read
    unread: bool = False  # not parsed at all (over the limit): what it binds is unknown
    # The text of each top-level function and class, decorators included: what a change to
    # the function a config names is compared by.
    sources: Mapping[str, str] = field(default_factory=dict)


# `ast` holds some 200 bytes a byte of source: a 10 MB script took 4.8 GB to parse. The largest
# helper module of the harness's whole task tree is 89 KB.
PARSE_LIMIT = 1024 * 1024


def read_module(raw: bytes) -> Module:
    if len(raw) > PARSE_LIMIT:
        why = f"is {len(raw):,} bytes, over the {PARSE_LIMIT:,}-byte limit for parsing Python"
        return Module(frozenset(), error=why, unread=True)
    try:
        tree = ast.parse(raw)
    except SyntaxError as exc:
        return Module(frozenset(), error=f"does not parse (line {exc.lineno}: {exc.msg})")
    except (ValueError, RecursionError, MemoryError) as exc:
        return Module(frozenset(), error=f"does not parse ({type(exc).__name__})")
    names = frozenset(_bound(tree.body))
    # The walk for dynamic names only where the text spells one of them (most modules do not).
    dynamic = _dynamic(tree) if any(word in raw for word in _DYNAMIC_WORDS) else None
    return Module(names, dynamic, sources=_sources(tree, raw))


def _sources(tree: ast.Module, raw: bytes) -> dict[str, str]:
    lines = raw.decode("utf-8", "replace").splitlines()
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            out[node.name] = "\n".join(lines[first - 1 : node.end_lineno])
    return out


def _bound(body: Iterable[ast.stmt]) -> Iterator[str]:
    """Names the statements bind in their scope, through `if`, `try`, `with` and loops."""
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name
            continue  # its body binds the function's or the class's names, not the module's
        if isinstance(node, ast.Assign):
            for target in node.targets:
                yield from _targets(target)
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            yield from _targets(node.target)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.asname or alias.name.partition(".")[0]
        elif isinstance(node, ast.ImportFrom):
            yield from (alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.For | ast.AsyncFor):
            yield from _targets(node.target)
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                if item.optional_vars is not None:
                    yield from _targets(item.optional_vars)
        yield from _inner(node)


def _inner(node: ast.stmt) -> Iterator[str]:
    for part in ("body", "orelse", "finalbody"):
        yield from _bound(getattr(node, part, ()))
    for handler in getattr(node, "handlers", ()):
        if handler.name:
            yield handler.name
        yield from _bound(handler.body)
    for case in node.cases if isinstance(node, ast.Match) else ():
        for found in ast.walk(case.pattern):  # `case {"k": v, **rest}` binds v and rest
            name = getattr(found, "name", None) or getattr(found, "rest", None)
            if isinstance(name, str):
                yield name
        yield from _bound(case.body)


def _targets(node: ast.expr) -> Iterator[str]:
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Tuple | ast.List):
        for element in node.elts:
            yield from _targets(element)
    elif isinstance(node, ast.Starred):
        yield from _targets(node.value)


def _dynamic(tree: ast.Module) -> str | None:
    """Why the module may bind names its text does not: the first such construct."""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return f"star-imports from {node.module or '.'}"
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
            return "defines a module __getattr__"
    for found in ast.walk(tree):
        if isinstance(found, ast.Call) and isinstance(found.func, ast.Name):
            why = _DYNAMIC_CALLS.get(found.func.id)
            if why is None and found.func.id == "setattr":
                why = "calls setattr()"
            if why is not None:
                return why
        elif isinstance(found, ast.Global):
            return "binds names with a global statement"
    return None
