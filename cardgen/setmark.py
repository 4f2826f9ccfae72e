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
from dataclasses import dataclass

from .model import Component, Game

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


def place(comp: Component, set_number: int | None, level: int | None) -> SetMark | None:
    """Where a component's mark goes, or None when it has nothing to say."""
    if set_number is None and level is None:
        return None
    glyph, filled = glyph_for(set_number) if set_number is not None else ("circle", False)
    size = max(MIN_MARK_SIZE, min(MARK_SIZE, comp.safe - 0.6))
    inset = max(comp.safe / 2, size / 2 + 0.5)
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
