"""A printed value equal to PDG's "at the precision printed" must be printed precisely enough to
mean something: at least three significant figures, unless PDG knows it less precisely. A muon
of 0.1 GeV/c² (5 % light) and a top of 0.2 TeV/c² (16 % heavy) passed, each equal to PDG's
value rounded to one figure."""

from __future__ import annotations

import pytest

from cardgen.errors import display_path
from tests.test_physics_values import ROOT, broken_physics, cli  # noqa: F401

SHIPPED = (ROOT / "data" / "particles.yaml").read_text(encoding="utf-8")
MUON = "mass: {value: 105.7, unit: MeV, plus: 0.0000023, minus: 0.0000023}"
TOP = "mass: {value: 172.6, unit: GeV, plus: 0.27, minus: 0.27}"


@pytest.mark.parametrize("old, new, name, want", [
    (MUON, "mass: {value: 0.1, unit: GeV, plus: 0.0000000023, minus: 0.0000000023}", "mu-", "0.106"),
    (TOP, "mass: {value: 0.2, unit: TeV, plus: 0.00027, minus: 0.00027}", "t", "0.173"),
    (MUON, "mass: {value: 0.11, unit: GeV}", "mu-", "0.106"),
])
def test_a_mass_rounded_below_what_pdg_knows_is_a_finding(broken_physics, old, new, name, want):
    text = SHIPPED.replace(old, new)   # the particle and its antiparticle alike
    path = broken_physics(text)
    line = text[:text.index(new)].count("\n") + 1
    code, out = cli("particle-builder", "--no-render")
    found = [ln for ln in out.splitlines() if "error[pdg-values]" in ln and "significant figure" in ln
             and f"({name}) prints" in ln]
    assert code == 1 and found, out
    assert found[0].startswith(f"{display_path(path)}:{line}:") and f"write value: {want}" in found[0], found


@pytest.mark.parametrize("old, new", [
    # four figures, as shipped, and three: both at least as fine as the rule asks
    (MUON, MUON),
    (MUON, "mass: {value: 0.106, unit: GeV, plus: 0.0000000023, minus: 0.0000000023}"),
    # an up quark of 2.2 MeV/c²: two figures, but PDG's own uncertainty (+0.49 −0.26) is larger
    ("mass: {value: 2.160, unit: MeV, plus: 0.070, minus: 0.070}", "mass: {value: 2.2, unit: MeV}"),
])
def test_a_value_as_precise_as_pdg_or_three_figures_passes(broken_physics, old, new):
    assert old in SHIPPED
    broken_physics(SHIPPED.replace(old, new))
    code, out = cli("particle-builder", "--no-render")
    assert not [ln for ln in out.splitlines() if "significant figure" in ln], out


def test_a_declared_rounding_is_a_choice_not_a_finding(broken_physics):
    rounded = "mass: {value: 0.1, unit: GeV, design: {reason: \"rounded for young players\"}}"
    broken_physics(SHIPPED.replace(MUON, rounded))
    code, out = cli("particle-builder", "--no-render")
    assert not [ln for ln in out.splitlines() if "significant figure" in ln], out


def test_a_coarse_value_on_one_side_of_a_pair_is_blamed_there(broken_physics):
    """Top at 0.2 TeV/c² and anti-top at PDG's 172.6 GeV/c²: the antiparticle-links finding
    blamed the anti-top and told the designer to copy 0.2 TeV onto it."""
    new = "mass: {value: 0.2, unit: TeV, plus: 0.00027, minus: 0.00027}"
    text = SHIPPED.replace(TOP, new, 1)
    broken_physics(text)
    code, out = cli("particle-builder", "--no-render")
    links = [ln for ln in out.splitlines() if "error[antiparticle-links]" in ln]
    assert code == 1 and links, out
    line = text[:text.index(new)].count("\n") + 1
    assert all(f"particles.yaml:{line}:" in ln and "0.2 TeV on" not in ln for ln in links), links


def test_a_lifetime_prints_no_more_figures_than_the_data_writes(broken_physics):
    """The Higgs' lifetime written 2.2e-22 s printed as '2.20 × 10⁻²² s', a figure the data never
    claimed, and was then a finding though PDG knows it only to ±50 %."""
    old = "lifetime: {value: 2.194e-22, unit: s"
    assert old in SHIPPED
    broken_physics(SHIPPED.replace(old, "lifetime: {value: 2.2e-22, unit: s"))
    code, out = cli("particle-builder", "--no-render")
    assert not [ln for ln in out.splitlines() if "(H) prints lifetime" in ln], out


def test_a_declared_coarse_rounding_is_shown_beside_pdg(broken_physics):
    """A W mass rounded to 80 GeV on purpose is a choice, listed with PDG's 80.4 beside it: equal
    'at the precision printed' must not hide the deviation the choice declares."""
    import cardgen

    old = "mass: {value: 80.36, unit: GeV, plus: 0.0080, minus: 0.0080}"
    assert old in SHIPPED
    broken_physics(SHIPPED.replace(old, "mass: {value: 80, unit: GeV, design: {reason: \"rounded for the class\"}}"))
    choices = [c for c in cardgen.check(cardgen.load_game("particle-builder"), render=False).choices
               if c.rule == "pdg-values" and "mass of W" in c.subject]
    assert choices and all("where PDG" in c.subject for c in choices), choices
