"""A face's form as PDF objects that can be written at any object number: what a document
written as it goes (:class:`cardgen.pdfdoc.Doc` of many faces) stores for each face.

Turning a face's PDF into those objects — opening it, replacing its glyph marks, copying its
form and every object the form uses, writing each as PDF text — was most of the writer's
time for a large deck (9.5 of its 13 s for 10,000 cards, measured under a profiler), and
the writer is one process for the whole document. The rendering workers now do it for the
faces they draw, in parallel (:func:`cardgen.build.faces.render_chunk`), and hand it over in
the spool file beside the face's PDF (:meth:`Relocatable.to_bytes`); the writer only numbers
and writes the objects (:meth:`cardgen.pdfdoc._DocumentFile.place`). The objects are made by
one function either way, so a document is the same bytes whichever process made them.

Numbering: a face's own objects are 1 … n in the order they are written, its form first; the
glyph forms it draws, which the document writes once for all its faces, are n + 1 … in the
order of :attr:`Relocatable.glyphs`. Every reference in an object's text is renumbered when
it is placed (:func:`renumbered`); stream data holds no references.
"""

from __future__ import annotations

import abc
import re
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .glyphforms import GlyphForm
from .pdflib import Dictionary, Name, pikepdf

#: One object: its PDF text (a stream's dictionary, with /Length), and a stream's data (None
#: for an object that is no stream).
Object = tuple[bytes, "bytes | None"]


#: The fixed part of a glyph form's record (its name's and content's lengths, bounds and box).
_GLYPH_HEAD = struct.calcsize("<II8i")


class DamagedRelocatable(ValueError):
    """Bytes that are not a face's objects as :meth:`Relocatable.to_bytes` wrote them."""


@dataclass(frozen=True)
class Relocatable:
    """A face's form, ready to be written into a document: the digest of the face's PDF (the
    document shares identical faces), its form's visible box (pt), the glyph forms it draws
    and its objects (see the module for their numbering)."""

    digest: bytes
    box: tuple[float, float, float, float]
    glyphs: tuple[GlyphForm, ...]
    objects: tuple[Object, ...]

    def to_bytes(self) -> bytes:
        """The face's objects as one string of bytes (for a spool file)."""
        out = [self.digest, struct.pack("<4dII", *self.box, len(self.glyphs), len(self.objects))]
        for g in self.glyphs:
            name = g.name.encode("utf-8")
            out += [struct.pack("<II8i", len(name), len(g.content), *g.bbox, *g.box), name, g.content]
        for text, data in self.objects:
            out += [struct.pack("<Iq", len(text), -1 if data is None else len(data)), text, data or b""]
        return b"".join(out)

    @classmethod
    def from_bytes(cls, raw: bytes, known: dict[bytes, GlyphForm] | None = None) -> "Relocatable":
        """What :meth:`to_bytes` wrote; :class:`DamagedRelocatable` for anything else.
        ``known``: glyph forms read before, by the bytes that wrote them (a document's faces
        draw the same few hundred glyphs: each is decoded once), added to as they are met."""
        try:
            at = 32
            digest = raw[:at]
            *box, n_glyphs, n_objects = struct.unpack_from("<4dII", raw, at)
            at += struct.calcsize("<4dII")
            glyphs = []
            for _ in range(n_glyphs):
                name_len, content_len, *ints = struct.unpack_from("<II8i", raw, at)
                end = at + _GLYPH_HEAD + name_len + content_len
                record = raw[at:end]
                form = known.get(record) if known is not None else None
                if form is None:
                    at += _GLYPH_HEAD
                    name, content = raw[at:at + name_len].decode("utf-8"), raw[at + name_len:end]
                    form = GlyphForm(name, content, tuple(ints[:4]), tuple(ints[4:]))  # type: ignore[arg-type]
                    if known is not None and end <= len(raw):
                        known[record] = form
                at = end
                glyphs.append(form)
            objects: list[Object] = []
            for _ in range(n_objects):
                text_len, data_len = struct.unpack_from("<Iq", raw, at)
                at += struct.calcsize("<Iq")
                text = raw[at:at + text_len]
                at += text_len
                data = None if data_len < 0 else raw[at:at + data_len]
                at += max(data_len, 0)
                objects.append((text, data))
        except (struct.error, UnicodeDecodeError) as exc:
            raise DamagedRelocatable(str(exc)) from None
        if len(digest) != 32 or at != len(raw):
            raise DamagedRelocatable("its length does not match its contents")
        return cls(digest, tuple(box), tuple(glyphs), tuple(objects))  # type: ignore[arg-type]


class RelocatedFaces(Mapping[str, bytes]):
    """Faces by key (their PDF bytes) that may also hold each face's objects, made by the
    process that drew it."""

    @abc.abstractmethod
    def relocated(self, key: str) -> Relocatable | None:
        """The face's objects, if they were made (:class:`DamagedRelocatable` if they are not
        what was written)."""


def objects_of(obj: pikepdf.Object, deflate: Callable[[bytes], bytes], glyph_names: tuple[str, ...] = ()
               ) -> tuple[Object, ...]:
    """``obj`` (a face's form, a font) and every object it uses, numbered from 1 as the module
    says, ``glyph_names`` added to its /XObject resources as references to n + 1 …. A stream
    stored uncompressed is compressed with ``deflate``, as qpdf would at save."""
    scratch = pikepdf.new()
    try:
        copy = scratch.copy_foreign(obj)
        first = copy.objgen[0]   # the copies follow the scratch document's catalog and page tree
        count = 0
        while scratch.get_object((first + count, 0)) is not None:
            count += 1
        stand_ins: dict[int, int] = {}   # an object of the scratch copy standing for a glyph form
        if glyph_names:
            xobjects = copy.Resources.get("/XObject")
            if xobjects is None:
                copy.Resources.XObject = xobjects = Dictionary()
            for i, name in enumerate(glyph_names):
                stand_in = scratch.make_indirect(Dictionary())
                stand_ins[stand_in.objgen[0]] = count + 1 + i
                xobjects[name] = stand_in

        def local(n: int) -> int:
            return stand_ins.get(n, n - first + 1)

        objects: list[Object] = []
        for n in range(first, first + count):
            item = scratch.get_object((n, 0))
            if isinstance(item, pikepdf.Stream):
                raw = item.read_raw_bytes()
                head = item.stream_dict
                if "/Filter" not in head:
                    raw = deflate(raw)
                    head.Filter = Name.FlateDecode
                head.Length = len(raw)
                objects.append((renumbered(local, head.unparse(resolved=True)), raw))
            elif isinstance(item, pikepdf.Object):
                objects.append((renumbered(local, item.unparse(resolved=True)), None))
            else:   # a number, say a stream's /Length in an object of its own: pikepdf gives the value
                objects.append((pikepdf.Array([item]).unparse(resolved=True)[2:-2], None))
        return tuple(objects)
    finally:
        scratch.close()


#: In qpdf's writing of an object: a string (literal, its parentheses escaped, or hex) or an
#: indirect reference; references are renumbered, strings left as they are.
_TOKENS = re.compile(rb"(\((?:\\.|[^\\)])*\))|(<[0-9A-Fa-f\s]*>)|(?<![\w.#+-])(\d+) (\d+) R(?![\w.])")


def renumbered(number: Callable[[int], int], text: bytes) -> bytes:
    """An object's PDF text with each reference's object number mapped by ``number``."""
    def swap(m: re.Match[bytes]) -> bytes:
        return m[0] if m[3] is None else b"%d 0 R" % number(int(m[3]))
    return _TOKENS.sub(swap, text)
