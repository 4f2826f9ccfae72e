"""The print stage's output document: faces imported once each as Form XObjects, pages
appended, saved deterministically (no timestamps unless asked for, a content-derived ID).
Part of the print stage (:mod:`cardgen.pdfwrite`).
"""

from __future__ import annotations

import array
import contextlib
import hashlib
import io
import itertools
import shutil
import tempfile
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import BinaryIO

from . import facepdf, glyphforms
from .affine import image_bounds
from .glyphforms import GlyphForm
from .imposition import Affine, CardGeometry, Duplex, Placement
from .paper import fmt_mm
from .pdfcontent import K, Canvas, GlyphFonts
from .pdflib import Array, Dictionary, Name, pikepdf
from .pdfmarks import CUT_LINE_PT
from .relocatable import DamagedRelocatable, Object, Relocatable, RelocatedFaces, objects_of, renumbered

FACE_SIZE_TOLERANCE = 0.5
"""How far (mm) a face PDF may differ from trim + 2 × bleed before it is rejected."""

IN_MEMORY_FACES = 1000
"""Distinct faces a document keeps in memory (qpdf's copy of a face: ~17 KB, measured on
the synthetic deck of bench/bench_build.py, so ~17 MB); a document of more is written to a
file as it goes (see :class:`Doc`)."""

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
    obj: pikepdf.Object | None   # in a document written as it goes: None, and ``number``
    to_art: Affine
    number: int = 0


class Doc:
    """The output PDF: faces imported once each, pages appended, saved deterministically.

    Its memory does not grow with the number of faces. The faces are read and prepared
    first (:meth:`prepare`); up to :data:`IN_MEMORY_FACES` of them are kept in memory,
    imported as pages first draw them, and qpdf writes the document when it is saved. A
    document of more is written as it goes instead (:class:`_DocumentFile`, in a temporary
    folder, copied out when saved): each face as it is read, then each page as it is added,
    its fonts last. qpdf keeps a few kilobytes of every object it has read or made until it
    saves — 58 MB for 10,000 faces, measured — where the file written as it goes keeps an
    offset. A document is the same bytes each time it is written, whichever process drew its
    faces; one of more than :data:`IN_MEMORY_FACES` faces is laid out in another order than
    one made in memory (no object streams), and prints the same.

    Use it as a context manager (or call :meth:`close`): that removes the temporary folder.
    """

    def __init__(self, title: str, creation_epoch: int | None) -> None:
        self.pdf = pikepdf.new()
        self.title = title
        self.epoch = creation_epoch
        self._forms = 0
        self._sources: list[pikepdf.Pdf] = []  # faces in memory: their streams are read at save time
        self._prepared: dict[str, _Prepared] = {}
        self._by_key: dict[str, Form] = {}
        self._by_digest: dict[bytes, Form] = {}
        self._glyph_forms: dict[str, pikepdf.Object] = {}   # the faces' glyphs, each once (in memory)
        self._glyph_numbers: dict[str, int] = {}            # the same, written in the document's file
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._file: _DocumentFile | None = None   # the document written as it goes (many faces)
        self._pages: list[int] = []               # its pages' object numbers
        self._font_numbers: dict[str, int] = {}   # its fonts' object numbers, written when saved
        self.fonts = GlyphFonts(self.pdf)   # written as it goes: self.pdf holds only the fonts

    def __enter__(self) -> "Doc":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Let go of the faces and remove the temporary folder."""
        self.pdf.close()
        for src in self._sources:
            src.close()
        self._sources.clear()
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None

    def prepare(self, wanted: Iterable[tuple[str | None, float, float]], faces: Mapping[str, bytes]) -> None:
        """Read and check the faces pages will draw: (key or None, artwork width and height
        in mm) each; ``faces`` is read one face at a time (it may read them from disk). Once,
        before anything is drawn."""
        if self._prepared or self._forms or len(self.pdf.pages) or self._pages:
            raise PdfWriteError("a document's faces are prepared once, before any page")
        keys = {key: (w, h) for key, w, h in wanted if key is not None}
        if len(keys) <= IN_MEMORY_FACES:
            for key, (w, h) in keys.items():
                digest, src, xobj, glyphs = _checked_face(key, faces[key], w, h)
                self._sources.append(src)
                self._prepared[key] = _Prepared(digest, w, h, xobj, glyphs=glyphs)
            return
        numbers: dict[bytes, tuple[int, tuple[float, float, float, float]]] = {}
        boxes: dict[tuple[float, float, float, float], tuple[float, float, float, float]] = {}   # one of each
        with self._writing():
            self._folder = tempfile.TemporaryDirectory(prefix="cardgen-faces-")
            self._file = _DocumentFile(Path(self._folder.name) / "document.pdf")
            for key, (w, h) in keys.items():
                face = _relocated(key, faces)
                _check_size(key, face.box, w, h)
                if face.digest not in numbers:
                    glyphs = [self._written_glyph(glyph) for glyph in face.glyphs]
                    numbers[face.digest] = (self._file.place(face.objects, glyphs),
                                            boxes.setdefault(face.box, face.box))
                number, box = numbers[face.digest]
                self._prepared[key] = _Prepared(face.digest, w, h, number=number, box=box)

    def _written_glyph(self, form: GlyphForm) -> int:
        """A glyph's form in the document's file, written the first time a face draws it."""
        if form.name not in self._glyph_numbers:
            assert self._file is not None
            self._glyph_numbers[form.name] = self._file.add(glyphforms.form_stream(self.pdf, form))
        return self._glyph_numbers[form.name]

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """Writing the document's temporary file: a full disk is the user's to fix."""
        try:
            yield
        except OSError as exc:   # the temporary folder's disk, not the output folder's: said so
            from .errors import FileSystemError

            folder = self._folder.name if self._folder is not None else tempfile.gettempdir()
            raise FileSystemError(f"cannot write a deck's temporary file in {folder}: {exc.strerror or exc}", None,
                                  "free some disk space there, or set TMPDIR to a folder on a disk with room",
                                  code="io") from None

    def face(self, key: str) -> Form:
        """A prepared face as a form of this document (by key, and by content so identical
        PDFs are shared), imported when first drawn."""
        if key in self._by_key:
            return self._by_key[key]
        face = self._prepared.get(key)
        if face is None:
            raise PdfWriteError(f"no rendered face for {key!r}; every face a page draws must be prepared first")
        form = self._by_digest.get(face.digest)
        if form is None:
            if face.xobj is not None:
                obj = self.pdf.copy_foreign(face.xobj)
                if face.glyphs:
                    glyphforms.attach(self.pdf, obj, face.glyphs, self._glyph_forms)
                form = self._form(_form_box(obj), face.art_w, face.art_h, obj)
            else:
                assert face.box is not None
                form = self._form(face.box, face.art_w, face.art_h, number=face.number)
            self._by_digest[face.digest] = form
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
        src, xobj, _glyphs = _read_face("cut outline", data)   # a drawn path: no text
        self._sources.append(src)
        if self._file is not None:
            with self._writing():
                return self._form(_form_box(xobj), card.art_width, card.art_height, number=self._file.add(xobj))
        obj = self.pdf.copy_foreign(xobj)
        return self._form(_form_box(obj), card.art_width, card.art_height, obj)

    def _form(self, box: tuple[float, float, float, float], art_w: float, art_h: float,
              obj: pikepdf.Object | None = None, number: int = 0) -> Form:
        """A form of this document (``box``: its visible box), named in the order pages
        first draw forms."""
        x0, y0, x1, y1 = box
        sx, sy = art_w / (x1 - x0), art_h / (y1 - y0)
        # Form space (pt, y up) -> artwork mm (origin top-left, y down).
        to_art = (sx, 0.0, 0.0, -sy, -x0 * sx, y1 * sy)
        self._forms += 1
        return Form(f"/Fx{self._forms - 1}", obj, to_art, number)

    def add_page(self, canvas: Canvas, trim: tuple[float, float, float, float] | None = None) -> None:
        """Append a page drawn on ``canvas``; ``trim``: its TrimBox (pt), the page itself
        then its BleedBox (one piece per page)."""
        content = canvas.content(self.fonts)
        fonts = sorted(self.fonts.used_on_page)
        self.fonts.used_on_page.clear()
        media = Array([0, 0, canvas.w * K, canvas.h * K])
        if self._file is not None:
            self._add_written_page(canvas, content, fonts, media, trim)
            return
        resources = Dictionary()
        if canvas.forms:
            resources.XObject = Dictionary({f.name: f.obj for f in canvas.forms.values()})
        if fonts:
            resources.Font = Dictionary({f"/{name}": self.fonts.fonts[name] for name in fonts})
        page = Dictionary(Type=Name.Page, MediaBox=media, Resources=resources, Contents=self.pdf.make_stream(content))
        if trim is not None:
            page.BleedBox, page.TrimBox = Array(media), Array(list(trim))
        self.pdf.pages.append(pikepdf.Page(page))

    def _add_written_page(self, canvas: Canvas, content: bytes, fonts: list[str], media: pikepdf.Array,
                          trim: tuple[float, float, float, float] | None) -> None:
        """A page of the document written as it goes: its content stream and its dictionary,
        as qpdf would write them (the fonts it uses are numbered now and written when saved)."""
        assert self._file is not None
        resources = b""
        if fonts:
            refs = b" ".join(b"/%s %d 0 R" % (name.encode(), self._font_number(name)) for name in fonts)
            resources += b"/Font << %s >> " % refs
        if canvas.forms:
            refs = b" ".join(b"%s %d 0 R" % (f.name.encode(), f.number) for f in canvas.forms.values())
            resources += b"/XObject << %s >> " % refs
        boxes = b""
        if trim is not None:
            boxes = b"/BleedBox %s /TrimBox %s " % (media.unparse(), Array(list(trim)).unparse())
        with self._writing():
            data = deflate(content)
            contents = self._file.stream(b"<< /Filter /FlateDecode /Length %d >>" % len(data), data)
            self._pages.append(self._file.object(
                b"<< %s/Contents %d 0 R /MediaBox %s /Parent 2 0 R /Resources << %s>> /Type /Page >>"
                % (boxes, contents, media.unparse(), resources)))

    def _font_number(self, name: str) -> int:
        assert self._file is not None
        if name not in self._font_numbers:
            self._font_numbers[name] = self._file.reserve()
        return self._font_numbers[name]

    def save(self, duplex: Duplex, to: BinaryIO | None = None) -> bytes:
        """The finished document's bytes; with ``to``, written to that file instead (as qpdf
        writes it: a document of thousands of faces is never held whole) and b"" returned."""
        self.fonts.finish()
        prefs = Dictionary(PrintScaling=Name("/None"))
        if duplex == "long":
            prefs.Duplex = Name.DuplexFlipLongEdge
        elif duplex == "short":
            prefs.Duplex = Name.DuplexFlipShortEdge
        info = Dictionary(Producer=pikepdf.String("cardgen"))
        if self.title:
            info.Title = pikepdf.String(self.title)
        if self.epoch is not None:
            stamp = datetime.fromtimestamp(self.epoch, tz=timezone.utc).strftime("D:%Y%m%d%H%M%SZ")
            info.CreationDate = pikepdf.String(stamp)
            info.ModDate = pikepdf.String(stamp)
        if self._file is not None:
            return self._save_written(prefs, info, to)
        self.pdf.Root.ViewerPreferences = prefs
        self.pdf.trailer.Info = self.pdf.make_indirect(info)
        # saved in memory, then written here: qpdf writing into a file that fails (a full disk,
        # a file-size limit) aborts the whole process from C++; a write of ours raises OSError.
        # A document saved this way holds few faces (larger ones are written as they go)
        out = io.BytesIO()
        self.pdf.save(
            out,
            deterministic_id=True,
            compress_streams=True,
            object_stream_mode=pikepdf.ObjectStreamMode.generate,
            fix_metadata_version=False,
        )
        if to is None:
            return out.getvalue()
        to.write(out.getbuffer())
        return b""

    def _save_written(self, prefs: pikepdf.Dictionary, info: pikepdf.Dictionary, to: BinaryIO | None) -> bytes:
        """The document written as it goes, finished: its fonts, page tree, catalog and
        information; then copied to ``to`` (or returned)."""
        assert self._file is not None and self._file.fh is not None
        with self._writing():
            for name, number in self._font_numbers.items():
                self._file.add(self.fonts.fonts[name], number)
            self._file.finish(self._pages, b"/ViewerPreferences %s " % prefs.unparse(), info.unparse())
            fh = self._file.fh
            fh.flush()
            fh.seek(0)
            if to is None:
                return fh.read()
            shutil.copyfileobj(fh, to, 1 << 20)
            return b""


@dataclass(frozen=True)
class _Prepared:
    """A face read and checked: in memory (``xobj``, its prepared form) or written in the
    document's file (``number``, its form's object there, and ``box``); drawn at ``art_w`` ×
    ``art_h`` mm."""

    digest: bytes
    art_w: float
    art_h: float
    xobj: pikepdf.Object | None = None
    number: int = 0
    box: tuple[float, float, float, float] | None = None   # the form's visible box (when written)
    glyphs: tuple[GlyphForm, ...] = ()   # the glyph forms it draws (added to its resources once imported)


def _checked_face(key: str, data: bytes, art_w: float,
                  art_h: float) -> tuple[bytes, pikepdf.Pdf, pikepdf.Object, tuple[GlyphForm, ...]]:
    """A face's digest, its PDF, its page as a form, checked to be the card's artwork size, and
    the glyph forms it draws (see :mod:`cardgen.glyphforms`)."""
    src, xobj, glyphs = _read_face(key, data)
    try:
        _check_size(key, _form_box(xobj), art_w, art_h)
    except PdfWriteError:
        src.close()
        raise
    return hashlib.sha256(data).digest(), src, xobj, glyphs


def relocatable(key: str, data: bytes) -> Relocatable:
    """A face's form as the objects a document written as it goes stores (see
    :mod:`cardgen.relocatable`); its size is checked where it is placed. A face as cairo
    writes it is read by :mod:`cardgen.facepdf`; any other through pikepdf, to the same
    objects."""
    fast = facepdf.relocatable(data, deflate)
    if fast is not None:
        return fast
    return relocatable_via_qpdf(key, data)


def relocatable_via_qpdf(key: str, data: bytes) -> Relocatable:
    """:func:`relocatable` by opening the face with pikepdf (what :mod:`cardgen.facepdf`
    is checked against)."""
    src, xobj, glyphs = _read_face(key, data)
    try:
        return Relocatable(hashlib.sha256(data).digest(), _form_box(xobj), glyphs,
                           objects_of(xobj, deflate, tuple(g.name for g in glyphs)))
    finally:
        src.close()


def _relocated(key: str, faces: Mapping[str, bytes]) -> Relocatable:
    """A face's objects: as the process that drew it made them, else made here."""
    if isinstance(faces, RelocatedFaces):
        try:
            made = faces.relocated(key)
        except DamagedRelocatable as exc:
            raise PdfWriteError(f"face {key!r} cannot be printed: its prepared form is damaged ({exc}); "
                                "build again") from None
        if made is not None:
            return made
    return relocatable(key, faces[key])


def _read_face(key: str, data: bytes) -> tuple[pikepdf.Pdf, pikepdf.Object, tuple[GlyphForm, ...]]:
    """A face's PDF, its page as a form (its own metadata stripped) and the glyph forms it draws."""
    src = _open_face(key, data)
    try:
        xobj, glyphs = _page_form(src)
    except ValueError as exc:
        src.close()
        raise PdfWriteError(f"face {key!r} cannot be printed: {exc}; re-render it") from None
    _strip_metadata(xobj)
    return src, xobj, glyphs


def _check_size(key: str, box: tuple[float, float, float, float], art_w: float, art_h: float) -> None:
    """A face must be the card's artwork size (``box``: its form's, in pt)."""
    w, h = _box_size_mm(box)
    if abs(w - art_w) > FACE_SIZE_TOLERANCE or abs(h - art_h) > FACE_SIZE_TOLERANCE:
        raise PdfWriteError(
            f"face {key!r} is {fmt_mm(w)}×{fmt_mm(h)} mm but the card artwork must be "
            f"{fmt_mm(art_w)}×{fmt_mm(art_h)} mm (trim + 2 × bleed); render its SVG at that size"
        )


class _DocumentFile:
    """A PDF file written object by object, for a document of many faces: its memory is the
    objects' offsets, whatever the number of faces and pages.

    Each face's form is copied into a new, empty document — as it would be into one made in
    memory — and the copied objects written out renumbered to follow what came before, stream
    data as stored (a stream left uncompressed, as :func:`_decode_nested_streams` leaves a
    face's, is compressed here as qpdf would at save). Pages and the document's fonts follow
    as they are added; :meth:`finish` writes the page tree, catalog, information, the
    cross-reference table and an ID derived from every byte before it."""

    def __init__(self, path: Path) -> None:
        """Create the file (in a folder of its own: it is read back when the document is saved)."""
        self.offsets = array.array("q", [0, 0, 0])   # by object number; 1 and 2: the catalog and page tree
        self._digest = hashlib.sha256()
        self.size = 0   # bytes written so far: the next object's offset (no seek to ask the file)
        self.fh: BinaryIO | None = open(path, "w+b")
        self._out(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()
            self.fh = None

    def _out(self, data: bytes) -> None:
        assert self.fh is not None
        self.fh.write(data)
        self._digest.update(data)
        self.size += len(data)

    def reserve(self) -> int:
        """A number for an object written later (:meth:`add` with ``number``)."""
        self.offsets.append(0)
        return len(self.offsets) - 1

    def add(self, obj: pikepdf.Object, number: int | None = None) -> int:
        """Write an object of another PDF (a face's outline form, a font) and every object it
        uses; its number here (``number``: one :meth:`reserve` gave)."""
        return self.place(objects_of(obj, deflate), (), number)

    def place(self, objects: Sequence[Object], glyphs: Sequence[int] = (), number: int | None = None) -> int:
        """Write an object and those it uses, numbered from 1 (see :mod:`cardgen.relocatable`),
        after what came before; ``glyphs``: the numbers here of the glyph forms they refer to
        after their own. The first object's number (``number``: one :meth:`reserve` gave)."""
        own, base = len(objects), len(self.offsets)
        mine = number if number is not None else base
        given = number is not None

        def where(n: int) -> int:
            if n > own:
                return glyphs[n - own - 1]
            return mine if n == 1 else base + n - 1 - given

        self.offsets.extend(itertools.repeat(0, own - given))
        for n, (text, data) in enumerate(objects, 1):
            if data is None:
                self.object(renumbered(where, text), where(n))
            else:
                self.stream(renumbered(where, text), data, where(n))
        return mine

    def object(self, text: bytes, number: int | None = None) -> int:
        """Write an object given as PDF text; its number."""
        number = self.reserve() if number is None else number
        self.offsets[number] = self.size
        self._out(b"%d 0 obj\n%s\nendobj\n" % (number, text))
        return number

    def stream(self, head: bytes, data: bytes, number: int | None = None) -> int:
        """Write a stream: its dictionary as PDF text (with its /Length) and its data."""
        number = self.reserve() if number is None else number
        self.offsets[number] = self.size
        self._out(b"%d 0 obj\n%s\nstream\n" % (number, head))
        self._out(data)
        self._out(b"\nendstream\nendobj\n")
        return number

    def finish(self, pages: Sequence[int], catalog: bytes, info: bytes) -> None:
        """The page tree, the catalog (``catalog``: its entries besides the page tree), the
        document information, the cross-reference table and the trailer."""
        kids = b" ".join(b"%d 0 R" % n for n in pages)
        self.object(b"<< /Count %d /Kids [ %s ] /Type /Pages >>" % (len(pages), kids), 2)
        self.object(b"<< /Pages 2 0 R %s/Type /Catalog >>" % catalog, 1)
        info_number = self.object(info)
        ident = self._digest.hexdigest()[:32].encode()
        start = self.size
        self._out(b"xref\n0 %d\n0000000000 65535 f \n" % len(self.offsets))
        self._out(b"".join(b"%010d 00000 n \n" % offset for offset in self.offsets[1:]))
        self._out(b"trailer\n<< /ID [ <%s> <%s> ] /Info %d 0 R /Root 1 0 R /Size %d >>\nstartxref\n%d\n%%%%EOF\n"
                  % (ident, ident, info_number, len(self.offsets), start))


def _strip_metadata(xobj: pikepdf.Object) -> None:
    """Drop what a face's page carried about its own file (XMP, application data, dates)."""
    for key in ("/Metadata", "/PieceInfo", "/LastModified"):
        if key in xobj:
            del xobj[key]


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


def _page_form(src: pikepdf.Pdf) -> tuple[pikepdf.Object, tuple[GlyphForm, ...]]:
    """The face's page as a Form XObject, its content compressed by :func:`deflate`, and the
    glyph forms it draws: a face drawn with marked runs of glyphs carries them
    (:func:`cardgen.glyphforms.runs_of`), and its marks are replaced here by the glyphs'
    forms, which the document adds to the form's resources (ValueError for marks that do not
    match).

    cairo writes one Flate-compressed content stream per page (see
    :func:`cardgen.draw.render_pdf`); it is decoded and compressed here, once, at this
    module's level, so a file depends only on the drawing operators (a face stored without
    compression gives the same form). (qpdf's own conversion would decode and compress it
    again at save: 80 % of imposition time, measured.) Anything else goes through qpdf's
    general conversion."""
    page = src.pages[0]
    contents = page.obj.get("/Contents")
    runs = glyphforms.carried_runs(src)
    _decode_nested_streams(src, contents)
    if (isinstance(contents, pikepdf.Stream) and contents.get("/Filter") in (None, Name.FlateDecode)
            and "/DecodeParms" not in contents and "/Resources" in page.obj and "/Rotate" not in page.obj
            and "/UserUnit" not in page.obj):
        raw = contents.read_raw_bytes()
        if contents.get("/Filter") is not None:
            raw = _flate.decompress(raw)
        glyphs: tuple[GlyphForm, ...] = ()
        if runs is not None:
            raw, glyphs = glyphforms.resolve(raw, runs)
        form = pikepdf.Stream(src, b"")
        form.write(deflate(raw), filter=Name.FlateDecode)
        form.Type, form.Subtype = Name.XObject, Name.Form
        form.BBox = Array(page.mediabox)
        form.Resources = page.obj.Resources
        if "/Group" in page.obj:
            form.Group = page.obj.Group
        return form, glyphs
    if runs is not None:
        raise ValueError("its marked glyphs are not in one content stream")
    return page.as_form_xobject(), ()


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
    return image_bounds(matrix, x0, y0, x1, y1)  # type: ignore[arg-type]


def _box_size_mm(box: tuple[float, float, float, float]) -> tuple[float, float]:
    return ((box[2] - box[0]) / K, (box[3] - box[1]) / K)
