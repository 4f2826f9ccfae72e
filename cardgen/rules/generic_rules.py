"""Rules every game must pass, whatever it is about."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Iterator

from ..errors import Finding, Location, display_path
from ..model import Game
from ..paper import STANDARD_SIZES as PAPERS
from ..particles import Particle
from ..proof import Proof
from . import generic

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
            path = game.templates_dir / name
            if not path.is_file():
                missing = True
                yield Finding("template-exists", f"{side} template '{name}' of component '{comp.id}' not found in "
                              f"{display_path(game.templates_dir)}", comp.where(side),
                              f"create {display_path(path)} or fix the '{side}:' entry", game.id)
    if not missing:
        yield Proof("template-exists", f"the template of every printed side exists ({_count(sides, 'side')} of "
                    f"{_count(len(game.components), 'component')})", sides, game.id, game.location)


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


@generic("shape-geometry")
def shape_geometry(game: Game) -> Iterator[Finding | Proof]:
    """A lozenge's declared angle and a hexagon's regularity must match the trim size to 0.1 mm,
    otherwise cards that are meant to tile (Tutti Quantum) leave gaps on the table."""
    shaped: list[str] = []   # shapes whose geometry was checked against the trim size
    wrong = False
    for comp in game.components.values():
        s, w, h = comp.shape, comp.width, comp.height
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
        yield Proof("shape-geometry", f"the safe margin of {_every(len(game.components), 'component')} leaves "
                    f"room to print{shapes}", len(game.components), game.id, game.location)


def _mirror_problems(p: Particle, a: Particle) -> list[str]:
    """How antiparticle ``a`` fails to mirror ``p``: opposite PDG id and additive quantum
    numbers; equal mass, spin, lifetime, kind, colour charge and generation."""
    expected_pdg = p.pdg_id if a.id == p.id else -p.pdg_id
    problems = []
    if a.pdg_id != expected_pdg:
        problems.append(f"PDG id {a.pdg_id} should be {expected_pdg}")
    for q in ("charge", "baryon_number", "lepton_e", "lepton_mu", "lepton_tau"):
        if a.quantum_number(q) != -p.quantum_number(q):
            problems.append(f"{q} is not opposite")
    if a.id == p.id and any(p.quantum_number(q) != 0 for q in ("charge", "baryon_number", "lepton_number")):
        problems.append("a particle with charges cannot be its own antiparticle")
    if (a.mass.value, a.mass.unit) != (p.mass.value, p.mass.unit) or a.spin != p.spin:
        problems.append("mass and spin must be equal")
    if a.lifetime.seconds != p.lifetime.seconds:
        problems.append("lifetimes must be equal")
    if a.kind != p.kind or a.colour_charged != p.colour_charged or a.generation != p.generation:
        problems.append("kind, colour charge and generation must be equal")
    if p.is_fermion and p.spin != Fraction(1, 2):
        problems.append("fermions in the Standard Model have spin 1/2")
    return problems


@generic("antiparticle-links")
def antiparticle_links(game: Game) -> Iterator[Finding | Proof]:
    """Particle and antiparticle entries must mirror each other exactly (a wrong sign in the data
    would print a wrong charge on a card)."""
    physics = game.physics
    wrong = False
    for p in physics:
        a = physics.particles[p.antiparticle]
        loc: Location = p.location
        if a.antiparticle != p.id:
            wrong = True
            yield Finding("antiparticle-links", f"'{p.id}' names '{a.id}' as antiparticle, but '{a.id}' names "
                          f"'{a.antiparticle}'", loc, f"set antiparticle: {p.id} on '{a.id}'", game.id)
            continue
        problems = _mirror_problems(p, a)
        wrong = wrong or bool(problems)
        for problem in problems:
            yield Finding("antiparticle-links", f"'{p.id}' and its antiparticle '{a.id}': {problem}", loc,
                          "correct particles.yaml", game.id)
    if not wrong:
        n = len(list(physics))
        yield Proof("antiparticle-links", f"each of the {n} particles and its antiparticle mirror each other: opposite PDG "
                    f"id, charge, baryon and lepton numbers; equal mass, spin, lifetime and kind", n, game.id,
                    game.location)
