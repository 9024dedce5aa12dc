"""YAML to JSON-shaped data straight from libyaml's event stream.

Why events and not `yaml.compose`: libyaml's composer recurses in C and crashes the process on
input nested ~100,000 deep, and building node objects costs about 4x the event stream. Here an
explicit stack bounds nesting, aliases are counted so an alias bomb stops early, duplicate keys
are seen with their positions, and timestamps stay strings (JSON Schema has no date type).
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml import events as ev
from yaml.constructor import SafeConstructor
from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

from evallint.model import JSON, Pointer, Span, Tagged
from evallint.parse.limits import MAX_ALIAS_BYTES, MAX_ALIAS_NODES, MAX_DEPTH, MAX_DIGITS
from evallint.parse.positions import FLOW_INDENT, TAG_RULE, LineIndex, Loaded, Problem, SourceMap
from evallint.records import field, record

Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# What reads the events alone: libyaml's parser without the constructor and resolver a loader
# sets up (half a loader's cost, a file each); the pure-Python loader where libyaml is absent.
Events: Any = getattr(getattr(yaml, "_yaml", None), "CParser", None) or Loader
_RESOLVERS = Resolver.yaml_implicit_resolvers
_CONSTRUCT = SafeConstructor()
_Y = "tag:yaml.org,2002:"
_SCALAR_TAGS = {_Y + t for t in ("str", "int", "float", "bool", "null", "timestamp", "binary")}
# Tags as constants: a name joined with `_Y` in the hot path is a new string every scalar.
_STR, _NULL, _BOOL, _INT = _Y + "str", _Y + "null", _Y + "bool", _Y + "int"
_AS_TEXT = frozenset({_STR, _Y + "timestamp", _Y + "binary", _Y + "value"})
_COLLECTION_TAGS = {True: (None, "!", _Y + "map"), False: (None, "!", _Y + "seq")}
_NO_KEY = object()
# Custom tags a runner's loader constructs: read as `Tagged` text, each with a problem of rule
# TAG_RULE + tag, which the reader makes a parse-error for every kind whose runner does not know it.
KNOWN_TAGS = frozenset({Tagged.tag})


class _Stop(Exception):
    def __init__(self, event: Any, message: str) -> None:
        super().__init__(message)
        self.span = event_span(event)
        self.message = message


@record(frozen=False)
class _Frame:
    value: dict[str, JSON] | list[JSON]
    pointer: Pointer
    anchor: str | None
    start_nodes: int
    start_chars: int
    key: Any = _NO_KEY
    key_lines: dict[str, int] = field(default_factory=dict)
    merges: list[JSON] = field(default_factory=list)
    # The column of the innermost block collection this frame is (or lies in); -1 at the root.
    # Lines of a flow node inside it must be indented further (YAML 1.2 s-flow-line-prefix).
    block: int = -1
    flow: bool = False
    flow_line: int = -1  # a flow collection in a block one: its first line, to check the rest


def event_span(event: Any) -> Span:
    """Where libyaml says an event is written (its marks are 0-based); the seeker's too."""
    s, e = event.start_mark, event.end_mark
    return Span(s.line + 1, s.column + 1, e.line + 1, e.column + 1)


def resolve_plain(value: str) -> str:
    """The YAML 1.1 tag PyYAML gives an unquoted scalar."""
    candidates = _RESOLVERS.get(value[:1] if value else "", [])
    for tag, regexp in candidates:
        if regexp.match(value):
            return str(tag)
    return _STR


def _typed(tag: str, value: str, event: Any) -> JSON:
    if tag in _AS_TEXT:
        return value
    if tag == _NULL:
        return None
    if tag == _BOOL:
        if value.lower() not in SafeConstructor.bool_values:
            raise _Stop(event, f"{value!r} is not a YAML boolean")
        return SafeConstructor.bool_values[value.lower()]
    try:
        if tag == _INT:
            if len(value) > MAX_DIGITS:
                raise _Stop(event, f"an integer of {len(value):,} digits; at most {MAX_DIGITS:,}")
            return _CONSTRUCT.construct_yaml_int(ScalarNode(tag, value))
        return _CONSTRUCT.construct_yaml_float(ScalarNode(tag, value))
    except ValueError:
        raise _Stop(event, f"{value!r} is not a valid {tag.rsplit(':', 1)[-1]}") from None


class _Builder:
    def __init__(self, text: str, record: bool) -> None:
        self.loader = Events(text)
        self.stack: list[_Frame] = []
        self.anchors: dict[str, tuple[JSON, int, int]] = {}  # value, nodes, characters
        self.nodes = 0
        self.chars = 0  # characters of the scalars read so far, aliases expanded
        self.budget = MAX_ALIAS_NODES + len(text)
        # Aliases are bounded by what they add, in nodes and in text: one alias of a 1 MB
        # string repeated a thousand times is few nodes but a gigabyte for every regex.
        self.char_budget = MAX_ALIAS_BYTES + len(text)
        self.root: JSON = None
        self.problems: list[Problem] = []
        self.smap = SourceMap(LineIndex(text, yaml=True)) if record else None
        self.text = text
        self._lines: LineIndex | None = None

    def run(self) -> None:
        get = self.loader.get_event
        get()  # stream start
        first = get()
        if isinstance(first, ev.StreamEndEvent):
            return
        while True:
            event = get()
            kind = type(event)
            if kind is ev.ScalarEvent:
                self.scalar(event)
            elif kind is ev.MappingStartEvent or kind is ev.SequenceStartEvent:
                self.start(event, kind is ev.MappingStartEvent)
            elif kind is ev.MappingEndEvent or kind is ev.SequenceEndEvent:
                self.end(event)
            elif kind is ev.AliasEvent:
                self.alias(event)
            elif kind is ev.DocumentEndEvent:
                break
        after = get()
        if isinstance(after, ev.DocumentStartEvent):
            # yaml.safe_load and the runners' loaders reject the file: nothing in it is read.
            raise _Stop(after, _SECOND_DOCUMENT)

    def scalar(self, event: Any) -> None:
        top = self.stack[-1] if self.stack else None
        if top is not None and top.key is _NO_KEY and isinstance(top.value, dict):
            self.key(top, event)
            return
        tag = event.tag
        if tag is None or tag == "!":
            if event.implicit[0]:
                tag = resolve_plain(event.value)
                if self.smap is not None and tag != _STR:
                    self.smap.plain[self.child_pointer(top)] = event.value
            else:
                tag = _STR
        elif tag in KNOWN_TAGS:
            self.tagged(event)
            return
        elif tag not in _SCALAR_TAGS:
            raise _Stop(event, f"unsupported YAML tag {tag!r}")
        self.nodes += 1
        self.chars += len(event.value)
        quoted = event.style == '"' or event.style == "'"
        # A multi-line quoted value in a block collection (a flow one checks its own lines).
        if quoted and event.start_mark.line != event.end_mark.line and top and not top.flow:
            self.indented(event.start_mark.line + 1, event.end_mark.line, top.block)
        value = _typed(tag, event.value, event)
        if event.anchor is not None:
            self.anchors[event.anchor] = (value, 1, len(event.value))
        self.attach(value, event)

    def tagged(self, event: Any) -> None:
        self.nodes += 1
        self.chars += len(event.value)
        message = f"unsupported YAML tag {event.tag!r}"
        span = event_span(event)  # once: a harness tree writes thousands of `!function` tags
        self.problems.append(Problem(span, message, TAG_RULE + event.tag))
        value = Tagged(event.value)
        value.at = (self.child_pointer(self.stack[-1] if self.stack else None), span)
        if event.anchor is not None:
            self.anchors[event.anchor] = (value, 1, len(event.value))
        self.attach(value, event)

    def key(self, top: _Frame, event: Any) -> None:
        name = event.value
        self.chars += len(name)
        if event.implicit[0] and name == "<<":
            top.key = "<<"
            return
        first = top.key_lines.get(name)
        if first is not None:
            self.problems.append(
                Problem(
                    event_span(event),
                    f"duplicate key {name!r} (first on line {first})",
                    "duplicate-key",
                )
            )
        else:
            top.key_lines[name] = event.start_mark.line + 1
        top.key = name
        if self.smap is not None:
            self.smap.keys[(*top.pointer, name)] = event_span(event)

    def start(self, event: Any, is_map: bool) -> None:
        top = self.stack[-1] if self.stack else None
        if top is not None and top.key is _NO_KEY and isinstance(top.value, dict):
            raise _Stop(event, "a mapping key must be a plain value, not a collection")
        if len(self.stack) >= MAX_DEPTH:
            raise _Stop(event, f"nesting deeper than {MAX_DEPTH} levels")
        if event.tag not in _COLLECTION_TAGS[is_map]:
            raise _Stop(event, f"unsupported YAML tag {event.tag!r}")
        self.nodes += 1
        value: dict[str, JSON] | list[JSON] = {} if is_map else []
        pointer = self.child_pointer(top)
        self.attach(value, event)
        frame = _Frame(value, pointer, event.anchor, self.nodes, self.chars)
        if event.flow_style:
            frame.flow, frame.block = True, top.block if top is not None else -1
            if top is not None and not top.flow:
                frame.flow_line = event.start_mark.line
        else:
            frame.block = event.start_mark.column
        self.stack.append(frame)

    def end(self, event: Any) -> None:
        frame = self.stack.pop()
        if frame.flow_line >= 0:
            self.indented(frame.flow_line + 1, event.end_mark.line, frame.block, closing=True)
        if isinstance(frame.value, dict) and frame.merges:
            for merged in frame.merges:
                for k, v in merged.items():
                    frame.value.setdefault(k, v)
        if frame.anchor is not None:
            self.anchors[frame.anchor] = (
                frame.value,
                self.nodes - frame.start_nodes + 1,
                self.chars - frame.start_chars,
            )
        if self.smap is not None:
            start = self.smap.values[frame.pointer]
            e = event.end_mark
            self.smap.values[frame.pointer] = Span(
                start.line, start.column, e.line + 1, e.column + 1
            )

    def indented(self, first: int, last: int, block: int, *, closing: bool = False) -> None:
        """Lines `first`..`last` (0-based) of a flow node in a block collection at column
        `block` must be indented past it. libyaml does not check this, but the YAML spec and
        stricter parsers do (AgentV's: "Missing closing quote"), so the runner cannot load the
        file. Blank and comment lines, and a closing bracket, may sit anywhere."""
        if block < 0 or first > last:
            return  # (a flow node on one line: no line of it to check, no index made)
        if self._lines is None:
            self._lines = LineIndex(self.text, yaml=True)
        starts, text = self._lines.starts, self.text
        for line in range(first, min(last, len(starts) - 1) + 1):
            start = starts[line]
            end = starts[line + 1] if line + 1 < len(starts) else len(text)
            content = text[start:end].rstrip("\r\n")
            body = content.lstrip(" \t")
            indent = len(content) - len(body)
            if not body or body[0] == "#" or (closing and body[0] in "]}"):
                continue
            if indent <= block:
                self.problems.append(
                    Problem(
                        Span(line + 1, indent + 1, line + 1, indent + 2),
                        f"this line continues a value begun above but is indented {indent} "
                        f"space{'' if indent == 1 else 's'}; it needs more than {block}: "
                        "libyaml reads it, but the YAML spec and stricter parsers (AgentV's) "
                        "reject the file",
                        FLOW_INDENT,
                    )
                )
                return  # one report a value: the rest of it is the same mistake

    def alias(self, event: Any) -> None:
        found = self.anchors.get(event.anchor)
        if found is None:
            raise _Stop(event, f"alias *{event.anchor} names no anchor defined before it")
        value, size, chars = found
        self.nodes += size
        self.chars += chars
        if self.nodes > self.budget:
            raise _Stop(
                event, f"aliases expand this document past {self.budget:,} nodes (an alias bomb?)"
            )
        if self.chars > self.char_budget:
            raise _Stop(
                event,
                f"aliases expand this document past {self.char_budget:,} characters "
                "(an alias bomb?)",
            )
        top = self.stack[-1] if self.stack else None
        if top is not None and top.key is _NO_KEY and isinstance(top.value, dict):
            raise _Stop(event, "an alias cannot be used as a mapping key")
        self.attach(value, event)

    def child_pointer(self, top: _Frame | None) -> Pointer:
        if top is None:
            return ()
        if isinstance(top.value, list):
            return (*top.pointer, len(top.value))
        return (*top.pointer, top.key)

    def attach(self, value: JSON, event: Any) -> None:
        if self.smap is not None:
            pointer = self.child_pointer(self.stack[-1] if self.stack else None)
            self.smap.values[pointer] = event_span(event)
        if not self.stack:
            self.root = value
            return
        top = self.stack[-1]
        if isinstance(top.value, list):
            top.value.append(value)
        elif top.key == "<<":
            self.merge(top, value, event)
        else:
            top.value[top.key] = value
            top.key = _NO_KEY

    def merge(self, top: _Frame, value: JSON, event: Any) -> None:
        sources = value if isinstance(value, list) else [value]
        if not all(isinstance(s, dict) for s in sources):
            raise _Stop(event, "'<<' merges only mappings")
        top.merges.extend(sources)
        top.key = _NO_KEY


_SECOND_DOCUMENT = (
    "a second YAML document starts here; an eval file holds one, and loaders reject the file"
)


def load_yaml(text: str, *, record: bool = False) -> Loaded:
    builder = _Builder(text, record)
    try:
        builder.run()
    except _Stop as stop:
        return Loaded(
            None, False, (*builder.problems, Problem(stop.span, stop.message)), builder.smap
        )
    except yaml.MarkedYAMLError as exc:
        if _NESTING in str(exc.problem):
            return _too_deep(text, exc, record)
        return Loaded(None, False, (*builder.problems, _syntax_problem(exc)), builder.smap)
    except yaml.YAMLError as exc:  # reader errors carry a position but no mark
        return Loaded(None, False, (*builder.problems, _reader_problem(exc, text)), builder.smap)
    return Loaded(builder.root, True, tuple(builder.problems), builder.smap)


# libyaml's own bound (1,000 levels, from PyYAML 6.0.4): its scanner reads ahead of the
# events, so it can stop a text before the builder has seen MAX_DEPTH levels of it.
_NESTING = "exceeded maximum nesting depth"


def _too_deep(text: str, exc: yaml.MarkedYAMLError, record: bool) -> Loaded:
    """The text nests past libyaml's bound, so past MAX_DEPTH too: the finding is the one any
    PyYAML gives, where the text first nests past MAX_DEPTH. The text up to libyaml's stop
    holds that place: built again, the builder stops there. libyaml's scanner reads ahead of
    the builder, so the rebuild may stop at libyaml's bound again, earlier: the text is then
    cut there, and each pass is shorter than the one before."""
    mark = exc.problem_mark
    at = _offset(text, mark.line, mark.column) if mark is not None else len(text)
    while True:
        builder = _Builder(text[:at], record)
        try:
            builder.run()
        except _Stop as stop:
            if stop.message.startswith("nesting deeper"):  # with what was found on the way
                found = (*builder.problems, Problem(stop.span, stop.message))
                return Loaded(None, False, found, builder.smap)
        except yaml.MarkedYAMLError as again:
            cut = _cut_at(text, again)
            if cut is not None and cut < at:
                at = cut
                continue
        except yaml.YAMLError:
            pass
        break
    # Never past the text's last character, whatever mark libyaml gave.
    line, col = LineIndex(text, yaml=True).position(max(min(at, len(text) - 1), 0))
    problem = Problem(Span(line, col, line, col + 1), f"nesting deeper than {MAX_DEPTH} levels")
    return Loaded(None, False, (problem,), None)


def _cut_at(text: str, exc: yaml.MarkedYAMLError) -> int | None:
    """Where libyaml stopped for its own nesting bound, as an offset; None for other errors."""
    mark = exc.problem_mark
    if mark is None or _NESTING not in str(exc.problem):
        return None
    return _offset(text, mark.line, mark.column)


def _offset(text: str, line: int, column: int) -> int:
    """The character offset of a 0-based line and column (the end, past the text's lines)."""
    start = 0
    for _ in range(line):
        start = text.find("\n", start) + 1
        if start == 0:
            return len(text)
    return min(start + column, len(text))


def _reader_problem(exc: yaml.YAMLError, text: str) -> Problem:
    """A character YAML does not allow (NUL, other control characters), at its place."""
    if not isinstance(exc, yaml.reader.ReaderError):
        return Problem(Span(1, 1, 1, 2), f"invalid YAML: {exc}")
    # The position counts UTF-8 bytes, as libyaml reads the text encoded.
    offset = len(text.encode("utf-8")[: exc.position].decode("utf-8", "ignore"))
    line, col = LineIndex(text, yaml=True).position(offset)
    char = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or " ")
    return Problem(
        Span(line, col, line, col + 1),
        f"invalid YAML: character U+{char:04X} is not allowed ({exc.reason})",
    )


def _syntax_problem(exc: yaml.MarkedYAMLError) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    message = f"{exc.context}: {exc.problem}" if exc.context else str(exc.problem)
    return Problem(Span(line, col, line, col + 1), f"invalid YAML: {message}")
