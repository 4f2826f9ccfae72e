"""The processes a build runs on, and every choice about them in one place.

* **fork** where the system has it: workers start at once, with cardgen, the games and the
  drawing libraries already in memory (:func:`context`);
* **preload** the drawing libraries before forking, as gunicorn's ``preload_app`` does, so
  they are imported once and their pages shared (:func:`run`);
* **garbage collector**: :func:`cardgen.schedule.run` freezes what exists before the fork
  (Python's recipe for fork), so no collection in a worker walks the loaded games;
* **compression**: none of its own — a worker draws faces exactly as the build's process
  does (cairo compresses them; the print stage compresses them again at its own level, see
  :func:`cardgen.draw.render_pdf`), so a file never depends on which process drew a face;
* **the games** reach each worker as an argument of its initializer — inherited, not
  pickled, under fork — and are held by a :class:`Workbench`, which also keeps one renderer
  per game and language so a worker compiles each template once;
* **the check gate** runs while the workers render (:class:`Alongside`): in a child forked
  as soon as the games are read, where there is a second core, so the rules use that core
  while the build's process plans and starts its workers; otherwise on a thread of the
  build's process once the workers are started. Either way the gate's rules no longer keep
  the workers waiting.

A single process (``jobs`` 1, or little to render) runs the same tasks here, with the same
workbench.
"""

from __future__ import annotations

import gc
import os
import select
import signal
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .. import i18n, interrupts, schedule
from ..cache import cache_file
from ..model import Game
from ..render import Renderer

#: Worker processes pay off only when at least this many faces must really be rendered.
MIN_FACES_FOR_WORKERS = 8


@dataclass
class Workbench:
    """What rendering and imposing tasks read in the process they run in: the build's games
    by data folder (a task names its game by that folder), and a renderer per game and
    language, made on first use."""

    games: dict[str, Game] = field(default_factory=dict)
    renderers: dict[tuple[str, str], tuple[Game, i18n.Translator | None, Renderer]] = field(default_factory=dict)

    def game(self, ref: str) -> Game:
        return self.games[ref]

    def renderer(self, ref: str, lang: str, cache_root: Path | None) -> tuple[Game, i18n.Translator | None, Renderer]:
        """The game, its translator and a renderer for ``lang``, made once per process."""
        key = (ref, lang)
        if key not in self.renderers:
            game = self.game(ref)
            tr = i18n.translator(game, lang)
            self.renderers[key] = (game, tr, Renderer(game, lang, translate=tr,
                                                      bytecode_db=cache_root and cache_file(cache_root)))
        return self.renderers[key]


#: The workbench of this process: set by :func:`run` in the build's process, and by
#: :func:`_worker_init` in each worker (from its initializer's argument).
_BENCH = Workbench()


def bench() -> Workbench:
    """This process's workbench (tasks call it; see :func:`run`)."""
    return _BENCH


class Alongside:
    """A function the build's process needs done while its workers render — the check gate.
    What it raises is raised again by :meth:`passed` and :meth:`wait`, in the build's thread.

    Where the system forks and has a second core, :meth:`fork` runs it in a child process from
    the moment the games are read: the build's process then plans, imports the drawing
    libraries and starts its workers — one core's work — while the other core runs the rules,
    instead of running them on a thread of the build's process once the workers have started
    (after a one-card edit the gate ended last, and the files waited for it). The child only
    says whether it passed; when it did not — findings, an error, a child lost — the function
    runs here, so what it raises is raised exactly as before. Without :meth:`fork` it runs on
    a thread once the workers run (:meth:`start`), or here and now (:meth:`wait`)."""

    def __init__(self, fn: Callable[[], None]) -> None:
        self._fn = fn
        self._thread: threading.Thread | None = None
        self._child: tuple[int, int] | None = None   # the forked child's pid and the read end of its pipe
        self._error: BaseException | None = None
        self._done = False

    @property
    def forked(self) -> bool:
        """Whether it runs in a child process (see :meth:`fork`) that has not yet answered."""
        return self._child is not None

    def fork(self) -> None:
        """Run it in a forked child from now on, where the system forks and this process may
        use a second core (otherwise nothing happens: see :meth:`start` and :meth:`wait`)."""
        from ..forkpair import can_fork, cores

        if self._child or self._thread or self._done or len(cores()) < 2 or not can_fork():
            return
        read, write = os.pipe()
        with interrupts.deferred():
            pid = os.fork()
        if pid == 0:   # the child: run, answer one byte, leave without running the parent's exit handlers
            os.close(read)
            passed = False
            try:
                interrupts.child_ignores()   # the build's process answers a Ctrl-C
                gc.freeze()   # the collector leaves the inherited games alone (shared pages stay shared)
                _die_with_parent()
                self._fn()
                passed = True
            except BaseException:  # noqa: BLE001 — the build's process runs it again to raise it
                pass
            finally:
                try:
                    os.write(write, b"1" if passed else b"0")
                finally:
                    os._exit(0)
        os.close(write)
        self._child = (pid, read)

    def start(self) -> Future[None] | None:
        """Run it on a thread (workers are running: no fork will follow), unless a child runs it:
        then watch the child on a thread, and return a future done once it has answered (the
        build releases what waited for the gate then, not when some task next finishes: after
        a one-card edit the rules passed while both workers were busy for 35 ms more, and the
        deck's PDF, whose faces were ready, waited for them)."""
        if self._child is not None:
            answered: Future[None] = Future()
            threading.Thread(target=self._watch, args=(self._child[1], answered), name="cardgen check gate answer",
                             daemon=True).start()
            return answered
        if self._thread is None and not self._done:
            self._thread = threading.Thread(target=self._run, name="cardgen check gate", daemon=True)
            self._thread.start()
        return None

    def _watch(self, read: int, answered: Future[None]) -> None:
        """Until the child's answer can be read (it is read by :meth:`passed`, in the build's
        thread) or the build took it already; polled, as the build's thread closes the pipe."""
        try:
            while self._child is not None and self._child[1] == read and not select.select([read], [], [], 0.05)[0]:
                pass
        except (OSError, ValueError):   # closed meanwhile: the build's thread has the answer
            pass
        answered.set_result(None)

    def _run(self) -> None:
        try:
            self._fn()
        except BaseException as exc:  # noqa: BLE001 — raised again in the build's thread
            self._error = exc
        finally:
            self._done = True

    def _answer(self, block: bool) -> bool:
        """Take the child's answer (waiting for it when ``block``); False while it has none."""
        assert self._child is not None
        pid, read = self._child
        if not block and not select.select([read], [], [], 0)[0]:
            return False
        try:
            answer = os.read(read, 1)
        except OSError:
            answer = b""
        os.close(read)
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        self._child = None
        if answer == b"1":
            self._done = True
        else:
            self._run()   # findings, an error, or a child that died: here, to raise what it raises
        return True

    def passed(self) -> bool:
        """Whether it has returned; raises what it raised."""
        if self._child is not None and not self._answer(block=False):
            return False
        if self._error is not None:
            raise self._error
        return self._done

    def wait(self) -> None:
        """Until it has returned (run here and now if it never started); raises what it raised."""
        if self._child is not None:
            self._answer(block=True)
        elif self._thread is not None:
            self._thread.join()
        elif not self._done:
            self._run()
        self.passed()

    def close(self) -> None:
        """Stop and reap a child that is still running (the build ended another way)."""
        if self._child is None:
            return
        pid, read = self._child
        self._child = None
        os.close(read)
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


def run(tasks: list[schedule.Task], faces_to_render: int, jobs: int, on_result: schedule.OnResult,
        games: dict[str, Game], lock_fd: int | None, alongside: Alongside | None = None,
        on_passed: Callable[[], list[schedule.Task]] | None = None, on_fed: Callable[[], None] | None = None) -> None:
    """Run a build's tasks (and their follow-ups) on up to ``jobs`` processes, and
    ``alongside`` in this process: on a thread once the workers run, or first when the tasks
    run here (it would only take turns with them). ``on_passed``: the tasks to run once a
    child running ``alongside`` has answered (see :meth:`Alongside.start`); ``on_fed``: see
    :func:`cardgen.schedule.run`."""
    global _BENCH
    _BENCH = Workbench(dict(games))   # data may have changed since the last build in this process
    workers = jobs if faces_to_render >= MIN_FACES_FOR_WORKERS else 1
    ctx = context()
    if workers > 1 and ctx.get_start_method() == "fork":
        # imported once here, shared by every forked worker (each measures the faces it draws)
        from .. import draw, legibility, sheets  # noqa: F401
    if alongside is not None and workers <= 1 and not alongside.forked:
        alongside.wait()   # on a thread it would only take turns with the tasks
    schedule.run(tasks, workers, on_result, mp_context=ctx, initializer=_worker_init,
                 initargs=(lock_fd, _BENCH.games), on_started=alongside and alongside.start, on_wake=on_passed,
                 on_fed=on_fed)


def _worker_init(lock_fd: int | None, games: dict[str, Game]) -> None:
    """In each worker: take the build's games, let go of the build lock the fork handed down
    (only the main process holds it), die with the main process — a killed build must not
    leave workers that keep the output folder locked. Faces are drawn here exactly as in
    the calling process (cairo compresses them; see :mod:`cardgen.draw`)."""
    global _BENCH
    _BENCH = Workbench(games)
    if lock_fd is not None:
        try:
            os.close(lock_fd)
        except OSError:
            pass
    _die_with_parent()


def _die_with_parent() -> None:
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG (Linux); harmless elsewhere
        if os.getppid() == 1:           # the parent died before prctl took effect
            os._exit(1)
    except (OSError, AttributeError):
        pass


def context() -> Any:
    """Fork where available: workers start instantly with cardgen and the games already loaded."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else methods[0])
