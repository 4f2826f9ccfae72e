"""The proof report: a checker's answer a teacher can hand to a colleague.

"Is this deck right?" needs more than the list of what is wrong. Per game the report says what
every rule checked and proved (:class:`~cardgen.proof.Proof`), what the data deliberately does
differently from the rulebook or PDG and why (:class:`~cardgen.proof.Choice`), what the game
assumes where its rulebook is silent (``assumptions:`` in game.yaml), and then the findings.
It only arranges what the rules yielded, so a new rule's proofs appear without any change here.
The same sections feed ``cardgen check --report``, its ``--json`` and the preview
(:mod:`cardgen.serve`).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any

from .check import RAN_CLEAN
from .errors import Finding, Location, Report

WIDTH = 100


@dataclass(frozen=True)
class Item:
    """One line of a section: ``kind`` is proved, ran, choice, assumption, error or warning;
    ``where`` the file:line it comes from (empty when it has none)."""

    kind: str
    text: str
    where: str = ""


@dataclass(frozen=True)
class Section:
    title: str
    items: tuple[Item, ...]
    empty: str   # what the section says when it has no items


def verdict(report: Report, game: str) -> str:
    """The report's first line for a game: the answer, then how it was reached."""
    errors = [f for f in report.findings if f.concerns(game) and f.severity == "error"]
    warnings = [f for f in report.findings if f.concerns(game) and f.severity != "error"]
    rendered = any(r.game == game for r in report.rendered)
    if errors:
        answer = (f"No: {len(errors)} finding{'s' if len(errors) != 1 else ''} to fix (listed last)" +
                  ("." if rendered else "; its faces are rendered once the rules pass."))
    else:
        answer = "Yes: every rule passes" + (" and every face renders." if rendered else
                                             " (faces not rendered: --no-render).")
    if warnings:
        answer += f" {len(warnings)} warning{'s' if len(warnings) != 1 else ''} to look at."
    return f"Is this deck right? {answer}"


def sections(report: Report, game: str) -> list[Section]:
    """The report of one game: what was checked, chosen, assumed, and what is wrong."""
    proofs = [p for p in report.proofs if p.game == game]
    checked = tuple(Item("ran" if p.claim == RAN_CLEAN else "proved", f"{p.rule}: {p.claim}", _where(p.location))
                    for p in proofs)
    choices = tuple(Item("choice", f"{c.subject}: {c.reason} [{c.rule}]", _where(c.location))
                    for c in report.choices if c.game == game)
    assumed = tuple(Item("assumption", f"{aid}: {text}", _where(loc))
                    for gid, aid, text, loc in report.assumptions if gid == game)
    wrong = tuple(_finding_item(f) for f in report.findings if f.concerns(game))
    return [
        Section(f"What was checked ({len(checked)})", checked, "no rule ran"),
        Section(f"What the data chose on purpose ({len(choices)})", choices,
                "no declared deviation from the rulebook or PDG"),
        Section(f"What it assumes where the rulebook is silent ({len(assumed)})", assumed, "no assumptions declared"),
        Section(f"What is wrong ({len(wrong)})", wrong, "nothing: every rule passes"),
    ]


def _finding_item(f: Finding) -> Item:
    return Item(f.severity if f.severity == "error" else "warning",
                f"{f.rule}: {f.message.rstrip('.')}. Fix: {f.fix.rstrip('.')}.", _where(f.location))


def _where(loc: Location | None) -> str:
    return str(loc) if loc is not None and loc.file else ""


_MARKS = {"proved": "✓", "ran": "✓", "choice": "•", "assumption": "•", "error": "✗", "warning": "!"}


def report_text(report: Report) -> str:
    """The whole report as plain text, game after game (``cardgen check --report``)."""
    out: list[str] = []
    for game in report.games:
        rendered = ", ".join(f"{r.faces} faces in {r.lang}" for r in report.rendered if r.game == game)
        out += [f"== {game} ==", verdict(report, game)]
        if rendered:
            out.append(f"Rendered {rendered}.")
        for section in sections(report, game):
            out += ["", section.title + ":"]
            if not section.items:
                out.append(f"  {section.empty}")
            for item in section.items:
                line = f"{_MARKS[item.kind]} {item.text}" + (f"  ({item.where})" if item.where else "")
                out.append(textwrap.fill(line, WIDTH, initial_indent="  ", subsequent_indent="      ",
                                         break_on_hyphens=False, break_long_words=False))
        out.append("")
    errors = sum(1 for f in report.findings if f.severity == "error")
    out.append(f"checked {len(report.games)} game(s): " +
               ("all rules pass" if report.ok else f"{errors} finding{'s' if errors != 1 else ''}"))
    return "\n".join(out) + "\n"


def empty_json(games: list[str]) -> dict[str, Any]:
    """The JSON shape with nothing in it (what ``--json`` prints around an input error)."""
    return {"ok": False, "games": games, "errors": [], "findings": [], "proofs": [], "choices": [],
            "assumptions": [], "rendered": []}


def report_json(report: Report) -> dict[str, Any]:
    """The report as JSON: the findings as before, and what was proved, chosen, assumed and rendered."""
    return {
        "ok": report.ok, "games": report.games, "errors": [],
        "findings": [f.as_dict() for f in report.findings],
        "proofs": [p.as_dict() for p in report.proofs],
        "choices": [c.as_dict() for c in report.choices],
        "assumptions": [{"game": gid, "id": aid, "text": text, "file": loc.file, "line": loc.line,
                         "column": loc.column} for gid, aid, text, loc in report.assumptions],
        "rendered": [r.as_dict() for r in report.rendered],
    }
