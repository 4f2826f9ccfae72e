"""Drawing a face's SVG straight into cairo, without cairosvg's document tree (part of the
drawing stage, :mod:`cardgen.draw`).

cairosvg builds a tree of dictionaries for every face and walks it, re-parsing the same
attribute strings for every element: about 5.6 ms of CPU a face, more than cairo needs to
write the page. Faces use a small, fixed part of SVG (what cardgen's templates and helpers
write: shapes, paths, groups with transforms, clip paths, one kind of pattern, the text
placeholders), so a face written only in that part is read here with ``xml.etree`` and
drawn with the cairo operations cairosvg itself would issue for it, in the same order and
with cairosvg's own numbers (its colour table, its arc construction, its inheritance of
attributes, its quirks included): the pixels are the same, a test compares them for every
shipped face (tests/test_directdraw.py).

Everything else — an element, attribute or value outside that part (CSS, images, masks,
gradients, ``<use>``, units, percentages, …) — makes :func:`plan` return None before
anything is drawn, and the face goes to cairosvg whole, as before: a game's own templates
may write any SVG. The text placeholders are drawn by the caller's function, the one the
cairosvg path uses (:func:`cardgen.draw.draw_placed_text`).
"""

from __future__ import annotations

import functools
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from . import cairoffi

cairoffi.import_cairosvg()   # before cairosvg's modules: see there
cairocffi = cairoffi.import_cairocffi()

from cairosvg.colors import COLORS, color  # noqa: E402
from cairosvg.helpers import PATH_LETTERS, normalize, point_angle, quadratic_points, rotate  # noqa: E402
from cairosvg.parser import COLOR_ATTRIBUTES, NOT_INHERITED_ATTRIBUTES  # noqa: E402

from . import svgtree  # noqa: E402
from .budget import current as current_budget  # noqa: E402
from .text.svg import PLACEHOLDER_NS  # noqa: E402

_lib, _ffi = cairocffi.cairo, cairocffi.ffi

_SVG = "{http://www.w3.org/2000/svg}"
_TEXT = "{" + PLACEHOLDER_NS + "}glyphs"
_SHAPES = frozenset({"rect", "circle", "ellipse", "line", "polyline", "polygon", "path"})
#: Attributes that change nothing cairosvg draws (no style sheet can select by them: a face
#: with one is refused), besides ``aria-*`` and ``data-*``.
_INERT = frozenset({"id", "class", "role", "version"})
#: Presentation attributes read the way cairosvg reads them (see :class:`_Element`).
_PRESENTATION = frozenset({
    "fill", "fill-opacity", "fill-rule", "stroke", "stroke-opacity", "stroke-width", "stroke-linecap",
    "stroke-linejoin", "stroke-miterlimit", "stroke-dasharray", "stroke-dashoffset", "opacity", "transform",
    "clip-path", "clip-rule", "display", "visibility", "color", "x", "y"})
_GEOMETRY = {
    "g": frozenset(), "defs": frozenset(), "clipPath": frozenset({"clipPathUnits"}),
    "rect": frozenset({"width", "height", "rx", "ry"}), "circle": frozenset({"cx", "cy", "r"}),
    "ellipse": frozenset({"cx", "cy", "rx", "ry"}), "line": frozenset({"x1", "y1", "x2", "y2"}),
    "polyline": frozenset({"points"}), "polygon": frozenset({"points"}), "path": frozenset({"d"}),
    "pattern": frozenset({"width", "height", "patternUnits", "patternTransform"}),
}
_ALLOWED = {tag: _PRESENTATION | _INERT | geometry for tag, geometry in _GEOMETRY.items()}
_ROOT = ("width", "height", "viewBox", "preserveAspectRatio")
_CAPS = {"square": cairocffi.LINE_CAP_SQUARE, "round": cairocffi.LINE_CAP_ROUND}
_JOINS = {"round": cairocffi.LINE_JOIN_ROUND, "bevel": cairocffi.LINE_JOIN_BEVEL}
_HEX = re.compile("#[0-9a-f]{6}|#[0-9a-f]{3}")
_URL = re.compile(r"url\(#([A-Za-z_][A-Za-z0-9_.:-]*)\)")
_MM = re.compile(r"\d+(?:\.\d*)?mm")
_ASPECT = re.compile(r"(none|x(Min|Mid|Max)Y(Min|Mid|Max))( (meet|slice))?")
_TRANSFORM = re.compile(r"(\w+) ?\( ?(.*?) ?\)")


def _remembered(size: int, longest: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``functools.lru_cache`` of ``size`` entries for calls whose first argument (a string
    from the face) has at most ``longest`` characters; longer ones are worked out each time.
    A face may hold 40 million characters of SVG: this keeps the caches small whatever a
    template writes, while the strings faces repeat (frames, marks, rotations) are read once."""
    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        cached = functools.lru_cache(maxsize=size)(fn)

        @functools.wraps(fn)
        def remembered(*args: Any) -> Any:
            return cached(*args) if len(args[0]) <= longest else fn(*args)
        remembered.cache_info = cached.cache_info   # type: ignore[attr-defined]
        return remembered
    return wrap


class Unsupported(Exception):
    """The face uses something outside what this module draws (the message says what)."""


@dataclass(eq=False, slots=True)
class _Element:
    """One element as cairosvg's ``Surface.draw`` would treat it, its values read once.

    ``props`` are cairosvg's node properties (own attributes over the inherited ones);
    the rest is what drawing needs from them, already converted."""

    tag: str
    props: dict[str, str]
    children: list[_Element] = field(default_factory=list)
    skip: bool = False                  # a zero width or height: cairosvg draws nothing of it
    matrix: Any = None                  # its transform, as cairosvg composes it
    opacity: float = 1.0
    x: float = 0.0
    y: float = 0.0
    cap: int | None = None
    join: int | None = None
    dash: Any = None                    # (cffi double array, count, offset)
    miter: float = 4.0
    clip: _Element | str | None = None  # the <clipPath> it is clipped by (its id until resolved)
    ops: tuple = ()                     # the shape's path operations: (cairo function, arguments)
    fill: Any = None                    # (r, g, b, a), (pattern, opacity) or None: nothing to fill
                                        # (a pattern's id until resolved)
    evenodd: bool = False
    stroke: Any = None
    stroke_width: float = 1.0
    visible: bool = True
    display: bool = True
    # patterns only
    size: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)   # x, y, width, height
    pattern_matrix: Any = None
    # text placeholders only: which of the face's texts it stands for
    n: str = ""


@dataclass(eq=False, slots=True)
class Drawing:
    """A face's SVG, checked and read: the root's sizing attributes and what it draws."""

    root: tuple[tuple[str, str], ...]
    children: list[_Element]


def _number(value: str, what: str) -> float:
    """A plain number, as cairosvg's ``size`` reads one (``float`` first); anything needing
    units or percentages is not drawn here."""
    try:
        number = float(value)
    except ValueError:
        raise Unsupported(f"{what}={value!r} is not a plain number") from None
    if not math.isfinite(number):
        raise Unsupported(f"{what}={value!r} is not finite")
    return number


def _length(props: dict[str, str], name: str) -> float:
    """cairosvg's ``size(surface, node.get(name))``: absent or empty is 0."""
    value = props.get(name)
    return _number(value, name) if value else 0.0


@_remembered(1024, 200)
def _matrix(value: str) -> Any:
    """A ``transform`` attribute as cairosvg's ``helpers.transform`` composes it (the same
    cairo matrix operations, the same double inversion), or None for an identity list."""
    string = normalize(value)
    if _TRANSFORM.sub("", string).strip():
        raise Unsupported(f"transform {value!r}")
    matrix = cairocffi.Matrix()
    found = False
    for kind, args in _TRANSFORM.findall(string):
        found = True
        values = [_number(v, "transform") for v in args.split(" ")]
        if kind == "matrix" and len(values) == 6:
            matrix = cairocffi.Matrix(*values).multiply(matrix)
        elif kind == "rotate" and len(values) in (1, 3):
            angle = math.radians(values.pop(0))
            x, y = values or (0, 0)
            matrix.translate(x, y)
            matrix.rotate(angle)
            matrix.translate(-x, -y)
        elif kind in ("skewX", "skewY") and len(values) == 1:
            tangent = math.tan(math.radians(values[0]))
            skew = (1, 0, tangent, 1, 0, 0) if kind == "skewX" else (1, tangent, 0, 1, 0, 0)
            matrix = cairocffi.Matrix(*skew).multiply(matrix)
        elif kind == "translate" and len(values) in (1, 2):
            matrix.translate(*(values + [0])[:2])
        elif kind == "scale" and len(values) in (1, 2):
            matrix.scale(*(2 * values if len(values) == 1 else values))
        else:
            raise Unsupported(f"transform {value!r}")
    if not found:
        return None
    try:
        matrix.invert()
    except cairocffi.CairoError:
        raise Unsupported(f"transform {value!r} cannot be inverted") from None
    matrix.invert()
    return matrix


@_remembered(256, 40)
def _colour(value: str, opacity: float) -> tuple[float, float, float, float] | None:
    """A colour cairosvg's ``color`` reads exactly (a name of its table, ``#rgb``,
    ``#rrggbb``; empty is none), with ``opacity``; None when it paints nothing."""
    string = value.strip().lower()
    if string and string not in COLORS and not _HEX.fullmatch(string):
        raise Unsupported(f"colour {value!r}")
    rgba = color(string or None, opacity)
    return rgba if rgba[3] else None


@_remembered(256, 200)
def _dash(array: str, offset: str) -> Any:
    """cairosvg's dash setting: (cffi array, count, offset), or None for a solid line
    (no dashes, ``none``, or lengths that add up to nothing)."""
    values = normalize(array).split()
    if values == ["none"]:
        return None
    dashes = [_number(v, "stroke-dasharray") for v in values]
    if any(d < 0 for d in dashes):
        raise Unsupported("a negative dash")
    if not sum(dashes):
        return None
    return _ffi.new("double[]", dashes), len(dashes), _number(offset, "stroke-dashoffset") if offset else 0.0


# -- paths -------------------------------------------------------------------------------

_ARITY = {"M": 2, "m": 2, "L": 2, "l": 2, "T": 2, "H": 1, "h": 1, "V": 1, "v": 1, "C": 6, "c": 6,
          "S": 4, "s": 4, "Q": 4, "q": 4, "A": 7, "a": 7, "Z": 0, "z": 0}


def _commands(d: str) -> list[tuple[str, list[float]]]:
    """Path data split as cairosvg splits it (letters spaced out, then ``normalize``), each
    command with its numbers; repeated argument groups become repeated commands."""
    string = d
    for letter in PATH_LETTERS:
        string = string.replace(letter, f" {letter} ")
    tokens = normalize(string).split()
    commands: list[tuple[str, list[float]]] = []
    i = 0
    while i < len(tokens):
        letter = tokens[i]
        if letter not in _ARITY:
            raise Unsupported(f"path data {d[:40]!r}")
        i += 1
        start = i
        while i < len(tokens) and tokens[i] not in _ARITY:
            i += 1
        args = tokens[start:i]
        arity = _ARITY[letter]
        if arity == 0:
            if args:
                raise Unsupported("numbers after a closepath")
            commands.append((letter, []))
            continue
        if not args or len(args) % arity:
            raise Unsupported(f"path data {d[:40]!r}")
        for k in range(0, len(args), arity):
            group = args[k:k + arity]
            if letter in "Aa":
                if group[3] not in ("0", "1") or group[4] not in ("0", "1"):
                    raise Unsupported("arc flags")
            commands.append((letter, [_number(v, "d") for v in group]))
            letter = {"M": "L", "m": "l"}.get(letter, letter)
    return commands


@_remembered(512, 2048)
def _path_ops(d: str) -> tuple:
    """The cairo calls cairosvg's ``path.path`` makes for ``d`` (same order, same arithmetic),
    for path data that starts with an absolute moveto (so no earlier current point counts)."""
    commands = _commands(d)
    if not commands:
        return ()
    if commands[0][0] != "M":
        raise Unsupported("path data that does not start with 'M'")
    lib = _lib
    ops: list[tuple[Any, tuple]] = []
    current = (0.0, 0.0)
    last: str | None = None
    first: tuple[float, float] | None = None
    x1 = y1 = x2 = y2 = x3 = y3 = 0.0
    for letter, v in commands:
        if last in (None, "z", "Z") and letter not in "mM":
            first = current
        if last in (None, "m", "M", "z", "Z"):
            first = None
        if letter not in ("m", "M", "z", "Z") and first is None:
            first = current
        if letter in "aA":
            rx, ry, rotation, large, sweep, ex, ey = v
            if rx < 0 or ry < 0:
                raise Unsupported("an arc with a negative radius")
            ops.append((lib.cairo_set_tolerance, (0.00001,)))
            ax, ay = current
            if letter == "A":
                ex -= ax
                ey -= ay
            if not rx or not ry:
                ops.append((lib.cairo_rel_line_to, (ex, ey)))
                current = current[0] + ex, current[1] + ey
                last = "l"
                continue
            rotation = math.radians(rotation)
            ratio = ry / rx
            xe, ye = rotate(ex, ey, -rotation)
            ye /= ratio
            angle = point_angle(0, 0, xe, ye)
            xe = math.hypot(xe, ye)
            ye = 0
            rx = max(rx, xe / 2)
            xc = xe / 2
            yc = (rx ** 2 - xc ** 2) ** .5
            if not (bool(large) ^ bool(sweep)):
                yc = -yc
            xe, ye = rotate(xe, 0, angle)
            xc, yc = rotate(xc, yc, angle)
            angle1 = point_angle(xc, yc, 0, 0)
            angle2 = point_angle(xc, yc, xe, ye)
            ops += [(lib.cairo_save, ()), (lib.cairo_translate, (ax, ay)), (lib.cairo_rotate, (rotation,)),
                    (lib.cairo_scale, (1, ratio)),
                    (lib.cairo_arc if sweep else lib.cairo_arc_negative, (xc, yc, rx, angle1, angle2)),
                    (lib.cairo_restore, ())]
            current = current[0] + ex, current[1] + ey
        elif letter == "c":
            x, y = current
            x1, y1, x2, y2, x3, y3 = v
            ops.append((lib.cairo_rel_curve_to, (x1, y1, x2, y2, x3, y3)))
            current = current[0] + x3, current[1] + y3
            x1, x2, x3, y1, y2, y3 = x1 + x, x2 + x, x3 + x, y1 + y, y2 + y, y3 + y
        elif letter == "C":
            x1, y1, x2, y2, x3, y3 = v
            ops.append((lib.cairo_curve_to, (x1, y1, x2, y2, x3, y3)))
            current = x3, y3
        elif letter == "h":
            ops.append((lib.cairo_rel_line_to, (v[0], 0)))
            current = current[0] + v[0], current[1]
        elif letter == "H":
            ops.append((lib.cairo_line_to, (v[0], current[1])))
            current = v[0], current[1]
        elif letter == "l":
            ops.append((lib.cairo_rel_line_to, (v[0], v[1])))
            current = current[0] + v[0], current[1] + v[1]
        elif letter == "L":
            ops.append((lib.cairo_line_to, (v[0], v[1])))
            current = v[0], v[1]
        elif letter == "m":
            ops.append((lib.cairo_rel_move_to, (v[0], v[1])))
            current = current[0] + v[0], current[1] + v[1]
        elif letter == "M":
            ops.append((lib.cairo_move_to, (v[0], v[1])))
            current = v[0], v[1]
        elif letter == "q":
            x2, y2, x3, y3 = v
            ops.append((lib.cairo_rel_curve_to, quadratic_points(0, 0, x2, y2, x3, y3)))
            current = current[0] + x3, current[1] + y3
        elif letter == "Q":
            x1, y1 = current
            x2, y2, x3, y3 = v
            ops.append((lib.cairo_curve_to, quadratic_points(x1, y1, x2, y2, x3, y3)))
            current = x3, y3
        elif letter == "s":
            x, y = current
            x1 = x3 - x2 if last and last in "csCS" else 0
            y1 = y3 - y2 if last and last in "csCS" else 0
            x2, y2, x3, y3 = v
            ops.append((lib.cairo_rel_curve_to, (x1, y1, x2, y2, x3, y3)))
            current = current[0] + x3, current[1] + y3
            x1, x2, x3, y1, y2, y3 = x1 + x, x2 + x, x3 + x, y1 + y, y2 + y, y3 + y
        elif letter == "S":
            x, y = current
            x1 = x3 + (x3 - x2) if last and last in "csCS" else x
            y1 = y3 + (y3 - y2) if last and last in "csCS" else y
            x2, y2, x3, y3 = v
            ops.append((lib.cairo_curve_to, (x1, y1, x2, y2, x3, y3)))
            current = x3, y3
        elif letter == "T":
            ax, ay = current
            if last is None or last not in "QqTt":
                x2, y2, x3, y3 = ax, ay, ax, ay
            elif last in "qt":
                raise Unsupported("a smooth quadratic after a relative one")
            x2, y2 = ax + (x3 - x2), ay + (y3 - y2)
            x1, y1 = ax, ay
            x3, y3 = v
            ops.append((lib.cairo_curve_to, quadratic_points(x1, y1, x2, y2, x3, y3)))
            current = x3, y3
        elif letter == "v":
            ops.append((lib.cairo_rel_line_to, (0, v[0])))
            current = current[0], current[1] + v[0]
        elif letter == "V":
            ops.append((lib.cairo_line_to, (current[0], v[0])))
            current = current[0], v[0]
        elif letter in "zZ" and first:
            ops.append((lib.cairo_close_path, ()))
            current = first
        last = letter
    return tuple(ops)


def _points(value: str) -> list[tuple[float, float]]:
    tokens = normalize(value).split()
    if len(tokens) % 2:
        raise Unsupported("an odd number of point coordinates")
    numbers = [_number(t, "points") for t in tokens]
    return list(zip(numbers[::2], numbers[1::2]))


def _shape_ops(tag: str, props: dict[str, str]) -> tuple:
    """The cairo calls of cairosvg's ``shapes`` (and ``path``) for one shape element."""
    lib = _lib
    if tag == "path":
        return _path_ops(props.get("d", ""))
    if tag == "rect":
        x, y = _length(props, "x"), _length(props, "y")
        width, height = _length(props, "width"), _length(props, "height")
        rx_value, ry_value = props.get("rx"), props.get("ry")
        if rx_value and ry_value is None:
            ry_value = rx_value
        elif ry_value and rx_value is None:
            rx_value = ry_value
        rx = _number(rx_value, "rx") if rx_value else 0.0
        ry = _number(ry_value, "ry") if ry_value else 0.0
        if min(width, height, rx, ry) < 0:
            raise Unsupported("a negative rectangle size")
        if rx == 0 or ry == 0:
            return ((lib.cairo_rectangle, (x, y, width, height)),)
        rx, ry = min(rx, width / 2), min(ry, height / 2)
        arc_to_bezier = 4 * (2 ** .5 - 1) / 3
        c1, c2 = arc_to_bezier * rx, arc_to_bezier * ry
        return ((lib.cairo_new_path, ()), (lib.cairo_move_to, (x + rx, y)),
                (lib.cairo_rel_line_to, (width - 2 * rx, 0)), (lib.cairo_rel_curve_to, (c1, 0, rx, c2, rx, ry)),
                (lib.cairo_rel_line_to, (0, height - 2 * ry)), (lib.cairo_rel_curve_to, (0, c2, c1 - rx, ry, -rx, ry)),
                (lib.cairo_rel_line_to, (-width + 2 * rx, 0)),
                (lib.cairo_rel_curve_to, (-c1, 0, -rx, -c2, -rx, -ry)),
                (lib.cairo_rel_line_to, (0, -height + 2 * ry)),
                (lib.cairo_rel_curve_to, (0, -c2, rx - c1, -ry, rx, -ry)), (lib.cairo_close_path, ()))
    if tag == "circle":
        r = _length(props, "r")
        if r < 0:
            raise Unsupported("a negative radius")
        if not r:
            return ()
        return ((lib.cairo_new_sub_path, ()),
                (lib.cairo_arc, (_length(props, "cx"), _length(props, "cy"), r, 0, 2 * math.pi)),
                (lib.cairo_close_path, ()))
    if tag == "ellipse":
        rx, ry = _length(props, "rx"), _length(props, "ry")
        if rx < 0 or ry < 0:
            raise Unsupported("a negative radius")
        if not rx or not ry:
            return ()
        ratio = ry / rx
        return ((lib.cairo_new_sub_path, ()), (lib.cairo_save, ()), (lib.cairo_scale, (1, ratio)),
                (lib.cairo_arc, (_length(props, "cx"), _length(props, "cy") / ratio, rx, 0, 2 * math.pi)),
                (lib.cairo_close_path, ()), (lib.cairo_restore, ()))
    if tag == "line":
        return ((lib.cairo_move_to, (_length(props, "x1"), _length(props, "y1"))),
                (lib.cairo_line_to, (_length(props, "x2"), _length(props, "y2"))))
    points = _points(props.get("points", ""))
    ops = [(lib.cairo_move_to, points[0])] + [(lib.cairo_line_to, p) for p in points[1:]] if points else []
    if tag == "polygon":
        ops.append((lib.cairo_close_path, ()))
    return tuple(ops)


# -- reading the document ----------------------------------------------------------------

def _heritage(props: dict[str, str]) -> dict[str, str]:
    """What an element's children inherit of its properties (as cairosvg's ``Node``)."""
    return {name: value for name, value in props.items() if name not in NOT_INHERITED_ATTRIBUTES}


class _Reader:
    """Reads a face's element tree into :class:`_Element` s, refusing what it cannot draw
    exactly as cairosvg does. References (``clip-path``, ``fill="url(#…)"``) are resolved
    once the whole document is read: cairosvg collects every definition before it draws."""

    def __init__(self) -> None:
        self.clips: dict[str, _Element] = {}
        self.patterns: dict[str, _Element] = {}
        self.ids: set[str] = set()
        self.referring: list[_Element] = []

    def element(self, xml: ET.Element, parent: dict[str, str], inherited: dict[str, str],
                context: str) -> _Element:
        """``parent``: the parent's properties, ``inherited`` those of them its children
        inherit; ``context``: '' (drawn), 'clip' (inside a clip path) or 'pattern'."""
        tag, attrib = xml.tag, xml.attrib
        if tag == _TEXT:
            if len(xml) or len(attrib) > 1 or attrib and "n" not in attrib:
                raise Unsupported("a text placeholder with attributes or children")
            if context == "pattern":
                raise Unsupported("text inside a pattern")
            if inherited.get("stroke", "none") != "none":
                raise Unsupported("text with a stroke")
            # its properties are what it inherits ('n' is read by cardgen alone)
            return _Element("text", inherited, n=attrib.get("n", ""))
        ident = attrib.get("id")
        if ident is not None:
            if ident in self.ids:
                raise Unsupported(f"id {ident!r} used twice")
            self.ids.add(ident)
        if not isinstance(tag, str) or not tag.startswith(_SVG) and tag[:1] == "{":
            raise Unsupported(f"element {tag!r}")
        tag = tag.removeprefix(_SVG)
        allowed = _ALLOWED.get(tag)
        if allowed is None:
            raise Unsupported(f"element <{tag}>")
        own = {}
        for name, value in attrib.items():
            if name in _INERT or name.startswith(("aria-", "data-")):
                continue   # left out of the properties: nothing reads them
            if name not in allowed:
                raise Unsupported(f"attribute {name!r} of <{tag}>")
            own[name] = value
        props = self._props(own, parent, inherited) if own else inherited
        if tag == "defs":
            return self._defs(xml, props, context)
        el = _Element(tag, props)
        for name in ("width", "height"):
            if name in xml.attrib and _length(props, name) == 0:
                el.skip = True
        if context and (xml.get("clip-path") or tag in ("clipPath", "pattern")):
            raise Unsupported(f"<{tag}> with a clip path or definition inside a {context}")
        if tag == "clipPath" and (xml.get("clipPathUnits", "userSpaceOnUse") != "userSpaceOnUse"
                                  or "clip-path" in xml.attrib):
            raise Unsupported("a clip path in object units or itself clipped")
        transform = props.get("transform")
        el.matrix = _matrix(transform) if transform else None
        el.opacity = _number(props["opacity"], "opacity") if "opacity" in props else 1.0
        el.x, el.y = _length(props, "x"), _length(props, "y")
        el.cap = _CAPS.get(props.get("stroke-linecap", ""))
        el.join = _JOINS.get(props.get("stroke-linejoin", ""))
        if "stroke-dasharray" in props:
            el.dash = _dash(props["stroke-dasharray"], props.get("stroke-dashoffset", ""))
        if "stroke-miterlimit" in props:
            el.miter = _number(props["stroke-miterlimit"], "stroke-miterlimit")
        el.display = props.get("display", "inline") != "none"
        el.visible = el.display and props.get("visibility", "visible") != "hidden"
        if context == "clip" and not el.visible:
            raise Unsupported("a hidden element inside a clip path")
        clip = props.get("clip-path")
        if clip and clip != "none":
            match = _URL.fullmatch(clip.strip())
            if match is None:
                raise Unsupported(f"clip-path {clip!r}")
            el.clip = match.group(1)   # resolved in resolve()
            self.referring.append(el)
        if tag in _SHAPES:
            el.ops = _shape_ops(tag, props)
            self._paints(el, props, context)
        if tag == "pattern":
            self._pattern(el, xml)
        inner = "clip" if tag == "clipPath" else "pattern" if tag == "pattern" else context
        if len(xml):
            heritage = _heritage(props) if own else inherited
            el.children = [self.element(child, props, heritage, inner) for child in xml]
        if tag in _SHAPES and el.children:
            raise Unsupported(f"<{tag}> with children")   # cairosvg's opacity for shapes assumes none
        return el

    def _defs(self, xml: ET.Element, props: dict[str, str], context: str) -> _Element:
        """``<defs>``: cairosvg draws nothing of it, and takes the clip paths and patterns
        inside it as definitions (the only things it may hold here)."""
        if context:
            raise Unsupported(f"<defs> inside a {context}")
        for child in xml:
            if child.tag not in (_SVG + "clipPath", _SVG + "pattern"):
                raise Unsupported(f"<{str(child.tag).removeprefix(_SVG)}> inside <defs>")
            el = self.element(child, props, _heritage(props), "")
            ident = child.get("id")
            if ident:
                (self.clips if el.tag == "clipPath" else self.patterns)[ident] = el
        return _Element("defs", props, skip=True)

    @staticmethod
    def _props(own: dict[str, str], parent: dict[str, str], inherited: dict[str, str]) -> dict[str, str]:
        """cairosvg's node properties: the parent's it inherits, then the element's own,
        ``currentColor`` and ``inherit`` resolved as it resolves them (inherited values
        were resolved in the parent already)."""
        props = dict(inherited)
        props.update(own)
        if "currentColor" not in own.values() and "inherit" not in own.values():
            return props
        for name in COLOR_ATTRIBUTES:
            if props.get(name) == "currentColor":
                props[name] = props.get("color", "black")
        for name in [name for name, value in props.items() if value == "inherit"]:
            if name in parent:
                props[name] = parent[name]
            else:
                del props[name]
        return props

    def _paints(self, el: _Element, props: dict[str, str], context: str) -> None:
        stroke_opacity = _number(props.get("stroke-opacity", "1"), "stroke-opacity")
        fill_opacity = _number(props.get("fill-opacity", "1"), "fill-opacity")
        if el.opacity < 1:   # a shape has no children: cairosvg folds its opacity into the paints
            stroke_opacity *= el.opacity
            fill_opacity *= el.opacity
        el.fill = self._paint(el, props.get("fill", "black"), fill_opacity, context)
        el.evenodd = props.get("fill-rule") == "evenodd"
        el.stroke = self._paint(el, props.get("stroke", ""), stroke_opacity, context)
        el.stroke_width = _number(props.get("stroke-width", "1"), "stroke-width")
        if el.stroke_width < 0:
            raise Unsupported("a negative stroke width")

    def _paint(self, el: _Element, value: str, opacity: float, context: str) -> Any:
        value = value.strip()
        if "url(" not in value:
            return _colour(value, opacity)
        match = _URL.fullmatch(value)
        if match is None or context:
            raise Unsupported(f"paint {value!r}")
        self.referring.append(el)
        return match.group(1), opacity   # resolved in resolve()

    def _pattern(self, el: _Element, xml: ET.Element) -> None:
        """The one kind of pattern drawn here: a tile in user space (``patternUnits=
        "userSpaceOnUse"``, no viewBox), as cairosvg's ``draw_pattern`` draws it."""
        if xml.get("patternUnits") != "userSpaceOnUse" or "clip-path" in xml.attrib or "transform" in xml.attrib:
            raise Unsupported("a pattern other than a user-space tile")
        width, height = _length(el.props, "width"), _length(el.props, "height")
        if width <= 0 or height <= 0:
            raise Unsupported("an empty pattern")
        el.size = (el.x, el.y, width, height)
        transform = xml.get("patternTransform")
        el.pattern_matrix = _matrix(transform) if transform else None

    def resolve(self) -> None:
        """Each reference replaced by the clip path or pattern it names (in a ``<defs>``)."""
        for el in self.referring:
            if isinstance(el.clip, str):
                clip = self.clips.get(el.clip)
                if clip is None:
                    raise Unsupported(f"clip-path to {el.clip!r}, not a <clipPath> in <defs>")
                el.clip = clip
            for name in ("fill", "stroke"):
                paint = getattr(el, name)
                if paint is not None and isinstance(paint[0], str):
                    pattern = self.patterns.get(paint[0])
                    if pattern is None:
                        raise Unsupported(f"{name} from {paint[0]!r}, not a <pattern> in <defs>")
                    setattr(el, name, (pattern, paint[1]))


def read(body: str, text_fills: Iterable[str] = ()) -> Drawing:
    """Read a face's SVG for drawing, or raise :class:`Unsupported` saying what it uses
    that this module does not draw (cairosvg then draws the face). ``text_fills``: the
    fills of the texts its placeholders stand for; one painted from a pattern or gradient
    (``url(…)``) is left to cairosvg, which finds the definition in its tree."""
    if any("url(" in fill for fill in text_fills):
        raise Unsupported("text painted from a url()")
    if "<!DOCTYPE" in body or "<!ENTITY" in body:
        raise Unsupported("a DOCTYPE or entity declaration")
    try:
        xml = ET.fromstring(body)
    except ET.ParseError as exc:
        raise Unsupported(f"malformed XML ({exc})") from None
    if xml.tag != _SVG + "svg":
        raise Unsupported("a root other than <svg>")
    for name in xml.attrib:
        if not (name in _ROOT or name in _INERT - {"id"}
                or name in _PRESENTATION and name not in NOT_INHERITED_ATTRIBUTES):
            raise Unsupported(f"attribute {name!r} of the root")
    if not _MM.fullmatch(xml.get("width", "")) or not _MM.fullmatch(xml.get("height", "")):
        raise Unsupported("a root not sized in mm")
    view = [_number(v, "viewBox") for v in re.sub("[ \n\r\t,]+", " ", xml.get("viewBox", "")).split()]
    if len(view) != 4 or view[2] <= 0 or view[3] <= 0 \
            or float(xml.get("width")[:-2]) <= 0 or float(xml.get("height")[:-2]) <= 0:
        raise Unsupported("a root without a usable size and viewBox")
    aspect = xml.get("preserveAspectRatio")
    if aspect is not None and not _ASPECT.fullmatch(aspect) or sum(len(xml.get(n, "")) for n in _ROOT) > 200:
        raise Unsupported("a root sized in an unusual way")
    reader = _Reader()
    root_props = reader._props(dict(xml.attrib), {}, {})
    heritage = _heritage(root_props)
    children = [reader.element(child, root_props, heritage, "") for child in xml]
    reader.resolve()
    root = tuple((name, xml.get(name)) for name in _ROOT if xml.get(name) is not None)
    return Drawing(root, [el for el in children if el.tag != "defs"])


def plan(body: str, text_fills: Iterable[str] = ()) -> Drawing | None:
    """:func:`read`, or None when cairosvg must draw the face."""
    try:
        return read(body, text_fills)
    except (Unsupported, RecursionError, ValueError, OverflowError, ZeroDivisionError):
        return None


# -- drawing -----------------------------------------------------------------------------

@functools.lru_cache(maxsize=64)
def _root_tree(root: tuple[tuple[str, str], ...]) -> Any:
    """cairosvg's tree of an empty root with the face's sizing attributes: the surface
    cairosvg sets up for it (page size, viewBox mapping, viewport clip) is the face's."""
    attrs = "".join(f' {name}="{value}"' for name, value in root)
    return svgtree.parse(f'<svg xmlns="http://www.w3.org/2000/svg"{attrs}/>'.encode())


DrawText = Callable[[Any, Any, dict[str, str], Any], None]


class _Painter:
    """Draws :class:`_Element` s into one cairosvg surface's context, as ``Surface.draw``."""

    def __init__(self, surface: Any, texts: tuple, draw_text: DrawText) -> None:
        self.surface = surface
        self.texts = texts
        self.draw_text = draw_text
        self.pattern_opacity: dict[int, float] = {}

    def children(self, ctx: Any, elements: list[_Element], paint: bool) -> None:
        drawing = current_budget()   # the drawing's time limit (cardgen.draw._draw), checked at every element
        for el in elements:
            if drawing is not None:
                drawing.check_time()
            if el.tag == "text":
                self.text(ctx, el, paint)
            else:
                self.element(ctx, el, paint)

    def text(self, ctx: Any, el: _Element, paint: bool) -> None:
        try:
            placed = self.texts[int(el.n)]
        except (ValueError, IndexError):
            return   # a placeholder copied by hand draws nothing, as in the SVG document
        self.surface.stroke_and_fill = paint
        self.draw_text(ctx, placed, el.props, self.surface)
        self.surface.stroke_and_fill = True

    def element(self, ctx: Any, el: _Element, paint: bool, opacity: float | None = None,
                as_group: bool = False) -> None:
        """One element and its children; ``as_group``: a clip path or pattern drawn as a
        group (cairosvg renames its node 'g' for the time)."""
        if el.skip:
            return
        lib, ptr = _lib, ctx._pointer
        opacity = el.opacity if opacity is None else opacity
        group = opacity < 1 and bool(el.children)
        lib.cairo_save(ptr)
        if el.matrix is not None:
            lib.cairo_transform(ptr, el.matrix._pointer)
        if group:
            lib.cairo_push_group(ptr)
        lib.cairo_move_to(ptr, el.x, el.y)
        if el.cap is not None:
            lib.cairo_set_line_cap(ptr, el.cap)
        if el.join is not None:
            lib.cairo_set_line_join(ptr, el.join)
        if el.dash is not None:
            lib.cairo_set_dash(ptr, *el.dash)
        lib.cairo_set_miter_limit(ptr, el.miter)
        if el.clip is not None:
            lib.cairo_save(ptr)
            self.element(ctx, el.clip, False, as_group=True)
            lib.cairo_restore(ptr)
            lib.cairo_clip(ptr)
            lib.cairo_set_fill_rule(ptr, cairocffi.FILL_RULE_WINDING)
        for fn, args in el.ops:
            fn(ptr, *args)
        if paint and el.visible and el.tag in _SHAPES:
            if el.fill is not None:
                lib.cairo_save(ptr)
                if el.evenodd:
                    lib.cairo_set_fill_rule(ptr, cairocffi.FILL_RULE_EVEN_ODD)
                self.source(ctx, el.fill)
                lib.cairo_fill_preserve(ptr)
                lib.cairo_restore(ptr)
            if el.stroke is not None:
                lib.cairo_save(ptr)
                lib.cairo_set_line_width(ptr, el.stroke_width)
                self.source(ctx, el.stroke)
                lib.cairo_stroke(ptr)
                lib.cairo_restore(ptr)
            else:
                lib.cairo_new_path(ptr)   # cairosvg strokes with a clear colour: nothing, path dropped
        elif not el.visible:
            lib.cairo_new_path(ptr)
        if el.display and (as_group or el.tag not in ("clipPath", "pattern")):
            self.children(ctx, el.children, paint)
        if group:
            lib.cairo_pop_group_to_source(ptr)
            lib.cairo_paint_with_alpha(ptr, opacity)
        lib.cairo_restore(ptr)

    def source(self, ctx: Any, paint: Any) -> None:
        if len(paint) == 4:
            _lib.cairo_set_source_rgba(ctx._pointer, *paint)
        else:
            self.pattern(ctx, *paint)

    def pattern(self, ctx: Any, pattern: _Element, opacity: float) -> None:
        """cairosvg's ``draw_pattern`` for a user-space tile: the tile drawn on an SVG
        surface of its size, repeated. cairosvg keeps multiplying the pattern's opacity by
        each use's (it stores it on the node): so does this."""
        key = id(pattern)
        tile_opacity = self.pattern_opacity[key] = self.pattern_opacity.get(key, pattern.opacity) * opacity
        if pattern.pattern_matrix is not None:
            _lib.cairo_transform(ctx._pointer, pattern.pattern_matrix._pointer)
        x, y, width, height = pattern.size
        tile_surface = cairocffi.SVGSurface(None, width, height)
        tile = cairocffi.Context(tile_surface)
        tile.rectangle(0, 0, width, height)
        tile.clip()
        tile.move_to(0, 0)
        self.element(tile, pattern, True, opacity=tile_opacity, as_group=True)
        source = cairocffi.SurfacePattern(tile_surface)
        source.set_extend(cairocffi.EXTEND_REPEAT)
        source.set_matrix(cairocffi.Matrix(1, 0, 0, 1, -x, -y))
        ctx.set_source(source)


def draw(drawing: Drawing, surface_class: type, output: Any, dpi: float, texts: tuple,
         draw_text: DrawText) -> Any:
    """Draw ``drawing`` on a new ``surface_class`` (one of cardgen's cairosvg surfaces),
    which sets the page up from the root's attributes exactly as for the whole document;
    ``draw_text(ctx, placed, props, surface)`` draws each text placeholder. Returns the
    surface, to be finished by the caller."""
    surface = surface_class(_root_tree(drawing.root), output, dpi, texts=texts)
    painter = _Painter(surface, texts, draw_text)
    ctx = surface.context
    painter.children(ctx, drawing.children, True)
    status = _lib.cairo_status(ctx._pointer)
    if status:
        cairocffi._check_status(status)
    return surface
