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
* **the check gate** runs in the build's own process, on a thread started once the workers
  are (:class:`Alongside`): the main process only hands out tasks meanwhile, and the gate's
  rules no longer keep the workers waiting.

A single process (``jobs`` 1, or little to render) runs the same tasks here, with the same
workbench.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .. import i18n, schedule
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
    """A function the build's process runs while its workers render — the check gate — on a
    thread of its own, or right away where there are no workers. What it raises is kept and
    raised again by :meth:`passed` and :meth:`wait`, in the build's thread."""

    def __init__(self, fn: Callable[[], None]) -> None:
        self._fn = fn
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self._done = False

    def start(self) -> None:
        """Run it on a thread (workers are running: no fork will follow)."""
        if self._thread is None and not self._done:
            self._thread = threading.Thread(target=self._run, name="cardgen check gate", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        try:
            self._fn()
        except BaseException as exc:  # noqa: BLE001 — raised again in the build's thread
            self._error = exc
        finally:
            self._done = True

    def passed(self) -> bool:
        """Whether it has returned; raises what it raised."""
        if self._error is not None:
            raise self._error
        return self._done

    def wait(self) -> None:
        """Until it has returned (run here and now if it never started); raises what it raised."""
        if self._thread is not None:
            self._thread.join()
        elif not self._done:
            self._run()
        self.passed()


def run(tasks: list[schedule.Task], faces_to_render: int, jobs: int, on_result: schedule.OnResult,
        games: dict[str, Game], lock_fd: int | None, alongside: Alongside | None = None) -> None:
    """Run a build's tasks (and their follow-ups) on up to ``jobs`` processes, and
    ``alongside`` in this process: on a thread once the workers run, or first when the tasks
    run here (it would only take turns with them)."""
    global _BENCH
    _BENCH = Workbench(dict(games))   # data may have changed since the last build in this process
    workers = jobs if faces_to_render >= MIN_FACES_FOR_WORKERS else 1
    ctx = context()
    if workers > 1 and ctx.get_start_method() == "fork":
        # imported once here, shared by every forked worker (each measures the faces it draws)
        from .. import draw, legibility, sheets  # noqa: F401
    if alongside is not None and workers <= 1:
        alongside.wait()
    schedule.run(tasks, workers, on_result, mp_context=ctx, initializer=_worker_init,
                 initargs=(lock_fd, _BENCH.games), on_started=alongside and alongside.start)


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
