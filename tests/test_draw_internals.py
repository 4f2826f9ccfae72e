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


def _unlightened(monkeypatch) -> None:
    """cairosvg's own helpers back in every module draw gave remembering ones (and deepcopy)."""
    import copy
    import sys

    for name, module in list(sys.modules.items()):
        if name == "cairosvg" or name.startswith("cairosvg."):
            for attr in ("normalize", "parse_url"):
                fn = getattr(module, attr, None)
                if hasattr(fn, "__wrapped__"):
                    monkeypatch.setattr(module, attr, fn.__wrapped__)
    monkeypatch.setattr(cairosvg.surface, "copy", copy)


def test_cairosvg_lightened_draws_the_same_bytes(monkeypatch):
    """The remembered normalize and parse_url and the direct cursor copy are in place, and
    every distinct face of two games (artwork, masks, patterns, gradients, clip paths, glyphs)
    is the same PDF with them as with cairosvg's own functions."""
    import cairosvg.helpers
    import cairosvg.url

    assert hasattr(cairosvg.helpers.normalize, "__wrapped__") and hasattr(cairosvg.surface.normalize, "__wrapped__")
    assert hasattr(cairosvg.surface.parse_url, "__wrapped__") and cairosvg.surface.copy.deepcopy is draw._copy_cursor
    faces = []
    for game_id in ("tutti-quantum", "particle-builder"):
        game = cardgen.load_game(game_id)
        renderer = Renderer(game)
        faces += list({r.face.key: r.face for comp in game.components.values() for r in renderer.faces(comp)}.values())
    lightened = [draw.render_pdf(face) for face in faces]
    _unlightened(monkeypatch)
    assert not hasattr(cairosvg.surface.normalize, "__wrapped__")
    assert [draw.render_pdf(face) for face in faces] == lightened and len(faces) >= 40


def test_the_cursor_copy_is_deepcopy():
    import copy

    for value in (([0, 0], [0, 0], 0), ((1.5, 2), [0.25, -1], 3.75), ([1, 2], (3, 4), 0.5)):
        copied = draw._copy_cursor(value)
        assert copied == copy.deepcopy(value) and type(copied) is tuple
        assert all(c is not v for c, v in zip(copied, value) if type(v) is list)   # lists never shared
    odd = ([0, [1]], [0, 0], 0)   # not numbers: deepcopy itself
    assert draw._copy_cursor(odd) == odd and draw._copy_cursor(odd)[0][1] is not odd[0][1]
