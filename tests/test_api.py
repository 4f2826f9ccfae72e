"""The library behaves as the command line: a deck built through ``import cardgen`` alone is the
deck ``cardgen build`` writes, the check gate included, and 'all' means the same everywhere."""

from __future__ import annotations

import json

import pikepdf
import pytest

import cardgen


def test_public_api_names_each_stage_with_a_docstring():
    for name in ("load_game", "check", "build", "render", "export", "languages"):
        fn = getattr(cardgen, name)
        assert callable(fn) and (fn.__doc__ or "").strip(), name
        assert name in cardgen.__all__


def test_a_deck_built_through_the_public_api_alone(tmp_path):
    game = cardgen.load_game("particles-in-circle")
    assert cardgen.check(game, render=False).ok
    results = cardgen.build(game, cardgen.BuildOptions(out=tmp_path, paper="A4"), jobs=1)
    assert [(r.game, r.lang) for r in results] == [("particles-in-circle", "en")]
    folder = tmp_path / "particles-in-circle" / "en"
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["options"]["paper"] == "A4"   # as typed, parsed once into the A4 size
    cards = next(f for f in manifest["files"] if f["component"] == "cards")
    with pikepdf.open(folder / "cards.pdf") as pdf:
        assert len(pdf.pages) == cards["pages"]
        box = [float(v) for v in pdf.pages[0].mediabox]
    assert round((box[2] - box[0]) / 72 * 25.4, 1) == 210.0 and round((box[3] - box[1]) / 72 * 25.4, 1) == 297.0
    assert (folder / "PRINTING.txt").read_text(encoding="utf-8").startswith("Particles")


def test_the_library_build_refuses_a_deck_the_rules_find_wrong(game_copy, tmp_path):
    g = game_copy("particles-in-circle")
    g.edit("components/cards.yaml", "colour: [anti-red, anti-green, anti-blue]", "colour: [anti-green, anti-blue]")
    with pytest.raises(cardgen.RuleFindingsError) as err:
        cardgen.build(g.load(), cardgen.BuildOptions(out=tmp_path), jobs=1)
    assert err.value.exit_code == 1 and err.value.message.startswith("not building: ")
    assert any(f.rule == "antiparticles-present" and "(anti-red)" in f.message for f in err.value.findings)
    assert not (tmp_path / "particles-in-circle").exists()   # nothing written
    # the caller that has just checked may skip the gate: the stage alone then builds it
    built = cardgen.build(g.load(), cardgen.BuildOptions(out=tmp_path), jobs=1, check=False)
    assert (tmp_path / built[0].files[0].path).is_file()


def test_the_build_command_refuses_a_deck_the_rules_find_wrong(game_copy, tmp_path, cli):
    g = game_copy("particles-in-circle")
    g.edit("components/cards.yaml", "colour: [anti-red, anti-green, anti-blue]", "colour: [anti-green, anti-blue]")
    res = cli("build", str(g.path), "--out", str(tmp_path / "out"))
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert "error[antiparticles-present]" in res.stderr and "(anti-red)" in res.stderr
    assert "cardgen: not building: " in res.stderr
    assert not (tmp_path / "out" / "particles-in-circle").exists()   # nothing written


def test_languages_expands_all_to_every_catalog_and_checks_codes():
    games = [cardgen.load_game("qcd"), cardgen.load_game("tutti-quantum")]
    every = cardgen.languages("all", games)
    from cardgen.i18n import available_languages

    assert every == sorted({lng for g in games for lng in available_languages(g)}) and "en" in every
    assert cardgen.languages(["de", "en", "de"], games) == ["de", "en"]
    with pytest.raises(cardgen.InputError, match="is not a language code"):
        cardgen.languages("../etc", games)


def test_render_returns_each_face_with_what_its_rendering_reported():
    game = cardgen.load_game("qcd")
    comp = next(iter(game.components))
    first = game.components[comp].cards[0].id
    faces = cardgen.render(game, "en", [comp], [first])
    assert [r.face.side for r in faces] == ["front"] + (["back"] if game.components[comp].back else [])
    assert all(r.face.card == first and r.face.svg.startswith("<") for r in faces)
    assert all(r.missing == () for r in faces)   # English: nothing to translate


@pytest.mark.parametrize("components, cards, said", [
    (["nope"], None, "unknown component 'nope'"),
    (["cards"], ["u-red", "u-rde"], "no card with id 'u-rde' in component cards — did you mean 'u-red'?"),
    (None, ["no-such-card"], "no card with id 'no-such-card' in qcd"),
])
def test_render_refuses_a_component_or_card_the_game_lacks_as_the_command_does(components, cards, said, tmp_path):
    """The library raised a KeyError for a component, and gave no faces and no word for a
    card id with a typo; the command stopped only when no id at all matched."""
    game = cardgen.load_game("qcd")
    with pytest.raises(cardgen.InputError) as refused:
        cardgen.render(game, "en", components, cards)
    assert said in refused.value.message
    from click.testing import CliRunner

    from cardgen.cli import main

    args = ["render", "qcd", "--out", str(tmp_path / "out"), "--dpi", "10"]
    args += [a for c in components or () for a in ("--component", c)] + [a for c in cards or () for a in ("--card", c)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and said in result.output, result.output
    assert not (tmp_path / "out" / "qcd").exists()
