"""Rows the data declares as differing from the game's printed rulebook (``differs_from_rulebook``).

Nothing is wrong with such a row — the checker has usually shown the rulebook's version to be
unphysical — but a teacher holding the original rulebook must be told, so each one is listed
in the report as a :class:`~cardgen.proof.Choice` with the reason its assumption gives.
"""

from __future__ import annotations

from typing import Iterator

from ..model import Game
from ..proof import Choice, Proof
from ..tables import deviations
from . import generic


@generic("rulebook-deviations")
def rulebook_deviations(game: Game) -> Iterator[Choice | Proof]:
    reasons = {a.id: a.text for a in game.assumptions}
    count = 0
    for table in game.tables.values():
        for row, dev in deviations(table.rows):
            count += 1
            yield Choice("rulebook-deviations", f"table '{table.id}', row at line {row.location.line} differs from "
                         f"the rulebook (assumption '{dev.assumption}')", reasons.get(dev.assumption, ""),
                         dev.location, game.id)
    yield Proof("rulebook-deviations", f"{count} table row(s) differ from the printed rulebook, each with the reason "
                "its assumption gives (listed among the design choices)" if count else
                "no table row is declared to differ from the printed rulebook",
                count, game.id)
