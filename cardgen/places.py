"""Places on a board and areas on a card where players lay other cards, declared in data.

A component's ``places:`` block says where each place is (mm from the top-left corner of the
component's trim box), how big it is, which cards it takes and where its label goes. Both the
templates (which draw the places) and the checker (which proves a real card fits each one) read
this one declaration, so no coordinate is typed twice and the drawing cannot drift from what was
proved. See docs/data-format.md, "Places".

A place takes a particle or a set of particles, particle categories (``{category: quark}``) or
any card of a component (``{component: particles}``, e.g. a discard or annihilation area). A
card-shaped component whose places depend on the card (a target that needs two, three or four
particles) declares ``takes_field`` (a particle list of each card) and one layout per number of
particles in ``by_count``; the i-th place then takes the card's i-th particle. A card may also
declare its own ``places:`` list.

The module is a little over 400 lines on purpose: the declaration's types, the reading of
its YAML and the checks that need the whole game are one concern (what a place is), and
the readers and checks are each small.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from . import schema as S
from .errors import InputError, Location, did_you_mean
from .paper import fmt_mm
from .particles import Particle, PhysicsData
from .yamlsrc import YMap, YSeq

LABEL_SIDES = ("top", "bottom", "none")
STACK_KINDS = ("antiparticle", "copies", "pile")
CATEGORIES = ("quark", "antiquark", "lepton", "antilepton", "boson")
DEFAULT_SPARE = 2.0
MAX_PLACES = 500                  # on one face
MAX_PLACES_PER_COMPONENT = 20_000  # over all its cards: the checker compares the places of each face


@dataclass(frozen=True)
class Box:
    """An axis-aligned rectangle in component millimetres (top-left origin, y down)."""

    x: float
    y: float
    width: float
    height: float

    @property
    def right(self) -> float:
        return self.x + self.width

    @property
    def bottom(self) -> float:
        return self.y + self.height

    def overlap(self, other: "Box") -> tuple[float, float]:
        """Width and height of the common part (both > 0 only if the boxes really overlap;
        boxes that merely touch share an edge, not an area)."""
        return (min(self.right, other.right) - max(self.x, other.x),
                min(self.bottom, other.bottom) - max(self.y, other.y))

    def describe(self) -> str:
        return (f"x {fmt_mm(self.x)}–{fmt_mm(self.right)} mm, y {fmt_mm(self.y)}–{fmt_mm(self.bottom)} mm")


@dataclass(frozen=True)
class Takes:
    """Which cards a place takes: particles by id, particle categories, or any card of a
    component. Empty ``particles`` and ``categories`` with no ``component`` never occurs."""

    particles: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    component: str | None = None

    def accepts(self, particle: Particle | None) -> bool:
        """Whether a card with this particle belongs on the place (component places take any card)."""
        if self.component is not None:
            return True
        return particle is not None and (particle.id in self.particles or particle.category in self.categories)


@dataclass(frozen=True)
class Label:
    """The strip outside a place that names it: above (top) or below (bottom) the place, so
    a card laid on the place never hides it."""

    side: str
    height: float


@dataclass(frozen=True)
class Place:
    """One place on one face, resolved: its box, what it takes, its label, its group."""

    id: str
    name: str                    # how findings name it: "place 'u'", "place 2 of the 3-place layout"
    box: Box
    takes: Takes
    rotate: bool
    label: Label
    group: str
    location: Location

    @property
    def label_box(self) -> Box | None:
        if self.label.side == "none" or self.label.height <= 0:
            return None
        y = self.box.y - self.label.height if self.label.side == "top" else self.box.bottom
        return Box(self.box.x, y, self.box.width, self.label.height)


@dataclass(frozen=True)
class Stacking:
    """A declared rule that lets cards share a place instead of each having one."""

    stack: str                   # "antiparticle": on its particle's place; "copies": on the first copy's;
                                 # "pile": on any place that takes it, however many are there
    reason: str
    categories: tuple[str, ...]  # only cards of these particle categories (empty: any)
    location: Location

    def covers(self, particle: Particle) -> bool:
        return not self.categories or particle.category in self.categories


@dataclass(frozen=True)
class PlaceLayout:
    """A component's ``places:`` block."""

    holds: str                   # the component whose cards are laid on particle/category places
    field: str | None            # that component's particle field
    spare: float                 # room a card must have on every side (mm)
    stacking: tuple[Stacking, ...]
    fixed: tuple[Place, ...] | None
    takes_field: str | None
    by_count: Mapping[int, tuple[Place, ...]]
    location: Location


# --- reading ---------------------------------------------------------------------------------

def _length(what: str) -> S.Converter:
    """A place's width or height: a positive number of mm, named in the message if it is not."""
    conv = S.number(positive=True, maximum=2000)

    def read(value: Any, loc: Location, raw: str | None = None) -> float:
        try:
            return conv(value, loc, raw)
        except InputError as exc:
            raise InputError(f"the {what} of a place: {exc.message}", exc.location, exc.fix) from None
    return read


def _box_size(value: Any, loc: Location) -> tuple[float, float]:
    f = S.Fields(value, "a place size", loc)
    size = (f.get("width", _length("width")), f.get("height", _length("height")))
    f.finish()
    return size


def _label(value: Any, loc: Location, default: Label) -> Label:
    if value == "none":
        return Label("none", 0.0)
    f = S.Fields(value, "a place label", loc)
    label = Label(f.get("side", S.choice(LABEL_SIDES), default.side),
                  f.get("height", S.number(minimum=0, maximum=500), default.height))
    f.finish()
    return label


def _categories(value: Any, loc: Location, raw: Any = None) -> tuple[str, ...]:
    if isinstance(value, YSeq):
        if not value:
            raise InputError("the list of categories is empty", loc, f"list some of: {', '.join(CATEGORIES)}")
        return tuple(S.choice(CATEGORIES)(v, value.where(i)) for i, v in enumerate(value))
    return (S.choice(CATEGORIES)(value, loc),)


def _takes(value: Any, loc: Location, physics: PhysicsData) -> Takes:
    if isinstance(value, YSeq):
        if not value:
            raise InputError("'takes' lists no particles", loc, "list at least one particle id")
        return Takes(particles=tuple(physics.particle(S.ident(v, value.where(i)), value.where(i)).id
                                     for i, v in enumerate(value)))
    if isinstance(value, YMap):
        f = S.Fields(value, "'takes'", loc)
        if len([k for k in ("category", "component") if f.has(k)]) != 1:
            raise InputError("'takes' needs exactly one of 'category' or 'component'", loc,
                             "write takes: u, takes: [u, ubar], takes: {category: quark} or takes: {component: particles}")
        takes = Takes(categories=f.get("category", _categories, ()), component=f.get("component", S.ident, None))
        f.finish()
        return takes
    return Takes(particles=(physics.particle(S.ident(value, loc), loc).id,))


def _place(value: Any, loc: Location, physics: PhysicsData, defaults: dict[str, Any], name: str,
           default_id: str, takes_required: bool) -> Place:
    f = S.Fields(value, name, loc)
    pid = f.get("id", S.ident, default_id)
    size = defaults.get("size")
    width = f.get("width", _length("width"), None if size is None else size[0])
    height = f.get("height", _length("height"), None if size is None else size[1])
    if width is None or height is None:
        raise InputError(f"{name} has no size", loc, "give it 'width' and 'height', or set 'size' in the places block")
    box = Box(f.get("x", S.number(minimum=-2000, maximum=2000)), f.get("y", S.number(minimum=-2000, maximum=2000)),
              width, height)
    takes = f.get("takes", lambda v, l, r=None: _takes(v, l, physics), None)
    if takes is None and takes_required:
        raise InputError(f"{name} does not say which cards it takes", loc,
                         "add e.g. 'takes: u', 'takes: {category: quark}' or 'takes: {component: particles}'")
    if takes is not None and not takes_required:
        raise InputError(f"{name} takes the card's particle from its 'takes_field'; it cannot also name 'takes'",
                         f.map.key_where("takes"), "remove 'takes' here")
    place = Place(pid, name if default_id == pid else f"place '{pid}'", box, takes or Takes(),
                  f.get("rotate", S.boolean, defaults["rotate"]),
                  f.get("label", lambda v, l, r=None: _label(v, l, defaults["label"]), defaults["label"]),
                  f.get("group", S.ident, ""), f.loc)
    f.finish()
    return place


def _place_list(value: Any, loc: Location, physics: PhysicsData, defaults: dict[str, Any], what: str,
                takes_required: bool) -> tuple[Place, ...]:
    seq = S.sequence(value, loc)
    if len(seq) > MAX_PLACES:
        raise InputError(f"{what} declares {len(seq)} places, more than the limit of {MAX_PLACES}", loc,
                         "declare fewer places")
    places: list[Place] = []
    seen: dict[str, Location] = {}
    for i, item in enumerate(seq):
        p = _place(item, seq.where(i), physics, defaults, f"place {i + 1} of {what}", str(i + 1), takes_required)
        if p.id in seen:
            raise InputError(f"duplicate place id '{p.id}' in {what} (first at line {seen[p.id].line})",
                             p.location, "give each place its own id")
        seen[p.id] = p.location
        places.append(p)
    return tuple(places)


def parse_layout(value: Any, loc: Location, physics: PhysicsData, what: str) -> tuple[PlaceLayout, dict[str, Any]]:
    """Read a component's ``places:`` block. Returns the layout and the defaults a card's own
    ``places:`` list is read with (see :func:`parse_card_places`)."""
    f = S.Fields(value, f"the places of {what}", loc)
    defaults: dict[str, Any] = {
        "size": f.get("size", lambda v, l, r=None: _box_size(v, l), None),
        "rotate": f.get("rotate", S.boolean, False),
        "label": f.get("label", lambda v, l, r=None: _label(v, l, Label("top", 7.0)), Label("top", 7.0)),
    }
    takes_field = f.get("takes_field", S.ident, None)
    defaults["takes_required"] = takes_field is None
    fixed = f.get("list", lambda v, l, r=None: _place_list(v, l, physics, defaults, what, takes_field is None), None)
    by_count: dict[int, tuple[Place, ...]] = {}
    layouts = f.get("by_count", S.mapping, None)
    if layouts is not None:
        for key, places in layouts.items():
            n = S.integer(1, MAX_PLACES)(int(key) if key.isdigit() else key, layouts.key_where(key))
            listed = _place_list(places, layouts.where(key), physics, defaults, f"the {n}-place layout", False)
            if len(listed) != n:
                raise InputError(f"the {n}-place layout lists {len(listed)} place(s)", layouts.where(key),
                                 f"list exactly {n} places under '{key}'")
            by_count[n] = listed
    if takes_field is None and by_count:
        raise InputError("'by_count' needs 'takes_field' (the card field whose particles the places take)",
                         f.map.key_where("by_count"), "add e.g. 'takes_field: requires'")
    if takes_field is not None and fixed is not None:
        raise InputError("a places block has either 'list' (the same places on every card) or 'takes_field' "
                         "with 'by_count', not both", f.map.key_where("list"), "remove one of them")
    if fixed is None and not by_count and takes_field is None:
        raise InputError(f"the places of {what} declare no place", loc, "add 'list:' or 'takes_field:' with 'by_count:'")
    layout = PlaceLayout(
        holds=f.get("holds", S.ident), field=f.get("field", S.ident, None),
        spare=f.get("spare", S.number(minimum=0, maximum=100), DEFAULT_SPARE),
        stacking=tuple(_stacking(item, l) for item, l in S.items(f.get("stacking", S.anything, None), f.map.where("stacking"))),
        fixed=fixed, takes_field=takes_field, by_count=by_count, location=f.loc)
    f.finish()
    return layout, defaults


def parse_card_places(value: Any, loc: Location, physics: PhysicsData, defaults: dict[str, Any] | None,
                      what: str) -> tuple[Place, ...]:
    """A card's own ``places:`` list (overrides the component's layout for that card)."""
    if defaults is None:
        raise InputError(f"{what} declares places but its component has no 'places:' block", loc,
                         "add a 'places:' block to the component (it names the cards the places hold)")
    return _place_list(value, loc, physics, defaults, what, defaults["takes_required"])


def _stacking(value: Any, loc: Location) -> Stacking:
    f = S.Fields(value, "a stacking rule", loc)
    rule = Stacking(f.get("stack", S.choice(STACK_KINDS)), f.get("reason", S.text),
                    f.get("category", _categories, ()), f.loc)
    f.finish()
    if not rule.reason.strip():
        raise InputError("a stacking rule needs its reason", f.map.where("reason"),
                         "say why these cards may share a place")
    return rule


# --- resolving ---------------------------------------------------------------------------------

def card_places(layout: PlaceLayout, own: tuple[Place, ...] | None, fields: Mapping[str, Any]) -> tuple[Place, ...]:
    """The places on one card's face: its own list, the fixed list, or the layout for the number
    of particles in ``takes_field`` — each then taking the card's particle in the same order."""
    places = own if own is not None else layout.fixed
    if places is None:
        particles = tuple(fields.get(layout.takes_field or "") or ())
        places = layout.by_count.get(len(particles), ())
    if layout.takes_field is None:
        return places
    particles = tuple(fields.get(layout.takes_field) or ())
    return tuple(Place(p.id, p.name, p.box, Takes(particles=(particles[i].id,)), p.rotate, p.label, p.group,
                       p.location) for i, p in enumerate(places) if i < len(particles))


def validate(comp: Any, components: Mapping[str, Any]) -> None:
    """Checks of a component's places that need the whole game: the held component exists and
    has a particle field, each card gets a layout for its number of particles, and every place
    and label lies on the component (an input error: such a place cannot be drawn at all)."""
    layout = comp.places
    _check_layout(comp.id, layout, comp.cards, components)
    for card in comp.cards:
        if layout.takes_field is not None:
            _check_card_count(comp.id, layout, card)
        for place in card_places(layout, card.places, card.fields):
            _check_place(comp, place, components)


def _check_layout(comp_id: str, layout: PlaceLayout, cards: Any, components: Mapping[str, Any]) -> None:
    """The layout as a whole: the component it holds, its particle field, its number of places."""
    key_loc = layout.location
    if layout.holds not in components:
        raise InputError(f"the places of component '{comp_id}' hold unknown component '{layout.holds}'"
                         f"{did_you_mean(layout.holds, components)}", key_loc, f"use one of: {', '.join(components)}")
    if layout.takes_field is not None:
        spec = components[comp_id].fields.get(layout.takes_field)
        if spec is None or spec.type != "list" or spec.of != "particle":
            raise InputError(f"'takes_field: {layout.takes_field}' is not a particle-list field of '{comp_id}'",
                             key_loc, "name a field declared as {type: list, of: particle}")
    total = sum(len(card.places) if card.places is not None else
                len(layout.fixed) if layout.fixed is not None else
                len(card.fields.get(layout.takes_field or "") or ()) for card in cards)
    if total > MAX_PLACES_PER_COMPONENT:
        raise InputError(f"component '{comp_id}' has {total} places over its cards, more than the limit of "
                         f"{MAX_PLACES_PER_COMPONENT}", key_loc, "declare fewer places or split the component")


def _check_card_count(comp_id: str, layout: PlaceLayout, card: Any) -> None:
    """A card whose places follow its particles: a layout (or its own list) for exactly that many."""
    n = len(card.fields.get(layout.takes_field) or ())
    if card.places is None and n not in layout.by_count:
        raise InputError(f"card '{card.id}' lists {n} particles in '{layout.takes_field}' but the places of "
                         f"'{comp_id}' have layouts for {', '.join(map(str, sorted(layout.by_count))) or 'none'}",
                         card.where(layout.takes_field),
                         f"add a {n}-place layout under 'by_count' or give the card its own 'places:'")
    if card.places is not None and len(card.places) != n:
        raise InputError(f"card '{card.id}' declares {len(card.places)} places for {n} particles",
                         card.location, f"list exactly {n} places")


def _check_place(comp: Any, place: Place, components: Mapping[str, Any]) -> None:
    """One place: what it takes exists, and it and its label lie on the component."""
    layout = comp.places
    if place.takes.particles or place.takes.categories:
        particle_field(layout, components, layout.location)
    if place.takes.component is not None and place.takes.component not in components:
        raise InputError(f"{place.name} takes cards of unknown component '{place.takes.component}'"
                         f"{did_you_mean(place.takes.component, components)}", place.location,
                         f"use one of: {', '.join(components)}")
    for what, box in ((place.name, place.box), (f"the label of {place.name}", place.label_box)):
        beyond = _beyond(box, comp.width, comp.height) if box is not None else ""
        if beyond:
            raise InputError(f"{what} ({box.describe()}) lies outside component '{comp.id}' "
                             f"({fmt_mm(comp.width)} × {fmt_mm(comp.height)} mm): {beyond}", place.location,
                             "move or shrink the place so it (and its label) lies on the component")


def _beyond(box: Box, width: float, height: float) -> str:
    """How far a box reaches past the edges of a width × height area, or '' if it stays on it."""
    parts = [f"{fmt_mm(d)} mm past the {edge} edge" for edge, d in
             (("left", -box.x), ("top", -box.y), ("right", box.right - width), ("bottom", box.bottom - height))
             if d > 1e-6]
    return ", ".join(parts)


def beyond_safe(box: Box, width: float, height: float, safe: float) -> str:
    """How far a box reaches into the safe margin, or ''."""
    shifted = Box(box.x - safe, box.y - safe, box.width, box.height)
    return _beyond(shifted, width - 2 * safe, height - 2 * safe)


def particle_field(layout: PlaceLayout, components: Mapping[str, Any], loc: Location | None = None) -> str:
    """The particle field of the held component that particle and category places match: the
    declared ``field`` or the component's only particle field."""
    comp = components[layout.holds]
    found = [n for n, spec in comp.fields.items() if spec.type == "particle"]
    name = layout.field or (found[0] if len(found) == 1 else None)
    if name is None or name not in found:
        detail = (f"no particle field '{layout.field}'" if layout.field else
                  f"several particle fields ({', '.join(found)})" if found else "no particle field")
        raise InputError(f"component '{comp.id}', whose cards the places hold, has {detail}", loc or layout.location,
                         "set 'field:' in the places block to one of its particle fields" if found
                         else "declare a field with 'type: particle' in that component")
    return name


def card_size(layout: PlaceLayout, place: Place, components: Mapping[str, Any]) -> tuple[str, float, float]:
    """The component whose cards go on the place, and their trim size as laid (rotated if the
    place says so)."""
    cid = place.takes.component or layout.holds
    comp = components[cid]
    w, h = comp.width, comp.height
    return (cid, h, w) if place.rotate else (cid, w, h)


def template_view(place: Place, physics: PhysicsData) -> dict[str, Any]:
    """What a template reads of a place: its box, its label strip (None without one), its group
    and what it takes (particles as Particle objects), in millimetres of the trim box."""
    label = place.label_box
    return {"id": place.id, "x": place.box.x, "y": place.box.y, "width": place.box.width, "height": place.box.height,
            "rotate": place.rotate, "group": place.group,
            "label": None if label is None else {"x": label.x, "y": label.y, "width": label.width,
                                                 "height": label.height, "side": place.label.side},
            "particles": [physics.particles[pid] for pid in place.takes.particles],
            "categories": list(place.takes.categories), "component": place.takes.component}
