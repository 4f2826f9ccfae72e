"""Limits on what rendering one face may cost: time, output, loop work and string sizes.

A template is a program a game's author wrote, and a mistake in it (``{{ "a" * 10**9 }}``,
a loop over a billion numbers, a huge text) must end as a clear error naming the template
and the card, quickly, not as a frozen build. Each face is rendered under a
:class:`FaceBudget`:

* the sandbox (:class:`BudgetedEnvironment`) checks string and list sizes before ``*``, ``+``
  and ``**`` build them, refuses huge counts given to string methods and filters
  (``center(10**9)``), counts loop steps over ``range`` and the characters a template writes;
* every one of those checks also looks at the clock;
* a watchdog thread stops a render that runs past its time without passing any check (a
  tight loop), by raising :class:`BudgetExceeded` in the rendering thread (CPython's
  ``PyThreadState_SetAsyncExc``), which works in worker processes and preview threads alike.
"""

from __future__ import annotations

import abc
import contextvars
import ctypes
import functools
import math
import os
import re
import threading
import time
from collections.abc import Iterator
from typing import Any, Callable

from jinja2 import nodes
from jinja2.compiler import CodeGenerator
from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedEnvironment

#: Seconds one face may take to render (shipped faces take milliseconds).
FACE_SECONDS = 10.0
#: Characters a template may write for one face; embedded artwork (20 MiB at most, base64)
#: is the largest legitimate part.
MAX_OUTPUT_CHARS = 40_000_000
#: Characters a template may write for one face besides the artwork it embeds with image():
#: the largest shipped page writes about 400,000. Every character written costs ~50 bytes on
#: its way to a drawn face (the SVG, its parse, its digest): 40 million of a template's own
#: took 2 GB.
MAX_TEMPLATE_CHARS = 4_000_000
#: Length of one string or list built by an operator or a string method in a template.
MAX_STRING = 1_000_000
#: Steps over ``range`` in all loops of one face together.
MAX_LOOP_STEPS = 200_000
#: Largest integer an operator may produce, in bits (10**300 is about 1000 bits).
MAX_INT_BITS = 4096
#: Characters of text one face may shape (a card holds a few hundred).
MAX_TEXT_CHARS = 50_000
#: Attribute-safety answers one environment keeps (see :meth:`BudgetedEnvironment.is_safe_attribute`).
MAX_SAFE_ANSWERS = 4096

_CURRENT: contextvars.ContextVar[FaceBudget | None] = contextvars.ContextVar("cardgen_face_budget", default=None)


class BudgetExceeded(Exception):
    """A face went over one of its limits; :attr:`FaceBudget.reason` says which and how to fix it."""


class FaceBudget:
    """What one face has spent so far, and its limits (time from when it is entered)."""

    def __init__(self, seconds: float | None = None, watched: bool = True) -> None:
        self.seconds = FACE_SECONDS if seconds is None else seconds
        #: stopped by the watchdog thread at its deadline (a template's render); otherwise only
        #: where the work calls check_time (drawing: between elements, never inside one of
        #: cairo's callbacks, where an exception would be lost)
        self.watched = watched
        self.deadline = 0.0
        self.steps = 0
        self.output = 0
        self.artwork = 0   # characters of artwork image() embedded (see spend_artwork)
        self.text = 0
        self.reason = ""
        self.fix = ""
        self.out_of_time = False   # stopped by its time limit (see timed_out)
        self._token: contextvars.Token[FaceBudget | None] | None = None

    def __enter__(self) -> FaceBudget:
        self.deadline = time.monotonic() + self.seconds
        self._token = _CURRENT.set(self)
        if self.watched:
            _WATCHDOG.watch(self)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.watched:
            _WATCHDOG.release(self)
        if self._token is not None:
            _CURRENT.reset(self._token)

    def exceeded(self, reason: str, fix: str) -> BudgetExceeded:
        self.reason, self.fix = reason, fix
        return BudgetExceeded(reason)

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise self.timed_out()

    def timed_out(self) -> BudgetExceeded:
        self.out_of_time = True
        return self.exceeded(f"rendering took longer than {self.seconds:g} s, the limit for one face",
                             "look for a loop that runs far more often than intended")

    def spend_steps(self, n: int = 1) -> None:
        self.steps += n
        if self.steps > MAX_LOOP_STEPS:
            raise self.exceeded(f"the loops ran more than {MAX_LOOP_STEPS:,} steps, the limit for one face",
                                "loop over fewer items")
        if not self.steps & 1023:
            self.check_time()

    def spend_output(self, n: int) -> None:
        self.output += n
        if self.output > MAX_OUTPUT_CHARS:
            raise self.exceeded(f"the template wrote more than {MAX_OUTPUT_CHARS:,} characters, the limit for "
                                "one face", "write less: repeat shapes with <use> or a pattern instead")
        if self.output - self.artwork > MAX_TEMPLATE_CHARS:
            raise self.exceeded(f"the template wrote more than {MAX_TEMPLATE_CHARS:,} characters besides its artwork, "
                                "the limit for one face", "write less: repeat shapes with <use> or a pattern instead")
        self.check_time()

    def spend_artwork(self, n: int) -> None:
        """Artwork image() embeds: it may take the face's output up to MAX_OUTPUT_CHARS."""
        self.artwork = min(self.artwork + n, MAX_OUTPUT_CHARS)

    def spend_text(self, n: int) -> None:
        self.text += n
        if self.text > MAX_TEXT_CHARS:
            raise self.exceeded(f"the face draws more than {MAX_TEXT_CHARS:,} characters of text, the limit for "
                                "one face", "shorten the text")
        self.check_time()


def current() -> FaceBudget | None:
    """The budget of the face being rendered in this thread, if any."""
    return _CURRENT.get()


def _check_length(n: int, what: str) -> None:
    if n > MAX_STRING:
        budget = current()
        reason = f"{what} would be {n:,} long; one string or list may have at most {MAX_STRING:,} items"
        fix = "build smaller strings and lists"
        raise budget.exceeded(reason, fix) if budget else BudgetExceeded(reason)


def _sized(value: Any) -> bool:
    return isinstance(value, (str, list, tuple, bytes))


def _check_binop(operator: str, left: Any, right: Any) -> None:
    budget = current()
    if budget is not None:
        budget.check_time()
    if operator == "*":
        for seq, n in ((left, right), (right, left)):
            if _sized(seq) and isinstance(n, int):
                _check_length(len(seq) * max(n, 0), f"'{type(seq).__name__} * {n}'")
        if _whole(left) and _whole(right):   # a product has about as many bits as its factors together
            _check_bits(abs(left).bit_length() + abs(right).bit_length(), "the product", budget)
    elif operator == "+" and _sized(left) and _sized(right):
        _check_length(len(left) + len(right), "the sum")
    elif operator == "%" and isinstance(left, str):
        _check_widths(left, "the '%' formatting")
        _check_length(len(left) + text_size(right), "the '%' formatting")
    elif operator == "**" and _whole(left) and _whole(right) and right > 0 and abs(left) > 1:
        # log2 |left| × right: 2 ** 2100 has 2,101 bits (bit_length × right counted 4,200)
        _check_bits(math.floor(right * math.log2(abs(left))) + 1, f"{left} ** {right}", budget)


def text_size(value: Any, depth: int = 0) -> int:
    """About how many characters ``value`` becomes as text (``str()``, JSON, formatting):
    counted before it is made, from what it holds (each item of a list as often as it is
    listed: a list of one long string repeated 300 times formats to 300 times its length)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, (bytes, bytearray)):
        return 4 * len(value)
    if depth > 8:
        return 0
    if isinstance(value, (list, tuple, set, frozenset)):
        return 2 + sum(text_size(v, depth + 1) + 2 for v in value)
    if isinstance(value, dict):
        return 2 + sum(text_size(k, depth + 1) + text_size(v, depth + 1) + 4 for k, v in value.items())
    return 24   # a number, a boolean, None, an object's short repr


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_bits(bits: int, what: str, budget: FaceBudget | None) -> None:
    if bits > MAX_INT_BITS:
        reason = f"{what} is a number of about {bits:,} bits; the limit is {MAX_INT_BITS:,}"
        raise budget.exceeded(reason, "use smaller numbers") if budget else BudgetExceeded(reason)


_NUMBER = re.compile(r"\d+")


def _check_widths(template: str, what: str) -> None:
    """A format string ('%1000000000d', '{:>1000000000}') names its field widths as numbers:
    none may exceed what one string may hold."""
    for digits in _NUMBER.findall(template):
        if len(digits) > 7:   # a quick look first: only long runs of digits can be too large
            _check_length(int(digits), f"{what} of {template[:30]!r}")


def _check_counts(args: tuple[Any, ...], kwargs: dict[str, Any], what: str) -> None:
    for value in (*args, *kwargs.values()):
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_STRING:
            _check_length(abs(value), what)


class _CountedRange:
    """``range`` for templates: the sandbox's size limit, and every step counted in the budget."""

    def __init__(self, *args: int) -> None:
        self._range = range(*args)
        if len(self._range) > MAX_LOOP_STEPS:
            _check_steps_now(len(self._range))

    def __iter__(self) -> Iterator[int]:
        return _counted(self._range)

    def __len__(self) -> int:
        return len(self._range)

    def __getitem__(self, index: Any) -> Any:
        return self._range[index]

    def __contains__(self, value: object) -> bool:
        return value in self._range

    def __reversed__(self) -> Iterator[int]:
        return _counted(reversed(self._range))

    def __repr__(self) -> str:
        return repr(self._range)


def _counted(numbers: Iterator[int] | range) -> Iterator[int]:
    budget = current()
    for value in numbers:
        if budget is not None:
            budget.spend_steps()
        yield value


def _check_steps_now(n: int) -> None:
    budget = current()
    reason = f"range of {n:,} numbers is more than the {MAX_LOOP_STEPS:,} loop steps one face may take"
    raise budget.exceeded(reason, "loop over fewer numbers") if budget else BudgetExceeded(reason)


class _CountedConcat(CodeGenerator):
    """Jinja's code generator, with every ``a ~ b`` (Jinja's concatenation, compiled to a join
    rather than an operator the sandbox intercepts) handed to
    :meth:`BudgetedEnvironment.concatenated`: a string doubled with ``~`` forty times took 12 GB
    before the face's clock stopped it."""

    def visit_Concat(self, node: nodes.Concat, frame: Any) -> None:
        self.write("environment.concatenated(")
        super().visit_Concat(node, frame)
        self.write(")")


class BudgetedEnvironment(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox, with every operator, call and filter that can build a large
    object checked against the face's budget first."""

    intercepted_binops = frozenset(["*", "+", "**", "%"])
    code_generator_class = _CountedConcat

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.globals["range"] = _CountedRange
        self.filters = Guarded(self.filters, _guarded_filter)
        self._safe: dict[tuple[type, str], bool] = {}
        self._safe_token = abc.get_cache_token()

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        """Jinja's answer (not private, not internal, not a method that changes a list, dict
        or set), kept by the object's type and the attribute's name, which are all it depends
        on: a template reads some 40 attributes a face, each answered by a dozen ``isinstance``
        tests against abstract classes, and a deck's faces read the same ones (a QCD card's
        template renders in 0.93–0.96 of the CPU time, in alternation). Asked afresh for an
        object that claims another class than its type (``isinstance`` looks at both), and all
        forgotten once any abstract class gains a member (the ABC cache token, as
        ``functools.singledispatch`` uses it); at most MAX_SAFE_ANSWERS are kept (a template may
        name attributes it computes)."""
        kind = type(obj)
        try:
            claimed = obj.__class__
        except Exception:  # noqa: BLE001 — a class that cannot say: Jinja's own tests decide
            claimed = None
        if claimed is not kind:
            return super().is_safe_attribute(obj, attr, value)
        token = abc.get_cache_token()
        if token != self._safe_token:
            self._safe.clear()
            self._safe_token = token
        key = (kind, attr)
        safe = self._safe.get(key)
        if safe is None:
            safe = super().is_safe_attribute(obj, attr, value)
            if len(self._safe) < MAX_SAFE_ANSWERS:
                self._safe[key] = safe
        return safe

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        _check_binop(operator, left, right)
        return super().call_binop(context, operator, left, right)

    def concatenated(self, joined: str) -> str:
        """A ``~`` join, refused once it is longer than one string may be (checked when made:
        each join at most doubles what was allowed, so memory stays within twice the limit)."""
        _check_length(len(joined), "the text joined with '~'")
        return joined

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 as Jinja's
        # (the sandbox hands out str.format wrapped: the string is on the wrapped method)
        owner = getattr(getattr(__obj, "__wrapped__", __obj), "__self__", None)
        if isinstance(owner, (str, list, tuple, bytes)):
            name = getattr(__obj, "__name__", "")
            _check_counts(args, kwargs, f"the result of {name or 'a method'}()")
            if isinstance(owner, str) and name in ("format", "format_map"):
                _check_widths(owner, "the format")
                _check_length(len(owner) + text_size(args) + text_size(kwargs), "the result of format()")
            if isinstance(owner, str):
                _check_length(_grown(owner, name, args, kwargs), f"the result of {name}()")
        budget = current()
        if budget is not None:
            budget.check_time()
        result = SandboxedEnvironment.call(__self, __context, __obj, *args, **kwargs)
        if isinstance(owner, (str, list, tuple, bytes)):   # a string's or list's method: what it made
            _made(result, lambda: len(owner), f"the result of {getattr(__obj, '__name__', '') or 'a method'}()")
        return result



def _grown(s: str, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    """The length a string method's result would have, where it can grow past the string's
    own by its arguments (tabs expanded, a separator repeated, a text replaced): counted
    before the method runs, which would take the memory first (0 for any other method)."""
    try:
        if name == "expandtabs":
            size = args[0] if args else kwargs.get("tabsize", 8)
            return len(s) + s.count("\t") * max(int(size), 0)
        if name == "join" and args and isinstance(args[0], (str, list, tuple)):
            items = args[0]
            return len(s) * max(len(items) - 1, 0) + sum(len(x) for x in items if isinstance(x, str))
        if name == "replace" and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
            old, new = args[0], args[1]
            count = s.count(old) if old else len(s) + 1
            if len(args) > 2 and _whole(args[2]) and args[2] >= 0:
                count = min(count, args[2])
            return len(s) + count * (len(new) - len(old))
    except (TypeError, ValueError, OverflowError):
        return 0   # arguments the method itself refuses
    return 0


class Guarded(dict):
    """An environment's filters or tests by name, each function (also those added later) kept
    as ``guard(name, fn)`` makes it: here the filters, refusing a huge count first
    (``"x"|center(10**9)``, ``indent(width=10**9)``); :mod:`cardgen.render`'s tests, refusing
    an undefined value."""

    def __init__(self, entries: dict[str, Any], guard: Callable[[str, Any], Any]) -> None:
        super().__init__()
        self.guard = guard
        self.update(entries)

    def __setitem__(self, name: str, fn: Any) -> None:
        super().__setitem__(name, self.guard(name, fn))

    def update(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        for name, fn in dict(*args, **kwargs).items():
            self[name] = fn


def _guarded_filter(name: str, fn: Any) -> Any:
    skip = 2 if getattr(fn, "jinja_pass_arg", None) else 1   # (context,) value: not counts

    @functools.wraps(fn)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        _check_counts(args[skip:], kwargs, f"the result of the filter '{name}'")
        if name == "join" and len(args) > skip - 1 and isinstance(args[skip - 1], (list, tuple)):
            sep = args[skip] if len(args) > skip else kwargs.get("d", "")
            if isinstance(sep, str):   # the separator repeated between the items
                _check_length(_grown(sep, "join", (args[skip - 1],), {}), "the result of the filter 'join'")
        if name == "format" and len(args) >= skip and isinstance(args[skip - 1], str):
            _check_widths(args[skip - 1], "the filter 'format'")
            _check_length(len(args[skip - 1]) + text_size(args[skip:]) + text_size(kwargs),
                          "the result of the filter 'format'")
        if name == "replace" and len(args) >= skip + 2 and isinstance(args[skip - 1], str):   # s|replace(old, new)
            _check_length(_grown(args[skip - 1], "replace", tuple(args[skip:]), kwargs) or len(args[skip - 1]),
                          "the result of the filter 'replace'")
        if name in ("string", "tojson", "pprint", "urlize", "escape", "e", "forceescape") and len(args) >= skip:
            _check_length(text_size(args[skip - 1]), f"the result of the filter '{name}'")
        if name == "join" and len(args) >= skip and not isinstance(args[skip - 1], (str, list, tuple, dict)):
            args = (*args[:skip - 1], _bounded_items(args[skip - 1], "the result of the filter 'join'"),
                    *args[skip:])
        if name == "indent" and len(args) >= skip and isinstance(args[skip - 1], str):   # the width on every line
            width = args[skip] if len(args) > skip else kwargs.get("width", 4)
            pad = len(width) if isinstance(width, str) else width if _whole(width) else 0
            text = args[skip - 1]
            _check_length(len(text) + max(pad, 0) * (text.count("\n") + 1), "the result of the filter 'indent'")
        result = fn(*args, **kwargs)
        if len(args) >= skip:
            _made(result, lambda: text_size(args[skip - 1]), f"the result of the filter '{name}'")
        return result
    return guarded


def _made(value: Any, given: Callable[[], int], what: str) -> None:
    """Refuse a result that grew past what one string or list may hold from a value of
    ``given()`` characters (what could not be counted before it was made; a value passed on
    unchanged or shortened — an artwork's data through ``safe`` — is not a growth). The
    value's size is counted only for a result past the limit: the rare case."""
    if isinstance(value, (str, list, tuple)) and len(value) > MAX_STRING and len(value) > given():
        _check_length(len(value), what)


def _bounded_items(items: Any, what: str) -> list[Any]:
    """The items of an iterator (a ``map`` or ``select`` a filter joins), taken one by one and
    refused once their text passes what one string may hold: an iterator has no length to
    count first."""
    taken: list[Any] = []
    size = 0
    for item in items:
        size += text_size(item)
        _check_length(size, what)
        taken.append(item)
    return taken


def render_within(template: Any, context: dict[str, Any], budget: FaceBudget) -> str:
    """Render ``template`` piece by piece, counting what it writes against ``budget``."""
    parts = []
    for piece in template.generate(context):
        budget.spend_output(len(piece))
        parts.append(piece)
    return "".join(parts)


class _Watchdog:
    """One thread per process that stops renders running past their deadline.

    A render is stopped by raising :class:`BudgetExceeded` in its thread at its next Python
    instruction; registration and the stop happen under one lock, so a render that has
    already finished is never hit (see :meth:`release`)."""

    def __init__(self) -> None:
        self._reset()
        # a process forked while the watchdog held its lock would inherit it held, by a thread
        # the child does not have: the child starts afresh (its own watchdog on first use)
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._watched: dict[FaceBudget, int] = {}
        self._pid = 0
        self._wakes_at = float("-inf")   # when the thread's wait ends (-inf: it is not waiting)
        self._latest = float("-inf")     # the latest deadline of any render watched

    def watch(self, budget: FaceBudget) -> None:
        with self._lock:
            if self._pid != os.getpid():   # first use in this process (a forked worker starts without it)
                self._pid = os.getpid()
                self._watched.clear()
                threading.Thread(target=self._run, name="cardgen-render-watchdog", daemon=True).start()
            self._watched[budget] = threading.get_ident()
            self._latest = max(self._latest, budget.deadline)
            if budget.deadline < self._wakes_at:   # else the thread wakes in time anyway
                self._wakes_at = float("-inf")     # it wakes now, and looks at every render
                self._wake.notify()

    def release(self, budget: FaceBudget) -> None:
        with self._lock:
            fired = self._watched.pop(budget, None) is None
        if fired:   # stopped just as it finished: take back the exception not yet raised
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(threading.get_ident()), None)

    def _run(self) -> None:
        pid = os.getpid()
        with self._lock:
            while self._pid == pid:
                now = time.monotonic()
                for budget, thread in list(self._watched.items()):
                    if budget.deadline <= now:
                        del self._watched[budget]
                        budget.timed_out()
                        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread),
                                                                   ctypes.py_object(BudgetExceeded))
                # until the soonest deadline; with no render watched, the latest one a render
                # had (the next render's comes after it, and need not wake the thread: a
                # large deck's every face did, a thread switch each)
                idle = self._latest if self._latest > now else now + 60
                soonest = min((b.deadline for b in self._watched), default=idle)
                self._wakes_at = max(soonest, now + 0.01)
                self._wake.wait(self._wakes_at - now)
                self._wakes_at = float("-inf")


_WATCHDOG = _Watchdog()
