"""Places where cards are laid (a board's slots, a target's areas) hold real cards.

Two concerns, one rule each:

* ``places-fit`` (generic, every component that declares ``places:``): a card of the component a
  place takes fits inside it with the declared room to spare on every side, no place or label
  overlaps another, and all of them lie inside the safe area — so a teacher can lay a real card
  on every place without hiding a neighbour or its label. Cards of other components go on the
  places whose particles they show (a level's extra W cards on the mat's W places) and must fit
  too; tokens must fit what they are laid on (a colour token within a quark card, vertex tokens
  on neighbouring vertices of the lozenge lattice clear of each other). Both are derived from
  the particles, fields and shapes, never listed per game.
* ``places-cover-deck`` (declared in ``checks:``): every card of the deck has a place of its own,
  or a stacking rule the data declares (with its reason) puts it on another card's place; no
  place duplicates another (left empty while its cards lie elsewhere); and on a board whose
  places are states (``exclusion: pauli``) quarks and leptons (half-integer spin) are never
  stacked: they share a place only one card at a time, and a pile rule that would stack them is
  reported (Pauli exclusion).
"""

from __future__ import annotations

import math
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
from .common import card_particle_field, component_param
from .common import particle_field as deck_particle_field
from .generic_rules import line_corners

EPS = 1e-6


def _mm(value: float) -> str:
    return fmt_mm(round(value, 2))


@generic("places-fit")
def places_fit(game: Game) -> Iterator[Finding | Proof]:
    """Every declared place holds a real card of what it takes with room to spare, and no
    place or label covers another or leaves the safe area; a game with nothing to lay on
    anything says so."""
    said = False
    for comp in game.components.values():
        if comp.places is not None:
            for record in _component_fit(game, comp, comp.places):
                said = True
                yield record
    for token in game.components.values():
        if token.kind == "token":
            for record in (*_token_on_cards(game, token), *_tokens_on_vertices(game, token)):
                said = True
                yield record
    if not said:
        yield Proof("places-fit", "no component declares places to lay pieces on, and no token is laid on cards or "
                    "vertices: nothing to fit", 0, game.id)


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
    findings.extend(_other_decks_fit(game, comp, layout, [p for face in faces for p in face], sizes))
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


# --- tokens laid on cards ---------------------------------------------------------------------

def _reach(comp: Component) -> float:
    """The radius of the smallest circle around the piece's centre that holds its outline: how
    far a token reaches from the point it is laid on, however it is turned."""
    w, h, shape = comp.width, comp.height, comp.shape
    if shape.type == "hexagon":   # a regular hexagon's corners touch the box on two opposite sides
        return (h if shape.pointy else w) / 2
    if shape.type in ("circle", "lozenge"):   # an ellipse; a rhombus with its corners mid-side
        return max(w, h) / 2
    return math.hypot(w, h) / 2


def _token_on_cards(game: Game, token: Component) -> Iterator[Finding | Proof]:
    """A token whose cards name a colour charge is laid on a card of a particle that carries one
    colour: a quark or antiquark (colour-charged, half-integer spin; a gluon carries a colour and
    an anticolour, which one token cannot show). It must lie within that card, or it hides the
    card and hangs over the table. Which cards is derived from the particles, not listed per game."""
    if not any(spec.type == "colour" for spec in token.fields.values()):
        return
    bearers: dict[str, Component] = {}
    for comp in game.components.values():
        field = card_particle_field(comp)
        if field is not None and comp.id != token.id and any(
                (p := card.fields.get(field)) is not None and p.colour_charged and p.is_fermion
                for card in comp.cards):
            bearers[comp.id] = comp
    if not bearers:
        return
    small = min(bearers.values(), key=lambda c: (min(c.width, c.height), max(c.width, c.height)))
    fits = min(token.width, token.height) <= min(small.width, small.height) + EPS and \
        max(token.width, token.height) <= max(small.width, small.height) + EPS
    names = ", ".join(f"'{cid}'" for cid in bearers)
    if not fits:
        yield Finding("places-fit", f"'{token.id}' tokens ({_mm(token.width)} × {_mm(token.height)} mm) name a colour "
                      f"charge and are laid on quark cards ({names}), but do not fit within "
                      f"a {_mm(small.width)} × {_mm(small.height)} mm card of '{small.id}'", token.where("size"),
                      f"make the tokens at most {_mm(min(small.width, small.height))} mm across so one lies within "
                      "the card it marks", game.id)
        return
    yield Proof("places-fit", f"{token.id}: {_mm(token.width)} × {_mm(token.height)} mm tokens lie within the "
                f"{_mm(small.width)} × {_mm(small.height)} mm quark cards they mark ({names})",
                token.total, game.id, token.where("size"))


def _tokens_on_vertices(game: Game, token: Component) -> Iterator[Finding | Proof]:
    """A token whose cards show a vertex (a field referring to a table of kind ``vertices``)
    is laid on a vertex of the lattice the lozenge cards form. A card's particle line joins its
    obtuse corners, so neighbouring vertices lie one short diagonal apart, and two tokens on
    neighbouring vertices must not overlap however they are turned."""
    if not any(spec.type == "ref" and spec.table in game.tables and game.tables[spec.table].kind == "vertices"
               for spec in token.fields.values()):
        return
    lozenges = [c for c in game.components.values() if c.shape.type == "lozenge" and c.shape.angle is not None]
    if not lozenges:
        return
    edge, cards = min(((line_corners(c)[1], c) for c in lozenges), key=lambda ec: ec[0])
    across = 2 * _reach(token)
    if across > edge + EPS:
        yield Finding("places-fit", f"'{token.id}' tokens ({_mm(token.width)} × {_mm(token.height)} mm, "
                      f"{_mm(across)} mm across) are laid on vertices, which lie {_mm(edge)} mm apart (the particle "
                      f"line of a '{cards.id}' card): tokens on neighbouring vertices overlap by {_mm(across - edge)} mm",
                      token.where("size"), f"make the tokens at most {_mm(edge)} mm across", game.id)
        return
    yield Proof("places-fit", f"{token.id}: tokens {_mm(across)} mm across on vertices {_mm(edge)} mm apart (the "
                f"particle line of a '{cards.id}' card): tokens on neighbouring vertices never overlap",
                token.total, game.id, token.where("size"))


def _other_decks_fit(game: Game, comp: Component, layout: PlaceLayout, places: list[Place],
                     sizes: dict[tuple[float, float], None]) -> Iterator[Finding]:
    """Cards of other components than the held one go on the places too whenever the particle
    they show is one a place takes (Level 5's extra W cards go on the mat's W places): each must
    fit every such place as the held cards do. Derived from the particles, so no list of
    components to fit is typed per board. One finding per component, at its ``size``: the places
    were made for the held cards, the other deck is the odd one."""
    held = game.components[layout.holds]
    for other in game.components.values():
        field = card_particle_field(other)
        if other.id in (layout.holds, comp.id) or field is None or (
                other.width <= held.width + EPS and other.height <= held.height + EPS):
            continue   # no larger than the held cards: the places' own check covers them
        shown = list({p.id: p for p in (card.fields.get(field) for card in other.cards) if p is not None}.values())
        # one check per drawn place (a target's layout serves every target with that many areas)
        laid = {(p.name, p.box, p.rotate): p for p in places
                if p.takes.component is None and any(p.takes.accepts(q) for q in shown)}
        short: list[Place] = []
        for place in laid.values():
            w, h = (other.height, other.width) if place.rotate else (other.width, other.height)
            if w + 2 * layout.spare - place.box.width > EPS or h + 2 * layout.spare - place.box.height > EPS:
                short.append(place)
            else:
                sizes[(w, h)] = None
        if short:
            room = [(p.box.height, p.box.width) if p.rotate else (p.box.width, p.box.height) for p in short]
            max_w, max_h = (min(r[i] for r in room) - 2 * layout.spare for i in (0, 1))
            names = ", ".join(f"{p.name} ({_mm(p.box.width)} × {_mm(p.box.height)} mm)" for p in short)
            yield Finding("places-fit", f"cards of '{other.id}' ({_mm(other.width)} × {_mm(other.height)} mm) show "
                          f"particles the places of '{comp.id}' take, but do not fit {names} with "
                          f"{_mm(layout.spare)} mm to spare on every side", other.where("size"),
                          f"make the cards of '{other.id}' at most {_mm(max_w)} × {_mm(max_h)} mm (the "
                          f"'{layout.holds}' cards they join are {_mm(held.width)} × {_mm(held.height)} mm), or "
                          "the places larger", game.id)


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
    component (an annihilation or discard area) are not a card's own place. With ``exclusion:
    pauli`` the places stand for states, as on Particle Builder's mat: quarks and leptons
    (half-integer spin, derived from each card) are never piled (a discard pile of a card game
    piles any card)."""
    board = component_param(game, params)
    pauli = params.get("exclusion", S.choice(("pauli", "none")), "none") == "pauli"
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
        yield from _cover(game, board, layout, own, deck, demand, pauli)


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
           demand: list[tuple[int, Particle]], pauli: bool) -> Iterator[Finding | Proof | Choice]:
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
    duplicates = list(_duplicates(game, board, places, owner, demand, deck))
    yield from duplicates
    placed: Counter[str] = Counter(demand[i][1].id for i in matched)
    taken = {pid for place in places for pid in place.takes.particles}
    categories = {c for place in places for c in place.takes.categories}
    stacked: dict[tuple[Stacking, bool], int] = {}   # (rule, cards are fermions kept apart) -> cards
    piled: dict[Stacking, dict[str, Particle]] = {}     # fermions a pile rule would stack
    missing: Counter[str] = Counter()
    for i, (_, p) in enumerate(demand):
        if i in matched:
            continue
        rule = _stacking_rule(layout, p, placed, places, taken, categories, game)
        if rule is None:
            missing[p.id] += 1
            continue
        if pauli and rule.stack == "pile" and p.is_fermion:
            piled.setdefault(rule, {})[p.id] = p
        apart = pauli and p.is_fermion
        stacked[(rule, apart)] = stacked.get((rule, apart), 0) + 1
        placed[p.id] += 1
    yield from _pauli(game, board, piled)
    for pid, n in missing.items():
        p = game.physics.particles[pid]
        yield Finding("places-cover-deck", f"no place on '{board.id}' takes {p.symbol.unicode()} ({p.name}): "
                      f"{n} card(s) of '{deck.id}' have no place, and no stacking rule covers them", layout.location,
                      f"add a place that takes {pid}, or a stacking rule (stack: antiparticle, copies or pile) "
                      "with its reason",
                      game.id)
    if missing or piled or duplicates:
        return
    parts = [f"{len(matched)} on a place of their own"]
    for (rule, fermions), n in stacked.items():
        noun, place = {"antiparticle": ("antiparticles", "their particle's place"),
                       "copies": ("copies", "their first copy's place"),
                       "pile": ("cards", "a place that takes them")}[rule.stack]
        # on a board of states (exclusion: pauli), half-integer spin: never on top of another
        # card, so they take the place only while it is empty (the rulebook's "one card per
        # slot"); otherwise any number stack there
        what = (f"{noun} of half-integer spin share {place}, one card at a time" if fermions
                else f"{noun} stack on {place}")
        parts.append(f"{n} {what}")
        yield Choice("places-cover-deck", f"'{board.id}': {n} {what}", " ".join(rule.reason.split()), rule.location,
                     game.id)
    yield Proof("places-cover-deck", f"{board.id}: all {len(demand)} cards of '{deck.id}' have a place "
                f"({'; '.join(parts)})", len(demand), game.id, layout.location)


def _pauli(game: Game, board: Component, piled: dict[Stacking, dict[str, Particle]]) -> Iterator[Finding]:
    """Quarks and leptons (half-integer spin) are never stacked, not even on copies of
    themselves: no two identical fermions share a state (Pauli exclusion), which the games
    turn into one card per slot. Derived from each card's spin, so a pile rule that names no
    category, or a fermion one, is caught whatever the game."""
    for rule, particles in piled.items():
        symbols = ", ".join(p.symbol.unicode() for p in particles.values())
        yield Finding("places-cover-deck", f"a stacking rule of '{board.id}' piles {symbols} (half-integer spin) "
                      "on one place: quarks and leptons are never stacked, not even on a copy of themselves "
                      "(Pauli exclusion principle)", rule.location,
                      "limit the pile to integer-spin particles ('category: boson') and give these cards places of "
                      "their own (or let them share their particle's place one card at a time with 'stack: copies' "
                      "or 'stack: antiparticle')", game.id)


def _duplicates(game: Game, board: Component, places: list[Place], owner: list[int | None],
                demand: list[tuple[int, Particle]], deck: Component) -> Iterator[Finding]:
    """A place left empty although the deck has cards it takes duplicates other places: the
    matching gives every place a card when it can, so all of those cards found a place already.
    Such a place is almost always one that should take another particle (the template labels it
    with a particle another place already shows, and that other particle is left without a
    place of its own, hidden by a stacking rule)."""
    own = {demand[i][1].id for i in owner if i is not None}
    unplaced = {p.id: p for _, p in demand if p.id not in own}
    for j, place in enumerate(places):
        if owner[j] is not None:
            continue
        takes = {p.id: p for _, p in demand if place.takes.accepts(p)}
        if not takes:
            continue
        others = [q.name for k, q in enumerate(places)
                  if k != j and owner[k] is not None and demand[owner[k]][1].id in takes]
        symbols = ", ".join(p.symbol.unicode() for p in takes.values())
        kin = [p.symbol.unicode() for p in unplaced.values() if any(t.category == p.category for t in takes.values())]
        lacking = "" if not kin else (f" ({', '.join(kin)}, of the same kind, "
                                      + ("has no place of its own)" if len(kin) == 1 else "have no places of their own)"))
        yield Finding("places-cover-deck", f"{place.name} of '{board.id}' takes {symbols}, whose cards of "
                      f"'{deck.id}' all have a place already ({', '.join(others)}): it duplicates "
                      f"{'it' if len(others) == 1 else 'them'} and no card is left for it",
                      place.location, "make it take the particle it is meant for"
                      + lacking + ", or remove it", game.id)


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
