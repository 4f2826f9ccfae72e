"""Tutti Quantum artwork: the particle line geometry that lets cards join into a honeycomb,
the line styles that tell particles apart without colour, the vertex/points data printed on
reference cards and tokens, and golden images of two particle fronts."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from tests.golden import assert_matches_golden

from cardgen.loader import load_game
from cardgen.render import Renderer

SVG = "{http://www.w3.org/2000/svg}"
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")
GOLDEN_CARDS = ("photon", "quark")


@pytest.fixture(scope="module")
def game():
    return load_game("tutti-quantum")


@pytest.fixture(scope="module")
def renderer(game):
    return Renderer(game)


def by_id(game, table: str) -> dict:
    return {row.id: row for row in game.tables[table].rows}


def points_of(d: str) -> list[tuple[float, float]]:
    """Coordinates of an absolute M/L path (what cardgen.artwork emits)."""
    nums = [float(n) for n in NUMBER.findall(d)]
    return list(zip(nums[0::2], nums[1::2]))


def particle_front(game, renderer, card_id: str) -> tuple[ET.Element, float, float]:
    comp = game.components["particles"]
    face = renderer.face(comp, comp.card(card_id), "front").face
    return ET.fromstring(face.svg), comp.width, comp.height


def line_paths(root: ET.Element) -> list[ET.Element]:
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class") == "particle-line"]
    assert len(groups) == 1, "the particle line must be one <g class='particle-line'>"
    return [p for p in groups[0].iter(f"{SVG}path") if p.get("class") != "charge-arrow"]


def labels(root: ET.Element, field: str) -> list[str]:
    return [g.get("aria-label") for g in root.iter(f"{SVG}g") if g.get("data-field") == field]


CARDS = ["quark", "electron", "gluon", "photon", "higgs"]


@pytest.mark.parametrize("card_id", CARDS)
def test_particle_line_meets_both_obtuse_corners(game, renderer, card_id):
    root, w, h = particle_front(game, renderer, card_id)
    (path,) = line_paths(root)
    pts = points_of(path.get("d"))
    assert pts[0] == pytest.approx((0, h / 2), abs=0.01)
    assert pts[-1] == pytest.approx((w, h / 2), abs=0.01)


@pytest.mark.parametrize("card_id", CARDS)
def test_charge_arrow_only_on_fermions_and_points_along_the_line(game, renderer, card_id):
    root, w, h = particle_front(game, renderer, card_id)
    style = by_id(game, "line-types")[game.components["particles"].card(card_id).fields["line"]].style
    arrows = [e for e in root.iter() if e.get("class") == "charge-arrow"]
    if style != "fermion":
        assert arrows == []
        return
    assert len(arrows) == 1
    tip, left, right = points_of(arrows[0].get("d"))
    base_x = (left[0] + right[0]) / 2
    assert tip[0] > base_x + 1, "the charge arrow must point from the left corner to the right one"
    assert tip[1] == pytest.approx(h / 2, abs=0.01)


@pytest.mark.parametrize("card_id", ["photon", "gluon"])
def test_gauge_boson_lines_leave_the_axis(game, renderer, card_id):
    root, w, h = particle_front(game, renderer, card_id)
    (path,) = line_paths(root)
    assert max(abs(y - h / 2) for _, y in points_of(path.get("d"))) > 1.0


def test_higgs_line_is_dashed_and_the_others_are_not(game, renderer):
    for card_id in CARDS:
        root, _, _ = particle_front(game, renderer, card_id)
        (path,) = line_paths(root)
        assert (path.get("stroke-dasharray") is not None) == (card_id == "higgs"), card_id


def test_reference_front_lists_the_seven_vertices_with_their_points(game, renderer):
    comp = game.components["reference"]
    root = ET.fromstring(renderer.face(comp, comp.card("reference"), "front").face.svg)
    assert labels(root, "points") == ["2", "2", "2", "3", "3", "4", "6"]
    icons = [g.get("data-vertex") for g in root.iter(f"{SVG}g") if g.get("class") == "vertex-icon"]
    assert icons == [v.id for v in game.tables["vertices"].rows]
    assert labels(root, "invalid vertex") == ["Each invalid vertex: −1 point"]


def test_reference_back_shows_loop_expert_and_setup(game, renderer):
    comp = game.components["reference"]
    root = ET.fromstring(renderer.face(comp, comp.card("reference"), "back").face.svg)
    assert labels(root, "points") == ["+2", "+2", "+3", "+4", "+2"]
    assert labels(root, "setup rounds") == ["14", "9", "8"]
    assert labels(root, "setup removed") == ["0", "5", "0"]


@pytest.mark.parametrize("side, field", [("front", "vertex"), ("back", "reverse")])
def test_tokens_show_their_vertex_and_points(game, renderer, side, field):
    comp = game.components["score-tokens"]
    vertices = by_id(game, "vertices")
    for card in comp.cards:
        vertex = vertices[card.fields[field]]
        root = ET.fromstring(renderer.face(comp, card, side).face.svg)
        assert labels(root, "points") == [str(vertex.points)], card.id
        icons = [g.get("data-vertex") for g in root.iter(f"{SVG}g") if g.get("class") == "vertex-icon"]
        assert icons == [vertex.id], card.id


def test_pawn_has_a_fold_line_in_the_middle_and_art_on_both_halves(game, renderer):
    comp = game.components["pawn"]
    root = ET.fromstring(renderer.face(comp, comp.card("first-player"), "front").face.svg)
    (fold,) = [e for e in root.iter(f"{SVG}line") if e.get("class") == "fold-line"]
    assert float(fold.get("y1")) == float(fold.get("y2")) == pytest.approx(comp.height / 2)
    assert fold.get("stroke-dasharray")
    assert labels(root, "title") == ["First player", "First player"]


def test_no_text_issues_on_any_face(game):
    renderer = Renderer(game)
    issues = [i for comp in game.components.values() for result in renderer.faces(comp) for i in result.issues]
    assert issues == []


@pytest.mark.parametrize("card_id", GOLDEN_CARDS)
def test_particle_front_matches_golden(game, renderer, card_id):
    comp = game.components["particles"]
    assert_matches_golden(renderer.face(comp, comp.card(card_id), "front").face, f"tutti-quantum/{card_id}-front")
