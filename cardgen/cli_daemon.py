"""``cardgen daemon``: start, ask and stop the warm process that runs commands
(:mod:`cardgen.daemon`). Registered by :mod:`cardgen.cli` with one line, as ``export`` is."""

from __future__ import annotations

import time

import click

from .cli_help import FullHelpGroup


@click.group("daemon", cls=FullHelpGroup)
def daemon() -> None:
    """A warm process that runs cardgen's commands: quicker rebuilds while you edit.

    \b
    While it runs, every cardgen command of this installation (but 'serve' and these) is run
    by a fork of it, which has cardgen and its libraries already imported: a rebuild after
    an edit skips Python's start-up and the imports (about a third of its time). Each
    command still runs in a process of its own, in your folder, with your environment, and
    prints and exits as it would without the daemon. The daemon stops after --idle-minutes
    without a command, and when cardgen or an installed library changes.

    \b
    CARDGEN_DAEMON=off runs commands without it; CARDGEN_DAEMON_DIR chooses the folder of
    its socket (default $XDG_RUNTIME_DIR/cardgen-daemon).

    \b
    Examples:
      cardgen daemon start                 # then build, check, render as usual
      cardgen daemon status
      cardgen daemon stop
    """


@daemon.command("start")
@click.option("--idle-minutes", type=click.IntRange(1, 24 * 60), default=30, show_default=True,
              help="Stop after this many minutes without a command.")
def start_cmd(idle_minutes: int) -> None:
    """Start the daemon (nothing to do if it runs).

    \b
    Examples:
      cardgen daemon start
      cardgen daemon start --idle-minutes 120   # for a long session of edits
    """
    from .cli_common import _fail
    from .daemon import control

    try:
        state, new = control.start(idle_minutes)
    except control.DaemonError as exc:
        _fail(f"cardgen: {exc}")
        return
    click.echo(("daemon started" if new else "daemon already running") + f": {_describe(state)}")


@daemon.command("status")
def status_cmd() -> None:
    """Say whether the daemon runs (exit 1 if not).

    \b
    Example:
      cardgen daemon status
    """
    from .cli_common import _fail
    from .daemon import control

    state = control.status()
    if state is None:
        _fail("no daemon runs for this installation ('cardgen daemon start' starts one)", 1)
        return
    click.echo(f"daemon running: {_describe(state)}")


@daemon.command("stop")
def stop_cmd() -> None:
    """Stop the daemon; commands it is running finish first.

    \b
    Example:
      cardgen daemon stop
    """
    from .daemon import control

    state = control.stop()
    click.echo("no daemon was running" if state is None else f"daemon stopped (pid {state.get('pid')})")


def _describe(state: dict) -> str:
    minutes = (time.time() - float(state.get("started", time.time()))) / 60
    return (f"pid {state.get('pid')}, up {minutes:.0f} min, {state.get('commands')} commands run, "
            f"{state.get('running')} running, stops after {state.get('idle_minutes', 0):g} idle minutes")
