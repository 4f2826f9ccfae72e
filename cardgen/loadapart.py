"""A large game read in a child process and handed back whole.

Why: reading a game leaves behind far more memory than the game itself. For a deck of
10,000 cards the YAML reader's node tree and the mappings built from it peak at about 60 MB
while the loaded game is some 16 MB of objects, and what is freed stays in the process: the
survivors (each card's values and source positions) are scattered over the allocator's
arenas among the freed nodes, so none can be given back. The build's process then holds
110 MB instead of 70 MB, and every worker forked from it counts those pages too.

So a game whose data files are large (:data:`APART_BYTES`) is read in a forked child, which
pickles it to a pipe and exits; this process unpickles it into fresh memory. The shared
physics (particles and colour charges, read once per process) is not copied: the child
names each shared object and the game handed back points at this process's very objects.
Costs: 0.2 s of unpickling here for 10,000 cards (the child's reading and pickling run
instead of the reading here, 1.4 s).

Either way the cycle collector is paused while a game is read and while it is unpickled
(:func:`_collector_paused`): reading builds hundreds of thousands of objects that all stay
alive, and the collector, run every few hundred of them and over every survivor as they
grow, took half of reading a 10,000-card deck (1.2 of 2.3 s, measured). Reading leaves
little or nothing for it to collect; what it may leave is collected once the pause ends.

The switch is :func:`load`. Anything unexpected — no ``fork`` on this system, other threads
running (a fork would copy their locks mid-use), a child that fails, or one that answers
more than a bounded reply — means the game is read here, as it always was: a file with a
mistake raises its usual error from that reading. ``tests/test_loadapart.py`` keeps the two
ways equal: every shipped game and a large deck, loaded apart and here, compare equal.
"""

from __future__ import annotations

import contextlib
import copyreg
import dataclasses
import gc
import io
import operator
import os
import pickle
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from . import interrupts
from .errors import Location
from .model import Card, Game
from .particles import ColourCharge, Particle, PhysicsData

#: Data files (YAML and spreadsheets) of at least this many bytes in all are read apart: a
#: 2,000-card deck. The shipped games are tens of kilobytes, read here in a few milliseconds.
APART_BYTES = 128 * 1024
#: Suffixes of the files a game's data is read from.
DATA_SUFFIXES = (".yaml", ".yml", ".csv", ".xlsx")
#: How deep, and how many entries, :func:`data_bytes` looks at in a game's folder.
WALK_DEPTH, WALK_ENTRIES = 3, 10_000
#: The child's reply may be this many times the data's size (a pickled game is about four
#: times its YAML), plus a little: more means something is wrong, and the game is read here.
REPLY_FACTOR, REPLY_SLACK = 32, 1 << 20


def data_bytes(folder: Path) -> int:
    """Bytes of the data files in a game's folder (not following links, bounded walk)."""
    total, seen = 0, 0
    stack = [(folder, 0)]
    while stack:
        here, depth = stack.pop()
        try:
            entries = list(os.scandir(here))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > WALK_ENTRIES:
                return total
            try:
                if entry.is_dir(follow_symlinks=False):
                    if depth < WALK_DEPTH:
                        stack.append((Path(entry.path), depth + 1))
                elif entry.is_file(follow_symlinks=False) and entry.name.lower().endswith(DATA_SUFFIXES):
                    total += entry.stat(follow_symlinks=False).st_size
            except OSError:
                continue
    return total


def load(read: Callable[[], Game], physics: PhysicsData, size: int) -> Game:
    """The game ``read`` returns: read in a child process when its data is ``size`` bytes
    or more and a child can be forked safely, else here."""
    with _collector_paused():
        if size < APART_BYTES or not hasattr(os, "fork") or _other_threads():
            return read()
        game = _read_apart(read, physics, REPLY_FACTOR * size + REPLY_SLACK)
        return game if game is not None else read()


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector off for the block (a forked child inherits it off), then
    back as it was. What the block allocates is bounded by the game's files, which are."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class _Pickler(pickle.Pickler):
    """Pickles a game with its shared physics named, not copied: a particle or colour
    charge of the shared physics is written as a lookup by id (types dispatched in C: a
    ``persistent_id`` called for each of a large deck's 400,000 objects would cost more
    than the pickling itself)."""

    def __init__(self, file: Any, physics: PhysicsData) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.dispatch_table = {
            **copyreg.dispatch_table,
            PhysicsData: lambda obj: self._named(obj, "physics", "", physics),
            Particle: lambda obj: self._named(obj, "particle", obj.id, physics.particles.get(obj.id)),
            ColourCharge: lambda obj: self._named(obj, "colour", obj.id, physics.colours.get(obj.id)),
            Location: _by_fields(Location),
            Card: _by_fields(Card),
        }

    def _named(self, obj: Any, kind: str, key: str, shared: Any) -> Any:
        if obj is shared:
            return _shared, (kind, key)
        return obj.__reduce_ex__(self.proto)   # not the shared one: copied as any object


def _by_fields(cls: type) -> Callable[[Any], tuple[type, tuple[Any, ...]]]:
    """A reducer writing an object of the dataclass ``cls`` as ``cls(*its fields)`` (every
    field an argument of its constructor, in order)."""
    names = [f.name for f in dataclasses.fields(cls)]
    values = operator.attrgetter(*names)
    return lambda obj: (cls, values(obj))


def _other_threads() -> bool:
    """Whether a thread besides this one runs (a fork would copy its locks as they are)."""
    return threading.active_count() > 1


def _shared(kind: str, key: str) -> Any:
    """Stands for a shared object in a pickle; :class:`_Unpickler` puts the object there."""
    raise pickle.UnpicklingError("a shared object is read only by cardgen.loadapart's unpickler")


class _Unpickler(pickle.Unpickler):
    """Reads what :class:`_Pickler` wrote, the named objects taken from ``physics``."""

    def __init__(self, file: Any, physics: PhysicsData) -> None:
        super().__init__(file)
        self.physics = physics

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == (__name__, "_shared"):
            return self._lookup
        return super().find_class(module, name)

    def _lookup(self, kind: str, key: str) -> Any:
        if kind == "physics":
            return self.physics
        return (self.physics.particles if kind == "particle" else self.physics.colours)[key]


def _read_apart(read: Callable[[], Game], physics: PhysicsData, limit: int) -> Game | None:
    """The game read and pickled by a forked child, or None if that did not work out."""
    rfd, wfd = os.pipe()
    with interrupts.deferred():
        pid = os.fork()
    if pid == 0:   # the child: read, pickle, leave without running anything of the parent's
        status = 1
        try:
            interrupts.child_ignores()   # the parent answers a Ctrl-C
            os.close(rfd)
            with os.fdopen(wfd, "wb") as out:
                _Pickler(out, physics).dump(read())
            status = 0
        finally:
            os._exit(status)
    os.close(wfd)
    try:
        with os.fdopen(rfd, "rb") as reply:
            data = reply.read(limit + 1)
    except BaseException:   # a Ctrl-C or SIGTERM, which the child leaves to this process
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    if len(data) > limit:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    if status != 0 or len(data) > limit:
        return None
    try:
        game = _Unpickler(io.BytesIO(data), physics).load()
    except Exception:  # noqa: BLE001 — any surprise: the game is read here instead
        return None
    return game if isinstance(game, Game) else None
