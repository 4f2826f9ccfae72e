"""Reading a face's PDF without qpdf (cardgen/facepdf.py) must give the very objects the
pikepdf route gives (cardgen.pdfdoc.relocatable_via_qpdf), byte for byte: on every shipped
face, on every piece of SVG the direct drawer knows, on faces cairosvg draws (gradients,
masks, images), and on damaged PDFs, where it either agrees or steps aside."""

from __future__ import annotations

import base64
import io
import random

import pytest
from PIL import Image

from cardgen import draw, facepdf, pdfdoc
from cardgen.relocatable import Relocatable
from tests.test_directdraw import GAMES, REFUSED, SUBSET, face, shipped_faces


def both(pdf: bytes) -> tuple[Relocatable | None, Relocatable | None]:
    """(this module's reading, pikepdf's) of a face's PDF; None where it is not read."""
    try:
        slow = pdfdoc.relocatable_via_qpdf("face", pdf)
    except Exception:  # noqa: BLE001 — a damaged face: any refusal counts as one
        slow = None
    return facepdf.relocatable(pdf, pdfdoc.deflate), slow


@pytest.mark.parametrize("game_id", GAMES)
def test_every_shipped_face_is_read_here_to_the_objects_qpdf_gives(game_id):
    faces = shipped_faces(game_id)
    for f in faces:
        fast, slow = both(draw.render_pdf(f))
        assert fast is not None, f"{f.component}/{f.card} {f.side}: the face went to pikepdf"
        assert fast == slow, f"{f.component}/{f.card} {f.side}"
        assert fast.to_bytes() == slow.to_bytes()
    assert any(r.glyphs for r in (both(draw.render_pdf(f))[0] for f in faces[:5]))


def _png() -> str:
    out = io.BytesIO()
    Image.new("RGBA", (4, 3), (200, 40, 40, 128)).save(out, format="PNG")
    return base64.b64encode(out.getvalue()).decode()


#: Drawn by cairosvg: what cairo writes for them (shadings, soft masks, images) is read here
#: too, or left to pikepdf, never read differently.
CAIROSVG = {
    **{name: REFUSED[name] for name in ("a gradient", "a mask", "use", "a pattern in object units")},
    "a radial gradient with opacity": '<defs><radialGradient id="g"><stop offset="0" stop-color="#fc0"/>'
                                      '<stop offset="1" stop-color="#06c" stop-opacity="0.3"/></radialGradient></defs>'
                                      '<circle cx="20" cy="20" r="15" fill="url(#g)"/>',
    "an image": f'<image href="data:image/png;base64,{_png()}" x="2" y="2" width="20" height="15"/>',
}


@pytest.mark.parametrize("name", [*SUBSET, *CAIROSVG])
def test_what_the_drawers_write_is_read_here_as_qpdf_reads_it(name):
    fast, slow = both(draw.render_pdf(face({**SUBSET, **CAIROSVG}[name])))
    assert slow is not None
    if name in SUBSET:
        assert fast is not None, "the direct drawer's output is read here"
    assert fast is None or fast.to_bytes() == slow.to_bytes()


def test_a_stroked_text_drawn_whole_by_cairosvg_is_read_here():
    """A face whose text cannot be shared is drawn with outlines and carries no runs."""
    f = face('<rect width="50" height="70" fill="#eee"/>')
    fast, slow = both(draw.render_pdf(f))
    assert fast is not None and fast == slow and fast.glyphs == ()


def test_damaged_faces_are_read_as_qpdf_reads_them_or_left_to_it():
    """Bytes changed, dropped or cut anywhere in a face's PDF: where this module reads the
    result at all, it reads what pikepdf reads."""
    rng = random.Random(18)
    pdfs = [draw.render_pdf(f) for f in shipped_faces("qcd")[:3]] + [draw.render_pdf(face(SUBSET["patterns"]))]
    read = 0
    for pdf in pdfs:
        for _ in range(150):
            at = rng.randrange(len(pdf))
            how = rng.choice(["byte", "digit", "drop", "cut"])
            if how == "byte":
                bad = pdf[:at] + bytes([rng.randrange(256)]) + pdf[at + 1:]
            elif how == "digit":
                digits = [i for i in range(len(pdf)) if 48 <= pdf[i] <= 57]
                at = rng.choice(digits)
                bad = pdf[:at] + str(rng.randrange(10)).encode() + pdf[at + 1:]
            elif how == "drop":
                bad = pdf[:at] + pdf[at + rng.randrange(1, 8):]
            else:
                bad = pdf[:at]
            fast, slow = both(bad)
            if fast is not None:
                read += 1
                assert slow is not None and fast.to_bytes() == slow.to_bytes(), (how, at)
    assert read > 50   # the damage left many faces readable: the agreement was tested


def pdf_of(objects: list[bytes], trailer: bytes = b"") -> bytes:
    """A PDF of ``objects`` (numbered from 1; 1 the catalog), with its cross-reference table
    (``trailer``: more of the trailer's entries)."""
    out, offsets = b"%PDF-1.5\n", []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (n, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % at for at in offsets)
    return out + b"trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, trailer, xref)


def page_with(resources: bytes, *more: bytes, trailer: bytes = b"") -> bytes:
    return pdf_of([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>",
                   b"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 100 50.5 ] /Contents 4 0 R /Resources "
                   + resources + b" >>", b"<< /Length 8 >>\nstream\n0 0 m f\n\nendstream", *more], trailer)


def test_a_page_made_by_hand_is_read_as_qpdf_reads_it_and_deep_nesting_is_left_to_it():
    fast, slow = both(page_with(b"<< /Properties << /A [ [ 1 2.5 -3 ] << /B true /C null >> ] >> >>"))
    assert fast is not None and fast.to_bytes() == slow.to_bytes()
    assert fast.box == (0.0, 0.0, 100.0, 50.5)
    deep = page_with(b"<< /Properties " + b"[ " * (facepdf.MAX_DEPTH + 1) + b"]" * (facepdf.MAX_DEPTH + 1) + b" >>")
    assert facepdf.relocatable(deep, pdfdoc.deflate) is None
    assert both(deep)[1] is not None   # pikepdf reads it: the face is still printed


def test_a_page_tree_of_the_wrong_shapes_is_left_to_pikepdf():
    catalog, pages = b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>"
    for page in (b"[ 1 2 3 ]", b"42", b"<< /Type /Page /Contents 4 0 R /Resources << >> /MediaBox [ 0 0 1 ] >>"):
        pdf = pdf_of([catalog, pages, page, b"<< /Length 0 >>\nstream\n\nendstream"])
        assert facepdf.relocatable(pdf, pdfdoc.deflate) is None
    assert facepdf.relocatable(pdf_of([b"[ ]"]), pdfdoc.deflate) is None   # a catalog that is no dictionary


@pytest.mark.parametrize("resources", [b"<< /Font << /F1 << /BaseFont (Helvetica) >> >> >>",   # a string
                                       b"<< /X#20Y 1 >>",                                      # an escaped name
                                       b"<< /A 1 /A 2 >>"])                                     # a key twice
def test_what_this_reader_does_not_read_goes_to_pikepdf(resources):
    assert facepdf.relocatable(page_with(resources), pdfdoc.deflate) is None


def test_the_document_information_and_identifier_are_read_with_their_strings():
    info = rb"<< /Producer (cairo (nested (twice)) \(escaped\) \\ and \n) /Title <FEFF0041> >>"
    pdf = page_with(b"<< >>", info, trailer=b"/Info 5 0 R /ID [ <0a1B> <0A1B> ]")
    fast, slow = both(pdf)
    assert fast is not None and fast.to_bytes() == slow.to_bytes()
    reader = facepdf._File(pdf)
    assert reader.trailer["/ID"] == [b"\x0a\x1b", b"\x0a\x1b"]
    assert reader.get(reader.trailer["/Info"], strings=True) == {
        "/Producer": b"cairo (nested (twice)) (escaped) \\ and \n", "/Title": b"\xfe\xff\x00A"}
