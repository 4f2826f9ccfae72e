"""What a build will do, decided before anything is rendered: the files to write (print
jobs), the faces each needs (cache keys), which files can stay as they are, and the pieces of
rendering work for the rest.

Nothing here renders, draws or writes: it reads the face cache's index and the last build's
manifests, and returns a :class:`Plan`. So the decisions that make a rebuild fast (keep a file
whose inputs are unchanged, render only faces the cache lacks) can be read, and tested, apart
from the machinery that carries them out.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from .. import markroom, setmark
from ..cache import (FaceCache, CachedFace, card_face_keys, component_fingerprint, face_scope, game_fingerprint,
                     games_scope, inputs_digest, software_digest)
from ..errors import InputError
from ..i18n import SOURCE_LANG
from ..imposition import CardGeometry, GridPlan, ImpositionError, band_plan, share_sheets
from ..model import Component, Game
from ..output import source_date_epoch
from ..paper import Paper
from ..setmark import SetMark
from .options import BuildOptions
from .results import BuiltFile, previous_files, intact

#: Distinct cards one PDF may hold, each set of ``--sets`` counted (a marked set's faces are
#: its own). A face's bytes are not held in memory on their way to the PDF (they go through
#: files: see :mod:`.spool` and :class:`cardgen.pdfdoc.Doc`), and a document of many faces is
#: written as it goes (~1 KB of bookkeeping a face), so this bounds the writer's memory (some
#: 50 MB above the worker's own) and the disk the faces and the file take (~40 KB a face).
#: Copies of a card cost nothing.
MAX_CARDS_PER_PDF = 50_000

#: One card's work item: (card id, copies, front cache key, back cache key or None).
CardKeys = tuple[str, int, str, str | None]
#: One card of one set, as a piece of work: (card id, copies, front key, back key, its mark).
MarkedKeys = tuple[str, int, str, str | None, "SetMark | None"]


def card_geometry(comp: Component) -> CardGeometry:
    """A component's piece as imposition sees it: size, bleed, cut path and straight edges."""
    straight = comp.shape.type in ("lozenge", "hexagon")
    return CardGeometry(comp.width, comp.height, comp.bleed, comp.shape.cut_path(comp.width, comp.height),
                        comp.shape.is_rectangular,
                        tuple(comp.shape.vertices(comp.width, comp.height)) if straight else None)


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
    if options is None or options.mode != "sheets":
        return jobs
    paper = options.sheet()
    # a shaped piece with --cut-file keeps sheets of its own: its cut file and registration
    # squares are the sheet's (rectangular pieces get no cut file, and share as without it)
    bands = [(band_plan_of(job.comp, paper, options)
              if job.spare_level is None and not (options.cut_file and not card_geometry(job.comp).is_rectangular)
              else None, job.comp.total * options.sets) for job in jobs]
    shared = []
    for group in share_sheets(bands, margin=options.margin):
        if len(group) == 1:
            shared.append(jobs[group[0]])
        else:
            members = tuple(jobs[i].comp for i in group)
            shared.append(PrintJob("+".join(c.id for c in members), members[0], None, members))
    return shared


def band_plan_of(comp: Component, paper: Paper, options: BuildOptions) -> GridPlan | None:
    """The flattest one-sheet grid of a component's pieces, if they fit one sheet."""
    try:
        return band_plan(paper.width, paper.height, card_geometry(comp), comp.total * options.sets,
                         margin=options.margin, gutter=options.gutter,
                         bleed=None if options.bleed is None else min(options.bleed, comp.bleed),
                         paper_label=paper.label)
    except ImpositionError:
        return None


def job_marks(game: Game, job: PrintJob, sets: int, comp: Component | None = None,
              lang: str = SOURCE_LANG) -> list[SetMark | None]:
    """The mark of each set of a job's pieces (of ``comp``, one of its components; None:
    nothing to mark), clear of the texts its faces print in ``lang`` (see
    :mod:`cardgen.markroom`). A single set carries no set mark (nothing to sort it from);
    level marks are printed whatever the count."""
    comp = comp or job.comp
    level = job_level(game, job, comp)
    return [markroom.placed(game, comp, n if sets > 1 else None, level, lang) for n in range(1, sets + 1)]


def job_level(game: Game, job: PrintJob, comp: Component | None = None) -> int | None:
    """The level mark a job's pieces (of ``comp``, one of its components) carry, or None."""
    comp = comp or job.comp
    return job.spare_level if job.spare_level is not None else setmark.level_mark(game, comp)


def card_keys(game: Game, comp: Component, lang: str, game_fp: str | None = None) -> list[CardKeys]:
    """Cache keys of every card's faces, in deck order."""
    game_fp = game_fp or game_fingerprint(game, lang)
    comp_fp = component_fingerprint(comp)
    back = bool(comp.back)
    return [(c.id, c.count, *card_face_keys(game_fp, comp_fp, c, back)) for c in comp.cards]


def marked_keys(keys: list[CardKeys], marks: list[SetMark | None]) -> list[MarkedKeys]:
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


def face_sides(keys: Iterable[MarkedKeys]) -> Iterator[tuple[str, str, str, SetMark | None]]:
    """The faces of some cards, fronts and backs in order: (card id, side, cache key, mark)."""
    for card, _n, front, back, mark in keys:
        for side, key in (("front", front), ("back", back)):
            if key:
                yield card, side, key, mark


def face_keys(keys: Iterable[MarkedKeys]) -> Iterable[str]:
    """The cache keys of the faces of some cards (fronts and backs, in order)."""
    return (key for _card, _side, key, _mark in face_sides(keys))


#: The most cards a piece of work holds. A process that runs out of work takes pieces not yet
#: started from another, and each process has one queued beside the one it runs: with pieces
#: of a sixth of a 10,000-card deck (8 s each), one process drew four of them and the other two.
MAX_CHUNK = 250


#: The fewest cards a piece shrinks to at the end of a component (see :func:`chunks`).
MIN_TAPERED = 16


#: What a card whose faces the cache holds weighs in a piece of work, against 1 for a card to
#: render: taking a face from the cache and spooling it costs about 0.3 ms, drawing one 5 ms.
CACHED_WEIGHT = 1 / 16


def chunks(keys: list[MarkedKeys], jobs: int, weights: list[float] | None = None) -> list[tuple[MarkedKeys, ...]]:
    """Split a component's cards into pieces of work: three per process, of at most
    :data:`MAX_CHUNK` cards' weight; the last pieces of a large component get smaller (each at
    most a ``2 × jobs``-th of what is left, down to an eighth of a piece or :data:`MIN_TAPERED`
    cards), so the processes finish together: with pieces of 250 cards to the end, one
    process of a 10,000-card build was idle for 2 s while the other drew its last two.

    ``weights``: each card's (default 1; :data:`CACHED_WEIGHT` for one the cache holds). After
    a one-card edit, pieces counted in cards cut Particle Builder's two decks into twelve, all
    but two taken straight from the cache: each a round trip to a process, and the decks' PDFs
    waited for the last of them. Weighed, each deck is one piece."""
    weights = weights if weights is not None else [1.0] * len(keys)
    after = [0.0] * (len(keys) + 1)   # the weight of the cards from each one to the end
    for i in range(len(keys) - 1, -1, -1):
        after[i] = after[i + 1] + weights[i]
    size = max(4, min(math.ceil(after[0] / (jobs * 3)), MAX_CHUNK))
    floor = min(size, max(MIN_TAPERED, size // 8))
    out, at = [], 0
    while at < len(keys):
        left = after[at]
        n = min(size, max(floor, math.ceil(left / (2 * jobs))))
        if left - n < floor and left <= size:   # no tiny last piece: the one before takes it
            end = len(keys)
        else:
            end = at + 1
            while end < len(keys) and after[at] - after[end] < n:
                end += 1
        out.append(tuple(keys[at:end]))
        at = end
    return out


def settings(options: BuildOptions, comp: Component) -> dict[str, object]:
    """The options a component's PDF depends on (not --out, --jobs or --strict)."""
    return {"component": comp.id, "count": [c.count for c in comp.cards], "paper": options.paper,
            "duplex": options.duplex, "bleed": options.bleed, "gutter": options.gutter, "margin": options.margin,
            "marks": options.marks, "back_offset": list(options.back_offset), "mode": options.mode,
            "cut_file": options.cut_file, "sets": options.sets, "epoch": source_date_epoch()}


@dataclass(frozen=True)
class RenderWork:
    """Some cards of one component to render: ``cached`` are the keys the cache holds,
    ``misses`` how many faces must really be rendered (the work's cost); ``relocate``:
    whether its job's document is written as it goes, and so wants each face's objects;
    ``measure``: whether the texts each face prints are measured, for the legibility rules
    the build runs (see :func:`.faces.render_chunk`)."""

    game: str
    job: str
    component: str
    cards: tuple[MarkedKeys, ...]
    cached: frozenset[str]
    misses: int
    relocate: bool = False
    measure: bool = False


@dataclass
class JobPlan:
    """One print job of one game: its components' face keys and the digest of its inputs;
    ``reused``: the file the last build wrote, kept because nothing it is made of changed
    (``notes``: what rendering its faces reported then)."""

    game: Game
    job: PrintJob
    parts: list[tuple[str, list[MarkedKeys]]]
    digest: str = ""
    reused: BuiltFile | None = None
    notes: list[CachedFace] = field(default_factory=list)

    @property
    def keys(self) -> list[MarkedKeys]:
        return [k for _cid, keys in self.parts for k in keys]


@dataclass
class Plan:
    """A build's decisions for one language: per game its jobs (in order), the rendering
    work, and the last build's rule sheets (kept when unchanged, see :mod:`.rulesheets`)."""

    jobs: dict[str, list[JobPlan]]
    work: list[RenderWork]
    previous: dict[str, dict[str, BuiltFile]]
    #: each game's fingerprint in this language (:func:`cardgen.cache.game_fingerprint`), found
    #: once: it walks cardgen's files and the game's, and its sheets are keyed by it too
    fingerprints: dict[str, str]

    @property
    def misses(self) -> int:
        """Faces to render (not in the cache)."""
        return sum(w.misses for w in self.work)

    def reused(self) -> list[BuiltFile]:
        return [jp.reused for jobs in self.jobs.values() for jp in jobs if jp.reused]

    def kept_faces(self, options: BuildOptions) -> dict[str, list[str]]:
        """The faces the cache keeps, by scope: what these components are made of now. A
        component may print in several jobs (its spare set at a later level): its faces are
        sorted out only by a build that prints every one of them."""
        kept: dict[str, list[str]] = {}
        for jobs in self.jobs.values():
            game = jobs[0].game if jobs else None
            if game is None:
                continue
            built = {jp.job.id for jp in jobs}
            partial = {c.id for job in print_jobs(game, None, options) if job.id not in built for c in job.components}
            for jp in jobs:
                for cid, keys in jp.parts:
                    if cid not in partial:
                        kept.setdefault(face_scope(game, options.lang, game.components[cid]), []).extend(face_keys(keys))
        return kept

    def component_scopes(self, options: BuildOptions) -> dict[str, set[str]]:
        """The face scope of every component each game built has now, printed by this build
        or not, under the prefix of the game's scopes (:func:`games_scope`): a build evicts
        the faces of the components a game no longer has (renamed or removed), which no
        build would look for again."""
        return {games_scope(jobs[0].game, options.lang): {face_scope(jobs[0].game, options.lang, c)
                                                           for c in jobs[0].game.components.values()}
                for jobs in self.jobs.values() if jobs}


def plan(games: list[Game], options: BuildOptions, jobs: int, cache: FaceCache, measured: frozenset[str]) -> Plan:
    """Decide, for each game's print jobs, what to reuse and what to render (``jobs``: the
    processes the work will be shared among, which sets the size of its pieces; ``measured``:
    the games whose faces' texts the build measures, see :class:`RenderWork`)."""
    software = software_digest()
    fingerprints = {g.id: game_fingerprint(g, options.lang, software) for g in games}
    planned = {g.id: _job_plans(g, options, fingerprints[g.id]) for g in games}
    present = frozenset(cache.present(k for jps in planned.values() for jp in jps for k in face_keys(jp.keys)))
    previous: dict[str, dict[str, BuiltFile]] = {}
    work: list[RenderWork] = []
    for g in games:
        previous[g.id] = previous_files(options.out / g.id / options.lang)
        measure = g.id in measured
        for jp in planned[g.id]:
            jp.digest = inputs_digest(face_keys(jp.keys), {c.id: settings(options, c) for c in jp.job.components})
            if _reuse(jp, previous[g.id].get(jp.job.id), options, cache, measure, g.artwork_roots):
                continue
            work.extend(_work(jp, present, jobs, measure))
    return Plan(planned, work, previous, fingerprints)


def _job_plans(game: Game, options: BuildOptions, game_fp: str) -> list[JobPlan]:
    out = []
    for job in print_jobs(game, options.level, options):
        _check_size(job, options.sets)
        parts = []
        for comp in job.components:
            parts.append((comp.id, marked_keys(card_keys(game, comp, options.lang, game_fp),
                                               job_marks(game, job, options.sets, comp, options.lang))))
        out.append(JobPlan(game, job, parts))
    return out


def _check_size(job: PrintJob, sets: int) -> None:
    """A PDF of more than :data:`MAX_CARDS_PER_PDF` distinct cards is refused before anything
    is rendered, with what to do instead."""
    cards = sum(len(c.cards) for c in job.components) * sets
    if cards > MAX_CARDS_PER_PDF:
        comp = job.comp
        sets_note = f" × {sets} sets" if sets > 1 else ""
        raise InputError(f"component '{comp.id}' would print {cards} distinct cards in one PDF "
                         f"({sum(len(c.cards) for c in job.components)} cards{sets_note}); one PDF holds at most "
                         f"{MAX_CARDS_PER_PDF} (writing it keeps ~5 KB of bookkeeping per face in memory)",
                         comp.location, "split the component into several components (copies of one card are not "
                         "limited)" + (", or build fewer --sets" if sets > 1 else ""))


def _reuse(jp: JobPlan, old: BuiltFile | None, options: BuildOptions, cache: FaceCache, measure: bool,
           roots: tuple[Path, ...]) -> bool:
    """Keep the last build's file when its inputs are unchanged, the file is intact and the
    cache still knows what rendering its faces reported (and, when ``measure``, what they
    print)."""
    if not (options.cache and old and old.inputs == jp.digest and intact(options.out / old.path, old)
            and cache.vouched(old)):   # its row as this user's build wrote it, not as someone edited it
        return False
    cached = [cache.get(k, pdf=False, roots=roots) for k in face_keys(jp.keys)]
    if not all(hit is not None and (hit.texts is not None or not measure) for hit in cached):
        return False
    jp.reused, jp.notes = old, cached  # type: ignore[assignment]
    return True


def _work(jp: JobPlan, present: frozenset[str], jobs: int, measure: bool) -> list[RenderWork]:
    from .. import pdfdoc   # here: a build with nothing to render never needs it

    # distinct cache keys: at least as many as the distinct faces the document will hold
    relocate = len(set(face_keys(jp.keys))) > pdfdoc.IN_MEMORY_FACES
    out = []
    for comp_id, comp_keys in jp.parts:
        weights = [CACHED_WEIGHT if set(face_keys([card])) <= present else 1.0 for card in comp_keys]
        for chunk in chunks(comp_keys, jobs, weights):
            chunk_keys = set(face_keys(chunk))
            out.append(RenderWork(jp.game.id, jp.job.id, comp_id, chunk, frozenset(chunk_keys & present),
                                  len(chunk_keys - present), relocate, measure))
    return out
