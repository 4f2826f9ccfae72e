"""A game's rule sheet and answer key (``rules.pdf``, ``answers.pdf``, see
:mod:`cardgen.sheets`), built in the build's process after its cards and staged like them."""

from __future__ import annotations

import hashlib
from pathlib import Path

from .. import i18n
from ..cache import cache_file, game_fingerprint, inputs_digest
from ..errors import InputError
from ..model import Game
from ..output import source_date_epoch, stage
from .options import BuildOptions
from .results import BuiltFile, GameBuild, intact


def stage_sheets(game: Game, result: GameBuild, options: BuildOptions,
                 previous: dict[str, BuiltFile]) -> tuple[list[BuiltFile], list[Path]]:
    """The sheets' files, staged. A sheet whose inputs (the game's data, templates, catalogs
    and the options it depends on) are unchanged and whose file is intact is kept, and what
    its rendering reported is read back from it."""
    from .. import sheets

    clash = [c for c in game.components if c in sheets.SHEETS]
    if clash:
        comp = game.components[clash[0]]
        raise InputError(f"component id '{comp.id}' is the name of the {comp.id} sheet cardgen writes "
                         f"({comp.id}.pdf)", comp.where("id"), "give the component another id")
    files: list[BuiltFile] = []
    staged: list[Path] = []
    game_fp = game_fingerprint(game, options.lang)   # templates, fonts, catalogs, physics data
    for kind in sheets.SHEETS:
        settings = {"sheet": kind, "paper": options.paper, "level": options.level, "epoch": source_date_epoch(),
                    "data_and_code": sheets.inputs_digest(game)}
        digest = inputs_digest([game_fp], settings)
        old = previous.get(kind)
        if old and _kept(old, digest, result, options):
            files.append(old)
            continue
        built, path = _render(game, kind, result, options, digest)
        files.append(built)
        staged.append(path)
    return files, staged


def _kept(old: BuiltFile, digest: str, result: GameBuild, options: BuildOptions) -> bool:
    """Keep the last build's sheet, taking what its rendering reported from the file."""
    from .. import sheets

    notes = sheets.read_notes(options.out / old.path) if options.cache and old.inputs == digest \
        and intact(options.out / old.path, old) else None
    if notes is None:
        return False
    _add(result, *notes)
    return True


def _render(game: Game, kind: str, result: GameBuild, options: BuildOptions, digest: str) -> tuple[BuiltFile, Path]:
    from .. import sheets

    paper, path = options.sheet(), result.folder / f"{kind}.pdf"
    title = f"{game.name} – {kind} ({options.lang})"
    sheet = sheets.render_sheet(game, kind, options.lang, paper.width, paper.height,
                                i18n.translator(game, options.lang), options.level, title, source_date_epoch(),
                                options.cache_root and cache_file(options.cache_root))
    _add(result, sheet.issues, sheet.missing)
    built = BuiltFile(str(path.relative_to(options.out)), kind, paper.label, f"{paper.label} pages, single-sided",
                      sheet.pages, 0, 0, sheet.pages, hashlib.sha256(sheet.pdf).hexdigest(), digest,
                      sheets=sheet.pages)
    return built, stage(path, sheet.pdf)


def _add(result: GameBuild, issues, missing) -> None:
    result.issues.extend(i for i in issues if i not in result.issues)
    result.untranslated = sorted(set(result.untranslated) | set(missing))
