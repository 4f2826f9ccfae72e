"""What the checker proved, beside what it found wrong.

A finding says a rule is broken; a teacher asking "is this right?" also needs to see what
was checked and held. So a rule yields three kinds of record:

* :class:`~cardgen.errors.Finding` — something is wrong (exit 1);
* :class:`Proof` — one claim the rule established, with the number of things it covered
  ("36 cards: 29 values equal PDG 2026 at printed precision");
* :class:`Choice` — a value or rule the data declares as deliberately not PDG's or not the
  rulebook's, with the reason the data gives. Choices are listed, never skipped silently.

Rules are plain generators of these records; :func:`cardgen.check.check_game` sorts them into
the :class:`~cardgen.errors.Report`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import Location


@dataclass(frozen=True)
class Proof:
    """One claim a rule proved: ``claim`` is a whole sentence with its counts in it, ``count``
    the number of things it covered (cards, values, reactions), so tests and JSON readers can
    compare it with the data."""

    rule: str
    claim: str
    count: int
    game: str = ""
    location: Location | None = None

    def as_dict(self) -> dict[str, object]:
        return {"rule": self.rule, "game": self.game, "claim": self.claim, "count": self.count,
                "file": self.location.file if self.location else None,
                "line": self.location.line if self.location else None}


@dataclass(frozen=True)
class Choice:
    """A deliberate deviation the data declares: ``subject`` names what deviates ("lifetime
    of s", "energy of u on card u-red"), ``reason`` is the data's own words."""

    rule: str
    subject: str
    reason: str
    location: Location
    game: str = ""

    def __str__(self) -> str:
        return f"{self.location}: {self.subject}: {self.reason}"

    def as_dict(self) -> dict[str, object]:
        return {"rule": self.rule, "game": self.game, "subject": self.subject, "reason": self.reason,
                "file": self.location.file, "line": self.location.line, "column": self.location.column}
