"""The files an AgentV suite names and its runner reads: content blocks, judge prompts, case
files (with AgentV 5's `cases.py:function`), extensions, and AgentV 4's workspace template and
hook scripts; each resolved as that dialect's AgentV does."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from evallint.kinds.base import FileRef
from evallint.model import JSON, Pointer

_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.I)


def _local(value: str) -> bool:
    """A path or `file://` URL; other URLs (git URL references) are fetched, not files."""
    return value.startswith("file://") or not _URL.match(value)


def _message_files(messages: JSON, where: Pointer) -> Iterator[FileRef]:
    if not isinstance(messages, list):
        return
    for i, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            for j, block in enumerate(content):
                if (
                    isinstance(block, dict)
                    and block.get("type") == "file"
                    and isinstance(block.get("value"), str)
                    and _local(block["value"])
                ):
                    yield FileRef(
                        (*where, i, "content", j, "value"), block["value"], search="ancestors"
                    )


def _grader_files(graders: JSON, where: Pointer) -> Iterator[FileRef]:
    if not isinstance(graders, list):
        return
    for i, grader in enumerate(graders):
        prompt = grader.get("prompt") if isinstance(grader, dict) else None
        # Only `file://` names a file that must exist: AgentV 4 reads any other prompt as inline
        # text, and 2.x used a bare path only when found (else inline text, with a warning).
        if isinstance(prompt, str) and prompt.strip().startswith("file://"):
            yield FileRef((*where, i, "prompt"), prompt.strip(), search="ancestors")
        if isinstance(grader, dict):
            for key in ("evaluators", "assertions"):
                yield from _grader_files(grader.get(key), (*where, i, key))


# AgentV 5 reads `cases.py:make_cases` as a script and the function that returns its cases
# (case-file-loader.ts parseDatasetFunctionReference); AgentV 4 has no such suffix.
_SCRIPT_FUNCTION = re.compile(r"\.(?:mjs|cjs|js|py):([^/\\:]+)$", re.I)


def _case_file(pointer: Pointer, text: str, scripts: bool) -> FileRef:
    found = _SCRIPT_FUNCTION.search(text) if scripts else None
    if found is None:
        return FileRef(pointer, text)
    return FileRef(pointer, text[: found.start(1) - 1], function=found.group(1))


def _extensions(data: dict[str, JSON]) -> Iterator[FileRef]:
    """AgentV 5's `extensions: [file://hooks.mjs:beforeAll]`: a module and the hook it exports,
    resolved from the suite's folder (yaml-parser.ts parseExtensionString)."""
    entries = data.get("extensions")
    for i, entry in enumerate(entries if isinstance(entries, list) else []):
        if isinstance(entry, str) and entry.startswith("file://"):
            cut = entry.rfind(":")
            if cut > len("file://") and entry[cut + 1 :]:
                yield FileRef(("extensions", i), entry[:cut], function=entry[cut + 1 :])


# What AgentV 4.42 takes for a file in a hook's command (workspace-path-validator.ts).
_HOOK_SCRIPTS = (".mjs", ".cjs", ".js", ".ts", ".sh", ".bash", ".zsh", ".py", ".rb", ".pl")
_HOOKS = ("before_all", "before_each", "after_each", "after_all")


def _workspace_files(data: dict[str, JSON]) -> Iterator[FileRef]:
    """AgentV 4's `workspace.template` and the scripts its hooks run: the validator refuses a
    suite whose template or script is not there. A hook's files are resolved from its `cwd`
    (itself from the suite's folder), literally as AgentV 4 runs them (it fills no
    `{{workspace_path}}` there); an absolute path lies outside the project."""
    workspace = data.get("workspace")
    if isinstance(workspace, str) and _plain(workspace):
        yield FileRef(("workspace",), workspace)  # a shared workspace file
    if not isinstance(workspace, dict):
        return
    template = workspace.get("template")
    if isinstance(template, str) and _plain(template):
        yield FileRef(("workspace", "template"), template)
    hooks = workspace.get("hooks")
    for name in _HOOKS if isinstance(hooks, dict) else ():
        hook = hooks.get(name)  # type: ignore[union-attr]
        if not isinstance(hook, dict):
            continue
        cwd = hook.get("cwd")
        if cwd is not None and not (isinstance(cwd, str) and _plain(cwd)):
            continue
        key = "command" if "command" in hook else "script"
        command = hook.get(key)
        for i, arg in enumerate(command if isinstance(command, list) else []):
            if isinstance(arg, str) and _plain(arg) and _script_like(arg):
                path = posixpath.normpath(posixpath.join(cwd, arg)) if cwd else arg
                yield FileRef(("workspace", "hooks", name, key, i), path)


def _plain(path: str) -> bool:
    return bool(path) and not path.startswith("/")


def _script_like(arg: str) -> bool:
    return arg.startswith(("./", "../")) or arg.endswith(_HOOK_SCRIPTS)


def file_refs(data: JSON) -> Iterator[FileRef]:
    """Content-block files, judge prompt files and case files, resolved from the suite's folder."""
    return _file_refs(data, scripts=False)


def v4_file_refs(data: JSON) -> Iterator[FileRef]:
    """As `file_refs`, with the workspace template and hook scripts AgentV 4.42 checks."""
    if isinstance(data, dict):
        yield from _workspace_files(data)
    yield from _file_refs(data, scripts=False)


def next_file_refs(data: JSON) -> Iterator[FileRef]:
    """As `file_refs`, with AgentV 5's script case files (`cases.py:fn`) and extensions."""
    if isinstance(data, dict):
        yield from _extensions(data)
    yield from _file_refs(data, scripts=True)


def _file_refs(data: JSON, *, scripts: bool) -> Iterator[FileRef]:
    if not isinstance(data, dict):
        return
    key = "evalcases" if "evalcases" in data else "tests"
    tests = data.get(key)
    if isinstance(tests, str):
        yield _case_file((key,), tests, scripts)
    yield from _message_files(data.get("input"), ("input",))
    execution = data.get("execution")
    if isinstance(execution, dict):
        yield from _grader_files(execution.get("evaluators"), ("execution", "evaluators"))
    yield from _grader_files(data.get("assertions"), ("assertions",))
    for i, case in enumerate(tests if isinstance(tests, list) else []):
        if isinstance(case, str):
            yield _case_file((key, i), case, scripts)
            continue
        if not isinstance(case, dict):
            continue
        for field in ("input", "input_messages", "expected_output", "expected_messages"):
            yield from _message_files(case.get(field), (key, i, field))
        yield from _grader_files(case.get("assertions"), (key, i, "assertions"))
        inner = case.get("execution")
        if isinstance(inner, dict):
            yield from _grader_files(inner.get("evaluators"), (key, i, "execution", "evaluators"))


def is_case_ref(ref: FileRef) -> bool:
    """A reference to case files: the case list as a path, or a path among the cases."""
    return ref.pointer[:1] in (("tests",), ("evalcases",)) and len(ref.pointer) <= 2


def case_refs(data: JSON) -> Iterator[FileRef]:
    """The references to case files, scripts with their function included."""
    return (ref for ref in _file_refs(data, scripts=True) if is_case_ref(ref))
