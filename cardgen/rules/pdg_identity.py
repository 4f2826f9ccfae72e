"""Each particle of the physics data is the particle its PDG id says: its symbol, kind, generation,
colour charge, baryon and lepton numbers — and its charge and spin where no card prints them (printed
ones are compared by :mod:`cardgen.rules.pdg_values`, so every value is judged once).

The reaction rules add these numbers up; a wrong one in ``particles.yaml`` would otherwise show
only as findings against the tables that use it, far from the line to fix. Everything here is
derived from the PDG id through the `particle` package: nothing is typed per particle.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterator

from .. import format as fmt
from .. import pdg
from ..errors import Finding
from ..model import Game
from ..particles import LEPTON_FAMILIES, Particle, Symbol
from ..proof import Proof
from . import generic
from .pdg_values import printed_pairs

RULE = "pdg-identity"

#: PDG's programmatic names spell Greek letters out ('mu-', 'nu(tau)~', 'gamma').
_GREEK = {"μ": "mu", "τ": "tau", "ν": "nu", "γ": "gamma", "π": "pi", "ρ": "rho", "η": "eta", "ω": "omega",
          "φ": "phi", "ψ": "psi", "Λ": "Lambda", "Σ": "Sigma", "Ξ": "Xi", "Ω": "Omega", "Δ": "Delta",
          "Υ": "Upsilon"}
_LATIN = {v: k for k, v in _GREEK.items()}
_PDG_NAME = re.compile(r"(?P<base>[A-Za-z]+)(?:\((?P<sub>[A-Za-z0-9]+)\))?(?P<bar>~)?(?P<sup>[+\-0]*)")
#: Lepton families by the absolute PDG id of the charged lepton and its neutrino.
_FAMILY = {11: "e", 12: "e", 13: "mu", 14: "mu", 15: "tau", 16: "tau"}


def generation(pid: int) -> int | None:
    """The generation a fermion's PDG id says (quarks 1–2, 3–4, 5–6; leptons 11–12, 13–14,
    15–16: I, II, III; an antiparticle as its particle); None for every other particle."""
    n = abs(pid)
    if 1 <= n <= 6:
        return (n + 1) // 2
    if 11 <= n <= 16:
        return (n - 9) // 2
    return None


def spelled(symbol: Symbol) -> str:
    """A symbol as PDG's programmatic name spells it: 'nu(mu)~' for ν̄_μ, 'W+' for W⁺."""
    sub = f"({_GREEK.get(symbol.sub, symbol.sub)})" if symbol.sub else ""
    return f"{_GREEK.get(symbol.base, symbol.base)}{sub}{'~' if symbol.bar else ''}{symbol.sup}"


def symbol_of(name: str) -> Symbol | None:
    """The structured symbol PDG's name stands for (None for a name of another shape)."""
    m = _PDG_NAME.fullmatch(name)
    if m is None:
        return None
    sub = m["sub"] or ""
    return Symbol(_LATIN.get(m["base"], m["base"]), bool(m["bar"]), _LATIN.get(sub, sub), m["sup"])


def _same_symbol(symbol: Symbol, name: str, neutral: bool) -> bool:
    """Whether the symbol is PDG's name; a neutral particle may leave out its superscript 0 (H for H⁰)."""
    ours = spelled(symbol)
    return ours == name or (neutral and ours.removesuffix("0") == name.removesuffix("0"))


def expected(ref) -> dict[str, object]:
    """What the PDG record says of the quantities this rule compares."""
    pid = int(ref.pdgid)
    family = _FAMILY.get(abs(pid))
    sign = 1 if pid > 0 else -1
    if ref.pdgid.is_quark:
        kind = "quark"
    elif ref.pdgid.is_lepton:
        kind = "lepton"
    else:
        kind = "scalar" if ref.J == 0 else "gauge boson"
    return {
        "kind": kind,
        "colour_charged": bool(ref.pdgid.is_quark or abs(pid) == 21),
        "baryon_number": pdg.baryon_number(ref),
        "lepton_numbers": {f: (sign if f == family else 0) for f in LEPTON_FAMILIES},
        "charge": pdg.charge(ref),
        "spin": pdg.spin(ref),
        "generation": generation(pid),
    }


def _text(key: str, value: object) -> str:
    if key == "lepton_numbers":
        assert isinstance(value, dict)
        return "{" + ", ".join(f"{f}: {n}" for f, n in value.items() if n) + "}" if any(value.values()) else "{}"
    if key == "charge":
        return fmt.charge(value)   # type: ignore[arg-type]
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    return str(value)


@generic(RULE)
def pdg_identity(game: Game) -> Iterator[Finding | Proof]:
    """Every particle of the physics data has the symbol, kind, generation, colour charge, baryon
    and lepton numbers (and, where no card prints them, the charge and spin) of its PDG id; no two share a name."""
    printed = printed_pairs(game)
    compared, wrong = 0, False
    names = Counter(p.name for p in game.physics)
    for p in game.physics:
        try:
            ref = pdg.lookup(p.pdg_id)
        except pdg.UnknownParticle:
            if (p.id, "charge") not in printed:   # pdg-values says so where a card prints it
                wrong = True
                yield Finding(RULE, f"{p.name} ({p.id}) has PDG id {p.pdg_id}, which PDG does not know, so what it "
                              f"is cannot be checked", p.where.get("pdg_id", p.location),
                              "use the particle's Monte Carlo number from the PDG review", game.id)
            continue
        for finding in _compare(game, p, ref, printed):
            wrong = True
            yield finding
        compared += 1
        if names[p.name] > 1:
            wrong = True
            others = ", ".join(q.id for q in game.physics if q.name == p.name and q.id != p.id)
            yield Finding(RULE, f"{p.id} is named '{p.name}', as is {others}: a card would name two particles alike",
                          p.where.get("name", p.location), f"give {p.id} its own name (PDG: {ref.name})", game.id)
    if not wrong:
        yield Proof(RULE, f"each of the {compared} particles of the physics data is the particle its PDG id names: "
                    f"symbol, kind, generation, colour charge, baryon and lepton numbers (charge and spin too where no card "
                    f"prints them) equal {pdg.EDITION}'s, and no two share a name", compared, game.id,
                    game.location)


def _compare(game: Game, p: Particle, ref, printed: set[tuple[str, str]]) -> Iterator[Finding]:
    neutral = pdg.charge(ref) == 0
    if not _same_symbol(p.symbol, ref.name, neutral):
        right = symbol_of(ref.name)
        fix = (f"write symbol: {{base: {right.base}" + (", bar: true" if right.bar else "")
               + (f", sub: {right.sub}" if right.sub else "") + (f", sup: \"{right.sup}\"" if right.sup else "") + "}"
               if right is not None else f"write the symbol of PDG's {ref.name}")
        yield Finding(RULE, f"{p.name} ({p.id}, PDG id {p.pdg_id}) has the symbol {p.symbol.unicode()}, but "
                      f"{pdg.EDITION}'s particle {p.pdg_id} is {ref.name}", p.where.get("symbol", p.location), fix,
                      game.id)
    want = expected(ref)
    ours = {"kind": p.kind, "colour_charged": p.colour_charged, "baryon_number": p.baryon_number,
            "lepton_numbers": {f: int(p.lepton_numbers.get(f, 0)) for f in LEPTON_FAMILIES},
            "charge": p.charge, "spin": p.spin, "generation": p.generation}
    for key, value in want.items():
        if key in ("charge", "spin") and ((p.id, key) in printed or value is None):
            continue
        if key == "generation" and ours[key] != value:
            fix = (f"write generation: {value}" if value is not None
                   else "remove 'generation': only quarks and leptons belong to a generation")
            yield Finding(RULE, f"{p.name} ({p.id}) has generation: {_text(key, ours[key])}, but its PDG id "
                          f"{p.pdg_id} ({ref.name}) is a particle of generation {_text(key, value)}"
                          if value is not None else
                          f"{p.name} ({p.id}) has generation: {ours[key]}, but its PDG id {p.pdg_id} ({ref.name}) "
                          f"is no quark or lepton, so it belongs to no generation",
                          p.where.get(key, p.location), fix, game.id)
        elif ours[key] != value:
            yield Finding(RULE, f"{p.name} ({p.id}) has {key}: {_text(key, ours[key])}, but "
                          f"{pdg.EDITION}'s particle {p.pdg_id} ({ref.name}) has {_text(key, value)}",
                          p.where.get(key, p.location), f"write {key}: {_text(key, value)}", game.id)
