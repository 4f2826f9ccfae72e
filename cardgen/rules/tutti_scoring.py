"""What scores a Tutti Quantum diagram: vertex points, score tokens, expert sub-diagrams and the
cooperative results table.

The first three may only name vertices the Standard Model has (derived in
:mod:`cardgen.rules.tutti`); an expert sub-diagram's vertices must also join into the one
diagram it rewards; points and tokens are measured against the deck:

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

The results table turns a final score into a verdict, so its ranges must give every score
exactly one (``result-ranges``).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Iterator

from .. import schema as S
from ..errors import Finding, InputError, Location, did_you_mean
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


#: An internal line of a sub-diagram: the positions of the two vertices it joins, and its line type.
Joint = tuple[int, int, str]
#: The most vertices one sub-diagram may name: the search for a joining grows fast with them, and
#: a diagram a player builds for a bonus has a handful.
MOST_SUB_VERTICES = 8


def _pieces(ends: list[VertexKey]) -> list[set[int]]:
    """The vertices (by position) in groups that no line type links with each other."""
    pieces: list[set[int]] = []
    for v, e in enumerate(ends):
        linked = [p for p in pieces if any(set(e) & set(ends[w]) for w in p)]
        pieces = [p for p in pieces if p not in linked] + [set().union({v}, *linked)]
    return pieces


def join_diagram(ends: list[VertexKey], external: Counter[str] | None) -> tuple[Joint, ...] | None:
    """One way to join vertices (each given by the line types of its three ends) into a single
    connected diagram, or None. Each internal line pairs two ends of one line type at two
    different vertices (a card is an edge of the honeycomb: it has two distinct ends); the ends
    left over are the external lines, exactly ``external`` when it is given. Fermion arrows set
    no further bound: every fermion vertex has one arrow in and one out, so any joining of
    same-type ends lets the arrow continue. Ends of one type at one vertex are alike, so the
    search counts them instead of naming each."""
    have = Counter(t for e in ends for t in e)
    if len(_pieces(ends)) > 1:
        return None
    if external is not None and (external - have or any(n % 2 for n in (have - external).values())
                                 or (have - external).total() < 2 * (len(ends) - 1)):
        return None   # ends missing or left loose, or too few lines to reach every vertex: no search needed
    types = sorted(have | external if external is not None else have)
    start = tuple(tuple(Counter(e)[t] for t in types) for e in ends)

    def take(left: tuple[tuple[int, ...], ...], v: int, i: int) -> tuple[tuple[int, ...], ...]:
        return left[:v] + (left[v][:i] + (left[v][i] - 1,) + left[v][i + 1:],) + left[v + 1:]

    def merge(piece: tuple[int, ...], v: int, w: int) -> tuple[int, ...]:
        joined = tuple(piece[v] if p == piece[w] else p for p in piece)
        first = {p: n for n, p in enumerate(dict.fromkeys(joined))}
        return tuple(first[p] for p in joined)   # one name per partition, so the cache sees repeats

    @lru_cache(maxsize=None)
    def search(left: tuple[tuple[int, ...], ...], ext: tuple[int, ...] | None,
               piece: tuple[int, ...]) -> tuple[Joint, ...] | None:
        spot = next(((v, i) for v, row in enumerate(left) for i, n in enumerate(row) if n), None)
        if spot is None:   # every end used: one piece, and no stated external line missing
            return () if len(set(piece)) == 1 and not any(ext or ()) else None
        v, i = spot        # every end of an earlier vertex is used, so partners come later
        for w in range(v + 1, len(left)):
            if left[w][i]:
                rest = search(take(take(left, v, i), w, i), ext, merge(piece, v, w))
                if rest is not None:
                    return ((v, w, types[i]),) + rest
        if ext is None or ext[i]:
            after = None if ext is None else ext[:i] + (ext[i] - 1,) + ext[i + 1:]
            return search(take(left, v, i), after, piece)
        return None

    return search(start, None if external is None else tuple(external[t] for t in types), tuple(range(len(ends))))


def _why_apart(ends: list[VertexKey], named: list[str], external: Counter[str] | None,
               order: list[str]) -> tuple[str, bool]:
    """Why no joining of the vertices gives one connected diagram, in a player's words, and
    whether the stated external lines are what disagrees with the vertices' ends (then the
    finding points at them)."""
    have = Counter(t for e in ends for t in e)
    if external is not None:
        for t in sorted(external, key=order.index):
            if external[t] > have[t]:
                return (f"it states {external[t]} external {t} line{'s' if external[t] > 1 else ''}, but its "
                        f"vertices have {have[t]} {t} end{'' if have[t] == 1 else 's'}", True)
        inner = have - external
        for t in sorted(inner, key=order.index):
            holders = [named[v] for v, e in enumerate(ends) if t in e]
            if inner[t] % 2:
                return f"{inner[t]} {t} ends are left to join, an odd number, so one stays loose", True
            if len(holders) == 1:
                return (f"the two {t} ends left to join are both on '{holders[0]}', and a line joins two "
                        f"different vertices", False)
        if inner.total() < 2 * (len(ends) - 1):
            return (f"the {inner.total() // 2} internal line{'' if inner.total() == 2 else 's'} it leaves cannot "
                    f"reach {len(ends)} vertices, which takes at least {len(ends) - 1}", False)
    pieces = _pieces(ends)
    if len(pieces) > 1:
        return "no line type links " + " with ".join(", ".join(named[v] for v in sorted(p)) for p in pieces), False
    return "however its lines are joined, the diagram falls apart or a line would join a vertex to itself", False


def _structure(n: int, joints: tuple[Joint, ...], external: Counter[str] | None, order: list[str]) -> str:
    """A joined sub-diagram in words: its internal lines, loops and external lines (with no
    external lines stated, only that it is one piece: the joining found is one of several)."""
    if external is None:
        return f"{n} vertices in one piece (no external lines stated)"
    inner = Counter(t for _, _, t in joints)
    lines = ", ".join(f"{k} {t}" for t, k in sorted(inner.items(), key=lambda x: order.index(x[0])))
    loops = len(joints) - n + 1   # a connected graph with n vertices and this many edges
    outside = ", ".join(sorted(external.elements(), key=order.index))
    return (f"{n} vertices joined by {len(joints)} internal line{'' if len(joints) == 1 else 's'}"
            f"{f' ({lines})' if lines else ''}, "
            f"{loops} loop{'' if loops == 1 else 's'}, external {outside}")


#: Most choices of particles for a sub-diagram's external lines tried (each line type stands for
#: its particles and their antiparticles); beyond it the physics of the lines is not judged.
MOST_EXTERNAL_CHOICES = 20_000

_NEVER_WORDS = {
    "charge": "their electric charges cannot add up, whichever particles they stand for",
    "baryon_number": "their baryon numbers cannot add up, whichever particles they stand for",
    "lepton_e": "their electron numbers cannot add up, whichever particles they stand for",
    "lepton_mu": "their muon numbers cannot add up, whichever particles they stand for",
    "lepton_tau": "their tau numbers cannot add up, whichever particles they stand for",
    "colour": "colour is conserved: a colourless state cannot become a single colour-charged particle "
              "(one gluon or one quark), not even through a loop",
    "landau-yang": "a massive spin-1 particle and two identical massless spin-1 bosons cannot turn into each "
                   "other at any order (the Landau–Yang theorem)",
    "furry": "lines of odd charge-conjugation parity altogether (an odd number of photons, with nothing else but "
             "Higgs bosons or a pair of gluons) never meet, not even through a closed loop: the loop and its reverse "
             "cancel (Furry's theorem)",
    "mass": "one particle cannot become a single particle of another mass (a massive one cannot become one "
            "massless particle): energy and momentum are not both conserved",
}


def _never_meet(game: Game, line_types: list) -> str | None:
    """Why a sub-diagram's external lines are no process, whichever particles (or antiparticles)
    of their line types they stand for (:func:`~.standard_model.never_meet`); None when some
    choice is a process nothing forbids. Of the reasons, the one the choice that gets furthest
    fails is named."""
    from itertools import product

    from .standard_model import NEVER, never_meet

    physics = game.physics
    options = [list({q.id: q for p in lt.particles for q in (p, physics.anti(p.id))}.values()) for lt in line_types]
    total = 1
    for o in options:
        total *= len(o)
    if not options or total > MOST_EXTERNAL_CHOICES:
        return None
    furthest = -1
    for legs in product(*options):
        why = never_meet(legs)
        if why is None:
            return None
        furthest = max(furthest, NEVER.index(why))
    return _NEVER_WORDS[NEVER[furthest]]


def _external_lines(game: Game, table: Table, sm: DerivedVertices, lt_id: str,
                    params: S.Fields) -> tuple[dict[str, tuple[list[str], Location]], list[Finding]]:
    """The external lines the check states per sub-diagram (``external: {row-id: [line types]}``:
    the process each bonus rewards, as its description and the physics say), by row id with
    where they are written, and a finding for each list naming something that is no line type.
    A row left out is only checked to join into one piece."""
    given = params.get("external", S.mapping, None)
    rows = [r.id for r in table.rows]
    stated: dict[str, tuple[list[str], Location]] = {}
    findings: list[Finding] = []
    for rid in given or ():
        if rid not in rows:
            raise InputError(f"'external' names '{rid}', which is not a row of '{table.id}'"
                             f"{did_you_mean(rid, rows)}", given.key_where(rid), f"use one of: {S.one_of(rows)}")
        lines = S.seq_of(S.ident, what="list of line types")(given[rid], given.where(rid))
        strange = [i for i, lid in enumerate(lines) if lid not in sm.line_types]
        if strange:
            lid = lines[strange[0]]
            findings.append(Finding("sub-diagrams", f"{table.id}: the external lines of '{rid}' name '{lid}', which "
                                    f"is not a line type of '{lt_id}'{did_you_mean(lid, list(sm.line_types))}",
                                    given[rid].where(strange[0]), f"use one of: {', '.join(sm.line_types)}", game.id))
        else:
            stated[rid] = (lines, given.where(rid))
    return stated, findings


@declared("sub-diagrams")
def sub_diagrams(game: Game, params: S.Fields) -> Iterator[Finding | Proof]:
    """Expert sub-diagrams (a records table with a list of vertex ids) name only Standard-Model
    vertices of the vertex table, and those vertices join into one connected diagram, each
    internal line between two of them with the same line type, leaving exactly the external
    lines the check states for the row (``external``): a bonus rewards one process, so
    [qqh, eea, qqa] cannot stand in for H → γγ through a quark loop."""
    table = table_param(game, params, ("records",))
    vtable = table_param(game, params, ("vertices",), "vertices")
    field = params.get("field", S.ident, "vertices")
    sm = derive_vertices(game, vtable)
    order = list(sm.line_types)
    stated, findings = _external_lines(game, table, sm, vtable.options["line_types"], params)
    yield from findings
    vertices = {v.id: v for v in vtable.rows}
    good: list[str] = []
    for row in table.rows:
        named = list(row.values.get(field) or ())
        where = row.where.get(field, row.location)
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
        if len(named) > MOST_SUB_VERTICES:
            yield Finding("sub-diagrams", f"{table.id}: '{row.id}' names {len(named)} vertices, more than the "
                          f"{MOST_SUB_VERTICES} the checker joins", where, "split it into smaller sub-diagrams",
                          game.id)
            continue
        lines, ext_where = stated.get(row.id, (None, row.location))
        external = None if lines is None else Counter(lines)
        ends = [sm.key(vertices[vid].lines) for vid in named]
        joints = join_diagram(ends, external)
        if joints is None:
            with_ext = "" if lines is None else f" with external lines {', '.join(lines)}"
            why, ext_wrong = _why_apart(ends, named, external, order)
            yield Finding("sub-diagrams", f"{table.id}: '{row.id}': vertices {', '.join(named)} do not join into one "
                          f"connected diagram{with_ext}: {why}", ext_where if ext_wrong else where,
                          "name the vertices of one process: each internal line joins two of them with the same "
                          "line type" + ("" if lines is None else ", leaving exactly the lines the check's "
                                         "'external' states for it"), game.id)
            continue
        why = None if lines is None else _never_meet(game, [sm.line_types[lid] for lid in lines])
        if why is not None:
            yield Finding("sub-diagrams", f"{table.id}: '{row.id}': vertices {', '.join(named)} join into one "
                          f"diagram with external lines {', '.join(lines)}, but no process has them: {why}",
                          ext_where, "state the external lines of a process that happens (H → γ γ through a quark "
                          "loop, not H → γ), and name its vertices", game.id)
            continue
        good.append(f"{row.id}: {_structure(len(named), joints, external, order)}")
    yield Proof("sub-diagrams", f"{table.id}: {len(good)} sub-diagrams name only Standard-Model vertices of "
                f"'{vtable.id}' and join into one connected diagram ({'; '.join(good)})", len(good), game.id,
                table.location)


def _span(lo: int | None, hi: int | None) -> str:
    """A range of scores as a results table reads it: '26–28', '≥ 39', '≤ 25'."""
    if lo is None:
        return f"≤ {hi}"
    return f"≥ {lo}" if hi is None else f"{lo}–{hi}"


def _bound_fields(table: Table, params: S.Fields) -> tuple[str, str]:
    """The int fields of ``table`` where each range starts and ends (``from``, ``to``)."""
    specs = table.options["fields"]
    names = []
    for key, default, what in (("from", "points_from", "starts"), ("to", "points_to", "ends")):
        name = params.get(key, S.ident, default)
        if name not in specs or specs[name].type != "int":
            raise InputError(f"table '{table.id}' has no int field '{name}'",
                             params.map.where(key) if params.has(key) else params.loc,
                             f"name in '{key}' the int field that holds the score each range {what} at")
        names.append(name)
    return names[0], names[1]


@declared("result-ranges")
def result_ranges(game: Game, params: S.Fields) -> Iterator[Finding | Proof]:
    """The rows of a results table (score ranges with their verdicts, highest or lowest first)
    split the scores with no gap and no overlap, in order: every score a team can reach reads
    exactly one result. Only the outermost rows are open, the highest upwards and the lowest
    downwards, so no score falls off either end."""
    table = table_param(game, params, ("records",))
    lo_f, hi_f = _bound_fields(table, params)
    rows = [(r, r.values.get(lo_f), r.values.get(hi_f)) for r in table.rows]
    wrong = 0
    for r, lo, hi in rows:
        if lo is None and hi is None:
            wrong += 1
            yield Finding("result-ranges", f"{table.id}: '{r.id}' has neither '{lo_f}' nor '{hi_f}', so no score "
                          f"reads it", r.location, f"give '{r.id}' the scores it takes", game.id)
    rows = [(r, lo, hi) for r, lo, hi in rows if lo is not None or hi is not None]
    if not rows:
        raise InputError(f"table '{table.id}' has no score ranges", table.location, "add the score ranges")
    # where a range sits: its start (the lowest range may have none, so its end)
    anchor = {r.id: lo if lo is not None else hi for r, lo, hi in rows}
    falling = len(rows) > 1 and anchor[rows[0][0].id] > anchor[rows[-1][0].id]
    for (prev, p_lo, p_hi), (row, lo, hi) in zip(rows, rows[1:]):
        if (anchor[row.id] > anchor[prev.id]) == falling and anchor[row.id] != anchor[prev.id]:
            wrong += 1
            yield Finding("result-ranges", f"{table.id}: '{row.id}' ({_span(lo, hi)}) comes after '{prev.id}' "
                          f"({_span(p_lo, p_hi)}), against the order of the others",
                          row.location, f"list the ranges from the {'highest' if falling else 'lowest'} score to the "
                          f"{'lowest' if falling else 'highest'}", game.id)
    rising = sorted(rows, key=lambda x: anchor[x[0].id])
    for i, (row, lo, hi) in enumerate(rising):
        if lo is not None and hi is not None and lo > hi:
            wrong += 1
            yield Finding("result-ranges", f"{table.id}: '{row.id}' runs from {lo} down to {hi}, so it holds no "
                          f"score", row.where.get(lo_f, row.location), f"swap '{lo_f}' and '{hi_f}'", game.id)
        if lo is None and i > 0:
            wrong += 1
            yield Finding("result-ranges", f"{table.id}: '{row.id}' has no '{lo_f}', but only the lowest range is "
                          f"open downwards", row.location, f"give '{row.id}' a '{lo_f}'", game.id)
        if lo is not None and i == 0:
            wrong += 1
            yield Finding("result-ranges", f"{table.id}: scores below {lo} read no result: the lowest range "
                          f"'{row.id}' starts at {lo}", row.where.get(lo_f, row.location),
                          f"leave out '{lo_f}' on '{row.id}', so it takes every lower score", game.id)
        if hi is None and i < len(rising) - 1:
            wrong += 1
            yield Finding("result-ranges", f"{table.id}: '{row.id}' has no '{hi_f}', but only the highest range is "
                          f"open upwards", row.location, f"give '{row.id}' a '{hi_f}'", game.id)
        if hi is not None and i == len(rising) - 1:
            wrong += 1
            yield Finding("result-ranges", f"{table.id}: scores above {hi} read no result: the highest range "
                          f"'{row.id}' ends at {hi}", row.where.get(hi_f, row.location),
                          f"leave out '{hi_f}' on '{row.id}', so it takes every higher score", game.id)
    inverted = {r.id for r, lo, hi in rows if lo is not None and hi is not None and lo > hi}
    for (below, _, end), (row, start, _) in zip(rising, rising[1:]):
        if end is None or start is None or start == end + 1 or {below.id, row.id} & inverted:
            continue   # an open or inverted range is reported above
        wrong += 1
        first, last = (end + 1, start - 1) if start > end else (start, end)   # the scores between, or both read
        scores = f"score {first} reads" if first == last else f"scores {first}–{last} read"
        said = (f"'{row.id}' starts at {start} but '{below.id}' ends at {end}: {scores} no result" if start > end
                else f"'{row.id}' starts at {start} but '{below.id}' runs to {end}: {scores} two results")
        yield Finding("result-ranges", f"{table.id}: {said}", row.where.get(lo_f, row.location),
                      f"start '{row.id}' at {end + 1}, one above where '{below.id}' ends (or end '{below.id}' at "
                      f"{start - 1})", game.id)
    if not wrong:
        yield Proof("result-ranges", f"{table.id}: its {len(rows)} ranges of '{lo_f}' to '{hi_f}' give every score "
                    f"exactly one result, in order ({', '.join(_span(lo, hi) for _, lo, hi in rows)})", len(rows),
                    game.id, table.location)
