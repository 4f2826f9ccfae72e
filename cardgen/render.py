"""Stage 3 of the pipeline: render each card face from its Jinja2 SVG template.

Templates are sandboxed (no Python internals, no file access beyond the game's template
folders), undefined names are errors (a misspelt field cannot print an empty card) and output
is XML-escaped (a ``<`` or ``&`` in data cannot break or inject SVG). Text never goes out as
``<text>``: :func:`text` shapes it with the text engine and emits glyph outlines, defined once
per face in ``<defs>``.

Template coordinates are millimetres with the origin at the card's trim top-left corner; the
bleed extends to negative coordinates and past the trim size.

Why one module of ~700 lines: the sandboxed environment, the compiled-template cache, the
helpers templates call (``text``, ``symbol``, ``image``) and the error translation all work on
the same Jinja environment and per-face watch; split apart, each would reach into the others'
internals. What a language means for a face lives in :mod:`cardgen.locale`.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import linecache
import math
import os
import re
import traceback
import unicodedata
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from types import CodeType
from typing import Any, Callable, Iterable, Iterator

import jinja2
from markupsafe import Markup, escape

from ._callable import make_callable
from . import format as fmt
from . import images
from . import templatetrees
from .artwork import TEMPLATE_HELPERS
from .budget import BudgetedEnvironment, BudgetExceeded, FaceBudget, Guarded, current, render_within
from .errors import CardgenError, Location, did_you_mean, display_path
from .loader import SHARED_TEMPLATES
from .locale import RTL, Locale
from .model import Card, Component, Game, Table
from .particles import Symbol
from .places import template_view
from .readability import unmistakable_greek
from .setmark import SetMark
from .store import open_store
from .tables import Record
from .templatecache import MachineTemplates
from .templatefiles import MAX_TEMPLATE_BYTES, template_bytes, template_file, within
from .text import GlyphRegistry, TextEngine
from .text.svg import PlacedText

DEFS_MARKER = "<!--cardgen:defs-->"
RTL_LANGS = RTL   # the rule sheets lay out right to left for these too
#: Positions and sizes a template may pass to text(), symbol() and image(), in mm: far beyond
#: any sheet, yet small enough that every number stays exact and drawable.
MAX_COORDINATE_MM = 10_000.0
#: The narrowest a character can be, in em; a text longer than its box could hold at this
#: width is reported as overflowing without laying it out (long text fails fast).
_NARROWEST_EM = 0.15
#: A DTD or entity declaration in a face (an XML external entity could read local files).
_DECLARATION = re.compile(r"<!(DOCTYPE|ENTITY)", re.I)
#: An element drawing something from outside the face (a file, a URL): cairosvg, in its safe
#: mode, draws nothing for it, so the face would print without it.
_OUTSIDE = re.compile(r"""<(image|use|feImage)\b[^>]*?\bhref\s*=\s*["'](?!#|data:)([^"']*)""", re.I)
#: An image the face embeds (what image() writes, or a template's own): held to artwork's limits.
_EMBEDDED = re.compile(r"""\bhref\s*=\s*(["'])\s*(data:[^"']*)""", re.I)


class TemplateError(CardgenError):
    """A template failed to compile or render; names the template line and the card."""


def _checked(helper: Callable[..., Any]) -> Callable[..., Any]:
    """A drawing helper whose numbers are checked like :func:`_coordinates` first (arguments
    that do not fit it are the template environment's to explain: see :func:`_misfit`)."""
    signature = inspect.signature(helper)   # once: working it out took longer than the check
    params = signature.parameters.values()
    positional = tuple(p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD)
    required = frozenset(p.name for p in params if p.default is p.empty)
    plain = all(p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in params)

    @functools.wraps(helper)
    def checked(*args: Any, **kwargs: Any) -> Any:
        # the arguments by name as Signature.bind names them, without it for a call that plainly
        # fits (binding was a twentieth of a face's templating); any other call is bound, and
        # one that does not fit raises bind's TypeError, which the environment explains
        numbers = dict(zip(positional, args)) if plain and len(args) <= len(positional) else None
        if numbers is None or any(k in numbers or k not in signature.parameters for k in kwargs) \
                or not required.issubset(numbers.keys() | kwargs.keys()):
            numbers = signature.bind(*args, **kwargs).arguments
        elif kwargs:   # in the parameters' order, as bind gives them: the first bad one is reported
            numbers.update(kwargs)
            numbers = {name: numbers[name] for name in signature.parameters if name in numbers}
        _coordinates(**{k: v for k, v in numbers.items() if isinstance(v, (int, float)) and not isinstance(v, bool)})
        return helper(*args, **kwargs)
    return checked


def _coordinates(**values: Any) -> None:
    """Positions and sizes given to a drawing helper must be finite numbers of sensible size
    (``size=1e308`` would reach the PDF writer as a matrix it cannot invert)."""
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TemplateError(f"{name} must be a number of millimetres, got {value!r}", None,
                                f"pass a number as {name}")
        if not math.isfinite(value) or abs(value) > MAX_COORDINATE_MM:
            raise TemplateError(f"{name}={value!r} is out of range: positions and sizes are millimetres, "
                                f"at most {MAX_COORDINATE_MM:g} from the card's corner", None,
                                f"give {name} in millimetres")


#: The artwork helpers templates call (feynman, polar...), their numbers checked first.
_HELPERS = {name: _checked(fn) for name, fn in TEMPLATE_HELPERS.items()}


@dataclass(frozen=True)
class TextIssue:
    """Text that did not fit its box even at the minimum size, was shrunk, or had characters
    no bundled font covers. Reported by game, card, field and language."""

    game: str
    component: str
    card: str
    side: str
    field: str
    lang: str
    text: str
    kind: str  # "overflow" | "missing-glyphs" | "low-resolution" (artwork, see images.print_resolution)
    detail: str

    def __str__(self) -> str:
        return (f"{self.game}/{self.component}/{self.card} ({self.side}, {self.lang}) field '{self.field}': "
                f"{self.kind}: {self.detail} — {self.text!r}")


def said_once(issues: Iterable[TextIssue]) -> list[TextIssue]:
    """Each issue once, in the order met; an image printed too coarsely once for every card
    that shows it the same way (a back shared by a whole deck is one image to replace)."""
    seen: set[tuple[str, str, str, str]] = set()
    out = []
    for issue in dict.fromkeys(issues):
        if issue.kind == "low-resolution":
            key = (issue.component, issue.side, issue.text, issue.detail)
            if key in seen:
                continue
            seen.add(key)
        out.append(issue)
    return out


@dataclass(frozen=True)
class Face:
    """One rendered card side, sized to the bleed box.

    ``body`` is the template's SVG with each text standing as a placeholder for one entry
    of ``texts`` (glyph placements): the print path draws those straight from the fonts
    (see :mod:`cardgen.draw`), and :attr:`svg` writes them out as outlines only for those
    who want the SVG document itself.
    """

    game: str
    component: str
    card: str
    side: str
    lang: str
    body: str
    texts: tuple[PlacedText, ...]
    width: float   # bleed box, mm
    height: float
    inline_glyphs: bool = True
    template: str = ""   # the side's template file, as messages show it (a face that cannot be drawn names it)
    #: Files the template read of its own accord (artwork placed with ``image(...)``), each as
    #: (the name the template gave, the file it named): what the face's cache entry must be
    #: checked against besides its key — the name may name another file now (see cardgen.cache).
    reads: tuple[tuple[str, Path], ...] = ()

    @cached_property
    def svg(self) -> str:
        """The complete, self-contained SVG document (glyph outlines inline, or in ``<defs>``)."""
        reg = GlyphRegistry(inline=self.inline_glyphs)
        body = reg.expand(self.body, self.texts)
        return body.replace(DEFS_MARKER, reg.defs(), 1)

    @cached_property
    def key(self) -> str:
        """Content hash: identical faces (a shared back) share one key and are drawn once."""
        h = hashlib.sha256(self.body.encode("utf-8"))
        for placed in self.texts:
            h.update(b"\0" + placed.digest_parts().encode("utf-8"))
        return h.hexdigest()[:20]


class _TableView:
    """What templates see of a table: ``rows`` and ``by_id``; records rows become mappings."""

    def __init__(self, table: Table) -> None:
        self.id, self.kind, self.title, self.note = table.id, table.kind, table.title, table.note
        self.rows = [dict(id=r.id, **r.values) if isinstance(r, Record) else r for r in table.rows]
        self.by_id = {(r["id"] if isinstance(r, dict) else getattr(r, "id", None)): r for r in self.rows}


class _ComponentView:
    """Geometry templates need, in mm (read-only)."""

    def __init__(self, comp: Component) -> None:
        self.id, self.name, self.kind = comp.id, comp.name, comp.kind
        self.width, self.height, self.bleed, self.safe = comp.width, comp.height, comp.bleed, comp.safe
        self.shape = comp.shape.type
        self.cut_path = comp.shape.cut_path(comp.width, comp.height)
        self.total = comp.total


class _ContainedLoader(jinja2.FileSystemLoader):
    """A template loader that refuses files reached through a symbolic link pointing outside
    the template folders (Jinja already refuses '..' in template names), files larger than
    :data:`MAX_TEMPLATE_BYTES` and text that is not UTF-8 (at its line and column). Jinja's
    own lookup, otherwise: the first search path holding a regular file of that name."""

    def __init__(self, searchpath: list[str]) -> None:
        super().__init__(searchpath)
        self._resolved: list[Path] | None = None

    def _roots(self) -> list[Path]:
        """The template folders, each resolved once (every template load checks against them)."""
        if self._resolved is None:
            self._resolved = [Path(p).resolve() for p in self.searchpath]
        return self._resolved

    def get_source(self, environment: jinja2.Environment, template: str):  # type: ignore[override]
        filename = template_file(self.searchpath, template)
        if not within(filename, self._roots()):
            raise TemplateError(f"template '{template}' leaves the template folder (through a symbolic link)",
                                Location(display_path(filename)), "copy the template into the game's templates folder")
        data = template_bytes(filename)
        if data is None:
            raise TemplateError(f"template '{template}' is larger than {MAX_TEMPLATE_BYTES >> 20} MiB",
                                Location(display_path(filename)),
                                "a template draws one face: move long content into the game's data files")
        try:
            source = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise TemplateError(f"template '{template}' is not UTF-8 text: byte 0x{data[exc.start]:02x} cannot be "
                                f"read", Location.of_byte(display_path(filename), data, exc.start),
                                "save the template as UTF-8 (the encoding every text editor offers)") from None
        mtime = os.path.getmtime(filename)

        def uptodate() -> bool:
            try:
                return os.path.getmtime(filename) == mtime
            except OSError:
                return False

        return source, os.path.normpath(filename), uptodate


def _template_location(exc: BaseException, fallback: str) -> Location:
    """Jinja rewrites tracebacks so template frames carry the template file and line. For
    runaway recursion the line to show is the one that recurs most (the call of a macro to
    itself, the include of a template in itself), not wherever the stack happened to end."""
    if isinstance(exc, jinja2.TemplateSyntaxError) and exc.filename:
        return Location(display_path(exc.filename), exc.lineno or 0, 1)
    frames = [(f.filename, f.lineno or 0) for f in traceback.extract_tb(exc.__traceback__) if f.filename.endswith(".j2")]
    if isinstance(exc, RecursionError) and frames:
        counts = Counter(frames)
        most = max(counts.values())

        def rank(frame: tuple[str, int]) -> tuple[bool, int, int]:
            # of the lines that recur (about) as often as any, an include or import is the cause;
            # the 'extends' line and the base frame's block recur with it but only carry it along
            text = linecache.getline(frame[0], frame[1])
            cause = 2 if re.search(r"\b(include|import)\b", text) else 0 if "extends" in text else 1
            return counts[frame] >= 0.9 * most, cause, counts[frame]
        filename, line = max(reversed(frames), key=rank)
        return Location(display_path(filename), line, 1)
    if frames:
        return Location(display_path(frames[-1][0]), frames[-1][1], 1)
    return Location(fallback)


class CompiledTemplates(jinja2.BytecodeCache):
    """Compiled templates shared by every :class:`Renderer` of a process — the shared frame
    and macros are compiled once, not once per game — and, given a cache file (a caller
    that caches), kept for the next run: once per machine, in the user's cache folder
    (:mod:`cardgen.templatecache`), so that a build into a new folder compiles nothing the
    machine compiled before. Each is checked against its template's source, so an edited
    template is compiled afresh.

    A template compiled afresh is kept in the cache file too, for where the user's cache
    folder cannot be written or has let it go (it is bounded). The cache file keeps not
    Jinja's bytecode (marshalled code behind a pickled checksum, which Jinja unpickles and
    unmarshals before checking anything) but the Python source Jinja generates, as text,
    with its checksum in JSON: a third of the bytes, and Python compiles it in a quarter of
    the time Jinja takes to parse and generate it (measured on the shipped templates). Both are code, so both hand out only entries this user's key
    authenticates (see :mod:`cardgen.store`): a file written by anyone else is compiled
    afresh, never run."""

    def __init__(self, db: Path | None = None, machine: MachineTemplates | None = None) -> None:
        self._code: dict[str, tuple[str, CodeType]] = {}   # bucket key → (source checksum, code)
        self._db = db
        self._machine = machine
        #: Python source Jinja generated, by the code compiled from it (see _Environment)
        self.generated: dict[CodeType, str] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        entry = self._code.get(bucket.key)
        if (entry is None or entry[0] != bucket.checksum) and self._machine is not None:
            code = self._machine.get(bucket.key, bucket.checksum)
            if code is not None:
                entry = self._code[bucket.key] = (bucket.checksum, code)
        if entry is None and self._db is not None:
            entry = self._stored(bucket.key)
        if entry is not None and entry[0] == bucket.checksum:
            bucket.code = entry[1]

    def _stored(self, key: str) -> tuple[str, CodeType] | None:
        stored = open_store(self._db).get("templates", key)   # authenticated: foreign code never runs
        if stored is None:
            return None
        try:
            meta = json.loads(stored[0])
            entry = self._code[key] = (str(meta["checksum"]), compile(stored[1].decode("utf-8"), meta["filename"], "exec"))
        except (ValueError, KeyError, TypeError, SyntaxError):
            return None
        return entry

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = bucket.code
        self._code[bucket.key] = (bucket.checksum, code)
        source = self.generated.pop(code, None)
        if self._machine is not None:
            self._machine.put(bucket.key, bucket.checksum, code)
        if self._db is not None and source is not None:
            meta = json.dumps({"checksum": bucket.checksum, "filename": code.co_filename})
            open_store(self._db).put("templates", [(bucket.key, meta, source.encode("utf-8"))])


class _Environment(BudgetedEnvironment):
    """The sandbox, parsing each template source once per process (:mod:`cardgen.templatetrees`)
    and noting the Python source it compiles each template from, for
    :class:`CompiledTemplates` to keep (``_compile`` is Jinja's documented hook for this);
    its tests are strict about undefined values (:func:`_strict_test`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tests = Guarded(self.tests, _strict_test)

    def _parse(self, source: str, name: str | None, filename: str | None) -> jinja2.nodes.Template:
        return templatetrees.parse(self, source, name, filename)   # the checker's rules read the same trees

    def _compile(self, source: str, filename: str) -> CodeType:
        code = super()._compile(source, filename)
        if isinstance(self.bytecode_cache, CompiledTemplates):
            self.bytecode_cache.generated[code] = source
        return code

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 as Jinja's
        """A call a template makes; one whose arguments do not fit the helper or macro called
        (``text(..., sise=5)``) is an error that says so in the template's words — its name,
        the argument meant, the arguments it takes — not Python's about a nested function."""
        try:
            return super().call(__context, __obj, *args, **kwargs)
        except TypeError as exc:
            # (Jinja's own context arguments, which its Context.call takes away, are not the template's)
            misfit = _misfit(__obj, args, {k: v for k, v in kwargs.items() if k not in ("_block_vars", "_loop_vars")})
            if misfit is None:
                raise
            raise TemplateError(*misfit) from exc


#: The tests that ask whether a value is there at all: the only ones given an undefined value.
_EXISTENCE_TESTS = frozenset({"defined", "undefined"})


def _strict_test(name: str, test: Callable[..., Any]) -> Callable[..., Any]:
    """The environment's test ``name``, refusing an undefined value unless it is ``defined``
    or ``undefined``, which ask for one. Jinja's strict undefined refuses to be printed,
    compared or looped over, but a test looks only at what it is given: a template's
    ``{% if card.titel is not none %}`` was true on every card, and each printed without what
    the test was meant to keep out. Now it is the undefined error, with its did-you-mean
    ("'title'?")."""
    if name in _EXISTENCE_TESTS:
        return test

    @functools.wraps(test)   # (Jinja's pass_environment mark, copied, still reaches the test)
    def strict(*args: Any, **kwargs: Any) -> Any:
        for value in (*args, *kwargs.values()):
            if isinstance(value, jinja2.Undefined):
                value._fail_with_undefined_error()
        return test(*args, **kwargs)
    return strict


def _misfit(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[str, None, str] | None:
    """Why the arguments do not fit ``fn`` — a template helper, or a macro — as an error's
    message, location (None: the template's line, filled in by the renderer) and fix; None
    when they fit (the call failed inside it) or ``fn`` is something else."""
    if isinstance(fn, jinja2.runtime.Macro):
        name, accepted = fn.name, list(fn.arguments)
        unknown = [k for k in kwargs if k not in accepted] if not fn.catch_kwargs else []
        if not unknown:
            return None
        return (f"macro '{name}' takes no argument '{unknown[0]}'{did_you_mean(unknown[0], accepted)}", None,
                f"its arguments: {', '.join(accepted)}")
    if not inspect.isfunction(fn) or not fn.__module__.startswith("cardgen."):
        return None
    signature = inspect.signature(fn)
    taken = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
    shown = ", ".join(p.name if p.default is p.empty else f"{p.name}={p.default!r}" for p in taken)
    fix = f"call it as {fn.__name__}({shown})"
    named = {p.name for p in taken if p.kind is not p.POSITIONAL_ONLY}
    unknown = [k for k in kwargs if k not in named] if len(taken) == len(signature.parameters) else []
    if unknown:   # a misspelt name first: Python would complain of the argument it then lacks
        return f"{fn.__name__}() takes no argument '{unknown[0]}'{did_you_mean(unknown[0], named)}", None, fix
    try:
        signature.bind(*args, **kwargs)
    except TypeError as exc:
        return f"{fn.__name__}(): {exc}", None, fix
    return None


_COMPILED: dict[Path | None, CompiledTemplates] = {}


def compiled_templates(db: Path | None = None) -> CompiledTemplates:
    """This process's compiled templates; with ``db`` (the caller caches: not ``--no-cache``)
    kept for later runs, in the machine's template cache or else the SQLite file ``db``."""
    if db not in _COMPILED:
        _COMPILED[db] = CompiledTemplates(db, MachineTemplates() if db is not None else None)
    return _COMPILED[db]


#: Where a render's :class:`_Watch` sits in the template context: not a name a template can write.
_WATCH = "card watch"


@dataclass
class _Watch:
    """What one render did that a copy of its result for another card must do again."""

    read_card: bool = False                                  # the template looked ``card`` up
    translated: list[tuple[str, str | None]] = field(default_factory=list)
    told: list[tuple[Any, ...]] = field(default_factory=list)   # on_text calls
    read: list[tuple[str, Path]] = field(default_factory=list)   # files image() embedded, by the name given


class _WatchingContext(jinja2.runtime.Context):
    """A template context that notes when the card (or its places) is looked up — by the template, a
    template it extends, or a module imported with context (their contexts are built from
    this one's variables, watch included). Jinja documents ``resolve_or_missing`` as the
    one lookup every other goes through."""

    def resolve_or_missing(self, key: str) -> Any:
        if key in ("card", "places"):   # places may differ per card (a target's areas)
            watch = self.parent.get(_WATCH)
            if watch is not None:
                watch.read_card = True
        return super().resolve_or_missing(key)


class _SuggestingUndefined(jinja2.StrictUndefined):
    """Jinja's strict undefined, whose error names the closest name the object has: a
    template that reads ``card.particel`` or calls ``m.panle`` is told "did you mean
    'particle'?" and "'panel'?", as a misspelt key in the data is. (Overrides Jinja's
    ``_undefined_message``: jinja2 is bounded below 3.2 in pyproject.toml.)"""

    __slots__ = ()

    @property
    def _undefined_message(self) -> str:
        message = super()._undefined_message
        name, obj = self._undefined_name, self._undefined_obj
        if self._undefined_hint or obj is jinja2.utils.missing or not isinstance(name, str):
            return message
        try:
            names = [str(k) for k in obj.keys()] if hasattr(obj, "keys") else [n for n in dir(obj) if n[:1] != "_"]
        except Exception:  # noqa: BLE001 — an object that cannot list its names gets Jinja's message alone
            return message
        return message + did_you_mean(name, names)


#: Jinja's words for a filter or test the environment does not have.
_UNKNOWN_NAMED = re.compile(r"No (filter|test) named '([^']*)'(?: found)?\.?")


def _infinite(exc: BaseException) -> bool:
    """Jinja writes a number too large for a float (1e999) as the name 'inf'."""
    return "'inf'" in str(exc) or "'nan'" in str(exc)


_Say = Callable[[Any, FaceBudget, str], str]

#: What rendering a template can raise, in the order it is recognised: the message of the
#: TemplateError it becomes (given the exception, the face's budget and which card and side
#: was rendering) and its fix.
_FAILURES: tuple[tuple[type | tuple[type, ...], _Say, _Say], ...] = (
    (BudgetExceeded, lambda _e, budget, what: f"{budget.reason or budget.timed_out().args[0]} (rendering {what})",
     lambda _e, budget, _w: budget.fix),
    (RecursionError, lambda _e, _b, what: f"templates nest too deeply (rendering {what}): a macro that calls itself, "
                                          "or a template that includes or extends itself?",
     lambda _e, _b, _w: "make sure every macro and include ends"),
    (MemoryError, lambda _e, _b, what: f"rendering ran out of memory (rendering {what})",
     lambda _e, _b, _w: "build smaller strings and lists"),
    (jinja2.TemplateError, lambda e, _b, what: f"{e.message or type(e).__name__} (rendering {what})",
     lambda e, _b, _w: ("fix the name at this line, or add the field the card lacks"
                        if isinstance(e, jinja2.UndefinedError) else
                        "fix the template's syntax at this line: every {% tag %} complete and closed"
                        if isinstance(e, jinja2.TemplateSyntaxError) else "fix the template at this line")),
    (NameError, lambda e, _b, what: ("a number in the template is too large: it became infinity" if _infinite(e)
                                     else str(e)) + f" (rendering {what})",
     lambda e, _b, _w: "write numbers of sensible size" if _infinite(e) else "fix the expression at this line"),
    ((TypeError, ValueError, AttributeError, KeyError, IndexError, ZeroDivisionError, OverflowError),
     lambda e, _b, what: f"{type(e).__name__}: {e} (rendering {what})", lambda _e, _b, _w: "fix the expression at this line"),
)


@dataclass(frozen=True)
class Rendered:
    """One face and what rendering it reported: text that overflowed or had characters no
    font covers, unbounded text boxes and their line counts (``wraps``: component, card,
    side, field, lines: a translation that wraps onto more lines than English may run into
    what is drawn below it, see :mod:`cardgen.fitcheck`), and the strings the translator had
    no translation for (msgid, context). Returned by :meth:`Renderer.face`, so a caller keeps
    what belongs to each face without clearing shared state between faces."""

    face: Face
    issues: tuple[TextIssue, ...] = ()
    wraps: tuple[tuple[str, str, str, str, int], ...] = ()
    missing: tuple[tuple[str, str], ...] = ()


@dataclass
class _Report:
    """What the face being rendered reported so far (see :class:`Rendered`)."""

    issues: list[TextIssue] = field(default_factory=list)
    wraps: list[tuple[str, str, str, str, int]] = field(default_factory=list)
    missing: dict[tuple[str, str], None] = field(default_factory=dict)


@dataclass(frozen=True)
class _Shared:
    """A face rendered without looking at its card, as every card of the component gets it,
    with what rendering it reported (issues and wraps are relabelled for each card)."""

    face: Face
    issues: tuple[TextIssue, ...]
    wraps: tuple[tuple[str, str, str, str, int], ...]
    watch: _Watch


@dataclass(repr=False)
class Renderer:
    """Renders every face of one game in one language.

    ``translate(msgid, context)`` maps a source string to the language's string (identity for
    English); it is applied to translatable text fields and available to templates as ``_``.
    ``on_text(text, width, height, size, min_size)`` is told about every string drawn (the
    catalog extractor uses it to tell translators how much room each string has).

    :meth:`face` returns each face with what its rendering reported (a :class:`Rendered`):
    nothing is collected on the renderer, so a caller that renders a whole deck gathers the
    reports it wants from the results, in its own order.
    """

    game: Game
    lang: str = "en"
    translate: Callable[[str, str | None], str] | None = None
    on_text: Callable[[str, float | None, float | None, float, float | None], None] | None = None
    engine: TextEngine = field(default_factory=TextEngine.default)
    #: Cache file (SQLite) that keeps compiled templates between runs (saves ~20 ms per
    #: template per run); within a process they are always shared (see :class:`CompiledTemplates`).
    bytecode_db: Path | None = None
    inline_glyphs: bool = True   # see cardgen.text.svg: faster to rasterise; False = <defs> + <use>

    def __repr__(self) -> str:  # short: it can end up inside template error messages
        return f"<Renderer {self.game.id} {self.lang}>"

    def __post_init__(self) -> None:
        if self.game.fonts and self.engine is TextEngine.default():
            self.engine = TextEngine.with_fonts(self.game.fonts)
        loader = _ContainedLoader([str(self.game.templates_dir), str(SHARED_TEMPLATES)])
        bytecode = compiled_templates(self.bytecode_db)
        # optimized=False: Jinja's constant folding took a sixth of the shipped templates'
        # compile time (0.27 s of CPU per cold build) and made no measurable difference to
        # their rendering, which is evaluated once per distinct face anyway.
        # auto_reload=False: a renderer draws every face from the templates as it first read
        # them — the version the build's cache keys name — without asking the file system
        # whether each template, and each it extends or imports, changed (four times a face);
        # whoever watches the files (cardgen serve) makes a new renderer when they change
        self.env = _Environment(
            loader=loader, undefined=_SuggestingUndefined, autoescape=True, optimized=False, auto_reload=False,
            trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=False, bytecode_cache=bytecode)
        self.env.filters.update(
            fmt.quantity_filters(self.lang, lambda: self._("stable", "lifetime")),
            sig=lambda v, d=3: fmt.significant(v, d, self.lang))
        self.env.context_class = _WatchingContext
        self.env.tests["containing"] = lambda seq, item: seq is not None and item in seq
        # numbers and symbols inside right-to-left sentences: "{{ ('−' ~ n)|ltr }}" keeps "−1" whole
        self.env.filters["ltr"] = lambda v: f"\u200e{v}\u200e"
        # capitalise Latin, Greek and Cyrillic first letters only where the language does so
        self.env.filters["capfirst"] = self._capfirst
        self.tables = {tid: _TableView(t) for tid, t in self.game.tables.items()}
        #: (component, side, template, mark) → its face, for templates that did not look at the card
        self._shared: dict[tuple[str, str, jinja2.Template, SetMark | None], _Shared] = {}
        self.locale = Locale.of(self.lang)
        self.direction = self.locale.direction
        self._report = _Report()   # what the face being rendered reported so far (see face)
        self._paths_shown: dict[str, str] = {}   # template file → display_path (see _shown)
        #: The error of the first face that ran away — out of time, out of memory or nesting
        #: without end: raised for every face asked for after it, unrendered. A template that
        #: runs away for one card will most likely do so for the others, and a build stops at
        #: its first error anyway; rendering on, a check whose rules read every face would spend
        #: the time limit (or the ~2 s a recursion takes to reach Python's limit) once per face.
        self._runaway: CardgenError | None = None

    # -- public API ------------------------------------------------------------------------

    def face(self, component: Component, card: Card, side: str = "front", mark: SetMark | None = None) -> Rendered:
        """Render one side of one card to a complete SVG document, with what its rendering
        reported; ``mark`` is its class-set and level mark (see :mod:`cardgen.setmark`),
        drawn by the shared frame. Nothing is left on the renderer to clear.

        A side whose template never looks the card up (a shared back, most often) is the
        same for every card of the component: it is rendered once and handed to the other
        cards, with the issues, wraps, translations and ``on_text`` calls its rendering
        made repeated for each, as if it had been rendered again."""
        outer, self._report = self._report, _Report()
        try:
            face = self._face(component, card, side, mark)
            report = self._report
        finally:
            self._report = outer
        return Rendered(face, tuple(report.issues), tuple(report.wraps), tuple(sorted(report.missing)))

    def _face(self, component: Component, card: Card, side: str, mark: SetMark | None) -> Face:
        name = component.front if side == "front" else component.back
        if name is None:
            raise ValueError(f"component '{component.id}' has no {side}")
        if self._runaway is not None:
            raise self._runaway
        reg = GlyphRegistry(inline=self.inline_glyphs, defer=True)
        watch = _Watch()
        budget = FaceBudget()
        where = name   # the template file, once found: errors without a line point at it
        try:
            template = self.env.get_template(name)
            where = self._shown(template.filename or name)
            shared = self._shared.get((component.id, side, template, mark))
            if shared is not None:
                return self._again(shared, component, card)
            ctx = self._context(component, card, side, reg, watch, mark)
            with budget:
                body = render_within(template, ctx, budget)
        except Exception as exc:  # noqa: BLE001 each kind becomes the error that names the card and line
            error = self._failure(exc, component, card, side, where, budget)
            if error is exc:
                raise
            if (budget.out_of_time or isinstance(exc, (RecursionError, MemoryError))) and isinstance(error, CardgenError):
                self._runaway = error
            raise error from None
        self._check_body(body, name, component, card, side)
        face = Face(self.game.id, component.id, card.id, side, self.lang, body, tuple(reg.deferred),
                    component.width + 2 * component.bleed, component.height + 2 * component.bleed, self.inline_glyphs,
                    where, tuple(dict.fromkeys(watch.read)))
        if not watch.read_card:
            self._shared[(component.id, side, template, mark)] = _Shared(
                face, tuple(self._report.issues), tuple(self._report.wraps), watch)
        return face

    def _shown(self, filename: str) -> str:
        """A template's path as errors and faces show it: resolved once per renderer (resolving
        walks every folder of the path, ~0.3 ms, which every face would otherwise pay twice)."""
        shown = self._paths_shown.get(filename)
        if shown is None:
            shown = self._paths_shown[filename] = display_path(filename)
        return shown

    def _failure(self, exc: Exception, component: Component, card: Card, side: str, where: str,
                 budget: FaceBudget) -> BaseException:
        """The error to raise for what rendering a template raised: a :class:`TemplateError`
        that names the card and the template line (``exc`` itself when it is not cardgen's
        to explain, or is cardgen's own error, given its location here)."""
        what = self._what(component, card, side)
        if isinstance(exc, jinja2.TemplateNotFound):
            # the side's own template is named by the component; any other by the line that includes it
            own = exc.name == getattr(component, side, None)
            return TemplateError(f"template '{exc.name}' not found (rendering {what})",
                                 component.where(side) if own else _template_location(exc, where),
                                 f"create it in {display_path(self.game.templates_dir)}"
                                 + ("" if own else ", or include one of the templates that are there"))
        if isinstance(exc, CardgenError):
            if exc.location is None:   # a helper refused its arguments: point at the call and the card
                exc.location = _template_location(exc, where)
                exc.message = exc.message if what in exc.message else f"{exc.message} (rendering {what})"
                exc.fix = exc.fix or "fix the call at this line"
            return exc
        unknown = _UNKNOWN_NAMED.fullmatch(str(exc.message or "")) if isinstance(exc, jinja2.TemplateError) else None
        if unknown:   # a misspelt filter or test: the closest that exists, and the list
            names = sorted(self.env.filters if unknown[1] == "filter" else self.env.tests)
            return TemplateError(f"there is no {unknown[1]} named '{unknown[2]}'{did_you_mean(unknown[2], names)} "
                                 f"(rendering {what})", _template_location(exc, where),
                                 f"use one of: {', '.join(names)}")
        for kinds, message, fix in _FAILURES:
            if isinstance(exc, kinds):
                return TemplateError(message(exc, budget, what), _template_location(exc, where), fix(exc, budget, what))
        return exc

    def _check_body(self, body: str, name: str, component: Component, card: Card, side: str) -> None:
        """A face may not declare entities, and must extend the shared frame."""
        declared = _DECLARATION.search(body)
        if declared:
            raise TemplateError(f"the template writes a {declared[1].upper()} declaration (rendering "
                                f"{self._what(component, card, side)}); faces may not declare entities or a DTD, "
                                "which could pull in outside files", self._line_of(name, _DECLARATION),
                                "remove the declaration and write the characters themselves")
        outside = _OUTSIDE.search(body)
        if outside:
            raise TemplateError(f"the template draws <{outside[1]}> from '{outside[2][:80]}', outside the face "
                                f"(rendering {self._what(component, card, side)}): nothing outside it is read, so "
                                f"it would print without it", self._line_of(name, _OUTSIDE),
                                "place artwork with the image() helper (a file in the game folder), or refer "
                                "to an element of the face itself ('#id')")
        for embedded in _EMBEDDED.finditer(body):
            images.check_data_uri(embedded[2], self._line_of(name, _EMBEDDED), self._what(component, card, side))
        if DEFS_MARKER not in body:  # the frame's marker is where <defs> of <use>-style glyphs go
            raise TemplateError(f"template '{name}' does not extend the shared card frame", Location(name),
                                "start it with {% extends \"base.svg.j2\" %}")

    def _line_of(self, name: str, pattern: re.Pattern[str]) -> Location:
        """Where ``pattern`` first matches in template ``name`` (or the template as a whole)."""
        source, filename, _ = self.env.loader.get_source(self.env, name)
        found = pattern.search(source)
        line = source[:found.start()].count("\n") + 1 if found else 0
        return Location(display_path(filename), line, 1 if line else 0)

    def _again(self, shared: _Shared, component: Component, card: Card) -> Face:
        """``shared``'s face for ``card``, reporting what rendering it for this card would
        (translating the card's own text fields included, as every render does)."""
        self._card_fields(component, card)
        for msgid, context in shared.watch.translated:
            self._(msgid, context)
        if self.on_text is not None:
            for args in shared.watch.told:
                self.on_text(*args)
        self._report.issues.extend(replace(issue, card=card.id) for issue in shared.issues)
        self._report.wraps.extend((comp, card.id, side, label, lines) for comp, _card, side, label, lines in shared.wraps)
        face = replace(shared.face, card=card.id)
        for computed in ("key", "svg"):   # cached properties of the body and texts the copy shares
            if computed in shared.face.__dict__:
                face.__dict__[computed] = shared.face.__dict__[computed]
        return face

    def faces(self, component: Component, card_ids: set[str] | None = None) -> Iterator[Rendered]:
        """Front and (if any) back of every distinct card of a component, each with its reports."""
        for card in component.cards:
            if card_ids and card.id not in card_ids:
                continue
            yield self.face(component, card, "front")
            if component.back:
                yield self.face(component, card, "back")

    def _capfirst(self, value: object) -> str:
        """Upper-case the first letter for languages that write sentence case with capitals;
        leave Chinese, Arabic... and Greek particle letters (μ, τ, ν) as they are."""
        s = str(value)
        if not s or not self.locale.capitalises:
            return s
        if unicodedata.name(s[0], "").startswith("GREEK"):   # μ, τ, ν are symbols, not words
            return s
        return s[0].upper() + s[1:]

    # -- template context ------------------------------------------------------------------

    def _(self, msgid: str, context: str | None = None) -> str:
        """``msgid`` in the renderer's language; a string the translator has no translation
        for (it keeps a ``missing`` record, as :class:`cardgen.i18n.Translator` does) is
        reported with the face."""
        if not self.translate:
            return str(msgid)
        out = self.translate(str(msgid), context)
        missed = getattr(self.translate, "missing", None)
        if missed is not None and (str(msgid), context or "") in missed:
            self._report.missing[(str(msgid), context or "")] = None
        return out

    @staticmethod
    def _within_capacity(comp: Component, text: str, size: Any, width: Any, height: Any, min_size: Any,
                         line_height: Any) -> tuple[str, tuple[str, str] | None]:
        """``text``, or as much of it as its box could possibly hold and why the rest cannot
        fit: a box (or, without a width or height, the card) holds at most so many lines of
        so many characters of the narrowest kind at the smallest size allowed. Laying out
        thousands of words to find that out took seconds a card; this takes none."""
        numbers = (size, width, height, min_size, line_height)
        if not all(v is None or (isinstance(v, (int, float)) and 0 < v <= MAX_COORDINATE_MM) for v in numbers) \
                or size is None:
            return text, None   # the engine refuses these with its own message
        smallest = min(size, min_size or size)
        box_w = width or comp.width + 2 * comp.bleed
        box_h = height or comp.height + 2 * comp.bleed
        lines = int(box_h / (smallest * line_height)) + 1
        capacity = (int(box_w / (smallest * _NARROWEST_EM)) + 1) * lines + lines
        if len(text) <= capacity:
            return text, None
        detail = (f"{len(text):,} characters cannot fit {box_w:g} × {box_h:g} mm even at {smallest:g} mm "
                  f"(at most about {capacity:,})")
        return text[:capacity], (text[:80] + "…", detail)

    @staticmethod
    def _what(component: Component, card: Card, side: str) -> str:
        return f"card '{card.id}' of component '{component.id}', {side}"

    def _card_fields(self, comp: Component, card: Card) -> dict[str, Any]:
        """The card's fields as templates see them: translatable text translated."""
        values = dict(card.fields)
        for name, spec in comp.fields.items():
            if spec.type == "text" and spec.translatable and isinstance(values.get(name), str):
                values[name] = self._(values[name], f"{comp.id}.{name}")
        return values

    def _context(self, comp: Component, card: Card, side: str, reg: GlyphRegistry,
                 watch: _Watch | None = None, mark: SetMark | None = None) -> dict[str, Any]:
        watch = watch if watch is not None else _Watch()
        card_view = {"id": card.id, "count": card.count, **self._card_fields(comp, card)}

        def text(content: Any, x: float, y: float, size: float, width: float | None = None,
                 height: float | None = None, weight: str = "regular", align: str = "start",
                 valign: str = "top", min_size: float | None = None, fill: str = "#000",
                 line_height: float = 1.2, field: str = "", direction: str | None = None) -> Markup:
            """Shaped text as glyph outlines; overflow and uncovered characters are reported."""
            s = str(content)
            _coordinates(x=x, y=y)
            spent = current()
            if spent is not None:
                spent.spend_text(len(s))
            label = field or s[:24]
            s, too_long = self._within_capacity(comp, s, size, width, height, min_size, line_height)
            if too_long:
                self._report.issues.append(TextIssue(self.game.id, comp.id, card.id, side, label, self.lang, too_long[0],
                                             "overflow", too_long[1]))
            if self.on_text is not None:
                watch.told.append((s, width, height, size, min_size))
                self.on_text(s, width, height, size, min_size)
            res = self.engine.layout(s, size=size, width=width, height=height, weight=weight, lang=self.lang,
                                     align=align, valign=valign, min_size=min_size, line_height=line_height,
                                     direction=direction)
            if height is None and width is not None:
                self._report.wraps.append((comp.id, card.id, side, label, len(res.lines)))
            if not res.fits and not too_long:
                self._report.issues.append(TextIssue(self.game.id, comp.id, card.id, side, label, self.lang, s, "overflow",
                                             f"{res.overflow:.1f} mm too long at {res.size:.2f} mm"))
            if res.missing:
                self._report.issues.append(TextIssue(self.game.id, comp.id, card.id, side, label, self.lang, s,
                                             "missing-glyphs", "no font covers " + self.engine.missing_text(res.missing)))
            return Markup(f'<g aria-label="{escape(s)}" data-field="{escape(field)}">'
                          f'{res.to_svg(x, y, reg, fill=str(escape(fill)))}</g>')

        def symbol(sym: Symbol, x: float, y: float, size: float, fill: str = "#000", anchor: str = "middle",
                   weight: str = "bold") -> Markup:
            """A particle symbol: base letter, overline for antiparticles, sub- and superscript,
            with the baseline at ``y``."""
            _coordinates(x=x, y=y, size=size)
            fill = str(escape(fill))
            base = self.engine.layout(unmistakable_greek(sym.base, weight), size=size, weight=weight, valign="baseline",
                                      direction="ltr")
            sub = (self.engine.layout(unmistakable_greek(sym.sub, weight), size=size * 0.55, weight=weight,
                                      valign="baseline", direction="ltr")
                   if sym.sub else None)
            sup_text = sym.sup.replace("-", fmt.MINUS)
            sup = (self.engine.layout(sup_text, size=size * 0.55, weight=weight, valign="baseline", direction="ltr")
                   if sym.sup else None)
            total = base.width + max(sub.width if sub else 0, sup.width if sup else 0) + (size * 0.04 if sub or sup else 0)
            x0 = {"start": x, "middle": x - total / 2, "end": x - total}[anchor]
            parts = [base.to_svg(x0, y, reg, fill=fill)]
            if sym.bar:
                bar_y = y - size * 0.80
                parts.append(f'<rect x="{x0 + base.width * 0.08:.3f}" y="{bar_y:.3f}" width="{base.width * 0.84:.3f}" '
                             f'height="{size * 0.07:.3f}" fill="{fill}"/>')
            after = x0 + base.width + size * 0.04
            if sub:
                parts.append(sub.to_svg(after, y + size * 0.18, reg, fill=fill))
            if sup:
                parts.append(sup.to_svg(after, y - size * 0.42, reg, fill=fill))
            return Markup(f'<g aria-label="{escape(sym.unicode())}" data-field="symbol">{"".join(parts)}</g>')

        def image(path: str, x: float, y: float, width: float, height: float, fit: str = "meet",
                  opacity: float = 1.0) -> Markup:
            """User artwork from the game folder (PNG, JPEG, SVG), checked and embedded; ``fit``
            is 'meet' (whole image visible) or 'slice' (box filled, overflow cropped)."""
            _coordinates(x=x, y=y, width=width, height=height)
            what = self._what(comp, card, side)
            file = images.resolve(str(path), self.game.artwork_roots, what)
            watch.read.append((str(path), file))
            art = images.load(file, what)
            mode = "slice" if fit == "slice" else "meet"
            low = images.print_resolution(art, width, height, mode)
            if low is not None:
                self._report.issues.append(TextIssue(self.game.id, comp.id, card.id, side, "image", self.lang,
                                                     str(path), "low-resolution", low))
            face_budget = current()
            if face_budget is not None:
                face_budget.spend_artwork(len(art.uri))
            return Markup(f'<image href="{art.uri}" x="{x:.3f}" y="{y:.3f}" width="{width:.3f}" height="{height:.3f}" '
                          f'preserveAspectRatio="xMidYMid {mode}" opacity="{float(opacity):.3f}"/>')

        def translated(msgid: str, context: str | None = None) -> str:
            watch.translated.append((msgid, context))
            return self._(msgid, context)

        def mirror_x(x: float, width: float = 0.0) -> float:
            """For regions a template marks direction-sensitive: the x that mirrors a box of
            ``width`` at ``x`` in right-to-left languages (unchanged left-to-right)."""
            return comp.width - x - width if self.direction == "rtl" else x

        return {
            "card": card_view, "component": _ComponentView(comp), "game": {"id": self.game.id, "name": self.game.name},
            "places": [template_view(p, self.game.physics) for p in comp.places_of(card)],
            "tables": self.tables, "particles": self.game.physics.particles, "colours": self.game.physics.colours,
            "side": side, "lang": self.lang, "dir": self.direction, "defs_marker": Markup(DEFS_MARKER),
            "text": text, "symbol": symbol, "image": image, "_": translated, "mirror_x": mirror_x, **_HELPERS,
            "set_mark": mark.for_template() if mark is not None else None,
            _WATCH: watch,
        }


make_callable(__name__, "render")   # cardgen.render(...) is cardgen.api.render (see cardgen._callable)
