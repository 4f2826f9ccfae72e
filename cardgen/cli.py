"""The ``cardgen`` command: a thin Click layer over the library API.

Exit codes: 0 success, 1 rule findings (the deck is wrong), 2 unusable input or usage.
Errors are printed as one line with file:line:column; a traceback is never shown unless
``CARDGEN_DEBUG=1`` is set (for cardgen's own bugs).
"""

from __future__ import annotations

import functools
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable

import click

from . import __version__
from .check import check
from .errors import CardgenError
from .loader import load_games

EXIT_FINDINGS = 1
EXIT_INPUT = 2


def _fail(message: str, code: int = EXIT_INPUT) -> None:
    click.echo(message, err=True)
    sys.exit(code)


def handle_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn cardgen's errors into one-line messages and exit codes; hide tracebacks."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except CardgenError as exc:
            _fail(f"cardgen: {exc}", exc.exit_code)
        except KeyboardInterrupt:
            _fail("cardgen: interrupted; outputs from before this run are unchanged", 130)
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except Exception as exc:  # a bug in cardgen itself, not in the user's input
            if os.environ.get("CARDGEN_DEBUG"):
                raise
            _fail(f"cardgen: internal error: {type(exc).__name__}: {exc} "
                  f"(set CARDGEN_DEBUG=1 for details and please report it)", 70)
    return wrapper


games_dir_option = click.option(
    "--games-dir", "games_dirs", multiple=True, type=click.Path(path_type=Path, file_okay=False),
    help="Also load games from this folder (one sub-folder per game, each with a game.yaml). Repeatable.")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="cardgen")
def main() -> None:
    """cardgen turns game data (YAML) and artwork templates (SVG) into print-ready decks."""


@main.command("list")
@games_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@handle_errors
def list_cmd(games_dirs: tuple[Path, ...], as_json: bool) -> None:
    """List games, their components, card counts and languages."""
    games = load_games((), games_dirs)
    if as_json:
        click.echo(json.dumps([{
            "id": g.id, "name": g.name, "languages": list(g.languages),
            "components": [{"id": c.id, "name": c.name, "kind": c.kind, "cards": c.total, "distinct": len(c.cards),
                            "size_mm": [c.width, c.height], "shape": c.shape.type, "level": c.level}
                           for c in g.components.values()],
        } for g in games], indent=2, ensure_ascii=False))
        return
    for g in games:
        click.echo(f"{g.id}  —  {g.name}  [languages: {', '.join(g.languages)}]")
        for c in g.components.values():
            level = f", level {c.level}" if c.level > 1 else ""
            click.echo(f"    {c.id:<16} {c.total:>4} {c.kind}{'s' if c.total != 1 else ''} "
                       f"({len(c.cards)} distinct, {c.width:g} × {c.height:g} mm {c.shape.type}{level})")


@main.command("check")
@click.argument("game_ids", nargs=-1, metavar="[GAME ...]")
@games_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@handle_errors
def check_cmd(game_ids: tuple[str, ...], games_dirs: tuple[Path, ...], as_json: bool) -> None:
    """Prove decks complete and physically right. Exit 0 valid, 1 findings, 2 bad input."""
    try:
        games = load_games(game_ids, games_dirs)
        report = check(games)
    except CardgenError as exc:
        if as_json:
            click.echo(json.dumps({"ok": False, "games": list(game_ids), "errors": [exc.as_dict()], "findings": []},
                                  indent=2, ensure_ascii=False))
            sys.exit(exc.exit_code)
        raise
    if as_json:
        click.echo(json.dumps({"ok": report.ok, "games": report.games, "errors": [],
                               "findings": [f.as_dict() for f in report.findings]}, indent=2, ensure_ascii=False))
    else:
        for f in report.findings:
            click.echo(str(f))
        n = len(report.findings)
        summary = (f"checked {len(report.games)} game(s): " +
                   ("all rules pass" if report.ok else f"{n} finding{'s' if n != 1 else ''}"))
        click.echo(summary, err=not report.ok)
    sys.exit(0 if report.ok else EXIT_FINDINGS)


