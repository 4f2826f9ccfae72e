"""Particle Builder artwork: what each face says (read back from the SVG), how the placement
areas are sized, that nothing overflows, a few pixel facts and three golden images.

Text is found through the ``<g aria-label=... data-field=...>`` groups the renderer wraps
around glyph outlines; placement outlines carry ``class="area"`` (targets) or ``class="slot"``
(mat). Set CARDGEN_UPDATE_GOLDEN=1 to rewrite the golden PNGs after an intended change.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from fractions import Fraction

import pytest

from tests.golden import assert_matches_golden
from PIL import Image

from cardgen import format as fmt
from cardgen.loader import load_game
from cardgen.draw import render_png
from cardgen.render import Renderer

SVG = "{http://www.w3.org/2000/svg}"
PARTICLE_COMPONENTS = ("particles", "level5-extra", "level7-extra")
FAMILY_WORDS = {"quark": "Quark", "lepton": "Lepton", "gauge boson": "Boson", "scalar": "Boson"}


@pytest.fixture(scope="module")
def game():
    return load_game("particle-builder")


@pytest.fixture(scope="module")
def renderer(game):
    return Renderer(game)


def render(renderer, game, component: str, card: str, side: str = "front"):
    comp = game.components[component]
    return renderer.face(comp, comp.card(card), side).face


def tree(face) -> ET.Element:
    return ET.fromstring(face.svg)


def fields(root: ET.Element, name: str) -> list[str]:
    """aria-labels of the text groups whose data-field is ``name``, in document order."""
    return [g.get("aria-label") for g in root.iter(f"{SVG}g") if g.get("data-field") == name]


def field(root: ET.Element, name: str) -> str:
    found = fields(root, name)
    assert len(found) == 1, f"expected one '{name}' text, found {found}"
    return found[0]


def by_class(root: ET.Element, cls: str, tag: str = "rect") -> list[ET.Element]:
    return [e for e in root.iter(f"{SVG}{tag}") if cls in (e.get("class") or "").split()]


def box(rect: ET.Element) -> tuple[float, float, float, float]:
    return tuple(float(rect.get(a)) for a in ("x", "y", "width", "height"))


def first_upper(s: str) -> str:
    return s[:1].upper() + s[1:]


def particle_cards(game_id: str = "particle-builder"):
    game = load_game(game_id)
    return [pytest.param(comp_id, card.id, id=f"{comp_id}/{card.id}")
            for comp_id in PARTICLE_COMPONENTS for card in game.components[comp_id].cards]


# -- particle cards ---------------------------------------------------------------------------

@pytest.mark.parametrize("component, card_id", particle_cards())
def test_particle_front_prints_the_data(renderer, game, component, card_id):
    card = game.components[component].card(card_id)
    p = card.fields["particle"]
    root = tree(render(renderer, game, component, card_id))

    assert field(root, "symbol") == p.symbol.unicode()
    assert field(root, "name") == first_upper(p.name)
    assert field(root, "family") == FAMILY_WORDS[p.kind]
    assert field(root, "points") == str(card.fields["points"])
    assert fields(root, "stat.charge.label") == ["Charge"]
    assert field(root, "stat.charge.value") == fmt.charge(p.charge)
    assert field(root, "stat.spin.value") == fmt.spin(p.spin)
    assert field(root, "stat.mass.value") == fmt.mass(p.mass)
    assert field(root, "stat.lifetime.value") == fmt.lifetime(p.lifetime)
    if p.is_fermion:
        assert field(root, "generation") == "Generation " + "I" * p.generation
    else:
        assert fields(root, "generation") == []


@pytest.mark.parametrize("component, card_id", particle_cards())
def test_only_antiparticles_are_striped(renderer, game, component, card_id):
    p = game.components[component].card(card_id).fields["particle"]
    root = tree(render(renderer, game, component, card_id))
    stripes = by_class(root, "anti-stripes", "g")
    if p.is_anti:
        assert len(stripes) == 2  # over the frame and over the symbol field
        assert fields(root, "antiparticle") == ["Antiparticle"]
    else:
        assert stripes == []
        assert fields(root, "antiparticle") == []


def test_the_deck_has_antiparticles_and_particles(game):
    anti = [c for c in game.components["particles"].cards if c.fields["particle"].is_anti]
    assert 0 < len(anti) < len(game.components["particles"].cards)


def test_stat_values_are_pinned_examples(renderer, game):
    """Spot values a reader can check against the rulebook-style notation."""
    mu = tree(render(renderer, game, "particles", "mu-"))
    assert field(mu, "stat.lifetime.value") == "2.20 × 10⁻⁶ s"
    assert field(mu, "stat.charge.value") == "\u22121"
    u = tree(render(renderer, game, "particles", "u"))
    assert field(u, "stat.mass.value") == "2.16 MeV/c²"
    assert field(u, "stat.charge.value") == "+2/3"
    assert field(u, "stat.lifetime.value") == "stable"


def test_all_particle_backs_are_one_face(renderer, game):
    keys = {face.key for comp in PARTICLE_COMPONENTS
            for face in (r.face for r in renderer.faces(game.components[comp])) if face.side == "back"}
    assert len(keys) == 1
    back = tree(render(renderer, game, "particles", "u", "back"))
    assert field(back, "title") == "Particle Builder"


# -- targets ----------------------------------------------------------------------------------

def target_ids():
    return [c.id for c in load_game("particle-builder").components["targets"].cards]


@pytest.mark.parametrize("target_id", target_ids())
def test_target_areas(renderer, game, target_id):
    comp = game.components["targets"]
    card = comp.card(target_id)
    requires = card.fields["requires"]
    root = tree(render(renderer, game, "targets", target_id))

    areas = [box(r) for r in by_class(root, "area")]
    labels = [box(r) for r in by_class(root, "area-label")]
    assert len(areas) == len(labels) == len(requires)
    groups = [g.get("data-particle") for g in by_class(root, "area-group", "g")]
    assert groups == [p.id for p in requires]
    card_w, card_h = (game.components["particles"].width, game.components["particles"].height)
    for (x, y, w, h), (lx, ly, lw, lh) in zip(areas, labels):
        assert w >= card_w + 4 and h >= card_h + 4, "a real particle card fits with 2 mm to spare"
        assert (lx, lw) == (x, w) and ly + lh == pytest.approx(y) and lh >= 6, "the label strip sits on top"
        assert comp.safe - 0.01 <= x and x + w <= comp.width - comp.safe + 0.01
        assert comp.safe - 0.01 <= ly and y + h <= comp.height - comp.safe + 0.01
    everything = areas + labels
    for i, (x1, y1, w1, h1) in enumerate(everything):
        for x2, y2, w2, h2 in everything[i + 1:]:
            assert x1 + w1 <= x2 or x2 + w2 <= x1 or y1 + h1 <= y2 or y2 + h2 <= y1, "areas and labels never overlap"
    # reading order: left to right, then top to bottom
    assert [(y, x) for x, y, _, _ in areas] == sorted((y, x) for x, y, _, _ in areas)
    rows = len({y for _, y, _, _ in areas})
    assert rows == (1 if len(requires) == 2 else 2)
    # the required particle is named on its label strip, outside the area
    assert fields(root, "place.name") == [first_upper(p.name) for p in requires]


@pytest.mark.parametrize("target_id", target_ids())
def test_target_header(renderer, game, target_id):
    card = game.components["targets"].card(target_id)
    requires = card.fields["requires"]
    root = tree(render(renderer, game, "targets", target_id))
    assert field(root, "name") == card.fields["name"]
    assert field(root, "kind") == card.fields["hadron"].capitalize()
    assert field(root, "points") == str(card.fields["points"])
    assert field(root, "charge") == fmt.charge(sum((p.charge for p in requires), Fraction(0)))
    formula = [g for g in root.iter(f"{SVG}g") if g.get("class") == "formula"]
    assert [g.get("aria-label") for g in formula] == [" ".join(p.symbol.unicode() for p in requires)]
    assert fields(root, "description") == ([card.fields["description"]] if card.fields.get("description") else [])


def test_proton_charge_and_antiquark_area_stripes(renderer, game):
    proton = tree(render(renderer, game, "targets", "proton"))
    assert field(proton, "charge") == "+1"
    assert by_class(proton, "anti-stripes", "g") == []
    pion = tree(render(renderer, game, "targets", "pi-plus"))
    assert field(pion, "charge") == "+1"
    assert len(by_class(pion, "anti-stripes", "g")) == 1  # only the d̄ area


# -- mat --------------------------------------------------------------------------------------

def test_mat_slots(renderer, game):
    comp = game.components["mat"]
    card = comp.card("mat")
    root = tree(render(renderer, game, "mat", "mat"))
    places = [p for p in comp.places_of(card) if p.takes.particles]
    expected = [game.physics.particles[p.takes.particles[0]] for p in places]
    assert [p.id for p in expected] == ["u", "c", "t", "d", "s", "b", "e-", "mu-", "tau-", "nu_e", "nu_mu", "nu_tau",
                                        "gamma", "g", "Z0", "W+", "W-", "H"]

    slots = [box(r) for r in by_class(root, "slot")]
    assert len(slots) == 19   # 18 particle places and the annihilation place
    assert [g.get("data-particle") for g in by_class(root, "slot-group", "g")] == [p.id for p in expected]
    assert fields(root, "place.name") == [first_upper(p.name) for p in expected]
    symbols = [g.get("aria-label") for g in by_class(root, "slot-group", "g")
               for g in g.iter(f"{SVG}g") if g.get("data-field") == "symbol"]
    assert symbols == [s for p in expected for s in [p.symbol.unicode()] * 2]   # in the place and on its label
    labels = [box(r) for r in by_class(root, "slot-label")] + [box(r) for r in by_class(root, "annihilation-label")]
    for x, y, w, h in slots:
        assert w >= 63 + 4 and h >= 88 + 4
        assert comp.safe <= x and x + w <= comp.width - comp.safe
        assert comp.safe <= y and y + h <= comp.height - comp.safe
    everything = slots + labels
    for i, a in enumerate(everything):
        for b in everything[i + 1:]:
            assert a[0] + a[2] <= b[0] or b[0] + b[2] <= a[0] or a[1] + a[3] <= b[1] or b[1] + b[3] <= a[1]
    # three rows of six, each split into two groups of three by a wider gap
    rows = sorted({y for _, y, _, _ in slots[:18]})
    assert len(rows) == 3
    xs = [x for x, _, _, _ in slots[:6]]
    gaps = [b - (a + slots[0][2]) for a, b in zip(xs, xs[1:])]
    assert gaps[2] > max(gaps[:2] + gaps[3:])
    assert fields(root, "area.name") == ["Quarks", "Leptons", "Bosons"]
    rules = fields(root, "area.rule")
    assert "one card per slot" in rules[0] and "one card per slot" in rules[1] and "stack" in rules[2]
    assert field(root, "annihilation.name") == "Annihilation area"
    assert field(root, "score.name") == "Score"
    assert field(root, "title") == "Particle Builder"


# -- colour tokens ----------------------------------------------------------------------------

@pytest.mark.parametrize("colour", ["red", "green", "blue", "anti-red", "anti-green", "anti-blue"])
def test_colour_token(renderer, game, colour):
    c = game.components["colour-tokens"].card(colour).fields["colour"]
    root = tree(render(renderer, game, "colour-tokens", colour))
    assert field(root, "letter") == c.letter
    assert field(root, "name") == c.name
    assert len(by_class(root, f"pattern-{c.pattern}", "g")) == 1
    dashed = [e for e in root.iter(f"{SVG}circle") if e.get("stroke-dasharray")]
    assert bool(dashed) == c.is_anti


# -- every face -------------------------------------------------------------------------------

def test_every_face_renders_without_text_issues(game):
    renderer = Renderer(game)
    count, issues = 0, []
    for comp in game.components.values():
        for result in renderer.faces(comp):
            count += 1
            assert "<text" not in result.face.svg
            ET.fromstring(result.face.svg)  # well-formed
            issues += result.issues
    assert count > 0
    assert issues == [], "\n".join(map(str, issues))


# -- pixels -----------------------------------------------------------------------------------

def raster(face, dpi: float) -> Image.Image:
    return Image.open(io.BytesIO(render_png(face, dpi))).convert("RGB")


def grey_fraction(img: Image.Image, bleed: float, dpi: float, x0: float, y0: float, x1: float, y1: float) -> float:
    """Share of neutral mid-grey pixels (the antimatter stripes) in a trim-coordinate box (mm)."""
    px = lambda mm: round((mm + bleed) * dpi / 25.4)  # noqa: E731
    region = img.crop((px(x0), px(y0), px(x1), px(y1)))
    data = region.tobytes()
    pixels = [tuple(data[i:i + 3]) for i in range(0, len(data), 3)]
    grey = [p for p in pixels if max(p) - min(p) <= 10 and 110 <= p[0] <= 180]
    return len(grey) / len(pixels)


def test_antiparticle_symbol_field_shows_grey_stripes(renderer, game):
    dpi, bleed = 100, game.components["particles"].bleed
    # the left part of the symbol field, beside the white disc
    anti = grey_fraction(raster(render(renderer, game, "particles", "ubar"), dpi), bleed, dpi, 4, 17, 16, 44)
    plain = grey_fraction(raster(render(renderer, game, "particles", "u"), dpi), bleed, dpi, 4, 17, 16, 44)
    assert anti > 0.25, anti
    assert plain < 0.01, plain


def test_red_token_is_printed_in_its_colour(renderer, game):
    dpi = 100
    comp = game.components["colour-tokens"]
    c = comp.card("red").fields["colour"]
    img = raster(render(renderer, game, "colour-tokens", "red"), dpi)
    # inside the plain centre disc, left of the letter
    px = round((comp.bleed + comp.width / 2 - 4.8) * dpi / 25.4)
    py = round((comp.bleed + comp.height / 2) * dpi / 25.4)
    want = tuple(int(c.print_colour[i:i + 2], 16) for i in (1, 3, 5))
    got = img.getpixel((px, py))
    assert all(abs(a - b) <= 6 for a, b in zip(got, want)), (got, want)


# -- golden images ----------------------------------------------------------------------------

@pytest.mark.parametrize("component, card_id", [("particles", "u"), ("particles", "ubar"), ("targets", "proton")])
def test_golden(renderer, game, component, card_id):
    assert_matches_golden(render(renderer, game, component, card_id), f"particle-builder/{component}-{card_id}-front")