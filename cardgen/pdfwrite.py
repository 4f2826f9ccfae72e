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
import math
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
    Polygon,
    Rect,
    Segment,
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

CUT_LINE_PT = 0.25
"""Hairline drawn exactly on a shaped piece's cut line: a guide for scissors that never
strays onto the artwork (it is the line itself)."""

CUT_LINE_GRAY = 0.45
"""Mid grey: shows on light and dark artwork alike."""

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

_CUT_LINE_RGB = "#737373"   # CUT_LINE_GRAY as an SVG colour


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
        _fronts(doc, canvas, plan, sheet, faces, outline, marks, footer_y)
        for square in reg_marks:
            canvas.fill_rect(square)
        _footer(canvas, footer, footer_y, plan.block_bleed.x, number, len(sheets), "fronts")
        doc.add_page(canvas)
        if with_backs:
            canvas = _Canvas(plan.paper_w, plan.paper_h)
            _backs(doc, canvas, plan, sheet, faces, duplex, back_offset)
            _footer(canvas, footer, footer_y, plan.block_bleed.x, number, len(sheets), "backs")
            doc.add_page(canvas)

    return doc.save(duplex if with_backs else "none")


def write_shared(
    bands: Sequence[tuple[GridPlan, Sequence[Placement]]],
    faces: Mapping[str, bytes],
    *,
    duplex: Duplex = "long",
    marks: Marks = "ticks",
    back_offset: tuple[float, float] = (0.0, 0.0),
    footer: Footer = None,
    title: str = "",
    creation_epoch: int | None = None,
) -> bytes:
    """One sheet shared by the pieces of several small components, each component's block
    where its plan puts it (see :func:`cardgen.imposition.stack_bands`), with its own marks;
    a backs page follows if any of them has backs."""
    if not bands or any(not placements for _plan, placements in bands):
        raise PdfWriteError("no pieces to print on the shared sheet")
    for plan, placements in bands:
        _check_faces(placements, faces)
        if len(placements) > plan.per_sheet:
            raise PdfWriteError("a component sharing a sheet must fit on it")
    doc = _Doc(title, creation_epoch)
    lowest = max((plan for plan, _ in bands), key=lambda p: p.block_bleed.bottom)
    first = bands[0][0]
    footer_y = _footer_baseline(lowest) if footer is not None else None
    with_backs = duplex != "none" and any(p.back is not None for _plan, ps in bands for p in ps)
    canvas = _Canvas(first.paper_w, first.paper_h)
    for plan, placements in bands:
        outline = None if plan.card.is_rectangular else doc.outline(plan.card)
        _fronts(doc, canvas, plan, placements, faces, outline, marks, footer_y)
    _footer(canvas, footer, footer_y, min(p.block_bleed.x for p, _ in bands), 1, 1, "fronts")
    doc.add_page(canvas)
    if with_backs:
        canvas = _Canvas(first.paper_w, first.paper_h)
        for plan, placements in bands:
            _backs(doc, canvas, plan, placements, faces, duplex, back_offset)
        _footer(canvas, footer, footer_y, min(p.block_bleed.x for p, _ in bands), 1, 1, "backs")
        doc.add_page(canvas)
    return doc.save(duplex if with_backs else "none")


def _fronts(doc: _Doc, canvas: _Canvas, plan: GridPlan, sheet: Sequence[Placement], faces: Mapping[str, bytes],
            outline: _Form | None, marks: Marks, footer_y: float | None) -> None:
    """One sheet's fronts of one plan: artwork, cut guides and tick marks."""
    card = plan.card
    if marks == "lines":
        _cut_lines(canvas, plan, footer_y, len(sheet))
    pieces = list(zip(plan.slots, sheet))
    if plan.layout == "tessellated":
        # bleed beyond the block's outer edges first; each piece's own outline on top,
        # so no piece's bleed ever covers a neighbour
        for slot, placement in pieces:
            if slot.bleed_polygon != slot.polygon:
                face = doc.face(placement.front, faces[placement.front], card.art_width, card.art_height)
                canvas.form(face, plan.front_transform(slot), slot.clip, slot.bleed_polygon)
        for slot, placement in pieces:
            face = doc.face(placement.front, faces[placement.front], card.art_width, card.art_height)
            canvas.form(face, plan.front_transform(slot), slot.clip, slot.polygon)
        canvas.lines(plan.cut_lines(len(sheet)), CUT_LINE_PT, gray=CUT_LINE_GRAY)
    else:
        for slot, placement in pieces:
            face = doc.face(placement.front, faces[placement.front], card.art_width, card.art_height)
            canvas.form(face, plan.front_transform(slot), slot.clip)
        if outline is not None:
            for slot, _ in pieces:
                canvas.form(outline, plan.front_transform(slot), None)
    if marks != "none":
        _ticks(canvas, plan, footer_y, len(sheet))


def _backs(doc: _Doc, canvas: _Canvas, plan: GridPlan, sheet: Sequence[Placement], faces: Mapping[str, bytes],
           duplex: Duplex, back_offset: tuple[float, float]) -> None:
    """One sheet's backs of one plan, each behind its front."""
    card = plan.card
    backs = [(slot, p.back) for slot, p in zip(plan.slots, sheet) if p.back is not None]
    passes = ("bleed_polygon", "polygon") if plan.layout == "tessellated" else (None,)
    for outline_of in passes:
        for slot, key in backs:
            shape = getattr(slot, outline_of) if outline_of else None
            if outline_of == "bleed_polygon" and slot.bleed_polygon == slot.polygon:
                continue
            face = doc.face(key, faces[key], card.art_width, card.art_height)
            transform = plan.back_transform(slot, duplex, back_offset)
            canvas.form(face, transform, plan.back_clip(slot, duplex, back_offset),
                        plan.back_polygon(shape, duplex, back_offset) if shape else None)


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


@dataclass(frozen=True)
class TileLabels:
    """The words printed on tiled pages (the build passes them translated).

    ``tile`` has {name}, {cols} and {rows}; ``right`` and ``below`` have {name}; ``prefix``
    (game · component · language) starts the label line."""

    tile: str = "tile {name} of {cols}×{rows}"
    right: str = "{name} goes on the right"
    below: str = "{name} goes below"
    glue: str = "glue here"
    prefix: str = ""


def write_tiled(
    face_pdf: bytes | Sequence[bytes],
    width: float,
    height: float,
    paper_w: float,
    paper_h: float,
    *,
    margin: float = 5.0,
    overlap: float = 10.0,
    creation_epoch: int | None = None,
    title: str = "",
    labels: TileLabels = TileLabels(),
) -> bytes:
    """Print a large sheet (e.g. an A3 game mat) over several smaller pages to glue together.

    Each page shows its region of the sheet clipped to the printable area.  Strips that a
    neighbour will cover get a dashed "glue here" outline; crosshairs at the same sheet
    positions appear on both neighbours so the tiles can be aligned; crop ticks in the
    margin mark where to trim; every page is labelled A1, A2, … (row letter, column), the
    label inside the printable area where the tile leaves room, clear of the crop ticks.
    Several faces (class sets of a mat) are tiled one after the other.
    """
    tiles = plan_tiles(width, height, paper_w, paper_h, margin=margin, overlap=overlap)
    doc = _Doc(title, creation_epoch)
    names = {(t.row, t.col): t.name for t in tiles.tiles}
    sources = [face_pdf] if isinstance(face_pdf, bytes) else list(face_pdf)
    if not sources:
        raise PdfWriteError("no sheet to tile")
    for copy, source in enumerate(sources):
        face = doc.face(f"tiled sheet {copy}", source, width, height)
        for tile in tiles.tiles:
            canvas = _Canvas(tiles.paper_w, tiles.paper_h)
            shift = (1.0, 0.0, 0.0, 1.0, margin - tile.region.x, margin - tile.region.y)
            area = tile.region.moved(margin - tile.region.x, margin - tile.region.y)
            canvas.form(face, shift, area)
            for band in (tile.glue_right, tile.glue_below):
                if band is not None:
                    _glue_band(canvas, band.moved(shift[4], shift[5]), vertical=band is tile.glue_right,
                               words=labels.glue)
            for x, y in _tile_crosshairs(tile, tiles.tiles):
                canvas.crosshair(x + shift[4], y + shift[5], 3.0)
            _crop_ticks(canvas, area)
            right = names.get((tile.row, tile.col + 1))
            below = names.get((tile.row + 1, tile.col))
            parts = [labels.prefix] if labels.prefix else []
            parts.append(labels.tile.format(name=tile.name, cols=tiles.cols, rows=tiles.rows))
            if right:
                parts.append(labels.right.format(name=right))
            if below:
                parts.append(labels.below.format(name=below))
            x, y, room = tile_label_position(area, tiles.paper_w, tiles.paper_h, margin)
            line = " · ".join(parts)
            _footer(canvas, lambda *_: line, y, x, 0, 0, "", TILE_LABEL_PT, room)
            doc.add_page(canvas)
    return doc.save("none")


TILE_LABEL_PT = FOOTER_PT + 2
"""Tile labels are read while assembling: a little larger than the footer."""


def tile_label_position(area: Rect, paper_w: float, paper_h: float, margin: float) -> tuple[float, float, float]:
    """Start of a tile label's baseline (mm) and the width it may take: inside the printable
    area below the tile, past the reach of the crop ticks, when the tile leaves room there;
    else above it; else between the corner ticks (starting 6 mm in, the ticks reach 4 mm)."""
    size = TILE_LABEL_PT / K
    reach = CROP_TICK_REACH + 0.5
    if paper_h - margin - area.bottom >= reach + size:
        return area.x, area.bottom + reach + 0.8 * size, paper_w - margin - area.x
    if area.y - margin >= reach + size:
        return area.x, area.y - reach - 0.2 * size, paper_w - margin - area.x
    baseline = min(paper_h - EDGE_KEEP_OUT - 0.25 * size, area.bottom + 1.0 + 0.8 * size)
    return area.x + CROP_TICK_REACH + 2.0, baseline, area.w - 2 * (CROP_TICK_REACH + 2.0)


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
        self.fonts = _GlyphFonts(self.pdf)

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
        """The card's cut path as a stroked form, drawn like the faces (by :mod:`cardgen.draw`,
        whose SVG parser reads the path data)."""
        b = card.bleed
        stroke = CUT_LINE_PT / K
        svg = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{card.art_width}mm" height="{card.art_height}mm" '
            f'viewBox="{-b} {-b} {card.art_width} {card.art_height}">'
            f'<path d="{_xml_attr(card.cut_path)}" fill="none" stroke="{_CUT_LINE_RGB}" stroke-width="{stroke}"/>'
            "</svg>"
        )
        from .draw import render_svg_pdf  # here: loading cairo costs ~0.3 s a no-change rebuild never needs

        try:
            data = render_svg_pdf(svg)
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
        content = canvas.content(self.fonts)
        if self.fonts.used_on_page:
            resources.Font = Dictionary({f"/{name}": self.fonts.fonts[name] for name in sorted(self.fonts.used_on_page)})
            self.fonts.used_on_page.clear()
        page = pikepdf.Page(
            Dictionary(
                Type=Name.Page,
                MediaBox=Array([0, 0, canvas.w * K, canvas.h * K]),
                Resources=resources,
                Contents=self.pdf.make_stream(content),
            )
        )
        self.pdf.pages.append(page)
        return self.pdf.pages[-1]

    def save(self, duplex: Duplex) -> bytes:
        self.fonts.finish()
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
        self._ops: list[bytes | _TextItem] = []

    def to_pt(self) -> Affine:
        """Sheet mm (y down) -> PDF points (y up)."""
        return (K, 0.0, 0.0, -K, 0.0, self.h * K)

    def form(self, form: _Form, placement: Affine, clip: Rect | None, shape: Polygon | None = None) -> None:
        """Draw a form with artwork mm mapped onto the sheet by `placement`, optionally
        clipped to a rectangle and (within it) to a polygon."""
        self.forms[form.name] = form
        cm = compose(self.to_pt(), compose(placement, form.to_art))
        ops = "q "
        if clip is not None:
            ops += f"{self._rect(clip)} re W n "
        if shape:
            x0, y0 = shape[0]
            ops += f"{_num(x0 * K)} {_num((self.h - y0) * K)} m "
            ops += " ".join(f"{_num(x * K)} {_num((self.h - y) * K)} l" for x, y in shape[1:])
            ops += " h W n "
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
        """Text with its baseline starting at (x, y) mm (vertical: reading bottom to top),
        shaped by the text engine in the bundled Noto fonts the cards use, in every script.
        Its glyphs go into a Type 3 font embedded in the file (see :class:`_GlyphFonts`), so
        no page names a font a print shop's preflight would find missing, and the text can
        still be searched and copied."""
        self._ops.append(_TextItem(x, y, size_pt, _one_line(text), vertical))

    def text_width(self, size_pt: float, text: str) -> float:
        """Advance width of one line of text, mm."""
        return _engine().measure(_one_line(text), size=size_pt / K)

    def content(self, fonts: _GlyphFonts | None = None) -> bytes:
        """The page's content stream; its text's glyphs are registered with ``fonts``."""
        parts = []
        for op in self._ops:
            if isinstance(op, _TextItem):
                if fonts is None:
                    raise PdfWriteError("a page with text needs the document's fonts")
                parts.append(fonts.show(op, self.h))
            else:
                parts.append(op)
        return b"\n".join(parts) + b"\n"

    def _rect(self, r: Rect) -> str:
        return f"{_num(r.x * K)} {_num((self.h - r.bottom) * K)} {_num(r.w * K)} {_num(r.h * K)}"


def _engine():
    from .text import TextEngine   # here: the font chain loads only when a page has text

    return TextEngine.default()


def _one_line(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class _TextItem:
    """Text waiting for the document's fonts (a page's glyphs are numbered when it is added)."""

    x: float
    y: float
    size_pt: float
    text: str
    vertical: bool


class _GlyphFonts:
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

    def show(self, item: _TextItem, page_h: float) -> bytes:
        """Content-stream operators drawing ``item``: one positioned glyph at a time."""
        if not item.text:
            return b""
        result = _engine().layout(item.text, size=item.size_pt / K, valign="baseline")
        text = item.text
        fs = result.size * K
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
                    a, b, c, d = (0.0, fs, -fs, 0.0) if item.vertical else (fs, 0.0, 0.0, fs)
                    ops.append(f"{_num(a)} {_num(b)} {_num(c)} {_num(d)} {_num(px * K)} {_num((page_h - py) * K)} Tm "
                               f"<{code:02x}> Tj")
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
    """A Type 3 glyph procedure: the glyph's outline in 1/1000 em, filled in the current colour."""
    from fontTools.pens.basePen import BasePen

    scale = 1000.0 / face.upem
    ops = [f"{_num(width)} 0 d0"]

    class Pen(BasePen):
        def _pt(self, p: tuple[float, float]) -> str:
            return f"{_num(p[0] * scale)} {_num(p[1] * scale)}"

        def _moveTo(self, p):  # type: ignore[no-untyped-def]
            ops.append(f"{self._pt(p)} m")

        def _lineTo(self, p):  # type: ignore[no-untyped-def]
            ops.append(f"{self._pt(p)} l")

        def _curveToOne(self, p1, p2, p3):  # type: ignore[no-untyped-def]
            ops.append(f"{self._pt(p1)} {self._pt(p2)} {self._pt(p3)} c")

        def _closePath(self) -> None:
            ops.append("h")

    if face.has_outline(gid):   # a space has none: it is still a glyph, so text keeps its spaces
        face.draw_glyph(gid, Pen(face.glyph_set))   # the glyph set resolves composite glyphs
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


def _num(v: float) -> str:
    """Compact fixed-point number: 5 decimals of a point is 0.0000035 mm."""
    text = f"{v:.5f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


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
    canvas: _Canvas, footer: Footer, baseline: float | None, x: float, sheet: int, sheets: int, side: str,
    size_pt: float = FOOTER_PT, room: float | None = None,
) -> None:
    """Footer text starting at x (the block's left edge, clear of registration squares)."""
    if footer is None or baseline is None:
        return
    text = footer(sheet, sheets, side) if callable(footer) else f"{footer} · sheet {sheet}/{sheets} · {side}"
    if not text:
        return
    room = canvas.w - x - EDGE_KEEP_OUT if room is None else room
    while len(text) > 4 and canvas.text_width(size_pt, text) > room:   # cut long text rather than overflow
        text = text[: max(4, int(len(text) * room / canvas.text_width(size_pt, text))) - 2] + "…"
    canvas.text(x, baseline, size_pt, text)


def _ticks(canvas: _Canvas, plan: GridPlan, footer_y: float | None, used: int | None = None) -> None:
    """Short marks in the margin on the extension of every trim line, outside the bleed.

    Each tick starts MARK_GAP beyond the block's bleed edge and runs outwards; where the
    margin is too small for a visible tick (under 1 mm) that side is skipped.
    """
    blk = plan.block_bleed
    floor = plan.paper_h - EDGE_KEEP_OUT
    if footer_y is not None:
        floor = min(floor, footer_y - 0.75 * FOOTER_PT / K - 0.5)
    if plan.layout == "tessellated":
        canvas.lines(_line_ticks(plan, floor, used), MARK_WIDTH_PT)
        return
    top = _span(blk.y - MARK_GAP, -1, EDGE_KEEP_OUT)
    bottom = _span(blk.bottom + MARK_GAP, +1, floor)
    left = _span(blk.x - MARK_GAP, -1, EDGE_KEEP_OUT)
    right = _span(blk.right + MARK_GAP, +1, plan.paper_w - EDGE_KEEP_OUT)
    segs = [(x, a, x, b) for x in plan.cut_xs for a, b in (top, bottom) if a is not None]
    segs += [(a, y, b, y) for y in plan.cut_ys for a, b in (left, right) if a is not None]
    canvas.lines(segs, MARK_WIDTH_PT)


def _line_ticks(plan: GridPlan, floor: float, used: int | None) -> list[Segment]:
    """Ticks on both extensions of every slanted cut line, beyond all printed artwork.

    Along the line, the art of every piece (its outline grown by the printed bleed) is
    measured; a tick starts MARK_GAP past the last of it and runs MARK_LENGTH outwards,
    stopped before the paper's keep-out and the footer."""
    slots = plan.slots[: plan.per_sheet if used is None else used]
    art = [s.bleed_polygon or s.polygon for s in slots if s.polygon]
    area = Rect(EDGE_KEEP_OUT, EDGE_KEEP_OUT, plan.paper_w - 2 * EDGE_KEEP_OUT, floor - EDGE_KEEP_OUT)
    segs: list[Segment] = []
    for x1, y1, x2, y2 in plan.cut_lines(used):
        length = math.hypot(x2 - x1, y2 - y1)
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        spans = [_line_through(poly, x1, y1, ux, uy) for poly in art]
        spans = [sp for sp in spans if sp is not None]
        lo = min([0.0] + [sp[0] for sp in spans])
        hi = max([length] + [sp[1] for sp in spans])
        inside = _line_through(_rect_polygon(area), x1, y1, ux, uy)
        if inside is None:
            continue
        for start, direction, limit in ((hi + MARK_GAP, 1, inside[1]), (lo - MARK_GAP, -1, inside[0])):
            end = start + direction * MARK_LENGTH
            end = min(end, limit) if direction > 0 else max(end, limit)
            if (end - start) * direction >= 1.0:
                segs.append((x1 + ux * start, y1 + uy * start, x1 + ux * end, y1 + uy * end))
    return segs


def _rect_polygon(r: Rect) -> Polygon:
    return ((r.x, r.y), (r.right, r.y), (r.right, r.bottom), (r.x, r.bottom))


def _line_through(poly: Polygon, x: float, y: float, ux: float, uy: float) -> tuple[float, float] | None:
    """Parameters (along the unit direction from (x, y)) where a line enters and leaves a
    convex polygon, or None if it misses it."""
    lo, hi = -math.inf, math.inf
    n = len(poly)
    cx, cy = sum(p[0] for p in poly) / n, sum(p[1] for p in poly) / n
    for k in range(n):
        (ax, ay), (bx, by) = poly[k], poly[(k + 1) % n]
        nx, ny = by - ay, -(bx - ax)                 # a normal of the edge...
        if (cx - ax) * nx + (cy - ay) * ny > 0:
            nx, ny = -nx, -ny                        # ...pointing outwards
        denom = ux * nx + uy * ny
        dist = (ax - x) * nx + (ay - y) * ny         # inside where (p − a)·n <= 0
        if abs(denom) < 1e-12:
            if dist < 0:
                return None
            continue
        t = dist / denom
        if denom > 0:
            hi = min(hi, t)
        else:
            lo = max(lo, t)
    return (lo, hi) if lo <= hi else None


def _span(start: float, direction: int, limit: float) -> tuple[float, float] | tuple[None, None]:
    """A tick from `start` running MARK_LENGTH in `direction`, stopped at `limit`."""
    end = start + direction * MARK_LENGTH
    end = max(end, limit) if direction < 0 else min(end, limit)
    if (end - start) * direction < 1.0:
        return (None, None)
    return (start, end)


def _cut_lines(canvas: _Canvas, plan: GridPlan, footer_y: float | None, used: int | None = None) -> None:
    """Full-length guillotine lines through every trim line, drawn before the artwork
    (tessellated pieces: their cut lines, run on to the ticks' reach)."""
    bottom = plan.paper_h - EDGE_KEEP_OUT
    if footer_y is not None:
        bottom = footer_y - 0.75 * FOOTER_PT / K - 0.5
    if plan.layout == "tessellated":
        canvas.lines(plan.cut_lines(used), MARK_WIDTH_PT)
        return
    segs = [(x, EDGE_KEEP_OUT, x, bottom) for x in plan.cut_xs]
    segs += [(EDGE_KEEP_OUT, y, plan.paper_w - EDGE_KEEP_OUT, y) for y in plan.cut_ys]
    canvas.lines(segs, MARK_WIDTH_PT)


def _glue_band(canvas: _Canvas, band: Rect, *, vertical: bool, words: str = "glue here") -> None:
    canvas.dashed_rect(band, MARK_WIDTH_PT)
    size = FOOTER_PT + 1
    half = canvas.text_width(size, words) / 2
    if vertical:
        canvas.text(band.x + band.w / 2 + 0.35 * size / K, band.y + band.h / 2 + half, size, words, vertical=True)
    else:
        canvas.text(band.x + band.w / 2 - half, band.y + band.h / 2 + 0.35 * size / K, size, words)


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


CROP_TICK_REACH = 4.0
"""How far a tile's corner crop ticks reach out from its printed area, mm."""


def _crop_ticks(canvas: _Canvas, area: Rect) -> None:
    """Corner ticks in the margin marking the printed area's edges (where to trim)."""
    segs = []
    lo, reach = EDGE_KEEP_OUT, CROP_TICK_REACH
    for x in (area.x, area.right):
        for y0, y1 in (
            (area.y - 1.0, max(area.y - reach, lo)),
            (area.bottom + 1.0, min(area.bottom + reach, canvas.h - lo)),
        ):
            if abs(y1 - y0) >= 1.0:
                segs.append((x, y0, x, y1))
    for y in (area.y, area.bottom):
        for x0, x1 in (
            (area.x - 1.0, max(area.x - reach, lo)),
            (area.right + 1.0, min(area.right + reach, canvas.w - lo)),
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

    cairo writes one Flate-compressed content stream per page (see
    :func:`cardgen.draw.render_pdf`); it is decoded and compressed here, once, at this
    module's level, so a file depends only on the drawing operators (a face stored without
    compression gives the same form). (qpdf's own conversion would decode and compress it
    again at save: 80 % of imposition time, measured.) Anything else goes through qpdf's
    general conversion."""
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
    decoded, so that whether cairo compressed them does not show in the file.

    qpdf compresses every stream at save either way, to the same bytes, but it lists the
    ``/Filter`` it adds after a stream's other keys, where one read from cairo's file keeps
    its sorted place: a face stored uncompressed would otherwise give a different file. A
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
    "write_shared",
    "write_sheets",
    "write_single",
    "write_tiled",
]
