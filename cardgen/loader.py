"""Stage 1 of the pipeline: find games and load them from YAML into :mod:`cardgen.model`.

A game is a folder with a ``game.yaml`` that lists its component and table files. Shipped games
live in ``data/games/<id>/`` with templates in ``templates/<id>/``; a designer's own game lives
anywhere (``--games-dir``) with its templates in ``<game>/templates/``. No Python is involved in
adding one.

Why ~500 lines: discovery, the folder-safety checks (symlinks, pipes, sizes) and the reading of
components, cards and references are one pass over a game's files with shared limits; the
field types themselves are in :mod:`cardgen.fields` and :mod:`cardgen.schema`.
"""

from __future__ import annotations

import errno
import hashlib
import itertools
import math
import os
import re
import string
import unicodedata
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, Iterable

from . import loadapart, schema as S
from .errors import CardgenError, InputError, Location, did_you_mean, display_path, raise_all
from .fields import parse_field_specs, read_record_fields
from .fontfiles import user_fonts
from .model import COMPONENT_KINDS, Assumption, Card, CheckSpec, Component, FieldSpec, Game, Table
from .particles import PhysicsData, load_physics
from .places import parse_card_places, parse_layout, validate as validate_places
from .shapes import SHAPE_TYPES, Shape
from .spreadsheets import read_sheet, rows_as_cards
from .tables import DEVIATION_KEY, TABLE_KINDS, deviations, parse_rows
from .yamlcache import load_yaml
from .yamlsrc import YMap, YSeq

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = PROJECT_ROOT / "data"
SHIPPED_GAMES = DATA_DIR / "games"
SHIPPED_TEMPLATES = PROJECT_ROOT / "templates"
#: The frame and macros every game's templates may extend or import.
SHARED_TEMPLATES = SHIPPED_TEMPLATES / "_shared"
#: Cards (copies included) one component may hold. A build streams faces to the PDF writer
#: and a check keeps a bounded number of them (:mod:`cardgen.checkfaces`), so what grows with
#: a deck is a few kilobytes a card: 50,000 distinct cards (a CSV, as a YAML file is bounded by
#: :data:`cardgen.yamlsrc.MAX_BYTES`) build in about 320 MB and check in about 200 MB.
MAX_CARDS_PER_COMPONENT = 50_000


@dataclass(frozen=True)
class GameSource:
    """Where a game's files are: its data folder and its templates folder."""

    id: str
    data_dir: Path
    templates_dir: Path


def file_name_in_game(path: Path, game: Game) -> str:
    """A file of a game named by the folder it belongs to (the game's, its templates', the
    shared templates', cardgen's data) and its place in it; a font by its name."""
    if path in game.fonts:
        return f"font:{Path(path).name}"
    for tag, root in (("templates", game.templates_dir), ("game", game.data_dir), ("shared", SHARED_TEMPLATES),
                      ("data", DATA_DIR)):
        try:
            return f"{tag}:{Path(os.path.abspath(path)).relative_to(os.path.abspath(root)).as_posix()}"
        except ValueError:
            continue
    return os.path.abspath(path)


def discover_games(games_dirs: Iterable[Path] = (), include_shipped: bool = True) -> dict[str, GameSource]:
    """All loadable games by id: the shipped ones plus those under each ``--games-dir``."""
    found: dict[str, GameSource] = {}

    def add(src: GameSource) -> None:
        if src.id in found:
            raise InputError(f"game id '{src.id}' is defined twice ({display_path(found[src.id].data_dir)} "
                             f"and {display_path(src.data_dir)})", Location.of_file(src.data_dir / "game.yaml"),
                             "rename one of the game folders")
        found[src.id] = src

    if include_shipped and SHIPPED_GAMES.is_dir():
        for d in sorted(SHIPPED_GAMES.iterdir()):
            if (d / "game.yaml").is_file():
                add(GameSource(d.name, d, SHIPPED_TEMPLATES / d.name))
    for root in games_dirs:
        root = Path(root)
        _no_link_loop(root, "the games folder")
        if not root.is_dir():
            raise InputError("games folder not found", Location.of_file(root),
                             "pass an existing folder to --games-dir")
        try:
            candidates = [root] if (root / "game.yaml").is_file() else sorted(root.iterdir())
        except OSError as exc:
            raise InputError(f"the games folder cannot be read: {exc.strerror}", Location.of_file(root),
                             "pass a folder you can read to --games-dir") from None
        for d in candidates:
            _no_link_loop(d, "an entry of the games folder")
            if d.is_dir() and (d / "game.yaml").is_file():
                add(GameSource(d.name, d, d / "templates"))
    return found


def _no_link_loop(path: Path, what: str) -> None:
    """A symbolic link that leads back to itself is reported, not skipped without a word (it
    is most often a game folder linked the wrong way round)."""
    if not path.is_symlink():
        return
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(f"{what} is a loop of symbolic links", Location.of_file(path),
                             "remove the link, or point it at a real game folder") from None


@lru_cache(maxsize=4)
def _physics(data_dir: Path, digest: str, shown: str) -> PhysicsData:
    """The data as :func:`shipped_physics` keeps it: ``digest`` (the files' bytes) and
    ``shown`` (how the folder is shown from the working folder) only make the key."""
    return load_physics(data_dir)


def shipped_physics() -> PhysicsData:
    """The shared particle and colour data, which every game reads: parsed once per process
    and again only when its files' bytes change, so that a process that lives on (``cardgen
    serve``, the daemon, a program) sees an edit at once and pays for parsing only then.

    Also again when its folder is shown otherwise from the working folder: where each entry
    was written is shown relative to it (see :func:`cardgen.errors.display_path`), and a
    command the daemon runs in the repository's folder must say ``data/particles.yaml:12:3``
    as it would run alone, not the whole path the daemon's own folder shows (4 ms, the parse
    taken from the machine's cache). From any folder outside the data's, the paths are whole,
    and the daemon's parse serves."""
    return _physics(DATA_DIR, _physics_digest(DATA_DIR), display_path(DATA_DIR))


def _physics_digest(data_dir: Path) -> str:
    """The bytes of the physics files (reading them is a small part of parsing them); a file
    that cannot be read counts by its error, which loading it reports."""
    digest = hashlib.sha256()
    for name in ("particles.yaml", "colours.yaml"):
        try:
            digest.update((data_dir / name).read_bytes())
        except OSError as exc:
            digest.update(repr(exc).encode())
        digest.update(b"\0")
    return digest.hexdigest()


def load_game(game: str | Path, games_dirs: Iterable[Path] = (), font_dirs: Iterable[Path] = ()) -> Game:
    """Load one game by id (shipped or from ``games_dirs``) or by the path of its folder;
    ``font_dirs`` add fonts after the game's own (``--font-dir``)."""
    path = Path(game)
    if isinstance(game, Path) or (path / "game.yaml").is_file():
        # a game keeps its templates in its own templates/ folder; one without it draws with
        # cardgen's templates of the game of its name (a shipped game, or a copy of its data
        # alone), and any other game's missing template is its own to create: an error about
        # it names the game's templates/ folder, even when that folder is missing
        own = path / "templates"
        name = Path(os.path.normpath(path.absolute())).name   # the folder's own name, also for '.' and '..'
        shipped = SHIPPED_TEMPLATES / name
        src = GameSource(name, path, shipped if not own.is_dir() and shipped.is_dir() else own)
    else:
        games = discover_games(games_dirs)
        if str(game) not in games:
            _not_a_game(str(game))
            raise InputError(f"unknown game '{game}'{did_you_mean(str(game), games)}", None,
                             f"use one of: {', '.join(games)} (cardgen list shows them)")
        src = games[str(game)]
    return _load(src, shipped_physics(), tuple(font_dirs))


def load_games(ids: Iterable[str] = (), games_dirs: Iterable[Path] = (), font_dirs: Iterable[Path] = ()) -> list[Game]:
    """Load the named games (ids, or paths of game folders), or every discoverable game; the
    input errors of every game that cannot be read are raised together."""
    loaded, errors = load_each(ids, games_dirs, font_dirs)
    raise_all(errors)
    return loaded


def load_each(ids: Iterable[str] = (), games_dirs: Iterable[Path] = (), font_dirs: Iterable[Path] = ()
              ) -> tuple[list[Game], list[CardgenError]]:
    """Load the named games (ids, or paths of game folders), or every discoverable game, each
    on its own: the games that load, and the input error of each game that does not (so that
    one broken game neither hides another's errors nor keeps the checker from the others)."""
    games = discover_games(games_dirs)
    wanted = list(ids) or list(games)
    physics = shipped_physics()
    font_dirs = tuple(font_dirs)
    loaded: list[Game] = []
    errors: list[CardgenError] = []
    for gid in wanted:
        try:
            if gid in games:
                loaded.append(_load(games[gid], physics, font_dirs))
            elif (Path(gid) / "game.yaml").is_file():  # a game folder given by path
                loaded.append(load_game(Path(gid), font_dirs=font_dirs))
            else:
                _not_a_game(gid)
                raise InputError(f"unknown game '{gid}'{did_you_mean(gid, games)}", None,
                                 f"use one of: {', '.join(games)}, or the path of a game folder")
        except InputError as exc:
            errors.append(exc)
    return loaded, errors


def _not_a_game(name: str) -> None:
    """Raise the error for a game named by a path that is no game folder: a folder without a
    game.yaml, a file, a path that does not exist. A word that names no path and no game
    is left to the caller's 'unknown game' with the ids to choose from."""
    path = Path(name)
    where = Location.of_file(path)
    if path.is_dir():
        raise InputError("no game.yaml in this folder", where,
                         "give the folder that holds the game's game.yaml, or start a game there with "
                         "'cardgen new <id> --dir <folder>'")
    if path.exists():
        parent = f" ({display_path(path.parent)})" if path.name == "game.yaml" else ""
        raise InputError("this is a file, not a game folder", where, f"give the folder that holds game.yaml{parent}")
    if os.sep in name or (os.altsep and os.altsep in name):
        raise InputError("game folder not found", where, "check the path, or give a game id (cardgen list shows them)")


# --- game.yaml ------------------------------------------------------------------------------

def _listed(data_dir: Path, rel: str, loc: Location, what: str, key: str) -> Path:
    """A file game.yaml lists: inside the game folder, and there (a missing one is reported
    at its line of the list, where the name to fix is written)."""
    path = _within(data_dir, rel, loc)
    if not path.exists() and not path.is_symlink():
        raise InputError(f"{what} file '{rel}' not found", loc,
                         f"create it, or fix or remove its line in the '{key}' list")
    return path


def _within(base: Path, rel: str, loc: Location) -> Path:
    """Resolve a data-relative path, refusing anything that leaves the game folder — by '..', as
    an absolute path, or through a symbolic link that points elsewhere."""
    keep = "keep referenced files inside the game folder and write paths relative to it"
    if any(unicodedata.category(c) == "Cc" for c in rel):
        raise InputError(f"path '{S.shown(rel)}' contains a control character", loc, "remove it from the path")
    if os.path.isabs(rel):
        raise InputError(f"path '{S.shown(rel)}' is absolute and leaves the game folder", loc,
                         "write the path relative to the game folder, e.g. components/cards.yaml")
    try:
        root = base.resolve()
        target = (base / rel).resolve(strict=False)
    except RuntimeError:  # Python < 3.13 reports a symlink loop this way
        raise InputError(f"path '{S.shown(rel)}' runs into a loop of symbolic links", loc,
                         "point the path at a real file") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"path '{S.shown(rel)}' cannot be used: {getattr(exc, 'strerror', None) or exc}", loc,
                         keep) from None
    if root != target and root not in target.parents:
        lexical = Path(os.path.normpath(base.absolute() / rel))
        if lexical == base.absolute() or base.absolute() in lexical.parents:
            raise InputError(f"path '{S.shown(rel)}' leaves the game folder through a symbolic link", loc,
                             f"{keep}; copy the file in instead of linking to it")
        raise InputError(f"path '{S.shown(rel)}' leaves the game folder", loc, keep)
    return target


def _contained(src: GameSource, fonts: Path) -> None:
    """The game's own templates and fonts folders, and every font in it, are the game's: not
    links out of its folder (a font linked to /etc/passwd was opened and parsed, a templates
    folder linked elsewhere drew the game from outside it; files inside them already must
    stay in them). ``--font-dir`` names a folder outside on purpose and is not held to this."""
    game = display_path(src.data_dir)   # the links named as the game names them, not where they lead
    if src.templates_dir == src.data_dir / "templates" and src.templates_dir.exists():
        _within(src.data_dir, "templates", Location(f"{game}/templates"))
    if fonts.exists():
        _within(src.data_dir, "fonts", Location(f"{game}/fonts"))
        if fonts.is_dir():
            for path in sorted(fonts.iterdir()):
                _within(src.data_dir, f"fonts/{path.name}", Location(f"{game}/fonts/{path.name}"))


def _relative(path: Path, base: Path) -> str:
    """A game file as the game's own files name it (components/cards.yaml)."""
    try:
        return path.resolve().relative_to(base.resolve()).as_posix()
    except (ValueError, OSError):
        return display_path(path)


def _template_name(value: Any, loc: Location, raw: Any = None) -> str:
    """A template file name, relative to the game's templates folder and staying inside it."""
    name = S.text(value, loc)
    parts = name.replace("\\", "/").split("/")
    if (not name.strip() or any(unicodedata.category(c) == "Cc" for c in name) or os.path.isabs(name)
            or name.startswith("\\") or ".." in parts):
        raise InputError(f"template '{S.shown(name)}' is not a file name inside the templates folder", loc,
                         "write the template's file name relative to the templates folder, e.g. card-front.svg.j2")
    return name


def _load(src: GameSource, physics: PhysicsData, font_dirs: tuple[Path, ...] = ()) -> Game:
    """One game, read in a child process when its data is large (see :mod:`cardgen.loadapart`)."""
    return loadapart.load(partial(_read_game, src, physics, font_dirs), physics,
                          loadapart.data_bytes(src.data_dir))


def _read_game(src: GameSource, physics: PhysicsData, font_dirs: tuple[Path, ...] = ()) -> Game:
    gpath = src.data_dir / "game.yaml"
    doc = load_yaml(gpath)
    f = S.Fields(doc, "game.yaml", Location.of_file(gpath))
    gid = f.get("id", S.ident)
    if gid != src.id:
        raise InputError(f"game id '{gid}' does not match its folder name '{src.id}'", f.map.where("id"),
                         f"rename the folder or set 'id: {src.id}'")
    name = f.get("name", S.title)
    summary = f.get("summary", S.text, "")
    rulebook = f.get("rulebook", S.text, "")
    assumptions = tuple(
        _assumption(item, loc) for item, loc in S.items(f.get("assumptions", S.anything, None), f.map.where("assumptions")))
    files: list[Path] = [gpath]

    # every listed file is read even after one fails: each broken file is reported at once
    errors: list[CardgenError] = []
    tables: dict[str, Table] = {}
    for item, loc in S.items(f.get("tables", S.anything, None), f.map.where("tables")):
        try:
            tpath = _listed(src.data_dir, S.text(item, loc), loc, "table", "tables")
            table = _table(tpath, physics)
            if table.id in tables:
                raise InputError(f"duplicate table id '{table.id}'", table.location, "give each table its own id")
        except InputError as exc:
            errors.append(exc)
            continue
        tables[table.id] = table
        files.append(tpath)

    components: dict[str, Component] = {}
    for item, loc in S.items(f.get("components", S.anything), f.map.where("components")):
        try:
            cpath = _listed(src.data_dir, S.text(item, loc), loc, "component", "components")
            comp, sheets = _component(cpath, physics, src.data_dir)
            if comp.id in components:
                raise InputError(f"duplicate component id '{comp.id}' (also in "
                                 f"{_relative(components[comp.id].file, src.data_dir)})",
                                 comp.where("id"), "give each component its own id")
        except InputError as exc:
            errors.append(exc)
            continue
        components[comp.id] = comp
        files += [cpath, *sheets]
    raise_all(errors)   # what follows reads the tables and components together

    for comp in components.values():
        for spare in comp.spares:
            if spare not in components or spare == comp.id:
                raise InputError(f"component '{comp.id}' asks for a spare set of '{spare}', which is not another "
                                 f"component of this game", comp.where("spares"),
                                 f"name one of: {', '.join(c for c in components if c != comp.id)}")
    checks = tuple(_check(item, loc) for item, loc in S.items(f.get("checks", S.anything, None), f.map.where("checks")))
    f.finish()
    _resolve_refs(components, tables)
    for comp in components.values():
        if comp.places is not None:
            validate_places(comp, components)
    own_fonts = src.data_dir / "fonts"
    _contained(src, own_fonts)
    fonts = (user_fonts(own_fonts) if own_fonts.is_dir() else ()) + tuple(p for d in font_dirs for p in user_fonts(d))
    _resolve_deviations(tables, assumptions)
    return Game(gid, name, summary, rulebook, components, tables, checks, assumptions, physics,
                src.data_dir, src.templates_dir, f.loc, tuple(files), tuple(dict.fromkeys(fonts)))


def _resolve_deviations(tables: dict[str, Table], assumptions: tuple[Assumption, ...]) -> None:
    """A row that differs from the rulebook must name an assumption that explains why."""
    known = [a.id for a in assumptions]
    for table in tables.values():
        for _row, dev in deviations(table.rows):
            if dev.assumption not in known:
                raise InputError(f"'{DEVIATION_KEY}' names assumption '{dev.assumption}', which game.yaml does not "
                                 f"declare{did_you_mean(dev.assumption, known)}", dev.location,
                                 f"use one of: {', '.join(known)}" if known else
                                 "add the assumption (id and text) under 'assumptions:' in game.yaml")


def _assumption(item: Any, loc: Location) -> Assumption:
    f = S.Fields(item, "an assumption", loc)
    a = Assumption(f.get("id", S.ident), f.get("text", S.text), f.loc)
    f.finish()
    return a


def _check(item: Any, loc: Location) -> CheckSpec:
    m = S.mapping(item, loc)
    rule = S.Fields(m, "a check", loc).get("rule", S.ident)
    return CheckSpec(rule, m, m.loc)


# --- tables ---------------------------------------------------------------------------------

def _table(path: Path, physics: PhysicsData) -> Table:
    doc = load_yaml(path)
    f = S.Fields(doc, f"table file {path.name}", Location.of_file(path))
    tid = f.get("id", S.ident)
    kind = f.get("kind", S.choice(TABLE_KINDS))
    title = f.get("title", S.title, tid)
    level = f.get("level", S.integer(1, 99), 1)
    note = f.get("note", S.text, "")
    rows, options = parse_rows(kind, f, physics, f"table '{tid}'")
    f.finish()
    return Table(tid, kind, title, level, note, rows, options, path, f.loc, f.map.where("level"))


# --- components -----------------------------------------------------------------------------

def _shape(value: Any, loc: Location, size: tuple[float, float]) -> Shape:
    f = S.Fields(value, "a shape", loc)
    shape = Shape(type=f.get("type", S.choice(SHAPE_TYPES)), radius=f.get("radius", S.number(minimum=0), 3.0),
                  angle=f.get("angle", S.number(1, 179), None), pointy=f.get("pointy", S.boolean, False))
    f.finish()
    largest = min(size) / 2
    if shape.type == "rounded-rect" and f.has("radius") and shape.radius > largest:
        raise InputError(f"corner radius {shape.radius:g} mm is more than half the {size[0]:g} × {size[1]:g} mm "
                         "size: the corners would overlap", f.map.where("radius"),
                         f"use a radius of at most {largest:g} mm (a card's corners are usually 3 mm)")
    if shape.type == "lozenge" and shape.angle is None:
        raise InputError("a lozenge needs its corner 'angle'", f.loc, "add e.g. 'angle: 120'")
    return shape


def _size(value: Any, loc: Location, raw: Any = None) -> tuple[float, float]:
    f = S.Fields(value, "a size", loc)
    w = f.get("width", S.number(positive=True, maximum=2000))
    h = f.get("height", S.number(positive=True, maximum=2000))
    f.finish()
    return w, h


def _component(path: Path, physics: PhysicsData, data_dir: Path) -> tuple[Component, list[Path]]:
    """A component and the spreadsheets its cards came from (if any)."""
    doc = load_yaml(path)
    f = S.Fields(doc, f"component file {path.name}", Location.of_file(path))
    cid = f.get("id", S.ident)
    what = f"component '{cid}'"
    specs: dict[str, FieldSpec] = f.get("fields", lambda v, l, r=None: parse_field_specs(v, l, what), {})
    defaults = _defaults(f.get("defaults", S.mapping, None), specs, what, physics)
    width, height = f.get("size", _size)
    places, place_defaults = f.get("places", lambda v, l, r=None: parse_layout(v, l, physics, what), (None, None))
    comp_kw = dict(
        id=cid, name=f.get("name", S.title), kind=f.get("kind", S.choice(COMPONENT_KINDS), "card"),
        width=width, height=height, shape=f.get("shape", lambda v, l, r=None: _shape(v, l, (width, height)), Shape()),
        bleed=f.get("bleed", S.number(0, 20), 3.0), safe=f.get("safe", S.number(0, 50), 4.0),
        front=f.get("front", _template_name),
        back=f.get("back", lambda v, l, r=None: None if v is None else _template_name(v, l), None),
        level=f.get("level", S.integer(1, 99), 1), description=f.get("description", S.text, ""),
        print_note=f.get("print_note", S.text, ""), spares=tuple(f.get("spares", S.seq_of(S.ident), [])))
    entries, sheets = _card_entries(f.get("cards", S.anything), f.map.where("cards"), path, data_dir, specs)
    cards = _cards(entries, f.map.where("cards"), specs, defaults, what, physics, place_defaults)
    f.finish()
    return Component(fields=specs, cards=cards, file=path, location=f.loc, key_locations=dict(f.map.value_locs),
                     places=places, **comp_kw), sheets


def _defaults(m: YMap | None, specs: dict[str, FieldSpec], what: str, physics: PhysicsData) -> dict[str, Any]:
    if m is None:
        return {}
    values, raws, locs = read_record_fields(m, specs, f"defaults of {what}", physics, reserved=(),
                                            complete=False)
    return {k: (values[k], raws[k], locs[k]) for k in m}


def _synth(loc: Location, entries: list[tuple[str, Any, Location, Location, Any]]) -> YMap:
    """Build a YMap from pieces (used to expand a matrix entry into ordinary cards)."""
    m = YMap()
    m.loc, m.key_locs, m.value_locs, m.raw = loc, {}, {}, {}
    for key, value, kloc, vloc, raw in entries:
        m[key] = value
        m.key_locs[key], m.value_locs[key] = kloc, vloc
        if raw is not None:
            m.raw[key] = raw
    return m


def _expand(entry: YMap) -> list[tuple[YMap, tuple[str, ...]]]:
    """``matrix: {particle: [u, d], colour: [red, green]}`` -> one card mapping per combination,
    each with the matrix's axes (the locations of its own values tell a card from its siblings)."""
    if "matrix" not in entry:
        return [(entry, ())]
    matrix = S.mapping(entry["matrix"], entry.where("matrix"))
    axes: list[tuple[str, YSeq]] = []
    for key, values in matrix.items():
        seq = S.sequence(values, matrix.where(key))
        if not seq:
            raise InputError(f"matrix axis '{key}' is empty", matrix.where(key), "list at least one value")
        axes.append((key, seq))
    if "id" not in entry:
        raise InputError("a matrix entry needs an 'id' pattern", entry.loc,
                         "add e.g. id: \"{particle}-{colour}\"")
    if not axes:
        raise InputError("matrix has no axes", entry.where("matrix"), "add e.g. 'particle: [u, d]'")
    combos = math.prod(len(v) for _, v in axes)
    if combos > MAX_CARDS_PER_COMPONENT:
        raise InputError(f"matrix makes {combos} cards, more than the limit of {MAX_CARDS_PER_COMPONENT}",
                         entry.where("matrix"), "use shorter axes or split the component")
    pattern = _id_pattern(S.text(entry["id"], entry.where("id")), list(matrix), entry.where("id"))
    out = []
    for combo in itertools.product(*(range(len(v)) for _, v in axes)):
        pieces = [(k, v, entry.key_where(k), entry.where(k), entry.raw.get(k)) for k, v in entry.items()
                  if k not in ("matrix", "id") and k not in matrix]
        subst = {}
        for (key, values), i in zip(axes, combo):
            pieces.append((key, values[i], matrix.key_where(key), values.where(i), values.raw[i]))
            subst[key] = values[i]
        cid = "".join(str(subst[part]) if is_name else part for part, is_name in pattern)
        pieces.append(("id", cid, entry.key_where("id"), entry.where("id"), None))
        out.append((_synth(entry.loc, pieces), tuple(matrix)))
    return out


def _id_pattern(text: str, names: list[str], loc: Location) -> list[tuple[str, bool]]:
    """Split an id pattern like '{particle}-{colour}' into literal text and matrix names.

    Only plain ``{name}`` placeholders are allowed: no attribute access, indexing or format specs,
    which str.format would otherwise evaluate on the data."""
    hint = f"use only the matrix names: {', '.join('{' + k + '}' for k in names)}"
    out: list[tuple[str, bool]] = []
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:
        raise InputError(f"id pattern '{S.shown(text)}' is malformed: {exc}", loc,
                         f"{hint}; write a literal brace as {{{{ or }}}}") from None
    for literal, name, spec, conversion in parsed:
        if literal:
            out.append((literal, False))
        if name is None:
            continue
        written = S.shown("{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}", 40)
        base = re.split(r"[.\[]", name)[0]
        if base in names and (spec or conversion or name != base):
            raise InputError(f"id pattern '{S.shown(text)}' may only use plain placeholders, not '{written}'",
                             loc, f"write {{{base}}} without formatting or attribute access")
        if name not in names:
            raise InputError(f"id pattern '{S.shown(text)}' uses an unknown name '{written}'"
                             f"{did_you_mean(name, names)}", loc, hint)
        out.append((name, True))
    return out


def _card_entries(value: Any, loc: Location, path: Path, data_dir: Path,
                  specs: dict[str, FieldSpec]) -> tuple[Any, list[Path]]:
    """The ``cards:`` list as written, or read from a spreadsheet when it says
    ``{from: cards.xlsx, sheet: Cards}`` (a path relative to the component file, inside the game
    folder; see :mod:`cardgen.spreadsheets`); with the spreadsheet's path."""
    if not isinstance(value, YMap):
        return value, []
    f = S.Fields(value, "a card list", loc)
    name = f.get("from", S.text)
    sheet = f.get("sheet", S.text, None)
    f.finish()
    try:
        folder = path.parent.resolve().relative_to(data_dir.resolve())
    except ValueError:
        folder = Path()
    source = _within(data_dir, (folder / name).as_posix(), value.where("from"))
    rows = read_sheet(source, sheet, value.where("from"), MAX_CARDS_PER_COMPONENT)
    entries = YSeq(rows_as_cards(rows, specs, value.where("from")))
    entries.loc, entries.item_locs, entries.raw = loc, [m.loc for m in entries], [None] * len(entries)
    return entries, [source]


def _cards(value: Any, loc: Location, specs: dict[str, FieldSpec], defaults: dict[str, Any], what: str,
           physics: PhysicsData, place_defaults: dict[str, Any] | None = None) -> tuple[Card, ...]:
    seq = S.sequence(value, loc)
    cards: list[Card] = []
    seen: dict[str, tuple[Location, dict[str, Location]]] = {}   # id → where it and its fields are
    running = 0
    for i, raw_entry in enumerate(seq):
        entry = S.mapping(raw_entry, seq.where(i))
        for m, axes in _expand(entry):
            cf = S.Fields(m, f"a card of {what}", m.loc)
            cid = cf.get("id", S.ident)
            count = cf.get("count", S.integer(1, MAX_CARDS_PER_COMPONENT), 1)
            running += count
            if running > MAX_CARDS_PER_COMPONENT:
                raise InputError(f"{what} has more than {MAX_CARDS_PER_COMPONENT} cards", m.where("count"),
                                 "split it into several components")
            values, raws, locs = read_record_fields(m, specs, f"card '{cid}'", physics,
                                                    reserved=("id", "count", "places"), defaults=defaults)
            own = cf.get("places", lambda v, l, r=None: parse_card_places(v, l, physics, place_defaults,
                                                                           f"card '{cid}'"), None)
            if cid in seen:
                first, first_locs = seen[cid]
                # a matrix axis that lists a value twice: point at the repeat, not at the id pattern
                repeated = [a for a in axes if a in locs and a in first_locs and locs[a] != first_locs[a]]
                if repeated and first.line == m.where("id").line:
                    axis = repeated[-1]
                    at = first_locs[axis]
                    raise InputError(f"duplicate card id '{cid}' in {what}: matrix '{axis}' lists "
                                     f"'{S.shown(str(raws.get(axis, '')))}' again (first at {at.line}:{at.column})",
                                     locs[axis], "remove the repeated value, or raise 'count' for more copies")
                raise InputError(f"duplicate card id '{cid}' in {what} (first at line {first.line})",
                                 m.where("id"), "give each card its own id")
            seen[cid] = (m.where("id"), locs)
            cards.append(Card(cid, count, values, raws, m.loc, locs, own, axes))
    total = sum(c.count for c in cards)
    if total > MAX_CARDS_PER_COMPONENT:
        raise InputError(f"{what} has {total} cards, more than the limit of {MAX_CARDS_PER_COMPONENT}", loc,
                         "split it into several components")
    if not cards:
        raise InputError(f"{what} has no cards", loc, "add at least one card")
    return tuple(cards)


def _resolve_refs(components: dict[str, Component], tables: dict[str, Any]) -> None:
    """Check that every ``ref`` field names an existing table row or card."""
    for comp in components.values():
        for card in comp.cards:
            for name, spec in comp.fields.items():
                kind = spec.of if spec.type == "list" else spec.type
                if kind != "ref" or card.fields.get(name) is None:
                    continue
                values = card.fields[name] if spec.type == "list" else (card.fields[name],)
                ids, target = _ref_targets(name, spec, components, tables)
                for v in values:
                    if v not in ids:
                        raise InputError(f"'{v}' is not an id in {target}{did_you_mean(v, [i for i in ids if i])}",
                                         card.where(name), f"use one of: {S.one_of(i for i in ids if i) or '(no ids)'}")


def _ref_targets(name: str, spec: FieldSpec, components: dict[str, Component],
                 tables: dict[str, Any]) -> tuple[list[Any], str]:
    """The ids a ``ref`` field may name (a table's rows or a component's cards), and what they are."""
    if spec.table:
        if spec.table not in tables:
            raise InputError(f"field '{name}' refers to unknown table '{spec.table}'"
                             f"{did_you_mean(spec.table, tables)}", spec.location, "fix the table id")
        return [getattr(r, "id", None) for r in tables[spec.table].rows], f"table '{spec.table}'"
    if spec.component not in components:
        raise InputError(f"field '{name}' refers to unknown component '{spec.component}'"
                         f"{did_you_mean(spec.component or '', components)}", spec.location,
                         "fix the component id")
    return [c.id for c in components[spec.component].cards], f"component '{spec.component}'"
