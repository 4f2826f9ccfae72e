"""Gaps a mutation sweep found in the reaction and shared-data rules, each shown closed on a
broken copy of the shipped data: the decay table must roll for every particle a card deals that
PDG says decays; a wrong spin in particles.yaml is a finding at its own line, not an input error
blamed on a table; a finding about the data every game shares is said once; a particle and its
antiparticle that differ are reported with the quantity, both values and the value's line; and
the couplings fix fits why a reaction has no diagram."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from cardgen import loader, pdg
from cardgen.cli import main
from cardgen.errors import display_path
from tests.conftest import ROOT

PARTICLES_YAML = ROOT / "data" / "particles.yaml"
SHIPPED_GAMES = ("particle-builder", "particles-in-circle", "qcd", "tutti-quantum")


def check(*args: str) -> tuple[int, list[str]]:
    """``cardgen check ARGS --no-render`` in this process: exit code and output lines."""
    result = CliRunner().invoke(main, ["check", *args, "--no-render"])
    return result.exit_code, result.output.splitlines()


def spot(path: Path, text: str, after: str = "") -> tuple[int, int]:
    """1-based line and column of the first ``text`` in ``path`` (after the first ``after``)."""
    body = path.read_text(encoding="utf-8")
    at = body.index(text, body.index(after) if after else 0)
    return body.count("\n", 0, at) + 1, at - body.rfind("\n", 0, at)


@pytest.fixture
def shared_data(tmp_path, monkeypatch):
    """A copy of data/particles.yaml the loader reads instead of the shipped one; the fixture's
    value replaces ``old`` by ``new`` within particle ``pid``'s entry and returns the file."""
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(ROOT / "data" / "colours.yaml", data / "colours.yaml")
    target = data / "particles.yaml"
    target.write_text(PARTICLES_YAML.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(loader, "DATA_DIR", data)
    loader._physics.cache_clear()

    def mutate(pid: str, old: str, new: str) -> Path:
        text = target.read_text(encoding="utf-8")
        start = text.index(f"  - id: {pid}\n")
        end = text.find("\n  - id: ", start + 1)
        end = len(text) if end < 0 else end
        entry = text[start:end]
        assert old in entry, f"{old!r} not in {pid}'s entry"
        target.write_text(text[:start] + entry.replace(old, new, 1) + text[end:], encoding="utf-8")
        loader._physics.cache_clear()
        return target
    yield mutate
    loader._physics.cache_clear()


# --- 1. every particle that decays has a roll ------------------------------------------------

def _decays_per_pdg(p) -> bool:
    """Independently of the rule: PDG's lifetime of the particle, or of its stand-in hadron."""
    ref = pdg.lookup(p.lifetime.proxy_pdg_id or p.pdg_id)
    return ref.lifetime is not None and math.isfinite(ref.lifetime)


def test_a_decay_table_without_antiparticles_leaves_each_unstable_antiparticle_reported(game_copy):
    g = game_copy("particle-builder")
    g.edit("tables/decays.yaml", "\nantiparticles: true", "\nantiparticles: false")
    found = g.findings("dice-coverage")
    table = g.path / "tables" / "decays.yaml"
    want = {"tbar": "t", "cbar": "c", "bbar": "b", "sbar": "s", "mu+": "mu-", "tau+": "tau-", "W-": "W+"}
    assert sorted(f.message.split("(")[1].split(")")[0] for f in found) == sorted(want)
    for anti, particle in want.items():
        f = next(f for f in found if f"({anti}) decays" in f.message)
        line, col = spot(table, f"particle: {particle}\n")
        assert (f.location.file, f.location.line, f.location.column) == (display_path(table), line, col)
        assert f.message.endswith("but the table has no entry for it")
        assert f.fix == (f"set 'antiparticles: true' on the table (its decays are the conjugates of {particle}'s), "
                         f"or add an entry '- particle: {anti}' with its rolls")


def test_a_deleted_muon_entry_leaves_the_muon_and_antimuon_reported(game_copy):
    g = game_copy("particle-builder")
    g.edit("tables/decays.yaml", "  - particle: mu-\n    via: [W-]\n    rolls:\n"
           "      - {faces: 5-6, becomes: [nu_mu, e-, nubar_e]}\n      - {faces: 1-4, remains: true}\n", "")
    found = g.findings("dice-coverage")
    cards = g.path / "components" / "particles.yaml"
    assert [str(f) for f in found if "(mu-)" in f.message] == [
        f"{display_path(g.path / 'tables' / 'decays.yaml')}:9:1: error[dice-coverage]: decays: muon (mu-) decays "
        f"(lifetime 2.2e-06 s per PDG) and is dealt on 'particles' cards ({display_path(cards)}:"
        f"{spot(cards, 'mu-')[0]}:5), but the table has no entry for it. "
        f"Fix: add an entry '- particle: mu-' with the rolls of its decays."]
    mu_plus = [f for f in found if "(mu+)" in f.message]
    assert len(mu_plus) == 1 and mu_plus[0].fix == ("add an entry '- particle: mu-' with the rolls of its decays "
                                                    "('antiparticles: true' rolls for mu+ the same way)")
    assert len(found) == 2


def test_the_shipped_decay_table_rolls_for_every_particle_that_decays():
    import cardgen
    from cardgen.check import check_records

    game = cardgen.load_game("particle-builder")
    findings, proofs, _ = check_records(game)
    dealt = {c.fields["particle"].id for comp in game.components.values() if "particle" in comp.fields
             for c in comp.cards}
    unstable = [pid for pid in dealt if _decays_per_pdg(game.physics.particles[pid])]
    assert {"mu+", "W-", "tbar", "Z0", "H"} <= set(unstable) and "e-" not in unstable and "u" not in unstable
    assert not findings
    claims = [p.claim for p in proofs if p.rule == "dice-coverage" and "decay (per PDG)" in p.claim]
    assert claims == [f"decays: all {len(unstable)} particles the cards deal that decay (per PDG) have an entry"]


# --- 2. a wrong spin is found in particles.yaml -----------------------------------------------

def test_a_wrong_gluon_spin_is_a_finding_at_its_line_not_an_input_error_in_a_table(shared_data):
    path = shared_data("g", "spin: 1\n", "spin: 1/2\n")
    line, col = spot(path, "spin: 1/2", after="  - id: g\n")
    code, out = check("particle-builder")
    assert code == 1, out
    assert (f"{display_path(path)}:{line}:{col + 6}: error[pdg-values]: gluon (g) prints spin 1/2 but PDG 2026 "
            f"gives 1 (exact). Fix: write spin: 1.") in out
    assert not [ln for ln in out if "decays.yaml" in ln or "annihilation.yaml" in ln or "error[input]" in ln], out


# --- 3. a finding about shared data is said once ----------------------------------------------

@pytest.mark.parametrize("pid, old, new, rule", [
    ("mu+", "value: 0.000002197", "value: 0.000002198", "antiparticle-links"),
    ("e-", "value: 0.5110", "value: 0.5111", "antiparticle-links"),
    ("mu-", 'sup: "-"', 'sup: "+"', "pdg-identity"),
])
def test_a_mistake_in_the_shared_data_is_one_finding_for_all_games(shared_data, pid, old, new, rule):
    path = shared_data(pid, old, new)
    code, out = check()
    assert code == 1
    found = [ln for ln in out if ln.startswith(display_path(path))]
    assert len(found) == 1 and f"error[{rule}]" in found[0], out
    assert out[-1] == "checked 4 game(s): 1 finding; faces not rendered (--no-render)"
    # said once, but it is still wrong for every game: each verdict counts it, the JSON names them all
    code, out = check("--report")
    assert code == 1 and sum(ln.startswith("Is this deck right? No: 1 finding") for ln in out) == 4, out
    result = CliRunner().invoke(main, ["check", "--no-render", "--json"])
    findings = json.loads(result.output)["findings"]
    assert len(findings) == 1 and sorted(findings[0]["games"]) == sorted(SHIPPED_GAMES), findings


# --- 4. which quantity of an antiparticle differs, and where -----------------------------------

def test_a_lifetime_that_differs_from_the_antiparticles_names_both_values_at_its_line(shared_data):
    path = shared_data("mu-", "value: 0.000002197", "value: 0.000002198")
    line, col = spot(path, "0.000002198")
    other, _ = spot(path, "0.000002197", after="  - id: mu+\n")
    _, out = check("particle-builder")
    assert (f"{display_path(path)}:{line}:{col}: error[antiparticle-links]: 'mu-' has lifetime 0.000002198 s, but its "
            f"antiparticle 'mu+' has 0.000002197 s (line {other}): a particle and its antiparticle have equal "
            f"lifetime. Fix: write lifetime: 0.000002197 s on 'mu-'.") in out


def test_a_mass_is_blamed_on_the_entry_pdg_disagrees_with(shared_data):
    path = shared_data("e+", "value: 0.5110", "value: 0.5111")
    line, col = spot(path, "0.5111")
    other, _ = spot(path, "0.5110", after="  - id: e-\n")
    _, out = check("particle-builder")
    assert (f"{display_path(path)}:{line}:{col}: error[antiparticle-links]: 'e+' has mass 0.5111 MeV, but its "
            f"particle 'e-' has 0.5110 MeV (line {other}): a particle and its antiparticle have equal mass. "
            f"Fix: write mass: 0.5110 MeV on 'e+'.") in out


def test_a_charge_that_is_not_opposite_names_both_charges(shared_data):
    path = shared_data("mu-", "charge: -1", "charge: 1")
    line, col = spot(path, "charge: 1", after="  - id: mu-\n")
    other, _ = spot(path, "charge: 1", after="  - id: mu+\n")
    _, out = check("particle-builder")
    assert (f"{display_path(path)}:{line}:{col + 8}: error[antiparticle-links]: 'mu-' has charge 1 and its "
            f"antiparticle 'mu+' has 1 (line {other}): the charge is not opposite, as a particle's and its "
            f"antiparticle's must be. Fix: write -1 as the charge of 'mu-'.") in out
    assert len([ln for ln in out if "antiparticle-links" in ln]) == 1


# --- 5. the couplings fix fits the case ------------------------------------------------------

def _couplings(out: list[str], reaction: str) -> str:
    hits = [ln for ln in out if "error[couplings]" in ln and f": {reaction} " in ln]
    assert len(hits) == 1, (reaction, out)
    return hits[0].split(" Fix: ", 1)[1]


NO_SM = "Fix: fix the products: no W, Z, photon or gluon exchange supplies the missing coupling, so {} does not " \
        "exist in the Standard Model at tree level."


def test_the_couplings_fix_offers_a_w_only_where_a_w_helps(game_copy):
    g = game_copy("particle-builder")
    g.edit("tables/annihilation.yaml", "    members: [nu_e, nu_mu, nu_tau]\n    products: [[Z0]]",
           "    members: [nu_e, nu_mu, nu_tau]\n    products: [[gamma, gamma], [H]]")
    g.edit("tables/decays.yaml", "{faces: 6, becomes: [b, bbar]}", "{faces: 6, becomes: [b, sbar]}")
    g.edit("tables/decays.yaml", "{faces: 1, becomes: [d, W+]}", "{faces: 1, becomes: [c, gamma]}")
    g.edit("tables/decays.yaml", "  - particle: mu-\n    via: [W-]\n", "  - particle: mu-\n")
    g.edit("tables/decays.yaml", "{faces: 5-6, becomes: [c, sbar]}", "{faces: 5-6, becomes: [c, sbar], via: [Z0]}")
    code, out = check(str(g.path))
    assert code == 1
    for reaction in ("νₑ ν̅ₑ → γ γ", "νₑ ν̅ₑ → H"):   # no loop either: ν ν̄ H needs a chirality flip
        assert "Fix: " + _couplings(out, reaction) == NO_SM.format(reaction), reaction
    # flavour-changing neutral currents have no tree diagram but a W–top loop (like b → s γ)
    for reaction in ("Z⁰ → b s̅", "t → c γ"):
        assert "Fix: " + _couplings(out, reaction) == NO_SM.format(reaction)[:-1] + (
            " (declare 'loop: <reason>' only if it is a known loop process)."), reaction
    assert _couplings(out, "μ⁻ → ν_μ e⁻ ν̅ₑ") == ("declare the virtual W⁻ exchanged inside the diagram ('via: [W-]'), "
                                                  "or fix the products.")
    assert _couplings(out, "μ⁺ → ν̅_μ e⁺ νₑ") == ("declare the virtual W⁺ exchanged inside the diagram ('via: [W+]'), "
                                                  "or fix the products.")
    assert _couplings(out, "W⁺ → c s̅") == "remove Z0 from 'via'."
