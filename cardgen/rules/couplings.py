"""Every reaction a game prints happens through Standard-Model vertices.

A decay, an annihilation or a transformation must be drawn as a tree diagram of the vertices
:mod:`cardgen.rules.standard_model` derives, with the virtual bosons the data declares
(``via``) as its only internal bosons. A reaction with no tree diagram is allowed only where the
data declares it a loop (``loop: reason``, e.g. H → g g through a top-quark loop, b → s γ through
a W and a top quark), and then a one-loop diagram of Standard-Model vertices must join every
external line (:func:`~.standard_model.loop_lines`), with colour conserved; a reaction no
order allows (Z⁰ → γ γ, by the Landau–Yang theorem) is refused whatever the data declares.
"""

from __future__ import annotations

from typing import Iterator

from .. import schema as S
from ..errors import Finding
from ..model import Card, Component, Game
from ..particles import Particle, PhysicsData
from ..proof import Choice, Proof
from . import declared
from .common import component_param, names, particle_field, pdg_agrees, table_param, typed_field
from .reactions import NOUNS, Reaction, reactions
from .standard_model import (MAX_LINES, ckm_weight, furry, is_up_type, landau_yang, lone_colour, loop_lines,
                             tree_diagram, uncoupled, weak_partner)


def _sym(p: Particle) -> str:
    return p.symbol.unicode()


def missing_vertex(r: Reaction, physics: PhysicsData) -> str:
    """Why a reaction has no tree diagram, naming the vertex it would need."""
    via = r.declared.via
    for i, boson in enumerate(via):
        if tree_diagram(r.initial, r.final, via[:i] + via[i + 1:], physics):
            return f"it declares the virtual {_sym(boson)}, which no diagram needs: the reaction happens without it"
    if len(r.initial) == 1 and len(r.final) == 2 and not via:
        return f"there is no Standard-Model vertex {_sym(r.initial[0])} {names(r.final)}"
    pair = uncoupled(r.initial, r.final, physics)
    if pair:
        i, x = pair
        if x.charge == 0 and not x.is_fermion:
            return f"{_sym(x)} does not couple to {_sym(i)} (there is no vertex {_sym(i)} {_sym(physics.anti(i.id))} {_sym(x)})"
        return f"no Standard-Model vertex joins {_sym(i)} and {_sym(x)}"
    through = f" through the virtual {names(via)}" if via else ""
    return f"no chain of Standard-Model vertices{through} makes it"


def _no_diagram_fix(r: Reaction, kind: str, physics: PhysicsData) -> str:
    """What to change in a row whose reaction has no diagram, fitted to why it has none: drop a
    declared boson no diagram needs; declare the one W or Z (or photon, gluon) whose exchange
    makes a tree diagram; else the Standard Model has no tree diagram for it, and only the
    products can change (or, for a reaction known to go through a loop, a declared loop). A
    transformation names its one boson in 'via' and takes no loop."""
    if kind == "transformations":
        return "fix the particle it becomes, or the boson it takes in 'via'"
    via = r.declared.via
    for i, boson in enumerate(via):
        if tree_diagram(r.initial, r.final, via[:i] + via[i + 1:], physics):
            return f"remove {boson.id} from 'via'"
    exchanged = [b for b in physics if b.kind == "gauge boson" and tree_diagram(r.initial, r.final, via + (b,), physics)]
    # W⁺ and W⁻ are one internal line read both ways: name the one the initial state emits
    # (the W⁻ of μ⁻ → ν_μ W⁻*), the massive bosons first (a weak process leaves out a W or Z)
    charge = sum(p.charge for p in r.initial)
    lines = [b for b in exchanged if physics.anti(b.id) not in exchanged or b.charge * charge > 0
             or (charge == 0 and b.charge >= 0)]
    if lines:
        b, *others = sorted(lines, key=lambda x: -x.mass_mev)
        alternatives = f" (or {', '.join(x.id for x in others)})" if others else ""
        return (f"declare the virtual {_sym(b)} exchanged inside the diagram "
                f"('via: [{', '.join(x.id for x in via + (b,))}]'){alternatives}, or fix the products")
    loop = (" (declare 'loop: <reason>' only if it is a known loop process)"
            if loop_lines(r.initial, r.final, physics) is not None and not lone_colour(r.initial, r.final)
            and not landau_yang(r.initial, r.final) and not furry(r.initial + r.final)
            and not _one_into_one_of_another_mass(r) else "")
    return (f"fix the products: no W, Z, photon or gluon exchange supplies the missing coupling, so {r.text()} does "
            f"not exist in the Standard Model at tree level{loop}")


def _one_into_one_of_another_mass(r) -> bool:
    """One particle into one particle of another mass (Z⁰ → γ, H → Z⁰): no diagram, tree or
    loop, makes it, as energy and momentum cannot both be conserved."""
    return len(r.initial) == 1 and len(r.final) == 1 and r.initial[0].mass_mev != r.final[0].mass_mev


_LANDAU_YANG = ("never happens, not even through a loop: a massive spin-1 particle and two identical massless "
                "spin-1 bosons cannot turn into each other (angular momentum and Bose symmetry: the Landau–Yang "
                "theorem)")
_LANDAU_YANG_FIX = "fix the products (a spin-0 particle such as H may become two photons or two gluons)"


def _not_pdg(p: Particle) -> str:
    """What of the particle's spin and charge, which the vertices are derived from, is not PDG's
    ('' when both are, or PDG does not know the particle)."""
    return " and ".join(f"{key} {getattr(p, key)}" for key in ("spin", "charge") if pdg_agrees(p, key) is False)


@declared("couplings")
def couplings(game: Game, params: S.Fields) -> Iterator[Finding | Proof | Choice]:
    """Each reaction of a table is a tree diagram of Standard-Model vertices, or a declared loop.
    A reaction of a particle whose spin or charge in particles.yaml is not PDG's is not judged:
    the vertices would be derived from the wrong value and the finding blame the table's correct
    row, while the pdg-values rule reports the value itself at its line."""
    table = table_param(game, params, ("transformations", "annihilation", "dice"))
    physics = game.physics
    single = chained = loops = 0
    decays = True
    wrong = {p.id: why for p in physics if (why := _not_pdg(p))}
    unjudged: set[str] = set()
    for r in reactions(table, physics):
        if not r.changes:
            continue
        bad = [p.id for p in r.initial + r.final + r.declared.via if p.id in wrong]
        if bad:
            unjudged.update(bad)
            continue
        decays = decays and len(r.initial) == 1
        where = f"{table.id}: {r.label}: {r.text()}"
        if len(r.initial) + len(r.final) > MAX_LINES:
            yield Finding("couplings", f"{where} has {len(r.initial) + len(r.final)} particles, more than the "
                          f"{MAX_LINES} whose diagrams the checker draws", r.location,
                          "list fewer products (a game rarely needs more than a few)", game.id)
            continue
        diagram = tree_diagram(r.initial, r.final, r.declared.via, physics)
        if r.declared.loop:
            loc = r.declared.at("loop", r.location)
            lines = loop_lines(r.initial, r.final, physics)
            if landau_yang(r.initial, r.final):
                yield Finding("couplings", f"{where} is declared a loop, but it {_LANDAU_YANG}", loc, _LANDAU_YANG_FIX,
                              game.id)
            elif diagram:
                yield Finding("couplings", f"{where} is declared a loop but has a tree-level diagram", loc,
                              "remove 'loop'", game.id)
            elif lone_colour(r.initial, r.final):
                yield Finding("couplings", f"{where} does not conserve colour: a single colour-charged particle "
                              f"cannot come from or go into a colourless state, not even through a loop", loc,
                              "fix the products", game.id)
            elif furry(r.initial + r.final):
                yield Finding("couplings", f"{where} is declared a loop, but lines of odd charge-conjugation parity "
                              f"altogether (an odd number of photons, with nothing else but Higgs bosons or a pair of "
                              f"gluons) never meet, not even through a loop: a closed loop and its reverse cancel "
                              f"(Furry's theorem)", loc, "fix the products", game.id)
            elif _one_into_one_of_another_mass(r):
                yield Finding("couplings", f"{where} is declared a loop, but one particle never becomes one "
                              f"particle of another mass, through any loop: energy and momentum cannot both be "
                              f"conserved", loc, "fix the products (a decay has two or more)", game.id)
            elif lines is None:
                yield Finding("couplings", f"{where}: no loop of Standard-Model vertices joins {names(r.initial)} "
                              f"{names(r.final)} (no particle couples to all of them, and no ring of internal lines "
                              f"meets each at a vertex), so not even a loop makes it", loc, "fix the products", game.id)
            else:
                loops += 1
                inside = " and ".join(_sym(p) for p in sorted({p.id: p for p in lines}.values(),
                                                              key=lambda p: -p.mass_mev))
                yield Choice("couplings", f"{where}: a loop (e.g. through {inside})", r.declared.loop, loc,
                             game.id)
            continue
        if diagram is None and landau_yang(r.initial, r.final):
            yield Finding("couplings", f"{where} does not happen through Standard-Model vertices: "
                          f"{missing_vertex(r, physics)}; and it {_LANDAU_YANG}", r.location, _LANDAU_YANG_FIX, game.id)
        elif diagram is None:
            yield Finding("couplings", f"{where} does not happen through Standard-Model vertices: "
                          f"{missing_vertex(r, physics)}", r.location, _no_diagram_fix(r, table.kind, physics), game.id)
        elif len(diagram.vertices) == 1:
            single += 1
        else:
            chained += 1
            if r.declared.via:
                yield Choice("couplings", f"{where}: through the virtual {names(r.declared.via)}",
                             f"vertices {'; '.join(names(v) for v in diagram.vertices)} (lines incoming)",
                             r.declared.at("via", r.location), game.id)
    n = single + chained + loops
    parts = [f"{single} at one vertex"] if single else []
    parts += [f"{chained} through a chain of vertices"] if chained else []
    parts += [f"{loops} through a declared loop"] if loops else []
    noun = "decays" if decays else NOUNS[table.kind]
    skipped = "".join(f"; those of {pid} not judged (its {wrong[pid]} in particles.yaml is not PDG's: pdg-values "
                      f"reports it)" for pid in sorted(unjudged))
    yield Proof("couplings", f"{table.id}: {n} {noun} happen through Standard-Model vertices"
                f"{' (' + ', '.join(parts) + ')' if parts else ''}{skipped}", n, game.id, table.location)


@declared("weak-transitions")
def weak_transitions(game: Game, params: S.Fields) -> Iterator[Finding | Proof]:
    """A wild W's flavour changes (a records table with particle fields ``from`` and ``to``) are
    charge-changing weak transitions: a W vertex joins the two (u ↔ d, s, b; never u → c). With
    ``component`` and ``made_by`` (a yes/no card field), the cards marked so are the ones that
    make the changes, and each must show the boson of every change (a W; a Z⁰ or a photon never
    changes flavour)."""
    table = table_param(game, params, ("records",))
    source = params.get("from_field", S.ident, "from")
    target = params.get("to_field", S.ident, "to")
    carriers = _carrier_cards(game, params)
    bosons: dict[str, Particle] = {}   # the boson each change needs, by row id
    ok: list[str] = []
    for row in table.rows:
        a, b = row.values.get(source), row.values.get(target)
        if not isinstance(a, Particle) or not isinstance(b, Particle):
            yield Finding("weak-transitions", f"{table.id}: row '{row.id}' needs particles in '{source}' and "
                          f"'{target}'", row.location, "give both as particle ids", game.id)
            continue
        w = weak_partner(a, b, game.physics)
        if w is None:
            why = (f"both have charge {a.charge}" if a.charge == b.charge
                   else f"a W changes charge by one unit, and {_sym(a)} → {_sym(b)} changes it by {b.charge - a.charge}"
                   if abs(b.charge - a.charge) != 1 else "they are not partners in a weak doublet")
            yield Finding("weak-transitions", f"{table.id}: {row.id}: {_sym(a)} → {_sym(b)} is not a weak transition "
                          f"({why}): no W vertex {_sym(a)} {_sym(game.physics.anti(b.id))} W",
                          row.location, "a W turns an up-type quark into a down-type quark or back, or a charged "
                          "lepton into its own neutrino", game.id)
            continue
        weight = (f", |V|² = {ckm_weight(a, b):.3g}" if a.kind == "quark" and is_up_type(a) != is_up_type(b) else "")
        ok.append(f"{_sym(a)} → {_sym(b)} {_sym(w)}{weight}")
        bosons[row.id] = w
    made = ""
    if carriers is not None:
        comp, flag, field_name, cards = carriers
        for card in cards:
            shown = card.fields.get(field_name)
            wrong = [(rid, w) for rid, w in bosons.items()
                     if not isinstance(shown, Particle) or shown.id not in (w.id, game.physics.anti(w.id).id)]
            if wrong:
                rid, w = wrong[0]
                what = _sym(shown) if isinstance(shown, Particle) else "no particle"
                yield Finding("weak-transitions", f"{comp.id}: card '{card.id}' makes the flavour changes of table "
                              f"'{table.id}' ('{flag}'), but shows {what}: change '{rid}' needs a {_sym(w)} "
                              f"(only a charged W changes a particle's flavour)", card.where(field_name),
                              f"show {w.id} (or {game.physics.anti(w.id).id}) on it, or unmark '{flag}'", game.id)
        if not cards:
            yield Finding("weak-transitions", f"{comp.id}: no card is marked '{flag}', so nothing makes the flavour "
                          f"changes of table '{table.id}'", params.map.where("made_by"),
                          f"mark the cards that make them with '{flag}: true'", game.id)
        made = f"; made by the {sum(c.count for c in cards)} '{flag}' cards of {comp.id}, which show a W"
    yield Proof("weak-transitions", f"{table.id}: {len(ok)} flavour changes are charge-changing weak transitions, "
                f"each a W vertex (and so are their antiparticles'): {'; '.join(ok)}{made}", len(ok), game.id,
                table.location)


def _carrier_cards(game: Game, params: S.Fields) -> tuple[Component, str, str, list[Card]] | None:
    """The component, yes/no field, particle field and cards that make a table's flavour
    changes (check keys ``component``, ``made_by``, ``field``), or None when the check names none."""
    if not params.has("made_by"):
        return None
    comp = component_param(game, params)
    flag = typed_field(comp, params, "made_by", "wild", ("bool",), "a yes/no field")
    field_name = particle_field(comp, params)
    return comp, flag, field_name, [c for c in comp.cards if c.fields.get(flag) is True]
