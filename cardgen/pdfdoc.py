"""The print stage's output document: faces imported once each as Form XObjects, pages
appended, saved deterministically (no timestamps unless asked for, a content-derived ID).
Part of the print stage (:mod:`cardgen.pdfwrite`).
"""

from __future__ import annotations

import hashlib
import io
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

import pikepdf
from pikepdf import Array, Dictionary, Name

from .imposition import Affine, CardGeometry, Duplex, Placement, apply
from .paper import fmt_mm
from .pdfcontent import K, Canvas, GlyphFonts
from .pdfmarks import CUT_LINE_PT

FACE_SIZE_TOLERANCE = 0.5
"""How far (mm) a face PDF may differ from trim + 2 × bleed before it is rejected."""

try:
    from isal import isal_zlib as _flate   # Intel ISA-L's deflate, where it has wheels
    FLATE_LEVEL = 3
except ImportError:  # pragma: no cover - platforms without ISA-L
    _flate = zlib    # type: ignore[no-redef]
    FLATE_LEVEL = 4
"""Compression of the faces' content streams, measured on the shipped decks' 131 faces
(5.5 MB of drawing operators): zlib level 6 (its default, and cairo's) 266 ms, 1.90 MB;
zlib level 4 97 ms, 1.97 MB; zlib level 1 59 ms, 2.18 MB; ISA-L level 3 21 ms, 1.96 MB."""


def deflate(data: bytes) -> bytes:
    """``data`` as a zlib stream (PDF's FlateDecode), at :data:`FLATE_LEVEL`."""
    return _flate.compress(data, FLATE_LEVEL)


_CUT_LINE_RGB = "#737373"   # CUT_LINE_GRAY as an SVG colour


class PdfWriteError(ValueError):
    """Inputs the writer cannot turn into a correct print (missing or wrongly sized faces)."""


@dataclass(frozen=True)
class Form:
    """A Form XObject in the output and the affine map from its space to artwork mm."""

    name: str
    obj: pikepdf.Object
    to_art: Affine


class Doc:
    """The output PDF: faces imported once each, pages appended, saved deterministically."""

    def __init__(self, title: str, creation_epoch: int | None) -> None:
        self.pdf = pikepdf.new()
        self.title = title
        self.epoch = creation_epoch
        self._sources: list[pikepdf.Pdf] = []  # foreign streams are read at save time
        self._by_key: dict[str, Form] = {}
        self._by_digest: dict[bytes, Form] = {}
        self.fonts = GlyphFonts(self.pdf)

    def face(self, key: str, data: bytes, art_w: float, art_h: float) -> Form:
        """Import a face once (by key, and by content so identical PDFs are shared)."""
        if key in self._by_key:
            return self._by_key[key]
        digest = hashlib.sha256(data).digest()
        if digest in self._by_digest:
            form = self._by_digest[digest]
        else:
            src = _open_face(key, data)
            xobj = _page_form(src)
            w, h = _box_size_mm(_form_box(xobj))
            if abs(w - art_w) > FACE_SIZE_TOLERANCE or abs(h - art_h) > FACE_SIZE_TOLERANCE:
                raise PdfWriteError(
                    f"face {key!r} is {fmt_mm(w)}×{fmt_mm(h)} mm but the card artwork must be "
                    f"{fmt_mm(art_w)}×{fmt_mm(art_h)} mm (trim + 2 × bleed); render its SVG at that size"
                )
            form = self._adopt(src, xobj, art_w, art_h)
            self._by_digest[digest] = form
        self._by_key[key] = form
        return form

    def outline(self, card: CardGeometry) -> Form:
        """The card's cut path as a stroked form, drawn like the faces (by :mod:`cardgen.draw`,
        whose SVG parser reads the path data)."""
        b = card.bleed
        stroke = CUT_LINE_PT / K
        svg = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{card.art_width}mm" height="{card.art_height}mm" '
            f'viewBox="{-b} {-b} {card.art_width} {card.art_height}">'
            f'<path d="{_xml_attr(card.cut_path)}" fill="none" stroke="{_CUT_LINE_RGB}" stroke-width="{stroke}"/>'
            "</svg>"
        )
        from .draw import render_svg_pdf  # here: loading cairo costs ~0.3 s a no-change rebuild never needs

        try:
            data = render_svg_pdf(svg)
        except Exception as exc:  # cairosvg raises assorted parse errors
            raise PdfWriteError(f"the card's cut_path is not valid SVG path data: {exc}") from None
        src = _open_face("cut outline", data)
        return self._adopt(src, _page_form(src), card.art_width, card.art_height)

    def _adopt(self, src: pikepdf.Pdf, xobj: pikepdf.Object, art_w: float, art_h: float) -> Form:
        for key in ("/Metadata", "/PieceInfo", "/LastModified"):
            if key in xobj:
                del xobj[key]
        self._sources.append(src)
        obj = self.pdf.copy_foreign(xobj)
        x0, y0, x1, y1 = _form_box(obj)
        sx, sy = art_w / (x1 - x0), art_h / (y1 - y0)
        # Form space (pt, y up) -> artwork mm (origin top-left, y down).
        to_art = (sx, 0.0, 0.0, -sy, -x0 * sx, y1 * sy)
        return Form(f"/Fx{len(self._sources) - 1}", obj, to_art)

    def add_page(self, canvas: Canvas) -> pikepdf.Page:
        resources = Dictionary()
        if canvas.forms:
            resources.XObject = Dictionary({f.name: f.obj for f in canvas.forms.values()})
        content = canvas.content(self.fonts)
        if self.fonts.used_on_page:
            resources.Font = Dictionary({f"/{name}": self.fonts.fonts[name] for name in sorted(self.fonts.used_on_page)})
            self.fonts.used_on_page.clear()
        page = pikepdf.Page(
            Dictionary(
                Type=Name.Page,
                MediaBox=Array([0, 0, canvas.w * K, canvas.h * K]),
                Resources=resources,
                Contents=self.pdf.make_stream(content),
            )
        )
        self.pdf.pages.append(page)
        return self.pdf.pages[-1]

    def save(self, duplex: Duplex) -> bytes:
        self.fonts.finish()
        prefs = Dictionary(PrintScaling=Name("/None"))
        if duplex == "long":
            prefs.Duplex = Name.DuplexFlipLongEdge
        elif duplex == "short":
            prefs.Duplex = Name.DuplexFlipShortEdge
        self.pdf.Root.ViewerPreferences = prefs
        info = Dictionary(Producer=pikepdf.String("cardgen"))
        if self.title:
            info.Title = pikepdf.String(self.title)
        if self.epoch is not None:
            stamp = datetime.fromtimestamp(self.epoch, tz=timezone.utc).strftime("D:%Y%m%d%H%M%SZ")
            info.CreationDate = pikepdf.String(stamp)
            info.ModDate = pikepdf.String(stamp)
        self.pdf.trailer.Info = self.pdf.make_indirect(info)
        out = io.BytesIO()
        self.pdf.save(
            out,
            deterministic_id=True,
            compress_streams=True,
            object_stream_mode=pikepdf.ObjectStreamMode.generate,
            fix_metadata_version=False,
        )
        return out.getvalue()


def _xml_attr(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def check_faces(placements: Sequence[Placement], faces: Mapping[str, bytes]) -> None:
    missing = sorted({k for p in placements for k in (p.front, p.back) if k is not None and k not in faces})
    if missing:
        shown = ", ".join(repr(k) for k in missing[:5]) + (" …" if len(missing) > 5 else "")
        raise PdfWriteError(f"no rendered face for {shown}; every front/back key needs an entry in faces")


def _open_face(key: str, data: bytes) -> pikepdf.Pdf:
    try:
        src = pikepdf.open(io.BytesIO(data))
    except pikepdf.PdfError as exc:
        raise PdfWriteError(f"face {key!r} is not a readable PDF ({exc}); re-render it") from None
    if len(src.pages) != 1:
        raise PdfWriteError(f"face {key!r} has {len(src.pages)} pages; a face must be a one-page PDF")
    return src


def _page_form(src: pikepdf.Pdf) -> pikepdf.Object:
    """The face's page as a Form XObject, its content compressed by :func:`deflate`.

    cairo writes one Flate-compressed content stream per page (see
    :func:`cardgen.draw.render_pdf`); it is decoded and compressed here, once, at this
    module's level, so a file depends only on the drawing operators (a face stored without
    compression gives the same form). (qpdf's own conversion would decode and compress it
    again at save: 80 % of imposition time, measured.) Anything else goes through qpdf's
    general conversion."""
    page = src.pages[0]
    contents = page.obj.get("/Contents")
    _decode_nested_streams(src, contents)
    if (isinstance(contents, pikepdf.Stream) and contents.get("/Filter") in (None, Name.FlateDecode)
            and "/DecodeParms" not in contents and "/Resources" in page.obj and "/Rotate" not in page.obj
            and "/UserUnit" not in page.obj):
        raw = contents.read_raw_bytes()
        if contents.get("/Filter") is not None:
            raw = _flate.decompress(raw)
        form = pikepdf.Stream(src, b"")
        form.write(deflate(raw), filter=Name.FlateDecode)
        form.Type, form.Subtype = Name.XObject, Name.Form
        form.BBox = Array(page.mediabox)
        form.Resources = page.obj.Resources
        if "/Group" in page.obj:
            form.Group = page.obj.Group
        return form
    return page.as_form_xobject()


def _decode_nested_streams(src: pikepdf.Pdf, contents: object) -> None:
    """Store the face's other streams (transparency groups, patterns, soft masks, images)
    decoded, so that whether cairo compressed them does not show in the file.

    qpdf compresses every stream at save either way, to the same bytes, but it lists the
    ``/Filter`` it adds after a stream's other keys, where one read from cairo's file keeps
    its sorted place: a face stored uncompressed would otherwise give a different file. A
    stream with ``/DecodeParms`` (predictors) or another filter (JPEG) is the same in both."""
    skip = contents.objgen if isinstance(contents, pikepdf.Object) else None
    for obj in src.objects:
        if (isinstance(obj, pikepdf.Stream) and obj.objgen != skip and obj.get("/Filter") == Name.FlateDecode
                and "/DecodeParms" not in obj):
            obj.write(_flate.decompress(obj.read_raw_bytes()))


def _form_box(xobj: pikepdf.Object) -> tuple[float, float, float, float]:
    """Visible box of a form in the space it is drawn in (BBox under its /Matrix)."""
    x0, y0, x1, y1 = (float(v) for v in xobj.BBox)
    matrix = tuple(float(v) for v in xobj.get("/Matrix", [1, 0, 0, 1, 0, 0]))
    pts = [apply(matrix, x, y) for x in (x0, x1) for y in (y0, y1)]  # type: ignore[arg-type]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return (min(xs), min(ys), max(xs), max(ys))


def _box_size_mm(box: tuple[float, float, float, float]) -> tuple[float, float]:
    return ((box[2] - box[0]) / K, (box[3] - box[1]) / K)
