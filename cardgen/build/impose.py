"""One print job's PDF: its rendered faces laid out on paper and written, staged (renamed
into place only when the whole build succeeded, see :func:`cardgen.output.commit`).

A job is a component, a spare set of one, or small components sharing one sheet. Sheets
hold a grid of pieces (fronts, then backs mirrored for duplex); a piece larger than the paper
is tiled over several sheets; ``--mode single`` writes one piece per page.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from .. import i18n, outlinecache
from ..errors import InputError, file_system_error
from ..imposition import (REGISTRATION_GAP, REGISTRATION_SIZE, CardGeometry, Duplex, GridPlan, ImpositionError, Placement,
                          plan_sheet, plan_tiles, stack_bands)
from ..imposition.words import english, orientation
from ..model import Component, Game
from ..output import source_date_epoch, stage, staged_file, staging
from ..pdfwrite import PdfWriteError, write_shared, write_sheets, write_single, write_tiled
from . import report, spool
from .faces import FaceChunk
from .options import BuildOptions
from .plan import PrintJob, band_plan_of, card_geometry, job_level, print_jobs
from .results import BuiltFile
from .spool import SpooledFaces
from .workers import bench


@dataclass
class _Layout:
    """What writing a job's pages produced, for its manifest row: the layout in English (the
    manifest's) and in the deck's language (``printed``, PRINTING.txt's)."""

    layout: str
    per_sheet: int
    sheets: int
    cuts: int
    double: bool = False
    note: str = ""
    bleed: float | None = None   # printed around each piece (sheets of pieces only)
    printed: str = ""


def write_job(game_ref: str, job_id: str, chunks: list[FaceChunk], options: BuildOptions,
              inputs: str) -> tuple[BuiltFile, list[Path]]:
    """Impose one print job's rendered faces; its PDF (and cut file) are staged. The job is
    named by id (a task's arguments travel to a worker process; the game is there already).
    The faces are read from the chunks' spool files as they are placed, and the PDF written
    straight to its file: memory does not grow with the deck (see :class:`cardgen.pdfdoc.Doc`)."""
    game = bench().game(game_ref)
    job = next(j for j in print_jobs(game, options.level, options) if j.id == job_id)
    placements: list[Placement] = []
    by_component: dict[str, list[Placement]] = {}
    for chunk in chunks:
        for front, back, count in chunk.order:
            placements.extend([Placement(front, back)] * count)
            by_component.setdefault(chunk.component, []).extend([Placement(front, back)] * count)
    try:
        with outlinecache.task(options.cache), \
                SpooledFaces((chunk.spool, chunk.places, chunk.relocated) for chunk in chunks) as faces:
            if job.members:
                return _write_shared(game, job, by_component, faces, options, inputs)
            return _write_one(game, job, placements, faces, options, inputs)
    finally:
        spool.remove(chunk.spool for chunk in chunks)


def _write_one(game: Game, job: PrintJob, placements: list[Placement], faces: Mapping[str, bytes],
               options: BuildOptions, inputs: str) -> tuple[BuiltFile, list[Path]]:
    """One component's (or spare set's) PDF, on sheets, tiled or one piece per page."""
    comp = job.comp
    folder = options.out / game.id / options.lang
    _ = report.translating(i18n.translator(game, options.lang))
    footer = report.footer(_, game, report.job_name(_, comp, job.spare_level is not None), options.lang)
    title = f"{game.name} – {comp.name} ({options.lang})"
    path = folder / f"{job.id}.pdf"
    staged: list[Path] = [path]
    try:
        with staging(path) as to:
            if options.mode == "single":   # a single-sided printer leaves deck backs out here too
                laid = _single(single_sided(placements, options.sets) if options.duplex == "none" else placements,
                               faces, comp, title, _, to)
            else:
                laid, cut_svg = _on_sheets(placements, faces, comp, options, footer, title, _, to)
                if cut_svg is not None:
                    staged.append(stage(folder / f"{job.id}-cut.svg", cut_svg))
    except (ImpositionError, PdfWriteError) as exc:
        raise InputError(f"{game.id}/{comp.id}: {exc}", comp.location, "choose a larger --paper") from None
    sha256, pages = _written(path)
    return BuiltFile(str(path.relative_to(options.out)), job.id, options.sheet().label, laid.layout,
                     pages, laid.per_sheet, len(placements), len(faces), sha256, inputs, sheets=laid.sheets, double_sided=laid.double,
                     cuts=laid.cuts, sets=options.sets, spare_of=comp.id if job.spare_level is not None else "",
                     level_mark=job_level(game, job), bleed_note=laid.note,
                     bleed_mm=laid.bleed, printed_layout=laid.printed), staged


def single_sided(placements: list[Placement], sets: int) -> list[Placement]:
    """The pieces as a single-sided printer prints them (``--duplex none``): a deck back — one
    back shared by pieces of different fronts, there to hide which piece is which — is left
    out, and the pieces print fronts only; a back that is part of the piece (backs that differ
    from piece to piece, or the back of a one-design piece such as a reference card) is kept,
    on a page of its own after its fronts, to print on the reverse or glue behind them. Class
    sets mark both sides, so each set has a back of its own (``sets``)."""
    fronts = {p.front for p in placements}
    backs = {p.back for p in placements if p.back is not None}
    if backs and (len(backs) > sets or len(fronts) <= sets):
        return placements
    return [Placement(p.front, None) for p in placements]


def _duplex(options: BuildOptions, placements: Iterable[Placement]) -> Duplex:
    """How the writer lays the backs out: as asked, for a single-sided printer as for turning
    the printed stack over on the long edge (see :func:`single_sided`); "none" when no piece
    has a back."""
    if not any(p.back for p in placements):
        return "none"
    return options.duplex if options.duplex != "none" else "long"


def _single(placements: list[Placement], faces: Mapping[str, bytes], comp: Component, title: str,
            _: report.Say, to: BinaryIO) -> _Layout:
    """One piece per page, for print services."""
    geometry = card_geometry(comp)
    write_single(placements, faces, geometry, creation_epoch=source_date_epoch(), title=title, to=to)
    cuts = len(placements) * (4 if comp.shape.is_rectangular else len(geometry.outline or ()) or 1)

    def layout(_: report.Say) -> str:
        return _("one card per page, bleed box = page, TrimBox/BleedBox set")

    return _Layout(layout(english), 1, len(placements), cuts, any(p.back for p in placements), printed=layout(_))


def _on_sheets(placements: list[Placement], faces: Mapping[str, bytes], comp: Component, options: BuildOptions,
               footer: report.Footer, title: str, _: report.Say, to: BinaryIO) -> tuple[_Layout, bytes | None]:
    """A grid of pieces per sheet, and the cut file when asked for (shaped pieces); a single
    card larger than the paper is tiled instead."""
    paper, geometry = options.sheet(), card_geometry(comp)
    cutting = options.cut_file and not geometry.is_rectangular
    # print-and-cut: the cutter finds the sheet by registration squares beside the block,
    # which must print: inside the printer's margin, not in it
    margin = options.margin + REGISTRATION_SIZE + REGISTRATION_GAP if cutting else options.margin
    try:
        plan = plan_sheet(paper.width, paper.height, geometry, margin=margin, gutter=options.gutter,
                          bleed=None if options.bleed is None else min(options.bleed, comp.bleed),
                          paper_label=paper.label, count=len(placements))
    except ImpositionError:
        if len(comp.cards) != 1:
            raise
        return _tiled(placements, faces, comp, options, footer, title, _, to), None
    if options.duplex == "none":
        placements = single_sided(placements, options.sets)
    duplex = _duplex(options, placements)
    write_sheets(placements, faces, geometry, plan, duplex=duplex, marks=options.marks,
                 back_offset=options.back_offset, footer=footer, title=title,
                 creation_epoch=source_date_epoch(), registration=cutting, to=to)
    laid = _Layout(plan.describe(), plan.per_sheet, -(-len(placements) // plan.per_sheet),
                   plan.cuts(len(placements)), duplex != "none", plan.note if plan.bleed_given_up else "", plan.bleed,
                   plan.describe(_))
    return laid, _cut_svg(geometry, plan, len(placements)) if cutting else None


def _tiled(placements: list[Placement], faces: Mapping[str, bytes], comp: Component, options: BuildOptions,
           footer: report.Footer, title: str, _: report.Say, to: BinaryIO) -> _Layout:
    """A piece larger than the paper (a game board), in overlapping tiles to glue together."""
    paper = options.sheet()
    tiles = plan_tiles(comp.width, comp.height, paper.width, paper.height, margin=options.margin)
    write_tiled([faces[p.front] for p in placements], comp.width, comp.height, paper.width,
                paper.height, margin=options.margin, creation_epoch=source_date_epoch(), title=title,
                labels=report.tile_labels(_, footer.prefix), to=to)

    def layout(_: report.Say) -> str:
        said = (_("{width} × {height} mm tiled onto {paper} sheets ({tiles})") if paper.name == "a3" else
                _("{width} × {height} mm tiled onto {paper} sheets ({tiles}; or build with --paper a3 for fewer, "
                  "larger sheets)"))
        return said.format(width=f"{comp.width:g}", height=f"{comp.height:g}", paper=paper.label,
                           tiles=tiles.describe(_))

    return _Layout(layout(english), 0, len(placements) * len(tiles.tiles), len(placements) * tiles.cuts(),
                   printed=layout(_))


def _write_shared(game: Game, job: PrintJob, placements: dict[str, list[Placement]], faces: Mapping[str, bytes],
                  options: BuildOptions, inputs: str) -> tuple[BuiltFile, list[Path]]:
    """Small components on one shared sheet: each block stacked under the previous one."""
    paper = options.sheet()
    _ = report.translating(i18n.translator(game, options.lang))
    bands = stack_bands([(band_plan_of(c, paper, options), len(placements[c.id])) for c in job.members],
                        margin=options.margin)
    names = " + ".join(_(c.name, "component") for c in job.members)
    path = options.out / game.id / options.lang / f"{job.id}.pdf"
    if options.duplex == "none":
        placements = {cid: single_sided(ps, options.sets) for cid, ps in placements.items()}
    duplex = _duplex(options, (p for ps in placements.values() for p in ps))
    try:
        with staging(path) as to:
            write_shared([(plan, placements[c.id]) for plan, c in zip(bands, job.members)], faces,
                         duplex=duplex, marks=options.marks, back_offset=options.back_offset,
                         footer=report.footer(_, game, names, options.lang),
                         title=f"{game.name} – {names} ({options.lang})", creation_epoch=source_date_epoch(), to=to)
    except (ImpositionError, PdfWriteError) as exc:
        raise InputError(f"{game.id}/{job.id}: {exc}", job.comp.location, "choose a larger --paper") from None

    def layout(_: report.Say) -> str:
        return _("{paper} {orientation}, one sheet shared by {pieces}").format(
            paper=paper.label, orientation=orientation(_, bands[0].orientation), pieces="; ".join(
                f"{c.id} ({len(placements[c.id])} × {c.width:g} × {c.height:g} mm)" for c in job.members))

    double = duplex != "none"
    levels = [level for c in job.members if (level := job_level(game, job, c)) is not None]
    pieces = sum(len(ps) for ps in placements.values())
    sha256, pages = _written(path)
    built = BuiltFile(str(path.relative_to(options.out)), job.id, paper.label, layout(english), pages, pieces,
                      pieces, len(faces), sha256, inputs,
                      sheets=1, double_sided=double, cuts=sum(p.cuts(p.per_sheet) for p in bands), sets=options.sets,
                      level_mark=max((lv for lv in levels if lv), default=None),
                      members=tuple(c.id for c in job.members), bleed_mm=min(plan.bleed for plan in bands),
                      printed_layout=layout(_))
    return built, [path]


def _cut_svg(geometry: CardGeometry, plan: GridPlan, cards: int) -> bytes:
    """The cut paths of every sheet, for a cutting machine (print-and-cut)."""
    from ..cutfile import write_cut_svg

    sheets = -(-cards // plan.per_sheet)
    return write_cut_svg(geometry, plan, sheets, pieces=cards).encode("utf-8")


def _written(path: Path) -> tuple[str, int]:
    """A staged PDF's sha256 and page count, read back from its file."""
    from ..pdflib import pikepdf

    target = staged_file(path)
    try:
        with open(target, "rb") as fh:
            digest = hashlib.file_digest(fh, "sha256").hexdigest()
        with pikepdf.open(target, access_mode=pikepdf.AccessMode.stream) as pdf:
            return digest, len(pdf.pages)
    except OSError as exc:
        raise file_system_error(exc, "read", path) from None
