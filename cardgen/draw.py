"""Stage 3b of the pipeline: draw a rendered face with cairo — a vector PDF page for print,
a PNG for previews.

cairosvg draws the template's artwork. Text is different: a face's text is thousands of
glyph outlines, and parsing their SVG path strings was 87 % of cairosvg's time on the
shipped decks. So a face keeps its text as glyph placements (:class:`~cardgen.text.svg.
PlacedText`) behind placeholder elements, and the surfaces here draw each placeholder
straight from the font's outline, converted to a cairo path once per glyph and process
and then appended under the right transform. The geometry is the same the SVG document
describes (same outlines, same rounded positions), so the PDF and PNG match what cairosvg
draws from :attr:`Face.svg <cardgen.render.Face.svg>`; a test compares the pixels.

Where the shortcut cannot be exact — text inside a ``<mask>`` or ``<pattern>`` (cairosvg
draws those on surfaces of its own) or text that inherits a stroke — the face is drawn from
its full SVG instead.
"""

from __future__ import annotations

import copy
import functools
import io
import sys
import types
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from fontTools.pens.basePen import BasePen

from . import cairoffi

cairoffi.import_cairosvg()   # before cairosvg's modules: see there
cairocffi = cairoffi.import_cairocffi()

from . import svgtree  # noqa: E402
from . import directdraw  # noqa: E402
from . import directpdf  # noqa: E402
from . import glyphforms  # noqa: E402

import cairosvg.surface  # noqa: E402
from cairosvg.defs import gradient_or_pattern  # noqa: E402
from cairosvg.helpers import paint  # noqa: E402

from .budget import BudgetExceeded, FaceBudget, current as current_budget  # noqa: E402
from .errors import CardgenError, Location  # noqa: E402
from .affine import image_bounds  # noqa: E402
from .render import Face, TemplateError  # noqa: E402
from .text.fonts import Face as FontFace  # noqa: E402
from .text.svg import PLACEHOLDER_NS, PlacedText  # noqa: E402

_TAG = "{" + PLACEHOLDER_NS + "}glyphs"
_lib, _ffi = cairocffi.cairo, cairocffi.ffi


def _memo(fn: Any, size: int) -> Any:
    """``fn`` remembering its last ``size`` results (arguments that cannot be hashed: not remembered)."""
    cached = functools.lru_cache(maxsize=size)(fn)

    @functools.wraps(fn)
    def memo(*args: Any) -> Any:
        try:
            return cached(*args)
        except TypeError:
            return fn(*args)
    return memo


def _copy_cursor(value: Any, memo: Any = None) -> Any:
    """``copy.deepcopy`` of what cairosvg saves before every element it draws — its text
    cursor, (position, offset, text path width), numbers in lists or tuples — built directly:
    the same copy, without deepcopy's dispatch for each number. Anything else: deepcopy."""
    if type(value) is tuple and all(type(v) in (list, tuple) and all(type(n) in (int, float) for n in v)
                                    or type(v) in (int, float) for v in value):
        return tuple(list(v) if type(v) is list else v for v in value)
    return copy.deepcopy(value, memo)


def _lighten_cairosvg() -> None:
    """cairosvg repeats pure work for every element of every face: it normalises the same
    attribute strings with four regular expressions (``helpers.normalize``), parses the same
    absent ``mask``, ``filter`` and ``clip-path`` references as URLs (``url.parse_url``) and
    deep-copies its text cursor through ``copy.deepcopy`` — a fifth of its time drawing the
    shipped faces. Here each of its modules is given the same functions remembering their
    results (both are pure: string in, string or immutable tuple out) and a direct copy of the
    cursor; what cairosvg draws does not change (the faces' PDFs are the same bytes)."""
    from cairosvg import helpers, url

    remembering = {fn: _memo(fn, size) for fn, size in ((helpers.normalize, 4096), (url.parse_url, 1024))}
    for name, module in list(sys.modules.items()):
        if name == "cairosvg" or name.startswith("cairosvg."):
            for attr in ("normalize", "parse_url"):
                fn = getattr(module, attr, None)
                if fn in remembering:
                    setattr(module, attr, remembering[fn])
    if getattr(cairosvg.surface, "copy", None) is copy:
        cairosvg.surface.copy = types.SimpleNamespace(deepcopy=_copy_cursor)   # type: ignore[attr-defined]


_lighten_cairosvg()


class _NeedsFullSvg(Exception):
    """The face uses something the glyph shortcut does not reproduce exactly."""


class _CairoPen(BasePen):
    """Feeds a glyph outline (fontTools pen protocol) into a cairo context, in font units.
    Quadratic segments become the equivalent cubics, as cairosvg does for SVG ``Q``."""

    def __init__(self, ctx: cairocffi.Context) -> None:
        super().__init__(None)   # composite glyphs come resolved (see FontFace.draw_glyph)
        self.ctx = ctx

    def _moveTo(self, pt: tuple[float, float]) -> None:
        self.ctx.move_to(*pt)

    def _lineTo(self, pt: tuple[float, float]) -> None:
        self.ctx.line_to(*pt)

    def _curveToOne(self, pt1: tuple[float, float], pt2: tuple[float, float], pt3: tuple[float, float]) -> None:
        self.ctx.curve_to(*pt1, *pt2, *pt3)

    def _closePath(self) -> None:
        self.ctx.close_path()


class _Outlines:
    """Each glyph's outline as a native cairo path, built once per process: appending a
    ready path is one C call, where cairosvg re-parses the path string every time."""

    def __init__(self) -> None:
        self._scratch = cairocffi.Context(cairocffi.RecordingSurface(cairocffi.CONTENT_ALPHA, None))
        self._paths: dict[tuple[str, int], Any] = {}

    def get(self, face: FontFace, gid: int) -> Any:
        key = (str(face.path), gid)
        path = self._paths.get(key)
        if path is None:
            ctx = self._scratch
            ctx.new_path()
            face.draw_glyph(gid, _CairoPen(ctx))
            path = _ffi.gc(_lib.cairo_copy_path(ctx._pointer), _lib.cairo_path_destroy)
            ctx.new_path()
            self._paths[key] = path
        return path


@functools.cache
def _outlines() -> _Outlines:
    """This process's glyph paths (created on first use, after any fork)."""
    return _Outlines()


class _GlyphDrawing:
    """Mixin for cairosvg surfaces: draws placeholder elements from a face's glyph placements."""

    def __init__(self, *args: Any, texts: tuple[PlacedText, ...] = (), **kwargs: Any) -> None:
        self.texts = texts
        super().__init__(*args, **kwargs)  # draws the whole tree

    def draw(self, node: Any) -> None:
        drawing = current_budget()
        if drawing is not None:   # the drawing's time limit (see _draw)
            drawing.check_time()
        try:
            if node.tag == _TAG:
                self._draw_text(node)
            else:
                super().draw(node)  # type: ignore[misc]
        except (_NeedsFullSvg, BudgetExceeded):
            raise
        except Exception as exc:
            if not hasattr(exc, _FAILED_AT):   # the innermost element: the one that could not be drawn
                setattr(exc, _FAILED_AT, node)
            raise

    def _draw_text(self, node: Any) -> None:
        try:
            placed = self.texts[int(node.element.etree_element.get("n", ""))]
        except (ValueError, IndexError):
            return   # a placeholder copied by hand draws nothing, as in the SVG document
        draw_placed_text(self.context, placed, node, self)  # type: ignore[attr-defined]


def draw_placed_text(ctx: cairocffi.Context, placed: PlacedText, node: Any, surface: Any) -> None:
    """Draw one text placeholder's glyphs into ``ctx``: ``node`` is the placeholder's
    properties as cairosvg resolves them (a mapping: own attributes over inherited ones),
    ``surface`` the cairosvg surface drawn on (whether it fills or builds a clip path, its
    colour mapping and paint servers). Both drawers call this: the cairosvg surfaces here
    and :mod:`cardgen.directdraw`."""
    if node.get("stroke", "none") != "none":
        raise _NeedsFullSvg
    visible = node.get("display", "inline") != "none" and node.get("visibility", "visible") != "hidden"
    evenodd = node.get("fill-rule") == "evenodd"
    opacity = float(node.get("fill-opacity", 1))
    source, colour = paint(placed.fill)
    runs = getattr(surface, "glyph_runs", None)
    box = (runs is not None and surface.stroke_and_fill and visible
           and _shared_run_box(ctx, surface, placed, source, colour, opacity, evenodd))
    ptr, outlines = ctx._pointer, _outlines()
    if box:
        glyphforms.append_sync_path(ctx, box)
    else:
        for g in placed.glyphs:
            _lib.cairo_save(ptr)
            _lib.cairo_translate(ptr, g.x, g.y)
            _lib.cairo_scale(ptr, g.scale, -g.scale)
            _lib.cairo_append_path(ptr, outlines.get(g.face, g.gid))
            _lib.cairo_restore(ptr)
    if not surface.stroke_and_fill:
        return   # inside a clip path: the outlines stay as the path to clip with
    if not visible:
        ctx.new_path()
        return
    ctx.save()
    if evenodd:
        ctx.set_fill_rule(cairocffi.FILL_RULE_EVEN_ODD)
    if not gradient_or_pattern(surface, node, source, opacity):
        ctx.set_source_rgba(*surface.map_color(colour, opacity))
    ctx.fill()
    ctx.restore()
    if box:   # the glyphs: a mark, replaced by their forms (cardgen.glyphforms)
        ctm = tuple(ctx.get_matrix().as_tuple())
        runs.append(glyphforms.Run(tuple((g.face, g.gid, glyphforms.device_matrix(ctm, g.x, g.y, g.scale))
                                         for g in placed.glyphs), evenodd))
        _lib.cairo_tag_begin(ptr, glyphforms.TAG, b"")
        _lib.cairo_tag_end(ptr, glyphforms.TAG)


def _shared_run_box(ctx: cairocffi.Context, surface: Any, placed: PlacedText, source: Any, colour: Any,
                    opacity: float, evenodd: bool) -> tuple[float, float, float, float] | None:
    """The box (user space) of a run whose glyphs can be drawn as shared forms, else None:
    an opaque plain colour (the forms take the colour set for the run), drawn on the page
    itself (not a pattern tile, not inside a group), not wholly clipped away."""
    if not placed.glyphs or source or opacity != 1 or surface.map_color(colour, opacity)[3] != 1:
        return None
    ptr = ctx._pointer
    if ctx is not surface.context or _lib.cairo_get_group_target(ptr) != _lib.cairo_get_target(ptr):
        return None
    return glyphforms.run_box(ctx, [(g.face, g.gid, g.x, g.y, g.scale) for g in placed.glyphs], evenodd)


class _PDFSurface(_GlyphDrawing, cairosvg.surface.PDFSurface):
    def _create_surface(self, width: float, height: float) -> tuple[Any, float, float]:
        """cairo dates every PDF with the wall clock: here the date is fixed, so that a face
        drawn twice is the same bytes (cached once; imposition drops the date anyway)."""
        surface, width, height = super()._create_surface(width, height)
        surface.set_metadata(cairocffi.PDF_METADATA_CREATE_DATE, _FIXED_DATE)
        return surface, width, height


class _SharingPDFSurface(_PDFSurface):
    """A PDF surface recording the text runs it marks for shared glyph forms
    (:mod:`cardgen.glyphforms`) in :attr:`glyph_runs`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.glyph_runs: list[glyphforms.Run] = []
        super().__init__(*args, **kwargs)   # draws the whole tree


#: The face PDFs' creation date (ISO 8601, as cairo takes it): the epoch.
_FIXED_DATE = "1970-01-01T00:00:00Z"


class _RecordingSurface(_GlyphDrawing, cairosvg.surface.Surface):
    """Draws what a PDF page would get (same units, same operations) into a cairo
    recording surface that is then dropped: a face is proved drawable without a PDF."""

    def _create_surface(self, width: float, height: float) -> tuple[Any, float, float]:
        return cairocffi.RecordingSurface(cairocffi.CONTENT_COLOR_ALPHA, (0, 0, width, height)), width, height


class _PNGSurface(_GlyphDrawing, cairosvg.surface.PNGSurface):
    pass


#: cairosvg draws these on surfaces of its own class, which would skip the placeholders.
_OWN_SURFACE_TAGS = frozenset({"mask", "pattern"})


def _text_in_own_surface(node: Any, inside: bool = False) -> bool:
    """Whether a placeholder sits in an element cairosvg draws on a separate surface."""
    if node.tag == _TAG:
        return inside
    inside = inside or node.tag in _OWN_SURFACE_TAGS
    return any(_text_in_own_surface(child, inside) for child in node.children)


@functools.cache
def internals_supported() -> bool:
    """Whether the installed cairosvg and cairocffi still have the internals this module
    uses: :func:`cardgen.svgtree.parses_like_cairosvg`, and a cairocffi context exposing its
    C pointer (``_pointer``, which the glyph shortcut draws through). pyproject.toml bounds
    both libraries to the releases this was checked with; should one still change, faces
    are parsed and drawn through cairosvg's public API instead — slower, never wrong — and
    tests/test_draw_internals.py fails to say so. Checked once per process (a millisecond)."""
    try:
        if not svgtree.parses_like_cairosvg():
            return False
        ctx = cairocffi.Context(cairocffi.RecordingSurface(cairocffi.CONTENT_ALPHA, None))
        return _ffi.typeof(ctx._pointer) is _ffi.typeof("cairo_t *")
    except Exception:  # noqa: BLE001 — any change of those internals: use the public API
        return False


def _parse(body: bytes) -> Any:
    """cairosvg's tree for a face's SVG document (see :func:`cardgen.svgtree.parse`)."""
    return svgtree.parse(body, without_css=internals_supported())


#: Where a drawing error notes the element it happened in (see :meth:`_GlyphDrawing.draw`).
_FAILED_AT = "cardgen_element"
#: What drawing raises for markup it cannot draw: a template wrote it, so it is reported like a
#: template error (file, card, what to fix), never as cardgen's own failure.
_MARKUP_ERRORS = (ET.ParseError, ValueError, TypeError, KeyError, IndexError, AttributeError, ArithmeticError,
                  RecursionError, cairocffi.CairoError)


#: Elements one face may draw (its own, not counting artwork files, which have a limit of
#: their own): the largest shipped page draws about 3,000. Each costs memory in the drawing's
#: tree; 200,000 translucent circles took minutes and most of a gigabyte.
MAX_DRAWN_ELEMENTS = 50_000
#: Seconds one face may take to draw (shipped faces take milliseconds).
DRAW_SECONDS = 10.0


def _draw(face: Face, surface_class: type, dpi: float, output: Any) -> list[glyphforms.Run]:
    """Draw ``face`` to ``output`` (a file name or a binary file object); markup that cannot
    be drawn (malformed, a value cairo refuses) raises a :class:`TemplateError` naming the
    template, the card and the element, and so does a face that draws more than
    MAX_DRAWN_ELEMENTS elements or takes longer than DRAW_SECONDS (checked at every element
    drawn, by cardgen's drawer and cairosvg's alike). Returns the runs a sharing surface marked."""
    elements = face.body.count("<") - face.body.count("</")   # opening tags, comments, processing instructions
    if elements > MAX_DRAWN_ELEMENTS:
        raise TemplateError(f"the face has {elements:,} elements to draw, more than the {MAX_DRAWN_ELEMENTS:,} one face "
                            f"may have (drawing {_what(face)})", _where(face),
                            "draw fewer shapes: repeat one with <use> or fill an area with a <pattern>")
    try:
        with FaceBudget(DRAW_SECONDS, watched=False):   # checked at every element drawn
            return _draw_face(face, surface_class, dpi, output)
    except BudgetExceeded:
        raise TemplateError(f"drawing the face took longer than {DRAW_SECONDS:g} s, the limit for one face (drawing "
                            f"{_what(face)})", _where(face), "draw fewer shapes, and fewer translucent groups, "
                            "filters and masks") from None
    except CardgenError:
        raise
    except _MARKUP_ERRORS as exc:
        raise _markup_error(face, exc) from None


def _what(face: Face) -> str:
    return f"card '{face.card}' of component '{face.component}', {face.side}"


def _where(face: Face) -> Location | None:
    return Location(face.template) if face.template else None


def _markup_error(face: Face, exc: BaseException) -> TemplateError:
    """The message for a face whose SVG cannot be drawn: what went wrong and where in the
    face's SVG (the line for malformed XML, the element otherwise)."""
    what, where = _what(face), _where(face)
    if isinstance(exc, ET.ParseError):
        line, column = getattr(exc, "position", (0, 0))
        lines = face.body.splitlines()
        shown = lines[line - 1].strip()[:100] if 0 < line <= len(lines) else ""
        return TemplateError(f"the template writes malformed SVG: {str(exc).partition(': line')[0]} at line "
                             f"{line}, column {column} of the face ({shown!r}) (drawing {what})", where,
                             "close every element the template opens and escape '<' and '&' in text")
    detail = "the SVG nests too deeply" if isinstance(exc, RecursionError) else f"{type(exc).__name__}: {exc}"
    node = getattr(exc, _FAILED_AT, None)
    element = f" in {_describe(node)}" if node is not None else ""
    return TemplateError(f"cannot draw the face: {detail}{element} (drawing {what})", where,
                         "nest fewer elements (a loop that opens groups it does not close?)"
                         if isinstance(exc, RecursionError) else "fix that element's attribute values in the template")


def _describe(node: Any) -> str:
    """An element as the template wrote it: tag and attributes, shortened."""
    element = getattr(getattr(node, "element", None), "etree_element", None)
    attrs = dict(element.attrib) if element is not None else {}
    tag = str(node.tag).rpartition("}")[2]
    text = "<" + " ".join([tag, *(f'{k.rpartition("}")[2]}="{v}"' for k, v in attrs.items())]) + ">"
    return text if len(text) <= 120 else text[:117] + "...>"


def direct_drawing(face: Face) -> directdraw.Drawing | None:
    """The one place that chooses the drawer: the face read for :mod:`cardgen.directdraw`
    (cairo driven straight from the SVG, no cairosvg tree) when its SVG keeps to what that
    module draws and this installation has the internals both drawers use; None: cairosvg
    draws it, as it draws any SVG."""
    return directdraw.plan(face.body, (t.fill for t in face.texts)) if internals_supported() else None


def _draw_face(face: Face, surface_class: type, dpi: float, output: Any) -> list[glyphforms.Run]:
    drawing = direct_drawing(face)
    if drawing is not None:
        if surface_class is _SharingPDFSurface or surface_class is _PDFSurface and not face.texts:
            written = _written(drawing, face.texts)
            if written is not None:
                output.write(written.data)
                return written.runs
        surface = directdraw.draw(drawing, surface_class, output, dpi, face.texts, draw_placed_text)
    elif not internals_supported():
        return _draw_svg(face, surface_class, dpi, output)
    else:
        tree = _parse(face.body.encode("utf-8"))
        if face.texts and ("<mask" in face.body or "<pattern" in face.body) and _text_in_own_surface(tree):
            return _draw_svg(face, surface_class, dpi, output)
        try:
            surface = surface_class(tree, output, dpi, texts=face.texts)
        except _NeedsFullSvg:
            return _draw_svg(face, surface_class, dpi, output)
    runs = list(getattr(surface, "glyph_runs", ()))
    if runs:   # carried to the print stage, which draws the marked runs' glyph forms
        surface.cairo.set_metadata(cairocffi.PDF_METADATA_KEYWORDS, glyphforms.payload(runs))
    surface.finish()
    return runs


def _written(drawing: directdraw.Drawing, texts: tuple) -> directpdf.Written | None:
    """The face's PDF written by :mod:`cardgen.directpdf`, or None when cairo must write it."""
    page = _page(drawing.root)
    if page is None:
        return None
    try:
        return directpdf.write(drawing, page, texts)
    except (directpdf.Unwritable, ArithmeticError, ValueError):   # cairo draws it, or says what is wrong
        return None


@functools.lru_cache(maxsize=64)
def _page(root: tuple[tuple[str, str], ...]) -> directpdf.Page | None:
    """The page cairosvg sets up for a face's root (its size, its matrix), or None when it
    clips the drawing to less than the page."""
    surface = _RecordingSurface(directdraw._root_tree(root), None, 96)
    ctx = surface.context
    matrix = tuple(ctx.get_matrix().as_tuple())
    x0, y0, x1, y1 = image_bounds(matrix, *ctx.clip_extents())   # the clip on the page
    if x0 > 0 or y0 > 0 or x1 < surface.width or y1 < surface.height:
        return None
    return directpdf.Page(surface.width, surface.height, matrix)   # type: ignore[arg-type]


def _draw_svg(face: Face, surface_class: type, dpi: float, output: Any) -> list[glyphforms.Run]:
    """The face drawn from its complete SVG document (no placeholders left to shortcut)."""
    surface_class.convert(bytestring=face.svg.encode("utf-8"), dpi=dpi, write_to=output)
    return []


def render_pdf(face: Face) -> bytes:
    """One-page vector PDF of a face, the unit the print stage places as a Form XObject.

    cairo compresses the page's drawing operators (zlib, its default level) in every process
    alike; the print stage inflates them and compresses them again at its own level
    (:func:`cardgen.pdfdoc.deflate`), so a file never depends on which process drew its
    faces. A face with text is drawn with its runs of glyphs marked, and carries the runs:
    the print stage draws each of their glyphs as a form shared by the whole document
    (:mod:`cardgen.glyphforms`; :func:`~cardgen.glyphforms.standalone` makes such a PDF a
    file of its own). Should its marks not come through, it is drawn again with outlines."""
    if face.texts:
        out = io.BytesIO()
        runs = _draw(face, _SharingPDFSurface, 96, out)
        if not runs or isinstance(runs, directpdf.Runs) or glyphforms.marks_intact(out.getvalue(), runs):
            return out.getvalue()
    out = io.BytesIO()
    _draw(face, _PDFSurface, 96, out)
    return out.getvalue()


def render_svg_pdf(svg: str) -> bytes:
    """One-page vector PDF of a standalone SVG document (no text placeholders), drawn as
    :func:`render_pdf` draws faces: the print stage's own drawings (a shaped card's cut
    outline) go through the same parser and surface as the cards they are printed with.
    Raises ``ValueError`` (or cairo's error) for markup that cannot be drawn."""
    out = io.BytesIO()
    surface = _PDFSurface(_parse(svg.encode("utf-8")), out, 96)
    surface.finish()
    return out.getvalue()


@functools.cache
def drawing_fingerprint() -> str:
    """What decides whether a face's SVG can be drawn besides the SVG itself: this module's,
    :mod:`cardgen.svgtree`'s and :mod:`cardgen.directdraw`'s code and the versions of cairosvg and cairo (a verdict kept for one is void for another)."""
    import hashlib

    code = b"".join(Path(file).read_bytes()
                    for file in (__file__, svgtree.__file__, directdraw.__file__, directpdf.__file__))
    return hashlib.sha256(code + f"\0{cairosvg.VERSION}\0{cairocffi.cairo_version_string()}".encode()).hexdigest()


def check_drawable(face: Face) -> None:
    """Draw ``face`` as :func:`render_pdf` does, into nothing: raises the error a build would
    raise for it, and writes no PDF (``cardgen check``)."""
    _draw(face, _RecordingSurface, 96, None)


def render_png(face: Face, dpi: float = 150) -> bytes:
    """Rasterise a face at ``dpi`` (the SVG is sized in mm, so this is exact)."""
    out = io.BytesIO()
    _draw(face, _PNGSurface, dpi, out)
    return out.getvalue()
