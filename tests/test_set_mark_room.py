"""A class set's mark never covers what a piece prints: where the safe band is narrower than
the mark (20 mm tokens), its spot is chosen along the outline clear of every text the faces
print, in the language being built; where no spot is clear the build says so."""

from __future__ import annotations

import pytest

import cardgen
from cardgen import i18n, markroom, setmark
from cardgen.build.plan import job_marks, print_jobs
from cardgen.errors import InputError
from cardgen.legibility import printed_texts
from cardgen.render import Renderer

GAMES = ["particle-builder", "tutti-quantum", "qcd", "particles-in-circle"]


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("game_id", GAMES)
def test_every_mark_of_sixteen_sets_is_inside_its_piece_and_clear_of_every_text(game_id):
    game = cardgen.load_game(game_id)
    for lang in ["en", *i18n.available_languages(game)]:
        for job in print_jobs(game, None):
            for comp in job.components:
                marks = job_marks(game, job, setmark.MAX_SETS, comp, lang)
                if not setmark.crowded(comp):
                    continue
                texts = markroom.text_boxes(game, comp, lang)
                for mark in marks:
                    assert setmark._inside(comp, mark, margin=-0.3), (comp.id, mark)   # a pointed glyph's tip may touch the cut
                    hit = [t for t in texts if setmark.covered(mark, t, gap=0.0)]
                    assert not hit, (game_id, lang, comp.id, mark, hit)


@pytest.mark.parametrize("game_id, comp_id", [("tutti-quantum", "score-tokens"),
                                              ("particle-builder", "colour-tokens")])
def test_a_marked_token_prints_its_mark_apart_from_its_texts(game_id, comp_id):
    """Measured on the face as drawn with its mark: the set number's ink and every other
    text's ink do not meet (on these tokens the first spot along the bottom covered the
    points and the colour's name)."""
    game = cardgen.load_game(game_id)
    comp = game.components[comp_id]
    job = next(j for j in print_jobs(game, None) if comp in j.components)
    assert setmark.crowded(comp)
    first = setmark.place(comp, 1, None)
    assert any(setmark.covered(first, t, gap=0.0) for t in markroom.text_boxes(game, comp, "en"))
    mark = job_marks(game, job, 3, comp)[2]
    renderer = Renderer(game)
    for card in comp.cards:
        for side in comp.sides:
            texts = printed_texts(renderer.face(comp, card, side, mark).face)
            numbers = [t for t in texts if t.field == "set mark"]
            others = [t for t in texts if t.field not in ("set mark", "level mark")]
            assert [t.text for t in numbers] == ["3"]
            for n in numbers:
                box = (n.x0, n.y0, n.x1, n.y1)
                assert not [o.text for o in others if _overlap(box, (o.x0, o.y0, o.x1, o.y1))], (card.id, side)


def test_a_piece_without_room_for_its_mark_is_refused_with_the_safe_margin_to_give(game_copy, cli):
    g = game_copy("tutti-quantum")
    tpl = g.path / "templates" / "token-front.svg.j2"
    # a ring of labels all along the edge: no spot is left for a mark
    ring = "".join(f'{{{{ text("x", {x}, {y}, size=3, width=4) }}}}' for x in range(0, 25, 3) for y in range(0, 22, 3))
    text = tpl.read_text(encoding="utf-8")
    tpl.write_text(text.replace("{% block artwork %}", "{% block artwork %}" + ring, 1), encoding="utf-8")
    res = cli("build", str(g.path), "--sets", "2", "--out", str(g.path.parent / "out"))
    assert res.returncode == 2, res.stderr
    assert "score-tokens.yaml:" in res.stderr
    assert "component 'score-tokens' has no room for its set mark" in res.stderr
    assert "Fix: widen its safe margin ('safe: 5.1')" in res.stderr
    assert not (g.path.parent / "out" / g.path.name / "en").exists()


def test_a_level_mark_that_would_cover_a_text_stops_the_build(game_copy, cli):
    """The level mark of Particle Builder's Level 5 extras keeps its first spot; a text a
    designer puts there is found on the face as drawn, and the build refuses it."""
    g = game_copy("particle-builder")
    game = g.load()
    mark = setmark.place(game.components["level5-extra"], None, 5)
    x, y = mark.for_template()["level_x"], mark.for_template()["level_y"]
    g.edit("templates/particle-front.svg.j2", "{% block artwork %}",
           "{% block artwork %}" + f'{{{{ text("NOTE", {x - 4}, {y - 1.5}, size=2.5, width=8) }}}}')
    res = cli("build", str(g.path), "--out", str(g.path.parent / "out"))
    assert res.returncode == 2, res.stderr
    assert "level5-extra.yaml:" in res.stderr
    assert "the level mark covers 'NOTE' on card" in res.stderr and "component 'level5-extra' (front, en)" in res.stderr
    assert not (g.path.parent / "out" / g.path.name / "en").exists()
