"""How values are written on cards: physics notation kept, decimal separator by locale."""

from fractions import Fraction

import pytest

from cardgen import format as fmt
from cardgen.loader import shipped_physics

P = shipped_physics().particles


@pytest.mark.parametrize("value, text", [(Fraction(2, 3), "+2/3"), (Fraction(-1, 3), "−1/3"), (Fraction(1), "+1"),
                                          (Fraction(0), "0"), (Fraction(-1), "−1")])
def test_charge(value, text):
    assert fmt.charge(value) == text


@pytest.mark.parametrize("pid, en, de", [
    ("u", "2.16 MeV/c²", "2,16 MeV/c²"), ("t", "173 GeV/c²", "173 GeV/c²"), ("e-", "0.511 MeV/c²", "0,511 MeV/c²"),
    ("nu_e", "< 0.8 eV/c²", "< 0,8 eV/c²"), ("gamma", "0", "0"), ("d", "4.70 MeV/c²", "4,70 MeV/c²"),
])
def test_mass(pid, en, de):
    assert fmt.mass(P[pid].mass, "en") == en
    assert fmt.mass(P[pid].mass, "de") == de


@pytest.mark.parametrize("pid, text", [("mu-", "2.20 × 10⁻⁶ s"), ("t", "4.64 × 10⁻²⁵ s"), ("e-", "stable"),
                                       ("H", "2.19 × 10⁻²² s"), ("s", "1.24 × 10⁻⁸ s")])
def test_lifetime(pid, text):
    assert fmt.lifetime(P[pid].lifetime) == text


def test_spin_and_locale_separator():
    assert fmt.spin(Fraction(1, 2)) == "1/2" and fmt.spin(Fraction(1)) == "1"
    assert fmt.significant(2.197, 3, "fr") == "2,20" and fmt.significant(2.197, 3, "zh") == "2.20"
