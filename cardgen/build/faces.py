"""Rendering work: some cards of one component, each face rendered to SVG and drawn as a
one-page PDF — or taken from the face cache when its inputs are unchanged.

A task runs in a worker process (see :mod:`.workers`); it names its game by data folder and
finds it, and a renderer, on the process's :class:`~.workers.Workbench`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from .. import outlinecache
from ..cache import CachedFace, FaceCache, face_scope, file_digest, font_read
from ..errors import CardgenError
from ..model import Component
from ..render import Face, TemplateError, TextIssue
from .plan import MarkedKeys
from .spool import Places, Spool
from .workers import bench


@dataclass
class FaceChunk:
    """Some cards of one component, rendered: the unit of parallel work.

    ``order`` keeps each card's faces and copies in deck order, so the imposed sheets do not
    depend on which process rendered what; each distinct face is written once to the spool
    file ``spool``, ``places`` saying where (see :mod:`.spool`): a chunk carries no face's
    bytes, whatever the deck's size. ``measured``: each distinct face's template and printed
    texts (for the legibility gate, :func:`..gates.measured_faces`; None: not measured)."""

    component: str
    order: list[tuple[str, str | None, int]]
    spool: str
    places: Places
    issues: list[TextIssue]
    missing: list[tuple[str, str]]
    measured: dict[str, tuple[str, tuple[dict, ...] | None]] = field(default_factory=dict)
    relocated: Places = field(default_factory=dict)   # each face's objects in ``spool`` (see .spool)

    def for_writer(self) -> FaceChunk:
        """What imposing the chunk reads (the order and the spool): the measures and reports
        stay in the build's process, not copied to the worker that writes the PDF."""
        return replace(self, issues=[], missing=[], measured={})


#: Rendered faces stored in the cache together, in one transaction (they are held until then).
CACHE_BATCH = 64


def render_chunk(game_ref: str, lang: str, comp_id: str, cards: tuple[MarkedKeys, ...], cache_root: Path | None,
                 spool_dir: Path, cached: frozenset[str] | None = None, relocate: bool = False,
                 measure: bool = True) -> FaceChunk:
    """Render the faces of some cards to SVG and then PDF, or take them from the face cache;
    each distinct face is written to a spool file in ``spool_dir``, with its objects as a
    document written as it goes stores them when ``relocate`` (see :mod:`cardgen.relocatable`).
    ``cached``: the keys the cache held when the build looked (None: look each one up); the
    others are not looked for again. ``measure``: the texts each face prints are measured
    (a face the cache holds unmeasured is rendered again)."""
    with outlinecache.task(cache_root is not None):
        return _render_chunk(game_ref, lang, comp_id, cards, cache_root, spool_dir, cached, relocate, measure)


def _render_chunk(game_ref: str, lang: str, comp_id: str, cards: tuple[MarkedKeys, ...], cache_root: Path | None,
                  spool_dir: Path, cached: frozenset[str] | None, relocate: bool, measure: bool) -> FaceChunk:
    cache = FaceCache(cache_root)
    roots = bench().game(game_ref).artwork_roots   # where the faces' artwork is looked for now
    order: list[tuple[str, str | None, int]] = []
    issues: list[TextIssue] = []
    missing: set[tuple[str, str]] = set()
    rendered: list[tuple[str, CachedFace]] = []
    measured: dict[str, tuple[str, tuple[dict, ...] | None]] = {}
    records: dict[tuple, dict] = {}
    with Spool(spool_dir) as spool:
        for card_id, count, front_ck, back_ck, mark in cards:
            keys: list[str | None] = []
            for side, ck in (("front", front_ck), ("back", back_ck)):
                if ck is None:
                    keys.append(None)
                    continue
                hit = cache.get(ck, roots=roots) if cached is None or ck in cached else None
                if hit is None or (measure and hit.texts is None):
                    hit = _render(game_ref, lang, comp_id, card_id, side, mark, cache_root, spool, measured, measure)
                    rendered.append((ck, hit))
                    if len(rendered) >= CACHE_BATCH:
                        _store(cache, rendered, game_ref, lang, comp_id)
                spool.add(hit.svg_key, hit.pdf)
                if relocate and hit.svg_key not in spool.relocated:
                    _relocate(spool, hit.svg_key, hit.pdf)
                if hit.svg_key not in measured:
                    texts = None if hit.texts is None else _shared_records(hit.texts, records)
                    measured[hit.svg_key] = (hit.template, texts)
                issues.extend(hit.issues)
                missing.update(hit.missing)
                keys.append(hit.svg_key)
            order.append((keys[0], keys[1], count))
    _store(cache, rendered, game_ref, lang, comp_id)
    return FaceChunk(comp_id, order, str(spool.path), spool.places, issues, sorted(missing), measured,
                     spool.relocated)


def _relocate(spool: Spool, key: str, pdf: bytes) -> None:
    """Write a face's objects to the spool. A face that cannot be printed is left to the
    writer, which says why in the terms of its job."""
    from ..pdfdoc import PdfWriteError, relocatable

    try:
        spool.add_relocated(key, relocatable(key, pdf))
    except PdfWriteError:
        pass


def _shared_records(texts: tuple[dict, ...], records: dict[tuple, dict]) -> tuple[dict, ...]:
    """A face's measured texts, each record the one object for all faces of the chunk that
    print the same text the same way (most of a deck's texts: the same names, sizes and
    colours on card after card). A chunk of 1,667 cards carried 12 MB of records when each
    face had its own; shared, they travel and are held a few times smaller."""
    return tuple(records.setdefault(tuple(d.items()), d) for d in texts)


def _store(cache: FaceCache, rendered: list[tuple[str, CachedFace]], game_ref: str, lang: str, comp_id: str) -> None:
    """Store rendered faces in the cache, and let go of them."""
    if rendered:
        game = bench().game(game_ref)
        cache.put(rendered, face_scope(game, lang, game.components[comp_id]))
        rendered.clear()


def _render(game_ref: str, lang: str, comp_id: str, card_id: str, side: str, mark, cache_root: Path | None,
            spool: Spool, measured: dict[str, tuple[str, tuple[dict, ...] | None]], measure: bool) -> CachedFace:
    """One face rendered, drawn and, when ``measure``, its printed texts measured as the
    legibility rules read them — unless this task has already drawn (and measured) the same
    face (``spool`` and ``measured``, by SVG key)."""
    from ..legibility import printed_texts, texts_as_data
    from ..markroom import uncovered

    game, _tr, renderer = bench().renderer(game_ref, lang, cache_root)
    comp = game.components[comp_id]
    result = renderer.face(comp, comp.card(card_id), side, mark)
    face = result.face
    reads = tuple((name, str(p), file_digest(p)) for name, p in face.reads) + _font_reads(face)
    if face.key in spool.places:   # spooled by this task, measured if it measures (see render_chunk)
        template, texts = measured[face.key]
        return CachedFace(face.key, spool.read(face.key), result.issues, result.missing, reads, template, texts)
    pdf = _drawn(face, comp, side)   # drawn first: it says what is wrong with the SVG
    printed = printed_texts(face) if measure or mark is not None else None
    if mark is not None:
        uncovered(comp, card_id, side, mark, printed, lang)
    texts = tuple(texts_as_data(printed)) if measure else None
    return CachedFace(face.key, pdf, result.issues, result.missing, reads, face.template, texts)


def _font_reads(face: Face) -> tuple[tuple[str, str, str], ...]:
    """The font files the face's text is drawn with, as reads of the face without a name
    (see :attr:`cardgen.cache.CachedFace.reads`): its PDF names them by path for the process
    that prints it (:mod:`cardgen.glyphforms`), so a face is taken from the cache only while
    each path still holds the same font. The face's key names a game's fonts within the game:
    a game moved with its own fonts, or cardgen installed in another folder, keeps its keys."""
    return tuple(font_read(p) for p in sorted({g.face.path for placed in face.texts for g in placed.glyphs}))


def _drawn(face: Face, comp: Component, side: str) -> bytes:
    """The face as a one-page PDF; a face the drawing library refuses (numbers it cannot
    draw) is an error naming its card and template, not a crash."""
    from ..draw import render_pdf  # here: a no-change rebuild never needs cairo (~0.05 s to import)

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
