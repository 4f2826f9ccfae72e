"""What scores a Tutti Quantum diagram: vertex points, score tokens and expert sub-diagrams.

All three may only name vertices the Standard Model has (derived in :mod:`cardgen.rules.tutti`),
and both points and tokens are measured against the deck:

* **rarity** — a vertex is rarer the more draws from the deck it takes, on average, to collect
  its three lines (the measure the Particle Builder ``targets`` rule orders targets by). Points
  never fall as vertices get rarer (the rulebook: "the vertices worth more points represent
  rarer natural processes").
* **how many can be scored** — each card is one edge of the honeycomb with two ends, so k
  vertices that use m lines of a type need m·k ends of it; k vertices made of one line type
  alone share at most k − 1 of their cards below six vertices (the honeycomb's smallest cycle
  is a hexagon) and at most ⌊3(k − 2)/2⌋ from six on (planar, every cycle at least six long).
  A kind of score token never outnumbers the vertices its sides can score, unless the check
  declares why (``surplus: {token-id: reason}``).
"""

from __future__ import annotations

from collections import Counter
from typing import Iterator

from .. import schema as S
from ..errors import Finding, InputError, did_you_mean
from ..model import Card, Component, Game, Table
from ..proof import Choice, Proof
from ..tables import Vertex
from ..yamlsrc import YMap
from . import declared
from .common import component_param, expected_draws, table_param
from .tutti import DerivedVertices, VertexKey, derive_vertices


def line_counts(deck: Component, field: str, sm: DerivedVertices) -> Counter[str]:
    """How many cards of each line type the deck holds."""
    counts: Counter[str] = Counter()
    for card in deck.cards:
        line = card.fields.get(field)
        if line in sm.line_types:
            counts[line] += card.count
    return counts


def rarity(key: VertexKey, cards: Counter[str]) -> float:
    """Expected draws from the deck to collect the vertex's three lines: more is rarer."""
    return expected_draws(Counter(key), cards, sum(cards.values()))


def _shared_edges(k: int) -> int:
    """At most how many cards k vertices of the honeycomb can share among themselves."""
    return k - 1 if k < 6 else 3 * (k - 2) // 2


def most_vertices(key: VertexKey, cards: Counter[str]) -> int:
    """The most vertices of this kind the deck's cards can complete at once."""
    need = Counter(key)
    bound = min(2 * cards[line] // m for line, m in need.items())
    if len(need) == 1:
        line = key[0]
        while bound and 3 * bound - _shared_edges(bound) > cards[line]:
            bound -= 1
    return bound


def most_of_any(keys: list[VertexKey], cards: Counter[str]) -> int:
    """The most vertices, of the kinds given, the deck's cards can complete together (each card
    has two ends; each kind is also bounded on its own)."""
    ends = Counter({line: 2 * n for line, n in cards.items()})

    def best(i: int, left: Counter[str]) -> int:
        if i == len(keys):
            return 0
        need = Counter(keys[i])
        room = min([left[line] // m for line, m in need.items()] + [most_vertices(keys[i], cards)])
        if i == len(keys) - 1:
            return room  # the last kind takes all the room left
        return max(k + best(i + 1, left - Counter({line: m * k for line, m in need.items()}))
                   for k in range(room + 1))

    return best(0, ends)


def _deck_lines(game: Game, params: S.Fields, sm: DerivedVertices) -> tuple[Component, Counter[str]]:
    deck = component_param(game, params, "deck")
    field = params.get("field", S.ident, "line")
    if field not in deck.fields:
        raise InputError(f"component '{deck.id}' has no field '{field}'", params.map.where("field")
                         if params.has("field") else params.loc, "name the field that holds each card's line type")
    return deck, line_counts(deck, field, sm)


def _points(n: int) -> str:
    return f"{n} point" if abs(n) == 1 else f"{n} points"


def _name(v: Vertex, sm: DerivedVertices) -> str:
    return f"'{v.id}' ({'-'.join(sm.key(v.lines))})"


@declared("vertex-points")
def vertex_points(game: Game, params: S.Fields) -> Iterator[Finding | Proof]:
    """Points follow rarity: a vertex rarer to complete with the deck never scores fewer points
    than a commoner one, and every valid vertex scores."""
    table = table_param(game, params, ("vertices",))
    sm = derive_vertices(game, table)
    deck, cards = _deck_lines(game, params, sm)
    rows = [v for v in table.rows if sm.key(v.lines) in sm.derived]
    draws = {v.id: rarity(sm.key(v.lines), cards) for v in rows}
    wrong = 0
    for v in rows:
        if v.points <= 0:
            wrong += 1
            yield Finding("vertex-points", f"valid vertex {_name(v, sm)} scores {_points(v.points)}", v.location,
                          "give every valid vertex a positive score", game.id)
            continue
        commoner = [w for w in rows if draws[w.id] < draws[v.id] and w.points > v.points]
        if commoner:
            wrong += 1
            w = max(commoner, key=lambda c: (c.points, -draws[c.id]))
            yield Finding("vertex-points", f"vertex {_name(v, sm)} scores {_points(v.points)}, fewer than "
                          f"{_name(w, sm)} with {w.points}, though it is rarer: collecting its lines takes "
                          f"{draws[v.id]:.2f} draws from the {deck.total} cards of '{deck.id}' on average, those of "
                          f"'{w.id}' {draws[w.id]:.2f}", v.location,
                          f"give '{v.id}' at least {w.points} points (rarer vertices score more)", game.id)
    ordered = sorted(rows, key=lambda v: -draws[v.id])
    yield Proof("vertex-points", f"{table.id}: {len(rows) - wrong} vertices score more, or the same, the rarer "
                f"they are with the {deck.total} cards of '{deck.id}' (average draws to collect each: "
                f"{', '.join(f'{v.id} {draws[v.id]:.2f} → {v.points} pt' for v in ordered)})",
                len(rows) - wrong, game.id, table.location)


def _surplus_reasons(tokens: Component, surplus: YMap | None) -> dict[str, str]:
    """The reasons the check's ``surplus`` gives, by token card (each must be one)."""
    reasons: dict[str, str] = {}
    for tid in surplus or ():
        if tokens.card(tid) is None:
            raise InputError(f"'surplus' names '{tid}', which is not a card of '{tokens.id}'"
                             f"{did_you_mean(tid, [c.id for c in tokens.cards])}", surplus.where(tid),
                             f"use one of: {S.one_of(c.id for c in tokens.cards)}")
        reasons[tid] = S.text(surplus[tid], surplus.where(tid))
    return reasons


def _vertex_sides(tokens: Component, table: Table, params: S.Fields) -> list[str]:
    """The token fields that name a vertex of ``table``: the token's sides (at least one)."""
    sides = [name for name, spec in tokens.fields.items() if spec.type == "ref" and spec.table == table.id]
    if not sides:
        raise InputError(f"component '{tokens.id}' has no field referring to table '{table.id}'",
                         params.map.where("component"), f"declare its sides as 'type: ref, table: {table.id}'")
    return sides


def _off_model_sides(game: Game, card: Card, sides: list[str], faces: list[Vertex],
                     sm: DerivedVertices) -> Iterator[Finding]:
    """A token side showing a vertex the Standard Model does not have."""
    for side, v in zip(sides, faces):
        if sm.key(v.lines) not in sm.derived:
            yield Finding("score-tokens", f"token '{card.id}' shows vertex {_name(v, sm)}, which is not a "
                          f"Standard-Model vertex", card.where(side), "show a valid vertex", game.id)


@declared("score-tokens")
def score_tokens(game: Game, params: S.Fields) -> Iterator[Finding | Proof | Choice]:
    """Each score token's sides name Standard-Model vertices, and no kind of token outnumbers the
    vertices its sides can score with the deck (or the check says why: ``surplus``)."""
    tokens = component_param(game, params, "component")
    table = table_param(game, params, ("vertices",))
    sm = derive_vertices(game, table)
    deck, cards = _deck_lines(game, params, sm)
    surplus = params.get("surplus", S.mapping, None)
    reasons = _surplus_reasons(tokens, surplus)
    sides = _vertex_sides(tokens, table, params)
    vertices = {v.id: v for v in table.rows}
    within = []
    for card in tokens.cards:
        faces = [vertices[card.fields[s]] for s in sides if card.fields.get(s) in vertices]
        yield from _off_model_sides(game, card, sides, faces, sm)
        keys = list(dict.fromkeys(sm.key(v.lines) for v in faces if sm.key(v.lines) in sm.derived))
        most = most_of_any(keys, cards)
        label = "|".join(v.id for v in faces)
        if card.count <= most:
            within.append(f"{label} {card.count} ≤ {most}")
        elif card.id in reasons:
            yield Choice("score-tokens", f"{card.count} tokens '{card.id}' for at most {most} vertices",
                         reasons[card.id], surplus.where(card.id), game.id)
        else:
            yield Finding("score-tokens", f"{card.count} tokens '{card.id}' ({label}), but the {deck.total} cards "
                          f"of '{deck.id}' complete at most {most} such {'vertex' if most == 1 else 'vertices'} in a game", card.location,
                          f"print at most {most}, or declare why in the check's 'surplus'", game.id)
    yield Proof("score-tokens", f"{tokens.id}: {len(within)} kinds of token never outnumber the vertices their "
                f"sides can score with the {deck.total} cards of '{deck.id}' ({'; '.join(within)})", len(within),
                game.id, tokens.location)


@declared("sub-diagrams")
def sub_diagrams(game: Game, params: S.Fields) -> Iterator[Finding | Proof]:
    """Expert sub-diagrams (a records table with a list of vertex ids) name only Standard-Model
    vertices of the vertex table, and each of their vertices shares a line type with another,
    so the sub-diagram can be drawn in one piece."""
    table = table_param(game, params, ("records",))
    vtable = table_param(game, params, ("vertices",), "vertices")
    field = params.get("field", S.ident, "vertices")
    sm = derive_vertices(game, vtable)
    vertices = {v.id: v for v in vtable.rows}
    good = 0
    for row in table.rows:
        named = row.values.get(field) or ()
        unknown = [vid for vid in named if vid not in vertices]
        if unknown:
            yield Finding("sub-diagrams", f"{table.id}: '{row.id}' names vertex '{unknown[0]}', which is not in "
                          f"table '{vtable.id}'{did_you_mean(unknown[0], vertices)}", row.location,
                          f"use one of: {', '.join(vertices)}", game.id)
            continue
        invalid = [vid for vid in named if sm.key(vertices[vid].lines) not in sm.derived]
        if invalid:
            yield Finding("sub-diagrams", f"{table.id}: '{row.id}' names vertex {_name(vertices[invalid[0]], sm)}, "
                          f"which is not a Standard-Model vertex", row.location, "name valid vertices only", game.id)
            continue
        apart = [vid for i, vid in enumerate(named) if len(named) > 1 and not any(
            set(vertices[vid].lines) & set(vertices[other].lines) for j, other in enumerate(named) if j != i)]
        if apart:
            yield Finding("sub-diagrams", f"{table.id}: '{row.id}': vertex '{apart[0]}' shares no line with the "
                          f"other vertices, so the sub-diagram cannot be drawn in one piece", row.location,
                          "name vertices that can be joined by a line", game.id)
            continue
        good += 1
    yield Proof("sub-diagrams", f"{table.id}: {good} sub-diagrams name only Standard-Model vertices of "
                f"'{vtable.id}', joined by shared lines", good, game.id, table.location)
