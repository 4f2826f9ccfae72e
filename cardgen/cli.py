"""The ``cardgen`` command: a thin Click layer over the library API.

Exit codes: 0 success, 1 rule findings (the deck is wrong), 2 unusable input or usage.
Errors are printed as one line with file:line:column; a traceback is never shown unless
``CARDGEN_DEBUG=1`` is set (for cardgen's own bugs).

Why ~600 lines: one Click command per user-facing verb with its help text and examples, each a
few lines over a library call; the help text is most of it. Shared error handling and options
live in :mod:`cardgen.cli_common`, ``cardgen export`` in :mod:`cardgen.cli_export`.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path

import click

from . import __version__
from .cli_common import (EXIT_FINDINGS, CommandLine, _fail, font_dir_option, games_dir_option, handle_errors,
                         languages_given, load_games)
from .cli_help import FullHelpGroup


@click.group(cls=CommandLine, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="cardgen")
def main() -> None:
    """cardgen turns game data (YAML) and artwork templates (SVG) into print-ready decks.

    \b
    Start here:
      cardgen list                 # the games, their components and languages
      cardgen check                # prove every deck complete and physically right
      cardgen build                # print-ready PDFs of every game in output/
      cardgen COMMAND --help       # each command's options, with examples
    """


def run() -> None:
    """The ``cardgen`` executable run here (see :mod:`cardgen.daemon.client` for the daemon):
    :func:`main`, then a fast exit.

    When a command has returned, everything it wrote is complete and in place, so the
    interpreter's teardown (freeing every object of every loaded module: 50–80 ms after a
    build, measured) achieves nothing. Like mypy's ``--fast-exit``, the process flushes its
    output and ends without it. An exception other than ``SystemExit`` takes the normal path.
    """
    os._exit(exit_code())


def exit_code() -> int:
    """Run the command line in ``sys.argv`` and return its exit status, with everything it
    wrote flushed (a process may then end with ``os._exit``)."""
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
    store = sys.modules.get("cardgen.store")   # SQLite is not closed by os._exit: fold its logs first
    if store is not None:
        store.finish_all()
    sys.stdout.flush()
    sys.stderr.flush()
    return code


@main.command("list")
@games_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@click.option("--particles", is_flag=True, help="List the particle ids games can use instead.")
@handle_errors
def list_cmd(games_dirs: tuple[Path, ...], as_json: bool, particles: bool) -> None:
    """List games, their components, card counts and languages.

    \b
    Examples:
      cardgen list
      cardgen list --games-dir games --json
    """
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
@click.option("--json", "as_json", is_flag=True,
              help="Print the result as JSON: findings, and what was proved, chosen, assumed and rendered.")
@click.option("--report", "proof_report", is_flag=True,
              help="Print the proof report: per game, what each rule proved, the data's declared design choices "
                   "and assumptions, then the findings.")
@click.option("--lang", "langs", callback=languages_given, multiple=True,
              help="Also render in this language and report overflow, uncovered characters and untranslated "
                   "strings ('all' = every language with a catalog). Repeatable.")
@click.option("--strict", is_flag=True, help="With --lang: untranslated strings are errors, not warnings.")
@click.option("--no-render", is_flag=True,
              help="Run the rules only; do not render every face (faster, but a template error shows only at build).")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=Path("output"), show_default=True,
              help="Build folder whose cache (OUT/.cache) is reused: compiled templates, faces a build rendered, "
                   "faces an earlier check drew. No PDF is written.")
@click.option("--no-cache", is_flag=True, help="Render and draw every face afresh and keep nothing.")
@font_dir_option
@handle_errors
def check_cmd(game_ids: tuple[str, ...], games_dirs: tuple[Path, ...], as_json: bool, proof_report: bool,
              langs: tuple[str, ...], strict: bool, no_render: bool, out: Path, no_cache: bool,
              font_dirs: tuple[Path, ...]) -> None:
    """Prove decks complete and physically right, and render every face, rule sheet and answer
    key as a build would. Exit 0 valid, 1 findings, 2 bad input (a template error included).

    \b
    Examples:
      cardgen check                          # every game
      cardgen check qcd --report             # what was proved, chosen and assumed
      cardgen check --lang all               # and every translation fits
      cardgen check games/my-game --json     # for scripts and CI
    """
    from . import machinefiles
    from .check import check
    from .errors import CardgenError, InputError, InputErrors, each_error, raise_all
    from .loader import load_each
    from .proofreport import empty_json, report_json, report_text

    games: list = []
    unread: list[CardgenError] = []   # the games that cannot be read; the others are checked all the same
    try:
        if langs and no_render:
            raise InputError("--lang renders the faces in that language, but rendering is off (--no-render)", None,
                             "drop --no-render, or the --lang options")
        loaded = time.time_ns()   # the games are read from their files after this: a pass is kept for them
        with machinefiles.switch(not no_cache):   # nothing taken from the machine's cache folder, or kept there
            games, unread = load_each(game_ids, games_dirs, font_dirs)
            if not games:
                raise_all(unread)
            report = check(games, render=not no_render, langs=langs, strict=strict,
                           cache=None if no_cache else out / ".cache", loaded_ns=None if no_cache else loaded)
    except CardgenError as exc:
        failed = InputErrors([*unread, exc]) if games and unread else exc   # (no game read: exc holds them)
        if as_json:
            shown = [e.as_dict() for e in each_error(failed)]
            click.echo(json.dumps({**empty_json(list(game_ids)), "errors": shown}, indent=2, ensure_ascii=False))
            sys.exit(failed.exit_code)
        raise failed from None
    unread = [e for error in unread for e in each_error(error)]
    if as_json:
        click.echo(json.dumps({**report_json(report), "ok": report.ok and not unread,
                               "errors": [e.as_dict() for e in unread]}, indent=2, ensure_ascii=False))
    elif proof_report:
        click.echo(report_text(report), nl=False)
    else:
        for f in report.findings:
            click.echo(str(f))
        n = len(report.findings)
        errors = sum(1 for f in report.findings if f.severity == "error")
        faces = sum(r.faces for r in report.rendered)
        summary = (f"checked {len(report.games)} game(s): " +
                   ("all rules pass" if report.ok else f"{errors} finding{'s' if errors != 1 else ''}") +
                   (f", {n - errors} warning(s)" if n - errors else "") +
                   (f"; rendered {faces} faces" if report.rendered else "; faces not rendered (--no-render)"
                    if no_render else "") +
                   (f"; {len(unread)} input error{'s' if len(unread) != 1 else ''} (below) in the games "
                    "that could not be read" if unread else ""))
        click.echo(summary, err=not report.ok or bool(unread))
    if unread:
        if not as_json:
            for e in unread:
                click.echo(f"cardgen: {e}", err=True)
        sys.exit(InputErrors(unread).exit_code)
    sys.exit(0 if report.ok else EXIT_FINDINGS)


def _parse_offset(value: str) -> tuple[float, float]:
    try:
        x, y = (float(v) for v in value.split(","))
    except ValueError:
        raise click.BadParameter("give two numbers in mm as X,Y, e.g. 0.5,-1") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise click.BadParameter("give two numbers in mm as X,Y, e.g. 0.5,-1")
    return x, y


@main.command("build")
@click.argument("game_ids", nargs=-1, metavar="[GAME ...]")
@click.option("--lang", "langs", callback=languages_given, multiple=True, default=("en",), show_default=True,
              help="Language of the deck, or 'all' for every language with a catalog. Repeatable "
                   "(--lang en --lang de), or codes separated by commas.")
@click.option("--strict", is_flag=True, help="Fail (exit 1) when a string has no translation.")
@click.option("--paper", default="a4", show_default=True, help="a4, a3, letter, legal, tabloid or WxHmm.")
@click.option("--duplex", type=click.Choice(["long", "short", "none"]), default="long", show_default=True,
              help="How the printer flips the sheet for backs; none: a single-sided printer (a deck's "
                   "shared back is left out, backs that belong to a piece get pages of their own).")
@click.option("--bleed", type=float, default=None,
              help="Printed bleed in mm, at most each component's own: its artwork's (default: that).")
@click.option("--gutter", type=float, default=None, help="Space between cards in mm.")
@click.option("--margin", type=float, default=5.0, show_default=True, help="Printer margin in mm.")
@click.option("--marks", type=click.Choice(["ticks", "lines", "none"]), default="ticks", show_default=True,
              help="Cut marks: short ticks, full-length lines, or none.")
@click.option("--back-offset", default=None, metavar="X,Y",
              help="Shift backs by X,Y mm to correct printer misregistration (default: the offset saved by "
                   "'cardgen calibrate --read', else 0,0).")
@click.option("--mode", type=click.Choice(["sheets", "single"]), default="sheets", show_default=True,
              help="sheets: many cards per page; single: one card per page for print services.")
@click.option("--out", "out", type=click.Path(path_type=Path, file_okay=False), default=Path("output"),
              show_default=True, help="Output folder.")
@click.option("--level", type=click.IntRange(1, 99), default=None, help="Only components up to this game level.")
@click.option("--cut-file", is_flag=True, help="Also write cut paths as SVG for cutting machines (shaped pieces).")
@click.option("--sets", type=click.IntRange(1, 16), default=1, show_default=True,
              help="Class sets: print every component N times, each set marked (shape + number) for sorting.")
@click.option("--jobs", type=click.IntRange(1, 64), default=None, help="Parallel processes (default: one per core).")
@click.option("--no-cache", is_flag=True,
              help="Build even when nothing changed, rendering every face again instead of reusing OUT/.cache "
                   "and running every rule again; nothing is kept in this machine's cache folder.")
@click.option("--allow-overflow", is_flag=True,
              help="Print text that does not fit its box (drawn at its smallest size, running over, even below "
                   "the 6 pt minimum of the text-size rule) instead of stopping the build.")
@click.option("--allow-missing-glyphs", is_flag=True,
              help="Print characters no font covers as a box holding their code point instead of stopping the build.")
@games_dir_option
@font_dir_option
@handle_errors
def build_cmd(game_ids: tuple[str, ...], langs: tuple[str, ...], strict: bool, paper: str, duplex: str, bleed: float | None,
              gutter: float | None, margin: float, marks: str, back_offset: str | None, mode: str, out: Path,
              level: int | None, cut_file: bool, sets: int, jobs: int | None, no_cache: bool,
              allow_overflow: bool, allow_missing_glyphs: bool, games_dirs: tuple[Path, ...],
              font_dirs: tuple[Path, ...]) -> None:
    """Write print-ready PDFs (all games, every component, English, A4 by default).

    \b
    Nothing to do when nothing changed since the last build of the same command: every input
    (game data, templates, catalogs, fonts, cardgen itself) and every file it wrote are as they
    were. --no-cache builds (and renders) everything again.

    \b
    Examples:
      cardgen build                                  # every game into output/
      cardgen build particle-builder --paper a3      # the mat on two A3 sheets
      cardgen build qcd --lang de --sets 8           # eight marked class sets in German
      cardgen build tutti-quantum --duplex short --back-offset 0.5,-1
    """
    from . import uptodate

    wanted = dict(lang=",".join(langs), paper=paper, duplex=duplex, bleed=bleed, gutter=gutter, margin=margin, marks=marks,
                  back_offset=None if back_offset is None else _parse_offset(back_offset), mode=mode, level=level,
                  cut_file=cut_file, strict=strict, sets=sets, allow_overflow=allow_overflow,
                  allow_missing_glyphs=allow_missing_glyphs)
    verdict = uptodate.verdict(uptodate.request(out, game_ids, games_dirs, font_dirs, {**wanted, "check": True}))
    if not no_cache and verdict.fresh and (lines := verdict.lines()) is not None:
        uptodate.refresh(verdict)
        for err, line in lines:   # what the build printed, the last time it ran with these inputs
            click.echo(line, err=err)
        return
    from . import machinefiles
    from .build import BuildOptions, RuleFindingsError, build
    from .progress import Progress

    base = BuildOptions(**wanted, out=out, games_dirs=games_dirs, cache=not no_cache).validated()
    said: list[tuple[bool, str]] = []
    if back_offset is None and base.back_offset != (0.0, 0.0):
        from .userconfig import config_path

        said.append((False, f"backs shifted by {base.back_offset[0]:+g},{base.back_offset[1]:+g} mm for {base.duplex}-"
                            f"edge duplex, as saved in {config_path()} ('--back-offset 0,0' to print without it)"))
        click.echo(said[0][1])
    if not base.prints_sheets():   # said first, and again by a rebuild that finds nothing to do
        said.append((True, f"note: no rule sheet or answer key on {base.sheet().label} paper, too small for them; "
                           f"build them with --paper a4 (or letter)"))
        click.echo(said[-1][1], err=True)
    with machinefiles.switch(not no_cache):   # the build itself switches as its options say
        games = load_games(game_ids, games_dirs, font_dirs)
    stamp = uptodate.Recorder(verdict, report=lambda results: said + _report_lines(games, results, bleed),
                              back_offset_saved=back_offset is None)
    steps = _build_steps(games, base.lang)
    try:
        with Progress("building", steps) as step:
            results = build(games, base, jobs=jobs, on_done=lambda result: step(result.game),
                            on_wait=lambda: click.echo(f"waiting for another build writing into {out} ...", err=True),
                            check=True, stamp=stamp)
    except RuleFindingsError as exc:
        for f in exc.findings:
            click.echo(str(f), err=True)
        _fail(f"cardgen: {exc.message}", EXIT_FINDINGS)
    for err, line in (stamp.lines if stamp.lines is not None else _report_lines(games, results, bleed))[len(said):]:
        click.echo(line, err=err)


def _build_steps(games: list, lang: str) -> int:
    """Games times languages: what the progress bar counts."""
    from .i18n import language_games

    return sum(len(todo) for _lang, todo in language_games(lang, games))


def _report_lines(games: list, results: list, bleed: float | None = None) -> list[tuple[bool, str]]:
    """What ``cardgen build`` prints for its results, each line with whether it goes to
    stderr: each built game's files, then its warnings, each untranslated string located in
    the catalogs and the template or data that prints it, and each file printed with less
    bleed than ``--bleed`` asked (its artwork has less, or its pieces are edge to edge)."""
    from .build.report import summary
    from .i18n import MessageLocator

    by_id = {g.id: g for g in games}
    lines: list[tuple[bool, str]] = []
    warnings = 0
    for r in results:
        lines += [(False, line) for line in summary(r)]
        lines += [(True, f"    warning: {issue}") for issue in r.issues]
        lines += [(True, line) for line in _bleed_notes(by_id[r.game], r.files, bleed)]
        locator = MessageLocator(by_id[r.game], r.lang)
        for msgid, context in r.untranslated:
            where, used = locator.locate(msgid, context)
            lines.append((True, f"    warning: {where}: untranslated ({r.lang}): {msgid!r}"
                                + (f" [{context}]" if context else "") + (f", used at {used}" if used else "")))
        warnings += len(r.issues) + len(r.untranslated)
    if warnings:
        lines.append((True, f"{warnings} warning(s); see text-report.txt next to the PDFs"))
    return lines


def _bleed_notes(game, files: list, asked: float | None) -> list[str]:
    """A file whose pieces print less bleed than ``--bleed`` asked, and why: a piece prints at
    most the bleed its artwork has, and pieces laid edge to edge share their cuts."""
    notes = []
    for f in files:
        if asked is None or f.bleed_mm is None or f.bleed_mm >= asked - 1e-9:
            continue
        comps = [game.components[c] for c in (f.members or (f.spare_of or f.component,)) if c in game.components]
        art = min((c.bleed for c in comps), default=asked)
        why = (f"its artwork has {art:g} mm of bleed" if art < asked
               else "its pieces are laid edge to edge (see PRINTING.txt)")
        notes.append(f"    note: {Path(f.path).name} printed with {f.bleed_mm:g} mm bleed, not {asked:g} mm: {why}")
    return notes


from .cli_export import dpi_option  # noqa: E402  (render's --dpi is checked as the exports' is)


@main.command("render")
@click.argument("game_id", metavar="GAME")
@click.option("--component", "component_ids", multiple=True, help="Only this component (repeatable).")
@click.option("--card", "card_ids", multiple=True, help="Only this card id (repeatable).")
@click.option("--lang", callback=languages_given, default="en", show_default=True,
              help="Language of the faces: a code, several separated by commas, or 'all' (every language the game "
                   "has a catalog for).")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=Path("output"), show_default=True,
              help="SVGs go to OUT/GAME/LANG/faces/.")
@click.option("--png", "png_dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Write PNGs here (default: next to the SVGs; with several languages, PNG/LANG/).")
@dpi_option(150, "Resolution of the PNGs (dots per inch).")
@games_dir_option
@font_dir_option
@handle_errors
def render_cmd(game_id: str, component_ids: tuple[str, ...], card_ids: tuple[str, ...], lang: str, out: Path,
               png_dir: Path | None, dpi: float, games_dirs: tuple[Path, ...], font_dirs: tuple[Path, ...]) -> None:
    """Render faces to SVG and PNG, plus a contact sheet per component.

    \b
    Examples:
      cardgen render qcd
      cardgen render particle-builder --component targets --card proton --dpi 300
    """
    from .api import chosen_components
    from .i18n import languages

    game = load_games((game_id,), games_dirs, font_dirs)[0]
    chosen_components(game, component_ids, card_ids)   # a component or card id the game lacks: refused at once
    codes = languages(lang, [game])
    for code in codes:
        _render_language(game, code, component_ids, card_ids, out,
                         png_dir / code if png_dir and len(codes) > 1 else png_dir, dpi)


def _render_language(game, lang: str, component_ids: tuple[str, ...], card_ids: tuple[str, ...], out: Path,
                     png_dir: Path | None, dpi: float) -> None:
    """``cardgen render`` in one language: its faces, all or nothing, then what it wrote."""
    from .i18n import translator
    from .output import BuildLock, commit
    from .preview import staged_run, write_faces
    from .progress import Progress
    from .render import Renderer

    renderer = Renderer(game, lang, translate=translator(game, lang))
    svg_dir = out / game.id / lang / "faces"
    pngs = png_dir or svg_dir
    chosen = component_ids or list(game.components)
    sides = sum(len(game.components[c].cards) * (2 if game.components[c].back else 1) for c in chosen)
    folders = [pngs, *dict.fromkeys(d / c for d in (svg_dir, pngs) for c in chosen)]
    # all or nothing: files are staged and replace the previous ones only once every face is drawn;
    # a build or an export into the same folder waits its turn
    with BuildLock(out), staged_run(folders) as staged:
        with Progress("rendering", sides) as step:
            written = write_faces(renderer, chosen, set(card_ids) or None, svg_dir, pngs, dpi, staged,
                                  on_progress=step)
        sheets = _stage_contact_sheets(game, lang, pngs, written, staged)
        commit(staged)
    for cid, sheet in sheets.items():
        click.echo(f"{cid}: {len(written[cid])} face(s) → {svg_dir / cid}, contact sheet {sheet}")
    for issue in dict.fromkeys(i for faces in written.values() for f in faces for i in f.issues):
        click.echo(f"warning: {issue}", err=True)


def _stage_contact_sheets(game, lang: str, pngs: Path, written: dict, staged: list[Path]) -> dict[str, Path]:
    """Stage a contact sheet per component with faces, drawn from the faces' staged PNGs (the
    render's files are swapped in together, so the faces are not at their paths yet); returns
    the sheets' paths by component."""
    from dataclasses import replace

    from .output import stage, staged_file
    from .preview import contact_sheet

    sheets = {}
    for cid, faces in written.items():
        if faces:
            shown = [replace(f, png_path=staged_file(f.png_path)) for f in faces]
            title = f"{game.name} — {game.components[cid].name} ({lang})"
            sheets[cid] = stage(pngs / f"{cid}-contact.png", contact_sheet(shown, title))
            staged.append(sheets[cid])
    return sheets


CALIBRATE_HOWTO = """\
How to read it: print both pages double-sided, flipping on the {duplex} edge, at 100 % (no
"fit to page"), and hold the sheet against a light. At each of the five targets, the back's
vertical line crosses the horizontal scale at X and its horizontal line crosses the vertical
scale at Y. Type the numbers with the signs printed beside them: the scales are labelled with
the correction itself, so there is nothing to invert.

Worked example: at the centre the vertical line crosses the X scale halfway between +1 and +2,
and the horizontal line crosses the Y scale at -1; at a corner you read +2 and -1. Then

    cardgen calibrate --duplex {duplex} --read 1.5,-1 --read 2,-1

averages them (+1.75,-1 mm), saves it for {duplex}-edge printing, and every 'cardgen build'
applies it from then on (it says so; '--back-offset 0,0' prints without it). Lines that miss
the scales mean the printer flipped on the other edge: try --duplex {other}."""


@main.command("calibrate")
@click.option("--paper", default="a4", show_default=True, help="Paper to print the calibration page on.")
@click.option("--duplex", type=click.Choice(["long", "short"]), default="long", show_default=True,
              help="The edge your printer flips the sheet on (the offset is saved per edge).")
@click.option("--read", "readings", multiple=True, metavar="X,Y",
              help="What you read at a target, signs as printed; give it once per target read. Saves the "
                   "average as the back offset every build applies.")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=Path("output"), show_default=True,
              help="Folder the calibration PDF is written to.")
@handle_errors
def calibrate_cmd(paper: str, duplex: str, readings: tuple[str, ...], out: Path) -> None:
    """Measure your printer's back offset: print the page, then type what you read with --read.

    \b
    Example:
      cardgen calibrate --paper a4                 # writes the page and explains it
      cardgen calibrate --read 1.5,-1 --read 2,-1  # saves +1.75,-1 mm for every build
    """
    other = "short" if duplex == "long" else "long"
    if readings:
        from .userconfig import offset_from_readings, save_back_offset

        offset = offset_from_readings([_parse_offset(r) for r in readings])
        path = save_back_offset(duplex, offset)
        click.echo(f"back offset {offset[0]:+g},{offset[1]:+g} mm saved for {duplex}-edge duplex in {path}; "
                   f"'cardgen build' applies it from now on (override with --back-offset X,Y)")
        return
    from .build import calibrate

    path = calibrate(paper, duplex, out)
    click.echo(f"wrote {path}\n\n" + CALIBRATE_HOWTO.format(duplex=duplex, other=other))


@main.command("fonts")
@click.argument("game_ids", nargs=-1, metavar="[GAME ...]")
@click.option("--lang", "langs", callback=languages_given, multiple=True,
              help="Language to report (repeatable; 'all' = every language with a catalog; default en).")
@games_dir_option
@font_dir_option
@handle_errors
def fonts_cmd(game_ids: tuple[str, ...], langs: tuple[str, ...], games_dirs: tuple[Path, ...],
              font_dirs: tuple[Path, ...]) -> None:
    """Which font draws which script of a game, and which characters no font covers.

    \b
    Examples:
      cardgen fonts qcd --lang ar
      cardgen fonts my-game --lang ko --font-dir ~/fonts/noto-kr
    """
    from .fontreport import font_report, format_report
    from .i18n import languages

    uncovered = 0
    for game in load_games(game_ids, games_dirs, font_dirs):
        wanted = languages(langs or ("en",), [game])
        for lang in wanted:
            report = font_report(game, lang)
            uncovered += len(report.uncovered)
            click.echo(format_report(report))
    sys.exit(EXIT_FINDINGS if uncovered else 0)


@main.command("new")
@click.argument("game_id", metavar="GAME-ID")
@click.option("--from", "template", default=None, metavar="GAME",
              help="Start from a copy of this shipped game (data, templates and translations).")
@click.option("--dir", "parent", type=click.Path(path_type=Path, file_okay=False), default=Path("games"),
              show_default=True, help="The games folder the new game's folder is created in.")
@handle_errors
def new_cmd(game_id: str, template: str | None, parent: Path) -> None:
    """Start a new game (data + templates, no Python) that checks and builds at once.

    \b
    Examples:
      cardgen new lepton-snap                 # a two-card sample in games/lepton-snap/
      cardgen new my-qcd --from qcd           # a copy of QCD the Game to adapt
    """
    from .scaffold import new_game

    folder = new_game(game_id, parent, template).resolve()
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    shown = files if len(files) <= 12 else files[:11] + [f"… and {len(files) - 11} more"]
    click.echo(f"created {folder}\n" + "".join(f"  {f}\n" for f in shown) +
               f"next:\n"
               f"  cardgen check {folder}\n"
               f"  cardgen build {folder}            # PDFs in {Path('output').resolve() / game_id}\n"
               f"  cardgen serve --games-dir {folder.parent}   # live preview while you edit\n"
               f"  cardgen daemon start            # quicker rebuilds while you edit\n"
               f"the format: docs/data-format.md; every check in game.yaml says what it enforces")


@main.group("i18n", cls=FullHelpGroup)
def i18n_group() -> None:
    """Translation catalogs: extract strings, start and update languages, show progress."""


def _i18n_games(game_ids: tuple[str, ...], games_dirs: tuple[Path, ...]):
    return load_games(game_ids, games_dirs)


@i18n_group.command("extract")
@click.argument("game_ids", nargs=-1, metavar="[GAME ...]")
@games_dir_option
@handle_errors
def i18n_extract(game_ids: tuple[str, ...], games_dirs: tuple[Path, ...]) -> None:
    """Collect every translatable string into .pot templates (with context and box sizes).

    \b
    Examples:
      cardgen i18n extract                   # the shipped games and common strings
      cardgen i18n extract games/my-game     # a game of your own (its locale/ folder)
    """
    from . import i18n

    for path in i18n.extract(_i18n_games(game_ids, games_dirs)):
        click.echo(f"wrote {path}")


@i18n_group.command("init")
@click.argument("game_ids", nargs=-1, metavar="[GAME ...]")
@click.option("--lang", callback=languages_given, required=True, help="Language code, e.g. de, fr, es, ar, zh.")
@games_dir_option
@handle_errors
def i18n_init(game_ids: tuple[str, ...], lang: str, games_dirs: tuple[Path, ...]) -> None:
    """Start catalogs for a new language (existing catalogs are kept).

    \b
    Example:
      cardgen i18n init --lang it qcd        # then translate data/locale/it/LC_MESSAGES/qcd.po
    """
    from . import i18n

    written = i18n.init(_i18n_games(game_ids, games_dirs), lang)
    for path in written:
        click.echo(f"wrote {path}")
    if not written:
        click.echo(f"catalogs for '{lang}' already exist; use 'cardgen i18n update'")


def _langs(langs: tuple[str, ...], games: list) -> list[str]:
    """The languages named, or every language any of the games has a catalog for."""
    from . import i18n

    return list(langs) or [lng for lng in i18n.languages("all", games) if lng != i18n.SOURCE_LANG]


@i18n_group.command("update")
@click.argument("game_ids", nargs=-1, metavar="[GAME ...]")
@click.option("--lang", "langs", callback=languages_given, multiple=True, help="Only these languages (default: all).")
@click.option("--allow-obsolete", is_flag=True,
              help="Update even when the template would make most translations obsolete (they stay in the catalog "
                   "as #~ entries and come back when their string does).")
@games_dir_option
@handle_errors
def i18n_update(game_ids: tuple[str, ...], langs: tuple[str, ...], allow_obsolete: bool,
                games_dirs: tuple[Path, ...]) -> None:
    """Merge new strings into catalogs: translations kept, changed strings marked fuzzy.

    \b
    Example:
      cardgen i18n extract && cardgen i18n update --lang de
    """
    from . import i18n

    games = _i18n_games(game_ids, games_dirs)
    for path in i18n.update(games, _langs(langs, games), allow_obsolete):
        click.echo(f"updated {path}")


@i18n_group.command("status")
@click.argument("game_ids", nargs=-1, metavar="[GAME ...]")
@click.option("--lang", "langs", callback=languages_given, multiple=True, help="Only these languages (default: all).")
@click.option("--strict", is_flag=True, help="Exit 1 if anything is fuzzy or missing (or, with --fit, does not fit "
                                             "or has no font).")
@click.option("--fit", is_flag=True, help="Also render every game in every language: count text that does not fit "
                                          "its box and characters no font covers (takes a few seconds per language).")
@games_dir_option
@font_dir_option
@handle_errors
def i18n_status(game_ids: tuple[str, ...], langs: tuple[str, ...], strict: bool, fit: bool,
                games_dirs: tuple[Path, ...], font_dirs: tuple[Path, ...]) -> None:
    """Translated / fuzzy / missing counts per language and catalog; with --fit, fit and font coverage too.

    \b
    Examples:
      cardgen i18n status                      # every language, every catalog
      cardgen i18n status qcd --lang de --fit  # and what does not fit or has no font
    """
    from . import i18n

    games = load_games(game_ids, games_dirs, font_dirs)
    rows = i18n.status(games, _langs(langs, games))
    extra = {}
    if fit:
        from .fitcheck import language_findings
        from .fontreport import font_report

        for row in rows:
            game = next((g for g in games if g.id == row.domain), None)
            if game is not None and row.lang in i18n.available_languages(game):
                found = language_findings(game, row.lang)
                extra[(row.lang, row.domain)] = (sum(f.rule == "text-fit" for f in found),
                                                 len(font_report(game, row.lang).uncovered))
    click.echo(f"{'lang':<6} {'catalog':<22} {'translated':>10} {'fuzzy':>6} {'missing':>8}"
               + (f" {'not fitting':>12} {'no font':>8}" if fit else ""))
    for r in rows:
        line = f"{r.lang:<6} {r.domain:<22} {r.translated:>10} {r.fuzzy:>6} {r.missing:>8}"
        if fit:
            counts = extra.get((r.lang, r.domain))
            line += f" {counts[0]:>12} {counts[1]:>8}" if counts else f" {'-':>12} {'-':>8}"
        click.echo(line)
    problems = any(a or b for a, b in extra.values())
    if strict and (not all(r.complete for r in rows) or problems):
        sys.exit(EXIT_FINDINGS)


from .cli_export import export as _export; main.add_command(_export)  # noqa: E402  (needs main defined)
from .cli_daemon import daemon as _daemon; main.add_command(_daemon)  # noqa: E402  (the same)


@main.command("serve")
@click.argument("game", required=False, metavar="[GAME]")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port on 127.0.0.1 (0 picks a free one).")
@click.option("--lang", callback=languages_given, default="en", show_default=True, help="Language of the cards shown.")
@games_dir_option
@handle_errors
def serve_cmd(game: str | None, port: int, lang: str, games_dirs: tuple[Path, ...]) -> None:
    """Preview cards in a browser; they refresh by themselves when a file changes.

    With --games-dir only the games in those folders are shown (a copy of a shipped game may
    keep its id there).

    \b
    Examples:
      cardgen serve                          # every game at http://127.0.0.1:8000/
      cardgen serve --games-dir games --port 0 --lang de
    """
    from .serve import serve

    serve(games_dirs, game, port, lang, echo=click.echo)
