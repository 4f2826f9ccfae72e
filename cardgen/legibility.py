"""Can every printed text be read, and read only one way? Measured on the rendered faces.

Each distinct face of a game is rendered in English as a build renders it and walked in
painting order (:mod:`cardgen.facegeometry`). For every text it prints this gives:

* its size in points at 100 % print scale: the em size the glyphs were placed at, times the
  scale of every transform above it and of the viewport (1 pt = 25.4/72 mm);
* its contrast with what lies behind it (WCAG 2 contrast ratio): the background is sampled at
  nine points of the text's ink box, each the paper composited with every fill painted
  before the text that contains the point, back to front; a fill painted after the text
  that contains the point lies over both its ink and that background, as the reader sees
  them (an opaque one hides the text there: 1 : 1), and a text filled with ``none`` prints
  no ink at all (1 : 1); the worst point counts;
* for a text turned upside down (a corner index for a fanned hand), what it reads as the
  other way up (``u`` reads ``n``), and whether it carries a mark under it (playing cards'
  underlined 6 and 9) that tells which way up it is.

And where the template draws it: the text engine's layouts are traced back to the
template line of the ``text()`` or ``symbol()`` call (Jinja maps its generated code's lines
back to the template's), so a finding points at the call, and names the card that shows it.
"""

from __future__ import annotations

import functools
import re
import sys
import xml.etree.ElementTree as ET
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from . import facegeometry as fg
from .affine import image_bounds
from .errors import CardgenError, Location, display_path
from .i18n import SOURCE_LANG
from .model import Game
from .readability import contrast_ratio, reads_otherwise
from .render import Face, Renderer
from .text import TextEngine
from .text.svg import NOTDEF, PlacedText

PT_MM = 25.4 / 72
#: Turned further than this from upright (degrees), a text is read upside down.
UPSIDE_DOWN_DEG = 135.0
#: The nine points of an ink box (fractions of its width and height) sampled for contrast.
_SAMPLES = [(fx, fy) for fy in (0.0, 0.5, 1.0) for fx in (0.0, 0.5, 1.0)]
#: Fills that draw a text without ink: it does not print, whatever lies behind it.
INKLESS = ("none", "transparent")
#: The most games cached with their analysed faces (the three rules of one check share them).
_CACHED_GAMES = 4


@dataclass(frozen=True, slots=True)
class Printed:
    """One text as a face prints it."""

    text: str              # what it says (the text()/symbol() call's label)
    field: str
    group: int             # one text() or symbol() call (a symbol's base, sub- and superscript share it)
    size_pt: float
    colour: str            # its fill
    background: str        # the colour behind it where the contrast is worst
    contrast: float
    angle: float           # degrees from upright
    turned_reading: str    # what an upside-down text reads as the other way up ('' if upright, or itself, or nothing)
    marked: bool           # an upside-down text carries a mark under it
    n: int                 # its place among the face's placed texts (see source_of)
    x0: float = 0.0        # its ink box on the face, mm from the bleed box's top-left corner
    y0: float = 0.0
    x1: float = 0.0
    y1: float = 0.0
    covered: bool = False  # where the contrast is worst, a shape painted after the text lies over it

    @property
    def upside_down(self) -> bool:
        return abs(self.angle) > UPSIDE_DOWN_DEG

    @property
    def inkless(self) -> bool:
        """Drawn with a fill that prints nothing (``none``)."""
        return self.colour.strip().lower() in INKLESS


@dataclass(frozen=True, slots=True)
class FaceRef:
    """Which face a measurement is of: enough to name it in a finding and to render it again
    (:func:`source_of`), wherever it was measured — in the check, or in a build's worker."""

    component: str
    card: str
    side: str
    lang: str
    key: str        # the face's content key (one per distinct face)
    template: str   # the side's template, as messages show it
    mark: Any = None   # the set mark the face was rendered with (a build's class sets), if any

    @classmethod
    def of(cls, face: Face) -> FaceRef:
        """A face the check rendered (with no set mark)."""
        return cls(face.component, face.card, face.side, face.lang, face.key, face.template)


@dataclass(frozen=True, slots=True)
class FaceTexts:
    """The texts of one distinct face, with the first card that shows it and how many do."""

    face: FaceRef
    cards: int
    texts: tuple[Printed, ...]

    @property
    def where(self) -> str:
        more = f" and {self.cards - 1} more" if self.cards > 1 else ""
        lang = f", {self.face.lang}" if self.face.lang != SOURCE_LANG else ""
        return f"card '{self.face.card}'{more} of component '{self.face.component}' ({self.face.side}{lang})"


def texts_as_data(texts: Iterable[Printed]) -> list[dict[str, Any]]:
    """Measured texts as plain data (a build's face cache keeps them with the face). Every
    field of :class:`Printed` is a plain value, so a shallow copy is the data (``asdict``'s
    recursive copy cost a build ~0.7 ms a face)."""
    return [{name: getattr(t, name) for name in _PRINTED_FIELDS} for t in texts]


_PRINTED_FIELDS = tuple(f.name for f in fields(Printed))


def texts_from_data(data: Iterable[dict[str, Any]], memo: dict[tuple, Printed] | None = None) -> tuple[Printed, ...]:
    """:func:`texts_as_data` read back; raises TypeError or KeyError for data that is not.
    ``memo``: records read before, so that the same text printed the same way on many faces
    is one object (a build's gate reads every face of a deck of thousands of cards)."""
    if memo is None:
        return tuple(Printed(**d) for d in data)
    out = []
    for d in data:
        key = tuple(d.items())
        printed = memo.get(key)
        if printed is None:
            printed = memo[key] = Printed(**d)
        out.append(printed)
    return tuple(out)


def hex_colour(c: fg.RGB) -> str:
    return "#" + "".join(f"{round(v * 255):02x}" for v in c)


# -- rendering with source lines ---------------------------------------------------------------

class _TracingEngine:
    """The game's text engine, noting for every layout the template line that asked for it:
    each ``text()`` call lays out one text, each ``symbol()`` call its base, subscript and
    superscript in the order it places them, so the n-th layout of a face is its n-th placed text."""

    def __init__(self, engine: TextEngine) -> None:
        self._engine = engine
        self.calls: list[Location | None] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    def layout(self, text: str, **kwargs: Any) -> Any:
        self.calls.append(_template_caller())
        return self._engine.layout(text, **kwargs)


def _template_caller() -> Location | None:
    """The template line (and the column of its drawing call) that is running now."""
    frame = sys._getframe(2)
    while frame is not None:
        template = frame.f_globals.get("__jinja_template__")
        if template is not None and template.filename:
            line = template.get_corresponding_lineno(frame.f_lineno)
            return Location(display_path(template.filename), line, _call_column(template.filename, line))
        frame = frame.f_back
    return None


_SOURCE_LINES: dict[str, list[str]] = {}


def _call_column(filename: str, line: int) -> int:
    """The column of the first ``text(`` or ``symbol(`` call on a template line (1 if none)."""
    if filename not in _SOURCE_LINES:
        try:
            _SOURCE_LINES[filename] = Path(filename).read_text(encoding="utf-8").splitlines()
        except OSError:
            _SOURCE_LINES[filename] = []
    lines = _SOURCE_LINES[filename]
    found = re.search(r"\b(text|symbol)\(", lines[line - 1]) if 0 < line <= len(lines) else None
    return found.start() + 1 if found else 1


_CACHE: dict[int, tuple[Game, list[FaceTexts]]] = {}
_GIVEN: ContextVar[tuple[Game, list[FaceTexts]] | None] = ContextVar("cardgen measured faces", default=None)


@contextmanager
def measured(game: Game, faces: list[FaceTexts]) -> Iterator[None]:
    """Within this block :func:`game_faces` of ``game`` is ``faces``, measured elsewhere: a
    build measures each face in the worker that renders it (or keeps the measure in its face
    cache), and its legibility gate runs the rules on those."""
    token = _GIVEN.set((game, faces))
    try:
        yield
    finally:
        _GIVEN.reset(token)


class Unrendered(Exception):
    """A face of the game cannot be rendered or read back: the render pass (or a build)
    reports why, with the template line; the legibility rules then measure nothing."""


def game_faces(game: Game) -> list[FaceTexts]:
    """Every distinct face of every component of ``game`` (English), with its printed texts;
    raises :class:`Unrendered` when a face fails to render.

    The faces come from the check's shared faces (:func:`cardgen.checkfaces.faces_of`): the
    render pass takes the same ones afterwards, so each face is rendered once per check. Where
    a text is written in a template is found only for the texts a rule reports
    (:func:`source_of`), which renders that one face again."""
    given = _GIVEN.get()
    if given is not None and given[0] is game:
        return given[1]
    hit = _CACHE.get(id(game))
    if hit is not None and hit[0] is game:
        return hit[1]
    try:
        out = _measured_faces(game)
    except (CardgenError, ET.ParseError) as exc:
        raise Unrendered(str(exc)) from None
    if len(_CACHE) >= _CACHED_GAMES:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[id(game)] = (game, out)
    return out


def language_faces(game: Game, lang: str) -> list[FaceTexts]:
    """Every distinct face of ``game`` in ``lang`` with its printed texts (what
    :func:`game_faces` is in English): a check of translations measures them too, as a build
    in that language does. Raises :class:`Unrendered` when a face fails to render."""
    try:
        return _measured_faces(game, lang)
    except (CardgenError, ET.ParseError) as exc:
        raise Unrendered(str(exc)) from None


def _measured_faces(game: Game, lang: str = SOURCE_LANG) -> list[FaceTexts]:
    from .checkfaces import faces_of

    faces = faces_of(game, lang)
    tally = FaceTally()
    for comp in game.components.values():
        for card in comp.cards:
            for side in comp.sides:
                face = faces.face(comp, card, side)
                tally.add(FaceRef.of(face), lambda face=face: tuple(printed_texts(face)))
    return tally.faces()


class FaceTally:
    """The distinct faces of a game as its cards show them, in the order first met: each with
    the first card side that shows it, how many card sides do (a copy, class set or spare of a
    card side counts once) and its texts, measured once. The check, the check after a build
    and the build's legibility gate gather their faces through it."""

    def __init__(self) -> None:
        self._shown: dict[str, tuple[FaceRef, set[tuple[str, str, str]], tuple[Printed, ...]]] = {}

    def add(self, ref: FaceRef, measure: Callable[[], tuple[Printed, ...]]) -> None:
        """A card side showing face ``ref.key``; ``measure`` gives its texts (called only the
        first time the face is met, when ``ref`` is the card side it is named by)."""
        entry = self._shown.get(ref.key)
        if entry is None:
            entry = self._shown[ref.key] = (ref, set(), measure())
        entry[1].add((ref.component, ref.card, ref.side))

    def faces(self) -> list[FaceTexts]:
        return [FaceTexts(ref, len(sides), texts) for ref, sides, texts in self._shown.values()]


_SOURCES: dict[tuple[str, str, str], list[Location | None]] = {}   # (game, lang, face key) -> line per placed text


def source_of(game: Game, face: FaceRef, n: int) -> Location | None:
    """The template line that drew the ``n``-th placed text of ``face``: the face is rendered
    again with a text engine that notes, for every layout, the template line asking for it."""
    key = (game.id, face.lang, face.key)
    if key not in _SOURCES:
        renderer = Renderer(game, face.lang)
        tracer = _TracingEngine(renderer.engine)
        renderer.engine = tracer   # type: ignore[assignment]
        comp = game.components.get(face.component)
        card = comp.card(face.card) if comp is not None else None
        try:
            if card is not None:
                renderer.face(comp, card, face.side, face.mark)
        except CardgenError:
            tracer.calls = []
        if len(_SOURCES) >= 256:
            _SOURCES.pop(next(iter(_SOURCES)))
        _SOURCES[key] = tracer.calls
    calls = _SOURCES[key]
    return calls[n] if 0 <= n < len(calls) else None


def printed_texts(face: Face) -> list[Printed]:
    """Every text ``face`` prints, measured."""
    geo = fg.face_geometry(face.body)
    out = []
    for mark in geo.texts:
        if mark.n >= len(face.texts):
            continue
        placed = face.texts[mark.n]
        measured = _measure(placed, mark, geo)
        if measured is None:
            continue
        out.append(measured)
    return out


def _ink_box(placed: PlacedText) -> tuple[float, float, float, float, float] | None:
    """The ink box of a placed text in its own user units (x0, y0, x1, y1, y down) and its
    em size there; None for a text with no glyphs."""
    x0 = y0 = float("inf")
    x1 = y1 = float("-inf")
    size = 0.0
    for g in placed.glyphs:
        ext = _extents(g.face, g.gid)
        if ext is None:
            continue
        x_bearing, width, y_bearing, height = ext
        gx0, gx1 = g.x + x_bearing * g.scale, g.x + (x_bearing + width) * g.scale
        gy0, gy1 = g.y - y_bearing * g.scale, g.y - (y_bearing + height) * g.scale
        x0, x1 = min(x0, gx0, gx1), max(x1, gx0, gx1)
        y0, y1 = min(y0, gy0, gy1), max(y1, gy0, gy1)
        if g.gid != NOTDEF:
            size = max(size, g.scale * g.face.upem)
    if x0 == float("inf"):
        return None
    return x0, y0, x1, y1, size


@functools.lru_cache(maxsize=16384)
def _extents(face: Any, gid: int) -> tuple[int, int, int, int] | None:
    """A glyph's ink extents in font units (x bearing, width, y bearing, height), asked of
    HarfBuzz once per glyph and process: a deck's faces measure the same few hundred glyphs."""
    ext = face.hb_font.get_glyph_extents(gid)
    return None if ext is None else (ext.x_bearing, ext.width, ext.y_bearing, ext.height)


def _measure(placed: PlacedText, mark: fg.TextMark, geo: fg.FaceGeometry) -> Printed | None:
    box = _ink_box(placed)
    fill, alpha = fg.parse_colour(placed.fill), mark.alpha
    if fill is None and placed.fill.strip().lower() in INKLESS:
        fill, alpha = (0.0, 0.0, 0.0), 0.0   # drawn without ink: what lies behind shows, 1 : 1
    if box is None or fill is None:   # (a gradient or a pattern: not one colour to compare)
        return None
    x0, y0, x1, y1, em = box
    m = mark.matrix
    size_pt = em * fg.linear_scale(m) / PT_MM
    worst, behind, covered = 22.0, (1.0, 1.0, 1.0), False
    points = [fg.apply(m, (x0 + fx * (x1 - x0), y0 + fy * (y1 - y0))) for fx, fy in _SAMPLES]
    for bg, over in zip(geo.backgrounds(points, mark.paints_before), geo.over(points, mark.paints_before, mark.group)):
        ink = fg.blend(fill, alpha, bg)
        for paint in over:   # a shape painted after the text veils its ink and what is behind alike
            ink, bg = fg.blend(paint.colour, paint.alpha, ink), fg.blend(paint.colour, paint.alpha, bg)
        ratio = contrast_ratio(ink, bg)
        if ratio < worst:
            worst, behind, covered = ratio, bg, bool(over)
    angle = fg.rotation(m)
    upside_down = abs(angle) > UPSIDE_DOWN_DEG
    reading = reads_otherwise(mark.label) if upside_down else ""
    marked = upside_down and _has_mark_under((x0, y0, x1, y1), em, m, geo)
    bx0, by0, bx1, by1 = image_bounds(m, x0, y0, x1, y1)
    return Printed(mark.label, mark.field, mark.group, size_pt, placed.fill, hex_colour(behind), worst, angle, reading,
                   marked, mark.n, round(bx0, 3), round(by0, 3), round(bx1, 3), round(by1, 3), covered)


def _has_mark_under(box: tuple[float, float, float, float], em: float, m: fg.Matrix, geo: fg.FaceGeometry) -> bool:
    """Whether something thin is drawn just under the text, seen in the text's own frame
    (under a turned index is above it on the card): a rule or dot below its ink, across it."""
    x0, y0, x1, y1 = box
    inverse = fg.invert(m)
    reach = fg.linear_scale(m) * em * 1.5
    cx, cy = fg.apply(m, ((x0 + x1) / 2, (y0 + y1) / 2))
    for mk in geo.marks:
        bx0, by0, bx1, by1 = mk.box
        if bx1 < cx - reach * 2 or bx0 > cx + reach * 2 or by1 < cy - reach * 2 or by0 > cy + reach * 2:
            continue
        local = [fg.apply(inverse, p) for p in mk.points]
        lx0, ly0 = min(p[0] for p in local), min(p[1] for p in local)
        lx1, ly1 = max(p[0] for p in local), max(p[1] for p in local)
        thin = ly1 - ly0 <= 0.3 * em
        below = y1 - 0.05 * em <= ly0 <= y1 + 0.6 * em
        overlap = min(x1, lx1) - max(x0, lx0)
        if thin and below and overlap >= 0.4 * min(x1 - x0, lx1 - lx0):
            return True
    return False
