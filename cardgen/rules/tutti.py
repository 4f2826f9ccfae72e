"""Feynman-diagram rules (Tutti Quantum): the vertex table and the setup arithmetic.

The vertex table is not trusted: the checker derives the Standard Model's tree-level
three-point vertices among the game's line types from the particles' charges, colour and
mass, and compares.
"""

from __future__ import annotations

from itertools import combinations_with_replacement
from typing import Iterable, Iterator

from .. import schema as S
from ..errors import Finding, InputError
from ..model import Game
from ..particles import Particle
from ..tables import LineType
from . import declared
from .common import component_param, table_param


def _is_photon_like(b: Particle) -> bool:
    return b.kind == "gauge boson" and b.charge == 0 and not b.colour_charged and b.mass.value == 0


def _is_gluon_like(b: Particle) -> bool:
    return b.kind == "gauge boson" and b.colour_charged


def _massive_scalar(b: Particle) -> bool:
    return b.kind == "scalar" and b.mass.value > 0 and not b.mass.upper_limit


def fermion_couples(f: Particle, b: Particle) -> bool:
    """Does the vertex f f̄ b exist at tree level? Photons couple to electric charge, gluons to
    colour, the Higgs to mass (Yukawa)."""
    if _is_photon_like(b):
        return f.charge != 0
    if _is_gluon_like(b):
        return f.colour_charged
    if _massive_scalar(b):
        return f.mass.value > 0 and not f.mass.upper_limit
    return False


def bosons_couple(a: Particle, b: Particle, c: Particle) -> bool:
    """Three-boson vertices among massless gauge bosons and neutral scalars: a gauge boson that
    carries the charge it mediates couples to itself (g g g); a massive scalar with a potential
    couples to itself (H H H); a neutral scalar does not couple to massless gauge bosons at tree
    level, and neutral colourless bosons never meet."""
    trio = (a, b, c)
    if all(x.id == a.id for x in trio):
        return _is_gluon_like(a) or _massive_scalar(a)
    return False


def vertex_exists(lines: tuple[LineType, LineType, LineType]) -> tuple[bool, str]:
    """Whether every choice of particles the three line types stand for gives a vertex; returns
    (exists, problem) where problem names a line type whose particles disagree."""
    fermions = [lt for lt in lines if lt.style == "fermion"]
    bosons = [lt for lt in lines if lt.style != "fermion"]
    if len(fermions) == 2 and fermions[0].id == fermions[1].id:
        answers = {fermion_couples(f, b) for f in fermions[0].particles for b in bosons[0].particles}
    elif not fermions:
        answers = {bosons_couple(a, b, c) for a in lines[0].particles for b in lines[1].particles
                   for c in lines[2].particles}
    else:
        return False, ""
    if len(answers) > 1:
        return False, "its particles couple differently"
    return answers.pop(), ""


@declared("vertices-derived")
def vertices_derived(game: Game, params: S.Fields) -> Iterator[Finding]:
    table = table_param(game, params, ("vertices",))
    lt_id = table.options["line_types"]
    if lt_id not in game.tables or game.tables[lt_id].kind != "line-types":
        raise InputError(f"vertex table '{table.id}' names '{lt_id}' as its line types, which is not a "
                         f"line-types table", table.location, "point 'line_types' at a table of kind line-types")
    line_types: dict[str, LineType] = {lt.id: lt for lt in game.tables[lt_id].rows}
    order = {lid: i for i, lid in enumerate(line_types)}

    def canonical(lines: Iterable[str]) -> tuple[str, ...]:
        """Line ids in the table's order (fermions first), so 'q-q-g' reads like physics."""
        return tuple(sorted(lines, key=order.__getitem__))

    listed: dict[tuple[str, ...], object] = {}
    for v in table.rows:
        for lid in v.lines:
            if lid not in line_types:
                raise InputError(f"vertex '{v.id}' uses unknown line type '{lid}'", v.location,
                                 f"use one of: {', '.join(line_types)}")
        key = canonical(v.lines)
        if key in listed:
            yield Finding("vertices-derived", f"vertex '{v.id}' repeats '{listed[key].id}'", v.location,
                          "remove the duplicate", game.id)
        listed[key] = v
    derived: set[tuple[str, ...]] = set()
    for trio in combinations_with_replacement(list(line_types), 3):
        exists, problem = vertex_exists(tuple(line_types[i] for i in trio))
        if problem:
            yield Finding("vertices-derived", f"line type in {'-'.join(trio)}: {problem}", table.location,
                          "split the line type so all its particles behave alike", game.id)
        if exists:
            derived.add(canonical(trio))
    for key in sorted(derived - set(listed), key=lambda k: [order[i] for i in k]):
        yield Finding("vertices-derived", f"the Standard Model has the vertex {'-'.join(key)} but table "
                      f"'{table.id}' does not list it", table.location,
                      f"add a row with lines: [{', '.join(key)}]", game.id)
    for key in sorted(set(listed) - derived, key=lambda k: [order[i] for i in k]):
        v = listed[key]
        yield Finding("vertices-derived", f"vertex '{v.id}' ({'-'.join(key)}) is not a tree-level Standard Model "
                      f"vertex", v.location, "remove it from the table of valid vertices", game.id)


@declared("setup-balance")
def setup_balance(game: Game, params: S.Fields) -> Iterator[Finding]:
    """For each player count, secret cards + shown cards × rounds + removed cards uses the whole
    deck, and every player ends with the same number of cards."""
    table = table_param(game, params, ("setup",))
    deck = component_param(game, params, "deck")
    for row in table.rows:
        used = row.players * row.secret_per_player + row.shown * row.rounds + row.removed
        if used != deck.total:
            yield Finding("setup-balance", f"with {row.players} players the setup uses {used} cards "
                          f"({row.players}×{row.secret_per_player} secret + {row.shown}×{row.rounds} shown + "
                          f"{row.removed} removed) but '{deck.id}' has {deck.total}", row.location,
                          "adjust shown, rounds or removed so they add up to the deck", game.id)
        if (row.shown * row.rounds) % row.players:
            yield Finding("setup-balance", f"with {row.players} players the {row.shown * row.rounds} shown cards do "
                          f"not split evenly between the players", row.location,
                          "make shown × rounds a multiple of the number of players", game.id)
