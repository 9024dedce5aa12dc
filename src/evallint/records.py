"""Record classes: what `dataclass(frozen=True, slots=True)` makes, for a tenth of its cost.

A check of one file (pre-commit's case) creates some fifty record classes before it reads a
byte. The standard library's `dataclasses` compiles six functions for each frozen class and
imports `inspect` (with `ast`, `dis` and `tokenize`) to do it: about a third of that run.
Here a class gets one compiled function, its `__init__` (a generic one would cost every
record made); equality, hashing, `repr`, the frozen guard and pickling are shared functions
that read the class's field names. Type checkers see the decorator as a dataclass through
`dataclass_transform`.

What it supports is what evallint's records use: fields with a default or a default factory,
fields left out of equality (`compare=False`) or of `__init__` (`init=False`, set from their
factory), `__post_init__`, inheriting the fields of a record base, and mutable records
(`frozen=False`, for the run's own state) or records compared by identity (`eq=False`).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform, overload

_T = TypeVar("_T")
_MISSING: Any = object()
_FIELDS = "__record_fields__"


class FrozenRecordError(AttributeError):
    """A field of a frozen record was set or deleted."""


class Field:
    """How `field(...)` describes one field; replaced by a slot when the class is made."""

    __slots__ = ("compare", "default", "factory", "init", "repr")

    def __init__(self, default: Any, factory: Any, compare: bool, init: bool, repr: bool) -> None:
        self.default, self.factory, self.compare, self.init = default, factory, compare, init
        self.repr = repr


def field(
    *,
    default: Any = _MISSING,
    default_factory: Callable[[], Any] = _MISSING,
    compare: bool = True,
    init: bool = True,
    repr: bool = True,
) -> Any:
    """A field with a default or a factory, or left out of equality, `__init__` or `repr`."""
    return Field(default, default_factory, compare, init, repr)


@overload
def record(cls: type[_T], /) -> type[_T]: ...
@overload
def record(
    *, frozen: bool = True, eq: bool = True, kw_only: bool = False
) -> Callable[[type[_T]], type[_T]]: ...
@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(
    cls: type[_T] | None = None,
    /,
    *,
    frozen: bool = True,
    eq: bool = True,
    kw_only: bool = False,
) -> type[_T] | Callable[[type[_T]], type[_T]]:
    """Make `cls` a record of the fields its annotations name, with slots. `kw_only`: its
    fields are given by name (a record of many fields, most of them defaults)."""

    def make(cls: type[_T]) -> type[_T]:
        return _make(cls, frozen=frozen, eq=eq, kw_only=kw_only)

    return make if cls is None else make(cls)


def replace(obj: _T, /, **changes: Any) -> _T:
    """A copy of a record with some fields changed (`dataclasses.replace`)."""
    for name, spec in getattr(obj, _FIELDS).items():
        if spec.init and name not in changes:
            changes[name] = getattr(obj, name)
    return type(obj)(**changes)


def fields_of(obj: object) -> tuple[str, ...]:
    """The names of a record's fields, in order."""
    return tuple(getattr(obj, _FIELDS))


def _make(cls: type[_T], *, frozen: bool, eq: bool, kw_only: bool) -> type[_T]:
    specs: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        specs.update(getattr(base, _FIELDS, {}))
    # The class's own annotations, as strings (every module has `from __future__ import
    # annotations`); `inspect.get_annotations` would import what this module avoids.
    written: dict[str, str] = cls.__dict__.get("__annotations__", {})  # noqa: RUF063
    own = [name for name, note in written.items() if "ClassVar" not in note]
    for name in own:
        value = cls.__dict__.get(name, _MISSING)
        plain = Field(value, _MISSING, True, True, True)
        specs[name] = value if isinstance(value, Field) else plain
    body = {k: v for k, v in cls.__dict__.items() if k not in own and k not in _CLASS_OWNED}
    inherited = {n for base in cls.__mro__[1:] for n in getattr(base, _FIELDS, ())}
    body["__slots__"] = tuple(n for n in own if n not in inherited)
    body[_FIELDS] = specs
    body["__match_args__"] = tuple(n for n, s in specs.items() if s.init)
    # As dataclasses do, a method the class writes itself is kept.
    lazy = "__init__" not in body  # set once the class exists: it names the class
    body.setdefault("__repr__", _repr)
    if frozen:
        body.update(
            __setattr__=_refuse_set,
            __delattr__=_refuse_delete,
            __getstate__=_getstate,
            __setstate__=_setstate,
        )
    if eq:
        compared = tuple(n for n, s in specs.items() if s.compare)
        body["_record_key"] = staticmethod(_key_getter(compared))
        if "__eq__" not in body:
            body["__eq__"] = _eq
            body["__hash__"] = _hash if frozen else None
    made: type[_T] = type(cls.__name__, cls.__bases__, body)
    made.__qualname__ = cls.__qualname__
    if lazy:
        type.__setattr__(made, "__init__", _compiled_on_first_use(made, specs, frozen, kw_only))
    return made


def _compiled_on_first_use(
    owner: type, specs: dict[str, Field], frozen: bool, kw_only: bool = False
) -> Any:
    """An `__init__` that compiles the real one when the class first makes a record, and puts
    it in its place: a check defines some fifty record classes and uses about half of them, and
    compiling one costs 70 us."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        post = hasattr(owner, "__post_init__")
        real = _init(owner, specs, frozen, post, kw_only)
        type.__setattr__(owner, "__init__", real)
        real(self, *args, **kwargs)

    __init__.__qualname__ = f"{owner.__qualname__}.__init__"
    return __init__


_CLASS_OWNED = frozenset({"__dict__", "__weakref__"})


def _key_getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    if not names:
        return lambda _obj: ()
    get = attrgetter(*names)
    if len(names) == 1:
        return lambda obj: (get(obj),)
    return get  # with several names it returns the tuple


def _init(
    owner: type, specs: dict[str, Field], frozen: bool, post: bool, kw_only: bool = False
) -> Any:
    """One compiled `__init__`: a generic one would pay a loop and a dict on every record. A
    frozen record's fields are set through their slots' own setters, which skip the lookup by
    name that `object.__setattr__` makes (a record is made in 60% of the time)."""
    names: dict[str, Any] = {"_MISSING": _MISSING, "_put": object.__setattr__}
    params, lines = [], []
    for name, spec in specs.items():
        if spec.default is not _MISSING:
            names[f"_d_{name}"] = spec.default
        if spec.factory is not _MISSING:
            names[f"_f_{name}"] = spec.factory
        if not spec.init and spec.default is _MISSING and spec.factory is _MISSING:
            continue  # set by __post_init__
        if not spec.init:
            value = f"_f_{name}()" if spec.factory is not _MISSING else f"_d_{name}"
        elif spec.factory is not _MISSING:
            params.append(f"{name}=_MISSING")
            value = f"_f_{name}() if {name} is _MISSING else {name}"
        else:
            params.append(f"{name}=_d_{name}" if spec.default is not _MISSING else name)
            value = name
        lines.append(_setter(owner, name, value, names) if frozen else f"self.{name} = {value}")
    if post:
        lines.append("self.__post_init__()")
    if kw_only and params:
        params.insert(0, "*")
    source = f"def __init__(self, {', '.join(params)}):\n " + "\n ".join(lines or ["pass"])
    exec(source, names)
    init = names["__init__"]
    init.__qualname__ = f"{owner.__qualname__}.__init__"
    return init


def _setter(owner: type, name: str, value: str, names: dict[str, Any]) -> str:
    """The line that sets a frozen record's field: through its slot's setter where it has one."""
    slot: Any = getattr(owner, name, None)
    if type(slot).__name__ != "member_descriptor":
        return f"_put(self, {name!r}, {value})"
    names[f"_s_{name}"] = slot.__set__
    return f"_s_{name}(self, {value})"


def _repr(self: Any) -> str:
    fields = getattr(self, _FIELDS).items()
    shown = ", ".join(f"{n}={getattr(self, n)!r}" for n, spec in fields if spec.repr)
    return f"{type(self).__qualname__}({shown})"


def _eq(self: Any, other: Any) -> object:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return bool(self._record_key(self) == self._record_key(other))


def _hash(self: Any) -> int:
    return hash(self._record_key(self))


def _refuse_set(self: Any, name: str, value: object) -> None:
    raise FrozenRecordError(f"cannot assign to field {name!r}")


def _refuse_delete(self: Any, name: str) -> None:
    raise FrozenRecordError(f"cannot delete field {name!r}")


def _getstate(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, n) for n in getattr(self, _FIELDS))


def _setstate(self: Any, state: tuple[Any, ...]) -> None:
    for name, value in zip(getattr(self, _FIELDS), state, strict=True):
        object.__setattr__(self, name, value)
