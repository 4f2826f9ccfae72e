"""Every physical value in data/particles.yaml against PDG 2026 (the `particle` package).

A value passes when the PDG value, rounded to the number of significant figures written in the
data, equals the data. Values PDG does not give must be declared design choices with a reason.
This is an independent reimplementation of the comparison; the product's own rule
(cardgen/rules/pdg_values.py, run by `cardgen check`) is held to the same verdicts below.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from particle import Particle as PDG

from cardgen.loader import load_game, shipped_physics
from cardgen.particles import MASS_UNITS, TIME_UNITS
from cardgen.rules.pdg_values import QUANTITIES, Comparison

PHYSICS = shipped_physics()
PARTICLES = list(PHYSICS)
LEPTON_FAMILY = {11: "e", 12: "e", 13: "mu", 14: "mu", 15: "tau", 16: "tau"}


def sig_figs(digits: str) -> int:
    """Significant figures of a decimal literal as written: '2.160' → 4, '0.5110' → 4, '4.64e-25' → 3."""
    mantissa = digits.lower().split("e")[0].lstrip("+-")
    stripped = mantissa.replace(".", "").lstrip("0")
    return max(len(stripped), 1)


def rounded(value: float, figures: int) -> float:
    if value == 0:
        return 0.0
    return round(value, figures - 1 - math.floor(math.log10(abs(value))))


def same_at_precision(written: str, pdg_value: float) -> bool:
    return math.isclose(float(written), rounded(pdg_value, sig_figs(written)), rel_tol=1e-9)


def test_the_data_holds_17_particles_and_the_antiparticles_of_fermions_and_w():
    ids = {p.id for p in PARTICLES}
    assert len(PARTICLES) == 17 + 12 + 1
    assert {"u", "d", "s", "c", "b", "t", "e-", "mu-", "tau-", "nu_e", "nu_mu", "nu_tau",
            "g", "gamma", "Z0", "W+", "H"} <= ids
    assert {"ubar", "e+", "nubar_tau", "W-"} <= ids


@pytest.mark.parametrize("p", PARTICLES, ids=lambda p: p.id)
def test_quantum_numbers_match_pdg(p):
    pdg = PDG.from_pdgid(p.pdg_id)
    assert p.charge == Fraction(pdg.three_charge, 3)
    assert float(p.spin) == pdg.J
    if p.kind == "quark":
        assert pdg.pdgid.is_quark
        assert p.baryon_number == Fraction(1 if p.pdg_id > 0 else -1, 3)
        assert p.colour_charged
    elif p.kind == "lepton":
        assert pdg.pdgid.is_lepton
        family = LEPTON_FAMILY[abs(p.pdg_id)]
        assert p.lepton_numbers[family] == (1 if p.pdg_id > 0 else -1)
        assert sum(abs(v) for v in p.lepton_numbers.values()) == 1
        assert p.baryon_number == 0 and not p.colour_charged
    else:
        assert pdg.pdgid.is_gauge_boson_or_higgs
        assert p.baryon_number == 0 and sum(abs(v) for v in p.lepton_numbers.values()) == 0
        assert p.colour_charged == (p.id == "g")


@pytest.mark.parametrize("p", PARTICLES, ids=lambda p: p.id)
def test_mass_matches_pdg_at_printed_precision(p):
    pdg = PDG.from_pdgid(p.pdg_id)
    m = p.mass
    if pdg.mass is None:
        assert m.upper_limit and m.design, f"{p.id}: PDG gives no mass, the data must declare its limit"
        return
    factor = MASS_UNITS[m.unit]
    assert same_at_precision(m.digits, pdg.mass / factor), f"{p.id}: {m.digits} {m.unit} vs PDG {pdg.mass} MeV"
    if m.plus is not None:
        assert math.isclose(m.plus, rounded(pdg.mass_upper / factor, 2), rel_tol=1e-9)
        assert math.isclose(m.minus, rounded(pdg.mass_lower / factor, 2), rel_tol=1e-9)


@pytest.mark.parametrize("p", PARTICLES, ids=lambda p: p.id)
def test_lifetime_matches_pdg_or_is_a_declared_choice(p):
    pdg = PDG.from_pdgid(p.pdg_id)
    lt = p.lifetime
    if pdg.lifetime is None:
        # PDG gives nothing (confined quarks): the value must say where it comes from.
        assert lt.design, f"{p.id}: lifetime without PDG value must be a declared design choice"
        if lt.proxy_pdg_id is not None:
            proxy = PDG.from_pdgid(lt.proxy_pdg_id)
            written = lt.measured.digits
            assert same_at_precision(written, proxy.lifetime * 1e-9 / TIME_UNITS[lt.measured.unit])
        return
    if math.isinf(pdg.lifetime):
        assert lt.stable, f"{p.id}: PDG says stable"
        return
    assert not lt.stable
    assert same_at_precision(lt.measured.digits, pdg.lifetime * 1e-9 / TIME_UNITS[lt.measured.unit]), \
        f"{p.id}: {lt.measured.digits} vs PDG {pdg.lifetime} ns"


def test_comparison_is_strict_enough_to_fail():
    """The precision rule rejects a value off in its last printed digit."""
    assert same_at_precision("172.6", 172600 / 1000)
    assert not same_at_precision("172.7", 172600 / 1000)
    assert sig_figs("0.5110") == 4 and sig_figs("4.64e-25") == 3


@pytest.mark.parametrize("p", PARTICLES, ids=lambda p: p.id)
def test_the_products_rule_agrees(p):
    """The checker's verdict on every printed quantity: equal to PDG, or a declared choice exactly
    where PDG gives no value (a choice never hides a value PDG has)."""
    check = Comparison(load_game("particle-builder"))
    pdg = PDG.from_pdgid(p.pdg_id)
    for quantity in QUANTITIES:
        verdict, records, _ = check.value(p, quantity)
        no_pdg_value = {"mass": pdg.mass is None, "lifetime": pdg.lifetime is None}.get(quantity, False)
        assert verdict == ("choices" if no_pdg_value else "equal"), (quantity, records)


def test_the_particle_table_alone_answers_every_lookup_as_both_tables_do():
    """cardgen.pdg loads the package's nuclei table only for a nucleus: for every particle that
    is not one, by id and by name, it answers exactly what the package's default load (both
    tables) answers, and a nucleus is still found by either."""
    code = """
import attr, json, sys
from particle import Particle
from particle import data as pdg_data
from cardgen import pdg

def facts(p):
    return json.dumps(attr.asdict(p, recurse=False, value_serializer=lambda i, a, v: str(v)), sort_keys=True)

with pdg_data.basepath.joinpath(pdg.PARTICLE_TABLE).open() as table:
    rows = [line.split(",") for line in table if not line.startswith("#")][1:]
ids = [int(r[0]) for r in rows]
alone = {i: facts(pdg.lookup(i)) for i in ids}
names = {p.name: int(p.pdgid) for p in pdg.particles()}
by_name = {n: int(pdg.lookup(n).pdgid) for n in names}
hadrons = sorted(pdg.particles())
alone_loaded = (pdg._nuclei_loaded, len(Particle.all()))
Particle.load_table()   # the package's default: both tables
both = {i: facts(Particle.from_pdgid(i)) for i in ids}
both_names = {}
for p in Particle.all():   # each name built once: building one is slow
    if p.name in names and (p.name not in both_names or abs(int(p.pdgid)) < abs(int(both_names[p.name].pdgid))):
        both_names[p.name] = p
helium = pdg.lookup(1000020040)
print(json.dumps({"ids": len(ids), "alone_loaded": alone_loaded,
                  "differ": [i for i in ids if alone[i] != both[i]],
                  "names_differ": [n for n in names if by_name[n] != int(both_names[n].pdgid)],
                  "particles": len(hadrons), "helium": helium.name,
                  "helium_by_name": int(pdg.lookup.__wrapped__("He4").pdgid)}))
"""
    import json
    import subprocess
    import sys
    from pathlib import Path

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["ids"] > 600
    assert out["alone_loaded"] == [False, out["ids"]]   # the nuclei were not loaded for particles
    assert out["differ"] == [] and out["names_differ"] == []
    assert out["particles"] == out["ids"]
    assert out["helium"] == "He4" and out["helium_by_name"] == 1000020040


def test_the_package_is_imported_by_the_first_lookup_not_by_drawing():
    """Every process that draws imports the rules (the answer keys come from them), and with
    them this module; the particle package (0.06 s to import) waits for a lookup."""
    import subprocess
    import sys

    code = ("import sys, cardgen.build, cardgen.sheets, cardgen.draw, cardgen.rules, cardgen.pdg\n"
            "before = 'particle' in sys.modules\n"
            "cardgen.pdg.lookup('p')\n"
            "print(before, 'particle' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True"]


@pytest.mark.parametrize("key, quarks, baryons", [
    ("He4", {"u": 6, "d": 6}, 4),                    # 2 protons (u u d) and 2 neutrons (u d d)
    (1000010020, {"u": 3, "d": 3}, 2),               # the deuteron
    (-1000010020, {"U": 3, "D": 3}, -2),             # the antideuteron: antiquarks
    (1000030070, {"u": 10, "d": 11}, 7),             # lithium-7: 3 protons, 4 neutrons
    ("p", {"u": 2, "d": 1}, 1),                      # a nucleon keeps PDG's own content
])
def test_a_nucleus_holds_its_nucleons_quarks_and_baryon_number(key, quarks, baryons):
    from collections import Counter

    from cardgen import pdg

    ref = pdg.lookup(key)
    assert pdg.contents(ref) == [Counter(quarks)]
    assert pdg.baryon_number(ref) == baryons
    thirds = {"u": 2, "d": -1, "U": -2, "D": 1}
    assert pdg.charge(ref) == Fraction(sum(thirds[q] * n for q, n in quarks.items()), 3)   # PDG's, from its table


@pytest.mark.parametrize("key", ["9" * 5000, "0", "-0", "12345678", "no such particle"])
def test_an_id_or_name_pdg_does_not_know_is_an_unknown_particle(key):
    """Never a bare error from the package or from Python's integer conversion (a data file
    may hold any digits: more than 4,300 is a ValueError of its own)."""
    from cardgen import pdg

    with pytest.raises(pdg.UnknownParticle):
        pdg.lookup.__wrapped__(key)


def test_a_quantum_total_is_the_exact_sum_of_its_particles_numbers():
    """Totals are summed as integers over a common denominator from numbers worked out once
    per particle: every set of up to four of the shipped particles (and none) totals each
    quantum number exactly as adding their Fractions does, and is zero, or equal to another's
    total, exactly when that sum is; a name that is none is refused."""
    import itertools

    from cardgen.particles import QUANTUM_NUMBERS, quantum_equal, quantum_total, quantum_zero

    for name in QUANTUM_NUMBERS:
        totals = []
        for size in range(5):
            for group in itertools.islice(itertools.combinations_with_replacement(PARTICLES, size), 400):
                exact = sum((p.quantum_number(name) for p in group), Fraction(0))
                assert quantum_total(group, name) == exact
                assert quantum_total(group, name) == sum((getattr(p, name) if name in ("charge", "baryon_number")
                                                          else _lepton(p, name) for p in group), Fraction(0))
                assert quantum_zero(group, name) == (exact == 0)
                totals.append((group, exact))
        for (a, total_a), (b, total_b) in itertools.islice(itertools.product(totals[::7], totals[::11]), 3000):
            assert quantum_equal(a, b, name) == (total_a == total_b)
    with pytest.raises(KeyError):
        quantum_total(PARTICLES[:1], "strangeness")
    assert PARTICLES[0].is_fermion == (PARTICLES[0].spin.denominator == 2)


def _lepton(p, name: str) -> int:
    return sum(p.lepton_numbers.values()) if name == "lepton_number" else p.lepton_numbers.get(name[7:], 0)
