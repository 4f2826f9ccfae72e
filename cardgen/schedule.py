"""Running a build's tasks on worker processes, keeping each game on one process where it can.

A process that renders its first card of a game first compiles that game's templates and
warms its text caches (50–170 ms per game, measured). Handing out chunks of every game to
whichever process is free made every process pay that for every game. Here each process
(a *lane*) is given whole groups — games — largest first onto the least-loaded lane, and
only takes work from another group once its own are done, stealing the costliest task of the
fullest lane (the farthest of equals). Follow-up tasks (imposing a component whose cards
are all rendered) run next on the lane that finished the component, so imposition overlaps
with rendering elsewhere; once nothing is left to render, an idle lane takes a follow-up
its busy lane has not started.
"""

from __future__ import annotations

import gc
import os
import sys
import traceback
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from . import interrupts
from .errors import CardgenError, InternalError, file_system_error

#: Tasks a lane may have queued in its process beyond the running one, so that it never
#: waits for the main process between two tasks of its own (while enough work is left for
#: the other lanes: see _may_queue_ahead).
_AHEAD = 1
#: How often threads take turns with the interpreter while a run hands tasks out (Python's
#: default is 5 ms). Handing a task to a worker takes the build's thread, the pool's manager
#: thread and its queue's feeder thread a moment each; beside a thread of rules (the check
#: gate on a thread, the legibility rules), each waited its turn: after a one-card edit a
#: deck's PDF reached its worker 22 ms after its faces were ready, 2 ms at this interval.
SWITCH_SECONDS = 0.0005


@dataclass(frozen=True)
class Task:
    """A call to run in a worker: ``fn(*args)``; ``group`` is the affinity, ``cost`` a
    relative estimate used to balance groups over lanes."""

    fn: Callable[..., Any]
    args: tuple[Any, ...]
    group: str = ""
    cost: float = 1.0
    tag: Any = field(default=None, compare=False)   # the caller's own bookkeeping


OnResult = Callable[[Task, Any], Iterable[Task]]


def run(tasks: list[Task], jobs: int, on_result: OnResult, *, mp_context: Any = None,
        initializer: Callable[..., None] | None = None, initargs: tuple[Any, ...] = (),
        on_started: Callable[[], Future[Any] | None] | None = None,
        on_wake: Callable[[], Iterable[Task]] | None = None, on_fed: Callable[[], None] | None = None) -> None:
    """Run ``tasks`` (and the follow-ups ``on_result`` returns for each finished task) on
    ``jobs`` processes, or in this process when ``jobs`` is 1. A task's exception stops the
    run and propagates; tasks not yet started are cancelled. Whatever a task raises reaches
    the caller as a :class:`CardgenError` (see :func:`call`), the same for every ``jobs``;
    an exception ``on_result`` raises stops the run too. ``on_started``: called once every
    worker process is running (none is started later, so a thread started then never meets
    a fork), with the first tasks handed out; not called for a run in this process. It may
    return a future of something the caller waits for besides the tasks: when that is done,
    ``on_wake`` says which tasks it lets run (each onto the least busy process) — without
    it, tasks held back for it waited until some task finished, however long after.
    ``on_fed``: called each time the tasks that are due have been handed out (here, after
    each task), for work the caller does in this process meanwhile: started from
    ``on_result``, a thread of it holds up the handing out of the tasks it returned."""
    # The objects that exist now (modules, loaded games) live through the run: the garbage
    # collector is told to leave them alone until it ends. Workers forked meanwhile inherit
    # that — Python's documented recipe for fork() — so their collections no longer walk
    # everything the main process had loaded (0.04–0.07 s per full collection, measured), and
    # neither do the main process's own while it gathers results.
    gc.freeze()
    switch = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_SECONDS)
    try:
        _run(tasks, jobs, on_result, mp_context, initializer, initargs, on_started, on_wake, on_fed or (lambda: None))
    finally:
        sys.setswitchinterval(switch)
        gc.unfreeze()


def _run(tasks: list[Task], jobs: int, on_result: OnResult, mp_context: Any,
         initializer: Callable[..., None] | None, initargs: tuple[Any, ...],
         on_started: Callable[[], Future[Any] | None] | None,
         on_wake: Callable[[], Iterable[Task]] | None, on_fed: Callable[[], None]) -> None:
    if jobs <= 1:
        _run_here(tasks, on_result, on_fed)
        return
    lanes = [_Lane(ProcessPoolExecutor(1, mp_context=mp_context, initializer=_start_worker,
                                       initargs=(initializer, *initargs)))
             for _ in range(jobs)]
    failed: _Failed | None = None
    finished: set[int] = set()   # id() of the tasks that ended without error
    try:
        _assign(tasks, lanes)
        running: dict[Future[Any], tuple[_Lane, Task]] = {}
        try:
            with interrupts.deferred():   # each pool forks its process on its first task
                for lane in lanes:
                    _feed(lane, lanes, running)
                if on_started is not None:
                    for lane in lanes:
                        if not lane.busy:
                            lane.pool.submit(int).result()
            wake = on_started() if on_started is not None else None
            on_fed()
            _drain(lanes, running, on_result, finished, on_fed, wake if on_wake is not None else None, on_wake)
        except _Failed as failure:
            failed = failure
        except BrokenProcessPool:
            failed = _Failed(None, InternalError("a build worker process ended abruptly (killed, or out of memory)",
                                                 None, "run the build again with --jobs 1 to see where it fails"))
    finally:
        # Queued tasks are cancelled, but a task already running is waited for, even after a
        # failure: it may be writing files the caller cleans up once this returns, and a
        # worker still writing after that clean-up would leave half a build behind.
        _shut_down([lane.pool for lane in lanes])
    if failed is not None:
        raise _first_error(tasks, failed, finished) from None


def _shut_down(pools: list[ProcessPoolExecutor]) -> None:
    """Shut the pools down together, each waiting for its process to end: 5–6 ms each after a
    build's last task (measured), so one after the other kept the files waiting twice as long."""
    import threading

    others = [threading.Thread(target=pool.shutdown, kwargs={"wait": True, "cancel_futures": True},
                               name="cardgen worker shutdown") for pool in pools[1:]]
    for thread in others:
        thread.start()
    pools[0].shutdown(wait=True, cancel_futures=True)
    for thread in others:
        thread.join()


class _Failed(Exception):
    """A task of a parallel run raised ``error`` (``task`` None: a worker died)."""

    def __init__(self, task: Task | None, error: BaseException) -> None:
        super().__init__(task, error)
        self.task, self.error = task, error


def _first_error(tasks: list[Task], failed: _Failed, finished: set[int]) -> BaseException:
    """The error a run on one process would have met first: that of the earliest task that
    fails. Processes finish tasks in no fixed order, so when several cards are broken the
    first to fail is a matter of timing; the tasks before the failed one that did not finish
    are run here, in order, until one fails. The same input then gives the same message for
    every number of jobs. (A worker that died is reported as such: nothing is run again.)"""
    if failed.task is None:
        return failed.error
    for task in tasks:
        if task is failed.task:
            break
        if id(task) not in finished:
            try:
                call(task.fn, *task.args)
            except CardgenError as error:
                return error
    return failed.error


def _drain(lanes: list[_Lane], running: dict[Future[Any], tuple[_Lane, Task]], on_result: OnResult,
           finished: set[int], on_fed: Callable[[], None], wake: Future[Any] | None = None,
           on_wake: Callable[[], Iterable[Task]] | None = None) -> None:
    while running:
        done, _ = wait([*running, wake] if wake is not None else running, return_when=FIRST_COMPLETED)
        for fut in done:
            if fut is wake:
                wake = None
                for woken in on_wake():   # type: ignore[misc]
                    min(lanes, key=lambda ln: ln.busy + len(ln.urgent)).urgent.append(woken)
                continue
            lane, task = running.pop(fut)
            lane.busy -= 1
            lane.running.remove(task)
            try:
                result = fut.result()
            except CardgenError as error:
                raise _Failed(task, error) from None
            finished.add(id(task))
            lane.urgent.extend(on_result(task, result))
        for lane in sorted(lanes, key=lambda ln: ln.busy):
            _feed(lane, lanes, running)
        on_fed()


def call(fn: Callable[..., Any], *args: Any) -> Any:
    """Run one task, turning an exception that is not a :class:`CardgenError` into an
    :class:`InternalError` right here. In a worker process that matters: an exception the
    main process cannot unpickle would otherwise break the whole pool and hide what failed."""
    try:
        return fn(*args)
    except CardgenError:
        raise
    except OSError as exc:
        raise file_system_error(exc) from None
    except MemoryError:
        raise InternalError("out of memory", None, "close other programs or build fewer games at once") from None
    except Exception as exc:  # noqa: BLE001 the boundary: everything else is a cardgen bug
        detail = "\n" + traceback.format_exc() if os.environ.get("CARDGEN_DEBUG") else ""
        raise InternalError(f"{type(exc).__name__}: {exc}{detail}") from None


def _run_here(tasks: list[Task], on_result: OnResult, on_fed: Callable[[], None]) -> None:
    queue = deque(tasks)
    on_fed()
    while queue:
        task = queue.popleft()
        queue.extendleft(reversed(list(on_result(task, call(task.fn, *task.args)))))
        on_fed()


class _Lane:
    """One worker process and the work promised to it."""

    def __init__(self, pool: ProcessPoolExecutor) -> None:
        self.pool = pool
        self.urgent: deque[Task] = deque()   # follow-ups: run before anything else
        self.own: deque[Task] = deque()      # its groups' tasks, in order
        self.busy = 0
        self.running: list[Task] = []         # handed to its process, not finished

    @property
    def load(self) -> float:
        return sum(t.cost for t in self.own)


def _start_worker(initializer: Callable[..., None] | None, *initargs: Any) -> None:
    """A worker's first act: leave Ctrl-C to the main process (:mod:`cardgen.interrupts`),
    which waits for the task running here before it cleans up; then the caller's initializer."""
    interrupts.child_ignores()
    if initializer is not None:
        initializer(*initargs)


def _assign(tasks: list[Task], lanes: list[_Lane]) -> None:
    """Whole groups onto lanes, largest group first onto the least-loaded lane (LPT)."""
    groups: dict[str, list[Task]] = {}
    for task in tasks:
        groups.setdefault(task.group, []).append(task)
    for members in sorted(groups.values(), key=lambda ms: -sum(t.cost for t in ms)):
        min(lanes, key=lambda ln: ln.load).own.extend(members)


def _may_queue_ahead(lane: _Lane, lanes: list[_Lane]) -> bool:
    """Whether a busy lane may have its next task queued in its process now.

    A task queued there can no longer be stolen. At the end of the default build that left
    one process drawing a rule sheet with the next one queued behind it while the other
    process sat idle for 0.2 s (measured); after a one-card edit, one process wrote the two
    PDFs that print the card, one after the other, while the other had finished (0.05 s).
    So the next task is queued ahead only while the work others may still take, besides it,
    is at least its cost: enough for a process that falls idle meanwhile. Otherwise it waits
    for whichever process is free first. And it would start only once the work already in
    the process is done: after a one-card edit, a piece of cached faces queued behind the
    deck's PDF (75 ms) kept the spare set's PDF waiting for both while the other process
    had finished (70 ms, measured). So the work left for others must also be at least what
    it would wait behind."""
    queue = lane.urgent or lane.own
    if not queue:
        return True
    waiting = sum(ln.load + sum(t.cost for t in ln.urgent) for ln in lanes)
    return waiting - queue[0].cost >= max(queue[0].cost, sum(t.cost for t in lane.running))


def _next(lane: _Lane, lanes: list[_Lane]) -> Task | None:
    if lane.urgent:
        return lane.urgent.popleft()
    if lane.own:
        return lane.own.popleft()
    if lane.busy:
        return None   # steal only when idle: the owner may still get to it first
    victim = max((ln for ln in lanes if ln.own), key=lambda ln: ln.load, default=None)
    if victim is None:
        # nothing left to render: a follow-up that waits for its busy lane (see _may_queue_ahead)
        donor = max((ln for ln in lanes if ln.urgent), key=lambda ln: len(ln.urgent), default=None)
        return donor.urgent.popleft() if donor is not None else None
    # its costliest task, the farthest of equals: the owner keeps the front of its queue, and
    # what is left at the end is the small work (a large component's last pieces are smaller,
    # see cardgen.build.plan.chunks), which both lanes finish together
    at = max(range(len(victim.own)), key=lambda i: (victim.own[i].cost, i))
    task = victim.own[at]
    del victim.own[at]
    return task


def _feed(lane: _Lane, lanes: list[_Lane], running: dict[Future[Any], tuple[_Lane, Task]]) -> None:
    while lane.busy <= _AHEAD:
        if lane.busy and not _may_queue_ahead(lane, lanes):
            return
        task = _next(lane, lanes)
        if task is None:
            return
        running[lane.pool.submit(call, task.fn, *task.args)] = (lane, task)
        lane.busy += 1
        lane.running.append(task)
