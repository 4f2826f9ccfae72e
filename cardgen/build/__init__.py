"""Stages 4 and 5 of the pipeline: lay rendered faces out on paper and write the print files.

:func:`build` reads as the sequence it runs, one module per step:

1. :mod:`.options` — the options, checked once (the paper parsed into a ``Paper``);
2. :mod:`.gates` — the check gate: a deck the rules find wrong is not built;
3. :mod:`.plan` — per game, the files to write (print jobs), the faces each needs, which
   files stay as they are and which faces must be rendered (nothing rendered yet);
4. :mod:`.workers` + :mod:`.faces` — the faces rendered and drawn, in parallel processes;
5. :mod:`.impose` — each job's PDF imposed as soon as its faces are in;
6. :mod:`.rulesheets`, :mod:`.report` — rule sheet, answer key, manifest, PRINTING.txt;
7. :func:`cardgen.output.commit` — only when every file was written in full does each
   folder's new version replace the old (a failure leaves the previous outputs untouched).
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable

from .. import i18n
from .._callable import make_callable
from ..cache import FaceCache
from ..errors import InputError
from ..model import Game
from ..output import BuildLock, atomic_write, commit, discard, source_date_epoch
from ..pdfwrite import PdfWriteError, write_calibration
from ..schedule import Task
from . import gates, report, spool
from .faces import FaceChunk, render_chunk
from .gates import RuleFindingsError, TextProblemsError, UntranslatedError
from .impose import write_job
from .options import DUPLEX, MARKS, MODES, BuildOptions
from .plan import (MAX_CARDS_PER_PDF, CardKeys, MarkedKeys, Plan, PrintJob, band_plan_of, card_geometry, card_keys,
                   components_for, job_marks, marked_keys, plan, print_jobs)
from .report import printing_instructions, text_report
from .results import BuiltFile, GameBuild
from .rulesheets import stage_sheets
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


def build(games: Iterable[Game], options: BuildOptions, jobs: int | None = None,
          on_done: Callable[[GameBuild], None] | None = None,
          on_wait: Callable[[], None] | None = None, *, check: bool = False) -> list[GameBuild]:
    """Build several games using ``jobs`` processes (default: one per core): with ``check``
    first the check gate (as ``cardgen build`` and the library's :func:`cardgen.build` do;
    this stage function alone leaves it to its caller), then each language (``options.lang`` 'all': every language a game has a
    catalog for, see :func:`cardgen.i18n.languages`). Returns one :class:`GameBuild` per game
    and language; ``on_done`` is called with each as it is committed.

    Work is split finer than games — chunks of cards for rendering, then one task per
    component for imposition — so both cores stay busy even when one game dominates. Faces
    come from the face cache when their inputs have not changed, and a component whose faces
    and options are all unchanged keeps its existing PDF. Every face is rendered before any
    file is written: a template error, or an untranslated string with ``strict``, leaves the
    previous outputs untouched.
    """
    options, games = options.validated(), list(games)
    if check:
        gates.check_rules(games)
    results: list[GameBuild] = []
    with BuildLock(options.out, on_wait=on_wait) as lock:
        for lang in i18n.languages(options.lang, games):
            todo = [g for g in games if options.lang != "all" or lang in i18n.available_languages(g)]
            results += _build_language(todo, replace(options, lang=lang), jobs or os.cpu_count() or 1, on_done,
                                       lock.fileno())
    return results


def _build_language(games: list[Game], options: BuildOptions, jobs: int,
                    on_done: Callable[[GameBuild], None] | None, lock_fd: int | None) -> list[GameBuild]:
    """Plan, render, impose and commit every game in one language."""
    cache = FaceCache(options.cache_root)
    run = _Run(games, options, plan(games, options, jobs, cache))
    try:
        run_tasks(run.tasks(), run.plan.misses, jobs, run.on_result, run.refs, lock_fd)
        results = [run.finish_game(g) for g in games]
        # every file was written in full: only now does each folder's new version replace the old
        commit(run.staged, keep=run.kept_files())
        run.staged = []
        cache.keep_only(run.plan.kept_faces(options))
        for result in results:
            if on_done:
                on_done(result)
        return results
    finally:
        discard(run.staged)
        spool.remove(run.spools)
        cache.finish()


@dataclass
class _Run:
    """One language's build in progress: rendered chunks come in, and each job is imposed as
    soon as its last chunk has (while other cards still render)."""

    games: list[Game]
    options: BuildOptions
    plan: Plan
    chunks: dict[tuple[str, str], list[tuple[int, FaceChunk]]] = field(default_factory=dict)
    built: dict[tuple[str, str], BuiltFile] = field(default_factory=dict)
    staged: list[Path] = field(default_factory=list)   # discarded if anything fails before the commit
    kept_sheets: list[Path] = field(default_factory=list)   # rule sheets whose inputs did not change
    spools: list[str] = field(default_factory=list)   # rendered faces on their way to a PDF (see .spool)

    def __post_init__(self) -> None:
        self.refs = {str(g.data_dir): g for g in self.games}
        self.ref = {g.id: str(g.data_dir) for g in self.games}
        self.pending = Counter((w.game, w.job) for w in self.plan.work)
        self.digests = {(g, jp.job.id): jp.digest for g, jps in self.plan.jobs.items() for jp in jps}

    def tasks(self) -> list[Task]:
        """A rendering task per piece of work, the costliest (most faces to render) first."""
        o = self.options
        return [Task(render_chunk, (self.ref[w.game], o.lang, w.component, w.cards, o.cache_root, o.out, w.cached),
                     group=w.game, cost=w.misses + 0.05, tag=(seq, w.game, w.job))
                for seq, w in enumerate(self.plan.work)]

    def on_result(self, task: Task, result: object) -> list[Task]:
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
        parts = [chunk for _seq, chunk in sorted(self.chunks[(gid, job_id)], key=lambda p: p[0])]
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
        sheet_files, sheet_staged = stage_sheets(game, res, o, self.plan.previous.get(game.id, {}))
        self.staged.extend(sheet_staged)
        self.kept_sheets.extend(o.out / f.path for f in sheet_files if o.out / f.path not in sheet_staged)
        gates.check_strict(game, res, o)   # raises before anything replaces the old files
        gates.check_text(game, res, o)
        res.files = [jp.reused or self.built[(game.id, jp.job.id)] for jp in jobs] + sheet_files
        self.staged.extend(report.stage_manifest(game, res, o, i18n.translator(game, o.lang)))
        return res

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
