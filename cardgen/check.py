"""Stage 2 of the pipeline: run every generic rule and every rule a game declares, then
(unless told not to) render every face as a build would (:mod:`cardgen.rendercheck`)."""

from __future__ import annotations


from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from . import i18n
from . import schema as S
from ._callable import make_callable
from .errors import Finding, InputError, Location, Report, did_you_mean
from .model import MEASURING_RULES, Game
from .proof import Choice, Proof
from .rules import DECLARED, GENERIC, READS_FACES
from .rules.legibility import rendering

if TYPE_CHECKING:
    from .legibility import FaceTexts
    from .rendercheck import GameResult, SheetReport

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


Records = list[tuple[int, list[Finding | Proof | Choice]]]


def rule_records(game: Game, reading_faces: bool | None = None, only: frozenset[str] | None = None) -> Records:
    """Each rule's records, with the rule's place in the order rules run (generic rules, then
    the game's ``checks:`` in order): every rule (``reading_faces`` None), or only the rules
    that do (True) or do not (False) read the rendered faces (see :data:`cardgen.rules.READS_FACES`;
    an unknown rule counts among those that do not, and is an input error there); ``only``:
    just the game's checks of these rules."""
    out: Records = []
    if reading_faces is not True and only is None:
        for n, (name, rule) in enumerate(GENERIC.items()):
            out.append((n, _ran(name, rule(game), game, game.location)))
    for n, spec in enumerate(game.checks, start=len(GENERIC)):
        if reading_faces is not None and (spec.rule in READS_FACES) != reading_faces:
            continue
        if only is not None and spec.rule not in only:
            continue
        rule = DECLARED.get(spec.rule)
        if rule is None:
            raise InputError(f"unknown rule '{spec.rule}'{did_you_mean(spec.rule, DECLARED)}",
                             spec.params.where("rule"), f"use one of: {', '.join(sorted(DECLARED))}")
        params = S.Fields(spec.params, f"check '{spec.rule}'", spec.location)
        params.get("rule", S.ident)
        out.append((n, _ran(spec.rule, rule(game, params), game, spec.location)))
        params.finish()
    return out


def ordered_records(*parts: Records) -> tuple[list[Finding], list[Proof], list[Choice]]:
    """The rules' records, from one or more parts of :func:`rule_records`, as one run of every
    rule gives them: findings in a stable order (file, line, rule) without duplicates, proofs
    and declared choices in the order the rules run."""
    records = [r for _, rs in sorted((p for part in parts for p in part), key=lambda p: p[0]) for r in rs]
    findings = [r for r in records if isinstance(r, Finding)]
    proofs = list(dict.fromkeys(r for r in records if isinstance(r, Proof)))
    choices = list(dict.fromkeys(r for r in records if isinstance(r, Choice)))
    unique = list(dict.fromkeys(findings))
    ordered = sorted(unique, key=lambda f: (f.location.file, f.location.line, f.location.column, f.rule, f.message))
    return ordered, proofs, choices


def check_records(game: Game) -> tuple[list[Finding], list[Proof], list[Choice]]:
    """Everything the rules say about one game: findings in a stable order (file, line, rule)
    without duplicates, and the proofs and declared choices in the order the rules ran."""
    return ordered_records(rule_records(game))


def check_game(game: Game) -> list[Finding]:
    """All rule findings for one game, in a stable order (file, line, rule), without duplicates
    (no rendering: see :func:`check`)."""
    return check_records(game)[0]


def check(games: Game | Iterable[Game], render: bool = True, langs: Iterable[str] = (), strict: bool = False,
          cache: Path | None = None, loaded_ns: int | None = None, machine: bool = False) -> Report:
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
    ``render=False`` the cache is not touched); no PDF is ever written. ``loaded_ns``: the
    games were loaded from their files after that time (``cardgen check`` does so): when every
    rule passes, this machine's next build of the same files takes them as proved
    (:mod:`cardgen.verdicts`). With ``loaded_ns`` or ``machine``, what each template prints
    is also kept in this machine's cache folder, and taken from there by the next check.

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
    with shared_faces(db, machine=machine or loaded_ns is not None):
        report = _checked(games, render, langs, strict, cache)
    if report.ok and loaded_ns is not None:
        from .verdicts import keep_passes

        keep_passes(games, loaded_ns)
    return report


@dataclass(frozen=True)
class _Faces:
    """One game's rules that read the rendered faces, and its render pass
    (:func:`cardgen.rendercheck.render_game`) when those rules pass: ``rendered`` is None when
    it did not run, :data:`_FAILED` when it raised (it is run again, to raise, only if every
    rule of the game passes: a build refuses to render a deck whose rules fail)."""

    records: Records
    rendered: GameResult | str | None
    sheet_reports: dict[str, SheetReport] = field(default_factory=dict)   # its sheets' reports, by key


_FAILED = "failed"


def _passes(records: Iterable[Finding | Proof | Choice]) -> bool:
    """No rule found an error: the game may be rendered (a build would render it)."""
    return not any(isinstance(r, Finding) and r.severity == "error" for r in records)


def _faces_and_render(game: Game, langs: list[str], strict: bool, cache: Path | None) -> _Faces:
    """The rules of ``game`` that read its faces, then its render pass, in one process: the
    faces those rules rendered are the ones the render pass takes (:mod:`cardgen.checkfaces`).
    After a build, the legibility rules read the faces as the build measured them
    (:func:`cardgen.rendercheck.built_measures`) and the render pass takes them from its cache."""
    from .legibility import measured
    from .rendercheck import built_measures, render_game, reports_made

    faces = built_measures(game, cache) if cache is not None else None
    # the legibility rules measure the faces only when the check renders them (or a build has)
    with rendering(True), measured(game, faces) if faces is not None else nullcontext():
        records = rule_records(game, reading_faces=True)
    if not _passes(r for _, rs in records for r in rs):
        return _Faces(records, None)
    try:
        with reports_made() as sheet_reports:
            found, shown, proofs = render_game(game, langs, strict, cache)
    except Exception:
        return _Faces(records, _FAILED)
    return _Faces(records, (found + _translations_measured(game, langs, found), shown, proofs), sheet_reports)


def _translations_measured(game: Game, langs: list[str], found: list[Finding]) -> list[Finding]:
    """The rules that read the faces' texts, on the translated faces, as a build in each of
    those languages runs them: after its text has rendered without errors (a text that does
    not fit or lacks glyphs is reported as that, by the render pass, first)."""
    from .legibility import Unrendered, language_faces
    from .rendercheck import wanted_languages

    translated = [lang for lang in wanted_languages(game, langs) if lang != i18n.SOURCE_LANG]
    if not translated or any(f.severity == "error" for f in found):
        return []
    try:
        faces = [f for lang in translated for f in language_faces(game, lang)]
    except Unrendered:
        return []   # the render pass said why
    return measuring_findings(game, faces)


def measuring_findings(game: Game, faces: list[FaceTexts]) -> list[Finding]:
    """What the game's rules that read faces' texts find on ``faces``, measured elsewhere (a
    build's workers, a check's translated faces), in the findings' stable order."""
    return measuring_records(game, faces)[0]


def measuring_records(game: Game, faces: list[FaceTexts]) -> tuple[list[Finding], list[Proof], list[Choice]]:
    """The records of the game's rules that read faces' texts, run on ``faces`` (see
    :func:`measuring_findings`; the preview shows their proofs too)."""
    from .legibility import measured

    with measured(game, faces), rendering(True):
        return ordered_records(rule_records(game, only=MEASURING_RULES))


def _checked(games: list[Game], render: bool, langs: list[str], strict: bool, cache: Path | None) -> Report:
    """:func:`check`, within one set of shared faces. Without rendering, each game's rules.
    With it, each game's check is two pieces of work: the rules that do not read its faces,
    and those that do with its render pass (most of a second for a large game); with a second
    core a forked worker shares the pieces (:mod:`cardgen.forkpair`), the largest first. A
    game a piece of which raised is checked again here as one piece, so an error is raised
    as checking one game after the other raises it. The report lists every game's rule
    records first, then every render pass, in the games' order, however they ran."""
    if not render:
        checked = [(check_records(game), None) for game in games]
    else:
        checked = _rendered_checks(games, langs, strict, cache)
    report = Report(games=[g.id for g in games])
    for game, ((findings, proofs, choices), _) in zip(games, checked):
        report.extend(findings)
        report.proofs.extend(proofs)
        report.choices.extend(choices)
        report.assumptions.extend((game.id, a.id, a.text, a.location) for a in game.assumptions)
    for _, rendered in checked:
        if rendered is not None:
            found, shown, render_proofs = rendered
            report.extend(found)
            report.rendered.extend(shown)
            report.proofs.extend(render_proofs)
    report.findings = once(report.findings)
    return report


def once(findings: list[Finding]) -> list[Finding]:
    """The findings with each one said once: data every game shares (data/particles.yaml) is
    checked with each game, and each game's check finds the same broken value at the same
    place; listed once per game, one mistake would count as several. The first game that found
    it keeps it, in the order found, naming the others (``also``: each game's verdict in the
    report still counts it)."""
    first: dict[tuple[str, str, Location, str, str], Finding] = {}
    for f in findings:
        key = (f.rule, f.severity, f.location, f.message, f.fix)
        kept = first.setdefault(key, f)
        if kept is not f and f.game != kept.game and f.game not in kept.also:
            first[key] = replace(kept, also=(*kept.also, f.game))
    return list(first.values())


def _rendered_checks(games: list[Game], langs: list[str], strict: bool, cache: Path | None
                     ) -> list[tuple[tuple[list[Finding], list[Proof], list[Choice]], GameResult | None]]:
    """Each game's rule records and render pass (None when its rules fail)."""
    from . import forkpair
    from .rendercheck import before_fork, remember_reports, sides_to_render

    pieces = [(True, n) for n in range(len(games))] + [(False, n) for n in range(len(games))]

    def work(piece: tuple[bool, int]) -> Records | _Faces:
        faces, n = piece
        if faces:
            return _faces_and_render(games[n], langs, strict, cache)
        return rule_records(games[n], reading_faces=False)   # the rules that do not read its faces

    def cost(piece: tuple[bool, int]) -> float:
        # faces first, the most sides first; the rules apart fill in after them, in order
        faces, n = piece
        return sides_to_render(games[n], langs) if faces else -n

    done = forkpair.each(pieces, work, cost, before_fork=partial(before_fork, cache))
    out = []
    for n, game in enumerate(games):
        faces, apart = done[n], done[len(games) + n]
        if isinstance(faces, _Faces):   # rendered here or in the worker: this process remembers it
            remember_reports(faces.sheet_reports)
        if faces is None or apart is None:   # a piece raised: the whole game again, to raise it here
            checked = _check_one(game, langs, strict, cache)
        else:
            records = ordered_records(faces.records, apart)
            rendered = faces.rendered if _passes(records[0]) else None
            if rendered == _FAILED:
                from .rendercheck import render_game

                rendered = render_game(game, langs, strict, cache)
            checked = (records, rendered)
        out.append(checked)
    return out


def _check_one(game: Game, langs: list[str], strict: bool, cache: Path | None
               ) -> tuple[tuple[list[Finding], list[Proof], list[Choice]], GameResult | None]:
    """One game's rules, then (if they pass) its render pass, one after the other."""
    from .rendercheck import render_game

    with rendering(True):
        records = check_records(game)
    return records, (render_game(game, langs, strict, cache) if _passes(records[0]) else None)


make_callable(__name__, "check", __name__)   # cardgen.check(...) is check() above (see cardgen._callable)
