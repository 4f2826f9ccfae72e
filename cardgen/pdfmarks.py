"""Marks printed around the artwork: cut ticks and guillotine lines, footers, tile glue
bands, crosshairs and crop ticks, and the calibration page's scales. Geometry in sheet
millimetres, drawn on a :class:`~cardgen.pdfcontent.Canvas`. Part of the print stage
(:mod:`cardgen.pdfwrite`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Literal

from .imposition import MARK_ROOM, GridPlan, Polygon, Rect, Segment, Tile
from .imposition.geometry import bbox
from .pdfcontent import K, Canvas

Marks = Literal["ticks", "lines", "none"]
Footer = Callable[[int, int, str], str] | str | None

MARK_WIDTH_PT = 0.3
"""Cut-mark stroke: thick enough to print on any home printer (hairlines vanish)."""

CUT_LINE_PT = 0.25
"""Hairline drawn exactly on a shaped piece's cut line: a guide for scissors that never
strays onto the artwork (it is the line itself)."""

CUT_LINE_GRAY = 0.45
"""Mid grey: shows on light and dark artwork alike."""

MARK_GAP = 2.0
"""Distance from the block's bleed edge to the start of a tick mark, mm."""

MIN_MARK_GAP = 0.5
"""The gap a tick keeps from the bleed edge when the printable margin leaves less room, mm."""

MIN_PRINTED_TICK = 2.0
"""How much of a tick must lie inside the printable area (beyond ``--margin``) to guide a
cut, mm: a tick that starts MARK_GAP out and runs into the unprintable margin prints as a
speck or not at all."""

MARK_LENGTH = 4.5
"""Length of a tick mark, mm."""

EDGE_KEEP_OUT = 1.0
"""Nothing reaches closer to the paper edge than this, mm: marks touching the edge look
cropped and tempt users to print "fit to page", which scales the cards."""

FOOTER_PT = 6.0
"""Footer font size: legible, small enough for a 5 mm margin."""

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


class FooterSpot(float):
    """A footer's baseline (mm from the top) that remembers the printable margin it keeps to,
    so the backs page keeps to it too (see :func:`back_footer_baseline`)."""

    margin: float = EDGE_KEEP_OUT

    def __new__(cls, baseline: float, margin: float) -> FooterSpot:
        spot = super().__new__(cls, baseline)
        spot.margin = margin
        return spot


class SideFooter(float):
    """A footer set vertically (reading bottom to top) in the left margin, for a sheet whose
    block leaves no printable room above or below it for ticks and a footer (3 × 3 poker cards
    on US Letter). Its value is where the text starts (mm from the top); ``x`` is its
    baseline, ``room`` the length it may take, ``right`` the edge of its band that the
    left-hand ticks stay clear of."""

    x: float
    room: float
    right: float

    def __new__(cls, start: float, x: float, room: float, right: float) -> SideFooter:
        spot = super().__new__(cls, start)
        spot.x, spot.room, spot.right = x, room, right
        return spot


def footer_baseline(plan: GridPlan, printable: float | None = None) -> float | None:
    """Where the footer goes, always inside the printable area (``--margin``), or None if
    no room: below the bottom ticks when the bottom margin allows (they give way to it when
    the top ticks still mark every cut); else in the left margin, set vertically
    (:class:`SideFooter`) beside the row ticks; else, where the layout's margin is wider than
    the paper's printable margin (``printable``: it holds print-and-cut registration squares,
    off the block's corners), in the band below the block between the two."""
    found = _footer_in_margin(plan)
    if found is not None or printable is None or printable >= plan.margin:
        return found
    size = FOOTER_PT / K
    keep = max(printable, EDGE_KEEP_OUT)
    baseline = plan.paper_h - keep - 0.25 * size
    if baseline - 0.75 * size >= max(plan.block_bleed.bottom, plan.paper_h - plan.margin) + 0.5:
        return FooterSpot(baseline, keep)
    return None


def _footer_in_margin(plan: GridPlan) -> float | None:
    size = FOOTER_PT / K
    margin = max(plan.margin, EDGE_KEEP_OUT)
    blk = plan.block_bleed
    ideal = blk.bottom + MARK_GAP + MARK_LENGTH + 1.0 + 0.75 * size
    baseline = min(ideal, plan.paper_h - margin - 0.25 * size)   # clear of the unprintable margin
    top_ticks = blk.y - margin >= MIN_MARK_GAP + 1.0
    bottom_ticks = baseline - 0.75 * size - 0.5 - blk.bottom >= MIN_MARK_GAP + 1.0
    if baseline - 0.75 * size >= blk.bottom + 0.5 and (top_ticks or bottom_ticks):
        return FooterSpot(baseline, margin)
    if blk.x - margin >= size + 0.5 + MARK_ROOM:     # beside the row ticks, which give way a little
        start = min(blk.bottom, plan.paper_h - margin)
        return SideFooter(start, margin + 0.75 * size, start - margin, margin + size)
    if blk.x - margin >= size + 0.5:                 # between two row ticks, which keep their length
        stops = [margin] + [y for y in plan.cut_ys if margin < y < plan.paper_h - margin] + [plan.paper_h - margin]
        gaps = [(b - a - (0.5 if a > margin else 0) - (0.5 if b < plan.paper_h - margin else 0), a, b)
                for a, b in zip(stops, stops[1:])]
        room, _top, bottom = max(gaps)
        if room >= 10 * size:
            start = bottom - (0.5 if bottom < plan.paper_h - margin else 0)
            return SideFooter(start, margin + 0.75 * size, room, -math.inf)
    return None


def marks_missing(plan: GridPlan, footer_y: float | None, used: int | None = None) -> bool:
    """Whether some trim line of the first ``used`` pieces gets no printable tick at either
    end (ticks stay inside ``--margin``), for a build to say so."""
    if plan.layout == "tessellated" or not plan.card.is_rectangular:
        return False
    top, bottom, left, right = _tick_spans(plan, footer_y, used)
    return (top[0] is None and bottom[0] is None) or (left[0] is None and right[0] is None)


def back_footer_baseline(paper_h: float, art_top: float, art_bottom: float, duplex: str,
                         offset_y: float, footer_y: float | None) -> float | None:
    """Baseline of the footer on a backs page: the fronts' (``footer_y``) where the backs
    leave it clear, else above the backs, else below them (None: no room anywhere).

    The fronts' printed art spans ``art_top``–``art_bottom`` (mm from the top); a short-edge
    flip turns that span upside down on the backs page, and the back offset moves it: a
    sheet whose pieces are not centred (small pieces stacked from the top of a shared
    sheet) has its backs where the fronts' footer is."""
    if footer_y is None:
        return None
    if isinstance(footer_y, SideFooter):
        return footer_y   # in the side margin, clear of the backs (they are centred like the fronts)
    size = FOOTER_PT / K
    top, bottom = (paper_h - art_bottom, paper_h - art_top) if duplex == "short" else (art_top, art_bottom)
    top, bottom = top + offset_y, bottom + offset_y
    # clear of the backs as the fronts' footer is of the fronts (see footer_baseline): its
    # ascent above the baseline, its descent below
    if footer_y - 0.75 * size >= bottom + 0.5 or footer_y + 0.25 * size <= top - 0.5:
        return footer_y
    keep = max(getattr(footer_y, "margin", EDGE_KEEP_OUT), EDGE_KEEP_OUT)   # the printable area's edge
    above = top - 1.0 - size
    if above - size >= keep:
        return above
    below = bottom + 1.0 + size
    if below + size <= paper_h - keep:
        return below
    return None


def draw_footer(
    canvas: Canvas, footer: Footer, baseline: float | None, x: float, sheet: int, sheets: int, side: str,
    size_pt: float = FOOTER_PT, room: float | None = None,
) -> None:
    """Footer text starting at x (the block's left edge, clear of registration squares)."""
    if footer is None or baseline is None:
        return
    text = footer(sheet, sheets, side) if callable(footer) else f"{footer} · sheet {sheet}/{sheets} · {side}"
    if not text:
        return
    vertical = isinstance(baseline, SideFooter)
    if vertical:
        x, room = baseline.x, baseline.room
    room = canvas.w - x - EDGE_KEEP_OUT if room is None else room
    while len(text) > 4 and canvas.text_width(size_pt, text) > room:   # cut long text rather than overflow
        text = text[: max(4, int(len(text) * room / canvas.text_width(size_pt, text))) - 2] + "…"
    canvas.text(x, baseline, size_pt, text, vertical=vertical)


def draw_ticks(canvas: Canvas, plan: GridPlan, footer_y: float | None, used: int | None = None) -> None:
    """Short marks in the margin on the extension of every trim line of the first ``used``
    pieces (a sheet's last, partly filled, page marks the cuts its pieces need, no more),
    outside the bleed.

    Each tick starts MARK_GAP beyond the block's bleed edge and runs outwards, or nearer the
    bleed edge (down to MIN_MARK_GAP) where that leaves MIN_PRINTED_TICK of it inside the
    printable area (``--margin``), and stops at it: what the printer cannot print is not
    drawn. Where the printable area leaves no room for a visible tick (under 1 mm) that side
    is skipped (see :func:`marks_missing`).
    """
    if plan.layout == "tessellated":
        canvas.lines(_line_ticks(plan, _floor(plan, footer_y), used), MARK_WIDTH_PT)
        return
    if not plan.used_slots(used):
        return
    top, bottom, left, right = _tick_spans(plan, footer_y, used)
    xs, ys = plan.trim_positions(used)
    segs = [(x, a, x, b) for x in xs for a, b in (top, bottom) if a is not None]
    segs += [(a, y, b, y) for y in ys for a, b in (left, right) if a is not None]
    canvas.lines(segs, MARK_WIDTH_PT)


def _floor(plan: GridPlan, footer_y: float | None) -> float:
    """The lowest a mark reaches: the printable area's bottom, or above a footer below the block."""
    floor = plan.paper_h - max(plan.margin, EDGE_KEEP_OUT)
    if footer_y is not None and not isinstance(footer_y, SideFooter):
        floor = min(floor, footer_y - 0.75 * FOOTER_PT / K - 0.5)
    return floor


def _tick_spans(plan: GridPlan, footer_y: float | None, used: int | None) -> tuple[tuple, tuple, tuple, tuple]:
    """The spans of the ticks above, below, left and right of the block of the first ``used``
    pieces ((None, None) where the printable area leaves no room), all inside ``--margin``."""
    blk = bbox([s.clip for s in plan.used_slots(used)])
    margin = max(plan.margin, EDGE_KEEP_OUT)
    floor = _floor(plan, footer_y)
    lo_x = max(margin, footer_y.right + 0.5) if isinstance(footer_y, SideFooter) else margin
    hi_x = plan.paper_w - margin
    top = _span(blk.y - _gap(blk.y - margin), -1, margin)
    bottom = _span(blk.bottom + _gap(floor - blk.bottom), +1, floor)
    left = _span(blk.x - _gap(blk.x - lo_x), -1, lo_x)
    right = _span(blk.right + _gap(hi_x - blk.right), +1, hi_x)
    return top, bottom, left, right


def _line_ticks(plan: GridPlan, floor: float, used: int | None) -> list[Segment]:
    """Ticks on both extensions of every slanted cut line, beyond all printed artwork.

    Along the line, the art of every piece (its outline grown by the printed bleed) is
    measured; a tick starts MARK_GAP past the last of it and runs MARK_LENGTH outwards,
    stopped before the paper's keep-out and the footer."""
    slots = plan.used_slots(used)
    art = [s.bleed_polygon or s.polygon for s in slots if s.polygon]
    margin = max(plan.margin, EDGE_KEEP_OUT)
    area = Rect(margin, margin, plan.paper_w - 2 * margin, floor - margin)
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


def _gap(room: float) -> float:
    """The gap between the bleed edge and a tick, given the printable ``room`` beyond the
    bleed edge (up to the margin): MARK_GAP where it leaves MIN_PRINTED_TICK printed, less
    (not under MIN_MARK_GAP) where that brings more of the tick into print."""
    return max(MIN_MARK_GAP, min(MARK_GAP, room - MIN_PRINTED_TICK))


def _span(start: float, direction: int, limit: float) -> tuple[float, float] | tuple[None, None]:
    """A tick from `start` running MARK_LENGTH in `direction`, stopped at `limit`."""
    end = start + direction * MARK_LENGTH
    end = max(end, limit) if direction < 0 else min(end, limit)
    if (end - start) * direction < 1.0:
        return (None, None)
    return (start, end)


def draw_cut_lines(canvas: Canvas, plan: GridPlan, footer_y: float | None, used: int | None = None,
                   band: tuple[float, float] | None = None) -> None:
    """Full-length guillotine lines through every trim line of the first ``used`` pieces,
    drawn before the artwork (tessellated pieces: their cut lines, run on to the ticks'
    reach). ``band``: the top and bottom (mm) of the strip of the sheet these pieces have
    to themselves (a sheet shared with other components' pieces): vertical lines stay in
    it, never running through the others' pieces."""
    top, bottom = EDGE_KEEP_OUT, plan.paper_h - EDGE_KEEP_OUT
    left = footer_y.right + 0.5 if isinstance(footer_y, SideFooter) else EDGE_KEEP_OUT
    if footer_y is not None and not isinstance(footer_y, SideFooter):
        bottom = footer_y - 0.75 * FOOTER_PT / K - 0.5
    if band is not None:
        top, bottom = max(top, band[0]), min(bottom, band[1])
    if plan.layout == "tessellated":
        canvas.lines(plan.cut_lines(used), MARK_WIDTH_PT)
        return
    xs, ys = plan.trim_positions(used)
    segs = [(x, top, x, bottom) for x in xs]
    segs += [(left, y, plan.paper_w - EDGE_KEEP_OUT, y) for y in ys]
    canvas.lines(segs, MARK_WIDTH_PT)


def draw_glue_band(canvas: Canvas, band: Rect, *, vertical: bool, words: str = "glue here") -> None:
    canvas.dashed_rect(band, MARK_WIDTH_PT)
    size = FOOTER_PT + 1
    half = canvas.text_width(size, words) / 2
    if vertical:
        canvas.text(band.x + band.w / 2 + 0.35 * size / K, band.y + band.h / 2 + half, size, words, vertical=True)
    else:
        canvas.text(band.x + band.w / 2 - half, band.y + band.h / 2 + 0.35 * size / K, size, words)


def tile_crosshairs(tile: Tile, tiles: Sequence[Tile]) -> list[tuple[float, float]]:
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


def draw_crosshair(canvas: Canvas, x: float, y: float, arm: float, with_halo: bool = True) -> None:
    """A + with a small circle; a white halo keeps it visible on dark artwork."""
    segs = [(x - arm, y, x + arm, y), (x, y - arm, x, y + arm)]
    if with_halo:
        canvas.lines(segs, MARK_WIDTH_PT * 3, gray=1.0)
    canvas.lines(segs, MARK_WIDTH_PT)


CROP_TICK_REACH = 4.0
"""How far a tile's corner crop ticks reach out from its printed area, mm."""


def draw_crop_ticks(canvas: Canvas, area: Rect, margin: float = EDGE_KEEP_OUT) -> None:
    """Corner ticks marking the printed area's edges (where to trim), kept inside the printable
    area (``margin``): a tick in the strip a printer cannot print is not drawn rather than lost
    (a tile that reaches the margin keeps the ticks on its other sides)."""
    segs = []
    lo, reach = max(margin, EDGE_KEEP_OUT), CROP_TICK_REACH
    for x in (area.x, area.right):
        for y0, y1 in (
            (area.y - 1.0, max(area.y - reach, lo)),
            (area.bottom + 1.0, min(area.bottom + reach, canvas.h - lo)),
        ):
            if (y1 - y0) * (1 if y0 > area.y else -1) >= 1.0:   # outwards, at least 1 mm printable
                segs.append((x, y0, x, y1))
    for y in (area.y, area.bottom):
        for x0, x1 in (
            (area.x - 1.0, max(area.x - reach, lo)),
            (area.right + 1.0, min(area.right + reach, canvas.w - lo)),
        ):
            if (x1 - x0) * (1 if x0 > area.x else -1) >= 1.0:
                segs.append((x0, y, x1, y))
    canvas.lines(segs, MARK_WIDTH_PT)


def draw_vernier(canvas: Canvas, x: float, y: float, sign_x: float, sign_y: float) -> None:
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


def draw_scale_bar(canvas: Canvas, x: float, y: float) -> None:
    """A 100 mm bar with millimetre ticks: measure it to confirm 100 % printing."""
    segs = [(x, y, x + 100, y)]
    for t in range(101):
        tick = 4.0 if t % 10 == 0 else (2.5 if t % 5 == 0 else 1.5)
        segs.append((x + t, y, x + t, y - tick))
    canvas.lines(segs, 0.3)
    for t in range(0, 101, 10):
        canvas.text(x + t - 1.2, y - 5.0, 5, str(t))
    canvas.text(x + 102, y, 6, "100 mm")
