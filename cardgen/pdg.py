"""PDG through the `particle` package (scikit-hep): the one place the checker asks it.

The package ships the PDG tables offline, so a check needs no network. Values come in PDG's own
units (MeV for masses and widths, ns for lifetimes); the helpers here turn them into what the
rules compare: SI seconds, quark contents as counts, and numbers rounded to a given number of
significant figures (the precision a card prints).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, TypeVar

if TYPE_CHECKING:   # the package itself is imported by the first lookup: see _table
    from particle import Particle as PDGParticle

T = TypeVar("T")

#: Edition of the Review the package's tables come from, as the report names it.
EDITION = "PDG 2026"
#: The package's table of particles for that edition (670 rows). Its other default table, the
#: nuclei (5,881 rows), is loaded only when a lookup needs it: see :func:`_table`.
PARTICLE_TABLE = f"particle{EDITION.split()[-1]}.csv"
#: PDG ids from here up are nuclei (10LZZZAAAI).
NUCLEUS_IDS = 1_000_000_000
NS = 1e-9
#: Quark letters by PDG id (d = 1, u = 2, s = 3, c = 4, b = 5, t = 6).
QUARK_LETTERS = "duscbt"
#: PDG flavour quantum numbers by quark (for the quark; its antiquark has the opposite sign):
#: strangeness and bottomness are −1 for s and b by convention, charm and topness +1.
FLAVOURS = {"s": ("strangeness", -1), "c": ("charm", 1), "b": ("bottomness", -1), "t": ("topness", 1)}


#: The neutrino mass limits the particle package does not ship (it gives neutrinos no mass and
#: no bound). The best direct limit on a neutrino mass, from the tritium β-spectrum: KATRIN,
#: Science 388 (2025) 180, m_ν < 0.45 eV at 90 % CL, in MeV. A card that prints a smaller bound
#: claims a mass no experiment has shown (oscillations fix mass differences, not the scale).
NEUTRINO_MASS_LIMIT_MEV = 0.45e-6
NEUTRINO_LIMIT_SOURCE = "KATRIN, Science 388 (2025) 180, 90 % CL"
#: The loosest bound still a direct limit: the tritium β-spectrum limit of the experiments before
#: KATRIN (Mainz, Eur. Phys. J. C 40 (2005) 447; Troitsk, Phys. Rev. D 84 (2011) 112003), m_ν < 2 eV,
#: the bound PDG quoted until KATRIN's. A card that prints a looser one (< 80 eV, < 2 GeV) claims
#: less than every modern experiment has shown, and weighs nothing a threshold could use.
NEUTRINO_MASS_LOOSEST_MEV = 2e-6
NEUTRINO_LOOSEST_SOURCE = "Mainz and Troitsk tritium β-decay, the bound PDG quoted before KATRIN"
#: PDG ids of the neutrinos (their antiparticles are the negatives).
NEUTRINO_IDS = frozenset({12, 14, 16})


class UnknownParticle(LookupError):
    """A name or id the package does not know."""


_nuclei_loaded = False


def _table(nuclei: bool) -> type[PDGParticle]:
    """The package's particle class, its tables loaded: the nuclei only when ``nuclei``.

    The package is imported here, not with this module: importing it takes 0.06 s, and every
    process that draws imports this module (the answer keys' content comes from the rules),
    although only the check gate, and the answer key that names hadrons, look anything up.

    The package's own first lookup loads both tables, ten times the rows a check reads:
    0.08 s of every check gate, measured, for 6,551 particle objects of which a deck names a
    few dozen. The particle table alone is what the package holds for any id below
    :data:`NUCLEUS_IDS` (its nuclei table repeats only the neutron, identically), so the
    answer is the same either way (``tests/test_pdg.py`` compares every id). A package without
    that edition's table loads its default tables, as it would on its own."""
    global _nuclei_loaded
    from particle import Particle
    from particle import data

    if _nuclei_loaded or (not nuclei and Particle.table_loaded()):
        return Particle
    table = data.basepath.joinpath(PARTICLE_TABLE)
    if nuclei or not table.is_file():
        Particle.load_table()   # the package's default: particles, then nuclei
        _nuclei_loaded = True
    else:
        with table.open(encoding="utf-8") as rows:
            Particle.load_table(rows)
    return Particle


def particles() -> list[PDGParticle]:
    """Every particle of the package's tables that is not a nucleus."""
    return [p for p in _table(nuclei=False).all() if abs(int(p.pdgid)) < NUCLEUS_IDS]


#: The tables worked out from every particle (see :func:`from_whole_table`), as registered.
_WHOLE_TABLE: list[Callable[[], Any]] = []


def from_whole_table(fn: Callable[[], T]) -> Callable[[], T]:
    """A table worked out from every particle PDG lists (the lightest meson of each quark
    content, say): once per process, and by a daemon before any command (:func:`work_out_tables`),
    where each command's process otherwise scanned the 670 rows again (1–7 ms a table)."""
    kept = lru_cache(maxsize=1)(fn)
    _WHOLE_TABLE.append(kept)
    return kept


def work_out_tables() -> None:
    """Every table :func:`from_whole_table` registered (in the modules imported so far)."""
    for table in _WHOLE_TABLE:
        table()


@lru_cache(maxsize=512)
def lookup(key: int | str) -> PDGParticle:
    """The package's particle for a PDG id (int or digits) or a PDG name ('p', 'pi+', 'K0',
    'J/psi(1S)')."""
    if isinstance(key, int) or re.fullmatch(r"[+-]?\d+", str(key).strip()):
        from particle.particle.particle import InvalidParticle, ParticleNotFound

        try:
            pdgid = int(key)   # (more digits than Python converts: ValueError)
            return _table(nuclei=abs(pdgid) >= NUCLEUS_IDS).from_pdgid(pdgid)
        except (InvalidParticle, ParticleNotFound, ValueError) as exc:
            raise UnknownParticle(str(exc)) from None
    # Particle.from_name builds every particle's name (0.6 s a call); a name starts with the
    # stored PDG base name, so only those few are built. The nucleon, not the nucleus, for 'p'.
    name = str(key).strip()
    found = [p for p in _table(nuclei=False).all() if name.startswith(p.pdg_name) and p.name == name]
    if not found:
        found = [p for p in _table(nuclei=True).all() if name.startswith(p.pdg_name) and p.name == name]
    if not found:
        raise UnknownParticle(f"no particle is named {name!r}")
    return min(found, key=lambda p: abs(int(p.pdgid)))


def round_sig(value: float, figures: int) -> float:
    """``value`` rounded to ``figures`` significant figures (0 stays 0)."""
    if value == 0 or not math.isfinite(value):
        return value
    return round(value, figures - 1 - math.floor(math.log10(abs(value))))


#: A measured value is written to at least this many significant figures (as cardgen's formats
#: print it), unless PDG knows it less precisely: rounded to fewer, a value equal to PDG's "at
#: the precision printed" can still be far from it (a muon of 0.1 GeV/c² is 5 % light).
MIN_FIGURES = 3


def too_coarse(value: float, figures: int, uncertainty: float) -> bool:
    """Whether ``value``, written to ``figures`` significant figures, is rounded to fewer than
    :data:`MIN_FIGURES` while PDG's ``uncertainty`` (same unit) is smaller than that rounding:
    its last figure then hides what PDG knows."""
    if figures >= MIN_FIGURES or value == 0 or not math.isfinite(value):
        return False
    return 0.5 * 10 ** (math.floor(math.log10(abs(value))) - figures + 1) > uncertainty


def same_at(printed: float, figures: int, pdg_value: float) -> bool:
    """Whether PDG's value, rounded to the figures printed, is the printed number."""
    if printed == 0 or pdg_value == 0:
        return printed == pdg_value
    return math.isclose(printed, round_sig(pdg_value, figures), rel_tol=1e-9)


def contents(p: PDGParticle) -> list[Counter[str]]:
    """Quark content as counts of quark letters (upper case = antiquark, PDG's notation), one
    per term: a neutral meson that is a mixture (π⁰ = (uū − dd̄)/√2) has several, and a card set
    holding any one term is that meson. Fundamental particles have none. A nucleus (PDG
    gives no quarks for one) holds its Z protons' and A − Z neutrons' quarks: A + Z up and
    2A − Z down (an antinucleus the antiquarks); a hypernucleus, whose strange quarks PDG's id
    counts but does not place, has none here."""
    text = p.quarks or ""
    terms = [t for t in re.findall(r"[A-Za-z]+", text)
             if all(c.lower() in QUARK_LETTERS for c in t) and len(t) in (2, 3)]
    if not terms and _plain_nucleus(p):
        z, a = abs(p.pdgid.Z), abs(p.pdgid.A)   # the package signs them for an antinucleus
        up, down = ("u", "d") if int(p.pdgid) > 0 else ("U", "D")
        return [Counter({up: a + z, down: 2 * a - z})]
    return [Counter(t) for t in terms]


def _plain_nucleus(p: PDGParticle) -> bool:
    """A nucleus of protons and neutrons only (PDG id 10LZZZAAAI with L, its strange quarks, 0)."""
    pdgid = abs(int(p.pdgid))
    return pdgid >= NUCLEUS_IDS and (pdgid // 10_000_000) % 10 == 0 and bool(p.pdgid.A)


def content_text(content: Counter[str]) -> str:
    """'u u d' or 'd s̅' for a content, quarks before antiquarks, in PDG's order of flavours."""
    order = {c: i for i, c in enumerate("udscbt")}
    quarks = sorted((c for c in content.elements() if c.islower()), key=order.__getitem__)
    antis = sorted((c.lower() for c in content.elements() if c.isupper()), key=order.__getitem__)
    return " ".join(quarks + [f"{c}\u0305" for c in antis])  # the overline cardgen's symbols use


def flavour_numbers(content: Counter[str]) -> dict[str, int]:
    """Strangeness, charm, bottomness and topness of a quark content."""
    out = {}
    for q, (name, sign) in FLAVOURS.items():
        out[name] = sign * (content[q] - content[q.upper()])
    return out


# charge, spin and baryon number are kept per particle (the package's particles are compared
# and hashed by PDG id): the package works each out from the id's digits every time it is
# asked, and one check of Particle Builder asked for spins 300 times, of some ninety particles

@lru_cache(maxsize=1024)
def charge(p: PDGParticle) -> Fraction:
    return Fraction(p.three_charge, 3)


@lru_cache(maxsize=1024)
def spin(p: PDGParticle) -> Fraction | None:
    """The spin PDG gives, as the exact half-integer it is (None where it gives none)."""
    return Fraction(p.J).limit_denominator(2) if p.J is not None else None


@lru_cache(maxsize=1024)
def baryon_number(p: PDGParticle) -> Fraction:
    """+1 a baryon, +1/3 a quark, A a nucleus of A nucleons; the opposite for antiparticles."""
    if p.pdgid.is_baryon:
        return Fraction(1 if int(p.pdgid) > 0 else -1)
    if abs(int(p.pdgid)) >= NUCLEUS_IDS and p.pdgid.A:
        return Fraction(abs(p.pdgid.A) if int(p.pdgid) > 0 else -abs(p.pdgid.A))
    if p.pdgid.is_quark:
        return Fraction(1 if int(p.pdgid) > 0 else -1, 3)
    return Fraction(0)
