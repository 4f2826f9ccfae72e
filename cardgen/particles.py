"""The physics reference data every game shares: particles (``data/particles.yaml``) and colour
charges (``data/colours.yaml``).

Values are kept exactly as the data author wrote them (digits included) so that a printed value
can be traced to its line in the data and compared with PDG at the precision it was printed.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Iterable, Iterator, Mapping

from . import schema as S
from .errors import InputError, Location, did_you_mean
from .yamlcache import load_yaml
from .yamlsrc import YMap

KINDS = ("quark", "lepton", "gauge boson", "scalar")
MASS_UNITS = {"eV": 1e-6, "keV": 1e-3, "MeV": 1.0, "GeV": 1e3, "TeV": 1e6}
TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "ps": 1e-12, "fs": 1e-15,
              "as": 1e-18, "ys": 1e-24}
LEPTON_FAMILIES = ("e", "mu", "tau")

_SUB = str.maketrans("0123456789+-=()aehklmnoprstuvxəβγρφχ",
                     "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕₖₗₘₙₒₚᵣₛₜᵤᵥₓₔᵦᵧᵨᵩᵪ")
_SUP = str.maketrans("0123456789+-=()", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾")
OVERLINE = "\u0305"


@dataclass(frozen=True)
class Symbol:
    """A particle symbol as structure (base letter, overbar, sub- and superscript), not a baked
    string, so templates can typeset each part and text exports can fall back gracefully."""

    base: str
    bar: bool = False
    sub: str = ""
    sup: str = ""

    def unicode(self) -> str:
        """Single-line Unicode form, e.g. 'ν̄ₑ' or 'W⁺' (used in CLI output and reports)."""
        out = self.base + (OVERLINE * len(self.base) if self.bar else "")
        if self.sub:
            sub = self.sub.translate(_SUB)
            out += sub if all(c != o for c, o in zip(sub, self.sub)) else f"_{self.sub}"
        if self.sup:
            out += self.sup.translate(_SUP)
        return out


@dataclass(frozen=True)
class Design:
    """A value the data declares as deliberately not PDG's (``design: {reason: ...}``): the
    checker lists it as a choice with this reason instead of comparing it with PDG."""

    reason: str
    location: Location


@dataclass(frozen=True)
class Measured:
    """A physical value with its unit as written in the data.

    ``digits`` is the literal the author typed (e.g. '172.6'), used to compare with PDG at the
    printed precision. ``upper_limit`` marks values such as neutrino masses that are only bounded.
    ``where`` holds the position of each key (value, plus, minus) and ``literals`` the text of
    the uncertainties as written, so each can be checked at its own precision and reported at
    its own line.
    """

    value: float
    unit: str
    digits: str
    plus: float | None = None
    minus: float | None = None
    upper_limit: bool = False
    design: Design | None = None
    location: Location | None = None
    where: Mapping[str, Location] = field(default_factory=dict)
    literals: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Lifetime:
    """Mean lifetime; ``stable`` means infinite (it beats every finite lifetime in the games).

    ``proxy_pdg_id`` names the hadron whose lifetime stands in for a confined quark's (a design
    choice the checker still verifies against that hadron); ``width`` is the decay width the
    lifetime was computed from (ħ/Γ), when PDG measures the width rather than the lifetime."""

    stable: bool
    measured: Measured | None = None
    proxy_pdg_id: int | None = None
    design: Design | None = None
    width: Measured | None = None
    location: Location | None = None

    @property
    def seconds(self) -> float:
        if self.stable or self.measured is None:
            return math.inf
        return self.measured.value * TIME_UNITS[self.measured.unit]


@dataclass(frozen=True)
class Particle:
    id: str
    pdg_id: int
    name: str
    symbol: Symbol
    kind: str
    generation: int | None
    charge: Fraction
    spin: Fraction
    colour_charged: bool
    baryon_number: Fraction
    lepton_numbers: Mapping[str, int]
    mass: Measured
    lifetime: Lifetime
    antiparticle: str
    source: str
    location: Location
    #: position of each key's value (charge, spin, ...), so a finding points at the value itself
    where: Mapping[str, Location] = field(default_factory=dict, compare=False)

    @functools.cached_property
    def is_fermion(self) -> bool:
        return self.spin.denominator == 2

    @property
    def is_anti(self) -> bool:
        """Antimatter by the PDG sign convention (negative id, for particles that have a partner)."""
        return self.pdg_id < 0

    @property
    def category(self) -> str:
        """quark, antiquark, lepton, antilepton or boson: the split decks are usually counted by."""
        if self.kind in ("quark", "lepton"):
            return ("anti" if self.is_anti else "") + self.kind
        return "boson"

    @property
    def mass_mev(self) -> float:
        return self.mass.value * MASS_UNITS[self.mass.unit]

    @property
    def least_mass_mev(self) -> float:
        """The least mass the data allows: the measured mass, or 0 for a mass only bounded from
        above ('< 0.8 eV' says at most 0.8 eV). Thresholds use it, so a bound never counts as a mass."""
        return 0.0 if self.mass.upper_limit else self.mass_mev

    def quantum_number(self, name: str) -> Fraction:
        """Additive quantum numbers by name, for conservation checks declared in data."""
        numerator, denominator = self._quanta[name] if name in QUANTUM_NUMBERS else self._quantum_pair(name)
        return Fraction(numerator, denominator)

    @functools.cached_property
    def _quanta(self) -> dict[str, tuple[int, int]]:
        """Every additive quantum number as (numerator, denominator) in lowest terms, worked out
        once per particle: the check gate's conservation rules ask for them some ten thousand
        times for one game, and made a Fraction of a lepton number each time."""
        return {name: self._quantum_pair(name) for name in QUANTUM_NUMBERS}

    def _quantum_pair(self, name: str) -> tuple[int, int]:
        value = self._quantum(name)
        return value.numerator, value.denominator

    def _quantum(self, name: str) -> Fraction:
        if name == "charge":
            return self.charge
        if name == "baryon_number":
            return self.baryon_number
        if name.startswith("lepton_") and name[7:] in LEPTON_FAMILIES:
            return Fraction(self.lepton_numbers.get(name[7:], 0))
        if name == "lepton_number":
            return Fraction(sum(self.lepton_numbers.values()))
        raise KeyError(name)


QUANTUM_NUMBERS = ("charge", "baryon_number", "lepton_e", "lepton_mu", "lepton_tau", "lepton_number")


def quantum_total(particles: Iterable[Particle], name: str) -> Fraction:
    """The sum of an additive quantum number over ``particles``, exact. Summed as integers over
    a common denominator from each particle's (numerator, denominator), one Fraction made at
    the end: adding Fractions one by one reduces every partial sum by a gcd, and the
    conservation rules add thousands of them for one game (a quarter of the check gate's time
    on Particle Builder went to making and adding them)."""
    return Fraction(*_quantum_sum(particles, name))


def quantum_zero(particles: Iterable[Particle], name: str) -> bool:
    """Whether ``quantum_total(particles, name) == 0``, without making the Fraction: the
    conservation rules ask it of thousands of vertices and decays for one game."""
    return _quantum_sum(particles, name)[0] == 0


def quantum_equal(these: Iterable[Particle], those: Iterable[Particle], name: str) -> bool:
    """Whether the two sets total the same of an additive quantum number (see :func:`quantum_zero`)."""
    a, a_common = _quantum_sum(these, name)
    b, b_common = _quantum_sum(those, name)
    return a * b_common == b * a_common


def _quantum_sum(particles: Iterable[Particle], name: str) -> tuple[int, int]:
    """The sum as (numerator, denominator), not reduced (the denominator is positive)."""
    total, common = 0, 1
    for p in particles:
        numerator, denominator = p._quanta[name]
        if denominator != common:
            joint = math.lcm(common, denominator)
            total, common = total * (joint // common), joint
        total += numerator * (common // denominator)
    return total, common


@dataclass(frozen=True)
class ColourCharge:
    """A colour charge (red, anti-red, ...) with its print colour and colour-blind-safe cue."""

    id: str
    name: str
    letter: str
    anti: str
    additive: tuple[int, int, int]
    hue: float
    print_colour: str
    pattern: str
    location: Location
    #: the ink deliberately departs from the colour's hue (``design: {reason: ...}`` on the
    #: entry: a colour-vision reason, say); the colour-wheel check lists it as a choice
    ink_design: Design | None = None
    print_location: Location | None = None
    #: where each cue is written (``letter``, ``pattern``, ``print``): a cue two colours share
    #: is reported at its own line
    cue_locations: dict[str, Location] = field(default_factory=dict, compare=False)

    @property
    def is_anti(self) -> bool:
        return sum(self.additive) == 2


@dataclass
class PhysicsData:
    """Particles and colour charges, indexed by id."""

    particles: dict[str, Particle] = field(default_factory=dict)
    colours: dict[str, ColourCharge] = field(default_factory=dict)
    source_files: tuple[Path, ...] = ()

    def particle(self, pid: str, loc: Location) -> Particle:
        try:
            return self.particles[pid]
        except KeyError:
            raise InputError(f"unknown particle '{pid}'{self._meant(pid)}", loc,
                             "use an id from data/particles.yaml (cardgen list --particles shows them)") from None

    def _meant(self, pid: str) -> str:
        """A ' — did you mean …?' for an unknown particle id: the particles it most likely
        names — an id in other letters ('E-', 'z0'), a particle's name ('electron', 'up',
        'Higgs', 'photon'), an id without its charge ('W', 'mu') or a close spelling of an id
        or name — with their names; '' if none."""
        import difflib

        by: dict[str, str] = {}   # what a designer may write → the id it stands for
        for p in self.particles.values():
            name = p.name.lower()
            for alias in (p.id.lower(), name, name.removesuffix(" quark").removesuffix(" boson")):
                by.setdefault(alias, p.id)
        key = str(pid).strip().lower()
        charged = [p.id for p in self.particles.values() if p.id.lower().rstrip("+-0") == key != p.id.lower()]
        found = ([by[key]] if key in by else charged
                 or [by[m] for m in difflib.get_close_matches(key, list(by), n=3, cutoff=0.75)])
        ids = list(dict.fromkeys(found))
        if not ids:
            return ""
        shown = [f"'{i}' ({self.particles[i].name})" for i in ids]
        return f" — did you mean {shown[0] if len(shown) == 1 else ', '.join(shown[:-1]) + ' or ' + shown[-1]}?"

    def colour(self, cid: str, loc: Location) -> ColourCharge:
        try:
            return self.colours[cid]
        except KeyError:
            raise InputError(f"unknown colour charge '{cid}'{did_you_mean(cid, self.colours)}", loc,
                             f"use one of: {', '.join(self.colours)}") from None

    def anti(self, pid: str) -> Particle:
        return self.particles[self.particles[pid].antiparticle]

    def __iter__(self) -> Iterator[Particle]:
        return iter(self.particles.values())


# --- reading ------------------------------------------------------------------------------

_DESIGN_HINT = 'write design: {reason: "why this value is not PDG\'s"}'


def design_choice(value: object, loc: Location, raw: str | None = None) -> Design:
    """``design: {reason: ...}``: the declaration that a value deliberately differs from PDG."""
    if not isinstance(value, YMap):
        raise InputError(f"a design choice must say why, found {S.type_name(value)}", loc, _DESIGN_HINT)
    f = S.Fields(value, "a design choice", loc)
    reason = f.get("reason", S.text)
    f.finish()
    if not reason.strip():
        raise InputError("the reason of a design choice is empty", value.where("reason"), _DESIGN_HINT)
    return Design(reason.strip(), value.where("reason"))


def _no_note(f: S.Fields) -> None:
    """``note:`` used to hold design choices as free text the checker could not read."""
    if f.has("note"):
        raise InputError("'note' is not read here: a value that deliberately differs from PDG is declared "
                         "as a design choice", f.map.key_where("note"), f"replace the note: {_DESIGN_HINT}")


def _read_measured(f: S.Fields, units: Mapping[str, float]) -> Measured:
    """Read value-or-upper_limit, unit, uncertainties and design choice from an open field reader."""
    _no_note(f)
    unit = f.get("unit", S.choice(units))
    upper = f.has("upper_limit")
    if upper and f.has("value"):
        raise InputError("give either 'value' or 'upper_limit', not both", f.map.key_where("value"),
                         "remove one of the two")
    key = "upper_limit" if upper else "value"
    amount = f.get(key, S.number(minimum=0))
    digits = f.map.raw.get(key, str(amount))
    plus = f.get("plus", S.number(minimum=0), None)
    minus = f.get("minus", S.number(minimum=0), None)
    where = {k: f.map.where(k) for k in (key, "plus", "minus") if f.has(k)}
    literals = {k: f.map.raw.get(k, str(f.map[k])) for k in ("plus", "minus") if f.has(k)}
    return Measured(amount, unit, digits, plus, minus, upper, f.get("design", design_choice, None), f.map.where(key),
                    where, literals)


def _mass(value: object, loc: Location, raw: str | None) -> Measured:
    f = S.Fields(value, "a mass", loc)
    measured = _read_measured(f, MASS_UNITS)
    f.finish()
    return measured


def _width(value: object, loc: Location, raw: str | None) -> Measured:
    f = S.Fields(value, "a decay width", loc)
    measured = _read_measured(f, MASS_UNITS)
    f.finish()
    if measured.upper_limit:
        raise InputError("a width the lifetime is computed from must be a value, not a limit",
                         f.map.key_where("upper_limit"), "write 'value:' or leave the width out")
    return measured


def _lifetime(value: object, loc: Location, raw: str | None) -> Lifetime:
    if value == "stable":
        return Lifetime(stable=True, location=loc)
    f = S.Fields(value, "a lifetime ('stable' or value + unit)", loc)
    if f.map.get("value") == "stable":
        _no_note(f)
        f.get("value", S.anything)
        design = f.get("design", design_choice, None)
        f.finish()
        return Lifetime(stable=True, design=design, location=f.map.where("value"))
    proxy = f.get("proxy_pdg_id", S.integer(), None)
    width = f.get("width", _width, None)
    measured = _read_measured(f, TIME_UNITS)
    f.finish()
    if proxy is not None and measured.design is None:
        raise InputError("a stand-in hadron's lifetime is a design choice and needs its reason",
                         f.map.key_where("proxy_pdg_id"), f"declare it: {_DESIGN_HINT}")
    return Lifetime(stable=False, measured=measured, proxy_pdg_id=proxy, design=measured.design, width=width,
                    location=measured.location)


def _symbol(value: object, loc: Location, raw: str | None) -> Symbol:
    f = S.Fields(value, "a symbol", loc)
    sym = Symbol(f.get("base", S.text), f.get("bar", S.boolean, False), f.get("sub", S.text, ""),
                 f.get("sup", S.text, ""))
    f.finish()
    return sym


def _lepton_numbers(value: object, loc: Location, raw: str | None) -> dict[str, int]:
    f = S.Fields(value, "lepton family numbers", loc)
    out = {fam: f.get(fam, S.integer(-1, 1), 0) for fam in LEPTON_FAMILIES}
    f.finish()
    return out


def _particle(item: object, loc: Location) -> Particle:
    f = S.Fields(item, "a particle", loc)
    _no_note(f)
    generation = f.get("generation", S.integer(1, 3), None)
    p = Particle(
        id=f.get("id", S.ident),
        pdg_id=f.get("pdg_id", S.integer()),
        name=f.get("name", S.text),
        symbol=f.get("symbol", _symbol),
        kind=f.get("kind", S.choice(KINDS)),
        generation=generation,
        charge=f.get("charge", S.fraction),
        spin=f.get("spin", S.fraction),
        colour_charged=f.get("colour_charged", S.boolean),
        baryon_number=f.get("baryon_number", S.fraction),
        lepton_numbers=f.get("lepton_numbers", _lepton_numbers, {fam: 0 for fam in LEPTON_FAMILIES}),
        mass=f.get("mass", _mass),
        lifetime=f.get("lifetime", _lifetime),
        antiparticle=f.get("antiparticle", S.ident),
        source=f.get("source", S.text),
        location=f.loc,
        where=dict(f.map.value_locs),
    )
    f.finish()
    return p


def _colour(item: object, loc: Location) -> ColourCharge:
    f = S.Fields(item, "a colour charge", loc)
    additive = f.get("additive", S.seq_of(S.integer(0, 1), min_items=3, what="RGB triple"))
    if len(additive) != 3:
        raise InputError("additive must have exactly 3 entries (R, G, B)", f.map.where("additive"),
                         "write e.g. [1, 0, 0]")
    c = ColourCharge(
        id=f.get("id", S.ident), name=f.get("name", S.text), letter=f.get("letter", S.text),
        anti=f.get("anti", S.ident), additive=tuple(additive), hue=f.get("hue", S.number(0, 360)),
        print_colour=f.get("print", S.text), pattern=f.get("pattern", S.text), location=f.loc,
        ink_design=f.get("design", design_choice, None), print_location=f.map.where("print"),
        cue_locations={key: f.map.where(key) for key in ("letter", "pattern", "print")})
    f.finish()
    return c


def _unique(items: list, what: str) -> dict:
    out: dict = {}
    for obj in items:
        if obj.id in out:
            raise InputError(f"duplicate {what} id '{obj.id}' (first at line {out[obj.id].location.line})",
                             obj.location, "give each entry its own id")
        out[obj.id] = obj
    return out


def load_physics(data_dir: Path) -> PhysicsData:
    """Load ``particles.yaml`` and ``colours.yaml`` from a data folder and cross-check links."""
    ppath, cpath = data_dir / "particles.yaml", data_dir / "colours.yaml"
    pdoc = load_yaml(ppath)
    pf = S.Fields(pdoc, "particles.yaml", pdoc.loc if isinstance(pdoc, YMap) else Location(str(ppath)))
    plist = pf.get("particles", S.sequence)
    pf.get("source", S.text, "")
    pf.finish()
    particles = _unique([_particle(item, plist.where(i)) for i, item in enumerate(plist)], "particle")

    cdoc = load_yaml(cpath)
    cf = S.Fields(cdoc, "colours.yaml", cdoc.loc if isinstance(cdoc, YMap) else Location(str(cpath)))
    clist = cf.get("colour_charges", S.sequence)
    cf.finish()
    colours = _unique([_colour(item, clist.where(i)) for i, item in enumerate(clist)], "colour charge")

    for p in particles.values():
        if p.antiparticle not in particles:
            raise InputError(f"antiparticle '{p.antiparticle}' of '{p.id}' is not defined"
                             f"{did_you_mean(p.antiparticle, particles)}", p.location,
                             "add the antiparticle or fix the id")
    for c in colours.values():
        if c.anti not in colours:
            raise InputError(f"anti-colour '{c.anti}' of '{c.id}' is not defined{did_you_mean(c.anti, colours)}",
                             c.location, "fix the id")
    return PhysicsData(particles, colours, (ppath, cpath))
