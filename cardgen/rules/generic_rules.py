"""Rules every game must pass, whatever it is about."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterator

from ..errors import Finding, Location, display_path
from ..model import Component, Game, Table
from ..paper import STANDARD_SIZES as PAPERS
from ..particles import Particle
from ..proof import Proof
from ..templatefiles import template_file, within
from . import generic
from .common import fmt_fraction, pdg_agrees

#: The margin a home printer leaves; a card that does not fit inside it cannot be printed.
PRINTER_MARGIN_MM = 5.0


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _every(n: int, noun: str) -> str:
    """'the component' or 'each of the 6 components' (the subject of a proof's sentence)."""
    return f"the {noun}" if n == 1 else f"each of the {n} {noun}s"


@generic("template-exists")
def templates_exist(game: Game) -> Iterator[Finding | Proof]:
    """A component without its template cannot be rendered: catch it before a build does."""
    sides, missing = 0, False
    for comp in game.components.values():
        for side, name in (("front", comp.front), ("back", comp.back)):
            if name is None:
                continue
            sides += 1
            if _linked_out(game, name):
                missing = True
                yield Finding("template-exists", f"{side} template '{name}' of component '{comp.id}' is a link to a "
                              f"file outside {display_path(game.templates_dir)}: the renderer will not read it",
                              comp.where(side), f"copy the file itself into {display_path(game.templates_dir)} in "
                              "place of the link", game.id)
            elif not (game.templates_dir / name).is_file():
                missing = True
                yield Finding("template-exists", f"{side} template '{name}' of component '{comp.id}' not found in "
                              f"{display_path(game.templates_dir)}", comp.where(side),
                              f"create {display_path(game.templates_dir / name)} or fix the '{side}:' entry", game.id)
    if not missing:
        yield Proof("template-exists", f"the template of every printed side exists ({_count(sides, 'side')} of "
                    f"{_count(len(game.components), 'component')})", sides, game.id, game.location)


def _linked_out(game: Game, name: str) -> bool:
    """Whether template ``name`` is a link to a file outside the game's templates folder, which
    the renderer's lookup refuses (:mod:`cardgen.templatefiles`; a name through '..' the
    loader has refused already)."""
    from jinja2 import TemplateNotFound

    try:
        path = template_file([game.templates_dir], name)
    except TemplateNotFound:
        return False
    return not within(path, [game.templates_dir.resolve()])


@generic("fits-paper")
def fits_paper(game: Game) -> Iterator[Finding | Proof]:
    """Each component must fit at least one supported paper inside the printer margin, except a
    board of one design: the build tiles that over several sheets to glue (a game mat)."""
    smallest: dict[str, int] = {}   # the smallest paper each component fits -> how many
    tiled = 0
    for comp in game.components.values():
        w, h = comp.width, comp.height
        if comp.kind == "board" and len(comp.cards) == 1:
            tiled += 1
            continue
        fits = [name for name, (pw, ph) in PAPERS.items()
                if any(w <= a - 2 * PRINTER_MARGIN_MM + 1e-9 and h <= b - 2 * PRINTER_MARGIN_MM + 1e-9
                       for a, b in ((pw, ph), (ph, pw)))]
        if not fits:
            yield Finding("fits-paper", f"component '{comp.id}' ({w:g} × {h:g} mm) fits no supported paper "
                          f"({', '.join(PAPERS)}) within a {PRINTER_MARGIN_MM:g} mm printer margin", comp.where("size"),
                          "make it smaller or split it into tiles", game.id)
        else:
            paper = min(fits, key=lambda name: PAPERS[name][0] * PAPERS[name][1])
            smallest[paper] = smallest.get(paper, 0) + 1
    if sum(smallest.values()) + tiled == len(game.components):
        on = ", ".join(f"{n} on {name.upper() if name[:1] in 'ab' else name}" for name, n in smallest.items())
        boards = f"; {tiled} board{'s' if tiled != 1 else ''} tiled over several sheets" if tiled else ""
        yield Proof("fits-paper", f"{_every(len(game.components), 'component')} fits a supported sheet inside a "
                    f"{PRINTER_MARGIN_MM:g} mm printer margin (smallest: {on}{boards})", len(game.components),
                    game.id, game.location)


#: How far (degrees) the corners meeting at a vertex may fall short of, or overlap, a full turn.
TURN_TOLERANCE_DEG = 0.5


def line_corners(comp: Component) -> tuple[float, float]:
    """(the corner angle at each end of a lozenge card's particle line, the line's length). The
    line joins the two obtuse corners, the short diagonal ('angle' is that of the left and right
    corners: an obtuse one puts the line across the width, an acute one along the height; a
    square's runs across the width): those corners are where the card meets others at a vertex."""
    s = comp.shape
    angle = s.angle if s.angle is not None else s.lozenge_angle(comp.width, comp.height)
    return (angle, comp.width) if angle >= 90 else (180 - angle, comp.height)


def _vertex_tables(game: Game) -> dict[str, list[tuple[Table, int]]]:
    """For each line-types table, the vertex tables over it with each number of lines their
    vertices join (3 in a Feynman diagram: 'a vertex joins exactly 3 lines')."""
    found: dict[str, list[tuple[Table, int]]] = {}
    for table in game.tables.values():
        if table.kind == "vertices":
            for n in sorted({len(v.lines) for v in table.rows}):
                found.setdefault(table.options["line_types"], []).append((table, n))
    return found


def _meeting(corner: float) -> str:
    """How cards meet around a point with this corner: '4 cards meet (4 × 90° = 360°)'."""
    k = round(360 / corner)
    if abs(k * corner - 360) <= TURN_TOLERANCE_DEG:
        return f"{k} cards meet ({k} × {corner:g}° = 360°)"
    k = math.floor(360 / corner)
    return f"{k} cards leave a {360 - k * corner:.3g}° gap and {k + 1} overlap"


def _tiling(game: Game, comp: Component, vertex_tables: dict[str, list[tuple[Table, int]]]) -> Iterator[Finding | str]:
    """Lozenge cards whose particle lines are a vertex table's line types meet n at a vertex only
    if the corners at the ends of each line are 360°/n: three 120° corners for a Feynman vertex of
    three lines, and then six 60° corners close a hexagonal loop (the honeycomb the placement and
    score-token rules count on). A finding at the component's 'shape', or what was proved."""
    if comp.shape.type != "lozenge":
        return
    lines = {spec.table for spec in comp.fields.values() if spec.type == "ref" and spec.table in vertex_tables}
    corner, _ = line_corners(comp)
    side = math.hypot(comp.width, comp.height) / 2
    for table, n in (tn for lt in lines for tn in vertex_tables[lt]):
        want = 360 / n
        if abs(n * corner - 360) > TURN_TOLERANCE_DEG:
            w, h = (round(2 * side * f(math.radians(want / 2)), 3) for f in (math.cos, math.sin))
            yield Finding("shape-geometry", f"the line of a '{comp.id}' card ends at its {corner:g}° corners, where "
                          f"{_meeting(corner)}; but a vertex of '{table.id}' joins {n} lines, and {n} cards meet at a "
                          f"vertex only if those corners are 360°/{n} = {want:g}°", comp.where("shape"),
                          f"set angle: {want:g} and size: {{width: {w:g}, height: {h:g}}} (the same "
                          f"{round(side, 3):g} mm sides; the line then joins the two {want:g}° corners)", game.id)
        else:
            yield (f"{n} '{comp.id}' cards meet at each vertex of '{table.id}' ({n} × {corner:g}° = 360°) and "
                   f"{round(360 / (180 - corner))} close a loop around their {180 - corner:g}° corners")


@generic("shape-geometry")
def shape_geometry(game: Game) -> Iterator[Finding | Proof]:
    """A lozenge's declared angle and a hexagon's regularity must match the trim size to 0.1 mm,
    otherwise cards that are meant to tile (Tutti Quantum) leave gaps on the table; and lozenge
    cards whose lines meet at a game's vertices must meet there as many as a vertex has lines."""
    shaped: list[str] = []   # shapes whose geometry was checked against the trim size
    tiles: list[str] = []    # how lozenge cards meet at the vertices of a game's diagrams
    wrong = False
    vertex_tables = _vertex_tables(game)
    for comp in game.components.values():
        s, w, h = comp.shape, comp.width, comp.height
        for tiled in _tiling(game, comp, vertex_tables):
            if isinstance(tiled, Finding):
                wrong = True
                yield tiled
            else:
                tiles.append(tiled)
        if s.type == "lozenge" and s.angle is not None:
            shaped.append(f"the {s.angle:g}° lozenges of '{comp.id}'")
            want_h = w * math.tan(math.radians(s.angle / 2))
            if abs(want_h - h) > 0.1:
                wrong = True
                yield Finding("shape-geometry", f"lozenge of {w:g} × {h:g} mm has {s.lozenge_angle(w, h):.2f}° corners, "
                              f"not the declared {s.angle:g}°", comp.where("shape"),
                              f"set the height to {want_h:.3f} mm or the angle to {s.lozenge_angle(w, h):.2f}", game.id)
        if s.type == "hexagon":
            shaped.append(f"the regular hexagons of '{comp.id}'")
            long_side, short_side = (h, w) if s.pointy else (w, h)
            want = long_side * math.sqrt(3) / 2
            if abs(want - short_side) > 0.1:
                wrong = True
                yield Finding("shape-geometry", f"hexagon of {w:g} × {h:g} mm is not regular", comp.where("size"),
                              f"set the {'width' if s.pointy else 'height'} to {want:.3f} mm", game.id)
        if comp.safe * 2 >= min(w, h):
            wrong = True
            yield Finding("shape-geometry", f"safe margin {comp.safe:g} mm leaves no room on a {w:g} × {h:g} mm card",
                          comp.where("safe"), "reduce 'safe'", game.id)
    if not wrong:
        shapes = f"; {' and '.join(shaped)} match their trim size to 0.1 mm" if shaped else ""
        met = "".join(f"; {t}" for t in tiles)
        yield Proof("shape-geometry", f"the safe margin of {_every(len(game.components), 'component')} leaves "
                    f"room to print{shapes}{met}", len(game.components), game.id, game.location)


@dataclass(frozen=True)
class _Mismatch:
    """One way an antiparticle fails to mirror its particle: what differs, where the value to
    correct is written, and how to correct it."""

    text: str
    location: Location
    fix: str


def _value_at(p: Particle, key: str) -> Location:
    """Where ``key``'s value is written in ``p``'s entry (a mass's or lifetime's own value)."""
    if key == "mass":
        return p.mass.location or p.location
    if key == "lifetime":
        return p.lifetime.location or p.location
    return p.where.get(key, p.location)


def _mass_text(p: Particle) -> str:
    return f"{'< ' if p.mass.upper_limit else ''}{p.mass.digits} {p.mass.unit}"


def _lifetime_text(p: Particle) -> str:
    lt = p.lifetime
    return "stable" if lt.stable or lt.measured is None else f"{lt.measured.digits} {lt.measured.unit}"


def _blamed(p: Particle, a: Particle, key: str) -> tuple[Particle, Particle]:
    """(the entry holding the mistake, the one to copy from) for a quantity ``p`` and its
    antiparticle ``a`` disagree on: ``p`` when PDG disagrees with it and not with ``a``, else ``a``."""
    if pdg_agrees(p, key) is False and pdg_agrees(a, key) is not False:
        return p, a
    return a, p


def _unequal(p: Particle, a: Particle, key: str, shown: Callable[[Particle], str]) -> _Mismatch:
    """A quantity a particle and its antiparticle must share but do not, blamed as
    :func:`_blamed` says."""
    wrong, right = _blamed(p, a, key)
    other = _value_at(right, key)
    return _Mismatch(f"'{wrong.id}' has {key} {shown(wrong)}, but its {'anti' if wrong is p else ''}particle "
                     f"'{right.id}' has {shown(right)} (line {other.line}): a particle and its antiparticle have "
                     f"equal {key}", _value_at(wrong, key),
                     f"write {key}: {shown(right)} on '{wrong.id}'" if pdg_agrees(right, key) else
                     f"write the same {key} on '{wrong.id}' and '{right.id}'")


def _mirror_problems(p: Particle, a: Particle) -> list[_Mismatch]:
    """How antiparticle ``a`` fails to mirror ``p``: opposite PDG id and additive quantum
    numbers; equal mass, spin, lifetime, kind, colour charge and generation. Each names the
    quantity, both values, and the line of the value to correct."""
    expected_pdg = p.pdg_id if a.id == p.id else -p.pdg_id
    problems = []
    if a.pdg_id != expected_pdg:
        problems.append(_Mismatch(f"'{a.id}' has PDG id {a.pdg_id}, but as the antiparticle of '{p.id}' (PDG id "
                                  f"{p.pdg_id}) it must have {expected_pdg}", _value_at(a, "pdg_id"),
                                  f"write pdg_id: {expected_pdg} on '{a.id}' (or correct '{p.id}')"))
    for q in ("charge", "baryon_number", "lepton_e", "lepton_mu", "lepton_tau"):
        if a.quantum_number(q) != -p.quantum_number(q) and a.id != p.id:
            key = "lepton_numbers" if q.startswith("lepton_") else q
            wrong, right = _blamed(p, a, q)
            name = q.replace("_", " ")
            problems.append(_Mismatch(f"'{wrong.id}' has {name} {fmt_fraction(wrong.quantum_number(q))} and its "
                                      f"{'anti' if wrong is p else ''}particle '{right.id}' has "
                                      f"{fmt_fraction(right.quantum_number(q))} (line {_value_at(right, key).line}): "
                                      f"the {name} is not opposite, as a particle's and its antiparticle's must be",
                                      _value_at(wrong, key),
                                      f"write {fmt_fraction(-right.quantum_number(q))} as the {name} of '{wrong.id}'"
                                      + ("" if pdg_agrees(right, q) else f" (or correct '{right.id}')")))
    if a.id == p.id:
        charged = [q for q in ("charge", "baryon_number", "lepton_number") if p.quantum_number(q) != 0]
        if charged:
            problems.append(_Mismatch(f"'{p.id}' is its own antiparticle, but has {charged[0].replace('_', ' ')} "
                                      f"{fmt_fraction(p.quantum_number(charged[0]))}: only a particle with no "
                                      f"charges is", _value_at(p, "antiparticle"),
                                      f"name its antiparticle's entry in 'antiparticle', or correct its "
                                      f"{charged[0].replace('_', ' ')}"))
        return problems
    if (a.mass.value, a.mass.unit, a.mass.upper_limit) != (p.mass.value, p.mass.unit, p.mass.upper_limit):
        problems.append(_unequal(p, a, "mass", _mass_text))
    if a.spin != p.spin:
        problems.append(_unequal(p, a, "spin", lambda x: fmt_fraction(x.spin)))
    if a.lifetime.seconds != p.lifetime.seconds:
        problems.append(_unequal(p, a, "lifetime", _lifetime_text))
    for key in ("kind", "colour_charged", "generation"):
        if getattr(a, key) != getattr(p, key):
            problems.append(_Mismatch(f"'{a.id}' has {key} {getattr(a, key)}, but its particle '{p.id}' has "
                                      f"{getattr(p, key)} (line {_value_at(p, key).line}): a particle and its "
                                      f"antiparticle have equal {key}", _value_at(a, key),
                                      f"write {key}: {getattr(p, key)} on '{a.id}' (or correct '{p.id}')"))
    return problems


def _not_spin_half(p: Particle) -> _Mismatch | None:
    """A fermion whose spin is not 1/2: the Standard Model has no other."""
    if p.is_fermion and p.spin != Fraction(1, 2):
        return _Mismatch(f"'{p.id}' has spin {fmt_fraction(p.spin)}: fermions in the Standard Model have spin 1/2",
                         _value_at(p, "spin"), "write spin: 1/2")
    return None


@generic("antiparticle-links")
def antiparticle_links(game: Game) -> Iterator[Finding | Proof]:
    """Particle and antiparticle entries must mirror each other exactly (a wrong sign in the data
    would print a wrong charge on a card). Each pair is judged once, the particle's entry
    against its antiparticle's (the one with the positive PDG id first)."""
    physics = game.physics
    wrong = False
    judged: set[frozenset[str]] = set()
    for p in physics:
        a = physics.particles[p.antiparticle]
        if a.antiparticle != p.id:
            wrong = True
            yield Finding("antiparticle-links", f"'{p.id}' names '{a.id}' as antiparticle, but '{a.id}' names "
                          f"'{a.antiparticle}'", _value_at(a, "antiparticle"), f"set antiparticle: {p.id} on '{a.id}'",
                          game.id)
            continue
        odd = _not_spin_half(p)
        if odd is not None:
            wrong = True
            yield Finding("antiparticle-links", odd.text, odd.location, odd.fix, game.id)
        pair = frozenset((p.id, a.id))
        if pair in judged:
            continue
        judged.add(pair)
        first, second = (a, p) if p.pdg_id < 0 < a.pdg_id else (p, a)
        for problem in _mirror_problems(first, second):
            wrong = True
            yield Finding("antiparticle-links", problem.text, problem.location, problem.fix, game.id)
    if not wrong:
        n = len(list(physics))
        yield Proof("antiparticle-links", f"each of the {n} particles and its antiparticle mirror each other: opposite PDG "
                    f"id, charge, baryon and lepton numbers; equal mass, spin, lifetime and kind", n, game.id,
                    game.location)
