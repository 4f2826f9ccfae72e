"""Rules over reaction tables: transformations, annihilations and dice tables of decays.

All of them reduce to the same physics: the quantum numbers going in equal those coming out.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterator

from .. import pdg
from .. import schema as S
from ..errors import Finding, Location
from ..proof import Proof
from ..model import Card, Component, Game, Table
from ..particles import QUANTUM_NUMBERS, Particle, PhysicsData, quantum_equal
from ..tables import Annihilation, Declared, DiceEntry, Roll, Transformation, walk_outcomes
from . import declared
from .common import component_param, fmt_fraction, names, particle_counts, particle_field, table_param, total

@dataclass(frozen=True)
class Reaction:
    """One reaction a table describes: ``initial`` → ``final``, with what its row declares about
    how it happens (virtual products, internal bosons, a loop, an energy source)."""

    initial: tuple[Particle, ...]
    final: tuple[Particle, ...]
    location: Location
    label: str
    declared: Declared = Declared()
    changes: bool = True

    def text(self) -> str:
        return f"{names(self.initial)} → {names(self.final)}"


def _conjugate(physics: PhysicsData, parts: tuple[Particle, ...]) -> tuple[Particle, ...]:
    return tuple(physics.anti(p.id) for p in parts)


def reactions(table: Table, physics: PhysicsData) -> Iterator[Reaction]:
    """Every reaction a table describes; dice tables marked ``antiparticles: true`` also yield
    the conjugate of each outcome of a particle that is not its own antiparticle. A die face on
    which the particle remains yields a reaction with ``changes`` False."""
    for row in table.rows:
        if isinstance(row, Transformation):
            yield Reaction((row.source, row.via), (row.target,), row.location,
                           f"{row.source.id} + {row.via.id}", row.declared)
        elif isinstance(row, Annihilation):
            for m in row.members:
                for option in row.products:
                    yield Reaction((m, physics.anti(m.id)), option, row.location,
                                   f"{row.name}: {m.id} annihilation", row.declared)
        elif isinstance(row, DiceEntry):
            for p in row.particles:
                for roll, products in walk_outcomes(row.rolls):
                    final = products if products is not None else (p,)
                    faces = ",".join(map(str, roll.faces))
                    yield Reaction((p,), final, roll.location, f"{p.id} on {faces}", roll.declared,
                                   products is not None)
                    if table.options.get("antiparticles") and p.antiparticle != p.id:
                        anti = physics.anti(p.id)
                        yield Reaction((anti,), _conjugate(physics, final), roll.location,
                                       f"{anti.id} on {faces} (antiparticle rule)",
                                       roll.declared.conjugate(physics), products is not None)


NOUNS = {"transformations": "transformations", "annihilation": "annihilations", "dice": "outcomes"}

ALL_CONSERVED = ("charge", "baryon_number", "lepton_e", "lepton_mu", "lepton_tau")


@declared("conservation")
def conservation(game: Game, params: S.Fields) -> Iterator[Finding | Proof]:
    """Each reaction of a table conserves the listed quantities (all of them by default)."""
    table = table_param(game, params, ("transformations", "annihilation", "dice"))
    quantities = params.get("quantities", S.seq_of(S.choice(QUANTUM_NUMBERS), min_items=1, what="list of quantities"),
                            list(ALL_CONSERVED))
    yield from violations(game, table, quantities, "conservation")


def quantities_text(quantities: list[str] | tuple[str, ...]) -> str:
    """'charge, baryon number and lepton family numbers' for a list of quantity names."""
    words = [q.replace("_", " ") for q in quantities if not q.startswith("lepton_") or q == "lepton_number"]
    families = [q for q in quantities if q.startswith("lepton_") and q != "lepton_number"]
    if families:
        words.append("lepton family numbers" if len(families) == 3 else
                     " and ".join(q.replace("_", " ") for q in families))
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def violations(game: Game, table: Table, quantities: list[str] | tuple[str, ...],
               rule: str) -> Iterator[Finding | Proof]:
    """One finding per reaction and quantity that is not conserved, and a proof for the rest."""
    held = 0
    for r in reactions(table, game.physics):
        if not r.changes:
            continue
        broken = False
        for q in quantities:
            before, after = total(r.initial, q), total(r.final, q)
            if before != after:
                broken = True
                yield Finding(rule, f"{table.id}: {r.label}: {r.text()} changes "
                              f"{q.replace('_', ' ')} from {fmt_fraction(before)} to {fmt_fraction(after)}",
                              r.location, _fix_hint(q, before - after), game.id)
        held += not broken
    yield Proof(rule, f"{table.id}: {held} {NOUNS[table.kind]} conserve {quantities_text(quantities)}", held, game.id,
                table.location)


def _fix_hint(quantity: str, missing: Fraction) -> str:
    if quantity == "charge":
        return (f"the products are missing charge {fmt_fraction(missing)}: check the particles "
                f"(e.g. an emitted W{'⁺' if missing > 0 else '⁻'}, or particle vs antiparticle)")
    return f"the products are missing {quantity.replace('_', ' ')} {fmt_fraction(missing)}: check particle vs antiparticle"


@declared("transformations")
def transformations(game: Game, params: S.Fields) -> Iterator[Finding | Proof]:
    """Level 5 transformations: conserve charge (the W carries ±1), baryon number and lepton
    family numbers; with ``deck`` given, every allowed transformation among the deck's fermions
    must also be listed (so players are never told a legal move is illegal)."""
    table = table_param(game, params, ("transformations",))
    yield from violations(game, table, ALL_CONSERVED, "transformations")
    if params.has("deck"):
        deck = component_param(game, params, "deck")
        field = particle_field(deck, params, "deck_field")
        present = [game.physics.particles[pid] for pid in particle_counts(deck, field)]
        bosons = [p for p in present if p.kind == "gauge boson" and p.charge != 0]
        fermions = [p for p in present if p.is_fermion]
        listed: dict[tuple[str, str, str], Transformation] = {}
        for r in table.rows:
            key = (r.source.id, r.via.id, r.target.id)
            first = listed.setdefault(key, r)
            if first is not r:
                yield Finding("transformations", f"{table.id}: {key[0]} + {key[1]} → {key[2]} is listed again "
                              f"(first at line {first.location.line})", r.location, "remove this row", game.id)
        allowed = 0
        for src in fermions:
            for w in bosons:
                for dst in fermions:
                    if dst.id == src.id or not all(quantum_equal((src, w), (dst,), q) for q in ALL_CONSERVED):
                        continue
                    allowed += 1
                    if (src.id, w.id, dst.id) not in listed:
                        # a heavier product needs its energy source declared (see the kinematics rule)
                        energy = (", energy: <where the energy comes from>"
                                  if dst.mass_mev > src.mass_mev + w.mass_mev else "")
                        yield Finding("transformations", f"{table.id}: the allowed transformation {src.name} + "
                                      f"{w.symbol.unicode()} → {dst.name} is missing", table.location,
                                      f"add '- {{from: {src.id}, via: {w.id}, to: {dst.id}{energy}}}'", game.id)
        yield Proof("transformations", f"{table.id}: the {allowed} transformations that conserve charge, baryon "
                    f"number and lepton family numbers among the {len(fermions)} fermions and {len(bosons)} W of "
                    f"'{deck.id}' are all listed", allowed, game.id, table.location)


@declared("dice-coverage")
def dice_coverage(game: Game, params: S.Fields) -> Iterator[Finding | Proof]:
    """Every die roll in a table (nested rolls included) covers each face exactly once, and a
    particle appears in at most one entry. A table of decays (every particle it rolls for
    decays, per PDG) must also roll for every particle of the game's cards that decays: a
    player left holding an unstable particle the table does not name has no rule to follow."""
    table = table_param(game, params, ("dice",))
    sides = table.options["die"]
    seen: dict[str, Location] = {}
    uneven: set[Location] = set()
    for entry in table.rows:
        for p in entry.particles:
            if p.id in seen:
                yield Finding("dice-coverage", f"{table.id}: {p.name} has two entries (first at line "
                              f"{seen[p.id].line})", entry.location, "merge them", game.id)
            seen[p.id] = entry.location
        label = "/".join(p.id for p in entry.particles)
        for finding in _cover(game, table, entry.rolls, sides, label, entry.location):
            uneven.add(finding.location)
            yield finding
    rolls = _count_rolls(table.rows) - len(uneven)
    yield Proof("dice-coverage", f"{table.id}: {rolls} die {'roll covers' if rolls == 1 else 'rolls cover'} "
                f"faces 1-{sides} exactly once (nested rolls included)", rolls, game.id, table.location)
    if seen and all(decays(game.physics.particles[pid]) for pid in seen):
        yield from _every_decay_rolled(game, table, seen)


def _lifetime_reference(p: Particle) -> pdg.PDGParticle | None:
    """The PDG entry whose lifetime is the particle's: its own, or for a confined quark (PDG
    gives it none) the hadron's that stands in for it (``proxy_pdg_id``, verified against PDG
    by the pdg-values rule); None for a particle PDG does not know (pdg-identity reports it)."""
    try:
        return pdg.lookup(p.lifetime.proxy_pdg_id or p.pdg_id)
    except pdg.UnknownParticle:
        return None


def decays(p: Particle) -> bool:
    """PDG gives the particle a finite lifetime (see :func:`_lifetime_reference`); a particle
    PDG does not know counts as its data says."""
    ref = _lifetime_reference(p)
    if ref is None:
        return not p.lifetime.stable
    return ref.lifetime is not None and math.isfinite(ref.lifetime)


def _dealt(game: Game) -> dict[str, tuple[Component, Card]]:
    """Every particle a card of the game stands for (a field of type particle), with the first
    card that deals it: the particles a player can hold."""
    out: dict[str, tuple[Component, Card]] = {}
    for comp in game.components.values():
        fields = [name for name, spec in comp.fields.items() if spec.type == "particle"]
        for card in comp.cards:
            for name in fields:
                p = card.fields.get(name)
                if p is not None:
                    out.setdefault(p.id, (comp, card))
    return out


def _every_decay_rolled(game: Game, table: Table, entries: dict[str, Location]) -> Iterator[Finding | Proof]:
    """A finding for each particle a card deals that decays but the decay table does not roll
    for (antiparticles count as rolled for when the table says ``antiparticles: true``)."""
    physics = game.physics
    mirrored = bool(table.options.get("antiparticles"))
    rolled = set(entries) | ({physics.anti(pid).id for pid in entries} if mirrored else set())
    unstable = [(pid, dealt) for pid, dealt in _dealt(game).items() if decays(physics.particles[pid])]
    missing = [(pid, dealt) for pid, dealt in unstable if pid not in rolled]
    for pid, (comp, card) in missing:
        p = physics.particles[pid]
        anti = physics.anti(pid)
        found = f"{table.id}: {p.name} ({pid}) decays (lifetime {_lifetime_text(p)}) and is dealt on " \
                f"'{comp.id}' cards ({card.location}), but the table has no entry for it"
        if anti.id in entries:
            yield Finding("dice-coverage", found, entries[anti.id], f"set 'antiparticles: true' on the table (its "
                          f"decays are the conjugates of {anti.id}'s), or add an entry '- particle: {pid}' "
                          f"with its rolls", game.id)
        elif mirrored and p.is_anti:
            yield Finding("dice-coverage", found, table.location, f"add an entry '- particle: {anti.id}' with the "
                          f"rolls of its decays ('antiparticles: true' rolls for {pid} the same way)", game.id)
        else:
            yield Finding("dice-coverage", found, table.location,
                          f"add an entry '- particle: {pid}' with the rolls of its decays", game.id)
    if not missing:
        yield Proof("dice-coverage", f"{table.id}: all {len(unstable)} particles the cards deal that decay "
                    f"(per PDG) have an entry", len(unstable), game.id, table.location)


def _lifetime_text(p: Particle) -> str:
    """The particle's lifetime as the finding prints it: PDG's, or its stand-in hadron's."""
    ref = _lifetime_reference(p)
    if ref is None:
        return f"{p.lifetime.seconds:.3g} s in the data"
    via = f", that of {ref.name}" if p.lifetime.proxy_pdg_id else ""
    return f"{ref.lifetime * pdg.NS:.3g} s per PDG{via}"


def _count_rolls(rows: tuple[DiceEntry, ...]) -> int:
    """How many die rolls a table's entries hold, nested rolls included."""
    def count(rolls: tuple[Roll, ...]) -> int:
        return 1 + sum(count(r.roll) for r in rolls if r.roll)
    return sum(count(e.rolls) for e in rows)


def _cover(game: Game, table: Table, rolls: tuple[Roll, ...], sides: int, label: str,
           loc: Location) -> Iterator[Finding]:
    hits: Counter[int] = Counter()
    for r in rolls:
        hits.update(r.faces)
        if r.roll:
            yield from _cover(game, table, r.roll, sides, label, r.location)
    missing = [f for f in range(1, sides + 1) if hits[f] == 0]
    twice = [f for f in range(1, sides + 1) if hits[f] > 1]
    if missing:
        yield Finding("dice-coverage", f"{table.id}: roll for {label} says nothing for face(s) "
                      f"{', '.join(map(str, missing))}", loc, "add a line for those faces", game.id)
    if twice:
        yield Finding("dice-coverage", f"{table.id}: roll for {label} covers face(s) {', '.join(map(str, twice))} "
                      f"more than once", loc, "make the face ranges disjoint", game.id)
    if rolls and all(r.reroll for r in rolls):
        yield Finding("dice-coverage", f"{table.id}: roll for {label} never ends (every face says roll again)",
                      loc, "give at least one face an outcome", game.id)
