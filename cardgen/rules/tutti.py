"""Feynman-diagram rules (Tutti Quantum): the vertex table and the setup arithmetic.

The vertex table is not trusted: the checker derives the Standard Model's tree-level
three-point vertices among the game's line types from the particles' charges, colour and
mass (:mod:`cardgen.rules.standard_model`), and compares. What scores those vertices (points,
tokens, expert sub-diagrams) is checked in :mod:`cardgen.rules.tutti_scoring`.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations_with_replacement
from typing import Iterable, Iterator

from .. import schema as S
from ..errors import Finding, InputError
from ..model import Game, Table
from ..particles import Particle
from ..proof import Proof
from ..tables import LineType, Vertex
from . import declared
from .common import component_param, table_param
from .standard_model import bosons_couple, fermion_couples


def line_style(p: Particle) -> str:
    """How a Feynman diagram draws a particle's line, from its spin, colour and mass: a fermion
    solid with an arrow, a scalar dashed, a gluon curly, a photon wavy, a massive W or Z as a
    boson line."""
    if p.is_fermion:
        return "fermion"
    if p.spin == 0:
        return "scalar"
    if p.colour_charged:
        return "gluon"
    return "photon" if p.mass_mev == 0 else "boson"


def line_type_findings(game: Game, line_types: Iterable[LineType]) -> Iterator[Finding]:
    """Each line type stands for particles drawn alike, and is drawn as they are."""
    for lt in line_types:
        styles = {p.id: line_style(p) for p in lt.particles}
        if len(set(styles.values())) > 1:
            listed = ", ".join(f"{pid} ({style})" for pid, style in styles.items())
            yield Finding("vertices-derived", f"line type '{lt.id}' ({lt.name}) stands for particles drawn "
                          f"differently: {listed}", lt.location, "split it: one line type per kind of line", game.id)
        elif styles and lt.style not in styles.values():
            right = next(iter(styles.values()))
            yield Finding("vertices-derived", f"line type '{lt.id}' ({lt.name}) is drawn as a {lt.style} line, but "
                          f"{', '.join(styles)} {'is a' if len(styles) == 1 else 'are'} {right} line"
                          f"{'' if len(styles) == 1 else 's'} (spin, colour and mass say so)", lt.location,
                          f"set style: {right}", game.id)


def vertex_exists(lines: tuple[LineType, LineType, LineType]) -> tuple[bool, str]:
    """Whether every choice of particles the three line types stand for gives a vertex; returns
    (exists, problem) where problem names a line type whose particles disagree. A line is a
    fermion's by its particles' spin, not by the style it is drawn in."""
    fermions = [lt for lt in lines if any(p.is_fermion for p in lt.particles)]
    bosons = [lt for lt in lines if lt not in fermions]
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


VertexKey = tuple[str, ...]


@dataclass(frozen=True)
class DerivedVertices:
    """A vertex table's line types and the vertices the Standard Model allows among them, each a
    tuple of line ids in the line-types table's order (fermions first: 'q-q-g')."""

    line_types: dict[str, LineType]
    derived: frozenset[VertexKey]
    problems: tuple[str, ...]

    def key(self, lines: Iterable[str]) -> VertexKey:
        order = {lid: i for i, lid in enumerate(self.line_types)}
        return tuple(sorted(lines, key=order.__getitem__))


def derive_vertices(game: Game, table: Table) -> DerivedVertices:
    """The Standard-Model vertices among the line types a vertex table names (the table's own
    rows are not read)."""
    lt_id = table.options["line_types"]
    if lt_id not in game.tables or game.tables[lt_id].kind != "line-types":
        raise InputError(f"vertex table '{table.id}' names '{lt_id}' as its line types, which is not a "
                         f"line-types table", table.location, "point 'line_types' at a table of kind line-types")
    line_types: dict[str, LineType] = {lt.id: lt for lt in game.tables[lt_id].rows}
    derived: set[VertexKey] = set()
    problems: list[str] = []
    for trio in combinations_with_replacement(list(line_types), 3):
        exists, problem = vertex_exists(tuple(line_types[i] for i in trio))
        if problem:
            problems.append(f"line type in {'-'.join(trio)}: {problem}")
        if exists:
            derived.add(trio)
    return DerivedVertices(line_types, frozenset(derived), tuple(problems))


@declared("vertices-derived")
def vertices_derived(game: Game, params: S.Fields) -> Iterator[Finding | Proof]:
    table = table_param(game, params, ("vertices",))
    sm = derive_vertices(game, table)
    order = {lid: i for i, lid in enumerate(sm.line_types)}
    listed: dict[VertexKey, Vertex] = {}
    for v in table.rows:
        for lid in v.lines:
            if lid not in sm.line_types:
                raise InputError(f"vertex '{v.id}' uses unknown line type '{lid}'", v.location,
                                 f"use one of: {', '.join(sm.line_types)}")
        key = sm.key(v.lines)
        if key in listed:
            yield Finding("vertices-derived", f"vertex '{v.id}' repeats '{listed[key].id}'", v.location,
                          "remove the duplicate", game.id)
        listed[key] = v
    yield from line_type_findings(game, sm.line_types.values())
    lt_table = game.tables[table.options["line_types"]]
    for problem in sm.problems:
        yield Finding("vertices-derived", problem, lt_table.location,
                      "split the line type so all its particles behave alike", game.id)
    for key in sorted(sm.derived - set(listed), key=lambda k: [order[i] for i in k]):
        yield Finding("vertices-derived", f"the Standard Model has the vertex {'-'.join(key)} but table "
                      f"'{table.id}' does not list it", table.location,
                      f"add a row with lines: [{', '.join(key)}]", game.id)
    for key in sorted(set(listed) - sm.derived, key=lambda k: [order[i] for i in k]):
        v = listed[key]
        yield Finding("vertices-derived", f"vertex '{v.id}' ({'-'.join(key)}) is not a tree-level Standard Model "
                      f"vertex", v.location, "remove it from the table of valid vertices", game.id)
    both = sm.derived & set(listed)
    yield Proof("vertices-derived", f"{table.id}: the {len(both)} listed vertices are exactly the Standard Model's "
                f"tree-level vertices among the {len(sm.line_types)} line types "
                f"({', '.join(listed[k].id for k in sorted(both, key=lambda k: [order[i] for i in k]))})",
                len(both), game.id, table.location)


@declared("setup-balance")
def setup_balance(game: Game, params: S.Fields) -> Iterator[Finding | Proof]:
    """For each player count, secret cards + shown cards × rounds + removed cards uses the whole
    deck, and every player ends with the same number of cards."""
    table = table_param(game, params, ("setup",))
    deck = component_param(game, params, "deck")
    balanced = [row.players for row in table.rows
                if row.players * row.secret_per_player + row.shown * row.rounds + row.removed == deck.total
                and (row.shown * row.rounds) % row.players == 0]
    yield Proof("setup-balance", f"{table.id}: with {', '.join(map(str, balanced)) or 'no'} players the setup deals "
                f"all {deck.total} cards of '{deck.id}' and every player gets as many", len(balanced), game.id,
                table.location)
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
