"""What stops a build before it replaces any file: rule findings (the check gate, as
``cardgen check`` finds them), untranslated strings under ``--strict``, and text that would
print cut off or as boxes. Each is an error with exit code 1, like findings: the deck is
wrong, not the command."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .. import i18n
from ..errors import CardgenError, Location, display_path
from ..model import Game
from .faces import FaceChunk
from .options import BuildOptions
from .plan import JobPlan, RenderWork, face_sides
from .results import GameBuild

if TYPE_CHECKING:
    from ..legibility import FaceTexts
    from ..render import TextIssue


class RuleFindingsError(CardgenError):
    """The rules found the deck wrong: a build of it would print a wrong game (exit 1)."""

    exit_code = 1

    def __init__(self, findings: list) -> None:
        self.findings = findings
        super().__init__(f"not building: {len(findings)} rule finding(s); run 'cardgen check'",
                         findings[0].location if findings else None, "fix the findings 'cardgen check' lists")


class TextProblemsError(CardgenError):
    """Text that would print cut off or as boxes: the deck is not right (exit 1, like findings)."""

    exit_code = 1


class UntranslatedError(CardgenError):
    """--strict and a string without translation: the deck is incomplete (exit 1, like findings)."""

    exit_code = 1


def check_rules(games: list[Game], loaded_ns: int | None = None, machine: bool = False) -> None:
    """The check gate: every rule of ``cardgen check`` (not its render pass: the build renders
    every face itself, and fails as the check would). The rules that measure rendered faces
    (text size, contrast, turned indices) say here that they did not measure: the build runs
    them once its faces are rendered (:func:`check_legibility`).

    ``loaded_ns``: the games were loaded from their files after that time (not handed over
    loaded, which may differ from their files): a game whose files this machine has already
    seen pass is taken as proved, and a game that passes is kept so (:mod:`cardgen.verdicts`).
    ``machine``: the build may keep things on this machine (not ``--no-cache``): what each
    template prints is taken from, and kept in, the machine's template cache — it depends on
    the template's source alone, so it holds for games handed over loaded too."""
    from ..check import check
    from ..verdicts import Verdicts, game_digests

    kept = Verdicts()
    digests = game_digests(games, loaded_ns) if loaded_ns is not None else [None] * len(games)
    todo = [(g, d) for g, d in zip(games, digests) if d is None or not kept.passed(d)]
    if not todo:
        return
    report = check([g for g, _ in todo], render=False, machine=machine or loaded_ns is not None)
    if not report.ok:
        raise RuleFindingsError(list(report.findings))
    kept.remember(d for _, d in todo if d is not None)


def measures_faces(game: Game) -> bool:
    """Whether the game declares a rule that reads the texts its faces print (a build then
    measures every face it renders: see :func:`check_legibility`). A game that declares none
    is not measured: a fifth of the work of drawing a face, that nothing would read."""
    return any(spec.measures_faces for spec in game.checks)


def legibility_errors(game: Game, faces: list[FaceTexts]) -> list:
    """What the legibility rules the game declares find wrong in the faces this build prints
    (``faces``: measured where they were rendered, see :func:`measured_faces`): a text too
    small, too faint or misread upside down, as ``cardgen check`` would have found it. The
    build asks as soon as a game's faces are rendered, while its PDFs are written, and stops
    on the answer (:func:`check_legibility`) before anything is staged."""
    from ..check import measuring_findings

    return [f for f in measuring_findings(game, faces) if f.severity == "error"]


def check_legibility(errors: list) -> None:
    """Stop the build on what :func:`legibility_errors` found."""
    if errors:
        raise RuleFindingsError(errors)


def measured_faces(game: Game, issues: Iterable[TextIssue], options: BuildOptions, jobs: list[JobPlan],
                   chunks: dict[str, list[tuple[RenderWork, FaceChunk]]]) -> list[FaceTexts]:
    """Every distinct face of a game's print jobs with its measured texts, from the chunks its
    workers rendered (``chunks``: by job id, each with the work it did) and, for a file kept
    from the last build, from the face cache (each job's ``notes``). Each face names the first
    card showing it and counts the card sides that do (copies, class sets and spares aside).

    ``issues``: what rendering those faces reported. A text the user chose to print although
    it overflows (``--allow-overflow``) or lacks glyphs (``--allow-missing-glyphs``) is left
    out: it prints as it comes, small or boxed."""
    from ..legibility import FaceRef, FaceTally, texts_from_data

    allowed = {(i.component, i.card, i.side, i.field) for i in issues
               if (i.kind == "overflow" and options.allow_overflow)
               or (i.kind == "missing-glyphs" and options.allow_missing_glyphs)}
    tally = FaceTally()
    records: dict[tuple, Any] = {}

    def note(comp_id: str, card_id: str, side: str, mark, key: str, template: str, texts: tuple) -> None:
        tally.add(FaceRef(comp_id, card_id, side, options.lang, key, template, mark),
                  lambda: tuple(t for t in texts_from_data(texts, records) if (comp_id, card_id, side, t.field) not in allowed))

    for jp in jobs:
        if jp.reused:   # the job's notes are its faces from the cache, in face_sides order
            sides = [(cid, *face) for cid, keys in jp.parts for face in face_sides(keys)]
            for (cid, card, side, _key, mark), hit in zip(sides, jp.notes):
                note(cid, card, side, mark, hit.svg_key, hit.template, hit.texts)
            continue
        for work, chunk in chunks.get(jp.job.id, []):
            for (card, _n, _fk, _bk, mark), (front, back, _count) in zip(work.cards, chunk.order):
                for side, key in (("front", front), ("back", back)):
                    if key is not None:
                        template, texts = chunk.measured[key]
                        note(work.component, card, side, mark, key, template, texts)
    return tally.faces()


def check_strict(game: Game, result: GameBuild, options: BuildOptions) -> None:
    """With --strict an untranslated string stops the build before anything is written."""
    if options.strict and result.untranslated:
        listing = "; ".join(f"{m!r}" + (f" ({c})" if c else "") for m, c in result.untranslated[:10])
        raise UntranslatedError(f"{game.id}: {len(result.untranslated)} string(s) have no '{options.lang}' "
                                f"translation: {listing}", Location(display_path(i18n.po_path(game, options.lang))),
                                "translate them (cardgen i18n status) or build without --strict")


def check_text(game: Game, result: GameBuild, options: BuildOptions) -> None:
    """Text that does not fit its box, or characters no font covers, stop the build before
    anything is written, with the findings ``cardgen check`` gives for them, unless the user
    allows them (the PDF then shows the overflowing text, and each missing character as a box
    with its code point)."""
    from ..fitcheck import issue_finding

    refused = [i for i in result.issues
               if (i.kind == "overflow" and not options.allow_overflow)
               or (i.kind == "missing-glyphs" and not options.allow_missing_glyphs)]
    if refused:
        locator = i18n.MessageLocator(game, options.lang)
        findings = list(dict.fromkeys(issue_finding(game, issue, locator) for issue in refused))
        listing = "\n".join(f"  {f}" for f in findings)
        raise TextProblemsError(f"{game.id} ({options.lang}): {len(findings)} text problem(s) would print badly; "
                                f"nothing was written:\n{listing}", findings[0].location,
                                "fix them (cardgen check --lang " + options.lang + " lists them), or print them anyway "
                                "with --allow-overflow / --allow-missing-glyphs", "text")
