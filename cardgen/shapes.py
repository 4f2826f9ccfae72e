"""Card and token outlines. A shape is data (``shape: {type: lozenge, angle: 120}``); from it and
the trim size cardgen derives the cut path that templates clip to and print sheets draw.

All geometry is in millimetres with the origin at the trim box's top-left corner, y down (SVG).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SHAPE_TYPES = ("rect", "rounded-rect", "lozenge", "hexagon", "circle")


def _fmt(v: float) -> str:
    """Compact, stable number formatting for path data (3 decimals = 1 µm)."""
    s = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


@dataclass(frozen=True)
class Shape:
    """An outline inscribed in the trim box.

    * ``rect`` / ``rounded-rect`` (``radius`` mm) fill the box;
    * ``lozenge`` is the rhombus through the midpoints of the box's sides; ``angle`` is its
      angle at the left and right corners (the ends of a Tutti Quantum particle line);
    * ``hexagon`` has two vertices on the left and right edges (flat top) or on top and bottom
      (``pointy: true``);
    * ``circle`` is an ellipse filling the box (a circle when the box is square).
    """

    type: str = "rounded-rect"
    radius: float = 3.0
    angle: float | None = None
    pointy: bool = False

    @property
    def is_rectangular(self) -> bool:
        return self.type in ("rect", "rounded-rect")

    def vertices(self, w: float, h: float) -> list[tuple[float, float]]:
        """Polygon corners for lozenges and hexagons (clockwise from the left)."""
        if self.type == "lozenge":
            return [(0, h / 2), (w / 2, 0), (w, h / 2), (w / 2, h)]
        if self.type == "hexagon":
            if self.pointy:
                return [(0, h / 4), (w / 2, 0), (w, h / 4), (w, 3 * h / 4), (w / 2, h), (0, 3 * h / 4)]
            return [(0, h / 2), (w / 4, 0), (3 * w / 4, 0), (w, h / 2), (3 * w / 4, h), (w / 4, h)]
        if self.type == "rect":
            return [(0, 0), (w, 0), (w, h), (0, h)]
        raise ValueError(f"{self.type} has no polygon")

    def cut_path(self, w: float, h: float, dx: float = 0.0, dy: float = 0.0) -> str:
        """SVG path data of the cut line, offset by (dx, dy) mm."""
        if self.type == "circle":
            rx, ry = w / 2, h / 2
            cx, cy = dx + rx, dy + ry
            return (f"M{_fmt(cx - rx)} {_fmt(cy)}A{_fmt(rx)} {_fmt(ry)} 0 1 0 {_fmt(cx + rx)} {_fmt(cy)}"
                    f"A{_fmt(rx)} {_fmt(ry)} 0 1 0 {_fmt(cx - rx)} {_fmt(cy)}Z")
        if self.type == "rounded-rect" and self.radius > 0:
            r = min(self.radius, w / 2, h / 2)
            x0, y0, x1, y1 = dx, dy, dx + w, dy + h
            return (f"M{_fmt(x0 + r)} {_fmt(y0)}H{_fmt(x1 - r)}A{_fmt(r)} {_fmt(r)} 0 0 1 {_fmt(x1)} {_fmt(y0 + r)}"
                    f"V{_fmt(y1 - r)}A{_fmt(r)} {_fmt(r)} 0 0 1 {_fmt(x1 - r)} {_fmt(y1)}"
                    f"H{_fmt(x0 + r)}A{_fmt(r)} {_fmt(r)} 0 0 1 {_fmt(x0)} {_fmt(y1 - r)}"
                    f"V{_fmt(y0 + r)}A{_fmt(r)} {_fmt(r)} 0 0 1 {_fmt(x0 + r)} {_fmt(y0)}Z")
        pts = self.vertices(w, h) if self.type != "rounded-rect" else Shape("rect").vertices(w, h)
        return "M" + "L".join(f"{_fmt(x + dx)} {_fmt(y + dy)}" for x, y in pts) + "Z"

    def lozenge_angle(self, w: float, h: float) -> float:
        """The actual angle (degrees) at the left/right corners of a lozenge of this box."""
        return math.degrees(2 * math.atan2(h / 2, w / 2))
