"""Writing a face's PDF page straight from :mod:`cardgen.directdraw`'s reading of its SVG,
without cairo (part of the drawing stage, :mod:`cardgen.draw`).

Why: a face the direct drawer reads still went through cairo to become a PDF: a surface set
up, every path operation a call into cairo, then cairo finishing the file — its page, a
structure tree for the marks of the text runs — which the print stage then parsed again to
take the page out as a form. Written here from the same operations, a card of the bench's
large deck is drawn and relocated in 1.38 ms instead of 2.05 ms, the shipped faces in 3.74
ms instead of 5.59 ms on average (measured, one process; see bench/README.md).

What: the operations the direct drawer would hand cairo (:class:`directdraw._Painter`) are
carried out here on a model of cairo's state — its matrix, path, clip, line and fill
settings, saved and restored as cairo saves them — and the page is written as cairo writes
one: paths in cairo's device space (points, y down, under the page's flip), built with
cairo's own construction of arcs; fills and clips in that space, strokes under the
element's matrix; opacities as graphics states; a pattern as a tiling pattern of its tile,
drawn the same way in its own space. Text runs are marked exactly as cairo marks
those it draws for shared glyph forms (the path that paints nothing, then the ``Span``
mark), and carried in the document information (:mod:`cardgen.glyphforms`), so the print
stage reads the page as it reads cairo's. The content stream is left uncompressed: the
print stage compresses each face's drawing once, at its own level, and the cache
compresses what it keeps.

Anything else — a group drawn with opacity, a text run that cannot be shared, text as a clip
path, a root whose clip is not the page, a point far off the page — raises
:class:`Unwritable` before a byte is written, and cairo draws the face as before.
``tests/test_directpdf.py`` rasterises every shipped face both ways and compares the pixels.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable

from . import directdraw, glyphforms   # directdraw first: it brings in cairosvg the fast way (see cardgen.cairoffi)
from .budget import current as current_budget
from .glyphforms import fmt_number as _num
from .affine import compose, image_bounds

from cairosvg.colors import color  # noqa: E402
from cairosvg.helpers import paint as svg_paint  # noqa: E402

_lib = directdraw._lib


class Unwritable(Exception):
    """The drawing uses something this module does not write: cairo draws the face."""


@dataclass(frozen=True)
class Page:
    """The page cairosvg sets up for a face's root: its size in points and the matrix from
    the SVG's user units to cairo's device space."""

    width: float
    height: float
    ctm: tuple[float, float, float, float, float, float]


class Runs(list):
    """The text runs of a page this module wrote (carried in its document information): their
    marks are written as recorded, so the check of cairo's marks
    (:func:`cardgen.glyphforms.marks_intact`) has nothing to find."""


@dataclass(frozen=True)
class Written:
    """A face's PDF and the text runs it marked."""

    data: bytes
    runs: Runs


Matrix = tuple[float, float, float, float, float, float]   # cairo's xx, yx, xy, yy, x0, y0


def _invert(m: Matrix) -> Matrix:
    a, b, c, d, e, f = m
    det = a * d - b * c
    if det == 0 or not math.isfinite(det):
        raise Unwritable("a matrix that cannot be inverted")
    ia, ib, ic, id_ = d / det, -b / det, -c / det, a / det
    return ia, ib, ic, id_, -(e * ia + f * ic), -(e * ib + f * id_)


# cairo's arcs (cairo-arc.c): the largest angle a Bézier segment may span for an error
# below the tolerance, relative to the radius, from its table and then its formula.
_ARC_TABLE = ((math.pi / 1.0, 0.0185185185185185036127), (math.pi / 2.0, 0.000272567143730179811158),
              (math.pi / 3.0, 2.38647043651461047433e-05), (math.pi / 4.0, 4.2455377443222443279e-06),
              (math.pi / 5.0, 1.11281001494389081528e-06), (math.pi / 6.0, 3.72662000942734705475e-07),
              (math.pi / 7.0, 1.47783685574284411325e-07), (math.pi / 8.0, 6.63240432022601149057e-08),
              (math.pi / 9.0, 3.2715520137536980553e-08), (math.pi / 10.0, 1.73863223499021216974e-08),
              (math.pi / 11.0, 9.81410988043554039085e-09))


def _max_arc_angle(tolerance: float) -> float:
    for angle, error in _ARC_TABLE:
        if error < tolerance:
            return angle
    i = len(_ARC_TABLE) + 1
    while True:
        angle = math.pi / i
        i += 1
        if 2.0 / 27.0 * math.sin(angle / 4) ** 6 / math.cos(angle / 4) ** 2 <= tolerance or i >= 1000:
            return angle


def _major_axis(m: Matrix, radius: float) -> float:
    a, b, c, d = m[:4]
    if a == d == 1 and b == c == 0:
        return radius
    i, j = a * a + b * b, c * c + d * d
    f, g, h = 0.5 * (i + j), 0.5 * (i - j), a * c + b * d
    return radius * math.sqrt(f + math.hypot(g, h))


class _State:
    """cairo's graphics state, as far as a face's drawing sets it (the source is not kept:
    each fill or stroke is handed its paint)."""

    __slots__ = ("ctm", "cap", "join", "miter", "dash", "tolerance", "clip", "clips")

    def __init__(self, ctm: Matrix) -> None:
        self.ctm = ctm
        self.cap = 0
        self.join = 0
        self.miter = 10.0
        self.dash: tuple[tuple[float, ...], float] = ((), 0.0)
        self.tolerance = 0.1
        self.clip: tuple[float, float, float, float] | None = None   # the clip's bounds in device space
        self.clips = 0   # the q operators written for clips since this state was saved

    def copy(self) -> "_State":
        other = _State.__new__(_State)
        other.ctm, other.cap, other.join, other.miter, other.dash = self.ctm, self.cap, self.join, self.miter, self.dash
        other.tolerance, other.clip, other.clips = self.tolerance, self.clip, 0
        return other


#: What a fill or stroke paints with: a colour (r, g, b, alpha), or a pattern's resource name.
Paint = tuple[float, float, float, float] | str


class _Written:
    """What the content stream has set so far, for fills (False) and strokes (True): PDF's
    initial state, then each operator."""

    __slots__ = ("colour", "alpha")

    def __init__(self) -> None:
        self.colour: dict[bool, tuple] = {False: (0.0, 0.0, 0.0), True: (0.0, 0.0, 0.0)}   # or (a pattern's name,)
        self.alpha = {False: 1.0, True: 1.0}

    def copy(self) -> "_Written":
        other = _Written()
        other.colour, other.alpha = dict(self.colour), dict(self.alpha)
        return other


#: The operators setting a fill's (False) or a stroke's (True) colour, colour space and
#: pattern, and the graphics state's key for its opacity.
_PAINT_OPS = {False: ("rg", "cs", "scn", "ca"), True: ("RG", "CS", "SCN", "CA")}


#: Path operators with their numbers, in device space (points: a thousandth is 0.35 µm) and
#: in a user space under a stroke's matrix stretched unevenly (millimetres, most often).
_DEVICE_OPS = {"m": "%.3f %.3f m", "l": "%.3f %.3f l", "c": "%.3f %.3f %.3f %.3f %.3f %.3f c", "h": "h"}
_USER_OPS = {"m": "%.5f %.5f m", "l": "%.5f %.5f l", "c": "%.5f %.5f %.5f %.5f %.5f %.5f c", "h": "h"}
_ZEROS_AFTER_DIGIT = re.compile(r"(\.\d*?[1-9])0+\b")
_ZEROS_AFTER_POINT = re.compile(r"\.0+\b")


def _trimmed(content: str) -> str:
    """``content`` with every number's trailing zeros (and a point left alone) dropped, as cairo
    writes its numbers: paths are written with a fixed number of places, for speed, and a
    face's drawing is a few kilobytes smaller trimmed, compressed in the print."""
    return _ZEROS_AFTER_POINT.sub("", _ZEROS_AFTER_DIGIT.sub(r"\1", content))


#: The path that paints nothing before a run's mark, as cairo writes it (see mark_run).
_SYNC = "%.3f %.3f m %.3f %.3f l %.3f %.3f l %.3f %.3f l h %.3f %.3f m %.3f %.3f l %.3f %.3f l %.3f %.3f l h"
#: Device coordinates beyond this (points) are left to cairo, which clamps them its own way.
_FAR = 1e6


class _Canvas:
    """cairo's context for one page: the state stack, the current path (device space) and
    the content stream written so far."""

    def __init__(self, page: Page, flip: bool = True) -> None:
        """``flip``: a page (PDF's y up, under cairo's device space); else a pattern's tile,
        drawn in its own space."""
        self.state = _State(page.ctm)
        self.saved: list[_State] = []
        self.written = _Written()
        self.written_saved: list[_Written] = []
        self.path: list[tuple] = []              # ("m", x, y), ("l", x, y), ("c", 6 numbers), ("h",)
        self.current: tuple[float, float] | None = None
        self.start: tuple[float, float] | None = None   # the current subpath's first point
        self.out: list[str] = [f"1 0 0 -1 0 {_num(page.height, 6)} cm"] if flip else []
        self.alphas: dict[tuple[str, float], str] = {}
        self.patterns: list[tuple[Matrix, tuple[float, float], bytes, str]] = []   # the page's (see pattern)
        self.page = page

    # -- state ---------------------------------------------------------------------------

    def save(self) -> None:
        self.saved.append(self.state)
        self.state = self.state.copy()

    def restore(self) -> None:
        for _ in range(self.state.clips):
            self.out.append("Q")
            self.written = self.written_saved.pop()
        self.state = self.saved.pop()

    def transform(self, m: Matrix) -> None:
        self.state.ctm = compose(self.state.ctm, m)   # cairo_transform: m first, then the matrix so far

    def device(self, x: float, y: float) -> tuple[float, float]:
        """A point in device space, on cairo's grid of 1/256 (its paths are fixed-point)."""
        a, b, c, d, e, f = self.state.ctm
        return round((a * x + c * y + e) * 256) / 256, round((b * x + d * y + f) * 256) / 256

    def distance(self, dx: float, dy: float) -> tuple[float, float]:
        a, b, c, d = self.state.ctm[:4]
        return round((a * dx + c * dy) * 256) / 256, round((b * dx + d * dy) * 256) / 256

    # -- path ----------------------------------------------------------------------------

    def move_to(self, x: float, y: float) -> None:
        self._move(self.device(x, y))

    def _move(self, p: tuple[float, float]) -> None:
        if self.path and self.path[-1][0] == "m":
            self.path.pop()   # cairo keeps the last of several moves
        self.path.append(("m", *p))
        self.current = self.start = p

    def line_to(self, x: float, y: float) -> None:
        self._line(self.device(x, y))

    def _line(self, p: tuple[float, float]) -> None:
        if self.current is None:
            self._move(p)
            return
        if p == self.current and self.path and self.path[-1][0] != "m":
            return   # cairo drops a segment to where it is (but keeps one right after a move)
        self.path.append(("l", *p))
        self.current = p

    def curve_to(self, x1: float, y1: float, x2: float, y2: float, x3: float, y3: float) -> None:
        self._curve(self.device(x1, y1), self.device(x2, y2), self.device(x3, y3))

    def _curve(self, p1: tuple[float, float], p2: tuple[float, float], p3: tuple[float, float]) -> None:
        if self.current is None:
            self._move(p1)
        self.path.append(("c", *p1, *p2, *p3))
        self.current = p3

    def _relative(self, dx: float, dy: float) -> tuple[float, float]:
        if self.current is None:
            raise Unwritable("a relative move without a current point")   # cairo's error: let it say it
        ddx, ddy = self.distance(dx, dy)
        return self.current[0] + ddx, self.current[1] + ddy

    def rel_move_to(self, dx: float, dy: float) -> None:
        self._move(self._relative(dx, dy))

    def rel_line_to(self, dx: float, dy: float) -> None:
        self._line(self._relative(dx, dy))

    def rel_curve_to(self, x1: float, y1: float, x2: float, y2: float, x3: float, y3: float) -> None:
        self._curve(self._relative(x1, y1), self._relative(x2, y2), self._relative(x3, y3))

    def close_path(self) -> None:
        if self.current is None or self.start is None:
            return
        if self.path and self.path[-1][0] != "h":
            self.path.append(("h",))
        self.current = self.start

    def rectangle(self, x: float, y: float, width: float, height: float) -> None:
        self.move_to(x, y)
        self.rel_line_to(width, 0)
        self.rel_line_to(0, height)
        self.rel_line_to(-width, 0)
        self.close_path()

    def new_path(self) -> None:
        self.path = []
        self.current = self.start = None

    def new_sub_path(self) -> None:
        self.current = None

    def arc(self, xc: float, yc: float, radius: float, angle1: float, angle2: float, forward: bool = True) -> None:
        """cairo_arc and cairo_arc_negative, segment by segment as cairo builds them."""
        if forward and angle2 < angle1:
            angle2 = math.fmod(angle2 - angle1, 2 * math.pi)
            angle2 = angle1 + (angle2 + 2 * math.pi if angle2 < 0 else angle2)
        elif not forward and angle2 > angle1:
            angle2 = math.fmod(angle2 - angle1, 2 * math.pi)
            angle2 = angle1 + (angle2 - 2 * math.pi if angle2 > 0 else angle2)
        if radius <= 2.220446049250313e-16:
            self.line_to(xc, yc)
            return
        self._to(xc + radius * math.cos(angle1), yc + radius * math.sin(angle1))
        if forward:
            self._arc(xc, yc, radius, angle1, angle2, True)
        else:
            self._arc(xc, yc, radius, angle2, angle1, False)

    def arc_negative(self, xc: float, yc: float, radius: float, angle1: float, angle2: float) -> None:
        self.arc(xc, yc, radius, angle1, angle2, forward=False)

    def _arc(self, xc: float, yc: float, radius: float, low: float, high: float, forward: bool) -> None:
        if high - low > math.pi:
            mid = low + (high - low) / 2.0
            halves = ((low, mid), (mid, high)) if forward else ((mid, high), (low, mid))
            for a, b in halves:
                self._arc(xc, yc, radius, a, b, forward)
            return
        if high == low:
            self.line_to(xc + radius * math.cos(low), yc + radius * math.sin(low))
            return
        major = _major_axis(self.state.ctm, radius)
        if major == 0 or not math.isfinite(major):
            raise Unwritable("an arc under a degenerate matrix")
        segments = max(1, math.ceil(abs(high - low) / _max_arc_angle(self.state.tolerance / major)))
        step = (high - low) / segments
        if not forward:
            low, high, step = high, low, -step
        self._to(xc + radius * math.cos(low), yc + radius * math.sin(low))
        for _ in range(segments - 1):
            self._segment(xc, yc, radius, low, low + step)
            low += step
        self._segment(xc, yc, radius, low, high)

    def _to(self, x: float, y: float) -> None:
        """The line to an arc's start, none when the path is there already (cairo writes no
        such segment)."""
        p = self.device(x, y)
        if p != self.current:
            self._line(p)

    def _segment(self, xc: float, yc: float, r: float, a: float, b: float) -> None:
        sin_a, cos_a, sin_b, cos_b = r * math.sin(a), r * math.cos(a), r * math.sin(b), r * math.cos(b)
        h = 4.0 / 3.0 * math.tan((b - a) / 4.0)
        self.curve_to(xc + cos_a - h * sin_a, yc + sin_a + h * cos_a, xc + cos_b + h * sin_b,
                      yc + sin_b - h * cos_b, xc + cos_b, yc + sin_b)

    # -- settings ------------------------------------------------------------------------

    def set_line_cap(self, cap: int) -> None:
        self.state.cap = int(cap)

    def set_line_join(self, join: int) -> None:
        self.state.join = int(join)

    def set_miter_limit(self, miter: float) -> None:
        self.state.miter = miter

    def set_dash(self, dashes: Any, count: int, offset: float) -> None:
        self.state.dash = (tuple(dashes[i] for i in range(count)), offset)

    def set_tolerance(self, tolerance: float) -> None:
        self.state.tolerance = tolerance

    def translate(self, x: float, y: float) -> None:
        self.transform((1.0, 0.0, 0.0, 1.0, x, y))

    def scale(self, sx: float, sy: float) -> None:
        self.transform((sx, 0.0, 0.0, sy, 0.0, 0.0))

    def rotate(self, angle: float) -> None:
        s, c = math.sin(angle), math.cos(angle)
        self.transform((c, s, -s, c, 0.0, 0.0))

    # -- painting ------------------------------------------------------------------------

    def _drawn(self) -> list[tuple]:
        """The current path's operations but its last moves (a move nothing follows draws
        nothing); Unwritable for a point far off the page."""
        ops = self.path
        while ops and ops[-1][0] == "m":
            ops = ops[:-1]
        for op in ops:
            if len(op) > 1 and not (-_FAR < min(op[1:]) and max(op[1:]) < _FAR):
                raise Unwritable("a point far outside the page")
        return ops

    def _device_path(self) -> str:
        """The current path as PDF operators, in device space."""
        ops = self._drawn()
        box = _rectangle(ops)
        if box is not None:
            return "%.3f %.3f %.3f %.3f re" % box
        return " ".join(_DEVICE_OPS[op[0]] % op[1:] for op in ops)

    def _user_path(self, inverse: Matrix, formats: dict[str, str]) -> str:
        """The current path as PDF operators, in the user space ``inverse`` maps device space
        to (its numbers written as ``formats`` says)."""
        ia, ib, ic, id_, ie, if_ = inverse
        parts = []
        for op in self._drawn():
            values = op[1:]
            user: list[Any] = [op[0]]
            for i in range(0, len(values), 2):
                x, y = values[i], values[i + 1]
                user += (ia * x + ic * y + ie, ib * x + id_ * y + if_)
            parts.append(tuple(user))
        box = _rectangle(parts)
        if box is not None:
            return "%.5f %.5f %.5f %.5f re" % box
        return " ".join(formats[op[0]] % op[1:] for op in parts)

    def _alpha(self, kind: str, alpha: float) -> str:
        name = self.alphas.get((kind, alpha))
        if name is None:
            name = self.alphas[(kind, alpha)] = f"/a{len(self.alphas)}"
        return name

    def _paint(self, paint: Paint, stroking: bool) -> None:
        """Set what a fill (or a stroke) paints with, where it differs from what is set."""
        colour_op, space_op, pattern_op, alpha_key = _PAINT_OPS[stroking]
        w = self.written
        if isinstance(paint, str):
            if w.colour[stroking] != (paint,):
                self.out.append(f"/Pattern {space_op} {paint} {pattern_op}")
                w.colour[stroking] = (paint,)
            alpha = 1.0   # a pattern's tile carries its own opacities
        else:
            if paint[:3] != w.colour[stroking]:
                self.out.append("%s %s %s %s" % (_num(paint[0], 6), _num(paint[1], 6), _num(paint[2], 6), colour_op))
                w.colour[stroking] = paint[:3]
            alpha = paint[3]
        if alpha != w.alpha[stroking]:
            self.out.append(f"{self._alpha(alpha_key, alpha)} gs")
            w.alpha[stroking] = alpha

    def fill_preserve(self, paint: Paint, evenodd: bool) -> None:
        """Fill the current path (kept). One whose bounds have no width or no height is not
        written, as cairo writes none (a viewer may paint such a fill as a hairline; a
        diagonal one cairo does write, merged into the stroke's ``B`` when the element is
        stroked too, where this writer writes ``f`` then ``S``: one pixel of pdfium's may
        differ at its end)."""
        bounds = _bounds(self.path)
        if bounds is None or bounds[0] == bounds[2] or bounds[1] == bounds[3]:
            return
        path = self._device_path()
        if path:
            self._paint(paint, False)
            self.out.append(path + (" f*" if evenodd else " f"))

    def stroke(self, paint: Paint, line_width: float) -> None:
        """Stroke the current path (then dropped) under the matrix it was built with: its
        line's width, dashes, caps, joins and miter limit set inside that matrix's ``q``, in
        the same units as the path (what every viewer reads alike); PDF's defaults left out."""
        s = self.state
        if line_width <= 0:   # cairo strokes nothing (PDF's 0 would be the thinnest line a device draws)
            self.new_path()
            return
        a, b, c, d, e, f = s.ctm
        scale = math.sqrt(abs(a * d - b * c))
        if abs(a * a + b * b - c * c - d * d) < 1e-9 * scale * scale and abs(a * c + b * d) < 1e-9 * scale * scale:
            # a uniform scale (with a rotation or mirror): the path, width and dashes in points
            matrix: Matrix = (a / scale, b / scale, c / scale, d / scale, e, f)
            formats = _DEVICE_OPS
        else:
            matrix, scale, formats = s.ctm, 1.0, _USER_OPS
        path = self._user_path(_invert(matrix), formats)
        if path:
            self._paint(paint, True)
            style = [f"q {' '.join(_num(v, 8) for v in matrix)} cm"]
            if line_width * scale != 1:
                style.append(f"{_num(line_width * scale, 6)} w")
            if s.cap:
                style.append(f"{s.cap} J")
            if s.join:
                style.append(f"{s.join} j")
            if s.miter != 10:
                style.append(f"{_num(s.miter, 6)} M")
            dashes, offset = s.dash
            if dashes:
                style.append(f"[{' '.join(_num(v * scale, 6) for v in dashes)}] {_num(offset * scale, 6)} d")
            self.out.append(f"{' '.join(style)} {path} S Q")
        self.new_path()

    def mark_run(self, box: tuple[float, float, float, float], rgba: tuple[float, float, float, float],
                 evenodd: bool) -> None:
        """A run's box (user space) as :func:`cardgen.glyphforms.append_sync_path` draws it —
        the box one way, then the other, painting nothing — filled in the run's colour (the
        path that was there, moves only, dropped with it, as cairo's fill drops it)."""
        if any(op[0] != "m" for op in self.path):
            raise Unwritable("text drawn into a path")   # never in what the direct drawer reads
        x0, y0, x1, y1 = box
        a, b, c, d = (self.device(x, y) for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)))
        if not all(-_FAR < v < _FAR for v in (*a, *b, *c, *d)):
            raise Unwritable("a point far outside the page")
        self._paint(rgba, False)
        self.out.append(_SYNC % (*a, *b, *c, *d, *a, *d, *c, *b) + (" f*" if evenodd else " f"))
        self.new_path()

    def clip(self) -> None:
        """Intersect the clip with the current path (then dropped), as cairo_clip: written
        inside a ``q`` the matching restore closes."""
        bounds = _bounds(self.path) or (0.0, 0.0, 0.0, 0.0)
        old = self.state.clip
        if old is not None:
            bounds = (max(bounds[0], old[0]), max(bounds[1], old[1]), min(bounds[2], old[2]), min(bounds[3], old[3]))
        path = self._device_path()
        self.out.append("q")
        self.written_saved.append(self.written.copy())
        self.state.clips += 1
        self.out.append(f"{path} W n" if path else "0 0 m W n")   # cairo's fill rule here: always winding
        self.state.clip = bounds
        self.new_path()

    def pattern(self, size: tuple[float, float, float, float], transform: Matrix | None, tile: "_Canvas") -> str:
        """A paint of ``tile`` (drawn in its own space, ``size``: x, y, width, height in the
        user space now, under ``transform``) repeated, as cairosvg's surface pattern repeats
        it: a tiling pattern whose matrix takes its space to the page's. Its resource name."""
        x, y, width, height = size
        ctm = self.state.ctm if transform is None else compose(self.state.ctm, transform)
        flip = (1.0, 0.0, 0.0, -1.0, 0.0, self.page.height)
        matrix = compose(flip, compose(ctm, (1.0, 0.0, 0.0, 1.0, x, y)))
        self.patterns.append((matrix, (width, height), tile.content(), tile.resources()))
        return f"/p{len(self.patterns) - 1}"

    def content(self) -> bytes:
        """The content stream: what was drawn, every ``q`` closed."""
        while self.saved:
            self.restore()
        for _ in range(self.state.clips):
            self.out.append("Q")
        self.state.clips = 0
        return _trimmed("\n".join(self.out)).encode("ascii") + b"\n"

    def resources(self, patterns: str = "") -> str:
        """The resources the content stream names: its graphics states (and ``patterns``)."""
        alphas = "".join(f"{name} << /{kind} {_num(value, 6)} >> " for (kind, value), name in self.alphas.items())
        return "<< " + (f"/ExtGState << {alphas}>> " if alphas else "") + patterns + ">>"

    def clip_extents(self) -> tuple[float, float, float, float]:
        """The clip's bounds in user space (cairo_clip_extents; the page's when unclipped)."""
        box = self.state.clip if self.state.clip is not None else (0.0, 0.0, self.page.width, self.page.height)
        return image_bounds(_invert(self.state.ctm), *box)


#: The cairo functions :mod:`cardgen.directdraw` puts in a shape's operations, by what they do here.
_OPS: dict[Any, Callable[..., None]] = {
    _lib.cairo_move_to: _Canvas.move_to, _lib.cairo_line_to: _Canvas.line_to, _lib.cairo_curve_to: _Canvas.curve_to,
    _lib.cairo_rel_move_to: _Canvas.rel_move_to, _lib.cairo_rel_line_to: _Canvas.rel_line_to,
    _lib.cairo_rel_curve_to: _Canvas.rel_curve_to, _lib.cairo_close_path: _Canvas.close_path,
    _lib.cairo_rectangle: _Canvas.rectangle, _lib.cairo_new_path: _Canvas.new_path,
    _lib.cairo_new_sub_path: _Canvas.new_sub_path, _lib.cairo_arc: _Canvas.arc,
    _lib.cairo_arc_negative: _Canvas.arc_negative, _lib.cairo_save: _Canvas.save, _lib.cairo_restore: _Canvas.restore,
    _lib.cairo_translate: _Canvas.translate, _lib.cairo_rotate: _Canvas.rotate, _lib.cairo_scale: _Canvas.scale,
    _lib.cairo_set_tolerance: _Canvas.set_tolerance,
}


class _Painter:
    """:class:`directdraw._Painter`'s walk over the elements, on a :class:`_Canvas`."""

    def __init__(self, canvas: _Canvas, texts: tuple, pattern_opacity: dict[int, float] | None = None) -> None:
        self.canvas = canvas
        self.texts = texts
        self.runs = Runs()
        self.pattern_opacity: dict[int, float] = {} if pattern_opacity is None else pattern_opacity

    def children(self, elements: list, paint: bool) -> None:
        drawing = current_budget()   # the drawing's time limit (cardgen.draw._draw)
        for el in elements:
            if drawing is not None:
                drawing.check_time()
            if el.tag == "text":
                self.text(el, paint)
            else:
                self.element(el, paint)

    def element(self, el: Any, paint: bool, opacity: float | None = None, as_group: bool = False) -> None:
        if el.skip:
            return
        cv = self.canvas
        opacity = el.opacity if opacity is None else opacity
        if opacity < 1 and el.children:
            raise Unwritable("a group drawn with opacity")
        cv.save()
        if el.matrix is not None:
            cv.transform(tuple(el.matrix.as_tuple()))
        cv.move_to(el.x, el.y)
        if el.cap is not None:
            cv.set_line_cap(el.cap)
        if el.join is not None:
            cv.set_line_join(el.join)
        if el.dash is not None:
            cv.set_dash(*el.dash)
        cv.set_miter_limit(el.miter)
        if el.clip is not None:
            cv.save()
            self.element(el.clip, False, as_group=True)
            cv.restore()
            cv.clip()
        for fn, args in el.ops:
            op = _OPS.get(fn)
            if op is None:
                raise Unwritable("a path operation this module does not write")
            op(cv, *args)
        if paint and el.visible and el.tag in directdraw._SHAPES:
            if el.fill is not None:
                cv.fill_preserve(self.paint(el.fill), el.evenodd)
            if el.stroke is not None:
                cv.stroke(self.paint(el.stroke), el.stroke_width)
            else:
                cv.new_path()
        elif not el.visible:
            cv.new_path()
        if el.display and (as_group or el.tag not in ("clipPath", "pattern")):
            self.children(el.children, paint)
        cv.restore()

    def paint(self, paint: Any) -> Paint:
        """A shape's fill or stroke as :class:`directdraw._Painter` sets it as cairo's source."""
        return paint if len(paint) == 4 else self.pattern(*paint)

    def pattern(self, pattern: Any, opacity: float) -> str:
        """:meth:`directdraw._Painter.pattern`: the tile drawn in its own space, its opacity
        multiplied by each use's as cairosvg multiplies it."""
        key = id(pattern)
        tile_opacity = self.pattern_opacity[key] = self.pattern_opacity.get(key, pattern.opacity) * opacity
        width, height = pattern.size[2:]
        tile = _Canvas(Page(width, height, (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)), flip=False)   # clipped by its box
        tile.move_to(0, 0)
        _Painter(tile, (), self.pattern_opacity).element(pattern, True, opacity=tile_opacity, as_group=True)
        transform = tuple(pattern.pattern_matrix.as_tuple()) if pattern.pattern_matrix is not None else None
        return self.canvas.pattern(pattern.size, transform, tile)

    def text(self, el: Any, paint: bool) -> None:
        """A text placeholder, as :func:`cardgen.draw.draw_placed_text` draws one that can be
        shared: the path that paints nothing over its glyphs' box, filled in their colour,
        and the mark the print stage replaces by their forms."""
        try:
            placed = self.texts[int(el.n)]
        except (ValueError, IndexError):
            return   # a placeholder copied by hand draws nothing
        props = el.props
        if not paint:
            raise Unwritable("text inside a clip path")
        if props.get("stroke", "none") != "none":
            raise Unwritable("text with a stroke")
        cv = self.canvas
        if props.get("display", "inline") == "none" or props.get("visibility", "visible") == "hidden":
            cv.new_path()
            return
        evenodd = props.get("fill-rule") == "evenodd"
        try:
            opacity = float(props.get("fill-opacity", 1))
        except ValueError:
            raise Unwritable("a fill-opacity that is not a number") from None
        source, colour = svg_paint(placed.fill)
        rgba = color(colour, opacity)
        if source or opacity != 1 or rgba[3] != 1:
            raise Unwritable("a text run in a colour that is not plain and opaque")
        if not placed.glyphs:
            cv.new_path()
            return
        box = glyphforms.run_box(cv, [(g.face, g.gid, g.x, g.y, g.scale) for g in placed.glyphs], evenodd)
        if box is None:
            cv.new_path()   # clipped away: cairo would write nothing of its outlines
            return
        cv.mark_run(box, rgba, evenodd)
        ctm = cv.state.ctm
        self.runs.append(glyphforms.Run(tuple((g.face, g.gid, glyphforms.device_matrix(ctm, g.x, g.y, g.scale))
                                              for g in placed.glyphs), evenodd))
        cv.out.append(f"/{glyphforms.TAG.decode()} << /MCID {len(self.runs) - 1} >> BDC\nEMC")


def _bounds(ops: list[tuple]) -> tuple[float, float, float, float] | None:
    """The bounds of a path's points, control points included (None: it has none)."""
    xs = [v for op in ops for v in op[1::2]]
    ys = [v for op in ops for v in op[2::2]]
    return (min(xs), min(ys), max(xs), max(ys)) if xs else None


def _rectangle(ops: list[tuple]) -> tuple[float, float, float, float] | None:
    """A path that is one closed rectangle along the axes, as (x, y, width, height) from its
    lowest corner: cairo writes such a path with PDF's ``re`` operator, which viewers fill
    and snap to pixels their own way (pdfium: a pixel's column at an edge), so it is
    written so here too."""
    if len(ops) == 6 and ops[4][0] == "l" and all(abs(a - b) < 1e-6 for a, b in zip(ops[4][1:], ops[0][1:])):
        ops = ops[:4] + ops[5:]
    if len(ops) != 5 or [op[0] for op in ops] != ["m", "l", "l", "l", "h"]:
        return None
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = (op[1:] for op in ops[:4])

    def same(a: float, b: float) -> bool:   # a rectangle's last corner comes back by sums: not bit for bit
        return abs(a - b) < 1e-6

    if not (same(x0, x1) and same(y1, y2) and same(x2, x3) and same(y3, y0)
            or same(y0, y1) and same(x1, x2) and same(y2, y3) and same(x3, x0)):
        return None
    return min(x0, x2), min(y0, y2), abs(x2 - x0), abs(y2 - y0)


def write(drawing: directdraw.Drawing, page: Page, texts: tuple) -> Written:
    """The face's PDF, as :func:`cardgen.draw.render_pdf` would have cairo write it; raises
    :class:`Unwritable` for a drawing that uses what this module does not write."""
    canvas = _Canvas(page)
    painter = _Painter(canvas, texts)
    painter.children(drawing.children, True)
    content = canvas.content()
    patterns = "".join(f"/p{i} {7 + i} 0 R " for i in range(len(canvas.patterns)))
    resources = canvas.resources(f"/Pattern << {patterns}>> " if patterns else "")
    info = (f"<< /Keywords ({_literal(glyphforms.payload(painter.runs))}) /Producer (cardgen) >>"
            if painter.runs else "<< /Producer (cardgen) >>")
    tiles = [(f"<< /Type /Pattern /PatternType 1 /PaintType 1 /TilingType 1 /BBox [ 0 0 {_num(w, 6)} {_num(h, 6)} ] "
              f"/XStep {_num(w, 6)} /YStep {_num(h, 6)} /Matrix [ {' '.join(_num(v, 8) for v in matrix)} ] "
              f"/Resources {tile_resources} /Length {len(tile)} >>", tile)
             for matrix, (w, h), tile, tile_resources in canvas.patterns]
    return Written(_document(page, resources, content, info, tiles), painter.runs)


def _literal(text: str) -> str:
    """``text`` (ASCII) as the inside of a PDF literal string."""
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _document(page: Page, resources: str, content: bytes, info: str, streams: list[tuple[str, bytes]]) -> bytes:
    """A one-page PDF file with a classic cross-reference table: the page's resources an
    object of their own, as cairo writes them (a document the print stage writes keeps them
    in a compressed object stream, not inline in every face's form: 0.1 MB less for the
    shipped games), then ``streams`` (dictionary and data each) as objects 7, 8, …"""
    box = f"[ 0 0 {_num(page.width, 6)} {_num(page.height, 6)} ]"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>",
        (f"<< /Type /Page /Parent 2 0 R /MediaBox {box} /Contents 4 0 R /Group << /Type /Group /S /Transparency "
         "/I true /CS /DeviceRGB >> /Resources 6 0 R >>").encode("ascii"),
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        info.encode("ascii"),
        resources.encode("ascii"),
        *(head.encode("ascii") + b"\nstream\n" + data + b"\nendstream" for head, data in streams),
    ]
    out = [b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"]
    offsets = []
    size = len(out[0])
    for number, body in enumerate(objects, 1):
        chunk = b"%d 0 obj\n%s\nendobj\n" % (number, body)
        offsets.append(size)
        out.append(chunk)
        size += len(chunk)
    out.append(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.append(b"".join(b"%010d 00000 n \n" % offset for offset in offsets))
    out.append(b"trailer\n<< /Size %d /Root 1 0 R /Info 5 0 R >>\nstartxref\n%d\n%%%%EOF\n"
               % (len(objects) + 1, size))
    return b"".join(out)
