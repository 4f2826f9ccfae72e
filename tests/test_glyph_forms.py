"""Shared glyph forms (cardgen.glyphforms): a face's PDF draws each glyph's outline once, as a
form every occurrence draws, and prints exactly what the outlines print — colour, clip and
position included; whatever cannot be shared is drawn as outlines, never left out."""

from __future__ import annotations

from pathlib import Path

import io
import json

import pikepdf
import pypdfium2
import pytest
from PIL import Image, ImageChops

import cardgen
from cardgen import draw, facepdf, glyphforms, pdfdoc
from cardgen.draw import render_pdf
from cardgen.build import BuildOptions, build

from tests.test_draw import one_card

DPI = 300


def printed(face) -> bytes:
    """The face's PDF as the print stage resolves it: its marked runs drawn as glyph forms."""
    return glyphforms.standalone(render_pdf(face))


def raster(pdf: bytes) -> Image.Image:
    return pypdfium2.PdfDocument(pdf)[0].render(scale=DPI / 72).to_pil().convert("RGB")


def outlines_only(face, monkeypatch) -> bytes:
    """The face drawn as before glyph forms: every glyph an outline in the page content
    (by cairo: cardgen.directpdf, which writes its marks as recorded, switched off)."""
    with monkeypatch.context() as m:
        m.setattr(draw, "_written", lambda *_: None)
        m.setattr(glyphforms, "marks_intact", lambda data, runs: False)
        return render_pdf(face)


def page_ops(pdf: bytes) -> list[str]:
    with pikepdf.open(io.BytesIO(pdf)) as doc:
        return [str(op) for _operands, op in pikepdf.parse_content_stream(doc.pages[0])]


def glyph_forms_of(pdf: bytes) -> dict[str, bytes]:
    with pikepdf.open(io.BytesIO(pdf)) as doc:
        xobjects = doc.pages[0].Resources.get("/XObject", {})
        return {name: x.read_bytes() for name, x in xobjects.items() if name.startswith("/cg")}


def assert_prints_like_outlines(face, monkeypatch, max_share: float = 0.0005) -> None:
    """The shared drawing rasterises like the outlines: no pixel off by more than anti-aliasing
    (outlines are rounded to whole font units, 0.005 pt at 10 pt), and there is ink."""
    shared, plain = raster(printed(face)), raster(outlines_only(face, monkeypatch))
    assert shared.size == plain.size
    diff = ImageChops.difference(shared, plain).convert("L")
    far = diff.point(lambda v: 255 if v > 64 else 0).histogram()[255]
    assert far <= max_share * shared.size[0] * shared.size[1], far
    assert ImageChops.difference(plain, Image.new("RGB", plain.size, "white")).getbbox() is not None


def test_each_glyph_is_one_form_and_each_occurrence_a_reference(tmp_path):
    face = one_card(tmp_path, '{{ text("abcabcabc abc", 2, 20, size=5) }}')
    pdf = printed(face)
    forms = glyph_forms_of(pdf)
    ops = page_ops(pdf)
    assert len(forms) == 3, "a, b and c: one form each"
    assert ops.count("Do") == 12, "one reference per glyph drawn"
    assert ops.count("c") == 0, "no outline left in the page itself"
    assert all(b" c" in content and content.rstrip().endswith(b" f") for content in forms.values())


def test_shared_text_prints_like_its_outlines(tmp_path, monkeypatch):
    face = one_card(tmp_path, '<rect width="50" height="70" fill="#fe8"/>'
                              '{{ text("Quark Gluon Photon", 2, 20, size=7, fill="#c03") }}'
                              '{{ text(card.title, 3, 40, size=11) }}'
                              '<g transform="rotate(30 25 50)">{{ text("turned 123", 5, 50, size=6, fill="#06c") }}</g>')
    assert_prints_like_outlines(face, monkeypatch)


def test_text_over_and_under_other_artwork_keeps_its_painting_order(tmp_path, monkeypatch):
    face = one_card(tmp_path, '{{ text("Under", 2, 20, size=9, fill="#0a0") }}'
                              '<rect x="10" y="10" width="20" height="20" fill="#00f"/>'
                              '{{ text("Over", 12, 22, size=9, fill="#f00") }}')
    assert_prints_like_outlines(face, monkeypatch)
    plain = raster(outlines_only(face, monkeypatch))
    shared = raster(printed(face))
    middle = (round(20 / 25.4 * DPI), round(20 / 25.4 * DPI))   # inside the square: blue, not text green
    assert shared.getpixel(middle) == plain.getpixel(middle)


@pytest.mark.parametrize("body", [
    # a clip that cuts the run: its glyphs must be clipped as the outlines are
    '<defs><clipPath id="half"><rect x="0" y="0" width="20" height="70"/></clipPath></defs>'
    '<g clip-path="url(#half)">{{ text("Clipped half way", 2, 20, size=8) }}</g>',
    # a round clip (a path, not a rectangle)
    '<defs><clipPath id="round"><circle cx="15" cy="20" r="9"/></clipPath></defs>'
    '<g clip-path="url(#round)">{{ text("Round clipping", 2, 20, size=8) }}</g>',
    # a clipped shape first, then text outside that clip: the old clip must not cut the text
    '<defs><clipPath id="corner"><rect x="0" y="0" width="8" height="8"/></clipPath></defs>'
    '<circle cx="5" cy="5" r="6" fill="#555" clip-path="url(#corner)"/>'
    '{{ text("Free text after a clip", 2, 6, size=6) }}',
    # text drawn again through <use>, and filled even-odd
    '<defs><g id="t">{{ text("Used twice", 2, 20, size=7) }}</g></defs><use href="#t"/><use href="#t" y="20"/>',
    '<g fill-rule="evenodd">{{ text("Even odd 8080", 2, 20, size=9, fill="#063") }}</g>',
    # text wholly clipped away draws nothing
    '<defs><clipPath id="none"><rect x="40" y="60" width="2" height="2"/></clipPath></defs>'
    '<rect width="50" height="70" fill="#eee"/><g clip-path="url(#none)">{{ text("Hidden", 2, 20, size=8) }}</g>',
])
def test_clips_apply_to_shared_glyphs_as_to_outlines(tmp_path, monkeypatch, body):
    assert_prints_like_outlines(one_card(tmp_path, body), monkeypatch)


@pytest.mark.parametrize("body", [
    '<g opacity="0.5">{{ text(card.title, 2, 20, size=6, fill="#c00") }}</g>',                  # in a group
    '<g fill-opacity="0.4">{{ text(card.title, 2, 20, size=6, fill="#c00") }}</g>',              # translucent
    '<defs><linearGradient id="g" gradientUnits="userSpaceOnUse" x1="0" y1="0" x2="50" y2="0">'
    '<stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f"/></linearGradient></defs>'
    '{{ text(card.title, 2, 20, size=9, fill="url(#g)") }}',                                    # a gradient
])
def test_what_forms_cannot_reproduce_stays_outlines(tmp_path, monkeypatch, body):
    face = one_card(tmp_path, body)
    pdf = printed(face)
    assert not glyph_forms_of(pdf)
    assert_prints_like_outlines(face, monkeypatch)


def test_marks_that_do_not_come_back_leave_the_face_as_outlines(tmp_path, monkeypatch):
    """cairo's marks are checked (cardgen.directpdf's are written as recorded: it is off here)."""
    monkeypatch.setattr(draw, "_written", lambda *_: None)
    face = one_card(tmp_path, '{{ text(card.title, 2, 20, size=6) }}')
    real = glyphforms.marks_intact
    calls = []

    def one_run_short(data, runs):
        calls.append(len(runs))
        return real(data, runs[:-1])   # a run recorded whose mark is not matched

    monkeypatch.setattr(glyphforms, "marks_intact", one_run_short)
    pdf = printed(face)
    assert calls and not glyph_forms_of(pdf)
    assert page_ops(pdf).count("c") > 20, "drawn again with outlines"


def test_a_face_with_shared_glyphs_is_the_same_bytes_each_time(tmp_path):
    face = one_card(tmp_path, '{{ text(card.title, 2, 20, size=6) }}')
    assert render_pdf(face) == render_pdf(face)


def test_the_moves_between_glyphs_add_up_to_each_glyphs_place():
    """run_operators chains whole-font-unit moves; each glyph lands within one unit of its
    matrix, and the error does not grow along the run."""
    class Face:
        glyph_set = None
        upem = 1000
        path = Path("no such font file.ttf")   # outlines of no file: worked out each time

        def draw_glyph(self, gid, pen):
            pen.moveTo((0, 0)); pen.lineTo((500, 0)); pen.lineTo((500, 700)); pen.closePath()

    face = Face()
    s = 0.0123456
    matrices = [(s, 0.0, 0.0, -s, 10 + i * 6.1234567, 50.0) for i in range(200)]
    ops = glyphforms.run_operators(glyphforms.Run(tuple((face, 7, m) for m in matrices), False), {}).decode()
    ctm = None
    placed = []
    tokens = ops.split()
    for i, tok in enumerate(tokens):
        if tok == "cm":
            a, b, c, d, e, f = (float(v) for v in tokens[i - 6:i])
            if ctm is None:
                ctm = (a, b, c, d, e, f)
            else:   # [a b c d e f] × ctm, a translation here
                A, B, C, D, E, F = ctm
                ctm = (A, B, C, D, e * A + f * C + E, e * B + f * D + F)
        elif tok == "Do":
            placed.append(ctm)
    assert len(placed) == len(matrices)
    for got, want in zip(placed, matrices):
        assert got[:4] == pytest.approx(want[:4], rel=1e-6)
        assert abs(got[4] - want[4]) <= s and abs(got[5] - want[5]) <= s   # within one font unit


@pytest.mark.parametrize("in_memory", [1000, 2], ids=["made in memory", "written as it goes"])
def test_a_glyph_shown_by_several_faces_is_stored_once_per_document(tmp_path, monkeypatch, in_memory):
    """In a built deck — a document made in memory, or one of more faces written to its file
    as it goes — and in a built rule sheet, faces (or pages) drawing the same glyph point at
    one form object."""
    monkeypatch.setattr(pdfdoc, "IN_MEMORY_FACES", in_memory)
    build([cardgen.load_game("qcd")], BuildOptions(out=tmp_path), jobs=1)
    with pikepdf.open(tmp_path / "qcd/en/cards.pdf") as doc:
        users: dict[str, set] = {}
        objects: dict[str, set] = {}
        for page in doc.pages:
            for face_name, face in page.Resources.XObject.items():
                for name, x in face.get("/Resources", {}).get("/XObject", {}).items():
                    if name.startswith("/cg"):
                        users.setdefault(name, set()).add(face.objgen)
                        objects.setdefault(name, set()).add(x.objgen)
        assert max(len(u) for u in users.values()) > 5, "a glyph many faces show"
        assert all(len(o) == 1 for o in objects.values()), "stored once"
    with pikepdf.open(tmp_path / "qcd/en/rules.pdf") as doc:
        names = [name for page in doc.pages for name in page.Resources.get("/XObject", {}).keys()]
        assert any(name.startswith("/cg") for name in names)


def test_a_glyph_form_leaves_a_margin_about_its_glyph(tmp_path):
    """A viewer clips a form to its /BBox, and poppler snaps that clip to whole pixels: a box
    tight on a stem thinner than a pixel (an "l" of a rule sheet seen whole, at 50 dpi) lost
    the stem. Every form's box leaves a tenth of an em about its outline."""
    face = one_card(tmp_path, '{{ text("lIi1|", 2, 20, size=3) }}')
    forms = 0
    with pikepdf.open(io.BytesIO(printed(face))) as doc:
        for name, form in doc.pages[0].Resources.XObject.items():
            if not name.startswith("/cg"):
                continue
            forms += 1
            numbers = [float(operand) for operands, _op in pikepdf.parse_content_stream(form)
                       for operand in operands if isinstance(operand, (int, float, pikepdf.objects.Object))
                       and not isinstance(operand, pikepdf.Name)]
            xs, ys = numbers[0::2], numbers[1::2]
            x0, y0, x1, y1 = (float(v) for v in form.BBox)
            margin = 0.1 * 1000   # the bundled fonts: 1000 units to the em
            assert x0 <= min(xs) - margin and y0 <= min(ys) - margin
            assert x1 >= max(xs) + margin and y1 >= max(ys) + margin
    assert forms == 5


@pytest.mark.parametrize("tamper", ["one run fewer", "not json", "another version", "not text", "font gone"])
def test_the_print_stage_refuses_a_face_whose_runs_do_not_match_its_marks(tmp_path, tamper):
    """A face whose carried runs and marks disagree (damaged, written by other code, or by
    another version of cardgen, which carried its runs another way) is refused with the face
    named, never printed with glyphs missing."""
    face = one_card(tmp_path, '{{ text(card.title, 2, 20, size=6) }} {{ text("second run", 2, 30, size=6) }}')
    with pikepdf.open(io.BytesIO(render_pdf(face))) as pdf:
        keywords = str(pdf.docinfo.Keywords)
        fonts, runs = json.loads(keywords[len(glyphforms.PAYLOAD):])
        assert len(runs) == 2 and all(op.startswith("q ") and op.endswith(" Q") for _eo, op, _glyphs in runs)
        pdf.docinfo.Keywords = {
            "one run fewer": glyphforms.PAYLOAD + json.dumps([fonts, runs[:-1]]),
            "not json": glyphforms.PAYLOAD + "{not json",
            "another version": keywords.replace(glyphforms.PAYLOAD, "cardgen-glyph-runs/1 "),
            "not text": glyphforms.PAYLOAD + json.dumps([fonts, [[eo, 7, glyphs] for eo, _op, glyphs in runs]]),
            "font gone": glyphforms.PAYLOAD + json.dumps([[str(tmp_path / "gone.ttf") for _ in fonts], runs]),
        }[tamper]
        out = io.BytesIO()
        pdf.save(out)
    with pdfdoc.Doc("t", None) as doc, pytest.raises(pdfdoc.PdfWriteError, match="face 'f' cannot be printed"):
        doc.prepare([("f", 54.0, 74.0)], {"f": out.getvalue()})
    assert facepdf.relocatable(out.getvalue(), pdfdoc.deflate) is None   # left to pikepdf, which refuses it
