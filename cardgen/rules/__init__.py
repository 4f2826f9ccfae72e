"""The rule library of the checker.

Rules come in two sorts:

* *generic* rules run on every game (templates exist, sizes fit paper, shapes are consistent);
* *declared* rules are named in a game's ``checks:`` list with their parameters, e.g.
  ``{rule: deck-size, component: particles, total: 44, by: line, counts: {q: 13, ...}}``.
  This is how a new game gets physics checks without writing Python.

Each rule is a function ``(game, params) -> iterable of Finding, Proof or Choice`` (see
:mod:`cardgen.proof`: what is wrong, what was proved, what the data deviates from on purpose);
``params`` is a :class:`cardgen.schema.Fields` reader over the check's YAML, so a misspelt
parameter is an input error at its exact line.
"""

from __future__ import annotations

from typing import Callable, Iterable

from ..errors import Finding
from ..model import Game
from ..proof import Choice, Proof
from ..schema import Fields

DeclaredRule = Callable[[Game, Fields], Iterable[Finding | Proof | Choice]]
GenericRule = Callable[[Game], Iterable[Finding | Proof | Choice]]

DECLARED: dict[str, DeclaredRule] = {}
GENERIC: dict[str, GenericRule] = {}
#: The declared rules that read what the rendered faces print: when the check renders, they
#: run beside the render pass, which takes the faces they rendered (:mod:`cardgen.check`).
READS_FACES: set[str] = set()


def declared(name: str, reads_faces: bool = False) -> Callable[[DeclaredRule], DeclaredRule]:
    """Register a rule that games can name in their ``checks:`` list (``reads_faces``: it
    renders the game's faces to read what they print)."""
    def register(fn: DeclaredRule) -> DeclaredRule:
        DECLARED[name] = fn
        if reads_faces:
            READS_FACES.add(name)
        return fn
    return register


def generic(name: str) -> Callable[[GenericRule], GenericRule]:
    """Register a rule that runs on every game."""
    def register(fn: GenericRule) -> GenericRule:
        GENERIC[name] = fn
        return fn
    return register


# Importing the modules registers their rules.
from . import (couplings, decks, energies, generic_rules, hadrons, kinematics, levels, pdg_identity,  # noqa: E402,F401
               pdg_values, placement, printed_values,
               legibility, reactions, rulebook, tutti, tutti_scoring)
