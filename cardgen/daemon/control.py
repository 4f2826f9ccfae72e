"""Starting, asking and stopping this installation's daemon (``cardgen daemon``; see
:mod:`cardgen.daemon`). The daemon's own process is :mod:`.server`, started by name, so that
the command line, which imports this module, never imports the module that runs commands."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from . import folder, key, private, socket_path, supported
from .channel import Channel, ProtocolError

#: A daemon with no command to run for this long stops (``cardgen daemon start --idle-minutes``).
IDLE_MINUTES = 30
#: Seconds ``cardgen daemon start`` waits for a new daemon to answer.
START_SECONDS = 60.0
#: The longest name a Unix socket may have (Linux; macOS allows 103).
MAX_SOCKET_PATH = 103 if sys.platform == "darwin" else 107
#: Where the cardgen package this process runs was found.
PACKAGE = Path(__file__).resolve().parent.parent


class DaemonError(Exception):
    """The daemon cannot be started or reached; the message says why and what to do."""


def make_folder() -> Path:
    """The sockets' folder, made if missing; refused if anyone but the user could use it."""
    if not supported():
        raise DaemonError("the daemon needs fork() and Unix sockets, which this system lacks; "
                          "commands run without it")
    where = folder()
    try:
        where.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise DaemonError(f"cannot make the daemon's folder {where} ({exc.strerror}); "
                          "set CARDGEN_DAEMON_DIR to a folder of your own") from None
    if not private(where):
        raise DaemonError(f"the daemon's folder {where} is not yours alone (it must belong to you, mode 700); "
                          "fix it with 'chmod 700', or set CARDGEN_DAEMON_DIR to a folder of your own")
    path = socket_path()
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        raise DaemonError(f"the daemon's socket would be {path}, longer than the {MAX_SOCKET_PATH} bytes "
                          "a socket's name may have; set CARDGEN_DAEMON_DIR to a shorter folder")
    return where


def ask(message: dict[str, Any], timeout: float = 5.0) -> dict[str, Any] | None:
    """The running daemon's answer to ``message``, or None when none answers."""
    if not supported():
        return None
    path = socket_path()
    if not private(path.parent):
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(str(path))
        channel = Channel(sock)
        channel.send(message)
        answer, _ = channel.receive()
        return answer
    except (OSError, ProtocolError, ValueError):
        return None
    finally:
        sock.close()


def status() -> dict[str, Any] | None:
    """The running daemon's pid, start time, commands run and idle limit; None if none runs."""
    return ask({"status": True})


def stop() -> dict[str, Any] | None:
    """Ask the running daemon to stop (commands it is running finish); its status, or None."""
    return ask({"stop": True})


def start(idle_minutes: int = IDLE_MINUTES) -> tuple[dict[str, Any], bool]:
    """Start this installation's daemon unless one runs: its status, and whether it is new."""
    running = status()
    if running is not None:
        return running, False
    where = make_folder()
    log = where / f"{key()}.log"
    with open(log, "wb") as err:
        # the cardgen this process runs, wherever it was found (the working folder under -m)
        code = f"import sys; sys.path[0] = {str(PACKAGE.parent)!r}; from cardgen.daemon.server import main; main()"
        proc = subprocess.Popen([sys.executable, "-c", code, "--idle-minutes", str(idle_minutes)],
                                cwd=where, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                start_new_session=True, close_fds=True)
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        answer = status()
        if answer is not None:
            return answer, True
        if proc.poll() not in (None, 0):   # 0: another start's daemon holds the lock; it will answer
            said = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-5:]
            raise DaemonError("the daemon stopped as it started" + (": " + " / ".join(said) if said else "")
                              + f" (its log: {log})")
        time.sleep(0.05)
    proc.kill()
    raise DaemonError(f"the daemon did not answer within {START_SECONDS:.0f} s (its log: {log})")
