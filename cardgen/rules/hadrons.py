"""Target cards (Particle Builder): every target must be a real, buildable particle system, and
one that names its particle (``identity: [p]``, or one name per part of an atom) must be that
particle as PDG knows it: its quark content, charge, baryon number and flavour quantum numbers.
"""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction
from dataclasses import dataclass
from typing import Generator, Iterator

from .. import pdg
from .. import schema as S
from ..errors import Finding, InputError, Location
from ..model import Card, Component, Game
from ..particles import Particle
from ..proof import Proof
from . import declared, meson_mixing
from .common import (component_param, expected_draws, fmt_fraction, names, particle_counts, particle_field, total,
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


kind_problems = _kind_problems   # public name: the answer key (cardgen/answers.py) applies the same test


def difficulty(required: tuple[Particle, ...], counts: Counter[str], deck_total: int) -> float:
    """Expected draws to collect the required cards from the deck, ignoring opponents: needing
    the j-th copy of a particle with c copies costs deck/(c - j) draws. Rarer = harder."""
    return expected_draws(Counter(p.id for p in required), counts, deck_total)


IDENTITY_HINT = ("name it as the particle package spells PDG's names (p, n, pi+, K0, Lambda, Delta(1232)++, "
                 "J/psi(1S), e-) or by its PDG id number")


def _quark_letter(p: Particle) -> str | None:
    """PDG's letter for a quark card (upper case for an antiquark), None for anything else."""
    if p.kind != "quark" or not 1 <= abs(p.pdg_id) <= 6:
        return None
    letter = pdg.QUARK_LETTERS[abs(p.pdg_id) - 1]
    return letter.upper() if p.pdg_id < 0 else letter


def _numbers(charge: Fraction, baryon: Fraction, flavours: dict[str, int]) -> str:
    shown = [f"charge {'+' if charge > 0 else ''}{fmt_fraction(charge)}", f"baryon number {fmt_fraction(baryon)}"]
    shown += [f"{name} {value:+d}" for name, value in flavours.items() if value]
    return ", ".join(shown)


def _identity_problem(card: Card, ref, share: tuple[Particle, ...]) -> tuple[str, str] | None:
    """Why the cards ``share`` are not PDG's particle ``ref`` (None when they are)."""
    expected = pdg.contents(ref)
    if not ref.pdgid.is_hadron and not expected:  # a fundamental particle: exactly its own card
        if len(share) == 1 and share[0].pdg_id == int(ref.pdgid):
            return None
        return (f"requires {names(share) or 'nothing'} for {ref.name} but PDG's {ref.name} is one fundamental "
                f"particle (PDG id {int(ref.pdgid)})", f"require exactly one {ref.name} card for it")
    if not expected:   # an exotic or unsettled state: PDG gives no quark content to build it from
        listing = f" (its listing says '{ref.quarks}')" if ref.quarks else ""
        return (f"names {ref.name}, for which PDG gives no definite quark content{listing}, so no cards can be "
                f"shown to make it", "name a hadron whose quark content PDG gives (p, n, pi+, K0, Lambda, …)")
    letters = [_quark_letter(p) for p in share]
    content = Counter(letter for letter in letters if letter)
    others = [p for p, letter in zip(share, letters) if letter is None]
    # PDG writes ω, φ, η, … as mixtures of u ū, d d̄ and s s̄ without weights; where the
    # nonet is near ideal mixing only the dominant term makes the meson (see meson_mixing)
    mixing = meson_mixing.dominant(ref)
    accepted = mixing.contents if mixing else expected
    if not others and content in accepted:
        return None
    alternatives = " or ".join(pdg.content_text(c) for c in accepted)
    if mixing and not others and content in expected:
        made = mixing.partner.name
        return (f"requires {names(share)} for {ref.name}, but {ref.name} is almost pure {mixing.text} "
                f"({mixing.reason()}): {names(share)} makes a state like {made}, its nonet partner",
                f"require {alternatives} for {ref.name}, or name {made} for these cards")
    want = accepted[0]
    have = _numbers(total(share, "charge"), total(share, "baryon_number"), pdg.flavour_numbers(content))
    pdg_has = _numbers(pdg.charge(ref), pdg.baryon_number(ref), pdg.flavour_numbers(want))
    return (f"requires {names(share)} for {ref.name} but PDG's {ref.name} is {alternatives} ({pdg_has}); "
            f"these cards give {have}", f"require {alternatives}")


def _kind_of(parts: list) -> str | None:
    """The target kind PDG's particles imply: one baryon, antibaryon or meson, an atom of
    several parts (or a nucleus); None for one fundamental particle, which is no target kind."""
    if len(parts) == 1 and parts[0].pdgid.is_baryon:
        return "baryon" if int(parts[0].pdgid) > 0 else "antibaryon"
    if len(parts) == 1 and parts[0].pdgid.is_meson:
        return "meson"
    if len(parts) == 1 and not pdg.contents(parts[0]):
        return None
    return "atom"


def _shares_of(parts: list) -> list[int] | None:
    """How many required cards each part takes, from PDG: its quarks, or one card for a
    fundamental particle (None when a part has no definite content)."""
    out = []
    for ref in parts:
        content = pdg.contents(ref)
        if content:
            out.append(sum(content[0].values()))
        elif ref.pdgid.is_hadron:
            return None
        else:
            out.append(1)
    return out


def _identities(card: Card, field: str, shares_field: str,
                required: tuple[Particle, ...]) -> Iterator[tuple[object, tuple[Particle, ...]]]:
    """Each named part of a target with its share of the required cards, read in order."""
    loc = card.where(field)
    parts = []
    for name in card.fields.get(field) or ():
        try:
            parts.append(pdg.lookup(name))
        except pdg.UnknownParticle:
            raise InputError(f"target '{card.id}' names '{S.shown(name)}', which is no particle PDG knows", loc,
                             IDENTITY_HINT) from None
    shares = card.fields.get(shares_field)
    if shares is None:
        if len(parts) > 1:
            raise InputError(f"target '{card.id}' has {len(parts)} parts but does not say which required cards "
                             f"belong to which", loc, f"add '{shares_field}: [...]', the number of required cards "
                             f"of each part in order, e.g. [3, 1] for a proton and an electron")
        shares = (len(required),)
    if len(shares) != len(parts) or sum(shares) != len(required):
        raise InputError(f"target '{card.id}': '{shares_field}' {list(shares)} must give each of its {len(parts)} "
                         f"parts a share of its {len(required)} required cards", card.where(shares_field),
                         f"write {len(parts)} numbers that add up to {len(required)}")
    start = 0
    for ref, n in zip(parts, shares):
        yield ref, required[start:start + n]
        start += n


def _split(required: tuple[Particle, ...], shares: list[int]) -> list[tuple[Particle, ...]]:
    """The required cards cut into consecutive shares."""
    out, start = [], 0
    for n in shares:
        out.append(required[start:start + n])
        start += n
    return out


@dataclass(frozen=True)
class _TargetFields:
    """The target component's fields the rule reads (see :func:`targets`)."""

    requires: str
    kind: str
    points: str
    identity: str | None
    shares: str | None
    name: str | None = None


#: The English word a hadron's family is named by on a card, by the base of PDG's name ('pi'
#: of 'pi+', 'Lambda' of 'Lambda~'): a Greek-lettered family by its letter.
_FAMILY_WORDS = {"pi": "pion", "K": "kaon", "p": "proton", "n": "neutron", "Lambda": "lambda", "Sigma": "sigma",
                 "Xi": "xi", "Omega": "omega", "Delta": "delta", "eta": "eta", "rho": "rho", "omega": "omega",
                 "phi": "phi", "J/psi": "psi", "psi": "psi", "Upsilon": "upsilon"}
#: Words a name may use for a family: the families' own, their symbols written out, and what
#: is no hadron at all (a target printed 'Electron' names no hadron).
_SAID = {**{w: w for w in _FAMILY_WORDS.values()}, "pi": "pion", "k": "kaon", "p": "proton", "n": "neutron",
         **{w: "not a hadron" for w in ("electron", "positron", "muon", "tau", "neutrino", "quark", "photon",
                                        "gluon", "boson", "lepton")}}
#: Letters a name may print instead of writing the family out, and charge signs.
_SPELLED = str.maketrans({"π": " pi", "Λ": " lambda", "Σ": " sigma", "Ξ": " xi", "Ω": " omega", "Δ": " delta",
                          "η": " eta", "ρ": " rho", "φ": " phi", "ψ": " psi", "ω": " omega", "Υ": " upsilon",
                          "⁺": "+", "⁻": "-", "⁰": "0", "−": "-", "\u0304": "~"})
_CHARGE_WORDS = {"positive": 1, "positively": 1, "plus": 1, "negative": -1, "negatively": -1, "minus": -1,
                 "neutral": 0, "zero": 0}
#: A word with the charge signs written after it ('delta++', 'pi-', 'k0'), or a stated charge.
_TOKEN = re.compile(r"([a-z]+)(~?)([+\-]+|0)?(?![a-z0-9])")   # a hyphen joining words ('phi-s') is no sign
_STATED = re.compile(r"charge\s*:?\s*([+\-]?)\s*([0-9])")


def _name_findings(game: Game, card: Card, name_field: str, refs: list) -> Iterator[Finding]:
    """The name a target prints agrees with what it names, in what the name says: the family
    (a 'Sigma+ baryon' that is PDG's Λ; an 'Electron' that is a proton), the charge (positive,
    minus, 'Delta0', 'π⁻', 'charge −1') and whether it is an antiparticle ('Neutral antikaon' for
    K⁰, d s̄; 'Antihydrogen' of a proton and an electron). A name that says none of these
    passes; an atom's name is held to the antiparticle part alone. The English name is read:
    a translation is the translator's."""
    printed = card.fields.get(name_field)
    if not isinstance(printed, str):
        return
    text = printed.translate(_SPELLED).lower().replace("j/psi", "psi")
    tokens = [(m[1], m[2], m[3] or "") for m in _TOKEN.finditer(text)]
    problems = []
    anti = any(word.startswith("anti") or bar for word, bar, _ in tokens)
    if anti and all(int(r.pdgid) > 0 for r in refs):   # (a name may leave it unsaid: π⁻ is the negative pion)
        problems.append(f"says it is an antiparticle, but {' + '.join(r.name for r in refs)} "
                        f"{'is not one' if len(refs) == 1 else 'are none'}")
    if len(refs) == 1:
        ref = refs[0]
        family = _FAMILY_WORDS.get(re.sub(r"\(.*?\)|[~+\-0*']", "", ref.name))
        said = [(word, _SAID[word.removeprefix("anti")]) for word, _, signs in tokens
                if word.removeprefix("anti") in _SAID and (len(word.removeprefix("anti")) > 1 or signs)]
        if family is not None and said and all(f != family for _, f in said):
            problems.append(f"says {said[0][0]}, but {ref.name} is a{'n' if family[0] in 'aeiou' else ''} {family}")
        charge = Fraction(ref.charge).limit_denominator(3)
        stated = _STATED.search(text)
        signed = next(((word, signs) for word, _, signs in tokens if signs and word.removeprefix("anti") in _SAID),
                      None)
        worded = next((word for word, _, _ in tokens if word in _CHARGE_WORDS), None)
        if stated:
            value = int(stated[2]) * (-1 if stated[1] == "-" else 1)
            wrong, says = value != charge, f"charge {value:+d}" if value else "charge 0"
        elif signed:
            value = 0 if signed[1] == "0" else signed[1].count("+") - signed[1].count("-")
            wrong, says = value != charge, "".join(signed)
        elif worded is not None:
            wrong, says = (charge > 0) - (charge < 0) != _CHARGE_WORDS[worded], worded
        else:
            wrong, says = False, ""
        if wrong:
            problems.append(f"says {says}, but {ref.name} has charge {fmt_fraction(charge)}")
    for problem in problems:
        yield Finding("targets", f"target '{card.id}' prints the name {printed!r}, which {problem}",
                      card.where(name_field), "correct the name, or the particle the target names and the "
                      "cards it requires", game.id)


@declared("targets")
def targets(game: Game, params: S.Fields) -> Iterator[Finding | Proof]:
    """Each target card: buildable from the deck, integer charge, colour-neutral and with the
    baryon number its kind implies; harder targets never score fewer points; and a target that
    names its particle (``identity``) has PDG's quark content, charge, baryon number and flavour
    quantum numbers for it, part by part (``shares``) when it is an atom."""
    comp = component_param(game, params)
    deck = component_param(game, params, "deck")
    deck_field = particle_field(deck, params, "deck_field")
    fields = _TargetFields(
        requires=typed_field(comp, params, "requires", "requires", ("list:particle",), "particle-list"),
        kind=typed_field(comp, params, "kind", "hadron", ("enum", "text"), "kind"),
        points=typed_field(comp, params, "points", "points", ("int", "number"), "points"),
        identity=typed_field(comp, params, "identity", "identity", ("list:text",), "identity", required=False),
        shares=typed_field(comp, params, "shares", "shares", ("list:int",), "shares", required=False),
        name=typed_field(comp, params, "name", "name", ("text",), "name", required=False))
    counts = particle_counts(deck, deck_field)
    scored: list[tuple[float, int, Card]] = []
    named = parts_equal = 0
    for card in comp.cards:
        parts: tuple[Particle, ...] = card.fields.get(fields.requires) or ()
        if card.fields.get(fields.identity):
            named += 1
            parts_equal += yield from _identity_findings(game, card, fields, parts)
        yield from _buildable(game, card, parts, counts, deck, card.where(fields.requires))
        yield from _target_physics(game, card, fields, parts)
        points = card.fields.get(fields.points)
        if points is not None:
            scored.append((difficulty(parts, counts, deck.total), points, card))
    unnamed = len(comp.cards) - named
    claim = (f"{comp.id}: {named} target{'s' if named != 1 else ''} name their particles; {parts_equal} part"
             f"{'s' if parts_equal != 1 else ''} have PDG 2026's quark content, charge, baryon number, strangeness, "
             f"charm, bottomness and topness")
    if unnamed:
        claim += f"; {unnamed} target{'s' if unnamed != 1 else ''} name no particle (checked by kind only)"
    yield Proof("targets", claim, parts_equal, game.id, comp.location)
    yield from _points_by_difficulty(game, scored, fields.points)


def _identity_findings(game: Game, card: Card, fields: _TargetFields,
                       parts: tuple[Particle, ...]) -> Generator[Finding, None, int]:
    """A target naming its particles: each part has PDG's properties for it, and its kind is
    the one they make; returns how many parts agree with PDG."""
    loc = card.where(fields.requires)
    identified = list(_identities(card, fields.identity, fields.shares, parts))
    refs = [ref for ref, _ in identified]
    given = card.fields.get(fields.shares) if fields.shares else None
    right = _shares_of(refs)
    # the cards are right but split wrongly among the parts: that is the line to fix
    resplit = (given is not None and right is not None and list(given) != right and sum(right) == len(parts)
               and all(_identity_problem(card, ref, share) is None
                       for ref, share in zip(refs, _split(parts, right))))
    equal = 0
    for ref, share in identified:
        problem = _identity_problem(card, ref, share)
        if problem and resplit:
            yield Finding("targets", f"target '{card.id}' {problem[0]}", card.where(fields.shares),
                          f"set {fields.shares}: {right}: PDG's {' + '.join(r.name for r in refs)} take that many "
                          f"of its cards each", game.id)
        elif problem:
            yield Finding("targets", f"target '{card.id}' {problem[0]}", loc, problem[1], game.id)
        else:
            equal += 1
    if fields.name:
        yield from _name_findings(game, card, fields.name, refs)
    implied = _kind_of(refs)
    if implied is None:
        yield Finding("targets", f"target '{card.id}' is a {card.fields.get(fields.kind)} but names "
                      f"{refs[0].name}, a fundamental particle: no hadron or atom", card.where(fields.identity),
                      f"name in '{fields.identity}' the hadron or the atom's parts it is", game.id)
    elif card.fields.get(fields.kind) != implied:
        yield Finding("targets", f"target '{card.id}' is a {card.fields.get(fields.kind)} but "
                      f"{' + '.join(ref.name for ref, _ in identified)} make{'s' if len(identified) == 1 else ''}"
                      f" a{'n' if implied[0] in 'aeiou' else ''} {implied}", card.where(fields.kind),
                      f"set {fields.kind}: {implied}", game.id)
    return equal


def _buildable(game: Game, card: Card, parts: tuple[Particle, ...], counts: Counter[str], deck: Component,
               loc: Location) -> Iterator[Finding]:
    """The deck holds as many cards of each particle as the target needs."""
    need = Counter(p.id for p in parts)
    for pid, n in sorted(need.items()):
        if counts[pid] < n:
            name = game.physics.particles[pid].name
            yield Finding("targets", f"target '{card.id}' needs {n} × {name} but the deck '{deck.id}' has "
                          f"{counts[pid]}", loc, f"add {name} cards to '{deck.id}' or change the target", game.id)


def _target_physics(game: Game, card: Card, fields: _TargetFields, parts: tuple[Particle, ...]) -> Iterator[Finding]:
    """Whole-number charge, and what the target's kind implies (colour, baryon number)."""
    loc = card.where(fields.requires)
    charge = total(parts, "charge")
    if charge.denominator != 1:
        yield Finding("targets", f"target '{card.id}' has charge {fmt_fraction(charge)}: free particles have "
                      f"whole-number charge", loc, "fix the required quarks", game.id)
    kind = card.fields.get(fields.kind)
    if kind not in KINDS:
        raise InputError(f"target kind '{S.shown(kind)}' is not one of {', '.join(KINDS)}", card.where(fields.kind),
                         f"declare '{fields.kind}' as enum with choices {list(KINDS)}")
    for message, fix in _kind_problems(kind, parts):
        yield Finding("targets", f"target '{card.id}' ({kind}): {message}", loc, fix, game.id)


def _points_by_difficulty(game: Game, scored: list[tuple[float, int, Card]], points_field: str) -> Iterator[Finding]:
    """A target harder to build (more expected draws) never scores fewer points."""
    scored = sorted(scored, key=lambda t: (t[0], t[1]))
    for (d1, p1, c1), (d2, p2, c2) in zip(scored, scored[1:]):
        if d2 > d1 + 1e-9 and p2 < p1:
            yield Finding("targets", f"target '{c2.id}' is harder to build than '{c1.id}' (≈{d2:.0f} vs ≈{d1:.0f} "
                          f"expected draws) but scores fewer points ({p2} < {p1})", c2.where(points_field),
                          f"give '{c2.id}' at least {p1} points", game.id)
