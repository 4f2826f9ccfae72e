"""What a rendered face paints, where, in which order: the geometry the legibility rules read.

A face's SVG is walked in document order (the order it is painted in), each element's
transforms composed with its ancestors' and with the viewport's (``width="69mm"`` over a
``viewBox`` in millimetres), so every filled shape becomes polygons in millimetres of the
printed face with its colour and opacity, and every text placeholder (see
:mod:`cardgen.text.svg`) a :class:`TextMark` with the transform it is printed under. What is
painted before a text and contains a point of it is what the reader sees behind that point.

Only plain fills are paints: a stroke is a line, not a background; a pattern, gradient or
image fill (``url(#...)``) is not a colour the checker can compare, so it is left out rather
than guessed (the shapes under it still count). Clip paths are not applied: a clipped shape
counts as its whole outline.

It is one module (over 400 lines) because the SVG subset it reads — transforms, the
viewport, path data with arcs, basic shapes and paint order — is one parser: split, each
part would only make sense with the others open beside it.
"""

from __future__ import annotations

import functools
import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Iterator, Sequence

from . import cairoffi
from .affine import apply as apply_affine, compose

cairoffi.import_cairosvg()   # before cairosvg's modules: see there

from cairosvg.colors import COLORS  # noqa: E402

from .readability import hex_rgb  # noqa: E402
from .text.svg import PLACEHOLDER_NS  # noqa: E402

#: (a, b, c, d, e, f): x' = a x + c y + e, y' = b x + d y + f, as SVG writes a matrix.
Matrix = tuple[float, float, float, float, float, float]
Point = tuple[float, float]
RGB = tuple[float, float, float]

IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
#: Elements whose content is not painted where it stands (definitions, clip outlines, textures).
_NOT_PAINTED = {"defs", "clipPath", "pattern", "mask", "symbol", "linearGradient", "radialGradient", "marker",
                "title", "desc", "metadata", "style", "script", "filter"}
#: Segments a curve or arc is flattened into: finer than any glyph box needs.
_CURVE_STEPS = 12
_UNITS_MM = {"mm": 1.0, "cm": 10.0, "in": 25.4, "pt": 25.4 / 72, "pc": 25.4 / 6, "px": 25.4 / 96, "": 25.4 / 96}
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_NUMBER_RE = re.compile(_NUMBER)
_TRANSFORM_RE = re.compile(r"(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)")
_PATH_RE = re.compile(r"([MmLlHhVvCcSsQqTtAaZz])|(" + _NUMBER + ")")


def multiply(m: Matrix, n: Matrix) -> Matrix:
    """``m`` after ``n``: the matrix of applying ``n`` first, then ``m``."""
    return compose(m, n)


def apply(m: Matrix, p: Point) -> Point:
    """The image of point ``p`` (:func:`cardgen.affine.apply` for a point given as a pair)."""
    return apply_affine(m, *p)


def invert(m: Matrix) -> Matrix:
    a, b, c, d, e, f = m
    det = a * d - b * c
    if abs(det) < 1e-12:
        return IDENTITY
    ia, ib, ic, id_ = d / det, -b / det, -c / det, a / det
    return (ia, ib, ic, id_, -(ia * e + ic * f), -(ib * e + id_ * f))


def linear_scale(m: Matrix) -> float:
    """How much the matrix scales lengths (the geometric mean of its two axes)."""
    return math.sqrt(abs(m[0] * m[3] - m[1] * m[2]))


def rotation(m: Matrix) -> float:
    """The angle, in degrees (−180, 180], the matrix turns the x axis by."""
    return math.degrees(math.atan2(m[1], m[0]))


def parse_transform(value: str | None) -> Matrix:
    """An SVG ``transform`` attribute as one matrix (the listed transforms applied right to left)."""
    m = IDENTITY
    for name, args in _TRANSFORM_RE.findall(value or ""):
        v = [float(x) for x in _NUMBER_RE.findall(args)]
        if name == "matrix" and len(v) == 6:
            t: Matrix = (v[0], v[1], v[2], v[3], v[4], v[5])
        elif name == "translate" and v:
            t = (1, 0, 0, 1, v[0], v[1] if len(v) > 1 else 0.0)
        elif name == "scale" and v:
            t = (v[0], 0, 0, v[1] if len(v) > 1 else v[0], 0, 0)
        elif name == "rotate" and v:
            r = math.radians(v[0])
            cx, cy = (v[1], v[2]) if len(v) >= 3 else (0.0, 0.0)
            cos, sin = math.cos(r), math.sin(r)
            t = (cos, sin, -sin, cos, cx - cos * cx + sin * cy, cy - sin * cx - cos * cy)
        elif name == "skewX" and v:
            t = (1, 0, math.tan(math.radians(v[0])), 1, 0, 0)
        elif name == "skewY" and v:
            t = (1, math.tan(math.radians(v[0])), 0, 1, 0, 0)
        else:
            continue
        m = multiply(m, t)
    return m


@functools.lru_cache(maxsize=1024)   # a face's few colours, met on every face of the deck
def parse_colour(value: str | None) -> RGB | None:
    """``#rgb``, ``#rrggbb``, ``rgb(...)`` or a CSS colour name as 0..1 channels; None for
    ``none``, ``url(...)`` and anything else that is not one plain colour."""
    if value is None:
        return None
    v = value.strip().lower()
    if v in COLORS:
        r, g, b, a = COLORS[v]
        return (r, g, b) if a else None
    if re.fullmatch(r"#(?:[0-9a-f]{3}){1,2}", v):
        return hex_rgb(v)
    m = re.fullmatch(r"rgb\(\s*([^)]*)\)", v)
    if m:
        parts = [p.strip() for p in m[1].split(",")]
        if len(parts) == 3:
            try:
                return tuple(min(1.0, max(0.0, float(p[:-1]) / 100 if p.endswith("%") else float(p) / 255))
                             for p in parts)   # type: ignore[return-value]
            except ValueError:
                return None
    return None


def _number(value: str | None, default: float = 0.0) -> float:
    found = _NUMBER_RE.match((value or "").strip())
    return float(found[0]) if found else default


def _opacity(value: str | None) -> float:
    if value is None:
        return 1.0
    v = value.strip()
    n = _number(v, 1.0) / (100 if v.endswith("%") else 1)
    return min(1.0, max(0.0, n))


@dataclass(frozen=True)
class Paint:
    """One filled shape: its outline as polygons in face millimetres, its colour and opacity."""

    polygons: tuple[tuple[Point, ...], ...]
    colour: RGB
    alpha: float
    box: tuple[float, float, float, float]   # x0, y0, x1, y1
    group: int = 0   # the labelled element (one text() or symbol() call) it is part of, if any: an overbar

    def contains(self, p: Point) -> bool:
        """Even-odd point-in-polygon over all the shape's outlines."""
        x, y = p
        x0, y0, x1, y1 = self.box
        if not (x0 <= x <= x1 and y0 <= y <= y1):
            return False
        inside = False
        for poly in self.polygons:
            if not poly:
                continue
            ax, ay = poly[-1]   # every edge once, from the closing one on: parity does not mind the order
            for bx, by in poly:
                if (ay > y) != (by > y) and x < ax + (y - ay) * (bx - ax) / (by - ay):
                    inside = not inside
                ax, ay = bx, by
        return inside


@dataclass(frozen=True)
class Mark:
    """Anything drawn (fill or stroke) near a text, in face millimetres: a candidate for the
    mark under a rotated index."""

    box: tuple[float, float, float, float]
    points: tuple[Point, ...]


@dataclass(frozen=True)
class TextMark:
    """A text placeholder as printed: which deferred text (``n``), under which transform
    (user units to face millimetres), with the opacity of its groups, the label and field
    of the ``text()``/``symbol()`` call that drew it, and how many paints lie under it."""

    n: int
    matrix: Matrix
    alpha: float
    label: str
    field: str
    group: int   # the labelled element (one text() or symbol() call) it belongs to
    paints_before: int


@dataclass
class FaceGeometry:
    """Everything one face paints, in painting order."""

    paints: list[Paint] = field(default_factory=list)
    texts: list[TextMark] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    groups: int = 0   # labelled elements seen so far

    def backgrounds(self, points: list[Point], before: int) -> list[RGB]:
        """The colour seen at each of ``points`` (face mm) under the first ``before`` paints:
        white paper, then each shape that contains the point composited over it, back to front
        (see :func:`_seen`)."""
        near = _near(self.paints[:max(0, before)], points)
        return [_seen(near, p) for p in points]

    def over(self, points: list[Point], after: int, group: int = 0) -> list[list[Paint]]:
        """The shapes painted over each of ``points`` (face mm) from paint ``after`` on, back to
        front: what covers a text drawn after the first ``after`` paints. A shape of the text's
        own ``group`` (a symbol's overbar, drawn with its letter) is part of it, not over it."""
        near = [paint for paint in _near(self.paints[max(0, after):], points) if not group or paint.group != group]
        return [[paint for paint in near if paint.contains(p)] for p in points]


def _near(paints: list[Paint], points: list[Point]) -> list[Paint]:
    """The paints whose box meets the box of ``points``, in order: set aside once for all the
    points, as a text's samples lie close together and a face has dozens of paints."""
    if not points:
        return []
    x0, x1 = min(p[0] for p in points), max(p[0] for p in points)
    y0, y1 = min(p[1] for p in points), max(p[1] for p in points)
    return [paint for paint in paints
            if paint.box[0] <= x1 and paint.box[2] >= x0 and paint.box[1] <= y1 and paint.box[3] >= y0]


def _seen(paints: list[Paint], p: Point) -> RGB:
    """The colour seen at ``p`` through ``paints`` (back to front) on white paper, found
    front to back down to the first opaque shape there: nothing under it shows."""
    over: list[Paint] = []
    colour: RGB = (1.0, 1.0, 1.0)
    for i in range(len(paints) - 1, -1, -1):
        paint = paints[i]
        if paint.contains(p):
            if paint.alpha >= 1.0:
                colour = paint.colour
                break
            over.append(paint)
    for paint in reversed(over):
        colour = blend(paint.colour, paint.alpha, colour)
    return colour


def blend(top: RGB, alpha: float, under: RGB) -> RGB:
    if alpha >= 1.0:
        return top
    return tuple(alpha * t + (1 - alpha) * u for t, u in zip(top, under))   # type: ignore[return-value]


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _viewport(root: ET.Element) -> Matrix:
    """User units to millimetres of the printed face, from the root's size and viewBox."""
    box = [float(v) for v in _NUMBER_RE.findall(root.get("viewBox") or "")]

    def mm(attr: str) -> float | None:
        m = re.fullmatch(r"\s*(" + _NUMBER + r")\s*([a-z]*)\s*", root.get(attr) or "")
        return float(m[1]) * _UNITS_MM[m[2]] if m and m[2] in _UNITS_MM else None

    width, height = mm("width"), mm("height")
    if len(box) != 4 or box[2] <= 0 or box[3] <= 0:
        px = _UNITS_MM["px"]   # no viewBox: user units are CSS pixels
        return (px, 0.0, 0.0, px, 0.0, 0.0)
    sx = width / box[2] if width else (height / box[3] if height else 1.0)
    sy = height / box[3] if height else sx
    return (sx, 0.0, 0.0, sy, -box[0] * sx, -box[1] * sy)


@functools.lru_cache(maxsize=512)   # the frame's and badges' circles repeat on every face
def _ellipse(cx: float, cy: float, rx: float, ry: float, steps: int = 32) -> tuple[Point, ...]:
    return tuple((cx + rx * math.cos(2 * math.pi * k / steps), cy + ry * math.sin(2 * math.pi * k / steps))
            for k in range(steps))


def _arc(p0: Point, rx: float, ry: float, phi_deg: float, large: bool, sweep: bool, p1: Point) -> list[Point]:
    """Points along an SVG elliptical arc (endpoint parameterisation, SVG 1.1 appendix F.6)."""
    if rx == 0 or ry == 0 or p0 == p1:
        return [p1]
    rx, ry = abs(rx), abs(ry)
    phi = math.radians(phi_deg)
    cos, sin = math.cos(phi), math.sin(phi)
    dx, dy = (p0[0] - p1[0]) / 2, (p0[1] - p1[1]) / 2
    x1, y1 = cos * dx + sin * dy, -sin * dx + cos * dy
    scale = (x1 / rx) ** 2 + (y1 / ry) ** 2
    if scale > 1:
        rx, ry = rx * math.sqrt(scale), ry * math.sqrt(scale)
    num = rx * rx * ry * ry - rx * rx * y1 * y1 - ry * ry * x1 * x1
    den = rx * rx * y1 * y1 + ry * ry * x1 * x1
    k = math.sqrt(max(0.0, num / den)) if den else 0.0
    if large == sweep:
        k = -k
    cx1, cy1 = k * rx * y1 / ry, -k * ry * x1 / rx
    cx = cos * cx1 - sin * cy1 + (p0[0] + p1[0]) / 2
    cy = sin * cx1 + cos * cy1 + (p0[1] + p1[1]) / 2
    t0 = math.atan2((y1 - cy1) / ry, (x1 - cx1) / rx)
    t1 = math.atan2((-y1 - cy1) / ry, (-x1 - cx1) / rx)
    dt = t1 - t0
    if sweep and dt < 0:
        dt += 2 * math.pi
    elif not sweep and dt > 0:
        dt -= 2 * math.pi
    out = []
    for i in range(1, _CURVE_STEPS + 1):
        t = t0 + dt * i / _CURVE_STEPS
        ex, ey = rx * math.cos(t), ry * math.sin(t)
        out.append((cos * ex - sin * ey + cx, sin * ex + cos * ey + cy))
    return out


def _bezier(points: list[Point]) -> list[Point]:
    """Points along a quadratic or cubic Bézier curve (its first point excluded)."""
    out = []
    for i in range(1, _CURVE_STEPS + 1):
        t = i / _CURVE_STEPS
        pts = points
        while len(pts) > 1:
            pts = [((1 - t) * a[0] + t * b[0], (1 - t) * a[1] + t * b[1]) for a, b in zip(pts, pts[1:])]
        out.append(pts[0])
    return out


#: Numbers each path command takes.
_ARITY = {"M": 2, "L": 2, "H": 1, "V": 1, "C": 6, "S": 4, "Q": 4, "T": 2, "A": 7}


@functools.lru_cache(maxsize=512)   # the same badges and patterns are drawn on many faces
def path_polygons(d: str) -> tuple[tuple[Point, ...], ...]:
    """An SVG path's subpaths as polygons, curves and arcs flattened."""
    pen = _Pen()
    for op, rel, values in _segments(d):
        pen.draw(op, rel, values)
    return tuple(tuple(poly) for poly in pen.finish())


def _segments(d: str) -> Iterator[tuple[str, bool, list[float]]]:
    """(command, relative, its numbers) for each segment of path data, implicit repeats
    included (numbers after a moveto are line-tos); stops at the first malformed segment."""
    tokens = _PATH_RE.findall(d or "")
    cmd, i = "", 0
    while i < len(tokens):
        if tokens[i][0]:
            cmd, i = tokens[i][0], i + 1
            if cmd in "Zz":
                yield "Z", False, []
                continue
        arity = _ARITY.get(cmd.upper(), 0)
        chunk = tokens[i:i + arity]
        if arity == 0 or len(chunk) < arity or any(t[0] for t in chunk):
            return
        i += arity
        yield cmd.upper(), cmd.islower(), [float(t[1]) for t in chunk]
        if cmd in "Mm":
            cmd = "l" if cmd == "m" else "L"


class _Pen:
    """Draws path segments into polygons: the current point, the subpath's start and the
    last control point (which a smooth curve reflects)."""

    def __init__(self) -> None:
        self.polys: list[list[Point]] = []
        self.cur: list[Point] = []
        self.pos: Point = (0.0, 0.0)
        self.start: Point = self.pos
        self.ctrl: Point | None = None

    def draw(self, op: str, rel: bool, v: list[float]) -> None:
        if op == "Z":
            self._close()
            return
        ox, oy = self.pos if rel else (0.0, 0.0)
        pts = [(ox + v[k], oy + v[k + 1]) for k in range(0, len(v) - 1, 2)]
        if op == "M":
            self._close()
            self.pos = self.start = pts[0]
            self.cur = [pts[0]]
        elif op == "H":
            self._to([(ox + v[0], self.pos[1])], None)
        elif op == "V":
            self._to([(self.pos[0], oy + v[0])], None)
        elif op == "L":
            self._to(pts[:1], None)
        elif op == "A":
            self._to(_arc(self.pos, v[0], v[1], v[2], bool(v[3]), bool(v[4]), (ox + v[5], oy + v[6])), None)
        else:
            self._curve(op, pts)

    def _curve(self, op: str, pts: list[Point]) -> None:
        reflected = (2 * self.pos[0] - self.ctrl[0], 2 * self.pos[1] - self.ctrl[1]) if self.ctrl else self.pos
        controls = {"C": pts[:2], "S": [reflected, pts[0]], "Q": pts[:1], "T": [reflected]}[op]
        self._to(_bezier([self.pos, *controls, pts[-1]]), controls[-1])

    def _to(self, points: list[Point], ctrl: Point | None) -> None:
        self.cur.extend(points)
        self.pos, self.ctrl = points[-1], ctrl

    def _close(self) -> None:
        if self.cur:
            self.polys.append(self.cur)
        self.cur, self.pos, self.ctrl = [], self.start, None

    def finish(self) -> list[list[Point]]:
        self._close()
        return [p for p in self.polys if len(p) >= 3]


def shape_polygons(el: ET.Element, tag: str) -> Sequence[Sequence[Point]]:
    """The outline of a basic shape or path, in its own user units."""
    g = el.get
    if tag == "rect":
        x, y, w, h = _number(g("x")), _number(g("y")), _number(g("width")), _number(g("height"))
        return [[(x, y), (x + w, y), (x + w, y + h), (x, y + h)]] if w > 0 and h > 0 else []
    if tag == "circle":
        r = _number(g("r"))
        return [_ellipse(_number(g("cx")), _number(g("cy")), r, r)] if r > 0 else []
    if tag == "ellipse":
        rx, ry = _number(g("rx")), _number(g("ry"))
        return [_ellipse(_number(g("cx")), _number(g("cy")), rx, ry)] if rx > 0 and ry > 0 else []
    if tag in ("polygon", "polyline"):
        v = [float(n) for n in _NUMBER_RE.findall(g("points") or "")]
        pts = list(zip(v[0::2], v[1::2]))
        return [pts] if len(pts) >= 3 else []
    if tag == "path":
        return path_polygons(g("d") or "")
    return []


_STYLED = ("fill", "fill-opacity", "opacity", "stroke", "display", "visibility")
#: The declarations a face's style sheets give an element: (normal, !important), in cascade order.
Sheet = dict[ET.Element, tuple[list[tuple[str, str]], list[tuple[str, str]]]]


def _style(el: ET.Element, sheet: Sheet) -> dict[str, str]:
    """The element's painting properties as cairosvg cascades them: presentation attributes,
    then the style sheets' rules, the inline ``style``, and the sheets' ``!important`` rules."""
    out = {k: v for k, v in el.attrib.items() if k in _STYLED}
    normal, important = sheet.get(el, ((), ()))
    out.update((k, v) for k, v in normal if k in _STYLED)
    for decl in (el.get("style") or "").split(";"):
        if ":" in decl:
            k, v = decl.split(":", 1)
            out[k.strip()] = v.replace("!important", "").strip()
    out.update((k, v) for k, v in important if k in _STYLED)
    return out


def _style_sheets(root: ET.Element) -> Sheet:
    """What the face's ``<style>`` elements declare for each element (empty without one): the
    colours the contrast rule compares must be those cairosvg paints, rules applied."""
    texts = [el.text for el in root.iter() if _local(el.tag) == "style" and el.text
             and el.get("type", "text/css") == "text/css"]
    if not texts:
        return {}
    import cssselect2   # cairosvg's own CSS libraries: only faces with a style sheet need them
    import tinycss2

    normal, important = cssselect2.Matcher(), cssselect2.Matcher()
    for text in texts:
        for rule in tinycss2.parse_stylesheet(text, skip_comments=True, skip_whitespace=True):
            if rule.type != "qualified-rule":
                continue
            plain, forced = [], []
            for decl in tinycss2.parse_declaration_list(rule.content, skip_comments=True, skip_whitespace=True):
                if decl.type == "declaration":
                    (forced if decl.important else plain).append((decl.lower_name,
                                                                  tinycss2.serialize(decl.value).strip()))
            for selector in cssselect2.compile_selector_list(rule.prelude):
                if selector.pseudo_element is None and not selector.never_matches:
                    if plain:
                        normal.add_selector(selector, plain)
                    if forced:
                        important.add_selector(selector, forced)
    out: Sheet = {}
    for element in cssselect2.ElementWrapper.from_xml_root(root).iter_subtree():
        found = ([d for match in normal.match(element) for d in match[-1]],
                 [d for match in important.match(element) for d in match[-1]])
        if found[0] or found[1]:
            out[element.etree_element] = found
    return out


def face_geometry(svg: str) -> FaceGeometry:
    """Walk a face's SVG (a rendered body, text placeholders included) in painting order."""
    root = ET.fromstring(svg)
    geo = FaceGeometry()
    _walk(root, _viewport(root), {"fill": "#000000", "fill-opacity": "1"}, 1.0, ("", "", 0), geo,
          _style_sheets(root))
    return geo


def _walk(root: ET.Element, viewport: Matrix, inherited: dict[str, str], opacity: float,
          label: tuple[str, str, int], geo: FaceGeometry, sheet: Sheet) -> None:
    """Every element in painting order (depth first), each with what it inherits. A stack of
    its own rather than recursion: a template may nest groups thousands deep, which drawing
    refuses with a clear error, and measuring must not end in Python's recursion limit first."""
    stack: list[tuple[ET.Element, Matrix, dict[str, str], float, tuple[str, str, int]]] = [
        (root, viewport, inherited, opacity, label)]
    while stack:
        el, parent, inherited, opacity, label = stack.pop()
        tag = _local(el.tag)
        if tag in _NOT_PAINTED:
            continue
        style = _style(el, sheet)
        if style.get("display") == "none":
            continue
        if el.tag == f"{{{PLACEHOLDER_NS}}}glyphs":
            geo.texts.append(TextMark(int(_number(el.get("n"))), parent, opacity, *label, len(geo.paints)))
            continue
        matrix = multiply(parent, parse_transform(el.get("transform"))) if tag != "svg" or el.get("transform") \
            else parent
        props = {**inherited, **{k: v for k, v in style.items()
                                 if k in ("fill", "fill-opacity", "stroke", "visibility")}}
        alpha = opacity * _opacity(style.get("opacity"))
        if el.get("aria-label") is not None:
            geo.groups += 1
            label = (el.get("aria-label") or "", el.get("data-field") or "", geo.groups)
        a, b, c, d, e, f = matrix   # apply(matrix, p) for every point, without a call for each
        polys = [[(a * x + c * y + e, b * x + d * y + f) for x, y in poly] for poly in shape_polygons(el, tag)]
        if props.get("visibility") not in ("hidden", "collapse"):
            _paint(el, tag, polys, props, alpha, matrix, geo, label[2])
        stack.extend((child, matrix, props, alpha, label) for child in reversed(el))


def _paint(el: ET.Element, tag: str, polys: list[list[Point]], props: dict[str, str], alpha: float,
           matrix: Matrix, geo: FaceGeometry, group: int = 0) -> None:
    """Record what a shape paints: a fill (a background for what comes after) and, filled or
    stroked, a mark (what a rotated index may carry under it)."""
    if tag == "line":
        pts = tuple(apply(matrix, (_number(el.get(a)), _number(el.get(b)))) for a, b in (("x1", "y1"), ("x2", "y2")))
        if parse_colour(props.get("stroke")) is not None:
            geo.marks.append(Mark(_box(pts), pts))
        return
    if not polys:
        return
    pts = tuple(p for poly in polys for p in poly)
    colour = parse_colour(props.get("fill"))
    if colour is not None or parse_colour(props.get("stroke")) is not None:
        geo.marks.append(Mark(_box(pts), pts))
    a = alpha * _opacity(props.get("fill-opacity"))
    if colour is not None and a > 0:
        geo.paints.append(Paint(tuple(tuple(p) for p in polys), colour, a, _box(pts), group))


def _box(points: Iterator[Point] | tuple[Point, ...]) -> tuple[float, float, float, float]:
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return (min(xs), min(ys), max(xs), max(ys))
