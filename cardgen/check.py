"""Stage 2 of the pipeline: run every generic rule and every rule a game declares."""

from __future__ import annotations

from typing import Iterable

from . import schema as S
from .errors import Finding, InputError, Report, did_you_mean
from .model import Game
from .rules import DECLARED, GENERIC


def check_game(game: Game) -> list[Finding]:
    """All findings for one game, in a stable order (file, line, rule), without duplicates."""
    findings: list[Finding] = []
    for rule in GENERIC.values():
        findings.extend(rule(game))
    for spec in game.checks:
        rule = DECLARED.get(spec.rule)
        if rule is None:
            raise InputError(f"unknown rule '{spec.rule}'{did_you_mean(spec.rule, DECLARED)}",
                             spec.params.where("rule"), f"use one of: {', '.join(sorted(DECLARED))}")
        params = S.Fields(spec.params, f"check '{spec.rule}'", spec.location)
        params.get("rule", S.ident)
        findings.extend(rule(game, params))
        params.finish()
    unique = list(dict.fromkeys(findings))
    return sorted(unique, key=lambda f: (f.location.file, f.location.line, f.location.column, f.rule, f.message))


def check(games: Game | Iterable[Game]) -> Report:
    """Check one game or several; the report is ``ok`` when no rule is broken."""
    games = [games] if isinstance(games, Game) else list(games)
    report = Report(games=[g.id for g in games])
    for game in games:
        report.extend(check_game(game))
    return report
