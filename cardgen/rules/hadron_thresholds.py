"""The least mass quarks produced together can have: quarks are confined, so a quark and an
antiquark that come out of a reaction together leave it as a meson, never as two free quarks
of their bare masses. τ⁻ → ν_τ s c̄ adds up to 1.37 GeV in bare masses, well under the τ's
1.777 GeV, but s c̄ is at least a D_s⁻ (1968 MeV): the decay cannot happen.

The mesons and their masses are PDG's, from the `particle` package: for each quark–antiquark
pair, the lightest meson whose quark content (or one term of it: π⁰ is (uū − dd̄)/√2, η is
x(uū + dd̄) + y(ss̄)) is that pair. Products whose quarks do not all pair up (the lone b of
t → b W⁺, whose partners are outside the reaction in the game's quark-level picture) keep
their bare masses: no meson is forced on them.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

from .. import pdg
from ..particles import Particle


@dataclass(frozen=True)
class Meson:
    """The lightest meson PDG lists for one quark content: its name as cards print (D_s⁻) and mass."""

    name: str
    mass_mev: float


@dataclass(frozen=True)
class Bound:
    """A quark and an antiquark of the products, and the meson they must at least form."""

    quark: Particle
    antiquark: Particle
    meson: Meson

    def pair_text(self) -> str:
        return f"{self.quark.symbol.unicode()} {self.antiquark.symbol.unicode()}"


@dataclass(frozen=True)
class Hadronised:
    """Products as they leave a reaction: those that stay free, and the mesons the rest form."""

    free: tuple[Particle, ...]
    bound: tuple[Bound, ...] = ()

    @property
    def mass_mev(self) -> float:
        """The least mass the products can have together (their threshold)."""
        return sum(p.least_mass_mev for p in self.free) + sum(b.meson.mass_mev for b in self.bound)


#: Beyond this many quark–antiquark pairs the products keep their bare masses (a lower bound,
#: so never a false finding): the least-mass pairing tries up to 2^n sets of antiquarks.
MAX_PAIRED = 8

_SUPERSCRIPTS = str.maketrans("0+-*", "⁰⁺⁻*")


def _unicode_name(latex: str) -> str:
    """A meson's LaTeX name as cardgen's symbols write it: '\\overline{B}_{s}^{0}' → 'B̅_s⁰',
    '\\eta_{c}(1S)' → 'η_c(1S)'. Greek letters come from their Unicode names, not a table."""
    def greek(m: re.Match[str]) -> str:
        case = "CAPITAL" if m[1][0].isupper() else "SMALL"
        try:
            return unicodedata.lookup(f"GREEK {case} LETTER {m[1].upper()}")
        except KeyError:
            return m[1]
    text = re.sub(r"\\(?:bar|overline)\{([^}]*)\}", lambda m: m[1] + "\u0305", latex)
    text = re.sub(r"\\([A-Za-z]+)", greek, text)
    text = re.sub(r"\^\{([^}]*)\}", lambda m: m[1].translate(_SUPERSCRIPTS), text)
    return re.sub(r"_\{([^}]*)\}", r"_\1", text).replace("{", "").replace("}", "")


@pdg.from_whole_table
def lightest_mesons() -> dict[tuple[str, str], Meson]:
    """The lightest meson PDG lists for each quark–antiquark content, keyed by (quark letter,
    antiquark letter in upper case, PDG's notation). A mixture counts for each of its terms; of
    two equally light mesons the one of fewer terms (K⁰ before K_L⁰), then the lower id, wins."""
    best: dict[tuple[str, str], tuple[tuple[float, int, int], Meson]] = {}
    for p in pdg.particles():
        if not p.pdgid.is_meson or p.mass is None:
            continue
        terms = pdg.contents(p)
        rank = (p.mass, len(terms), abs(int(p.pdgid)))
        for term in terms:
            quarks = [c for c in term.elements() if c.islower()]
            antis = [c for c in term.elements() if c.isupper()]
            if len(quarks) == len(antis) == 1:
                key = (quarks[0], antis[0])
                if key not in best or rank < best[key][0]:
                    best[key] = (rank, Meson(_unicode_name(p.latex_name), p.mass))
    return {key: meson for key, (_rank, meson) in best.items()}


def _letter(p: Particle) -> str:
    """PDG's letter for a quark card, upper case for an antiquark."""
    letter = pdg.QUARK_LETTERS[abs(p.pdg_id) - 1]
    return letter.upper() if p.is_anti else letter


def _is_quark(p: Particle) -> bool:
    return p.kind == "quark" and 1 <= abs(p.pdg_id) <= len(pdg.QUARK_LETTERS)


def hadronised(products: Iterable[Particle]) -> Hadronised:
    """The products with each quark bound to an antiquark of the products into the lightest
    meson of their content, paired so that the total is least (τ⁻ → ν_τ d ū u ū pairs into
    π⁻ π⁰ whichever ū goes with which quark). Only when every quark has an antiquark to pair
    with: otherwise the quarks stay free, at their bare masses. A pair PDG lists no meson for
    (t t̄: the top decays before it can bind) stays free too."""
    parts = tuple(products)
    quarks = [i for i, p in enumerate(parts) if _is_quark(p) and not p.is_anti]
    antis = [i for i, p in enumerate(parts) if _is_quark(p) and p.is_anti]
    if not quarks or len(quarks) != len(antis) or len(quarks) > MAX_PAIRED:
        return Hadronised(parts)
    mesons = lightest_mesons()

    def meson(q: int, a: int) -> Meson | None:
        return mesons.get((_letter(parts[q]), _letter(parts[a])))

    def cost(q: int, a: int) -> float:
        found = meson(q, a)
        return found.mass_mev if found else parts[q].least_mass_mev + parts[a].least_mass_mev

    @lru_cache(maxsize=None)
    def best(n: int, taken: int) -> tuple[float, tuple[int, ...]]:
        """Least mass of the quarks from the n-th on with the antiquarks not in bit mask
        ``taken``, and the antiquark each takes."""
        if n == len(quarks):
            return 0.0, ()
        options = []
        for k, a in enumerate(antis):
            if not taken >> k & 1:
                rest, picks = best(n + 1, taken | 1 << k)
                options.append((cost(quarks[n], a) + rest, (a, *picks)))
        return min(options)

    pairs = [(q, a, meson(q, a)) for q, a in zip(quarks, best(0, 0)[1])]
    bound = tuple(Bound(parts[q], parts[a], found) for q, a, found in pairs if found)
    tied = {i for q, a, found in pairs if found for i in (q, a)}
    return Hadronised(tuple(p for i, p in enumerate(parts) if i not in tied), bound)
