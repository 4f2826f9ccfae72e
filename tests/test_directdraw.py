"""Drawing faces straight into cairo (cardgen/directdraw.py) must print what cairosvg prints.

Every shipped face — four games, every component, card and side, English and Arabic, with
class-set and level marks, the rule sheets and answer keys — is rasterised both ways and
compared pixel by pixel, and must actually take the direct path (a fallback would hide a
gap). Each piece of the SVG subset is compared against cairosvg on its own, and what lies
outside it must be refused before anything is drawn, the face then drawn by cairosvg.
"""

from __future__ import annotations

import io

import cairosvg
import pypdfium2
import pytest
from PIL import Image, ImageChops

import cardgen
from cardgen import directdraw, draw, setmark, sheets
from cardgen.i18n import translator
from cardgen.render import Face, Renderer
from cardgen.text.svg import PLACEHOLDER_NS

from tests.golden import difference
from tests.test_render import face_of, make_game

DPI = 150
GAMES = ["particle-builder", "tutti-quantum", "qcd", "particles-in-circle"]


def pixels(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGBA")


def both_ways(face: Face, monkeypatch: pytest.MonkeyPatch, dpi: float = DPI) -> tuple[Image.Image, Image.Image]:
    """The face rasterised by the direct drawer and by cairosvg (the switch turned off)."""
    direct = pixels(draw.render_png(face, dpi))
    with monkeypatch.context() as m:
        m.setattr(draw, "direct_drawing", lambda _face: None)
        via_cairosvg = pixels(draw.render_png(face, dpi))
    return direct, via_cairosvg


def assert_same_pixels(got: Image.Image, want: Image.Image, what: str) -> None:
    """Near-identical: a worst-channel mean difference under 0.05 (of 255) and no pixel
    off by more than 40 in any channel (tests/golden.py allows 2.0 and 1 %)."""
    mean, far = difference(got, want)
    assert mean < 0.05 and far == 0, f"{what}: mean diff {mean:.3f}, {far:.3%} pixels off by > 40"


def shipped_faces(game_id: str) -> list[Face]:
    """Every distinct face a build of ``game_id`` draws in English and Arabic: all cards
    and sides unmarked, each component's first card with the marks of sets 1 and 2 (with
    and without a level mark), and the rule sheets and answer keys."""
    game = cardgen.load_game(game_id)
    faces: dict[str, Face] = {}
    for lang in ("en", "ar"):
        renderer = Renderer(game, lang, translate=translator(game, lang))
        for comp in game.components.values():
            marks = [None] + [setmark.place(comp, n, level) for n in (1, 2) for level in (None, 5)]
            for card in comp.cards:
                for side in ("front", "back") if comp.back else ("front",):
                    for mark in marks if card is comp.cards[0] else marks[:1]:
                        face = renderer.face(comp, card, side, mark).face
                        faces.setdefault(face.key, face)
        for kind in ("rules", "answers"):
            for rendered in sheets.sheet_faces(game, kind, renderer):
                faces.setdefault(rendered.face.key, rendered.face)
    return list(faces.values())


@pytest.mark.parametrize("game_id", GAMES)
def test_every_shipped_face_is_drawn_directly_and_looks_as_cairosvg_draws_it(game_id, monkeypatch):
    faces = shipped_faces(game_id)
    assert len(faces) > 20
    assert any('data-mark="set"' in f.body for f in faces), "set marks are among the faces"
    assert any(f.lang == "ar" for f in faces) and any(f.component in ("rules", "answers") for f in faces)
    for face in faces:
        what = f"{face.component}/{face.card} {face.side} {face.lang}"
        try:
            directdraw.read(face.body)
        except directdraw.Unsupported as exc:
            pytest.fail(f"{what} falls back to cairosvg: {exc}")
        assert draw.direct_drawing(face) is not None
        got, want = both_ways(face, monkeypatch)
        assert_same_pixels(got, want, what)


@pytest.mark.parametrize("game_id", GAMES)
def test_shipped_pdf_pages_print_as_cairosvg_draws_them(game_id, monkeypatch):
    """The PDF itself, one face per component: same page size, same printed pixels."""
    game = cardgen.load_game(game_id)
    renderer = Renderer(game)
    for comp in game.components.values():
        face = renderer.face(comp, comp.cards[0], "front").face
        direct = draw.render_pdf(face)
        with monkeypatch.context() as m:
            m.setattr(draw, "direct_drawing", lambda _face: None)
            via_cairosvg = draw.render_pdf(face)
        pages = [pypdfium2.PdfDocument(pdf)[0] for pdf in (direct, via_cairosvg)]
        assert pages[0].get_size() == pages[1].get_size()
        got, want = (page.render(scale=100 / 72).to_pil().convert("RGBA") for page in pages)
        assert_same_pixels(got, want, f"{game_id}/{comp.id} PDF")


# -- the subset, piece by piece ----------------------------------------------------------

SVG_OPEN = ('<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="54.0mm" height="74.0mm" '
            'viewBox="-2.0 -2.0 54.0 74.0">')


def face(body: str) -> Face:
    return Face("mini", "cards", "one", "front", "en", SVG_OPEN + body + "</svg>", (), 54.0, 74.0)


def assert_direct_like_cairosvg(f: Face, monkeypatch) -> None:
    directdraw.read(f.body)   # raises (and fails the test) if the subset refuses it
    got, want = both_ways(f, monkeypatch, dpi=200)
    reference = pixels(cairosvg.svg2png(bytestring=f.body.encode(), dpi=200))
    assert want == reference, "the switch off draws with cairosvg itself"
    ink = ImageChops.difference(got, Image.new("RGBA", got.size)).getbbox()
    assert ink is not None, "the comparison must be about something drawn"
    assert_same_pixels(got, want, f.body[len(SVG_OPEN):][:80])


SUBSET = {
    "transforms": '<g transform="translate(25,35) rotate(30) scale(1.5, .8)"><rect x="-8" y="-4" width="16" height="8" '
                  'fill="#c00"/></g><g transform="matrix(1 0.2 -0.3 1 5 40) skewX(12)"><rect width="10" height="6" '
                  'fill="navy"/></g><circle cx="40" cy="10" r="4" transform="rotate(45 40 10) skewY(-20) translate(2)" '
                  'fill="#0a0"/><rect x="3" y="55" width="6" height="6" transform="scale(2)" fill="#fc0" opacity="0.6"/>',
    "arcs": '<path d="M5 10A6 4 30 0 1 20 12A6 4 30 1 0 30 20a3 8 -15 1 1 10 5a0 2 0 0 0 4 4" fill="none" '
            'stroke="#000" stroke-width="0.6"/><path d="M10 40A1 1 0 0 0 30 40Z" fill="#39c"/>'
            '<path d="M10 55a5 5 0 1 0 10 0a5 5 0 1 0 -10 0Z" fill="#c39" fill-rule="evenodd"/>',
    "path commands": '<path d="M2 2L10 4l3 3H20h2V10v2C25 15 28 12 30 18c1 2 3 2 4 0S40 20 42 24s2 3 4 1Q48 30 44 34'
                     'q-2 2 -4 0Q38 36 36 40T30 44Z m0 4 l4 4 4 -4z M5 50 L10 60 15 50 20 60" fill="#8c8" stroke="#333" '
                     'stroke-width="0.4" stroke-linejoin="bevel"/>',
    "rounded rects": '<rect x="2" y="2" width="20" height="12" rx="3" fill="#f80"/><rect x="26" y="2" width="20" height="12" '
                     'ry="2" fill="#08f" stroke="#000" stroke-width="0.5"/><rect x="2" y="20" width="10" height="30" rx="9" '
                     'ry="20" fill="#0c8"/><rect x="20" y="20" width="20" height="10" rx="0" ry="4" fill="#c0c"/>'
                     '<rect x="20" y="40" width="0" height="10" fill="#000"/>',
    "strokes and dashes": '<line x1="2" y1="5" x2="48" y2="5" stroke="#000" stroke-width="1.2" stroke-dasharray="3,1 2" '
                          'stroke-dashoffset="1.5" stroke-linecap="round"/><polyline points="2,12 12,20 22,12 32,20" '
                          'fill="none" stroke="#a00" stroke-width="2" stroke-linejoin="round" stroke-linecap="square" '
                          'stroke-dasharray="none"/><polygon points="5 30 25 26 45 34 20 45" fill="#ddd" stroke="#00a" '
                          'stroke-width="1.5" stroke-miterlimit="1.2" stroke-dasharray="4 2" stroke-opacity="0.7"/>'
                          '<ellipse cx="25" cy="58" rx="18" ry="6" fill="none" stroke="#060" stroke-width="0.8" '
                          'stroke-dasharray="1 0.6"/>',
    "clip paths": '<defs><clipPath id="c"><circle cx="25" cy="30" r="15"/><rect x="5" y="40" width="40" height="10" '
                  'rx="2"/></clipPath><clipPath id="d" transform="translate(3 3)"><rect x="0" y="0" width="20" '
                  'height="20"/><path d="M30 0L50 10L30 20Z"/></clipPath></defs><g clip-path="url(#c)"><rect x="0" y="0" '
                  'width="50" height="70" fill="#36c"/></g><rect x="-2" y="-2" width="54" height="30" fill="#c63" '
                  'clip-path="url(#d)" opacity="0.8"/>',
    "opacity and inheritance": '<g fill="#c00" stroke="#000" stroke-width="0.5" opacity="0.5"><rect x="2" y="2" '
                               'width="20" height="20"/><circle cx="20" cy="20" r="8" fill="#00c" fill-opacity="0.4"/></g>'
                               '<g color="#0a0" visibility="hidden"><rect x="5" y="30" width="10" height="10" '
                               'fill="currentColor" visibility="visible"/><rect x="20" y="30" width="10" height="10" '
                               'fill="#000"/></g><g fill="#909"><g fill="#fff"><rect x="35" y="30" width="10" height="10" '
                               'fill="inherit"/></g></g><g display="none"><rect width="50" height="70" fill="#000"/></g>'
                               '<rect x="5" y="50" width="40" height="10" fill="SteelBlue" stroke="none" opacity="0.7"/>',
    "patterns": '<defs><pattern id="p" patternUnits="userSpaceOnUse" width="4" height="4" patternTransform="rotate(45)">'
                '<rect x="0" y="0" width="1.1" height="4" fill="#ffffff" fill-opacity="0.5"/></pattern><pattern id="q" '
                'patternUnits="userSpaceOnUse" x="1" y="1" width="5" height="3"><circle cx="2" cy="1.5" r="1" '
                'fill="#000"/></pattern></defs><rect x="-2" y="-2" width="54" height="74" fill="#d50"/><rect x="-2" '
                'y="-2" width="54" height="40" fill="url(#p)"/><rect x="-2" y="40" width="54" height="30" '
                'fill="url(#p)" fill-opacity="0.6"/><circle cx="25" cy="55" r="10" fill="url(#q)" stroke="url(#p)" '
                'stroke-width="3"/>',
}


@pytest.mark.parametrize("name", SUBSET)
def test_subset_draws_like_cairosvg(name, monkeypatch):
    assert_direct_like_cairosvg(face(SUBSET[name]), monkeypatch)


def test_text_placeholders_under_transform_opacity_and_as_a_clip_path(tmp_path, monkeypatch):
    body = ('<defs><clipPath id="words">{{ text(card.title, 2, 40, size=9) }}</clipPath></defs>'
            '<rect x="0" y="0" width="50" height="70" fill="#06c" clip-path="url(#words)"/>'
            '<g opacity="0.5" fill-opacity="0.8" transform="rotate(20 25 35)">{{ text(card.title, 2, 20, size=6, fill="#c00") }}</g>'
            '<g visibility="hidden">{{ text(card.title, 2, 60, size=6) }}</g>'
            f'<cg:glyphs xmlns:cg="{PLACEHOLDER_NS}" n="99"/>')
    template = '{% extends "base.svg.j2" %}\n{% block artwork %}\n' + body + "\n{% endblock %}\n"
    f = face_of(make_game(tmp_path, template, "  - {id: one, title: Quark Gluon}"))[0]
    directdraw.read(f.body)
    got, want = both_ways(f, monkeypatch, dpi=200)
    assert_same_pixels(got, want, "text")
    reference = pixels(cairosvg.svg2png(bytestring=f.svg.encode(), dpi=200))
    assert_same_pixels(got, reference, "text against the full SVG document")


def test_long_path_data_is_drawn_but_not_remembered(monkeypatch):
    """A path of 60,000 characters is drawn as cairosvg draws it, and the drawer's caches
    (bounded for strings faces repeat) do not keep it."""
    zigzag = "M1 10" + "".join(f"L{1 + i * 0.01:.3f} {10 + (i % 7) * 0.9:.3f}" for i in range(4800)) + "Z"
    assert len(zigzag) > 60_000
    before = directdraw._path_ops.cache_info().currsize
    assert_direct_like_cairosvg(face(f'<path d="{zigzag}" fill="#06c" stroke="#000" stroke-width="0.05"/>'), monkeypatch)
    assert directdraw._path_ops.cache_info().currsize == before


# -- what the subset refuses -------------------------------------------------------------

REFUSED = {
    "a style sheet": '<style>rect { fill: red }</style><rect width="10" height="10"/>',
    "a style attribute": '<rect width="10" height="10" style="fill:#c00"/>',
    "a gradient": '<defs><linearGradient id="g"><stop offset="0" stop-color="red"/><stop offset="1" stop-color="blue"/>'
                  '</linearGradient></defs><rect width="30" height="30" fill="url(#g)"/>',
    "a mask": '<defs><mask id="m"><rect width="20" height="20" fill="#fff"/></mask></defs>'
              '<rect width="30" height="30" fill="#c00" mask="url(#m)"/>',
    "use": '<defs><rect id="r" width="10" height="10" fill="#0c0"/></defs><use href="#r" x="10" y="10"/>',
    "an image": '<image href="data:image/png;base64,AAAA" width="10" height="10"/>',
    "text": '<text x="5" y="20" font-size="8">Hi</text>',
    "units": '<rect width="10mm" height="10" fill="#000"/>',
    "a percentage": '<rect width="50%" height="10" fill="#000"/>',
    "an unknown attribute": '<rect width="10" height="10" fill="#000" shape-rendering="crispEdges"/>',
    "an rgb() colour": '<rect width="10" height="10" fill="rgb(200, 0, 0)"/>',
    "a relative smooth quadratic": '<path d="M0 0q5 5 10 0t10 0" stroke="#000" fill="none"/>',
    "a path starting relative": '<path d="m5 5l10 10" stroke="#000"/>',
    "compact arc flags": '<path d="M5 5a5 5 0 1110 0" stroke="#000" fill="none"/>',
    "a clip path in object units": '<defs><clipPath id="c" clipPathUnits="objectBoundingBox"><rect width="0.5" '
                                   'height="0.5"/></clipPath></defs><rect width="30" height="30" clip-path="url(#c)"/>',
    "a pattern in object units": '<defs><pattern id="p" width="0.1" height="0.1"><rect width="1" height="1"/></pattern>'
                                 '</defs><rect width="30" height="30" fill="url(#p)"/>',
    "a pattern outside defs": '<pattern id="p" patternUnits="userSpaceOnUse" width="4" height="4"><rect width="1" '
                              'height="4"/></pattern><rect width="30" height="30" fill="url(#p)"/>',
    "a missing reference": '<rect width="30" height="30" fill="#000" clip-path="url(#nowhere)"/>',
    "a transform with junk": '<rect width="10" height="10" transform="translate(5 5) wobble" fill="#000"/>',
    "a transform that cannot be inverted": '<rect width="10" height="10" transform="scale(0)" fill="#000"/>',
    "twice the same id": '<defs><clipPath id="c"><rect width="5" height="5"/></clipPath><clipPath id="c"><rect width="9" '
                         'height="9"/></clipPath></defs><rect width="30" height="30" clip-path="url(#c)"/>',
    "a negative size": '<rect width="-10" height="10" fill="#000"/>',
    "a filter": '<rect width="10" height="10" fill="#000" filter="url(#f)"/>',
    "an element of another namespace": '<x:thing xmlns:x="urn:other"><rect width="10" height="10"/></x:thing>',
}


@pytest.mark.parametrize("name", REFUSED)
def test_outside_the_subset_falls_back_to_cairosvg_before_drawing(name, monkeypatch):
    f = face(REFUSED[name])
    with pytest.raises(directdraw.Unsupported):
        directdraw.read(f.body)
    assert draw.direct_drawing(f) is None
    if name in ("an image",):
        return   # not drawable at all: the error is cairosvg's, as before
    got, want = both_ways(f, monkeypatch)
    assert got == want, "refused: cairosvg draws the face"


def test_text_painted_from_a_pattern_is_left_to_cairosvg(tmp_path, monkeypatch):
    """The pattern a text's fill names is found in cairosvg's tree: such a face is not
    drawn directly, and prints as the cairosvg path prints it."""
    body = ('<defs><pattern id="p" patternUnits="userSpaceOnUse" width="2" height="2"><rect width="1" height="2" '
            'fill="#c00"/></pattern></defs>{{ text(card.title, 2, 30, size=12, fill="url(#p)") }}')
    template = '{% extends "base.svg.j2" %}\n{% block artwork %}\n' + body + "\n{% endblock %}\n"
    f = face_of(make_game(tmp_path, template, "  - {id: one, title: Quark Gluon}"))[0]
    directdraw.read(f.body)   # the SVG alone is within the subset
    assert draw.direct_drawing(f) is None
    got, want = both_ways(f, monkeypatch)
    assert got == want
    assert ImageChops.difference(got, Image.new("RGBA", got.size)).getbbox() is not None


def test_refusal_is_decided_from_the_whole_document(monkeypatch):
    """A gap at the very end refuses the face whole: nothing of it was drawn directly."""
    drawn = []
    monkeypatch.setattr(directdraw._Painter, "element", lambda *a, **k: drawn.append(a))
    f = face('<rect width="10" height="10" fill="#000"/>' * 50 + '<rect width="10" height="10" style="fill:red"/>')
    assert directdraw.plan(f.body) is None
    draw.render_png(f, 72)
    assert drawn == []


@pytest.mark.parametrize("document", [
    '<svg xmlns="http://www.w3.org/2000/svg" width="50" height="70" viewBox="0 0 50 70"><rect width="5" height="5"/></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg" width="50mm" height="70mm"><rect width="5" height="5"/></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg" width="50mm" height="70mm" viewBox="0 0 50 70" opacity="0.5">'
    '<rect width="5" height="5"/></svg>',
    '<!DOCTYPE svg [<!ENTITY e "x">]><svg xmlns="http://www.w3.org/2000/svg" width="50mm" height="70mm" '
    'viewBox="0 0 50 70"><rect width="5" height="5"/></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg" width="50mm" height="70mm" viewBox="0 0 50 70"><rect width="5"',
])
def test_roots_it_does_not_size_are_left_to_cairosvg(document):
    assert directdraw.plan(document) is None
