"""Drawing faces: text drawn straight from font outlines must look exactly like the face's
own SVG document drawn by cairosvg, in PDF and PNG, including the awkward cases (text used
as a clip path, under opacity, in a mask or pattern, inheriting a stroke)."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import cairosvg
import pikepdf
import pypdfium2
import pytest
from PIL import Image, ImageChops

import cardgen
from cardgen import draw
from cardgen.build import BuildOptions, build, card_keys
from cardgen.cache import FaceCache
from cardgen.draw import render_pdf, render_png
from cardgen.glyphforms import standalone
from cardgen.render import Renderer
from cardgen.text.svg import PLACEHOLDER_NS

from tests.test_render import face_of, make_game

DPI = 200


def pixels(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGBA")


def differing(a: Image.Image, b: Image.Image, tolerance: int = 40) -> int:
    """Pixels whose channels differ by more than ``tolerance`` (anti-aliasing noise aside)."""
    assert a.size == b.size
    diff = ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v > tolerance else 0)
    return diff.histogram()[255]


def assert_same_as_svg(face, max_pixels: int = 12) -> None:
    """The fast drawing equals cairosvg on the complete SVG, at 200 dpi."""
    expected = pixels(cairosvg.svg2png(bytestring=face.svg.encode(), dpi=DPI))
    got = pixels(render_png(face, DPI))
    assert differing(expected, got) <= max_pixels
    ink = ImageChops.difference(expected, Image.new("RGBA", expected.size)).getbbox()
    assert ink is not None, "the comparison must be about something drawn"


def one_card(tmp_path, body: str):
    template = '{% extends "base.svg.j2" %}\n{% block artwork %}\n' + body + "\n{% endblock %}\n"
    return face_of(make_game(tmp_path, template, "  - {id: one, title: Quark Gluon}"))[0]


@pytest.mark.parametrize("game_id", ["particle-builder", "tutti-quantum", "qcd", "particles-in-circle"])
def test_every_shipped_component_draws_like_its_svg(game_id):
    game = cardgen.load_game(game_id)
    r = Renderer(game)
    for comp in game.components.values():
        card = comp.cards[0]
        for side in ("front", "back") if comp.back else ("front",):
            face = r.face(comp, card, side).face
            assert face.texts, "these faces all carry text"
            assert_same_as_svg(face, max_pixels=40 if comp.width > 200 else 12)


def test_the_svg_document_has_outlines_and_no_placeholders(tmp_path):
    face = one_card(tmp_path, '{{ text(card.title, 2, 20, size=5, width=46, field="title") }}')
    assert PLACEHOLDER_NS in face.body and PLACEHOLDER_NS not in face.svg
    assert len(re.findall(r'<path d="[^"]+" transform="translate', face.svg)) == sum(len(t.glyphs) for t in face.texts) == len("QuarkGluon")


def test_key_follows_what_is_drawn(tmp_path):
    a = one_card(tmp_path / "a", '{{ text(card.title, 2, 20, size=5) }}')
    b = one_card(tmp_path / "b", '{{ text(card.title, 2, 20, size=5) }}')
    moved = one_card(tmp_path / "c", '{{ text(card.title, 2, 20.01, size=5) }}')
    recoloured = one_card(tmp_path / "d", '{{ text(card.title, 2, 20, size=5, fill="#f00") }}')
    assert a.key == b.key
    assert len({a.key, moved.key, recoloured.key}) == 3


def test_text_under_opacity_and_transform(tmp_path):
    face = one_card(tmp_path, '<g opacity="0.5" transform="rotate(20 25 35)">'
                              '{{ text(card.title, 2, 20, size=6, fill="#c00") }}</g>')
    assert_same_as_svg(face)


def test_text_as_a_clip_path(tmp_path):
    face = one_card(tmp_path, '<defs><clipPath id="words">{{ text(card.title, 2, 20, size=9) }}</clipPath></defs>'
                              '<rect x="0" y="0" width="50" height="70" fill="#06c" clip-path="url(#words)"/>')
    assert_same_as_svg(face)


def test_text_reused_with_use(tmp_path):
    face = one_card(tmp_path, '<defs><g id="t">{{ text(card.title, 2, 20, size=5) }}</g></defs>'
                              '<use href="#t"/><use href="#t" y="20"/>')
    assert_same_as_svg(face)


@pytest.mark.parametrize("body", [
    '<g stroke="#0a0" stroke-width="200">{{ text(card.title, 2, 20, size=8) }}</g>',
    '<defs><mask id="m">{{ text(card.title, 2, 20, size=9, fill="#fff") }}</mask></defs>'
    '<rect width="50" height="70" fill="#06c" mask="url(#m)"/>',
    '<defs><pattern id="p" width="50" height="70" patternUnits="userSpaceOnUse">'
    '{{ text(card.title, 2, 20, size=9) }}</pattern></defs><rect width="50" height="70" fill="url(#p)"/>',
])
def test_cases_drawn_from_the_full_svg(tmp_path, body):
    assert_same_as_svg(one_card(tmp_path, body))


def test_a_copied_placeholder_draws_nothing(tmp_path):
    plain = one_card(tmp_path / "a", '{{ text(card.title, 2, 20, size=5) }}')
    copied = one_card(tmp_path / "b", '{{ text(card.title, 2, 20, size=5) }}'
                                      f'<cg:glyphs xmlns:cg="{PLACEHOLDER_NS}" n="7"/>')
    assert pixels(render_png(plain, DPI)) == pixels(render_png(copied, DPI))


def test_pdf_is_vector_and_has_the_bleed_box_size(tmp_path):
    face = one_card(tmp_path, '{{ text(card.title, 2, 20, size=5) }}')
    with pikepdf.open(io.BytesIO(standalone(render_pdf(face)))) as pdf:   # as the print stage draws it
        page = pdf.pages[0]
        w, h = (float(v) for v in page.mediabox[2:])
        assert (w * 25.4 / 72, h * 25.4 / 72) == (pytest.approx(54, abs=0.05), pytest.approx(74, abs=0.05))
        assert not page.get_images(), "text is vector outlines, not an image"
        page.contents_coalesce()
        ops = [op for _operands, op in pikepdf.parse_content_stream(page)]
        glyphs = [x for name, x in page.obj.Resources.XObject.items() if name.startswith("/cg")]
        assert ops.count(pikepdf.Operator("Do")) == len("QuarkGluon") > len(glyphs) > 0, "each glyph drawn by its form"
        curves = sum(op == pikepdf.Operator("c") for x in glyphs for _operands, op in pikepdf.parse_content_stream(x))
        assert curves > 50, "the glyphs are vector outlines (one form each), not images"


def test_pdf_rasterises_like_the_svg(tmp_path):
    """The PDF itself (not only the PNG path) draws the glyphs where the SVG does."""
    face = one_card(tmp_path, '{{ text(card.title, 2, 20, size=7, fill="#000") }}')
    page = pypdfium2.PdfDocument(standalone(render_pdf(face)))[0]   # as the print stage resolves it
    got = page.render(scale=DPI / 72).to_pil().convert("L")
    expected = Image.open(io.BytesIO(cairosvg.svg2png(bytestring=face.svg.encode(), dpi=DPI,
                                                       background_color="white"))).convert("L")
    assert abs(got.size[0] - expected.size[0]) <= 1 and abs(got.size[1] - expected.size[1]) <= 1
    size = (min(got.size[0], expected.size[0]), min(got.size[1], expected.size[1]))
    got, expected = got.crop((0, 0, *size)), expected.crop((0, 0, *size))
    ink = lambda im: im.point(lambda v: 255 if v < 128 else 0)  # noqa: E731
    assert ImageChops.difference(ink(got), ink(expected)).histogram()[255] <= 0.01 * got.size[0] * got.size[1]
    assert ink(got).getbbox() is not None


def test_pdf_is_written_whole_to_a_stream_with_a_fixed_date(tmp_path, monkeypatch):
    """cairo writes a face to an in-memory stream, compressed as cairo always does, dated
    with the fixed epoch, carrying its marked runs of glyphs for the print stage
    (cardgen.glyphforms): the same face drawn twice is the same bytes. (The face here is
    left to cairo: cardgen.directpdf would write it, see the next test.)"""
    monkeypatch.setattr(draw, "_written", lambda *_: None)
    face = one_card(tmp_path, '{{ text(card.title, 2, 20, size=5) }}')
    first, second = render_pdf(face), render_pdf(face)
    assert first == second
    assert first.startswith(b"%PDF-") and first.rstrip().endswith(b"%%EOF")
    with pikepdf.open(io.BytesIO(first)) as pdf:
        assert pdf.pages[0].Contents.Filter == pikepdf.Name.FlateDecode
        assert str(pdf.docinfo.CreationDate).startswith("19700101")
        assert str(pdf.docinfo.Keywords).startswith("cardgen-glyph-runs/")


def test_pdf_written_without_cairo_is_whole_undated_and_carries_its_runs(tmp_path):
    """The same face as written by cardgen.directpdf: one whole file, no date at all (so the
    same bytes every time), its drawing in one content stream left for the print stage to
    compress, its marked runs of glyphs carried as cairo's are."""
    face = one_card(tmp_path, '{{ text(card.title, 2, 20, size=5) }}')
    first, second = render_pdf(face), render_pdf(face)
    assert first == second
    assert first.startswith(b"%PDF-") and first.rstrip().endswith(b"%%EOF")
    with pikepdf.open(io.BytesIO(first)) as pdf:
        assert "/Filter" not in pdf.pages[0].Contents and b"BDC" in pdf.pages[0].Contents.read_bytes()
        assert "/CreationDate" not in pdf.docinfo and str(pdf.docinfo.Producer) == "cardgen"
        assert str(pdf.docinfo.Keywords).startswith("cardgen-glyph-runs/")


def test_build_workers_draw_faces_as_the_callers_process_does(tmp_path):
    """No setting travels to the workers through the environment: a face a worker drew and
    cached is the bytes the calling process draws for it, and two workers or none write
    the same file."""
    build([cardgen.load_game("qcd")], BuildOptions(out=tmp_path / "two"), jobs=2)
    build([cardgen.load_game("qcd")], BuildOptions(out=tmp_path / "one"), jobs=1)
    assert "CAIRO_DEBUG_PDF" not in os.environ
    game = cardgen.load_game("qcd")
    keys = [k for _card, _count, front, back in card_keys(game, game.components["cards"], "en") for k in (front, back) if k]
    for key in keys[:6]:
        in_worker, in_caller = (FaceCache(tmp_path / run / ".cache").get(key) for run in ("two", "one"))
        assert in_worker is not None and in_caller is not None
        assert in_worker.pdf == in_caller.pdf
        with pikepdf.open(io.BytesIO(in_worker.pdf)) as pdf:   # written by cardgen.directpdf, not cairo
            assert "/Filter" not in pdf.pages[0].Contents and str(pdf.docinfo.Producer) == "cardgen"
    assert (tmp_path / "one/qcd/en/cards.pdf").read_bytes() == (tmp_path / "two/qcd/en/cards.pdf").read_bytes()


def node_shape(node) -> tuple:
    """Everything cairosvg draws from: tag, properties, text, and the same of every child."""
    return (node.tag, dict(node), node.text, node.url, [node_shape(child) for child in node.children])


@pytest.mark.parametrize("game_id", ["particle-builder", "tutti-quantum", "qcd", "particles-in-circle"])
def test_faces_parse_to_the_tree_cairosvg_builds(game_id):
    """Faces skip cairosvg's CSS matching (they have no style sheet); every shipped face
    still parses to exactly cairosvg's own tree."""
    from cairosvg.parser import Tree

    from cardgen.svgtree import parse

    game = cardgen.load_game(game_id)
    r = Renderer(game)
    for comp in game.components.values():
        for face in (rendered.face for rendered in r.faces(comp)):
            body = face.body.encode()
            assert b"<style" not in body
            assert node_shape(parse(body)) == node_shape(Tree(bytestring=body))


def test_a_face_with_a_style_sheet_is_styled(tmp_path):
    """A template that does use CSS is parsed by cairosvg itself, rules applied."""
    face = one_card(tmp_path, '<style>.ink { fill: #0000ff }</style><rect class="ink" x="5" y="5" width="20" height="20"/>')
    image = pixels(render_png(face, 96))
    assert image.getpixel((int(15 / 25.4 * 96) + 1, int(15 / 25.4 * 96) + 1))[:3] == (0, 0, 255)


def test_pillow_is_loaded_only_when_a_face_has_a_raster_image(tmp_path):
    """cairosvg's raster-image module (and Pillow, 45 ms to import) load on first use: a
    process that draws no PNG or JPEG never imports them, one that does draws it right."""
    from tests.test_hardening import art_game

    path = art_game(tmp_path, "art/red.png")
    (path / "art").mkdir()
    Image.new("RGB", (100, 140), (200, 10, 10)).save(path / "art/red.png")
    code = f"""
import io, sys
import cardgen
import cardgen.draw
from cardgen.render import Renderer
print("PIL.Image" in sys.modules)
qcd = cardgen.load_game("qcd")
cardgen.draw.render_pdf(Renderer(qcd).face(qcd.components["cards"], qcd.components["cards"].cards[0]).face)
print("PIL.Image" in sys.modules)
game = cardgen.load_game({str(path)!r})
png = cardgen.draw.render_png(Renderer(game).face(game.components["cards"], game.components["cards"].card("one")).face, 72)
from PIL import Image
im = Image.open(io.BytesIO(png)).convert("RGB")
print(im.getpixel((im.width // 2, im.height // 2)) == (200, 10, 10), type(sys.modules["cairosvg.image"].Image).__name__)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parent.parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False", "True", "module"]
