"""Points a card scores by its particle follow the physics: a particle and its antiparticle
score alike, and a heavier quark, lepton or boson never scores less (cardgen/rules/decks.py)."""

from __future__ import annotations

import pytest

from cardgen.check import check

DECK = "components/particles.yaml"


def findings(g):
    return [f for f in check([g.load()], render=False).findings if f.rule == "particle-points"]


@pytest.mark.parametrize("rel, old, new, card, says", [
    (DECK, "{id: cbar,  particle: cbar,  points: 2}", "{id: cbar,  particle: cbar,  points: 3}", "cbar",
     "a particle and its antiparticle"),
    (DECK, "{id: H,     particle: H,     points: 5}", "{id: H,     particle: H,     points: 1}", "H",
     "although it is heavier"),
    (DECK, "{id: b,     particle: b,     points: 3}", "{id: b,     particle: b,     points: 1}", "b",
     "of a later generation"),
    (DECK, "{id: nu_tau,    particle: nu_tau,    points: 3}", "{id: nu_tau,    particle: nu_tau,    points: 1}",
     "nu_tau", "of a later generation"),
    ("components/level5-extra.yaml", "{id: W+,    particle: W+,    points: 3", "{id: W+,    particle: W+,    points: 4",
     "W+", "every card of one particle"),
])
def test_points_against_the_physics_are_findings_at_the_cards_points(game_copy, rel, old, new, card, says):
    """A mutation sweep changed anti-charm to 3 points (charm stays 2) and the Higgs to 1:
    both passed the check."""
    g = game_copy("particle-builder")
    g.edit(rel, old, new)
    found = findings(g)
    assert found and all(f.severity == "error" for f in found), found
    here = [f for f in found if f.location.line == g.line_of(rel, new)]
    assert here and f"card '{card}'" in here[0].message and says in here[0].message, found
    assert str(here[0].location.file).endswith(rel)


def test_points_that_follow_the_physics_pass(game_copy):
    """Every quark worth one point more still orders the generations: no finding."""
    g = game_copy("particle-builder")
    for q, p in (("u", 1), ("d", 1), ("c", 2), ("s", 2), ("t", 3), ("b", 3)):
        for pid in (q, f"{q}bar"):
            pad = " " * (5 - len(pid))
            g.edit(DECK, f"{{id: {pid},{pad} particle: {pid},{pad} points: {p}", f"{{id: {pid},{pad} particle: {pid},{pad} points: {p + 1}")
    report = check([g.load()], render=False)
    assert not [f for f in report.findings if f.rule == "particle-points"]
    assert any(p.rule == "particle-points" for p in report.proofs)
