"""Ctrl-C and SIGTERM: held back where one must not land (a fork, pikepdf's start, the swap of a
run's folders), the parent's alone in forked children, and kept where Python would drop them.

A Ctrl-C reaches every process of the terminal's group at once (as a SIGTERM does from a
service manager stopping a group), and Python raises it wherever the process happens to be.
Around a fork that is nowhere good: raised in the parent inside an at-fork handler (the
logging module's ``_releaseLock``), Python prints "Exception ignored" and drops it — the build
then ran on to its end and exited 0; raised in a new worker before it has set itself up, it
printed a traceback of the worker's start ("Exception in initializer"), and a check gate's
child that failed that way made the parent run the rules again half-imported (an "unknown
rule" error, exit 2, for a Ctrl-C).

So every fork cardgen makes runs inside :func:`deferred`: a signal that comes meanwhile is
noted, not raised, and raised in the parent once the fork has returned (the child inherits the
noting handler, so it cannot be hit either). A forked child then ignores both for good
(:func:`child_ignores`): the parent, which got the same signal, decides — it waits for running
work, discards what was staged and stops its children — so the command ends the one way a
Ctrl-C ends it (exit 130, or 143 for SIGTERM; outputs from before unchanged), whichever
process was where. A worker that ended on SIGTERM by itself could end halfway through handing
back a result, and the parent, waiting for the rest of it, waited for ever.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from contextlib import contextmanager
from typing import Any, Iterator


@contextmanager
def deferred() -> Iterator[None]:
    """Run the block with Ctrl-C and SIGTERM held back; one that came meanwhile is raised when
    the block ends, in the process that entered it (a forked child never raises it here).
    Only the main thread can change signal handlers, and only there does Python raise them:
    elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    pid = os.getpid()
    previous = {signum: signal.signal(signum, lambda got, _frame: caught.append(got))
                for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        if os.getpid() == pid:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            for signum in dict.fromkeys(caught):   # each once, in the order they came
                handler = previous[signum]
                if callable(handler):
                    handler(signum, None)   # Python's default handler raises KeyboardInterrupt
                elif handler == signal.SIG_DFL:
                    signal.raise_signal(signum)


class Terminated(BaseException):
    """SIGTERM, raised in the command's own process so that it ends as Ctrl-C does: what it
    had staged discarded, the output folder's lock released (not an Exception: no handler of
    ordinary errors may take it for one)."""


#: Ctrl-Cs and SIGTERMs Python could not raise where they landed, noted by :func:`not_dropped`.
_DROPPED: list[BaseException] = []


@contextmanager
def not_dropped() -> Iterator[None]:
    """Run the block (a command) keeping the Ctrl-C or SIGTERM that Python cannot raise where
    it lands: in code Python calls from C without a caller to raise to — importlib's module
    lock callback, a finaliser — it prints "Exception ignored" and drops it, and a build went
    on to write everything and exit 0. Such a signal is noted instead of printed, and
    :func:`raise_dropped` raises it where the command must not go on without it."""
    previous = sys.unraisablehook

    def note(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, (KeyboardInterrupt, Terminated)):
            _DROPPED.append(unraisable.exc_value)
        else:
            previous(unraisable)

    _DROPPED.clear()
    sys.unraisablehook = note
    try:
        yield
    finally:
        sys.unraisablehook = previous
        _DROPPED.clear()


def raise_dropped() -> None:
    """Raise the first Ctrl-C or SIGTERM :func:`not_dropped` kept, if any: before a build swaps
    in its outputs, and when a command ends."""
    if _DROPPED:
        raise _DROPPED.pop(0).with_traceback(None)


#: What a command stopped by a signal before it swapped in any output says of its outputs.
UNCHANGED = "outputs from before this run are unchanged"


def child_ignores() -> None:
    """In a process cardgen forked: Ctrl-C and SIGTERM are left to the parent (see the
    module's docstring), which stops this process when it ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
