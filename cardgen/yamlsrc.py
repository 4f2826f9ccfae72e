"""Load YAML while remembering where every key and value came from.

PyYAML's plain loaders forget positions, silently keep the last of two duplicate keys and
construct arbitrary anchors/aliases. cardgen composes the node tree with the *safe* resolver and
builds its own mapping/sequence types that carry the :class:`~cardgen.errors.Location` of each
key and value, plus the raw scalar text (so a number is compared with the digits the author
typed, not a float's repr).
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path
from typing import Any, Callable

import yaml

from .errors import InputError, Location, display_path

#: Hard cap on nodes per document: protects against alias bombs ("billion laughs").
MAX_NODES = 200_000
#: Documents bigger than this are refused before they are read or parsed: a game's largest
#: data file is tens of KB, and parsing takes about a second per MiB.
MAX_BYTES = 2 * 1024 * 1024
#: Deepest nesting of mappings and lists accepted.
MAX_DEPTH = 64
#: What to do with a file over either bound: a card list that long is data a program wrote, and
#: a component may read it from a spreadsheet instead, up to its card limit (50,000 cards).
SPLIT = ("split the data into several files; a long card list can be read from a CSV or XLSX file "
         "(cards: {from: cards.csv})")

_CORE = "tag:yaml.org,2002:"
#: Tags a scalar may carry (implicitly or written out): plain data only, never Python objects.
SCALAR_TAGS = {_CORE + t for t in ("str", "int", "float", "bool", "null", "timestamp")}
#: Implicit YAML 1.1 tags PyYAML resolves but cannot construct safely; read as text.
TEXT_TAGS = {_CORE + "value", _CORE + "merge"}
_STR = _CORE + "str"
#: Longest value (text, or a number's digits) a data file may hold. The longest shipped text
#: (an assumption of tutti-quantum) has under 500 characters, and a spreadsheet cell may hold
#: as many (:data:`cardgen.spreadsheets.MAX_CELL_CHARS`). Refused where it is written: the
#: templates that would show the text are cardgen's, and their limits would blame them.
MAX_TEXT_CHARS = 10_000
#: Digits of the longest whole number converted (Python refuses more than 4,300 by default).
#: A longer one is kept as its text, for the field's check to call it too large for its range
#: (:func:`cardgen.schema.integer`), as a spreadsheet cell keeps it.
LONGEST_NUMBER = 4_000
#: Characters no text value may hold: every value ends up in SVG/XML, PDF metadata or a
#: terminal. The C0 and C1 controls except tab and line feed (a carriage return or form feed
#: in card text draws nothing and breaks SVG, ESC colours a terminal), the UTF-16 surrogate
#: halves (no character at all: they cannot be written as UTF-8) and U+FFFE/U+FFFF, which
#: XML 1.0 forbids. The file reader refuses them typed raw; YAML escapes ("\x01", "\uD800")
#: bring them in, and so can a spreadsheet cell.
BAD_CHARS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def shown(value: object, limit: int = 60) -> str:
    """A user-written value as it may appear inside a one-line message: control characters
    escaped, long text shortened."""
    text = str(value)
    out = "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text[: limit + 1])
    return out[:limit] + "…" if len(out) > limit or len(text) > limit else out


def bad_char_problem(char: str) -> tuple[str, str]:
    """(what is wrong, how to fix it) for a character :data:`BAD_CHARS` matched."""
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        return (f"U+{code:04X} is half of a UTF-16 surrogate pair, not a character (it cannot be written as UTF-8)",
                "type the character itself, or escape it whole with 8 digits, e.g. \\U0001F600 for 😀")
    if code in (0xFFFE, 0xFFFF):
        return f"U+{code:04X} is not a character (XML and SVG forbid it)", "remove it"
    return (f"control character U+{code:04X} is not allowed in text",
            "remove it (a line break is a real new line or \\n; a tab, \\t, is the only other control allowed)")


def check_text(value: str, loc: Location, what: str = "text") -> None:
    """Refuse text no card can hold: :data:`BAD_CHARS`, or more than :data:`MAX_TEXT_CHARS`
    characters. Every reader of data (YAML, spreadsheets) calls it, so such text is reported
    where it is written instead of failing later in a template, a PDF or the terminal."""
    if len(value) > MAX_TEXT_CHARS:
        raise InputError(f"the {what} is {len(value):,} characters long, more than the {MAX_TEXT_CHARS:,} allowed",
                         loc, "shorten it; a card's text is a few hundred characters at most")
    bad = BAD_CHARS.search(value)
    if bad:
        problem, fix = bad_char_problem(bad.group())
        raise InputError(f"{problem} (character {bad.start() + 1} of the {what})", loc, fix)


def tag_name(tag: str) -> str:
    return "!!" + tag[len(_CORE):] if tag.startswith(_CORE) else tag


class YMap(dict):
    """A mapping that knows where it, its keys and its values are in the source file."""

    loc: Location
    key_locs: dict[str, Location]
    value_locs: dict[str, Location]
    raw: dict[str, str]

    def where(self, key: str | None = None) -> Location:
        """Location of a key's value (or of the mapping itself)."""
        if key is not None and key in self.value_locs:
            return self.value_locs[key]
        return self.loc

    def key_where(self, key: str) -> Location:
        return self.key_locs.get(key, self.loc)


class YSeq(list):
    """A list that knows where it and each item are in the source file."""

    loc: Location
    item_locs: list[Location]
    raw: list[str | None]

    def where(self, index: int | None = None) -> Location:
        if index is not None and 0 <= index < len(self.item_locs):
            return self.item_locs[index]
        return self.loc


def _loc(file: str, node: yaml.Node) -> Location:
    mark = node.start_mark
    return Location(file, mark.line + 1, mark.column + 1)


class _Builder:
    """Turns a composed node tree into YMap/YSeq/scalars, checking limits as it goes."""

    def __init__(self, file: str, text: str = "") -> None:
        self.file = file
        self.text = text   # the source, to point at the escape that wrote a forbidden character
        self._line_starts: list[int] | None = None
        self.count = 0
        self.seen: set[int] = set()
        self.aliased = False   # a node was reached twice: the document uses aliases
        self.constructor = yaml.SafeLoader("")  # only used for its scalar constructors

    def build(self, node: yaml.Node, depth: int = 0) -> Any:
        self.count += 1
        if id(node) in self.seen:
            self.aliased = True
        self.seen.add(id(node))
        if self.count > MAX_NODES:
            if self.aliased:
                raise InputError(f"document expands to more than {MAX_NODES:,} values through its aliases "
                                 "(*name repeats what &name marks)", _loc(self.file, node),
                                 "write the values out or remove the YAML aliases")
            raise InputError(f"document has more than {MAX_NODES:,} values", _loc(self.file, node),
                             SPLIT)
        if depth > MAX_DEPTH:
            raise InputError(f"nesting deeper than {MAX_DEPTH} levels (or an alias that contains itself)",
                             _loc(self.file, node), "flatten the structure")
        if isinstance(node, yaml.MappingNode):
            self._check_tag(node, _CORE + "map")
            return self._mapping(node, depth)
        if isinstance(node, yaml.SequenceNode):
            self._check_tag(node, _CORE + "seq")
            seq = YSeq()
            seq.loc = _loc(self.file, node)
            seq.item_locs, seq.raw = [], []
            for item in node.value:
                seq.append(self.build(item, depth + 1))
                seq.item_locs.append(_loc(self.file, item))
                seq.raw.append(item.value if isinstance(item, yaml.ScalarNode) else None)
            return seq
        return self._scalar(node)

    def _check_tag(self, node: yaml.Node, *allowed: str) -> None:
        if node.tag not in allowed:
            raise InputError(f"YAML tag '{shown(tag_name(node.tag))}' is not allowed", _loc(self.file, node),
                             "remove the tag: cardgen reads plain text, numbers, lists and mappings only")

    def _scalar(self, node: yaml.ScalarNode) -> Any:
        if len(node.value) > MAX_TEXT_CHARS or BAD_CHARS.search(node.value):
            self._refuse_text(node)
        if node.tag in TEXT_TAGS or node.tag == _STR:   # text is the node's own (PyYAML's constructor returns it)
            return node.value
        self._check_tag(node, *SCALAR_TAGS)
        if node.tag == _CORE + "int" and len(node.value) > LONGEST_NUMBER and node.value.lstrip("+-").isdigit():
            return node.value
        try:
            return self.constructor.construct_object(node, deep=True)
        except Exception as exc:  # e.g. an impossible date (2001-13-45) or '!!int abc'
            problem = (getattr(exc, "problem", None) or str(exc) if isinstance(exc, (ValueError, yaml.YAMLError))
                       else "it is not written in the expected form")
            kind = {"timestamp": "date", "int": "whole number", "float": "number"}.get(tag_name(node.tag)[2:], "value")
            raise InputError(f"cannot read {kind} '{shown(node.value)}': "
                             f"{shown(problem, 80)}", _loc(self.file, node),
                             "quote the value to keep it as text, or correct it") from None

    def _refuse_text(self, node: yaml.ScalarNode) -> None:
        """Raise :func:`check_text`'s error for a scalar, placed at the escape sequence that
        wrote the forbidden character when there is one (a file can hold such characters
        only as escapes in double quotes: the reader refuses them typed raw)."""
        loc = _loc(self.file, node)
        if len(node.value) <= MAX_TEXT_CHARS and node.style == '"':
            loc = self._escape_at(node) or loc
        check_text(node.value, loc, "value")

    def _escape_at(self, node: yaml.ScalarNode) -> Location | None:
        """Where, in a double-quoted scalar, the first forbidden character is written."""
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in _LINE_BREAK.finditer(self.text)]
        line, column = node.start_mark.line, node.start_mark.column
        if line >= len(self._line_starts):
            return None
        i = self._line_starts[line] + column
        if self.text[i:i + 1] != '"':
            return None
        i += 1
        while i < len(self.text) and self.text[i] != '"':
            start, i, char = i, *_unescape_one(self.text, i)
            if char and BAD_CHARS.match(char):
                row = bisect.bisect_right(self._line_starts, start) - 1
                return Location(self.file, row + 1, start - self._line_starts[row] + 1)
        return None

    def _mapping(self, node: yaml.MappingNode, depth: int) -> YMap:
        out = YMap()
        out.loc = _loc(self.file, node)
        out.key_locs, out.value_locs, out.raw = {}, {}, {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise InputError("YAML merge keys ('<<') are not supported", _loc(self.file, key_node),
                                 "write the keys out in full")
            if not isinstance(key_node, yaml.ScalarNode):
                raise InputError("mapping keys must be plain text", _loc(self.file, key_node),
                                 "use a simple word as the key")
            key = str(self._scalar(key_node))
            if key in out:
                first = out.key_locs[key]
                raise InputError(f"duplicate key '{shown(key)}' (first defined at line {first.line})",
                                 _loc(self.file, key_node), "remove or rename one of the two")
            out[key] = self.build(value_node, depth + 1)
            out.key_locs[key] = _loc(self.file, key_node)
            out.value_locs[key] = _loc(self.file, value_node)
            if isinstance(value_node, yaml.ScalarNode):
                out.raw[key] = value_node.value
        return out


#: Line breaks as both YAML parsers count lines (a CR LF pair is one).
_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
#: YAML's one-letter escapes in double quotes and what they stand for.
_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
            "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
            "L": "\u2028", "P": "\u2029"}


def _unescape_one(text: str, i: int) -> tuple[int, str]:
    """(where the next piece starts, the character it stands for) for the piece of a
    double-quoted scalar at ``text[i]``: a character, or an escape sequence ('' for a line
    break, escaped or not, and for anything unreadable, which the parser refused already)."""
    if text[i] != "\\":
        return i + 1, "" if _LINE_BREAK.match(text[i]) else text[i]
    code = text[i + 1:i + 2]
    width = {"x": 2, "u": 4, "U": 8}.get(code)
    if width:
        digits = text[i + 2:i + 2 + width]
        try:
            return i + 2 + width, chr(int(digits, 16))
        except (ValueError, OverflowError):
            return i + 2 + width, ""
    return i + 2, _ESCAPES.get(code, "")


def parse_yaml(text: str, file: str) -> Any:
    """Parse one YAML document from text; errors carry file:line:column."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise InputError(f"file is larger than {MAX_BYTES // (1024 * 1024)} MiB", Location(file),
                         SPLIT)
    node = _compose_fast(text)
    if node is _UNSURE:
        node = _compose(text, file)
    if node is None:
        raise InputError("file is empty", Location(file, 1, 1), "add the expected content")
    return _Builder(file, text).build(node)


_UNSURE = object()
#: Where libyaml and PyYAML's own parser were found to disagree (a differential fuzz test,
#: tests/test_fuzz.py, keeps this honest): tabs, which libyaml accepts as separators; '?' and
#: '!' (libyaml reads more of them as plain text); a byte-order mark after the start; a
#: surrogate in the text (which a program may pass: libyaml cannot take it as UTF-8 at all).
_PYTHON_ONLY = re.compile("[\t?!\ud800-\udfff]|(?<=.)\ufeff", re.S)
_C_LOADER = getattr(yaml, "CSafeLoader", None)   # None where PyYAML was built without libyaml


def _compose_fast(text: str) -> Any:
    """The node tree from libyaml (PyYAML's C parser), 7× faster than the pure-Python parser
    (10 against 76 ms for the shipped data), or ``_UNSURE``.

    The Python parser stays the reference: cardgen's error messages and positions are its.
    libyaml's tree is used only when it is known to be the same — no construct on which the
    two disagree, no empty plain value (libyaml places some in flow mappings one column
    off) — and libyaml's errors are not used at all: the Python parser runs again and
    reports. Nesting is measured first, from libyaml's events: composing a deeply nested
    document recurses in C and would crash the interpreter instead of raising an error."""
    if _C_LOADER is None or _PYTHON_ONLY.search(text):
        return _UNSURE
    try:
        if _too_deep(text, _C_LOADER) is not None:
            return _UNSURE
        node = yaml.compose(text, Loader=_C_LOADER)
    except yaml.YAMLError:
        return _UNSURE
    stack, seen = ([node] if node is not None else []), set()
    while stack:
        n = stack.pop()
        if id(n) in seen:   # an alias: its node was looked at already (aliases do not multiply work)
            continue
        seen.add(id(n))
        if isinstance(n, yaml.ScalarNode):
            if n.value == "" and not n.style:
                return _UNSURE
        elif isinstance(n, yaml.MappingNode):
            for key, value in n.value:
                stack += (key, value)
        else:
            stack += n.value
    return node


def _compose(text: str, file: str) -> Any:
    """The node tree from PyYAML's pure-Python parser, its errors as InputErrors."""
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        loc = Location(file, mark.line + 1, mark.column + 1) if mark else Location(file)
        problem = " ".join((exc.problem or exc.context or "invalid YAML").split())
        if exc.context and exc.context_mark and exc.problem_mark and exc.context_mark.line != exc.problem_mark.line:
            problem += (f" ({' '.join(exc.context.split())} started at line {exc.context_mark.line + 1}, "
                        f"column {exc.context_mark.column + 1})")
        fix = "check indentation, colons and quotes around this position"
        if "'\\t'" in problem:
            fix = "indent with spaces: YAML does not allow tab characters for indentation"
        raise InputError(f"YAML syntax error: {problem}", loc, fix) from None
    except yaml.reader.ReaderError as exc:  # a control character (NUL, ESC...) in the text
        before = text[: exc.position]
        loc = Location(file, before.count("\n") + 1, exc.position - (before.rfind("\n") + 1) + 1)
        char = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "\0")
        raise InputError(f"character U+{char:04X} is not allowed in a YAML file", loc,
                         "delete it (control characters cannot appear in YAML)") from None
    except yaml.YAMLError as exc:
        raise InputError(f"YAML error: {shown(' '.join(str(exc).split()), 200)}", Location(file),
                         "fix the YAML syntax") from None
    except RecursionError:
        raise InputError(f"nesting deeper than {MAX_DEPTH} levels", _deep_spot(text, file),
                         "flatten the structure") from None


def _too_deep(text: str, loader: Any) -> yaml.Event | None:
    """The event where nesting first goes past :data:`MAX_DEPTH`, or None. Event parsers
    are not recursive, so this is safe on any input; syntax errors propagate."""
    depth = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                return event
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
    return None


def _deep_spot(text: str, file: str) -> Location:
    """Where nesting first gets too deep."""
    try:
        event = _too_deep(text, yaml.SafeLoader)
    except yaml.YAMLError:
        event = None
    if event is None:
        return Location(file, 1, 1)
    return Location(file, event.start_mark.line + 1, event.start_mark.column + 1)


_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32LE", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32BE", "UTF-32"),
         (b"\xff\xfe", "UTF-16LE", "UTF-16"), (b"\xfe\xff", "UTF-16BE", "UTF-16"))


def _wide_encoding(data: bytes) -> tuple[str, str] | None:
    """(how to name it, iconv's name for it) if ``data`` is UTF-16 or UTF-32 text: by its
    byte-order mark, or without one by where its zero bytes fall — text in those encodings
    has a zero byte beside almost every ASCII character, which UTF-8 text never has."""
    for bom, name, codec in _BOMS:
        if data.startswith(bom):
            return f"{name} (with a byte-order mark)", codec
    sample = data[:4096]
    if len(sample) < 4 or sample.count(0) < len(sample) // 4:
        return None
    for name, width, zero_at in (("UTF-32LE", 4, (1, 2, 3)), ("UTF-32BE", 4, (0, 1, 2)),
                                 ("UTF-16LE", 2, (1,)), ("UTF-16BE", 2, (0,))):
        units = [sample[i:i + width] for i in range(0, len(sample) - width + 1, width)]
        if sum(all(u[k] == 0 for k in zero_at) for u in units) >= 0.6 * len(units):
            return f"{name} without a byte-order mark", name
    return None


def load_yaml(path: Path, parse: Callable[[str, str], Any] = parse_yaml) -> Any:
    """Read and parse a YAML file, turning OS and encoding problems into InputErrors
    (``parse``: the text and the name it is shown by to what it holds; the loaders pass
    :func:`cardgen.yamlcache.parsed`'s, which takes what the machine parsed before)."""
    shown = display_path(path)
    if path.exists() and not path.is_file() and not path.is_dir():
        # a named pipe or device would block or never end
        raise InputError("not a regular file", Location(shown), "point to a plain .yaml file")
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:   # refused by its size, before anything is read
            raise InputError(f"file is {size / 2**20:.1f} MiB; data files may be at most {MAX_BYTES // 2**20} MiB",
                             Location(shown), SPLIT)
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", Location(shown), "create the file or fix the path") from None
    except IsADirectoryError:
        raise InputError("expected a file but found a folder", Location(shown), "point to a .yaml file") from None
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", Location(shown), "check permissions") from None
    if len(data) > MAX_BYTES:
        raise InputError(f"file is {len(data) / 2**20:.1f} MiB; data files may be at most {MAX_BYTES // 2**20} MiB",
                         Location(shown), SPLIT)
    wide = _wide_encoding(data)
    if wide:
        label, codec = wide
        raise InputError(f"file is {label}, not UTF-8", Location(shown),
                         f"save it as UTF-8 (your editor's 'Save with encoding', or: iconv -f {codec} "
                         f"-t UTF-8 {path.name} > {path.stem}-utf8{path.suffix})")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError("file is not valid UTF-8", Location.of_byte(shown, data, exc.start),
                         "save the file with UTF-8 encoding") from None
    return parse(text, shown)
