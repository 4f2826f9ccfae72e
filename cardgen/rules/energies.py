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
import math
import re
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import TYPE_CHECKING, Generator, Iterable, Iterator

from .. import format as fmt
from .. import pdg
from .. import schema as S
from ..errors import CardgenError, Finding, Location
from ..model import Card, Component, Game, Table
from ..particles import Design, Particle, design_choice
from ..proof import Choice, Proof
from ..tables import Record
from . import declared
from .common import component_param, declared_field, particle_field, table_param

if TYPE_CHECKING:
    from ..pdg import PDGParticle

RULE = "flavour-energies"


def _row_field(table, params: S.Fields, key: str, default: str, types: tuple[str, ...], required: bool = True) -> str:
    """Name of a field of the records table, checked to be declared with one of ``types``."""
    return declared_field(table.options.get("fields", {}), f"table '{table.id}'", params, key, default, types,
                          required=required)


def _mev(value: float) -> str:
    return f"{value:g} MeV"


def printed_text(game: Game, comp: Component, cards: list[Card], field: str) -> dict[str, str | None]:
    """What each card's front prints in the text field ``field`` (None: no such text), read
    from the face the build renders, rendered once for the whole check
    (:mod:`cardgen.checkfaces`); a card whose face cannot be rendered is left out (the build
    and the template checks report why)."""
    from ..checkfaces import faces_of  # rendering is needed only by checks that read printed text

    faces = faces_of(game)
    pattern = re.compile(r'<g aria-label="([^"]*)" data-field="' + re.escape(html.escape(field)) + '"')
    out: dict[str, str | None] = {}
    for card in cards:
        try:
            body = faces.face(comp, card).body
        except CardgenError:
            continue
        found = pattern.search(body)
        out[card.id] = html.unescape(found.group(1)) if found else None
    return out


@dataclass(frozen=True)
class _Setup:
    """The check's parameters, read and checked: the records table and the fields it uses."""

    game: Game
    table: Table
    comp: Component
    card_field: str
    energy: str
    members: str
    rulebook: str | None
    deviation: str | None
    ratio: float
    design: Design | None
    printed_field: str | None

    @property
    def rows(self) -> list[Record]:
        """The rows that give an energy (one that gives none is a finding of :func:`_first_rows`)."""
        return [r for r in self.table.rows if r.values.get(self.energy) is not None]

    @staticmethod
    def where(row: Record, key: str) -> Location:
        return row.where.get(key, row.location)

    def finding(self, message: str, where: Location, fix: str) -> Finding:
        return Finding(RULE, message, where, fix, self.game.id)


#: What each particle prints: the first row naming it, and that row's energy.
Printed = dict[str, tuple[Record, float]]
#: One energy per flavour (by PDG id): the quark's, else its antiquark's, with the row giving it.
Flavours = dict[int, tuple[Particle, Record, float]]


def _setup(game: Game, params: S.Fields) -> _Setup:
    table = table_param(game, params, ("records",))
    comp = component_param(game, params)
    return _Setup(
        game, table, comp, particle_field(comp, params),
        energy=_row_field(table, params, "energy", "energy_mev", ("int", "number")),
        members=_row_field(table, params, "particles", "particles", ("list:particle",)),
        rulebook=_row_field(table, params, "rulebook", "rulebook_mev", ("int", "number"), required=False),
        deviation=_row_field(table, params, "deviation", "deviation", ("text",), required=False),
        ratio=params.get("strict_ratio", S.number(minimum=1), 3),
        design=params.get("design", design_choice, None),
        printed_field=params.get("printed", S.ident, None))


@declared(RULE, reads_faces=True)
def flavour_energies(game: Game, params: S.Fields) -> Iterator[Finding | Proof | Choice]:
    """Quark flavours' energies: present for every card, the same for a quark and its antiquark,
    in PDG's mass order, at least PDG's mass, and the rulebook's unless a deviation is declared."""
    s = _setup(game, params)
    printed = yield from _first_rows(s)
    quark_cards = yield from _shown_quarks(s, printed)
    verdict = _Verdict()
    yield from verdict.judge(_printed_numbers(s, printed))
    yield from verdict.judge(_antiquarks(s, printed))
    flavours = _flavours(game, printed)
    refs = {f: pdg.lookup(f) for f in flavours}
    yield from verdict.judge(_mass_bounds(s, flavours, refs))
    yield from verdict.judge(_mass_order(s, flavours, refs))
    declared_rows = yield from verdict.judge(_rulebook_values(s))
    yield from _design_choices(s, flavours)
    if not verdict.wrong:
        yield _proof(s, quark_cards, printed, flavours, declared_rows)


class _Verdict:
    """Whether any of the value checks found something wrong (then nothing is proved)."""

    def __init__(self) -> None:
        self.wrong = False

    def judge(self, records: Iterable[Finding | Choice]) -> Generator[Finding | Choice, None, int]:
        """Pass ``records`` on, noting findings; returns how many were declared choices."""
        choices = 0
        for record in records:
            self.wrong |= isinstance(record, Finding)
            choices += isinstance(record, Choice)
            yield record
        return choices


def _first_rows(s: _Setup) -> Generator[Finding, None, Printed]:
    """What each particle prints: the first row naming it, as the template's lookup does; a
    particle in rows of different energies is a finding."""
    printed: Printed = {}
    for row in s.table.rows:
        if row.values.get(s.energy) is None and row.values.get(s.members):   # no energy: nothing to print
            yield s.finding(f"row '{row.id}' gives no '{s.energy}' for {', '.join(p.id for p in row.values[s.members])}",
                            row.location, f"write the row's {s.energy}")
            continue
        if row.values.get(s.energy) is None:
            continue
        for p in row.values.get(s.members) or ():
            energy = row.values[s.energy]
            if p.id in printed and printed[p.id][1] != energy:
                first, value = printed[p.id]
                yield s.finding(f"{p.name} is in rows '{first.id}' ({_mev(value)}) and '{row.id}' ({_mev(energy)}); "
                                "its cards print only the first", s.where(row, s.members), f"name {p.id} in one row only")
            printed.setdefault(p.id, (row, energy))
    return printed


def _shown_quarks(s: _Setup, printed: Printed) -> Generator[Finding, None, int]:
    """Every quark a card shows has a row; returns how many quark cards there are (copies counted)."""
    quark_cards = 0
    for card in s.comp.cards:
        p = card.fields.get(s.card_field)
        if not isinstance(p, Particle) or p.kind != "quark":
            continue
        quark_cards += card.count
        if p.id not in printed:
            yield s.finding(f"card '{card.id}' shows {p.name} but no row of table '{s.table.id}' gives its energy",
                            card.where(s.card_field), f"add {p.id} to a row's '{s.members}'")
    return quark_cards


#: A printed number: with thousands grouped by a comma or a space ('1,500', '10 000', SI's thin
#: space) or not, with a decimal point or comma, then its unit if it prints one.
_NUMBER = re.compile(r"(?P<number>[-+]?\d{1,3}(?:[,\u2009\u202f\u00a0 ]\d{3})+(?:\.\d+)?(?!\d)"
                     r"|[-+]?\d+(?:[.,]\d+)?)\s*(?P<unit>[kMGT]?eV)?")
_EV_UNITS = {"eV": 1e-6, "keV": 1e-3, "MeV": 1.0, "GeV": 1e3, "TeV": 1e6}


def printed_mev(text: str) -> float | None:
    """The energy a printed text states, in MeV: its first number, read with the unit it prints
    ('0.3 GeV' is 300 MeV, '1,500 MeV' and '1 500 MeV' 1500 MeV, 'E = 300 MeV' 300 MeV); a
    number without a unit is in MeV, the unit the table writes. None when it states no number."""
    m = _NUMBER.search(text)
    if m is None:
        return None
    digits = m["number"]
    if re.search(r"[,\u2009\u202f\u00a0 ]\d{3}(?!\d)", digits) and not re.fullmatch(r"[-+]?\d+,\d{1,2}", digits):
        digits = re.sub(r"[,\u2009\u202f\u00a0 ]", "", digits)   # thousands grouped
    return float(digits.replace(",", ".")) * _EV_UNITS[m["unit"] or "MeV"]


def _printed_numbers(s: _Setup, printed: Printed) -> Iterator[Finding]:
    """With ``printed: <field>``: the number each rendered front prints there is its flavour's energy."""
    if s.printed_field is None:
        return
    cards = [c for c in s.comp.cards if getattr(c.fields.get(s.card_field), "id", None) in printed]
    for card_id, text in printed_text(s.game, s.comp, cards, s.printed_field).items():
        card = next(c for c in cards if c.id == card_id)
        row, value = printed[card.fields[s.card_field].id]
        shown = printed_mev(text or "")
        if shown is None or not math.isclose(shown, value, rel_tol=1e-9):
            yield s.finding(f"card '{card.id}' prints {chr(39) + text + chr(39) if text else 'no'} '{s.printed_field}' text "
                            f"but the energy of its flavour is {_mev(value)} (row '{row.id}')",
                            s.comp.where("front"), f"print the row's {s.energy} in the '{s.printed_field}' field "
                            f"of {s.comp.front}")


def _antiquarks(s: _Setup, printed: Printed) -> Iterator[Finding]:
    """A quark and its antiquark print the same energy (the antiquark's row is blamed)."""
    particles = s.game.physics.particles
    twice = _listed_twice(s)   # already a finding of its own, whose fix decides the energy
    for pid, (row, value) in printed.items():
        p = particles[pid]
        anti = printed.get(p.antiparticle)
        if anti is not None and anti[1] != value and p.is_anti and not {pid, p.antiparticle} & twice:
            yield s.finding(f"{p.name} prints {_mev(value)} but {particles[p.antiparticle].name} "
                            f"prints {_mev(anti[1])}: a quark and its antiquark have the same mass",
                            s.where(row, s.energy), f"give {p.id} {_mev(anti[1])}")


def _listed_twice(s: _Setup) -> set[str]:
    """The particles rows of different energies name twice."""
    energies: dict[str, set[float]] = {}
    for row in s.table.rows:
        if row.values.get(s.energy) is not None:
            for p in row.values.get(s.members) or ():
                energies.setdefault(p.id, set()).add(row.values[s.energy])
    return {pid for pid, values in energies.items() if len(values) > 1}


def _flavours(game: Game, printed: Printed) -> Flavours:
    """One energy per flavour: the quark's, else its antiquark's."""
    flavours: Flavours = {}
    for pid, (row, value) in printed.items():
        p = game.physics.particles[pid]
        if p.kind == "quark" and (abs(p.pdg_id) not in flavours or not p.is_anti):
            flavours[abs(p.pdg_id)] = (p, row, value)
    return flavours


def _mass_bounds(s: _Setup, flavours: Flavours, refs: dict[int, PDGParticle]) -> Iterator[Finding]:
    """A design energy is at least PDG's mass; without a design declaration it is PDG's mass."""
    for f, (p, row, value) in flavours.items():
        mass = refs[f].mass
        name = row.values.get("name", row.id)
        if s.design is not None and mass is not None and value < mass:
            yield s.finding(f"{name} ({p.id}) prints {_mev(value)}, less than its {pdg.EDITION} mass of {_mev(mass)}: "
                            "a quark bound in a hadron carries at least its mass", s.where(row, s.energy),
                            f"raise the energy above {_mev(mass)}")
        if s.design is None and (mass is None or not pdg.same_at(value, fmt.written_figures(str(value)), mass)):
            yield s.finding(f"{name} ({p.id}) prints {_mev(value)} as its energy but {pdg.EDITION} gives a mass of "
                            f"{_mev(mass) if mass else 'none'}", s.where(row, s.energy),
                            "print PDG's mass or declare the energies a design choice: design: {reason: ...}")


def _mass_order(s: _Setup, flavours: Flavours, refs: dict[int, PDGParticle]) -> Iterator[Finding]:
    """Energies in PDG's mass order: each broken pair is reported at the flavour (or both)
    that breaks the most pairs."""
    broken = list(_broken_pairs(s, flavours, refs))
    blame = Counter(f for a, b, _ in broken for f in (a, b))
    for a, b, message in broken:
        worst = max(blame[a], blame[b])
        for f in (a, b):
            if blame[f] == worst:
                yield s.finding(message, s.where(flavours[f][1], s.energy), "order the energies as PDG orders the masses")


def _broken_pairs(s: _Setup, flavours: Flavours, refs: dict[int, PDGParticle]) -> Iterator[tuple[int, int, str]]:
    """Pairs of flavours (lighter first) whose energies break PDG's mass order, with why:
    strictly ordered where masses differ by more than the ratio, except an isospin doublet."""
    for a, b in combinations(sorted(flavours, key=lambda f: refs[f].mass or 0), 2):
        ma, mb = refs[a].mass or 0, refs[b].mass or 0
        ea, eb = flavours[a][2], flavours[b][2]
        doublet = refs[a].I == refs[b].I == Fraction(1, 2) and refs[a].pdgid.is_quark
        strict = mb > ma * s.ratio and not doublet
        if eb < ea or (strict and eb == ea):
            relation = "more energy than" if strict else "at least as much energy as"
            yield (a, b, f"{flavours[b][0].name} ({_mev(eb)}) must carry {relation} "
                         f"{flavours[a][0].name} ({_mev(ea)}): {pdg.EDITION} gives them {_mev(mb)} and {_mev(ma)}"
                         + (" (an isospin doublet: equal allowed)" if doublet else ""))


def _rulebook_values(s: _Setup) -> Iterator[Finding | Choice]:
    """Where a row records the rulebook's value, it prints that or declares its deviation."""
    for row in s.rows:
        if s.rulebook not in row.values or row.values.get(s.rulebook) is None:
            continue
        book, value = row.values[s.rulebook], row.values[s.energy]
        if book == value:
            continue
        reason = str(row.values.get(s.deviation) or "").strip() if s.deviation else ""   # blank says nothing
        name = row.values.get("name", row.id)
        if reason:
            yield Choice(RULE, f"energy of {name} printed {_mev(value)}, the rulebook's is {_mev(book)}", reason,
                         s.where(row, s.energy), s.game.id)
        else:
            yield s.finding(f"{name} prints {_mev(value)} but the rulebook gives {_mev(book)}", s.where(row, s.energy),
                            f"print {_mev(book)} or declare the deviation with its reason in '{s.deviation}'")


def _design_choices(s: _Setup, flavours: Flavours) -> Iterator[Choice]:
    """With a design declaration, each flavour's energy is listed as a choice with its reason."""
    if s.design is None:
        return
    for _f, (_p, row, value) in flavours.items():
        symbols = " ".join(q.symbol.unicode() for q in row.values.get(s.members) or ())
        yield Choice(RULE, f"energy of {row.values.get('name', row.id)} ({symbols}) printed {_mev(value)}",
                     s.design.reason, s.where(row, s.energy), s.game.id)


def _proof(s: _Setup, quark_cards: int, printed: Printed, flavours: Flavours, declared_rows: int) -> Proof:
    with_book = sum(1 for r in s.rows if r.values.get(s.rulebook) is not None)
    return Proof(RULE, f"{s.comp.id}: {quark_cards} quark cards print the energy of their flavour"
                 + (f" (read from their rendered '{s.printed_field}' text)" if s.printed_field else "") +
                 f": {len(flavours)} flavours ({len(printed)} quarks and antiquarks), the same for a quark and its "
                 f"antiquark, in {pdg.EDITION}'s mass order (strictly where masses differ more than {s.ratio:g}×), "
                 f"each at least its mass; {with_book - declared_rows} of {with_book} equal the rulebook's"
                 + (f", {declared_rows} declared deviations" if declared_rows else ""), quark_cards, s.game.id,
                 s.table.location)
