"""Text as Type 3 glyphs: one drawing procedure per glyph outline, stored once per document.

A face's text used to be drawn as outlines in its page content, every occurrence of a glyph
repeating its outline; the rule sheets and the Particle Builder mat weighed 60–270 KB a page.
Now :mod:`cardgen.draw` shows the text as glyphs of a cairo *user font*, which cairo's PDF
writer stores as Type 3 fonts: each glyph's outline once per font, each occurrence a code in
a ``TJ`` string. Three things cairo does its own way are put right here, when a face's PDF is
made (:func:`canonical_face`):

* cairo makes one Type 3 font per text size, and writes each glyph's outline after a round
  trip through that size's device space: the same glyph came out with other digits at
  another size. The procedures are replaced by :func:`glyph_proc`'s, computed from the font
  file's outline alone — the same bytes for a glyph in every font, face and document, and
  the same the documents' own text (footers, :class:`cardgen.pdfcontent.GlyphFonts`) uses.
* cairo's map from codes to text says U+FFFD for every glyph (it is shown without text):
  text extraction would read garbage over the rule sheets' real text layer
  (:mod:`cardgen.textlayer`). Each code is mapped to nothing instead, so ``pdftotext``
  extracts nothing from drawn glyphs, as it did from outlines.
* To know which glyph each of cairo's codes stands for, the drawing shows every glyph with a
  made-up text of two private-use characters, (font number, glyph id) (:func:`tag`), which
  cairo writes into that map; :func:`canonical_face` reads it back and removes it.

A document then keeps each procedure once (:func:`share`): the faces' fonts and its own point
at one copy. The procedures are stored uncompressed in a face's PDF, so that the face cache
can keep each one once for all faces (:func:`proc_spans`, :mod:`cardgen.store`).
"""

from __future__ import annotations

import functools
import hashlib
import io
import re
from collections.abc import Sequence
from typing import Any

import pikepdf
from pikepdf import Array, Dictionary, Name

#: First private-use code point of the made-up text that names a glyph (plane 15 onwards:
#: 2 × 65 534 values, room for any font number and glyph id).
_PUA = 0xF0000
#: Glyph space of every Type 3 font here: 1/1000 em, y up (as the PDF standard fonts).
FONT_MATRIX = (0.001, 0, 0, 0.001, 0, 0)


def tag(font: int, gid: int) -> str:
    """The text a glyph is shown with: font number and glyph id as private-use characters."""
    return chr(_PUA + font) + chr(_PUA + gid)


def _untag(text: str) -> tuple[int, int] | None:
    if len(text) != 2 or not all(_PUA <= ord(c) <= 0x10FFFF for c in text):
        return None
    return ord(text[0]) - _PUA, ord(text[1]) - _PUA


def num(v: float) -> str:
    """A coordinate in 1/1000 em, to a tenth (1/10 000 em: 0.01 mm on a 100 mm glyph)."""
    text = f"{v:.1f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def advance(face: Any, gid: int) -> float:
    """A glyph's advance width in 1/1000 em, from the font (what cairo is told it is)."""
    return face.hb_font.get_glyph_h_advance(gid) * 1000.0 / face.upem


@functools.lru_cache(maxsize=8192)
def _proc(path: str, face: Any, gid: int) -> tuple[bytes, tuple[float, float, float, float]]:
    from fontTools.pens.basePen import BasePen

    scale = 1000.0 / face.upem
    ops: list[str] = []
    xs: list[float] = []
    ys: list[float] = []

    def pt(p: tuple[float, float]) -> str:
        x, y = round(p[0] * scale, 1), round(p[1] * scale, 1)
        xs.append(x)
        ys.append(y)
        return f"{num(x)} {num(y)}"

    class Pen(BasePen):
        def _moveTo(self, p):  # type: ignore[no-untyped-def]
            ops.append(f"{pt(p)} m")

        def _lineTo(self, p):  # type: ignore[no-untyped-def]
            ops.append(f"{pt(p)} l")

        def _curveToOne(self, p1, p2, p3):  # type: ignore[no-untyped-def]
            ops.append(f"{pt(p1)} {pt(p2)} {pt(p3)} c")

        def _closePath(self) -> None:
            ops.append("h")

    if face.has_outline(gid):   # a space has none: still a glyph, with its advance
        face.draw_glyph(gid, Pen(face.glyph_set))   # the glyph set resolves composite glyphs
    box = (min(xs), min(ys), max(xs), max(ys)) if xs else (0.0, 0.0, 0.0, 0.0)
    head = f"{num(advance(face, gid))} 0 {' '.join(num(v) for v in box)} d1"
    return (" ".join([head, *ops, "f"]) if ops else head).encode("ascii"), box


def glyph_proc(face: Any, gid: int) -> bytes:
    """The Type 3 procedure drawing glyph ``gid`` of ``face``: its outline in 1/1000 em,
    filled in the current colour (``d1``: the glyph's advance and its box, then the path)."""
    return _proc(str(face.path), face, gid)[0]


def glyph_box(face: Any, gid: int) -> tuple[float, float, float, float]:
    """The glyph's outline box in 1/1000 em (control points included)."""
    return _proc(str(face.path), face, gid)[1]


def silent_cmap(first: int, last: int) -> bytes:
    """A ToUnicode map giving codes ``first``..``last`` no text: drawn glyphs are not text
    to extract (a face's words are already in the sheet's text layer, or are artwork)."""
    entries = [f"<{c:02x}> <>" for c in range(first, last + 1)]
    body = "".join(f"{len(chunk)} beginbfchar\n" + "\n".join(chunk) + "\nendbfchar\n"
                   for chunk in (entries[i:i + 100] for i in range(0, len(entries), 100)))
    return ("/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
            "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
            "/CMapName /Adobe-Identity-UCS def /CMapType 2 def\n"
            "1 begincodespacerange <00> <ff> endcodespacerange\n" + body +
            "endcmap CMapName currentdict /CMap defineresource pop end end\n").encode("ascii")


_BFCHAR = re.compile(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]*)>")


def _codes(cmap: bytes) -> dict[int, str]:
    """code → text of the ``bfchar`` entries cairo writes (it writes no ranges)."""
    out = {}
    for code, text in _BFCHAR.findall(cmap.partition(b"endcodespacerange")[2]):
        try:
            out[int(code, 16)] = bytes.fromhex(text.decode()).decode("utf-16-be")
        except (ValueError, UnicodeDecodeError):
            continue
    return out


def _glyphs_of(font: pikepdf.Dictionary, fonts: Sequence[Any]) -> dict[int, tuple[Any, int]] | None:
    """code → (font face, glyph id) of a Type 3 font cairo made from tagged glyphs, or None
    for any other font (left as it is)."""
    cmap = font.get("/ToUnicode")
    if not isinstance(cmap, pikepdf.Stream):
        return None
    glyphs = {}
    for code, text in _codes(cmap.read_bytes()).items():
        ids = _untag(text)
        if ids is None or ids[0] >= len(fonts):
            return None
        glyphs[code] = (fonts[ids[0]], ids[1])
    first, last = int(font.get("/FirstChar", 0)), int(font.get("/LastChar", -1))
    return glyphs if set(glyphs) == set(range(first, last + 1)) else None


def canonical_face(data: bytes, fonts: Sequence[Any]) -> bytes:
    """A face PDF cairo drew with tagged glyphs (``fonts``: the font faces by the numbers
    :func:`tag` was given), its Type 3 fonts rewritten as the module describes: procedures
    from :func:`glyph_proc`, stored once per face and uncompressed, in 1/1000-em glyph space,
    widths and boxes from the font, a ToUnicode map that extracts nothing. Its drawing
    operators are stored uncompressed (images stay as cairo wrote them): the face cache
    compresses a face against another of its component, which shares most of its operators,
    and every writer compresses them anyway. Saved without object streams or timestamps:
    the same drawing gives the same bytes."""
    pdf = pikepdf.open(io.BytesIO(data))
    procs: dict[tuple[str, int], pikepdf.Object] = {}
    cmaps: dict[tuple[int, int], pikepdf.Object] = {}
    for obj in list(pdf.objects):
        if not (isinstance(obj, pikepdf.Dictionary) and obj.get("/Subtype") == Name.Type3):
            continue
        glyphs = _glyphs_of(obj, fonts)
        if glyphs is None:
            continue
        first, last = min(glyphs), max(glyphs)
        names = [Name(f"/{code}") for code in range(first, last + 1)]
        charprocs = Dictionary()
        boxes = []
        for code, name in zip(range(first, last + 1), names):
            face, gid = glyphs[code]
            key = (str(face.path), gid)
            if key not in procs:
                procs[key] = pdf.make_stream(glyph_proc(face, gid))
            charprocs[name] = procs[key]
            boxes.append(glyph_box(face, gid))
        if (first, last) not in cmaps:
            cmaps[(first, last)] = pdf.make_stream(silent_cmap(first, last))
        obj.FontMatrix = Array(FONT_MATRIX)
        obj.FontBBox = Array([min(b[0] for b in boxes), min(b[1] for b in boxes),
                              max(b[2] for b in boxes), max(b[3] for b in boxes)])
        obj.CharProcs = charprocs
        obj.Encoding = Dictionary(Type=Name.Encoding, Differences=Array([first, *names]))
        obj.Widths = Array([round(advance(*glyphs[c]), 2) for c in range(first, last + 1)])
        obj.ToUnicode = cmaps[(first, last)]
    for obj in pdf.objects:   # drawing operators stored as they are: see the docstring
        if (isinstance(obj, pikepdf.Stream) and obj.get("/Filter") == Name.FlateDecode and "/DecodeParms" not in obj
                and obj.get("/Subtype") != Name.Image):
            obj.write(obj.read_bytes())
    out = io.BytesIO()
    pdf.save(out, deterministic_id=True, compress_streams=False, object_stream_mode=pikepdf.ObjectStreamMode.disable,
             fix_metadata_version=False)
    pdf.close()
    return out.getvalue()


def share(pdf: pikepdf.Pdf) -> None:
    """Point every Type 3 font of a document at one copy of each identical glyph procedure
    and ToUnicode map (the faces' and the document's own), so that a glyph is stored once
    however many faces, sizes and pages show it; the copies left unreferenced are not
    written. Fonts are visited in object order: the same document gives the same file."""
    first: dict[bytes, pikepdf.Object] = {}

    def one(stream: pikepdf.Object) -> pikepdf.Object:
        key = hashlib.sha256(repr(sorted((k, str(v)) for k, v in stream.stream_dict.items() if k != "/Length"))
                             .encode() + b"\0" + stream.read_raw_bytes()).digest()
        return first.setdefault(key, stream)

    for obj in list(pdf.objects):
        if not (isinstance(obj, pikepdf.Dictionary) and obj.get("/Subtype") == Name.Type3):
            continue
        procs = obj.get("/CharProcs")
        if isinstance(procs, pikepdf.Dictionary):
            for name in list(procs.keys()):
                stream = procs[name]
                if isinstance(stream, pikepdf.Stream):
                    procs[name] = one(stream)
        cmap = obj.get("/ToUnicode")
        if isinstance(cmap, pikepdf.Stream):
            obj.ToUnicode = one(cmap)


def proc_spans(data: bytes) -> list[tuple[int, int]]:
    """Where a face PDF (as :func:`canonical_face` saves it) stores its glyph procedures:
    (start, end) byte offsets of each uncompressed procedure's data, in file order. What
    the face cache keeps once for every face (:mod:`cardgen.store`)."""
    try:
        pdf = pikepdf.open(io.BytesIO(data))
    except pikepdf.PdfError:
        return []
    wanted: set[bytes] = set()
    for obj in pdf.objects:
        if isinstance(obj, pikepdf.Dictionary) and obj.get("/Subtype") == Name.Type3:
            for stream in obj.get("/CharProcs", Dictionary()).values():
                if isinstance(stream, pikepdf.Stream) and "/Filter" not in stream:
                    wanted.add(stream.read_raw_bytes())
    pdf.close()
    spans = []
    for m in re.finditer(rb"stream\r?\n", data):
        start = m.end()
        end = data.find(b"\nendstream", start)
        if end > start and data[start:end] in wanted:
            spans.append((start, end))
    return spans
