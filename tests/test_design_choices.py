"""Declared deviations from PDG are shown with PDG's value, and a neutrino's printed mass bound
is held to the best direct limit (cardgen/rules/pdg_values.py)."""

from __future__ import annotations

import pytest

import cardgen
from cardgen import pdg
from tests.test_physics_values import PARTICLES_YAML, broken_physics, cli, mutate_particle, particle_block  # noqa: F401


def test_a_declared_deviation_is_reported_beside_pdgs_value(broken_physics):
    """A design reason on a value PDG gives hid the deviation: the report said only "mass of
    electron printed 0.600 MeV/c²: <reason>"."""
    text = PARTICLES_YAML.read_text(encoding="utf-8")
    for pid in ("e-", "e+"):
        text, _line, _col = mutate_particle(text, pid, "mass", "value: 0.5110, unit: MeV,",
                                            'value: 0.6000, unit: MeV, design: {reason: "rounded for the game"},')
    broken_physics(text)
    code, out = cli("particle-builder", "--report")
    assert code == 0, out
    flat = " ".join(out.split())
    assert "mass of electron (e-) printed 0.600 MeV/c², where PDG 2026 gives 0.511 MeV/c²: rounded for the game" in flat
    code, out = cli("particle-builder", "--report")   # a shipped choice PDG has no value for says nothing more
    assert "mass of electron neutrino (nu_e) printed < 0.8 eV/c²: PDG gives no neutrino mass" in " ".join(out.split())


@pytest.mark.parametrize("bound, unit, caught", [("0.01", "eV", True), ("0.3", "eV", True), ("0.45", "eV", False),
                                                 ("0.8", "eV", False), ("2", "eV", False), ("0.0000001", "MeV", True)])
def test_a_neutrino_bound_below_the_best_direct_limit_is_a_finding(broken_physics, bound, unit, caught):
    """The docstring said a neutrino's bound was verified; nothing was: "< 0.01 eV" passed."""
    text = PARTICLES_YAML.read_text(encoding="utf-8")
    for pid in ("nu_mu", "nubar_mu"):
        text, line, column = mutate_particle(text, pid, "mass", "upper_limit: 0.8, unit: eV,",
                                             f"upper_limit: {bound}, unit: {unit},")
        # the reason names the bound it gives: kept in step, so only the limit itself is judged here
        text, _line, _column = mutate_particle(text, pid, "mass", "is below 0.8 eV", f"is below {bound} {unit}")
    path = broken_physics(text)
    code, out = cli("particle-builder")
    found = [ln for ln in out.splitlines() if "best direct limit" in ln]
    if not caught:
        assert code == 0 and not found, out
        return
    assert code == 1 and len(found) == 2, out
    first, _end = particle_block(text, "nu_mu")
    mass_line = next(i for i, ln in enumerate(text.splitlines()) if i > first and ln.startswith("    mass:")) + 1
    assert found[0].startswith(f"{cardgen.errors.display_path(path)}:{mass_line}:")
    assert "muon neutrino (nu_mu) prints the bound" in found[0]
    assert f"{pdg.NEUTRINO_MASS_LIMIT_MEV * 1e6:g} eV/c² ({pdg.NEUTRINO_LIMIT_SOURCE})" in found[0]
