"""cardgen.draw reaches into cairosvg and cairocffi (a tree built without CSS matching, the
context's C pointer). These tests fail loudly when an upgrade changes those internals, check
that pyproject.toml bounds the libraries to the releases they were checked with, and prove
that the fallback to the libraries' public API still draws the same faces."""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

import cairosvg.parser
import pytest
from packaging.requirements import Requirement

import cardgen
from cardgen import draw
from cardgen.render import Renderer

from tests.test_draw import DPI, differing, pixels

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def public_api_only(monkeypatch):
    """draw as it runs when the internals it uses are gone."""
    monkeypatch.setattr(draw, "internals_supported", lambda: False)


def shipped_face(game_id: str = "particle-builder", component: str = "particles"):
    game = cardgen.load_game(game_id)
    comp = game.components[component]
    return Renderer(game).face(comp, comp.cards[0], "front").face


def test_the_internals_draw_uses_are_there():
    """If this fails, a cairosvg or cairocffi release changed what cardgen.draw builds on:
    faces are then drawn through the public API (slower); adapt draw.py and its bounds."""
    draw.internals_supported.cache_clear()
    assert draw.internals_supported(), (
        f"cairosvg {version('cairosvg')} / cairocffi {version('cairocffi')}: the tree built without CSS "
        "matching differs from cairosvg's own, or Context._pointer is gone; see cardgen/draw.py")


@pytest.mark.parametrize("library", ["cairosvg", "cairocffi"])
def test_pyproject_bounds_the_libraries_whose_internals_are_used(library):
    """Each library draw.py reaches into has an upper bound, and the installed release
    (the one the tests run on) is inside the declared range."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    requirement = next(Requirement(d) for d in declared if Requirement(d).name.lower() == library)
    assert any(spec.operator in ("<", "<=", "~=", "==") for spec in requirement.specifier), requirement
    assert requirement.specifier.contains(version(library)), (library, version(library), str(requirement))


def test_a_changed_internal_is_detected_and_faces_still_draw(monkeypatch):
    """A cairosvg whose Node starts reading more of cssselect2's element wrapper than draw's
    stand-in offers: the check says so, and a face is drawn through cairosvg's public API,
    the same picture as before."""
    face = shipped_face()
    before = render_png_pixels(face)
    original = cairosvg.parser.Node.__init__

    def changed(self, element, *args, **kwargs):
        element.parent   # cssselect2's ElementWrapper has it; draw's _Element does not
        original(self, element, *args, **kwargs)

    monkeypatch.setattr(cairosvg.parser.Node, "__init__", changed)
    draw.internals_supported.cache_clear()
    try:
        assert not draw.internals_supported()
        assert draw.render_pdf(face).startswith(b"%PDF-")
        after = render_png_pixels(face)
    finally:
        monkeypatch.undo()
        draw.internals_supported.cache_clear()
    assert differing(before, after) <= 12


def render_png_pixels(face):
    return pixels(draw.render_png(face, DPI))


@pytest.mark.parametrize("game_id, component", [("tutti-quantum", "reference"), ("qcd", "cards")])
def test_the_public_api_fallback_draws_the_same_faces(game_id, component, public_api_only):
    """Through cairosvg's public API alone (full SVG documents, its own parser) a face has the
    same pixels as through the shortcuts."""
    face = shipped_face(game_id, component)
    fallback = render_png_pixels(face)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(draw, "internals_supported", lambda: True)
        shortcut = render_png_pixels(face)
    assert differing(fallback, shortcut) <= 12
    assert draw.render_pdf(face).startswith(b"%PDF-")
