"""A document draws each glyph's outline once, as a form that every occurrence draws.

Why: :mod:`cardgen.draw` gives cairo every glyph as a path, so a face's PDF repeated a
glyph's whole outline at each occurrence, in page coordinates that never repeat byte for
byte — some 250 bytes before compression for every letter. A rule sheet's page shows
thousands of letters (273 KB for one page of Particles in Circle's rules), and a deck's
faces show the same letters again and again (703 KB for Particle Builder's 31 particle
faces). Drawn instead as one Form XObject per distinct glyph, in the font's own units, and
a short ``cm … Do`` per occurrence, an outline is stored once per document, however many
faces and pages show it, and what repeats compresses.

How, without a font for cairo to subset. While a face is drawn on a PDF surface, each text
run that can be shared (:func:`cardgen.draw.draw_placed_text` decides: an opaque plain
colour, on the page itself) is drawn as a path that paints nothing over the run's box
(:func:`append_sync_path`) — cairo writes for it the colour, opacity and clip the run's
glyphs need, exactly as it would for their outlines — followed by an empty marked-content
sequence (cairo's structure tag ``Span``, which nothing else in a face emits); the glyphs'
device matrices are recorded (:class:`Run`), and the operators that draw their forms are
carried in the face's PDF, in its document information (:func:`payload`). A face whose
marks cairo did not write exactly as recorded (:func:`marks_intact`) is drawn again with
outlines: never a missing glyph. The print stage (:mod:`cardgen.pdfdoc`,
:mod:`cardgen.textlayer`), which reads every face it places anyway, replaces each path and
mark by the glyphs' forms (:func:`resolve`) and adds each form to its document once;
:func:`standalone` does the same for one face, as a file of its own.

What it costs: nothing, measured — cairo writes no outlines (a QCD card face: 2.22 ms to
draw with outlines, 1.08 ms with marks), and the print stage's substitution is a few string
operations a run. What a glyph may move by: its outline and its place are rounded to whole
font units, 0.005 pt for 10 pt text.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import re
import zlib
from dataclasses import dataclass
from typing import Any

from fontTools.pens.basePen import BasePen

from . import outlinecache

#: The structure tag marking where a run's glyphs go (see the module docstring).
TAG = b"Span"
#: A mark as cairo writes it.
_MARK = re.compile(rb"/Span << /MCID (\d+) >> BDC\s*EMC\s?")
#: How far before a mark the path before it can start (two closed boxes of ten numbers).
_SYNC_REACH = 400
#: The path that paints nothing before a mark, as cairo writes it (:func:`append_sync_path`):
#: two closed boxes (a closed subpath ends with cairo's move back to its start), filled. "#"
#: stands for a number.
_SYNC_TOKENS = [b"#", b"#", b"m", *[b"#", b"#", b"l"] * 3, b"h"] * 2


def _sync_start(content: bytes, end: int) -> int | None:
    """Where the path before a mark (ending at ``end``) starts, or None if it is not there
    (its operators are checked where they must be; what stands between them is numbers)."""
    window = content[max(0, end - _SYNC_REACH):end]
    tokens = window.split()
    if not tokens or tokens[-1] not in (b"f", b"f*"):
        return None
    last = len(tokens) - 1                                  # the fill
    if last >= 3 and tokens[last - 1] == b"m":
        last -= 3                                           # the move after the last close
    first = last - len(_SYNC_TOKENS)
    if first < 0 or any(want != b"#" and token != want for token, want in zip(tokens[first:last], _SYNC_TOKENS)):
        return None
    return end - len(window.split(None, first)[-1] if first else window.lstrip())


Matrix = tuple[float, float, float, float, float, float]   # PDF order: a b c d e f


@dataclass(frozen=True, slots=True)
class Run:
    """A text run's glyphs: (font face, glyph id, matrix from font units to the page's device
    space) each, and whether the run is filled even-odd."""

    glyphs: tuple[tuple[Any, int, Matrix], ...]
    evenodd: bool


@dataclass(frozen=True, slots=True)
class GlyphForm:
    """One glyph's outline as a form's content, in whole font units, its bounds (``bbox``)
    and the form's box (``box``: the bounds and a tenth of an em about them, see
    :data:`BOX_MARGIN`)."""

    name: str
    content: bytes
    bbox: tuple[int, int, int, int]
    box: tuple[int, int, int, int]


#: The margin about a glyph that its form's box leaves, in ems. A viewer clips a form to its
#: box, and poppler snaps that clip to whole pixels: a box tight on a stem thinner than a pixel
#: (an "l" on a page seen whole, at 50 dpi) clipped the stem away.
BOX_MARGIN = 0.1


class _FormPen(BasePen):
    """A glyph outline as PDF path operators in whole font units (a unit is a thousandth of
    an em in the bundled fonts: 0.01 pt at 10 pt). Quadratic segments become cubics, as
    for the cairo paths :mod:`cardgen.draw` draws."""

    def __init__(self) -> None:
        super().__init__(None)   # composite glyphs come resolved (see Face.draw_glyph)
        self.ops: list[str] = []
        self.xs: list[int] = []
        self.ys: list[int] = []

    def _pt(self, p: tuple[float, float]) -> str:
        x, y = round(p[0]), round(p[1])
        self.xs.append(x)
        self.ys.append(y)
        return f"{x} {y}"

    def _moveTo(self, pt: tuple[float, float]) -> None:
        self.ops.append(f"{self._pt(pt)} m")

    def _lineTo(self, pt: tuple[float, float]) -> None:
        self.ops.append(f"{self._pt(pt)} l")

    def _curveToOne(self, pt1: tuple[float, float], pt2: tuple[float, float], pt3: tuple[float, float]) -> None:
        self.ops.append(f"{self._pt(pt1)} {self._pt(pt2)} {self._pt(pt3)} c")

    def _closePath(self) -> None:
        self.ops.append("h")


@functools.lru_cache(maxsize=8192)
def glyph_form(face: Any, gid: int, evenodd: bool) -> GlyphForm:
    """The form of one glyph (once per process, its outline once per machine: see
    :mod:`cardgen.outlinecache`), named by its content: the same outline is the same form in
    every face and document."""
    content, bbox = outlinecache.kept(face.path, ("form", gid, evenodd), lambda: _outline(face, gid, evenodd),
                                      _is_outline)
    pad = max(1, round(BOX_MARGIN * face.upem))
    box = (bbox[0] - pad, bbox[1] - pad, bbox[2] + pad, bbox[3] + pad)
    name = "/cg" + hashlib.sha256(content + repr(box).encode()).hexdigest()[:12]
    return GlyphForm(name, content, bbox, box)


def _outline(face: Any, gid: int, evenodd: bool) -> tuple[bytes, tuple[int, int, int, int]]:
    """A glyph's form content (its outline, filled) and the outline's bounds, in font units."""
    pen = _FormPen()
    face.draw_glyph(gid, pen)
    content = (" ".join(pen.ops) + (" f*" if evenodd else " f")).encode("ascii")
    return content, (min(pen.xs, default=0), min(pen.ys, default=0), max(pen.xs, default=0), max(pen.ys, default=0))


def _is_outline(value: Any) -> bool:
    """Whether a kept value is what :func:`_outline` makes."""
    return (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], bytes)
            and isinstance(value[1], tuple) and len(value[1]) == 4 and all(type(v) is int for v in value[1]))


def run_box(ctx: Any, glyphs: list[tuple[Any, int, float, float, float]],
            evenodd: bool) -> tuple[float, float, float, float] | None:
    """The user-space box of a run's glyphs (face, gid, x, y, scale each), or None when the
    clip leaves none of it to draw (cairo would then write nothing for the run, and the
    forms must not be drawn either)."""
    x0 = y0 = float("inf")
    x1 = y1 = float("-inf")
    for face, gid, gx, gy, s in glyphs:
        bx0, by0, bx1, by1 = glyph_form(face, gid, evenodd).bbox
        x0, x1 = min(x0, gx + bx0 * s), max(x1, gx + bx1 * s)
        y0, y1 = min(y0, gy - by1 * s), max(y1, gy - by0 * s)
    cx0, cy0, cx1, cy1 = ctx.clip_extents()
    if not (x0 < x1 and y0 < y1) or x1 <= cx0 or cx1 <= x0 or y1 <= cy0 or cy1 <= y0:
        return None
    return x0, y0, x1, y1


def append_sync_path(ctx: Any, box: tuple[float, float, float, float]) -> None:
    """A path that paints nothing over ``box`` (the box, then the box the other way round:
    winding number 0 everywhere, even-odd count 2): filled in the run's colour, it makes
    cairo write the colour, opacity and clip the run's glyphs need — the clip reduced to
    the box exactly as for the glyphs' outlines — before the mark."""
    x0, y0, x1, y1 = box
    ctx.move_to(x0, y0)
    for x, y in ((x1, y0), (x1, y1), (x0, y1)):
        ctx.line_to(x, y)
    ctx.close_path()
    ctx.move_to(x0, y0)
    for x, y in ((x0, y1), (x1, y1), (x1, y0)):
        ctx.line_to(x, y)
    ctx.close_path()


def device_matrix(ctm: Matrix, x: float, y: float, s: float) -> Matrix:
    """Font units → device space for a glyph at (x, y) user units, ``s`` user units per
    font unit (y up in the font, down in SVG), under ``ctm`` (cairo's, in PDF order)."""
    a, b, c, d, e, f = ctm
    return (s * a, s * b, -s * c, -s * d, a * x + c * y + e, b * x + d * y + f)


def fmt_number(v: float, places: int) -> str:
    """``v`` with at most ``places`` decimals, trailing zeros dropped (as PDF writers do)."""
    text = f"{v:.{places}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _matrix(m: Matrix) -> str:
    return " ".join([*(fmt_number(v, 8) for v in m[:4]), fmt_number(m[4], 3), fmt_number(m[5], 3)])


def _inverse(m: Matrix) -> Matrix | None:
    a, b, c, d, e, f = m
    det = a * d - b * c
    if det == 0:
        return None
    ia, ib, ic, id_ = d / det, -b / det, -c / det, a / det
    return ia, ib, ic, id_, -(e * ia + f * ic), -(e * ib + f * id_)


def _in_frame(m: Matrix, inverse: Matrix) -> tuple[float, float] | None:
    """``m`` as a translation of the frame whose inverse is ``inverse`` (m = T × frame, PDF
    order): T's offsets, in the frame's units; None when it is more than a translation
    (another size or font)."""
    ia, ib, ic, id_, ie, if_ = inverse
    ma, mb, mc, md, me, mf = m
    if (abs(ma * ia + mb * ic - 1) > 1e-6 or abs(ma * ib + mb * id_) > 1e-6
            or abs(mc * ia + md * ic) > 1e-6 or abs(mc * ib + md * id_ - 1) > 1e-6):
        return None
    return me * ia + mf * ic + ie, me * ib + mf * id_ + if_


def run_operators(run: Run, forms: dict[str, GlyphForm]) -> bytes:
    """A run's glyphs as forms: the first under its full matrix, each next one moved from
    the last by whole font units (rounded from the run's start, so no error accumulates).
    ``forms`` collects the forms used."""
    out = ["q"]
    inverse: Matrix | None = None
    started = False
    at = (0, 0)
    for face, gid, m in run.glyphs:
        form = glyph_form(face, gid, run.evenodd)
        forms[form.name] = form
        moved = _in_frame(m, inverse) if inverse is not None else None
        if moved is not None:
            to = (round(moved[0]), round(moved[1]))
            out.append(f"1 0 0 1 {to[0] - at[0]} {to[1] - at[1]} cm {form.name} Do")
            at = to
            continue
        if started:
            out.append("Q q")
        out.append(f"{_matrix(m)} cm {form.name} Do")
        inverse, at, started = _inverse(m), (0, 0), True
    out.append("Q\n")
    return " ".join(out).encode("ascii")


@dataclass(frozen=True, slots=True)
class Carried:
    """A marked run as a face's PDF carries it to the print stage: the operators that draw
    its glyphs' forms (:func:`run_operators`, written when the face was drawn) and the glyphs
    they draw, each once (font face, glyph id), filled even-odd or not."""

    operators: bytes
    glyphs: tuple[tuple[Any, int], ...]
    evenodd: bool


#: Where a face drawn with marks carries its runs: its document information's keywords, behind
#: this prefix (JSON: the font files, then each run: whether even-odd, its operators, and its
#: distinct glyphs as font and glyph id). A face carries its runs' operators, not their
#: glyphs' matrices: the process that draws a face works them out, in parallel with the
#: others, where the one that writes a deck's document took 0.2 ms a face (a quarter of its
#: work on each face, measured), and did it again for every face the cache held.
PAYLOAD = "cardgen-glyph-runs/2 "
#: What every version of the payload starts with (another version is not read: re-render).
_PAYLOADS = "cardgen-glyph-runs/"
_FLATE_STREAM = re.compile(rb"/Filter\s*/FlateDecode\s*>>\s*stream\r?\n")


def payload(runs: list[Run]) -> str:
    """The runs as the face's PDF carries them to the print stage (see :func:`runs_of`):
    each run's operators, from its glyphs' matrices rounded as :func:`run_operators` writes
    them, and its glyphs' font files and ids."""
    fonts: dict[str, int] = {}
    data = []
    for run in runs:
        ops = run_operators(Run(tuple((face, gid, _rounded(m)) for face, gid, m in run.glyphs), run.evenodd), {})
        glyphs = dict.fromkeys((fonts.setdefault(str(face.path), len(fonts)), gid) for face, gid, _m in run.glyphs)
        # without the line end every run's operators end with: a backslash (JSON's "\n") would
        # make cairo write the keywords as UTF-16, which the print stage's reader does not take
        data.append([int(run.evenodd), ops.removesuffix(b"\n").decode("ascii"), [list(g) for g in glyphs]])
    return PAYLOAD + json.dumps([list(fonts), data], ensure_ascii=True, separators=(",", ":"))


def runs_of(keywords: str | None) -> list[Carried] | None:
    """The runs a face's PDF carries (``keywords``: its document information's), None when
    it carries none; raises ValueError for a payload that cannot be read, one another version
    of cardgen wrote, or one naming a font file that cannot be read (moved or changed since
    the face was drawn)."""
    from .errors import CardgenError

    if not keywords or not keywords.startswith(_PAYLOADS):
        return None
    if not keywords.startswith(PAYLOAD):
        raise ValueError("its glyph runs were written by another version of cardgen")
    try:
        fonts, data = json.loads(keywords[len(PAYLOAD):])
        faces = [_font(str(path)) for path in fonts]
        return [Carried(ops.encode("ascii") + b"\n", tuple((faces[f], int(gid)) for f, gid in glyphs), bool(evenodd))
                for evenodd, ops, glyphs in data]
    except CardgenError as exc:   # the font's file moved or changed since the face was drawn
        raise ValueError(f"a font its glyph runs are drawn with cannot be read ({exc.message})") from None
    except (TypeError, IndexError, KeyError, AttributeError, ValueError) as exc:
        raise ValueError(f"the glyph runs it carries cannot be read ({type(exc).__name__})") from None


def carried_runs(pdf: Any) -> list[Carried] | None:
    """The runs a face's PDF (opened with pikepdf) carries in its document information, None
    when it carries none (see :func:`runs_of`)."""
    info = pdf.trailer.get("/Info")
    return runs_of(str(info["/Keywords"]) if info is not None and "/Keywords" in info else None)


def _rounded(m: Matrix) -> Matrix:
    """A glyph's matrix as :func:`run_operators` writes it: the scale to 8 places, the place
    to 3 (a thousandth of a point), whichever process draws or prints the face."""
    return round(m[0], 8), round(m[1], 8), round(m[2], 8), round(m[3], 8), round(m[4], 3), round(m[5], 3)


@functools.lru_cache(maxsize=64)
def _font(path: str) -> Any:
    """A font file's outlines, by path, for the process that writes the print files."""
    from pathlib import Path

    from .text.fonts import Face

    return Face(0, Path(path))


def marks_intact(data: bytes, runs: list[Run] | list[Carried]) -> bool:
    """Whether cairo's PDF of a face drawn with marks holds exactly its runs' marks, each
    after its path, in one content stream, and no raster image (cairo may paint a region it
    cannot draw as vectors as an image, which the marks would not show in). Read without
    opening the PDF: its streams are inflated where they start."""
    if b"/Subtype /Image" in data:
        return False
    marked = []
    for start in _FLATE_STREAM.finditer(data):
        try:
            content = zlib.decompressobj().decompress(data[start.end():])
        except zlib.error:
            return False
        if b"BDC" in content:
            marked.append(content)
    return len(marked) == 1 and _mark_spans(marked[0], len(runs)) is not None


def resolve(content: bytes, runs: list[Carried]) -> tuple[bytes, tuple[GlyphForm, ...]]:
    """A marked face's drawing operators with each mark and the path before it replaced by
    its run's operators, and the glyph forms they draw (by name); ValueError when they do
    not match."""
    spans = _mark_spans(content, len(runs))
    if spans is None:
        raise ValueError("its glyph marks do not match the runs it carries")
    forms: dict[str, GlyphForm] = {}
    body, at = [], 0
    for run, (start, end) in zip(runs, spans):
        body += [content[at:start], run.operators]
        for face, gid in run.glyphs:
            form = glyph_form(face, gid, run.evenodd)
            forms[form.name] = form
        at = end
    return b"".join([*body, content[at:]]), tuple(forms[name] for name in sorted(forms))


def resolve_page(pdf: Any, page: Any, runs: list[Carried], made: dict[str, Any]) -> None:
    """A page of the pikepdf document ``pdf`` drawn with marks: its content resolved and its
    glyph forms added to its resources, each made once per document (``made``, see :func:`attach`)."""
    content, forms = resolve(page.Contents.read_bytes(), runs)
    page.Contents = pdf.make_stream(content)
    attach(pdf, page, forms, made)


def form_stream(pdf: Any, form: GlyphForm) -> Any:
    """The glyph's form as a stream of the pikepdf document ``pdf``."""
    from .pdflib import Array, Dictionary, Name, pikepdf

    return pikepdf.Stream(pdf, form.content, Dictionary(Type=Name.XObject, Subtype=Name.Form,
                                                        BBox=Array(list(form.box)), Resources=Dictionary()))


def attach(pdf: Any, holder: Any, forms: Any, made: dict[str, Any]) -> None:
    """Add the glyph ``forms`` to the resources of ``holder`` (a page or form of the pikepdf
    document ``pdf``), each form made once per document (``made``: by name, filled as it goes)."""
    from .pdflib import Dictionary

    if "/Resources" not in holder:
        holder.Resources = Dictionary()
    xobjects = holder.Resources.get("/XObject")
    if xobjects is None:
        holder.Resources.XObject = xobjects = Dictionary()
    for form in forms:
        if form.name not in made:
            made[form.name] = pdf.make_indirect(form_stream(pdf, form))
        xobjects[form.name] = made[form.name]


def standalone(data: bytes) -> bytes:
    """A face's PDF as a file of its own: drawn with marks, the marks resolved and the glyph
    forms in its page's resources (what the print stage does for each document, here for
    one face: for tests and for anyone who wants a face's PDF by itself)."""
    from .pdflib import pikepdf

    with pikepdf.open(io.BytesIO(data)) as pdf:
        runs = carried_runs(pdf)
        if runs is None:
            return data
        resolve_page(pdf, pdf.pages[0].obj, runs, {})
        del pdf.trailer.Info["/Keywords"]
        out = io.BytesIO()
        pdf.save(out, deterministic_id=True, fix_metadata_version=False)
        return out.getvalue()


def _mark_spans(content: bytes, count: int) -> list[tuple[int, int]] | None:
    """Where each of the ``count`` marks and the path before it lie in ``content``; None
    unless the marks are exactly that many, in order, each after its path."""
    if content.count(b"BDC") != count:
        return None
    spans: list[tuple[int, int]] = []
    for n, mark in enumerate(_MARK.finditer(content)):
        start = _sync_start(content, mark.start())
        if int(mark[1]) != n or start is None or (spans and start < spans[-1][1]):
            return None
        spans.append((start, mark.end()))
    return spans if len(spans) == count else None
