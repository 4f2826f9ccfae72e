"""Sheet geometry for printing cards: how many fit, where each one goes, how backs line up.

Pure geometry, no PDF: every length is in millimetres with the origin at the top-left
corner of the sheet and y growing downwards, which is how people measure a printed
page.  The PDF writer converts to points and flips y only when it writes.

Counting is done on exact decimal values (fractions) because the interesting cases
sit right on the boundary (3 × 63 mm + 2 × 3 mm bleed = 195 mm of 200 mm) and a
binary-float rounding error must not cost a card.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Literal

from .paper import STANDARD_SIZES, PaperError, check_size, exact, fmt_mm, label_for_size

LayoutKind = Literal["bleed", "edge", "tessellated"]
Duplex = Literal["long", "short", "none"]

# An affine map in PDF's convention: (x, y) -> (a·x + c·y + e, b·x + d·y + f).
Affine = tuple[float, float, float, float, float, float]

Point = tuple[float, float]
Polygon = tuple[Point, ...]
Segment = tuple[float, float, float, float]

REGISTRATION_SIZE = 5.0
"""Side of the print-and-cut registration squares, mm (what cutter software scans for)."""

REGISTRATION_GAP = 2.0
"""Clearance between the card block's bleed edge and the registration squares, mm."""


class ImpositionError(ValueError):
    """The cards cannot be laid out as asked; the message says what would work."""


@dataclass(frozen=True)
class CardGeometry:
    """Physical card: trim size, bleed and the shape the cutter follows (all mm)."""

    width: float
    height: float
    bleed: float
    cut_path: str
    is_rectangular: bool
    outline: Polygon | None = None
    """Corners of the cut outline in trim millimetres (top-left origin), for straight-edged
    shapes; the planner packs parallelograms (lozenges) by it, edges shared."""

    def __post_init__(self) -> None:
        try:
            check_size(self.width, self.height, what="card")
        except PaperError as exc:
            raise ImpositionError(str(exc)) from None
        if not isinstance(self.bleed, (int, float)) or not 0 <= self.bleed < 100:
            raise ImpositionError(f"card bleed must be between 0 and 100 mm, got {self.bleed!r}")

    @property
    def art_width(self) -> float:
        """Width of the face artwork (trim plus bleed on both sides)."""
        return self.width + 2 * self.bleed

    @property
    def art_height(self) -> float:
        """Height of the face artwork (trim plus bleed on both sides)."""
        return self.height + 2 * self.bleed


@dataclass(frozen=True)
class Placement:
    """One physical card to print: keys of its front and (optional) back faces."""

    front: str
    back: str | None


@dataclass(frozen=True)
class Rect:
    """Axis-aligned rectangle in sheet millimetres (top-left origin, y down)."""

    x: float
    y: float
    w: float
    h: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h

    def grow(self, left: float, top: float, right: float, bottom: float) -> Rect:
        """The rectangle pushed outwards by the given amount on each side."""
        return Rect(self.x - left, self.y - top, self.w + left + right, self.h + top + bottom)

    def moved(self, dx: float, dy: float) -> Rect:
        return Rect(self.x + dx, self.y + dy, self.w, self.h)

    def overlaps(self, other: Rect, tol: float = 1e-6) -> bool:
        """True if the interiors intersect (touching edges do not count)."""
        return (
            self.x < other.right - tol
            and other.x < self.right - tol
            and self.y < other.bottom - tol
            and other.y < self.bottom - tol
        )


@dataclass(frozen=True)
class Slot:
    """Where one card sits on a sheet.

    `trim` is the final card after cutting; `clip` is the part of the face artwork that
    is printed on the front (the whole bleed box, or in edge-to-edge layouts the trim
    extended only on the block's outer edges so neighbours do not paint over each other).
    """

    index: int
    row: int
    col: int
    trim: Rect
    clip: Rect
    rotated: bool
    polygon: Polygon | None = None
    """Tessellated layouts: the piece's cut outline on the sheet (its trim is the bounding box)."""
    bleed_polygon: Polygon | None = None
    """Tessellated layouts: the outline pushed out by the bleed on the edges no neighbour shares."""


@dataclass(frozen=True)
class GridPlan:
    """The chosen grid for one sheet, with everything the writers need.

    `paper_w`/`paper_h` are the sheet as printed (already turned to landscape if that
    was chosen).  `bleed` is the bleed actually printed around the block, which may be
    less than the card's artwork bleed.
    """

    paper_w: float
    paper_h: float
    paper_label: str
    orientation: Literal["portrait", "landscape"]
    rows: int
    cols: int
    layout: LayoutKind
    rotated: bool
    card: CardGeometry
    bleed: float
    gutter: float
    margin: float
    slots: tuple[Slot, ...]
    note: str = field(default="")

    @property
    def per_sheet(self) -> int:
        return len(self.slots)

    @property
    def block(self) -> Rect:
        """Bounding box of all trim rectangles."""
        return _bbox([s.trim for s in self.slots])

    @property
    def block_bleed(self) -> Rect:
        """Bounding box of all printed artwork: nothing but cards may be drawn inside."""
        return _bbox([s.clip for s in self.slots])

    @property
    def cut_xs(self) -> tuple[float, ...]:
        """Distinct x positions of vertical trim lines (a shared cut counts once)."""
        return _distinct([v for s in self.slots for v in (s.trim.x, s.trim.right)])

    @property
    def cut_ys(self) -> tuple[float, ...]:
        """Distinct y positions of horizontal trim lines (a shared cut counts once)."""
        return _distinct([v for s in self.slots for v in (s.trim.y, s.trim.bottom)])

    def describe(self) -> str:
        """One sentence for the user, e.g. "A4 portrait, 3×3 = 9 cards per sheet, …".

        Why the bleed gave way (``note``) is not part of it: a build says that once, with
        the alternatives, rather than on every file's line."""
        if self.layout == "tessellated":
            text = f"{self.paper_label} {self.orientation}, {self.per_sheet} "
            text += "piece per sheet" if self.per_sheet == 1 else "pieces per sheet"
            text += f" in {self.rows} interlocking rows"
        else:
            text = f"{self.paper_label} {self.orientation}, {self.cols}×{self.rows} = {self.per_sheet} "
            text += "card per sheet" if self.per_sheet == 1 else "cards per sheet"
        if self.rotated:
            text += ", cards turned 90°"
        if self.layout in ("edge", "tessellated"):
            text += ", edge to edge with shared cuts"
        elif self.bleed > 0:
            text += f", with {fmt_mm(self.bleed)} mm bleed"
        else:
            text += ", no bleed"
        return text

    @property
    def bleed_given_up(self) -> bool:
        """The cards have bleed artwork this layout does not print between neighbours."""
        return self.layout in ("edge", "tessellated") and self.card.bleed > 0

    def cut_lines(self, used: int | None = None) -> tuple[Segment, ...]:
        """Straight cuts that separate the first ``used`` pieces of a sheet (all by default).

        Grids are cut along every trim line, each one full length across the pieces it
        touches (a shared cut counts once). Tessellated pieces are cut along the lines
        their edges lie on: neighbours share every inner edge, so each line is one cut.
        Other shapes (circles, hexagons in a grid) have no straight shared cuts: ()."""
        slots = self.slots[: self.per_sheet if used is None else used]
        if not slots:
            return ()
        if self.layout == "tessellated":
            return _edge_lines([s.polygon for s in slots if s.polygon])
        if not self.card.is_rectangular:
            return ()
        segs: list[Segment] = []
        for x in _distinct([v for s in slots for v in (s.trim.x, s.trim.right)]):
            touching = [s.trim for s in slots if abs(s.trim.x - x) < 1e-6 or abs(s.trim.right - x) < 1e-6]
            segs.append((x, min(r.y for r in touching), x, max(r.bottom for r in touching)))
        for y in _distinct([v for s in slots for v in (s.trim.y, s.trim.bottom)]):
            touching = [s.trim for s in slots if abs(s.trim.y - y) < 1e-6 or abs(s.trim.bottom - y) < 1e-6]
            segs.append((min(r.x for r in touching), y, max(r.right for r in touching), y))
        return tuple(segs)

    def cuts(self, pieces: int) -> int:
        """How many cuts ``pieces`` pieces laid out with this plan take, over all sheets.

        A straight cut is one pass of a blade or ruler along a line; a piece that has to be
        cut out on its own costs one cut per straight edge of its outline (one for a curve)."""
        full, rest = divmod(pieces, self.per_sheet)
        total = 0
        for used, sheets in ((self.per_sheet, full), (rest, 1 if rest else 0)):
            if not sheets:
                continue
            lines = self.cut_lines(used)
            if lines or self.card.is_rectangular:
                total += sheets * len(lines)
            else:
                edges = len(self.card.outline) if self.card.outline else 1
                total += sheets * used * edges
        return total

    def art_rect(self, slot: Slot) -> Rect:
        """Footprint of the full face artwork (trim plus the card's own bleed) on the sheet."""
        b = self.card.bleed
        return slot.trim.grow(b, b, b, b)

    def front_transform(self, slot: Slot) -> Affine:
        """Map face-artwork millimetres (origin top-left of the art, y down) to the sheet.

        Turned cards are rotated a quarter turn counter-clockwise: the card's top ends
        up on the left.
        """
        art = self.art_rect(slot)
        if not slot.rotated:
            return (1.0, 0.0, 0.0, 1.0, art.x, art.y)
        # (u, v) -> (v, art_w - u): top edge (v = 0) lands on the left side.
        return (0.0, -1.0, 1.0, 0.0, art.x, art.y + self.card.art_width)

    def back_transform(self, slot: Slot, duplex: Duplex, offset: tuple[float, float]) -> Affine:
        """Map back-artwork millimetres to the back page so the back lands behind its front.

        A point of the back artwork at (u, v) sits behind the front artwork point
        (art_w − u, v) when the card is turned over about its own vertical axis; that
        point is placed on the front page by the front transform, and the sheet flip F
        takes front-page positions to back-page positions.  So
        back = offset ∘ F ∘ front ∘ mirror.  Two reflections make a rotation, so the back
        is never drawn mirrored; it comes out upside down on short-edge flips of
        portrait sheets, which is what makes it upright in the hand.
        """
        mirror = (-1.0, 0.0, 0.0, 1.0, self.card.art_width, 0.0)
        shift = (1.0, 0.0, 0.0, 1.0, float(offset[0]), float(offset[1]))
        flip = self.flip(duplex)
        return compose(shift, compose(flip, compose(self.front_transform(slot), mirror)))

    def back_clip(self, slot: Slot, duplex: Duplex, offset: tuple[float, float]) -> Rect:
        """Printed area of the back: the mirror of the front's clip, shifted with the back."""
        return transform_rect(self.flip(duplex), slot.clip).moved(*offset)

    def back_polygon(self, polygon: Polygon, duplex: Duplex, offset: tuple[float, float]) -> Polygon:
        """Where a front-page outline lies on the back page (flipped, then shifted)."""
        flip = self.flip(duplex)
        return tuple((px + offset[0], py + offset[1]) for px, py in (apply(flip, x, y) for x, y in polygon))

    def flip(self, duplex: Duplex) -> Affine:
        """Reflection taking a front-page position to the back-page position behind it."""
        return sheet_flip(self.paper_w, self.paper_h, duplex)

    def registration_marks(self) -> tuple[Rect, Rect, Rect]:
        """Three filled squares (top-left, top-right, bottom-left) for print-and-cut machines.

        They sit diagonally off the corners of the printed block so they can never touch
        a card, a cut mark (marks are on trim lines, inside the block's span) or a cut line.
        """
        blk = self.block_bleed
        s, g = REGISTRATION_SIZE, REGISTRATION_GAP
        marks = (
            Rect(blk.x - g - s, blk.y - g - s, s, s),
            Rect(blk.right + g, blk.y - g - s, s, s),
            Rect(blk.x - g - s, blk.bottom + g, s, s),
        )
        for mark in marks:
            if mark.x < 0 or mark.y < 0 or mark.right > self.paper_w or mark.bottom > self.paper_h:
                need = g + s
                raise ImpositionError(
                    f"registration marks need {fmt_mm(need)} mm of paper beside the card block; "
                    f"raise the margin to at least {fmt_mm(need + 1)} mm or leave registration marks off"
                )
        return marks


def plan_grid(
    paper_w: float,
    paper_h: float,
    card: CardGeometry,
    *,
    margin: float = 5.0,
    gutter: float | None = None,
    bleed: float | None = None,
    allow_rotate: bool = True,
    layout: Literal["auto", "bleed", "edge"] = "auto",
    orientation: Literal["auto", "portrait", "landscape"] = "auto",
    paper_label: str | None = None,
    count: int | None = None,
    turned: bool | None = None,
) -> GridPlan:
    """Choose the sheet orientation, card rotation and layout that print the most cards.

    Candidates are both sheet orientations, cards upright or (if allowed) turned, and the
    two layouts: "bleed" (every card keeps its bleed, cells separated by `gutter`) and
    "edge" (cards butt against each other with one shared cut; bleed only around the
    block).  Ties prefer bleed (each card can be cut with slack), then upright cards, then
    the sheet orientation as given.  `bleed` defaults to the card's own bleed and may only
    reduce it, since artwork that does not exist cannot be printed.

    Turning the cards on a portrait sheet is the same geometry as upright cards on a
    landscape sheet, so rotation only wins when `orientation` pins the sheet (some
    printers and print shops want portrait pages only).

    With ``count`` (the pieces to print) the planner minimises *sheets* rather than cards
    per sheet: 36 tokens fit one A4 sheet with bleed as well as edge to edge, so they keep
    their bleed. ``turned`` True or False pins the cards' rotation.
    """
    label = paper_label or label_for_size(paper_w, paper_h)
    try:
        check_size(paper_w, paper_h, what=f"paper {label}")
    except PaperError as exc:
        raise ImpositionError(str(exc)) from None
    b = card.bleed if bleed is None else bleed
    g = 0.0 if gutter is None else gutter
    if not 0 <= b <= card.bleed:
        raise ImpositionError(
            f"bleed {fmt_mm(b)} mm must be between 0 and the card's artwork bleed ({fmt_mm(card.bleed)} mm)"
        )
    if not 0 <= g < 100:
        raise ImpositionError(f"gutter must be between 0 and 100 mm, got {fmt_mm(g)} mm")
    if not 0 <= margin < min(paper_w, paper_h) / 2:
        raise ImpositionError(
            f"margin must be between 0 and half the paper's short side, got {fmt_mm(margin)} mm"
        )
    if layout not in ("auto", "bleed", "edge"):
        raise ImpositionError(f"layout must be 'auto', 'bleed' or 'edge', got {layout!r}")
    if orientation not in ("auto", "portrait", "landscape"):
        raise ImpositionError(f"orientation must be 'auto', 'portrait' or 'landscape', got {orientation!r}")
    portrait = (min(paper_w, paper_h), max(paper_w, paper_h))
    sheets = {
        "auto": ((paper_w, paper_h), (paper_h, paper_w)),
        "portrait": (portrait,),
        "landscape": (portrait[::-1],),
    }[orientation]

    kinds: tuple[LayoutKind, ...] = ("bleed", "edge") if layout == "auto" else (layout,)
    best: tuple[tuple, _Candidate] | None = None
    for turn_sheet, (sw, sh) in enumerate(sheets):
        turns = (turned,) if turned is not None else ((False, True) if allow_rotate else (False,))
        for rotated in turns:
            for kind in kinds:
                cand = _fit(sw, sh, card, rotated, kind, exact(margin), exact(b), exact(g))
                if cand.count == 0:
                    continue
                sheets_needed = -(-count // cand.count) if count else 0
                rank = (-sheets_needed, cand.count if not count else 0, kind == "bleed", not rotated,
                        not turn_sheet, cand.count)
                if best is None or rank > best[0]:
                    best = (rank, cand)
    if best is None:
        raise ImpositionError(_no_fit_message(paper_w, paper_h, card, margin, b, label))
    cand = best[1]
    return _build(cand, card, label, float(margin), b, g)


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
) -> GridPlan | None:
    """Pack a parallelogram piece (a lozenge) edge to edge by its outline.

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
    b = card.bleed if bleed is None else bleed
    if not 0 <= b <= card.bleed:
        raise ImpositionError(
            f"bleed {fmt_mm(b)} mm must be between 0 and the card's artwork bleed ({fmt_mm(card.bleed)} mm)"
        )
    best: tuple[tuple, tuple] | None = None
    for turn_sheet, (sw, sh) in enumerate(((paper_w, paper_h), (paper_h, paper_w))):
        for rotated in (False, True):
            outline = _turned(card.outline, card.width) if rotated else tuple(card.outline)
            offsets = _lattice_fit(outline, sw - 2 * margin, sh - 2 * margin)
            if not offsets:
                continue
            rank = (len(offsets), not rotated, not turn_sheet)
            if best is None or rank > best[0]:
                best = (rank, (sw, sh, rotated, outline, offsets))
    if best is None:
        return None
    sw, sh, rotated, outline, offsets = best[1]
    pw, ph = (card.height, card.width) if rotated else (card.width, card.height)
    xs = [ox for ox, _ in offsets]
    ys = [oy for _, oy in offsets]
    dx = (sw - (max(xs) + pw - min(xs))) / 2 - min(xs)
    dy = (sh - (max(ys) + ph - min(ys))) / 2 - min(ys)
    row_ys = _distinct([oy + dy for _, oy in offsets], tol=1e-3)

    def row_of(y: float) -> int:
        return min(range(len(row_ys)), key=lambda r: abs(row_ys[r] - y))

    placed = sorted(((ox + dx, oy + dy) for ox, oy in offsets), key=lambda p: (row_of(p[1]), p[0]))
    polygons = [tuple((x + ox, y + oy) for x, y in outline) for ox, oy in placed]
    printable = Rect(margin, margin, sw - 2 * margin, sh - 2 * margin)
    slots = []
    for index, ((ox, oy), poly) in enumerate(zip(placed, polygons)):
        row = row_of(oy)
        col = sum(1 for x2, y2 in placed if row_of(y2) == row and x2 < ox - 1e-6)
        grown = _offset_polygon(poly, [0.0 if _shares_edge(poly, k, polygons) else b for k in range(len(poly))])
        slots.append(Slot(index, row, col, Rect(ox, oy, pw, ph), _clip_to(_poly_bbox(grown), printable), rotated,
                          poly, grown))
    note = ""
    if b > 0:
        note = f"{fmt_mm(b)} mm bleed printed around the block only"
    return GridPlan(
        paper_w=float(sw), paper_h=float(sh), paper_label=label,
        orientation="landscape" if sw > sh else "portrait",
        rows=len(row_ys), cols=max(s.col for s in slots) + 1, layout="tessellated", rotated=rotated,
        card=card, bleed=float(b), gutter=0.0, margin=float(margin), slots=tuple(slots), note=note,
    )


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
    det = ax * by - ay * bx
    near = [(i * ax + j * bx, i * ay + j * by) for i in range(-2, 3) for j in range(-2, 3)]
    shift_xs = _distinct([-px for px, _ in near], tol=1e-6)
    shift_ys = _distinct([-py for _, py in near], tol=1e-6)
    corners = [(0.0, 0.0), (avail_w, 0.0), (0.0, avail_h), (avail_w, avail_h)]
    best: list[Point] = []
    for sx in shift_xs:
        for sy in shift_ys:
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
            if len(found) > len(best):
                best = found
    return [(ox - minx, oy - miny) for ox, oy in best]


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


def _edge_lines(polygons: list[Polygon], tol: float = 1e-3) -> tuple[Segment, ...]:
    """The distinct straight lines the polygons' edges lie on, each as the segment from
    the first to the last edge point on it: one full-length cut per line."""
    groups: list[tuple[float, float, float, list[float]]] = []   # unit direction, offset, params
    for poly in polygons:
        for k in range(len(poly)):
            (x1, y1), (x2, y2) = poly[k], poly[(k + 1) % len(poly)]
            length = math.hypot(x2 - x1, y2 - y1)
            ux, uy = (x2 - x1) / length, (y2 - y1) / length
            if ux < -1e-9 or (abs(ux) <= 1e-9 and uy < 0):
                ux, uy = -ux, -uy
            offset = x1 * uy - y1 * ux          # signed distance of the line from the origin
            params = [x1 * ux + y1 * uy, x2 * ux + y2 * uy]
            for gx, gy, goff, gparams in groups:
                if abs(gx - ux) < 1e-6 and abs(gy - uy) < 1e-6 and abs(goff - offset) < tol:
                    gparams.extend(params)
                    break
            else:
                groups.append((ux, uy, offset, params))
    segs = []
    for ux, uy, offset, params in groups:
        # the point of the line nearest the origin is offset·(uy, −ux)
        bx, by = offset * uy, -offset * ux
        lo, hi = min(params), max(params)
        segs.append((bx + ux * lo, by + uy * lo, bx + ux * hi, by + uy * hi))
    return tuple(sorted(segs, key=lambda s: (round(s[1], 3), round(s[0], 3), round(s[3], 3), round(s[2], 3))))


BAND_GAP = 14.0
"""Space between the blocks of components sharing a sheet, mm: room for both blocks' tick
marks (2 mm gap + 4.5 mm tick each) and a millimetre between them."""


def plan_band(plan: GridPlan, count: int, top: float) -> GridPlan:
    """The slots of a plan that ``count`` pieces use, moved up or down so their printed
    block starts ``top`` mm from the sheet's top edge (for components sharing a sheet)."""
    used = plan.slots[:count]
    dy = top - _bbox([s.clip for s in used]).y
    moved = []
    for s in used:
        poly = tuple((x, y + dy) for x, y in s.polygon) if s.polygon else None
        grown = tuple((x, y + dy) for x, y in s.bleed_polygon) if s.bleed_polygon else None
        moved.append(replace(s, trim=s.trim.moved(0, dy), clip=s.clip.moved(0, dy), polygon=poly, bleed_polygon=grown))
    rows = len({s.row for s in used})
    return replace(plan, slots=tuple(moved), rows=rows)


def band_plan(paper_w: float, paper_h: float, card: CardGeometry, count: int, *, margin: float = 5.0,
              gutter: float | None = None, bleed: float | None = None, paper_label: str | None = None) -> GridPlan | None:
    """The flattest grid holding all ``count`` pieces on one sheet as given (upright or
    turned), for a component that shares its sheet; None if they need more than a sheet."""
    best: tuple[float, GridPlan] | None = None
    for rotate in (False, True):
        try:
            plan = plan_grid(paper_w, paper_h, card, margin=margin, gutter=gutter, bleed=bleed,
                             orientation="portrait" if paper_w <= paper_h else "landscape",
                             turned=rotate, paper_label=paper_label, count=count)
        except ImpositionError:
            continue
        if plan.per_sheet < count:
            continue
        height = _bbox([s.clip for s in plan.slots[:count]]).h
        if best is None or height < best[0] - 1e-6:
            best = (height, plan)
    return best[1] if best else None


def share_sheets(bands: list[tuple[GridPlan | None, int]], *, margin: float = 5.0,
                 footer: float = 8.0) -> list[list[int]]:
    """Which components share a sheet. A component whose pieces fit one sheet (a band plan,
    see :func:`band_plan`) joins the first sheet begun by an earlier such component that
    still has room for its block under the others (BAND_GAP apart, `footer` mm kept at the
    bottom); the others print alone. The answer lists groups of indices into ``bands``, in
    order (a group of one prints alone)."""
    groups: list[list[int]] = []
    room: dict[int, float] = {}      # group index → height still free on its sheet
    for index, (plan, count) in enumerate(bands):
        if plan is None:
            groups.append([index])
            continue
        height = _bbox([s.clip for s in plan.slots[:count]]).h
        for g, free in room.items():
            first = bands[groups[g][0]][0]
            if first is not None and _same_paper(plan, first) and height + BAND_GAP <= free:
                groups[g].append(index)
                room[g] = free - height - BAND_GAP
                break
        else:
            groups.append([index])
            room[len(groups) - 1] = plan.paper_h - 2 * margin - footer - height
    return groups


def _same_paper(a: GridPlan, b: GridPlan) -> bool:
    return abs(a.paper_w - b.paper_w) < 1e-6 and abs(a.paper_h - b.paper_h) < 1e-6


def stack_bands(bands: list[tuple[GridPlan, int]], *, margin: float = 5.0) -> list[GridPlan]:
    """Plans of components sharing one sheet, each moved to its place, top to bottom."""
    top = margin + 1.0
    out = []
    for plan, count in bands:
        band = plan_band(plan, count, top)
        out.append(band)
        top = band.block_bleed.bottom + BAND_GAP
    return out


def sheet_flip(paper_w: float, paper_h: float, duplex: Duplex) -> Affine:
    """Reflection taking a front-page position to the back-page position behind it.

    The printer turns the sheet about the named edge, and prints the back upright for
    someone who turns it the same way.  The long edge of a portrait sheet is vertical,
    so a long-edge flip turns it about a vertical axis (x -> W − x: columns mirror);
    a short-edge flip turns it about a horizontal axis (y -> H − y: rows mirror).  On a
    landscape sheet the long edge is horizontal and the two swap.
    """
    if duplex not in ("long", "short"):
        raise ImpositionError(f"duplex must be 'long' or 'short' to place backs, got {duplex!r}")
    about_vertical = (duplex == "long") == (paper_w <= paper_h)
    if about_vertical:
        return (-1.0, 0.0, 0.0, 1.0, float(paper_w), 0.0)
    return (1.0, 0.0, 0.0, -1.0, 0.0, float(paper_h))


def compose(m1: Affine, m2: Affine) -> Affine:
    """m1 ∘ m2: apply m2 first, then m1."""
    a1, b1, c1, d1, e1, f1 = m1
    a2, b2, c2, d2, e2, f2 = m2
    return (
        a1 * a2 + c1 * b2,
        b1 * a2 + d1 * b2,
        a1 * c2 + c1 * d2,
        b1 * c2 + d1 * d2,
        a1 * e2 + c1 * f2 + e1,
        b1 * e2 + d1 * f2 + f1,
    )


def apply(m: Affine, x: float, y: float) -> tuple[float, float]:
    """Image of one point under an affine map."""
    a, b, c, d, e, f = m
    return (a * x + c * y + e, b * x + d * y + f)


def transform_rect(m: Affine, r: Rect) -> Rect:
    """Bounding box of a rectangle's image (exact for the quarter turns and flips used here)."""
    pts = [apply(m, x, y) for x in (r.x, r.right) for y in (r.y, r.bottom)]
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    return Rect(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))


@dataclass(frozen=True)
class _Candidate:
    sheet_w: float
    sheet_h: float
    rotated: bool
    kind: LayoutKind
    cols: int
    rows: int

    @property
    def count(self) -> int:
        return self.cols * self.rows


def _fit(
    sw: float,
    sh: float,
    card: CardGeometry,
    rotated: bool,
    kind: LayoutKind,
    margin: Fraction,
    b: Fraction,
    g: Fraction,
) -> _Candidate:
    """How many columns and rows of one kind fit in the printable area of one sheet."""
    cw, ch = (exact(card.height), exact(card.width)) if rotated else (exact(card.width), exact(card.height))
    avail_w, avail_h = exact(sw) - 2 * margin, exact(sh) - 2 * margin
    if kind == "bleed":
        cols = math.floor((avail_w + g) / (cw + 2 * b + g))
        rows = math.floor((avail_h + g) / (ch + 2 * b + g))
    else:
        # Edge to edge: the outer bleed shrinks to whatever slack the sheet leaves (down to 0),
        # so e.g. 3 × 3 poker cards still fit US Letter with 2.7 mm of bleed top and bottom.
        cols = math.floor(avail_w / cw)
        rows = math.floor(avail_h / ch)
    return _Candidate(sw, sh, rotated, kind, max(cols, 0), max(rows, 0))


def _build(c: _Candidate, card: CardGeometry, label: str, margin: float, b: float, g: float) -> GridPlan:
    """Turn the winning candidate into centred slot rectangles."""
    cw, ch = (exact(card.height), exact(card.width)) if c.rotated else (exact(card.width), exact(card.height))
    eb = exact(b)
    eg = exact(g) if c.kind == "bleed" else Fraction(0)
    if c.kind == "bleed":
        step_x, step_y = cw + 2 * eb + eg, ch + 2 * eb + eg
        block_w, block_h = c.cols * step_x - eg, c.rows * step_y - eg
        bx = by = eb
    else:
        step_x, step_y = cw, ch
        m = exact(margin)
        bx = min(eb, (exact(c.sheet_w) - 2 * m - c.cols * cw) / 2)
        by = min(eb, (exact(c.sheet_h) - 2 * m - c.rows * ch) / 2)
        block_w, block_h = c.cols * cw + 2 * bx, c.rows * ch + 2 * by
    x0 = (exact(c.sheet_w) - block_w) / 2 + bx
    y0 = (exact(c.sheet_h) - block_h) / 2 + by
    slots = []
    for row in range(c.rows):
        for col in range(c.cols):
            tx, ty = x0 + col * step_x, y0 + row * step_y
            trim = Rect(float(tx), float(ty), float(cw), float(ch))
            if c.kind == "bleed":
                clip = trim.grow(b, b, b, b)
            else:
                clip = trim.grow(
                    float(bx) if col == 0 else 0.0,
                    float(by) if row == 0 else 0.0,
                    float(bx) if col == c.cols - 1 else 0.0,
                    float(by) if row == c.rows - 1 else 0.0,
                )
            slots.append(Slot(len(slots), row, col, trim, clip, c.rotated))
    note = ""
    if c.kind == "edge" and b > 0:
        note = _why_not_bleed(c, cw, ch, eb, eg, margin)
        if min(bx, by) < eb:
            note += f"; outer bleed trimmed to {fmt_mm(float(min(bx, by)))} mm to fit the margin"
    return GridPlan(
        paper_w=float(c.sheet_w),
        paper_h=float(c.sheet_h),
        paper_label=label,
        orientation="landscape" if c.sheet_w > c.sheet_h else "portrait",
        rows=c.rows,
        cols=c.cols,
        layout=c.kind,
        rotated=c.rotated,
        card=card,
        bleed=float(min(bx, by)),
        gutter=float(g) if c.kind == "bleed" else 0.0,
        margin=margin,
        slots=tuple(slots),
        note=note,
    )


def _why_not_bleed(c: _Candidate, cw: Fraction, ch: Fraction, b: Fraction, g: Fraction, margin: float) -> str:
    """Explain which dimension the same grid with full bleed would overflow."""
    m = exact(margin)
    need_w = c.cols * (cw + 2 * b) + (c.cols - 1) * g
    need_h = c.rows * (ch + 2 * b) + (c.rows - 1) * g
    avail_w, avail_h = exact(c.sheet_w) - 2 * m, exact(c.sheet_h) - 2 * m
    if need_w > avail_w:
        need, avail, side = need_w, avail_w, "width"
    elif need_h > avail_h:
        need, avail, side = need_h, avail_h, "height"
    else:
        return f"{fmt_mm(float(b))} mm bleed kept around the block"
    return (
        f"{fmt_mm(float(b))} mm bleed does not fit: needs {fmt_mm(float(need))} mm "
        f"of {fmt_mm(float(avail))} mm printable {side}"
    )


def _no_fit_message(
    paper_w: float, paper_h: float, card: CardGeometry, margin: float, b: float, label: str
) -> str:
    """Say why nothing fits and name the smallest standard paper that would work."""
    size = f"{fmt_mm(card.width)}×{fmt_mm(card.height)} mm"
    if b:
        size += f" ({fmt_mm(card.width + 2 * b)}×{fmt_mm(card.height + 2 * b)} mm with bleed)"
    text = (
        f"card {size} does not fit on {label} with {fmt_mm(margin)} mm margins "
        f"(printable {fmt_mm(paper_w - 2 * margin)}×{fmt_mm(paper_h - 2 * margin)} mm)"
    )
    lo, hi = sorted((card.width + 2 * b, card.height + 2 * b))
    fitting = [
        name
        for name, (w, h) in sorted(STANDARD_SIZES.items(), key=lambda kv: kv[1][0] * kv[1][1])
        if lo <= w - 2 * margin and hi <= h - 2 * margin
    ]
    if fitting:
        return f"{text}; use --paper {' or '.join(fitting[:2])}"
    need_w = fmt_mm(card.width + 2 * b + 2 * margin)
    need_h = fmt_mm(card.height + 2 * b + 2 * margin)
    return f"{text}; use a custom paper of at least --paper {need_w}x{need_h}mm"


def _bbox(rects: list[Rect]) -> Rect:
    x0 = min(r.x for r in rects)
    y0 = min(r.y for r in rects)
    x1 = max(r.right for r in rects)
    y1 = max(r.bottom for r in rects)
    return Rect(x0, y0, x1 - x0, y1 - y0)


def _distinct(values: list[float], tol: float = 1e-6) -> tuple[float, ...]:
    out: list[float] = []
    for v in sorted(values):
        if not out or v - out[-1] > tol:
            out.append(v)
    return tuple(out)


@dataclass(frozen=True)
class Tile:
    """One printed page of a large sheet split over smaller paper.

    `region` is the part of the large sheet (mm, origin at its top-left) printed on this
    page, placed at the top-left corner of the printable area.  `glue_right` and
    `glue_below` are the strips shared with the neighbour to the right / below, which
    that neighbour covers when the tiles are assembled.
    """

    name: str
    row: int
    col: int
    region: Rect
    glue_right: Rect | None
    glue_below: Rect | None


@dataclass(frozen=True)
class TilePlan:
    """How a large sheet (e.g. an A3 game mat) is split over several pages."""

    paper_w: float
    paper_h: float
    margin: float
    overlap: float
    rows: int
    cols: int
    tiles: tuple[Tile, ...]

    def cuts(self) -> int:
        """Straight cuts to trim the tiles: each page is trimmed to its printed area on all
        four sides (the tiles then overlap by the glue strips)."""
        return 4 * len(self.tiles)

    def describe(self) -> str:
        orientation = "landscape" if self.paper_w > self.paper_h else "portrait"
        return (
            f"{label_for_size(self.paper_w, self.paper_h)} {orientation}, {self.cols}×{self.rows} = "
            f"{len(self.tiles)} tiles with {fmt_mm(self.overlap)} mm overlap"
        )


def plan_tiles(
    width: float, height: float, paper_w: float, paper_h: float, *, margin: float = 5.0, overlap: float = 10.0
) -> TilePlan:
    """Split a width × height mm sheet into the fewest pages, neighbours sharing `overlap` mm.

    The fewest tiles along each axis are found first; then the sheet is shared out equally
    among them (every pair of neighbours still overlapping by exactly `overlap` mm), so no
    tile is a sliver on a page of its own.  Both paper orientations are tried; ties keep
    the paper as given.
    """
    check_size(width, height, what="tiled sheet")
    check_size(paper_w, paper_h, what="paper")
    if not 0 <= margin < min(paper_w, paper_h) / 2:
        raise ImpositionError(
            f"margin must be between 0 and half the paper's short side, got {fmt_mm(margin)} mm"
        )
    best: TilePlan | None = None
    for sw, sh in ((paper_w, paper_h), (paper_h, paper_w)):
        pw, ph = sw - 2 * margin, sh - 2 * margin
        if not 0 <= overlap < min(pw, ph) / 2:
            raise ImpositionError(
                f"overlap must be between 0 and half the printable size ({fmt_mm(min(pw, ph) / 2)} mm), "
                f"got {fmt_mm(overlap)} mm"
            )
        cols, xs = _tile_axis(width, pw, overlap)
        rows, ys = _tile_axis(height, ph, overlap)
        if best is not None and rows * cols >= len(best.tiles):
            continue
        tiles = []
        for r, (y0, th) in enumerate(ys):
            for c, (x0, tw) in enumerate(xs):
                glue_right = Rect(x0 + tw - overlap, y0, overlap, th) if c < cols - 1 else None
                glue_below = Rect(x0, y0 + th - overlap, tw, overlap) if r < rows - 1 else None
                tiles.append(
                    Tile(f"{_row_name(r)}{c + 1}", r, c, Rect(x0, y0, tw, th), glue_right, glue_below)
                )
        best = TilePlan(sw, sh, margin, overlap, rows, cols, tuple(tiles))
    assert best is not None
    return best


def _tile_axis(total: float, printable: float, overlap: float) -> tuple[int, list[tuple[float, float]]]:
    """Start and length of each tile along one axis: the fewest that cover `total`, all of
    one length (total + (count − 1) × overlap) / count."""
    if total <= printable + 1e-9:
        return 1, [(0.0, float(total))]
    step = printable - overlap
    count = math.ceil((exact(total) - exact(overlap)) / exact(step))
    length = (total + (count - 1) * overlap) / count
    spans = [(i * (length - overlap), length) for i in range(count)]
    return count, spans


def _row_name(index: int) -> str:
    """Spreadsheet-style row letters: A … Z, AA, AB …"""
    name = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        name = chr(ord("A") + rem) + name
    return name
