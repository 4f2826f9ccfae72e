"""Independent pieces of a check shared between this process and one forked worker.

A check's work per game — its rules, several of which render and measure every face, and its
render pass — depends on no other game, and on a machine with a second core most of it can run
there. A pool of fresh processes would repeat the imports and the loading this process has
already done; a forked worker starts with all of it, takes the next item from a shared counter
(the costliest first) as this process does, and hands back only results.

An item whose work raises a :class:`~cardgen.errors.CardgenError`, in either process, has no
result, nor has any item the worker took if it fails otherwise: the caller does those again
here, in order, so an error is raised exactly as doing the items one after the other raises
it, and never shows as a worker's traceback.
"""

from __future__ import annotations

import os
from typing import Callable, Iterable, Iterator, Sequence, TypeVar

from . import interrupts
from .errors import CardgenError

T = TypeVar("T")
R = TypeVar("R")


def each(items: Sequence[T], work: Callable[[T], R], cost: Callable[[T], float],
         before_fork: Callable[[], None] = lambda: None) -> list[R | None]:
    """``work(item)`` for every item, results in the items' order; None for an item whose work
    raised a :class:`~cardgen.errors.CardgenError` (the caller does it again where its error
    is to be raised) or that the worker took and could not finish.

    With two items or more, a second core and ``fork``, a forked worker shares the items
    (:func:`share`), the costliest first; otherwise they are done here one after the other.
    ``before_fork`` does once, before forking, what both processes would otherwise each do."""
    if len(items) < 2 or len(cores()) < 2 or not can_fork():
        done = _each_passing(items, range(len(items)), work)
    else:
        before_fork()
        done = share(items, sorted(range(len(items)), key=lambda i: -cost(items[i])), work)
    return [done.get(i) for i in range(len(items))]


def cores() -> set[int]:
    """The cores this process may run on."""
    return os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set(range(os.cpu_count() or 1))


def can_fork() -> bool:
    """Fork is available, and this process may start one (a daemonic worker may not)."""
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods() and not multiprocessing.current_process().daemon


def share(items: Sequence[T], order: list[int], work: Callable[[T], R]) -> dict[int, R]:
    """Do ``items`` (by index, in ``order``) in this process and one forked worker, each taking
    the next index from a shared counter; the results of the items that raised nothing (see :func:`each`)."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    taken = context.Value("i", 0)
    reader, writer = context.Pipe(duplex=False)

    def next_items() -> Iterator[int]:
        while True:
            with taken.get_lock():
                n = taken.value
                taken.value += 1
            if n >= len(order):
                return
            yield order[n]

    def in_worker() -> None:
        interrupts.child_ignores()   # the caller's process answers a Ctrl-C
        try:
            done = _each_passing(items, next_items(), work)
        except BaseException:
            done = {}
        try:
            writer.send(done)
        except Exception:
            writer.send({})

    worker = context.Process(target=in_worker, daemon=True)
    with interrupts.deferred():
        worker.start()
    writer.close()
    try:
        mine = _each_passing(items, next_items(), work)
        try:
            theirs = reader.recv()
        except (EOFError, OSError):
            theirs = {}
        worker.join()
    finally:
        if worker.is_alive():
            worker.kill()
            worker.join()
        reader.close()
    return {**theirs, **mine}


def _each_passing(items: Sequence[T], indices: Iterable[int], work: Callable[[T], R]) -> dict[int, R]:
    """The items (by index) whose work raised no :class:`~cardgen.errors.CardgenError`."""
    done: dict[int, R] = {}
    for i in indices:
        try:
            done[i] = work(items[i])
        except CardgenError:
            continue
    return done
