"""Helpers shared by the rules: parameter lookups and quantum-number sums."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from typing import Any, Iterable, Mapping

from .. import pdg
from .. import schema as S
from ..errors import InputError, did_you_mean
from ..format import written_figures
from ..model import Card, Component, Game, Table
from ..particles import MASS_UNITS, TIME_UNITS, Particle, quantum_total


def component_param(game: Game, params: S.Fields, key: str = "component") -> Component:
    cid = params.get(key, S.ident)
    if cid not in game.components:
        raise InputError(f"check refers to unknown component '{cid}'{did_you_mean(cid, game.components)}",
                         params.map.where(key), f"use one of: {', '.join(game.components)}")
    return game.components[cid]


def table_param(game: Game, params: S.Fields, kinds: tuple[str, ...], key: str = "table") -> Table:
    tid = params.get(key, S.ident)
    if tid not in game.tables:
        raise InputError(f"check refers to unknown table '{tid}'{did_you_mean(tid, game.tables)}",
                         params.map.where(key), f"use one of: {', '.join(game.tables) or '(no tables)'}")
    table = game.tables[tid]
    if table.kind not in kinds:
        raise InputError(f"table '{tid}' is of kind '{table.kind}', this check needs {' or '.join(kinds)}",
                         params.map.where(key), "point the check at a table of the right kind")
    return table


def particle_field(component: Component, params: S.Fields, key: str = "field", default: str = "particle") -> str:
    """Name of the card field that holds each card's particle."""
    name = params.get(key, S.ident, default)
    spec = component.fields.get(name)
    if spec is None or spec.type != "particle":
        raise InputError(f"component '{component.id}' has no particle field '{name}'", params.map.where(key)
                         if params.has(key) else params.loc, "name a field declared with 'type: particle'")
    return name


def typed_field(component: Component, params: S.Fields, key: str, default: str, types: tuple[str, ...],
                what: str, required: bool = True) -> str:
    """Name of a card field a rule reads, checked to be declared with one of ``types`` (a type
    like 'list:particle' means a list of particles). With ``required=False`` an undeclared field
    is accepted when the parameter was left at its default (every card then has no value)."""
    return declared_field(component.fields, f"component '{component.id}'", params, key, default, types,
                          f"{what} ", required)


def declared_field(specs: Mapping[str, Any], owner: str, params: S.Fields, key: str, default: str,
                   types: tuple[str, ...], what: str = "", required: bool = True) -> str:
    """Name of a field of ``owner`` (a component's cards, a records table's rows) named by the
    check's parameter ``key``, checked against the field declarations ``specs``."""
    name = params.get(key, S.ident, default)
    spec = specs.get(name)
    where = params.map.where(key) if params.has(key) else params.loc
    if spec is None:
        if not required and not params.has(key):
            return name
        raise InputError(f"{owner} has no {what}field '{name}'", where,
                         f"declare '{name}' in its fields or set '{key}' to one of: "
                         f"{S.one_of(n for n, f in specs.items() if _type_of(f) in types) or '(none)'}")
    if _type_of(spec) not in types:
        raise InputError(f"field '{name}' of {owner} is of type {_type_of(spec)}, "
                         f"this check needs {' or '.join(types)}", where,
                         f"name a field declared with type {' or '.join(types)}")
    return name


def _type_of(spec: Any) -> str:
    return f"list:{spec.of}" if spec.type == "list" else spec.type


def card_particle_field(comp: Component) -> str | None:
    """The field naming the particle a card of ``comp`` *is*: its only particle field (a card
    with several particles, a reaction or a target, is not itself one particle: laid on a
    particle's place, scored as that particle)."""
    found = [name for name, spec in comp.fields.items() if spec.type == "particle"]
    return found[0] if len(found) == 1 else None


def particle_counts(component: Component, field: str) -> Counter[str]:
    """How many cards of each particle id a deck holds."""
    counts: Counter[str] = Counter()
    for card in component.cards:
        p = card.fields.get(field)
        if p is not None:
            counts[p.id] += card.count
    return counts


def expected_draws(needed: Counter[str], counts: Counter[str], deck_total: int) -> float:
    """Expected draws to collect ``needed`` (kind → how many) from a deck holding ``counts`` of
    each kind, ignoring opponents: the j-th copy of a kind with c copies costs deck/(c − j) draws.
    The measure of rarity the targets rule orders targets by; here for any kind of card."""
    cost = 0.0
    for kind, k in needed.items():
        c = counts.get(kind, 0)
        for j in range(k):
            cost += deck_total / (c - j) if c - j > 0 else float("inf")
    return cost


def card_key(card: Card, path: str) -> Any:
    """A card's value for a dotted path: 'line', 'particle', 'particle.category'."""
    head, _, attr = path.partition(".")
    value = card.fields.get(head)
    if attr:
        return getattr(value, attr, None)
    return getattr(value, "id", value)


def total(particles: Iterable[Particle], quantity: str) -> Fraction:
    return quantum_total(particles, quantity)


def fmt_fraction(f: Fraction) -> str:
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def names(particles: Iterable[Particle]) -> str:
    return " ".join(p.symbol.unicode() for p in particles)


def pdg_agrees(p: Particle, key: str) -> bool | None:
    """Whether ``p``'s ``key`` (mass, lifetime, spin, charge or baryon_number) is PDG's at the
    precision written; None where PDG gives nothing to compare with (the pdg-values and
    pdg-identity rules judge the value itself). It tells which of two entries that should
    mirror each other holds the mistake, and which particles' vertices a rule cannot derive
    from the data."""
    try:
        ref = pdg.lookup(p.lifetime.proxy_pdg_id or p.pdg_id if key == "lifetime" else p.pdg_id)
    except pdg.UnknownParticle:
        return None
    if key == "charge":
        return pdg.charge(ref) == p.charge
    if key == "baryon_number":
        return pdg.baryon_number(ref) == p.baryon_number
    if key == "spin":
        spin = pdg.spin(ref)
        return None if spin is None else spin == p.spin
    if key == "mass":
        if ref.mass is None or p.mass.upper_limit:
            return None
        figures, want = written_figures(p.mass.digits), ref.mass / MASS_UNITS[p.mass.unit]
        uncertainty = max(ref.mass_upper or 0, ref.mass_lower or 0) / MASS_UNITS[p.mass.unit]
        return pdg.same_at(p.mass.value, figures, want) and not pdg.too_coarse(p.mass.value, figures, uncertainty)
    if key != "lifetime" or ref.lifetime is None:
        return None
    seconds = ref.lifetime * pdg.NS
    if p.lifetime.stable or p.lifetime.measured is None:
        return math.isinf(seconds)
    m = p.lifetime.measured
    return pdg.same_at(m.value, written_figures(m.digits), seconds / TIME_UNITS[m.unit])
