"""Interlocking rows of a parallelogram piece (a lozenge), packed edge to edge by its
outline so every edge is a shared straight cut, and the choice between them and a grid."""

from __future__ import annotations

import math

from ..paper import fmt_mm, label_for_size
from .geometry import CardGeometry, Point, Polygon, Rect, Slot, distinct, printed_bleed
from .grid import plan_grid
from .plan import FOOTER_ROOM, GridPlan


def plan_sheet(
    paper_w: float,
    paper_h: float,
    card: CardGeometry,
    *,
    margin: float = 5.0,
    gutter: float | None = None,
    bleed: float | None = None,
    paper_label: str | None = None,
    count: int | None = None,
) -> GridPlan:
    """The best layout for a piece: a grid, or for a parallelogram outline (a lozenge) the
    interlocking rows of :func:`plan_tessellation` when they need fewer sheets (or hold
    more per sheet) — every edge then a shared straight cut."""
    grid = plan_grid(paper_w, paper_h, card, margin=margin, gutter=gutter, bleed=bleed,
                     paper_label=paper_label, count=count)
    if card.outline is None or _lattice_vectors(card.outline) is None or (gutter or 0) > 0:
        return grid
    tess = plan_tessellation(paper_w, paper_h, card, margin=margin, bleed=bleed, paper_label=paper_label)
    if tess is None:
        return grid
    n = count or 1
    if tess.paper_h - margin - tess.block_bleed.bottom < FOOTER_ROOM and tess.block_bleed.x - margin < FOOTER_ROOM:
        # interlocking rows that fill the printable area leave no room for the sheet's footer
        # and its ticks below them: keep a band when that costs no sheet (and, for an unknown
        # count, no piece)
        kept = plan_tessellation(paper_w, paper_h, card, margin=margin, bleed=bleed, paper_label=paper_label,
                                 reserve=FOOTER_ROOM)
        if kept is not None and kept.paper_w == tess.paper_w and (
                kept.per_sheet == tess.per_sheet or (count and -(-n // kept.per_sheet) == -(-n // tess.per_sheet))):
            tess = kept
    if (-(-n // tess.per_sheet), -tess.per_sheet) <= (-(-n // grid.per_sheet), -grid.per_sheet):
        return tess
    return grid


def plan_tessellation(
    paper_w: float,
    paper_h: float,
    card: CardGeometry,
    *,
    margin: float = 5.0,
    bleed: float | None = None,
    paper_label: str | None = None,
    reserve: float = 0.0,
) -> GridPlan | None:
    """Pack a parallelogram piece (a lozenge) edge to edge by its outline (``reserve``: mm kept
    free above the bottom margin, for the footer).

    A parallelogram tiles the plane by translations along its own two edges, so pieces
    placed on that lattice share every inner edge and each line their edges lie on is one
    straight cut. (A lozenge turned 180° is the same lozenge, so alternating rows turned
    half a turn are this same lattice.) Every sheet orientation and both card turns are
    tried, with the lattice shifted so pieces touch the printable area's top and left edges;
    the block is then centred. The bleed is printed only beyond the block's outer edges
    (and within the printable area). None when no piece fits or the outline is no
    parallelogram."""
    if card.outline is None or _lattice_vectors(card.outline) is None:
        return None
    label = paper_label or label_for_size(paper_w, paper_h)
    b = printed_bleed(card, bleed)
    best = _best_lattice(paper_w, paper_h, card, margin, reserve)
    if best is None:
        return None
    sw, sh, rotated, outline, offsets = best
    pw, ph = (card.height, card.width) if rotated else (card.width, card.height)
    xs = [ox for ox, _ in offsets]
    ys = [oy for _, oy in offsets]
    dx = (sw - (max(xs) + pw - min(xs))) / 2 - min(xs)
    dy = (sh - reserve - (max(ys) + ph - min(ys))) / 2 - min(ys)
    placed = [(ox + dx, oy + dy) for ox, oy in offsets]
    printable = Rect(margin, margin, sw - 2 * margin, sh - 2 * margin - reserve)
    slots = _slots(placed, outline, (pw, ph), rotated, b, printable)
    note = ""
    if b > 0:
        note = f"{fmt_mm(b)} mm bleed printed around the block only"
    return GridPlan(
        paper_w=float(sw), paper_h=float(sh), paper_label=label,
        orientation="landscape" if sw > sh else "portrait",
        rows=max(s.row for s in slots) + 1, cols=max(s.col for s in slots) + 1, layout="tessellated",
        rotated=rotated, card=card, bleed=float(b), gutter=0.0, margin=float(margin), slots=tuple(slots), note=note,
    )


def _best_lattice(paper_w: float, paper_h: float, card: CardGeometry, margin: float,
                  reserve: float = 0.0) -> tuple[float, float, bool, Polygon, list[Point]] | None:
    """Sheet size, card turn, outline and piece offsets of the lattice holding the most pieces
    (ties: cards upright, then the sheet as given); None when no piece fits."""
    assert card.outline is not None
    best: tuple[tuple, tuple] | None = None
    for turn_sheet, (sw, sh) in enumerate(((paper_w, paper_h), (paper_h, paper_w))):
        for rotated in (False, True):
            outline = _turned(card.outline, card.width) if rotated else tuple(card.outline)
            offsets = _lattice_fit(outline, sw - 2 * margin, sh - 2 * margin - reserve)
            if not offsets:
                continue
            rank = (len(offsets), not rotated, not turn_sheet)
            if best is None or rank > best[0]:
                best = (rank, (sw, sh, rotated, outline, offsets))
    return None if best is None else best[1]


def _slots(offsets: list[Point], outline: Polygon, size: Point, rotated: bool, bleed: float,
           printable: Rect) -> list[Slot]:
    """The pieces at ``offsets`` (of the outline's bounding box, ``size`` mm) as slots in reading order:
    rows top to bottom, each left to right; bleed only on edges no neighbour shares, kept
    within the printable area."""
    row_ys = distinct([oy for _, oy in offsets], tol=1e-3)

    def row_of(y: float) -> int:
        return min(range(len(row_ys)), key=lambda r: abs(row_ys[r] - y))

    placed = sorted(offsets, key=lambda p: (row_of(p[1]), p[0]))
    polygons = [tuple((x + ox, y + oy) for x, y in outline) for ox, oy in placed]
    slots = []
    for index, ((ox, oy), poly) in enumerate(zip(placed, polygons)):
        row = row_of(oy)
        col = sum(1 for x2, y2 in placed if row_of(y2) == row and x2 < ox - 1e-6)
        grown = _offset_polygon(poly, [0.0 if _shares_edge(poly, k, polygons) else bleed for k in range(len(poly))])
        slots.append(Slot(index, row, col, Rect(ox, oy, *size), _clip_to(_poly_bbox(grown), printable), rotated,
                          poly, grown))
    return slots


def _poly_bbox(poly: Polygon) -> Rect:
    xs, ys = [x for x, _ in poly], [y for _, y in poly]
    return Rect(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))


def _clip_to(r: Rect, bounds: Rect) -> Rect:
    """The part of r inside bounds."""
    x0, y0 = max(r.x, bounds.x), max(r.y, bounds.y)
    x1, y1 = min(r.right, bounds.right), min(r.bottom, bounds.bottom)
    return Rect(x0, y0, max(x1 - x0, 0.0), max(y1 - y0, 0.0))


def _turned(outline: Polygon, width: float) -> Polygon:
    """The outline of a card turned a quarter turn counter-clockwise (its top on the left),
    as :meth:`GridPlan.front_transform` turns the artwork: (u, v) -> (v, width − u)."""
    return tuple((v, width - u) for u, v in outline)


def _lattice_vectors(outline: Polygon) -> tuple[Point, Point] | None:
    """The two edge vectors of a parallelogram (which tile the plane), or None."""
    if len(outline) != 4:
        return None
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = outline
    e1, e2 = (x1 - x0, y1 - y0), (x3 - x0, y3 - y0)
    if abs((x2 - x1) - e2[0]) > 1e-6 or abs((y2 - y1) - e2[1]) > 1e-6:
        return None
    if abs(e1[0] * e2[1] - e1[1] * e2[0]) < 1e-9:
        return None
    return e1, e2


def _lattice_fit(outline: Polygon, avail_w: float, avail_h: float) -> list[Point]:
    """Offsets (of the outline's bounding-box corner) of the most lattice pieces whose
    bounding boxes fit an avail_w × avail_h area with its top-left at (0, 0).

    The best shifts put some piece against the left edge and some piece against the top
    edge, so only those shifts are tried: one per lattice point near the origin."""
    vectors = _lattice_vectors(outline)
    if vectors is None:
        return []
    (ax, ay), (bx, by) = vectors
    minx, miny = min(x for x, _ in outline), min(y for _, y in outline)
    pw, ph = max(x for x, _ in outline) - minx, max(y for _, y in outline) - miny
    if pw > avail_w + 1e-9 or ph > avail_h + 1e-9:
        return []
    near = [(i * ax + j * bx, i * ay + j * by) for i in range(-2, 3) for j in range(-2, 3)]
    shift_xs = distinct([-px for px, _ in near], tol=1e-6)
    shift_ys = distinct([-py for _, py in near], tol=1e-6)
    best: list[Point] = []
    for sx in shift_xs:
        for sy in shift_ys:
            found = _pieces_at(vectors, (sx, sy), (pw, ph), (avail_w, avail_h))
            if len(found) > len(best):
                best = found
    return [(ox - minx, oy - miny) for ox, oy in best]


def _pieces_at(vectors: tuple[Point, Point], shift: Point, piece: Point, area: Point) -> list[Point]:
    """Offsets of the lattice moved by ``shift`` whose piece (a ``piece`` = w × h bounding
    box) lies inside the ``area`` (w × h, top-left at the origin)."""
    (ax, ay), (bx, by) = vectors
    sx, sy = shift
    pw, ph = piece
    avail_w, avail_h = area
    det = ax * by - ay * bx
    corners = [(0.0, 0.0), (avail_w, 0.0), (0.0, avail_h), (avail_w, avail_h)]
    # lattice indices whose offsets can land in the area: the area's corners in lattice
    # coordinates (the inverse of the 2×2 lattice matrix) bound them
    ij = [(((cx - sx) * by - (cy - sy) * bx) / det, ((cy - sy) * ax - (cx - sx) * ay) / det)
          for cx, cy in corners]
    i_lo, i_hi = math.floor(min(v[0] for v in ij)) - 1, math.ceil(max(v[0] for v in ij)) + 1
    j_lo, j_hi = math.floor(min(v[1] for v in ij)) - 1, math.ceil(max(v[1] for v in ij)) + 1
    found = []
    for i in range(i_lo, i_hi + 1):
        for j in range(j_lo, j_hi + 1):
            ox, oy = sx + i * ax + j * bx, sy + i * ay + j * by
            if ox >= -1e-6 and oy >= -1e-6 and ox + pw <= avail_w + 1e-6 and oy + ph <= avail_h + 1e-6:
                found.append((ox, oy))
    return found


def _shares_edge(poly: Polygon, k: int, polygons: list[Polygon], tol: float = 1e-3) -> bool:
    """Edge k of ``poly`` (corner k to corner k+1) is also an edge of another piece."""
    a, b = poly[k], poly[(k + 1) % len(poly)]
    for other in polygons:
        if other is poly:
            continue
        for m in range(len(other)):
            c, d = other[m], other[(m + 1) % len(other)]
            if (_near(a, d, tol) and _near(b, c, tol)) or (_near(a, c, tol) and _near(b, d, tol)):
                return True
    return False


def _near(p: Point, q: Point, tol: float) -> bool:
    return abs(p[0] - q[0]) <= tol and abs(p[1] - q[1]) <= tol


def _offset_polygon(poly: Polygon, amounts: list[float]) -> Polygon:
    """A convex polygon with edge k pushed outwards by amounts[k] (corners re-intersected)."""
    n = len(poly)
    cx, cy = sum(x for x, _ in poly) / n, sum(y for _, y in poly) / n
    lines = []
    for k in range(n):
        (x1, y1), (x2, y2) = poly[k], poly[(k + 1) % n]
        length = math.hypot(x2 - x1, y2 - y1)
        nx, ny = (y2 - y1) / length, -(x2 - x1) / length
        if (x1 - cx) * nx + (y1 - cy) * ny < 0:
            nx, ny = -nx, -ny
        d = amounts[k]
        lines.append(((x1 + nx * d, y1 + ny * d), (x2 - x1, y2 - y1)))
    out = []
    for k in range(n):
        (p, r), (q, s) = lines[k - 1], lines[k]
        cross = r[0] * s[1] - r[1] * s[0]
        t = ((q[0] - p[0]) * s[1] - (q[1] - p[1]) * s[0]) / cross
        out.append((p[0] + t * r[0], p[1] + t * r[1]))
    return tuple(out)
