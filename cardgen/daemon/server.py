"""The daemon's process (see :mod:`cardgen.daemon`; started by :func:`.control.start`): it
imports what commands need once, then forks a process for each command it is handed.

The daemon's own process never runs a command, and has no thread: it only accepts a
connection, checks that nothing it imported has changed, forks, and reaps. Each fork takes
on the executable's working folder, environment, umask, resource limits and standard
streams before the command line runs (:func:`_take_on`), then runs it as the executable
would have (:func:`cardgen.cli.exit_code`). The daemon watches each executable's connection:
if the executable goes away (killed, its terminal closed), its command's process is hung up
on (``SIGHUP``), as a command running in a closed terminal would be.
"""

from __future__ import annotations

import argparse
import fcntl
import gc
import importlib
import io
import os
import select
import signal
import socket
import struct
import sys
import time
from typing import Any, NoReturn

from . import key, socket_path
from .channel import Channel, ProtocolError
from .control import IDLE_MINUTES, make_folder

#: What a command imports: the command line, the build, its check gate and rules, the renderer,
#: the drawing and PDF libraries, and what they import on first use (the text layer's font
#: builder, fontTools' pens, the processes a check or build forks). tests/test_daemon.py builds
#: and checks every shipped game after this and fails if any of cardgen's or fontTools' modules
#: is still imported by them.
PRELOAD = ("cardgen.cli", "cardgen.build", "cardgen.build.gates", "cardgen.check", "cardgen.rules",
           "cardgen.render", "cardgen.draw", "cardgen.legibility", "cardgen.sheets", "cardgen.pdfwrite",
           "cardgen.api", "cardgen.checkfaces", "cardgen.fitcheck", "cardgen.verdicts", "cardgen.textlayer",
           "cardgen.rendercheck", "cardgen.forkpair", "multiprocessing.popen_fork", "multiprocessing.synchronize",
           "platformdirs", "fontTools.fontBuilder", "fontTools.pens.ttGlyphPen", "fontTools.pens.boundsPen")
#: The font tables whose modules fontTools imports when a table is first read or built: those
#: of the bundled fonts cardgen reads and of the text layer's font (about 0.03 s in all).
FONT_TABLES = ("head", "hhea", "hmtx", "maxp", "name", "OS/2", "post", "cmap", "glyf", "loca", "CPAL", "fvar",
               "GSUB", "GPOS", "GDEF")


def main(argv: list[str] | None = None) -> None:
    """The daemon's process, as :func:`start` runs it."""
    parser = argparse.ArgumentParser(prog="cardgen's daemon")
    parser.add_argument("--idle-minutes", type=float, default=IDLE_MINUTES)
    args = parser.parse_args(argv)
    daemon = Daemon.open(args.idle_minutes * 60)
    if daemon is not None:
        daemon.serve()


class Daemon:
    """The listening socket, the commands' processes and what the daemon imported."""

    @classmethod
    def open(cls, idle_seconds: float) -> "Daemon | None":
        """The daemon, listening; None when another daemon of this installation holds its lock."""
        where = make_folder()
        lock = open(where / f"{key()}.lock", "a")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            return None
        return cls(lock, idle_seconds)

    def __init__(self, lock: Any, idle_seconds: float) -> None:
        self.lock = lock
        self.idle_seconds = idle_seconds
        _preload()
        self.files = watched_files()
        self.signature = signature(self.files)
        from ..cache import hold_code_digest

        hold_code_digest()   # after the signature: a file changed from now on makes stale() refuse commands
        self.path = socket_path()
        try:
            self.path.unlink()   # a socket left by a daemon that was killed: the lock is ours
        except FileNotFoundError:
            pass
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(self.path))
        os.chmod(self.path, 0o600)
        self.sock.listen(64)
        self.inode = os.stat(self.path).st_ino
        self.children: dict[int, socket.socket | None] = {}   # command's pid → its executable's connection
        self.started = time.time()
        self.commands = 0
        self.stopping = False

    def serve(self) -> None:
        """Accept commands until stopped, idle for too long, or stale."""
        def stop_now(_signum: int, _frame: object) -> None:
            self.stopping = True

        signal.signal(signal.SIGTERM, stop_now)
        signal.signal(signal.SIGINT, stop_now)
        last = time.monotonic()
        try:
            while not self.stopping:
                watched = [self.sock, *(c for c in self.children.values() if c is not None)]
                ready, _, _ = select.select(watched, [], [], 1.0)
                for ready_sock in ready:
                    if ready_sock is self.sock:
                        self._accept()
                        last = time.monotonic()
                    else:
                        self._gone(ready_sock)
                self._reap()
                if not self.children and time.monotonic() - last > self.idle_seconds:
                    break
        finally:
            self.close()

    def close(self) -> None:
        """Stop listening and give the socket's name back (if it is still this daemon's)."""
        try:
            if os.stat(self.path).st_ino == self.inode:
                self.path.unlink()
        except OSError:
            pass
        self.sock.close()
        self.lock.close()

    def status(self) -> dict[str, Any]:
        self._reap()   # a command that just ended is not running
        return {"pid": os.getpid(), "started": self.started, "commands": self.commands,
                "running": len(self.children), "idle_minutes": self.idle_seconds / 60, "socket": str(self.path)}

    def stale(self) -> str | None:
        """Why this daemon must not run a command: a file it watches changed, or the
        libraries installed beside it did."""
        now = signature(self.files)
        if now == self.signature:
            return None
        changed = next((f for f in self.files if now.get(f) != self.signature.get(f)), "an installed library")
        return f"{changed} changed since the daemon started"

    def _accept(self) -> None:
        conn, _ = self.sock.accept()
        fds: list[int] = []
        try:
            conn.settimeout(5.0)
            if not _same_user(conn):
                return
            channel = Channel(conn)
            message, fds = channel.receive(max_fds=3)
            if message is None:
                return
            if message.get("status"):
                channel.send(self.status())
            elif message.get("stop"):
                channel.send(self.status())
                self.stopping = True
            elif "run" in message:
                if self._fork(channel, message["run"], fds):
                    conn = None   # now the command's (closed in _reap)
        except (OSError, ProtocolError, ValueError):
            pass
        finally:
            for fd in fds:
                try:
                    os.close(fd)
                except OSError:
                    pass
            if conn is not None:
                conn.close()

    def _fork(self, channel: Channel, request: Any, fds: list[int]) -> bool:
        """Fork the command's process; whether it was forked (else the executable was told why not)."""
        why = _malformed(request, fds)
        stale = self.stale() if why is None else None
        why = why or stale or _limits_beyond_ours(request["limits"])
        if why is not None:
            channel.send({"refused": why})
            if stale:
                self.stopping = True   # a new daemon, started by the user, imports what is there now
            return False
        pid = os.fork()
        if pid == 0:
            _command(self, channel, request, fds)
        self.commands += 1
        self.children[pid] = channel.sock
        return True

    def _gone(self, conn: socket.socket) -> None:
        """An executable closed its connection before its command ended: hang up on the command."""
        for pid, c in self.children.items():
            if c is conn:
                try:
                    os.kill(pid, signal.SIGHUP)
                except OSError:
                    pass
                conn.close()
                self.children[pid] = None
                return

    def _reap(self) -> None:
        """Collect the commands that ended; tell the executable of one killed by a signal."""
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                self.children.clear()
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            if conn is None:
                continue
            if os.WIFSIGNALED(status):
                try:
                    conn.settimeout(1.0)
                    Channel(conn).send({"signal": os.WTERMSIG(status)})
                except OSError:
                    pass
            conn.close()


def _command(daemon: Daemon, channel: Channel, request: dict[str, Any], fds: list[int]) -> NoReturn:
    """The command's process: take the executable's place and run the command line. An
    exception that escapes the command prints its traceback and ends with status 1, as
    Python ends the executable."""
    code = 1
    try:
        daemon.sock.close()
        daemon.lock.close()
        for other in daemon.children.values():
            if other is not None:
                other.close()
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGCHLD):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        channel.sock.settimeout(None)
        try:
            _take_on(request)
        except (OSError, ValueError) as exc:
            channel.send({"refused": f"cannot take on the command's setting ({exc})"})
            os._exit(0)
        _use_streams(fds, request["streams"])
        try:
            channel.send({"pid": os.getpid()})
        except OSError:
            os._exit(0)   # the executable stopped waiting, and runs the command itself
        from ..cli import exit_code

        sys.argv = list(request["argv"])
        code = exit_code()
    except BaseException:
        try:
            import traceback

            traceback.print_exc()
            sys.stderr.flush()
        except BaseException:
            pass
    try:
        channel.send({"exit": code})
    finally:
        os._exit(code)


def _take_on(request: dict[str, Any]) -> None:
    """The executable's working folder, umask, resource limits, environment (and the locale
    and time zone it sets) and import path's first entry (its script's folder: what a module
    imported from there is found as), and its ``__main__``'s package (which click names
    the program by: ``cardgen`` or ``python -m cardgen``)."""
    import locale
    import resource

    os.chdir(request["cwd"])
    os.umask(request["umask"])
    for name, (soft, hard) in request["limits"].items():
        which = getattr(resource, name, None)
        if isinstance(which, int) and resource.getrlimit(which) != (soft, hard):
            resource.setrlimit(which, (soft, hard))
    os.environ.clear()
    os.environ.update(request["env"])
    try:
        locale.setlocale(locale.LC_CTYPE, "")
    except locale.Error:
        pass
    time.tzset()
    tempfile = sys.modules.get("tempfile")
    if tempfile is not None:
        tempfile.tempdir = None   # found again from the command's TMPDIR
    sys.path[0] = request["path0"]
    main_module = sys.modules.get("__main__")
    if main_module is not None:
        main_module.__package__ = request["main_package"]


def _use_streams(fds: list[int], streams: dict[str, dict[str, Any]]) -> None:
    """The executable's standard input, output and error, as Python had set them up there."""
    for number, fd in enumerate(fds):
        os.dup2(fd, number)
        os.close(fd)
    fds.clear()
    sys.stdin = sys.__stdin__ = _text_stream(0, "rb", streams["stdin"])
    sys.stdout = sys.__stdout__ = _text_stream(1, "wb", streams["stdout"])
    sys.stderr = sys.__stderr__ = _text_stream(2, "wb", streams["stderr"])


def _text_stream(fd: int, mode: str, spec: dict[str, Any]) -> io.TextIOWrapper:
    raw = io.FileIO(fd, mode, closefd=False)
    buffered = io.BufferedReader(raw) if mode == "rb" else io.BufferedWriter(raw)
    return io.TextIOWrapper(buffered, encoding=spec["encoding"], errors=spec["errors"],
                            line_buffering=bool(spec["line_buffering"]))


def _malformed(request: Any, fds: list[int]) -> str | None:
    """Why a run request cannot be taken as sent (None if it can)."""
    def strings(value: Any) -> bool:
        return isinstance(value, str)

    ok = (isinstance(request, dict) and len(fds) == 3
          and isinstance(request.get("argv"), list) and all(map(strings, request["argv"])) and request["argv"]
          and strings(request.get("cwd"))
          and isinstance(request.get("env"), dict) and all(strings(k) and strings(v) for k, v in request["env"].items())
          and isinstance(request.get("umask"), int)
          and strings(request.get("path0")) and (request.get("main_package") is None or strings(request["main_package"]))
          and isinstance(request.get("limits"), dict)
          and all(isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) for x in v)
                  for v in request["limits"].values())
          and isinstance(request.get("streams"), dict)
          and all(isinstance(request["streams"].get(s), dict) for s in ("stdin", "stdout", "stderr")))
    return None if ok else "a request the daemon does not understand"


def _limits_beyond_ours(limits: dict[str, list[int]]) -> str | None:
    """A process may lower its limits, not raise them: a command whose executable may use
    more than this daemon runs there."""
    import resource

    def above(a: int, b: int) -> bool:
        if b == resource.RLIM_INFINITY:
            return False
        return a == resource.RLIM_INFINITY or a > b

    for name, (soft, hard) in limits.items():
        which = getattr(resource, name, None)
        if isinstance(which, int) and above(hard, resource.getrlimit(which)[1]):
            return f"the command may use more than the daemon ({name})"
    return None


def _same_user(conn: socket.socket) -> bool:
    """The process at the other end is this user's (the folder already keeps others out)."""
    so_peercred = getattr(socket, "SO_PEERCRED", None)
    if so_peercred is None:
        return True
    _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, so_peercred, struct.calcsize("3i")))
    return uid == os.getuid()


def _preload() -> None:
    """Import what commands use, read the particle table the check gate reads (and work out the
    tables derived from all of it: :func:`cardgen.pdg.from_whole_table`) and the physics data
    every game reads (a command in a working folder that shows their places otherwise, such as
    the repository's, parses them again, from the machine's cache: see
    :func:`cardgen.loader.shipped_physics`), hash the files every game's fingerprint reads
    (:func:`_digest_shared_files`), open the bundled fonts by drawing with them
    (:func:`_warm_drawing`), and keep it all out of the garbage collector's way (a command's
    collections never walk it)."""
    for name in PRELOAD:
        importlib.import_module(name)
    from fontTools.ttLib import getTableModule

    for tag in FONT_TABLES:
        getTableModule(tag)
    from .. import loader, pdg
    from ..errors import CardgenError

    pdg.particles()
    pdg.work_out_tables()
    try:
        loader.shipped_physics()
    except (CardgenError, OSError):   # a broken file: each command reports it, as without the daemon
        pass
    _digest_shared_files()
    _warm_drawing()
    gc.collect()
    gc.freeze()


def _warm_drawing() -> None:
    """Lay out and draw a line of text in each weight of the bundled fonts as a face's text is
    drawn, and read that face back as the print stage reads one: the fonts' tables, HarfBuzz's
    faces, cairo, the glyph outlines and the fonts the print stage draws glyph forms from are
    then in every command's process, where a deck's first face read them all. A build's
    worker drew its first face in 28 ms against 11 ms for the next; after this, 17 ms
    (measured, Particle Builder). Only cardgen's own files are read, which the daemon watches
    (:func:`watched_files`)."""
    from ..draw import render_pdf
    from ..pdfdoc import relocatable
    from ..render import Face
    from ..text.engine import TextEngine
    from ..text.svg import place

    engine = TextEngine.default()
    texts = tuple(place(engine.layout("Aa0 αγΩ → ±½", size=3.0, width=40.0, weight=weight), 2.0, 4.0 + 5 * i,
                        "#1a1a1a") for i, weight in enumerate(engine.fonts.weights))
    body = ('<svg xmlns="http://www.w3.org/2000/svg" width="44mm" height="14mm" viewBox="0 0 44 14">'
            '<rect x="0" y="0" width="44" height="14" fill="#ffffff"/>'
            + "".join(f'<cg:glyphs xmlns:cg="urn:cardgen:glyphs" n="{i}"/>' for i in range(len(texts))) + "</svg>")
    relocatable("warm-up", render_pdf(Face("", "", "", "front", "en", body, texts, 44.0, 14.0)))


def _digest_shared_files() -> None:
    """Hash what every build's fingerprints read besides a game's own files: cardgen's files
    (code, fonts, declarations), the shared templates, the installed libraries and cairo's
    version. A digest is kept per process while the file's size, time and inode stay the same
    (:func:`cardgen.cache.file_digest`), so each command forked from here only looks at them:
    6 ms less before its first face, measured after a one-card edit."""
    from .. import cache

    cache.software_digest()
    for path in cache.files_under(cache.SHARED_TEMPLATES):
        cache.file_digest(path)


def watched_files() -> list[str]:
    """Every file the daemon imported and every file of the cardgen package (its code, fonts
    and declarations)."""
    from ..cache import PACKAGE, files_under

    files = {m.__file__ for m in list(sys.modules.values()) if isinstance(getattr(m, "__file__", None), str)}
    files.update(str(path) for path in files_under(PACKAGE, code=True))
    return sorted(files)


def signature(files: list[str]) -> dict[str, Any]:
    """Each file's size, times and inode, and the libraries installed (their folders' names)."""
    from ..installed import site_folders

    sig: dict[str, Any] = {}
    for f in files:
        try:
            st = os.stat(f)
            sig[f] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
        except OSError:
            sig[f] = None
    for site in site_folders():
        try:
            sig["site:" + site] = sorted(n for n in os.listdir(site) if n.endswith((".dist-info", ".egg-info", ".pth")))
        except OSError:
            sig["site:" + site] = None
    return sig
