"""The Standard Model's tree-level vertices, derived from particle properties.

Every reaction a game prints (a decay, an annihilation, a transformation, a wild card's flavour
change, a Feynman-diagram vertex) must be drawn with these vertices. Nothing here is a list of
allowed reactions: a vertex exists because of what its particles carry —

* the photon couples to electric charge (f f̄ γ for charged fermions, W⁺W⁻γ);
* the gluon couples to colour (q q̄ g, and to itself: g g g);
* the Z couples to every fermion with its antifermion (neutrinos included) and to W⁺W⁻;
* the W changes a fermion into its weak-doublet partner: an up-type quark into any down-type
  quark (CKM mixing crosses generations), a charged lepton into the neutrino of its own family;
* the Higgs couples to mass: massive fermions, W⁺W⁻, Z Z, and itself (H H H).

Vertices are read with every line *incoming* (an outgoing particle is an incoming antiparticle),
so one vertex covers every way of drawing it: ``couples(e⁻, e⁺, γ)`` is e⁺e⁻ → γ, e⁻ → e⁻ γ and
γ → e⁻ e⁺ at once. Each vertex conserves charge, baryon number and every lepton family number.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from typing import Iterable, Sequence

from ..particles import LEPTON_FAMILIES, Particle, PhysicsData, quantum_zero

# |V_ij| of the CKM matrix, rows u c t, columns d s b (PDG 2024 review "CKM quark-mixing matrix",
# global fit). The generation of each quark picks its row or column.
CKM_MAGNITUDES = ((0.97435, 0.22501, 0.003732),
                  (0.22487, 0.97349, 0.04183),
                  (0.00858, 0.04111, 0.999118))


def is_massive(p: Particle) -> bool:
    """Has a measured mass (a neutrino's mass is only bounded: the Higgs does not couple to it in
    the Standard Model)."""
    return p.mass.value > 0 and not p.mass.upper_limit


def is_photon(b: Particle) -> bool:
    return b.kind == "gauge boson" and b.charge == 0 and not b.colour_charged and not is_massive(b)


def is_gluon(b: Particle) -> bool:
    return b.kind == "gauge boson" and b.colour_charged


def is_z(b: Particle) -> bool:
    return b.kind == "gauge boson" and b.charge == 0 and not b.colour_charged and is_massive(b)


def is_w(b: Particle) -> bool:
    return b.kind == "gauge boson" and b.charge != 0


def is_higgs(b: Particle) -> bool:
    return b.kind == "scalar" and b.charge == 0 and is_massive(b)


def is_up_type(q: Particle) -> bool:
    """u, c, t (and their antiparticles): the upper member of a quark doublet."""
    return q.kind == "quark" and abs(q.charge) == Fraction(2, 3)


def _conserved(parts: Sequence[Particle]) -> bool:
    """Charge, baryon number and each lepton family number sum to zero (all lines incoming)."""
    return all(quantum_zero(parts, q)
               for q in ("charge", "baryon_number", *(f"lepton_{fam}" for fam in LEPTON_FAMILIES)))


def _pair(a: Particle, b: Particle) -> bool:
    """a and b are particle and antiparticle of each other (so the pair is neutral in everything)."""
    return a.antiparticle == b.id


def fermion_couples(f: Particle, b: Particle) -> bool:
    """Does the vertex f f̄ b exist for a neutral boson b? Photons couple to electric charge,
    gluons to colour, the Z to every fermion, the Higgs to mass (Yukawa)."""
    if not f.is_fermion:
        return False
    if is_photon(b):
        return f.charge != 0
    if is_gluon(b):
        return f.colour_charged
    if is_z(b):
        return True
    if is_higgs(b):
        return is_massive(f)
    return False


def _boson_pair_couples(x: Particle, n: Particle) -> bool:
    """Does the neutral boson n couple to the boson pair x x̄? The photon to charge (W⁺W⁻γ), the Z
    to the W (they share SU(2)), the gluon to colour (g g g), the Higgs to mass (W⁺W⁻H, Z Z H,
    H H H)."""
    if is_photon(n):
        return x.charge != 0
    if is_z(n):
        return is_w(x)
    if is_gluon(n):
        return is_gluon(x)
    if is_higgs(n):
        return is_massive(x)
    return False


def _w_couples(f: Particle, fbar: Particle, w: Particle) -> bool:
    """f, the antiparticle fbar of another fermion and a W meet when the two fermions are partners
    in a weak doublet: quark with quark (any generation: CKM mixing), lepton with the neutrino of
    its own family (the conservation of lepton family numbers says which)."""
    return f.kind == fbar.kind and not _pair(f, fbar) and _conserved((f, fbar, w))


def couples(a: Particle, b: Particle, c: Particle) -> bool:
    """Does a tree-level Standard-Model vertex join a, b and c, all read as incoming lines?"""
    trio = (a, b, c)
    fermions = [p for p in trio if p.is_fermion]
    bosons = [p for p in trio if not p.is_fermion]
    if len(fermions) == 2:
        f, fbar = fermions
        boson = bosons[0]
        if is_w(boson):
            return _w_couples(f, fbar, boson)
        return _pair(f, fbar) and fermion_couples(f, boson)
    if fermions:
        return False
    for i, n in enumerate(trio):
        x, y = (p for j, p in enumerate(trio) if j != i)
        if n.charge == 0 and _pair(x, y) and _boson_pair_couples(x, n):
            return True
    return False


def bosons_couple(a: Particle, b: Particle, c: Particle) -> bool:
    """Three bosons meet at a vertex (g g g, H H H, W⁺W⁻γ, W⁺W⁻Z, W⁺W⁻H, Z Z H)."""
    return not any(p.is_fermion for p in (a, b, c)) and couples(a, b, c)


def weak_partner(f: Particle, g: Particle, physics: PhysicsData) -> Particle | None:
    """The W that turns fermion f into fermion g (f → g W, i.e. the vertex f ḡ W̄), if any."""
    for w in physics:
        if is_w(w) and couples(f, physics.anti(g.id), physics.anti(w.id)):
            return w
    return None


def ckm_weight(a: Particle, b: Particle) -> float:
    """|V|² for the W vertex between an up-type and a down-type quark (either order, either
    particle or antiparticle): how often the W chooses this pair rather than another."""
    up, down = (a, b) if is_up_type(a) else (b, a)
    if not (is_up_type(up) and down.kind == "quark" and not is_up_type(down)):
        raise ValueError(f"{a.id} and {b.id} are not an up-type and a down-type quark")
    return CKM_MAGNITUDES[up.generation - 1][down.generation - 1] ** 2


# --- diagrams -----------------------------------------------------------------------------

# The most external lines a reaction may have for the diagram search below (which tries pairs of
# lines at every step): a τ decay into three pions has 8, and 10 take well under a second.
MAX_LINES = 10

@dataclass(frozen=True)
class Diagram:
    """A tree diagram found for a reaction: its vertices (lines incoming) in the order they
    were joined, and the internal lines used."""

    vertices: tuple[tuple[Particle, Particle, Particle], ...]
    internal: tuple[Particle, ...]


def tree_diagram(initial: Sequence[Particle], final: Sequence[Particle], via: Sequence[Particle],
                 physics: PhysicsData) -> Diagram | None:
    """A tree-level diagram for initial → final, or None.

    The diagram's internal bosons are exactly ``via`` (the virtual bosons the data declares);
    internal fermion lines (an electron exchanged in e⁺e⁻ → γγ) are found here. Every cubic tree
    has two external lines meeting at one vertex, so joining pairs of lines into one internal line
    until three remain, and those three meet at a vertex, finds every tree diagram. More than
    :data:`MAX_LINES` external lines is a ValueError."""
    legs = tuple(initial) + tuple(physics.anti(p.id) for p in final)
    if len(legs) > MAX_LINES:
        raise ValueError(f"{len(legs)} external lines, more than {MAX_LINES}")
    fermions = tuple(p for p in physics if p.is_fermion)
    ids = {p.id: p for p in physics}

    @lru_cache(maxsize=None)
    def search(state: tuple[str, ...], bosons: tuple[str, ...]) -> tuple | None:
        lines = [ids[i] for i in state]
        if len(lines) == 3:
            return ((tuple(lines),), ()) if not bosons and couples(*lines) else None
        for i, j in combinations(range(len(lines)), 2):
            rest = state[:i] + state[i + 1:j] + state[j + 1:]
            for boson in dict.fromkeys(bosons):
                at = bosons.index(boson)
                found = _join(lines[i], lines[j], ids[boson], rest, bosons[:at] + bosons[at + 1:])
                if found:
                    return found
            for inner in fermions:
                found = _join(lines[i], lines[j], inner, rest, bosons)
                if found:
                    return found
        return None

    def _join(x: Particle, y: Particle, inner: Particle, rest: tuple[str, ...], bosons: tuple[str, ...]):
        """x and y meet at a vertex and go on as ``inner`` (incoming to the rest of the diagram)."""
        if not couples(x, y, physics.anti(inner.id)):
            return None
        sub = search(tuple(sorted(rest + (inner.id,))), bosons)
        if sub is None:
            return None
        return ((x, y, physics.anti(inner.id)),) + sub[0], (inner,) + sub[1]

    if len(legs) < 3:
        return None
    found = search(tuple(sorted(p.id for p in legs)), tuple(sorted(p.id for p in via)))
    return Diagram(*found) if found else None


#: The most external lines a one-loop polygon is searched for (a triangle such as b → s γ); a
#: reaction with more lines is judged by a single particle that couples to every one of them.
MAX_POLYGON_LEGS = 3


def _loops_with_one_species(legs: Sequence[Particle], physics: PhysicsData) -> list[tuple[Particle, ...]]:
    """Loops of one particle that couples, with its antiparticle, to every external line (the
    top quark of H → g g or H → γ γ): each as its internal lines."""
    return [(p,) * len(legs) for p in physics if all(couples(p, physics.anti(p.id), x) for x in legs)]


def _polygons(legs: Sequence[Particle], physics: PhysicsData) -> list[tuple[Particle, ...]]:
    """One-loop polygons: internal lines X₀ … Xₙ₋₁ around the loop, external line i at the vertex
    where Xᵢ comes in and Xᵢ₊₁ goes out, i.e. the vertex (legᵢ, Xᵢ, X̄ᵢ₊₁), every vertex a
    Standard-Model one (a W changes flavour at its vertex as at any other: b → t W⁻ in the b → s γ
    penguin). Every cyclic order of the lines is tried; each loop is its internal lines."""
    from itertools import permutations

    found: list[tuple[Particle, ...]] = []
    first, rest = legs[0], legs[1:]
    for order in dict.fromkeys(permutations(range(len(rest)))):
        ring = (first,) + tuple(rest[i] for i in order)

        def walk(path: tuple[Particle, ...]) -> None:
            at = len(path) - 1
            if at == len(ring) - 1:
                if couples(ring[at], path[at], physics.anti(path[0].id)):
                    found.append(path)
                return
            for nxt in physics:
                if couples(ring[at], path[at], physics.anti(nxt.id)):
                    walk(path + (nxt,))

        for x0 in physics:
            walk((x0,))
    return found


def loop_lines(initial: Sequence[Particle], final: Sequence[Particle], physics: PhysicsData) -> tuple[Particle, ...] | None:
    """The internal lines of a one-loop diagram of Standard-Model vertices joining every external
    line, or None. A loop of one particle that couples to every line is named first (the top quark
    of H → g g); else, for up to :data:`MAX_POLYGON_LEGS` lines, a polygon of different internal
    lines (the W and top quark of the b → s γ penguin). The heaviest loop is named: it dominates
    wherever the Higgs or a flavour change takes part. Whether the loop's amplitude survives
    (Landau–Yang, Furry, colour) is :func:`loop_forbidden`'s question."""
    legs = tuple(initial) + tuple(physics.anti(x.id) for x in final)
    if len(legs) < 2 or chirality_forbids(legs):
        return None
    loops = _loops_with_one_species(legs, physics)
    if not loops and len(legs) <= MAX_POLYGON_LEGS:
        loops = _polygons(legs, physics)
    if not loops:
        return None
    return max(loops, key=lambda lines: (sum({p.id: p.mass_mev for p in lines}.values()),
                                         -sum(p.is_anti for p in lines)))


def chirality_forbids(legs: Sequence[Particle]) -> bool:
    """A spin-0 boson and a fermion pair without mass (ν ν̄ → H): the scalar joins a left- and a
    right-handed fermion, and a fermion with no mass in the Standard Model has no right-handed
    partner to flip to, at any order."""
    fermions = [p for p in legs if p.is_fermion]
    others = [p for p in legs if not p.is_fermion]
    return (len(fermions) == 2 and len(others) == 1 and others[0].spin == 0
            and not any(is_massive(f) for f in fermions))


def loop_carrier(initial: Sequence[Particle], final: Sequence[Particle], physics: PhysicsData) -> Particle | None:
    """The heaviest particle running in a one-loop diagram joining every external line
    (:func:`loop_lines`): the top quark in H → g g or H → γ γ, and in b → s γ."""
    lines = loop_lines(initial, final, physics)
    return None if lines is None else max(lines, key=lambda p: p.mass_mev)


def furry(legs: Sequence[Particle]) -> bool:
    """Furry's theorem, as charge conjugation states it: where every external line has a
    definite C — photons odd, Higgs bosons even, two gluons in a colour singlet even — and
    their product is odd, the amplitude vanishes at every order (a closed loop and its reverse
    cancel): three photons, γ g g (a quark triangle: its colour factor Tr(TᵃTᵇ) is symmetric),
    H H γ. Three gluons or more need not be C-even, and W and Z couple to C-odd currents."""
    photons = sum(is_photon(p) for p in legs)
    gluons = sum(is_gluon(p) for p in legs)
    definite = all(is_photon(p) or is_gluon(p) or is_higgs(p) for p in legs)
    return bool(legs) and definite and gluons in (0, 2) and photons % 2 == 1


#: Why a set of external lines never meets, at any order (the key :func:`never_meet` returns),
#: in the order the reasons are weighed: the last one an assignment fails is the one named.
NEVER = ("charge", "baryon_number", *(f"lepton_{fam}" for fam in LEPTON_FAMILIES), "colour", "landau-yang",
         "mass", "furry")


def never_meet(legs: Sequence[Particle]) -> str | None:
    """Why external lines (all read incoming) cannot meet in any diagram, loops included, or None
    when nothing forbids it: a conserved number that does not add up to zero; a single
    colour-charged line (a colour singlet cannot become one gluon); a massive spin-1 particle and
    two identical massless spin-1 bosons (Landau–Yang); two lines of different mass (one particle
    cannot become one particle of another mass: energy and momentum are not both conserved); lines
    of odd charge-conjugation parity altogether (Furry, :func:`furry`). The key is one of :data:`NEVER`."""
    for q in NEVER[:5]:
        if not quantum_zero(legs, q):
            return q
    if sum(p.colour_charged for p in legs) == 1:
        return "colour"
    if len(legs) == 3:
        for i, parent in enumerate(legs):
            a, b = (p for j, p in enumerate(legs) if j != i)
            if landau_yang((parent,), (a, b)):
                return "landau-yang"
    if len(legs) == 2 and legs[0].mass_mev != legs[1].mass_mev:
        return "mass"
    if furry(legs):
        return "furry"
    return None


def landau_yang(initial: Sequence[Particle], final: Sequence[Particle]) -> bool:
    """Whether a massive spin-1 particle turns into two identical massless spin-1 bosons, or
    two of them into it (Z⁰ → γ γ, Z⁰ → g g): forbidden at every order, loops included, because
    two such bosons in a symmetric state cannot carry one unit of angular momentum (the
    Landau–Yang theorem; H → γ γ, of spin 0, is allowed)."""
    one, two = (initial, final) if len(initial) == 1 else (final, initial)
    if len(one) != 1 or len(two) != 2:
        return False
    parent, (a, b) = one[0], two
    return (parent.spin == 1 and parent.mass_mev > 0 and a.id == b.id and a.spin == 1 and a.mass_mev == 0)


def lone_colour(initial: Iterable[Particle], final: Iterable[Particle]) -> bool:
    """Colour is conserved: a colourless state cannot become a state with a single colour-charged
    particle (one gluon or one quark cannot be colour-neutral), nor the other way round."""
    before = sum(p.colour_charged for p in initial)
    after = sum(p.colour_charged for p in final)
    return (before == 0 and after == 1) or (after == 0 and before == 1)


def uncoupled(initial: Sequence[Particle], final: Sequence[Particle], physics: PhysicsData) -> tuple[Particle, Particle] | None:
    """An initial particle and a product that no vertex joins at all, whatever the third line
    (γ and a neutrino, g and an electron): the missing vertex a failed reaction is named by."""
    for x in final:
        for i in initial:
            if not any(couples(i, physics.anti(x.id), z) for z in physics):
                return i, x
    return None
