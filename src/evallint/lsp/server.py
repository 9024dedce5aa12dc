"""The language server: pygls over stdio, the same engine as `evallint check`.

Each change to an open eval file checks every open eval file of its project with the buffers
in place of the files (`session.editor`), so a rubric edited and unsaved updates the findings
of the datasets that name it. A request that fails is logged and answered; the server goes on.
Nothing is executed, and nothing outside the project is read.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.lsp.server import LanguageServer

from evallint.about import __url__, __version__
from evallint.io.discover import find_root
from evallint.lsp import convert, navigation
from evallint.model import Diagnostic
from evallint.session.editor import Project

DOCS = f"{__url__}/blob/main/RULES.md"
_CONVERTER = get_converter()


class EvallintServer(LanguageServer):
    """The projects of the open files, and each open file's last findings (for code actions)."""

    def __init__(self) -> None:
        super().__init__(
            "evallint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full
        )
        self.projects: dict[Path, Project] = {}
        self.findings: dict[str, list[Diagnostic]] = {}  # uri -> findings

    def project_of(self, path: Path) -> Project:
        """The project a file belongs to, as `evallint check FILE` would find it, but never
        above the workspace folder that holds it (outside git) and never the file system's
        root. A file outside every workspace folder is a project of its own: its own findings,
        and nothing else read (a file opened from `/tmp` must not make `/tmp`, or `/`, a
        project whose folders are walked)."""
        folders = self._folders()
        holding = [f for f in folders if path.is_relative_to(f)]
        if folders and not holding:
            return self._alone(path)
        root, in_git = find_root(path.parent)
        if not in_git:
            if not holding:
                return self._alone(path)
            root = max(holding, key=lambda f: len(f.parts))
        if root == Path(root.anchor):
            return self._alone(path)
        found = self.projects.get(root)
        if found is None:
            found = self.projects[root] = Project(root)
        return found

    def _folders(self) -> list[Path]:
        """The workspace folders, as paths (a folder that is the file system's root is none)."""
        uris = [f.uri for f in self.workspace.folders.values()]
        if self.workspace.root_uri:
            uris.append(self.workspace.root_uri)
        paths = {p for p in (_path(u) for u in uris) if p is not None}
        return sorted(p for p in paths if p != Path(p.anchor))

    def _alone(self, path: Path) -> Project:
        found = self.projects.get(path)
        if found is None:
            found = self.projects[path] = Project(path.parent, alone=path.name)
        return found


def _path(uri: str) -> Path | None:
    parsed = urlparse(uri)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" else None


def _open_files(server: EvallintServer, project: Project) -> dict[str, str]:
    """uri -> project path of the open eval files of `project`."""
    out = {}
    for uri in list(server.workspace.text_documents):
        path = _path(uri)
        if path is not None and server.project_of(path) is project:
            rel = project.relative(path)
            if rel is not None:
                out[uri] = rel
    return out


def relint(server: EvallintServer, uri: str) -> None:
    """Check the open eval files of the project `uri` belongs to, and publish their findings."""
    path = _path(uri)
    if path is None:
        return
    project = server.project_of(path)
    opened = _open_files(server, project)
    if not opened:
        return
    buffers = {rel: server.workspace.get_text_document(u).source for u, rel in opened.items()}
    report = project.check(buffers)
    by_path: dict[str, list[Diagnostic]] = {rel: [] for rel in opened.values()}
    for d in report.diagnostics:
        if d.path in by_path:
            by_path[d.path].append(d)
    for u, rel in opened.items():
        lines = buffers[rel].split("\n")
        server.findings[u] = by_path[rel]
        found = [convert.diagnostic(d, lines, DOCS) for d in by_path[rel]]
        params = {"uri": u, "diagnostics": found}
        server.text_document_publish_diagnostics(
            _CONVERTER.structure(params, types.PublishDiagnosticsParams)
        )


def _guarded(server: EvallintServer, uri: str) -> None:
    """`relint`, but a failure is logged, never the end of the server."""
    try:
        relint(server, uri)
    except Exception as exc:  # a bug of ours, or a setting the project cannot be read with
        message = f"evallint: {type(exc).__name__}: {exc}"
        server.window_log_message(
            types.LogMessageParams(types.MessageType.Error, message + "\n" + traceback.format_exc())
        )


def code_actions(server: EvallintServer, params: types.CodeActionParams) -> list[dict[str, Any]]:
    """Per finding in the range: its fix, and its suppression (YAML); and a fix of them all."""
    uri = params.text_document.uri
    found = server.findings.get(uri, [])
    text = server.workspace.get_text_document(uri).source
    lines = text.split("\n")
    start, end = params.range.start.line + 1, params.range.end.line + 1
    out: list[dict[str, Any]] = []
    for d in found:
        if d.span.end_line < start or d.span.line > end:
            continue
        shown = convert.diagnostic(d, lines, DOCS)
        if d.fix is not None:
            edit = convert.text_edit(text, d.fix)
            out.append(_action(f"Fix: {d.message}", "quickfix", uri, [edit], shown, True))
        quiet = convert.suppression(lines, d) if uri.endswith((".yaml", ".yml")) else None
        if quiet is not None:
            title = f"Ignore {d.rule} on this line"
            out.append(_action(title, "quickfix", uri, [quiet], shown, False))
    edits = convert.fix_all(text, found)
    if edits:
        out.append(_action("Fix all evallint findings", "source.fixAll.evallint", uri, edits))
    return out


def _action(
    title: str,
    kind: str,
    uri: str,
    edits: list[dict[str, Any]],
    diagnostic: dict[str, Any] | None = None,
    preferred: bool = False,
) -> dict[str, Any]:
    action: dict[str, Any] = {"title": title, "kind": kind, "edit": {"changes": {uri: edits}}}
    if diagnostic is not None:
        action["diagnostics"] = [diagnostic]
        action["isPreferred"] = preferred
    return action


def build() -> EvallintServer:
    server = EvallintServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: EvallintServer, params: types.DidOpenTextDocumentParams) -> None:
        _guarded(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: EvallintServer, params: types.DidChangeTextDocumentParams) -> None:
        _guarded(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: EvallintServer, params: types.DidSaveTextDocumentParams) -> None:
        path = _path(params.text_document.uri)
        if path is not None:
            ls.project_of(path).planned = None  # settings or the tree may have changed
        _guarded(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: EvallintServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.findings.pop(uri, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))
        _guarded(ls, uri)  # what the closed buffer held is now read from disk by the others

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: EvallintServer, params: types.DidChangeWatchedFilesParams) -> None:
        for project in ls.projects.values():
            project.planned = None  # made, deleted or renamed files: list the tree again
        for uri in list(ls.workspace.text_documents):
            _guarded(ls, uri)

    # CodeActionKind is an enum of LSP's own kinds; a sub-kind is a string, as LSP allows.
    kinds: list[Any] = [types.CodeActionKind.QuickFix, "source.fixAll.evallint"]

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=kinds)
    )
    def code_action(ls: EvallintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        try:
            found = code_actions(ls, params)
        except Exception as exc:  # answered empty, and logged
            ls.window_log_message(
                types.LogMessageParams(types.MessageType.Error, f"evallint: {exc!r}")
            )
            return []
        return [_CONVERTER.structure(a, types.CodeAction) for a in found]

    _navigation(server)
    return server


def _navigation(server: EvallintServer) -> None:
    """Go to definition, hover and completion (`lsp.navigation`)."""

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: EvallintServer, params: types.DefinitionParams) -> types.Location | None:
        where = params.position

        def ask(project: Project, rel: str, buffers: dict[str, str]) -> dict[str, Any] | None:
            return navigation.definition(project, rel, buffers, where.line, where.character)

        found = _answered(ls, params.text_document.uri, ask)
        return _CONVERTER.structure(found, types.Location) if found else None

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: EvallintServer, params: types.HoverParams) -> types.Hover | None:
        uri, at = params.text_document.uri, (params.position.line, params.position.character)

        def ask(project: Project, rel: str, buffers: dict[str, str]) -> dict[str, Any] | None:
            return navigation.hover(project, rel, buffers, at, ls.findings.get(uri, []), DOCS)

        found = _answered(ls, uri, ask)
        return _CONVERTER.structure(found, types.Hover) if found else None

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=["/", "@"])
    )
    def completion(ls: EvallintServer, params: types.CompletionParams) -> types.CompletionList:
        where = params.position

        def ask(project: Project, rel: str, buffers: dict[str, str]) -> dict[str, Any] | None:
            return navigation.completion(project, rel, buffers, where.line, where.character)

        found = _answered(ls, params.text_document.uri, ask)
        empty = {"isIncomplete": False, "items": []}
        return _CONVERTER.structure(found or empty, types.CompletionList)


Ask = Callable[[Project, str, dict[str, str]], dict[str, Any] | None]


def _answered(server: EvallintServer, uri: str, ask: Ask) -> Any:
    """A request about an open eval file, asked with its project, its project path and the
    open buffers; a failure is logged and answered with nothing."""
    path = _path(uri)
    if path is None:
        return None
    project = server.project_of(path)
    opened = _open_files(server, project)
    if uri not in opened:
        return None
    buffers = {rel: server.workspace.get_text_document(u).source for u, rel in opened.items()}
    try:
        return ask(project, opened[uri], buffers)
    except Exception as exc:  # a bug of ours: the server goes on
        message = f"evallint: {type(exc).__name__}: {exc}\n{traceback.format_exc()}"
        server.window_log_message(types.LogMessageParams(types.MessageType.Error, message))
        return None


def serve() -> int:
    """Run the server on stdin and stdout until the client says exit."""
    import sys

    from evallint.lsp.frames import CappedReader

    build().start_io(stdin=CappedReader(sys.stdin.buffer))  # type: ignore[arg-type]
    return 0
