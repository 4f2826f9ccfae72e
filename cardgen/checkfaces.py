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
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Iterator

from . import i18n
from .model import Card, Component, Game
from .render import Face, Rendered, Renderer, TextIssue

Wrap = tuple[str, str, str, str, int]


class GameFaces:
    """The faces of one game in one language, each rendered at most once."""

    def __init__(self, game: Game, lang: str = i18n.SOURCE_LANG, cache_db: Path | None = None) -> None:
        self.game = game
        self.lang = lang
        self.translator = i18n.translator(game, lang)
        self.renderer = Renderer(game, lang, translate=self.translator, bytecode_db=cache_db)
        #: What the faces the render pass took reported, in the order it took them (a kept
        #: face's reports join when it is taken); sheets and cached faces add theirs.
        self.issues: list[TextIssue] = []
        self.wraps: list[Wrap] = []
        self._kept: dict[tuple[str, str, str], Rendered] = {}

    def face(self, comp: Component, card: Card, side: str = "front") -> Face:
        """``card``'s ``side`` as the build renders it, rendered on first request; raises the
        build's :class:`~cardgen.errors.CardgenError` where a build would fail."""
        return self.rendered(comp, card, side).face

    def rendered(self, comp: Component, card: Card, side: str = "front") -> Rendered:
        """:meth:`face` with what its rendering reported; kept for the render pass."""
        key = (comp.id, card.id, side)
        kept = self._kept.get(key)
        if kept is None:
            kept = self._kept[key] = self.renderer.face(comp, card, side)
        return kept

    def take(self, comp: Component, card: Card, side: str) -> Face:
        """The render pass's turn at a face: a kept one is handed over (and no longer kept),
        any other rendered now; either way what its rendering reported joins ``issues`` and
        ``wraps`` at this point of the build's order."""
        result = self._kept.pop((comp.id, card.id, side), None) or self.renderer.face(comp, card, side)
        self.issues.extend(result.issues)
        self.wraps.extend(result.wraps)
        return result.face


_CHECK: ContextVar[dict[tuple[int, str], GameFaces] | None] = ContextVar("cardgen check faces", default=None)
_CACHE_DB: ContextVar[Path | None] = ContextVar("cardgen check faces cache", default=None)


@contextmanager
def shared_faces(cache_db: Path | None = None) -> Iterator[None]:
    """Within this block, :func:`faces_of` hands every caller the same faces (one check);
    ``cache_db``: the build cache file whose compiled templates the renderers use."""
    token, db_token = _CHECK.set({}), _CACHE_DB.set(cache_db)
    try:
        yield
    finally:
        _CHECK.reset(token)
        _CACHE_DB.reset(db_token)


def faces_of(game: Game, lang: str = i18n.SOURCE_LANG, cache_db: Path | None = None) -> GameFaces:
    """The current check's faces of ``game`` in ``lang``; outside a check, a new set, whose
    compiled templates are kept in ``cache_db`` (inside one, in the check's)."""
    shared = _CHECK.get()
    if shared is None:
        return GameFaces(game, lang, cache_db)
    found = shared.get((id(game), lang))
    if found is None or found.game is not game:
        found = shared[(id(game), lang)] = GameFaces(game, lang, _CACHE_DB.get())
    return found


def check_cache_db() -> Path | None:
    """The cache file of the current check (None outside one, or without a cache): where
    rules keep what they derived from unchanged inputs for the next check."""
    return _CACHE_DB.get() if _CHECK.get() is not None else None
