"""Faces rendered once per check, for every part of the check that reads them.

Some rules read what a card prints (``flavour-energies`` reads the energy on each QCD front);
the render pass then renders every face anyway, to prove a build can. Rendering is the
expensive part of a check, so within one :func:`cardgen.check.check` every consumer asks
:func:`faces_of` for a game's faces in a language and gets the same :class:`GameFaces`: a
face is rendered at most once, by whoever asks first, with the build's own renderer
(templates, translations, compiled-template cache), so what a rule reads is exactly what the
build prints.

A face a rule asked for is kept until the render pass takes it (:meth:`GameFaces.take`); what
its rendering reported (text that does not fit, characters no font covers, line wraps) is held
with it and reported by the render pass, in the build's order, as if rendered there. Outside a
check (a rule called by itself) :func:`faces_of` hands out a new, unshared set each time.

Only the first :data:`KEPT_FACES` faces are kept whole. A rule that reads every face (the
legibility rules) would otherwise hold the whole deck until the render pass starts: a
50,000-card deck came to a gigabyte. A face past the bound is *settled* as soon as it is
rendered: drawn as the render pass would draw it, then dropped, and only its key, what its
rendering reported and the error drawing raised (if any) are kept — a few hundred bytes. The
render pass taking it reports and raises exactly what it would have, at the same point of the
build's order, without rendering or drawing it again (a face past the bound that two rules
read, as QCD's fronts are, is rendered for each of them). Drawing is where the two passes meet,
so it lives here (:class:`Drawing`): each different face once per game, with the verdicts of
an earlier check kept in the build cache.
"""

from __future__ import annotations

import hashlib
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from . import i18n
from .errors import CardgenError
from .model import Card, Component, Game
from .render import Face, Rendered, Renderer, TextIssue

Wrap = tuple[str, str, str, str, int]

#: Faces kept whole between the rules that read them and the render pass (about 20 KB each):
#: every shipped game fits many times over; past it a face is settled (see the module's text).
KEPT_FACES = 2_000


class Drawing:
    """Draws each different face of a game once, as print draws it; with a cache file, faces
    an earlier check drew (:class:`_DrawnFaces`) are not drawn again, and the faces drawn or
    proven now are kept there for the next check."""

    def __init__(self, db: Path | None, game_id: str) -> None:
        self._verdicts = _DrawnFaces(db, game_id) if db is not None else None
        self._drawn: set[str] = set()

    def draw(self, face: Face) -> None:
        """Raise the build's error if ``face`` cannot be drawn (once per different face)."""
        from .draw import check_drawable  # here: cairo is needed only when faces are drawn

        if face.key in self._drawn:
            return
        if self._verdicts is None or not self._verdicts.known(face.key):
            check_drawable(face)
        self._drawn.add(face.key)

    def proven(self, face_key: str) -> None:
        """A face a build drew (it is in the build cache): drawable, without drawing it."""
        self._drawn.add(face_key)

    def remember(self) -> None:
        """Keep the verdicts of every face drawn or proven now (the whole game, in every
        language checked) for the next check."""
        if self._verdicts is not None:
            self._verdicts.remember(self._drawn)


class _DrawnFaces:
    """Faces an earlier check drew without error, kept in the build cache: drawing is most of a
    check's time, and a face with the same SVG drawn by the same code draws the same. Only
    the verdict is kept (no PDF); the key covers the face's content and the drawing code
    (:func:`cardgen.draw.drawing_fingerprint`). The verdicts kept are those of the game's
    latest check: a face the game no longer has (a card edited, the drawing code changed) is
    forgotten, so the cache does not grow with every edit."""

    def __init__(self, db: Path, game_id: str) -> None:
        from .draw import drawing_fingerprint
        from .store import open_store

        self._store = open_store(db)
        self._salt = drawing_fingerprint()
        self._known: set[str] = set()
        self._scope = f"check:{game_id}"

    def _key(self, face_key: str) -> str:
        return hashlib.sha256(f"{self._salt}\0{face_key}".encode()).hexdigest()

    def known(self, face_key: str) -> bool:
        key = self._key(face_key)
        if self._store.present("drawn", [key]):
            self._known.add(key)
        return key in self._known

    def remember(self, face_keys: Iterable[str]) -> None:
        """Keep the verdicts of ``face_keys`` as all the game's, in one transaction; nothing
        is written when they are the ones already kept (a checkpoint syncs the file)."""
        keys = {self._key(k) for k in face_keys}
        if keys != self._store.keys("drawn", self._scope):
            self._store.put_only("drawn", {self._scope: [(k, "", b"") for k in sorted(keys)]})


@dataclass(frozen=True)
class _Settled:
    """A face rendered for a rule past :data:`KEPT_FACES`, already drawn and dropped: what the
    render pass needs of it when it takes it."""

    key: str
    issues: tuple[TextIssue, ...]
    wraps: tuple[Wrap, ...]
    error: CardgenError | None   # what drawing it raised, raised again when it is taken


class GameFaces:
    """The faces of one game in one language, each rendered at most once."""

    def __init__(self, game: Game, lang: str = i18n.SOURCE_LANG, cache_db: Path | None = None,
                 drawing: Drawing | None = None) -> None:
        self.game = game
        self.lang = lang
        self.translator = i18n.translator(game, lang)
        self.renderer = Renderer(game, lang, translate=self.translator, bytecode_db=cache_db)
        #: The game's faces drawn so far (shared by its languages within a check).
        self.drawing = drawing if drawing is not None else Drawing(cache_db, game.id)
        #: What the faces the render pass took reported, in the order it took them (a kept
        #: face's reports join when it is taken); sheets and cached faces add theirs.
        self.issues: list[TextIssue] = []
        self.wraps: list[Wrap] = []
        self._kept: dict[tuple[str, str, str], Rendered] = {}
        self._settled: dict[tuple[str, str, str], _Settled] = {}
        #: Faces whose rendering raised, with what it raised: raised again, never rendered again
        #: (a face that ran out of its time budget would otherwise take it again for each reader)
        self._failed: dict[tuple[str, str, str], CardgenError] = {}

    def _render(self, key: tuple[str, str, str], comp: Component, card: Card, side: str) -> Rendered:
        failed = self._failed.get(key)
        if failed is not None:
            raise failed
        try:
            return self.renderer.face(comp, card, side)
        except CardgenError as exc:
            self._failed[key] = exc
            raise

    def face(self, comp: Component, card: Card, side: str = "front") -> Face:
        """``card``'s ``side`` as the build renders it, rendered on first request; raises the
        build's :class:`~cardgen.errors.CardgenError` where a build would fail."""
        return self.rendered(comp, card, side).face

    def rendered(self, comp: Component, card: Card, side: str = "front") -> Rendered:
        """:meth:`face` with what its rendering reported; kept for the render pass (the first
        :data:`KEPT_FACES` whole, the others settled)."""
        key = (comp.id, card.id, side)
        kept = self._kept.get(key)
        if kept is None:
            kept = self._render(key, comp, card, side)
            if len(self._kept) < KEPT_FACES:
                self._kept[key] = kept
            elif key not in self._settled:
                self._settled[key] = self._settle(kept)
        return kept

    def _settle(self, rendered: Rendered) -> _Settled:
        try:
            self.drawing.draw(rendered.face)
            error = None
        except CardgenError as exc:
            error = exc
        return _Settled(rendered.face.key, rendered.issues, rendered.wraps, error)

    def take(self, comp: Component, card: Card, side: str) -> str:
        """The render pass's turn at a face: a kept one is handed over (and no longer kept),
        any other rendered now, and drawn (once per different face); a settled one is not
        rendered or drawn again. Either way what its rendering reported joins ``issues`` and
        ``wraps`` at this point of the build's order, and the error drawing it raises is
        raised. Returns the face's key."""
        key = (comp.id, card.id, side)
        settled = self._settled.pop(key, None)
        if settled is not None:
            self.issues.extend(settled.issues)
            self.wraps.extend(settled.wraps)
            if settled.error is not None:
                raise settled.error
            return settled.key
        result = self._kept.pop(key, None) or self._render(key, comp, card, side)
        self.issues.extend(result.issues)
        self.wraps.extend(result.wraps)
        self.drawing.draw(result.face)
        return result.face.key


_CHECK: ContextVar[dict[tuple[int, str], GameFaces] | None] = ContextVar("cardgen check faces", default=None)
_CACHE_DB: ContextVar[Path | None] = ContextVar("cardgen check faces cache", default=None)
_MACHINE: ContextVar[bool] = ContextVar("cardgen check keeps on this machine", default=False)


@contextmanager
def shared_faces(cache_db: Path | None = None, machine: bool = False) -> Iterator[None]:
    """Within this block, :func:`faces_of` hands every caller the same faces (one check);
    ``cache_db``: the build cache file whose compiled templates the renderers use;
    ``machine``: rules may keep what they derive in this machine's cache folder (see
    :func:`keeps_on_machine`)."""
    token, db_token, machine_token = _CHECK.set({}), _CACHE_DB.set(cache_db), _MACHINE.set(machine)
    try:
        yield
    finally:
        _CHECK.reset(token)
        _CACHE_DB.reset(db_token)
        _MACHINE.reset(machine_token)


def faces_of(game: Game, lang: str = i18n.SOURCE_LANG, cache_db: Path | None = None) -> GameFaces:
    """The current check's faces of ``game`` in ``lang``; outside a check, a new set, whose
    compiled templates are kept in ``cache_db`` (inside one, in the check's)."""
    shared = _CHECK.get()
    if shared is None:
        return GameFaces(game, lang, cache_db)
    found = shared.get((id(game), lang))
    if found is None or found.game is not game:
        sibling = next((f for (g, _), f in shared.items() if g == id(game) and f.game is game), None)
        found = shared[(id(game), lang)] = GameFaces(game, lang, _CACHE_DB.get(),
                                                     sibling.drawing if sibling is not None else None)
    return found


def check_cache_db() -> Path | None:
    """The cache file of the current check (None outside one, or without a cache): where
    rules keep what they derived from unchanged inputs for the next check."""
    return _CACHE_DB.get() if _CHECK.get() is not None else None


def keeps_on_machine() -> bool:
    """Whether the current check may take what rules derived from unchanged inputs from this
    machine's cache folder, and keep it there (not with ``--no-cache``, which keeps nothing)."""
    return _MACHINE.get() and _CHECK.get() is not None
