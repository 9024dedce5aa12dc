"""Where one value of a YAML text is written, found by a pass over libyaml's events that builds
nothing: a finding in a file costs the events up to its value, not a second full parse that
records every value's span (one to two times the first parse).

For a text the builder read whole with no duplicate key (`yamlload`): then each pointer is
written once, so the first node found at it is the one the builder's source map holds, and the
pass stops there. The spans are the builder's: a scalar's or an alias's event, a collection's
from its start to its end, and the key's own event.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from typing import Any

from yaml import events as ev

from evallint.model import Pointer, Span
from evallint.parse.positions import LineIndex, SourceMap
from evallint.parse.yamlload import Events, event_span

_START = (ev.MappingStartEvent, ev.SequenceStartEvent)
_END = (ev.MappingEndEvent, ev.SequenceEndEvent)


class Seeker:
    """Value and key spans by pointer, each sought on first use and kept; a source map over
    them places a finding as the full map would (`SourceMap.locate`)."""

    def __init__(self, text: str, lines: LineIndex) -> None:
        self.text = text
        self.found: dict[Pointer, tuple[Span, Span | None] | None] = {}
        self.passes = 0  # a file with many findings is better served by the full map
        self.map = SourceMap(lines, _Spans(self, 0), _Spans(self, 1))

    def locate(self, pointer: Pointer, *, on_key: bool = False) -> Span:
        return self.map.locate(pointer, on_key=on_key)

    def seek(self, pointer: Pointer) -> tuple[Span, Span | None] | None:
        """Raises `Unsupported` for a text the builder refuses."""
        if pointer not in self.found:
            self.passes += 1
            self.found[pointer] = _seek(self.text, pointer)
        return self.found[pointer]


class _Spans(MutableMapping[Pointer, Span]):
    """A seeker's value spans (part 0) or key spans (part 1), as a source map's mappings;
    iterates what was found."""

    def __init__(self, seeker: Seeker, part: int) -> None:
        self.seeker, self.part = seeker, part

    def __getitem__(self, pointer: Pointer) -> Span:
        found = self.seeker.seek(pointer)
        span = found[self.part] if found is not None else None
        if span is None:
            raise KeyError(pointer)
        return span

    def __setitem__(self, pointer: Pointer, span: Span) -> None:
        raise TypeError("the spans of a seeker are read, never written")

    def __delitem__(self, pointer: Pointer) -> None:
        raise TypeError("the spans of a seeker are read, never written")

    def __iter__(self) -> Iterator[Pointer]:
        found = list(self.seeker.found.items())
        return (p for p, f in found if f is not None and f[self.part] is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _Frame:
    __slots__ = ("index", "is_map", "key", "key_event")

    def __init__(self, is_map: bool) -> None:
        self.is_map = is_map
        self.key: object = _NO_KEY  # a mapping's key awaiting its value
        self.index = 0  # a sequence's next item
        self.key_event: Any = None


_NO_KEY = object()


class Unsupported(Exception):
    """A text the seeker does not read as the builder does (a collection as a key): the caller
    asks the full source map."""


def _seek(text: str, pointer: Pointer) -> tuple[Span, Span | None] | None:
    """(value span, key span) of the node at `pointer`, or None when none is written there."""
    get = Events(text).get_event
    n = len(pointer)
    stack: list[_Frame] = []
    on_way = 0  # the open collections that are the nodes at pointer[:0], pointer[:1], ...
    target: tuple[Any, Any] | None = None  # the target collection's start event, its key's
    while True:
        event = get()
        kind = type(event)
        if kind is ev.StreamEndEvent or kind is ev.DocumentEndEvent:
            return None
        if kind is ev.StreamStartEvent or kind is ev.DocumentStartEvent:
            continue
        if kind in _END:
            stack.pop()
            if target is not None and len(stack) == n:
                start, end = target[0].start_mark, event.end_mark
                whole = Span(start.line + 1, start.column + 1, end.line + 1, end.column + 1)
                return whole, _key(target[1])
            if len(stack) < on_way:
                return None  # a collection on the way ended without the pointer
            _advance(stack)
            continue
        top = stack[-1] if stack else None
        if top is not None and top.is_map and top.key is _NO_KEY:
            if kind is not ev.ScalarEvent:
                raise Unsupported  # the builder refuses the text; never asked of one
            top.key = event.value
            # The builder keeps no key span for a merge key (`<<`), only its value's.
            merge = event.implicit[0] and event.value == "<<"
            top.key_event = None if merge else event
            continue
        here = len(stack) == on_way and target is None and _at(top, pointer, on_way)
        key = top.key_event if here and top is not None and top.is_map else None
        if kind in _START:
            stack.append(_Frame(kind is ev.MappingStartEvent))
            if here and on_way == n:
                target = (event, key)
            elif here:
                on_way = len(stack)
            continue
        if here and on_way == n:  # a scalar or an alias
            return event_span(event), _key(key)
        if here:
            return None  # the pointer goes on through a scalar or an alias
        _advance(stack)


def _at(top: _Frame | None, pointer: Pointer, depth: int) -> bool:
    """Whether the node about to come is the one `pointer` names at this depth."""
    if top is None:
        return depth == 0
    step = pointer[depth - 1]
    if top.is_map:
        return isinstance(step, str) and top.key == step
    return isinstance(step, int) and not isinstance(step, bool) and top.index == step


def _advance(stack: list[_Frame]) -> None:
    """A node of the innermost collection is complete."""
    if stack:
        top = stack[-1]
        if top.is_map:
            top.key, top.key_event = _NO_KEY, None
        else:
            top.index += 1


def _key(event: Any) -> Span | None:
    return None if event is None else event_span(event)
