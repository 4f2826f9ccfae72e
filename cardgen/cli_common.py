"""What every ``cardgen`` command shares: exit codes, the error handler that turns cardgen's
errors into one line with file:line:column (never a traceback), and the options several
commands take. A module of its own so that command modules (:mod:`cardgen.cli`,
:mod:`cardgen.cli_export`) depend on it, not on each other."""

from __future__ import annotations

import functools
import os
import signal
import sys
from pathlib import Path
from typing import Any, Callable, NoReturn

import click

from . import interrupts
from .cli_help import FullHelpGroup
from .interrupts import UNCHANGED, Terminated

EXIT_FINDINGS = 1
EXIT_INPUT = 2


def _fail(message: str, code: int = EXIT_INPUT) -> NoReturn:
    click.echo(message, err=True)
    sys.exit(code)


def _terminated(signum: int, _frame: Any) -> None:
    if os.getpid() != _COMMAND_PID:   # a worker the command forked ends as the signal would end it
        os._exit(128 + signum)
    raise Terminated()


_COMMAND_PID = 0
#: Whether a Ctrl-C reached the command: one that lands inside a library's C code comes back as
#: that library's own error (pikepdf, imported at that moment, raised "ImportError: ... failed
#: to import"; it is imported with Ctrl-C held back now, see cardgen.pdflib, but other C code
#: may do the same), which must end the command as the Ctrl-C it was, not as an internal error.
_INTERRUPTED = False


def _interrupted(signum: int, frame: Any) -> None:
    global _INTERRUPTED
    _INTERRUPTED = True
    signal.default_int_handler(signum, frame)


def handle_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn cardgen's errors into one-line messages and exit codes; hide tracebacks. SIGTERM
    and Ctrl-C end the command the same way: outputs from before it unchanged."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        global _INTERRUPTED
        _INTERRUPTED = False
        # a Ctrl-C is noted as well as raised while the command runs (see _INTERRUPTED); the
        # handler is Python's again after it, for a program that runs commands in-process
        noting = signal.getsignal(signal.SIGINT) is signal.default_int_handler
        if noting:
            signal.signal(signal.SIGINT, _interrupted)
        try:
            with interrupts.not_dropped():
                return _handled(fn, *args, **kwargs)
        finally:
            if noting and signal.getsignal(signal.SIGINT) is _interrupted:
                signal.signal(signal.SIGINT, signal.default_int_handler)
    return wrapper


def _handled(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn`` run as a command: see :func:`handle_errors`."""
    global _COMMAND_PID
    _COMMAND_PID = os.getpid()
    signal.signal(signal.SIGTERM, _terminated)
    _working_folder_exists()
    swaps = _swaps()
    try:
        try:
            return fn(*args, **kwargs)
        finally:   # however the command ended, a Ctrl-C Python dropped meanwhile ends it as one
            interrupts.raise_dropped()
    except KeyboardInterrupt:
        _stopped("interrupted", swaps, 130)
    except Terminated:
        _stopped("terminated", swaps, 143)
    except (click.exceptions.Exit, click.ClickException, SystemExit):
        raise
    except BrokenPipeError as exc:
        if exc.filename is not None:
            raise
        # the reader of our output went away (`cardgen build | head -1`): end quietly as a
        # command killed by SIGPIPE does; what the command wrote to files is complete
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(141)
    except Exception as exc:
        # cardgen's errors are imported only when one is raised: a build with nothing to do
        # (see cardgen.uptodate) needs none of them
        from .errors import CardgenError, each_error, file_system_error

        if _INTERRUPTED:   # whatever the Ctrl-C became where it landed
            _stopped("interrupted", swaps, 130)
        if isinstance(exc, CardgenError):
            _fail("\n".join(f"cardgen: {e}" for e in each_error(exc)), exc.exit_code)
        if os.environ.get("CARDGEN_DEBUG"):
            raise
        if isinstance(exc, OSError):   # a file or folder the system refused (full disk, read-only folder)
            err = file_system_error(exc)
            _fail(f"cardgen: {err}", err.exit_code)
        # a bug in cardgen itself, not in the user's input
        _fail(f"cardgen: internal error: {type(exc).__name__}: {exc} "
              f"(set CARDGEN_DEBUG=1 for details and please report it)", 70)


class CommandLine(FullHelpGroup):
    """The ``cardgen`` group: a Ctrl-C that comes before a command's own handler is in place
    (:func:`handle_errors`) — while click reads the command line, or imports the module of
    the command named — ends the run as one inside a command does (exit 130, one line), not
    as click's "Aborted!" (exit 1) or a traceback from the import."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt:
            _fail(f"cardgen: interrupted; {UNCHANGED}", 130)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            _fail(f"cardgen: interrupted; {UNCHANGED}", 130)


def _swaps() -> int:
    """How many build folders this process has swapped in (:func:`cardgen.output.swaps`); none
    if it has not loaded the module that swaps them (a command with nothing to write)."""
    output = sys.modules.get("cardgen.output")
    return output.swaps() if output is not None else 0


def _stopped(how: str, swaps_before: int, code: int) -> NoReturn:
    """End a command a signal stopped, saying truly what became of its outputs: a signal that
    comes while a run's folders are swapped in is held back until they all are (see
    :func:`cardgen.output.commit`), so each folder is whole, from before or from this run."""
    swapped = _swaps() - swaps_before
    if not swapped:
        _fail(f"cardgen: {how}; {UNCHANGED}", code)
    _fail(f"cardgen: {how} once this run had written {swapped} output folder(s) in full; "
          f"any others are unchanged", code)


def _working_folder_exists() -> None:
    """End with a clear error when the folder the command runs in was deleted (or moved)
    under the shell: relative paths (the default --out among them) mean nothing there, and
    the first file operation would fail with an error that names no path."""
    try:
        os.getcwd()
    except OSError as exc:
        from .errors import InputError, Location

        folder = os.environ.get("PWD") or "the working folder"
        err = InputError(f"the folder this command runs in is gone ({exc.strerror}: deleted or moved?)",
                         Location(folder), "cd into a folder that exists and run the command again")
        _fail(f"cardgen: {err}", err.exit_code)


def load_games(ids: tuple[str, ...] = (), games_dirs: tuple[Path, ...] = (), font_dirs: tuple[Path, ...] = ()) -> list:
    """:func:`cardgen.loader.load_games`, imported when a command first loads a game: the
    loader brings YAML, the model and the physics data, which a build with nothing to do
    (see :mod:`cardgen.uptodate`) never needs."""
    from .loader import load_games as load

    return load(ids, games_dirs, font_dirs)


def languages_given(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Click callback of every ``--lang`` option: an option given must name a language.
    ``--lang ''`` or ``--lang ,`` (an empty shell variable, a stray comma) would otherwise
    select no language at all, and a build would write nothing and say nothing."""
    given = [value] if isinstance(value, str) else list(value or ())
    if given and not any(code.strip() for part in given for code in part.split(",")):
        raise click.BadParameter("no language was given (the value is empty or only commas); "
                                 "give a code such as en, de or pt-BR, or 'all'", ctx, param)
    return value


games_dir_option = click.option(
    "--games-dir", "games_dirs", multiple=True, type=click.Path(path_type=Path, file_okay=False),
    help="Also load games from this folder (one sub-folder per game, each with a game.yaml). Repeatable.")
font_dir_option = click.option(
    "--font-dir", "font_dirs", multiple=True, type=click.Path(path_type=Path, file_okay=False),
    help="Also draw text with the fonts in this folder (.ttf, .otf, .woff, .ttc), after the bundled fonts and "
         "the game's own fonts/ (for scripts they lack). Repeatable.")
