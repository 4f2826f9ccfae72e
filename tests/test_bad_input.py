"""Unusable input: a one-line error with file:line:column and a fix, exit code 2, no traceback."""

from __future__ import annotations

import pytest

import cardgen
from cardgen.errors import InputError, Location


def load_error(g) -> InputError:
    with pytest.raises(InputError) as info:
        g.load()
    return info.value


def test_yaml_syntax_error_points_at_the_spot(game_copy):
    g = game_copy("qcd")
    g.edit("components/cards.yaml", "  particle: {type: particle, required: true}", "  particle: {type: particle, required: true")
    err = load_error(g)
    assert err.location.file.endswith("components/cards.yaml")
    assert (err.location.line, err.location.column) == (16, 9)
    assert "YAML syntax error" in str(err) and "flow mapping started at line 15, column 13" in err.message


def test_unknown_key_suggests_the_right_one(game_copy):
    g = game_copy("particles-in-circle")
    g.edit("components/cards.yaml", "  colour: {type: colour}", "  colour: {type: colour}\n  note: {type: text}")
    g.edit("components/cards.yaml", "    id: \"{particle}-{colour}\"\n    count: 3",
           "    id: \"{particle}-{colour}\"\n    count: 3\n    colur: red")
    err = load_error(g)
    assert "unknown field 'colur'" in err.message and "did you mean 'colour'" in err.message
    assert err.location.line == 23 and err.location.column == 5


def test_unknown_key_in_a_component_file(game_copy):
    g = game_copy("qcd")
    g.edit("components/cards.yaml", "bleed: 3", "bleeed: 3")
    err = load_error(g)
    assert "unknown key 'bleeed'" in err.message and "did you mean 'bleed'" in err.message
    assert err.location.line == 8


def test_wrong_type(game_copy):
    g = game_copy("tutti-quantum")
    g.edit("components/particles.yaml", "count: 13", "count: thirteen")
    err = load_error(g)
    assert "expected a whole number" in err.message and err.fix
    assert err.location.file.endswith("particles.yaml") and err.location.line == 17


def test_count_must_be_positive(game_copy):
    g = game_copy("tutti-quantum")
    g.edit("components/particles.yaml", "count: 13", "count: 0")
    assert "too small" in load_error(g).message


def test_missing_file(game_copy):
    g = game_copy("qcd")
    g.edit("game.yaml", "  - tables/flavours.yaml", "  - tables/flavors.yaml")
    err = load_error(g)
    line = g.line_of("game.yaml", "tables/flavors.yaml")
    assert err.message == "table file 'tables/flavors.yaml' not found"   # reported where the name is written
    assert err.location.file.endswith("game.yaml") and (err.location.line, err.location.column) == (line, 5)
    assert err.fix == "create it, or fix or remove its line in the 'tables' list"


def test_unknown_particle_with_did_you_mean(game_copy):
    g = game_copy("particle-builder")
    g.edit("components/targets.yaml", "requires: [u, u, d]", "requires: [u, u, down]")
    err = load_error(g)
    assert err.message == "unknown particle 'down' — did you mean 'd' (down quark)?"
    assert err.location.line == g.line_of("components/targets.yaml", "requires: [u, u, down]")


def test_duplicate_card_id(game_copy):
    g = game_copy("particle-builder")
    g.edit("components/particles.yaml", "{id: c,     particle: c,", "{id: u,     particle: c,")
    err = load_error(g)
    assert "duplicate card id 'u'" in err.message and "first at line 19" in err.message


def test_a_matrix_value_listed_twice_is_found_where_it_is_repeated(game_copy):
    g = game_copy("qcd")
    g.edit("components/cards.yaml", "colour: [red, green, blue]}", "colour: [red, green, green]}")
    err = load_error(g)
    line = g.line_of("components/cards.yaml", "green, green")
    text = (g.path / "components/cards.yaml").read_text(encoding="utf-8").splitlines()[line - 1]
    first, again = text.index("green") + 1, text.rindex("green") + 1
    assert err.message == (f"duplicate card id 'u-green' in component 'cards': matrix 'colour' lists 'green' again "
                           f"(first at {line}:{first})")
    assert (err.location.line, err.location.column) == (line, again)
    assert err.fix == "remove the repeated value, or raise 'count' for more copies"


def test_duplicate_yaml_key(game_copy):
    g = game_copy("qcd")
    g.edit("components/cards.yaml", "bleed: 3", "bleed: 3\nbleed: 2")
    assert "duplicate key 'bleed'" in load_error(g).message


def test_unknown_rule_name(game_copy):
    g = game_copy("qcd")
    g.edit("game.yaml", "rule: colour-balance", "rule: colour-balanse")
    with pytest.raises(InputError) as info:
        cardgen.check(g.load())
    assert "did you mean 'colour-balance'" in info.value.message


def test_dangling_table_reference(game_copy):
    g = game_copy("tutti-quantum")
    g.edit("components/score-tokens.yaml", "vertex: qqg, reverse: hhh", "vertex: qqg, reverse: hhhh")
    err = load_error(g)
    assert "'hhhh' is not an id in table 'vertices'" in err.message and "did you mean 'hhh'" in err.message


def test_path_may_not_leave_the_game_folder(game_copy):
    g = game_copy("qcd")
    g.edit("game.yaml", "  - tables/flavours.yaml", "  - ../../../../etc/passwd")
    assert "leaves the game folder" in load_error(g).message


@pytest.mark.parametrize("edit, words", [
    (("components/cards.yaml", "count: 2", "count: 2.5"), "expected a whole number"),
    (("components/cards.yaml", "particle: W+", "particle: W++"), "unknown particle 'W++'"),
    (("game.yaml", "id: qcd", "id: other"), "does not match its folder name"),
    (("components/cards.yaml", "size: {width: 63, height: 88}", "size: {width: -63, height: 88}"),
     "must be greater than 0"),
])
def test_cli_check_reports_one_line_and_exits_2(game_copy, cli, edit, words):
    g = game_copy("qcd")
    g.edit(*edit)
    res = cli("check", str(g.path))
    assert res.returncode == 2
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert words in res.stderr and "Fix:" in res.stderr


def test_same_game_id_twice_is_an_input_error(game_copy, cli):
    g = game_copy("qcd")
    res = cli("check", "qcd", "--games-dir", str(g.games_dir))
    assert res.returncode == 2 and "defined twice" in res.stderr


def test_cli_check_on_a_broken_copy_names_file_and_line(tmp_path, cli, game_copy):
    g = game_copy("qcd")
    g.edit("components/cards.yaml", "count: 2", "count: two")
    res = cli("check", str(g.path))
    assert res.returncode == 2, res.stdout + res.stderr
    assert "components/cards.yaml:25:12" in res.stderr and "expected a whole number" in res.stderr
    assert "Traceback" not in res.stderr


@pytest.mark.parametrize("written, meant", [
    ("electron", "'e-' (electron)"), ("E-", "'e-' (electron)"), ("photon", "'gamma' (photon)"),
    ("Higgs", "'H' (Higgs boson)"), ("up", "'u' (up quark)"), ("z0", "'Z0' (Z boson)"),
    ("W", "'W+' (W⁺ boson) or 'W-' (W⁻ boson)"), ("anti-up", "'ubar' (anti-up quark)"),
    ("electon", "'e-' (electron)"),
])
def test_an_unknown_particle_is_matched_to_the_one_its_name_or_letters_mean(written, meant):
    """Designers write particles by name, in other letters or without their charge: each is
    told the id meant, with its name."""
    from cardgen.loader import shipped_physics

    with pytest.raises(InputError) as info:
        shipped_physics().particle(written, Location("cards.yaml", 3, 5))
    assert info.value.message == f"unknown particle '{written}' — did you mean {meant}?"


def test_an_unknown_particle_like_none_gets_no_guess():
    from cardgen.loader import shipped_physics

    with pytest.raises(InputError) as info:
        shipped_physics().particle("gluino", Location("cards.yaml", 3, 5))
    assert info.value.message == "unknown particle 'gluino'"
