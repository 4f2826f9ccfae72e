"""``cardgen export``: the digital exports (:mod:`cardgen.export`) on the command line.

Kept out of :mod:`cardgen.cli` so the export commands can change without touching the
commands other people work on; ``cli`` registers this group with one line.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable

import click

from .cli_help import FullHelpGroup

_out_option = click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=Path("output"),
                           show_default=True, help="Files go to OUT/GAME/LANG/.")


class _Dpi(click.FloatRange):
    """Dots per inch, 10 to 1200. Click's range alone lets "nan" through (NaN compares false
    with both bounds), and the export then failed on the first face with an error that blamed
    the template."""

    def __init__(self) -> None:
        super().__init__(10, 1200)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        dpi = super().convert(value, param, ctx)
        if not math.isfinite(dpi):
            self.fail(f"{value!r} is not a number between 10 and 1200", param, ctx)
        return dpi


def dpi_option(default: float, help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The ``--dpi`` option of every command that writes PNGs (``export png``, ``export tts``,
    ``render``): one check of the value for all of them."""
    return click.option("--dpi", type=_Dpi(), default=default, show_default=True, help=help)


@click.group("export", cls=FullHelpGroup)
def export() -> None:
    """Digital exports: PNG per face, Tabletop Simulator decks."""


# Imported only once ``export`` exists: importing cli runs its last line, which registers this
# group, so importing this module first (tests, other programs) does not hit a circular import.
from .cli_common import games_dir_option, handle_errors, languages_given, load_games

_lang_option = click.option("--lang", default="en", show_default=True, callback=languages_given,
                            help="Language of the faces: a code, several separated by commas, or 'all' "
                                 "(every language the game has a catalog for), each into OUT/GAME/LANG/.")


@export.command("png")
@click.argument("game_id", metavar="GAME")
@click.option("--component", "component_ids", multiple=True, help="Only this component (repeatable).")
@_lang_option
@dpi_option(300, "Resolution of the PNGs (dots per inch).")
@_out_option
@games_dir_option
@handle_errors
def png_cmd(game_id: str, component_ids: tuple[str, ...], lang: str, dpi: float, out: Path,
            games_dirs: tuple[Path, ...]) -> None:
    """A PNG of every face with bleed (png/) and trimmed (png-trim/).

    \b
    Example:
      cardgen export png qcd --dpi 600 --component cards
    """
    from .export import card_count, export_png
    from .i18n import languages
    from .progress import Progress

    game = load_games((game_id,), games_dirs)[0]
    for code in languages(lang, [game]):
        issues: dict[Any, None] = {}
        with Progress("exporting", card_count(game, component_ids or None)) as step:
            paths = export_png(game, code, dpi, out, component_ids or None, on_progress=step,
                               on_issue=lambda issue: issues.setdefault(issue))
        root = out / game.id / code
        click.echo(f"{game.id} ({code}): {len(paths) // 2} face(s) → {root / 'png'} and {root / 'png-trim'}")
        _warn(issues)


@export.command("tts")
@click.argument("game_id", metavar="GAME")
@click.option("--component", "component_ids", multiple=True, help="Only this component (repeatable).")
@_lang_option
@dpi_option(300, "Card resolution; lowered where a sheet or image would pass 4096 px.")
@_out_option
@games_dir_option
@handle_errors
def tts_cmd(game_id: str, component_ids: tuple[str, ...], lang: str, dpi: float, out: Path,
            games_dirs: tuple[Path, ...]) -> None:
    """A Tabletop Simulator save: decks, boards and tokens at their printed size, named in LANG.

    \b
    Example:
      cardgen export tts tutti-quantum --lang fr
    """
    from .export import card_count, export_tts
    from .i18n import languages
    from .progress import Progress

    game = load_games((game_id,), games_dirs)[0]
    for code in languages(lang, [game]):
        issues: dict[Any, None] = {}
        with Progress("exporting", card_count(game, component_ids or None)) as step:
            path = export_tts(game, code, out, dpi, component_ids or None, on_progress=step,
                              on_issue=lambda issue: issues.setdefault(issue))
        click.echo(f"{game.id} ({code}): TTS save {path} (its image URLs are local file:// paths; "
                   f"replace them with hosted URLs to share the deck)")
        _warn(issues)


def _warn(issues: dict[Any, None]) -> None:
    """What rendering the exported faces reported, each once, as ``cardgen render`` shows it."""
    for issue in issues:
        click.echo(f"warning: {issue}", err=True)
    if issues:
        click.echo("warning: these faces were exported as they print; 'cardgen check' lists what would stop "
                   "a build", err=True)
