"""Stages 4 and 5 of the pipeline: lay rendered faces out on paper and write the print files.

For each component: render every distinct face once, turn each into a one-page vector PDF,
plan the sheet grid, impose (each face stored once as a Form XObject and placed many times)
and write ``OUT/<game>/<lang>/<component>.pdf`` atomically, then the manifest and printing
instructions. Games are independent, so they are built in parallel processes.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable

from . import i18n, schedule
from .cache import CachedFace, FaceCache, cache_file, component_fingerprint, face_key, game_fingerprint, inputs_digest
from .errors import CardgenError, InputError, Location, display_path
from .imposition import (REGISTRATION_GAP, REGISTRATION_SIZE, CardGeometry, GridPlan, ImpositionError, Placement,
                         plan_grid)
from .loader import load_game
from .model import Component, Game
from .output import BuildLock, atomic_write, commit, discard, source_date_epoch, stage
from .paper import Paper, PaperError, parse_paper
from .pdfwrite import PdfWriteError, write_calibration, write_sheets, write_single, write_tiled
from .render import Face, Renderer, TemplateError, TextIssue
from .schedule import Task

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
    back_offset: tuple[float, float] = (0.0, 0.0)
    mode: str = "sheets"
    level: int | None = None         # highest game level to include; None = all
    cut_file: bool = False
    out: Path = Path("output")
    games_dirs: tuple[Path, ...] = ()
    strict: bool = False             # untranslated strings are errors
    cache: bool = True               # reuse rendered faces from <out>/.cache (--no-cache: off)

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
        if any(abs(v) > 20 for v in self.back_offset):
            raise InputError("--back-offset is more than 20 mm", None, "measure it with 'cardgen calibrate'")
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
    return CardGeometry(comp.width, comp.height, comp.bleed, comp.shape.cut_path(comp.width, comp.height),
                        comp.shape.is_rectangular)


def _page_count(pdf: bytes) -> int:
    import io

    import pikepdf

    with pikepdf.open(io.BytesIO(pdf)) as doc:
        return len(doc.pages)


def components_for(game: Game, level: int | None) -> list[Component]:
    return [c for c in game.components.values() if level is None or c.level <= level]


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
                 cards: tuple[CardKeys, ...], cache_root: Path | None,
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
    for card_id, count, front_ck, back_ck in cards:
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
                face = renderer.face(comp, comp.card(card_id), side)
                hit = CachedFace(face.key, pdfs.get(face.key) or _drawn(face, comp, side), tuple(renderer.issues),
                                 tuple(sorted(tr.missing)) if tr else ())
                rendered.append((ck, hit))
            pdfs.setdefault(hit.svg_key, hit.pdf)
            issues.extend(hit.issues)
            missing.update(hit.missing)
            keys.append(hit.svg_key)
        order.append((keys[0], keys[1], count))
    cache.put(rendered)
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


def _chunks(keys: list[CardKeys], jobs: int) -> list[tuple[CardKeys, ...]]:
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


class UntranslatedError(CardgenError):
    """--strict and a string without translation: the deck is incomplete (exit 1, like findings)."""

    exit_code = 1


def _write_component(game_ref: str, games_dirs: tuple[Path, ...], comp_id: str, chunks: list[FaceChunk],
                     options: BuildOptions, inputs: str) -> tuple[BuiltFile, list[Path]]:
    """Impose one component's rendered faces; its PDF (and cut file) are staged, not yet
    renamed into place (see :func:`cardgen.output.commit`)."""
    staged: list[Path] = []
    game = _game(game_ref, games_dirs)
    comp = game.components[comp_id]
    paper, epoch = options.sheet(), source_date_epoch()
    folder = options.out / game.id / options.lang
    pdfs: dict[str, bytes] = {}
    placements: list[Placement] = []
    for chunk in chunks:
        pdfs.update(chunk.pdfs)
        for front, back, count in chunk.order:
            placements.extend([Placement(front, back)] * count)
    geometry = _geometry(comp)
    footer = f"{game.name} · {comp.name} · {options.lang}"
    title = f"{game.name} – {comp.name} ({options.lang})"
    try:
        if options.mode == "single":
            data = write_single(placements, pdfs, geometry, creation_epoch=epoch, title=title)
            layout, per_sheet = "one card per page, bleed box = page, TrimBox/BleedBox set", 1
        else:
            cutting = options.cut_file and not geometry.is_rectangular
            # print-and-cut: the cutter finds the sheet by registration squares beside the block
            margin = max(options.margin, REGISTRATION_SIZE + REGISTRATION_GAP + 1) if cutting else options.margin
            try:
                plan = plan_grid(paper.width, paper.height, geometry, margin=margin, gutter=options.gutter,
                                 bleed=None if options.bleed is None else min(options.bleed, comp.bleed),
                                 paper_label=paper.label, count=len(placements))
            except ImpositionError:
                if len(comp.cards) != 1:
                    raise
                data = write_tiled(pdfs[placements[0].front], comp.width, comp.height, paper.width, paper.height,
                                   margin=options.margin, creation_epoch=epoch, title=title)
                layout, per_sheet = (f"{comp.width:g} × {comp.height:g} mm tiled onto {paper.label} sheets with "
                                     f"overlap and glue marks (or build with --paper a3 for one sheet)"), 0
            else:
                data = write_sheets(placements, pdfs, geometry, plan, duplex=options.duplex, marks=options.marks,
                                    back_offset=options.back_offset, footer=footer, title=title,
                                    creation_epoch=epoch, registration=cutting)
                layout, per_sheet = plan.describe(), plan.per_sheet
                if cutting:
                    staged.append(_stage_cut_file(folder / f"{comp.id}-cut.svg", geometry, plan, len(placements)))
    except (ImpositionError, PdfWriteError) as exc:
        raise InputError(f"{game.id}/{comp.id}: {exc}", comp.location, "choose a larger --paper") from None
    path = folder / f"{comp.id}.pdf"
    staged.append(stage(path, data))
    return BuiltFile(str(path.relative_to(options.out)), comp.id, paper.label, layout, _page_count(data), per_sheet,
                     len(placements), len(pdfs), hashlib.sha256(data).hexdigest(), inputs), staged


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
    """Plain-language instructions that travel with the PDFs (for the teacher at the copier)."""
    def _(msgid: str, context: str | None = None) -> str:
        return tr(msgid, context) if tr else msgid

    flip = {"long": _("flip on the LONG edge"), "short": _("flip on the SHORT edge"),
            "none": _("single-sided")}[options.duplex]
    lines = [_("{game} — printing instructions ({lang})").format(game=_(game.name, "game"), lang=options.lang), "",
             _("Paper: {paper}. Print at 100 % / actual size, never 'fit to page': the cards must measure what "
               "the files say.").format(paper=options.sheet().label),
             _("Double-sided files: {flip}. If backs drift, measure with 'cardgen calibrate --paper {paper}' and "
               "rebuild with --back-offset X,Y.").format(flip=flip, paper=options.paper), ""]
    comps = {c.id: c for c in game.components.values()}
    for f in result.files:
        comp = comps[f.component]
        lines.append(_("{file}: {name} — {cards} piece(s), {pages} page(s); {layout}.").format(
            file=Path(f.path).name, name=_(comp.name, "component"), cards=f.cards, pages=f.pages, layout=f.layout))
        if comp.print_note:
            lines.append("    " + _(comp.print_note, "component.print_note"))
        if comp.level > 1:
            lines.append("    " + _("Needed from level {level} on.").format(level=comp.level))
        if not comp.shape.is_rectangular:
            lines.append("    " + _("Cut along the printed outline."))
    return "\n".join(lines) + "\n"


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
    all_keys: dict[tuple[str, str], list[CardKeys]] = {}
    for g in games:
        game_fp = game_fingerprint(g, options.lang)
        for comp in components_for(g, options.level):
            if len(comp.cards) > MAX_DISTINCT_FACES:
                raise InputError(f"component '{comp.id}' has {len(comp.cards)} distinct cards; a build handles at most "
                                 f"{MAX_DISTINCT_FACES} per component", comp.location,
                                 "split it into several components (copies of one card are not limited)")
            all_keys[(g.id, comp.id)] = card_keys(g, comp, options.lang, game_fp)
    present = frozenset(cache.present(k for keys in all_keys.values() for _c, _n, *ks in keys for k in ks if k))
    for g in games:
        previous = _previous_files(results[g.id].folder)
        for comp in components_for(g, options.level):
            keys = all_keys[(g.id, comp.id)]
            digests[(g.id, comp.id)] = inputs_digest((k for _c, _n, *ks in keys for k in ks if k),
                                                     _settings(options, comp))
            old = previous.get(comp.id)
            if options.cache and old and old.inputs == digests[(g.id, comp.id)] and _intact(options.out / old.path, old):
                cached = [cache.get(k) for _c, _n, *ks in keys for k in ks if k]
                if all(cached):
                    reused[(g.id, comp.id)] = old
                    for hit in cached:
                        results[g.id].issues.extend(hit.issues)
                        results[g.id].untranslated.extend(hit.missing)
                    continue
            for chunk in _chunks(keys, jobs):
                chunk_keys = {k for _c, _n, *ks in chunk for k in ks if k}
                chunk_misses = len(chunk_keys - present)
                misses += chunk_misses
                tasks.append(Task(render_chunk, (refs[g.id], options.lang, dirs, comp.id, chunk, options.cache_root,
                                                 frozenset(chunk_keys & present)),
                                  group=g.id, cost=chunk_misses + 0.05, tag=(len(tasks), g.id, comp.id)))
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
            seq, gid, comp_id = task.tag
            chunks.setdefault((gid, comp_id), []).append((seq, result))  # type: ignore[arg-type]
            pending[(gid, comp_id)] -= 1
            if pending[(gid, comp_id)]:
                return []
            # every card of the component is rendered: impose it while other cards still render
            parts = [chunk for _seq, chunk in sorted(chunks[(gid, comp_id)], key=lambda p: p[0])]
            return [Task(_write_component, (refs[gid], dirs, comp_id, parts, options, digests[(gid, comp_id)]),
                         group=gid, tag=(gid, comp_id))]

        # worker processes pay off only when there is real rendering to share out
        workers = jobs if misses >= 8 else 1
        context = _fork_context()
        if workers > 1 and context.get_start_method() == "fork":
            # preload before forking (as gunicorn's preload_app does): the drawing libraries
            # are imported once here instead of once per worker, and their pages are shared
            from . import draw  # noqa: F401
        schedule.run(tasks, workers, on_result, mp_context=context, initializer=_worker_init, initargs=(lock_fd,))
        for g in games:
            res = results[g.id]
            for comp in components_for(g, options.level):
                for _seq, chunk in sorted(chunks.get((g.id, comp.id), []), key=lambda p: p[0]):
                    res.issues.extend(chunk.issues)
                    res.untranslated.extend(chunk.missing)
            res.issues = list(dict.fromkeys(res.issues))
            res.untranslated = sorted(set(res.untranslated))
            _check_strict(g, res, options)   # raises before anything replaces the old files
            res.files = [outcomes[(g.id, c.id)][0] for c in components_for(g, options.level)]
            staged.extend(_stage_manifest(g, res, options, i18n.translator(g, options.lang)))
        # every file was written in full: only now does each folder's new version replace the old
        commit(staged, keep=[options.out / built.path for built in reused.values()] +
               [options.out / Path(built.path).with_name(f"{built.component}-cut.svg") for built in reused.values()])
        staged = []
        for g in games:
            if on_done:
                on_done(results[g.id])
    finally:
        discard(staged)
    return [results[g.id] for g in games]


def _settings(options: BuildOptions, comp: Component) -> dict[str, object]:
    """The options a component's PDF depends on (not --out, --jobs or --strict)."""
    return {"component": comp.id, "count": [c.count for c in comp.cards], "paper": options.paper,
            "duplex": options.duplex, "bleed": options.bleed, "gutter": options.gutter, "margin": options.margin,
            "marks": options.marks, "back_offset": list(options.back_offset), "mode": options.mode,
            "cut_file": options.cut_file, "epoch": source_date_epoch()}


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
    the output folder locked — and have cairo write faces uncompressed.

    cairo deflates content at zlib's default level, with no setting for it: 0.2 s of the
    shipped decks' 0.75 s of drawing. Imposition compresses each face anyway, once and
    faster (:func:`cardgen.pdfwrite.deflate`), so here cairo is told not to, with the only
    switch it has, an environment variable (read when a PDF surface is created). It is
    set in these processes, which are cardgen's own, never in the caller's process."""
    os.environ["CAIRO_DEBUG_PDF"] = "1"
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

