"""Kinematics of reaction tables: a particle decays only into products lighter than itself.

A product the data declares ``virtual`` (the W a c quark decays through) is off its mass shell
and does not count; a reaction whose products outweigh what goes in (d + W⁺ → t) must declare
where the energy comes from (``energy: reason``) — but never a decay: a particle decaying has
only its own mass to give. Particles that meet never become a single massless particle (e⁺e⁻ → γ):
energy and momentum could not both be conserved. Both are listed as declared choices, and a
declaration that is not needed (a "virtual" W in t → b W⁺, which is heavy enough to be real) is
a finding, so the data never hides physics behind a key.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Iterator

from .. import schema as S
from ..errors import Finding
from ..model import Game
from ..particles import Particle
from ..proof import Choice, Proof
from . import declared
from .common import names, table_param
from .reactions import NOUNS, Reaction, reactions


def fmt_mev(mev: float) -> str:
    """A mass in the unit a reader expects: GeV above 1 GeV, MeV above 1 MeV, else eV."""
    if mev >= 1000:
        return f"{mev / 1000:.4g} GeV"
    if mev >= 1:
        return f"{mev:.4g} MeV"
    return f"{mev * 1e6:.3g} eV"


def mass_text(p: Particle) -> str:
    """A particle's mass as the data writes it ('4.186 GeV', '< 0.8 eV')."""
    return f"{'< ' if p.mass.upper_limit else ''}{p.mass.digits} {p.mass.unit}"


def on_shell(r: Reaction) -> tuple[Particle, ...]:
    """The products that are real particles: all but those the data declares virtual."""
    virtual = Counter(p.id for p in r.declared.virtual)
    out = []
    for p in r.final:
        if virtual[p.id]:
            virtual[p.id] -= 1
        else:
            out.append(p)
    return tuple(out)


def total_mev(parts: Iterable[Particle]) -> float:
    return sum(p.mass_mev for p in parts)


def _masses(parts: tuple[Particle, ...]) -> str:
    listed = " + ".join(f"{p.symbol.unicode()} {mass_text(p)}" for p in parts)
    return listed if len(parts) == 1 else f"{listed} = {fmt_mev(total_mev(parts))}"


def _fix(kind: str, decay: bool) -> str:
    if kind == "transformations":
        return "fix the particle it becomes, or say where the energy comes from ('energy: reason')"
    if decay:   # a decaying particle has only its own mass to give
        return "fix the products, or declare the ones that are virtual ('virtual: [W+]')"
    return ("fix the products, declare the ones that are virtual ('virtual: [W+]'), or say where the energy "
            "comes from ('energy: reason')")


@declared("kinematics")
def kinematics(game: Game, params: S.Fields) -> Iterator[Finding | Proof | Choice]:
    """Every reaction of a table is allowed by energy: a decay's real products are lighter than the
    parent; any other reaction's products outweigh what goes in only with a declared energy source."""
    table = table_param(game, params, ("transformations", "annihilation", "dice"))
    checked = virtual = energy = 0
    decays = True
    for r in reactions(table, game.physics):
        if not r.changes:
            continue
        decays = decays and len(r.initial) == 1
        checked += 1
        real = on_shell(r)
        before, after = total_mev(r.initial), total_mev(real)
        allowed = after < before if len(r.initial) == 1 else after <= before
        where = f"{table.id}: {r.label}: {r.text()}"
        if len(r.initial) > 1 and len(real) == 1 and real[0].mass_mev == 0:
            checked -= 1
            yield Finding("kinematics", f"{where}: particles that meet cannot become one massless "
                          f"{real[0].symbol.unicode()}: energy and momentum are not both conserved (the pair's "
                          f"invariant mass is at least {fmt_mev(before)}, a massless particle's is zero)",
                          r.location, "list at least two products (e.g. two photons), or one massive particle "
                          "the pair can form", game.id)
            continue
        if not allowed:
            if r.declared.energy and len(r.initial) == 1:
                checked -= 1
                yield Finding("kinematics", f"{where}: a decay takes no energy from elsewhere: its real products "
                              f"({_masses(real)}) must be lighter than the parent ({_masses(r.initial)}), whatever "
                              f"'energy' says", r.declared.at("energy", r.location),
                              "fix the products, or declare the ones that are virtual ('virtual: [W+]'), and "
                              "remove 'energy'", game.id)
                continue
            if r.declared.energy:
                energy += 1
                yield Choice("kinematics", f"{where} (products {fmt_mev(after)}, in {fmt_mev(before)})",
                             r.declared.energy, r.declared.at("energy", r.location), game.id)
                continue
            checked -= 1
            products = "its real products" if r.declared.virtual else "its products"
            yield Finding("kinematics", f"{where}: {products} ({_masses(real)}) "
                          f"{'are not lighter than the parent' if len(r.initial) == 1 else 'outweigh what goes in'} "
                          f"({_masses(r.initial)})", r.location,
                          _fix(table.kind, len(r.initial) == 1), game.id)
            continue
        if r.declared.energy:
            yield Finding("kinematics", f"{where} declares an energy source but needs none: its products "
                          f"{_masses(real)} are lighter than {_masses(r.initial)}", r.declared.at("energy", r.location),
                          "remove 'energy'", game.id)
        if r.declared.virtual:
            heavy = total_mev(r.final)
            if heavy < before if len(r.initial) == 1 else heavy <= before:
                yield Finding("kinematics", f"{where} declares {names(r.declared.virtual)} virtual, but "
                              f"{_masses(r.initial)} is heavy enough to make every product real "
                              f"({_masses(r.final)})", r.declared.at("virtual", r.location),
                              "remove 'virtual': the products are on their mass shell", game.id)
                continue
            virtual += 1
            yield Choice("kinematics", f"{where}: {names(r.declared.virtual)} virtual",
                         f"off its mass shell: {_masses(r.initial)} cannot make {_masses(r.final)}",
                         r.declared.at("virtual", r.location), game.id)
    noun = "decays" if decays else NOUNS[table.kind]
    claim = ("on-shell products lighter than the parent" if decays
             else "on-shell products no heavier than what goes in")
    bosons = sorted({p.symbol.unicode() for r in reactions(table, game.physics) for p in r.declared.virtual})
    if energy:
        claim += f", except {energy} that take energy from a declared source"
    if virtual:
        claim += f"; {virtual} through a declared virtual {'/'.join(bosons)}"
    yield Proof("kinematics", f"{table.id}: {checked} {noun}: {claim}", checked, game.id, table.location)
