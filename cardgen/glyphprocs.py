"""Text as glyphs: each glyph's outline stored once per face and document, drawn where shown.

A face's text used to be drawn as outlines in its page content, every occurrence of a glyph
repeating its outline: the rule sheets and the Particle Builder mat weighed 60–270 KB a page.
Now :mod:`cardgen.draw` shows the text as glyphs of a cairo *user font*, which cairo's PDF
writer stores as Type 3 fonts — each glyph's outline once per font, each occurrence a code —
and :func:`canonical_face` turns that, when a face's PDF is made, into what is kept:

* each glyph a Form XObject (``/cg0``, ``/cg1``… of the resources) holding the font file's
  outline in 1/1000 em (:func:`glyph_proc`), the same bytes in every face and document;
  every occurrence ``/cgN Do`` behind a ``cm`` that moves by the glyph's advance (the same
  few tokens each time a glyph recurs: they compress to almost nothing). cairo made one font
  per text size and wrote the outline after a round trip through that size's device space,
  so one glyph came out with other digits at another size;
* no font: drawn glyphs are shapes, not text, as outlines were. A Type 3 font's codes read
  as characters however its map says they do — ``pdftotext`` would print U+FFFD for cairo's
  map, and pdfminer/pdfplumber list a character for every code whatever the map, splitting
  the words of a rule sheet's invisible text layer (:mod:`cardgen.textlayer`) drawn over it.

To know which glyph each of cairo's codes stands for, the drawing shows every glyph with a
made-up text of two private-use characters, (font number, glyph id) (:func:`tag`), which cairo
writes into the font's ToUnicode map; :func:`canonical_face` reads it back (and drops the font).

A document keeps each glyph form once (:func:`share`): the faces and the Type 3 procedures of
its own text (footers, :class:`cardgen.pdfcontent.GlyphFonts`, which draw the same forms, see
:func:`type3_glyph`) point at one copy of each. The forms are stored uncompressed in a
face's PDF, so that the face cache keeps each one once for all faces (:func:`proc_spans`,
:mod:`cardgen.store`).
"""

from __future__ import annotations

import functools
import hashlib
import io
import re
from collections.abc import Sequence
from typing import Any

import pikepdf
from pikepdf import Array, Dictionary, Name

#: First private-use code point of the made-up text that names a glyph (plane 15 onwards:
#: 2 × 65 534 values, room for any font number and glyph id).
_PUA = 0xF0000
#: Glyph space of every Type 3 font here: 1/1000 em, y up (as the PDF standard fonts).
FONT_MATRIX = (0.001, 0, 0, 0.001, 0, 0)


def tag(font: int, gid: int) -> str:
    """The text a glyph is shown with: font number and glyph id as private-use characters."""
    return chr(_PUA + font) + chr(_PUA + gid)


def _untag(text: str) -> tuple[int, int] | None:
    if len(text) != 2 or not all(_PUA <= ord(c) <= 0x10FFFF for c in text):
        return None
    return ord(text[0]) - _PUA, ord(text[1]) - _PUA


def num(v: float) -> str:
    """A number in 1/1000 em, to a tenth."""
    text = f"{v:.1f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def advance(face: Any, gid: int) -> float:
    """A glyph's advance width in 1/1000 em, from the font (what cairo is told it is)."""
    return face.hb_font.get_glyph_h_advance(gid) * 1000.0 / face.upem


@functools.lru_cache(maxsize=8192)
def _proc(path: str, face: Any, gid: int) -> tuple[bytes, tuple[float, float, float, float]]:
    from fontTools.pens.basePen import BasePen

    # outline points to whole 1/1000 em: 0.005 mm on a glyph 10 mm tall, invisible in print,
    # and a seventh fewer bytes than tenths (the fonts' quadratic curves made cubic fall in thirds)
    scale = 1000.0 / face.upem
    ops: list[str] = []
    xs: list[float] = []
    ys: list[float] = []

    def pt(p: tuple[float, float]) -> str:
        x, y = round(p[0] * scale), round(p[1] * scale)
        xs.append(x)
        ys.append(y)
        return f"{num(x)} {num(y)}"

    class Pen(BasePen):
        def _moveTo(self, p):  # type: ignore[no-untyped-def]
            ops.append(f"{pt(p)} m")

        def _lineTo(self, p):  # type: ignore[no-untyped-def]
            ops.append(f"{pt(p)} l")

        def _curveToOne(self, p1, p2, p3):  # type: ignore[no-untyped-def]
            ops.append(f"{pt(p1)} {pt(p2)} {pt(p3)} c")

        def _closePath(self) -> None:
            ops.append("h")

    if face.has_outline(gid):   # a space has none: still a glyph, with its advance
        face.draw_glyph(gid, Pen(face.glyph_set))   # the glyph set resolves composite glyphs
    box = (min(xs), min(ys), max(xs), max(ys)) if xs else (0.0, 0.0, 0.0, 0.0)
    head = f"{num(advance(face, gid))} 0 {' '.join(num(v) for v in box)} d1"
    return (" ".join([head, *ops, "f"]) if ops else head).encode("ascii"), box


def glyph_proc(face: Any, gid: int) -> bytes:
    """The Type 3 procedure drawing glyph ``gid`` of ``face``: its outline in 1/1000 em,
    filled in the current colour (``d1``: the glyph's advance and its box, then the path)."""
    return _proc(str(face.path), face, gid)[0]


def glyph_box(face: Any, gid: int) -> tuple[float, float, float, float]:
    """The glyph's outline box in 1/1000 em (control points included)."""
    return _proc(str(face.path), face, gid)[1]


_BFCHAR = re.compile(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]*)>")


def _codes(cmap: bytes) -> dict[int, str]:
    """code → text of the ``bfchar`` entries cairo writes (it writes no ranges)."""
    out = {}
    for code, text in _BFCHAR.findall(cmap.partition(b"endcodespacerange")[2]):
        try:
            out[int(code, 16)] = bytes.fromhex(text.decode()).decode("utf-16-be")
        except (ValueError, UnicodeDecodeError):
            continue
    return out


def _glyphs_of(font: pikepdf.Dictionary, fonts: Sequence[Any]) -> dict[int, tuple[Any, int]] | None:
    """code → (font face, glyph id) of a Type 3 font cairo made from tagged glyphs, or None
    for any other font (left as it is)."""
    cmap = font.get("/ToUnicode")
    if not isinstance(cmap, pikepdf.Stream):
        return None
    glyphs = {}
    for code, text in _codes(cmap.read_bytes()).items():
        ids = _untag(text)
        if ids is None or ids[0] >= len(fonts):
            return None
        glyphs[code] = (fonts[ids[0]], ids[1])
    first, last = int(font.get("/FirstChar", 0)), int(font.get("/LastChar", -1))
    return glyphs if set(glyphs) == set(range(first, last + 1)) else None


class Unconvertible(Exception):
    """cairo wrote the text in a way :func:`canonical_face` does not read (a text operator or
    rendering mode it never uses for filled glyphs): the face is drawn with outlines instead."""


#: Name prefix of the glyph forms in a resource dictionary (cairo's own names are /a, /s, /x…).
GLYPH_PREFIX = "cg"


def _glyph_form(pdf: pikepdf.Pdf, face: Any, gid: int) -> pikepdf.Object:
    """A glyph as a Form XObject in 1/1000-em glyph space: its outline, filled in the colour
    of the place that draws it (the procedure's path without its ``d1``)."""
    path = glyph_proc(face, gid).partition(b" d1")[2].strip()
    form = pdf.make_stream(path)
    form.Type, form.Subtype = Name.XObject, Name.Form
    form.BBox = Array(list(glyph_box(face, gid)))   # whole numbers, as read back from a face's file
    return form


def type3_glyph(pdf: pikepdf.Pdf, face: Any, gid: int, name: str) -> tuple[bytes, pikepdf.Object | None]:
    """A Type 3 procedure for a document's own text (footers, labels) that draws the glyph's
    form, named ``name`` in its font's resources, and that form (None for a glyph without an
    outline): the outline is then stored once in a document whose faces draw it too (see
    :func:`share`)."""
    head = glyph_proc(face, gid).partition(b" d1")[0] + b" d1"
    if not face.has_outline(gid):
        return head, None
    return head + f" {name} Do".encode("ascii"), _glyph_form(pdf, face, gid)


class _Glyphs:
    """The glyph forms of one face, each made once, named /cg0, /cg1… in order of first use."""

    def __init__(self, pdf: pikepdf.Pdf) -> None:
        self.pdf = pdf
        self.names: dict[tuple[str, int], str] = {}
        self.forms: dict[str, pikepdf.Object] = {}

    def name(self, face: Any, gid: int) -> str | None:
        """The form's resource name, or None for a glyph without an outline (a space)."""
        if not face.has_outline(gid):
            return None
        key = (str(face.path), gid)
        if key not in self.names:
            name = self.names[key] = f"/{GLYPH_PREFIX}{len(self.names)}"
            self.forms[name] = _glyph_form(self.pdf, face, gid)
        return self.names[key]


def _mul(a: Sequence[float], b: Sequence[float]) -> tuple[float, ...]:
    """The affine product a × b (PDF matrices, row vectors: a applies first)."""
    return (a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
            a[2] * b[1] + a[3] * b[3], a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5])


def _fmt(v: float) -> str:
    text = f"{v:.6f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


class _TextState:
    """What a content stream's text operators set (the subset of PDF's text state cairo uses,
    plus spacing and rise, which it never sets but costs nothing to honour)."""

    def __init__(self) -> None:
        self.font: dict[int, tuple[Any, int]] | None = None
        self.widths: dict[int, float] = {}
        self.size = 0.0
        self.tc = self.tw = self.rise = self.leading = 0.0
        self.th = 1.0
        self.tm = self.tlm = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def _convert(ops: list, fonts: dict[str, tuple[dict[int, tuple[Any, int]], dict[int, float]]],
             glyphs: _Glyphs) -> bytes:
    """A content stream's operators with the tagged fonts' text drawn as glyph forms.

    Each line of glyphs becomes ``q <glyph space> cm`` and, per glyph, ``/cgN Do`` and a
    ``cm`` moving to the next glyph by its displacement in 1/1000 em (mostly its advance: the
    same few tokens for every occurrence of a glyph, which compress to almost nothing)."""
    out: list[bytes] = []
    st = _TextState()
    group: float | None = None   # while a line is open: how far the pen is from the last glyph drawn, 1/1000 em

    def close() -> None:
        nonlocal group
        if group is not None:
            out.append(b"Q")
            group = None

    def show(codes: bytes) -> None:
        nonlocal group
        if st.font is None:
            raise Unconvertible("text shown before a tagged font is chosen")
        for code in codes:
            if code not in st.font:
                raise Unconvertible(f"code {code} is not a tagged glyph")
            face, gid = st.font[code]
            name = glyphs.name(face, gid)
            if name is not None:
                if group is None:
                    base = _mul((st.size * st.th * 0.001, 0, 0, st.size * 0.001, 0, st.rise), st.tm)
                    out.append(("q " + " ".join(_fmt(v) for v in base) + " cm").encode("ascii"))
                    group = 0.0
                elif step := round(group, 1):   # to this glyph from the last one drawn; what rounding
                    out.append(f"1 0 0 1 {num(step)} 0 cm".encode("ascii"))   # leaves carries on: no drift
                    group -= step
                out.append(f"{name} Do".encode("ascii"))
            move((st.widths[code] * 0.001 * st.size + st.tc + (st.tw if code == 32 else 0)) * st.th)

    def move(tx: float) -> None:
        """Move the text matrix by tx (text space), and an open line's glyph position with it."""
        nonlocal group
        st.tm = _mul((1, 0, 0, 1, tx, 0), st.tm)
        if group is not None and st.size * st.th:
            group += tx / (st.size * st.th * 0.001)

    for operands, op in ops:
        name = str(op)
        if name == "BT":
            st.tm = st.tlm = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
        elif name == "ET":
            close()
        elif name == "Tf":
            close()
            tagged = fonts.get(str(operands[0]))
            if tagged is None:
                raise Unconvertible(f"font {operands[0]} is not tagged")
            st.font, st.widths = tagged
            st.size = float(operands[1])
        elif name == "Tm":
            close()
            st.tm = st.tlm = tuple(float(v) for v in operands)
        elif name in ("Td", "TD", "T*"):
            close()
            tx, ty = (float(operands[0]), float(operands[1])) if name != "T*" else (0.0, -st.leading)
            if name == "TD":
                st.leading = -ty
            st.tm = st.tlm = _mul((1, 0, 0, 1, tx, ty), st.tlm)
        elif name in ("Tc", "Tw", "Tz", "TL", "Ts"):
            close()
            value = float(operands[0])
            if name == "Tc":
                st.tc = value
            elif name == "Tw":
                st.tw = value
            elif name == "Tz":
                st.th = value / 100
            elif name == "TL":
                st.leading = value
            else:
                st.rise = value
        elif name == "Tj":
            show(bytes(operands[0]))
        elif name == "TJ":
            for item in operands[0]:
                if isinstance(item, pikepdf.String):
                    show(bytes(item))
                else:
                    move(-float(item) * 0.001 * st.size * st.th)
        elif name in ("'", '"', "Tr", "d0", "d1"):
            raise Unconvertible(f"text operator {name}")
        else:
            close()
            out.append(pikepdf.unparse_content_stream([(operands, op)]))
    close()
    return b"\n".join(out) + b"\n"


def _tagged_fonts(resources: Any, fonts: Sequence[Any]
                  ) -> dict[str, tuple[dict[int, tuple[Any, int]], dict[int, float]]]:
    """The tagged Type 3 fonts of a resource dictionary: name → (code → glyph, code → width)."""
    found = {}
    for name, font in resources.get("/Font", Dictionary()).items():
        if font.get("/Subtype") != Name.Type3:
            continue
        glyphs = _glyphs_of(font, fonts)
        if glyphs is None:
            raise Unconvertible(f"font {name} is not one the drawing tagged")
        first = int(font.get("/FirstChar", 0))
        widths = {first + i: float(w) * float(font.FontMatrix[0]) * 1000 for i, w in enumerate(font.Widths)}
        found[name] = (glyphs, widths)
    return found


def canonical_face(data: bytes, fonts: Sequence[Any]) -> bytes:
    """A face PDF cairo drew with tagged glyphs (``fonts``: the font faces by the numbers
    :func:`tag` was given), its text drawn as glyph forms as the module describes, cairo's
    Type 3 fonts gone. Its drawing operators and glyph forms are stored uncompressed
    (images stay as cairo wrote them): the face cache keeps each glyph once for all faces and
    compresses a face against another of its component, which shares most of its operators;
    every writer compresses them anyway. Saved without object streams or timestamps: the
    same drawing gives the same bytes. Raises :class:`Unconvertible` for text it cannot read."""
    pdf = pikepdf.open(io.BytesIO(data))
    glyphs = _Glyphs(pdf)
    holders = [(page.obj, page.obj.get("/Resources")) for page in pdf.pages]
    holders += [(obj, obj.get("/Resources")) for obj in pdf.objects
                if isinstance(obj, pikepdf.Stream) and obj.get("/Subtype") == Name.Form]
    for holder, resources in holders:
        if not isinstance(resources, pikepdf.Dictionary):
            continue
        tagged = _tagged_fonts(resources, fonts)
        if not tagged:
            continue
        streams = holder.Contents if holder.get("/Type") == Name.Page else holder
        ops = pikepdf.parse_content_stream(holder if holder is streams else pikepdf.Page(holder))
        content = _convert(ops, tagged, glyphs)
        if isinstance(streams, pikepdf.Stream):
            streams.write(content)
        else:
            holder.Contents = pdf.make_stream(content)
        for name in tagged:
            del resources.Font[name]
        if not resources.Font:
            del resources["/Font"]
        used = {glyphs.names[k] for k in glyphs.names}
        xobjects = resources.get("/XObject")
        if xobjects is None:
            resources.XObject = xobjects = Dictionary()
        for name in sorted(used & set(glyphs.forms), key=lambda n: int(n[len(GLYPH_PREFIX) + 1:])):
            if content.find(name.encode() + b" Do") >= 0:
                xobjects[name] = glyphs.forms[name]
    for obj in pdf.objects:   # drawing operators stored as they are: see the docstring
        if (isinstance(obj, pikepdf.Stream) and obj.get("/Filter") == Name.FlateDecode and "/DecodeParms" not in obj
                and obj.get("/Subtype") != Name.Image):
            obj.write(obj.read_bytes())
    out = io.BytesIO()
    pdf.save(out, deterministic_id=True, compress_streams=False, object_stream_mode=pikepdf.ObjectStreamMode.disable,
             fix_metadata_version=False)
    pdf.close()
    return out.getvalue()


def _resources(pdf: pikepdf.Pdf):  # noqa: ANN202 — pikepdf dictionaries
    """Every resource dictionary of a document (indirect ones and those inside pages and forms)."""
    for obj in pdf.objects:
        if isinstance(obj, (pikepdf.Dictionary, pikepdf.Stream)):
            if "/XObject" in obj or "/Font" in obj:
                yield obj
            inner = obj.get("/Resources")
            if isinstance(inner, pikepdf.Dictionary) and not inner.is_indirect:
                yield inner


def _glyph_forms(resources: Any):  # noqa: ANN202
    xobjects = resources.get("/XObject")
    if isinstance(xobjects, pikepdf.Dictionary):
        for name in list(xobjects.keys()):
            if name.startswith("/" + GLYPH_PREFIX) and isinstance(xobjects[name], pikepdf.Stream):
                yield xobjects, name


def share(pdf: pikepdf.Pdf) -> None:
    """Point every page and form of a document at one copy of each identical glyph form, and
    every Type 3 font (the document's own text) at one copy of each identical procedure and
    ToUnicode map, so that a glyph is stored once however many faces, sizes and pages show
    it; the copies left unreferenced are not written. Objects are visited in their order:
    the same document gives the same file."""
    first: dict[bytes, pikepdf.Object] = {}

    def one(stream: pikepdf.Object) -> pikepdf.Object:
        key = hashlib.sha256(repr(sorted((k, str(v)) for k, v in stream.stream_dict.items() if k != "/Length"))
                             .encode() + b"\0" + stream.read_raw_bytes()).digest()
        return first.setdefault(key, stream)

    for obj in list(pdf.objects):
        if not (isinstance(obj, pikepdf.Dictionary) and obj.get("/Subtype") == Name.Type3):
            continue
        procs = obj.get("/CharProcs")
        if isinstance(procs, pikepdf.Dictionary):
            for name in list(procs.keys()):
                stream = procs[name]
                if isinstance(stream, pikepdf.Stream):
                    procs[name] = one(stream)
        cmap = obj.get("/ToUnicode")
        if isinstance(cmap, pikepdf.Stream):
            obj.ToUnicode = one(cmap)
    for resources in list(_resources(pdf)):
        for xobjects, name in _glyph_forms(resources):
            xobjects[name] = one(xobjects[name])


def proc_spans(data: bytes) -> list[tuple[int, int]]:
    """Where a face PDF (as :func:`canonical_face` saves it) stores its glyph forms:
    (start, end) byte offsets of each uncompressed form's data, in file order. What the face
    cache keeps once for every face (:mod:`cardgen.store`)."""
    try:
        pdf = pikepdf.open(io.BytesIO(data))
    except pikepdf.PdfError:
        return []
    wanted = {xobjects[name].read_raw_bytes() for resources in _resources(pdf)
              for xobjects, name in _glyph_forms(resources) if "/Filter" not in xobjects[name]}
    pdf.close()
    spans = []
    for m in re.finditer(rb"stream\r?\n", data):
        start = m.end()
        end = data.find(b"\nendstream", start)
        if end > start and data[start:end] in wanted:
            spans.append((start, end))
    return spans
