"""Deck-composition rules: counts, antiparticle pairs, colour balance (places on a mat: rules/placement.py)."""

from __future__ import annotations

import colorsys
import re
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path
from typing import Generator, Iterator

from .. import schema as S
from ..errors import Finding, InputError
from ..model import Card, Component, Game
from ..particles import ColourCharge, Particle
from ..proof import Choice, Proof
from ..readability import hex_rgb
from ..yamlsrc import YMap
from . import declared, generic
from .common import card_key, card_particle_field, component_param, particle_field, typed_field


@declared("deck-size")
def deck_size(game: Game, params: S.Fields) -> Iterator[Finding | Proof]:
    """``total`` cards in the component and, with ``by`` + ``counts``, the split by a card field
    (``by: line``) or a particle property (``by: particle.category``)."""
    comp = component_param(game, params)
    total, by, counts = _deck_size_params(params)
    total_ok = total is None or comp.total == total
    if not total_ok:
        where = params.map.where("total")
        yield Finding("deck-size", f"component '{comp.id}' has {comp.total} cards, the game needs {total}",
                      comp.location, f"adjust the card counts so they add up to {total}, or, if the new size is "
                      f"intended, change 'total: {total}' on line {where.line} of {Path(where.file).name}", game.id)
    split_ok = True
    if by is not None and counts is not None:
        split_ok = yield from _split_findings(game, comp, by, counts, params)
    if total_ok and split_ok and (total is not None or by is not None):
        split = "".join(f", {n} {key}" for key, n in counts.items()) if by is not None and counts else ""
        kind = comp.kind if comp.total == 1 else f"{comp.kind}s"
        yield Proof("deck-size", f"{comp.id}: {comp.total} {kind}{split}, as declared", comp.total, game.id,
                    params.loc)


def _deck_size_params(params: S.Fields) -> tuple[int | None, str | None, YMap | None]:
    """deck-size's ``total``, ``by`` (a field name) and ``counts`` (given with ``by`` or not at all)."""
    total = params.get("total", S.integer(1), None)
    by = params.get("by", S.text, None)
    if by is not None and not re.fullmatch(r"[A-Za-z0-9_+\-~.]+", by):
        raise InputError(f"'by: {S.shown(by)}' is not a field name", params.map.where("by"),
                         "write a field of the component, or particle.category")
    counts = params.get("counts", S.mapping, None)
    if (by is None) != (counts is None):
        raise InputError("'by' and 'counts' go together", params.loc, "give both or neither")
    return total, by, counts


def _split_findings(game: Game, comp: Component, by: str, counts: YMap,
                    params: S.Fields) -> Generator[Finding, None, bool]:
    """The cards counted by ``by`` against ``counts``: a finding for each value whose count
    differs; returns whether all agreed."""
    head = by.partition(".")[0]
    if head not in comp.fields:
        raise InputError(f"component '{comp.id}' has no field '{head}'", params.map.where("by"),
                         f"use one of: {', '.join(comp.fields)}")
    actual: Counter[str] = Counter()
    for card in comp.cards:
        actual[str(card_key(card, by))] += card.count
    split_ok = True
    for key in sorted(set(actual) | set(counts)):
        want = counts.get(key, 0)
        if not isinstance(want, int) or isinstance(want, bool) or want < 0:
            raise InputError(f"count for '{S.shown(key)}' must be a whole number ≥ 0", counts.where(key), "write e.g. 13")
        if actual[key] != want:
            split_ok = False
            where = counts.where(key) if key in counts else params.map.where("counts")
            yield Finding("deck-size", f"component '{comp.id}' has {actual[key]} card(s) with {by} = {key}, "
                          f"the game needs {want}", counts.where(key) if key in counts else comp.location,
                          f"make the cards with {by} = {key} add up to {want}, or, if intended, change "
                          f"'{key}: {want}' in the counts on line {where.line} of {Path(where.file).name}", game.id)
    return split_ok


@declared("antiparticles-present")
def antiparticles_present(game: Game, params: S.Fields) -> Iterator[Finding | Proof]:
    """Every fermion card's antiparticle is in the deck (with ``balanced``, as often as the card
    itself; with ``match_colour``, in the anti-colour: a red u needs an anti-red ū)."""
    comp = component_param(game, params)
    field = particle_field(comp, params)
    balanced = params.get("balanced", S.boolean, False)
    match_colour = params.get("match_colour", S.boolean, False)
    colour_field = (typed_field(comp, params, "colour_field", "colour", ("colour",), "colour", required=False)
                    if match_colour else None)
    physics = game.physics

    def colour_of(card: Card, p: Particle) -> ColourCharge | None:
        """The card's colour, where it is one: a colour on a colourless particle (an electron
        printed red) is colour-balance's finding, and pairs no antiparticle by colour."""
        return card.fields.get(colour_field) if colour_field and p.colour_charged else None

    counts: Counter[tuple[str, str | None]] = Counter()
    for card in comp.cards:
        p = card.fields.get(field)
        if p is None:
            continue
        colour = colour_of(card, p)
        counts[(p.id, colour.id if colour else None)] += card.count
    fermions, missing = 0, False
    for card in comp.cards:
        p = card.fields.get(field)
        if p is None or not p.is_fermion:
            continue
        fermions += card.count
        colour = colour_of(card, p)
        anti_key = (p.antiparticle, physics.colours[colour.anti].id if colour else None)
        own = counts[(p.id, colour.id if colour else None)]
        needed = own if balanced else 1
        if counts[anti_key] < needed:
            missing = True
            what = physics.particles[p.antiparticle].name + (f" ({anti_key[1]})" if anti_key[1] else "")
            yield Finding("antiparticles-present", f"card '{card.id}' ({p.name}) has no matching antiparticle card: "
                          f"{counts[anti_key]} × {what} for {own} × {p.name}", card.where(field),
                          f"add {needed - counts[anti_key]} card(s) of {what}", game.id)
    if not missing:
        how = (" as often as itself" if balanced else "") + (", in the anti-colour" if colour_field else "")
        yield Proof("antiparticles-present", f"{comp.id}: each of the {fermions} fermion cards has its antiparticle "
                    f"in the deck{how}", fermions, game.id, params.loc)


@declared("colour-balance")
def colour_balance(game: Game, params: S.Fields) -> Iterator[Finding | Proof]:
    """Colour-charged cards carry a colour of the right sort (quarks a colour, antiquarks an
    anti-colour), colourless cards carry none, and each flavour comes in all three colours
    equally often. A gluon carries a colour and an anti-colour at once, which one colour field
    cannot describe: it has no place in such a deck."""
    comp = component_param(game, params)
    field = particle_field(comp, params)
    colour_field = typed_field(comp, params, "colour_field", "colour", ("colour",), "colour", required=False)
    colours = game.physics.colours
    by_particle: dict[str, Counter[str]] = defaultdict(Counter)
    colourless, wrong = 0, False
    for card in comp.cards:
        p, c = card.fields.get(field), card.fields.get(colour_field)
        if p is None:
            continue
        if not p.colour_charged:
            colourless += card.count
            if c is not None:
                wrong = True
                yield Finding("colour-balance", f"card '{card.id}': {p.name} has no colour charge but is given "
                              f"'{c.id}'", card.where(colour_field), f"remove '{colour_field}'", game.id)
            continue
        if not p.is_fermion:   # a gluon: a colour and an anti-colour at once (an octet), never one of them
            wrong = True
            yield Finding("colour-balance", f"card '{card.id}': a {p.name} carries a colour and an anti-colour at "
                          f"once (a colour octet), which no single colour"
                          f"{' such as ' + repr(c.id) if c is not None else ''} describes",
                          card.where(colour_field) if c is not None else card.where(field),
                          f"leave the {p.name} out of '{comp.id}', whose '{colour_field}' holds one colour charge: "
                          f"a quark's colour or an antiquark's anti-colour", game.id)
            continue
        if c is None:
            wrong = True
            yield Finding("colour-balance", f"card '{card.id}': {p.name} carries colour charge but has no colour",
                          card.location, f"add '{colour_field}: red' (or green, blue)", game.id)
            continue
        if c.is_anti != p.is_anti:
            wrong = True
            right = "an anti-colour" if p.is_anti else "a colour"
            yield Finding("colour-balance", f"card '{card.id}': {p.name} must carry {right}, not '{c.id}'",
                          card.where(colour_field), f"use {right} ({', '.join(x.id for x in colours.values() if x.is_anti == p.is_anti)})",
                          game.id)
            continue
        by_particle[p.id][c.id] += card.count
    for pid, per_colour in by_particle.items():
        p = game.physics.particles[pid]
        expected = [c.id for c in colours.values() if c.is_anti == p.is_anti]
        amounts = {c: per_colour.get(c, 0) for c in expected}
        if len(set(amounts.values())) != 1:
            wrong = True
            listing = ", ".join(f"{c} {n}" for c, n in amounts.items())
            most = max(amounts.values())
            yield Finding("colour-balance", f"{p.name} cards are not spread evenly over the colours ({listing})",
                          comp.location, f"give each colour {most} card(s) of {p.name}", game.id)
    if not wrong:
        coloured = sum(sum(per.values()) for per in by_particle.values())
        yield Proof("colour-balance", f"{comp.id}: {coloured} colour-charged cards carry a colour of the right sort "
                    f"(quarks a colour, anti-quarks an anti-colour), each of their {len(by_particle)} particles "
                    f"equally often in all three; {colourless} colourless cards carry none", coloured + colourless,
                    game.id, params.loc)


@declared("colour-wheel")
def colour_wheel(game: Game, params: S.Fields) -> Iterator[Finding | Proof]:
    """Each anti-colour sits opposite its colour on the colour wheel (so a meson pairs opposite
    colours) and is the additive mix of the two other colours (how anti-quarks are printed)."""
    comp = component_param(game, params) if params.has("component") else None
    colours = game.physics.colours
    wrong = False
    for c in colours.values():
        a = colours[c.anti]
        if abs(((a.hue - c.hue) % 360) - 180) > 0.5:
            wrong = True
            yield Finding("colour-wheel", f"'{a.id}' (hue {a.hue:g}°) is not opposite '{c.id}' (hue {c.hue:g}°) on "
                          f"the colour wheel", a.location, f"set hue: {(c.hue + 180) % 360:g} on '{a.id}'", game.id)
        if any(x + y != 1 for x, y in zip(c.additive, a.additive)):
            wrong = True
            yield Finding("colour-wheel", f"'{a.id}' {list(a.additive)} is not the mix of the two colours other than "
                          f"'{c.id}' {list(c.additive)}", a.location,
                          f"set additive: {[1 - x for x in c.additive]} on '{a.id}'", game.id)
    used: set[str] = set()
    if comp is not None:
        field = typed_field(comp, params, "colour_field", "colour", ("colour",), "colour", required=False)
        used = {card.fields[field].id for card in comp.cards if card.fields.get(field) is not None}
        for cid in sorted(used):
            if colours[cid].anti not in used:
                wrong = True
                yield Finding("colour-wheel", f"component '{comp.id}' uses '{cid}' but never its partner "
                              f"'{colours[cid].anti}', so no meson can pair with it", comp.location,
                              f"add cards in '{colours[cid].anti}'", game.id)
    inks = list(_ink_records(game)) + list(_shared_cues(game)) + list(_letters_name_colours(game))
    yield from inks
    wrong = wrong or any(isinstance(r, Finding) for r in inks)
    if not wrong:
        partners = f"; '{comp.id}' uses {len(used)} of them, each with its partner" if comp is not None else ""
        declared = sum(isinstance(r, Choice) for r in inks)
        own = f" ({declared} by a declared choice)" if declared else ""
        yield Proof("colour-wheel", f"each of the {len(colours)} colours sits opposite its anti-colour on the colour "
                    f"wheel and the anti-colour is the mix of the two other colours; each is inked in its own hue, "
                    f"within {INK_HUE_TOLERANCE:g}°, or departs from it{own}, and lettered with its name's initial "
                    f"(an anti-colour: its colour's, barred){partners}",
                    len(colours), game.id, params.loc)


#: How far (degrees on the colour wheel) a colour's ink may sit from its hue and still be
#: named by it: red inked vermilion (26° off) is still red, green inked bluish green (44°) is not.
INK_HUE_TOLERANCE = 30.0


def ink_hue(hex_colour: str) -> float | None:
    """The hue (degrees) of an ink written '#RRGGBB' (or '#RGB'), or None for a grey, which
    has none, and for what is no such colour."""
    try:
        r, g, b = hex_rgb(hex_colour)
    except ValueError:
        return None
    h, _l, sat = colorsys.rgb_to_hls(r, g, b)
    return None if sat < 0.15 else h * 360


#: A colour's cues besides its name, each of which must tell it from every other colour: the
#: letter and the pattern are what colour-blind players read, the ink what everyone else does.
CUES = (("letter", "letter", "the letter is what colour-blind players read"),
        ("pattern", "pattern", "the pattern is what colour-blind players read"),
        ("print_colour", "print", "two colours printed in one ink cannot be told apart"))


def _shared_cues(game: Game) -> Iterator[Finding]:
    """Each colour has its own letter, pattern and ink: a cue two colours share names neither.
    Which of the two was written last is not known, so the finding names both, at the second."""
    for attr, key, why in CUES:
        first: dict[str, ColourCharge] = {}
        for c in game.physics.colours.values():
            value = getattr(c, attr).strip()
            cue = value.upper() if key == "print" else value
            if cue in first:
                other = first[cue]
                there = other.cue_locations.get(key) or other.location
                yield Finding("colour-wheel", f"'{other.id}' (line {there.line}) and '{c.id}' share the {key} "
                              f"'{value}': {why}", c.cue_locations.get(key) or c.location,
                              f"give '{c.id}' or '{other.id}' a {key} no other colour has", game.id)
            else:
                first[cue] = c


#: The marks that bar a letter (R̄): the combining macron and the combining overline.
BARS = ("\u0304", "\u0305")


def _letters_name_colours(game: Game) -> Iterator[Finding]:
    """A colour's letter is the initial of its name (R for red), an anti-colour's its colour's
    letter barred (R̄): colour-blind players read the letter as the colour, so a letter that is
    unique but names another colour (red lettered G) misleads them as surely as a shared one."""
    colours = game.physics.colours
    for c in colours.values():
        letter = unicodedata.normalize("NFD", c.letter.strip())
        where = c.cue_locations.get("letter") or c.location
        if c.is_anti:
            base = unicodedata.normalize("NFD", colours[c.anti].letter.strip())
            if letter[:-1] != base or letter[-1:] not in BARS:
                yield Finding("colour-wheel", f"'{c.id}' has the letter '{c.letter}', not its colour "
                              f"'{c.anti}''s letter '{colours[c.anti].letter}' barred: the letter is what "
                              f"colour-blind players read", where,
                              f"set letter: {unicodedata.normalize('NFC', base + BARS[0])} on '{c.id}'", game.id)
        elif unicodedata.normalize("NFC", letter) != _initial(c.name):
            yield Finding("colour-wheel", f"'{c.id}' has the letter '{c.letter}', not the initial of its name "
                          f"'{c.name}': the letter is what colour-blind players read", where,
                          f"set letter: {_initial(c.name)} on '{c.id}'", game.id)


def _initial(name: str) -> str:
    """A name's first letter, upper case, with its accent (émeraude → É), composed as one character."""
    first = unicodedata.normalize("NFD", name.strip())[:1]
    marks = ""
    for ch in unicodedata.normalize("NFD", name.strip())[1:]:
        if not unicodedata.combining(ch):
            break
        marks += ch
    return unicodedata.normalize("NFC", first.upper() + marks)


def _ink_records(game: Game) -> Iterator[Finding | Choice]:
    """Each colour charge is printed in an ink of its own hue, so players can name the ink as
    the rulebook names the colour; an ink that departs from it is declared with its reason
    (a colour-vision palette, say) and listed as a choice."""
    for c in game.physics.colours.values():
        hue = ink_hue(c.print_colour)
        where = c.print_location or c.location
        if hue is None:
            yield Finding("colour-wheel", f"'{c.id}' is printed in {c.print_colour}, which is not a colour ink of "
                          "the form '#RRGGBB' with a hue", where, "write the ink as '#RRGGBB', e.g. '#D55E00'", game.id)
            continue
        off = abs(((hue - c.hue) + 180) % 360 - 180)
        if off <= INK_HUE_TOLERANCE:
            continue
        if c.ink_design is not None:
            yield Choice("colour-wheel", f"'{c.id}' inked {c.print_colour} (hue {hue:.0f}°, {off:.0f}° from its "
                         f"{c.hue:g}°)", c.ink_design.reason, c.ink_design.location, game.id)
            continue
        yield Finding("colour-wheel", f"'{c.id}' is printed in {c.print_colour}, hue {hue:.0f}°, {off:.0f}° from its "
                      f"own hue {c.hue:g}° (more than {INK_HUE_TOLERANCE:g}°): players will not call that ink "
                      f"'{c.name}'", where, f"choose an ink within {INK_HUE_TOLERANCE:g}° of hue {c.hue:g}°, or "
                      "declare why it departs: design: {reason: \"...\"} on the colour", game.id)


def _points_group(p: Particle) -> tuple[str, float]:
    """Which particles a deck's points compare (quarks, charged leptons, neutrinos, bosons;
    particles and antiparticles together) and the order points may not fall along: the
    generation for fermions (a neutrino's mass is only a bound), the mass for bosons."""
    if p.kind == "quark":
        return "quarks", float(p.generation or 0)
    if p.kind == "lepton":
        return ("charged leptons" if p.charge else "neutrinos"), float(p.generation or 0)
    return "bosons", p.mass_mev


@generic("particle-points")
def particle_points(game: Game) -> Iterator[Finding | Proof]:
    """Where cards score points by their particle: every card of a particle scores alike, in
    any component (the deck's W and the extra W cards), and as its antiparticle's cards (the
    two differ only in their charges); and a heavier quark, lepton or boson — a later
    generation, a heavier boson — never scores fewer points than a lighter one of its kind. A
    deck that breaks either rewards a particle for being matter rather than antimatter, or a
    light one over a heavy one, with no reason."""
    scored: dict[str, tuple[Particle, int | float, Card]] = {}
    wrong = False
    for comp in game.components.values():
        field = card_particle_field(comp)
        spec = comp.fields.get("points")
        if field is None or spec is None or spec.type not in ("int", "number"):
            continue
        for card in comp.cards:
            part, points = card.fields.get(field), card.fields.get("points")
            if not isinstance(part, Particle) or not isinstance(points, (int, float)):
                continue
            key = min(part.id, part.antiparticle or part.id)   # a particle and its antiparticle score alike
            if key in scored and scored[key][1] != points:
                other, was, first = scored[key]
                wrong = True
                yield Finding("particle-points", f"card '{card.id}' ({part.name}) scores {points} point(s) but card "
                              f"'{first.id}' ({other.name}) scores {was}: a particle and its antiparticle (and every "
                              f"card of one particle) score alike", card.where("points"),
                              f"give '{card.id}' {was} point(s), or '{first.id}' {points}", game.id)
            scored.setdefault(key, (part, points, card))
    groups: dict[str, list[tuple[float, int | float, Particle, Card]]] = defaultdict(list)
    for part, points, card in scored.values():
        group, order = _points_group(part)
        groups[group].append((order, points, part, card))
    for group, members in groups.items():
        members.sort(key=lambda m: (m[0], m[1]))
        for i, (order, points, part, card) in enumerate(members):
            lighter = [m for m in members[:i] if m[0] < order and m[1] > points]
            if lighter:
                _o, most, other, _c = max(lighter, key=lambda m: m[1])
                wrong = True
                heavier = "heavier" if group == "bosons" else "of a later generation"
                yield Finding("particle-points", f"card '{card.id}' ({part.name}) scores {points} point(s), fewer "
                              f"than {other.name}'s {most} although it is {heavier}: among {group} a heavier "
                              f"particle never scores less", card.where("points"),
                              f"give '{card.id}' at least {most} point(s)", game.id)
    if not wrong and scored:
        yield Proof("particle-points", f"the cards of {len(scored)} particles score alike wherever they are and as "
                    f"their antiparticles' cards, and among quarks, leptons and bosons a heavier particle never "
                    f"scores fewer points", len(scored), game.id)
    elif not scored:
        yield Proof("particle-points", "no card scores points by its particle: nothing to compare", 0, game.id)
