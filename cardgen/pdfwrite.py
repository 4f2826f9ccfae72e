"""Print-ready PDFs from one-page face PDFs: imposed sheets, single cards, tiles, calibration.

Every distinct face is imported once as a Form XObject and drawn wherever it is needed
with a `cm` matrix, so a 44-card deck with 5 faces carries 5 copies of the artwork (and
its fonts), not 44.  Geometry comes from `imposition` in millimetres; this module only
converts to points (origin bottom-left) and writes.

Output is byte-for-byte reproducible: no timestamps unless the caller passes one, and
the document ID is derived from the content.

A writer reads the faces it is given one at a time (a mapping that reads them from disk
serves), and given a file (``to``) writes the document there rather than returning its
bytes: a deck of thousands of faces is never held in memory (see :class:`cardgen.pdfdoc.Doc`).

The writers here lay out pages; :mod:`cardgen.pdfdoc` holds the document and imports faces,
:mod:`cardgen.pdfcontent` writes content streams and the text's fonts, :mod:`cardgen.pdfmarks`
draws the marks around the artwork.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import BinaryIO


from .imposition import (REGISTRATION_GAP, REGISTRATION_SIZE, CardGeometry, Duplex, GridPlan, Placement, Rect, apply,
                         plan_tiles, sheet_flip)
from .pdfcontent import K, Canvas
from .pdfdoc import Doc, Form, PdfWriteError, check_faces, deflate
from .pdfmarks import (
    CUT_LINE_GRAY,
    CUT_LINE_PT,
    TILE_LABEL_PT,
    Footer,
    Marks,
    back_footer_baseline,
    draw_crop_ticks,
    draw_crosshair,
    draw_cut_lines,
    draw_footer,
    draw_glue_band,
    draw_scale_bar,
    draw_ticks,
    draw_vernier,
    footer_baseline,
    tile_crosshairs,
    tile_label_position,
)


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
    to: BinaryIO | None = None,
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
    check_faces(placements, faces)

    with Doc(title, creation_epoch) as doc:
        doc.prepare(_keys(placements, card), faces)
        outline = None if card.is_rectangular else doc.outline(card)
        with_backs = duplex != "none" and any(p.back is not None for p in placements)
        per = plan.per_sheet
        sheets = [placements[i : i + per] for i in range(0, len(placements), per)]
        reg_marks = plan.registration_marks() if registration else ()
        # with registration squares the layout's margin holds them; the footer may use the paper
        # printable beyond it (the squares sit off the block's corners, the footer under it)
        printable = plan.margin - REGISTRATION_SIZE - REGISTRATION_GAP if registration else None
        footer_y = footer_baseline(plan, printable) if footer is not None else None
        art = plan.block_bleed
        back_footer_y = back_footer_baseline(plan.paper_h, art.y, art.bottom, duplex, back_offset[1], footer_y)

        for number, sheet in enumerate(sheets, start=1):
            canvas = Canvas(plan.paper_w, plan.paper_h)
            _fronts(doc, canvas, plan, sheet, outline, marks, footer_y)
            for square in reg_marks:
                canvas.fill_rect(square)
            draw_footer(canvas, footer, footer_y, plan.block_bleed.x, number, len(sheets), "fronts")
            doc.add_page(canvas)
            if with_backs:
                canvas = Canvas(plan.paper_w, plan.paper_h)
                _backs(doc, canvas, plan, sheet, duplex, back_offset)
                draw_footer(canvas, footer, back_footer_y, plan.block_bleed.x, number, len(sheets), "backs")
                doc.add_page(canvas)

        return doc.save(duplex if with_backs else "none", to)


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
    to: BinaryIO | None = None,
) -> bytes:
    """One sheet shared by the pieces of several small components, each component's block
    where its plan puts it (see :func:`cardgen.imposition.stack_bands`), with its own marks;
    a backs page follows if any of them has backs."""
    if not bands or any(not placements for _plan, placements in bands):
        raise PdfWriteError("no pieces to print on the shared sheet")
    for plan, placements in bands:
        check_faces(placements, faces)
        if len(placements) > plan.per_sheet:
            raise PdfWriteError("a component sharing a sheet must fit on it")
    with Doc(title, creation_epoch) as doc:
        doc.prepare((k for plan, placements in bands for k in _keys(placements, plan.card)), faces)
        lowest = max((plan for plan, _ in bands), key=lambda p: p.block_bleed.bottom)
        first = bands[0][0]
        footer_y = footer_baseline(lowest) if footer is not None else None
        with_backs = duplex != "none" and any(p.back is not None for _plan, ps in bands for p in ps)
        canvas = Canvas(first.paper_w, first.paper_h)
        strips = _strips([plan.block_bleed for plan, _ in bands], first.paper_h)
        for (plan, placements), strip in zip(bands, strips):
            outline = None if plan.card.is_rectangular else doc.outline(plan.card)
            _fronts(doc, canvas, plan, placements, outline, marks, footer_y, strip)
        draw_footer(canvas, footer, footer_y, min(p.block_bleed.x for p, _ in bands), 1, 1, "fronts")
        doc.add_page(canvas)
        if with_backs:
            canvas = Canvas(first.paper_w, first.paper_h)
            for plan, placements in bands:
                _backs(doc, canvas, plan, placements, duplex, back_offset)
            art_top = min(plan.block_bleed.y for plan, _ in bands)
            back_footer_y = back_footer_baseline(first.paper_h, art_top, lowest.block_bleed.bottom, duplex,
                                                 back_offset[1], footer_y)
            draw_footer(canvas, footer, back_footer_y, min(p.block_bleed.x for p, _ in bands), 1, 1, "backs")
            doc.add_page(canvas)
        return doc.save(duplex if with_backs else "none", to)


def _strips(blocks: Sequence[Rect], paper_h: float) -> list[tuple[float, float]]:
    """The strip of a shared sheet each stacked block has to itself (top and bottom, mm):
    from halfway to the block above to halfway to the block below, or to the paper's edges."""
    order = sorted(range(len(blocks)), key=lambda i: blocks[i].y)
    strips: list[tuple[float, float]] = [(0.0, paper_h)] * len(blocks)
    for k, i in enumerate(order):
        above = (blocks[order[k - 1]].bottom + blocks[i].y) / 2 if k else 0.0
        below = (blocks[i].bottom + blocks[order[k + 1]].y) / 2 if k + 1 < len(order) else paper_h
        strips[i] = (above, below)
    return strips


def _fronts(doc: Doc, canvas: Canvas, plan: GridPlan, sheet: Sequence[Placement], outline: Form | None,
            marks: Marks, footer_y: float | None, strip: tuple[float, float] | None = None) -> None:
    """One sheet's fronts of one plan: artwork, cut guides and tick marks (``strip``: the
    part of a shared sheet the plan's pieces have to themselves, see :func:`_strips`)."""
    if marks == "lines":
        draw_cut_lines(canvas, plan, footer_y, len(sheet), strip)
    pieces = list(zip(plan.slots, sheet))
    if plan.layout == "tessellated":
        # bleed beyond the block's outer edges first; each piece's own outline on top,
        # so no piece's bleed ever covers a neighbour
        for slot, placement in pieces:
            if slot.bleed_polygon != slot.polygon:
                face = doc.face(placement.front)
                canvas.form(face, plan.front_transform(slot), slot.clip, slot.bleed_polygon)
        for slot, placement in pieces:
            face = doc.face(placement.front)
            canvas.form(face, plan.front_transform(slot), slot.clip, slot.polygon)
        canvas.lines(plan.cut_lines(len(sheet)), CUT_LINE_PT, gray=CUT_LINE_GRAY)
    else:
        for slot, placement in pieces:
            face = doc.face(placement.front)
            canvas.form(face, plan.front_transform(slot), slot.clip)
        if outline is not None:
            for slot, _ in pieces:
                canvas.form(outline, plan.front_transform(slot), None)
    if marks != "none":
        draw_ticks(canvas, plan, footer_y, len(sheet))


def _backs(doc: Doc, canvas: Canvas, plan: GridPlan, sheet: Sequence[Placement],
           duplex: Duplex, back_offset: tuple[float, float]) -> None:
    """One sheet's backs of one plan, each behind its front."""
    backs = [(slot, p.back) for slot, p in zip(plan.slots, sheet) if p.back is not None]
    passes = ("bleed_polygon", "polygon") if plan.layout == "tessellated" else (None,)
    for outline_of in passes:
        for slot, key in backs:
            shape = getattr(slot, outline_of) if outline_of else None
            if outline_of == "bleed_polygon" and slot.bleed_polygon == slot.polygon:
                continue
            face = doc.face(key)
            transform = plan.back_transform(slot, duplex, back_offset)
            canvas.form(face, transform, plan.back_clip(slot, duplex, back_offset),
                        plan.back_polygon(shape, duplex, back_offset) if shape else None)


def _keys(placements: Sequence[Placement], card: CardGeometry) -> Iterable[tuple[str | None, float, float]]:
    """The faces of some placements, in the order they are placed, with their artwork size."""
    return ((key, card.art_width, card.art_height) for p in placements for key in (p.front, p.back))


def write_single(
    placements: Sequence[Placement],
    faces: Mapping[str, bytes],
    card: CardGeometry,
    *,
    creation_epoch: int | None = None,
    to: BinaryIO | None = None,
    title: str = "",
) -> bytes:
    """One card per page for print services: page = bleed box, with TrimBox and BleedBox.

    Each front is followed by its back.  If any card has a back, every card gets a back
    page (blank when it has none) so fronts always stay on odd pages.
    """
    if not placements:
        raise PdfWriteError("no cards to print; the deck is empty")
    check_faces(placements, faces)
    with Doc(title, creation_epoch) as doc:
        doc.prepare(_keys(placements, card), faces)
        aw, ah, b = card.art_width, card.art_height, card.bleed
        art = Rect(0.0, 0.0, aw, ah)
        any_back = any(p.back is not None for p in placements)
        trim_box = (b * K, b * K, (b + card.width) * K, (b + card.height) * K)
        for placement in placements:
            keys = [placement.front] + ([placement.back] if any_back else [])
            for key in keys:
                canvas = Canvas(aw, ah)
                if key is not None:
                    canvas.form(doc.face(key), (1.0, 0.0, 0.0, 1.0, 0.0, 0.0), art)
                doc.add_page(canvas, trim_box)
        return doc.save("none", to)


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
    to: BinaryIO | None = None,
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
    with Doc(title, creation_epoch) as doc:
        names = {(t.row, t.col): t.name for t in tiles.tiles}
        sources = [face_pdf] if isinstance(face_pdf, bytes) else list(face_pdf)
        if not sources:
            raise PdfWriteError("no sheet to tile")
        names_of = [f"tiled sheet {copy}" for copy in range(len(sources))]
        doc.prepare(((name, width, height) for name in names_of), dict(zip(names_of, sources)))
        for name in names_of:
            face = doc.face(name)
            for tile in tiles.tiles:
                canvas = Canvas(tiles.paper_w, tiles.paper_h)
                shift = (1.0, 0.0, 0.0, 1.0, margin - tile.region.x, margin - tile.region.y)
                area = tile.region.moved(margin - tile.region.x, margin - tile.region.y)
                canvas.form(face, shift, area)
                for band in (tile.glue_right, tile.glue_below):
                    if band is not None:
                        draw_glue_band(canvas, band.moved(shift[4], shift[5]), vertical=band is tile.glue_right,
                                   words=labels.glue)
                for x, y in tile_crosshairs(tile, tiles.tiles):
                    draw_crosshair(canvas, x + shift[4], y + shift[5], 3.0)
                draw_crop_ticks(canvas, area, margin)
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
                draw_footer(canvas, lambda *_: line, y, x, 0, 0, "", TILE_LABEL_PT, room)
                doc.add_page(canvas)
        return doc.save("none", to)


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
    with Doc("cardgen printer calibration", creation_epoch) as doc:

        front = Canvas(paper_w, paper_h)
        for x, y in targets:
            draw_vernier(front, x, y, sign_x, sign_y)
        bar_y = paper_h / 2 + 22
        draw_scale_bar(front, paper_w / 2 - 50, bar_y)
        lines = [
            f"Print both pages double-sided, flip on {edge} edge, at 100 % (no 'fit to page').",
            "Hold the sheet against a light. At each target, the back's vertical line crosses the",
            "horizontal scale at X and its horizontal line crosses the vertical scale at Y.",
            "Use the average as: --back-offset X,Y  (mm). Check the bar above measures 100 mm.",
        ]
        for i, line in enumerate(lines):
            front.text(paper_w / 2 - 50, bar_y + 10 + 3.5 * i, 7, line)
        doc.add_page(front)

        back = Canvas(paper_w, paper_h)
        for x, y in targets:
            bx, by = apply(flip, x, y)
            draw_crosshair(back, bx, by, 8.0, with_halo=False)
        back.text(paper_w / 2 - 30, paper_h / 2 + 30, 7, f"back side - flipped on the {edge} edge")
        doc.add_page(back)
        return doc.save(duplex)


__all__ = [
    "PdfWriteError",
    "TileLabels",
    "deflate",
    "write_calibration",
    "write_shared",
    "write_sheets",
    "write_single",
    "write_tiled",
]
