"""Grids of cards on a sheet: the planner that picks orientation, rotation and layout, and
the plan the writers follow (slots, cuts, back transforms, registration marks).

Counting is done on exact decimal values (fractions) because the interesting cases
sit right on the boundary (3 × 63 mm + 2 × 3 mm bleed = 195 mm of 200 mm) and a
binary-float rounding error must not cost a card.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from ..paper import STANDARD_SIZES, PaperError, check_size, exact, fmt_mm, label_for_size
from .geometry import (Affine, CardGeometry, Duplex, ImpositionError, LayoutKind, Polygon, Rect, Segment, Slot, apply,
                       bbox, compose, distinct, edge_lines, printed_bleed, sheet_flip, transform_rect)

REGISTRATION_SIZE = 5.0
"""Side of the print-and-cut registration squares, mm (what cutter software scans for)."""

REGISTRATION_GAP = 2.0
"""Clearance between the card block's bleed edge and the registration squares, mm."""



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
        return bbox([s.trim for s in self.slots])

    @property
    def block_bleed(self) -> Rect:
        """Bounding box of all printed artwork: nothing but cards may be drawn inside."""
        return bbox([s.clip for s in self.slots])

    @property
    def cut_xs(self) -> tuple[float, ...]:
        """Distinct x positions of vertical trim lines (a shared cut counts once)."""
        return distinct([v for s in self.slots for v in (s.trim.x, s.trim.right)])

    @property
    def cut_ys(self) -> tuple[float, ...]:
        """Distinct y positions of horizontal trim lines (a shared cut counts once)."""
        return distinct([v for s in self.slots for v in (s.trim.y, s.trim.bottom)])

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
            return edge_lines([s.polygon for s in slots if s.polygon])
        if not self.card.is_rectangular:
            return ()
        return _trim_lines([s.trim for s in slots])

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


def _trim_lines(trims: list[Rect]) -> tuple[Segment, ...]:
    """Every vertical, then every horizontal trim line, each spanning the trims it touches."""
    segs: list[Segment] = []
    for x in distinct([v for r in trims for v in (r.x, r.right)]):
        touching = [r for r in trims if abs(r.x - x) < 1e-6 or abs(r.right - x) < 1e-6]
        segs.append((x, min(r.y for r in touching), x, max(r.bottom for r in touching)))
    for y in distinct([v for r in trims for v in (r.y, r.bottom)]):
        touching = [r for r in trims if abs(r.y - y) < 1e-6 or abs(r.bottom - y) < 1e-6]
        segs.append((min(r.x for r in touching), y, max(r.right for r in touching), y))
    return tuple(segs)


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
    b = printed_bleed(card, bleed)
    g = 0.0 if gutter is None else gutter
    _check_options(paper_w, paper_h, margin, g, layout, orientation)
    kinds: tuple[LayoutKind, ...] = ("bleed", "edge") if layout == "auto" else (layout,)
    turns = (turned,) if turned is not None else ((False, True) if allow_rotate else (False,))
    best: tuple[tuple, _Candidate] | None = None
    for turn_sheet, (sw, sh) in enumerate(_sheet_sizes(paper_w, paper_h, orientation)):
        for rotated in turns:
            for kind in kinds:
                cand = _fit(sw, sh, card, rotated, kind, exact(margin), exact(b), exact(g))
                if cand.count == 0:
                    continue
                rank = _rank(cand, count, turn_sheet)
                if best is None or rank > best[0]:
                    best = (rank, cand)
    if best is None:
        raise ImpositionError(_no_fit_message(paper_w, paper_h, card, margin, b, label))
    return _build(best[1], card, label, float(margin), b, g)


def _check_options(paper_w: float, paper_h: float, margin: float, gutter: float, layout: str,
                   orientation: str) -> None:
    """Refuse a gutter, margin, layout or orientation the planner cannot honour."""
    if not 0 <= gutter < 100:
        raise ImpositionError(f"gutter must be between 0 and 100 mm, got {fmt_mm(gutter)} mm")
    if not 0 <= margin < min(paper_w, paper_h) / 2:
        raise ImpositionError(
            f"margin must be between 0 and half the paper's short side, got {fmt_mm(margin)} mm"
        )
    if layout not in ("auto", "bleed", "edge"):
        raise ImpositionError(f"layout must be 'auto', 'bleed' or 'edge', got {layout!r}")
    if orientation not in ("auto", "portrait", "landscape"):
        raise ImpositionError(f"orientation must be 'auto', 'portrait' or 'landscape', got {orientation!r}")


def _sheet_sizes(paper_w: float, paper_h: float, orientation: str) -> tuple[tuple[float, float], ...]:
    """The sheet sizes (width, height) to try: as given then turned, or only the pinned one."""
    portrait = (min(paper_w, paper_h), max(paper_w, paper_h))
    return {
        "auto": ((paper_w, paper_h), (paper_h, paper_w)),
        "portrait": (portrait,),
        "landscape": (portrait[::-1],),
    }[orientation]


def _rank(cand: _Candidate, count: int | None, turn_sheet: int) -> tuple:
    """Sort key of a candidate, best highest: fewest sheets for ``count`` pieces (else most
    pieces a sheet), then bleed kept, cards upright, the sheet as given."""
    sheets_needed = -(-count // cand.count) if count else 0
    return (-sheets_needed, cand.count if not count else 0, cand.kind == "bleed", not cand.rotated,
            not turn_sheet, cand.count)


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
