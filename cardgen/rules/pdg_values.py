"""Every physical value a card prints, compared with PDG at the precision it is printed.

Which values a card prints is read from its templates (a template that reads ``p.mass`` or
applies the ``|mass`` filter prints the mass of the particles on the card), and how precisely
is read from the very text :mod:`cardgen.format` writes for it: '0.511 MeV/c²' is compared with
PDG's mass rounded to three significant figures, '2.20 × 10⁻⁶ s' with PDG's lifetime rounded to
three. So a change of formatting changes the precision checked, and cannot hide a wrong value.

A value the data declares ``design: {reason: ...}`` is listed as a :class:`Choice`, with PDG's
value beside it where PDG gives one (a deliberate deviation is shown, never hidden); where the
choice still names a PDG quantity it is verified as well: a confined quark's lifetime through
its stand-in hadron, a mass bound against a mass PDG gives, and a neutrino's bound against the
best direct limit (:data:`cardgen.pdg.NEUTRINO_MASS_LIMIT_MEV`: a smaller bound claims a mass
no experiment has shown).

The rule stays one module (over 400 lines): reading what a template prints, reading the
printed precision back and comparing with PDG are three steps of one comparison, and each
finding names all three.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Callable, Iterable, Iterator

import jinja2
from jinja2 import nodes

from .. import format as fmt
from .. import pdg
from ..errors import Finding, Location
from ..loader import SHARED_TEMPLATES
from ..model import Component, Game
from ..particles import MASS_UNITS, TIME_UNITS, Measured, Particle
from ..proof import Choice, Proof
from ..store import open_store
from ..templatefiles import template_bytes, template_file, within
from . import generic

RULE = "pdg-values"
#: The particle quantities cards print, in the order reports list them.
QUANTITIES = ("charge", "spin", "mass", "lifetime")
#: Most templates a component may pull in (extends, imports, includes): bounds the scan.
MAX_TEMPLATES = 64
#: A bound a design reason names: 'below 0.8 eV', '< 2 eV', 'at most 1.1 eV'.
_SAID_BOUND = re.compile(r"(?:below|under|less than|at most|<|≤)\s*(?P<value>\d+(?:\.\d+)?)\s*(?P<unit>eV|keV|MeV|GeV|TeV)\b")
_SUPER = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")


# --- what a template prints ---------------------------------------------------------------

def printed_quantities(game: Game, component: Component) -> frozenset[str]:
    """The particle quantities the component's templates read, following extends, imports and
    includes. A template that cannot be found, read or parsed counts as printing everything (the
    template rules report it; here it must not make a value go unchecked)."""
    folders = (game.templates_dir, SHARED_TEMPLATES)
    roots = [f.resolve() for f in folders]
    found: set[str] = set()
    todo = [n for n in (component.front, component.back) if n]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:   # found as the renderer finds it: never a file outside the template folders
            filename = template_file(folders, name)
        except jinja2.TemplateNotFound:
            return frozenset(QUANTITIES)
        if len(seen) > MAX_TEMPLATES or not within(filename, roots):
            return frozenset(QUANTITIES)
        facts = _template_facts(game, Path(filename))
        if facts is None:
            return frozenset(QUANTITIES)
        quantities, references = facts
        found |= quantities
        todo.extend(references)
    return frozenset(found)


Facts = tuple[frozenset[str], tuple[str, ...]]
#: Facts of template sources, by :func:`_facts_key` (bounded: ``cardgen serve`` reads edits).
_FACTS: dict[str, Facts | None] = {}


def _template_facts(game: Game, path: Path) -> Facts | None:
    """The quantities one template file reads and the templates it names; None when it cannot
    be read (or is larger than the renderer reads) or parsed, or names a template by a
    computed expression.

    Found by the template's source text: in this process's memory, else in the check's build
    cache (``OUT/.cache``, where the previous check left them), else in this machine's (beside
    the compiled templates, :mod:`cardgen.templatecache`, where any check or build left
    them), else read from the tree the render pass compiles the template from
    (:mod:`cardgen.templatetrees`: parsed once for both). So an edited template (``cardgen
    serve``) is read again, and an unchanged one is not parsed again on this machine."""
    try:
        data = template_bytes(path)   # bounded: the renderer refuses a larger one
        if data is None:
            return None
        source = data.decode("utf-8")
    except (OSError, UnicodeError):
        return None
    key = _facts_key(source)
    if key not in _FACTS:
        if len(_FACTS) >= 256:
            _FACTS.pop(next(iter(_FACTS)))
        _FACTS[key] = _kept_facts(key, lambda: _scan(game, source, path), _facts_scope(game, path))
    return _FACTS[key]


def _facts_scope(game: Game, path: Path) -> str:
    """What the check's cache keeps one template's latest facts under: its game (or the shared
    templates) and its name there, so copies of a game in other folders replace them rather
    than add to them."""
    for folder, owner in ((game.templates_dir, game.id), (SHARED_TEMPLATES, "shared")):
        if folder in path.parents:
            return f"facts:{owner}/{path.relative_to(folder).as_posix()}"
    return f"facts:{path}"


@functools.cache
def _scan_digest() -> str:
    """This module's code, which decides what a scan finds: facts kept by other code are not used."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def _facts_key(source: str) -> str:
    return hashlib.sha256(f"{_scan_digest()}\0{source}".encode("utf-8")).hexdigest()


def _kept_facts(key: str, scan: Callable[[], Facts | None], scope: str) -> Facts | None:
    """Facts the check's cache or this machine's holds under ``key``, else ``scan()``'s, then
    kept in both (this machine's only when the check may keep things there); the check's
    cache keeps one template's latest facts (``scope``: :func:`_facts_scope`), not those of
    every version it was edited through."""
    from ..checkfaces import check_cache_db, keeps_on_machine
    from ..templatecache import MachineTemplates

    db = check_cache_db()
    store = open_store(db) if db is not None else None
    machine = MachineTemplates() if keeps_on_machine() else None
    stored = store.get("template_facts", key) if store is not None else None
    for data in (stored[1] if stored is not None else None, machine and machine.facts(key)):
        if data is not None:
            try:
                kept = json.loads(data)
                return None if kept is None else (frozenset(kept[0]), tuple(kept[1]))
            except (ValueError, TypeError, IndexError):
                pass
    facts = scan()
    data = json.dumps(None if facts is None else [sorted(facts[0]), list(facts[1])]).encode("utf-8")
    if store is not None:
        store.put_only("template_facts", {scope: [(key, "", data)]})
    if machine is not None:
        machine.keep_facts(key, data)
    return facts


def _scan(game: Game, source: str, path: Path) -> Facts | None:
    """Read the facts from the template's tree, parsed as the renderer parses it."""
    from ..checkfaces import faces_of

    try:
        tree = faces_of(game).renderer.env.parse(source, path.name, str(path))
    except jinja2.TemplateError:
        return None
    found: set[str] = set()
    references: list[str] = []
    for node in tree.find_all((nodes.Getattr, nodes.Filter, nodes.Const, nodes.Extends, nodes.Include,
                               nodes.Import, nodes.FromImport)):
        if isinstance(node, nodes.Getattr) and node.attr in QUANTITIES:
            found.add(node.attr)
        elif isinstance(node, nodes.Filter) and node.name in QUANTITIES:
            found.add(node.name)
        elif isinstance(node, nodes.Const) and node.value in QUANTITIES:
            found.add(node.value)  # sum(attribute="charge"), attr(p, "mass")
        elif isinstance(node, (nodes.Extends, nodes.Include, nodes.Import, nodes.FromImport)):
            target = node.template
            if not (isinstance(target, nodes.Const) and isinstance(target.value, str)):
                return None  # a computed template name: cannot tell what it prints
            references.append(target.value)
    return frozenset(found), tuple(references)


def card_particles(component: Component) -> tuple[list[Particle], int]:
    """The distinct particles on the component's cards (particle and list-of-particle fields), in
    card order, and the number of cards (with copies) that show at least one."""
    fields = [n for n, s in component.fields.items() if "particle" in (s.type, s.of)]
    seen: dict[str, Particle] = {}
    cards = 0
    for card in component.cards:
        shown = False
        for name in fields:
            value = card.fields.get(name)
            for p in (value if isinstance(value, tuple) else (value,)):
                if isinstance(p, Particle):
                    seen.setdefault(p.id, p)
                    shown = True
        cards += card.count if shown else 0
    return list(seen.values()), cards


# --- what the printed text says -----------------------------------------------------------

@dataclass(frozen=True)
class Printed:
    """A printed number read back: its value in the unit printed, its significant
    figures, its unit and whether it is only a bound ('< 0.8 eV/c²')."""

    text: str
    value: float
    figures: int
    unit: str
    bound: bool = False


def read_printed(text: str) -> Printed:
    """Parse what :mod:`cardgen.format` wrote: '4.70 MeV/c²', '< 0.8 eV/c²', '0',
    '2.20 × 10⁻⁶ s', 'stable'. Figures are those printed, trailing zeros included."""
    t = text.replace(fmt.MINUS, "-").strip()
    if t == "stable":
        return Printed(text, math.inf, 0, "s")
    bound = t.startswith("<")
    t = t.lstrip("< ")
    m = re.fullmatch(r"([-+]?[\d.,]+)(?: × 10([⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+))?(?: (\S+?))?(?:/c²)?", t)
    if not m:
        raise ValueError(f"cannot read the printed value {text!r}")
    mantissa = m.group(1).replace(",", ".")
    exponent = int(m.group(2).translate(_SUPER)) if m.group(2) else 0
    return Printed(text, float(mantissa) * 10 ** exponent, fmt.written_figures(mantissa), m.group(3) or "", bound)


def coarse(shown: Printed, uncertainty: float) -> bool:
    """Whether a printed value (not a bound) is rounded more coarsely than PDG knows it
    (:func:`cardgen.pdg.too_coarse`; ``uncertainty`` in the unit printed)."""
    return not shown.bound and pdg.too_coarse(shown.value, shown.figures, uncertainty)


def _figures(n: int) -> str:
    return f"rounded to {n} significant figure{'s' if n != 1 else ''}"


def _literal(value: float, figures: int) -> str:
    """A number to write in the data, at ``figures`` significant figures."""
    if value == 0:
        return "0"
    if 1e-3 <= abs(value) < 1e6:
        return fmt.significant(value, figures)
    return f"{value:.{max(figures - 1, 0)}e}".replace("e-0", "e-").replace("e+0", "e+")


def _pm(value: float, upper: float | None, lower: float | None) -> str:
    """PDG's value with its uncertainty as a message shows it: '0.51099895069 ± 1.6e-10'."""
    if not upper and not lower:
        return f"{value:.12g}"
    if upper == lower or lower is None:
        return f"{value:.12g} ± {upper:.2g}"
    return f"{value:.12g} +{upper:.2g} −{lower:.2g}"


# --- the comparison -----------------------------------------------------------------------

@dataclass
class Tally:
    """What one component's printed values came to."""

    equal: int = 0
    choices: int = 0
    wrong: int = 0
    extra: int = 0  # PDG quantities behind choices and data-only values (uncertainties, widths) verified

    @property
    def total(self) -> int:
        return self.equal + self.choices + self.wrong


class Comparison:
    """Compares one game's particles with PDG, remembering each value's verdict so that a value
    printed by several components is judged (and reported) once."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.verdicts: dict[tuple[str, str], tuple[str, list[Finding | Choice], int]] = {}
        self.extra = 0  # data-only values verified while judging the current value

    def value(self, p: Particle, quantity: str) -> tuple[str, list[Finding | Choice], int]:
        """(verdict, its records, how many data-only values behind it equal PDG): verdict is
        'equal', 'choices' (declared) or 'wrong'."""
        key = (p.id, quantity)
        if key not in self.verdicts:
            self.extra = 0
            records = list(getattr(self, f"_{quantity}")(p))
            kind = ("wrong" if any(isinstance(r, Finding) for r in records) else
                    "choices" if any(isinstance(r, Choice) for r in records) else "equal")
            self.verdicts[key] = (kind, records, self.extra)
        return self.verdicts[key]

    def _finding(self, message: str, where: Location | None, fix: str, p: Particle) -> Finding:
        return Finding(RULE, message, where or p.location, fix, self.game.id)

    def _pdg(self, p: Particle):
        try:
            return pdg.lookup(p.pdg_id)
        except pdg.UnknownParticle:
            return None

    def _unknown(self, p: Particle) -> Finding:
        return self._finding(f"{p.name} ({p.id}) has PDG id {p.pdg_id}, which PDG does not know, so its printed "
                             f"values cannot be checked", p.where.get("pdg_id"),
                             "use the particle's Monte Carlo number from the PDG review", p)

    # charge and spin: exact fractions
    def _charge(self, p: Particle) -> Iterator[Finding]:
        ref = self._pdg(p)
        if ref is None:
            yield self._unknown(p)
            return
        printed, want = fmt.charge(p.charge), pdg.charge(ref)
        if Fraction(printed.replace(fmt.MINUS, "-")) != want:
            yield self._finding(f"{p.name} ({p.id}) prints charge {printed} but {pdg.EDITION} gives "
                                f"{fmt.charge(want)} (exact)", p.where.get("charge"),
                                f"write charge: {want}", p)

    def _spin(self, p: Particle) -> Iterator[Finding]:
        ref = self._pdg(p)
        if ref is None:
            yield self._unknown(p)
            return
        want = pdg.spin(ref)
        if want is None:
            yield self._finding(f"{pdg.EDITION} gives no spin for {p.name} ({p.id})", p.where.get("spin"),
                                "check the PDG id", p)
            return
        printed = fmt.spin(p.spin)
        if Fraction(printed) != want:
            yield self._finding(f"{p.name} ({p.id}) prints spin {printed} but {pdg.EDITION} gives {fmt.spin(want)} "
                                f"(exact)", p.where.get("spin"), f"write spin: {want}", p)

    # mass: at the printed precision
    def _mass(self, p: Particle) -> Iterator[Finding | Choice]:
        m, ref = p.mass, self._pdg(p)
        if ref is None:
            yield self._unknown(p)
            return
        shown = read_printed(fmt.mass(m))
        factor = MASS_UNITS[m.unit]
        if m.design is not None:
            deviates = ""
            if ref.mass is not None and not m.upper_limit and (
                    not pdg.same_at(shown.value, shown.figures, ref.mass / factor)
                    or coarse(shown, max(ref.mass_upper or 0, ref.mass_lower or 0) / factor)):
                deviates = f", where {pdg.EDITION} gives {_literal(ref.mass / factor, max(shown.figures, 3))} {m.unit}/c²"
            yield Choice(RULE, f"mass of {p.name} ({p.id}) printed {shown.text}{deviates}", m.design.reason,
                         m.location or m.design.location, self.game.id)
            if m.upper_limit and abs(p.pdg_id or 0) in pdg.NEUTRINO_IDS \
                    and m.value * factor < pdg.NEUTRINO_MASS_LIMIT_MEV * (1 - 1e-9):
                limit = pdg.NEUTRINO_MASS_LIMIT_MEV / MASS_UNITS["eV"]
                yield self._finding(f"{p.name} ({p.id}) prints the bound {shown.text} but the best direct limit is "
                                    f"{limit:g} eV/c² ({pdg.NEUTRINO_LIMIT_SOURCE}): no experiment has shown a "
                                    f"neutrino mass that small", m.location,
                                    f"print a bound of at least {limit:g} eV (for instance upper_limit: 0.8, unit: eV)", p)
            if m.upper_limit and abs(p.pdg_id or 0) in pdg.NEUTRINO_IDS \
                    and m.value * factor > pdg.NEUTRINO_MASS_LOOSEST_MEV * (1 + 1e-9):
                best = pdg.NEUTRINO_MASS_LIMIT_MEV / MASS_UNITS["eV"]
                loosest = pdg.NEUTRINO_MASS_LOOSEST_MEV / MASS_UNITS["eV"]
                yield self._finding(f"{p.name} ({p.id}) prints the bound {shown.text}, far looser than any direct "
                                    f"limit: the best is {best:g} eV/c² ({pdg.NEUTRINO_LIMIT_SOURCE}), and even "
                                    f"{pdg.NEUTRINO_LOOSEST_SOURCE} gives {loosest:g} eV/c²", m.location,
                                    f"print a bound between {best:g} and {loosest:g} eV (for instance upper_limit: "
                                    f"0.8, unit: eV)", p)
            if m.upper_limit:
                yield from self._bound_reason(p, m, shown)
            if not m.upper_limit and ref.mass is None and m.value > 0:
                yield self._finding(f"{p.name} ({p.id}) prints the mass {shown.text} as a value but {pdg.EDITION} "
                                    f"knows only limits on it", m.location,
                                    f"print the bound: write upper_limit: {m.digits} instead of value", p)
            if m.upper_limit and ref.mass is not None and m.value * factor < ref.mass:
                yield self._finding(f"{p.name} ({p.id}) prints the bound {shown.text} but {pdg.EDITION} gives a "
                                    f"mass of {_pm(ref.mass, ref.mass_upper, ref.mass_lower)} MeV/c², above it",
                                    m.location, "raise the bound or print PDG's value", p)
            return
        if ref.mass is None:
            yield self._finding(f"{p.name} ({p.id}) prints a mass of {shown.text} but {pdg.EDITION} gives no mass, "
                                f"only limits", m.location,
                                "declare the value a design choice with its reason: design: {reason: ...}", p)
            return
        want = ref.mass / factor
        if shown.bound or not pdg.same_at(shown.value, shown.figures, want):
            figs = shown.figures or fmt.written_figures(m.digits)
            yield self._finding(
                f"{p.name} ({p.id}) prints mass {shown.text} but {pdg.EDITION} gives "
                f"{_pm(want, (ref.mass_upper or 0) / factor, (ref.mass_lower or 0) / factor)} {m.unit}/c²"
                f" ({_literal(pdg.round_sig(want, max(figs, 1)), max(figs, 1))} {m.unit}/c² at the precision printed)",
                m.location, f"write value: {_literal(want, max(fmt.written_figures(m.digits), figs))}"
                f" (PDG's mass in {m.unit})", p)
            return
        if coarse(shown, max(ref.mass_upper or 0, ref.mass_lower or 0) / factor):
            yield self._finding(
                f"{p.name} ({p.id}) prints mass {shown.text}: {_figures(shown.figures)}, coarser than {pdg.EDITION} "
                f"knows it ({_pm(want, (ref.mass_upper or 0) / factor, (ref.mass_lower or 0) / factor)} "
                f"{m.unit}/c²)", m.location, f"write value: {_literal(want, pdg.MIN_FIGURES)} (PDG's mass in {m.unit}), "
                "or declare the rounding a design choice with its reason: design: {reason: ...}", p)
            return
        yield from self._uncertainties(p, m, ref.mass_upper, ref.mass_lower, factor, "mass")

    def _bound_reason(self, p: Particle, m: Measured, shown: Printed) -> Iterator[Finding]:
        """A bound whose design reason names the bound it stands for ('below 0.8 eV') must be that
        bound: a reason saying 0.8 eV cannot justify printing 80 eV."""
        assert m.design is not None
        factor = MASS_UNITS[m.unit]
        for said in _SAID_BOUND.finditer(m.design.reason):
            value = float(said["value"]) * MASS_UNITS[said["unit"]]
            if not math.isclose(value, m.value * factor, rel_tol=1e-6):
                yield self._finding(f"{p.name} ({p.id}) prints the bound {shown.text}, but the reason it declares "
                                    f"for it says '{said[0].strip()}'", m.location,
                                    f"write upper_limit: {_literal(value / factor, 3)} (the bound the reason gives), "
                                    f"or correct the reason", p)
                return

    def _uncertainties(self, p: Particle, m: Measured, upper: float | None, lower: float | None, factor: float,
                       what: str) -> Iterator[Finding]:
        """The data's uncertainties, at the figures the data writes (cards do not print them)."""
        for key, ref in (("plus", upper), ("minus", lower)):
            if key not in m.literals:
                continue
            written = m.literals[key]
            figs = fmt.written_figures(written)
            if ref is not None and pdg.same_at(float(written), figs, ref / factor):
                self.extra += 1
                continue
            yield self._finding(f"{p.name} ({p.id}) gives its {what} a '{key}' uncertainty of {written} {m.unit} "
                                f"but {pdg.EDITION} gives {'none' if ref is None else f'{ref / factor:.3g}'}",
                                m.where.get(key), "write PDG's uncertainty" if ref is not None
                                else f"remove '{key}'", p)

    # lifetime: 'stable' or at the printed precision; stand-ins checked against their hadron
    def _lifetime(self, p: Particle) -> Iterator[Finding | Choice]:
        lt, ref = p.lifetime, self._pdg(p)
        if ref is None:
            yield self._unknown(p)
            return
        text = fmt.lifetime(lt)
        shown = read_printed(text)
        pdg_s = None if ref.lifetime is None else ref.lifetime * pdg.NS
        if lt.design is not None:
            deviates = ""
            if pdg_s is not None and lt.proxy_pdg_id is None and (
                    math.isinf(shown.value) != math.isinf(pdg_s) or
                    (not math.isinf(pdg_s) and not pdg.same_at(shown.value, shown.figures, pdg_s))):
                deviates = f", where {pdg.EDITION} gives " + ("stable" if math.isinf(pdg_s) else
                                                              f"{fmt.scientific(pdg_s, max(shown.figures, 3))} s")
            yield Choice(RULE, f"lifetime of {p.name} ({p.id}) printed {text}{deviates}", lt.design.reason,
                         lt.location or lt.design.location, self.game.id)
            if lt.proxy_pdg_id is not None:
                yield from self._proxy(p, shown)
            return
        if pdg_s is None:
            yield self._finding(f"{p.name} ({p.id}) prints a lifetime of {text} but {pdg.EDITION} gives none",
                                lt.location, "declare the value a design choice with its reason: "
                                "design: {reason: ...}", p)
            return
        if math.isinf(shown.value) or math.isinf(pdg_s):
            if shown.value != pdg_s:
                yield self._finding(f"{p.name} ({p.id}) prints lifetime {text} but {pdg.EDITION} gives "
                                    f"{'stable' if math.isinf(pdg_s) else _pm(pdg_s, None, None) + ' s'}",
                                    lt.location, "write lifetime: stable" if math.isinf(pdg_s)
                                    else f"write value: {_literal(pdg_s, 4)}, unit: s", p)
            return
        if not pdg.same_at(shown.value, shown.figures, pdg_s):
            err = (ref.width_upper / ref.width * pdg_s) if ref.width and ref.width_upper else None
            yield self._finding(
                f"{p.name} ({p.id}) prints lifetime {text} but {pdg.EDITION} gives {_pm(pdg_s, err, err)} s "
                f"({fmt.scientific(pdg_s, shown.figures)} s at the precision printed)", lt.location,
                f"write value: {_literal(pdg_s / TIME_UNITS[lt.measured.unit], max(shown.figures, fmt.written_figures(lt.measured.digits)))}"
                f" (PDG's lifetime in {lt.measured.unit})", p)
            return
        err = (ref.width_upper / ref.width * pdg_s) if ref.width and ref.width_upper else 0.0
        if coarse(shown, err / TIME_UNITS[lt.measured.unit] if shown.unit == lt.measured.unit else err):
            yield self._finding(
                f"{p.name} ({p.id}) prints lifetime {text}: {_figures(shown.figures)}, coarser than {pdg.EDITION} "
                f"knows it ({_pm(pdg_s, err or None, err or None)} s)", lt.location,
                f"write value: {_literal(pdg_s / TIME_UNITS[lt.measured.unit], pdg.MIN_FIGURES)} (PDG's lifetime in "
                f"{lt.measured.unit}), or declare the rounding a design choice with its reason: design: {{reason: ...}}", p)
            return
        if lt.width is not None:
            yield from self._width(p, ref)

    def _width(self, p: Particle, ref) -> Iterator[Finding]:
        w = p.lifetime.width
        assert w is not None
        factor = MASS_UNITS[w.unit]
        figs = fmt.written_figures(w.digits)
        if ref.width is not None and pdg.same_at(w.value, figs, ref.width / factor):
            self.extra += 1
        else:
            yield self._finding(f"{p.name} ({p.id}) gives its lifetime from a width of {w.digits} {w.unit} but "
                                f"{pdg.EDITION} gives "
                                f"{'none' if ref.width is None else _pm(ref.width / factor, (ref.width_upper or 0) / factor, (ref.width_lower or 0) / factor) + ' ' + w.unit}",
                                w.location, "write PDG's width" if ref.width else "remove the width", p)

    def _proxy(self, p: Particle, shown: Printed) -> Iterator[Finding]:
        """A confined quark's lifetime through a hadron: the hadron must exist, carry the quark's
        flavour, and its PDG lifetime be the one printed."""
        lt = p.lifetime
        try:
            hadron = pdg.lookup(lt.proxy_pdg_id)
        except pdg.UnknownParticle:
            yield self._finding(f"stand-in hadron {lt.proxy_pdg_id} of {p.name} ({p.id}) is not a PDG id",
                                lt.location, "name a hadron by its PDG Monte Carlo number", p)
            return
        flavour = pdg.QUARK_LETTERS[abs(p.pdg_id) - 1] if p.kind == "quark" and abs(p.pdg_id) <= 6 else ""
        if flavour and not any(c[flavour] or c[flavour.upper()] for c in pdg.contents(hadron)):
            yield self._finding(f"stand-in hadron {hadron.name} ({lt.proxy_pdg_id}) for the lifetime of {p.name} "
                                f"does not contain a {flavour} quark (it is {hadron.quarks})", lt.location,
                                f"name a hadron made with a {flavour} quark", p)
            return
        if hadron.lifetime is None or not pdg.same_at(shown.value, shown.figures, hadron.lifetime * pdg.NS):
            want = "no lifetime" if hadron.lifetime is None else f"{_pm(hadron.lifetime * pdg.NS, None, None)} s"
            yield self._finding(f"{p.name} ({p.id}) prints lifetime {shown.text}, declared as that of "
                                f"{hadron.name}, but {pdg.EDITION} gives {hadron.name} {want}", lt.location,
                                f"write {hadron.name}'s lifetime" if hadron.lifetime else "name another hadron", p)
            return
        self.extra += 1


def printed_pairs(game: Game) -> set[tuple[str, str]]:
    """(particle id, quantity) of every value some card of the game prints."""
    out: set[tuple[str, str]] = set()
    for comp in game.components.values():
        particles, _cards = card_particles(comp)
        if particles:
            printed = printed_quantities(game, comp)
            quantities = [q for q in QUANTITIES if q in printed]
            out.update((p.id, q) for p in particles for q in quantities)
    return out


@generic(RULE)
def pdg_values(game: Game) -> Iterator[Finding | Proof | Choice]:
    """Every charge, spin, mass and lifetime a card prints equals PDG at the precision printed,
    or is a design choice the data declares (listed with its reason)."""
    check = Comparison(game)
    printing = False
    for comp in game.components.values():
        particles, cards = card_particles(comp)
        if not particles:   # its templates print no particle's values: not read
            continue
        printed = printed_quantities(game, comp)
        quantities = [q for q in QUANTITIES if q in printed]
        if not quantities:
            continue
        printing = True
        tally = Tally()
        for p in particles:
            for q in quantities:
                kind, records, extra = check.value(p, q)
                setattr(tally, kind, getattr(tally, kind) + 1)
                tally.extra += extra
                yield from records
        yield Proof(RULE, _claim(comp, cards, len(particles), quantities, tally), tally.total, game.id,
                    comp.location)
    if not printing:
        yield Proof(RULE, "no card prints a particle's charge, spin, mass or lifetime: nothing to compare with "
                    f"{pdg.EDITION}", 0, game.id, game.location)


def _claim(comp: Component, cards: int, n: int, quantities: Iterable[str], t: Tally) -> str:
    what = ", ".join(quantities)
    claim = (f"{comp.id}: {cards} card{'s' if cards != 1 else ''} print {t.total} value{'s' if t.total != 1 else ''} "
             f"({what} of {n} particle{'s' if n != 1 else ''}); {t.equal} equal {pdg.EDITION} at printed precision; "
             f"{t.choices} {'is a' if t.choices == 1 else 'are'} declared design choice{'s' if t.choices != 1 else ''}")
    if t.extra:
        claim += f"; {t.extra} uncertainties, widths and stand-in lifetimes behind them equal {pdg.EDITION} too"
    if t.wrong:
        claim += f"; {t.wrong} differ (see the findings)"
    return claim
