"""Stages 4 and 5 of the pipeline: lay rendered faces out on paper and write the print files.

:func:`build` reads as the sequence it runs, one module per step:

1. :mod:`.options` — the options, checked once (the paper parsed into a ``Paper``);
2. :mod:`.gates` — the check gate: a deck the rules find wrong is not built (its rules run
   while the workers render, in a forked child or on a thread, see :class:`.workers.Alongside`;
   no file is staged until they pass);
3. :mod:`.plan` — per game, the files to write (print jobs), the faces each needs, which
   files stay as they are and which faces must be rendered (nothing rendered yet);
4. :mod:`.workers` + :mod:`.faces` — the faces rendered and drawn, in parallel processes;
5. :mod:`.impose` — each job's PDF imposed as soon as its faces are in; :mod:`.rulesheets` —
   each rule sheet and answer key rendered by a task of its own, on the same processes;
6. :mod:`.report` — manifest, PRINTING.txt;
7. :func:`cardgen.output.commit` — only when every file was written in full does each
   folder's new version replace the old (a failure leaves the previous outputs untouched).
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Callable, Iterable

from .. import i18n, machinefiles
from .._callable import make_callable
from ..cache import FaceCache, file_digest, game_files
from ..errors import InputError, Location, display_path
from ..model import Game
from ..output import BuildLock, atomic_write, commit, discard, source_date_epoch
from ..pdfwrite import PdfWriteError, write_calibration
from ..schedule import Task
from ..uptodate import Recorder
from . import gates, report, spool
from .faces import FaceChunk, render_chunk
from .gates import RuleFindingsError, TextProblemsError, UntranslatedError
from .impose import write_job
from .options import DUPLEX, MARKS, MODES, BuildOptions
from .plan import (MAX_CARDS_PER_PDF, CardKeys, MarkedKeys, Plan, PrintJob, RenderWork, band_plan_of,
                   card_geometry, card_keys, components_for, job_marks, marked_keys, plan, print_jobs)
from .report import printing_instructions, text_report
from .results import BuiltFile, GameBuild
from .rulesheets import SHEET_COST, SheetFile, SheetPlan, add_notes, plan_sheets, render_sheet_file, stage_sheet
from .workers import Alongside
from .workers import run as run_tasks

# the names earlier versions had (tests and benchmarks use them)
_band_plan = band_plan_of
_geometry = card_geometry

__all__ = [
    "DUPLEX", "MARKS", "MAX_CARDS_PER_PDF", "MODES", "BuildOptions", "BuiltFile", "CardKeys", "FaceChunk",
    "GameBuild", "MarkedKeys", "PrintJob", "RuleFindingsError", "TextProblemsError", "UntranslatedError", "build",
    "calibrate", "card_geometry", "card_keys", "components_for", "job_marks", "marked_keys", "print_jobs",
    "printing_instructions", "text_report",
]


#: Whether this process has run a check gate: its first runs in a forked child (see
#: :meth:`Alongside.fork`), cold there as it would be here; later ones run on a thread, so that
#: a process that builds again — the library's caller, ``cardgen serve`` — keeps what the rules
#: read (the particle package and its tables, each template's facts) from one build to the next.
_gated_here = False


def build(games: Iterable[Game], options: BuildOptions, jobs: int | None = None,
          on_done: Callable[[GameBuild], None] | None = None,
          on_wait: Callable[[], None] | None = None, *, check: bool = False,
          stamp: Recorder | None = None) -> list[GameBuild]:
    """Build several games using ``jobs`` processes (default: one per core): with ``check``
    the check gate (as ``cardgen build`` and the library's :func:`cardgen.build` do; this
    stage function alone leaves it to its caller) — run in this process while the workers
    render the first language, and passed before any file is staged: a deck the rules find
    wrong raises :class:`RuleFindingsError`, whatever else failed, and no file of any game
    folder is written (rendered faces may stay in the face cache) — then each language (``options.lang`` 'all': every language a game has a
    catalog for, see :func:`cardgen.i18n.languages`). Returns one :class:`GameBuild` per game
    and language; ``on_done`` is called with each as it is committed.

    Work is split finer than games — chunks of cards for rendering, then one task per
    component for imposition — so both cores stay busy even when one game dominates. Faces
    come from the face cache when their inputs have not changed, and a component whose faces
    and options are all unchanged keeps its existing PDF. Every face is rendered before any
    file is written: a template error, or an untranslated string with ``strict``, leaves the
    previous outputs untouched.

    ``stamp`` (see :mod:`cardgen.uptodate`): the old stamp of this request is dropped first,
    the gate sees only the games whose files changed since it, and a new one is written
    under the lock once everything is in place.
    """
    options, games = options.validated(), list(games)
    with machinefiles.switch(options.cache):   # --no-cache: nothing taken from the machine's cache folder either
        return _build(games, options, jobs, on_done, on_wait, check, stamp)


def _build(games: list[Game], options: BuildOptions, jobs: int | None, on_done: Callable[[GameBuild], None] | None,
           on_wait: Callable[[], None] | None, check: bool, stamp: Recorder | None) -> list[GameBuild]:
    if stamp:
        stamp.forget()
    # the check gate alongside the rendering (for the games whose files changed since the
    # stamp); the rules that measure faces run once the faces are rendered (gates.check_legibility)
    gate = Alongside(partial(gates.check_rules, stamp.to_check(games) if stamp else games,
                             stamp.loaded_ns if stamp and options.cache else None, options.cache)) if check else None
    jobs = jobs or os.cpu_count() or 1
    global _gated_here
    if gate is not None:
        if jobs > 1 and not _gated_here:
            gate.fork()   # on a core of its own from now on, where there is one
        _gated_here = True
    results: list[GameBuild] = []
    staged: list[Path] = []
    kept: list[Path] = []
    started: dict[tuple[str, str], dict[Path, str]] = {}   # (game, language) → its input files when its build began
    by_id = {g.id: g for g in games}
    try:
        with BuildLock(options.out, on_wait=on_wait) as lock:
            pending = gate   # the first language waits for it; it has passed for the others
            for lang, todo in i18n.language_games(options.lang, games):
                started.update({(g.id, lang): _inputs_now(g, lang) for g in todo})
                built = _build_language(todo, replace(options, lang=lang), jobs, lock.fileno(), pending, check)
                results += built.results
                staged += built.staged
                kept += built.kept
                pending = None
            for result in results:   # drawn from the files as they are: nothing changed them meanwhile
                _unchanged(by_id[result.game], result.lang, started[(result.game, result.lang)])
            # every language of every game was written in full: only now does each folder's
            # new version replace the old (a language that fails leaves all of them as they were)
            commit(staged, keep=kept)
            staged = []
            _vouch(options, results)
            for result in results:
                if on_done:
                    on_done(result)
            if stamp:
                stamp.record(games, results, checked=check)
    finally:
        discard(staged)
        if gate is not None:
            gate.close()   # a child still running when the build ended another way
    return results


def _vouch(options: BuildOptions, results: list[GameBuild]) -> None:
    """Note every file just written, with its manifest row, as this user's (see
    :meth:`FaceCache.vouch`): the next build keeps a file, and its row, only if it is."""
    cache = FaceCache(options.cache_root)
    cache.vouch({f"{r.game}/{r.lang}": r.files for r in results})
    cache.finish()   # after the languages' own: the write-ahead log folded back again


def _inputs_now(game: Game, lang: str) -> dict[Path, str]:
    """Every file a build of ``game`` in ``lang`` reads (the faces' files, the cards' files and
    the rest the loader read) with a digest of its bytes now ("" for a file gone): a build
    compares them, before it replaces anything, with what they were when it started (a
    template saved mid-build gave PDFs half old, half new), and names the files that moved."""
    files = set(game_files(game, lang)) | {c.file for c in game.components.values()} | set(game.files)
    return {f: file_digest(f) for f in files}


def _unchanged(game: Game, lang: str, started: dict[Path, str]) -> None:
    """Refuse the build when an input file changed (or came or went) since it started, at the
    file that changed: the one to save, or to stop the program that writes it."""
    now = _inputs_now(game, lang)
    changed = sorted(display_path(f) for f in started.keys() | now.keys() if started.get(f) != now.get(f))
    if changed:
        also = f" (also changed: {', '.join(changed[1:6])}{', …' if len(changed) > 6 else ''})" if changed[1:] else ""
        raise InputError(f"the files of {game.id} changed while it was being built ({lang}): its decks would mix "
                         f"old and new; nothing was written{also}", Location(changed[0]),
                         "build again once the files are saved")


@dataclass(frozen=True)
class _Language:
    """One language's build, written in full beside the folders it replaces: its results,
    the files it staged and the unchanged files each new folder keeps (see :func:`commit`)."""

    results: list[GameBuild]
    staged: list[Path]
    kept: list[Path]


def _build_language(games: list[Game], options: BuildOptions, jobs: int, lock_fd: int | None,
                    gate: Alongside | None = None, check: bool = False) -> _Language:
    """Plan, render, impose and stage every game in one language (``gate``: the check gate,
    run alongside the rendering and passed before anything is staged; ``check``: the rules
    that measure rendered faces too, once they are rendered). What it staged is the
    caller's to commit, or to discard if it fails."""
    cache = FaceCache(options.cache_root)
    run: _Run | None = None
    try:
        try:
            measured = frozenset(g.id for g in games if gates.measures_faces(g))
            run = _Run(games, options, plan(games, options, jobs, cache, measured), gate, check, measured)
            run_tasks(run.tasks(), run.plan.misses + run.sheets_cost(), jobs, run.on_result, run.refs, lock_fd, gate,
                      run.released, run.start_measuring)
        except Exception:
            if gate is not None:
                gate.wait()   # the rules' verdict comes first, whatever else failed
            raise
        # (a Ctrl-C or SIGTERM is not waited on: the gate's child, stopped by the same signal,
        # would leave the rules to this process, which would run them all before stopping)
        if gate is not None:
            gate.wait()
        results = [run.finish_game(g) for g in games]
        built = _Language(results, run.staged, run.kept_files())
        run.staged = []
        cache.keep_only(run.plan.kept_faces(options), run.plan.component_scopes(options))
        return built
    finally:
        if run is not None:
            discard(run.staged)
            spool.remove(run.spools)
        cache.finish()


@dataclass
class _Run:
    """One language's build in progress: rendered chunks come in, and each job is imposed as
    soon as its last chunk has (while other cards still render). Until the check gate
    (``gate``) has passed, what would stage a file waits: imposition tasks are held back,
    rendered sheets kept in memory; with nothing else left to run, the gate is waited for."""

    games: list[Game]
    options: BuildOptions
    plan: Plan
    gate: Alongside | None = None
    check: bool = False   # the check gate's rules that measure rendered faces run (see gates.check_legibility)
    measured: frozenset[str] = frozenset()   # the games that declare such rules: their faces are measured
    chunks: dict[tuple[str, str], list[tuple[int, FaceChunk]]] = field(default_factory=dict)
    built: dict[tuple[str, str], BuiltFile] = field(default_factory=dict)
    staged: list[Path] = field(default_factory=list)   # discarded if anything fails before the commit
    kept_sheets: list[Path] = field(default_factory=list)   # rule sheets whose inputs did not change
    sheets: dict[tuple[str, str], SheetFile] = field(default_factory=dict)   # (game, kind) → rendered sheet
    held: list[Task] = field(default_factory=list)          # follow-ups that stage files, until the gate passes
    unstaged: list[SheetFile] = field(default_factory=list)  # rendered sheets, until the gate passes
    outstanding: int = 0                                     # tasks handed to the scheduler, not yet finished
    spools: list[str] = field(default_factory=list)   # rendered faces on their way to a PDF (see .spool)
    legibility: dict[str, Alongside] = field(default_factory=dict)   # by game: its faces' legibility rules

    def __post_init__(self) -> None:
        self.refs = {str(g.data_dir): g for g in self.games}
        self.ref = {g.id: str(g.data_dir) for g in self.games}
        self.pending = Counter((w.game, w.job) for w in self.plan.work)
        self.digests = {(g, jp.job.id): jp.digest for g, jps in self.plan.jobs.items() for jp in jps}
        self.sheet_plans = {g.id: plan_sheets(g, self.options, self.plan.previous.get(g.id, {}),
                                              self.plan.fingerprints[g.id]) for g in self.games}

    def tasks(self) -> list[Task]:
        """A task per rule sheet or answer key to render, then a rendering task per piece of
        work, the costliest (most faces to render) first. The sheets come first because
        each is one large piece (0.1–0.2 s): last, the final one ran on one process while
        the other had nothing left to do (measured on the default build); first, the run
        ends on small pieces of cards, which both processes share (see :mod:`cardgen.schedule`)."""
        o = self.options
        sheets = [Task(render_sheet_file, (self.ref[gid], sp.kind, o, sp.digest, sp.game_fp, sp.previous), group=gid,
                       cost=SHEET_COST, tag=(gid, sp.kind))
                  for gid, plans in self.sheet_plans.items() for sp in plans if sp.kept is None]
        cards = [Task(render_chunk, (self.ref[w.game], o.lang, w.component, w.cards, o.cache_root, o.out, w.cached,
                                     w.relocate, w.measure),
                      group=w.game, cost=w.misses + 0.05, tag=(seq, w.game, w.job))
                 for seq, w in enumerate(self.plan.work)]
        tasks = sheets + cards
        self.outstanding = len(tasks)
        return tasks

    def sheets_cost(self) -> float:
        """The sheets to render, in faces' worth of work."""
        return SHEET_COST * sum(sp.kept is None for plans in self.sheet_plans.values() for sp in plans)

    def on_result(self, task: Task, result: object) -> list[Task]:
        self.outstanding -= 1
        self.held.extend(self._follow_ups(task, result))
        return self.released()

    def released(self) -> list[Task]:
        """What was held back for the check gate, once it has passed (nothing before)."""
        if not self._may_write():
            return []
        released, self.held = self.held, []
        self.staged.extend(stage_sheet(sheet) for sheet in self.unstaged)
        self.unstaged = []
        self.outstanding += len(released)
        return released

    def _may_write(self) -> bool:
        """Whether files may be staged: once the check gate has passed (raising its findings
        if it did not); when nothing else is left to run, after waiting for it."""
        if self.gate is None:
            return True
        if not self.outstanding and (self.held or self.unstaged):
            self.gate.wait()
        return self.gate.passed()

    def _follow_ups(self, task: Task, result: object) -> list[Task]:
        """What a finished task leads to: a job's imposition once its last chunk is in."""
        if task.fn is render_sheet_file:
            self.sheets[task.tag] = result  # type: ignore[assignment]
            self.unstaged.append(result)  # type: ignore[arg-type]
            return []
        if task.fn is write_job:
            built, staged = result  # type: ignore[misc]
            self.built[task.tag] = built
            self.staged.extend(staged)
            return []
        seq, gid, job_id = task.tag
        self.spools.append(result.spool)  # type: ignore[attr-defined]
        self.chunks.setdefault((gid, job_id), []).append((seq, result))  # type: ignore[arg-type]
        self.pending[(gid, job_id)] -= 1
        if self.pending[(gid, job_id)]:
            return []
        if all(not self.pending[(gid, jp.job.id)] for jp in self.plan.jobs[gid]):
            self._measure(self.refs[self.ref[gid]])   # on a thread, while the PDFs are written
        parts = [chunk.for_writer() for _seq, chunk in sorted(self.chunks[(gid, job_id)], key=lambda p: p[0])]
        return [Task(write_job, (self.ref[gid], job_id, parts, self.options, self.digests[(gid, job_id)]),
                     group=gid, tag=(gid, job_id))]

    def finish_game(self, game: Game) -> GameBuild:
        """A game's result once its jobs are written: what rendering reported, its rule
        sheets, the gates that may still stop the build, and its manifest (all staged)."""
        o = self.options
        res = GameBuild(game.id, game.name, o.lang, o.out / game.id / o.lang)
        jobs = self.plan.jobs[game.id]
        for jp in jobs:
            for hit in jp.notes:
                res.note(hit.issues, hit.missing)
        for jp in jobs:
            for _seq, chunk in sorted(self.chunks.get((game.id, jp.job.id), []), key=lambda p: p[0]):
                res.note(chunk.issues, chunk.missing)
        res.settle()
        sheet_files = [self._sheet(game.id, sp, res) for sp in self.sheet_plans[game.id]]
        res.files = [jp.reused or self.built[(game.id, jp.job.id)] for jp in jobs] + sheet_files
        tr = i18n.translator(game, o.lang)
        printing = report.printing_instructions(game, res, o, tr)
        if tr is not None:   # the footers' and PRINTING.txt's words count among what has no translation
            report.footer_words(tr, game, o, (jp.job for jp in jobs))
            res.untranslated = sorted(set(res.untranslated) | set(tr.missing))
        gates.check_strict(game, res, o)   # raises before anything replaces the old files
        gates.check_text(game, res, o)
        if self.check and game.id in self.measured:
            self._measure(game)   # (here and now if no face of it was rendered)
            self.legibility[game.id].wait()
        self.staged.extend(report.stage_manifest(game, res, o, printing))
        return res

    def _measure(self, game: Game) -> None:
        """Set up the legibility rules on the faces of ``game`` once all are rendered, to run on
        a thread (see :meth:`start_measuring`): the build's process has little else to do
        while the workers write its PDFs, and :meth:`finish_game` takes the verdict where
        the other gates are. What the rules read is gathered here, on the build's thread."""
        if not self.check or game.id not in self.measured or game.id in self.legibility:
            return
        jobs, rendered = self.plan.jobs[game.id], self.rendered_work(game)
        issues = [i for jp in jobs for hit in jp.notes for i in hit.issues]
        issues += [i for parts in rendered.values() for _w, chunk in parts for i in chunk.issues]
        faces = partial(gates.measured_faces, game, issues, self.options, jobs, rendered)
        self.legibility[game.id] = Alongside(lambda: gates.check_legibility(gates.legibility_errors(game, faces())))

    def start_measuring(self) -> None:
        """Start the legibility rules :meth:`_measure` set up, once the tasks that game's last
        piece of work led to are handed out: started on the spot, their thread took the
        interpreter from the build's thread while it was handing the game's last PDF to a
        worker (which waited 19 ms for it after a one-card edit)."""
        for gate in self.legibility.values():
            gate.start()

    def _sheet(self, gid: str, sp: SheetPlan, res: GameBuild) -> BuiltFile:
        """A sheet's manifest row, what its rendering reported added to the game's."""
        if sp.kept is not None:
            add_notes(res, sp.issues, sp.missing)
            self.kept_sheets.append(self.options.out / sp.kept.path)
            return sp.kept
        sheet = self.sheets[(gid, sp.kind)]
        add_notes(res, sheet.issues, sheet.missing)
        return sheet.built

    def rendered_work(self, game: Game) -> dict[str, list[tuple[RenderWork, FaceChunk]]]:
        """The chunks rendered for each of a game's jobs, with the work each did, in order."""
        return {job: [(self.plan.work[seq], chunk) for seq, chunk in sorted(parts, key=lambda p: p[0])]
                for (gid, job), parts in self.chunks.items() if gid == game.id}

    def kept_files(self) -> list[Path]:
        """Files of the last build that stay: unchanged PDFs (with their cut files) and sheets."""
        out = self.options.out
        reused = self.plan.reused()
        return ([out / b.path for b in reused] + self.kept_sheets +
                [out / Path(b.path).with_name(f"{b.component}-cut.svg") for b in reused])


make_callable(__name__, "build")   # cardgen.build(...) is cardgen.api.build: the check gate, then this


def calibrate(paper: str, duplex: str, out: Path) -> Path:
    """Write the duplex calibration sheet (measures --back-offset and checks 100 % scaling)."""
    sheet = replace(BuildOptions(paper=paper, duplex=duplex), out=out).validated().sheet()
    if duplex == "none":
        raise InputError("calibration needs a duplex mode", None, "use --duplex long or --duplex short")
    try:
        data = write_calibration(sheet.width, sheet.height, duplex=duplex, creation_epoch=source_date_epoch())
    except PdfWriteError as exc:
        raise InputError(f"--paper {paper}: {exc}", None, "choose a larger --paper, such as a4") from None
    path = out / f"calibration-{paper}-{duplex}.pdf"
    atomic_write(path, data)
    return path
