"""The library as the command line uses it: each function does what its ``cardgen`` command
does, checks included, so a program calling cardgen gets the same guarantees as a user
typing the command (a deck the rules find wrong is not built)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable

from .model import Game


def _games(games: Game | str | Path | Iterable[Game | str | Path], games_dirs: Iterable[Path]) -> list[Game]:
    """Games given as loaded games, ids or folders (one or several)."""
    from .loader import load_game

    items = [games] if isinstance(games, (Game, str, Path)) else list(games)
    return [g if isinstance(g, Game) else load_game(g, games_dirs) for g in items]


def build(games: Game | str | Path | Iterable[Game | str | Path], options: Any = None, *, jobs: int | None = None,
          check: bool = True, on_done: Callable | None = None, on_wait: Callable | None = None) -> list:
    """Write print-ready PDFs as ``cardgen build`` does: the check gate first (``check=False``
    skips it, for a caller that has just run :func:`cardgen.check`), then every game in every
    language ``options.lang`` names ('all' included; a :class:`cardgen.build.BuildOptions`,
    default: English, A4, into ``output/``). Games are given loaded, or as ids or folders.
    Returns one :class:`~cardgen.build.GameBuild` per game and language. Raises
    :class:`~cardgen.build.RuleFindingsError` (its ``findings`` listed) for a deck the rules
    find wrong; nothing is written then.

    Games given as ids or folders are built as ``cardgen build`` builds them: when nothing
    changed since the last build of the same request, its results are returned without
    loading a game (see :mod:`cardgen.uptodate`; ``options.cache=False`` builds anyway).
    Loaded games may differ from their files, so they are always built."""
    from . import machinefiles, uptodate
    from .build import BuildOptions, build as build_stage

    options = options or BuildOptions()
    named = [games] if isinstance(games, (Game, str, Path)) else list(games)
    stamp = None
    if options.cache and all(isinstance(g, (str, Path)) for g in named):
        verdict = uptodate.verdict(uptodate.request(options.out, named, options.games_dirs, (),
                                                    {**uptodate.options_of(options), "check": check}))
        results = _stamped(verdict)
        if results is not None:
            for result in results:
                if on_done:
                    on_done(result)
            return results
        stamp = uptodate.Recorder(verdict, back_offset_saved=options.back_offset is None)
    with machinefiles.switch(options.cache):
        games_built = _games(named, options.games_dirs)
    return build_stage(games_built, options, jobs, on_done, on_wait, check=check, stamp=stamp)


def _stamped(verdict: Any) -> list | None:
    """The results of the stamped build, if it is up to date and they can be read."""
    if not verdict.fresh:
        return None
    try:
        results = verdict.results()
    except (KeyError, TypeError, ValueError):
        return None
    from .uptodate import refresh

    refresh(verdict)
    return results


def render(game: Game | str | Path, lang: str = "en", components: Iterable[str] | None = None,
           cards: Iterable[str] | None = None) -> list:
    """Every face (front, then back) of the chosen components and cards, rendered to SVG in
    ``lang``, each with what its rendering reported (:class:`cardgen.render.Rendered`: text
    that overflowed or has characters no font covers, untranslated strings)."""
    from .i18n import translator
    from .render import Renderer

    game = _games(game, ())[0]
    chosen = chosen_components(game, components, cards)
    renderer = Renderer(game, lang, translate=translator(game, lang))
    wanted = set(cards or ())
    out = []
    for comp in chosen:
        for card in comp.cards:
            if wanted and card.id not in wanted:
                continue
            out += [renderer.face(comp, card, side) for side in comp.sides]
    return out


def chosen_components(game: Game, components: Iterable[str] | None, cards: Iterable[str] | None) -> list:
    """The components a render names (all when none), refusing a component or card id the
    game does not have: a typo gave a KeyError, or no faces at all and no word."""
    from .errors import InputError, did_you_mean

    ids = list(components or game.components)
    for cid in ids:
        if cid not in game.components:
            raise InputError(f"unknown component '{cid}'{did_you_mean(cid, game.components)}", None,
                             f"use one of: {', '.join(game.components)}")
    chosen = [game.components[cid] for cid in ids]
    known = {card.id for comp in chosen for card in comp.cards}
    for card_id in cards or ():
        if card_id not in known:
            where = f"in component {ids[0]}" if len(ids) == 1 and components else f"in {game.id}"
            raise InputError(f"no card with id '{card_id}' {where}{did_you_mean(card_id, sorted(known))}", None,
                             "check 'cardgen list' for the card ids")
    return chosen


def export(game: Game | str | Path, out: Path, lang: str = "en", dpi: float = 300,
           components: Iterable[str] | None = None) -> list[Path]:
    """Every side of every distinct card as PNG, with bleed and trimmed, as ``cardgen export
    png`` writes them under ``OUT/<game>/<lang>/``; returns the paths written."""
    from .export import export_png

    return export_png(_games(game, ())[0], lang, dpi, Path(out), components)


def languages(spec: str | Iterable[str], games: Game | Iterable[Game]) -> list[str]:
    """The languages ``spec`` names for these games, 'all' expanded to every language one of
    them has a catalog for (see :func:`cardgen.i18n.languages`)."""
    from .i18n import languages as expand

    return expand(spec, [games] if isinstance(games, Game) else games)
