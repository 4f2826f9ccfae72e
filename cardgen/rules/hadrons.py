"""Target cards (Particle Builder): every target must be a real, buildable particle system."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Iterator

from .. import schema as S
from ..errors import Finding, InputError
from ..model import Card, Game
from ..particles import Particle
from . import declared
from .common import (component_param, expected_draws, fmt_fraction, particle_counts, particle_field, total,
                     typed_field)

#: What each kind of target implies: the number of quarks and antiquarks (``None`` = any
#: multiple of three, for atoms and nuclei) and the baryon number that follows.
KINDS = ("baryon", "antibaryon", "meson", "atom")


def _kind_problems(kind: str, particles: tuple[Particle, ...]) -> list[tuple[str, str]]:
    quarks = [p for p in particles if p.kind == "quark" and not p.is_anti]
    antiquarks = [p for p in particles if p.kind == "quark" and p.is_anti]
    B = total(particles, "baryon_number")
    problems: list[tuple[str, str]] = []
    if kind == "baryon":
        if (len(quarks), len(antiquarks)) != (3, 0):
            problems.append(("not colour-neutral: a baryon is three quarks (red + green + blue)",
                             "require exactly three quarks and no antiquark"))
        expected_B = Fraction(1)
    elif kind == "antibaryon":
        if (len(quarks), len(antiquarks)) != (0, 3):
            problems.append(("not colour-neutral: an antibaryon is three antiquarks", "require exactly three antiquarks"))
        expected_B = Fraction(-1)
    elif kind == "meson":
        if (len(quarks), len(antiquarks)) != (1, 1):
            problems.append(("not colour-neutral: a meson is one quark and one antiquark (colour + anti-colour)",
                             "require one quark and one antiquark"))
        expected_B = Fraction(0)
    else:  # atom: nucleons of three quarks each, bound with electrons
        if antiquarks or len(quarks) % 3 or not quarks:
            problems.append(("not colour-neutral: an atom's nucleus is made of three-quark nucleons",
                             "require quarks in groups of three and no antiquarks"))
        expected_B = Fraction(len(quarks), 3)
        if total(particles, "charge") != 0:
            problems.append((f"an atom is neutral but this one has charge {fmt_fraction(total(particles, 'charge'))}",
                             "add or remove electrons until the charge is 0"))
    if B != expected_B:
        problems.append((f"baryon number is {fmt_fraction(B)}, a {kind} has {fmt_fraction(expected_B)}",
                         "fix the required particles or the kind"))
    return problems


def difficulty(required: tuple[Particle, ...], counts: Counter[str], deck_total: int) -> float:
    """Expected draws to collect the required cards from the deck, ignoring opponents: needing
    the j-th copy of a particle with c copies costs deck/(c - j) draws. Rarer = harder."""
    return expected_draws(Counter(p.id for p in required), counts, deck_total)


@declared("targets")
def targets(game: Game, params: S.Fields) -> Iterator[Finding]:
    """Each target card: buildable from the deck, integer charge, colour-neutral and with the
    baryon number its kind implies; and harder targets never score fewer points."""
    comp = component_param(game, params)
    deck = component_param(game, params, "deck")
    deck_field = particle_field(deck, params, "deck_field")
    requires = typed_field(comp, params, "requires", "requires", ("list:particle",), "particle-list")
    kind_field = typed_field(comp, params, "kind", "hadron", ("enum", "text"), "kind")
    points_field = typed_field(comp, params, "points", "points", ("int", "number"), "points")
    counts = particle_counts(deck, deck_field)
    scored: list[tuple[float, int, Card]] = []
    for card in comp.cards:
        parts: tuple[Particle, ...] = card.fields.get(requires) or ()
        loc = card.where(requires)
        need = Counter(p.id for p in parts)
        for pid, n in sorted(need.items()):
            if counts[pid] < n:
                name = game.physics.particles[pid].name
                yield Finding("targets", f"target '{card.id}' needs {n} × {name} but the deck '{deck.id}' has "
                              f"{counts[pid]}", loc, f"add {name} cards to '{deck.id}' or change the target", game.id)
        charge = total(parts, "charge")
        if charge.denominator != 1:
            yield Finding("targets", f"target '{card.id}' has charge {fmt_fraction(charge)}: free particles have "
                          f"whole-number charge", loc, "fix the required quarks", game.id)
        kind = card.fields.get(kind_field)
        if kind not in KINDS:
            raise InputError(f"target kind '{S.shown(kind)}' is not one of {', '.join(KINDS)}", card.where(kind_field),
                             f"declare '{kind_field}' as enum with choices {list(KINDS)}")
        for message, fix in _kind_problems(kind, parts):
            yield Finding("targets", f"target '{card.id}' ({kind}): {message}", loc, fix, game.id)
        points = card.fields.get(points_field)
        if points is not None:
            scored.append((difficulty(parts, counts, deck.total), points, card))
    scored.sort(key=lambda t: (t[0], t[1]))
    for (d1, p1, c1), (d2, p2, c2) in zip(scored, scored[1:]):
        if d2 > d1 + 1e-9 and p2 < p1:
            yield Finding("targets", f"target '{c2.id}' is harder to build than '{c1.id}' (≈{d2:.0f} vs ≈{d1:.0f} "
                          f"expected draws) but scores fewer points ({p2} < {p1})", c2.where(points_field),
                          f"give '{c2.id}' at least {p1} points", game.id)
