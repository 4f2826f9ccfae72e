"""Every reaction the games print is kinematically allowed and goes through Standard-Model
vertices: the vertex module read like the physics, broken copies of the shipped tables rejected
through the CLI at the right file:line:column, declarations checked for misuse, and the shipped
games proved clean with counts computed here from the data."""

from __future__ import annotations

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


W_FIX = ("Fix: fix the products, declare the virtual bosons inside the diagram ('via: [W-]'), or declare a loop "
         "with its reason ('loop: ...').")
MASS_FIX = ("Fix: fix the products, declare the ones that are virtual ('virtual: [W+]'), or say where the energy "
            "comes from ('energy: reason').")


def test_a_decay_into_a_heavier_product_is_rejected(cli, game_copy):
    out, file, line, col = rejected(cli, game_copy("particle-builder"), "tables/decays.yaml",
                                    "{faces: 3-6, becomes: [s, W+], virtual: [W+]}", "{faces: 3-6, becomes: [b, W+]}")
    assert (f"{file}:{line}:{col}: error[kinematics]: decays: c on 3,4,5,6: c → b W⁺: its products (b 4.186 GeV + "
            f"W⁺ 80.36 GeV = 84.55 GeV) are not lighter than the parent (c 1.273 GeV). {MASS_FIX}") in out


def test_a_decay_through_no_vertex_is_rejected(cli, game_copy):
    out, file, line, col = rejected(cli, game_copy("particle-builder"), "tables/decays.yaml",
                                    "{faces: 4-6, becomes: [b, bbar]}", "{faces: 4-6, becomes: [g, gamma]}")
    assert (f"{file}:{line}:{col}: error[couplings]: decays: H on 4,5,6: H → g γ does not happen through "
            f"Standard-Model vertices: there is no Standard-Model vertex H g γ. {W_FIX}") in out


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
                f"(there is no vertex {sym} {bar} γ). {W_FIX}") in out
    assert "declares an energy source but needs none" in out  # the Z's energy reason no longer applies


def test_charged_leptons_do_not_annihilate_into_gluons(cli, game_copy):
    out, file, line, col = rejected(cli, game_copy("particle-builder"), "tables/annihilation.yaml",
                                    "  - name: charged lepton pair\n    members: [e-, mu-, tau-]\n"
                                    "    products: [[gamma, gamma]]",
                                    "  - name: charged lepton pair\n    members: [e-, mu-, tau-]\n    products: [[g, g]]")
    assert (f"{file}:{line}:{col}: error[couplings]: annihilation: charged lepton pair: e- annihilation: e⁻ e⁺ → "
            f"g g does not happen through Standard-Model vertices: g does not couple to e⁻ (there is no vertex "
            f"e⁻ e⁺ g). {W_FIX}") in out


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
            f"(e-e-H) with 4, though it is rarer: 4 sets of cards from the 44 of 'particles' hold its lines, 112 "
            f"hold those of 'eeh'. Fix: give 'hhh' at least 4 points (rarer vertices score more).") in out


def test_an_expert_rule_naming_an_unknown_vertex_is_rejected(cli, game_copy):
    g = game_copy("tutti-quantum")
    g.edit("tables/expert.yaml", "vertices: [eea, eea]", "vertices: [eea, hh]")
    file, line, col = where(g, "tables/expert.yaml", "  - id: blue-sky")
    res = cli("check", str(g.path))
    assert res.returncode == 1
    assert (f"{file}:{line}:{col}: error[sub-diagrams]: expert: 'blue-sky' names vertex 'hh', which is not in "
            f"table 'vertices' — did you mean 'hhh'? Fix: use one of: qqg, qqa, qqh, eea, ggg, eeh, hhh.") in (
        res.stdout + res.stderr)


# --- further mutations of the same kinds ----------------------------------------------------

HEAVIER = [  # (file, old, new, words of the finding)
    ("tables/decays.yaml", "{faces: 4-6, becomes: [u, W-], virtual: [W-]}", "{faces: 4-6, becomes: [c, W-], virtual: [W-]}",
     "s → c W⁻: its real products (c 1.273 GeV) are not lighter than the parent (s 92.90 MeV)"),
    ("tables/decays.yaml", "{faces: 5-6, becomes: [nu_mu, e-, nubar_e], via: [W-]}",
     "{faces: 5-6, becomes: [nu_mu, tau-, nubar_tau], via: [W-]}", "μ⁻ → ν_μ τ⁻ ν̅_τ: its products"),
    ("tables/decays.yaml", "{faces: 3, becomes: [W+, W-], virtual: [W-],", "{faces: 3, becomes: [Z0, Z0],",
     "H → Z⁰ Z⁰: its products (Z⁰ 91.19 GeV + Z⁰ 91.19 GeV = 182.4 GeV) are not lighter than the parent (H 125.1 GeV)"),
    ("tables/decays.yaml", "{faces: 3-6, becomes: [c, W-], virtual: [W-]}", "{faces: 3-6, becomes: [t, W-], virtual: [W-]}",
     "b → t W⁻: its real products (t 172.6 GeV)"),
    ("tables/transformations.yaml", "{from: u, via: W-, to: b}", "{from: e-, via: W+, to: nu_e}",
     None),  # a duplicate is the transformations rule's business, not kinematics: skipped below
]


@pytest.mark.parametrize("rel,old,new,words", [h for h in HEAVIER if h[3]])
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
    ("tables/decays.yaml", "{faces: 5-6, becomes: [nu_mu, e-, nubar_e], via: [W-]}",
     "{faces: 5-6, becomes: [nu_mu, e-, nubar_e]}",
     "μ⁻ → ν_μ e⁻ ν̅ₑ does not happen through Standard-Model vertices: no Standard-Model vertex joins μ⁻ and e⁻"),
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


@pytest.mark.parametrize("vertex,points,rarer", [
    ("eeh", 2, "eea"),   # eeH (112 sets of cards) below eeγ (196) with 3 points
    ("eea", 1, "qqg"),   # eeγ below the commonest qqg
    ("ggg", 2, "eea"),   # hmm: ggg (220) is commoner than eeγ (196), so this holds; see the check below
    ("hhh", 3, "eeh"),
])
def test_points_that_do_not_follow_rarity_are_rejected(cli, game_copy, vertex, points, rarer):
    g = game_copy("tutti-quantum")
    data = yaml.safe_load((g.path / "tables/vertices.yaml").read_text(encoding="utf-8"))
    deck = yaml.safe_load((g.path / "components/particles.yaml").read_text(encoding="utf-8"))
    cards = {c["line"]: c["count"] for c in deck["cards"]}
    from math import comb
    from collections import Counter
    sets = {v["id"]: _prod(comb(cards[line], m) for line, m in Counter(v["lines"]).items()) for v in data["rows"]}
    pts = {v["id"]: v["points"] for v in data["rows"]} | {vertex: points}
    should_fail = any(sets[w] > sets[vertex] and pts[w] > points for w in sets)
    row = next(v for v in data["rows"] if v["id"] == vertex)
    old = f"lines: [{', '.join(row['lines'])}]"
    text = (g.path / "tables/vertices.yaml").read_text(encoding="utf-8")
    line_text = next(ln for ln in text.splitlines() if f"id: {vertex}," in ln)
    g.edit("tables/vertices.yaml", line_text, line_text.replace(f"points: {row['points']}", f"points: {points}"))
    file, line, col = where(g, "tables/vertices.yaml", f"id: {vertex},")
    res = cli("check", str(g.path))
    out = res.stdout + res.stderr
    assert old in line_text
    if should_fail:
        assert res.returncode == 1
        assert f"{file}:{line}:{col}: error[vertex-points]: vertex '{vertex}'" in out and f"scores {points} point" in out
    else:
        # lowering a vertex to the points of a rarer one may push the rarer one below it
        assert "error[vertex-points]" not in out or f"vertex '{vertex}'" not in out


def _prod(xs) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


def test_a_declared_virtual_boson_makes_an_s_channel_annihilation(game_copy):
    g = game_copy("particle-builder")
    g.edit("tables/annihilation.yaml", "products: [[gamma, gamma], [g, g]]\n    roll: even",
           "products: [[gamma, gamma], [e-, e+]]\n    roll: even\n    via: [Z0]")
    found = g.findings("couplings")
    assert [f.message for f in found if "e⁻ e⁺" in f.message] == [], found
    records = check_records(g.load())
    assert any(c.rule == "couplings" and c.subject.endswith("u u̅ → e⁻ e⁺: through the virtual Z⁰")
               for c in records[2])
