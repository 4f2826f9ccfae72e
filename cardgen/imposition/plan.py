"""The plan of one sheet that the writers follow: where each piece sits, where the cuts run,
how face and back artwork are placed, where the registration marks go.

Planners (:mod:`.grid`, :mod:`.tessellation`) make a :class:`GridPlan`; the PDF and cut-file
writers only read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..affine import Affine, apply, compose
from ..paper import fmt_mm
from .geometry import (CardGeometry, Duplex, ImpositionError, LayoutKind, Polygon, Rect, Segment, Slot, bbox, distinct,
                       edge_lines, sheet_flip, transform_rect)
from .words import Say, english, orientation

REGISTRATION_SIZE = 5.0
"""Side of the print-and-cut registration squares, mm (what cutter software scans for)."""

REGISTRATION_GAP = 2.0
"""Clearance between the card block's bleed edge and the registration squares, mm."""

FOOTER_ROOM = 5.5
"""Paper a sheet's footer needs below its block, mm: the room for cut ticks (:data:`MARK_ROOM`)
and one 6 pt line of text (see :mod:`cardgen.pdfmarks`)."""

MARK_ROOM = 2.5
"""Printable paper a cut mark needs beyond the block's printed edge, mm: the least gap kept
from the artwork (0.5) and the least of a tick that guides a cut (2); see
:mod:`cardgen.pdfmarks`. Edge-to-edge layouts give up outer bleed before this room."""


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
        return self.trim_positions()[0]

    @property
    def cut_ys(self) -> tuple[float, ...]:
        """Distinct y positions of horizontal trim lines (a shared cut counts once)."""
        return self.trim_positions()[1]

    def used_slots(self, used: int | None = None) -> tuple[Slot, ...]:
        """The slots of a sheet's first ``used`` pieces (all by default): a last sheet, partly
        filled, is cut and marked for its pieces alone."""
        return self.slots[: self.per_sheet if used is None else used]

    def trim_positions(self, used: int | None = None) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """Distinct x positions of the vertical trim lines of the first ``used`` pieces, and y
        positions of their horizontal ones (a shared cut counts once)."""
        slots = self.used_slots(used)
        return (distinct([v for s in slots for v in (s.trim.x, s.trim.right)]),
                distinct([v for s in slots for v in (s.trim.y, s.trim.bottom)]))

    def describe(self, _: Say = english) -> str:
        """One sentence for the user, e.g. "A4 portrait, 3×3 = 9 cards per sheet, …", in the
        language of ``_`` (``_(msgid, context)``, as :mod:`cardgen.build.report` passes it:
        PRINTING.txt says it in the deck's language; English by default).

        Why the bleed gave way (``note``) is not part of it: a build says that once, with
        the alternatives, rather than on every file's line."""
        where = {"paper": self.paper_label, "orientation": orientation(_, self.orientation),
                 "cols": self.cols, "rows": self.rows, "count": self.per_sheet}
        if self.layout == "tessellated":
            text = (_("{paper} {orientation}, 1 piece per sheet in {rows} interlocking rows") if self.per_sheet == 1
                    else _("{paper} {orientation}, {count} pieces per sheet in {rows} interlocking rows")).format(**where)
        else:
            text = (_("{paper} {orientation}, 1 card per sheet") if self.per_sheet == 1
                    else _("{paper} {orientation}, {cols}×{rows} = {count} cards per sheet")).format(**where)
        if self.rotated:
            text += _(", cards turned 90°")
        if self.layout in ("edge", "tessellated"):
            text += _(", edge to edge with shared cuts")
        elif self.bleed > 0:
            text += _(", with {bleed} mm bleed").format(bleed=fmt_mm(self.bleed))
        else:
            text += _(", no bleed")
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
        slots = self.used_slots(used)
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
