"""A PDF page's content stream written from millimetre geometry, and the fonts its text uses.

:class:`Canvas` turns sheet millimetres (origin top-left, y down) into PDF operators in
points (origin bottom-left); :class:`GlyphFonts` keeps the outlines of every glyph a
document's own text (footers, labels, calibration scales) uses in Type 3 fonts embedded in
the file, each glyph once per document. Part of the print stage (:mod:`cardgen.pdfwrite`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import outlinecache
from .imposition import Affine, Polygon, Rect, compose
from .paper import PT_PER_MM
from .pdflib import Array, Dictionary, Name, pikepdf

if TYPE_CHECKING:
    from .pdfdoc import Form

K = float(PT_PER_MM)
"""Points per millimetre."""


class Canvas:
    """Builds one page's content stream from millimetre geometry (top-left origin)."""

    def __init__(self, w: float, h: float) -> None:
        self.w, self.h = w, h
        self.forms: dict[str, Form] = {}
        self._ops: list[bytes | TextItem] = []

    def to_pt(self) -> Affine:
        """Sheet mm (y down) -> PDF points (y up)."""
        return (K, 0.0, 0.0, -K, 0.0, self.h * K)

    def form(self, form: Form, placement: Affine, clip: Rect | None, shape: Polygon | None = None) -> None:
        """Draw a form with artwork mm mapped onto the sheet by `placement`, optionally
        clipped to a rectangle and (within it) to a polygon."""
        self.forms[form.name] = form
        cm = compose(self.to_pt(), compose(placement, form.to_art))
        ops = "q "
        if clip is not None:
            ops += f"{self._rect(clip)} re W n "
        if shape:
            x0, y0 = shape[0]
            ops += f"{num(x0 * K)} {num((self.h - y0) * K)} m "
            ops += " ".join(f"{num(x * K)} {num((self.h - y) * K)} l" for x, y in shape[1:])
            ops += " h W n "
        ops += f"{' '.join(num(v) for v in cm)} cm {form.name} Do Q"
        self._ops.append(ops.encode("ascii"))

    def lines(
        self, segments: Sequence[tuple[float, float, float, float]], width_pt: float, gray: float = 0.0
    ) -> None:
        """Stroke straight segments (x1, y1, x2, y2 in mm) with butt caps."""
        if not segments:
            return
        ops = [f"q {num(width_pt)} w 0 J {num(gray)} G"]
        for x1, y1, x2, y2 in segments:
            ops.append(
                f"{num(x1 * K)} {num((self.h - y1) * K)} m {num(x2 * K)} {num((self.h - y2) * K)} l"
            )
        ops.append("S Q")
        self._ops.append(" ".join(ops).encode("ascii"))

    def dashed_rect(self, r: Rect, width_pt: float) -> None:
        self._ops.append(f"q {num(width_pt)} w [2 2] 0 d 0 G {self._rect(r)} re S Q".encode("ascii"))

    def fill_rect(self, r: Rect) -> None:
        self._ops.append(f"q 0 g {self._rect(r)} re f Q".encode("ascii"))

    def text(self, x: float, y: float, size_pt: float, text: str, *, vertical: bool = False) -> None:
        """Text with its baseline starting at (x, y) mm (vertical: reading bottom to top),
        shaped by the text engine in the bundled Noto fonts the cards use, in every script.
        Its glyphs go into a Type 3 font embedded in the file (see :class:`GlyphFonts`), so
        no page names a font a print shop's preflight would find missing, and the text can
        still be searched and copied."""
        self._ops.append(TextItem(x, y, size_pt, _one_line(text), vertical))

    def text_width(self, size_pt: float, text: str) -> float:
        """Advance width of one line of text, mm."""
        return _line(_engine(), _one_line(text), size_pt).width

    def content(self, fonts: GlyphFonts) -> bytes:
        """The page's content stream; its text's glyphs are registered with ``fonts``."""
        parts = []
        for op in self._ops:
            if isinstance(op, TextItem):
                parts.append(fonts.show(op, self.h))
            else:
                parts.append(op)
        return b"\n".join(parts) + b"\n"

    def _rect(self, r: Rect) -> str:
        return f"{num(r.x * K)} {num((self.h - r.bottom) * K)} {num(r.w * K)} {num(r.h * K)}"


def _engine():
    from .text import TextEngine   # here: the font chain loads only when a page has text

    return TextEngine.default()


@functools.lru_cache(maxsize=8)
def _line(engine: object, text: str, size_pt: float):  # type: ignore[no-untyped-def]
    """One line of page text laid out on its baseline. A footer is measured and then shown:
    laid out once for both (a 10,000-card deck's 2,224 footers took 1.5 s twice). Not in the
    engine's own cache, which keeps what is met again: a page's text (its sheet number) is met
    on that page only."""
    return engine.layout(text, size=size_pt / K, valign="baseline", cache=False)  # type: ignore[attr-defined]


def _one_line(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class TextItem:
    """Text waiting for the document's fonts (a page's glyphs are numbered when it is added)."""

    x: float
    y: float
    size_pt: float
    text: str
    vertical: bool


class GlyphFonts:
    """Type 3 fonts holding the outlines of every glyph a document's page text uses.

    A Type 3 font's glyphs are drawing procedures stored in the file itself: the outlines of
    the bundled Noto faces, whatever face (Latin, Arabic, CJK) each glyph came from, 255 to a
    font. A ToUnicode map gives each code its characters, so text extracts and searches."""

    PER_FONT = 255

    def __init__(self, pdf: pikepdf.Pdf) -> None:
        self.pdf = pdf
        self.fonts: dict[str, pikepdf.Object] = {}
        self.used_on_page: set[str] = set()
        self._codes: dict[tuple[int, int], tuple[str, int]] = {}
        self._glyphs: dict[str, list[tuple[str, bytes, float, str]]] = {}   # name → (glyph name, proc, width, text)

    def show(self, item: TextItem, page_h: float) -> bytes:
        """Content-stream operators drawing ``item``: one positioned glyph at a time."""
        if not item.text:
            return b""
        result = _line(_engine(), item.text, item.size_pt)
        text = item.text
        fs = result.size * K
        a, b, c, d = (0.0, fs, -fs, 0.0) if item.vertical else (fs, 0.0, 0.0, fs)
        scale = f"{num(a)} {num(b)} {num(c)} {num(d)}"   # the same for every glyph of the item
        ops = ["q 0 g BT"]
        current = None
        for line in result.lines:
            clusters = sorted({g.cluster for run in line.runs for g in run.glyphs})
            ends = {c: (clusters[i + 1] if i + 1 < len(clusters) else line.end) for i, c in enumerate(clusters)}
            seen: set[int] = set()
            for run in line.runs:
                for glyph in run.glyphs:
                    chars = "" if glyph.cluster in seen else text[glyph.cluster:ends[glyph.cluster]]
                    seen.add(glyph.cluster)
                    name, code = self._code(run.face, glyph.gid, glyph.advance / result.size, chars)
                    if name != current:
                        ops.append(f"/{name} 1 Tf")
                        current = name
                    self.used_on_page.add(name)
                    dx, dy = line.x + glyph.x, line.baseline - glyph.y
                    px, py = (item.x + dy, item.y - dx) if item.vertical else (item.x + dx, item.y + dy)
                    ops.append(f"{scale} {num(px * K)} {num((page_h - py) * K)} Tm <{code:02x}> Tj")
        ops.append("ET Q")
        return " ".join(ops).encode("ascii")

    def _code(self, face, gid: int, advance_em: float, chars: str) -> tuple[str, int]:  # type: ignore[no-untyped-def]
        key = (face.index, gid)
        if key in self._codes:
            return self._codes[key]
        if not self.fonts or len(self._glyphs[list(self.fonts)[-1]]) >= self.PER_FONT:
            name = f"G{len(self.fonts)}"
            self.fonts[name] = self.pdf.make_indirect(Dictionary(Type=Name.Font, Subtype=Name.Type3))
            self._glyphs[name] = []
        name = list(self.fonts)[-1]
        glyphs = self._glyphs[name]
        code = len(glyphs) + 1
        width = advance_em * 1000
        glyphs.append((f"g{face.index}-{gid}", _glyph_proc(face, gid, width), width, chars))
        self._codes[key] = (name, code)
        return name, code

    def finish(self) -> None:
        """Complete every font dictionary (they grow as pages are added)."""
        for name, font in self.fonts.items():
            glyphs = self._glyphs[name]
            font.FontMatrix = Array([0.001, 0, 0, 0.001, 0, 0])
            font.FontBBox = Array([-1000, -1000, 2000, 2000])
            font.Resources = Dictionary()
            font.CharProcs = Dictionary({f"/{g}": self.pdf.make_stream(proc) for g, proc, _w, _t in glyphs})
            font.Encoding = Dictionary(Type=Name.Encoding,
                                       Differences=Array([1] + [Name(f"/{g}") for g, _p, _w, _t in glyphs]))
            font.FirstChar, font.LastChar = 1, len(glyphs)
            font.Widths = Array([round(w, 2) for _g, _p, w, _t in glyphs])
            font.ToUnicode = self.pdf.make_stream(_to_unicode([t for _g, _p, _w, t in glyphs]))


def _glyph_proc(face, gid: int, width: float) -> bytes:  # type: ignore[no-untyped-def]
    """A Type 3 glyph procedure: the glyph's outline in 1/1000 em, filled in the current colour
    (the outline once per machine: see :mod:`cardgen.outlinecache`)."""
    outline = outlinecache.kept(face.path, ("type3", gid), lambda: _type3_outline(face, gid),
                                lambda v: isinstance(v, bytes))
    return f"{num(width)} 0 d0".encode("ascii") + (b" " + outline if outline else b"")


def _type3_outline(face, gid: int) -> bytes:  # type: ignore[no-untyped-def]
    """A glyph's outline in 1/1000 em, filled, as a Type 3 procedure draws it (nothing for a
    glyph without one: a space is still a glyph, so text keeps its spaces)."""
    from fontTools.pens.basePen import BasePen

    scale = 1000.0 / face.upem
    ops: list[str] = []

    class Pen(BasePen):
        def _pt(self, p: tuple[float, float]) -> str:
            return f"{num(p[0] * scale)} {num(p[1] * scale)}"

        def _moveTo(self, p):  # type: ignore[no-untyped-def]
            ops.append(f"{self._pt(p)} m")

        def _lineTo(self, p):  # type: ignore[no-untyped-def]
            ops.append(f"{self._pt(p)} l")

        def _curveToOne(self, p1, p2, p3):  # type: ignore[no-untyped-def]
            ops.append(f"{self._pt(p1)} {self._pt(p2)} {self._pt(p3)} c")

        def _closePath(self) -> None:
            ops.append("h")

    if not face.has_outline(gid):
        return b""
    face.draw_glyph(gid, Pen(None))   # composite glyphs come resolved
    ops.append("f")
    return " ".join(ops).encode("ascii")


def _to_unicode(texts: list[str]) -> bytes:
    """A ToUnicode CMap: code i + 1 stands for texts[i] (codes of a ligature's later glyphs
    stand for nothing)."""
    entries = [f"<{i + 1:02x}> <{t.encode('utf-16-be').hex()}>" for i, t in enumerate(texts) if t]
    body = "".join(f"{len(chunk)} beginbfchar\n" + "\n".join(chunk) + "\nendbfchar\n"
                   for chunk in (entries[i:i + 100] for i in range(0, len(entries), 100)))
    return ("/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
            "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
            "/CMapName /Adobe-Identity-UCS def /CMapType 2 def\n"
            "1 begincodespacerange <00> <ff> endcodespacerange\n" + body +
            "endcmap CMapName currentdict /CMap defineresource pop end end\n").encode("ascii")


def num(v: float) -> str:
    """Compact fixed-point number: 5 decimals of a point is 0.0000035 mm."""
    text = f"{v:.5f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
