"""A face's PDF draws each glyph's outline once, as a form that every occurrence draws.

Why: :mod:`cardgen.draw` gives cairo every glyph as a path, so a face's PDF repeated a
glyph's whole outline at each occurrence, in page coordinates that never repeat byte for
byte — some 250 bytes before compression for every letter. A rule sheet's page shows
thousands of letters (273 KB for one page of Particles in Circle's rules), and a deck's
faces show the same letters again and again (703 KB for Particle Builder's 31 particle
faces). Drawn instead as one Form XObject per distinct glyph, in the font's own units, and
a short ``cm … Do`` per occurrence, an outline is stored once per document (faces and pages
that show the same glyph share its form: :func:`share_within`) and what repeats compresses.

How, without a font for cairo to subset: while a face is drawn on a PDF surface, each text
run that can be shared (:func:`cardgen.draw.draw_placed_text` decides: an opaque plain
colour, on the page itself) is drawn as a path that paints nothing over the run's box
(:func:`append_sync_path`) — cairo writes for it the colour, opacity and clip the run's
glyphs need, exactly as it would for their outlines — followed by an empty marked-content
sequence (cairo's structure tag ``Span``, which nothing else in a face emits); the glyphs'
device matrices are recorded (:class:`Run`). :func:`share` then replaces each such path and
mark by the glyphs' forms. A face whose marks do not come back exactly as recorded gives
None, and :func:`cardgen.draw.render_pdf` draws it again with outlines: never a missing glyph.

What it costs: reopening and saving each face's PDF (pikepdf), about what cairo saves by
not writing and compressing the outlines (3.45 against 3.36 ms a face for the 232 shipped
faces, measured in one process). What a glyph may move by: its outline and its place are
rounded to whole font units, 0.005 pt for 10 pt text.
"""

from __future__ import annotations

import functools
import hashlib
import io
import re
from dataclasses import dataclass
from typing import Any

from fontTools.pens.basePen import BasePen

#: The structure tag marking where a run's remaining glyphs go (see the module docstring).
TAG = b"Span"
#: A mark as cairo writes it.
_MARK = re.compile(rb"/Span << /MCID (\d+) >> BDC\s*EMC\s?")
#: How far before a mark the path before it can start (two closed boxes of ten numbers).
_SYNC_REACH = 400
_TOKEN = re.compile(rb"\S+")
_NUMBER = re.compile(rb"-?[0-9]*\.?[0-9]+")
#: The path that paints nothing before a mark, as cairo writes it (:func:`append_sync_path`):
#: two closed boxes (a closed subpath ends with cairo's move back to its start), filled. "#"
#: stands for a number.
_SYNC_TOKENS = [b"#", b"#", b"m", *[b"#", b"#", b"l"] * 3, b"h"] * 2


def _sync_start(content: bytes, end: int) -> int | None:
    """Where the path before a mark (ending at ``end``) starts, or None if it is not there."""
    tokens = list(_TOKEN.finditer(content, max(0, end - _SYNC_REACH), end))
    if not tokens or tokens[-1][0] not in (b"f", b"f*"):
        return None
    tokens.pop()
    if len(tokens) >= 3 and tokens[-1][0] == b"m":   # the move after the last close
        del tokens[-3:]
    if len(tokens) < len(_SYNC_TOKENS):
        return None
    path = tokens[-len(_SYNC_TOKENS):]
    for token, want in zip(path, _SYNC_TOKENS):
        if (_NUMBER.fullmatch(token[0]) is None) if want == b"#" else token[0] != want:
            return None
    return path[0].start()


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

    def __init__(self, glyph_set: Any) -> None:
        super().__init__(glyph_set)
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
    """The form of one glyph (once per process), named by its content: the same outline is
    the same form in every face and document."""
    pen = _FormPen(face.glyph_set)
    face.draw_glyph(gid, pen)
    content = (" ".join(pen.ops) + (" f*" if evenodd else " f")).encode("ascii")
    bbox = (min(pen.xs, default=0), min(pen.ys, default=0), max(pen.xs, default=0), max(pen.ys, default=0))
    pad = max(1, round(BOX_MARGIN * face.upem))
    box = (bbox[0] - pad, bbox[1] - pad, bbox[2] + pad, bbox[3] + pad)
    name = "/cg" + hashlib.sha256(content + repr(box).encode()).hexdigest()[:12]
    return GlyphForm(name, content, bbox, box)


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


def _fmt(v: float, places: int) -> str:
    text = f"{v:.{places}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _matrix(m: Matrix) -> str:
    return " ".join([*(_fmt(v, 8) for v in m[:4]), _fmt(m[4], 3), _fmt(m[5], 3)])


def _in_frame(m: Matrix, base: Matrix) -> Matrix | None:
    """``m`` as a translation of ``base`` (m = T × base, PDF order), in base's units; None
    when it is more than a translation (another size or font)."""
    a, b, c, d, e, f = base
    det = a * d - b * c
    if det == 0:
        return None
    ia, ib, ic, id_ = d / det, -b / det, -c / det, a / det
    ie, if_ = -(e * ia + f * ic), -(e * ib + f * id_)
    ma, mb, mc, md, me, mf = m
    r = (ma * ia + mb * ic, ma * ib + mb * id_, mc * ia + md * ic, mc * ib + md * id_,
         me * ia + mf * ic + ie, me * ib + mf * id_ + if_)
    if abs(r[0] - 1) > 1e-6 or abs(r[1]) > 1e-6 or abs(r[2]) > 1e-6 or abs(r[3] - 1) > 1e-6:
        return None
    return r


def run_operators(run: Run, forms: dict[str, GlyphForm]) -> bytes:
    """A run's glyphs as forms: the first under its full matrix, each next one moved from
    the last by whole font units (rounded from the run's start, so no error accumulates).
    ``forms`` collects the forms used."""
    out = ["q"]
    base: Matrix | None = None
    at = (0, 0)
    for face, gid, m in run.glyphs:
        form = glyph_form(face, gid, run.evenodd)
        forms[form.name] = form
        moved = _in_frame(m, base) if base is not None else None
        if moved is not None:
            to = (round(moved[4]), round(moved[5]))
            out.append(f"1 0 0 1 {to[0] - at[0]} {to[1] - at[1]} cm {form.name} Do")
            at = to
            continue
        if base is not None:
            out.append("Q q")
        out.append(f"{_matrix(m)} cm {form.name} Do")
        base, at = m, (0, 0)
    out.append("Q\n")
    return " ".join(out).encode("ascii")


def share(data: bytes, runs: list[Run]) -> bytes | None:
    """The face PDF ``data`` (cairo's, drawn with marks) with each mark replaced by its
    run's glyph forms, the forms added to the page's resources, cairo's structure tree
    dropped; None when the marks are not exactly the runs recorded (then draw it again)."""
    import pikepdf
    from pikepdf import Array, Dictionary, Name

    with pikepdf.open(io.BytesIO(data)) as pdf:
        page = pdf.pages[0]
        contents = page.obj.get("/Contents")
        if not isinstance(contents, pikepdf.Stream):
            return None
        resources = page.obj.get("/Resources", Dictionary())
        xobjects = resources.get("/XObject", Dictionary())
        if any(x.get("/Subtype") == Name.Image for x in xobjects.values()):
            return None   # cairo may have painted a region as an image: the marks would not show in it
        content = contents.read_bytes()
        body = _replaced_marks(content, runs, forms := {})
        if body is None:
            return None
        page.obj.Contents = pdf.make_stream(body)
        for name in sorted(forms):
            form = forms[name]
            stream = pdf.make_stream(form.content)
            stream.Type, stream.Subtype = Name.XObject, Name.Form
            stream.BBox = Array(list(form.box))
            stream.Resources = Dictionary()
            xobjects[name] = stream
        resources.XObject = xobjects
        page.obj.Resources = resources
        for key in ("/StructParents",):
            if key in page.obj:
                del page.obj[key]
        for key in ("/StructTreeRoot", "/MarkInfo"):
            if key in pdf.Root:
                del pdf.Root[key]
        out = io.BytesIO()
        pdf.save(out, deterministic_id=True, fix_metadata_version=False, compress_streams=False)
        return out.getvalue()


def _replaced_marks(content: bytes, runs: list[Run], forms: dict[str, GlyphForm]) -> bytes | None:
    """``content`` with each mark and the path before it replaced by its run's glyph forms
    (collected in ``forms``); None unless the marks are exactly the runs, in order, each
    after its path."""
    if content.count(b"BDC") != len(runs):
        return None
    body, at = [], 0
    for n, mark in enumerate(_MARK.finditer(content)):
        start = _sync_start(content, mark.start())
        if int(mark[1]) != n or n >= len(runs) or start is None or start < at:
            return None
        body += [content[at:start], run_operators(runs[n], forms)]
        at = mark.end()
    if len(body) != 2 * len(runs):
        return None
    return b"".join([*body, content[at:]])


def share_within(resources: Any, seen: dict[str, Any]) -> None:
    """Point a page's or form's glyph forms (``resources``, its /Resources once in the
    output document) at those of the same name the document already holds (``seen``, filled
    as it goes): a glyph every face of a document shows is stored once. The copies left
    unreferenced are not written."""
    xobjects = resources.get("/XObject") if resources is not None else None
    if xobjects is None:
        return
    for name in list(xobjects.keys()):
        if is_glyph_form(name):
            if name in seen:
                xobjects[name] = seen[name]
            else:
                seen[name] = xobjects[name]


def is_glyph_form(name: str) -> bool:
    """Whether a resource name is a glyph form's (named by its content, see :func:`glyph_form`)."""
    return name.startswith("/cg")
