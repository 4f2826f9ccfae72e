"""The in-memory model of a game, as the loader builds it and the later stages read it.

Everything is a frozen dataclass: stages downstream of loading never mutate the game, so a
game can be checked, rendered and laid out in any order (and in other processes) safely.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from .errors import Location
from .particles import PhysicsData
from .places import Place, PlaceLayout, card_places
from .shapes import Shape

COMPONENT_KINDS = ("card", "token", "board", "pawn", "reference")


@dataclass(frozen=True)
class FieldSpec:
    """The declared type of one card field (``fields:`` in a component file).

    Types: text, int, number, bool, enum (with ``choices``), particle, colour, ref (to a row of a
    ``table`` or a card of a ``component``) and ``list`` (``of`` one of those).
    """

    name: str
    type: str
    required: bool = False
    choices: tuple[str, ...] = ()
    of: str | None = None
    table: str | None = None
    component: str | None = None
    translatable: bool = False
    minimum: float | None = None
    maximum: float | None = None
    label: str = ""   # its column header on a rule sheet ("" → derived from the name, see sheets.column_header)
    doc: str = ""
    location: Location | None = None
    #: a records table's field shown as a column of the rule sheet; False: kept for the checker
    #: alone (what a level adds, read by the levels rule)
    printed: bool = True


def _line_column(loc: Location) -> str:
    """A place in the same file as its entry: line:column (or the spreadsheet cell)."""
    return loc.cell or f"{loc.line}:{loc.column}"


@dataclass(frozen=True, slots=True)
class Card:
    """One distinct card design and how many copies the deck holds.

    ``fields`` holds resolved values (a :class:`~cardgen.particles.Particle` for a particle
    field); ``raw`` the values as written, for messages and catalogs.
    """

    id: str
    count: int
    fields: Mapping[str, Any]
    raw: Mapping[str, Any]
    location: Location
    field_locations: Mapping[str, Location] = field(default_factory=dict)
    places: tuple[Place, ...] | None = None  # the card's own places, replacing its component's layout
    #: The axes of the ``matrix:`` entry that made this card (none for a card written out):
    #: ``location`` is the entry all its cards share, ``where(axis)`` this card's own value.
    matrix: tuple[str, ...] = ()

    def where(self, name: str) -> Location:
        return self.field_locations.get(name, self.location)

    @property
    def origin(self) -> str:
        """Where this card is defined, as a designer looks it up: its entry's file:line:column,
        and for a card a matrix made, the value of each axis that made this one
        (``cards.yaml:23:5 (matrix: particle u at 23:23, colour red at 23:41)``)."""
        if not self.matrix:
            return str(self.location)
        values = ", ".join(f"{axis} {self.raw.get(axis)} at {_line_column(self.where(axis))}" for axis in self.matrix)
        return f"{self.location} (matrix: {values})"


@dataclass(frozen=True)
class Component:
    """A printable component: a deck of cards, a set of tokens, a board, a pawn."""

    id: str
    name: str
    kind: str
    width: float
    height: float
    shape: Shape
    bleed: float
    safe: float
    front: str
    back: str | None
    fields: Mapping[str, FieldSpec]
    cards: tuple[Card, ...]
    level: int
    description: str
    print_note: str
    file: Path
    location: Location
    key_locations: Mapping[str, Location] = field(default_factory=dict)
    places: PlaceLayout | None = None  # where other cards are laid on this component's faces, if anywhere
    #: Components of which playing this one's level needs a spare set (printed with it).
    spares: tuple[str, ...] = ()

    def where(self, key: str) -> Location:
        """Location of one of the component's own keys (front, back, size...)."""
        return self.key_locations.get(key, self.location)

    @functools.cached_property
    def total(self) -> int:
        """Pieces printed of it (every card's count; summed once: ``cards`` is a tuple)."""
        return sum(c.count for c in self.cards)

    @property
    def sides(self) -> tuple[str, ...]:
        """The printed sides of its cards, in the order a build renders them."""
        return ("front", "back") if self.back else ("front",)

    def card(self, cid: str) -> Card | None:
        """The card of that id. A build asks once for every face it renders: a search through
        the cards each time cost a deck of 10,000 cards some 50 million comparisons."""
        return self._cards_by_id.get(cid)

    @functools.cached_property
    def _cards_by_id(self) -> dict[str, Card]:
        index: dict[str, Card] = {}
        for c in self.cards:
            index.setdefault(c.id, c)
        return index

    def places_of(self, card: Card) -> tuple[Place, ...]:
        """The places on one card's face (empty when the component declares none)."""
        return () if self.places is None else card_places(self.places, card.places, card.fields)

    def __repr__(self) -> str:
        return f"<Component {self.id}: {self.total} pieces>"


@dataclass(frozen=True)
class Table:
    """A rule table (transformations, dice tables, vertices...). ``rows`` are kind-specific
    frozen records built by :mod:`cardgen.tables`."""

    id: str
    kind: str
    title: str
    level: int
    note: str
    rows: tuple[Any, ...]
    options: Mapping[str, Any]
    file: Path
    location: Location
    #: where the table's ``level`` is written (its file's start when it has none: level 1)
    level_location: Location | None = None


#: The rules that measure the texts the rendered faces print (:mod:`cardgen.rules.legibility`):
#: named here, where a build asks whether a game declares one (and runs only these once its
#: faces are rendered), without importing the rules.
MEASURING_RULES = frozenset({"rotated-index", "text-size", "text-contrast", "printed-values"})


@dataclass(frozen=True)
class CheckSpec:
    """A game rule check declared in data: ``{rule: deck-size, component: particles, ...}``."""

    rule: str
    params: Any  # the YMap of parameters, read by the rule itself
    location: Location

    @property
    def measures_faces(self) -> bool:
        return self.rule in MEASURING_RULES


@dataclass(frozen=True)
class Assumption:
    """A design choice or reading of the rulebook that the data depends on."""

    id: str
    text: str
    location: Location


@dataclass(frozen=True)
class Game:
    id: str
    name: str
    summary: str
    rulebook: str
    components: Mapping[str, Component]
    tables: Mapping[str, Table]
    checks: tuple[CheckSpec, ...]
    assumptions: tuple[Assumption, ...]
    physics: PhysicsData
    data_dir: Path
    templates_dir: Path
    location: Location
    files: tuple[Path, ...] = ()
    #: Font files beyond the bundled ones, in fallback order: the game's own ``fonts/``
    #: folder, then each ``--font-dir`` (see cardgen.text.fonts.chains_with).
    fonts: tuple[Path, ...] = ()

    @property
    def artwork_roots(self) -> tuple[Path, ...]:
        """Where the game's artwork (``image(...)`` in a template) is looked for, in order: its
        own folder, then its templates folder."""
        return (self.data_dir, self.templates_dir)

    def component(self, cid: str) -> Component:
        return self.components[cid]

    def __repr__(self) -> str:  # the full dataclass repr would print every card and particle
        return f"<Game {self.id}: {len(self.components)} components>"
