"""A game's rule sheet and answer key (``rules.pdf``, ``answers.pdf``, see
:mod:`cardgen.sheets`): planned in the build's process, then rendered by a task of their own
on the build's worker processes, alongside the card faces rather than after them (a sheet
costs as much as a dozen faces, and ran on one core while the other waited), and staged by
the build's process once the check gate has passed."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from .. import i18n, outlinecache
from ..cache import FaceCache, cache_file, inputs_digest
from ..errors import InputError
from ..model import Game
from ..output import source_date_epoch, stage
from ..render import TextIssue
from .options import BuildOptions
from .results import BuiltFile, GameBuild, intact_bytes
from .workers import bench

#: What a sheet to render weighs against one face to render, for balancing the workers.
SHEET_COST = 20.0


@dataclass(frozen=True)
class SheetPlan:
    """One sheet of a game: kept from the last build (``kept``, with what its rendering
    reported, read back from the file) or to be rendered (``kept`` None)."""

    kind: str
    digest: str
    #: What all the game's faces share in this language (:func:`cardgen.cache.game_fingerprint`),
    #: found here once and handed to the task, which would otherwise walk the same files again.
    game_fp: str
    kept: BuiltFile | None = None
    issues: tuple[TextIssue, ...] = ()
    missing: tuple[tuple[str, str], ...] = ()
    #: The last build's sheet when its inputs changed: its bytes are kept if its pages come
    #: out the same (a data file the sheet does not print was edited; see render_sheet_file).
    previous: BuiltFile | None = None


@dataclass(frozen=True)
class SheetFile:
    """A rendered sheet: its manifest row, where it goes, its PDF, what rendering reported."""

    built: BuiltFile
    path: Path
    pdf: bytes
    issues: tuple[TextIssue, ...]
    missing: tuple[tuple[str, str], ...]


def plan_sheets(game: Game, options: BuildOptions, previous: dict[str, BuiltFile], game_fp: str) -> list[SheetPlan]:
    """The game's sheets, in :data:`cardgen.sheets.SHEETS` order. A sheet whose inputs (the
    game's data, templates, catalogs and the options it depends on; ``game_fp``: the game's
    fingerprint in this language) are unchanged and whose file is intact is kept. None on
    paper too small to hold them (see :meth:`BuildOptions.prints_sheets`)."""
    from .. import sheets

    clash = [c for c in game.components if c in sheets.SHEETS]
    if clash:
        comp = game.components[clash[0]]
        raise InputError(f"component id '{comp.id}' is the name of the {comp.id} sheet cardgen writes "
                         f"({comp.id}.pdf)", comp.where("id"), "give the component another id")
    planned: list[SheetPlan] = []
    if not options.prints_sheets():   # card-sized stock: the pieces alone (the build says so)
        return planned
    for kind in sheets.SHEETS:
        settings = {"sheet": kind, "paper": options.paper, "level": options.level, "epoch": source_date_epoch(),
                    "data_and_code": sheets.inputs_digest(game, kind)}
        digest = inputs_digest([game_fp], settings)
        old = previous.get(kind)
        notes = _kept_notes(old, digest, options) if old else None
        planned.append(SheetPlan(kind, digest, game_fp, old, *notes) if notes else
                       SheetPlan(kind, digest, game_fp, previous=old if options.cache else None))
    return planned


def _kept_notes(old: BuiltFile, digest: str, options: BuildOptions) -> tuple[tuple, tuple] | None:
    """What the last build's sheet reported when it was rendered, read from the file; None
    when it cannot be kept (inputs changed, file edited or unreadable, or ``--no-cache``)."""
    from .. import sheets

    notes = sheets.read_notes(options.out / old.path) if options.cache and old.inputs == digest \
        and _ours(old, options) is not None else None
    return (tuple(notes[0]), tuple(notes[1])) if notes is not None else None


def _ours(old: BuiltFile, options: BuildOptions) -> bytes | None:
    """The last build's sheet, if it is still the file the manifest describes and this user's
    build wrote those very bytes (see :meth:`FaceCache.vouch`); else None."""
    if not FaceCache(options.cache_root).vouched(old):
        return None
    return intact_bytes(options.out / old.path, old)


def render_sheet_file(game_ref: str, kind: str, options: BuildOptions, digest: str, game_fp: str,
                      previous: BuiltFile | None = None) -> SheetFile:
    """Render one sheet (a build task: it runs on a worker process; its PDF is staged by
    the build's process, see :func:`stage_sheet`). ``previous``: the last build's file of it,
    whose bytes are taken, if it is intact, when its pages come out the same (only laid out
    and rendered, not drawn: see :func:`cardgen.sheets.render_sheet`)."""
    from .. import sheets

    game = bench().game(game_ref)
    paper = options.sheet()
    path = options.out / game.id / options.lang / f"{kind}.pdf"
    title = f"{game.name} – {kind} ({options.lang})"
    same = _ours(previous, options) if previous is not None else None
    with outlinecache.task(options.cache):
        sheet = sheets.render_sheet(game, kind, options.lang, paper.width, paper.height,
                                    i18n.translator(game, options.lang), options.level, title, source_date_epoch(),
                                    options.cache_root and cache_file(options.cache_root), same, game_fp)
    built = BuiltFile(str(path.relative_to(options.out)), kind, paper.label, f"{paper.label} pages, single-sided",
                      sheet.pages, 0, 0, sheet.pages, hashlib.sha256(sheet.pdf).hexdigest(), digest,
                      sheets=sheet.pages)
    return SheetFile(built, path, sheet.pdf, tuple(sheet.issues), tuple(sheet.missing))


def stage_sheet(sheet: SheetFile) -> Path:
    """Write a rendered sheet as its folder's next version will hold it."""
    return stage(sheet.path, sheet.pdf)


def add_notes(result: GameBuild, issues, missing) -> None:
    """What a sheet's rendering reported, added to the game's (each issue once)."""
    result.issues.extend(i for i in issues if i not in result.issues)
    result.untranslated = sorted(set(result.untranslated) | set(missing))
