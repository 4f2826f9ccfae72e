"""Feynman-diagram rules (Tutti Quantum): the vertex table and the setup arithmetic.

The vertex table is not trusted: the checker derives the Standard Model's tree-level
three-point vertices among the game's line types from the particles' charges, colour and
mass (:mod:`cardgen.rules.standard_model`), and compares. A line type whose particles couple
differently (a neutrino on the electron line) is reported once, at that particle's entry, with
the coupling that sets it apart; the vertices its particles disagree on are not blamed for it,
here or by the rules that score them. What scores those vertices (points, tokens, expert
sub-diagrams) is checked in :mod:`cardgen.rules.tutti_scoring`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import combinations_with_replacement
from typing import Iterable, Iterator, Sequence

from .. import schema as S
from ..errors import Finding, InputError, Location
from ..model import Game, Table
from ..particles import Particle
from ..proof import Proof
from ..tables import LineType, Vertex
from . import declared
from .common import component_param, fmt_fraction, table_param
from .standard_model import bosons_couple, fermion_couples, is_gluon, is_higgs, is_massive, is_photon


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


def _answers(lines: Sequence[LineType]) -> frozenset[bool]:
    """Whether the three line types meet at a vertex, for each choice of the particles they
    stand for: {True} or {False} when every choice agrees. A line is a fermion's by its
    particles' spin, not by the style it is drawn in; two ends of one fermion line type are a
    particle and its antiparticle (f f̄ b)."""
    fermions = [lt for lt in lines if any(p.is_fermion for p in lt.particles)]
    bosons = [lt for lt in lines if lt not in fermions]
    if len(fermions) == 2 and fermions[0].id == fermions[1].id:
        return frozenset(fermion_couples(f, b) for f in fermions[0].particles for b in bosons[0].particles)
    if not fermions:
        pair = _charged_line(lines)
        if pair is not None:   # two ends of one charged boson's line: a particle and its antiparticle (W⁺ W⁻)
            i, j = pair
            k = 3 - i - j
            return frozenset(bosons_couple(*_placed({i: a, j: anti, k: c}))
                             for a in lines[i].particles for anti in lines[j].particles if anti.id == a.antiparticle
                             for c in lines[k].particles)
        return frozenset(bosons_couple(a, b, c) for a in lines[0].particles for b in lines[1].particles
                         for c in lines[2].particles)
    return frozenset({False})


def _charged_line(lines: Sequence[LineType]) -> tuple[int, int] | None:
    """The places of two lines of one line type that stands for a charged boson and its
    antiparticle (W standing for W⁺ and W⁻), or None. Like a fermion's, such a line carries its
    charge through the diagram: where two of its ends meet at a vertex, one is the particle and
    the other its antiparticle (H W⁺ W⁻, never H W⁺ W⁺)."""
    for i, j in ((0, 1), (0, 2), (1, 2)):
        lt = lines[i]
        if lt.id != lines[j].id:
            continue
        ids = {p.id for p in lt.particles}
        if any(p.antiparticle != p.id for p in lt.particles) and all(p.antiparticle in ids for p in lt.particles):
            return i, j
    return None


def _placed(chosen: dict[int, Particle]) -> tuple[Particle, Particle, Particle]:
    return chosen[0], chosen[1], chosen[2]


def vertex_exists(lines: tuple[LineType, LineType, LineType]) -> tuple[bool, str]:
    """Whether every choice of particles the three line types stand for gives a vertex; returns
    (exists, problem) where problem says the line types' particles disagree."""
    answers = _answers(lines)
    if len(answers) > 1:
        return False, "its particles couple differently"
    return next(iter(answers)), ""


VertexKey = tuple[str, ...]


@dataclass(frozen=True)
class OddParticles:
    """A line type whose particles do not all meet the same lines: its particles in groups that
    meet alike, each with whether it meets at each of ``trios`` (the vertices where the groups
    differ); ``bosons`` are the boson lines of those vertices that meet a pair of this (fermion)
    line, whose couplings say why they differ."""

    line_type: LineType
    groups: tuple[tuple[tuple[Particle, ...], tuple[bool, ...]], ...]
    trios: tuple[VertexKey, ...]
    bosons: tuple[Particle, ...]

    def split(self, listed: Iterable[VertexKey]) -> tuple[tuple[Particle, ...], tuple[bool, ...], tuple[Particle, ...]]:
        """(the particles the line type stands for, whether they meet at each of ``trios``, the
        odd ones out): the group whose vertices the table lists (``listed``) most faithfully, then
        the largest, then the first listed, which names the line."""
        listed = set(listed)
        agree = [sum((t in listed) == meets for t, meets in zip(self.trios, m)) for _, m in self.groups]
        best = max(range(len(self.groups)), key=lambda i: (agree[i], len(self.groups[i][0]), -i))
        taken, meets = self.groups[best]
        return taken, meets, tuple(p for i, (ps, _) in enumerate(self.groups) if i != best for p in ps)


def _odd_particles(lt: LineType, line_types: dict[str, LineType],
                   trios: list[VertexKey]) -> OddParticles | None:
    """Group the line type's particles by the vertices each alone would meet (every other line
    type as it is); None when they all meet the same."""
    containing = [t for t in trios if lt.id in t]
    groups: dict[tuple[frozenset[bool], ...], list[Particle]] = {}
    for p in lt.particles:
        alone = replace(lt, particles=(p,))
        meets = tuple(_answers([alone if lid == lt.id else line_types[lid] for lid in t]) for t in containing)
        groups.setdefault(meets, []).append(p)
    if len(groups) == 1:
        return None
    differ = [k for k in range(len(containing)) if len({meets[k] for meets in groups}) > 1]
    bosons = {b.id: b for k in differ if containing[k].count(lt.id) == 2
              for b in line_types[next(lid for lid in containing[k] if lid != lt.id)].particles}
    return OddParticles(lt, tuple((tuple(ps), tuple(True in meets[k] for k in differ)) for meets, ps in groups.items()),
                        tuple(containing[k] for k in differ), tuple(bosons.values()))


@dataclass(frozen=True)
class DerivedVertices:
    """A vertex table's line types and the vertices the Standard Model allows among them, each a
    tuple of line ids in the line-types table's order (fermions first: 'q-q-g').

    A line type whose particles couple differently is in ``odd``; the vertices its particles
    disagree on are ``undecided`` and count as derived (some of its particles meet there), so no
    rule blames a vertex for the line type's mistake: the line type is reported, once.
    ``problems`` are the trios whose answer depends on which particles are drawn together (a
    line type standing for W⁺ and W⁻), with the line type to blame."""

    line_types: dict[str, LineType]
    derived: frozenset[VertexKey]
    undecided: frozenset[VertexKey]
    odd: tuple[OddParticles, ...]
    problems: tuple[tuple[VertexKey, LineType], ...]

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
    trios = list(combinations_with_replacement(list(line_types), 3))
    odd = tuple(split for lt in line_types.values() if (split := _odd_particles(lt, line_types, trios)) is not None)
    undecided = {t for split in odd for t in split.trios}
    derived: set[VertexKey] = set()
    problems: list[tuple[VertexKey, LineType]] = []
    for trio in trios:
        answers = _answers([line_types[i] for i in trio])
        if len(answers) > 1 and trio not in undecided:
            problems.append((trio, next(line_types[i] for i in trio if len(line_types[i].particles) > 1)))
        elif True in answers:   # every choice meets, or some do where a line type is odd
            derived.add(trio)
    return DerivedVertices(line_types, frozenset(derived), frozenset(undecided), odd, tuple(problems))


def particles_where(table: Table, lt: LineType, p: Particle | None = None) -> Location:
    """Where ``lt``'s row of the line-types ``table`` lists particle ``p`` (with no ``p``, its
    particles list; the row itself where neither is known)."""
    if p in lt.particles and len(lt.particle_locations) == len(lt.particles):
        return lt.particle_locations[lt.particles.index(p)]
    return lt.particles_location or lt.location


def _why_apart(f: Particle, b: Particle) -> str | None:
    """What of fermion ``f``'s the neutral boson ``b`` couples to (or not), as the f f̄ b vertex
    of :func:`~cardgen.rules.standard_model.fermion_couples` reads it: the reason a particle
    meets a boson's line that another of its line type does not."""
    sym, boson = f.symbol.unicode(), b.symbol.unicode()
    if is_photon(b):
        has = f"electric charge {fmt_fraction(f.charge)}" if f.charge else "no electric charge"
        return f"{sym} has {has}, which {boson} couples to"
    if is_gluon(b):
        return f"{sym} {'carries' if f.colour_charged else 'carries no'} colour, which {boson} couples to"
    if is_higgs(b):
        mass = ("a mass" if is_massive(f) else "only an upper limit on its mass" if f.mass.upper_limit
                else "no mass")
        return f"{sym} has {mass}, and {boson} couples to mass"
    return None


def _verb(particles: Sequence[Particle], one: str, many: str) -> str:
    """The word for one particle or for several (a finding's grammar)."""
    return one if len(particles) == 1 else many


def _symbols(particles: Sequence[Particle]) -> str:
    return ", ".join(p.symbol.unicode() for p in particles)


def odd_particles_finding(game: Game, table: Table, split: OddParticles, listed: Iterable[VertexKey]) -> Finding:
    """The one finding for a line type whose particles couple differently, at the first odd
    particle's entry in ``table`` (the line types): which particles meet at which vertices, and
    why (what the boson there couples to). The odd ones are those the vertex table's ``listed``
    vertices disagree with (:meth:`OddParticles.split`)."""
    lt = split.line_type
    taken, meets, odd = split.split(listed)
    parts = []
    for meet, these, those in ((True, taken, odd), (False, odd, taken)):
        trios = ", ".join("-".join(t) for t, taken_meets in zip(split.trios, meets) if taken_meets == meet)
        if trios:
            parts.append(f"{_symbols(these)} {_verb(these, 'meets', 'meet')} at {trios}, {_symbols(those)} "
                         f"{_verb(those, 'does', 'do')} not")
    reasons = [why for p in odd if p.is_fermion for b in split.bosons
               if fermion_couples(p, b) != fermion_couples(taken[0], b) and (why := _why_apart(p, b)) is not None]
    because = f" ({'; '.join(dict.fromkeys(reasons))})" if reasons else ""
    return Finding("vertices-derived", f"line type '{lt.id}' ({lt.name}) stands for particles that couple "
                   f"differently: {'; '.join(parts)}{because}", particles_where(table, lt, odd[0]),
                   f"take {', '.join(p.id for p in odd)} out of line type '{lt.id}' (into a line type of "
                   f"{_verb(odd, 'its', 'their')} own if the game needs {_verb(odd, 'it', 'them')}): every particle a "
                   f"line stands for must meet the same lines", game.id)


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
    drawn_apart = {lt.id for lt in sm.line_types.values() if len({line_style(p) for p in lt.particles}) > 1}
    for split in sm.odd:
        if split.line_type.id not in drawn_apart:   # one finding per line type: that one says split it
            yield odd_particles_finding(game, lt_table, split, listed)
    for trio, lt in sm.problems:
        yield Finding("vertices-derived", f"line type '{lt.id}' ({lt.name}) in {'-'.join(trio)}: whether the "
                      f"lines meet depends on which of its particles are drawn together", particles_where(lt_table, lt),
                      "split the line type so all its particles behave alike", game.id)
    # a vertex only some particles of a line type meet at is the line type's finding, listed or not
    for key in sorted(sm.derived - set(listed) - sm.undecided, key=lambda k: [order[i] for i in k]):
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
