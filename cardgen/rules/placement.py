"""Places where cards are laid (a board's slots, a target's areas) hold real cards.

Two concerns, one rule each:

* ``places-fit`` (generic, every component that declares ``places:``): a card of the component a
  place takes fits inside it with the declared room to spare on every side, no place or label
  overlaps another, and all of them lie inside the safe area — so a teacher can lay a real card
  on every place without hiding a neighbour or its label.
* ``places-cover-deck`` (declared in ``checks:``): every card of the deck has a place of its own,
  or a stacking rule the data declares (with its reason) puts it on another card's place.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Iterator

from .. import schema as S
from ..errors import Finding, InputError
from ..model import Component, Game
from ..paper import fmt_mm
from ..particles import Particle
from ..places import Box, Place, PlaceLayout, Stacking, Takes, beyond_safe, card_size, particle_field
from ..proof import Choice, Proof
from . import declared, generic
from .common import component_param
from .common import particle_field as deck_particle_field

EPS = 1e-6


def _mm(value: float) -> str:
    return fmt_mm(round(value, 2))


@generic("places-fit")
def places_fit(game: Game) -> Iterator[Finding | Proof]:
    """Every declared place holds a real card of what it takes with room to spare, and no
    place or label covers another or leaves the safe area."""
    for comp in game.components.values():
        if comp.places is not None:
            yield from _component_fit(game, comp, comp.places)


def _component_fit(game: Game, comp: Component, layout: PlaceLayout) -> Iterator[Finding | Proof]:
    findings: list[Finding] = []
    margins: list[float] = []
    sizes: dict[tuple[float, float], None] = {}
    faces = [comp.places_of(card) for card in comp.cards]
    checked: set[tuple] = set()
    # A place is checked once however many cards share it (one layout serves every target with
    # that many particles): only what it takes differs, and of that only a whole component
    # changes the size of the card laid there.
    for places in dict.fromkeys(tuple(replace(p, takes=_sized(p)) for p in face) for face in faces):
        for place in places:
            cid, cw, ch = card_size(layout, place, game.components)
            sizes[(cw, ch)] = None
            margins.append(min(place.box.width - cw, place.box.height - ch) / 2)
            if (place, cid) not in checked:
                checked.add((place, cid))
                findings.extend(_fit(game, comp, layout, place, cid, cw, ch))
                findings.extend(_safe(game, comp, place))
        findings.extend(_overlaps(game, comp, places))
    counted = sum(len(p) for p in faces)
    if not counted:
        return
    yield from dict.fromkeys(findings)
    if findings:
        return
    held = " and ".join(f"{_mm(w)} × {_mm(h)} mm" for w, h in sizes)
    on = f" on {len(comp.cards)} cards" if len(comp.cards) > 1 else ""
    yield Proof("places-fit", f"{comp.id}: {counted} places{on} hold {held} cards with ≥ {_mm(layout.spare)} mm to "
                f"spare (smallest margin {min(margins):.1f} mm); no overlaps; all inside the safe area",
                counted, game.id, layout.location)


def _sized(place: Place) -> Takes:
    """What decides the size of the cards laid on a place: only a whole-component place takes
    cards of another size than the held component's."""
    return Takes(component=place.takes.component)


def _fit(game: Game, comp: Component, layout: PlaceLayout, place: Place, cid: str, cw: float,
         ch: float) -> Iterator[Finding]:
    need_w, need_h = cw + 2 * layout.spare, ch + 2 * layout.spare
    short = [f"{_mm(n - have)} mm too {word}" for n, have, word in
             ((need_w, place.box.width, "narrow"), (need_h, place.box.height, "short")) if n - have > EPS]
    if short:
        turned = " (turned)" if place.rotate else ""
        yield Finding("places-fit", f"{place.name} of '{comp.id}' is {_mm(place.box.width)} × {_mm(place.box.height)} mm; "
                      f"a {_mm(cw)} × {_mm(ch)} mm card of '{cid}'{turned} needs {_mm(need_w)} × {_mm(need_h)} mm "
                      f"({_mm(layout.spare)} mm to spare on every side): {' and '.join(short)}", place.location,
                      f"make the place at least {_mm(need_w)} × {_mm(need_h)} mm", game.id)


def _safe(game: Game, comp: Component, place: Place) -> Iterator[Finding]:
    for what, box in ((place.name, place.box), (f"the label of {place.name}", place.label_box)):
        if box is None:
            continue
        beyond = beyond_safe(box, comp.width, comp.height, comp.safe)
        if beyond:
            yield Finding("places-fit", f"{what} of '{comp.id}' ({box.describe()}) leaves the safe area "
                          f"({_mm(comp.safe)} mm inside the trim edge): {beyond}", place.location,
                          f"move it at least {_mm(comp.safe)} mm inside the trim edge", game.id)


def _overlaps(game: Game, comp: Component, places: tuple[Place, ...]) -> Iterator[Finding]:
    boxes: list[tuple[str, Box, Place]] = []
    for place in places:
        boxes.append((place.name, place.box, place))
        if place.label_box is not None:
            boxes.append((f"the label of {place.name}", place.label_box, place))
    for i, (name_b, b, place_b) in enumerate(boxes):
        for name_a, a, place_a in boxes[:i]:
            w, h = a.overlap(b)
            if w > EPS and h > EPS:
                yield Finding("places-fit", f"{name_b} of '{comp.id}' overlaps {name_a} by {_mm(w)} × {_mm(h)} mm",
                              place_b.location, "move the places apart so a card laid on one leaves the other "
                              "and both labels visible", game.id)


# --- every card has a place ------------------------------------------------------------------

@declared("places-cover-deck")
def places_cover_deck(game: Game, params: S.Fields) -> Iterator[Finding | Proof | Choice]:
    """Every card of ``deck`` (by default the component the places hold), copies and
    antiparticles included, has a place on each face of ``component`` that takes it, or a
    stacking rule of the places puts it on another card's place. Places that take any card of a
    component (an annihilation or discard area) are not a card's own place."""
    board = component_param(game, params)
    layout = board.places
    if layout is None:
        raise InputError(f"component '{board.id}' declares no places", params.map.where("component"),
                         "add a 'places:' block to it (see docs/data-format.md)")
    deck = component_param(game, params, "deck") if params.has("deck") else game.components[layout.holds]
    field = particle_field(layout, game.components)
    if deck.id != layout.holds:
        field = deck_particle_field(deck, params, "deck_field")
    demand = _demand(deck, field)
    for card in board.cards:
        own = [p for p in board.places_of(card) if p.takes.component is None]
        yield from _cover(game, board, layout, own, deck, demand)


def _demand(deck: Component, field: str) -> list[tuple[int, Particle]]:
    """Every copy of every particle card, first copies and particles before further copies and
    antiparticles: the matching gives places to the earlier ones first, so the stacking rules
    cover exactly the cards that need them."""
    cards: list[tuple[tuple[bool, bool, int], int, Particle]] = []
    order = 0
    for card in deck.cards:
        p = card.fields.get(field)
        if p is None:
            continue
        for copy in range(card.count):
            cards.append(((copy > 0, p.is_anti, order), copy, p))
            order += 1
    return [(copy, p) for _, copy, p in sorted(cards, key=lambda c: c[0])]


def _cover(game: Game, board: Component, layout: PlaceLayout, places: list[Place], deck: Component,
           demand: list[tuple[int, Particle]]) -> Iterator[Finding | Proof | Choice]:
    owner: list[int | None] = [None] * len(places)     # place index -> demand index
    failed: set[str] = set()                           # particles with no augmenting path (Kuhn: stays so)

    def augment(i: int, seen: set[int]) -> bool:
        p = demand[i][1]
        for j, place in enumerate(places):
            if j in seen or not place.takes.accepts(p):
                continue
            seen.add(j)
            if owner[j] is None or augment(owner[j], seen):   # type: ignore[arg-type]
                owner[j] = i
                return True
        return False

    matched: set[int] = set()
    for i, (_, p) in enumerate(demand):
        if p.id not in failed and augment(i, set()):
            matched.add(i)
        else:
            failed.add(p.id)
    placed: Counter[str] = Counter(demand[i][1].id for i in matched)
    taken = {pid for place in places for pid in place.takes.particles}
    categories = {c for place in places for c in place.takes.categories}
    stacked: dict[Stacking, int] = {}
    missing: Counter[str] = Counter()
    for i, (_, p) in enumerate(demand):
        if i in matched:
            continue
        rule = _stacking_rule(layout, p, placed, places, taken, categories, game)
        if rule is None:
            missing[p.id] += 1
            continue
        stacked[rule] = stacked.get(rule, 0) + 1
        placed[p.id] += 1
    for pid, n in missing.items():
        p = game.physics.particles[pid]
        yield Finding("places-cover-deck", f"no place on '{board.id}' takes {p.symbol.unicode()} ({p.name}): "
                      f"{n} card(s) of '{deck.id}' have no place, and no stacking rule covers them", layout.location,
                      f"add a place that takes {pid}, or a stacking rule (stack: antiparticle, copies or pile) "
                      "with its reason",
                      game.id)
    if missing:
        return
    parts = [f"{len(matched)} on a place of their own"]
    for rule, n in stacked.items():
        what = {"antiparticle": "antiparticles stack on their particle's place",
                "copies": "copies stack on their first copy's place",
                "pile": "cards stack on a place that takes them"}[rule.stack]
        parts.append(f"{n} {what}")
        yield Choice("places-cover-deck", f"'{board.id}': {n} {what}", " ".join(rule.reason.split()), rule.location,
                     game.id)
    yield Proof("places-cover-deck", f"{board.id}: all {len(demand)} cards of '{deck.id}' have a place "
                f"({'; '.join(parts)})", len(demand), game.id, layout.location)


def _stacking_rule(layout: PlaceLayout, p: Particle, placed: Counter[str], places: list[Place], taken: set[str],
                   categories: set[str], game: Game) -> Stacking | None:
    """The first declared rule that lets this card share a place: its antiparticle's place (if
    a place takes the antiparticle), an earlier copy's place, or any place that takes it (a pile)."""
    anti = game.physics.particles.get(p.antiparticle)
    for rule in layout.stacking:
        if not rule.covers(p):
            continue
        if rule.stack == "antiparticle" and anti is not None and anti.id != p.id and (
                anti.id in taken or anti.category in categories):
            return rule
        if rule.stack == "copies" and placed[p.id] > 0:
            return rule
        if rule.stack == "pile" and any(place.takes.accepts(p) for place in places):
            return rule
    return None
