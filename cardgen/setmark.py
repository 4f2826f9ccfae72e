"""Set and level marks: what lets a teacher sort eight mixed class sets after a lesson.

A class prints N sets of a game (``cardgen build --sets N``). Each piece of set k carries a
small mark: a shape glyph (circle, square, triangle, …) with the set number inside it, so
sets sort by shape at a glance and by number when in doubt, in colour or in greyscale.
Pieces that look like another component but are needed only from a later level (Level 5
extras drawn with the base deck's template, a spare set) also carry a level mark, "5+".

The mark sits in the band between the cut line and the safe area, where templates keep
nothing that must be read, at a spot chosen from the piece's outline (this module); the
shared frame draws it (``templates/_shared/marks.svg.j2``) on both sides of every piece.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .model import Component, Game
from .shapes import Shape

GLYPHS = ("circle", "square", "triangle", "diamond", "pentagon", "hexagon", "star", "cross")
"""One outline per set, distinct by shape alone; sets 9–16 use the same shapes filled."""

MAX_SETS = 2 * len(GLYPHS)

GLYPH_NAMES = {"circle": "○", "square": "□", "triangle": "△", "diamond": "◇", "pentagon": "⬠", "hexagon": "⬡",
               "star": "☆", "cross": "✚"}
"""How PRINTING.txt shows each glyph (sets 9–16 add "●": filled)."""

MARK_SIZE = 4.2
"""Height of a set glyph, mm, where the safe band leaves room: its number and the level
badge's text are set at 0.52 of it, 6.2 pt."""

MIN_MARK_SIZE = 4.1
"""Smallest glyph, mm, on pieces whose safe band is narrow (20 mm tokens): its number is
still 6 pt at 100 % (0.52 × 4.1 mm = 2.13 mm), the legibility rules' minimum."""


@dataclass(frozen=True)
class SetMark:
    """What one printed piece says about its set and level, and where it says it (trim mm).

    ``x``, ``y`` is the centre of the set glyph; the level mark follows along the edge in
    direction (``dx``, ``dy``) (a unit vector)."""

    set: int | None
    glyph: str
    filled: bool
    level: int | None
    x: float
    y: float
    dx: float
    dy: float
    size: float

    def key(self) -> str:
        """A stable text naming everything that changes the drawing (part of cache keys)."""
        return (f"set={self.set};glyph={self.glyph};filled={self.filled};level={self.level};"
                f"at={self.x:.3f},{self.y:.3f},{self.dx:.3f},{self.dy:.3f};size={self.size:.3f}")

    def for_template(self) -> dict[str, object]:
        """The values the shared macro draws from (``set_mark`` in the template context)."""
        lx, ly = self.x, self.y
        if self.set is not None:
            step = self.size * 1.3 + 0.4      # half a glyph, half a level badge, a gap
            lx, ly = self.x + self.dx * step, self.y + self.dy * step
        return {"set": self.set, "glyph": self.glyph, "filled": self.filled, "level": self.level,
                "path": glyph_path(self.glyph, self.size / 2), "x": round(self.x, 3), "y": round(self.y, 3),
                "size": round(self.size, 3), "level_x": round(lx, 3), "level_y": round(ly, 3)}


def glyph_path(glyph: str, r: float) -> str:
    """SVG path data of a set glyph centred on the origin, about 2r high."""
    def polygon(corners: int, radius: float, turn: float = -90.0, inner: float | None = None) -> str:
        pts = []
        step = 360.0 / corners
        for k in range(corners):
            a = math.radians(turn + k * step)
            pts.append((radius * math.cos(a), radius * math.sin(a)))
            if inner is not None:
                b = math.radians(turn + (k + 0.5) * step)
                pts.append((inner * math.cos(b), inner * math.sin(b)))
        return "M" + "L".join(f"{x:.3f} {y:.3f}" for x, y in pts) + "Z"

    if glyph == "circle":
        return f"M{-r:.3f} 0A{r:.3f} {r:.3f} 0 1 0 {r:.3f} 0A{r:.3f} {r:.3f} 0 1 0 {-r:.3f} 0Z"
    if glyph == "square":
        a = 0.9 * r
        return f"M{-a:.3f} {-a:.3f}H{a:.3f}V{a:.3f}H{-a:.3f}Z"
    if glyph == "triangle":
        return polygon(3, 1.25 * r)
    if glyph == "diamond":
        return polygon(4, 1.12 * r)
    if glyph == "pentagon":
        return polygon(5, 1.05 * r)
    if glyph == "hexagon":
        return polygon(6, 1.02 * r, turn=0.0)
    if glyph == "star":
        return polygon(5, 1.2 * r, inner=0.62 * r)
    if glyph == "cross":
        a, b = 0.42 * r, 1.0 * r
        return (f"M{-a:.3f} {-b:.3f}H{a:.3f}V{-a:.3f}H{b:.3f}V{a:.3f}H{a:.3f}V{b:.3f}H{-a:.3f}V{a:.3f}"
                f"H{-b:.3f}V{-a:.3f}H{-a:.3f}Z")
    raise ValueError(f"unknown set glyph {glyph!r}")


def glyph_for(set_number: int) -> tuple[str, bool]:
    """The glyph of a set (1-based): outlined for sets 1–8, filled for 9–16."""
    if not 1 <= set_number <= MAX_SETS:
        raise ValueError(f"set number must be between 1 and {MAX_SETS}, got {set_number}")
    index = set_number - 1
    return GLYPHS[index % len(GLYPHS)], index >= len(GLYPHS)


def level_mark(game: Game, comp: Component, spare: bool = False) -> int | None:
    """The level to print on a component's pieces, or None.

    A piece needs one when it could be taken for a piece of an earlier level: it is drawn
    with the same front template as a component of a lower level (Level 5 extras look like
    the base deck), or it belongs to a spare set printed for a level."""
    if spare:
        return comp.level
    if comp.level <= 1:
        return None
    same_look = [c for c in game.components.values() if c.front == comp.front and c.level < comp.level]
    return comp.level if same_look else None


Box = tuple[float, float, float, float]
"""A rectangle in trim millimetres: x0, y0, x1, y1."""

GAP = 0.4
"""Clear space, mm, between a mark and any text a face prints."""


def crowded(comp: Component) -> bool:
    """Whether a component's safe band is narrower than its mark, so that a mark reaches into
    the safe area, where the templates print what must be read: its spot must then be chosen
    from what the faces print (see :func:`place`'s ``avoid``)."""
    size = mark_size(comp)
    return max(comp.safe / 2, size / 2 + 0.5) + size / 2 > comp.safe


def mark_size(comp: Component) -> float:
    return max(MIN_MARK_SIZE, min(MARK_SIZE, comp.safe - 0.6))


def place(comp: Component, set_number: int | None, level: int | None, avoid: Sequence[Box] = ()) -> SetMark | None:
    """Where a component's mark goes, or None when it has nothing to say.

    Its first spot is along the bottom edge (a lozenge's lower-left edge); with ``avoid``, the
    boxes of the texts its faces print, the first spot along the outline, nearest that one,
    where the mark covers none of them and stays inside the piece. Raises
    :class:`NoRoom` when no spot along the outline is clear."""
    if set_number is None and level is None:
        return None
    glyph, filled = glyph_for(set_number) if set_number is not None else ("circle", False)
    size = mark_size(comp)
    inset = max(comp.safe / 2, size / 2 + 0.5)
    first = _first_spot(comp, set_number, glyph, filled, level, size, inset)
    if not avoid or _clear(first, avoid):
        return first
    spots = sorted(_outline_spots(comp, max(inset, _reach(first) + 0.3)),
                   key=lambda s: math.hypot(s[0] - first.x, s[1] - first.y))
    for x, y, dx, dy in spots:
        mark = SetMark(set_number, glyph, filled, level, x, y, dx, dy, size)
        if _inside(comp, mark) and _clear(mark, avoid):
            return mark
    raise NoRoom(first)


class NoRoom(Exception):
    """Every spot along a piece's outline would cover a text its faces print."""

    def __init__(self, first: SetMark) -> None:
        super().__init__("no clear spot for the set mark")
        self.first = first


#: How far each glyph reaches from its centre, in halves of the mark's size (see glyph_path).
_REACH = {"circle": 1.0, "square": 1.28, "triangle": 1.25, "diamond": 1.12, "pentagon": 1.05, "hexagon": 1.02,
          "star": 1.2, "cross": 1.08}


def _reach(mark: SetMark) -> float:
    return _REACH[mark.glyph] * mark.size / 2 + mark.size * 0.04   # and half its outline's stroke


def footprint(mark: SetMark) -> list[Box]:
    """The boxes a mark covers (trim mm): its set glyph and its level badge."""
    boxes = []
    s = mark.size
    if mark.set is not None:
        r = _reach(mark)
        boxes.append((mark.x - r, mark.y - r, mark.x + r, mark.y + r))
    if mark.level is not None:
        drawn = mark.for_template()
        lx, ly = float(drawn["level_x"]), float(drawn["level_y"])   # type: ignore[arg-type]
        boxes.append((lx - 0.8 * s, ly - 0.47 * s, lx + 0.8 * s, ly + 0.47 * s))
    return boxes


def covered(mark: SetMark, box: Box, gap: float = GAP) -> bool:
    """Whether the mark covers (or comes within ``gap`` of) a text's box."""
    return any(a[0] - gap < box[2] and box[0] < a[2] + gap and a[1] - gap < box[3] and box[1] < a[3] + gap
               for a in footprint(mark))


def _clear(mark: SetMark, avoid: Sequence[Box]) -> bool:
    return not any(covered(mark, box) for box in avoid)


def _inside(comp: Component, mark: SetMark, margin: float = 0.2) -> bool:
    """The mark lies inside the piece, ``margin`` from its edge: its glyph's reach all
    round, and its level badge's corners."""
    w, h, shape = comp.width, comp.height, comp.shape
    corners = []
    if mark.set is not None:
        r = _reach(mark)
        corners += [(mark.x + r * math.cos(k * math.pi / 8), mark.y + r * math.sin(k * math.pi / 8)) for k in range(16)]
    if mark.level is not None:
        x0, y0, x1, y1 = footprint(mark)[-1]
        corners += [(x0, y0), (x0, y1), (x1, y0), (x1, y1)]
    if shape.type == "circle":
        rx, ry = w / 2 - margin, h / 2 - margin
        return all(((x - w / 2) / rx) ** 2 + ((y - h / 2) / ry) ** 2 <= 1 for x, y in corners)
    if shape.type == "rounded-rect":
        r = min(shape.radius, w / 2, h / 2)
        for x, y in corners:
            if not (margin <= x <= w - margin and margin <= y <= h - margin):
                return False
            cx, cy = min(max(x, r), w - r), min(max(y, r), h - r)   # the nearest corner's centre, or the point
            if math.hypot(x - cx, y - cy) > r - margin:
                return False
        return True
    for (ax, ay), _along, (nx, ny), _length in _edges(shape.vertices(w, h)):
        if any((x - ax) * nx + (y - ay) * ny < margin for x, y in corners):
            return False
    return True


def _edges(pts: list[tuple[float, float]]) -> Iterator[tuple[tuple[float, float], tuple[float, float],
                                                             tuple[float, float], float]]:
    """Each edge of a polygon: its start, its direction, its inward normal (the vertices run
    clockwise, y down) and its length."""
    for (ax, ay), (bx, by) in zip(pts, pts[1:] + pts[:1]):
        length = math.hypot(bx - ax, by - ay)
        ex, ey = (bx - ax) / length, (by - ay) / length
        yield (ax, ay), (ex, ey), (-ey, ex), length


def _outline_spots(comp: Component, inset: float, step: float = 1.0) -> list[tuple[float, float, float, float]]:
    """Spots ``inset`` inside the piece's outline, about ``step`` mm apart, each with the
    direction along the edge (clockwise) in which a level badge follows the glyph."""
    w, h, shape = comp.width, comp.height, comp.shape
    out = []
    if shape.type == "circle":
        rx, ry = w / 2, h / 2
        n = max(16, int(math.pi * (rx + ry) / step))
        for k in range(n):
            a = 2 * math.pi * k / n
            c, s = math.cos(a), math.sin(a)
            nx, ny = c / rx, s / ry
            norm = math.hypot(nx, ny)
            tx, ty = -s * rx, c * ry
            tnorm = math.hypot(tx, ty)
            out.append((w / 2 + rx * c - inset * nx / norm, h / 2 + ry * s - inset * ny / norm,
                        -tx / tnorm, -ty / tnorm))
        return out
    pts = Shape("rect").vertices(w, h) if shape.type == "rounded-rect" else shape.vertices(w, h)
    for (ax, ay), (ex, ey), (nx, ny), length in _edges(pts):
        parts = max(2, int(length / step))
        for k in range(1, parts):
            t = k * length / parts
            out.append((ax + ex * t + nx * inset, ay + ey * t + ny * inset, ex, ey))
    return out


def _first_spot(comp: Component, set_number: int | None, glyph: str, filled: bool, level: int | None,
                size: float, inset: float) -> SetMark:
    w, h, shape = comp.width, comp.height, comp.shape
    if shape.type == "lozenge":
        # along the lower-left edge, a third of the way from the left corner to the bottom one
        (ax, ay), (bx, by) = (0.0, h / 2), (w / 2, h)
        t = 0.34
        px, py = ax + (bx - ax) * t, ay + (by - ay) * t
        length = math.hypot(bx - ax, by - ay)
        ex, ey = (bx - ax) / length, (by - ay) / length
        nx, ny = ey, -ex                      # inward normal (the left-hand side going down-right)
        return SetMark(set_number, glyph, filled, level, px + nx * inset, py + ny * inset, ex, ey, size)
    if shape.type in ("circle", "hexagon"):
        # at the bottom, left of the middle (flat bottom edge of a hexagon, lowest point of a disc)
        return SetMark(set_number, glyph, filled, level, w / 2 - (size * 0.55 if level and set_number else 0),
                       h - inset, 1.0, 0.0, size)
    corner = shape.radius if shape.type == "rounded-rect" else 0.0
    return SetMark(set_number, glyph, filled, level, max(corner, comp.safe) + size / 2 + 1.0, h - inset,
                   1.0, 0.0, size)
