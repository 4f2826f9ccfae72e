"""Stage 2 of the pipeline: run every generic rule and every rule a game declares."""

from __future__ import annotations

from typing import Iterable

from . import schema as S
from .errors import Finding, InputError, Report, did_you_mean
from .model import Game
from .proof import Choice, Proof
from .rules import DECLARED, GENERIC


def check_records(game: Game) -> tuple[list[Finding], list[Proof], list[Choice]]:
    """Everything the rules say about one game: findings in a stable order (file, line, rule)
    without duplicates, and the proofs and declared choices in the order the rules ran."""
    records: list[Finding | Proof | Choice] = []
    for rule in GENERIC.values():
        records.extend(rule(game))
    for spec in game.checks:
        rule = DECLARED.get(spec.rule)
        if rule is None:
            raise InputError(f"unknown rule '{spec.rule}'{did_you_mean(spec.rule, DECLARED)}",
                             spec.params.where("rule"), f"use one of: {', '.join(sorted(DECLARED))}")
        params = S.Fields(spec.params, f"check '{spec.rule}'", spec.location)
        params.get("rule", S.ident)
        records.extend(rule(game, params))
        params.finish()
    findings = [r for r in records if isinstance(r, Finding)]
    proofs = list(dict.fromkeys(r for r in records if isinstance(r, Proof)))
    choices = list(dict.fromkeys(r for r in records if isinstance(r, Choice)))
    unique = list(dict.fromkeys(findings))
    ordered = sorted(unique, key=lambda f: (f.location.file, f.location.line, f.location.column, f.rule, f.message))
    return ordered, proofs, choices


def check_game(game: Game) -> list[Finding]:
    """All findings for one game, in a stable order (file, line, rule), without duplicates."""
    return check_records(game)[0]


def check(games: Game | Iterable[Game]) -> Report:
    """Check one game or several; the report is ``ok`` when no rule is broken, and also holds
    what the rules proved, the deviations the data declares and the games' assumptions."""
    games = [games] if isinstance(games, Game) else list(games)
    report = Report(games=[g.id for g in games])
    for game in games:
        findings, proofs, choices = check_records(game)
        report.extend(findings)
        report.proofs.extend(proofs)
        report.choices.extend(choices)
        report.assumptions.extend((game.id, a.id, a.text, a.location) for a in game.assumptions)
    return report
