"""A face's PDF written without cairo (cardgen/directpdf.py) must print what cairo prints.

Every shipped face is written both ways — by cardgen/directpdf.py and by cairo, from the same
reading of its SVG — made a file of its own as the print stage resolves its glyphs,
rasterised by pdfium and compared pixel by pixel; each must actually be written directly
(what the module leaves to cairo is refused whole, and cairo then writes the face). Each piece of the SVG
subset is compared on its own, what is left to cairo is refused before anything is written,
and the page is read by the print stage's fast reader exactly as through qpdf.
"""

from __future__ import annotations

import io

import pikepdf
import pypdfium2
import pytest
from PIL import Image, ImageChops

from cardgen import directdraw, directpdf, draw, facepdf, pdfdoc
from cardgen.glyphforms import runs_of, standalone
from cardgen.render import Face

from tests.golden import difference
from tests.test_directdraw import GAMES, SUBSET, face, shipped_faces
from tests.test_render import face_of, make_game

DPI = 100


def both_ways(f: Face, monkeypatch: pytest.MonkeyPatch) -> tuple[bytes, bytes]:
    """The face's PDF as :func:`cardgen.draw.render_pdf` makes it, and as cairo writes it
    (cardgen.directpdf switched off)."""
    direct = draw.render_pdf(f)
    with monkeypatch.context() as m:
        m.setattr(draw, "_written", lambda *_: None)
        via_cairo = draw.render_pdf(f)
    return direct, via_cairo


def written_directly(pdf: bytes) -> bool:
    return b"/Producer (cardgen)" in pdf and b"/Producer (cairo" not in pdf


def printed(pdf: bytes, dpi: float = DPI) -> Image.Image:
    """The face as the print stage prints it (its glyphs resolved), rasterised by pdfium."""
    return pypdfium2.PdfDocument(standalone(pdf))[0].render(scale=dpi / 72).to_pil().convert("RGBA")


def assert_prints_alike(got: bytes, want: bytes, what: str, dpi: float = DPI) -> None:
    """No pixel off by more than 40 in any channel, a worst-channel mean difference under
    0.1 of 255 (tests/golden.py allows 2.0 and 1 %)."""
    a, b = printed(got, dpi), printed(want, dpi)
    assert a.size == b.size, what
    mean, far = difference(a, b)
    assert mean < 0.1 and far == 0, f"{what}: mean diff {mean:.3f}, {far:.4%} pixels off by > 40"


def why_not_written(f: Face) -> str | None:
    """None when cardgen.directpdf writes the face, else what it leaves to cairo."""
    drawing = draw.direct_drawing(f)
    assert drawing is not None, "every face tested here is read by the direct drawer"
    try:
        directpdf.write(drawing, draw._page(drawing.root), f.texts)
    except directpdf.Unwritable as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("game_id", GAMES)
def test_every_shipped_face_is_written_directly_and_prints_as_cairo_writes_it(game_id, monkeypatch):
    faces = shipped_faces(game_id)
    assert len(faces) > 20
    for f in faces:
        what = f"{game_id} {f.component}/{f.card} {f.side} {f.lang}"
        reason = why_not_written(f)
        assert reason is None, f"{what} is left to cairo: {reason}"
        direct, via_cairo = both_ways(f, monkeypatch)
        assert written_directly(direct) and not written_directly(via_cairo), what
        assert_prints_alike(direct, via_cairo, what)


@pytest.mark.parametrize("name", [n for n in SUBSET if n not in ("patterns", "opacity and inheritance")])
def test_subset_prints_as_cairo_writes_it(name, monkeypatch):
    f = face(SUBSET[name])   # no text: the writer writes faces without text too
    assert why_not_written(f) is None
    direct, via_cairo = both_ways(f, monkeypatch)
    assert written_directly(direct) and not written_directly(via_cairo)
    ink = ImageChops.difference(printed(direct, 200), Image.new("RGBA", printed(direct, 200).size)).getbbox()
    assert ink is not None, "the comparison must be about something drawn"
    assert_prints_alike(direct, via_cairo, name, dpi=200)


MORE = {
    "a rectangle turned off the axes": '<rect x="5" y="5" width="20" height="10" fill="#c00" '
                                       'transform="rotate(17 15 10)"/><rect x="5" y="30" width="30" height="0.4" '
                                       'fill="#000"/>',
    "fills with no area": '<line x1="2" y1="20" x2="40" y2="20" stroke="#000" stroke-width="0.3" '
                          'stroke-dasharray="1.2 0.8"/><polyline points="2,30 20,30 40,30" fill="#c00" stroke="#00c"/>'
                          '<path d="M2 40L30 50" fill="none" stroke="#0a0" stroke-width="0.5"/><line x1="2" y1="55" x2="40" '
                          'y2="55" stroke="#a0a" stroke-width="2" stroke-linecap="round"/>',
    "strokes under stretched and mirrored matrices": '<g transform="scale(1 3)"><circle cx="25" cy="5" r="4" '
                                                     'fill="none" stroke="#000" stroke-width="0.6" '
                                                     'stroke-dasharray="2 1"/></g><g transform="scale(-1 1) '
                                                     'translate(-50 0)"><polyline points="5,40 15,50 25,40" '
                                                     'fill="none" stroke="#a0a" stroke-width="2" '
                                                     'stroke-linejoin="miter" stroke-miterlimit="8"/></g>',
    "arcs of every size": '<circle cx="10" cy="10" r="0.2" fill="#000"/><circle cx="25" cy="30" r="40" fill="none" '
                          'stroke="#06c" stroke-width="0.5"/><path d="M5 60A30 30 0 0 1 45 60" fill="none" '
                          'stroke="#c60" stroke-width="1"/><ellipse cx="30" cy="15" rx="12" ry="0.5" fill="#393"/>',
    "patterns, turned, stroked, used twice": '<defs><pattern id="p" patternUnits="userSpaceOnUse" width="4" '
                                              'height="4" patternTransform="rotate(45)"><rect x="0" y="0" '
                                              'width="1.1" height="4" fill="#ffffff" fill-opacity="0.5"/></pattern>'
                                              '<pattern id="q" patternUnits="userSpaceOnUse" x="1" y="1" width="5" '
                                              'height="3"><circle cx="2" cy="1.5" r="1" fill="#000"/><path '
                                              'd="M0 2Q1 0.6 2 2T4 2" fill="none" stroke="#06c" stroke-opacity="0.4" '
                                              'stroke-width="0.5"/></pattern></defs><rect x="-2" y="-2" width="54" '
                                              'height="74" fill="#d50"/><rect x="-2" y="-2" width="54" height="40" '
                                              'fill="url(#p)"/><g transform="rotate(10 25 50)"><circle cx="25" '
                                              'cy="55" r="10" fill="url(#q)" stroke="url(#p)" stroke-width="3"/>'
                                              '</g><rect x="5" y="42" width="10" height="6" fill="url(#q)"/>',
    "a stroke of no width": '<rect x="5" y="5" width="30" height="20" rx="3" fill="#fff" stroke="#000" '
                            'stroke-width="0"/><rect x="0" y="30" width="50" height="20" fill="#fc0"/>',
    "nested clips": '<defs><clipPath id="a"><rect x="5" y="5" width="40" height="40"/></clipPath><clipPath id="b">'
                    '<circle cx="25" cy="25" r="18"/></clipPath></defs><g clip-path="url(#a)"><g clip-path="url(#b)">'
                    '<rect x="0" y="0" width="50" height="50" fill="#c0c"/></g><rect x="0" y="40" width="50" '
                    'height="20" fill="#0cc" fill-opacity="0.5"/></g><rect x="0" y="55" width="50" height="5" '
                    'fill="#000"/>',
}


@pytest.mark.parametrize("name", MORE)
def test_what_this_writer_does_its_own_way_prints_as_cairo_writes_it(name, monkeypatch):
    """Pieces where the writer makes choices of its own: ``re`` only for a rectangle along the
    axes, no fill for a path without area and no stroke without width, strokes under any
    matrix, arcs of every size, tiling patterns, clips inside clips and alpha restored after
    them."""
    f = face(MORE[name])
    assert why_not_written(f) is None
    direct, via_cairo = both_ways(f, monkeypatch)
    assert written_directly(direct) and not written_directly(via_cairo)
    assert_prints_alike(direct, via_cairo, name, dpi=200)


def test_text_runs_are_marked_as_cairo_marks_them(tmp_path, monkeypatch):
    """Text turned, clipped, partly and wholly clipped away, hidden: the runs the writer marks
    are carried and resolved by the print stage as cairo's are, and print alike."""
    body = ('<defs><clipPath id="half"><rect x="0" y="0" width="25" height="70"/></clipPath>'
            '<clipPath id="none"><rect x="100" y="100" width="5" height="5"/></clipPath></defs>'
            '<g transform="rotate(20 25 35)">{{ text(card.title, 2, 20, size=6, fill="#c00") }}</g>'
            '<g clip-path="url(#half)">{{ text(card.title, 2, 40, size=7) }}</g>'
            '<g clip-path="url(#none)">{{ text(card.title, 2, 50, size=7) }}</g>'
            '<g visibility="hidden">{{ text(card.title, 2, 60, size=6) }}</g>'
            '<g fill-rule="evenodd">{{ text(card.title, 2, 66, size=5) }}</g>')
    template = '{% extends "base.svg.j2" %}\n{% block artwork %}\n' + body + "\n{% endblock %}\n"
    f = face_of(make_game(tmp_path, template, "  - {id: one, title: Quark Gluon}"))[0]
    assert why_not_written(f) is None
    direct, via_cairo = both_ways(f, monkeypatch)
    assert written_directly(direct) and not written_directly(via_cairo)
    with pikepdf.open(io.BytesIO(direct)) as pdf:
        runs = runs_of(str(pdf.docinfo.Keywords))
    assert runs is not None and len(runs) == 3   # turned, half clipped, even-odd: not the hidden, nor the clipped away
    assert_prints_alike(direct, via_cairo, "text", dpi=200)


REFUSED = {
    "a group with opacity": ('<g opacity="0.5"><rect width="10" height="10" fill="#c00"/></g>',
                             "a group drawn with opacity"),
    "a translucent use of a pattern": (SUBSET["patterns"], "a group drawn with opacity"),   # its tile is one
    "a point far off the page": ('<rect x="0" y="0" width="10" height="10" fill="#0c0"/><path d="M1e9 0L2e9 5" '
                                 'stroke="#000"/>', "a point far outside the page"),
}


@pytest.mark.parametrize("what", REFUSED)
def test_what_it_does_not_write_is_refused_whole_and_left_to_cairo(what, monkeypatch):
    body, reason = REFUSED[what]
    f = face(body)
    assert why_not_written(f) == reason
    direct, via_cairo = both_ways(f, monkeypatch)
    assert direct == via_cairo and not written_directly(direct)


def test_text_that_is_not_plain_and_opaque_is_left_to_cairo(tmp_path, monkeypatch):
    template = ('{% extends "base.svg.j2" %}\n{% block artwork %}\n<g fill-opacity="0.5">'
                '{{ text(card.title, 2, 20, size=6) }}</g>\n{% endblock %}\n')
    f = face_of(make_game(tmp_path, template, "  - {id: one, title: Quark}"))[0]
    assert why_not_written(f) == "a text run in a colour that is not plain and opaque"
    direct, via_cairo = both_ways(f, monkeypatch)
    assert direct == via_cairo


def test_the_print_stage_reads_a_written_page_as_qpdf_does(tmp_path):
    """The fast reader of cardgen/facepdf.py takes a written page (clips, graphics states,
    marked runs) to the same objects as qpdf: byte for byte."""
    body = SUBSET["clip paths"] + MORE["nested clips"] + '{{ text(card.title, 2, 20, size=6) }}'
    template = '{% extends "base.svg.j2" %}\n{% block artwork %}\n' + body + "\n{% endblock %}\n"
    f = face_of(make_game(tmp_path, template, "  - {id: one, title: Quark Gluon}"))[0]
    assert why_not_written(f) is None
    data = draw.render_pdf(f)
    fast = facepdf.relocatable(data, pdfdoc.deflate)
    assert fast is not None and fast == pdfdoc.relocatable_via_qpdf("k", data)
    assert fast.glyphs, "its runs' glyphs come with it"


def test_a_page_is_the_card_size_cairo_makes_it():
    f = face(SUBSET["rounded rects"])
    page = draw._page(directdraw.read(f.body).root)
    assert page is not None
    direct = pypdfium2.PdfDocument(draw.render_pdf(f))[0].get_size()
    assert direct == pytest.approx((54.0 * 72 / 25.4, 74.0 * 72 / 25.4), abs=1e-3)
