"""Wheel build hook: pre-generate fastjsonschema validators for the bundled schemas.

The generated modules land in the wheel as `evallint/_compiled/*.py`, each stamped with the
size and CRC-32 of the schema it came from (`codegen.stamp`); `evallint.validation.schemas`
uses one only when the stamp matches.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def _load_codegen(root: Path) -> Any:
    """`evallint.validation.codegen`, loaded by path: the package is not installed while it
    builds."""
    import importlib.util

    path = root / "src" / "evallint" / "validation" / "codegen.py"
    spec = importlib.util.spec_from_file_location("_evallint_codegen", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Refuse(dict):  # type: ignore[type-arg]
    """Every URI scheme refused: our schemas have no remote refs, and must never fetch one."""

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: str) -> Any:
        def refuse(uri: str) -> None:
            raise ValueError(f"remote $ref {uri!r} in a bundled schema")

        return refuse


class CompiledValidators(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"
    _out: Path | None = None  # the generated modules, removed once the wheel holds them

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        import fastjsonschema

        schema_root = Path(self.root) / "schema"
        codegen = _load_codegen(Path(self.root))
        out = self._out = Path(tempfile.mkdtemp(prefix="evallint-compiled-"))
        (out / "__init__.py").write_text('"""Generated validators; see hatch_build.py."""\n')
        build_data["force_include"][str(out / "__init__.py")] = "evallint/_compiled/__init__.py"
        for path in sorted(schema_root.rglob("*.schema.json")):
            name = path.relative_to(schema_root).as_posix().removesuffix(".schema.json")
            module = codegen.module_name(name)
            raw = path.read_bytes()
            import json

            code = fastjsonschema.compile_to_code(
                json.loads(raw), handlers=_Refuse(), use_default=False, fast_fail=False
            )
            code = codegen.tune(code)
            stamp = codegen.stamp(raw)
            text = f"SCHEMA_STAMP = {stamp!r}\n{code}\n\nVALIDATE = {codegen.entry_name(code)}\n"
            target = out / f"{module}.py"
            target.write_text(text, encoding="utf-8")
            build_data["force_include"][str(target)] = f"evallint/_compiled/{module}.py"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self._out is not None:
            import shutil

            shutil.rmtree(self._out, ignore_errors=True)
            self._out = None
