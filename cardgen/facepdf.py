"""A face's PDF, as cairo writes it, turned into the objects a document written as it goes
stores (:class:`cardgen.relocatable.Relocatable`) without opening it with qpdf.

Why: a large deck relocates every face it draws, and doing it through pikepdf — qpdf parsing
the file, converting the page to a form, copying that form into a scratch document and
writing each object back as text — cost 0.8 ms a face, as much as measuring its texts. A
face's PDF is small and regular: one classic cross-reference table, one page, its drawing in
one content stream, resources made of dictionaries, arrays, names, numbers and references
(plus the streams of groups and patterns). So it is read here with a few regular expressions
and its objects written exactly as qpdf writes them (dictionary keys sorted, one space
between tokens, numbers as written), numbered in the order qpdf's copy numbers them (depth
first, keys sorted), every stream compressed as :func:`cardgen.pdfdoc.relocatable` does.

Anything else — a string, an unusual name, another filter, an object stream, a page tree
of more than one page, glyph marks that do not match — makes :func:`relocatable` return
None, and the face goes through pikepdf as before, which also says what is wrong with a
damaged face. ``tests/test_facepdf.py`` keeps the two ways equal, byte for byte, on every
shipped face, every piece of SVG the direct drawer knows, and faces cairosvg draws.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass

from . import glyphforms
from .glyphforms import GlyphForm
from .relocatable import Object, Relocatable


class _Unexpected(Exception):
    """Something this reader does not read: the face goes through pikepdf instead."""


@dataclass(frozen=True, slots=True)
class _Ref:
    number: int


class _Name(str):
    """A PDF name, with its slash."""


class _Real(str):
    """A real number, as written (qpdf writes it back unchanged)."""


@dataclass(slots=True)
class _Stream:
    head: dict[str, object]
    data: bytes


#: How deep arrays and dictionaries may nest in a face (cairo nests three or four).
MAX_DEPTH = 32

_SPACE = re.compile(rb"(?:\s|%[^\r\n]*)*")
#: A token after any space and comments (a string: only its opening parenthesis).
_TOKEN = re.compile(rb"""(?:\s|%[^\r\n]*)*(?:
    (?P<open><<|\[)
  | (?P<close>>>|\])
  | (?P<ref>(?P<n>\d+)\s+0\s+R)(?![\w.])
  | (?P<name>/[A-Za-z0-9_.+-]*)(?=[\s/<>\[\]()%]|\Z)
  | (?P<real>-?\d+\.\d+)(?=[\s/<>\[\]()%]|\Z)
  | (?P<int>-?\d+)(?=[\s/<>\[\]()%]|\Z)
  | (?P<word>true|false|null)(?=[\s/<>\[\]()%]|\Z)
  | (?P<string>\()
  | (?P<hex><[0-9A-Fa-f\s]*>)
)""", re.X)
_WORDS = {b"true": True, b"false": False, b"null": None}
_OBJ = re.compile(rb"(\d+)\s+0\s+obj")
_STREAM = re.compile(rb"stream\r?\n")
_END_STREAM = re.compile(rb"\s*endstream")
_TAIL = re.compile(rb"startxref\s+(\d+)\s+%%EOF\s*\Z")
_XREF = re.compile(rb"xref\s+0\s+(\d+)\s+")
_ENTRY = re.compile(rb"(\d{10}) (\d{5}) ([nf])\s{2}")
_TRAILER = re.compile(rb"trailer\s*")
_LITERAL_PART = re.compile(rb"[^\\()]+|\\[nrtbf()\\]|[()]")
_ESCAPES = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f", b"(": b"(", b")": b")", b"\\": b"\\"}


class _File:
    """The objects of a PDF with one cross-reference table, read as they are asked for."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        tail = _TAIL.search(data, max(0, len(data) - 64))
        if tail is None:
            raise _Unexpected("no startxref")
        xref = _XREF.match(data, int(tail[1]))
        if xref is None:
            raise _Unexpected("not a classic cross-reference table")
        self.offsets: dict[int, int] = {}
        at = xref.end()
        for number in range(int(xref[1])):
            entry = _ENTRY.match(data, at)
            if entry is None:
                raise _Unexpected("cross-reference entry")
            if entry[3] == b"n":
                if entry[2] != b"00000":
                    raise _Unexpected("an object of another generation")
                self.offsets[number] = int(entry[1])
            at = entry.end()
        trailer = _TRAILER.match(data, at)
        if trailer is None:
            raise _Unexpected("trailer")
        self.trailer, _ = self._value(trailer.end(), strings=True)
        if not isinstance(self.trailer, dict) or "/Prev" in self.trailer or "/Encrypt" in self.trailer:
            raise _Unexpected("trailer")
        self._cache: dict[int, object] = {}

    def get(self, ref: object, strings: bool = False) -> object:
        """The object ``ref`` refers to (``ref`` itself when it is no reference)."""
        if not isinstance(ref, _Ref):
            return ref
        if ref.number not in self._cache:
            self._cache[ref.number] = self._read(ref.number, strings)
        return self._cache[ref.number]

    def _read(self, number: int, strings: bool) -> object:
        at = self.offsets.get(number)
        head = _OBJ.match(self.data, at) if at is not None else None
        if head is None or int(head[1]) != number:
            raise _Unexpected(f"object {number}")
        value, at = self._value(head.end(), strings)
        at = _SPACE.match(self.data, at).end()   # type: ignore[union-attr]
        stream = _STREAM.match(self.data, at)
        if stream is None:
            if not self.data.startswith(b"endobj", at):
                raise _Unexpected(f"object {number} does not end")
            return value
        if not isinstance(value, dict):
            raise _Unexpected("stream without a dictionary")
        length = self.get(value.get("/Length"))
        if not isinstance(length, int) or isinstance(length, bool) or length < 0:
            raise _Unexpected("stream length")
        start = stream.end()
        data = self.data[start:start + length]
        end = _END_STREAM.match(self.data, start + length)
        if len(data) != length or end is None:
            raise _Unexpected("stream data")
        return _Stream(value, data)

    def _value(self, at: int, strings: bool = False) -> tuple[object, int]:
        """The value starting at ``at`` (after any space) and where it ends; literal strings
        only where ``strings`` (the document information)."""
        data, stack = self.data, []
        while True:
            token = _TOKEN.match(data, at)
            if token is None:
                raise _Unexpected(f"token at {at}")
            at = token.end()
            kind = token.lastgroup
            value: object
            if kind == "open":
                if len(stack) >= MAX_DEPTH:
                    raise _Unexpected("nesting")
                stack.append((token["open"] == b"<<", []))
                continue
            if kind == "close":
                if not stack or stack[-1][0] != (token["close"] == b">>"):
                    raise _Unexpected("unmatched close")
                is_dict, items = stack.pop()
                value = _dictionary(items) if is_dict else items
            elif kind == "ref":
                value = _Ref(int(token["n"]))
            elif kind == "name":
                value = _Name(token["name"].decode("ascii"))
            elif kind == "real":
                value = _Real(token["real"].decode("ascii"))
            elif kind == "int":
                if len(token["int"]) > 18:   # past what qpdf holds in 64 bits
                    raise _Unexpected("integer")
                value = int(token["int"])
            elif kind == "word":
                value = _WORDS[token["word"]]
            elif not strings:
                raise _Unexpected("string")
            elif kind == "string":
                value, at = _literal(data, at - 1)
            else:   # a hex string (a file identifier, say)
                digits = re.sub(rb"\s", b"", token["hex"][1:-1])
                value = bytes.fromhex((digits + b"0" * (len(digits) % 2)).decode("ascii"))
            if not stack:
                return value, at
            stack[-1][1].append(value)


def _dictionary(items: list[object]) -> dict[str, object]:
    """A dictionary from its keys and values in turn; a key whose value is null is no key
    (as qpdf reads it)."""
    keys, values = items[::2], items[1::2]
    if len(keys) != len(values) or not all(isinstance(k, _Name) for k in keys) or len(set(keys)) != len(keys):
        raise _Unexpected("dictionary")
    return {k: v for k, v in zip(keys, values) if v is not None}   # type: ignore[misc]


def _literal(data: bytes, at: int) -> tuple[bytes, int]:
    """The literal string starting at ``at`` (its opening parenthesis) and where it ends:
    balanced parentheses stand for themselves, and only the one-letter escapes are read."""
    out, depth, at = [], 0, at
    while True:
        part = _LITERAL_PART.match(data, at)
        if part is None:
            raise _Unexpected("string")
        at = part.end()
        token = part[0]
        if token == b"(":
            depth += 1
            if depth == 1:
                continue
        elif token == b")":
            depth -= 1
            if depth == 0:
                return b"".join(out), at
        elif token[0] == 0x5C:   # a backslash
            token = _ESCAPES[token[1:]]
        out.append(token)


def _text(value: object, number: Callable[[int], int]) -> str:
    """``value`` as qpdf writes an object (references mapped by ``number``)."""
    if isinstance(value, dict):
        return "<< " + "".join(f"{k} {_text(value[k], number)} " for k in sorted(value)) + ">>"
    if isinstance(value, list):
        return "[ " + "".join(f"{_text(v, number)} " for v in value) + "]"
    if isinstance(value, _Ref):
        return f"{number(value.number)} 0 R"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (_Name, _Real)):
        return str(value)
    if isinstance(value, int):
        return str(value)
    raise _Unexpected(f"value {value!r}")


def relocatable(data: bytes, deflate: Callable[[bytes], bytes]) -> Relocatable | None:
    """The face's objects as :func:`cardgen.pdfdoc.relocatable` makes them, or None when the
    PDF is not one this module reads (see the module docstring)."""
    try:
        return _relocatable(data, deflate)
    except (_Unexpected, ValueError, KeyError, TypeError, IndexError, AttributeError, ArithmeticError, zlib.error,
            RecursionError):   # what a damaged face's values may raise on the way (UnicodeError is a ValueError)
        return None


def _relocatable(data: bytes, deflate: Callable[[bytes], bytes]) -> Relocatable:
    pdf = _File(data)
    root = pdf.get(pdf.trailer["/Root"])
    pages = pdf.get(root["/Pages"])   # type: ignore[index]
    kids = pdf.get(pages["/Kids"])   # type: ignore[index]
    if not (isinstance(pages, dict) and pages.get("/Type") == "/Pages" and pages.get("/Count") == 1
            and isinstance(kids, list) and len(kids) == 1 and isinstance(kids[0], _Ref)):
        raise _Unexpected("page tree")
    page = pdf.get(kids[0])
    contents = pdf.get(page.get("/Contents"))   # type: ignore[union-attr]
    box = pdf.get(page.get("/MediaBox"))   # type: ignore[union-attr]
    if not (isinstance(page, dict) and page.get("/Type") == "/Page" and isinstance(contents, _Stream)
            and "/Resources" in page and "/Rotate" not in page and "/UserUnit" not in page
            and not _inherits(pages) and isinstance(box, list) and len(box) == 4
            and all(isinstance(v, (int, _Real)) and not isinstance(v, bool) for v in box)):
        raise _Unexpected("page")
    raw = _decoded(contents)
    if raw is None:
        raise _Unexpected("content stream")
    glyphs: tuple[GlyphForm, ...] = ()
    runs = _runs(pdf)
    if runs is not None:
        raw, glyphs = glyphforms.resolve(raw, runs)
    form = _Stream({"/Type": _Name("/XObject"), "/Subtype": _Name("/Form"), "/BBox": list(box),
                    "/Resources": page["/Resources"], **({"/Group": page["/Group"]} if "/Group" in page else {})},
                   deflate(raw))
    form.head["/Filter"] = _Name("/FlateDecode")
    x0, y0, x1, y1 = (float(v) for v in box)
    return Relocatable(hashlib.sha256(data).digest(), (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)), glyphs,
                       _objects(pdf, form, tuple(g.name for g in glyphs), deflate))


def _inherits(pages: dict[str, object]) -> bool:
    """Whether the page tree holds attributes its page inherits (cairo's does not)."""
    return any(k in pages for k in ("/Resources", "/MediaBox", "/CropBox", "/Rotate"))


def _decoded(stream: _Stream) -> bytes | None:
    """A stream's data decoded, when it is stored plainly or Flate-compressed without
    parameters; None otherwise."""
    if _recompressed(stream):
        return zlib.decompress(stream.data)
    if "/Filter" not in stream.head and "/DecodeParms" not in stream.head:
        return stream.data
    return None


def _recompressed(stream: _Stream) -> bool:
    """Whether a stream of the face is decoded and compressed again, as
    :func:`cardgen.pdfdoc._decode_nested_streams` does (its /Length then written afresh)."""
    return stream.head.get("/Filter") == "/FlateDecode" and "/DecodeParms" not in stream.head


def _runs(pdf: _File) -> list[glyphforms.Carried] | None:
    """The glyph runs the face carries in its document information (see
    :func:`cardgen.glyphforms.runs_of`), None when it carries none."""
    info = pdf.get(pdf.trailer.get("/Info"), strings=True)
    if info is None:
        return None
    if not isinstance(info, dict):
        raise _Unexpected("information")
    keywords = info.get("/Keywords")
    if keywords is None:
        return None
    if not isinstance(keywords, bytes):
        raise _Unexpected("keywords")
    return glyphforms.runs_of(keywords.decode("ascii"))


def _objects(pdf: _File, form: _Stream, glyph_names: tuple[str, ...],
             deflate: Callable[[bytes], bytes]) -> tuple[Object, ...]:
    """The form and every object it uses, numbered and written as
    :func:`cardgen.relocatable.objects_of` writes them."""
    order: list[object] = [form]
    numbers: dict[int, int] = {}   # file's object number → local number

    def visit(value: object, depth: int = 0) -> None:
        if depth > MAX_DEPTH:
            raise _Unexpected("nesting")
        if isinstance(value, _Ref):
            if value.number in numbers:
                return
            target = pdf.get(value)
            if isinstance(target, dict) and target.get("/Type") in ("/Page", "/Pages", "/Catalog"):
                raise _Unexpected("a reference out of the page")
            order.append(target)
            numbers[value.number] = len(order)
            visit(target, depth + 1)
        elif isinstance(value, _Stream):
            head = value.head
            if _recompressed(value) and value is not form:   # written afresh, with its /Length
                head = {k: v for k, v in head.items() if k != "/Length"}
            visit(head, depth + 1)
        elif isinstance(value, dict):
            for k in sorted(value):
                visit(value[k], depth + 1)
        elif isinstance(value, list):
            for v in value:
                visit(v, depth + 1)

    visit(form)
    count = len(order)
    if glyph_names:
        resources = pdf.get(form.head["/Resources"])
        if not isinstance(resources, dict):
            raise _Unexpected("resources")
        xobjects = pdf.get(resources.get("/XObject"))
        if xobjects is None:
            xobjects = resources["/XObject"] = {}
        if not isinstance(xobjects, dict):
            raise _Unexpected("form resources")
        for i, name in enumerate(glyph_names):
            xobjects[name] = _Ref(-1 - i)   # the glyph forms: numbered after the face's objects

    def local(n: int) -> int:
        return count - n if n < 0 else numbers[n]

    objects: list[Object] = []
    for item in order:
        if isinstance(item, _Stream):
            head = dict(item.head)
            raw = item.data
            if _recompressed(item) and item is not form:
                raw = deflate(zlib.decompress(raw))
            elif "/Filter" not in head:
                raw = deflate(raw)
                head["/Filter"] = _Name("/FlateDecode")
            head["/Length"] = len(raw)
            objects.append((_text(head, local).encode("ascii"), raw))
        else:
            objects.append((_text(item, local).encode("ascii"), None))
    return tuple(objects)
