"""Reading the configuration: `.evallint.toml` or `[tool.evallint]`, validated against its
schema before use, and the command-line flags on top. The `Config` itself is plain data."""

from __future__ import annotations

import datetime
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from evallint.config import AGENTV_VERSION, SKIP_FOLDERS, TEMPLATE_VARIABLES, Config, MiB
from evallint.errors import EvallintError
from evallint.kinds import BY_NAME
from evallint.kinds.projection import POLICIES
from evallint.records import replace
from evallint.rules import ALL_RULES, ALWAYS_ON, BY_ID
from evallint.rules.base import Rule
from evallint.suggest import suggest
from evallint.validation.keys import unknown_keys
from evallint.validation.schemas import validate


def find_config(root: Path) -> tuple[Path, dict[str, Any]] | None:
    dedicated = root / ".evallint.toml"
    if _present(dedicated):
        return dedicated, _read_toml(_inside(dedicated, root))
    pyproject = root / "pyproject.toml"
    if _present(pyproject):
        table = _tool_table(_read_toml(_inside(pyproject, root)))
        if table is not None:
            return pyproject, table
    return None


def _present(path: Path) -> bool:
    """Whether a settings file is there. Something else by that name (a folder, a FIFO, a
    link to nothing) is no absence: a pull request could commit one to drop the settings, so
    the run stops and says so."""
    if path.is_file():
        return True
    if os.path.lexists(path):
        raise EvallintError(
            f"{path.name} is not a regular file (a folder, a pipe or a broken link?); "
            "evallint reads its settings from it, so it must be one"
        )
    return False


def _inside(path: Path, root: Path) -> Path:
    """A settings file the project holds: one that is a symlink out of it (a pull request may
    commit one) is never read, and the run stops, as for any settings it cannot read."""
    if path.is_symlink() and not path.resolve().is_relative_to(root.resolve()):
        raise EvallintError(
            f"{path.name} is a symlink that leads outside the repository; it is not read"
        )
    return path


def _tool_table(doc: dict[str, Any]) -> dict[str, Any] | None:
    """`[tool.evallint]` of a pyproject.toml; a value of another shape is an error, not absent."""
    tool = doc.get("tool")
    if tool is None:
        return None
    if not isinstance(tool, dict):
        raise EvallintError("invalid configuration in pyproject.toml: tool must be a table")
    table = tool.get("evallint")
    if table is not None and not isinstance(table, dict):
        raise EvallintError(
            "invalid configuration in pyproject.toml: tool.evallint must be a table"
        )
    return table


def _read_toml(path: Path) -> dict[str, Any]:
    import tomllib  # only a project with a configuration file pays its import

    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_SETTINGS + 1)
        if len(raw) > MAX_SETTINGS:
            raise EvallintError(f"{path.name} is larger than {MAX_SETTINGS // 1024} KiB; not read")
        return tomllib.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise EvallintError(f"cannot read {path.name}: {exc}") from None


MAX_SETTINGS = 1024 * 1024  # a settings file is read whole: a larger one is no settings file


SETTINGS_FILES = (".evallint.toml", "pyproject.toml")  # where evallint reads its settings


def settings_in(name: str, raw: bytes | None) -> object:
    """What one of `SETTINGS_FILES` says of evallint's settings, to compare two versions of
    it: its table (None: the file is absent, or holds none), or its bytes when it does not
    read as TOML."""
    import tomllib

    if raw is None:
        return None
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return raw
    if name != "pyproject.toml":
        return doc
    tool = doc.get("tool")
    return tool.get("evallint") if isinstance(tool, dict) else tool


def load_config(root: Path, explicit: Path | None = None) -> Config:
    if explicit is not None:
        if not explicit.is_file():
            raise EvallintError(f"config file {str(explicit)!r} does not exist")
        table = _read_toml(explicit)
        if explicit.name == "pyproject.toml":
            table = _tool_table(table) or {}
        return from_table(table, explicit.name)
    found = find_config(root)
    return from_table(found[1], found[0].name) if found else Config()


def from_table(table: dict[str, Any], source: str) -> Config:
    # Shapes first: the checks of names below read the values as the schema says they are.
    problems = [f"{_where(e.pointer)}{e.message}" for e in validate("config", table)]
    for obj in unknown_keys("config", table):
        for key in obj.unknown:
            problems.append(
                f"{_where((*obj.pointer, key))}unknown key {key!r}{_key_hint(key, obj)}"
            )
    if not problems:
        rules = table.get("rules", {})
        problems += _unknown_names("rules", list(rules), BY_ID)
        problems += _unknown_names("kinds", list(table.get("kinds", {})), BY_NAME)
        problems += _kinds_of_other_types(table.get("kinds", {}))
        problems += _unknown_names(
            "non-score-fields", list(table.get("non-score-fields", {})), POLICIES, "kind"
        )
        problems += _unknown_selectors("select", table.get("select", []))
        problems += _unknown_selectors("ignore", table.get("ignore", []))
        problems += _always_on(rules, table.get("ignore", []))
        for glob, ids in table.get("per-file-ignores", {}).items():
            problems += _unknown_selectors(f"per-file-ignores.{glob}", ids)
            problems += [
                f"per-file-ignores.{glob}: {r} cannot be ignored" for r in ids if r in ALWAYS_ON
            ]
    if problems:
        # One line, as every exit-2 message.
        raise EvallintError(f"invalid configuration in {source}: " + "; ".join(problems))
    return Config(
        strict=table.get("strict", False),
        exclude=tuple(table.get("exclude", ())),
        kinds=tuple((g, name) for name, globs in table.get("kinds", {}).items() for g in globs),
        severities=dict(rules),
        select=expand_rules(table.get("select", ())),
        ignore=expand_rules(table.get("ignore", ())),
        max_file_size=table.get("max-file-size", 10 * MiB),
        max_repeats=table.get("max-repeats", 10),
        template_variables=tuple(table.get("template-variables", TEMPLATE_VARIABLES)),
        validation_max_age_days=table.get("validation-max-age-days", 90),
        non_score_fields={k: tuple(v) for k, v in table.get("non-score-fields", {}).items()},
        eee_version=table.get("eee-version"),
        agentv_version=table.get("agentv-version", AGENTV_VERSION),
        skip_folders=tuple(table.get("skip-folders", SKIP_FOLDERS)),
        share_items=tuple(table.get("share-items", ())),
        per_file_ignores=tuple(
            (glob, frozenset(expand_rules(ids)))
            for glob, ids in table.get("per-file-ignores", {}).items()
        ),
        source=source,
    )


def _where(pointer: tuple[str | int, ...]) -> str:
    return ".".join(map(str, pointer)) + ": " if pointer else ""


def _key_hint(key: str, obj: Any) -> str:
    """A did-you-mean for an unknown key; a rule id at the top level belongs under [rules]."""
    if not obj.pointer and key in BY_ID:
        return f"; did you mean [rules] {key} = ...?"
    hint = suggest(key, obj.known)
    return f"; did you mean {hint!r}?" if hint else ""


def _unknown_names(
    where: str, names: Sequence[str], known: Mapping[str, object], what: str = ""
) -> list[str]:
    what = what or ("kind" if where == "kinds" else "rule")
    out = []
    for name in names:
        if name not in known:
            hint = suggest(name, known)
            out.append(
                f"{where}: unknown {what} {name!r}" + (f"; did you mean {hint!r}?" if hint else "")
            )
    return out


# Groups of rules by what they do, whatever format they read: `versions` is every rule that
# compares a file with the base (the version rules of every format, those to come included),
# which the `evallint-versions` hook selects.
GROUPS: dict[str, Callable[[Rule], bool]] = {
    "versions": lambda rule: rule.needs_base,
    "hygiene": lambda rule: rule.group == "hygiene",
}


def _selects(selector: str, rule: Rule) -> bool:
    """A rule id; a prefix of ids (`version` for version-not-bumped, ...); a group of rules
    (`versions`); or a group of kinds (`eee`, `agentv`, `rubric`): the rules that read only
    kinds of that group."""
    rule_id, kinds = rule.id, rule.kinds
    if rule_id == selector or rule_id.startswith(f"{selector}-"):
        return True
    group = GROUPS.get(selector)
    if group is not None:
        return group(rule)
    return bool(kinds) and all(k == selector or k.startswith(f"{selector}-") for k in kinds)


def expand_rules(selectors: Sequence[str]) -> tuple[str, ...]:
    """The rule ids the selectors name, in the rules' order, each once."""
    return tuple(r.id for r in ALL_RULES if any(_selects(s, r) for s in selectors))


def _unknown_selectors(where: str, selectors: Sequence[str]) -> list[str]:
    """A selector that names no rule is a mistake (a misspelt id would select nothing)."""
    groups = {g for r in ALL_RULES for k in r.kinds for g in (k, k.split("-")[0])} | set(GROUPS)
    known = {**BY_ID, **dict.fromkeys(groups)}
    return _unknown_names(where, [s for s in selectors if not expand_rules([s])], known)


def _kinds_of_other_types(kinds: Mapping[str, list[str]]) -> list[str]:
    """A `[kinds]` glob whose file ending is of another type than the kind's files (a YAML
    glob for a JSONL kind): every file it names would be checked as nothing."""
    from evallint.parse import format_of

    out = []
    for name, globs in kinds.items():
        kind = BY_NAME.get(name)
        if kind is None:
            continue  # an unknown kind is said above
        for glob in globs:
            fmt = format_of(glob)
            if fmt is not None and fmt not in kind.formats:
                read_as = ", ".join(sorted(kind.formats))
                out.append(f"kinds.{name}: {glob!r} names {fmt} files; a {name} is {read_as}")
    return out


def _always_on(rules: Mapping[str, str], ignored: Sequence[str]) -> list[str]:
    """A file that cannot be read is always an error: a pull request cannot configure it away."""
    return [
        f"{where}: {rule} cannot be turned off or down"
        for rule in sorted(ALWAYS_ON)
        for where in ("rules", "ignore")
        if (where == "rules" and rules.get(rule, "error") != "error")
        or (where == "ignore" and rule in ignored)
    ]


def with_flags(
    config: Config,
    *,
    strict: bool,
    select: Sequence[str],
    ignore: Sequence[str],
    eee_version: str | None = None,
) -> Config:
    """Command-line flags over the file: they add, never silently drop."""
    problems = _unknown_selectors("--select", select) + _unknown_selectors("--ignore", ignore)
    if problems:
        raise EvallintError("; ".join(problems))
    return replace(
        config,
        strict=config.strict or strict,
        select=expand_rules(select) or config.select,
        ignore=config.ignore + expand_rules(ignore),
        eee_version=eee_version or config.eee_version,
    )


def today(explicit: datetime.date | None, environ: Mapping[str, str]) -> datetime.date:
    """--today, else SOURCE_DATE_EPOCH (reproducible builds' convention), else the clock."""
    if explicit is not None:
        return explicit
    epoch = environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        try:
            return datetime.datetime.fromtimestamp(int(epoch), datetime.UTC).date()
        except (ValueError, OverflowError):
            raise EvallintError(f"SOURCE_DATE_EPOCH is not a Unix time: {epoch!r}") from None
    return datetime.date.today()
