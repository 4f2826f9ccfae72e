"""Stages 4 and 5 of the pipeline: lay rendered faces out on paper and write the print files.

For each component: render every distinct face once, turn each into a one-page vector PDF,
plan the sheet grid, impose (each face stored once as a Form XObject and placed many times)
and write ``OUT/<game>/<lang>/<component>.pdf`` atomically, then the manifest and printing
instructions. Games are independent, so they are built in parallel processes.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable

from . import i18n, schedule
from .cache import (CachedFace, FaceCache, cache_file, component_fingerprint, face_key, face_scope, file_digest,
                    game_fingerprint, inputs_digest)
from .errors import CardgenError, InputError, Location, display_path
from .imposition import (REGISTRATION_GAP, REGISTRATION_SIZE, CardGeometry, GridPlan, ImpositionError, Placement,
                         band_plan, plan_sheet, plan_tiles, share_sheets, stack_bands)
from .loader import load_game
from .model import Component, Game
from .output import BuildLock, atomic_write, commit, discard, source_date_epoch, stage
from .paper import Paper, PaperError, parse_paper
from .pdfwrite import (PdfWriteError, TileLabels, write_calibration, write_shared, write_sheets, write_single,
                       write_tiled)
from . import setmark
from .render import Face, Renderer, TemplateError, TextIssue
from .setmark import MAX_SETS, SetMark
from .schedule import Task
from .userconfig import MAX_OFFSET_MM, saved_back_offset

DUPLEX = ("long", "short", "none")
#: Distinct faces one component may have: each is rendered and kept in memory as a PDF
#: (~30 KB), so this bounds a build's memory; copies of a card cost nothing.
MAX_DISTINCT_FACES = 2000
MARKS = ("ticks", "lines", "none")
MODES = ("sheets", "single")


@dataclass(frozen=True)
class BuildOptions:
    """Everything ``cardgen build`` can be told. Lengths in mm."""

    lang: str = "en"
    paper: str = "a4"
    duplex: str = "long"
    bleed: float | None = None       # printed bleed; None = each component's own
    gutter: float | None = None
    margin: float = 5.0
    marks: str = "ticks"
    back_offset: tuple[float, float] | None = (0.0, 0.0)  # None: the one saved by 'calibrate --read'
    mode: str = "sheets"
    level: int | None = None         # highest game level to include; None = all
    cut_file: bool = False
    out: Path = Path("output")
    games_dirs: tuple[Path, ...] = ()
    strict: bool = False             # untranslated strings are errors
    cache: bool = True               # reuse rendered faces from <out>/.cache (--no-cache: off)
    allow_overflow: bool = False     # print text that does not fit its box (otherwise the build stops)
    allow_missing_glyphs: bool = False   # print characters no font covers as boxes (otherwise it stops)
    sets: int = 1                    # class sets: every component printed this many times, each set marked

    @property
    def cache_root(self) -> Path | None:
        return self.out / ".cache" if self.cache else None

    def validated(self) -> "BuildOptions":
        """Check option values once, up front, with messages that say what to type."""
        for name, value, allowed in (("duplex", self.duplex, DUPLEX), ("marks", self.marks, MARKS),
                                     ("mode", self.mode, MODES)):
            if value not in allowed:
                raise InputError(f"--{name} {value!r} is not one of {', '.join(allowed)}", None,
                                 f"use --{name} {allowed[0]}")
        self.sheet()
        if self.lang != "all":
            i18n.check_language(self.lang)
        for name, value in (("bleed", self.bleed), ("gutter", self.gutter), ("margin", self.margin)):
            if value is not None and not 0 <= value <= 50:
                raise InputError(f"--{name} {value:g} mm is out of range", None, f"give --{name} between 0 and 50 mm")
        if not isinstance(self.sets, int) or not 1 <= self.sets <= MAX_SETS:
            raise InputError(f"--sets {self.sets} is out of range", None,
                             f"give --sets between 1 and {MAX_SETS} (one mark shape per set)")
        if self.back_offset is None:
            saved = saved_back_offset(self.duplex) if self.duplex != "none" else None
            return replace(self, back_offset=saved or (0.0, 0.0)).validated()
        if not all(math.isfinite(v) and abs(v) <= MAX_OFFSET_MM for v in self.back_offset):
            raise InputError(f"--back-offset {self.back_offset[0]:g},{self.back_offset[1]:g} is not within "
                             f"±{MAX_OFFSET_MM:g} mm", None, "measure it with 'cardgen calibrate'")
        return self

    def sheet(self) -> Paper:
        try:
            return parse_paper(self.paper)
        except PaperError as exc:
            raise InputError(str(exc), None, "use a4, a3, a5, letter, legal, tabloid or WxHmm such as 300x450mm") from None


@dataclass(frozen=True)
class BuiltFile:
    """One written PDF and what is in it (the manifest's row)."""

    path: str
    component: str
    paper: str
    layout: str
    pages: int
    cards_per_sheet: int
    cards: int
    distinct_faces: int
    sha256: str
    inputs: str = ""      # digest of the faces and options it was made from (incremental builds)
    sheets: int = 0       # sheets of paper to print (a double-sided sheet counts once)
    double_sided: bool = False   # pages alternate front, back (odd pages fronts, even pages backs)
    cuts: int = 0         # straight cuts (or outlines cut out) to separate every piece
    sets: int = 1         # class sets in the file (each marked, see cardgen.setmark)
    spare_of: str = ""    # a spare set of this component, needed from level `level_mark` on
    level_mark: int | None = None   # the level printed on the pieces ("5+"), if any
    bleed_note: str = ""  # why the cards are edge to edge rather than each with its bleed
    members: tuple[str, ...] = ()   # components sharing this file's sheet (small pieces)


@dataclass
class GameBuild:
    game: str
    name: str
    lang: str
    folder: Path
    files: list[BuiltFile] = field(default_factory=list)
    issues: list[TextIssue] = field(default_factory=list)
    untranslated: list[tuple[str, str]] = field(default_factory=list)


def _geometry(comp: Component) -> CardGeometry:
    straight = comp.shape.type in ("lozenge", "hexagon")
    return CardGeometry(comp.width, comp.height, comp.bleed, comp.shape.cut_path(comp.width, comp.height),
                        comp.shape.is_rectangular,
                        tuple(comp.shape.vertices(comp.width, comp.height)) if straight else None)


def _page_count(pdf: bytes) -> int:
    import io

    import pikepdf

    with pikepdf.open(io.BytesIO(pdf)) as doc:
        return len(doc.pages)


def components_for(game: Game, level: int | None) -> list[Component]:
    return [c for c in game.components.values() if level is None or c.level <= level]


@dataclass(frozen=True)
class PrintJob:
    """One file to print: a component, or a spare set of one that a later level asks for
    (``spare_level``: the level that needs it; its pieces then carry that level's mark)."""

    id: str
    comp: Component
    spare_level: int | None = None
    members: tuple[Component, ...] = ()   # small components sharing this file's one sheet

    @property
    def components(self) -> tuple[Component, ...]:
        return self.members or (self.comp,)


def print_jobs(game: Game, level: int | None, options: BuildOptions | None = None) -> list[PrintJob]:
    """The files a build writes for a game, in game order, each spare set after the
    component that asks for it (once, however many components ask). Given the build's
    options, small components whose pieces fit one sheet share sheets where their blocks
    fit together (see :func:`cardgen.imposition.share_sheets`); such a file is named after
    its components joined by '+' (reference+pawn.pdf)."""
    jobs: list[PrintJob] = []
    for comp in components_for(game, level):
        jobs.append(PrintJob(comp.id, comp))
        for spare in comp.spares:
            if all(j.id != f"{spare}-spare" for j in jobs):
                jobs.append(PrintJob(f"{spare}-spare", game.components[spare], comp.level))
    if options is None or options.mode != "sheets" or options.cut_file:
        return jobs
    paper = options.sheet()
    bands = [(_band_plan(job.comp, paper, options) if job.spare_level is None else None,
              job.comp.total * options.sets) for job in jobs]
    shared = []
    for group in share_sheets(bands, margin=options.margin):
        if len(group) == 1:
            shared.append(jobs[group[0]])
        else:
            members = tuple(jobs[i].comp for i in group)
            shared.append(PrintJob("+".join(c.id for c in members), members[0], None, members))
    return shared


def _band_plan(comp: Component, paper: Paper, options: BuildOptions) -> GridPlan | None:
    """The flattest one-sheet grid of a component's pieces, if they fit one sheet."""
    try:
        return band_plan(paper.width, paper.height, _geometry(comp), comp.total * options.sets,
                         margin=options.margin, gutter=options.gutter,
                         bleed=None if options.bleed is None else min(options.bleed, comp.bleed),
                         paper_label=paper.label)
    except ImpositionError:
        return None


def job_marks(game: Game, job: PrintJob, sets: int, comp: Component | None = None) -> list[SetMark | None]:
    """The mark of each set of a job's pieces (of ``comp``, one of its components; None:
    nothing to mark). A single set carries no set mark (nothing to sort it from); level
    marks are printed whatever the count."""
    comp = comp or job.comp
    level = job.spare_level if job.spare_level is not None else setmark.level_mark(game, comp)
    return [setmark.place(comp, n if sets > 1 else None, level) for n in range(1, sets + 1)]


#: One card of one set, as a piece of work: (card id, copies, front key, back key, its mark).
MarkedKeys = tuple[str, int, str, str | None, "SetMark | None"]


def marked_keys(keys: list["CardKeys"], marks: list[SetMark | None]) -> list[MarkedKeys]:
    """Every set's cards in order, their cache keys extended by the mark they carry."""
    out: list[MarkedKeys] = []
    for mark in marks:
        for card_id, count, front, back in keys:
            if mark is None:
                out.append((card_id, count, front, back, None))
                continue
            tag = mark.key()
            out.append((card_id, count, _with_mark(front, tag), _with_mark(back, tag) if back else None, mark))
    return out


def _with_mark(key: str, tag: str) -> str:
    return hashlib.sha256(f"{key}\n{tag}".encode()).hexdigest()


def _face_keys(keys: Iterable[MarkedKeys]) -> Iterable[str]:
    return (k for _c, _n, front, back, _m in keys for k in (front, back) if k)


@dataclass
class FaceChunk:
    """Some cards of one component, rendered: the unit of parallel work.

    ``order`` keeps each card's faces and copies in deck order, so the imposed sheets do not
    depend on which process rendered what; ``pdfs`` holds each distinct face once."""

    component: str
    order: list[tuple[str, str | None, int]]
    pdfs: dict[str, bytes]
    issues: list[TextIssue]
    missing: list[tuple[str, str]]


#: Loaded games by folder, shared with forked workers (filled by :func:`build` before forking).
_GAMES: dict[str, Game] = {}


def _game(game_ref: str, games_dirs: tuple[Path, ...]) -> Game:
    """The game :func:`build` loaded (inherited by forked workers), loading it only when this
    process does not have it (workers started by other means)."""
    if game_ref not in _GAMES:
        _GAMES[game_ref] = load_game(Path(game_ref), games_dirs)
    return _GAMES[game_ref]


#: Per-process cache of (game, translator, renderer) so a worker compiles templates once.
_RENDERERS: dict[tuple[str, str, tuple[Path, ...]], tuple[Game, i18n.Translator | None, Renderer]] = {}


def _renderer_for(game_ref: str, lang: str, games_dirs: tuple[Path, ...],
                  cache_root: Path | None = None) -> tuple[Game, i18n.Translator | None, Renderer]:
    key = (game_ref, lang, games_dirs)
    if key not in _RENDERERS:
        game = _game(game_ref, games_dirs)
        tr = i18n.translator(game, lang)
        _RENDERERS[key] = (game, tr, Renderer(game, lang, translate=tr, bytecode_db=cache_root and cache_file(cache_root)))
    return _RENDERERS[key]


#: One card's work item: (card id, copies, front cache key, back cache key or None).
CardKeys = tuple[str, int, str, str | None]


def render_chunk(game_ref: str, lang: str, games_dirs: tuple[Path, ...], comp_id: str,
                 cards: tuple[MarkedKeys, ...], cache_root: Path | None,
                 cached: frozenset[str] | None = None) -> FaceChunk:
    """Render the faces of some cards to SVG and then PDF, or take them from the face cache.
    ``cached``: the keys the cache held when the build looked (None: look each one up);
    the others are not looked for again."""
    cache = FaceCache(cache_root)
    order: list[tuple[str, str | None, int]] = []
    pdfs: dict[str, bytes] = {}
    issues: list[TextIssue] = []
    missing: set[tuple[str, str]] = set()
    rendered: list[tuple[str, CachedFace]] = []
    renderer_state = None
    for card_id, count, front_ck, back_ck, mark in cards:
        keys = []
        for side, ck in (("front", front_ck), ("back", back_ck)):
            if ck is None:
                keys.append(None)
                continue
            hit = cache.get(ck) if cached is None or ck in cached else None
            if hit is None:
                if renderer_state is None:
                    renderer_state = _renderer_for(game_ref, lang, games_dirs, cache_root)
                game, tr, renderer = renderer_state
                renderer.issues.clear()
                if tr is not None:
                    tr.missing.clear()
                comp = game.components[comp_id]
                face = renderer.face(comp, comp.card(card_id), side, mark)
                hit = CachedFace(face.key, pdfs.get(face.key) or _drawn(face, comp, side), tuple(renderer.issues),
                                 tuple(sorted(tr.missing)) if tr else (),
                                 tuple((str(p), file_digest(p)) for p in face.reads))
                rendered.append((ck, hit))
            pdfs.setdefault(hit.svg_key, hit.pdf)
            issues.extend(hit.issues)
            missing.update(hit.missing)
            keys.append(hit.svg_key)
        order.append((keys[0], keys[1], count))
    if renderer_state is not None:
        cache.put(rendered, face_scope(renderer_state[0], lang, renderer_state[0].components[comp_id]))
    return FaceChunk(comp_id, order, pdfs, issues, sorted(missing))



def _drawn(face: Face, comp: Component, side: str) -> bytes:
    """The face as a one-page PDF; a face the drawing library refuses (numbers it cannot
    draw) is an error naming its card and template, not a crash."""
    from .draw import render_pdf  # here: a no-change rebuild never needs cairo (~0.05 s to import)

    from xml.etree.ElementTree import ParseError

    try:
        return render_pdf(face)
    except CardgenError:
        raise
    except ParseError as exc:
        raise TemplateError(f"template '{_template_of(comp, side)}' writes SVG that is not well-formed for card "
                            f"'{face.card}' of component '{comp.id}', {side} ({exc})", comp.where(side),
                            "check the markup the template writes: every tag closed, '&' written as &amp;") from None
    except Exception as exc:  # noqa: BLE001 cairo's errors are what the template wrote
        raise TemplateError(f"template '{_template_of(comp, side)}' writes SVG that cannot be drawn for card "
                            f"'{face.card}' of component '{comp.id}', {side} ({type(exc).__name__}: {exc})", comp.where(side),
                            "check the numbers the template writes: sizes, positions and transforms") from None


def _template_of(comp: Component, side: str) -> str:
    return (comp.front if side == "front" else comp.back) or ""


def card_keys(game: Game, comp: Component, lang: str, game_fp: str | None = None) -> list[CardKeys]:
    """Cache keys of every card's faces, in deck order."""
    game_fp = game_fp or game_fingerprint(game, lang)
    comp_fp = component_fingerprint(comp)
    return [(c.id, c.count, face_key(game_fp, comp_fp, c, "front"),
             face_key(game_fp, comp_fp, c, "back") if comp.back else None) for c in comp.cards]


def _chunks(keys: list[MarkedKeys], jobs: int) -> list[tuple[MarkedKeys, ...]]:
    """Split a component's cards into pieces of work of similar size."""
    size = max(4, -(-len(keys) // (jobs * 3)))
    return [tuple(keys[i:i + size]) for i in range(0, len(keys), size)]


def build_game(game: Game, options: BuildOptions) -> GameBuild:
    """Build every component of one game in this process (see :func:`build` for several)."""
    return build([game], options, jobs=1)[0]


def _check_strict(game: Game, result: GameBuild, options: BuildOptions) -> None:
    """With --strict an untranslated string stops the build before anything is written."""
    if options.strict and result.untranslated:
        listing = "; ".join(f"{m!r}" + (f" ({c})" if c else "") for m, c in result.untranslated[:10])
        raise UntranslatedError(f"{game.id}: {len(result.untranslated)} string(s) have no '{options.lang}' "
                                f"translation: {listing}", Location(display_path(i18n.po_path(game, options.lang))),
                                "translate them (cardgen i18n status) or build without --strict")


def _check_text(game: Game, result: GameBuild, options: BuildOptions) -> None:
    """Text that does not fit its box, or characters no font covers, stop the build before
    anything is written, with the findings ``cardgen check`` gives for them, unless the user
    allows them (the PDF then shows the overflowing text, and each missing character as a box
    with its code point)."""
    from .fitcheck import issue_finding

    refused = [i for i in result.issues
               if (i.kind == "overflow" and not options.allow_overflow)
               or (i.kind == "missing-glyphs" and not options.allow_missing_glyphs)]
    if refused:
        findings = list(dict.fromkeys(issue_finding(game, issue) for issue in refused))
        listing = "\n".join(f"  {f}" for f in findings)
        raise TextProblemsError(f"{game.id} ({options.lang}): {len(findings)} text problem(s) would print badly; "
                                f"nothing was written:\n{listing}", findings[0].location,
                                "fix them (cardgen check --lang " + options.lang + " lists them), or print them anyway "
                                "with --allow-overflow / --allow-missing-glyphs", "text")


class TextProblemsError(CardgenError):
    """Text that would print cut off or as boxes: the deck is not right (exit 1, like findings)."""

    exit_code = 1


class UntranslatedError(CardgenError):
    """--strict and a string without translation: the deck is incomplete (exit 1, like findings)."""

    exit_code = 1


def _write_component(game_ref: str, games_dirs: tuple[Path, ...], job_id: str, chunks: list[FaceChunk],
                     options: BuildOptions, inputs: str) -> tuple[BuiltFile, list[Path]]:
    """Impose one print job's rendered faces (a component, or a spare set of one); its PDF
    (and cut file) are staged, not yet renamed into place (see :func:`cardgen.output.commit`)."""
    staged: list[Path] = []
    game = _game(game_ref, games_dirs)
    job = next(j for j in print_jobs(game, options.level, options) if j.id == job_id)
    comp = job.comp
    paper, epoch = options.sheet(), source_date_epoch()
    folder = options.out / game.id / options.lang
    pdfs: dict[str, bytes] = {}
    placements: list[Placement] = []
    by_component: dict[str, list[Placement]] = {}
    for chunk in chunks:
        pdfs.update(chunk.pdfs)
        for front, back, count in chunk.order:
            placements.extend([Placement(front, back)] * count)
            by_component.setdefault(chunk.component, []).extend([Placement(front, back)] * count)
    if job.members:
        return _write_shared_job(game, job, by_component, pdfs, options, inputs)
    geometry = _geometry(comp)
    _ = _translating(i18n.translator(game, options.lang))
    name = _(comp.name, "component")
    if job.spare_level is not None:
        name = _("{name}, spare set").format(name=name)
    footer = _Footer(f"{_(game.name, 'game')} · {name} · {options.lang}", _("sheet {sheet}/{sheets}"),
                     _("fronts"), _("backs"))
    title = f"{game.name} – {comp.name} ({options.lang})"
    sheets, cuts, double, note = 0, 0, False, ""
    try:
        if options.mode == "single":
            data = write_single(placements, pdfs, geometry, creation_epoch=epoch, title=title)
            layout, per_sheet = "one card per page, bleed box = page, TrimBox/BleedBox set", 1
            double = any(p.back for p in placements)
            sheets = len(placements)
            cuts = len(placements) * (4 if comp.shape.is_rectangular else len(geometry.outline or ()) or 1)
        else:
            cutting = options.cut_file and not geometry.is_rectangular
            # print-and-cut: the cutter finds the sheet by registration squares beside the block
            margin = max(options.margin, REGISTRATION_SIZE + REGISTRATION_GAP + 1) if cutting else options.margin
            try:
                plan = plan_sheet(paper.width, paper.height, geometry, margin=margin, gutter=options.gutter,
                                 bleed=None if options.bleed is None else min(options.bleed, comp.bleed),
                                 paper_label=paper.label, count=len(placements))
            except ImpositionError:
                if len(comp.cards) != 1:
                    raise
                tiles = plan_tiles(comp.width, comp.height, paper.width, paper.height, margin=options.margin)
                data = write_tiled([pdfs[p.front] for p in placements], comp.width, comp.height, paper.width,
                                   paper.height, margin=options.margin, creation_epoch=epoch, title=title,
                                   labels=_tile_labels(_, footer.prefix))
                larger = "" if paper.name == "a3" else "; or build with --paper a3 for fewer, larger sheets"
                layout, per_sheet = (f"{comp.width:g} × {comp.height:g} mm tiled onto {paper.label} sheets "
                                     f"({tiles.describe()}{larger})"), 0
                sheets = len(placements) * len(tiles.tiles)
                cuts = len(placements) * tiles.cuts()
            else:
                data = write_sheets(placements, pdfs, geometry, plan, duplex=options.duplex, marks=options.marks,
                                    back_offset=options.back_offset, footer=footer, title=title,
                                    creation_epoch=epoch, registration=cutting)
                layout, per_sheet = plan.describe(), plan.per_sheet
                sheets = -(-len(placements) // plan.per_sheet)
                double = options.duplex != "none" and any(p.back for p in placements)
                cuts = plan.cuts(len(placements))
                note = plan.note if plan.bleed_given_up else ""
                if cutting:
                    staged.append(_stage_cut_file(folder / f"{job.id}-cut.svg", geometry, plan, len(placements)))
    except (ImpositionError, PdfWriteError) as exc:
        raise InputError(f"{game.id}/{comp.id}: {exc}", comp.location, "choose a larger --paper") from None
    path = folder / f"{job.id}.pdf"
    staged.append(stage(path, data))
    marks = job_marks(game, job, options.sets)
    return BuiltFile(str(path.relative_to(options.out)), job.id, paper.label, layout, _page_count(data), per_sheet,
                     len(placements), len(pdfs), hashlib.sha256(data).hexdigest(), inputs, sheets=sheets,
                     double_sided=double, cuts=cuts, sets=options.sets,
                     spare_of=comp.id if job.spare_level is not None else "",
                     level_mark=marks[0].level if marks[0] else None, bleed_note=note), staged


def _translating(tr: i18n.Translator | None) -> Callable[..., str]:
    """``_(msgid, context)``: a printed string in the build's language (English without a
    translator); named ``_`` where it is used, so ``cardgen i18n extract`` finds the strings."""
    return lambda msgid, context=None: tr(msgid, context) if tr else msgid


@dataclass(frozen=True)
class _Footer:
    """The line under each sheet: "<game> · <component> · <lang> · sheet 2/4 · fronts",
    its words from the catalogs (pdfwrite calls it with the sheet number, count and side)."""

    prefix: str
    sheet: str
    fronts: str
    backs: str

    def __call__(self, number: int, count: int, side: str) -> str:
        which = self.fronts if side == "fronts" else self.backs
        return f"{self.prefix} · {self.sheet.format(sheet=number, sheets=count)} · {which}"


def _tile_labels(_: Callable[..., str], prefix: str) -> TileLabels:
    """The words printed on tiled pages, in the build's language."""
    return TileLabels(tile=_("tile {name} of {cols}×{rows}"), right=_("{name} goes on the right"),
                      below=_("{name} goes below"), glue=_("glue here"), prefix=prefix)


def _write_shared_job(game: Game, job: PrintJob, placements: dict[str, list[Placement]], pdfs: dict[str, bytes],
                      options: BuildOptions, inputs: str) -> tuple[BuiltFile, list[Path]]:
    """Small components on one shared sheet: each block stacked under the previous one."""
    paper = options.sheet()
    _ = _translating(i18n.translator(game, options.lang))
    bands = stack_bands([(_band_plan(c, paper, options), len(placements[c.id])) for c in job.members],
                        margin=options.margin)
    names = " + ".join(_(c.name, "component") for c in job.members)
    footer = _Footer(f"{_(game.name, 'game')} · {names} · {options.lang}", _("sheet {sheet}/{sheets}"),
                     _("fronts"), _("backs"))
    try:
        data = write_shared([(plan, placements[c.id]) for plan, c in zip(bands, job.members)], pdfs,
                            duplex=options.duplex, marks=options.marks, back_offset=options.back_offset,
                            footer=footer, title=f"{game.name} – {names} ({options.lang})",
                            creation_epoch=source_date_epoch())
    except (ImpositionError, PdfWriteError) as exc:
        raise InputError(f"{game.id}/{job.id}: {exc}", job.comp.location, "choose a larger --paper") from None
    path = options.out / game.id / options.lang / f"{job.id}.pdf"
    layout = f"{paper.label} {bands[0].orientation}, one sheet shared by " + "; ".join(
        f"{c.id} ({len(placements[c.id])} × {c.width:g} × {c.height:g} mm)" for c in job.members)
    double = options.duplex != "none" and any(p.back for ps in placements.values() for p in ps)
    levels = [m.level for c in job.members for m in job_marks(game, job, options.sets, c)[:1] if m]
    pieces = sum(len(ps) for ps in placements.values())
    built = BuiltFile(str(path.relative_to(options.out)), job.id, paper.label, layout, _page_count(data), pieces,
                      pieces, len(pdfs), hashlib.sha256(data).hexdigest(), inputs,
                      sheets=1, double_sided=double, cuts=sum(p.cuts(p.per_sheet) for p in bands), sets=options.sets,
                      level_mark=max((lv for lv in levels if lv), default=None),
                      members=tuple(c.id for c in job.members))
    return built, [stage(path, data)]


def _stage_cut_file(path: Path, geometry: CardGeometry, plan: GridPlan, cards: int) -> Path:
    from .cutfile import write_cut_svg

    sheets = -(-cards // plan.per_sheet)
    return stage(path, write_cut_svg(geometry, plan, sheets).encode("utf-8"))


def _stage_manifest(game: Game, result: GameBuild, options: BuildOptions,
                    tr: i18n.Translator | None) -> list[Path]:
    manifest = {
        "game": game.id, "name": game.name, "lang": options.lang,
        "options": {"paper": options.paper, "duplex": options.duplex, "marks": options.marks, "mode": options.mode,
                    "margin_mm": options.margin, "bleed_mm": options.bleed, "gutter_mm": options.gutter,
                    "back_offset_mm": list(options.back_offset), "level": options.level},
        "files": [asdict(f) for f in result.files],
    }
    staged = [stage(result.folder / "PRINTING.txt", printing_instructions(game, result, options, tr).encode("utf-8"))]
    report = text_report(result)
    if report:   # without one, the folder's next version simply has none
        staged.append(stage(result.folder / "text-report.txt", report.encode("utf-8")))
    # the manifest goes last: it describes files that are already in place
    staged.append(stage(result.folder / "manifest.json",
                        (json.dumps(manifest, indent=2, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")))
    return staged


def text_report(result: GameBuild) -> str:
    """What a translator must look at: overflowing text, uncovered characters, untranslated strings."""
    lines = [str(i) for i in result.issues]
    lines += [f"untranslated ({result.lang}): {m!r}" + (f" [{c}]" if c else "") for m, c in result.untranslated]
    return "\n".join(lines) + "\n" if lines else ""


def printing_instructions(game: Game, result: GameBuild, options: BuildOptions,
                          tr: i18n.Translator | None = None) -> str:
    """Plain-language instructions that travel with the PDFs (for the teacher at the copier):
    per file single- or double-sided and which pages are fronts and backs, sheets for the
    class sets asked for, how to cut each shape; why cards are edge to edge is said once."""
    from .sheets import SHEETS

    def _(msgid: str, context: str | None = None) -> str:
        return tr(msgid, context) if tr else msgid

    flip = {"long": _("flip on the LONG edge"), "short": _("flip on the SHORT edge"),
            "none": _("single-sided")}[options.duplex]
    sheets = sum(f.sheets for f in result.files)
    lines = [_("{game} — printing instructions ({lang})").format(game=_(game.name, "game"), lang=options.lang), "",
             _("Paper: {paper}. Print at 100 % / actual size, never 'fit to page': the cards must measure what "
               "the files say.").format(paper=options.sheet().label),
             _("Sheets of paper: {sheets} in all, for {sets} set(s) of the game.").format(sheets=sheets,
                                                                                        sets=options.sets)]
    if any(f.double_sided for f in result.files):
        lines.append(_("Double-sided files: {flip}. If backs drift, measure with 'cardgen calibrate --paper {paper}' "
                       "and rebuild with --back-offset X,Y.").format(flip=flip, paper=options.paper))
    if options.sets > 1:
        glyphs = ", ".join(f"{n} {setmark.GLYPH_NAMES[setmark.glyph_for(n)[0]]}" + (" ●" if setmark.glyph_for(n)[1] else "")
                           for n in range(1, options.sets + 1))
        lines.append(_("Class sets: every piece carries its set's mark on both sides, the set number inside a shape "
                       "({marks}); after a lesson, sort mixed pieces back into sets by that mark.").format(marks=glyphs))
    if any(f.bleed_note for f in result.files):
        lines.append(_("Cards edge to edge with shared cuts: one cut separates two neighbours and saves paper, but "
                       "each card has no bleed of its own. For separate bleed use --paper a3 or --bleed 0."))
    if any(f.members for f in result.files):
        lines.append(_("Small pieces share sheets: a file named after several components (a+b.pdf) prints the "
                       "pieces of all of them on one sheet."))
    lines.append("")
    comps = game.components
    for f in result.files:
        if f.component in SHEETS and not f.members:   # a rule sheet or answer key (cardgen.sheets)
            what = _("rule sheet") if f.component == "rules" else _("answer key")
            lines.append(_("{file}: {name} — {pages} page(s); print single-sided at 100 %.").format(
                file=Path(f.path).name, name=what, pages=f.pages))
            continue
        members = [comps[m] for m in f.members]
        comp = members[0] if members else comps[f.spare_of or f.component]
        name = _(comp.name, "component")
        if members:
            name = " + ".join(_(m.name, "component") for m in members)
        if f.spare_of:
            name = _("{name}, spare set").format(name=name)
        lines.append(_("{file}: {name} — {cards} piece(s) on {sheets} sheet(s), {pages} page(s); {layout}.").format(
            file=Path(f.path).name, name=name, cards=f.cards, sheets=f.sheets, pages=f.pages, layout=f.layout))
        if f.double_sided:
            lines.append("    " + _("Double-sided: odd pages (1, 3, …) are fronts, even pages (2, 4, …) are their "
                                    "backs."))
        else:
            lines.append("    " + _("Single-sided: every page is a front."))
        if members:
            lines.append("    " + _("Cut: {cuts} cuts in all, straight ones from tick to tick, shaped pieces along "
                                    "their grey outline.").format(cuts=f.cuts))
        else:
            lines.append("    " + _cutting(comp, f, _))
        if f.level_mark:
            lines.append("    " + _("Marked \"{level}+\": needed from level {level} on; keep these apart from the "
                                    "base set.").format(level=f.level_mark))
        elif comp.level > 1:
            lines.append("    " + _("Needed from level {level} on.").format(level=comp.level))
        for part in members or [comp]:
            if part.print_note and not f.spare_of:
                lines.append("    " + _(part.print_note, "component.print_note"))
    return "\n".join(lines) + "\n"


def _cutting(comp: Component, built: BuiltFile, _: Callable[..., str]) -> str:
    """How to cut one file's pieces, in one sentence."""
    if built.cards_per_sheet == 0:
        return _("Tiled: trim each page at its corner ticks ({cuts} cuts), then glue each page over the strip marked "
                 "'glue here' of the page its label names.").format(cuts=built.cuts)
    if "interlocking" in built.layout:
        return _("Cut: {cuts} straight cuts along the grey lines, each line from tick to tick across the sheet; "
                 "neighbouring pieces share every cut.").format(cuts=built.cuts)
    if comp.shape.is_rectangular:
        return _("Cut: {cuts} straight cuts (guillotine or ruler) from tick to tick.").format(cuts=built.cuts)
    return _("Cut out each piece along its grey outline with scissors ({cuts} cuts).").format(cuts=built.cuts)


def build(games: Iterable[Game], options: BuildOptions, jobs: int | None = None,
          on_done: Callable[[GameBuild], None] | None = None,
          on_wait: Callable[[], None] | None = None) -> list[GameBuild]:
    """Build several games using ``jobs`` processes (default: one per core).

    Work is split finer than games — chunks of cards for rendering, then one task per
    component for imposition — so both cores stay busy even when one game dominates. Faces
    come from the face cache when their inputs have not changed, and a component whose faces
    and options are all unchanged keeps its existing PDF. Every face is rendered before any
    file is written: a template error, or an untranslated string with ``strict``, leaves the
    previous outputs untouched.
    """
    options = options.validated()
    with BuildLock(options.out, on_wait=on_wait) as lock:
        return _build_locked(list(games), options, jobs or os.cpu_count() or 1, on_done, lock.fileno())


def _build_locked(games: list[Game], options: BuildOptions, jobs: int,
                  on_done: Callable[[GameBuild], None] | None, lock_fd: int | None) -> list[GameBuild]:
    _RENDERERS.clear()   # data may have changed since the last build in this process
    _GAMES.clear()
    refs = {g.id: str(g.data_dir) for g in games}
    _GAMES.update({refs[g.id]: g for g in games})
    dirs = tuple(options.games_dirs)
    results = {g.id: GameBuild(g.id, g.name, options.lang, options.out / g.id / options.lang) for g in games}
    reused: dict[tuple[str, str], BuiltFile] = {}
    cache = FaceCache(options.cache_root)
    digests: dict[tuple[str, str], str] = {}
    tasks = []
    misses = 0   # faces to render (not in the cache)
    all_keys: dict[tuple[str, str], list[MarkedKeys]] = {}
    jobs_of = {g.id: print_jobs(g, options.level, options) for g in games}
    parts: dict[tuple[str, str], list[tuple[str, list[MarkedKeys]]]] = {}   # job → its components' keys
    for g in games:
        game_fp = game_fingerprint(g, options.lang)
        for job in jobs_of[g.id]:
            for comp in job.components:
                if len(comp.cards) > MAX_DISTINCT_FACES:
                    raise InputError(f"component '{comp.id}' has {len(comp.cards)} distinct cards; a build handles at "
                                     f"most {MAX_DISTINCT_FACES} per component", comp.location,
                                     "split it into several components (copies of one card are not limited)")
                parts.setdefault((g.id, job.id), []).append(
                    (comp.id, marked_keys(card_keys(g, comp, options.lang, game_fp),
                                          job_marks(g, job, options.sets, comp))))
            all_keys[(g.id, job.id)] = [k for _cid, keys in parts[(g.id, job.id)] for k in keys]
    present = frozenset(cache.present(k for keys in all_keys.values() for k in _face_keys(keys)))
    previous_sheets: dict[str, dict[str, BuiltFile]] = {}
    for g in games:
        previous = _previous_files(results[g.id].folder)
        previous_sheets[g.id] = previous
        for job in jobs_of[g.id]:
            keys = all_keys[(g.id, job.id)]
            digests[(g.id, job.id)] = inputs_digest(_face_keys(keys), {c.id: _settings(options, c)
                                                                         for c in job.components})
            old = previous.get(job.id)
            if options.cache and old and old.inputs == digests[(g.id, job.id)] and _intact(options.out / old.path, old):
                cached = [cache.get(k, pdf=False) for k in _face_keys(keys)]
                if all(cached):
                    reused[(g.id, job.id)] = old
                    for hit in cached:
                        results[g.id].issues.extend(hit.issues)
                        results[g.id].untranslated.extend(hit.missing)
                    continue
            for comp_id, comp_keys in parts[(g.id, job.id)]:
                for chunk in _chunks(comp_keys, jobs):
                    chunk_keys = set(_face_keys(chunk))
                    chunk_misses = len(chunk_keys - present)
                    misses += chunk_misses
                    tasks.append(Task(render_chunk, (refs[g.id], options.lang, dirs, comp_id, chunk,
                                                     options.cache_root, frozenset(chunk_keys & present)),
                                      group=g.id, cost=chunk_misses + 0.05, tag=(len(tasks), g.id, job.id)))
    staged: list[Path] = []
    try:
        pending = Counter(t.tag[1:] for t in tasks)
        chunks: dict[tuple[str, str], list[tuple[int, FaceChunk]]] = {}
        outcomes: dict[tuple[str, str], tuple[BuiltFile, list[Path]]] = {
            key: (built, []) for key, built in reused.items()}

        def on_result(task: Task, result: object) -> list[Task]:
            if task.fn is _write_component:
                outcomes[task.tag] = result  # type: ignore[assignment]
                staged.extend(result[1])  # type: ignore[index]  # discarded if anything fails later
                return []
            seq, gid, job_id = task.tag
            chunks.setdefault((gid, job_id), []).append((seq, result))  # type: ignore[arg-type]
            pending[(gid, job_id)] -= 1
            if pending[(gid, job_id)]:
                return []
            # every card of the component is rendered: impose it while other cards still render
            parts = [chunk for _seq, chunk in sorted(chunks[(gid, job_id)], key=lambda p: p[0])]
            return [Task(_write_component, (refs[gid], dirs, job_id, parts, options, digests[(gid, job_id)]),
                         group=gid, tag=(gid, job_id))]

        # worker processes pay off only when there is real rendering to share out
        workers = jobs if misses >= 8 else 1
        context = _fork_context()
        if workers > 1 and context.get_start_method() == "fork":
            # preload before forking (as gunicorn's preload_app does): the drawing libraries
            # are imported once here instead of once per worker, and their pages are shared
            from . import draw  # noqa: F401
        schedule.run(tasks, workers, on_result, mp_context=context, initializer=_worker_init, initargs=(lock_fd,))
        kept_sheets: list[Path] = []   # rule sheets and answer keys whose inputs did not change
        for g in games:
            res = results[g.id]
            for job in jobs_of[g.id]:
                for _seq, chunk in sorted(chunks.get((g.id, job.id), []), key=lambda p: p[0]):
                    res.issues.extend(chunk.issues)
                    res.untranslated.extend(chunk.missing)
            res.issues = list(dict.fromkeys(res.issues))
            res.untranslated = sorted(set(res.untranslated))
            sheet_files, sheet_staged = _sheets(g, res, options, previous_sheets.get(g.id, {}))
            staged.extend(sheet_staged)
            kept_sheets.extend(options.out / f.path for f in sheet_files if options.out / f.path not in sheet_staged)
            _check_strict(g, res, options)   # raises before anything replaces the old files
            _check_text(g, res, options)
            res.files = [outcomes[(g.id, job.id)][0] for job in jobs_of[g.id]] + sheet_files
            staged.extend(_stage_manifest(g, res, options, i18n.translator(g, options.lang)))
        # every file was written in full: only now does each folder's new version replace the old
        commit(staged, keep=[options.out / built.path for built in reused.values()] + kept_sheets +
               [options.out / Path(built.path).with_name(f"{built.component}-cut.svg") for built in reused.values()])
        staged = []
        # the cache keeps what these components are made of now, not what they were made of
        kept: dict[str, list[str]] = {}
        for g in games:
            built = {job.id for job in jobs_of[g.id]}
            # a component may print in several jobs (its spare set at a later level): its faces
            # are sorted out only by a build that prints every one of them
            partial = {c.id for job in print_jobs(g, None, options) if job.id not in built for c in job.components}
            for job in jobs_of[g.id]:
                for cid, keys in parts[(g.id, job.id)]:
                    if cid not in partial:
                        kept.setdefault(face_scope(g, options.lang, g.components[cid]), []).extend(_face_keys(keys))
        cache.keep_only(kept)
        for g in games:
            if on_done:
                on_done(results[g.id])
    finally:
        discard(staged)
        cache.finish()
    return [results[g.id] for g in games]


def _sheets(game: Game, result: GameBuild, options: BuildOptions,
            previous: dict[str, BuiltFile]) -> tuple[list[BuiltFile], list[Path]]:
    """The game's rule sheet and answer key (``rules.pdf``, ``answers.pdf``, see
    :mod:`cardgen.sheets`), staged like the components' PDFs. A sheet whose inputs (the
    game's data, templates, catalogs and the options it depends on) are unchanged and whose
    file is intact is kept, and what its rendering reported is read back from it."""
    from . import sheets

    paper, epoch = options.sheet(), source_date_epoch()
    clash = [c for c in game.components if c in sheets.SHEETS]
    if clash:
        comp = game.components[clash[0]]
        raise InputError(f"component id '{comp.id}' is the name of the {comp.id} sheet cardgen writes "
                         f"({comp.id}.pdf)", comp.where("id"), "give the component another id")
    files: list[BuiltFile] = []
    staged: list[Path] = []
    game_fp = game_fingerprint(game, options.lang)   # templates, fonts, catalogs, physics data
    for kind in sheets.SHEETS:
        settings = {"sheet": kind, "paper": options.paper, "level": options.level, "epoch": epoch,
                    "data_and_code": sheets.inputs_digest(game)}
        digest = inputs_digest([game_fp], settings)
        old = previous.get(kind)
        path = result.folder / f"{kind}.pdf"
        notes = sheets.read_notes(options.out / old.path) if options.cache and old and old.inputs == digest \
            and _intact(options.out / old.path, old) else None
        if notes is not None:
            issues, missing = notes
            result.issues.extend(i for i in issues if i not in result.issues)
            result.untranslated = sorted(set(result.untranslated) | set(missing))
            files.append(old)
            continue
        tr = i18n.translator(game, options.lang)
        title = f"{game.name} – {kind} ({options.lang})"
        sheet = sheets.render_sheet(game, kind, options.lang, paper.width, paper.height, tr, options.level, title,
                                    epoch, options.cache_root and cache_file(options.cache_root))
        result.issues.extend(i for i in sheet.issues if i not in result.issues)
        result.untranslated = sorted(set(result.untranslated) | set(sheet.missing))
        staged.append(stage(path, sheet.pdf))
        files.append(BuiltFile(str(path.relative_to(options.out)), kind, paper.label,
                               f"{paper.label} pages, single-sided", sheet.pages, 0, 0, sheet.pages,
                               hashlib.sha256(sheet.pdf).hexdigest(), digest, sheets=sheet.pages))
    return files, staged


def _settings(options: BuildOptions, comp: Component) -> dict[str, object]:
    """The options a component's PDF depends on (not --out, --jobs or --strict)."""
    return {"component": comp.id, "count": [c.count for c in comp.cards], "paper": options.paper,
            "duplex": options.duplex, "bleed": options.bleed, "gutter": options.gutter, "margin": options.margin,
            "marks": options.marks, "back_offset": list(options.back_offset), "mode": options.mode,
            "cut_file": options.cut_file, "sets": options.sets, "epoch": source_date_epoch()}


def _previous_files(folder: Path) -> dict[str, BuiltFile]:
    """The files the last build wrote into this folder, from its manifest (if readable)."""
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        return {f["component"]: BuiltFile(**f) for f in manifest.get("files", [])}
    except (OSError, ValueError, TypeError, KeyError):
        return {}


def _intact(path: Path, built: BuiltFile) -> bool:
    """The file is still the one the manifest describes (not edited, truncated or deleted)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() == built.sha256
    except OSError:
        return False


def _worker_init(lock_fd: int | None) -> None:
    """In each worker: let go of the build lock the fork handed down (only the main process
    holds it), die with the main process — a killed build must not leave workers that keep
    the output folder locked."""
    if lock_fd is not None:
        try:
            os.close(lock_fd)
        except OSError:
            pass
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG (Linux); harmless elsewhere
        if os.getppid() == 1:           # the parent died before prctl took effect
            os._exit(1)
    except (OSError, AttributeError):
        pass


def _fork_context():
    """Fork where available: workers start instantly with cardgen and the games already loaded."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else methods[0])


def calibrate(paper: str, duplex: str, out: Path) -> Path:
    """Write the duplex calibration sheet (measures --back-offset and checks 100 % scaling)."""
    opts = replace(BuildOptions(paper=paper, duplex=duplex), out=out).validated()
    sheet = opts.sheet()
    if duplex == "none":
        raise InputError("calibration needs a duplex mode", None, "use --duplex long or --duplex short")
    try:
        data = write_calibration(sheet.width, sheet.height, duplex=duplex, creation_epoch=source_date_epoch())
    except PdfWriteError as exc:
        raise InputError(f"--paper {paper}: {exc}", None, "choose a larger --paper, such as a4") from None
    path = out / f"calibration-{paper}-{duplex}.pdf"
    atomic_write(path, data)
    return path

