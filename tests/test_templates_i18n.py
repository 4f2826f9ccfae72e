"""Templates in other languages: right-to-left mirroring (Arabic labels come before their values
in reading order, so to their right), numbers that stay whole inside Arabic sentences, first
letters capitalised only where the language does so, translated colour letters, text boxes that
cannot silently wrap, and the QCD wild card's text clear of its circle in every language.

Text is read back from the ``<g aria-label=... data-field=...>`` groups the renderer wraps around
glyph outlines; a glyph's position is the x of its ``transform="translate(x y) ..."``.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageDraw

from cardgen import i18n
from cardgen.loader import load_game
from cardgen.draw import render_png
from cardgen.render import Renderer
from cardgen.text import GlyphRegistry, TextEngine
from tests.golden import assert_matches_golden

SVG = "{http://www.w3.org/2000/svg}"
TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
LANGS = ("en", "de", "fr", "es", "ar", "zh")
_TRANSLATE = re.compile(r"translate\(\s*([-\d.]+)[ ,]+([-\d.]+)")


@pytest.fixture(scope="module")
def games():
    return {gid: load_game(gid) for gid in ("particle-builder", "tutti-quantum", "qcd", "particles-in-circle")}


def renderer(game, lang: str, translate=None) -> Renderer:
    return Renderer(game, lang, translate=translate if translate is not None else i18n.translator(game, lang))


def render(games, game_id: str, lang: str, component: str, card: str, side: str = "front", translate=None):
    game = games[game_id]
    comp = game.components[component]
    r = renderer(game, lang, translate)
    result = r.face(comp, comp.card(card), side)
    assert not result.issues, [str(i) for i in result.issues]
    return result.face


def tree(face) -> ET.Element:
    return ET.fromstring(face.svg)


def groups(root: ET.Element, field: str) -> list[ET.Element]:
    """Text groups with data-field ``field``, in document order."""
    return [g for g in root.iter(f"{SVG}g") if g.get("data-field") == field]


def labels(root: ET.Element, field: str) -> list[str]:
    return [g.get("aria-label") for g in groups(root, field)]


def glyph_xs(group: ET.Element) -> list[float]:
    """x of every glyph outline placed inside a text (or symbol) group."""
    xs = []
    for el in group.iter():
        if el.tag in (f"{SVG}path", f"{SVG}use") and el.get("transform"):
            m = _TRANSLATE.search(el.get("transform"))
            if m:
                xs.append(float(m.group(1)))
    assert xs, f"no glyphs in {group.get('aria-label')!r}"
    return xs


def span(root: ET.Element, field: str, index: int = 0) -> tuple[float, float]:
    xs = glyph_xs(groups(root, field)[index])
    return min(xs), max(xs)


def glyph_outline(char: str, weight: str = "bold") -> str:
    """The outline path a character is drawn with (font units, so independent of size)."""
    svg = TextEngine.default().layout(char, size=3, weight=weight).to_svg(0, 0, GlyphRegistry(inline=True))
    found = re.findall(r' d="([^"]+)"', svg)
    assert len(found) == 1, svg
    return found[0]


# -- right to left ---------------------------------------------------------------------------

def test_arabic_particle_card_puts_the_star_left_of_the_family_word(games):
    root = tree(render(games, "particle-builder", "ar", "particles", "u"))
    star_left, star_right = span(root, "points")
    word_left, _ = span(root, "family")
    gen_left, _ = span(root, "generation")
    assert star_right < word_left and star_right < gen_left, "in Arabic the header reads from the right: star on the left"
    # and English keeps the star on the right
    root = tree(render(games, "particle-builder", "en", "particles", "u"))
    assert span(root, "points")[0] > span(root, "family")[1]


def test_arabic_target_reads_right_to_left(games):
    face = render(games, "particle-builder", "ar", "targets", "proton")
    root = tree(face)
    formula = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "formula")
    symbols = [g for g in formula.iter(f"{SVG}g") if g.get("data-field") == "symbol"]
    assert [s.get("aria-label") for s in symbols] == ["u", "u", "d"]
    symbol_xs = [x for s in symbols for x in glyph_xs(s)]
    # "Contains" comes first in reading order, so it is to the right of the symbols
    assert span(root, "formula.label")[0] > max(symbol_xs)
    # the symbols themselves run right to left: the first (u) is right of the last (d)
    assert min(glyph_xs(symbols[0])) > max(glyph_xs(symbols[2]))
    # "Total charge" is to the right of its value, which stays "+1"
    assert span(root, "charge.label")[0] > span(root, "charge")[1]
    assert labels(root, "charge") == ["+1"]
    # kind/name header on the right, points star on the left
    assert span(root, "points")[1] < span(root, "name")[0]
    assert span(root, "points")[1] < span(root, "kind")[0]
    # the first required particle's area is the rightmost of the first row (two u above, d below)
    areas = [e for e in root.iter(f"{SVG}rect") if e.get("class") == "area"]
    xs = [float(a.get("x")) for a in areas]
    ys = [float(a.get("y")) for a in areas]
    assert len(xs) == 3 and ys[0] == ys[1] < ys[2] and xs[0] > xs[2] > xs[1]
    width = games["particle-builder"].components["targets"].width
    assert xs[0] + float(areas[0].get("width")) > width / 2 + 40


def test_english_target_keeps_left_to_right(games):
    root = tree(render(games, "particle-builder", "en", "targets", "proton"))
    areas = [e for e in root.iter(f"{SVG}rect") if e.get("class") == "area"]
    xs, ys = [float(a.get("x")) for a in areas], [float(a.get("y")) for a in areas]
    assert ys[0] == ys[1] < ys[2] and xs[0] < xs[2] < xs[1]
    assert span(root, "formula.label")[1] < span(root, "charge.label")[0]


def test_arabic_mat_is_mirrored(games):
    game = games["particle-builder"]
    root = tree(render(games, "particle-builder", "ar", "mat", "mat"))
    W = game.components["mat"].width
    slots = [float(e.get("x")) for e in root.iter(f"{SVG}rect") if e.get("class") == "slot"
             and e.get("data-place") != "annihilation"]
    quarks = slots[:6]
    assert quarks == sorted(quarks, reverse=True), "slots run right to left"
    assert min(slots) > W * 0.15, "family areas on the right, the annihilation/score column on the left"
    annihilation = next(e for e in root.iter(f"{SVG}rect") if e.get("data-place") == "annihilation")
    assert float(annihilation.get("x")) + float(annihilation.get("width")) < min(slots)
    score = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "score")
    boxes = [float(r.get("x")) for r in score.iter(f"{SVG}rect") if r.get("width") == "26"]
    assert len(boxes) == 4 and max(boxes) < W / 4
    for i, box_x in enumerate(boxes):   # each score label is to the right of its box
        assert span(root, "score.row", i)[0] > box_x + 26
    # each area title is right of its rule line
    for i in range(3):
        assert span(root, "area.name", i)[0] > span(root, "area.rule", i)[1]


def test_arabic_tutti_reference_back_is_mirrored(games):
    root = tree(render(games, "tutti-quantum", "ar", "reference", "reference", "back"))
    # setup table: each label to the right of its numbers; first player count next to the label
    for key in ("players", "shown", "rounds", "removed"):
        numbers = groups(root, f"setup {key}")
        assert len(numbers) == len(games["tutti-quantum"].tables["setup"].rows) >= 2
        firsts = [min(glyph_xs(g)) for g in numbers]
        assert firsts == sorted(firsts, reverse=True), key
    for i in range(4):
        assert span(root, "setup label", i)[0] > max(max(glyph_xs(g)) for g in groups(root, "setup players"))
    # expert list: every badge left of its name
    order = [(g.get("data-field"), g) for g in root.iter(f"{SVG}g") if g.get("data-field") in ("expert name", "points")]
    pairs = [(order[i][1], order[i + 1][1]) for i in range(len(order) - 1)
             if order[i][0] == "expert name" and order[i + 1][0] == "points"]
    assert len(pairs) == 4
    for name, badge in pairs:
        assert max(glyph_xs(badge)) < min(glyph_xs(name))


def test_arabic_invalid_vertex_line_keeps_minus_one_whole(games):
    root = tree(render(games, "tutti-quantum", "ar", "reference", "reference"))
    (line,) = groups(root, "invalid vertex")
    minus, one = glyph_outline("−"), glyph_outline("1")
    at = {}
    for p in line.iter(f"{SVG}path"):
        if p.get("d") in (minus, one):
            at.setdefault(p.get("d"), []).append(float(_TRANSLATE.search(p.get("transform")).group(1)))
    assert len(at.get(minus, [])) == 1 and len(at.get(one, [])) == 1, at
    assert at[minus][0] < at[one][0], "the minus sign must stay left of the 1 (\"−1\", not \"1−\")"


def test_invalid_vertex_line_comes_from_one_format(games):
    fmt = {"{name}: {points} {unit}": "{name} : {points} {unit}"}
    root = tree(render(games, "tutti-quantum", "fr", "reference", "reference",
                       translate=lambda msgid, ctx=None: fmt.get(msgid, msgid)))
    assert labels(root, "invalid vertex") == ["Each invalid vertex : −1 point"]
    root = tree(render(games, "tutti-quantum", "en", "reference", "reference"))
    assert labels(root, "invalid vertex") == ["Each invalid vertex: −1 point"]


# -- capitalisation and colour letters --------------------------------------------------------

def test_capfirst_keeps_greek_and_chinese_as_written(games):
    names = {"muon": "μ子", "up quark": "u夸克"}
    zh = lambda msgid, ctx=None: names.get(msgid, msgid)  # noqa: E731
    root = tree(render(games, "particle-builder", "zh", "particles", "mu-", translate=zh))
    assert labels(root, "name") == ["μ子"]
    root = tree(render(games, "particle-builder", "zh", "targets", "proton", translate=zh))
    assert labels(root, "place.name")[:2] == ["u夸克", "u夸克"]
    root = tree(render(games, "tutti-quantum", "zh", "particles", "quark",
                       translate=lambda msgid, ctx=None: {"quark": "q夸克"}.get(msgid, msgid)))
    assert labels(root, "name") == ["q夸克", "q夸克"]
    # languages written with capitals still get one
    assert labels(tree(render(games, "particle-builder", "en", "particles", "mu-")), "name") == ["Muon"]
    assert labels(tree(render(games, "particle-builder", "fr", "particles", "mu-")), "name") == ["Muon"]
    assert labels(tree(render(games, "particle-builder", "en", "targets", "proton")), "place.name")[0] == "Up quark"


def test_french_colour_letters_are_translated(games):
    root = tree(render(games, "qcd", "fr", "cards", "u-green"))
    assert labels(root, "colour letter") == ["V", "V"]
    root = tree(render(games, "qcd", "fr", "cards", "u-green", "back"))
    assert "V" in labels(root, "wheel letter") and "G" not in labels(root, "wheel letter")
    root = tree(render(games, "particle-builder", "fr", "colour-tokens", "green"))
    assert labels(root, "letter") == ["V"]
    root = tree(render(games, "particles-in-circle", "fr", "cards", "u-green"))
    assert set(labels(root, "colour letter")) == {"V"}
    root = tree(render(games, "qcd", "es", "cards", "u-blue"))
    assert labels(root, "colour letter") == ["A", "A"]


# -- text boxes -------------------------------------------------------------------------------

TEMPLATE_FILES = sorted([f for d in ("particle-builder", "tutti-quantum", "qcd", "particles-in-circle")
                         for f in (TEMPLATES / d).glob("*.j2")] + [TEMPLATES / "_shared" / "macros.svg.j2"])


@pytest.mark.parametrize("path", TEMPLATE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_text_has_a_box_that_shrinks_before_it_overflows(path):
    """A text without a width, height or min_size can run into what is below it unnoticed."""
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if "text(" not in line or line.lstrip().startswith("{#"):
            continue
        for call in re.findall(r"\btext\((.*?)\) \}\}", line):
            missing = [k for k in ("width=", "height=", "min_size=") if k not in call]
            assert not missing, f"{path.name}:{n}: text() without {', '.join(missing)}"


def test_qcd_wild_card_text_stays_clear_of_the_circle(games):
    game = games["qcd"]
    comp = game.components["cards"]
    dpi = 200
    px = dpi / 25.4
    for lang in LANGS:
        face = render(games, "qcd", lang, "cards", "wild-w")
        circle = next(c for c in tree(face).iter(f"{SVG}circle") if c.get("fill") == "#e6e6e6")
        cx, cy, r = (float(circle.get(k)) for k in ("cx", "cy", "r"))
        half_stroke = float(circle.get("stroke-width")) / 2
        img = Image.open(io.BytesIO(render_png(face, dpi))).convert("L")
        dark = img.point(lambda v: 255 if v < 100 else 0)
        ring = Image.new("L", img.size, 0)
        draw = ImageDraw.Draw(ring)

        def disc(radius: float, fill: int) -> None:
            x, y = (cx + comp.bleed) * px, (cy + comp.bleed) * px
            draw.ellipse([x - radius * px, y - radius * px, x + radius * px, y + radius * px], fill=fill)

        # 0.8 mm either side of the stroke, which itself is left out
        disc(r + half_stroke + 0.8, 255)
        disc(r + half_stroke + 0.15, 0)
        disc(r - half_stroke - 0.15, 255)
        disc(r - half_stroke - 0.8, 0)
        touching = ImageChops.multiply(dark, ring).getbbox()
        assert touching is None, f"[{lang}] text within 0.8 mm of the wild card's circle at {touching} px"


def test_every_language_fits_the_touched_templates(games):
    """Nothing overflows its box and nothing lacks a glyph, in any language."""
    for gid in ("particle-builder", "tutti-quantum", "qcd", "particles-in-circle"):
        game = games[gid]
        for lang in ("ar", "zh", "fr", "de", "es"):
            r = renderer(game, lang)
            issues = [i for comp in game.components.values() for result in r.faces(comp) for i in result.issues]
            assert not issues, [str(i) for i in issues]


# -- golden -----------------------------------------------------------------------------------

def test_golden_arabic_antiparticle_card(games):
    face = render(games, "particle-builder", "ar", "particles", "ubar")
    assert_matches_golden(face, "particle-builder/particles-ubar-front-ar")
