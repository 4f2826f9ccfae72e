"""Kinematics of reaction tables: a particle decays only into products lighter than itself.

A product the data declares ``virtual`` (the W a c quark decays through) is off its mass shell
and does not count; a reaction whose products outweigh what goes in (d + W⁺ → t) must declare
where the energy comes from (``energy: reason``) — but never a decay: a particle decaying has
only its own mass to give. Particles that meet never become a single massless particle (e⁺e⁻ → γ):
energy and momentum could not both be conserved. Both are listed as declared choices, and a
declaration that is not needed (a "virtual" W in t → b W⁺, which is heavy enough to be real; or
both W of H → W⁺ W⁻, where one real W fits) is a finding, so the data never hides physics behind
a key. Quarks produced together weigh at least the mesons they must form (see
:mod:`.hadron_thresholds`): τ⁻ → ν_τ s c̄ is forbidden, s c̄ being at least a D_s⁻.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Iterator

from .. import schema as S
from ..errors import Finding
from ..model import Game
from ..particles import Particle, PhysicsData
from ..proof import Choice, Proof
from . import declared
from .common import names, table_param
from .hadron_thresholds import Hadronised, hadronised
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


def on_shell(r: Reaction, virtual_parts: tuple[Particle, ...] | None = None) -> tuple[Particle, ...]:
    """The products that are real particles: all but those declared virtual (``virtual_parts``,
    by default what the data declares)."""
    virtual = Counter(p.id for p in (r.declared.virtual if virtual_parts is None else virtual_parts))
    out = []
    for p in r.final:
        if virtual[p.id]:
            virtual[p.id] -= 1
        else:
            out.append(p)
    return tuple(out)


def total_mev(parts: Iterable[Particle]) -> float:
    """The least mass of the parts together (a mass only bounded from above counts as 0)."""
    return sum(p.least_mass_mev for p in parts)


def _masses(parts: tuple[Particle, ...] | Hadronised) -> str:
    """'b 4.186 GeV + W⁺ 80.36 GeV = 84.55 GeV'; the mesons products must form count as mesons
    ('ν_τ < 0.8 eV + D_s⁻ 1968 MeV = 1.968 GeV')."""
    weighed = parts if isinstance(parts, Hadronised) else Hadronised(parts)
    terms = [f"{p.symbol.unicode()} {mass_text(p)}" for p in weighed.free]
    terms += [f"{b.meson.name} {fmt_mev(b.meson.mass_mev)}" for b in weighed.bound]
    return terms[0] if len(terms) == 1 else f"{' + '.join(terms)} = {fmt_mev(weighed.mass_mev)}"


def _confined(products: Hadronised) -> str:
    """Why the products weigh more than their bare masses: ', as quarks are confined: s c̄ must
    form at least the meson D_s⁻ (1968 MeV)' (empty when no quarks are bound)."""
    if not products.bound:
        return ""
    pairs = "; ".join(f"{b.pair_text()} must form at least the meson {b.meson.name} ({fmt_mev(b.meson.mass_mev)})"
                      for b in products.bound)
    return f", as quarks are confined: {pairs}"


def _allowed(before: float, products: Hadronised, decay: bool) -> bool:
    """A decay's products must be lighter than the parent; other reactions' no heavier."""
    return products.mass_mev < before if decay else products.mass_mev <= before


def _unneeded_virtual(r: Reaction, before: float) -> list[tuple[Particle, Hadronised]]:
    """The particles declared virtual that the reaction could make real, the other declarations
    kept, each with the products that would then be real: a declaration the reaction does not
    need (either W of H → W⁺ W⁻ declared virtual is one, when both are)."""
    declared_virtual = r.declared.virtual
    spare: dict[str, tuple[Particle, Hadronised]] = {}
    for i, p in enumerate(declared_virtual):
        real = hadronised(on_shell(r, declared_virtual[:i] + declared_virtual[i + 1:]))
        if _allowed(before, real, len(r.initial) == 1):
            spare.setdefault(p.id, (p, real))
    return list(spare.values())


def could_be_virtual(r: Reaction, before: float) -> tuple[Particle, ...]:
    """The fewest, heaviest real products that, declared virtual, would make the reaction allowed
    by energy, at least one product staying real (and not one massless particle from two that
    meet); () when no declaration would help (c → b W⁺: the b alone outweighs the c)."""
    real = on_shell(r)
    decay = len(r.initial) == 1
    heaviest = sorted(real, key=lambda p: -p.least_mass_mev)
    for k in range(1, len(real)):
        kept = heaviest[k:]
        if not decay and len(kept) == 1 and kept[0].mass_mev == 0:
            continue
        if _allowed(before, hadronised(kept), decay):
            return tuple(heaviest[:k])
    return ()


def _virtual_hint(r: Reaction, candidates: tuple[Particle, ...], physics: PhysicsData) -> str:
    """'declare t virtual ('virtual: [t]')', keeping what the row declares already, in the row's own
    particles (a reaction the antiparticle rule derives is written as its particle's row)."""
    written = r.declared.virtual + candidates
    if r.label.endswith("(antiparticle rule)"):
        written = tuple(physics.anti(p.id) for p in written)
    these = written[len(r.declared.virtual):]
    return (f"declare {' and '.join(p.id for p in these)} virtual "
            f"('virtual: [{', '.join(p.id for p in written)}]')")


def _fix(kind: str, decay: bool, confined: bool, hint: str = "") -> str:
    """What to do about a reaction energy forbids (``hint``: the virtual declaration that would
    allow it, :func:`_virtual_hint`, or '')."""
    if confined and decay:   # no declaration makes a quark pair lighter than its meson
        return ("fix the products: a quark and an antiquark made together leave as a meson, so pick quarks whose "
                "lightest meson fits")
    if confined:
        return ("fix the products (a quark and an antiquark made together leave as a meson), or say where the "
                "energy comes from ('energy: reason')")
    if kind == "transformations":
        return "fix the particle it becomes, or say where the energy comes from ('energy: reason')"
    if decay:   # a decaying particle has only its own mass to give
        return f"fix the products, or {hint}" if hint else "fix the products"
    if hint:
        return f"fix the products, {hint}, or say where the energy comes from ('energy: reason')"
    return "fix the products, or say where the energy comes from ('energy: reason')"


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
        products = hadronised(real)
        # what meets is weighed as what leaves is: a quark and an antiquark that meet are confined too
        incoming = hadronised(r.initial)
        before, after = incoming.mass_mev, products.mass_mev
        allowed = _allowed(before, products, len(r.initial) == 1)
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
            candidates = could_be_virtual(r, before)
            hint = _virtual_hint(r, candidates, game.physics) if candidates else ""
            if r.declared.energy and len(r.initial) == 1:
                checked -= 1
                yield Finding("kinematics", f"{where}: a decay takes no energy from elsewhere: its real products "
                              f"({_masses(products)}) must be lighter than the parent ({_masses(r.initial)}), "
                              f"whatever 'energy' says{_confined(products)}", r.declared.at("energy", r.location),
                              f"fix the products, or {hint}, and remove 'energy'" if hint else
                              "fix the products and remove 'energy'", game.id)
                continue
            if r.declared.energy:
                energy += 1
                yield Choice("kinematics", f"{where} (products {fmt_mev(after)}, in {fmt_mev(before)})",
                             r.declared.energy, r.declared.at("energy", r.location), game.id)
                continue
            checked -= 1
            these = "its real products" if r.declared.virtual else "its products"
            yield Finding("kinematics", f"{where}: {these} ({_masses(products)}) "
                          f"{'are not lighter than the parent' if len(r.initial) == 1 else 'outweigh what goes in'} "
                          f"({_masses(incoming)}){_confined(products)}", r.location,
                          _fix(table.kind, len(r.initial) == 1, bool(products.bound), hint), game.id)
            continue
        if r.declared.energy:
            yield Finding("kinematics", f"{where} declares an energy source but needs none: its products "
                          f"{_masses(products)} are lighter than {_masses(incoming)}",
                          r.declared.at("energy", r.location),
                          "remove 'energy'", game.id)
        if r.declared.virtual:
            every = hadronised(r.final)
            if _allowed(before, every, len(r.initial) == 1):
                yield Finding("kinematics", f"{where} declares {names(r.declared.virtual)} virtual, but "
                              f"{_masses(incoming)} is heavy enough to make every product real "
                              f"({_masses(every)})", r.declared.at("virtual", r.location),
                              "remove 'virtual': the products are on their mass shell", game.id)
                continue
            spare = _unneeded_virtual(r, before)
            if spare:
                yield _spare_finding(game, where, r, spare)
                continue
            virtual += 1
            yield Choice("kinematics", f"{where}: {names(r.declared.virtual)} virtual",
                         f"off its mass shell: {_masses(incoming)} cannot make {_masses(every)}",
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


def _spare_finding(game: Game, where: str, r: Reaction, spare: list[tuple[Particle, Hadronised]]) -> Finding:
    """A reaction declares more virtual than it needs: name what it could make real (the other
    declarations kept), and what its real products would then weigh."""
    first, real = spare[0]
    symbol = first.symbol.unicode()
    which = symbol if len(spare) == 1 else f"any one of {' or '.join(p.symbol.unicode() for p, _ in spare)}"
    fix = (f"remove {first.id} from 'virtual'" if len(spare) == 1 else
           f"remove one of {' or '.join(p.id for p, _ in spare)} from 'virtual'")
    return Finding("kinematics", f"{where} declares {names(r.declared.virtual)} virtual, but {_masses(r.initial)} "
                   f"is heavy enough to make {which} real (with {symbol} real, its real products are "
                   f"{_masses(real)})", r.declared.at("virtual", r.location),
                   f"{fix}: declare virtual only what the reaction cannot make real", game.id)
