"""The ``cardgen`` executable: a command goes to this installation's daemon when one runs
(see :mod:`cardgen.daemon`), else it runs here.

Only the standard library is imported, and only what finding the socket takes until there is
one: without a daemon this costs a command a few stat calls; a command a daemon serves
costs this process a connection and a wait. Anything but a daemon that takes the command —
none started, switched off, another installation's, stale, a resource limit it cannot
match, a standard stream that is closed — runs the command here, exactly as without a
daemon. Once the daemon has forked the command's process this one stands in for it: it
forwards the signals a user sends (Ctrl-C, termination, hang-up), exits with the command's
status, and, if the command's process was killed by a signal, dies of the same signal.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import TYPE_CHECKING, Any

from . import HERE_ONLY, private, socket_path, switched_off

if TYPE_CHECKING:
    from .channel import Channel

#: Seconds to wait for the daemon to fork the command's process: a daemon that does not
#: answer by then is left alone and the command runs here.
ACCEPT_SECONDS = 10.0
#: The signals this process passes on to the command's process.
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def run() -> None:
    """Run the command line through the daemon, or here. A Ctrl-C before either has started
    the command (while this process connects, or imports cardgen's command line) ends it as
    one inside a command does: exit 130 and one line, not a traceback of the import."""
    try:
        code = through_daemon(sys.argv)
        if code is not None:
            os._exit(code)   # nothing to flush: this process wrote nothing
        from ..cli import run as run_here
    except KeyboardInterrupt:
        from ..interrupts import UNCHANGED

        sys.stderr.write(f"cardgen: interrupted; {UNCHANGED}\n")
        sys.stderr.flush()
        os._exit(130)
    run_here()


def through_daemon(argv: list[str]) -> int | None:
    """The exit status of ``argv`` run by the daemon, or None when it does not take it."""
    if switched_off() or (len(argv) > 1 and argv[1] in HERE_ONLY):
        return None
    path = socket_path()
    if not private(path.parent) or not os.path.exists(path):
        return None
    import socket

    from .channel import Channel, ProtocolError

    request = _request(argv)
    if request is None:
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(ACCEPT_SECONDS)
        try:
            sock.connect(str(path))
        except OSError:
            return None
        channel = Channel(sock)
        try:
            channel.send({"run": request}, [0, 1, 2])
            first, _ = channel.receive()
        except (OSError, ProtocolError, ValueError):
            return None
        if not first or not isinstance(first.get("pid"), int):
            return None   # refused (stale, limits): run here
        return _stand_in(channel, first["pid"])
    finally:
        sock.close()


def _request(argv: list[str]) -> dict[str, Any] | None:
    """What the command's process takes on from this one, or None when something cannot be
    handed over."""
    import resource

    try:
        cwd = os.getcwd()
        for fd in (0, 1, 2):
            os.fstat(fd)
    except OSError:
        return None
    umask = os.umask(0o022)
    os.umask(umask)
    limits = {}
    for name in dir(resource):
        if name.startswith("RLIMIT_"):
            try:
                limits[name] = list(resource.getrlimit(getattr(resource, name)))
            except (OSError, ValueError):
                continue
    streams = {}
    for name in ("stdin", "stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None or not hasattr(stream, "encoding"):
            return None
        streams[name] = {"encoding": stream.encoding, "errors": stream.errors,
                         "line_buffering": stream.line_buffering}
    main_package = getattr(sys.modules.get("__main__"), "__package__", None)
    return {"argv": list(argv), "cwd": cwd, "env": dict(os.environ), "umask": umask, "limits": limits,
            "streams": streams, "path0": sys.path[0] if sys.path else "",
            "main_package": main_package if isinstance(main_package, str) else None}


def _stand_in(channel: Channel, pid: int) -> int:
    """Wait for the command's process, passing on signals; its exit status."""
    from .channel import ProtocolError

    def forward(signum: int, _frame: object) -> None:
        try:
            os.kill(pid, signum)
        except OSError:
            pass

    for signum in FORWARDED:
        signal.signal(signum, forward)
    channel.sock.settimeout(None)
    while True:
        try:
            message, _ = channel.receive()
            break
        except InterruptedError:
            continue
        except (OSError, ProtocolError, ValueError):
            message = None
            break
    if message is not None and isinstance(message.get("exit"), int):
        return message["exit"]
    if message is not None and isinstance(message.get("signal"), int):
        _die_of(message["signal"])
    print("cardgen: the daemon's process for this command ended without an exit status; "
          "run the command again with CARDGEN_DAEMON=off to run it here", file=sys.stderr)
    return 1


def _die_of(signum: int) -> None:
    """End as the command's process did: killed by ``signum``."""
    try:
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    except (OSError, ValueError):
        pass
    os._exit(128 + signum)
