"""Particles in Circle artwork: quark cards print their colour, anti-quark cards the two colours
that mix to their anti-colour (and never the colour they cancel), lepton cards only grey; each
colour also shows its letter; a golden image pins an anti-quark front."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest

from tests.golden import assert_matches_golden
from PIL import Image

from cardgen.loader import load_game
from cardgen.draw import render_png
from cardgen.render import Face, Renderer

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def game():
    return load_game("particles-in-circle")


@pytest.fixture(scope="module")
def renderer(game):
    return Renderer(game)


def front(game, renderer, card_id: str) -> Face:
    comp = game.components["cards"]
    return renderer.face(comp, comp.card(card_id), "front").face


def pixels(face: Face, dpi: float = 40) -> list[tuple[int, int, int]]:
    data = Image.open(io.BytesIO(render_png(face, dpi))).convert("RGB").tobytes()
    return [tuple(data[i:i + 3]) for i in range(0, len(data), 3)]


def share_near(pixels: list[tuple[int, int, int]], hex_colour: str, tolerance: int = 24) -> float:
    """Fraction of pixels within `tolerance` (per channel) of a colour."""
    target = tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    near = sum(1 for p in pixels if all(abs(a - b) <= tolerance for a, b in zip(p, target)))
    return near / len(pixels)


def labels(face: Face, field: str) -> list[str]:
    root = ET.fromstring(face.svg)
    return [g.get("aria-label") for g in root.iter(f"{SVG}g") if g.get("data-field") == field]


def test_red_quark_card_is_red(game, renderer):
    px = pixels(front(game, renderer, "u-red"))
    colours = game.physics.colours
    assert share_near(px, colours["red"].print_colour) > 0.25
    assert share_near(px, colours["green"].print_colour) == 0
    assert share_near(px, colours["blue"].print_colour) == 0


@pytest.mark.parametrize("card_id, mix, cancelled", [
    ("ubar-anti-red", ("green", "blue"), "red"),
    ("dbar-anti-green", ("red", "blue"), "green"),
    ("sbar-anti-blue", ("red", "green"), "blue"),
])
def test_anti_quark_card_shows_the_two_mixed_colours_only(game, renderer, card_id, mix, cancelled):
    px = pixels(front(game, renderer, card_id))
    colours = game.physics.colours
    for colour in mix:
        assert share_near(px, colours[colour].print_colour) > 0.12, colour
    assert share_near(px, colours[cancelled].print_colour) == 0


def test_colour_letters_back_up_the_colours(game, renderer):
    assert labels(front(game, renderer, "u-red"), "colour letter") == ["R", "R"]
    assert labels(front(game, renderer, "ubar-anti-red"), "colour letter") == ["G", "B", "G", "B"]
    assert labels(front(game, renderer, "ubar-anti-red"), "colour") == ["anti-red = green + blue"]


def test_lepton_cards_are_black_and_white(game, renderer):
    leptons = [c for c in game.components["cards"].cards if c.fields["colour"] is None]
    assert len(leptons) == 12
    for card in leptons:
        px = pixels(front(game, renderer, card.id))
        worst = max(max(p) - min(p) for p in px)
        assert worst <= 3, f"{card.id} has a coloured pixel (channel spread {worst})"


def test_search_arrow_turns_clockwise_for_quarks_and_anticlockwise_for_leptons(game, renderer):
    def sweeps(card_id: str) -> set[str]:
        root = ET.fromstring(front(game, renderer, card_id).svg)
        arcs = [p.get("d") for g in root.iter(f"{SVG}g") if g.get("class") == "search-arrow"
                for p in g.iter(f"{SVG}path") if "A" in p.get("d")]
        assert len(arcs) == 2
        return {d.split("A")[1].split()[4] for d in arcs}  # rx ry rotation large-arc sweep

    assert sweeps("u-red") == sweeps("sbar-anti-blue") == {"1"}
    assert sweeps("e-") == sweeps("nubar_mu") == {"0"}


def test_no_text_issues_on_any_face(game):
    renderer = Renderer(game)
    issues = [i for comp in game.components.values() for result in renderer.faces(comp) for i in result.issues]
    assert issues == []


def test_anti_quark_front_matches_golden(game, renderer):
    assert_matches_golden(front(game, renderer, "ubar-anti-red"), "particles-in-circle/ubar-anti-red-front")