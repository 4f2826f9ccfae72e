"""The invisible text layer of a sheet PDF, and the PDF assembled from the drawn pages.

Each page of a rule sheet is drawn to PDF like a card face (its text as outlines); this
module adds on top of it, in PDF text render mode 3 (invisible), every string at its place,
so a sheet can be searched, copied and read aloud, and tests can read the tables back with
pdfplumber. The layer's font has only blank glyphs and a ToUnicode map, and is embedded, as
print shops' preflight asks of every font.
"""

from __future__ import annotations

import html
import io
import re
from dataclasses import dataclass
from typing import Any

from .render import Face

#: Key of the sheet PDF's document information that keeps what rendering it reported, so a
#: rebuild that keeps the file (inputs unchanged) reports the same text issues again.
NOTES_KEY = "/CardgenTextReport"


_LABEL = re.compile(r'<g aria-label="([^"]*)"[^>]*>(.*?)</g>', re.S)
_PLACE = re.compile(r'n="(\d+)"')


@dataclass(frozen=True)
class TextRun:
    """One drawn string and where its glyphs are: left, baseline, right (mm) and size."""

    text: str
    x: float
    y: float
    right: float
    size: float


def text_runs(face: Face) -> list[TextRun]:
    """Every labelled string of a face with its glyphs' extent (from the deferred placements)."""
    runs = []
    for label, inner in _LABEL.findall(face.body):
        glyphs = [g for n in _PLACE.findall(inner) if int(n) < len(face.texts) for g in face.texts[int(n)].glyphs]
        text = html.unescape(label).strip()
        if not glyphs or not text:
            continue
        first = glyphs[0]
        size = first.scale * first.face.upem
        right = max(g.x + g.scale * g.face.upem * 0.5 for g in glyphs)
        runs.append(TextRun(text, min(g.x for g in glyphs), first.y, right, size))
    return runs


def assemble(pages: list[bytes], runs: list[list[TextRun]], width: float, height: float, title: str,
             epoch: int | None, notes: str = "") -> bytes:
    """One PDF of the drawn pages, each with its invisible text layer, written deterministically."""
    from .pdflib import Dictionary, Name, pikepdf

    from .glyphforms import carried_runs, resolve_page
    from .pdfwrite import deflate

    pdf = pikepdf.new()
    chars = sorted({ch for page in runs for run in page for ch in run.text})
    cid = {ch: i + 1 for i, ch in enumerate(chars)}
    font = _text_layer_font(pdf, cid)
    k = 72 / 25.4
    glyphs: dict[str, pikepdf.Object] = {}   # each glyph's form, once for all pages
    for data, page_runs in zip(pages, runs):
        src = pikepdf.open(io.BytesIO(data))
        pdf.pages.append(src.pages[0])
        page = pdf.pages[-1]
        marked = carried_runs(src)
        if marked is not None:   # its glyphs drawn as forms (see cardgen.glyphforms)
            resolve_page(pdf, page.obj, marked, glyphs)
        if "/StructParents" in page.obj:
            del page.obj["/StructParents"]   # cairo's tags mark the runs; the structure is not kept
        ops = ["BT", "3 Tr"]
        for run in page_runs:
            n = len(run.text)
            natural = n * 0.5 * run.size
            scale = max(1.0, min(1000.0, 100 * (run.right - run.x) / natural)) if natural else 100
            hexed = "".join(f"{cid[ch]:04X}" for ch in run.text)
            ops.append(f"/CGText {run.size * k:.3f} Tf {scale:.2f} Tz 1 0 0 1 {run.x * k:.3f} "
                       f"{(height - run.y) * k:.3f} Tm <{hexed}> Tj")
        ops.append("ET")
        resources = page.obj.get("/Resources")
        if resources is None:
            page.obj.Resources = resources = Dictionary()
        fonts = resources.get("/Font")
        if fonts is None:
            resources.Font = fonts = Dictionary()
        fonts.CGText = font
        page.contents_add(pdf.make_stream(b"q\n"), prepend=True)
        stream = pdf.make_stream(deflate(("Q\n" + "\n".join(ops) + "\n").encode("ascii")))
        stream.Filter = Name.FlateDecode
        page.contents_add(stream)
    info = Dictionary(Producer=pikepdf.String("cardgen"), Title=pikepdf.String(title))
    if notes:
        info[NOTES_KEY] = pikepdf.String(notes)
    if epoch is not None:
        from datetime import datetime, timezone

        stamp = datetime.fromtimestamp(epoch, tz=timezone.utc).strftime("D:%Y%m%d%H%M%SZ")
        info.CreationDate = pikepdf.String(stamp)
    pdf.trailer.Info = pdf.make_indirect(info)
    pdf.Root.ViewerPreferences = Dictionary(PrintScaling=Name("/None"))
    out = io.BytesIO()
    pdf.save(out, deterministic_id=True, compress_streams=True,
             object_stream_mode=pikepdf.ObjectStreamMode.generate, fix_metadata_version=False)
    return out.getvalue()


def _blank_font(glyphs: int) -> bytes:
    """A TrueType program of ``glyphs`` empty glyphs (plus .notdef), 500 units wide: what the
    invisible text layer's font embeds, since print shops' preflight refuses any font that is
    not embedded, even one that paints nothing. Built without timestamps: the same bytes on
    every build."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    names = [".notdef"] + [f"c{n}" for n in range(1, glyphs + 1)]
    builder = FontBuilder(1000, isTTF=True)
    builder.setupGlyphOrder(names)
    builder.setupCharacterMap({})
    builder.setupGlyf({name: TTGlyphPen(None).glyph() for name in names})
    builder.setupHorizontalMetrics({name: (500, 0) for name in names})
    builder.setupHorizontalHeader(ascent=900, descent=-250)
    builder.setupNameTable({"familyName": "CardgenTextLayer", "styleName": "Regular"})
    builder.setupOS2(sTypoAscender=900, sTypoDescender=-250, usWinAscent=900, usWinDescent=250)
    builder.setupPost()
    builder.font["head"].created = builder.font["head"].modified = 0
    builder.font.recalcTimestamp = False
    out = io.BytesIO()
    builder.save(out)
    return out.getvalue()


def _text_layer_font(pdf: Any, cid: dict[str, int]) -> Any:
    """A Type 0 font whose glyphs are all blank (the text is never painted) and whose
    ToUnicode map gives each code its character, so readers extract the sheet's text."""
    from .pdflib import Array, Dictionary, Name, pikepdf

    lines = ["/CIDInit /ProcSet findresource begin", "12 dict begin", "begincmap",
             "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
             "/CMapName /Adobe-Identity-UCS def", "/CMapType 2 def",
             "1 begincodespacerange", "<0000> <FFFF>", "endcodespacerange"]
    items = sorted(cid.items(), key=lambda p: p[1])
    for i in range(0, len(items), 100):
        chunk = items[i:i + 100]
        lines.append(f"{len(chunk)} beginbfchar")
        lines += [f"<{code:04X}> <{ch.encode('utf-16-be').hex().upper()}>" for ch, code in chunk]
        lines.append("endbfchar")
    lines += ["endcmap", "CMapName currentdict /CMap defineresource pop", "end", "end"]
    to_unicode = pdf.make_stream("\n".join(lines).encode("ascii"))
    program = pdf.make_stream(_blank_font(max(cid.values(), default=0)))
    descriptor = Dictionary(Type=Name.FontDescriptor, FontName=Name("/CardgenTextLayer"), Flags=4,
                            FontBBox=Array([0, -250, 1000, 900]), ItalicAngle=0, Ascent=900, Descent=-250,
                            CapHeight=700, StemV=80, FontFile2=program)
    cid_font = Dictionary(Type=Name.Font, Subtype=Name.CIDFontType2, BaseFont=Name("/CardgenTextLayer"),
                          CIDSystemInfo=Dictionary(Registry=pikepdf.String("Adobe"), Ordering=pikepdf.String("Identity"),
                                                   Supplement=0),
                          FontDescriptor=pdf.make_indirect(descriptor), DW=500, CIDToGIDMap=Name.Identity)
    return pdf.make_indirect(Dictionary(Type=Name.Font, Subtype=Name.Type0, BaseFont=Name("/CardgenTextLayer"),
                                        Encoding=Name("/Identity-H"), DescendantFonts=Array([pdf.make_indirect(cid_font)]),
                                        ToUnicode=pdf.make_indirect(to_unicode)))
