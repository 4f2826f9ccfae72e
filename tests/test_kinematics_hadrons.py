"""The kinematics rule weighs quarks made together as the mesons they must form, and demands a
minimal ``virtual`` declaration: mutations of Particle Builder's decays it must catch, next to
the legitimate decays it must let pass (each test asserts both, so none passes without the rule)."""

from __future__ import annotations

import cardgen

DECAYS = "tables/decays.yaml"
TAU_ROLL = "{faces: 4, becomes: [nu_tau, d, ubar]}"
H_TO_WW = "{faces: 3, becomes: [W+, W-], virtual: [W-],"


def _kinematics(g) -> dict[str, cardgen.Finding]:
    """The copy's kinematics findings by message (a roll and its antiparticle rule give two)."""
    return {f.message: f for f in g.findings("kinematics")}


def _column_after(g, line: int, key: str) -> int:
    """The 1-based column of the value of ``key`` on a line of the copy's decays table."""
    return (g.path / DECAYS).read_text(encoding="utf-8").splitlines()[line - 1].index(f"{key}: ") + len(key) + 3


def test_a_quark_pair_heavier_as_a_meson_than_the_parent_is_rejected(game_copy):
    """τ⁻ → ν_τ s c̄: 1.37 GeV of bare quarks, but s c̄ is at least a D_s⁻ (1968 MeV > m_τ). The
    shipped table passes first: τ⁻ → ν_τ d ū (π⁻) and its pion-pair rolls, W⁺ → c s̄ (D_s⁺), Z⁰
    and H into quark pairs, and the lone quark of t → b W⁺ and c → s W⁺*, which keeps its bare
    mass (no antiquark of the reaction pairs with it)."""
    g = game_copy("particle-builder")
    assert _kinematics(g) == {}
    g.edit(DECAYS, TAU_ROLL, "{faces: 4, becomes: [nu_tau, s, cbar]}")
    line = g.line_of(DECAYS, "becomes: [nu_tau, s, cbar]")
    found = _kinematics(g)
    tau = ("decays: tau- on 4: τ⁻ → ν_τ s c̅: its products (ν_τ < 0.8 eV + D_s⁻ 1.968 GeV = 1.968 GeV) are not "
           "lighter than the parent (τ⁻ 1.777 GeV), as quarks are confined: s c̅ must form at least the meson D_s⁻ (1.968 GeV)")
    assert tau in found, list(found)
    where = found[tau].location
    assert (where.file, where.line, where.column) == (str(g.path / DECAYS), line, 9)
    assert found[tau].fix == ("fix the products: a quark and an antiquark made together leave as a meson, so pick "
                              "quarks whose lightest meson fits")
    [anti] = [m for m in found if m != tau]
    assert anti.startswith("decays: tau+ on 4 (antiparticle rule): τ⁺ → ν̅_τ s̅ c:")
    assert anti.endswith("c s̅ must form at least the meson D_s⁺ (1.968 GeV)")


def test_a_light_meson_passes_where_a_heavy_one_does_not(game_copy):
    """τ⁻ → ν_τ s ū (a K⁻, 494 MeV) and W⁺ → c b̄ (a B_c⁺, 6.27 GeV) pass; τ⁻ → ν_τ d c̄, whose
    bare quarks weigh 1.28 GeV, is at least a D⁻ (1.87 GeV): caught."""
    g = game_copy("particle-builder")
    g.edit(DECAYS, TAU_ROLL, "{faces: 4, becomes: [nu_tau, s, ubar]}")
    g.edit(DECAYS, "{faces: 5-6, becomes: [c, sbar]}", "{faces: 5-6, becomes: [c, bbar]}")
    assert _kinematics(g) == {}
    assert g.findings("conservation") == []
    g.edit(DECAYS, "[nu_tau, s, ubar]", "[nu_tau, d, cbar]")
    assert any(m.startswith("decays: tau- on 4: τ⁻ → ν_τ d c̅: ") and m.endswith("d c̅ must form at least the meson D⁻ "
               "(1.87 GeV)") for m in _kinematics(g)), list(_kinematics(g))


def test_each_quark_pair_is_weighed_as_the_lightest_meson_it_can_form(game_copy):
    """τ⁻ → ν_τ d ū s s̄ pairs the lightest way, π⁻ η (688 MeV, allowed; K⁰ K⁻ would weigh 991
    MeV); τ⁻ → ν_τ d ū c c̄ is π⁻ η_c at least (3.12 GeV, forbidden), though its bare quarks
    weigh 2.6 GeV."""
    g = game_copy("particle-builder")
    g.edit(DECAYS, TAU_ROLL, "{faces: 4, becomes: [nu_tau, d, ubar, s, sbar]}")
    assert _kinematics(g) == {}
    g.edit(DECAYS, "[nu_tau, d, ubar, s, sbar]", "[nu_tau, d, ubar, c, cbar]")
    [found] = [m for m in _kinematics(g) if m.startswith("decays: tau- on 4: ")]
    assert ("its products (ν_τ < 0.8 eV + π⁻ 139.6 MeV + η_c(1S) 2.984 GeV = 3.124 GeV) are not lighter than the "
            "parent (τ⁻ 1.777 GeV), as quarks are confined: d u̅ must form at least the meson π⁻ (139.6 MeV); c c̅ must form "
            "at least the meson η_c(1S) (2.984 GeV)") in found, found


def test_both_w_of_a_higgs_declared_virtual_is_one_too_many(game_copy):
    """H → W⁺ W⁻: the Higgs (125 GeV) can make one real W (80 GeV), not two: one virtual W is
    needed (either one; the c's W of c → s W⁺* is needed too, and listed as a declared choice),
    a second is a declaration the decay does not need."""
    g = game_copy("particle-builder")
    g.edit(DECAYS, H_TO_WW, "{faces: 3, becomes: [W+, W-], virtual: [W+],")
    report = cardgen.check(g.load(), render=False)
    assert [f for f in report.findings if f.rule == "kinematics"] == []
    subjects = {c.subject for c in report.choices if c.rule == "kinematics"}
    assert {"decays: H on 3: H → W⁺ W⁻: W⁺ virtual", "decays: c on 3,4,5,6: c → s W⁺: W⁺ virtual"} <= subjects
    g.edit(DECAYS, "virtual: [W+],", "virtual: [W+, W-],")
    line = g.line_of(DECAYS, "virtual: [W+, W-],")
    [found] = g.findings("kinematics")
    assert found.message == ("decays: H on 3: H → W⁺ W⁻ declares W⁺ W⁻ virtual, but H 125.1 GeV is heavy enough to "
                             "make any one of W⁺ or W⁻ real (with W⁺ real, its real products are W⁺ 80.36 GeV)")
    assert found.fix == "remove one of W+ or W- from 'virtual': declare virtual only what the reaction cannot make real"
    where = found.location
    assert (where.file, where.line, where.column) == (str(g.path / DECAYS), line, _column_after(g, line, "virtual"))


def test_a_virtual_the_decay_does_not_need_is_named(game_copy):
    """H → W⁺ Z⁰ W⁻ with all three virtual: any one could be real (the products could not all be,
    251 GeV > 125 GeV); H → b b̄ with b virtual: the pair, an η_b at least, is light enough."""
    g = game_copy("particle-builder")
    g.edit(DECAYS, H_TO_WW, "{faces: 3, becomes: [W+, Z0, W-], virtual: [W-, Z0, W+],")
    g.edit(DECAYS, "{faces: 4-6, becomes: [b, bbar]}", "{faces: 4-6, becomes: [b, bbar], virtual: [b]}")
    assert sorted(_kinematics(g)) == [
        "decays: H on 3: H → W⁺ Z⁰ W⁻ declares W⁻ Z⁰ W⁺ virtual, but H 125.1 GeV is heavy enough to make any one of "
        "W⁻ or Z⁰ or W⁺ real (with W⁻ real, its real products are W⁻ 80.36 GeV)",
        "decays: H on 4,5,6: H → b b̅ declares b virtual, but H 125.1 GeV is heavy enough to make every product real "
        "(η_b(1S) 9.399 GeV)"]


ANNIHILATION = "tables/annihilation.yaml"
NEUTRINO_ROW = "  - name: neutrino pair\n"


def _add_annihilation(g, row: str) -> None:
    g.edit(ANNIHILATION, NEUTRINO_ROW, row + NEUTRINO_ROW)


def test_quarks_that_meet_are_weighed_as_the_quarks_that_leave(game_copy):
    """d d̄ → u ū passed on bare masses, then was rejected once only the products were weighed as
    a meson (π⁰ 135 MeV against 9.4 MeV of bare d d̄): what meets is confined as well."""
    g = game_copy("particle-builder")
    _add_annihilation(g, "  - name: down pair\n    members: [d]\n    products: [[u, ubar]]\n    via: [g]\n"
                         "    roll: even\n")
    assert [m for m in _kinematics(g) if "down pair" in m or "d d̅ → u u̅" in m] == []


def test_a_lepton_pair_short_of_the_meson_needs_an_energy_source(game_copy):
    """e⁻e⁺ (1.02 MeV) cannot make u ū, which leaves as at least a π⁰: not a decay, so the fix
    offers an energy source as well as other products."""
    g = game_copy("particle-builder")
    _add_annihilation(g, "  - name: electrons to quarks\n    members: [e-]\n    products: [[u, ubar]]\n"
                         "    via: [gamma]\n    roll: even\n")
    [found] = [f for m, f in _kinematics(g).items() if "e⁻ e⁺ → u u̅" in m or "e- e+" in m or "u u̅" in m]
    assert "outweigh what goes in" in found.message and "π⁰" in found.message
    assert "energy: reason" in found.fix   # not a decay: an energy source is a fix


def test_a_declared_energy_source_lets_a_lepton_pair_make_quarks(game_copy):
    g = game_copy("particle-builder")
    _add_annihilation(g, "  - name: electrons to quarks\n    members: [e-]\n    products: [[u, ubar]]\n"
                         "    via: [gamma]\n    roll: even\n    energy: \"the pair collides at more than 135 MeV\"\n")
    assert [m for m in _kinematics(g) if "u u̅" in m] == []
