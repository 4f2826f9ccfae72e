"""The energy a QCD card prints is read as a reader reads it: with its unit and its thousands
separators. '300 keV' on an up quark (a thousand times too small) passed, while '0.3 GeV',
'1,500 MeV' and 'E = 300 MeV' were each taken for another number."""

from __future__ import annotations

import pytest

from cardgen.rules.energies import printed_mev

FRONT = "templates/card-front.svg.j2"
PRINTED = 'flavour.energy_mev ~ " MeV"'


@pytest.mark.parametrize("text, mev", [
    ("300 MeV", 300), ("0.3 GeV", 300), ("300 keV", 0.3), ("1,500 MeV", 1500), ("1 500 MeV", 1500),
    ("1\u2009500 MeV", 1500), ("E = 300 MeV", 300), ("1,5 GeV", 1500), ("10,000 MeV", 10000), ("500", 500),
])
def test_a_printed_energy_is_read_with_its_unit_and_separators(text, mev):
    assert printed_mev(text) == pytest.approx(mev)


def test_no_number_is_no_energy():
    assert printed_mev("wild") is None


@pytest.mark.parametrize("printed, wrong", [
    ('(flavour.energy_mev / 1000) ~ " GeV"', False),
    ('"{:,}".format(flavour.energy_mev) ~ " MeV"', False),
    ('"E = " ~ flavour.energy_mev ~ " MeV"', False),
    ('flavour.energy_mev ~ " keV"', True),
])
def test_the_qcd_cards_printed_energy_is_judged_as_printed(game_copy, printed, wrong):
    g = game_copy("qcd")
    g.edit(FRONT, PRINTED, printed)
    found = [f for f in g.findings("flavour-energies") if "prints '" in f.message]
    assert bool(found) == wrong, [f.message for f in found][:3]


def test_a_flavour_in_two_rows_is_blamed_on_the_rows_not_on_its_antiquark(game_copy):
    """A stray row giving s 9999 MeV before the strange row: the duplicate was reported, and so
    was 'anti-strange prints 500 … give sbar 9999 MeV', pushing the stray value onto s̄."""
    g = game_copy("qcd")
    g.edit("tables/flavours.yaml", "  - {id: strange,",
           "  - {id: s2, name: Stray, particles: [s], energy_mev: 9999, rulebook_mev: 9999}\n  - {id: strange,")
    messages = [f.message for f in g.findings("flavour-energies")]
    assert any("is in rows 's2'" in m for m in messages), messages
    assert not [m for m in messages if "a quark and its antiquark have the same mass" in m], messages
