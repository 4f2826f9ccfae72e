"""Which quark content dominates a neutral light meson that PDG writes as a mixture.

The `particle` package writes every light isoscalar meson as ``x(uU+dD)+y(sS)`` without the
weights, so :func:`cardgen.pdg.contents` lists u ū, d d̄ and s s̄ as equal terms, and a target
holding any one of them would be that meson. For most nonets the weights are what physics knows
best: the vector, tensor and spin-3 nonets are close to *ideally mixed*, where one isoscalar is
n n̄ = (u ū + d d̄)/√2 and the other s s̄ (φ(1020) decays mostly to K K̄, ω(782) to three
pions). Taking s s̄ for ω(782) or d d̄ for φ(1020) is then as wrong as s s̄ for π⁰.

The weights follow from the nonet's singlet–octet mixing angle θ, a fact the package does not
carry; it is declared once here (:data:`MIXING_ANGLES`) with its source. Everything else is
derived from the PDG id and the package's quantum numbers: which nonet a meson belongs to,
its isoscalar partner, and which of the two is the s s̄ one (the heavier: s is heavier than
u and d).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .. import pdg

if TYPE_CHECKING:
    from particle import Particle as PDGParticle

#: Singlet–octet mixing angle θ of each light-meson nonet, in degrees, by its spectroscopic
#: term n ²ˢ⁺¹L_J: the angles PDG derives from the nonet's masses with the linear mass formula
#: (θ_lin). The review tabulates these four nonets only; a nonet missing here (radial and
#: orbital excitations such as φ(1680), f₁(1285)/f₁(1420), h₁, the scalars with their
#: glueball admixture) has no PDG angle, and its isoscalars keep accepting every term.
MIXING_ANGLES: dict[str, float] = {
    "1¹S₀": -24.5,   # π, K, η, η′: far from ideal, so η and η′ accept u ū, d d̄ and s s̄ alike
    "1³S₁": 36.5,    # ρ, K*, ω(782), φ(1020)
    "1³P₂": 28.0,    # a₂, K₂*, f₂(1270), f₂′(1525)
    "1³D₃": 30.8,    # ρ₃, K₃*, ω₃(1670), φ₃(1850)
}
MIXING_SOURCE = ("PDG Review of Particle Physics, 'Quark model' review (Amsler, DeGrand, Krusche), singlet–octet "
                 "mixing angles of the light-meson nonets (θ_lin)")
#: The ideal mixing angle, θ_i = arctan(1/√2) ≈ 35.3°, at which one isoscalar is pure s s̄.
IDEAL_ANGLE = math.degrees(math.atan(1 / math.sqrt(2)))
#: A term dominates a meson when it is at least this share of it. With the isoscalars
#: f′ = ψ₈ cos θ − ψ₁ sin θ and f = ψ₈ sin θ + ψ₁ cos θ (the review's convention), f′ is
#: cos²(θ − θ_i) s s̄ and f as much n n̄: 0.98 or more for the three near-ideal nonets above,
#: 0.75 at most for η and η′ (0.25 with θ_lin, 0.47 with the quadratic formula's −11.3°).
#: Nine tenths falls well between the two.
DOMINANT_SHARE = 0.9

#: Spectroscopic letters of the orbital angular momentum L = 0, 1, 2, …
_L_LETTERS = "SPDFGH"
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
#: The quark digits (n_q2 n_q3) of PDG's two light isoscalar slots of a nonet.
_ISOSCALAR_SLOTS = (22, 33)
_SS = Counter({"s": 1, "S": 1})


@dataclass(frozen=True)
class Dominance:
    """The quark content that dominates a near-ideally mixed meson, and why."""

    #: The terms of the meson's PDG content a card set may hold: s s̄, or u ū and d d̄ (each
    #: one term of n n̄, as either is of π⁰).
    contents: list[Counter[str]]
    #: The dominant content in words: 's s̄' or '(u ū + d d̄)/√2'.
    text: str
    #: The nonet's spectroscopic term and mixing angle, for the reason a finding gives.
    term: str
    angle: float
    #: The nonet's other isoscalar: the meson the other term makes.
    partner: PDGParticle

    def reason(self) -> str:
        """Why this content dominates, with the source, as a finding says it."""
        return (f"ideal mixing of the {self.term} nonet: θ = {self.angle:.1f}° vs ideal {IDEAL_ANGLE:.1f}°, "
                f"PDG quark-model review")


def nonet_term(ref: PDGParticle) -> str | None:
    """The spectroscopic term n ²ˢ⁺¹L_J of a light isoscalar meson of PDG's quark-model
    numbering (e.g. '1³S₁' for φ(1020)); None for any other particle, and for the states PDG
    numbers outside the quark model (ids of seven digits starting with 9)."""
    pid = int(ref.pdgid)
    if pid <= 0 or pid >= 1_000_000 or not ref.pdgid.is_meson or (pid // 10) % 1000 not in _ISOSCALAR_SLOTS:
        return None
    radial = pid // 100_000 % 10 + 1
    multiplicity = 2 * ref.pdgid.S + 1
    return (f"{radial}{str(multiplicity).translate(_SUPERSCRIPT)}{_L_LETTERS[ref.pdgid.L]}"
            f"{str(ref.pdgid.J).translate(_SUBSCRIPT)}")


def dominant(ref: PDGParticle) -> Dominance | None:
    """The content that dominates ``ref`` where PDG's mixing angle puts its nonet near ideal
    mixing; None where every term of its PDG content is acceptable (all other particles, the
    strongly mixed η and η′, and nonets with no PDG angle)."""
    term = nonet_term(ref)
    if term not in MIXING_ANGLES:
        return None
    angle = MIXING_ANGLES[term]
    if math.cos(math.radians(angle - IDEAL_ANGLE)) ** 2 < DOMINANT_SHARE:
        return None
    pid = int(ref.pdgid)
    slot = (pid // 10) % 100
    other = _ISOSCALAR_SLOTS[1 - _ISOSCALAR_SLOTS.index(slot)]
    partner = pdg.lookup(pid + (other - slot) * 10)
    strange = ref.mass > partner.mass   # near ideal mixing the s s̄ state is the heavier
    terms = [c for c in pdg.contents(ref) if (c == _SS) == strange]
    return Dominance(terms, "s s\u0305" if strange else "(u u\u0305 + d d\u0305)/√2", term, angle, partner)
