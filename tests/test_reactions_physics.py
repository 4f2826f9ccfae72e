"""Every reaction the games print is kinematically allowed and goes through Standard-Model
vertices: the vertex module read like the physics, broken copies of the shipped tables rejected
through the CLI at the right file:line:column, declarations checked for misuse, and the shipped
games proved clean with counts computed here from the data."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

import cardgen
from cardgen.check import check_records
from cardgen.loader import load_game
from cardgen.rules.standard_model import (ckm_weight, couples, lone_colour, loop_carrier, tree_diagram,
                                          weak_partner)

GAMES = Path(__file__).resolve().parent.parent / "data" / "games"


@pytest.fixture(scope="module")
def physics():
    return load_game("particle-builder").physics


@pytest.fixture(scope="module")
def P(physics):
    """Particles by id: P('e-'), P('gamma')."""
    return lambda pid: physics.particles[pid]


# --- the vertex module ------------------------------------------------------------------------

VERTICES = [  # all lines incoming: e⁻ e⁺ γ is e⁺e⁻ → γ, e⁻ → e⁻ γ, γ → e⁻ e⁺
    ("e-", "e+", "gamma"), ("mu-", "mu+", "gamma"), ("u", "ubar", "gamma"), ("t", "tbar", "gamma"),
    ("u", "ubar", "g"), ("b", "bbar", "g"),
    ("nu_e", "nubar_e", "Z0"), ("e-", "e+", "Z0"), ("c", "cbar", "Z0"),
    ("u", "dbar", "W-"), ("u", "sbar", "W-"), ("t", "bbar", "W-"), ("d", "ubar", "W+"), ("b", "cbar", "W+"),
    ("e-", "nubar_e", "W+"), ("tau-", "nubar_tau", "W+"), ("nu_mu", "mu+", "W-"),
    ("t", "tbar", "H"), ("tau-", "tau+", "H"), ("e-", "e+", "H"),
    ("W+", "W-", "gamma"), ("W+", "W-", "Z0"), ("g", "g", "g"),
    ("H", "H", "H"), ("H", "W+", "W-"), ("Z0", "Z0", "H"),
]
NOT_VERTICES = [
    ("nu_e", "nubar_e", "gamma"),  # a neutrino has no charge
    ("e-", "e+", "g"), ("nu_mu", "nubar_mu", "g"),  # leptons have no colour
    ("nu_tau", "nubar_tau", "H"),  # no Standard-Model neutrino mass
    ("u", "cbar", "W-"), ("u", "cbar", "W+"), ("d", "sbar", "Z0"),  # same charge: no W, no flavour-changing Z
    ("e-", "nubar_mu", "W+"), ("mu-", "nubar_e", "W+"),  # a W stays in one lepton family
    ("u", "ubar", "W+"), ("e-", "dbar", "W+"),
    ("H", "g", "g"), ("H", "gamma", "gamma"), ("H", "g", "gamma"),  # loops only
    ("gamma", "gamma", "gamma"), ("Z0", "Z0", "Z0"), ("gamma", "gamma", "Z0"), ("g", "g", "gamma"),
    ("e-", "e+", "e-"), ("W+", "W+", "Z0"),
]


@pytest.mark.parametrize("a,b,c", VERTICES)
def test_standard_model_vertex_exists(P, a, b, c):
    assert couples(P(a), P(b), P(c))
    assert couples(P(c), P(a), P(b)), "a vertex does not depend on the order of its lines"


@pytest.mark.parametrize("a,b,c", NOT_VERTICES)
def test_no_such_vertex(P, a, b, c):
    assert not couples(P(a), P(b), P(c))


def test_the_photon_couples_to_charge_the_z_to_every_fermion(physics):
    for f in (p for p in physics if p.is_fermion):
        bar = physics.anti(f.id)
        assert couples(f, bar, physics.particles["gamma"]) == (f.charge != 0), f.id
        assert couples(f, bar, physics.particles["g"]) == (f.kind == "quark"), f.id
        assert couples(f, bar, physics.particles["Z0"]), f.id


def test_a_w_joins_every_up_type_quark_to_every_down_type_quark_with_ckm_weights(P, physics):
    for up in ("u", "c", "t"):
        row = [ckm_weight(P(up), P(down)) for down in ("d", "s", "b")]
        assert sum(row) == pytest.approx(1, abs=2e-3), up  # the CKM matrix is unitary
        for down in ("d", "s", "b"):
            assert weak_partner(P(up), P(down), physics).id == "W+"  # u → d W⁺
            assert weak_partner(P(down), P(up), physics).id == "W-"  # d → u W⁻
    assert ckm_weight(P("u"), P("d")) == pytest.approx(0.97435 ** 2)
    assert ckm_weight(P("b"), P("t")) > 0.99 > 0.01 > ckm_weight(P("t"), P("d"))
    assert weak_partner(P("u"), P("c"), physics) is None
    assert weak_partner(P("e-"), P("nu_e"), physics).id == "W-"
    assert weak_partner(P("e-"), P("nu_mu"), physics) is None


def test_tree_diagrams_exchange_a_fermion_or_pass_a_declared_boson(P, physics):
    ee_aa = tree_diagram((P("e-"), P("e+")), (P("gamma"), P("gamma")), (), physics)
    assert ee_aa is not None and [p.id for p in ee_aa.internal] in (["e-"], ["e+"])
    assert tree_diagram((P("nu_e"), P("nubar_e")), (P("gamma"), P("gamma")), (), physics) is None
    assert tree_diagram((P("e-"), P("e+")), (P("g"), P("g")), (), physics) is None
    assert tree_diagram((P("nu_e"), P("nubar_e")), (P("Z0"),), (), physics) is not None
    muon = (P("nu_mu"), P("e-"), P("nubar_e"))
    assert tree_diagram((P("mu-"),), muon, (), physics) is None, "the W inside must be declared"
    assert len(tree_diagram((P("mu-"),), muon, (P("W-"),), physics).vertices) == 2
    assert tree_diagram((P("t"),), (P("b"), P("W+")), (P("W-"),), physics) is None, "an unneeded boson"


def test_loops_need_a_carrier_and_conserve_colour(P, physics):
    assert loop_carrier((P("H"),), (P("g"), P("g")), physics).id == "t"
    assert loop_carrier((P("H"),), (P("gamma"), P("gamma")), physics).id == "t"
    assert lone_colour((P("H"),), (P("g"), P("gamma")))
    assert not lone_colour((P("H"),), (P("g"), P("g")))


# --- broken copies through the CLI ----------------------------------------------------------

def where(g, rel: str, text: str) -> tuple[str, int, int]:
    """file, line and column of the row holding the first ``text`` (the item after its '- ')."""
    body = (g.path / rel).read_text(encoding="utf-8")
    assert text in body, f"{text!r} not in {rel}"
    n = body[:body.index(text)].count("\n") + 1
    line = body.splitlines()[n - 1]
    col = line.index("- ") + 3 if line.lstrip().startswith("- ") else len(line) - len(line.lstrip()) + 1
    return str(g.path / rel), n, col


def rejected(cli, g, rel: str, old: str, new: str) -> tuple[str, str, int, int]:
    """Replace ``old`` by ``new``, run ``cardgen check`` on the copy: exit 1, and the output with
    the mutated row's file, line and column."""
    file, line, col = where(g, rel, old)
    g.edit(rel, old, new)
    res = cli("check", str(g.path))
    assert res.returncode == 1, res.stdout + res.stderr
    return res.stdout + res.stderr, file, line, col


def no_sm_fix(reaction: str) -> str:
    """The fix for a reaction no exchanged boson can make: no 'via' is suggested."""
    return (f"Fix: fix the products: no W, Z, photon or gluon exchange supplies the missing coupling, so {reaction} "
            f"does not exist in the Standard Model at tree level.")


DECAY_FIX = "Fix: fix the products."   # a decay borrows none, and c → b W⁺ stays too heavy whatever is virtual


def test_a_decay_into_a_heavier_product_is_rejected(cli, game_copy):
    out, file, line, col = rejected(cli, game_copy("particle-builder"), "tables/decays.yaml",
                                    "{faces: 3-6, becomes: [s, W+]}", "{faces: 3-6, becomes: [b, W+]}")
    assert (f"{file}:{line}:{col}: error[kinematics]: decays: c on 3,4,5,6: c → b W⁺: its real products (b 4.186 "
            f"GeV) are not lighter than the parent (c 1.273 GeV). {DECAY_FIX}") in out


def test_a_decay_through_no_vertex_is_rejected(cli, game_copy):
    out, file, line, col = rejected(cli, game_copy("particle-builder"), "tables/decays.yaml",
                                    "{faces: 4-6, becomes: [b, bbar]}", "{faces: 4-6, becomes: [g, gamma]}")
    assert (f"{file}:{line}:{col}: error[couplings]: decays: H on 4,5,6: H → g γ does not happen through "
            f"Standard-Model vertices: there is no Standard-Model vertex H g γ. {no_sm_fix('H → g γ')}") in out


def test_a_loop_cannot_make_a_lone_gluon(cli, game_copy):
    g = game_copy("particle-builder")
    g.edit("tables/decays.yaml", "becomes: [g, g], loop:", "becomes: [g, gamma], loop:")
    file, line, _ = where(g, "tables/decays.yaml", "becomes: [g, gamma], loop:")
    col = (g.path / "tables/decays.yaml").read_text().splitlines()[line - 1].index("loop: ") + 7
    res = cli("check", str(g.path))
    assert res.returncode == 1
    assert (f"{file}:{line}:{col}: error[couplings]: decays: H on 4,5,6: H → g γ does not conserve colour: a "
            f"single colour-charged particle cannot come from or go into a colourless state, not even through a "
            f"loop. Fix: fix the products.") in res.stdout + res.stderr


def test_neutrinos_do_not_annihilate_into_photons(cli, game_copy):
    out, file, line, col = rejected(cli, game_copy("particle-builder"), "tables/annihilation.yaml",
                                    "  - name: neutrino pair\n    members: [nu_e, nu_mu, nu_tau]\n    products: [[Z0]]",
                                    "  - name: neutrino pair\n    members: [nu_e, nu_mu, nu_tau]\n"
                                    "    products: [[gamma, gamma]]")
    for sym, pid in (("νₑ", "nu_e"), ("ν_μ", "nu_mu"), ("ν_τ", "nu_tau")):
        bar = sym.replace("ν", "ν̅")
        assert (f"{file}:{line}:{col}: error[couplings]: annihilation: neutrino pair: {pid} annihilation: "
                f"{sym} {bar} → γ γ does not happen through Standard-Model vertices: γ does not couple to {sym} "
                f"(there is no vertex {sym} {bar} γ). {no_sm_fix(f'{sym} {bar} → γ γ')}") in out
    assert "declares an energy source but needs none" in out  # the Z's energy reason no longer applies


def test_charged_leptons_do_not_annihilate_into_gluons(cli, game_copy):
    out, file, line, col = rejected(cli, game_copy("particle-builder"), "tables/annihilation.yaml",
                                    "  - name: charged lepton pair\n    members: [e-, mu-, tau-]\n"
                                    "    products: [[gamma, gamma]]",
                                    "  - name: charged lepton pair\n    members: [e-, mu-, tau-]\n    products: [[g, g]]")
    assert (f"{file}:{line}:{col}: error[couplings]: annihilation: charged lepton pair: e- annihilation: e⁻ e⁺ → "
            f"g g does not happen through Standard-Model vertices: g does not couple to e⁻ (there is no vertex "
            f"e⁻ e⁺ g). {no_sm_fix('e⁻ e⁺ → g g')}") in out


def test_a_wild_w_cannot_keep_the_charge(cli, game_copy):
    out, file, line, col = rejected(cli, game_copy("qcd"), "tables/transmutations.yaml",
                                    "{id: u-d, from: u, to: d}", "{id: u-d, from: u, to: c}")
    assert (f"{file}:{line}:{col}: error[weak-transitions]: transmutations: u-d: u → c is not a weak transition "
            f"(both have charge 2/3): no W vertex u c̅ W. Fix: a W turns an up-type quark into a down-type quark "
            f"or back, or a charged lepton into its own neutrino.") in out


def test_a_three_higgs_vertex_worth_one_point_is_rejected(cli, game_copy):
    out, file, line, col = rejected(cli, game_copy("tutti-quantum"), "tables/vertices.yaml",
                                    "lines: [H, H, H],     points: 6}", "lines: [H, H, H],     points: 1}")
    assert (f"{file}:{line}:{col}: error[vertex-points]: vertex 'hhh' (H-H-H) scores 1 point, fewer than 'eeh' "
            f"(e-e-H) with 4, though it is rarer: collecting its lines takes 47.67 draws from the 44 cards of "
            f"'particles' on average, those of 'eeh' 22.79. Fix: give 'hhh' at least 4 points (rarer vertices score "
            f"more).") in out


def test_an_expert_rule_naming_an_unknown_vertex_is_rejected(cli, game_copy):
    g = game_copy("tutti-quantum")
    ids = [v["id"] for v in yaml.safe_load((g.path / "tables/vertices.yaml").read_text(encoding="utf-8"))["rows"]]
    g.edit("tables/expert.yaml", "vertices: [eea, eea]", "vertices: [eea, hh]")
    file, line, col = where(g, "tables/expert.yaml", "  - id: blue-sky")
    res = cli("check", str(g.path))
    assert res.returncode == 1
    assert (f"{file}:{line}:{col}: error[sub-diagrams]: expert: 'blue-sky' names vertex 'hh', which is not in "
            f"table 'vertices' — did you mean 'hhh'? Fix: use one of: {', '.join(ids)}.") in (
        res.stdout + res.stderr)


# --- further mutations of the same kinds ----------------------------------------------------

HEAVIER = [  # (file, old, new, words of the finding)
    ("tables/decays.yaml", "{faces: 4-6, becomes: [u, W-]}", "{faces: 4-6, becomes: [c, W-]}",
     "s → c W⁻: its real products (c 1.273 GeV) are not lighter than the parent (s 92.90 MeV)"),
    ("tables/decays.yaml", "{faces: 5-6, becomes: [nu_mu, e-, nubar_e]}",
     "{faces: 5-6, becomes: [nu_mu, tau-, nubar_tau]}", "μ⁻ → ν_μ τ⁻ ν̅_τ: its products"),
    ("tables/decays.yaml", "{faces: 3, becomes: [W+, W-], virtual: [W-],", "{faces: 3, becomes: [Z0, Z0],",
     "H → Z⁰ Z⁰: its products (Z⁰ 91.19 GeV + Z⁰ 91.19 GeV = 182.4 GeV) are not lighter than the parent (H 125.1 GeV)"),
    ("tables/decays.yaml", "{faces: 3-6, becomes: [c, W-]}", "{faces: 3-6, becomes: [t, W-]}",
     "b → t W⁻: its real products (t 172.6 GeV)"),
]


@pytest.mark.parametrize("rel,old,new,words", HEAVIER)
def test_other_heavier_products_are_rejected(cli, game_copy, rel, old, new, words):
    out, file, line, col = rejected(cli, game_copy("particle-builder"), rel, old, new)
    assert f"{file}:{line}:{col}: error[kinematics]: " in out and words in out, out


IMPOSSIBLE = [
    ("tables/decays.yaml", "{faces: 6, becomes: [b, bbar]}", "{faces: 6, becomes: [g, g]}",
     "Z⁰ → g g does not happen through Standard-Model vertices: there is no Standard-Model vertex Z⁰ g g"),
    ("tables/decays.yaml", "{faces: 2-3, becomes: [tau-, tau+]}", "{faces: 2-3, becomes: [gamma, gamma]}",
     "H → γ γ does not happen through Standard-Model vertices: there is no Standard-Model vertex H γ γ"),
    ("tables/decays.yaml", "{faces: 1-2, becomes: [nu_e, e+]}", "{faces: 1-2, becomes: [nu_mu, e+]}",
     "W⁺ → ν_μ e⁺ does not happen through Standard-Model vertices: there is no Standard-Model vertex W⁺ ν_μ e⁺"),
    ("tables/decays.yaml", "{faces: 5-6, becomes: [nu_mu, e-, nubar_e]}", "{faces: 5-6, becomes: [nu_mu, e-, nu_e]}",
     "μ⁻ → ν_μ e⁻ νₑ does not happen through Standard-Model vertices: no Standard-Model vertex joins μ⁻ and e⁻"),
    ("tables/annihilation.yaml", "  - name: quark pair\n    members: [u, d, s, c, b, t]\n    products: [[gamma, gamma], [g, g]]",
     "  - name: quark pair\n    members: [u, d, s, c, b, t]\n    products: [[gamma, gamma], [e-, e+]]",
     "u u̅ → e⁻ e⁺ does not happen through Standard-Model vertices: no Standard-Model vertex joins u and e⁻"),
    ("tables/annihilation.yaml", "  - name: charged lepton pair\n    members: [e-, mu-, tau-]\n    products: [[gamma, gamma]]",
     "  - name: charged lepton pair\n    members: [e-, mu-, tau-]\n    products: [[Z0, g]]",
     "e⁻ e⁺ → Z⁰ g does not happen through Standard-Model vertices: g does not couple to e⁻ (there is no vertex e⁻ e⁺ g)"),
]


@pytest.mark.parametrize("rel,old,new,words", IMPOSSIBLE)
def test_other_impossible_couplings_are_rejected(cli, game_copy, rel, old, new, words):
    out, file, line, col = rejected(cli, game_copy("particle-builder"), rel, old, new)
    assert any(ln.startswith(f"{file}:{line}:{col}: error[") and words in ln for ln in out.splitlines()), out


@pytest.mark.parametrize("old,new,why", [
    ("from: u, to: d", "from: u, to: t", "u → t is not a weak transition (both have charge 2/3)"),
    ("from: d, to: u", "from: d, to: s", "d → s is not a weak transition (both have charge -1/3)"),
    ("from: c, to: s", "from: c, to: u", "c → u is not a weak transition (both have charge 2/3)"),
    ("from: s, to: u", "from: s, to: b", "s → b is not a weak transition (both have charge -1/3)"),
    ("from: s, to: u", "from: s, to: ubar", "s → u̅ is not a weak transition (a W changes charge by one unit"),
])
def test_other_same_charge_wild_w_changes_are_rejected(cli, game_copy, old, new, why):
    out, file, line, col = rejected(cli, game_copy("qcd"), "tables/transmutations.yaml", old, new)
    assert f"{file}:{line}:{col}: error[weak-transitions]: transmutations: " in out and why in out, out


@pytest.mark.parametrize("vertex,points", [("eeh", 2), ("eea", 2), ("qqh", 4), ("hhh", 3), ("qqg", 7), ("ggg", 5)])
def test_points_that_do_not_follow_rarity_are_rejected(cli, game_copy, vertex, points):
    """Whatever vertex gets whatever points, exactly the vertices that score fewer points than a
    commoner one are flagged; rarity here is computed from the deck as the average number of
    draws that collects a vertex's three lines (the j-th of c cards costs deck/(c − j))."""
    g = game_copy("tutti-quantum")
    data = yaml.safe_load((g.path / "tables/vertices.yaml").read_text(encoding="utf-8"))
    deck = yaml.safe_load((g.path / "components/particles.yaml").read_text(encoding="utf-8"))
    cards = {c["line"]: c["count"] for c in deck["cards"]}
    total = sum(cards.values())
    draws = {v["id"]: sum(total / (cards[line] - v["lines"][:i].count(line)) for i, line in enumerate(v["lines"]))
             for v in data["rows"]}
    pts = {v["id"]: v["points"] for v in data["rows"]} | {vertex: points}
    flagged = {v for v in draws if any(draws[w] < draws[v] and pts[w] > pts[v] for w in draws)}
    assert flagged, "every case here breaks the order"
    row = next(v for v in data["rows"] if v["id"] == vertex)
    line_text = next(ln for ln in (g.path / "tables/vertices.yaml").read_text(encoding="utf-8").splitlines()
                     if f"id: {vertex}," in ln)
    g.edit("tables/vertices.yaml", line_text, line_text.replace(f"points: {row['points']}", f"points: {points}"))
    res = cli("check", str(g.path))
    assert res.returncode == 1
    found = re.findall(r"(\S+):(\d+):(\d+): error\[vertex-points\]: vertex '(\w+)'", res.stdout)
    assert {f[3] for f in found} == flagged
    for file, line, col, vid in found:
        assert (file, int(line), int(col)) == where(g, "tables/vertices.yaml", f"id: {vid},"), vid



def test_a_declared_virtual_boson_makes_an_s_channel_annihilation(game_copy):
    g = game_copy("particle-builder")
    g.edit("tables/annihilation.yaml", "products: [[gamma, gamma], [g, g]]\n    roll: even",
           "products: [[gamma, gamma], [e-, e+]]\n    roll: even\n    via: [Z0]")
    found = g.findings("couplings")
    assert [f.message for f in found if "e⁻ e⁺" in f.message] == [], found
    records = check_records(g.load())
    assert any(c.rule == "couplings" and c.subject.endswith("u u̅ → e⁻ e⁺: through the virtual Z⁰")
               for c in records[2])


# --- declarations are checked, not trusted --------------------------------------------------

@pytest.mark.parametrize("rel,old,new,words", [
    ("tables/decays.yaml", "{faces: 3-6, becomes: [s, W+]}", "{faces: 3-6, becomes: [s, W+], virtual: [Z0]}",
     "error[input]: 'virtual' names Z0, which is not among the products [s, W+]"),
    ("tables/decays.yaml", "{faces: 5-6, becomes: [nu_mu, e-, nubar_e]}", "{faces: 5-6, becomes: [nu_mu, e-, nubar_e], via: [e-]}",
     "error[input]: 'via' lists the virtual bosons inside the diagram; e- is a fermion"),
    ("tables/decays.yaml", "{faces: 1-4, remains: true}", "{faces: 1-4, remains: true, loop: why}",
     "error[input]: 'loop' describes a reaction's products, and this roll has none"),
    ("tables/decays.yaml", "  - particle: H\n    rolls:", "  - particle: H\n    virtual: [W+]\n    rolls:",
     "error[input]: 'virtual' names W+, which is not among the products [b, bbar]"),
])
def test_misused_declarations_are_input_errors(cli, game_copy, rel, old, new, words):
    g = game_copy("particle-builder")
    file, line, _ = where(g, rel, old)
    key = re.findall(r"(\w+): ", new)[-1]
    g.edit(rel, old, new)
    lines = (g.path / rel).read_text(encoding="utf-8").splitlines()
    line = next(n for n in range(line, len(lines) + 1) if f"{key}: " in lines[n - 1])
    col = lines[line - 1].index(f"{key}: ") + 1 + (0 if key == "loop" else len(key) + 2)
    res = cli("check", str(g.path))
    assert res.returncode == 2, res.stdout + res.stderr
    assert f"{file}:{line}:{col}: {words}" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr


def test_a_transformation_takes_no_virtual_products(cli, game_copy):
    g = game_copy("particle-builder")
    g.edit("tables/transformations.yaml", "{from: u, via: W-, to: d}", "{from: u, via: W-, to: d, virtual: [d]}")
    res = cli("check", str(g.path))
    assert res.returncode == 2 and "unknown key 'virtual' in a transformation" in res.stderr


def test_a_lepton_decay_without_its_internal_w_is_rejected(cli, game_copy):
    g = game_copy("particle-builder")
    file, line, col = where(g, "tables/decays.yaml", "{faces: 5-6, becomes: [nu_mu, e-, nubar_e]}")
    g.edit("tables/decays.yaml", "  - particle: mu-\n    via: [W-]\n", "  - particle: mu-\n")
    res = cli("check", str(g.path))
    assert res.returncode == 1
    assert (f"{file}:{line - 1}:{col}: error[couplings]: decays: mu- on 5,6: μ⁻ → ν_μ e⁻ ν̅ₑ does not happen through "
            f"Standard-Model vertices: no Standard-Model vertex joins μ⁻ and e⁻. Fix: declare the virtual W⁻ "
            f"exchanged inside the diagram ('via: [W-]'), or fix the products.") in res.stdout


@pytest.mark.parametrize("rel,old,new,rule,words", [
    ("tables/decays.yaml", "{faces: 3-6, becomes: [b, W+]}", "{faces: 3-6, becomes: [b, W+], virtual: [W+]}", "kinematics",
     "t → b W⁺ declares W⁺ virtual, but t 172.6 GeV is heavy enough to make every product real "
     "(b 4.186 GeV + W⁺ 80.36 GeV = 84.55 GeV)"),
    ("tables/decays.yaml", "{faces: 4-6, becomes: [b, bbar]}", "{faces: 4-6, becomes: [b, bbar], loop: a guess}",
     "couplings", "H → b b̅ is declared a loop but has a tree-level diagram"),
    ("tables/transformations.yaml", "{from: u, via: W-, to: d}", "{from: u, via: W-, to: d, energy: a guess}",
     "kinematics", "u W⁻ → d declares an energy source but needs none"),
    ("tables/decays.yaml", "{faces: 6, becomes: [nu_tau, mu-, nubar_mu]}",
     "{faces: 6, becomes: [nu_tau, mu-, nubar_mu], via: [Z0]}", "couplings",
     "τ⁻ → ν_τ μ⁻ ν̅_μ does not happen through Standard-Model vertices: it declares the virtual Z⁰, which no "
     "diagram needs: the reaction happens without it"),
])
def test_unneeded_declarations_are_findings(cli, game_copy, rel, old, new, rule, words):
    g = game_copy("particle-builder")
    key = re.findall(r"(\w+): ", new)[-1]
    file, line, col = where(g, rel, old)
    g.edit(rel, old, new)
    text = (g.path / rel).read_text(encoding="utf-8").splitlines()[line - 1]
    if key != "via":  # a declaration that is not needed is reported where it is written
        col = text.index(f"{key}: ") + len(key) + 3
    res = cli("check", str(g.path))
    assert res.returncode == 1, res.stdout + res.stderr
    assert any(ln.startswith(f"{file}:{line}:{col}: error[{rule}]") and words in ln for ln in res.stdout.splitlines()), (
        line, col, res.stdout)


# --- score tokens -----------------------------------------------------------------------------

def test_more_tokens_than_the_cards_can_score_is_rejected(cli, game_copy):
    g = game_copy("tutti-quantum")
    out, file, line, col = rejected(cli, g, "components/score-tokens.yaml",
                                    "{id: eeh-eeh, vertex: eeh, reverse: eeh, count: 6}",
                                    "{id: eeh-eeh, vertex: eeh, reverse: eeh, count: 9}")
    assert (f"{file}:{line}:{col}: error[score-tokens]: 9 tokens 'eeh-eeh' (eeh|eeh), but the 44 cards of "
            f"'particles' complete at most 8 such vertices in a game. Fix: print at most 8, or declare why in the "
            f"check's 'surplus'.") in out


def test_six_three_higgs_tokens_for_four_higgs_cards_are_rejected_unless_declared(cli, game_copy):
    g = game_copy("tutti-quantum")
    out, file, line, col = rejected(cli, g, "components/score-tokens.yaml",
                                    "{id: eeh-eeh, vertex: eeh, reverse: eeh, count: 6}",
                                    "{id: eeh-eeh, vertex: hhh, reverse: hhh, count: 6}")
    assert (f"{file}:{line}:{col}: error[score-tokens]: 6 tokens 'eeh-eeh' (hhh|hhh), but the 44 cards of "
            f"'particles' complete at most 1 such vertex in a game.") in out
    g.edit("game.yaml", "    table: vertices\n    deck: particles\n  - rule: sub-diagrams",
           "    table: vertices\n    deck: particles\n    surplus: {eeh-eeh: spares for lost tokens}\n"
           "  - rule: sub-diagrams")
    report = cardgen.check(g.load())
    assert report.ok, report.findings
    assert [(c.subject, c.reason) for c in report.choices if c.rule == "score-tokens"] == [
        ("6 tokens 'eeh-eeh' for at most 1 vertices", "spares for lost tokens")]


@pytest.mark.parametrize("line,cards,most", [
    ("H", 4, 1),    # two H H H vertices need five H cards (they share at most one)
    ("H", 5, 2),
    ("g", 3, 1),
    ("g", 12, 6),   # a hexagon of gluons with a spoke at each corner
    ("g", 11, 5),
])
def test_one_line_type_vertices_share_at_most_the_honeycomb_allows(line, cards, most):
    from collections import Counter

    from cardgen.rules.tutti_scoring import most_vertices
    assert most_vertices((line, line, line), Counter({line: cards})) == most


def test_two_sides_of_a_token_share_the_cards_they_need():
    from collections import Counter

    from cardgen.rules.tutti_scoring import most_of_any
    deck = Counter({"q": 13, "e": 8, "g": 12, "gamma": 7, "H": 4})
    assert most_of_any([("q", "q", "H"), ("e", "e", "H")], deck) == 8  # both need the 8 ends of 4 Higgs cards
    assert most_of_any([("e", "e", "gamma"), ("q", "q", "gamma")], deck) == 14  # 7 photon cards, 14 ends
    assert most_of_any([("q", "q", "g")], deck) == 13


# --- the shipped games: clean, with proofs counted from the data ------------------------------

def _yaml(game: str, rel: str):
    return yaml.safe_load((GAMES / game / rel).read_text(encoding="utf-8"))


def _leaves(rolls, inherited=frozenset()):
    """(declared keys, product options) of every outcome with products; keys of a dice entry or
    an enclosing roll apply to the outcomes below."""
    for r in rolls:
        keys = inherited | {k for k in ("virtual", "via", "loop", "energy") if k in r}
        if "roll" in r:
            yield from _leaves(r["roll"], keys)
        elif "becomes" in r:
            yield keys, [r["becomes"]]
        elif "options" in r:
            yield keys, r["options"]


@pytest.fixture(scope="module")
def pb_records():
    return check_records(load_game("particle-builder"))


def proofs_of(records, rule: str, table: str):
    return [p for p in records[1] if p.rule == rule and p.claim.startswith(f"{table}: ")]


def test_particle_builder_decay_proofs_count_the_data(pb_records):
    assert pb_records[0] == []
    anti = {p["id"]: p["antiparticle"] for p in yaml.safe_load(
        (GAMES.parent / "particles.yaml").read_text(encoding="utf-8"))["particles"]}
    n = virtual = chained = loops = single = 0
    for entry in _yaml("particle-builder", "tables/decays.yaml")["entries"]:
        parents = entry["particle"] if isinstance(entry["particle"], list) else [entry["particle"]]
        for parent in parents:
            both = 2 if anti[parent] != parent else 1
            entry_keys = frozenset(k for k in ("virtual", "via", "loop", "energy") if k in entry)
            for roll, options in _leaves(entry["rolls"], entry_keys):
                n += both * len(options)
                virtual += both * len(options) * ("virtual" in roll)
                loops += both * len(options) * ("loop" in roll)
                chained += both * len(options) * ("via" in roll)
                single += both * sum(len(o) == 2 for o in options) * ("loop" not in roll and "via" not in roll)
    [kin] = proofs_of(pb_records, "kinematics", "decays")
    assert (kin.claim, kin.count) == (f"decays: {n} decays: on-shell products lighter than the parent; {virtual} "
                                      f"through a declared virtual W⁺/W⁻", n)
    [cpl] = proofs_of(pb_records, "couplings", "decays")
    assert (cpl.claim, cpl.count) == (f"decays: {n} decays happen through Standard-Model vertices ({single} at one "
                                      f"vertex, {chained} through a chain of vertices, {loops} through a declared "
                                      f"loop)", n)
    [cons] = proofs_of(pb_records, "conservation", "decays")
    assert cons.count == n
    choices = [c for c in pb_records[2] if c.rule == "kinematics" and c.location.file.endswith("decays.yaml")]
    assert len(choices) == virtual


def test_particle_builder_annihilation_and_transformation_proofs_count_the_data(pb_records):
    rows = _yaml("particle-builder", "tables/annihilation.yaml")["rows"]
    n = sum(len(r["members"]) * len(r["products"]) for r in rows)
    energy = sum(len(r["members"]) * len(r["products"]) for r in rows if "energy" in r)
    one = sum(len(r["members"]) * sum(len(o) == 1 for o in r["products"]) for r in rows)
    [kin] = proofs_of(pb_records, "kinematics", "annihilation")
    assert (kin.claim, kin.count) == (f"annihilation: {n} annihilations: on-shell products no heavier than what goes "
                                      f"in, except {energy} that take energy from a declared source", n)
    [cpl] = proofs_of(pb_records, "couplings", "annihilation")
    assert (cpl.claim, cpl.count) == (f"annihilation: {n} annihilations happen through Standard-Model vertices ({one} "
                                      f"at one vertex, {n - one} through a chain of vertices)", n)
    rows = _yaml("particle-builder", "tables/transformations.yaml")["rows"]
    [cons, complete] = proofs_of(pb_records, "transformations", "transformations")
    assert (cons.claim, cons.count) == (f"transformations: {len(rows)} transformations conserve charge, baryon number "
                                        f"and lepton family numbers", len(rows))
    assert complete.count == len(rows)
    [kin] = proofs_of(pb_records, "kinematics", "transformations")
    assert kin.count == len(rows) and f"except {sum('energy' in r for r in rows)} that take energy" in kin.claim
    [cpl] = proofs_of(pb_records, "couplings", "transformations")
    assert cpl.claim == f"transformations: {len(rows)} transformations happen through Standard-Model vertices " \
                        f"({len(rows)} at one vertex)"
    energy_choices = {c.location.line for c in pb_records[2] if c.rule == "kinematics"
                      and c.location.file.endswith("transformations.yaml")}
    assert len(energy_choices) == sum("energy" in r for r in rows)


def test_the_h_to_gluons_loop_is_listed_with_its_reason(pb_records):
    [loop] = [c for c in pb_records[2] if c.rule == "couplings" and "a loop" in c.subject]
    assert loop.subject == "decays: H on 4,5,6: H → g g: a loop (e.g. through t)"
    assert "top-quark loop" in loop.reason


def test_qcd_and_tutti_proofs_count_the_data():
    qcd = check_records(load_game("qcd"))
    assert qcd[0] == []
    rows = _yaml("qcd", "tables/transmutations.yaml")["rows"]
    [weak] = [p for p in qcd[1] if p.rule == "weak-transitions"]
    assert weak.count == len(rows) and weak.claim.startswith(
        f"transmutations: {len(rows)} flavour changes are charge-changing weak transitions")
    tq = check_records(load_game("tutti-quantum"))
    assert tq[0] == []
    counts = {p.rule: p.count for p in tq[1]}
    assert counts["vertices-derived"] == counts["vertex-points"] == len(_yaml("tutti-quantum", "tables/vertices.yaml")["rows"])
    assert counts["score-tokens"] == len(_yaml("tutti-quantum", "components/score-tokens.yaml")["cards"])
    assert counts["sub-diagrams"] == len(_yaml("tutti-quantum", "tables/expert.yaml")["rows"])
    assert counts["setup-balance"] == len(_yaml("tutti-quantum", "tables/setup.yaml")["rows"])


def test_a_reaction_too_big_to_draw_is_a_finding_not_a_hang(game_copy):
    g = game_copy("particle-builder")
    g.edit("tables/decays.yaml", "{faces: 4, becomes: [nu_tau, d, ubar]}",
           "{faces: 4, becomes: [nu_tau, d, ubar, u, ubar, u, ubar, u, ubar, d, dbar]}")
    found = g.findings("couplings")
    assert any("has 12 particles, more than the 10 whose diagrams the checker draws" in f.message for f in found)


# --- what no declaration can make true ------------------------------------------------------

@pytest.mark.parametrize("row,old,new,words", [
    ("- name: charged lepton pair", "    members: [e-, mu-, tau-]\n    products: [[gamma, gamma]]",
     "    members: [e-, mu-, tau-]\n    products: [[gamma]]",
     "charged lepton pair: e- annihilation: e⁻ e⁺ → γ: particles that meet cannot become one massless γ: energy and "
     "momentum are not both conserved (the pair's invariant mass is at least 1.022 MeV, a massless particle's is "
     "zero). Fix: list at least two products (e.g. two photons), or one massive particle the pair can form."),
    ("- name: quark pair", "products: [[gamma, gamma], [g, g]]", "products: [[gamma, gamma], [g]]",
     "quark pair: u annihilation: u u̅ → g: particles that meet cannot become one massless g"),
])
def test_a_pair_never_becomes_one_massless_particle(cli, game_copy, row, old, new, words):
    g = game_copy("particle-builder")
    file, line, col = where(g, "tables/annihilation.yaml", row)
    g.edit("tables/annihilation.yaml", old, new)
    res = cli("check", str(g.path), "--no-render")
    assert res.returncode == 1
    assert f"{file}:{line}:{col}: error[kinematics]: annihilation: {words}" in res.stdout + res.stderr


@pytest.mark.parametrize("new", ["{faces: 6, becomes: [gamma, gamma], loop: a W loop}",
                                 "{faces: 6, becomes: [g, g], loop: through quarks}"])
def test_no_loop_turns_a_z_into_two_photons_or_two_gluons(cli, game_copy, new):
    """Landau–Yang: a massive spin-1 particle never becomes two identical massless spin-1 bosons."""
    g = game_copy("particle-builder")
    file, line, _ = where(g, "tables/decays.yaml", "{faces: 6, becomes: [b, bbar]}")
    g.edit("tables/decays.yaml", "{faces: 6, becomes: [b, bbar]}", new)
    col = (g.path / "tables/decays.yaml").read_text(encoding="utf-8").splitlines()[line - 1].index("loop: ") + 7
    res = cli("check", str(g.path), "--no-render")
    assert res.returncode == 1
    pair = "γ γ" if "gamma" in new else "g g"
    assert (f"{file}:{line}:{col}: error[couplings]: decays: Z0 on 6: Z⁰ → {pair} is declared a loop, but it never "
            f"happens, not even through a loop: a massive spin-1 particle and two identical massless spin-1 bosons "
            f"cannot turn into each other (angular momentum and Bose symmetry: the Landau–Yang theorem). Fix: fix the "
            f"products (a spin-0 particle such as H may become two photons or two gluons).") in res.stdout + res.stderr


def test_a_z_into_two_gluons_without_a_loop_is_not_told_to_declare_one(cli, game_copy):
    out, file, line, col = rejected(cli, game_copy("particle-builder"), "tables/decays.yaml",
                                    "{faces: 6, becomes: [b, bbar]}", "{faces: 6, becomes: [g, g]}")
    found = [ln for ln in out.splitlines() if ln.startswith(f"{file}:{line}:{col}: error[couplings]")]
    assert found and "the Landau–Yang theorem" in found[0] and "declare a loop" not in found[0], out


def test_a_decay_cannot_take_energy_from_elsewhere(cli, game_copy):
    g = game_copy("particle-builder")
    old, new = "{faces: 5-6, becomes: [c, sbar]}", "{faces: 5-6, becomes: [t, bbar], energy: the W is boosted}"
    file, line, _ = where(g, "tables/decays.yaml", old)
    g.edit("tables/decays.yaml", old, new)
    col = (g.path / "tables/decays.yaml").read_text(encoding="utf-8").splitlines()[line - 1].index("energy: ") + 9
    res = cli("check", str(g.path), "--no-render")
    assert res.returncode == 1
    assert (f"{file}:{line}:{col}: error[kinematics]: decays: W+ on 5,6: W⁺ → t b̅: a decay takes no energy from "
            f"elsewhere: its real products (t 172.6 GeV + b̅ 4.186 GeV = 176.8 GeV) must be lighter than the parent "
            f"(W⁺ 80.36 GeV), whatever 'energy' says. Fix: fix the products, or declare t virtual ('virtual: [t]'), "
            f"and remove 'energy'.") in res.stdout + res.stderr


@pytest.mark.parametrize("game,rel,old,new", [
    ("particle-builder", "tables/transformations.yaml",
     "{from: b, via: W+, to: t, energy: the top outweighs the quark and the W together; the rest comes from the "
     "collision}", '{from: b, via: W+, to: t, energy: " "}'),
    ("particle-builder", "tables/decays.yaml", 'loop: "gluons are massless: no tree-level H g g vertex; the decay goes '
     'through a top-quark loop"}', 'loop: "  "}'),
    ("particle-builder", "tables/annihilation.yaml",
     'energy: "the Z⁰ is far heavier than two neutrinos at rest; the pair must collide with about 91 GeV"',
     'energy: "\\t"'),
    ("tutti-quantum", "game.yaml", "  - rule: text-size\n", "  - rule: text-size\n    min_pt: 4\n    reason: ' '\n"),
])
def test_a_blank_reason_is_no_reason(cli, game_copy, game, rel, old, new):
    """Every declared choice is listed with its reason: a blank one is refused where it is written."""
    g = game_copy(game)
    g.edit(rel, old, new)
    lines = (g.path / rel).read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if ("reason: ' '" in text or '" "' in text or '"  "' in text
                                                         or '"\\t"' in text))
    res = cli("check", str(g.path), "--no-render")
    assert res.returncode == 2, res.stdout + res.stderr
    assert (f"{g.path / rel}:{line}:" in res.stderr and "error[input]: the reason is blank. Fix: say in words why the "
            "data does this (the check report shows it)." in res.stderr), res.stderr


def test_a_blank_deviation_from_the_rulebook_is_not_a_declared_one(cli, game_copy):
    g = game_copy("qcd")
    g.edit("tables/flavours.yaml", "energy_mev: 1500, rulebook_mev: 1500}",
           'energy_mev: 1500, rulebook_mev: 1400, deviation: " "}')
    res = cli("check", str(g.path), "--no-render")
    assert res.returncode == 1
    assert ("Charm prints 1500 MeV but the rulebook gives 1400 MeV. Fix: print 1400 MeV or declare the deviation with "
            "its reason in 'deviation'.") in res.stdout + res.stderr


@pytest.mark.parametrize("particle", ["Z0", "gamma", "H", "e-"])
def test_the_wild_cards_must_show_the_w_their_flavour_changes_need(cli, game_copy, particle):
    out, file, line, _ = rejected(cli, game_copy("qcd"), "components/cards.yaml", "particle: W+",
                                  f"particle: {particle}")
    col = len("    particle: ") + 1   # the value the card shows
    assert (f"{file}:{line}:{col}: error[weak-transitions]: cards: card 'wild-w' makes the flavour changes of table "
            f"'transmutations' ('wild'), but shows ") in out and "only a charged W changes a particle's flavour" in out


def test_a_w_minus_may_be_the_wild_card(cli, game_copy):
    g = game_copy("qcd")
    g.edit("components/cards.yaml", "particle: W+", "particle: W-")
    assert cli("check", str(g.path), "--no-render").returncode == 0


def test_flavour_changes_nobody_makes_are_a_finding(cli, game_copy):
    g = game_copy("qcd")
    g.edit("components/cards.yaml", "    wild: true", "    wild: false")
    res = cli("check", str(g.path), "--no-render")
    assert res.returncode == 1
    assert ("error[weak-transitions]: cards: no card is marked 'wild', so nothing makes the flavour changes of table "
            "'transmutations'. Fix: mark the cards that make them with 'wild: true'.") in res.stdout + res.stderr


@pytest.mark.parametrize("wild", [
    "  - id: wild-w\n    particle: g\n    wild: true\n    count: 4",
    "  - matrix: {particle: [g], colour: [red, green, blue]}\n    id: \"{particle}-{colour}\"\n    count: 1",
])
def test_a_gluon_has_no_single_colour(cli, game_copy, wild):
    g = game_copy("qcd")
    g.edit("components/cards.yaml", "  - id: wild-w\n    particle: W+\n    wild: true\n    count: 4", wild)
    res = cli("check", str(g.path), "--no-render")
    assert res.returncode == 1
    found = [ln for ln in (res.stdout + res.stderr).splitlines() if "error[colour-balance]" in ln]
    assert found and all("a gluon carries a colour and an anti-colour at once (a colour octet)" in ln
                         and "Fix: leave the gluon out of 'cards'" in ln for ln in found), res.stdout
    assert "add 'colour: red'" not in res.stdout + res.stderr


@pytest.mark.parametrize("old,new,words", [
    ("particles: [H],                style: scalar", "particles: [H],                style: fermion",
     "line type 'H' (Higgs) is drawn as a fermion line, but H is a scalar line (spin, colour and mass say so). "
     "Fix: set style: scalar."),
    ("particles: [g],                style: gluon", "particles: [gamma],            style: gluon",
     "line type 'g' (gluon) is drawn as a gluon line, but gamma is a photon line (spin, colour and mass say so). "
     "Fix: set style: photon."),
    ("particles: [e-],               style: fermion", "particles: [e-, g],            style: fermion",
     "line type 'e' (electron) stands for particles drawn differently: e- (fermion), g (gluon). Fix: split it: "
     "one line type per kind of line."),
])
def test_a_line_type_is_drawn_as_its_particles_are(cli, game_copy, old, new, words):
    """Tutti Quantum's line types: the style comes from spin, colour and mass, and the vertices
    are derived from the particles, not from the style a line is drawn in."""
    out, file, line, col = rejected(cli, game_copy("tutti-quantum"), "tables/line-types.yaml", old, new)
    assert f"{file}:{line}:{col}: error[vertices-derived]: {words}" in out.splitlines(), out
    if "style: fermion" in new and "[H]" in new:   # a wrong style draws wrongly; the physics stays right
        assert "is not a tree-level Standard Model vertex" not in out


# --- a finding's place and fix fit the row -------------------------------------------------

def test_a_transformation_with_no_diagram_is_told_what_a_transformation_can_change(cli, game_copy):
    out, file, line, col = rejected(cli, game_copy("particle-builder"), "tables/transformations.yaml",
                                    "{from: u, via: W-, to: d}", "{from: u, via: Z0, to: d}")
    found = [ln for ln in out.splitlines() if ln.startswith(f"{file}:{line}:{col}: error[couplings]")]
    assert found and found[0].endswith("Fix: fix the particle it becomes, or the boson it takes in 'via'."), out


def test_a_repeated_transformation_is_found_at_the_repeat(cli, game_copy):
    g = game_copy("particle-builder")
    _file, first, _ = where(g, "tables/transformations.yaml", "{from: u, via: W-, to: d}")
    g.edit("tables/transformations.yaml", "  - {from: u, via: W-, to: d}\n",
           "  - {from: u, via: W-, to: d}\n  - {from: u, via: W-, to: d}\n")
    res = cli("check", str(g.path), "--no-render")
    assert res.returncode == 1
    assert (f"{g.path / 'tables/transformations.yaml'}:{first + 1}:5: error[transformations]: transformations: u + W- → "
            f"d is listed again (first at line {first}). Fix: remove this row.") in res.stdout.splitlines(), res.stdout


def test_a_missing_transformation_to_a_heavier_particle_is_told_to_say_where_the_energy_comes_from(cli, game_copy):
    g = game_copy("particle-builder")
    g.edit("tables/transformations.yaml", "  - {from: b, via: W+, to: t, energy: the top outweighs the quark and the W "
           "together; the rest comes from the collision}\n", "")
    res = cli("check", str(g.path), "--no-render")
    assert res.returncode == 1
    assert ("the allowed transformation bottom quark + W⁺ → top quark is missing. Fix: add '- {from: b, via: W+, "
            "to: t, energy: <where the energy comes from>}'.") in res.stdout
