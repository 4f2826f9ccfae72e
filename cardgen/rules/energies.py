"""Energies a game gives its quark flavours (QCD the Game: u 300, d 300, s 500, c 1500 MeV).

These are not PDG values: they are close to constituent quark masses, a game's invention. The
data declares them a design choice (``design: {reason: ...}`` on the check) and the checker
lists them; it still holds them to what physics says about the flavours:

* every quark a card shows has an energy, the one the card prints (the first table row naming
  it, as the template looks it up), and a quark and its antiquark print the same; with
  ``printed: <text field>`` the card fronts are rendered and the number each one prints in that
  field must be that energy, so a template printing something else is caught too;
* energies follow PDG's mass order of the flavours: strictly where PDG's masses differ by more
  than ``strict_ratio``, an equal energy allowed only where they do not, or within an isospin
  doublet (u, d: isospin ½, per PDG);
* an energy is at least the flavour's PDG mass (a bound quark carries more than its bare mass);
* where the data records the rulebook's own value, the printed one equals it or the row
  declares its deviation with a reason.

Without a ``design`` declaration the energies are taken as PDG masses and compared with them
at the figures printed.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from fractions import Fraction
from itertools import combinations
from typing import Iterator

from .. import format as fmt
from .. import pdg
from .. import schema as S
from ..errors import CardgenError, Finding, Location
from ..model import Card, Component, Game
from ..particles import Particle, design_choice
from ..proof import Choice, Proof
from ..tables import Record
from . import declared
from .common import component_param, declared_field, particle_field, table_param

RULE = "flavour-energies"


def _row_field(table, params: S.Fields, key: str, default: str, types: tuple[str, ...], required: bool = True) -> str:
    """Name of a field of the records table, checked to be declared with one of ``types``."""
    return declared_field(table.options.get("fields", {}), f"table '{table.id}'", params, key, default, types,
                          required=required)


def _mev(value: float) -> str:
    return f"{value:g} MeV"


def printed_text(game: Game, comp: Component, cards: list[Card], field: str) -> dict[str, str | None]:
    """What each card's front prints in the text field ``field`` (None: no such text), read
    from the face rendered in memory; a card whose face cannot be rendered is left out (the
    build and the template checks report why)."""
    from ..render import Renderer  # rendering is needed only by checks that read printed text

    renderer = Renderer(game)
    pattern = re.compile(r'<g aria-label="([^"]*)" data-field="' + re.escape(html.escape(field)) + '"')
    out: dict[str, str | None] = {}
    for card in cards:
        try:
            body = renderer.face(comp, card).body
        except CardgenError:
            continue
        found = pattern.search(body)
        out[card.id] = html.unescape(found.group(1)) if found else None
    return out


@declared(RULE)
def flavour_energies(game: Game, params: S.Fields) -> Iterator[Finding | Proof | Choice]:
    """Quark flavours' energies: present for every card, the same for a quark and its antiquark,
    in PDG's mass order, at least PDG's mass, and the rulebook's unless a deviation is declared."""
    table = table_param(game, params, ("records",))
    comp = component_param(game, params)
    card_field = particle_field(comp, params)
    energy = _row_field(table, params, "energy", "energy_mev", ("int", "number"))
    members = _row_field(table, params, "particles", "particles", ("list:particle",))
    rulebook = _row_field(table, params, "rulebook", "rulebook_mev", ("int", "number"), required=False)
    deviation = _row_field(table, params, "deviation", "deviation", ("text",), required=False)
    ratio = params.get("strict_ratio", S.number(minimum=1), 3)
    design = params.get("design", design_choice, None)
    printed_field = params.get("printed", S.ident, None)
    rows: list[Record] = list(table.rows)

    def where(row: Record, key: str) -> Location:
        return row.where.get(key, row.location)

    # what each particle prints: the first row naming it, as the template's lookup does
    printed: dict[str, tuple[Record, float]] = {}
    for row in rows:
        for p in row.values.get(members) or ():
            if p.id in printed and printed[p.id][1] != row.values[energy]:
                first = printed[p.id][0]
                yield Finding(RULE, f"{p.name} is in rows '{first.id}' ({_mev(printed[p.id][1])}) and '{row.id}' "
                              f"({_mev(row.values[energy])}); its cards print only the first", where(row, members),
                              f"name {p.id} in one row only", game.id)
            printed.setdefault(p.id, (row, row.values[energy]))

    quark_cards = 0
    shown: dict[str, Particle] = {}
    for card in comp.cards:
        p = card.fields.get(card_field)
        if not isinstance(p, Particle) or p.kind != "quark":
            continue
        quark_cards += card.count
        shown.setdefault(p.id, p)
        if p.id not in printed:
            yield Finding(RULE, f"card '{card.id}' shows {p.name} but no row of table '{table.id}' gives its energy",
                          card.where(card_field), f"add {p.id} to a row's '{members}'", game.id)

    wrong = 0
    if printed_field is not None:
        cards = [c for c in comp.cards if getattr(c.fields.get(card_field), "id", None) in printed]
        for card_id, text in printed_text(game, comp, cards, printed_field).items():
            card = next(c for c in cards if c.id == card_id)
            row, value = printed[card.fields[card_field].id]
            number = re.match(r"\s*([-+]?\d+(?:[.,]\d+)?)", text or "")
            if number is None or float(number.group(1).replace(",", ".")) != value:
                wrong += 1
                yield Finding(RULE, f"card '{card.id}' prints {repr(text) if text else 'no'} '{printed_field}' text "
                              f"but the energy of its flavour is {_mev(value)} (row '{row.id}')",
                              comp.where("front"), f"print the row's {energy} in the '{printed_field}' field "
                              f"of {comp.front}", game.id)
    for pid, (row, value) in printed.items():
        p = game.physics.particles[pid]
        anti = printed.get(p.antiparticle)
        if anti is not None and anti[1] != value and p.is_anti:
            wrong += 1
            yield Finding(RULE, f"{p.name} prints {_mev(value)} but {game.physics.particles[p.antiparticle].name} "
                          f"prints {_mev(anti[1])}: a quark and its antiquark have the same mass", where(row, energy),
                          f"give {p.id} {_mev(anti[1])}", game.id)

    # one energy per flavour (the quark's, else its antiquark's), with PDG's mass and isospin
    flavours: dict[int, tuple[Particle, Record, float]] = {}
    for pid, (row, value) in printed.items():
        p = game.physics.particles[pid]
        if p.kind == "quark" and (abs(p.pdg_id) not in flavours or not p.is_anti):
            flavours[abs(p.pdg_id)] = (p, row, value)
    refs = {f: pdg.lookup(f) for f in flavours}

    for f, (p, row, value) in flavours.items():
        mass = refs[f].mass
        if design is not None and mass is not None and value < mass:
            wrong += 1
            yield Finding(RULE, f"{row.values.get('name', row.id)} ({p.id}) prints {_mev(value)}, less than its "
                          f"{pdg.EDITION} mass of {_mev(mass)}: a quark bound in a hadron carries at least its mass",
                          where(row, energy), f"raise the energy above {_mev(mass)}", game.id)
        if design is None and (mass is None or not pdg.same_at(value, fmt.written_figures(str(value)), mass)):
            wrong += 1
            yield Finding(RULE, f"{row.values.get('name', row.id)} ({p.id}) prints {_mev(value)} as its energy but "
                          f"{pdg.EDITION} gives a mass of {_mev(mass) if mass else 'none'}", where(row, energy),
                          "print PDG's mass or declare the energies a design choice: design: {reason: ...}", game.id)

    # mass order: count each flavour's broken pairs, blame the flavour that breaks the most
    broken: list[tuple[int, int, str]] = []
    for a, b in combinations(sorted(flavours, key=lambda f: refs[f].mass or 0), 2):
        ma, mb = refs[a].mass or 0, refs[b].mass or 0
        ea, eb = flavours[a][2], flavours[b][2]
        doublet = refs[a].I == refs[b].I == Fraction(1, 2) and refs[a].pdgid.is_quark
        strict = mb > ma * ratio and not doublet
        if eb < ea or (strict and eb == ea):
            relation = "more energy than" if strict else "at least as much energy as"
            broken.append((a, b, f"{flavours[b][0].name} ({_mev(eb)}) must carry {relation} "
                               f"{flavours[a][0].name} ({_mev(ea)}): {pdg.EDITION} gives them {_mev(mb)} and {_mev(ma)}"
                               + (" (an isospin doublet: equal allowed)" if doublet else "")))
    blame = Counter(f for a, b, _ in broken for f in (a, b))
    for a, b, message in broken:
        wrong += 1
        worst = max(blame[a], blame[b])
        for f in (a, b):
            if blame[f] == worst:
                yield Finding(RULE, message, where(flavours[f][1], energy),
                              "order the energies as PDG orders the masses", game.id)

    declared_rows = 0
    for row in rows:
        if rulebook not in row.values or row.values.get(rulebook) is None:
            continue
        book, value = row.values[rulebook], row.values[energy]
        if book == value:
            continue
        reason = row.values.get(deviation) if deviation else None
        if reason:
            declared_rows += 1
            yield Choice(RULE, f"energy of {row.values.get('name', row.id)} printed {_mev(value)}, the rulebook's "
                         f"is {_mev(book)}", reason, where(row, energy), game.id)
        else:
            wrong += 1
            yield Finding(RULE, f"{row.values.get('name', row.id)} prints {_mev(value)} but the rulebook gives "
                          f"{_mev(book)}", where(row, energy),
                          f"print {_mev(book)} or declare the deviation with its reason in '{deviation}'", game.id)

    if design is not None:
        for f, (p, row, value) in flavours.items():
            yield Choice(RULE, f"energy of {row.values.get('name', row.id)} "
                         f"({' '.join(q.symbol.unicode() for q in row.values.get(members) or ())}) printed {_mev(value)}",
                         design.reason, where(row, energy), game.id)
    if not wrong:
        with_book = sum(1 for r in rows if r.values.get(rulebook) is not None)
        yield Proof(RULE, f"{comp.id}: {quark_cards} quark cards print the energy of their flavour"
                    + (f" (read from their rendered '{printed_field}' text)" if printed_field else "") +
                    f": {len(flavours)} "
                    f"flavours ({len(printed)} quarks and antiquarks), the same for a quark and its antiquark, in "
                    f"{pdg.EDITION}'s mass order (strictly where masses differ more than {ratio:g}×), each at least "
                    f"its mass; {with_book - declared_rows} of {with_book} equal the rulebook's"
                    + (f", {declared_rows} declared deviations" if declared_rows else ""), quark_cards, game.id,
                    table.location)
