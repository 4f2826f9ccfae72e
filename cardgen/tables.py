"""Rule tables: the game logic a rulebook states as lists and dice charts.

Each table kind has a fixed row structure, so the checker can reason about it (conserve charge
over every transformation, cover every die face exactly once) without knowing which game it
came from. ``records`` is the open-ended kind: its fields are declared in data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from . import schema as S
from .errors import InputError, Location
from .fields import parse_field_specs, read_record_fields
from .particles import Particle, PhysicsData
from .yamlsrc import YMap, YSeq

TABLE_KINDS = ("transformations", "annihilation", "dice", "line-types", "vertices", "setup", "records")
LINE_STYLES = ("fermion", "photon", "gluon", "scalar", "boson")
#: The row key, allowed on a row of every table kind, that declares a deliberate difference
#: from the game's printed rulebook.
DEVIATION_KEY = "differs_from_rulebook"


@dataclass(frozen=True)
class Deviation:
    """A row that knowingly says something other than the printed rulebook. ``assumption``
    names the game's assumption (game.yaml) that explains how and why, so the reason is
    written once: the checker lists it and rule sheets mark the row and print it as a footnote."""

    assumption: str
    location: Location


def _deviation(value: Any, loc: Location, raw: Any = None) -> Deviation:
    f = S.Fields(value, f"'{DEVIATION_KEY}'", loc)
    dev = Deviation(f.get("assumption", S.ident), f.map.where("assumption"))
    f.finish()
    return dev


@dataclass(frozen=True)
class Declared:
    """What a reaction's data declares about how it happens, each with the reason or place the
    checker shows (a :class:`cardgen.proof.Choice`):

    * ``virtual`` — products that are off their mass shell (the W a quark decays through is
      handed out as a card but is virtual): they do not count in the products' mass;
    * ``via`` — virtual bosons inside the diagram that are not products (the W⁻ of μ⁻ → ν_μ e⁻ ν̄_e);
    * ``loop`` — why the reaction has no tree-level diagram and goes through a loop (H → g g);
    * ``energy`` — where the energy comes from when the products outweigh what goes in.

    A key a row kind does not take is an unknown key there (the row's reader says so).
    """

    virtual: tuple[Particle, ...] = ()
    via: tuple[Particle, ...] = ()
    loop: str = ""
    energy: str = ""
    where: tuple[tuple[str, Location], ...] = ()

    def at(self, key: str, default: Location) -> Location:
        return dict(self.where).get(key, default)

    def merge(self, inner: "Declared") -> "Declared":
        """These declarations (of a dice entry or an enclosing roll) with those of a roll inside:
        particles add up, an inner reason replaces an outer one."""
        return Declared(self.virtual + inner.virtual, self.via + inner.via, inner.loop or self.loop,
                        inner.energy or self.energy, tuple(dict(self.where + inner.where).items()))

    def conjugate(self, physics: PhysicsData) -> "Declared":
        return Declared(tuple(physics.anti(p.id) for p in self.virtual), tuple(physics.anti(p.id) for p in self.via),
                        self.loop, self.energy, self.where)


DECLARED_KEYS = ("virtual", "via", "loop", "energy")


@dataclass(frozen=True)
class Transformation:
    """``source`` absorbs the boson ``via`` and becomes ``target`` (Particle Builder, Level 5)."""

    source: Particle
    via: Particle
    target: Particle
    location: Location
    declared: Declared = Declared()
    deviation: Deviation | None = None


@dataclass(frozen=True)
class Annihilation:
    """A particle of ``members`` meets its antiparticle; the player takes one of ``products``."""

    name: str
    members: tuple[Particle, ...]
    products: tuple[tuple[Particle, ...], ...]
    roll: str
    location: Location
    declared: Declared = Declared()
    deviation: Deviation | None = None


@dataclass(frozen=True)
class Roll:
    """One line of a dice table: on ``faces`` the particle becomes ``options[0]`` (or the player
    picks one of ``options``), or a nested ``roll`` decides, or the die is rolled again."""

    faces: tuple[int, ...]
    options: tuple[tuple[Particle, ...], ...]
    roll: tuple["Roll", ...]
    reroll: bool
    remains: bool
    note: str
    location: Location
    declared: Declared = Declared()
    deviation: Deviation | None = None


@dataclass(frozen=True)
class DiceEntry:
    particles: tuple[Particle, ...]
    rolls: tuple[Roll, ...]
    location: Location
    deviation: Deviation | None = None


@dataclass(frozen=True)
class LineType:
    """A kind of line on Tutti Quantum cards, standing for one or more particles."""

    id: str
    name: str
    particles: tuple[Particle, ...]
    style: str
    location: Location
    deviation: Deviation | None = None
    #: where its ``particles`` list and each of its entries are written (a finding about one
    #: particle of the line type points at that entry)
    particles_location: Location | None = field(default=None, compare=False)
    particle_locations: tuple[Location, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Vertex:
    id: str
    name: str
    lines: tuple[str, ...]
    points: int
    note: str
    location: Location
    deviation: Deviation | None = None


@dataclass(frozen=True)
class SetupRow:
    players: int
    shown: int
    rounds: int
    removed: int
    secret_per_player: int
    location: Location
    deviation: Deviation | None = None


@dataclass(frozen=True)
class Record:
    id: str
    values: dict[str, Any]
    location: Location
    #: position of each field's value, so a rule can point at the value it judges
    where: dict[str, Location] = field(default_factory=dict, compare=False)
    deviation: Deviation | None = None


def _particles(physics: PhysicsData) -> Callable[[Any, Location, Any], Particle]:
    return lambda v, loc, raw=None: physics.particle(S.ident(v, loc, raw), loc)


def _particle_list(physics: PhysicsData, what: str = "list of particles"):
    return S.seq_of(_particles(physics), min_items=1, what=what)


def _rows(value: Any, loc: Location) -> Iterator[tuple[Any, Location]]:
    seq = S.sequence(value, loc)
    for i, item in enumerate(seq):
        yield item, seq.where(i)


def _declared(f: S.Fields, physics: PhysicsData, keys: tuple[str, ...]) -> Declared:
    """Read the ``virtual``/``via``/``loop``/``energy`` keys (those of ``keys``) a reaction row,
    a dice entry or a roll declares."""
    plist = _particle_list(physics)
    virtual = tuple(f.get("virtual", plist, ())) if "virtual" in keys else ()
    via = tuple(f.get("via", plist, ())) if "via" in keys else ()
    loop = f.get("loop", S.reason, "") if "loop" in keys else ""
    energy = f.get("energy", S.reason, "") if "energy" in keys else ""
    for p in via:
        if _fermion(p):
            raise InputError(f"'via' lists the virtual bosons inside the diagram; {p.id} is a fermion",
                             f.map.where("via"), "remove it: internal fermion lines are found by the checker")
    where = tuple((k, f.map.where(k)) for k in DECLARED_KEYS if f.has(k))
    return Declared(virtual, via, loop, energy, where)


def _fermion(p: Particle) -> bool:
    """Whether the particle is a fermion by both its spin and its kind (a quark or a lepton).
    A boson whose spin the data gets wrong (a gluon of spin 1/2) is not taken for a fermion
    here: the pdg-values rule compares that spin with PDG and reports it at its line in
    particles.yaml, while judged by it a correct 'via' naming the particle would be blamed, as
    an input error that stops the check before that rule runs. (Not PDG's spin itself: a
    lookup would load PDG's table whenever a game is read.)"""
    return p.is_fermion and p.kind in ("quark", "lepton")


def _products_hold(declared: Declared, products: tuple[tuple[Particle, ...], ...], loc: Location) -> None:
    """Every option of a reaction holds the products its declaration calls virtual."""
    for option in products:
        missing = [p.id for p in declared.virtual if option.count(p) < declared.virtual.count(p)]
        if missing:
            raise InputError(f"'virtual' names {', '.join(dict.fromkeys(missing))}, which is not among the products "
                             f"[{', '.join(p.id for p in option)}]", declared.at("virtual", loc),
                             "list only products here (a virtual boson that is not a product goes in 'via'); "
                             "on a dice entry or a roll with nested rolls it applies to every outcome below")


def _roll(item: Any, loc: Location, physics: PhysicsData, sides: int, inherited: Declared) -> Roll:
    """One roll; ``inherited`` are the declarations of its dice entry and enclosing rolls, which
    apply to every outcome below them."""
    f = S.Fields(item, "a dice roll", loc)
    faces = f.get("faces", lambda v, l, r=None: S.faces(v, l, r, sides))
    plist = _particle_list(physics)
    becomes = f.get("becomes", plist, None)
    options = f.get("options", S.seq_of(plist, min_items=2, what="list of options"), None)
    nested = f.get("roll", S.sequence, None)
    reroll = f.get("reroll", S.boolean, False)
    remains = f.get("remains", S.boolean, False)
    note = f.get("note", S.text, "")
    opts = tuple(tuple(o) for o in options) if options else ((tuple(becomes),) if becomes else ())
    own = _declared(f, physics, DECLARED_KEYS)
    deviation = f.get(DEVIATION_KEY, _deviation, None)
    f.finish()
    chosen = [name for name, v in (("becomes", becomes), ("options", options), ("roll", nested),
                                   ("reroll", reroll or None), ("remains", remains or None)) if v is not None]
    if len(chosen) != 1:
        raise InputError(f"a roll needs exactly one outcome, found {len(chosen)} ({', '.join(chosen) or 'none'})",
                         f.loc, "give one of: becomes, options, roll, reroll: true, remains: true")
    if own.where and (reroll or remains):
        key = own.where[0][0]
        raise InputError(f"'{key}' describes a reaction's products, and this roll has none", f.map.key_where(key),
                         "declare it on the roll that names the products (becomes or options)")
    declared = inherited.merge(own)
    if opts:
        _products_hold(declared, opts, f.loc)
    rolls = (tuple(_roll(r, rl, physics, sides, declared) for r, rl in _rows(nested, f.map.where("roll")))
             if nested else ())
    return Roll(faces, opts, rolls, reroll, remains, note, f.loc, declared, deviation)


def parse_rows(kind: str, body: S.Fields, physics: PhysicsData, what: str) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Read the kind-specific part of a table file. Returns (rows, options)."""
    rows: list[Any] = []
    options: dict[str, Any] = {}
    P = _particles(physics)
    if kind == "transformations":
        for item, loc in _rows(body.get("rows", S.anything), body.map.where("rows")):
            f = S.Fields(item, "a transformation", loc)
            source, via, target = f.get("from", P), f.get("via", P), f.get("to", P)
            rows.append(Transformation(source, via, target, f.loc, _declared(f, physics, ("energy",)),
                                       f.get(DEVIATION_KEY, _deviation, None)))
            f.finish()
    elif kind == "annihilation":
        for item, loc in _rows(body.get("rows", S.anything), body.map.where("rows")):
            f = S.Fields(item, "an annihilation rule", loc)
            name, members = f.get("name", S.text), tuple(f.get("members", _particle_list(physics)))
            products = tuple(tuple(o) for o in f.get("products", S.seq_of(_particle_list(physics), min_items=1,
                                                                            what="list of product options")))
            declared = _declared(f, physics, DECLARED_KEYS)
            _products_hold(declared, products, f.loc)
            rows.append(Annihilation(name, members, products, f.get("roll", S.text, ""), f.loc, declared,
                                     f.get(DEVIATION_KEY, _deviation, None)))
            f.finish()
    elif kind == "dice":
        sides = body.get("die", S.integer(2, 100), 6)
        options["die"] = sides
        options["antiparticles"] = body.get("antiparticles", S.boolean, False)
        for item, loc in _rows(body.get("entries", S.anything), body.map.where("entries")):
            f = S.Fields(item, "a dice entry", loc)
            raw = f.map.get("particle")
            parts = (tuple(f.get("particle", _particle_list(physics))) if isinstance(raw, YSeq)
                     else (f.get("particle", P),))
            declared = _declared(f, physics, DECLARED_KEYS)
            rolls = tuple(_roll(r, rl, physics, sides, declared) for r, rl in _rows(f.get("rolls", S.anything),
                                                                                    f.map.where("rolls")))
            rows.append(DiceEntry(parts, rolls, f.loc, f.get(DEVIATION_KEY, _deviation, None)))
            f.finish()
    elif kind == "line-types":
        for item, loc in _rows(body.get("rows", S.anything), body.map.where("rows")):
            f = S.Fields(item, "a line type", loc)
            listed = f.map.get("particles")
            rows.append(LineType(f.get("id", S.ident), f.get("name", S.text),
                                 tuple(f.get("particles", _particle_list(physics))),
                                 f.get("style", S.choice(LINE_STYLES)), f.loc,
                                 f.get(DEVIATION_KEY, _deviation, None), f.map.where("particles"),
                                 tuple(listed.where(i) for i in range(len(listed))) if isinstance(listed, YSeq) else ()))
            f.finish()
    elif kind == "vertices":
        options["line_types"] = body.get("line_types", S.ident)
        for item, loc in _rows(body.get("rows", S.anything), body.map.where("rows")):
            f = S.Fields(item, "a vertex", loc)
            rows.append(Vertex(f.get("id", S.ident), f.get("name", S.text, ""),
                               tuple(f.get("lines", S.seq_of(S.ident, min_items=3, what="list of 3 line types"))),
                               f.get("points", S.integer()), f.get("note", S.text, ""), f.loc,
                               f.get(DEVIATION_KEY, _deviation, None)))
            if len(rows[-1].lines) != 3:
                raise InputError("a vertex joins exactly 3 lines", f.map.where("lines"), "list three line types")
            f.finish()
    elif kind == "setup":
        for item, loc in _rows(body.get("rows", S.anything), body.map.where("rows")):
            f = S.Fields(item, "a setup row", loc)
            rows.append(SetupRow(f.get("players", S.integer(1, 99)), f.get("shown", S.integer(0)),
                                 f.get("rounds", S.integer(0)), f.get("removed", S.integer(0), 0),
                                 f.get("secret_per_player", S.integer(0), 0), f.loc,
                                 f.get(DEVIATION_KEY, _deviation, None)))
            f.finish()
    elif kind == "records":
        specs = body.get("fields", lambda v, l, r=None: parse_field_specs(v, l, what))
        options["fields"] = specs
        for item, loc in _rows(body.get("rows", S.anything), body.map.where("rows")):
            if not isinstance(item, YMap):
                raise InputError("a row must be a mapping", loc, "write 'key: value' pairs")
            rf = S.Fields(item, "a row", loc)
            rid = rf.get("id", S.ident)
            values, _, locs = read_record_fields(item, specs, f"row '{rid}'", physics, reserved=("id", DEVIATION_KEY))
            rows.append(Record(rid, values, loc, locs, rf.get(DEVIATION_KEY, _deviation, None)))
    else:  # pragma: no cover - kind validated by the caller
        raise AssertionError(kind)
    _unique_ids(rows, what)
    return tuple(rows), options


def _unique_ids(rows: list[Any], what: str) -> None:
    seen: dict[str, Location] = {}
    for row in rows:
        rid = getattr(row, "id", None)
        if rid is None:
            continue
        if rid in seen:
            raise InputError(f"duplicate id '{rid}' in {what} (first at line {seen[rid].line})", row.location,
                             "give each row its own id")
        seen[rid] = row.location


def walk_outcomes(rolls: tuple[Roll, ...]) -> Iterator[tuple[Roll, tuple[Particle, ...] | None]]:
    """Every leaf outcome of a dice table: (roll, products) pairs; products None = no change."""
    for r in rolls:
        if r.roll:
            yield from walk_outcomes(r.roll)
        elif r.options:
            for option in r.options:
                yield r, option
        else:
            yield r, None


def every_roll(rolls: tuple[Roll, ...]) -> Iterator[Roll]:
    """Every roll of a dice table, the ones that lead to a nested roll included, in reading order."""
    for r in rolls:
        yield r
        yield from every_roll(r.roll)


def deviations(rows: tuple[Any, ...]) -> Iterator[tuple[Any, Deviation]]:
    """Every (row, deviation) of a table, nested dice rolls included, in reading order."""
    for row in rows:
        dev = getattr(row, "deviation", None)
        if dev is not None:
            yield row, dev
        nested = row.rolls if isinstance(row, DiceEntry) else row.roll if isinstance(row, Roll) else ()
        yield from deviations(nested)
