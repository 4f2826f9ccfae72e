"""The ``levels`` rule: a game played in levels says, in its levels table, which components and
tables each level brings into play, and every ``level:`` the data writes agrees with it.

``cardgen build --level N`` prints what the data gives a level up to N: a component put a
level too late (the W cards level 5's transformations need, written ``level: 7``) is missing
from a level-5 kit, and one put too early (the decay table at level 2) hands a class rules
it is not ready for. Both passed unnoticed while only the levels table's prose said which
level brings what. The rule links the two: each row of the levels table names what its level
adds (``adds``), and the check holds every component's and table's ``level`` to it, the levels
to 1…N once each, and any other table whose rows carry a level (rules added per level) to the
levels that exist.
"""

from __future__ import annotations

from typing import Iterator

from .. import schema as S
from ..errors import Finding, InputError, Location, did_you_mean
from ..model import Game, Table
from ..proof import Proof
from ..tables import Record
from . import declared
from .common import declared_field, table_param

RULE = "levels"


@declared(RULE)
def levels(game: Game, params: S.Fields) -> Iterator[Finding | Proof]:
    """Each component and table comes into play at the level of the levels table that adds it;
    the levels run 1 to N once each, and every level written elsewhere is one of them."""
    table = table_param(game, params, ("records",))
    specs = table.options["fields"]
    level_f = declared_field(specs, f"table '{table.id}'", params, "field", "level", ("int",), "level ")
    adds_f = declared_field(specs, f"table '{table.id}'", params, "adds", "adds", ("list:text",), "list ")
    levelled = [_table(game, tid, where)
                for tid, where in S.items(params.get("levelled", S.anything, None), params.map.where("levelled"))]
    rows: list[Record] = list(table.rows)
    wrong = 0
    for row in rows:
        if row.values.get(level_f) is None:
            wrong += 1
            yield Finding(RULE, f"{table.id}: '{row.id}' has no '{level_f}', so what it adds comes in at no level",
                          row.location, f"give '{row.id}' its level: '{level_f}: N'", game.id)
    for finding in _numbering(game, table.id, rows, level_f):
        wrong += 1
        yield finding
    known = {r.values[level_f] for r in rows if r.values.get(level_f) is not None}
    pieces = {**{cid: ("component", c.level, c.where("level")) for cid, c in game.components.items()},
              **{tid: ("table", t.level, t.level_location or t.location) for tid, t in game.tables.items()}}
    added: dict[str, tuple[int, Record]] = {}
    for row in rows:
        level = row.values.get(level_f)
        where = row.where.get(adds_f, row.location)
        for name in row.values.get(adds_f) or ():
            if name not in pieces:
                raise InputError(f"{table.id}: '{row.id}' adds '{name}', which is no component or table of the game",
                                 where, f"name one of: {S.one_of(pieces)}")
            if name in added:
                raise InputError(f"{table.id}: '{name}' is added by both '{added[name][1].id}' and '{row.id}'", where,
                                 "let one level add it")
            added[name] = (level, row)
    for name, (kind, level, where) in pieces.items():
        if name in added:
            want, row = added[name]
            if want is not None and level != want:
                wrong += 1
                yield Finding(RULE, f"{kind} '{name}' comes into play at level {level}, but the levels table's "
                              f"'{row.id}' adds it at level {want}", where,
                              f"set level: {want} on '{name}', or move it to the 'adds' of level {level}", game.id)
        elif level > 1:
            wrong += 1
            yield Finding(RULE, f"{kind} '{name}' comes into play at level {level}, but no level of '{table.id}' "
                          f"adds it", where, f"list '{name}' in the 'adds' of level {level} in '{table.id}'", game.id)
        if known and level not in known and level > 1:
            wrong += 1
            yield Finding(RULE, f"{kind} '{name}' comes into play at level {level}, which '{table.id}' does not "
                          f"have (levels {_span(known)})", where, f"use one of levels {_span(known)}", game.id)
    for other in levelled:
        for finding in _levels_named(game, table.id, other, known):
            wrong += 1
            yield finding
    if not wrong:
        staged = sum(1 for _kind, level, _w in pieces.values() if level > 1)
        named = f", and every level the rows of {', '.join(t.id for t in levelled)} name is one of these" \
            if levelled else ""
        yield Proof(RULE, f"{table.id}: levels {_span(known)}, each once; the {staged} components and tables that "
                    f"come into play after level 1 each do so at the level that adds them{named}",
                    len(rows), game.id, params.loc)


def _numbering(game: Game, tid: str, rows: list[Record], level_f: str) -> Iterator[Finding]:
    """The levels are 1, 2, … N, each once."""
    seen: dict[int, Record] = {}
    for row in rows:
        level = row.values.get(level_f)
        if level is None:
            continue
        if level in seen:
            yield Finding(RULE, f"{tid}: '{row.id}' is level {level}, as '{seen[level].id}' is", row.where.get(level_f,
                          row.location), f"number the levels 1 to {len(rows)}, each once", game.id)
        else:
            seen[level] = row
    missing = sorted(set(range(1, max(seen, default=0) + 1)) - set(seen))
    for level in missing:
        yield Finding(RULE, f"{tid}: there is no level {level}, yet level {max(seen)} is", rows[-1].location,
                      f"number the levels 1 to {len(rows)}, each once", game.id)


def _table(game: Game, tid: object, where: Location) -> Table:
    """A table the check's ``levelled`` list names."""
    name = S.ident(tid, where)
    if name not in game.tables:
        raise InputError(f"'levelled' names unknown table '{name}'{did_you_mean(name, game.tables)}", where,
                         f"use one of: {S.one_of(game.tables)}")
    return game.tables[name]


def _levels_named(game: Game, levels_table: str, table: Table, known: set[int]) -> Iterator[Finding]:
    """A table the check names in ``levelled`` (rules added per level) gives each row a level
    that exists, in its int field ``level``."""
    spec = table.options.get("fields", {}).get("level")
    if spec is None or spec.type != "int":
        raise InputError(f"table '{table.id}' has no int field 'level' to hold each row's level of play",
                         table.location, "declare 'level: {type: int}' in its fields, or leave it out of 'levelled'")
    if not known:
        return
    for row in table.rows:
        level = row.values.get("level")
        if level is not None and level not in known:
            yield Finding(RULE, f"{table.id}: '{row.id}' is for level {level}, which '{levels_table}' does not "
                          f"have (levels {_span(known)})", row.where.get("level", row.location),
                          f"use one of levels {_span(known)}", game.id)


def _span(levels: set[int]) -> str:
    ordered = sorted(levels)
    if ordered and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"{ordered[0]}–{ordered[-1]}" if len(ordered) > 1 else str(ordered[0])
    return ", ".join(map(str, ordered))
