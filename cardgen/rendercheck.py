"""The checker's render pass: every face of every component, in memory, as a build makes it.

A template can be wrong in ways no data rule sees — a division by zero for one card, a text
size of −3, a misspelt field, markup cairo cannot draw. A build meets them only when it is
already writing PDFs; here each side of each card goes through the build's own render path
(:meth:`cardgen.render.Renderer.face`), and each distinct face is drawn as a PDF page would be,
into a recording surface that is then dropped (:func:`cardgen.draw.check_drawable`), in the
build's order. So a template that would stop a build stops the check first, with the error the
build would raise; nothing is written but, with a cache folder, the compiled templates.

What rendering reports becomes findings (:func:`cardgen.fitcheck.rendering_findings`), and
what it established a :class:`~cardgen.proof.Proof` for the report.
"""

from __future__ import annotations

from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator

from . import i18n
from .checkfaces import Drawing, GameFaces, Wrap, faces_of
from .errors import CardgenError, Finding
from .fitcheck import rendering_findings
from .model import Card, Component, Game
from .proof import Proof

if TYPE_CHECKING:
    from .cache import CachedFace
    from .legibility import FaceTexts
    from .render import Renderer, TextIssue

RULE = "render"


@dataclass(frozen=True)
class Rendered:
    """What the render pass did for one game in one language: ``faces`` sides of distinct
    cards rendered (copies of a card are the same face), ``drawings`` different faces drawn
    (a shared back is one drawing for the whole component)."""

    game: str
    lang: str
    faces: int
    drawings: int
    reused: int = 0   # faces taken from the build cache (rendered and drawn by a build from the same inputs)

    def as_dict(self) -> dict[str, object]:
        return {"game": self.game, "lang": self.lang, "faces": self.faces, "drawings": self.drawings,
                "reused": self.reused}


def wanted_languages(game: Game, langs: Iterable[str]) -> list[str]:
    """English (the source every translation is compared with) and the languages asked for,
    'all' meaning every language the game has a catalog for (see :func:`cardgen.i18n.languages`)."""
    asked = list(langs)
    return list(dict.fromkeys([i18n.SOURCE_LANG, *(i18n.languages(asked, [game]) if asked else [])]))


GameResult = tuple[list[Finding], list[Rendered], list[Proof]]


def sides_to_render(game: Game, langs: list[str]) -> int:
    """How much rendering a game is: its cards' sides, in every language asked for."""
    sides = sum(len(c.cards) * len(c.sides) for c in game.components.values())
    return sides * len(wanted_languages(game, langs))


def before_fork(cache_root: Path | None) -> None:
    """Do once, before a check forks a worker (:mod:`cardgen.forkpair`), what both processes
    would otherwise each do: import the drawing libraries and, with a cache, digest cardgen's
    own files and the drawing code, which every cache key and drawing verdict includes (a
    check after a build takes most faces from the cache, and this was most of its worker's
    time)."""
    from . import draw

    if cache_root is not None:
        from .cache import code_digest

        code_digest()
        draw.drawing_fingerprint()


def render_game(game: Game, langs: Iterable[str] = (), strict: bool = False,
                cache_root: Path | None = None) -> GameResult:
    """Render and draw every face of ``game`` in English and ``langs``.

    Raises the build's own :class:`~cardgen.errors.CardgenError` for the first face a build
    would fail on; otherwise returns the findings rendering reported, what was rendered and
    one proof per language. Faces come from the check's shared set
    (:func:`cardgen.checkfaces.faces_of`): one a rule already rendered is not rendered again.
    ``cache_root``: a build cache folder (``OUT/.cache``). Its compiled templates are
    reused, as a build does; and a face the build cache holds is one a build rendered and
    drew from these very inputs (its key covers them), so it is taken as the build takes it,
    with what rendering it reported, instead of being rendered again — except where a
    comparison of line wraps between languages needs it rendered."""
    from .cache import cache_file

    db = cache_file(cache_root) if cache_root is not None else None
    findings: list[Finding] = []
    rendered: list[Rendered] = []
    proofs: list[Proof] = []
    english_wraps: list[Wrap] = []
    wanted = wanted_languages(game, langs)
    drawings: dict[int, Drawing] = {}
    for lang in wanted:
        faces = faces_of(game, lang, db)
        drawings.setdefault(id(faces.drawing), faces.drawing)
        built = _BuiltFaces(game, lang, cache_root) if db is not None and db.is_file() and len(wanted) == 1 else None
        count, keys, reused = _render_language(game, faces, built)
        if lang == i18n.SOURCE_LANG:
            english_wraps = list(faces.wraps)
        pages = _fit_sheets(game, faces)
        found = rendering_findings(game, lang, faces.issues, faces.wraps, faces.translator, english_wraps, strict)
        findings.extend(found)
        rendered.append(Rendered(game.id, lang, count, len(keys), reused))
        proofs.append(Proof(RULE, claim(lang, count, len(keys), reused, found, sheet_pages=pages), count, game.id,
                            game.location))
    for drawing in drawings.values():
        drawing.remember()
    return findings, rendered, proofs


def _render_language(game: Game, faces: GameFaces, built: _BuiltFaces | None) -> tuple[int, set[str], int]:
    """Every side of every distinct card of ``game`` in the build's order: taken from the
    build cache where ``built`` holds it, else rendered (or handed over, if a rule rendered
    it) and drawn. Returns the sides, the different faces among them and how many came from
    the build cache."""
    count, keys, reused = 0, set(), 0
    for comp in game.components.values():
        for card in comp.cards:
            for side in comp.sides:
                count += 1
                hit = built.get(comp, card, side) if built is not None else None
                if hit is not None:
                    reused += 1
                    keys.add(hit.svg_key)
                    faces.drawing.proven(hit.svg_key)
                    _report_cached(faces, hit)
                    continue
                keys.add(faces.take(comp, card, side))
    return count, keys, reused


def _report_cached(faces: GameFaces, hit: CachedFace) -> None:
    """What rendering a face the build cache holds reported, reported again, as a render would."""
    faces.issues.extend(hit.issues)
    if faces.translator is not None:
        faces.translator.missing.update(hit.missing)


def _fit_sheets(game: Game, faces: GameFaces) -> int:
    """Render the rule sheet and answer key as a build does (not drawn), in every language
    checked: a text that does not fit their pages, or a character no font covers, is what a
    build of them refuses, so the check that says a deck is right has found it first. The
    pages rendered (or, unchanged since this process rendered them, remembered: see
    :func:`sheet_report`)."""
    from . import sheets
    from .cache import game_fingerprint

    # the game's own files in this language; cardgen's code does not change within a process
    inputs = game_fingerprint(game, faces.renderer.lang, software="")
    pages = 0
    for kind in sheets.SHEETS:
        report = sheet_report(game, kind, faces.renderer, inputs)
        faces.issues.extend(report.issues)
        faces.wraps.extend(report.wraps)
        pages += report.pages
    return pages


@dataclass(frozen=True)
class SheetReport:
    """What rendering one sheet's pages reported (see :func:`sheet_report`)."""

    pages: int
    issues: tuple[TextIssue, ...]
    wraps: tuple[tuple[str, str, str, str, int], ...]
    missing: tuple[tuple[str, str], ...]   # strings the translator had no translation for while rendering


#: Sheet reports by what their pages were rendered from (:func:`sheet_report`), the latest last.
_REPORTS: OrderedDict[str, SheetReport] = OrderedDict()
#: The most sheet reports a process keeps (a few hundred bytes each).
KEPT_REPORTS = 64


def sheet_report(game: Game, kind: str, renderer: Renderer, inputs: str) -> SheetReport:
    """One sheet on A4 pages, rendered by ``renderer`` as :func:`cardgen.sheets.sheet_faces`
    renders it (what ``cardgen check`` proves of it), and what rendering it reported.
    ``inputs``: a digest of the game's files in the renderer's language (its templates,
    catalogs and fonts: :func:`cardgen.cache.game_fingerprint`); with the laid-out pages it
    is everything the rendering reads, so a process that checks a game again — the
    library's caller, the preview, a test suite — lays each sheet out but renders it only
    when something it reads changed (the four games' 19 pages: 0.4 s of rendering). The
    strings the rendering found untranslated are told to the renderer's translator either way."""
    from . import sheets

    layout, pages = sheets.laid_out(game, kind, renderer.lang, 210.0, 297.0, renderer.translate, None)
    key = sheets.pages_digest(inputs, pages, ["check", kind, renderer.lang, game.id, game.name])
    report = _REPORTS.get(key) if key is not None else None
    if report is None:
        results = sheets.rendered_pages(game, kind, renderer, 210.0, 297.0, layout, pages)
        report = SheetReport(len(results), tuple(i for r in results for i in r.issues),
                             tuple(w for r in results for w in r.wraps),
                             tuple(sorted({m for r in results for m in r.missing})))
        if key is not None:
            remember_reports({key: report})
            for made in _MADE:
                made[key] = report
    else:
        _REPORTS.move_to_end(key)
        if renderer.translate is not None:
            renderer.translate.missing.update(dict.fromkeys(report.missing))
    return report


def remember_reports(reports: dict[str, SheetReport]) -> None:
    """Keep ``reports`` (by key, as :func:`sheet_report` keeps the ones it makes), the
    :data:`KEPT_REPORTS` latest at most."""
    for key, report in reports.items():
        _REPORTS[key] = report
        _REPORTS.move_to_end(key)
    while len(_REPORTS) > KEPT_REPORTS:
        _REPORTS.popitem(last=False)


#: The open :func:`reports_made` collections.
_MADE: list[dict[str, SheetReport]] = []


@contextmanager
def reports_made() -> Iterator[dict[str, SheetReport]]:
    """The sheet reports :func:`sheet_report` makes within, by key. A check's forked worker
    (:mod:`cardgen.forkpair`) remembers what it renders in its own memory, which ends with it:
    it hands these back, and the process that forked it remembers them
    (:func:`remember_reports`), so that its next check of the game renders no sheet again."""
    made: dict[str, SheetReport] = {}
    _MADE.append(made)
    try:
        yield made
    finally:
        _MADE.remove(made)


class _BuiltFaces:
    """The faces of one game and language that a build stored in its cache, looked up by the
    keys a build gives them (:func:`cardgen.build.card_keys`: game, component, card, side)."""

    def __init__(self, game: Game, lang: str, cache_root: Path) -> None:
        from .cache import FaceCache, component_fingerprint, face_key, game_fingerprint

        self._cache = FaceCache(cache_root)
        self._roots = game.artwork_roots
        self._face_key = face_key
        self._game_fp = game_fingerprint(game, lang)
        self._comp_fp = {cid: component_fingerprint(c) for cid, c in game.components.items()}
        keys = [self._key(c, card, side) for c in game.components.values() for card in c.cards for side in c.sides]
        self._present = self._cache.present(keys)

    def _key(self, comp: Component, card: Card, side: str) -> str:
        return self._face_key(self._game_fp, self._comp_fp[comp.id], card, side)

    def get(self, comp: Component, card: Card, side: str, pdf: bool = True) -> CachedFace | None:
        key = self._key(comp, card, side)
        return self._cache.get(key, pdf=pdf, roots=self._roots) if key in self._present else None


def built_measures(game: Game, cache_root: Path) -> list[FaceTexts] | None:
    """The English faces of ``game`` measured for the legibility rules, each as the last build
    measured it where its face cache holds it (it keeps each face's printed texts), the others
    rendered (once, for the render pass too: :mod:`cardgen.checkfaces`) and measured here;
    None without a build cache, or when a face fails to render (the rules then say so, and
    the render pass raises the error). A face the build cache holds is the one a build renders
    from these very inputs (its key covers them), measured by the same code (the key covers
    cardgen's own), so the rules find what they would find on faces rendered now."""
    import xml.etree.ElementTree as ET

    from .cache import cache_file
    from .legibility import FaceRef, FaceTally, printed_texts, texts_from_data

    if not cache_file(cache_root).is_file():
        return None
    built = _BuiltFaces(game, i18n.SOURCE_LANG, cache_root)
    tally = FaceTally()
    records: dict = {}
    try:
        for comp in game.components.values():
            for card in comp.cards:
                for side in comp.sides:
                    hit = built.get(comp, card, side, pdf=False)
                    if hit is not None and hit.texts is not None:   # measured by the build
                        tally.add(FaceRef(comp.id, card.id, side, i18n.SOURCE_LANG, hit.svg_key, hit.template),
                                  lambda hit=hit: texts_from_data(hit.texts, records))
                    else:
                        face = faces_of(game).face(comp, card, side)
                        tally.add(FaceRef.of(face), lambda face=face: tuple(printed_texts(face)))
    except (CardgenError, ET.ParseError, TypeError, KeyError):
        return None
    return tally.faces()


def claim(lang: str, faces: int, drawings: int, reused: int, found: list[Finding], drawn: bool = True,
          sheet_pages: int = 0) -> str:
    """The render pass's sentence for the report: what it did, and what held (``drawn``: each
    different face was also drawn as print draws it, the preview only renders;
    ``sheet_pages``: the pages of the rule sheet and answer key rendered too)."""
    rules = {f.rule for f in found if f.severity == "error"}
    held = ["no template errors"]
    if drawn:
        held.append(f"all {drawings} different faces draw as print draws them")
    if "text-fit" not in rules:
        held.append("no text overflow")
    if "glyph-coverage" not in rules:
        held.append("every character covered by a bundled font")
    if lang != i18n.SOURCE_LANG and not any(f.rule == "untranslated" for f in found):
        held.append("every string translated")
    if sheet_pages:
        held.append(f"the rule sheet and answer key rendered too ({sheet_pages} pages)")
    if reused:
        return (f"{faces} faces in {lang} ({faces - reused} rendered now, {reused} as the last build rendered them from "
                f"the same inputs, kept in its cache): " + ", ".join(held))
    return f"rendered {faces} faces in {lang}: " + ", ".join(held)
