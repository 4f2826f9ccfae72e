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

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from . import i18n
from .errors import Finding
from .fitcheck import rendering_findings
from .model import Card, Component, Game
from .proof import Proof
from .render import Renderer

if TYPE_CHECKING:
    from .cache import CachedFace

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
    'all' meaning every language the game has a catalog for."""
    asked = list(langs)
    if "all" in asked:
        asked = i18n.available_languages(game)
    return list(dict.fromkeys([i18n.SOURCE_LANG, *asked]))


def render_game(game: Game, langs: Iterable[str] = (), strict: bool = False,
                cache_root: Path | None = None) -> tuple[list[Finding], list[Rendered], list[Proof]]:
    """Render and draw every face of ``game`` in English and ``langs``.

    Raises the build's own :class:`~cardgen.errors.CardgenError` for the first face a build
    would fail on; otherwise returns the findings rendering reported, what was rendered and
    one proof per language. ``cache_root``: a build cache folder (``OUT/.cache``). Its
    compiled templates are reused, as a build does; and a face the build cache holds is one a
    build rendered and drew from these very inputs (its key covers them), so it is taken as
    the build takes it, with what rendering it reported, instead of being rendered again —
    except where a comparison of line wraps between languages needs it rendered."""
    from .cache import cache_file
    from .draw import check_drawable  # here: cairo is needed only when faces are drawn

    db = cache_file(cache_root) if cache_root is not None else None
    findings: list[Finding] = []
    rendered: list[Rendered] = []
    proofs: list[Proof] = []
    verdicts = _DrawnFaces(db) if db is not None else None
    drawn: set[str] = set()
    english_wraps: list[tuple[str, str, str, str, int]] = []
    wanted = wanted_languages(game, langs)
    for lang in wanted:
        tr = i18n.translator(game, lang)
        renderer = Renderer(game, lang, translate=tr, wraps=[], bytecode_db=db)
        built = _BuiltFaces(game, lang, cache_root) if db is not None and db.is_file() and len(wanted) == 1 else None
        faces, keys, reused = 0, set(), 0
        for comp in game.components.values():
            for card in comp.cards:
                for side in _sides(comp):
                    faces += 1
                    hit = built.get(comp, card, side) if built is not None else None
                    if hit is not None:
                        reused += 1
                        keys.add(hit.svg_key)
                        drawn.add(hit.svg_key)
                        renderer.issues.extend(hit.issues)
                        if tr is not None:
                            tr.missing.update(hit.missing)
                        continue
                    face = renderer.face(comp, card, side)
                    keys.add(face.key)
                    if face.key not in drawn:
                        if verdicts is None or not verdicts.known(face.key):
                            check_drawable(face)
                        drawn.add(face.key)
        if lang == i18n.SOURCE_LANG:
            english_wraps = list(renderer.wraps or [])
        if lang != i18n.SOURCE_LANG or langs:
            # languages asked for by name: their rule sheet and answer key are fit-checked too
            # (translations run longer; the English sheets are checked by every build)
            from . import sheets

            for kind in sheets.SHEETS:
                sheets.sheet_faces(game, kind, renderer)
        found = rendering_findings(game, renderer, tr, english_wraps, strict)
        findings.extend(found)
        rendered.append(Rendered(game.id, lang, faces, len(keys), reused))
        proofs.append(Proof(RULE, claim(lang, faces, len(keys), reused, found), faces, game.id, game.location))
    if verdicts is not None:
        verdicts.remember(drawn)
    return findings, rendered, proofs


class _DrawnFaces:
    """Faces an earlier check drew without error, kept in the build cache: drawing is most of a
    check's time, and a face with the same SVG drawn by the same code draws the same. Only
    the verdict is kept (no PDF); the key covers the face's content and the drawing code
    (:func:`cardgen.draw.drawing_fingerprint`)."""

    def __init__(self, db: Path) -> None:
        from .draw import drawing_fingerprint
        from .store import open_store

        self._store = open_store(db)
        self._salt = drawing_fingerprint()
        self._known: set[str] = set()

    def _key(self, face_key: str) -> str:
        return hashlib.sha256(f"{self._salt}\0{face_key}".encode()).hexdigest()

    def known(self, face_key: str) -> bool:
        key = self._key(face_key)
        if self._store.present("drawn", [key]):
            self._known.add(key)
        return key in self._known

    def remember(self, face_keys: Iterable[str]) -> None:
        """Keep the verdicts of the faces drawn now, in one transaction."""
        self._store.put("drawn", ((k, "", b"") for k in map(self._key, face_keys) if k not in self._known))


def _sides(comp: Component) -> tuple[str, ...]:
    """The printed sides of a component's cards, in the order a build renders them."""
    return ("front", "back") if comp.back else ("front",)


class _BuiltFaces:
    """The faces of one game and language that a build stored in its cache, looked up by the
    keys a build gives them (:func:`cardgen.build.card_keys`: game, component, card, side)."""

    def __init__(self, game: Game, lang: str, cache_root: Path) -> None:
        from .cache import FaceCache, component_fingerprint, face_key, game_fingerprint

        self._cache = FaceCache(cache_root)
        self._face_key = face_key
        self._game_fp = game_fingerprint(game, lang)
        self._comp_fp = {cid: component_fingerprint(c) for cid, c in game.components.items()}
        keys = [self._key(c, card, side) for c in game.components.values() for card in c.cards for side in _sides(c)]
        self._present = self._cache.present(keys)

    def _key(self, comp: Component, card: Card, side: str) -> str:
        return self._face_key(self._game_fp, self._comp_fp[comp.id], card, side)

    def get(self, comp: Component, card: Card, side: str) -> CachedFace | None:
        key = self._key(comp, card, side)
        return self._cache.get(key) if key in self._present else None


def claim(lang: str, faces: int, drawings: int, reused: int, found: list[Finding], drawn: bool = True) -> str:
    """The render pass's sentence for the report: what it did, and what held (``drawn``: each
    different face was also drawn as print draws it; the preview only renders)."""
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
    if reused:
        return (f"{faces} faces in {lang} ({faces - reused} rendered now, {reused} as the last build rendered them from "
                f"the same inputs, kept in its cache): " + ", ".join(held))
    return f"rendered {faces} faces in {lang}: " + ", ".join(held)
