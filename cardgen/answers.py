"""The answer key: what a game's deck can make, derived from its data by the checker's own rules.

Nothing here is typed per game. Which components hold targets, colour-charged cards or vertex
tables comes from the rules a game declares (``targets``, ``colour-balance``,
``vertices-derived``); what a target needs, which card sets are colour-neutral and which
vertices exist are decided by the same functions the checker uses
(:mod:`cardgen.rules.hadrons`, :mod:`cardgen.rules.tutti`) and by the colour charges' additive
mixes in ``data/colours.yaml``. Hadron names come from the ``particle`` package (PDG). The
functions return plain data; :mod:`cardgen.sheets` lays it out.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations_with_replacement, product
from typing import Any, Iterable

from . import pdg
from .model import Component, Game
from .particles import MASS_UNITS, ColourCharge as Colour, Particle
from .rules.common import total
from .rules.hadrons import kind_problems
from .rules.tutti import vertex_exists
from .tables import LineType, Transformation

#: The hadron kinds a colour-neutral set of quark cards can form, in the order the key lists them.
HADRON_KINDS = ("baryon", "antibaryon", "meson")


# --- Particle Builder targets -----------------------------------------------------------------

@dataclass(frozen=True)
class Ingredient:
    """One particle a target needs: how many, the deck's cards that carry it (id, copies), and
    the transformations that make it from another particle (source, boson)."""

    particle: Particle
    needed: int
    cards: tuple[tuple[str, int], ...]
    transformations: tuple[tuple[Particle, Particle], ...]


@dataclass(frozen=True)
class TargetAnswer:
    component: str
    id: str
    name: str
    kind: str
    points: int | None
    charge: Fraction
    ingredients: tuple[Ingredient, ...]
    buildable: bool          # the deck holds enough copies of every needed particle


def _params(game: Game, rule: str) -> list[dict[str, Any]]:
    """The parameters of every check of ``rule`` the game declares, as a plain dict."""
    return [{k: spec.params[k] for k in spec.params} for spec in game.checks if spec.rule == rule]


def _deck_particles(deck: Component, field: str) -> dict[str, list[tuple[str, int]]]:
    cards: dict[str, list[tuple[str, int]]] = {}
    for card in deck.cards:
        p = card.fields.get(field)
        if p is not None:
            cards.setdefault(p.id, []).append((card.id, card.count))
    return cards


def target_recipes(game: Game, level: int | None = None) -> list[TargetAnswer]:
    """Every target of every declared ``targets`` check: what it needs, which cards carry each
    particle and (from the game's transformation tables up to ``level``) what can be
    transformed into it. The kind and charge are checked with the targets rule's own test."""
    answers = []
    transformations = [row for t in game.tables.values() if t.kind == "transformations"
                       and (level is None or t.level <= level) for row in t.rows]
    for params in _params(game, "targets"):
        comp, deck = game.components[params["component"]], game.components[params["deck"]]
        requires, kind_field = params.get("requires", "requires"), params.get("kind", "hadron")
        points_field = params.get("points", "points")
        by_particle = _deck_particles(deck, params.get("deck_field", "particle"))
        for card in comp.cards:
            parts: tuple[Particle, ...] = card.fields.get(requires) or ()
            need = Counter(p.id for p in parts)
            ingredients = []
            for pid, n in need.items():
                p = game.physics.particles[pid]
                ways = tuple((t.source, t.via) for t in transformations if isinstance(t, Transformation)
                             and t.target.id == pid)
                ingredients.append(Ingredient(p, n, tuple(by_particle.get(pid, ())), ways))
            kind = str(card.fields.get(kind_field))
            buildable = all(sum(c for _id, c in i.cards) >= i.needed for i in ingredients)
            answers.append(TargetAnswer(comp.id, card.id, str(card.fields.get("name", card.id)), kind,
                                        card.fields.get(points_field), total(parts, "charge"), tuple(ingredients),
                                        buildable and not kind_problems(kind, parts)))
    return answers


# --- colour-neutral combinations (QCD, Particles in Circle) -----------------------------------

def colour_neutral(colours: Iterable[Colour]) -> bool:
    """Colours mix to white: their additive RGB sum has three equal, non-zero parts
    (red + green + blue, or a colour + its anti-colour = the other two + itself)."""
    mix = [sum(parts) for parts in zip(*(c.additive for c in colours))]
    return bool(mix) and len(set(mix)) == 1 and mix[0] > 0


@dataclass(frozen=True)
class Combination:
    """A colour-neutral set of quark cards, by flavour: its kind, its charge, one colour
    assignment the deck's cards allow, and the lightest PDG hadron with that quark content."""

    kind: str
    particles: tuple[Particle, ...]
    colours: tuple[Colour, ...]
    charge: Fraction
    hadron: str | None
    #: the hadron's PDG content is a mixture this set is one term of (u ū of π⁰), not exactly it
    mixed: bool = False


def _colour_cards(game: Game) -> list[Component]:
    return [game.components[p["component"]] for p in _params(game, "colour-balance")]


def neutral_combinations(game: Game) -> list[Combination]:
    """Every multiset of two or three colour-charged particles of the game's decks that the
    cards can make colour-neutral (each card used at most as often as the deck has copies),
    classified by the targets rule's test of baryon, antibaryon and meson. A set that is
    colour-neutral but no such hadron would be a contradiction in the physics data, and is
    left out rather than mislabelled."""
    by_colour: Counter[tuple[str, str]] = Counter()
    particles: dict[str, Particle] = {}
    colours = game.physics.colours
    for comp in _colour_cards(game):
        for card in comp.cards:
            p, c = card.fields.get("particle"), card.fields.get("colour")
            if p is not None and c is not None and p.colour_charged:
                by_colour[(p.id, c.id)] += card.count
                particles[p.id] = p
    # quarks before antiquarks, lightest first: u d s c b t
    order = sorted(particles.values(), key=lambda p: (p.is_anti, p.mass.value * MASS_UNITS[p.mass.unit]))
    found: list[Combination] = []
    for size in (2, 3):
        for combo in combinations_with_replacement(order, size):
            choice = _neutral_colouring(combo, by_colour, colours)
            if choice is None:
                continue
            kind = next((k for k in HADRON_KINDS if not kind_problems(k, combo)), None)
            if kind is None:
                continue
            name = hadron_name(combo)
            mixed = name is None and (name := mixed_hadron_name(combo)) is not None
            found.append(Combination(kind, combo, choice, total(combo, "charge"), name, mixed))
    return sorted(found, key=lambda c: HADRON_KINDS.index(c.kind))


def _neutral_colouring(combo: tuple[Particle, ...], cards: Counter[tuple[str, str]],
                       colours: dict[str, Colour]) -> tuple[Colour, ...] | None:
    """The first colour per particle (in colours.yaml order) that the deck's cards hold, with
    enough copies, and that mixes to white; None if there is none."""
    options = [[c for c in colours.values() if cards[(p.id, c.id)]] for p in combo]
    for choice in product(*options):
        used = Counter((p.id, c.id) for p, c in zip(combo, choice))
        if all(cards[key] >= n for key, n in used.items()) and colour_neutral(choice):
            return tuple(choice)
    return None


_QUARK_LETTERS = {1: "d", 2: "u", 3: "s", 4: "c", 5: "b", 6: "t"}
_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "Delta": "Δ", "delta": "δ", "eta": "η", "Lambda": "Λ",
          "mu": "μ", "nu": "ν", "Omega": "Ω", "omega": "ω", "phi": "φ", "pi": "π", "psi": "ψ", "rho": "ρ",
          "Sigma": "Σ", "Upsilon": "Υ", "Xi": "Ξ", "chi": "χ", "tau": "τ"}
_SUP = str.maketrans("0123456789+-*", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻*")


def _latex_to_unicode(latex: str) -> str:
    """The few LaTeX forms the particle package uses for hadron names, as plain Unicode."""
    s = re.sub(r"\\(?:bar|overline)\{((?:\\[A-Za-z]+|[A-Za-z]))\}", lambda m: m[1] + "\u0305", latex)
    s = re.sub(r"\\([A-Za-z]+)", lambda m: _GREEK.get(m[1], m[1]), s)
    s = re.sub(r"\^\{([^}]*)\}", lambda m: m[1].translate(_SUP), s)
    s = re.sub(r"_\{([^}]*)\}", lambda m: m[1], s)
    return s.replace("{", "").replace("}", "")


@pdg.from_whole_table
def _hadrons_by_content() -> dict[tuple[str, ...], str]:
    """Lightest known hadron for each pure quark content (mixtures such as π⁰ are left out)."""
    best: dict[tuple[str, ...], tuple[float, str]] = {}
    for p in pdg.particles():
        q = p.quarks or ""
        if not q.isalpha() or len(q) not in (2, 3) or p.mass is None:
            continue
        key = tuple(sorted(q))
        if key not in best or p.mass < best[key][0]:
            best[key] = (p.mass, _latex_to_unicode(p.latex_name))
    return {k: name for k, (_m, name) in best.items()}


@pdg.from_whole_table
def _mixtures_by_term() -> dict[tuple[str, ...], str]:
    """Lightest meson for each quark–antiquark term of a mixed PDG content (π⁰ for u ū and for
    d d̄, η for s s̄): what the rules call a set of exactly those quarks. Where physics says one
    content dominates a meson (φ(1020) is s s̄: :mod:`cardgen.rules.meson_mixing`), only that
    content counts as the meson, as the hadron-identity rule holds a target to it."""
    from .rules.meson_mixing import dominant

    best: dict[tuple[str, ...], tuple[float, str]] = {}
    for p in pdg.particles():
        q = p.quarks or ""
        if q.isalpha() or p.mass is None or not p.pdgid.is_meson:
            continue
        terms = pdg.contents(p)
        if len(terms) < 2:
            continue
        ruling = dominant(p)
        for term in (ruling.contents if ruling else terms):
            key = tuple(sorted(term.elements()))
            if len(key) == 2 and (key not in best or p.mass < best[key][0]):
                best[key] = (p.mass, _latex_to_unicode(p.latex_name))
    return {k: name for k, (_m, name) in best.items()}


def _letters(particles: Iterable[Particle]) -> tuple[str, ...] | None:
    """PDG's quark letters of these cards, sorted (upper case: an antiquark); None if any is no quark."""
    letters = []
    for p in particles:
        letter = _QUARK_LETTERS.get(abs(p.pdg_id))
        if letter is None:
            return None
        letters.append(letter.upper() if p.is_anti else letter)
    return tuple(sorted(letters))


def hadron_name(particles: Iterable[Particle]) -> str | None:
    """The lightest PDG hadron whose valence quarks are exactly these (u u d → p), or None."""
    letters = _letters(particles)
    return None if letters is None else _hadrons_by_content().get(letters)


def mixed_hadron_name(particles: Iterable[Particle]) -> str | None:
    """The lightest PDG meson whose mixed content has these quarks as one term (u ū → π⁰), or None."""
    letters = _letters(particles)
    return None if letters is None else _mixtures_by_term().get(letters)


def antiparticle_pairs(game: Game) -> list[tuple[Particle, Particle]]:
    """Every colourless fermion of a deck the game checks with ``antiparticles-present``
    together with its antiparticle, when the deck holds both (Particles in Circle scores such
    a pair): each pair once, particle first."""
    pairs: dict[str, tuple[Particle, Particle]] = {}
    for params in _params(game, "antiparticles-present"):
        comp = game.components[params["component"]]
        field = params.get("field", "particle")
        ids = {card.fields[field].id for card in comp.cards if card.fields.get(field) is not None}
        for pid in sorted(ids):
            p = game.physics.particles[pid]
            if p.is_fermion and not p.colour_charged and not p.is_anti and p.antiparticle in ids:
                pairs[pid] = (p, game.physics.particles[p.antiparticle])
    return sorted(pairs.values(), key=lambda pair: (pair[0].generation or 0, pair[0].charge))


# --- Tutti Quantum vertices -------------------------------------------------------------------

@dataclass(frozen=True)
class VertexAnswer:
    """A vertex the Standard Model allows among the game's line types, what the game's table
    gives it (row id, name, points; None if the table misses it) and how many particle
    combinations it covers."""

    lines: tuple[LineType, LineType, LineType]
    table: str
    row_id: str | None
    name: str
    points: int | None
    combinations: int


def valid_vertices(game: Game) -> list[VertexAnswer]:
    """Every tree-level vertex among each declared ``vertices-derived`` table's line types,
    decided by the checker's :func:`~cardgen.rules.tutti.vertex_exists`, with its points."""
    out = []
    for params in _params(game, "vertices-derived"):
        table = game.tables[params["table"]]
        line_types: dict[str, LineType] = {lt.id: lt for lt in game.tables[table.options["line_types"]].rows}
        order = {lid: i for i, lid in enumerate(line_types)}
        listed = {tuple(sorted(v.lines, key=order.__getitem__)): v for v in table.rows}
        for trio in combinations_with_replacement(list(line_types), 3):
            lines = tuple(line_types[i] for i in trio)
            if not vertex_exists(lines)[0]:   # type: ignore[arg-type]
                continue
            row = listed.get(trio)
            count = 1
            for lt in {lt.id: lt for lt in lines}.values():   # a fermion line and its antiparticle: one flavour
                count *= len(lt.particles)
            out.append(VertexAnswer(lines, table.id, row.id if row else None, row.name if row else "-".join(trio),  # type: ignore[arg-type]
                                    row.points if row else None, count))
    return out
