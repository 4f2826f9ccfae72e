"""A warm cardgen process (``cardgen daemon start``) that runs commands for the ``cardgen``
executable, so that a command no longer pays for starting Python and importing cardgen.

Why: after a one-card edit a build's own work is about 0.3 s, but a fresh process first
spends about 0.2 s importing cardgen and its drawing, PDF and rule libraries, and its check
gate 0.06 s more importing ``particle`` and reading its table. A daemon does all of that once;
each command is then a fork of it (as Gradle's daemon, Bazel's server, mypy's dmypy and
nailgun do for their tools) — a new process, so no command sees what another left in
memory, started with everything already imported.

How a command gets there (:mod:`.client`): the executable connects to the daemon's socket
and hands over the command line, the working folder, the environment, the umask, the
resource limits and its own standard input, output and error (the file descriptors
themselves, passed over the socket); the daemon forks; the fork takes all of that on, runs
the command and sends back its exit status (:mod:`.server`). The executable forwards Ctrl-C
and termination signals to the fork, and the fork is hung up on when the executable goes
away. Where no daemon answers, the command runs in the executable itself, as it always has.

Which daemon: one per installation and user. The socket's name is a digest of the
interpreter, its flags, its import path and cardgen's location, in a folder only the user
may enter. A daemon that finds any file it imported, any file of the cardgen package or the
set of installed libraries changed since it started stops instead of serving (the command
then runs in the executable), so an upgrade or an edit of cardgen never runs old code.

Opt-in: a daemon runs only once a user starts it, and stops by itself after a spell without
commands. ``CARDGEN_DAEMON=off`` makes the executable ignore it. This module imports only
what finding the socket takes (the messages are :mod:`.channel`'s): the executable reads it
before it knows whether there is a daemon at all.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from pathlib import Path

#: ``off`` (or ``0``, ``no``, ``false``): the executable runs every command itself.
SWITCH = "CARDGEN_DAEMON"
#: The folder holding the daemons' sockets (default: ``$XDG_RUNTIME_DIR/cardgen-daemon``, else
#: ``/tmp/cardgen-daemon-<uid>``); it must belong to the user and be closed to everyone else.
FOLDER = "CARDGEN_DAEMON_DIR"
#: Commands that always run in the executable: the daemon's own, and the preview server,
#: which runs until stopped and watches files from a process of its own.
HERE_ONLY = frozenset({"daemon", "serve"})
#: The daemon forks, and passes file descriptors over a Unix socket (Linux, macOS, the BSDs).
SUPPORTED = hasattr(os, "fork") and hasattr(os, "getuid") and sys.platform != "win32"


def supported() -> bool:
    return SUPPORTED


def switched_off() -> bool:
    """The executable runs every command itself: the user said so, or the system cannot."""
    return not supported() or os.environ.get(SWITCH, "").strip().lower() in ("off", "0", "no", "false")


def folder() -> Path:
    """Where the sockets are (not created here)."""
    chosen = os.environ.get(FOLDER)
    if chosen:
        return Path(chosen)
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return Path(runtime) / "cardgen-daemon"
    return Path("/tmp") / f"cardgen-daemon-{os.getuid()}"


def private(path: Path) -> bool:
    """``path`` is a folder of this user that no one else may enter or change."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077


def key() -> str:
    """This installation's daemon: the interpreter, its flags and import path, and where
    cardgen is. The path's first entry is left out: it is the script's folder, or the working
    folder under ``-m``, and says nothing of what is installed."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parts = [os.path.realpath(sys.executable), sys.prefix, sys.version, repr(sys.flags), package, *sys.path[1:]]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


def socket_path() -> Path:
    return folder() / f"{key()}.sock"
