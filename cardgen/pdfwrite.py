"""Print-ready PDFs from one-page face PDFs: imposed sheets, single cards, tiles, calibration.

Every distinct face is imported once as a Form XObject and drawn wherever it is needed
with a `cm` matrix, so a 44-card deck with 5 faces carries 5 copies of the artwork (and
its fonts), not 44.  Geometry comes from `imposition` in millimetres; this module only
converts to points (origin bottom-left) and writes.

Output is byte-for-byte reproducible: no timestamps unless the caller passes one, and
the document ID is derived from the content.
"""

from __future__ import annotations

import hashlib
import io
import unicodedata
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Literal

import pikepdf
from pikepdf import Array, Dictionary, Name

from .imposition import (
    Affine,
    CardGeometry,
    Duplex,
    GridPlan,
    Placement,
    Rect,
    Tile,
    apply,
    compose,
    plan_tiles,
    sheet_flip,
)
from .paper import PT_PER_MM, fmt_mm

Marks = Literal["ticks", "lines", "none"]
Footer = Callable[[int, int, str], str] | str | None

K = float(PT_PER_MM)
"""Points per millimetre."""

MARK_WIDTH_PT = 0.3
"""Cut-mark stroke: thick enough to print on any home printer (hairlines vanish)."""

MARK_GAP = 2.0
"""Distance from the block's bleed edge to the start of a tick mark, mm."""

MARK_LENGTH = 4.5
"""Length of a tick mark, mm."""

EDGE_KEEP_OUT = 1.0
"""Nothing reaches closer to the paper edge than this, mm: marks touching the edge look
cropped and tempt users to print "fit to page", which scales the cards."""

FOOTER_PT = 6.0
"""Footer font size: legible, small enough for a 5 mm margin."""

FACE_SIZE_TOLERANCE = 0.5
"""How far (mm) a face PDF may differ from trim + 2 × bleed before it is rejected."""

try:
    from isal import isal_zlib as _flate   # Intel ISA-L's deflate, where it has wheels
    FLATE_LEVEL = 3
except ImportError:  # pragma: no cover - platforms without ISA-L
    _flate = zlib    # type: ignore[no-redef]
    FLATE_LEVEL = 4
"""Compression of the faces' content streams, measured on the shipped decks' 131 faces
(5.5 MB of drawing operators): zlib level 6 (its default, and cairo's) 266 ms, 1.90 MB;
zlib level 4 97 ms, 1.97 MB; zlib level 1 59 ms, 2.18 MB; ISA-L level 3 21 ms, 1.96 MB."""


def deflate(data: bytes) -> bytes:
    """``data`` as a zlib stream (PDF's FlateDecode), at :data:`FLATE_LEVEL`."""
    return _flate.compress(data, FLATE_LEVEL)

_MAGENTA_RGB = "#ff00ff"


class PdfWriteError(ValueError):
    """Inputs the writer cannot turn into a correct print (missing or wrongly sized faces)."""


def write_sheets(
    placements: Sequence[Placement],
    faces: Mapping[str, bytes],
    card: CardGeometry,
    plan: GridPlan,
    *,
    duplex: Duplex = "long",
    marks: Marks = "ticks",
    back_offset: tuple[float, float] = (0.0, 0.0),
    footer: Footer = None,
    title: str = "",
    creation_epoch: int | None = None,
    registration: bool = False,
) -> bytes:
    """Impose the cards on sheets: a fronts page, then (duplex) the matching backs page.

    Backs are placed so that each lands behind its front after the printer turns the
    sheet about the `duplex` edge; `back_offset` (mm; +x right, +y down as seen on the
    back page) corrects a printer's front/back misregistration, as measured with
    `write_calibration`.  duplex="none" prints fronts only.

    `footer` is a callable (sheet number, sheet count, "fronts"/"backs") -> text, or a
    fixed prefix to which " · sheet i/n · side" is appended.  `registration` adds the
    print-and-cut squares that `cutfile.write_cut_svg` also draws.
    """
    if not placements:
        raise PdfWriteError("no cards to print; the deck is empty")
    if plan.card != card:
        raise PdfWriteError("the grid plan was made for a different card geometry; plan again for this card")
    if duplex not in ("long", "short", "none"):
        raise PdfWriteError(f"duplex must be 'long', 'short' or 'none', got {duplex!r}")
    if marks not in ("ticks", "lines", "none"):
        raise PdfWriteError(f"marks must be 'ticks', 'lines' or 'none', got {marks!r}")
    _check_faces(placements, faces)

    doc = _Doc(title, creation_epoch)
    outline = None if card.is_rectangular else doc.outline(card)
    with_backs = duplex != "none" and any(p.back is not None for p in placements)
    per = plan.per_sheet
    sheets = [placements[i : i + per] for i in range(0, len(placements), per)]
    reg_marks = plan.registration_marks() if registration else ()
    footer_y = _footer_baseline(plan) if footer is not None else None

    for number, sheet in enumerate(sheets, start=1):
        canvas = _Canvas(plan.paper_w, plan.paper_h)
        if marks == "lines":
            _cut_lines(canvas, plan, footer_y)
        for slot, placement in zip(plan.slots, sheet):
            face = doc.face(placement.front, faces[placement.front], card.art_width, card.art_height)
            canvas.form(face, plan.front_transform(slot), slot.clip)
        if outline is not None:
            for slot, _ in zip(plan.slots, sheet):
                canvas.form(outline, plan.front_transform(slot), None)
        if marks != "none":
            _ticks(canvas, plan, footer_y)
        for square in reg_marks:
            canvas.fill_rect(square)
        _footer(canvas, footer, footer_y, plan.block_bleed.x, number, len(sheets), "fronts")
        doc.add_page(canvas)

        if with_backs:
            canvas = _Canvas(plan.paper_w, plan.paper_h)
            for slot, placement in zip(plan.slots, sheet):
                if placement.back is None:
                    continue
                face = doc.face(placement.back, faces[placement.back], card.art_width, card.art_height)
                transform = plan.back_transform(slot, duplex, back_offset)
                canvas.form(face, transform, plan.back_clip(slot, duplex, back_offset))
            _footer(canvas, footer, footer_y, plan.block_bleed.x, number, len(sheets), "backs")
            doc.add_page(canvas)

    return doc.save(duplex if with_backs else "none")


def write_single(
    placements: Sequence[Placement],
    faces: Mapping[str, bytes],
    card: CardGeometry,
    *,
    creation_epoch: int | None = None,
    title: str = "",
) -> bytes:
    """One card per page for print services: page = bleed box, with TrimBox and BleedBox.

    Each front is followed by its back.  If any card has a back, every card gets a back
    page (blank when it has none) so fronts always stay on odd pages.
    """
    if not placements:
        raise PdfWriteError("no cards to print; the deck is empty")
    _check_faces(placements, faces)
    doc = _Doc(title, creation_epoch)
    aw, ah, b = card.art_width, card.art_height, card.bleed
    art = Rect(0.0, 0.0, aw, ah)
    any_back = any(p.back is not None for p in placements)
    trim_box = Array([b * K, b * K, (b + card.width) * K, (b + card.height) * K])
    for placement in placements:
        keys = [placement.front] + ([placement.back] if any_back else [])
        for key in keys:
            canvas = _Canvas(aw, ah)
            if key is not None:
                canvas.form(doc.face(key, faces[key], aw, ah), (1.0, 0.0, 0.0, 1.0, 0.0, 0.0), art)
            page = doc.add_page(canvas)
            page.obj.BleedBox = Array(page.obj.MediaBox)
            page.obj.TrimBox = trim_box
    return doc.save("none")


def write_tiled(
    face_pdf: bytes,
    width: float,
    height: float,
    paper_w: float,
    paper_h: float,
    *,
    margin: float = 5.0,
    overlap: float = 10.0,
    creation_epoch: int | None = None,
    title: str = "",
) -> bytes:
    """Print a large sheet (e.g. an A3 game mat) over several smaller pages to glue together.

    Each page shows its region of the sheet clipped to the printable area.  Strips that a
    neighbour will cover get a dashed "glue here" outline; crosshairs at the same sheet
    positions appear on both neighbours so the tiles can be aligned; crop ticks in the
    margin mark where to trim; every page is labelled A1, A2, … (row letter, column).
    """
    tiles = plan_tiles(width, height, paper_w, paper_h, margin=margin, overlap=overlap)
    doc = _Doc(title, creation_epoch)
    face = doc.face("tiled sheet", face_pdf, width, height)
    names = {(t.row, t.col): t.name for t in tiles.tiles}
    for tile in tiles.tiles:
        canvas = _Canvas(tiles.paper_w, tiles.paper_h)
        shift = (1.0, 0.0, 0.0, 1.0, margin - tile.region.x, margin - tile.region.y)
        area = tile.region.moved(margin - tile.region.x, margin - tile.region.y)
        canvas.form(face, shift, area)
        for band in (tile.glue_right, tile.glue_below):
            if band is not None:
                _glue_band(canvas, band.moved(shift[4], shift[5]), vertical=band is tile.glue_right)
        for x, y in _tile_crosshairs(tile, tiles.tiles):
            canvas.crosshair(x + shift[4], y + shift[5], 3.0)
        _crop_ticks(canvas, area)
        right = names.get((tile.row, tile.col + 1))
        below = names.get((tile.row + 1, tile.col))
        hint = f"tile {tile.name} of {tiles.cols}x{tiles.rows}"
        if right:
            hint += f" - {right} goes on the right"
        if below:
            hint += f" - {below} goes below"
        canvas.text(margin, max(margin - 1.5, 2.5), FOOTER_PT + 2, hint)
        doc.add_page(canvas)
    return doc.save("none")


def write_calibration(
    paper_w: float,
    paper_h: float,
    *,
    duplex: Duplex,
    creation_epoch: int | None = None,
) -> bytes:
    """Two pages that measure a printer's front/back misregistration and scaling.

    The front carries scales around five targets; the back carries crosshairs exactly
    behind the targets.  Held against the light, each crosshair line crosses a scale at
    the number to pass as --back-offset X,Y (the scales are labelled with the correction,
    already accounting for the mirror of the flip).  A 100 mm bar checks "print at 100 %".
    """
    if duplex not in ("long", "short"):
        raise PdfWriteError("the calibration page is for duplex printing; use duplex 'long' or 'short'")
    if min(paper_w, paper_h) < 100:
        raise PdfWriteError("the calibration page needs paper at least 100 mm wide; use a5 or larger")
    flip = sheet_flip(paper_w, paper_h, duplex)
    # A back shifted by e (back-page mm) appears shifted by L·e on the front, L = linear
    # part of the flip; the correction to pass is −e = −L·(observed shift).
    sign_x, sign_y = -flip[0], -flip[3]
    inset = min(30.0, min(paper_w, paper_h) / 5)
    targets = [
        (paper_w / 2, paper_h / 2),
        (inset, inset),
        (paper_w - inset, inset),
        (inset, paper_h - inset),
        (paper_w - inset, paper_h - inset),
    ]
    edge = "long" if duplex == "long" else "short"
    doc = _Doc("cardgen printer calibration", creation_epoch)

    front = _Canvas(paper_w, paper_h)
    for x, y in targets:
        _vernier(front, x, y, sign_x, sign_y)
    bar_y = paper_h / 2 + 22
    _scale_bar(front, paper_w / 2 - 50, bar_y)
    lines = [
        f"Print both pages double-sided, flip on {edge} edge, at 100 % (no 'fit to page').",
        "Hold the sheet against a light. At each target, the back's vertical line crosses the",
        "horizontal scale at X and its horizontal line crosses the vertical scale at Y.",
        "Use the average as: --back-offset X,Y  (mm). Check the bar above measures 100 mm.",
    ]
    for i, line in enumerate(lines):
        front.text(paper_w / 2 - 50, bar_y + 10 + 3.5 * i, 7, line)
    doc.add_page(front)

    back = _Canvas(paper_w, paper_h)
    for x, y in targets:
        bx, by = apply(flip, x, y)
        back.crosshair(bx, by, 8.0, with_halo=False)
    back.text(paper_w / 2 - 30, paper_h / 2 + 30, 7, f"back side - flipped on the {edge} edge")
    doc.add_page(back)
    return doc.save(duplex)


# --- document -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Form:
    """A Form XObject in the output and the affine map from its space to artwork mm."""

    name: str
    obj: pikepdf.Object
    to_art: Affine


class _Doc:
    """The output PDF: faces imported once each, pages appended, saved deterministically."""

    def __init__(self, title: str, creation_epoch: int | None) -> None:
        self.pdf = pikepdf.new()
        self.title = title
        self.epoch = creation_epoch
        self._sources: list[pikepdf.Pdf] = []  # foreign streams are read at save time
        self._by_key: dict[str, _Form] = {}
        self._by_digest: dict[bytes, _Form] = {}
        self._font = self.pdf.make_indirect(
            Dictionary(
                Type=Name.Font,
                Subtype=Name.Type1,
                BaseFont=Name.Helvetica,
                Encoding=Name.WinAnsiEncoding,
            )
        )

    def face(self, key: str, data: bytes, art_w: float, art_h: float) -> _Form:
        """Import a face once (by key, and by content so identical PDFs are shared)."""
        if key in self._by_key:
            return self._by_key[key]
        digest = hashlib.sha256(data).digest()
        if digest in self._by_digest:
            form = self._by_digest[digest]
        else:
            src = _open_face(key, data)
            xobj = _page_form(src)
            w, h = _box_size_mm(_form_box(xobj))
            if abs(w - art_w) > FACE_SIZE_TOLERANCE or abs(h - art_h) > FACE_SIZE_TOLERANCE:
                raise PdfWriteError(
                    f"face {key!r} is {fmt_mm(w)}×{fmt_mm(h)} mm but the card artwork must be "
                    f"{fmt_mm(art_w)}×{fmt_mm(art_h)} mm (trim + 2 × bleed); render its SVG at that size"
                )
            form = self._adopt(src, xobj, art_w, art_h)
            self._by_digest[digest] = form
        self._by_key[key] = form
        return form

    def outline(self, card: CardGeometry) -> _Form:
        """The card's cut path as a stroked form (rendered by cairosvg, which parses SVG paths)."""
        b = card.bleed
        stroke = MARK_WIDTH_PT / K
        svg = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{card.art_width}mm" height="{card.art_height}mm" '
            f'viewBox="{-b} {-b} {card.art_width} {card.art_height}">'
            f'<path d="{_xml_attr(card.cut_path)}" fill="none" stroke="{_MAGENTA_RGB}" stroke-width="{stroke}"/>'
            "</svg>"
        )
        try:
            import cairosvg  # imported here: loading cairo costs ~0.3 s a no-change rebuild never needs

            data = cairosvg.svg2pdf(bytestring=svg.encode("utf-8"))
        except Exception as exc:  # cairosvg raises assorted parse errors
            raise PdfWriteError(f"the card's cut_path is not valid SVG path data: {exc}") from None
        src = _open_face("cut outline", data)
        return self._adopt(src, _page_form(src), card.art_width, card.art_height)

    def _adopt(self, src: pikepdf.Pdf, xobj: pikepdf.Object, art_w: float, art_h: float) -> _Form:
        for key in ("/Metadata", "/PieceInfo", "/LastModified"):
            if key in xobj:
                del xobj[key]
        self._sources.append(src)
        obj = self.pdf.copy_foreign(xobj)
        x0, y0, x1, y1 = _form_box(obj)
        sx, sy = art_w / (x1 - x0), art_h / (y1 - y0)
        # Form space (pt, y up) -> artwork mm (origin top-left, y down).
        to_art = (sx, 0.0, 0.0, -sy, -x0 * sx, y1 * sy)
        return _Form(f"/Fx{len(self._sources) - 1}", obj, to_art)

    def add_page(self, canvas: _Canvas) -> pikepdf.Page:
        resources = Dictionary()
        if canvas.forms:
            resources.XObject = Dictionary({f.name: f.obj for f in canvas.forms.values()})
        if canvas.uses_font:
            resources.Font = Dictionary(Helv=self._font)
        page = pikepdf.Page(
            Dictionary(
                Type=Name.Page,
                MediaBox=Array([0, 0, canvas.w * K, canvas.h * K]),
                Resources=resources,
                Contents=self.pdf.make_stream(canvas.content()),
            )
        )
        self.pdf.pages.append(page)
        return self.pdf.pages[-1]

    def save(self, duplex: Duplex) -> bytes:
        prefs = Dictionary(PrintScaling=Name("/None"))
        if duplex == "long":
            prefs.Duplex = Name.DuplexFlipLongEdge
        elif duplex == "short":
            prefs.Duplex = Name.DuplexFlipShortEdge
        self.pdf.Root.ViewerPreferences = prefs
        info = Dictionary(Producer=pikepdf.String("cardgen"))
        if self.title:
            info.Title = pikepdf.String(self.title)
        if self.epoch is not None:
            stamp = datetime.fromtimestamp(self.epoch, tz=timezone.utc).strftime("D:%Y%m%d%H%M%SZ")
            info.CreationDate = pikepdf.String(stamp)
            info.ModDate = pikepdf.String(stamp)
        self.pdf.trailer.Info = self.pdf.make_indirect(info)
        out = io.BytesIO()
        self.pdf.save(
            out,
            deterministic_id=True,
            compress_streams=True,
            object_stream_mode=pikepdf.ObjectStreamMode.generate,
            fix_metadata_version=False,
        )
        return out.getvalue()


# --- content streams ----------------------------------------------------------------------


class _Canvas:
    """Builds one page's content stream from millimetre geometry (top-left origin)."""

    def __init__(self, w: float, h: float) -> None:
        self.w, self.h = w, h
        self.forms: dict[str, _Form] = {}
        self.uses_font = False
        self._ops: list[bytes] = []

    def to_pt(self) -> Affine:
        """Sheet mm (y down) -> PDF points (y up)."""
        return (K, 0.0, 0.0, -K, 0.0, self.h * K)

    def form(self, form: _Form, placement: Affine, clip: Rect | None) -> None:
        """Draw a form with artwork mm mapped onto the sheet by `placement`, optionally clipped."""
        self.forms[form.name] = form
        cm = compose(self.to_pt(), compose(placement, form.to_art))
        ops = "q "
        if clip is not None:
            ops += f"{self._rect(clip)} re W n "
        ops += f"{' '.join(_num(v) for v in cm)} cm {form.name} Do Q"
        self._ops.append(ops.encode("ascii"))

    def lines(
        self, segments: Sequence[tuple[float, float, float, float]], width_pt: float, gray: float = 0.0
    ) -> None:
        """Stroke straight segments (x1, y1, x2, y2 in mm) with butt caps."""
        if not segments:
            return
        ops = [f"q {_num(width_pt)} w 0 J {_num(gray)} G"]
        for x1, y1, x2, y2 in segments:
            ops.append(
                f"{_num(x1 * K)} {_num((self.h - y1) * K)} m {_num(x2 * K)} {_num((self.h - y2) * K)} l"
            )
        ops.append("S Q")
        self._ops.append(" ".join(ops).encode("ascii"))

    def dashed_rect(self, r: Rect, width_pt: float) -> None:
        self._ops.append(f"q {_num(width_pt)} w [2 2] 0 d 0 G {self._rect(r)} re S Q".encode("ascii"))

    def fill_rect(self, r: Rect) -> None:
        self._ops.append(f"q 0 g {self._rect(r)} re f Q".encode("ascii"))

    def crosshair(self, x: float, y: float, arm: float, with_halo: bool = True) -> None:
        """A + with a small circle; a white halo keeps it visible on dark artwork."""
        segs = [(x - arm, y, x + arm, y), (x, y - arm, x, y + arm)]
        if with_halo:
            self.lines(segs, MARK_WIDTH_PT * 3, gray=1.0)
        self.lines(segs, MARK_WIDTH_PT)

    def text(self, x: float, y: float, size_pt: float, text: str, *, vertical: bool = False) -> None:
        """Helvetica text with its baseline starting at (x, y) mm; vertical reads bottom to top."""
        self.uses_font = True
        a, b, c, d = (0, 1, -1, 0) if vertical else (1, 0, 0, 1)
        head = f"q 0 g BT /Helv {_num(size_pt)} Tf {a} {b} {c} {d} {_num(x * K)} {_num((self.h - y) * K)} Tm "
        self._ops.append(head.encode("ascii") + _pdf_string(text) + b" Tj ET Q")

    def content(self) -> bytes:
        return b"\n".join(self._ops) + b"\n"

    def _rect(self, r: Rect) -> str:
        return f"{_num(r.x * K)} {_num((self.h - r.bottom) * K)} {_num(r.w * K)} {_num(r.h * K)}"


def _num(v: float) -> str:
    """Compact fixed-point number: 5 decimals of a point is 0.0000035 mm."""
    text = f"{v:.5f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _pdf_string(text: str) -> bytes:
    """Encode text for a base-14 font with WinAnsiEncoding, replacing what it cannot show.

    Accented letters outside the encoding fall back to their base letter (é stays é,
    ő becomes o); anything else becomes "?", so no input can break the content stream.
    """
    out = bytearray()
    for ch in text:
        if ch in "\r\n\t":
            ch = " "
        try:
            encoded = ch.encode("cp1252")
        except UnicodeEncodeError:
            base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
            try:
                encoded = base.encode("cp1252") if base else b"?"
            except UnicodeEncodeError:
                encoded = b"?"
        if not encoded or encoded[0] < 0x20:
            encoded = b"?"
        out += encoded
    escaped = bytes(out).replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
    return b"(" + escaped + b")"


def _xml_attr(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


# --- marks --------------------------------------------------------------------------------


def _footer_baseline(plan: GridPlan) -> float | None:
    """Baseline (mm from top) for the footer below the bottom ticks, or None if no room.

    The footer goes under the tick marks when the bottom margin allows, else as low as
    the paper allows (bottom ticks then give way; the top ticks still mark every cut).
    """
    size = FOOTER_PT / K
    bottom = plan.block_bleed.bottom
    ideal = bottom + MARK_GAP + MARK_LENGTH + 1.0 + 0.75 * size
    lowest = plan.paper_h - EDGE_KEEP_OUT - 0.25 * size
    baseline = min(ideal, lowest)
    if baseline - 0.75 * size < bottom + 0.5:
        return None
    return baseline


def _footer(
    canvas: _Canvas, footer: Footer, baseline: float | None, x: float, sheet: int, sheets: int, side: str
) -> None:
    """Footer text starting at x (the block's left edge, clear of registration squares)."""
    if footer is None or baseline is None:
        return
    text = footer(sheet, sheets, side) if callable(footer) else f"{footer} · sheet {sheet}/{sheets} · {side}"
    if not text:
        return
    # Helvetica averages about half an em per character; cut long text rather than overflow.
    max_chars = int((canvas.w - x - EDGE_KEEP_OUT) / (0.55 * FOOTER_PT / K))
    if len(text) > max_chars:
        text = text[: max_chars - 3] + "..."
    canvas.text(x, baseline, FOOTER_PT, text)


def _ticks(canvas: _Canvas, plan: GridPlan, footer_y: float | None) -> None:
    """Short marks in the margin on the extension of every trim line, outside the bleed.

    Each tick starts MARK_GAP beyond the block's bleed edge and runs outwards; where the
    margin is too small for a visible tick (under 1 mm) that side is skipped.
    """
    blk = plan.block_bleed
    floor = plan.paper_h - EDGE_KEEP_OUT
    if footer_y is not None:
        floor = min(floor, footer_y - 0.75 * FOOTER_PT / K - 0.5)
    top = _span(blk.y - MARK_GAP, -1, EDGE_KEEP_OUT)
    bottom = _span(blk.bottom + MARK_GAP, +1, floor)
    left = _span(blk.x - MARK_GAP, -1, EDGE_KEEP_OUT)
    right = _span(blk.right + MARK_GAP, +1, plan.paper_w - EDGE_KEEP_OUT)
    segs = [(x, a, x, b) for x in plan.cut_xs for a, b in (top, bottom) if a is not None]
    segs += [(a, y, b, y) for y in plan.cut_ys for a, b in (left, right) if a is not None]
    canvas.lines(segs, MARK_WIDTH_PT)


def _span(start: float, direction: int, limit: float) -> tuple[float, float] | tuple[None, None]:
    """A tick from `start` running MARK_LENGTH in `direction`, stopped at `limit`."""
    end = start + direction * MARK_LENGTH
    end = max(end, limit) if direction < 0 else min(end, limit)
    if (end - start) * direction < 1.0:
        return (None, None)
    return (start, end)


def _cut_lines(canvas: _Canvas, plan: GridPlan, footer_y: float | None) -> None:
    """Full-length guillotine lines through every trim line, drawn before the artwork."""
    bottom = plan.paper_h - EDGE_KEEP_OUT
    if footer_y is not None:
        bottom = footer_y - 0.75 * FOOTER_PT / K - 0.5
    segs = [(x, EDGE_KEEP_OUT, x, bottom) for x in plan.cut_xs]
    segs += [(EDGE_KEEP_OUT, y, plan.paper_w - EDGE_KEEP_OUT, y) for y in plan.cut_ys]
    canvas.lines(segs, MARK_WIDTH_PT)


def _glue_band(canvas: _Canvas, band: Rect, *, vertical: bool) -> None:
    canvas.dashed_rect(band, MARK_WIDTH_PT)
    size = FOOTER_PT + 1
    if vertical:
        canvas.text(
            band.x + band.w / 2 + 0.35 * size / K, band.y + band.h / 2, size, "glue here", vertical=True
        )
    else:
        canvas.text(band.x + band.w / 2 - 8, band.y + band.h / 2 + 0.35 * size / K, size, "glue here")


def _tile_crosshairs(tile: Tile, tiles: Sequence[Tile]) -> list[tuple[float, float]]:
    """Sheet positions of alignment crosshairs this tile shares with its neighbours.

    Crosshairs sit in the middle of each overlap strip, a quarter and three quarters
    along it, and are drawn on both tiles of the pair so they can be laid over each other.
    """
    points: list[tuple[float, float]] = []
    for other in tiles:
        for band in (other.glue_right, other.glue_below):
            if band is None or not tile.region.overlaps(band):
                continue
            if band is other.glue_right:
                points += [(band.x + band.w / 2, band.y + band.h * f) for f in (0.25, 0.75)]
            else:
                points += [(band.x + band.w * f, band.y + band.h / 2) for f in (0.25, 0.75)]
    return [p for p in points if _inside(tile.region, *p)]


def _inside(r: Rect, x: float, y: float) -> bool:
    return r.x <= x <= r.right and r.y <= y <= r.bottom


def _crop_ticks(canvas: _Canvas, area: Rect) -> None:
    """Corner ticks in the margin marking the printed area's edges (where to trim)."""
    segs = []
    lo = EDGE_KEEP_OUT
    for x in (area.x, area.right):
        for y0, y1 in (
            (area.y - 1.0, max(area.y - 4.0, lo)),
            (area.bottom + 1.0, min(area.bottom + 4.0, canvas.h - lo)),
        ):
            if abs(y1 - y0) >= 1.0:
                segs.append((x, y0, x, y1))
    for y in (area.y, area.bottom):
        for x0, x1 in (
            (area.x - 1.0, max(area.x - 4.0, lo)),
            (area.right + 1.0, min(area.right + 4.0, canvas.w - lo)),
        ):
            if abs(x1 - x0) >= 1.0:
                segs.append((x0, y, x1, y))
    canvas.lines(segs, MARK_WIDTH_PT)


def _vernier(canvas: _Canvas, x: float, y: float, sign_x: float, sign_y: float) -> None:
    """Scales of ±6 mm through (x, y), labelled with the back offset that centres the back."""
    span = 6
    segs = [(x - span, y, x + span, y), (x, y - span, x, y + span)]
    for t in range(-span, span + 1):
        tick = 2.0 if t % 5 == 0 else 1.2
        segs.append((x + t, y, x + t, y - tick))
        segs.append((x, y + t, x + tick, y + t))
    canvas.lines(segs, 0.25)
    # Ticks point up and right, so labels go below and to the left, clear of the lines.
    for t in range(-span, span + 1, 2):
        if t == 0:
            continue
        canvas.text(x + t - 0.9, y + 2.2, 4, f"{sign_x * t:+.0f}")
        if t != 2:  # would sit on the horizontal scale's "-2"; the tick still reads fine
            canvas.text(x - 3.2, y + t + 0.5, 4, f"{sign_y * t:+.0f}")
    canvas.text(x + span + 1.0, y + 0.5, 5, "X")
    canvas.text(x - 0.7, y + span + 2.4, 5, "Y")


def _scale_bar(canvas: _Canvas, x: float, y: float) -> None:
    """A 100 mm bar with millimetre ticks: measure it to confirm 100 % printing."""
    segs = [(x, y, x + 100, y)]
    for t in range(101):
        tick = 4.0 if t % 10 == 0 else (2.5 if t % 5 == 0 else 1.5)
        segs.append((x + t, y, x + t, y - tick))
    canvas.lines(segs, 0.3)
    for t in range(0, 101, 10):
        canvas.text(x + t - 1.2, y - 5.0, 5, str(t))
    canvas.text(x + 102, y, 6, "100 mm")


# --- inputs -------------------------------------------------------------------------------


def _check_faces(placements: Sequence[Placement], faces: Mapping[str, bytes]) -> None:
    missing = sorted({k for p in placements for k in (p.front, p.back) if k is not None and k not in faces})
    if missing:
        shown = ", ".join(repr(k) for k in missing[:5]) + (" …" if len(missing) > 5 else "")
        raise PdfWriteError(f"no rendered face for {shown}; every front/back key needs an entry in faces")


def _open_face(key: str, data: bytes) -> pikepdf.Pdf:
    try:
        src = pikepdf.open(io.BytesIO(data))
    except pikepdf.PdfError as exc:
        raise PdfWriteError(f"face {key!r} is not a readable PDF ({exc}); re-render it") from None
    if len(src.pages) != 1:
        raise PdfWriteError(f"face {key!r} has {len(src.pages)} pages; a face must be a one-page PDF")
    return src


def _page_form(src: pikepdf.Pdf) -> pikepdf.Object:
    """The face's page as a Form XObject, its content compressed by :func:`deflate`.

    cairo writes one content stream per page, uncompressed in the build's workers (see
    :func:`cardgen.draw.render_pdf`) and Flate-compressed elsewhere; either way it is
    compressed here, once, from the same decoded bytes, so a file does not depend on which
    process drew its faces. (qpdf's own conversion would decode and compress it again at
    save: 80 % of imposition time, measured.) Anything else goes through qpdf's general
    conversion."""
    page = src.pages[0]
    contents = page.obj.get("/Contents")
    _decode_nested_streams(src, contents)
    if (isinstance(contents, pikepdf.Stream) and contents.get("/Filter") in (None, Name.FlateDecode)
            and "/DecodeParms" not in contents and "/Resources" in page.obj and "/Rotate" not in page.obj
            and "/UserUnit" not in page.obj):
        raw = contents.read_raw_bytes()
        if contents.get("/Filter") is not None:
            raw = _flate.decompress(raw)
        form = pikepdf.Stream(src, b"")
        form.write(deflate(raw), filter=Name.FlateDecode)
        form.Type, form.Subtype = Name.XObject, Name.Form
        form.BBox = Array(page.mediabox)
        form.Resources = page.obj.Resources
        if "/Group" in page.obj:
            form.Group = page.obj.Group
        return form
    return page.as_form_xobject()


def _decode_nested_streams(src: pikepdf.Pdf, contents: object) -> None:
    """Store the face's other streams (transparency groups, patterns, soft masks, images)
    decoded, as the build's workers draw them (cairo compresses only in other processes).

    qpdf compresses every stream at save either way, to the same bytes, but it lists the
    ``/Filter`` it adds after a stream's other keys, where one read from cairo's file keeps
    its sorted place: without this, ``--jobs 1`` and ``--jobs 2`` wrote different files. A
    stream with ``/DecodeParms`` (predictors) or another filter (JPEG) is the same in both."""
    skip = contents.objgen if isinstance(contents, pikepdf.Object) else None
    for obj in src.objects:
        if (isinstance(obj, pikepdf.Stream) and obj.objgen != skip and obj.get("/Filter") == Name.FlateDecode
                and "/DecodeParms" not in obj):
            obj.write(_flate.decompress(obj.read_raw_bytes()))


def _form_box(xobj: pikepdf.Object) -> tuple[float, float, float, float]:
    """Visible box of a form in the space it is drawn in (BBox under its /Matrix)."""
    x0, y0, x1, y1 = (float(v) for v in xobj.BBox)
    matrix = tuple(float(v) for v in xobj.get("/Matrix", [1, 0, 0, 1, 0, 0]))
    pts = [apply(matrix, x, y) for x in (x0, x1) for y in (y0, y1)]  # type: ignore[arg-type]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return (min(xs), min(ys), max(xs), max(ys))


def _box_size_mm(box: tuple[float, float, float, float]) -> tuple[float, float]:
    return ((box[2] - box[0]) / K, (box[3] - box[1]) / K)


__all__ = [
    "PdfWriteError",
    "write_calibration",
    "write_sheets",
    "write_single",
    "write_tiled",
]
