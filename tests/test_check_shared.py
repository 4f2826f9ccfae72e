"""``cardgen check`` does each piece of work once: a face a rule read is the face the render pass
proves, a template is parsed once for the rule that reads it and the renderer that compiles it
(and not at all when the cache holds what the rule read), and the games' render passes share the
machine's cores without changing what the check reports or which error it raises."""

from __future__ import annotations

from collections import Counter, OrderedDict

import jinja2.parser
import pytest

import cardgen
from cardgen import forkpair, rendercheck, templatetrees
from cardgen import render as render_module
from cardgen.checkfaces import faces_of, shared_faces
from cardgen.render import Renderer, TemplateError
from cardgen.rules import pdg_values
from cardgen.sheets import SHEETS

from .test_check_report import FRONT, sides


@pytest.fixture
def fresh_templates(monkeypatch):
    """No template compiled, parsed or read in this process yet (as in a new ``cardgen check``)."""
    monkeypatch.setattr(render_module, "_COMPILED", {})
    monkeypatch.setattr(templatetrees, "_TREES", OrderedDict())
    monkeypatch.setattr(pdg_values, "_FACTS", {})


@pytest.fixture
def parsed(monkeypatch) -> list[str]:
    """The template sources Jinja parses from now on, one entry per parse."""
    sources: list[str] = []
    original = jinja2.parser.Parser.__init__

    def noting(self, environment, source, *args, **kwargs):
        sources.append(source)
        original(self, environment, source, *args, **kwargs)

    monkeypatch.setattr(jinja2.parser.Parser, "__init__", noting)
    return sources


def report_data(report) -> tuple:
    return ([f.as_dict() for f in report.findings], report.proofs, report.choices,
            [r.as_dict() for r in report.rendered])


@pytest.fixture
def renders(monkeypatch) -> Counter[tuple[str, str, str, str]]:
    """How many times each (language, component, card, side) is rendered from now on."""
    rendered: Counter[tuple[str, str, str, str]] = Counter()
    original = Renderer.face

    def counting(self, component, card, side="front", mark=None):
        rendered[(self.lang, component.id, card.id, side)] += 1
        return original(self, component, card, side, mark)

    monkeypatch.setattr(Renderer, "face", counting)
    return rendered


def test_every_face_is_rendered_once_though_a_rule_reads_the_fronts_first(renders, monkeypatch):
    game = cardgen.load_game("qcd")   # flavour-energies reads the energy each front prints
    monkeypatch.setattr(forkpair, "cores", lambda: {0})   # counted in this process
    report = cardgen.check(game)
    assert report.ok and [r.faces for r in report.rendered] == [sides(game)] == [50]
    cards = {k: n for k, n in renders.items() if k[1] not in SHEETS}
    assert len(cards) == 50 and set(renders.values()) == {1}   # a sheet page too, if not remembered
    assert any("read from their rendered 'energy' text" in p.claim for p in report.proofs)


def test_a_face_a_rule_read_is_handed_to_the_render_pass_with_what_its_rendering_reported(renders):
    game = cardgen.load_game("qcd")
    comp = game.components["cards"]
    card = comp.cards[0]
    with shared_faces():
        faces = faces_of(game)
        assert faces_of(game) is faces and faces_of(game, "de") is not faces
        assert faces_of(game, "de").drawing is faces.drawing   # a face is drawn once per game
        read = faces.rendered(comp, card)
        assert faces.face(comp, card) is read.face and faces.wraps == []   # kept, not reported yet
        assert faces.take(comp, card, "front") == read.face.key
        assert renders[("en", "cards", card.id, "front")] == 1   # handed over, not rendered again
        assert faces.wraps == list(read.wraps) and faces.issues == list(read.issues)
        assert faces.take(comp, card, "front") == read.face.key   # handed over once: rendered again after
        assert renders[("en", "cards", card.id, "front")] == 2
    assert faces_of(game) is not faces_of(game)   # outside a check nothing is shared


def test_a_template_is_parsed_once_for_the_rule_and_the_renderer(fresh_templates, parsed, monkeypatch):
    game = cardgen.load_game("particle-builder")   # pdg-values reads which quantities its templates print
    # in one process (with two, the rule and the render pass may run apart, each parsing once)
    monkeypatch.setattr(forkpair, "cores", lambda: {0})
    report = cardgen.check(game, cache=None)
    assert report.ok
    assert len(parsed) == len(set(parsed)) >= 8   # the game's seven and the shared frame at least


def test_a_check_with_a_cache_takes_what_templates_print_from_it(fresh_templates, parsed, tmp_path, monkeypatch):
    game = cardgen.load_game("particle-builder")
    monkeypatch.setattr(forkpair, "cores", lambda: {0})   # parses counted in this process
    first = cardgen.check(game, cache=tmp_path / ".cache")
    assert parsed
    parsed.clear()
    monkeypatch.setattr(render_module, "_COMPILED", {})
    monkeypatch.setattr(templatetrees, "_TREES", OrderedDict())
    monkeypatch.setattr(pdg_values, "_FACTS", {})
    again = cardgen.check(game, cache=tmp_path / ".cache")
    assert parsed == []   # compiled code and what the templates print both came from the cache
    assert report_data(again)[:3] == report_data(first)[:3]
    assert any(p.rule == "pdg-values" and "mass" in p.claim for p in again.proofs)


def test_an_edited_template_is_read_again_by_a_check_with_a_cache(game_copy, tmp_path):
    g = game_copy("particle-builder")
    cache = tmp_path / ".cache"
    before = [p.claim for p in cardgen.check(g.load(), cache=cache).proofs if p.rule == "pdg-values"]
    assert before[0].startswith("particles: 36 cards print 120 values (charge, spin, mass, lifetime of 30 particles)")
    g.edit("templates/particle-front.svg.j2", ', ("lifetime", _("Mean lifetime"), p.lifetime|lifetime)', "")
    after = [p.claim for p in cardgen.check(g.load(), cache=cache).proofs if p.rule == "pdg-values"]
    assert after[0].startswith("particles: 36 cards print 90 values (charge, spin, mass of 30 particles)")


@pytest.fixture
def two_cores(monkeypatch):
    """The check shares its games' pieces with a forked worker, as on a machine with two cores:
    notes the order each check hands them out in (a game's rules reading faces with its render
    pass are pieces 0..n-1, its other rules n..2n-1)."""
    calls = []
    original = forkpair.share

    def noting(*args, **kwargs):
        calls.append(args[1])
        return original(*args, **kwargs)

    monkeypatch.setattr(forkpair, "cores", lambda: {0, 1})
    monkeypatch.setattr(forkpair, "share", noting)
    return calls


def test_games_rendered_in_two_processes_report_what_one_after_the_other_does(two_cores, monkeypatch):
    games = [cardgen.load_game(g) for g in ("tutti-quantum", "qcd", "particles-in-circle")]
    shared = cardgen.check(games, cache=None)
    # the most sides first: particles-in-circle, qcd, tutti-quantum; then the other rules in order
    assert two_cores == [[2, 1, 0, 3, 4, 5]]
    monkeypatch.setattr(forkpair, "cores", lambda: {0})
    alone = cardgen.check(games, cache=None)
    assert report_data(shared) == report_data(alone)
    assert [r.game for r in shared.rendered] == ["tutti-quantum", "qcd", "particles-in-circle"]


def test_of_two_broken_games_rendered_apart_the_first_ones_error_is_raised(two_cores, game_copy):
    small, large = game_copy("qcd"), game_copy("particles-in-circle")
    small.edit(FRONT, "{% set w = component.width %}", "{% set w = component.width / 0 %}")
    large.edit("templates/card-back.svg.j2", "{% block artwork %}", "{% block artwork %}{{ undefined_name }}")
    games = [small.load(), large.load()]   # this process takes the larger game, the worker the first
    with pytest.raises(TemplateError) as info:
        cardgen.check(games, cache=None)
    assert two_cores == [[1, 0, 2, 3]]
    assert "ZeroDivisionError" in info.value.message and info.value.location.file.endswith("card-front.svg.j2")


def test_games_a_failing_worker_took_are_rendered_here_without_a_traceback(two_cores, monkeypatch, capfd):
    import os

    games = [cardgen.load_game(g) for g in ("tutti-quantum", "qcd")]
    alone = cardgen.check(games, cache=None)
    here, original = os.getpid(), rendercheck.render_game

    def failing_in_the_worker(*args, **kwargs):
        if os.getpid() != here:
            raise RuntimeError("a bug in the worker")
        return original(*args, **kwargs)

    monkeypatch.setattr(rendercheck, "render_game", failing_in_the_worker)
    capfd.readouterr()
    shared = cardgen.check(games, cache=None)
    assert two_cores == [[1, 0, 2, 3], [1, 0, 2, 3]] and report_data(shared) == report_data(alone)
    assert "Traceback" not in capfd.readouterr().err


def test_a_game_whose_other_rules_fail_is_not_rendered_though_its_faces_were_read(two_cores, game_copy):
    """A game's rules that read faces run beside its render pass, apart from its other rules;
    when one of those fails, the render pass's error is not raised, as a build would not render."""
    pic, qcd = game_copy("particles-in-circle"), game_copy("qcd")
    pic.edit("components/cards.yaml", "colour: [anti-red, anti-green, anti-blue]", "colour: [anti-green, anti-blue]")
    pic.edit("templates/card-back.svg.j2", "{% block artwork %}", "{% block artwork %}{{ undefined_name }}")
    games = [pic.load(), qcd.load()]
    report = cardgen.check(games, cache=None)
    assert two_cores == [[0, 1, 2, 3]]
    assert any(f.rule == "antiparticles-present" and f.game == "particles-in-circle" for f in report.findings)
    assert [r.game for r in report.rendered] == ["qcd"]
    legible = [p.claim for p in report.proofs if p.game == "particles-in-circle" and p.rule == "text-size"]
    assert legible and all(c.startswith("not measured: a face fails to render") for c in legible)


def test_a_check_after_a_build_measures_legibility_from_the_build_cache(renders, monkeypatch, tmp_path):
    """After a build, the legibility rules read each face as the build measured it (kept in its
    face cache with the face) and prove what a check rendering every face proves; nothing is
    rendered again (the rule sheet and answer key this process's first check rendered are
    laid out again, and found unchanged)."""
    game = cardgen.load_game("particles-in-circle")
    cold = cardgen.check(game, cache=None)
    cardgen.build(game, cardgen.BuildOptions(out=tmp_path), jobs=1)
    renders.clear()
    monkeypatch.setattr(forkpair, "cores", lambda: {0})   # counted in this process
    after = cardgen.check(game, cache=tmp_path / ".cache")
    assert not renders
    legible = ("rotated-index", "text-size", "text-contrast")
    assert [p for p in after.proofs if p.rule in legible] == [p for p in cold.proofs if p.rule in legible]
    assert [r.reused for r in after.rendered] == [sides(game)] and after.findings == cold.findings



@pytest.fixture
def kept_whole(monkeypatch) -> list[int]:
    """Notes how many faces the check holds whole after each face a rule asks for (in this
    process: the check is not shared with a worker)."""
    from cardgen import checkfaces

    held: list[int] = []
    original = checkfaces.GameFaces.rendered

    def noting(self, comp, card, side="front"):
        result = original(self, comp, card, side)
        held.append(len(self._kept))
        return result

    monkeypatch.setattr(checkfaces.GameFaces, "rendered", noting)
    monkeypatch.setattr(forkpair, "cores", lambda: {0})
    return held


@pytest.fixture
def drawn(monkeypatch) -> Counter[str]:
    """How many times each face (by key) is drawn from now on."""
    from cardgen import draw

    counted: Counter[str] = Counter()
    original = draw.check_drawable

    def counting(face):
        counted[face.key] += 1
        return original(face)

    monkeypatch.setattr(draw, "check_drawable", counting)
    return counted


def test_a_check_holds_a_bounded_number_of_faces_and_reports_what_holding_them_all_reports(
        game_copy, kept_whole, renders, drawn, monkeypatch):
    """Past the faces kept whole, a face a rule read is drawn at once and dropped: the check's
    memory does not grow with the deck, and its report (text that does not fit, in the build's
    order, faces and drawings counted) is the one a check holding every face gives."""
    from cardgen import checkfaces

    g = game_copy("qcd")
    g.edit(FRONT, 'size=4, width=w - 16, height=5.5, align="middle", weight="bold", min_size=2.6',
           'size=4, width=w - 40, height=5.5, align="middle", weight="bold", min_size=4')   # long names overflow
    game = g.load()
    whole = cardgen.check(game, cache=None)
    assert any(f.rule == "text-fit" for f in whole.findings)
    assert max(kept_whole) == sides(game)   # the rules read every English face before the render pass
    renders.clear()
    drawn.clear()
    kept_whole.clear()
    monkeypatch.setattr(checkfaces, "KEPT_FACES", 3)
    bounded = cardgen.check(g.load(), cache=None)   # loaded again: nothing measured is taken from the first
    assert report_data(bounded) == report_data(whole)
    assert len(kept_whole) >= sides(game) and max(kept_whole) == 3
    # each different face drawn once, as when all are kept; the render pass renders nothing
    # again: a face past the bound is rendered once for each rule reading it (the fronts, by
    # flavour-energies and the legibility rules), never a third time
    assert set(drawn.values()) == {1} and len(drawn) == sum(r.drawings for r in whole.rendered)
    cards = {k: n for k, n in renders.items() if k[1] not in SHEETS}
    assert len(cards) == sides(game) and set(cards.values()) == {1, 2}
    assert {side for (_, _, _, side), n in cards.items() if n == 2} == {"front"}


@pytest.mark.parametrize("kept", [0, 3])
def test_a_face_past_the_bound_that_cannot_be_drawn_fails_the_check_as_when_it_is_kept(
        game_copy, kept_whole, monkeypatch, kept):
    from cardgen import checkfaces

    from .test_check_report import BROKEN_TEMPLATES

    g = game_copy("qcd")
    old, new = BROKEN_TEMPLATES[-1][1:]   # drawing refuses it, rendering does not
    g.edit(FRONT, old, new)
    with pytest.raises(TemplateError) as whole:
        cardgen.check(g.load(), cache=None)
    monkeypatch.setattr(checkfaces, "KEPT_FACES", kept)
    kept_whole.clear()
    with pytest.raises(TemplateError) as bounded:
        cardgen.check(g.load(), cache=None)
    assert max(kept_whole) == kept   # the broken faces were read, drawn and dropped by the rules' turn
    assert str(bounded.value) == str(whole.value) and bounded.value.location == whole.value.location
    assert "card 'u-red' of component 'cards', front" in str(bounded.value)
