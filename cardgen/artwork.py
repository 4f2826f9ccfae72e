"""Drawing helpers that templates call for geometry Jinja cannot express well (trigonometry,
curves). They return SVG path data or small fragments in millimetres; all styling stays in
the templates. Any game may use them, so a new game still needs no Python.
"""

from __future__ import annotations

import math

from markupsafe import Markup, escape

from .readability import ink_on, reads_otherwise


def _n(v: float) -> str:
    s = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if s in ("", "-0") else s


def polar(cx: float, cy: float, r: float, degrees: float) -> tuple[float, float]:
    """Point at ``r`` mm from (cx, cy) at ``degrees`` (0 = right, 90 = down: SVG's y axis)."""
    a = math.radians(degrees)
    return cx + r * math.cos(a), cy + r * math.sin(a)


def polygon(cx: float, cy: float, r: float, sides: int, rotation: float = 0.0) -> str:
    """Path data of a regular polygon (hexagon tokens, vertex icons)."""
    pts = [polar(cx, cy, r, rotation + 360 * i / sides) for i in range(sides)]
    return "M" + "L".join(f"{_n(x)} {_n(y)}" for x, y in pts) + "Z"


def _frame(x1: float, y1: float, x2: float, y2: float) -> tuple[float, float, float]:
    """Length and unit direction of a segment (a zero-length segment points right)."""
    length = math.hypot(x2 - x1, y2 - y1)
    if length == 0:
        return 0.0, 1.0, 0.0
    return length, (x2 - x1) / length, (y2 - y1) / length


#: Waves or loops one photon or gluon line may have (a card's line has a dozen).
MAX_REPEATS = 2000


def _repeats(length: float, period: float, name: str) -> int:
    """Whole periods along a line, refusing a period so short the path would be endless."""
    if not period > 0:
        raise ValueError(f"{name} must be a positive number of millimetres, got {period!r}")
    count = length / period
    if not count <= MAX_REPEATS:
        raise ValueError(f"a line of {length:g} mm with {name} {period:g} mm would have {count:g} periods; "
                         f"at most {MAX_REPEATS} are drawn")
    return max(1, round(count))


def wavy(x1: float, y1: float, x2: float, y2: float, amplitude: float = 1.5, wavelength: float = 5.0) -> str:
    """A photon line: a sine wave with a whole number of periods, so both ends sit on the axis
    (lines from neighbouring cards then join without a step)."""
    length, ux, uy = _frame(x1, y1, x2, y2)
    periods = _repeats(length, wavelength, "wavelength")
    steps = periods * 16
    pts = []
    for i in range(steps + 1):
        t = i / steps
        d = t * length
        off = amplitude * math.sin(2 * math.pi * periods * t)
        pts.append((x1 + ux * d - uy * off, y1 + uy * d + ux * off))
    return "M" + "L".join(f"{_n(x)} {_n(y)}" for x, y in pts)


def curly(x1: float, y1: float, x2: float, y2: float, radius: float = 1.6, pitch: float = 3.2) -> str:
    """A gluon line: a chain of loops (a prolate cycloid) starting and ending on the axis."""
    length, ux, uy = _frame(x1, y1, x2, y2)
    loops = _repeats(length, pitch, "pitch")
    steps = loops * 24
    advance = length / (2 * math.pi * loops)
    pts = []
    for i in range(steps + 1):
        th = 2 * math.pi * loops * i / steps
        along = advance * th - radius * math.sin(th) * 0.9
        across = radius * (1 - math.cos(th))
        pts.append((x1 + ux * along - uy * across, y1 + uy * along + ux * across))
    return "M" + "L".join(f"{_n(x)} {_n(y)}" for x, y in pts)


def arrow(x1: float, y1: float, x2: float, y2: float, size: float = 4.0, at: float = 0.5) -> str:
    """A filled triangle on the segment, at fraction ``at``, pointing from (x1, y1) to (x2, y2):
    the direction of a fermion's charge flow."""
    length, ux, uy = _frame(x1, y1, x2, y2)
    cx, cy = x1 + ux * length * at, y1 + uy * length * at
    tip = (cx + ux * size / 2, cy + uy * size / 2)
    back = (cx - ux * size / 2, cy - uy * size / 2)
    half = size * 0.45
    left = (back[0] - uy * half, back[1] + ux * half)
    right = (back[0] + uy * half, back[1] - ux * half)
    return f"M{_n(tip[0])} {_n(tip[1])}L{_n(left[0])} {_n(left[1])}L{_n(right[0])} {_n(right[1])}Z"


def feynman(style: str, x1: float, y1: float, x2: float, y2: float, stroke: str = "#000", width: float = 1.0,
            arrow_size: float | None = None) -> Markup:
    """A Feynman-diagram line from (x1, y1) to (x2, y2): fermion (solid, with a charge arrow),
    photon (wavy), gluon (curly), scalar (dashed) or plain boson (solid)."""
    stroke = escape(stroke)
    common = f'fill="none" stroke="{stroke}" stroke-width="{_n(width)}" stroke-linecap="round" stroke-linejoin="round"'
    if style == "photon":
        return Markup(f'<path d="{wavy(x1, y1, x2, y2, amplitude=width * 1.6, wavelength=width * 5)}" {common}/>')
    if style == "gluon":
        return Markup(f'<path d="{curly(x1, y1, x2, y2, radius=width * 1.6, pitch=width * 3.4)}" {common}/>')
    if style == "scalar":
        return Markup(f'<path d="M{_n(x1)} {_n(y1)}L{_n(x2)} {_n(y2)}" {common} stroke-dasharray="{_n(width * 3)} {_n(width * 2)}"/>')
    line = f'<path d="M{_n(x1)} {_n(y1)}L{_n(x2)} {_n(y2)}" {common}/>'
    if style == "fermion":
        size = arrow_size if arrow_size is not None else width * 5
        line += f'<path d="{arrow(x1, y1, x2, y2, size)}" fill="{stroke}" class="charge-arrow"/>'
    return Markup(line)


TEMPLATE_HELPERS = {"polar": polar, "polygon": polygon, "feynman": feynman, "wavy": wavy, "curly": curly,
                    "arrow": arrow, "ink_on": ink_on, "reads_turned": reads_otherwise}
