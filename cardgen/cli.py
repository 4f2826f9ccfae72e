"""The ``cardgen`` command: a thin Click layer over the library API.

Exit codes: 0 success, 1 rule findings (the deck is wrong), 2 unusable input or usage.
Errors are printed as one line with file:line:column; a traceback is never shown unless
``CARDGEN_DEBUG=1`` is set (for cardgen's own bugs).
"""

from __future__ import annotations

import functools
import json
from dataclasses import replace
import os
import sys
from pathlib import Path
from typing import Any, Callable

import click

from . import __version__
from .check import check
from .errors import CardgenError, file_system_error
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
        except OSError as exc:   # a file or folder the system refused (full disk, read-only folder)
            if os.environ.get("CARDGEN_DEBUG"):
                raise
            err = file_system_error(exc)
            _fail(f"cardgen: {err}", err.exit_code)
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


def run() -> None:
    """The ``cardgen`` executable: :func:`main`, then a fast exit.

    When a command has returned, everything it wrote is complete and in place, so the
    interpreter's teardown (freeing every object of every loaded module: 50–80 ms after a
    build, measured) achieves nothing. Like mypy's ``--fast-exit``, the process flushes its
    output and ends without it. An exception other than ``SystemExit`` takes the normal path.
    """
    try:
        main()
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    if code is None:
        code = 0
    elif not isinstance(code, int):   # sys.exit("message"): print it and fail, as Python does
        print(code, file=sys.stderr)
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


@main.command("list")
@games_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@click.option("--particles", is_flag=True, help="List the particle ids games can use instead.")
@handle_errors
def list_cmd(games_dirs: tuple[Path, ...], as_json: bool, particles: bool) -> None:
    """List games, their components, card counts and languages."""
    from .i18n import available_languages

    if particles:
        from .loader import shipped_physics

        for p in shipped_physics():
            click.echo(f"{p.id:<10} {p.symbol.unicode():<5} {p.name:<24} {p.kind}")
        return

    games = load_games((), games_dirs)
    langs = {g.id: available_languages(g) for g in games}
    if as_json:
        click.echo(json.dumps([{
            "id": g.id, "name": g.name, "languages": langs[g.id],
            "components": [{"id": c.id, "name": c.name, "kind": c.kind, "cards": c.total, "distinct": len(c.cards),
                            "size_mm": [c.width, c.height], "shape": c.shape.type, "level": c.level}
                           for c in g.components.values()],
        } for g in games], indent=2, ensure_ascii=False))
        return
    for g in games:
        click.echo(f"{g.id}  —  {g.name}  [languages: {', '.join(langs[g.id])}]")
        for c in g.components.values():
            level = f", level {c.level}" if c.level > 1 else ""
            click.echo(f"    {c.id:<16} {c.total:>4} {c.kind}{'s' if c.total != 1 else ''} "
                       f"({len(c.cards)} distinct, {c.width:g} × {c.height:g} mm {c.shape.type}{level})")


@main.command("check")
@click.argument("game_ids", nargs=-1, metavar="[GAME ...]")
@games_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@click.option("--lang", "langs", multiple=True,
              help="Also render in this language and report overflow, uncovered characters and untranslated "
                   "strings ('all' = every language with a catalog). Repeatable.")
@click.option("--strict", is_flag=True, help="With --lang: untranslated strings are errors, not warnings.")
@handle_errors
def check_cmd(game_ids: tuple[str, ...], games_dirs: tuple[Path, ...], as_json: bool, langs: tuple[str, ...],
              strict: bool) -> None:
    """Prove decks complete and physically right. Exit 0 valid, 1 findings, 2 bad input."""
    try:
        games = load_games(game_ids, games_dirs)
        report = check(games)
        if langs:
            from .fitcheck import language_findings
            from .i18n import available_languages

            for game in games:
                wanted = available_languages(game) if "all" in langs else list(langs)
                for lang in wanted:
                    report.extend(language_findings(game, lang, strict))
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
        errors = sum(1 for f in report.findings if f.severity == "error")
        summary = (f"checked {len(report.games)} game(s): " +
                   ("all rules pass" if report.ok else f"{errors} finding{'s' if errors != 1 else ''}") +
                   (f", {n - errors} warning(s)" if n - errors else ""))
        click.echo(summary, err=not report.ok)
    sys.exit(0 if report.ok else EXIT_FINDINGS)




def _parse_offset(value: str) -> tuple[float, float]:
    try:
        x, y = (float(v) for v in value.split(","))
    except ValueError:
        raise click.BadParameter("give two numbers in mm as X,Y, e.g. 0.5,-1") from None
    return x, y


@main.command("build")
@click.argument("game_ids", nargs=-1, metavar="[GAME ...]")
@click.option("--lang", default="en", show_default=True,
              help="Language of the deck, or 'all' for every language with a catalog.")
@click.option("--strict", is_flag=True, help="Fail (exit 1) when a string has no translation.")
@click.option("--paper", default="a4", show_default=True, help="a4, a3, letter, legal, tabloid or WxHmm.")
@click.option("--duplex", type=click.Choice(["long", "short", "none"]), default="long", show_default=True,
              help="How the printer flips the sheet for backs.")
@click.option("--bleed", type=float, default=None, help="Printed bleed in mm (default: each component's own).")
@click.option("--gutter", type=float, default=None, help="Space between cards in mm.")
@click.option("--margin", type=float, default=5.0, show_default=True, help="Printer margin in mm.")
@click.option("--marks", type=click.Choice(["ticks", "lines", "none"]), default="ticks", show_default=True,
              help="Cut marks: short ticks, full-length lines, or none.")
@click.option("--back-offset", default="0,0", show_default=True, metavar="X,Y",
              help="Shift backs by X,Y mm to correct printer misregistration (see 'cardgen calibrate').")
@click.option("--mode", type=click.Choice(["sheets", "single"]), default="sheets", show_default=True,
              help="sheets: many cards per page; single: one card per page for print services.")
@click.option("--out", "out", type=click.Path(path_type=Path, file_okay=False), default=Path("output"),
              show_default=True, help="Output folder.")
@click.option("--level", type=click.IntRange(1, 99), default=None, help="Only components up to this game level.")
@click.option("--cut-file", is_flag=True, help="Also write cut paths as SVG for cutting machines (shaped pieces).")
@click.option("--jobs", type=click.IntRange(1, 64), default=None, help="Parallel processes (default: one per core).")
@click.option("--no-cache", is_flag=True, help="Render every face again instead of reusing OUT/.cache.")
@games_dir_option
@handle_errors
def build_cmd(game_ids: tuple[str, ...], lang: str, strict: bool, paper: str, duplex: str, bleed: float | None,
              gutter: float | None, margin: float, marks: str, back_offset: str, mode: str, out: Path,
              level: int | None, cut_file: bool, jobs: int | None, no_cache: bool,
              games_dirs: tuple[Path, ...]) -> None:
    """Write print-ready PDFs (all games, every component, English, A4 by default)."""
    from .build import BuildOptions, build
    from .i18n import available_languages

    base = BuildOptions(lang=lang, paper=paper, duplex=duplex, bleed=bleed, gutter=gutter, margin=margin,
                        marks=marks, back_offset=_parse_offset(back_offset), mode=mode, level=level,
                        cut_file=cut_file, out=out, games_dirs=games_dirs, strict=strict,
                        cache=not no_cache).validated()
    games = load_games(game_ids, games_dirs)
    report = check(games)
    if not report.ok:
        for f in report.findings:
            click.echo(str(f), err=True)
        _fail(f"cardgen: not building: {len(report.findings)} rule finding(s); run 'cardgen check'", EXIT_FINDINGS)
    langs = sorted({lng for g in games for lng in available_languages(g)}) if lang == "all" else [lang]
    warnings = 0
    for lng in langs:
        options = replace(base, lang=lng)
        todo = [g for g in games if lang != "all" or lng in available_languages(g)]
        with _progress(len(todo)) as advance:
            results = build(todo, options, jobs=jobs, on_done=advance,
                            on_wait=lambda: click.echo(f"waiting for another build writing into {out} ...", err=True))
        for r in results:
            click.echo(f"{r.game} ({r.lang}) → {r.folder}")
            for f in r.files:
                click.echo(f"    {Path(f.path).name:<22} {f.pages:>3} page(s)  {f.cards:>4} piece(s)  {f.layout}")
            for issue in r.issues:
                click.echo(f"    warning: {issue}", err=True)
            for msgid, context in r.untranslated:
                click.echo(f"    warning: untranslated ({r.lang}): {msgid!r}" + (f" [{context}]" if context else ""),
                           err=True)
            warnings += len(r.issues) + len(r.untranslated)
    if warnings:
        click.echo(f"{warnings} warning(s); see text-report.txt next to the PDFs", err=True)


class _progress:
    """A rich progress bar on a terminal, silence otherwise (CI logs, pipes)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.bar = None

    def __enter__(self) -> Callable[[Any], None]:
        if sys.stderr.isatty():
            from rich.progress import Progress

            self.bar = Progress(transient=True)
            self.bar.start()
            self.task = self.bar.add_task("building", total=self.total)
        return self.advance

    def advance(self, result: Any) -> None:
        if self.bar is not None:
            self.bar.update(self.task, advance=1, description=f"built {result.game}")

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.stop()


@main.command("render")
@click.argument("game_id", metavar="GAME")
@click.option("--component", "component_ids", multiple=True, help="Only this component (repeatable).")
@click.option("--card", "card_ids", multiple=True, help="Only this card id (repeatable).")
@click.option("--lang", default="en", show_default=True)
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=Path("output"), show_default=True,
              help="SVGs go to OUT/GAME/LANG/faces/.")
@click.option("--png", "png_dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Write PNGs here (default: next to the SVGs).")
@click.option("--dpi", type=click.FloatRange(10, 1200), default=150, show_default=True)
@games_dir_option
@handle_errors
def render_cmd(game_id: str, component_ids: tuple[str, ...], card_ids: tuple[str, ...], lang: str, out: Path,
               png_dir: Path | None, dpi: float, games_dirs: tuple[Path, ...]) -> None:
    """Render faces to SVG and PNG, plus a contact sheet per component."""
    from .errors import InputError, did_you_mean
    from .output import atomic_write
    from .preview import contact_sheet, write_faces
    from .render import Renderer

    game = load_games((game_id,), games_dirs)[0]
    for cid in component_ids:
        if cid not in game.components:
            raise InputError(f"unknown component '{cid}'{did_you_mean(cid, game.components)}", None,
                             f"use one of: {', '.join(game.components)}")
    from .i18n import translator

    renderer = Renderer(game, lang, translate=translator(game, lang))
    svg_dir = out / game.id / lang / "faces"
    pngs = png_dir or svg_dir
    written = write_faces(renderer, component_ids or list(game.components), set(card_ids) or None, svg_dir, pngs, dpi)
    if card_ids and not any(written.values()):
        raise InputError(f"no card with id {', '.join(card_ids)} in {game.id}", None, "check 'cardgen list'")
    for cid, faces in written.items():
        if faces:
            sheet = pngs / f"{cid}-contact.png"
            atomic_write(sheet, contact_sheet(faces, f"{game.name} — {game.components[cid].name} ({lang})"))
            click.echo(f"{cid}: {len(faces)} face(s) → {svg_dir / cid}, contact sheet {sheet}")
    for issue in renderer.issues:
        click.echo(f"warning: {issue}", err=True)


@main.command("calibrate")
@click.option("--paper", default="a4", show_default=True)
@click.option("--duplex", type=click.Choice(["long", "short"]), default="long", show_default=True)
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=Path("output"), show_default=True)
@handle_errors
def calibrate_cmd(paper: str, duplex: str, out: Path) -> None:
    """Print a two-sided page that measures your printer's --back-offset and checks 100 % scale."""
    from .build import calibrate

    path = calibrate(paper, duplex, out)
    click.echo(f"wrote {path}: print it double-sided ({duplex} edge) at 100 %, hold it against the light and "
               f"read the offset to pass as --back-offset X,Y")


@main.command("new")
@click.argument("game_id", metavar="GAME-ID")
@click.option("--from", "template", default=None, metavar="GAME", help="Start from a copy of this shipped game.")
@click.option("--dir", "parent", type=click.Path(path_type=Path, file_okay=False), default=Path("."),
              show_default=True, help="Create the game folder inside this folder.")
@handle_errors
def new_cmd(game_id: str, template: str | None, parent: Path) -> None:
    """Start a new game (data + templates, no Python) that checks and builds at once."""
    from .scaffold import new_game

    folder = new_game(game_id, parent, template)
    click.echo(f"created {folder}\n  check it:  cardgen check {folder}\n  build it:  cardgen build {folder}\n"
               f"  preview:   cardgen serve --games-dir {folder.parent}")


@main.group("i18n")
def i18n_group() -> None:
    """Translation catalogs: extract strings, start and update languages, show progress."""


def _i18n_games(game_ids: tuple[str, ...], games_dirs: tuple[Path, ...]):
    return load_games(game_ids, games_dirs)


@i18n_group.command("extract")
@click.argument("game_ids", nargs=-1, metavar="[GAME ...]")
@games_dir_option
@handle_errors
def i18n_extract(game_ids: tuple[str, ...], games_dirs: tuple[Path, ...]) -> None:
    """Collect every translatable string into .pot templates (with context and box sizes)."""
    from . import i18n

    for path in i18n.extract(_i18n_games(game_ids, games_dirs)):
        click.echo(f"wrote {path}")


@i18n_group.command("init")
@click.argument("game_ids", nargs=-1, metavar="[GAME ...]")
@click.option("--lang", required=True, help="Language code, e.g. de, fr, es, ar, zh.")
@games_dir_option
@handle_errors
def i18n_init(game_ids: tuple[str, ...], lang: str, games_dirs: tuple[Path, ...]) -> None:
    """Start catalogs for a new language (existing catalogs are kept)."""
    from . import i18n

    written = i18n.init(_i18n_games(game_ids, games_dirs), lang)
    for path in written:
        click.echo(f"wrote {path}")
    if not written:
        click.echo(f"catalogs for '{lang}' already exist; use 'cardgen i18n update'")


def _langs(langs: tuple[str, ...], games: list) -> list[str]:
    """The languages named, or every language any of the games has a catalog for."""
    from . import i18n

    return list(langs) or sorted({lng for g in games for lng in i18n.available_languages(g)} - {i18n.SOURCE_LANG})


@i18n_group.command("update")
@click.argument("game_ids", nargs=-1, metavar="[GAME ...]")
@click.option("--lang", "langs", multiple=True, help="Only these languages (default: all).")
@games_dir_option
@handle_errors
def i18n_update(game_ids: tuple[str, ...], langs: tuple[str, ...], games_dirs: tuple[Path, ...]) -> None:
    """Merge new strings into catalogs: translations kept, changed strings marked fuzzy."""
    from . import i18n

    games = _i18n_games(game_ids, games_dirs)
    for path in i18n.update(games, _langs(langs, games)):
        click.echo(f"updated {path}")


@i18n_group.command("status")
@click.argument("game_ids", nargs=-1, metavar="[GAME ...]")
@click.option("--lang", "langs", multiple=True, help="Only these languages (default: all).")
@click.option("--strict", is_flag=True, help="Exit 1 if anything is fuzzy or missing.")
@games_dir_option
@handle_errors
def i18n_status(game_ids: tuple[str, ...], langs: tuple[str, ...], strict: bool, games_dirs: tuple[Path, ...]) -> None:
    """Translated / fuzzy / missing counts per language and catalog."""
    from . import i18n

    games = _i18n_games(game_ids, games_dirs)
    rows = i18n.status(games, _langs(langs, games))
    click.echo(f"{'lang':<6} {'catalog':<22} {'translated':>10} {'fuzzy':>6} {'missing':>8}")
    for r in rows:
        click.echo(f"{r.lang:<6} {r.domain:<22} {r.translated:>10} {r.fuzzy:>6} {r.missing:>8}")
    if strict and not all(r.complete for r in rows):
        sys.exit(EXIT_FINDINGS)


from .cli_export import export as _export; main.add_command(_export)  # noqa: E402  (needs main defined)


@main.command("serve")
@click.argument("game", required=False, metavar="[GAME]")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port on 127.0.0.1 (0 picks a free one).")
@click.option("--lang", default="en", show_default=True, help="Language of the cards shown.")
@games_dir_option
@handle_errors
def serve_cmd(game: str | None, port: int, lang: str, games_dirs: tuple[Path, ...]) -> None:
    """Preview cards in a browser; they refresh by themselves when a file changes.

    With --games-dir only the games in those folders are shown (a copy of a shipped game may
    keep its id there)."""
    from .serve import serve

    serve(games_dirs, game, port, lang, echo=click.echo)
