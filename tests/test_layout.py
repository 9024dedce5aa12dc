"""The house keeps its order: no module imports, even inside a function or under
TYPE_CHECKING, one that imports it back, or one of a stage above its own in the table of
docs/design.md."""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "src" / "evallint"


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph() -> dict[str, set[str]]:
    modules = {_module(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                # `from evallint import index` names a module; `from x import Name` its module.
                targets = [f"{base}.{a.name}" for a in node.names] + [base]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _stages(readme: str) -> list[list[str]]:
    """The stage table of docs/design.md, lowest first: each row's files and folders, as
    module names."""
    after = readme[readme.index("The stages, lowest first") :]
    block = re.search(r"```text\n(.*?)\n *```", after, re.S)
    assert block, "the stage table of docs/design.md is missing"
    rows = []
    for line in textwrap.dedent(block.group(1)).splitlines():
        if not line.strip() or line.startswith(" "):
            continue  # a row's description going on
        names = []
        for word in line.split():
            if not word.endswith((".py", "/")):
                break
            # A file names one module; a folder (kept with a trailing dot) every module in it;
            # `*` one part of a name (`formats/*/kinds*.py`: each format's kinds modules).
            module = "evallint." + word.removesuffix(".py").replace("/", ".")
            names.append(module.removesuffix(".__init__"))
        rows.append(names)
    return rows


def _names(module: str, name: str) -> bool:
    if "*" in name:
        return re.fullmatch(re.escape(name).replace(r"\*", "[^.]*"), module) is not None
    if name.endswith("."):
        return module == name.removesuffix(".") or module.startswith(name)
    return module == name


def _stage(module: str, stages: list[list[str]]) -> int | None:
    """The row of the module's file, or of the folder that holds it (the longest name that
    names it decides)."""
    found = [
        (len(name), row)
        for row, names in enumerate(stages)
        for name in names
        if _names(module, name)
    ]
    return max(found)[1] if found else None


def _upward(graph: dict[str, set[str]], stages: list[list[str]]) -> list[str]:
    out = []
    for module, targets in sorted(graph.items()):
        here = _stage(module, stages)
        out += [
            f"{module} imports {target}, a stage above it"
            for target in sorted(targets)
            if here is not None and (_stage(target, stages) or 0) > here
        ]
    return out


def test_every_module_has_a_stage_and_imports_only_downwards() -> None:
    graph = _graph()
    stages = _stages((REPO / "docs" / "design.md").read_text(encoding="utf-8"))
    assert len(stages) >= 10
    assert [m for m in sorted(graph) if _stage(m, stages) is None] == []
    assert _upward(graph, stages) == []


def test_the_stage_check_finds_an_import_up_the_table() -> None:
    stages = [["evallint.model"], ["evallint.rules."], ["evallint.engine."]]
    graph = {"evallint.rules.api": {"evallint.engine.run", "evallint.model"}}
    assert _upward(graph, stages) == [
        "evallint.rules.api imports evallint.engine.run, a stage above it"
    ]


def _kind_names_outside_kinds() -> list[str]:
    """Where a kind's name is written as a string outside `kinds/` and the formats' packages
    (a line may say why it is another thing that happens to share the word, with
    `# not a kind`)."""
    from evallint.kinds import KINDS

    names = {k.name for k in KINDS}
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.parent.name == "kinds" or "formats" in path.relative_to(PACKAGE).parts:
            continue
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Constant) and node.value in names:
                line = lines[node.lineno - 1]
                if "# not a kind" not in line:
                    out.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {line.strip()}")
    return out


def test_kinds_are_named_only_in_their_formats_packages() -> None:
    """Adding a kind is its format's package and its schema: shared rules and the engine
    choose kinds by what they hold (`kinds.VERSIONED`, `kinds.CASED`), never by a name."""
    assert _kind_names_outside_kinds() == []


def test_the_eee_versions_are_written_once() -> None:
    """The EEE releases are listed in `formats/eee/kinds.py`; the CLI and the config schema
    take them from there (the config schema is generated)."""
    pattern = re.compile(r"0\.0\.1\W+0\.1\.0\W+0\.2\.0")
    sources = [*PACKAGE.rglob("*.py"), *(REPO / "tools").rglob("*.py")]
    found = [p.relative_to(REPO).as_posix() for p in sources if pattern.search(p.read_text())]
    assert found == ["src/evallint/formats/eee/kinds.py"]


def test_no_module_imports_another_ones_private_names() -> None:
    """What one module shares with another is public: a rule family that needs another's
    helper gets it from the layer below (the kind's own module), not from the family."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("evallint"):
                out += [
                    f"{path.relative_to(PACKAGE)}: {node.module}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
    assert out == []


def test_only_the_cli_writes_to_stdout() -> None:
    """Every other stage returns data; formatters return text that the CLI writes."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.parent.name == "cli":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            printing = isinstance(node, ast.Call) and getattr(node.func, "id", "") == "print"
            streams = (
                isinstance(node, ast.Attribute)
                and getattr(node.value, "id", "") == "sys"
                and node.attr in ("stdout", "stderr")
            )
            if printing or streams:
                out.append(f"{path.relative_to(PACKAGE)}:{getattr(node, 'lineno', 0)}")
    assert out == []


def test_the_format_choices_are_the_output_table() -> None:
    """An output format is its module and its row: the CLI offers every row."""
    import argparse

    from evallint.cli.parser import build_parser
    from evallint.output import FORMATTERS

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    check: argparse.ArgumentParser = sub.choices["check"]
    choices = next(a.choices for a in check._actions if a.dest == "format")
    assert list(choices or ()) == ["auto", *FORMATTERS]


def test_no_import_circles() -> None:
    graph = _graph()
    assert len(graph) > 40  # the walk found the package
    assert _circles(graph) == []


def test_the_circle_finder_finds_circles() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _format(module: str) -> str | None:
    """The format whose package holds the module (`evallint.formats.<name>...`)."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "formats" else None


def test_nothing_outside_a_formats_package_imports_it() -> None:
    """A format is one package: the registries reach it by name (`formats.NAMES`), and
    everything else (the engine, the shared rules, the CLI, another format) learns what it
    needs from what its kinds declare (`Kind.case_ids`, `Kind.patterns`, `Kind.owns`, ...), so a
    new format needs no edit outside its package but its name in the registry."""
    graph = _graph()
    assert any(_format(m) for m in graph)  # the walk found the formats
    found = [
        f"{module} imports {target}"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if _format(target) and _format(target) != _format(module)
    ]
    assert found == []


def test_the_format_check_finds_an_import_across_formats() -> None:
    assert _format("evallint.formats.agentv.kinds") == "agentv"
    assert _format("evallint.formats") is None
    assert _format("evallint.kinds.base") is None


def test_the_api_and_the_session_import_nothing_from_the_cli() -> None:
    """One check is set up in `session/`, below the command line, the API and the language
    server alike."""
    graph = _graph()
    users = [m for m in graph if m == "evallint.api" or m.startswith("evallint.session")]
    assert users
    assert [f"{m} imports {t}" for m in users for t in graph[m] if ".cli" in t] == []


MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60


def test_rooms_stay_small() -> None:
    """No module over 500 lines, no function over 60 (docstring included): a module says one
    thing, and a function can be read at once. A format's schema source (`schemas*.py`) is
    exempt from the second: each builder there returns one literal, a JSON Schema written as
    Python, which reads as data, not as steps."""
    big, long = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(PACKAGE).as_posix()
        if text.count("\n") > MAX_MODULE_LINES:
            big.append(f"{name}: {text.count(chr(10))} lines")
        if "formats" in path.parts and path.name.startswith("schemas"):
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > MAX_FUNCTION_LINES:
                    long.append(f"{name}:{node.lineno} {node.name}: {size} lines")
    assert big == []
    assert long == []
