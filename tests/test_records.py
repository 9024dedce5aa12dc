"""Records behave as the frozen, slotted dataclasses they replace."""

from __future__ import annotations

import copy
import pickle

import pytest

from evallint.model import Diagnostic, Severity, Span
from evallint.records import FrozenRecordError, field, fields_of, record, replace


@record
class Point:
    """A frozen record with a default, a factory and a field left out of equality."""

    x: int
    y: int = 0
    tags: list[str] = field(default_factory=list)
    note: str = field(default="", compare=False, repr=False)


@record
class Point3(Point):
    z: int = 0


@record(frozen=False)
class Tally:
    name: str
    seen: dict[str, int] = field(default_factory=dict)
    total: int = field(init=False)

    def __post_init__(self) -> None:
        self.total = len(self.seen)


@record(frozen=False, eq=False)
class Shared:
    name: str


def test_init_defaults_and_factories() -> None:
    a, b = Point(1), Point(1, 2, ["t"], note="n")
    assert (a.x, a.y, a.tags, a.note) == (1, 0, [], "")
    assert (b.x, b.y, b.tags, b.note) == (1, 2, ["t"], "n")
    assert Point(1).tags is not Point(1).tags  # a fresh list each time
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(1, w=2)  # type: ignore[call-arg]


def test_frozen_and_slotted() -> None:
    p = Point(1)
    with pytest.raises(FrozenRecordError):
        p.x = 2  # type: ignore[misc]
    with pytest.raises(FrozenRecordError):
        del p.x
    with pytest.raises(AttributeError):
        p.other = 1  # type: ignore[attr-defined]
    assert not hasattr(p, "__dict__") and isinstance(FrozenRecordError(), AttributeError)


def test_equality_hash_and_repr_follow_the_fields() -> None:
    assert Point(1, note="a") == Point(1, note="b")  # compare=False
    assert hash(Point(1, tags=None, note="a")) == hash(Point(1, tags=None, note="b"))  # type: ignore[arg-type]
    assert Point(1) != Point(2) and Point(1) != Point3(1)  # another class is never equal
    assert {Span(1, 2, 3, 4): "s"}[Span(1, 2, 3, 4)] == "s"
    assert repr(Point(1)) == "Point(x=1, y=0, tags=[])"  # repr=False leaves `note` out
    assert Point(1).__eq__(object()) is NotImplemented
    with pytest.raises(TypeError):
        hash(Point(1, tags=["unhashable"]))


def test_inherited_fields_come_first() -> None:
    p = Point3(1, 2, [], "n", 3)
    assert fields_of(p) == ("x", "y", "tags", "note", "z")
    assert (p.x, p.z) == (1, 3) and Point3.__match_args__ == ("x", "y", "tags", "note", "z")
    assert Point3.__slots__ == ("z",)  # type: ignore[attr-defined]  # the base's slots are not repeated


def test_replace_copies_and_changes() -> None:
    p = Point(1, 2, ["t"], "n")
    q = replace(p, y=5)
    assert (q.x, q.y, q.tags, q.note) == (1, 5, ["t"], "n") and p.y == 2
    d = Diagnostic("a.yaml", Span(1, 1, 1, 2), "rule", Severity.ERROR, "m", fingerprint="f")
    assert replace(d, more=3).fingerprint == "f" and replace(d, more=3).more == 3
    with pytest.raises(TypeError):
        replace(p, w=1)


def test_pickles_and_copies() -> None:
    p = Point3(1, 2, ["t"], "n", 3)
    for again in (pickle.loads(pickle.dumps(p)), copy.copy(p), copy.deepcopy(p)):
        assert again == p and again.note == "n" and type(again) is Point3
    t = Tally("x", {"a": 1})
    assert pickle.loads(pickle.dumps(t)) == t


def test_mutable_records_and_post_init() -> None:
    t = Tally("x", {"a": 1, "b": 2})
    assert t.total == 2
    t.total = 5
    assert t.total == 5 and t != Tally("x", {"a": 1, "b": 2})  # `total` is compared too
    with pytest.raises(TypeError):
        hash(t)  # mutable and compared by value: unhashable, as a dataclass
    s = Shared("x")
    assert s != Shared("x") and {s: 1}[s] == 1  # eq=False: identity


def test_methods_the_class_writes_are_kept() -> None:
    @record
    class Named:
        name: str

        def __repr__(self) -> str:
            return f"<{self.name}>"

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Named) and other.name.lower() == self.name.lower()

        def __hash__(self) -> int:
            return hash(self.name.lower())

    assert repr(Named("a")) == "<a>" and Named("a") == Named("A")
    assert hash(Named("a")) == hash(Named("A"))


def test_a_record_class_compiles_its_init_when_it_first_makes_a_record() -> None:
    """A check defines some fifty record classes and uses about half: each compiles its
    `__init__` on first use. A subclass made first leaves its base's to its base."""

    @record
    class Base:
        a: int
        b: str = "x"

    @record
    class Child(Base):
        c: int = 0

    stub = Base.__init__
    assert Child(1, c=2) == Child(1, "x", 2)
    assert Base.__init__ is stub  # the child's own was compiled, not its base's
    assert Base(1) == Base(1, "x") and Base.__init__ is not stub
    assert Base.__init__.__qualname__.endswith("Base.__init__")
    with pytest.raises(TypeError):
        Base()  # type: ignore[call-arg]
