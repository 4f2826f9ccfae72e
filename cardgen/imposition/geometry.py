"""Shapes and maps of sheet geometry: the card, its slot on a sheet, rectangles, polygons
and the affine maps that place artwork and flip a sheet for its back.

Every length is in millimetres with the origin at the top-left corner of the sheet and y
growing downwards, which is how people measure a printed page.  The PDF writer converts
to points and flips y only when it writes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from ..affine import Affine, image_bounds
from ..paper import PaperError, check_size, fmt_mm

LayoutKind = Literal["bleed", "edge", "tessellated"]
Duplex = Literal["long", "short", "none"]

Point = tuple[float, float]
Polygon = tuple[Point, ...]
Segment = tuple[float, float, float, float]


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


def printed_bleed(card: CardGeometry, bleed: float | None) -> float:
    """The bleed to print around a card: its own by default, or less (artwork that does not
    exist cannot be printed)."""
    b = card.bleed if bleed is None else bleed
    if not 0 <= b <= card.bleed:
        raise ImpositionError(
            f"bleed {fmt_mm(b)} mm must be between 0 and the card's artwork bleed ({fmt_mm(card.bleed)} mm)"
        )
    return b


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


def transform_rect(m: Affine, r: Rect) -> Rect:
    """Bounding box of a rectangle's image (exact for the quarter turns and flips used here)."""
    x0, y0, x1, y1 = image_bounds(m, r.x, r.y, r.right, r.bottom)
    return Rect(x0, y0, x1 - x0, y1 - y0)


def bbox(rects: list[Rect]) -> Rect:
    """Bounding box of rectangles."""
    x0 = min(r.x for r in rects)
    y0 = min(r.y for r in rects)
    x1 = max(r.right for r in rects)
    y1 = max(r.bottom for r in rects)
    return Rect(x0, y0, x1 - x0, y1 - y0)


def distinct(values: list[float], tol: float = 1e-6) -> tuple[float, ...]:
    """The values sorted, those within ``tol`` of the previous kept one left out."""
    out: list[float] = []
    for v in sorted(values):
        if not out or v - out[-1] > tol:
            out.append(v)
    return tuple(out)


def edge_lines(polygons: list[Polygon], tol: float = 1e-3) -> tuple[Segment, ...]:
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


