"""Every checker rule rejects a deliberately broken copy of the shipped data with the right
message, and accepts the shipped data as it is."""

from __future__ import annotations

import dataclasses

import pytest

import cardgen
from cardgen.check import check_game
from cardgen.particles import PhysicsData


def messages(findings):
    return "\n".join(str(f) for f in findings)


def has(findings, rule: str, *words: str) -> bool:
    return any(f.rule == rule and all(w in f.message for w in words) for f in findings)


@pytest.mark.parametrize("game", ["particle-builder", "tutti-quantum", "qcd", "particles-in-circle"])
def test_shipped_game_has_no_rule_findings(game):
    report = cardgen.check(cardgen.load_game(game))
    assert report.ok, messages(report.findings)


# --- generic rules -------------------------------------------------------------------------

def test_missing_template_is_reported_with_the_component_line(game_copy):
    g = game_copy("qcd")
    (g.path / "templates" / "card-back.svg.j2").unlink()
    found = g.findings("template-exists")
    assert has(found, "template-exists", "card-back.svg.j2")
    assert found[0].location.file.endswith("components/cards.yaml") and found[0].location.line == 11


def test_a_template_linked_from_outside_its_folder_is_not_proved_to_exist(game_copy, tmp_path):
    """The rule looked only whether a file was there: a link out of the templates folder,
    which the renderer refuses, was proved to exist."""
    g = game_copy("qcd")
    outside = tmp_path / "elsewhere.svg.j2"
    outside.write_text((g.path / "templates" / "card-back.svg.j2").read_text(encoding="utf-8"), encoding="utf-8")
    (g.path / "templates" / "card-back.svg.j2").unlink()
    (g.path / "templates" / "card-back.svg.j2").symlink_to(outside)
    found = g.findings("template-exists")
    assert len(found) == 1 and "'card-back.svg.j2' of component 'cards' is a link to a file outside" in found[0].message
    assert "the renderer will not read it" in found[0].message and "in place of the link" in found[0].fix
    assert found[0].location.file.endswith("components/cards.yaml") and found[0].location.line == 11


def test_card_bigger_than_any_paper(game_copy):
    g = game_copy("qcd")
    g.edit("components/cards.yaml", "size: {width: 63, height: 88}", "size: {width: 500, height: 700}")
    assert has(g.findings(), "fits-paper", "500 × 700 mm")


def test_lozenge_angle_must_match_its_box(game_copy):
    g = game_copy("tutti-quantum")
    g.edit("components/particles.yaml", "height: 86.603", "height: 80")
    assert has(g.findings(), "shape-geometry", "declared 120°")


def test_antiparticle_entries_must_mirror_each_other():
    game = cardgen.load_game("qcd")
    physics = game.physics
    broken = dict(physics.particles)
    broken["ubar"] = dataclasses.replace(broken["ubar"], charge=broken["u"].charge)
    bad = dataclasses.replace(game, physics=PhysicsData(broken, physics.colours))
    assert has(check_game(bad), "antiparticle-links", "'u'", "charge is not opposite")


# --- deck rules ----------------------------------------------------------------------------

def test_deck_total_and_split(game_copy):
    g = game_copy("tutti-quantum")
    g.edit("components/particles.yaml", "line: q,     count: 13", "line: q,     count: 12")
    found = g.findings("deck-size")
    assert has(found, "deck-size", "43 cards", "needs 44")
    assert has(found, "deck-size", "line = q", "needs 13")


def test_fermion_without_antiparticle(game_copy):
    g = game_copy("particle-builder")
    g.edit("components/particles.yaml", "  - {id: tau+,      particle: tau+,      points: 3}\n", "")
    assert has(g.findings(), "antiparticles-present", "'tau-'", "antitau")


def test_coloured_antiparticle_must_come_in_the_anti_colour(game_copy):
    g = game_copy("particles-in-circle")
    g.edit("components/cards.yaml", "colour: [anti-red, anti-green, anti-blue]", "colour: [anti-green, anti-blue]")
    found = g.findings()
    assert has(found, "antiparticles-present", "(anti-red)")


def test_colours_spread_evenly(game_copy):
    g = game_copy("qcd")
    g.edit("components/cards.yaml", "  - id: wild-w", "  - {id: u-red-extra, particle: u, colour: red}\n  - id: wild-w")
    assert has(g.findings(), "colour-balance", "up quark", "red 3")


def test_quark_needs_a_colour_not_an_anti_colour(game_copy):
    g = game_copy("qcd")
    g.edit("components/cards.yaml", "  - id: wild-w", "  - {id: u-odd, particle: u, colour: anti-red}\n  - id: wild-w")
    assert has(g.findings(), "colour-balance", "u-odd", "must carry a colour")


def test_colour_wheel_opposites_are_derived_not_trusted():
    game = cardgen.load_game("qcd")
    colours = dict(game.physics.colours)
    colours["anti-red"] = dataclasses.replace(colours["anti-red"], hue=170, additive=(1, 1, 0))
    bad = dataclasses.replace(game, physics=PhysicsData(game.physics.particles, colours))
    found = check_game(bad)
    assert has(found, "colour-wheel", "not opposite")
    assert has(found, "colour-wheel", "not the mix")


@pytest.mark.parametrize("colour, ink, off", [("red", "#0072B2", 158), ("anti-blue", "#009E73", 104),
                                               ("anti-red", "#CC79A7", 147), ("green", "#D55E00", 94)])
def test_an_ink_of_another_hue_is_a_finding_unless_its_reason_is_declared(colour, ink, off):
    game = cardgen.load_game("qcd")
    colours = dict(game.physics.colours)
    colours[colour] = dataclasses.replace(colours[colour], print_colour=ink, ink_design=None)
    bad = dataclasses.replace(game, physics=PhysicsData(game.physics.particles, colours))
    wheel = [f for f in check_game(bad) if f.rule == "colour-wheel"]
    # each of these inks is another colour's too: that is a finding of its own (a shared cue)
    assert [f for f in wheel if "share the print" in f.message], messages(wheel)
    found = [f for f in wheel if "share the print" not in f.message]
    assert len(found) == 1, messages(found)
    assert found[0].message.startswith(f"'{colour}' is printed in {ink}, hue ") and f", {off}° from its own hue" in \
        found[0].message
    assert found[0].location == colours[colour].print_location
    assert "design: {reason:" in found[0].fix


def test_the_shipped_inks_that_depart_from_their_hue_are_listed_as_choices():
    from cardgen.check import check

    report = check([cardgen.load_game("qcd")], render=False)
    inks = sorted(c.subject for c in report.choices if c.rule == "colour-wheel")
    assert inks == ["'blue' inked #0072B2 (hue 202°, 38° from its 240°)",
                    "'green' inked #009E73 (hue 164°, 44° from its 120°)"]
    assert all("colour-blind" in c.reason or "black" in c.reason for c in report.choices if c.rule == "colour-wheel")
    assert not [f for f in report.findings if f.rule == "colour-wheel"]


def test_a_grey_ink_has_no_hue_to_name_it_by():
    game = cardgen.load_game("qcd")
    colours = dict(game.physics.colours)
    colours["red"] = dataclasses.replace(colours["red"], print_colour="#777777")
    bad = dataclasses.replace(game, physics=PhysicsData(game.physics.particles, colours))
    assert has(check_game(bad), "colour-wheel", "'red' is printed in #777777, which is not a colour ink")



# --- targets -------------------------------------------------------------------------------

def test_target_must_be_buildable_from_the_deck(game_copy):
    g = game_copy("particle-builder")
    g.edit("components/targets.yaml", "requires: [u, u, u]", "requires: [u, u, u, u]")
    assert has(g.findings(), "targets", "delta-pp", "needs 4 × up quark", "has 3")


def test_target_charge_must_be_whole(game_copy):
    g = game_copy("particle-builder")
    g.edit("components/targets.yaml", "requires: [u, dbar]", "requires: [u, d]")
    found = g.findings()
    assert has(found, "targets", "pi-plus", "charge 1/3")
    assert has(found, "targets", "pi-plus", "not colour-neutral")


def test_target_baryon_number_follows_its_kind(game_copy):
    g = game_copy("particle-builder")
    g.edit("components/targets.yaml", "hadron: baryon, requires: [u, d, s]", "hadron: meson,  requires: [u, d, s]")
    assert has(g.findings(), "targets", "lambda", "baryon number is 1, a meson has 0")


def test_harder_targets_never_score_less(game_copy):
    g = game_copy("particle-builder")
    g.edit("components/targets.yaml", "requires: [c, cbar],      points: 18", "requires: [c, cbar],      points: 5")
    assert has(g.findings(), "targets", "'j-psi' is harder", "scores fewer points")


# --- reaction tables -----------------------------------------------------------------------

def test_transformation_must_change_charge_by_the_w(game_copy):
    g = game_copy("particle-builder")
    g.edit("tables/transformations.yaml", "{from: u, via: W-, to: d}", "{from: u, via: W+, to: d}")
    assert has(g.findings(), "transformations", "u + W+", "changes charge from 5/3 to -1/3")


def test_missing_transformation_is_found(game_copy):
    g = game_copy("particle-builder")
    g.edit("tables/transformations.yaml", "  - {from: e-, via: W+, to: nu_e}\n", "")
    assert has(g.findings(), "transformations", "electron + W⁺ → electron neutrino is missing")


def test_rulebook_w_decay_as_printed_violates_charge(game_copy):
    """The rulebook's 'W⁺ → down/anti-up' is caught; cardgen ships u d̄ instead."""
    g = game_copy("particle-builder")
    g.edit("tables/decays.yaml", "becomes: [u, dbar]", "becomes: [d, ubar]")
    found = g.findings("conservation")
    assert has(found, "conservation", "W+ on 3,4", "changes charge from 1 to -1")
    assert has(found, "conservation", "W- on 3,4 (antiparticle rule)")


def test_decay_must_conserve_lepton_family(game_copy):
    g = game_copy("particle-builder")
    g.edit("tables/decays.yaml", "becomes: [nu_mu, e-, nubar_e]", "becomes: [nu_e, e-, nubar_e]")
    assert has(g.findings(), "conservation", "mu- on 5,6", "lepton mu")


def test_die_faces_covered_exactly_once(game_copy):
    g = game_copy("particle-builder")
    g.edit("tables/decays.yaml", "      - {faces: 2, becomes: [s, W+]}\n", "      - {faces: 3, becomes: [s, W+]}\n")
    found = g.findings("dice-coverage")
    assert has(found, "dice-coverage", "for t", "face(s) 2")
    assert has(found, "dice-coverage", "for t", "face(s) 3 more than once")


def test_nested_roll_coverage(game_copy):
    g = game_copy("particle-builder")
    g.edit("tables/decays.yaml", "          - {faces: 1, becomes: [c, cbar]}\n", "")
    assert has(g.findings(), "dice-coverage", "for H", "face(s) 1")


def test_annihilation_products_conserve_charge(game_copy):
    g = game_copy("particle-builder")
    g.edit("tables/annihilation.yaml", "products: [[gamma, gamma]]", "products: [[gamma, W+]]")
    assert has(g.findings(), "conservation", "annihilation", "charge from 0 to 1")


def test_oscillation_keeps_charge(game_copy):
    g = game_copy("particle-builder")
    g.edit("tables/oscillation.yaml", "becomes: [nu_tau]", "becomes: [tau-]")
    assert has(g.findings(), "conservation", "nu_e on 5,6", "charge")


# --- Tutti Quantum ------------------------------------------------------------------------

def test_setup_must_use_the_whole_deck(game_copy):
    g = game_copy("tutti-quantum")
    g.edit("tables/setup.yaml", "shown: 4, rounds: 9", "shown: 4, rounds: 8")
    assert has(g.findings(), "setup-balance", "3 players", "40 cards", "has 44")


def test_vertex_table_is_derived_from_physics(game_copy):
    g = game_copy("tutti-quantum")
    g.edit("tables/vertices.yaml", "lines: [H, H, H]", "lines: [H, H, gamma]")
    found = g.findings("vertices-derived")
    assert has(found, "vertices-derived", "has the vertex H-H-H")
    assert has(found, "vertices-derived", "'hhh' (gamma-H-H)", "not a tree-level")


def test_electron_gluon_vertex_is_rejected(game_copy):
    g = game_copy("tutti-quantum")
    g.edit("tables/vertices.yaml", "lines: [q, q, g]", "lines: [e, e, g]")
    found = g.findings("vertices-derived")
    assert has(found, "vertices-derived", "'qqg'", "not a tree-level")
    assert has(found, "vertices-derived", "q-q-g")
