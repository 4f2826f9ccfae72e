"""Physics the mutation sweep found unjudged or misjudged: real loop-induced decays (the b → s γ
penguin), forbidden ones kept forbidden, and a kinematics fix that names what could be virtual
from the reaction itself. Each test breaks a copy of a shipped game and runs the rules on it."""

from __future__ import annotations

import pytest

from cardgen.loader import shipped_physics
from cardgen.rules.standard_model import loop_carrier, loop_lines

DECAYS = "tables/decays.yaml"
B_ROWS = ("  - particle: b\n    virtual: [W-]\n    rolls:\n      - {faces: 3-6, becomes: [c, W-]}\n"
          "      - {faces: 2, becomes: [u, W-]}\n")


def _b_decays(g, first: str, second: str) -> None:
    g.edit(DECAYS, B_ROWS, f"  - particle: b\n    rolls:\n      - {{faces: 3-6, {first}}}\n"
                           f"      - {{faces: 2, {second}}}\n")


# -- 2. a loop is any one-loop diagram of Standard-Model vertices ------------------------------------

def test_the_penguin_decays_b_to_s_photon_and_gluon_are_loops():
    physics = shipped_physics()
    P = physics.particles.__getitem__
    for boson in ("gamma", "g"):
        lines = loop_lines((P("b"),), (P("s"), P(boson)), physics)
        assert lines is not None and {p.id for p in lines} in ({"t", "W+"}, {"t", "W-"}, {"tbar", "W-"},
                                                                 {"tbar", "W+"}), lines
        assert loop_carrier((P("b"),), (P("s"), P(boson)), physics).id in ("t", "tbar")
    assert loop_carrier((P("H"),), (P("g"), P("g")), physics).id == "t"
    assert loop_lines((P("mu-"),), (P("e-"), P("gamma")), physics) is None     # lepton families kept
    assert loop_lines((P("tau-"),), (P("mu-"), P("gamma")), physics) is None


def test_declared_penguin_loops_pass_and_name_the_w_and_top(game_copy):
    g = game_copy("particle-builder")
    _b_decays(g, 'becomes: [s, gamma], loop: "W–top penguin (PDG B → X_s γ)"',
              'becomes: [s, g], loop: "W–top penguin"')
    assert [f.message for f in g.findings()] == []
    import cardgen
    choices = [c for c in cardgen.check(g.load(), render=False).choices if c.rule == "couplings"]
    assert any("b → s γ: a loop (e.g. through t and W" in c.subject for c in choices), choices
    assert any("b → s g: a loop (e.g. through t and W" in c.subject for c in choices), choices


@pytest.mark.parametrize("rows, words", [
    (("particle: mu-\n    via: [W-]\n    rolls:\n      - {faces: 5-6, becomes: [nu_mu, e-, nubar_e]}",
      "particle: mu-\n    rolls:\n      - {faces: 5-6, becomes: [e-, gamma], loop: lepton flavour}"),
     "μ⁻ → e⁻ γ: no loop of Standard-Model vertices joins"),
    (("becomes: [g, g], loop:", "becomes: [g, gamma], loop:"), "does not conserve colour"),
    (("{faces: 6, becomes: [b, bbar]}", "{faces: 6, becomes: [gamma, gamma], loop: top loop}"), "Landau–Yang"),
    (("{faces: 6, becomes: [b, bbar]}", "{faces: 6, becomes: [g, g], loop: top loop}"), "Landau–Yang"),
])
def test_loops_physics_forbids_stay_rejected(game_copy, rows, words):
    g = game_copy("particle-builder")
    g.edit(DECAYS, *rows)
    found = [f.message for f in g.findings("couplings")]
    assert any(words in m for m in found), found


# -- 4. the kinematics fix names the products that could be virtual ----------------------------------

def _kinematics_fixes(g) -> list[str]:
    return [f.fix for f in g.findings("kinematics")]


def test_a_heavy_product_of_a_w_decay_is_named_virtual_not_the_w(game_copy):
    g = game_copy("particle-builder")
    g.edit(DECAYS, "{faces: 5-6, becomes: [c, sbar]}", "{faces: 5-6, becomes: [t, bbar]}")
    fixes = _kinematics_fixes(g)
    assert fixes and all(f == "fix the products, or declare t virtual ('virtual: [t]')" for f in fixes), fixes


def test_no_virtual_hint_where_no_declaration_helps(game_copy):
    g = game_copy("particle-builder")
    g.edit(DECAYS, "{faces: 3-6, becomes: [s, W+]}", "{faces: 3-6, becomes: [b, W+]}")   # c → b W⁺: b alone > c
    fixes = _kinematics_fixes(g)
    assert fixes and all(f == "fix the products" for f in fixes), fixes


def test_an_annihilation_into_a_z_and_a_gluon_suggests_no_virtual_w(game_copy):
    g = game_copy("particle-builder")
    g.edit("tables/annihilation.yaml", "products: [[gamma, gamma], [g, g]]", "products: [[gamma, gamma], [Z0, g]]")
    fixes = _kinematics_fixes(g)
    assert fixes and not any("virtual" in f for f in fixes), fixes


@pytest.mark.parametrize("old, new, said", [
    ("name: Lambda baryon,", "name: Sigma+ baryon,", "prints the name 'Sigma+ baryon', which says sigma, but Lambda is a lambda"),
    ("identity: [Lambda]", "identity: [Sigma0]", "prints the name 'Lambda baryon', which says lambda, but Sigma0 is a sigma"),
    ("name: Neutral kaon,", "name: Neutral antikaon,", "which says it is an antiparticle, but K0 is not one"),
    ("name: Positive kaon,", "name: Negative kaon,", "which says negative, but K+ has charge 1"),
    ("name: Positive pion,", "name: Pion minus,", "which says minus, but pi+ has charge 1"),
    ("name: Positive pion,", "name: Pi-minus meson,", "which says minus, but pi+ has charge 1"),
    ("name: Positive pion,", "name: π⁻ meson,", "which says pi-, but pi+ has charge 1"),
    ("name: Positive pion,", 'name: "Pion (charge −1)",', "which says charge -1, but pi+ has charge 1"),
    ("name: Delta++ baryon,", "name: Delta0 baryon,", "which says delta0, but Delta(1232)++ has charge 2"),
    ("name: Proton,", "name: Electron,", "which says electron, but p is a proton"),
    ("name: Proton,", "name: Σ⁺ baryon,", "which says sigma, but p is a proton"),
    ("name: Hydrogen atom,", "name: Antihydrogen atom,", "which says it is an antiparticle, but p + e- are none"),
])
def test_a_targets_printed_name_agrees_with_the_particle_it_names(game_copy, old, new, said):
    """The name a target prints was never held to its identity: a 'Sigma+ baryon' built as PDG's
    neutral Λ, a 'Neutral antikaon' that is K⁰ (d s̄) passed."""
    g = game_copy("particle-builder")
    g.edit("components/targets.yaml", old, new)
    found = [f for f in g.findings("targets") if "prints the name" in f.message]
    assert any(said in f.message for f in found), found
    assert all(f.location.line == g.line_of("components/targets.yaml", new) for f in found)


def test_names_that_say_less_or_the_usual_thing_pass(game_copy):
    g = game_copy("particle-builder")
    g.edit("components/targets.yaml", "name: Negative pion,", "name: Pion,")
    g.edit("components/targets.yaml", "name: J/psi meson,", "name: Charmonium,")
    g.edit("components/targets.yaml", "name: Positive kaon,", "name: K+ meson,")
    g.edit("components/targets.yaml", "name: Neutral kaon,", "name: Neutral K meson,")
    g.edit("components/targets.yaml", "name: Lambda baryon,", "name: Lambda-s baryon,")   # a hyphen is no charge
    assert not [f for f in g.findings("targets") if "prints the name" in f.message]


@pytest.mark.parametrize("old, new", [
    ("{faces: 1, becomes: [c, cbar]}", '{faces: 1, becomes: [gamma], loop: "top loop"}'),   # H → γ
    ("{faces: 1, becomes: [c, cbar]}", '{faces: 1, becomes: [Z0], loop: "a loop"}'),        # H → Z⁰
])
def test_one_particle_never_becomes_one_of_another_mass_even_declared_a_loop(game_copy, old, new):
    """H → γ and H → Z⁰ passed once declared a loop, and the finding without it advised one."""
    g = game_copy("particle-builder")
    g.edit("tables/decays.yaml", old, new)
    found = [f for f in g.findings("couplings") if "declared a loop" in f.message]
    assert found and ("one particle never becomes one particle of another mass" in found[0].message
                      or "charge-conjugation" in found[0].message), found
    g.edit("tables/decays.yaml", new, new.replace(", loop: \"top loop\"", "").replace(', loop: "a loop"', ""))
    assert not [f for f in g.findings("couplings") if "declare 'loop" in f.message + f.fix]
