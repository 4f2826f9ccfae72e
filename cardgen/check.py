"""Stage 2 of the pipeline: run every generic rule and every rule a game declares, then
(unless told not to) render every face as a build would (:mod:`cardgen.rendercheck`)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from . import schema as S
from ._callable import make_callable
from .errors import Finding, InputError, Location, Report, did_you_mean
from .model import Game
from .proof import Choice, Proof
from .rules import DECLARED, GENERIC
from .rules.legibility import rendering

#: What the report says of a rule that ran and found nothing, but proved nothing in words either.
RAN_CLEAN = "ran: no findings"


def _ran(rule: str, records: Iterable[Finding | Proof | Choice], game: Game,
         where: Location) -> list[Finding | Proof | Choice]:
    """A rule's records; one that neither found nor proved anything still shows in the report
    (nothing the checker ran is silent)."""
    out = list(records)
    if not any(isinstance(r, (Finding, Proof)) for r in out):
        out.append(Proof(rule, RAN_CLEAN, 0, game.id, where))
    return out


def check_records(game: Game) -> tuple[list[Finding], list[Proof], list[Choice]]:
    """Everything the rules say about one game: findings in a stable order (file, line, rule)
    without duplicates, and the proofs and declared choices in the order the rules ran."""
    records: list[Finding | Proof | Choice] = []
    for name, rule in GENERIC.items():
        records.extend(_ran(name, rule(game), game, game.location))
    for spec in game.checks:
        rule = DECLARED.get(spec.rule)
        if rule is None:
            raise InputError(f"unknown rule '{spec.rule}'{did_you_mean(spec.rule, DECLARED)}",
                             spec.params.where("rule"), f"use one of: {', '.join(sorted(DECLARED))}")
        params = S.Fields(spec.params, f"check '{spec.rule}'", spec.location)
        params.get("rule", S.ident)
        records.extend(_ran(spec.rule, rule(game, params), game, spec.location))
        params.finish()
    findings = [r for r in records if isinstance(r, Finding)]
    proofs = list(dict.fromkeys(r for r in records if isinstance(r, Proof)))
    choices = list(dict.fromkeys(r for r in records if isinstance(r, Choice)))
    unique = list(dict.fromkeys(findings))
    ordered = sorted(unique, key=lambda f: (f.location.file, f.location.line, f.location.column, f.rule, f.message))
    return ordered, proofs, choices


def check_game(game: Game) -> list[Finding]:
    """All rule findings for one game, in a stable order (file, line, rule), without duplicates
    (no rendering: see :func:`check`)."""
    return check_records(game)[0]


def check(games: Game | Iterable[Game], render: bool = True, langs: Iterable[str] = (), strict: bool = False,
          cache: Path | None = None) -> Report:
    """Check one game or several, as ``cardgen check`` does; the report is ``ok`` when no rule
    is broken, and also holds what the rules proved, the deviations the data declares and the
    games' assumptions.

    With ``render`` (the default) every face of every component is also rendered in English
    and in ``langs`` ('all': every language with a catalog) and drawn in memory, as a build
    would (a game whose rules fail is not rendered, as a build does not render it): a
    template a build would fail on raises the build's error here, and text that does
    not fit, uncovered characters and untranslated strings (errors with ``strict``) are
    findings. ``render=False`` runs the rules alone, in milliseconds (what ``cardgen build``
    does before it renders anyway). ``cache``: a build cache folder (``OUT/.cache``): its
    compiled templates are reused, faces a build cached are taken from it, and which faces
    drew without error and what each template prints are kept there for the next check (with
    ``render=False`` the cache is not touched); no PDF is ever written.

    Within one check every face is rendered at most once, by whichever part reads it first —
    a rule reading what a card prints, or the render pass (:mod:`cardgen.checkfaces`)."""
    games = [games] if isinstance(games, Game) else list(games)
    langs = list(langs)
    if langs and not render:
        raise InputError("languages to render were given, but rendering is off", None,
                         "drop --no-render (render=False) or the languages")
    from .checkfaces import shared_faces

    db = None
    if cache is not None and render:
        from .cache import cache_file

        db = cache_file(cache)
    with shared_faces(db):
        return _checked(games, render, langs, strict, cache)


def _checked(games: list[Game], render: bool, langs: list[str], strict: bool, cache: Path | None) -> Report:
    """:func:`check`, within one set of shared faces: the rules first, then the render pass
    of each game whose rules pass."""
    report = Report(games=[g.id for g in games])
    for game in games:
        with rendering(render):   # the legibility rules measure the faces only when the check renders them
            findings, proofs, choices = check_records(game)
        report.extend(findings)
        report.proofs.extend(proofs)
        report.choices.extend(choices)
        report.assumptions.extend((game.id, a.id, a.text, a.location) for a in game.assumptions)
    if render:
        from .rendercheck import render_games

        broken = {f.game for f in report.findings if f.severity == "error"}
        # as a build, which refuses to render a deck whose rules fail
        passed = [game for game in games if game.id not in broken]
        for found, rendered, render_proofs in render_games(passed, langs, strict, cache):
            report.extend(found)
            report.rendered.extend(rendered)
            report.proofs.extend(render_proofs)
    return report


make_callable(__name__, "check", __name__)   # cardgen.check(...) is check() above (see cardgen._callable)
