"""Rule sheets and answer keys: ``rules.pdf`` and ``answers.pdf`` per game and language.

A sheet is built from the game's data alone: every rule table (by its kind), the colour wheel
of a game that declares one, the footnotes of rows that differ from the printed rulebook, and
the answer key :mod:`cardgen.answers` derives with the checker's own rules. This module turns
that content into positioned *items* on pages of the build's paper (A4 portrait by default):
text boxes, particle symbols, Feynman vertices, colour badges. It measures symbols with the
text engine so rows line up, and splits long tables over columns and pages. The drawing is
done by the Jinja2 template ``sheet.svg.j2`` (shared, or a game's own), through the renderer
cards use: text is shaped, translated and fit-checked the same way, and an overflow is
reported in the build's text report.

Each page is drawn to PDF like a card face; the pages get an invisible text layer (PDF text
render mode 3) holding every string at its place, so a sheet can be searched, copied and read
aloud, and tests can read the tables back with pdfplumber.
"""

from __future__ import annotations

import html
import io
import json
import math
import re
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from . import answers as A
from .errors import InputError
from .model import Card, Component, Game, Table
from .particles import Particle, Symbol
from .readability import unmistakable_greek
from .render import Face, Renderer, TextIssue
from .shapes import Shape
from .tables import LineType, Roll, Vertex
from .text import TextEngine

SHEETS = ("rules", "answers")
TEMPLATE = "sheet.svg.j2"
MARGIN = 12.0          # mm around the page's content
HEADER = 16.0          # title band
FOOTER = 8.0
ROW = 5.4              # one table row
SIZE = 3.0             # body text
HEAD_SIZE = 2.6        # column headers
TITLE_SIZE = 4.4       # section titles
GAP = 6.0              # between column groups and sections
MARKS = "†‡§¶"
#: Rows per column below which a table is not split into side-by-side column groups.
MIN_GROUP_ROWS = 8


def _(msgid: str) -> str:
    """Marks a sheet string for ``cardgen i18n extract``; it is translated when laid out."""
    return msgid


#: Target kinds (the targets rule's KINDS) as the answer key prints them.
KIND_LABELS = {"baryon": _("baryon"), "antibaryon": _("antibaryon"), "meson": _("meson"), "atom": _("atom")}


@dataclass
class Cell:
    """What one table cell shows, left to right: text, particle symbols, footnote marks and
    small Feynman vertices."""

    runs: list[tuple[str, Any]] = field(default_factory=list)

    def add(self, kind: str, value: Any) -> "Cell":
        self.runs.append((kind, value))
        return self


@dataclass
class TableBlock:
    title: str
    headers: list[str]
    widths: list[float]      # natural column widths, mm
    rows: list[list[Cell]]
    row_h: float = ROW
    note: str = ""
    header_context: str | None = None    # catalog context of the headers (a records table's field names)


@dataclass
class Block:
    """A block of fixed height drawn by a function of its top-left corner."""

    height: float
    draw: Callable[[float, float, float], list[dict[str, Any]]]   # (x, y, width) -> items


class Sheet:
    """Lays one sheet out. ``tr`` translates (identity for English)."""

    def __init__(self, game: Game, kind: str, lang: str, width: float, height: float,
                 tr: Callable[[str, str | None], str], rtl: bool, level: int | None) -> None:
        self.game, self.kind, self.lang, self.tr, self.rtl, self.level = game, kind, lang, tr, rtl, level
        self.W, self.H = width, height
        self.engine = TextEngine.default()
        self.marks: dict[str, str] = {}       # assumption id -> footnote mark
        self.table_id = ""                    # the dice table being laid out (context of its notes)

    # -- measuring -----------------------------------------------------------------------

    def sym_width(self, sym: Symbol, size: float) -> float:
        """The width :func:`cardgen.render.Renderer` ``symbol()`` draws (same engine, same rule)."""
        base = self.engine.layout(unmistakable_greek(sym.base, "bold"), size=size, weight="bold", valign="baseline",
                                  direction="ltr").width
        extra = max((self.engine.layout(unmistakable_greek(s, "bold"), size=size * 0.55, weight="bold",
                                        valign="baseline", direction="ltr").width
                     for s in (sym.sub, sym.sup) if s), default=0.0)
        return base + extra + (size * 0.04 if sym.sub or sym.sup else 0.0)

    def text_width(self, s: str, size: float, weight: str = "regular") -> float:
        return self.engine.layout(s, size=size, weight=weight, lang=self.lang).width

    def run_width(self, kind: str, value: Any, size: float) -> float:
        if kind == "sym":
            return self.sym_width(value.symbol, size)
        if kind == "vertex":
            return size * 3.2
        return self.text_width(str(value), size)

    # -- items ---------------------------------------------------------------------------

    def _x(self, x: float, w: float) -> float:
        return self.W - x - w if self.rtl else x

    def text_item(self, s: str, x: float, y: float, w: float, h: float, size: float = SIZE,
                  weight: str = "regular", fill: str = "#1a1a1a", field: str = "", min_size: float | None = None,
                  align: str | None = None) -> dict:
        return {"kind": "text", "s": s, "x": round(self._x(x, w), 3), "y": round(y, 3), "w": round(w, 3),
                "h": round(h, 3), "size": size, "weight": weight, "fill": fill, "field": field,
                "align": align or ("end" if self.rtl else "start"), "min_size": min_size or size * 0.6}

    def cell_items(self, cell: Cell, x: float, y: float, w: float, h: float, size: float = SIZE) -> list[dict]:
        items: list[dict] = []
        cx = x
        for i, (kind, value) in enumerate(cell.runs):
            last = i == len(cell.runs) - 1
            if kind == "sym":
                sw = self.sym_width(value.symbol, size)
                items.append({"kind": "sym", "sym": value.symbol, "x": round(self._x(cx, sw), 3),
                              "y": round(y + h * 0.5 + size * 0.36, 3), "size": size})
                cx += sw + size * 0.5
            elif kind == "vertex":
                r = size * 1.2
                items.append({"kind": "vertex", "lines": value, "cx": round(self._x(cx + r, 0), 3),
                              "cy": round(y + h * 0.5, 3), "r": r, "label": 0})
                cx += 2 * r + size * 0.6
            else:
                tw = max(w - (cx - x), 1.0) if last else self.text_width(str(value), size) + 0.2
                th = h - 0.4 if last else size * 1.25   # the last run may wrap in a tall row
                items.append(self.text_item(str(value), cx, y + (h - th) / 2, tw, th, size,
                                            "bold" if kind == "mark" else "regular", field="cell"))
                cx += tw + (size * 0.15 if kind == "mark" else size * 0.35)
        return items

    def table(self, t: TableBlock, x: float, y: float, width: float, rows: Sequence[list[Cell]],
              groups: int) -> list[dict]:
        items: list[dict] = []
        gw = sum(t.widths)
        scale = min(1.0, (width - GAP * (groups - 1)) / groups / gw)
        widths = [w * scale for w in t.widths]
        per_group = math.ceil(len(rows) / groups)
        for g in range(groups):
            gx = x + g * (sum(widths) + GAP)
            cx = gx
            for head, w in zip(t.headers, widths):
                items.append(self.text_item(self.tr(head, t.header_context), cx, y, w - 1, HEAD_SIZE * 1.3, HEAD_SIZE, "bold",
                                            "#555555", field="column header"))
                cx += w
            items.append({"kind": "rule", "x": round(self._x(gx, sum(widths)), 3), "y": round(y + HEAD_SIZE * 1.5, 3),
                          "w": round(sum(widths), 3), "fill": "#888888"})
            for r, row in enumerate(rows[g * per_group:(g + 1) * per_group]):
                ry = y + HEAD_SIZE * 1.7 + r * t.row_h
                if r % 2:
                    items.append({"kind": "band", "x": round(self._x(gx, sum(widths)), 3), "y": round(ry, 3),
                                  "w": round(sum(widths), 3), "h": t.row_h})
                cx = gx
                for cell, w in zip(row, widths):
                    items.extend(self.cell_items(cell, cx, ry, w - 1, t.row_h))
                    cx += w
        return items

    # -- cells from data -----------------------------------------------------------------

    def particles(self, ps: Iterable[Particle], cell: Cell | None = None) -> Cell:
        cell = cell or Cell()
        for p in ps:
            cell.add("sym", p)
        return cell

    def words(self, s: str, context: str | None = None) -> Cell:
        return Cell().add("text", self.tr(s, context))

    def mark(self, row: Any, cell: Cell) -> Cell:
        """Append the footnote mark of a row that differs from the rulebook."""
        dev = getattr(row, "deviation", None)
        if dev is not None:
            cell.add("mark", self.marks.setdefault(dev.assumption, MARKS[len(self.marks) % len(MARKS)] *
                                                   (1 + len(self.marks) // len(MARKS))))
        return cell

    @staticmethod
    def faces(faces: tuple[int, ...]) -> str:
        """Die faces as a player reads them: 5, 1–2, 3–6 (a run), 2, 4, 6 (otherwise)."""
        if len(faces) > 1 and list(faces) == list(range(faces[0], faces[-1] + 1)):
            return f"{faces[0]}–{faces[-1]}"
        return ", ".join(str(f) for f in faces)

    # -- rule tables by kind -------------------------------------------------------------

    def table_block(self, table: Table) -> TableBlock | None:
        title = self.tr(table.title, "table.title")
        if table.kind == "transformations":
            rows = [[self.particles([r.source]), self.particles([r.via]),
                     self.mark(r, self.particles([r.target]))] for r in table.rows]
            return TableBlock(title, [_("particle"), _("with"), _("becomes")], [16, 12, 18], rows)
        if table.kind == "annihilation":
            rows = []
            for r in table.rows:
                products = Cell()
                for i, option in enumerate(r.products):
                    if i:
                        products.add("text", self.tr(_("or"), None))
                    self.particles(option, products)
                roll = self.tr(_("even"), None) if r.roll == "even" else r.roll
                rows.append([self.particles(r.members, Cell()), products,
                             self.mark(r, Cell().add("text", roll))])
            return TableBlock(title, [_("particle + its antiparticle"), _("place"), _("roll")], [52, 50, 20], rows)
        if table.kind == "dice":
            self.table_id = table.id
            rows = []
            anti = table.options.get("antiparticles")
            for entry in table.rows:
                self._dice_rows(entry.particles, entry.rolls, 0, rows)
            note = _("Antiparticles decay the same way, into the antiparticles.") if anti else ""
            return TableBlock(title, [_("particle"), _("roll"), _("becomes")], [20, 30, 70], rows, note=note)
        if table.kind == "line-types":
            rows = [[self.words(r.name, f"{table.id}.name"), self.particles(r.particles), Cell().add("text", r.style)]
                    for r in table.rows]
            return TableBlock(title, [_("line"), _("particles"), _("drawn as")], [30, 50, 30], rows)
        if table.kind == "setup":
            rows = [[Cell().add("text", str(getattr(r, k))) for k in
                     ("players", "shown", "rounds", "removed", "secret_per_player")] for r in table.rows]
            return TableBlock(title, [_("players"), _("cards shown"), _("rounds"), _("cards removed"),
                                      _("secret cards each")], [22, 26, 20, 28, 32], rows)
        if table.kind == "records":
            return self._records(table)
        return None   # vertices: drawn as diagrams (vertex_block)

    def _dice_rows(self, particles: Sequence[Particle], rolls: Sequence[Roll], depth: int, rows: list) -> None:
        indent = "    " * depth
        for i, roll in enumerate(rolls):
            who = self.particles(particles) if depth == 0 and i == 0 else Cell()
            faces = Cell().add("text", indent + ("↳ " if depth else "") + self.faces(roll.faces))
            if roll.roll:
                outcome = Cell().add("text", self.tr(_("roll again:"), None))
            elif roll.reroll:
                outcome = Cell().add("text", self.tr(_("roll again"), None))
            elif roll.remains:
                outcome = Cell().add("text", self.tr(_("no change"), None))
            else:
                outcome = Cell()
                for j, option in enumerate(roll.options):
                    if j:
                        outcome.add("text", self.tr(_("or"), None))
                    self.particles(option, outcome)
            rows.append([who, faces, self.mark(roll, outcome)])
            if roll.note:   # the data's own explanation of a roll, on a line of its own
                rows.append([Cell(), Cell(), Cell().add("text", self.tr(roll.note, f"{self.table_id}.note"))])
            if roll.roll:
                self._dice_rows(particles, roll.roll, depth + 1, rows)

    def _records(self, table: Table) -> TableBlock:
        specs = table.options.get("fields", {})
        names = list(specs)
        widths = [14.0 if specs[n].type in ("int", "number", "bool") else 40.0 for n in names]
        texts = [i for i, n in enumerate(names) if specs[n].type == "text"]
        if texts:   # the last text column (a description) takes the rest of the page's width
            widths[texts[-1]] = max(40.0, self.W - 2 * MARGIN - (sum(widths) - widths[texts[-1]]))
        rows = []
        for r in table.rows:
            cells = []
            for name in names:
                spec, value = specs[name], r.values.get(name)
                kind = spec.of if spec.type == "list" else spec.type
                values = value if isinstance(value, (list, tuple)) else [value]
                cell = Cell()
                if value is None:
                    pass
                elif kind == "particle":
                    self.particles(values, cell)
                elif kind == "ref" and spec.table and self.game.tables[spec.table].kind == "vertices":
                    vt = self.game.tables[spec.table]
                    by_id = {v.id: v for v in vt.rows}
                    for vid in values:
                        cell.add("vertex", self._vertex_lines(vt, by_id[vid]))
                elif spec.type == "text" and spec.translatable:
                    cell.add("text", self.tr(str(value), f"{table.id}.{name}"))
                else:
                    cell.add("text", ", ".join(str(v) for v in values))
                cells.append(cell)
            cells[-1] = self.mark(r, cells[-1])
            rows.append(cells)
        long_text = any(w > 60 for w in widths)
        return TableBlock(self.tr(table.title, "table.title"), [column_header(n) for n in names], widths, rows,
                          row_h=ROW * 1.9 if long_text else ROW,
                          header_context=f"{table.id}.field")

    # -- drawings ------------------------------------------------------------------------

    def _vertex_lines(self, vt: Table, v: Vertex) -> list[dict[str, Any]]:
        line_types = {lt.id: lt for lt in self.game.tables[vt.options["line_types"]].rows}
        return [_line(line_types[lid]) for lid in v.lines]

    def vertex_block(self, vt: Table, answers: list[A.VertexAnswer] | None = None) -> Block:
        """Every vertex of the table as a Feynman diagram with its name and points."""
        per_row = max(1, int((self.W - 2 * MARGIN) // 44))
        cell_w, cell_h = (self.W - 2 * MARGIN) / per_row, 30.0
        rows = list(vt.rows)
        n_rows = math.ceil(len(rows) / per_row)

        def draw(x: float, y: float, width: float) -> list[dict]:
            items = [self.text_item(self.tr(vt.title, "table.title"), x, y, width, TITLE_SIZE * 1.3, TITLE_SIZE,
                                    "bold", field="section title")]
            for i, v in enumerate(rows):
                cx = x + (i % per_row) * cell_w
                cy = y + TITLE_SIZE * 1.6 + (i // per_row) * cell_h
                items.append({"kind": "vertex", "lines": self._vertex_lines(vt, v), "cx": round(self._x(cx + cell_w / 2, 0), 3),
                              "cy": round(cy + 12, 3), "r": 7.0, "label": 2.6})
                label = self.tr(v.name, f"{vt.id}.name")
                items.append(self.text_item(label, cx + 1, cy + 22.5, cell_w - 12, SIZE * 1.3, SIZE, field="vertex name"))
                items.append(self.text_item(f"{v.points}", cx + cell_w - 10, cy + 22, 8, SIZE * 1.5, SIZE * 1.3, "bold",
                                            field="points"))
            return items

        return Block(TITLE_SIZE * 1.8 + n_rows * cell_h, draw)

    def colour_block(self) -> Block:
        """The colour wheel (each colour at its hue, anti-colours opposite) and the colour sets
        that make a hadron, found with the same colour-neutrality test the answer key uses."""
        colours = list(self.game.physics.colours.values())
        plain = [c for c in colours if not c.is_anti]
        anti = [c for c in colours if c.is_anti]
        combos = []
        if A.colour_neutral(plain):
            combos.append((_("baryon: one quark of each colour"), plain))
        if A.colour_neutral(anti):
            combos.append((_("antibaryon: one anti-quark of each anti-colour"), anti))
        pairs = [(c, self.game.physics.colours[c.anti]) for c in plain if A.colour_neutral([c, self.game.physics.colours[c.anti]])]
        r = 22.0

        def draw(x: float, y: float, width: float) -> list[dict]:
            items = [self.text_item(self.tr(_("Colour charge"), None), x, y, width, TITLE_SIZE * 1.3, TITLE_SIZE,
                                    "bold", field="section title")]
            cx, cy = x + r + 8, y + TITLE_SIZE * 1.6 + r + 6
            items.append({"kind": "circle", "cx": round(self._x(cx, 0), 3), "cy": round(cy, 3), "r": r})
            for c in colours:
                px = cx + r * math.sin(math.radians(c.hue))
                py = cy - r * math.cos(math.radians(c.hue))
                items.append({"kind": "badge", "colour": c, "cx": round(self._x(px, 0), 3), "cy": round(py, 3), "r": 4.5})
                items.append(self.text_item(self.tr(c.name, "colour"), px - 12, py + 4.8, 24, SIZE * 1.2, SIZE * 0.8,
                                            field="colour name", align="middle"))
            tx, ty = cx + r + 16, y + TITLE_SIZE * 1.8
            tw = width - (tx - x)
            for label, cs in combos:
                items.append(self.text_item(self.tr(label, None), tx, ty, tw, SIZE * 1.3, SIZE, field="combination"))
                ty += SIZE * 1.5
                items.append(self.text_item(" + ".join(self.tr(c.name, "colour") for c in cs), tx + 4, ty, tw - 4,
                                            SIZE * 1.3, SIZE, "bold", field="combination"))
                ty += SIZE * 2.2
            if pairs:
                items.append(self.text_item(self.tr(_("meson: a colour and its anti-colour, opposite on the wheel"), None),
                                            tx, ty, tw, SIZE * 1.3, SIZE, field="combination"))
                ty += SIZE * 1.5
                for c, a in pairs:
                    items.append(self.text_item(f"{self.tr(c.name, 'colour')} + {self.tr(a.name, 'colour')}", tx + 4, ty,
                                                tw - 4, SIZE * 1.3, SIZE, "bold", field="combination"))
                    ty += SIZE * 1.5
            return items

        return Block(TITLE_SIZE * 1.8 + 2 * r + 16, draw)

    def paragraph(self, s: str, size: float = SIZE, weight: str = "regular", lead: str = "") -> Block:
        """A wrapped paragraph; its height is measured with the text engine at the sheet's width."""
        width = self.W - 2 * MARGIN - (6 if lead else 0)
        res = self.engine.layout(s, size=size, width=width, weight=weight, lang=self.lang, line_height=1.25)
        h = res.height + size * 0.6

        def draw(x: float, y: float, w: float) -> list[dict]:
            items = []
            if lead:
                items.append(self.text_item(lead, x, y, 5, size * 1.3, size, "bold", field="footnote mark"))
            items.append(self.text_item(s, x + (6 if lead else 0), y, width, h, size, weight, field="paragraph",
                                        min_size=size * 0.8))
            return items

        return Block(h, draw)

    def footnotes(self) -> list[Block]:
        texts = {a.id: a.text for a in self.game.assumptions}
        return [self.paragraph(self.tr(texts[aid], "assumption"), SIZE * 0.85, lead=mark)
                for aid, mark in self.marks.items()]


def column_header(field_name: str) -> str:
    """A records table's column header: its field's name in words (energy_mev → energy mev)."""
    return field_name.replace("_", " ")


def _line(lt: LineType) -> dict[str, Any]:
    """How a vertex's line is drawn: its style and the symbol at its end (one particle's own
    symbol, or the line type's id for a line standing for several, e.g. q for any quark)."""
    return {"style": lt.style, "sym": lt.particles[0].symbol if len(lt.particles) == 1 else None, "id": lt.id}


def _charge(q: Fraction) -> str:
    if q == 0:
        return "0"
    s = f"{abs(q.numerator)}" + (f"/{q.denominator}" if q.denominator != 1 else "")
    return ("+" if q > 0 else "−") + s


# --- the two sheets -------------------------------------------------------------------------

def rule_content(s: Sheet) -> list[TableBlock | Block]:
    game, out = s.game, []
    if game.summary:
        out.append(s.paragraph(s.tr(game.summary, "game.summary"), SIZE * 1.1, "bold"))
    for table in game.tables.values():
        if s.level is not None and table.level > s.level:
            continue
        if table.kind == "vertices":
            out.append(s.vertex_block(table))
            continue
        block = s.table_block(table)
        if block is not None:
            out.append(block)
    if any(c.rule == "colour-wheel" for c in game.checks):
        out.append(s.colour_block())
    out.extend(s.footnotes())
    return out


def answer_content(s: Sheet) -> list[TableBlock | Block]:
    game, out = s.game, []
    targets = A.target_recipes(game, s.level)
    if targets:
        rows = []
        for t in targets:
            needs = Cell()
            for ing in t.ingredients:
                s.particles([ing.particle] * ing.needed, needs)
            rows.append([s.words(t.name, f"{t.component}.name"), Cell().add("text", s.tr(KIND_LABELS.get(t.kind, t.kind), None)),
                         needs,
                         Cell().add("text", _charge(t.charge)), Cell().add("text", str(t.points))])
        out.append(TableBlock(s.tr(_("Targets: what each one needs"), None),
                              [_("target"), _("kind"), _("cards needed"), _("charge"), _("points")],
                              [40, 24, 44, 16, 14], rows))
        rows = []
        for t in targets:
            for ing in t.ingredients:
                cards = Cell().add("text", " ".join(f"{cid} ×{n}" for cid, n in ing.cards) or "–")
                made = Cell()
                for src, via in ing.transformations:
                    s.particles([src], made).add("text", "+")
                    s.particles([via], made).add("text", ",")
                if made.runs:
                    made.runs.pop()   # the last comma
                rows.append([s.words(t.name, f"{t.component}.name"), s.particles([ing.particle] * ing.needed),
                             cards, made])
        out.append(TableBlock(s.tr(_("Recipes: the cards that build each target"), None),
                              [_("target"), _("needs"), _("deck cards (copies)"), _("or transform (Level 5)")],
                              [34, 18, 26, 100], rows))
    combos = A.neutral_combinations(game)
    titles = {"baryon": _("Baryons the deck can make"), "antibaryon": _("Antibaryons the deck can make"),
              "meson": _("Mesons the deck can make")}
    for kind in A.HADRON_KINDS:
        rows = [[s.particles(c.particles), Cell().add("text", _charge(c.charge)),
                 Cell().add("text", c.hadron or "–")] for c in combos if c.kind == kind]
        if rows:
            out.append(TableBlock(s.tr(titles[kind], None) + f" ({len(rows)})", [_("quarks"), _("charge"), _("hadron")],
                                  [22, 14, 26], rows))
    pairs = A.antiparticle_pairs(game)
    if pairs:
        rows = [[s.particles(pair), Cell().add("text", s.tr(pair[0].name, "particle"))] for pair in pairs]
        out.append(TableBlock(s.tr(_("Lepton pairs the deck can make"), None) + f" ({len(rows)})",
                              [_("pair"), _("particle")], [18, 40], rows))
    vertices = A.valid_vertices(game)
    if vertices:
        rows = []
        for v in vertices:
            rows.append([Cell().add("vertex", [_line(lt) for lt in v.lines]),
                         Cell().add("text", "–".join(lt.id for lt in v.lines)),
                         s.words(v.name, f"{v.table}.name"), Cell().add("text", str(v.combinations)),
                         Cell().add("text", "–" if v.points is None else str(v.points))])
        out.append(TableBlock(s.tr(_("Valid vertices and their points"), None),
                              [_("vertex"), _("lines"), _("name"), _("particle choices"), _("points")],
                              [16, 24, 50, 30, 16], rows, row_h=ROW * 1.8))
    if not out:
        out.append(s.paragraph(s.tr(_("This game's data declares nothing to derive an answer key from."), None)))
    return out


# --- pagination -----------------------------------------------------------------------------

def paginate(s: Sheet, content: list[TableBlock | Block]) -> list[list[dict]]:
    """Place the content top to bottom; a table too long for the space left is split into
    column groups across the page and continued on the next page."""
    x, width = MARGIN, s.W - 2 * MARGIN
    top, bottom = MARGIN + HEADER, s.H - MARGIN - FOOTER
    if bottom - top < 40 or width < 80:
        raise InputError(f"a {s.W:g} × {s.H:g} mm page is too small for the rule sheets", None,
                         "build with --paper a4, letter or larger")
    pages: list[list[dict]] = [[]]
    y = top

    def new_page() -> None:
        nonlocal y
        pages.append([])
        y = top

    for block in content:
        if isinstance(block, Block):
            if y + block.height > bottom and y > top:
                new_page()
            pages[-1].extend(block.draw(x, y, width))
            y += block.height + GAP * 0.6
            continue
        groups = max(1, min(len(block.rows), int((width + GAP) // (sum(block.widths) + GAP))))
        rows = list(block.rows)
        title = block.title
        while rows:
            head = TITLE_SIZE * 1.6 + HEAD_SIZE * 1.7
            fit = int((bottom - y - head - (SIZE * 1.6 if block.note else 0)) // block.row_h)
            if fit < min(3, len(rows)) and y > top:
                new_page()
                continue
            fit = max(fit, 1)
            g = min(groups, max(math.ceil(len(rows) / fit), len(rows) // MIN_GROUP_ROWS))
            take = rows[:fit * g] if len(rows) > fit * g else rows
            g = min(g, math.ceil(len(take) / math.ceil(len(take) / g)))
            pages[-1].append(s.text_item(title, x, y, width, TITLE_SIZE * 1.3, TITLE_SIZE, "bold",
                                         field="section title"))
            pages[-1].extend(s.table(block, x, y + TITLE_SIZE * 1.6, width, take, g))
            y += head + math.ceil(len(take) / g) * block.row_h
            rows = rows[len(take):]
            if not rows and block.note:
                pages[-1].append(s.text_item(s.tr(block.note, None), x, y + 1, width, SIZE * 1.3, SIZE * 0.85,
                                             field="table note"))
                y += SIZE * 1.6
            y += GAP
            continued = s.tr(_("continued"), None)
            title = f"{block.title} ({continued})"
    return pages


# --- rendering ------------------------------------------------------------------------------

@dataclass
class SheetResult:
    kind: str
    pdf: bytes
    pages: int
    issues: list[TextIssue]
    missing: list[tuple[str, str]]


def sheet_pages(game: Game, kind: str, lang: str, width: float, height: float,
                translate: Callable[[str, str | None], str] | None, level: int | None) -> list[list[dict]]:
    """The items of every page of one sheet (``kind`` 'rules' or 'answers')."""
    from .render import RTL_LANGS

    tr = translate or (lambda m, c=None: m)
    s = Sheet(game, kind, lang, width, height, lambda m, c=None: tr(m, c) if m else m,
              lang.split("-")[0] in RTL_LANGS, level)
    content = rule_content(s) if kind == "rules" else answer_content(s)
    return paginate(s, content)


def page_component(game: Game, kind: str, width: float, height: float, pages: list[list[dict]]) -> Component:
    """The sheet as a component of one 'card' per page, so the card renderer draws it."""
    cards = tuple(Card(f"page-{i + 1}", 1, {"items": items, "sheet": kind, "page": i + 1, "pages": len(pages)}, {},
                       game.location) for i, items in enumerate(pages))
    return Component(id=kind, name=kind, kind="reference", width=width, height=height, shape=Shape(type="rect"),
                     bleed=0.0, safe=MARGIN, front=TEMPLATE, back=None, fields={}, cards=cards, level=1,
                     description="", print_note="", file=game.data_dir / "game.yaml",
                     location=game.location)


def sheet_faces(game: Game, kind: str, renderer: Renderer, width: float = 210.0, height: float = 297.0,
                level: int | None = None) -> list[Face]:
    """Every page of one sheet rendered by ``renderer`` (its language and translator), which
    collects the text issues as it does for cards (``cardgen check --lang`` uses this)."""
    pages = sheet_pages(game, kind, renderer.lang, width, height, renderer.translate, level)
    comp = page_component(game, kind, width, height, pages)
    return [renderer.face(comp, card, "front") for card in comp.cards]


def render_sheet(game: Game, kind: str, lang: str, width: float, height: float,
                 translate: Any, level: int | None, title: str, epoch: int | None,
                 bytecode_db: Path | None = None) -> SheetResult:
    """Lay out, render, draw and assemble one sheet into a PDF."""
    from .draw import render_pdf

    if translate is not None:
        translate.missing.clear()
    renderer = Renderer(game, lang, translate=translate, bytecode_db=bytecode_db)
    faces = sheet_faces(game, kind, renderer, width, height, level)
    missing = sorted(translate.missing) if translate is not None else []
    issues = list(dict.fromkeys(renderer.issues))
    notes = json.dumps({"issues": [asdict(i) for i in issues], "missing": missing}, ensure_ascii=False, sort_keys=True)
    pdf = assemble([render_pdf(f) for f in faces], [text_runs(f) for f in faces], width, height, title, epoch, notes)
    return SheetResult(kind, pdf, len(faces), issues, missing)


#: Key of the sheet PDF's document information that keeps what rendering it reported, so a
#: rebuild that keeps the file (inputs unchanged) reports the same text issues again.
NOTES_KEY = "/CardgenTextReport"


def read_notes(path: Path) -> tuple[list[TextIssue], list[tuple[str, str]]] | None:
    """The text issues and untranslated strings a sheet's rendering reported, from its PDF
    (None when the file is not a sheet cardgen wrote or cannot be read)."""
    import pikepdf

    try:
        with pikepdf.open(path) as pdf:
            notes = json.loads(str(pdf.trailer.Info[NOTES_KEY]))
        return [TextIssue(**i) for i in notes["issues"]], [(m, c) for m, c in notes["missing"]]
    except (OSError, KeyError, ValueError, TypeError, pikepdf.PdfError):
        return None


# --- text layer -----------------------------------------------------------------------------

_LABEL = re.compile(r'<g aria-label="([^"]*)"[^>]*>(.*?)</g>', re.S)
_PLACE = re.compile(r'n="(\d+)"')


@dataclass(frozen=True)
class TextRun:
    """One drawn string and where its glyphs are: left, baseline, right (mm) and size."""

    text: str
    x: float
    y: float
    right: float
    size: float


def text_runs(face: Face) -> list[TextRun]:
    """Every labelled string of a face with its glyphs' extent (from the deferred placements)."""
    runs = []
    for label, inner in _LABEL.findall(face.body):
        glyphs = [g for n in _PLACE.findall(inner) if int(n) < len(face.texts) for g in face.texts[int(n)].glyphs]
        text = html.unescape(label).strip()
        if not glyphs or not text:
            continue
        first = glyphs[0]
        size = first.scale * first.face.upem
        right = max(g.x + g.scale * g.face.upem * 0.5 for g in glyphs)
        runs.append(TextRun(text, min(g.x for g in glyphs), first.y, right, size))
    return runs


def assemble(pages: list[bytes], runs: list[list[TextRun]], width: float, height: float, title: str,
             epoch: int | None, notes: str = "") -> bytes:
    """One PDF of the drawn pages, each with its invisible text layer, written deterministically."""
    import pikepdf
    from pikepdf import Dictionary, Name

    from .pdfwrite import deflate

    pdf = pikepdf.new()
    chars = sorted({ch for page in runs for run in page for ch in run.text})
    cid = {ch: i + 1 for i, ch in enumerate(chars)}
    font = _text_layer_font(pdf, cid)
    k = 72 / 25.4
    for data, page_runs in zip(pages, runs):
        src = pikepdf.open(io.BytesIO(data))
        pdf.pages.append(src.pages[0])
        page = pdf.pages[-1]
        ops = ["BT", "3 Tr"]
        for run in page_runs:
            n = len(run.text)
            natural = n * 0.5 * run.size
            scale = max(1.0, min(1000.0, 100 * (run.right - run.x) / natural)) if natural else 100
            hexed = "".join(f"{cid[ch]:04X}" for ch in run.text)
            ops.append(f"/CGText {run.size * k:.3f} Tf {scale:.2f} Tz 1 0 0 1 {run.x * k:.3f} "
                       f"{(height - run.y) * k:.3f} Tm <{hexed}> Tj")
        ops.append("ET")
        resources = page.obj.get("/Resources")
        if resources is None:
            page.obj.Resources = resources = Dictionary()
        fonts = resources.get("/Font")
        if fonts is None:
            resources.Font = fonts = Dictionary()
        fonts.CGText = font
        page.contents_add(pdf.make_stream(b"q\n"), prepend=True)
        stream = pdf.make_stream(deflate(("Q\n" + "\n".join(ops) + "\n").encode("ascii")))
        stream.Filter = Name.FlateDecode
        page.contents_add(stream)
    info = Dictionary(Producer=pikepdf.String("cardgen"), Title=pikepdf.String(title))
    if notes:
        info[NOTES_KEY] = pikepdf.String(notes)
    if epoch is not None:
        from datetime import datetime, timezone

        stamp = datetime.fromtimestamp(epoch, tz=timezone.utc).strftime("D:%Y%m%d%H%M%SZ")
        info.CreationDate = pikepdf.String(stamp)
    pdf.trailer.Info = pdf.make_indirect(info)
    pdf.Root.ViewerPreferences = Dictionary(PrintScaling=Name("/None"))
    out = io.BytesIO()
    pdf.save(out, deterministic_id=True, compress_streams=True,
             object_stream_mode=pikepdf.ObjectStreamMode.generate, fix_metadata_version=False)
    return out.getvalue()


def _blank_font(glyphs: int) -> bytes:
    """A TrueType program of ``glyphs`` empty glyphs (plus .notdef), 500 units wide: what the
    invisible text layer's font embeds, since print shops' preflight refuses any font that is
    not embedded, even one that paints nothing. Built without timestamps: the same bytes on
    every build."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    names = [".notdef"] + [f"c{n}" for n in range(1, glyphs + 1)]
    builder = FontBuilder(1000, isTTF=True)
    builder.setupGlyphOrder(names)
    builder.setupCharacterMap({})
    builder.setupGlyf({name: TTGlyphPen(None).glyph() for name in names})
    builder.setupHorizontalMetrics({name: (500, 0) for name in names})
    builder.setupHorizontalHeader(ascent=900, descent=-250)
    builder.setupNameTable({"familyName": "CardgenTextLayer", "styleName": "Regular"})
    builder.setupOS2(sTypoAscender=900, sTypoDescender=-250, usWinAscent=900, usWinDescent=250)
    builder.setupPost()
    builder.font["head"].created = builder.font["head"].modified = 0
    builder.font.recalcTimestamp = False
    out = io.BytesIO()
    builder.save(out)
    return out.getvalue()


def _text_layer_font(pdf: Any, cid: dict[str, int]) -> Any:
    """A Type 0 font whose glyphs are all blank (the text is never painted) and whose
    ToUnicode map gives each code its character, so readers extract the sheet's text."""
    import pikepdf
    from pikepdf import Array, Dictionary, Name

    lines = ["/CIDInit /ProcSet findresource begin", "12 dict begin", "begincmap",
             "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
             "/CMapName /Adobe-Identity-UCS def", "/CMapType 2 def",
             "1 begincodespacerange", "<0000> <FFFF>", "endcodespacerange"]
    items = sorted(cid.items(), key=lambda p: p[1])
    for i in range(0, len(items), 100):
        chunk = items[i:i + 100]
        lines.append(f"{len(chunk)} beginbfchar")
        lines += [f"<{code:04X}> <{ch.encode('utf-16-be').hex().upper()}>" for ch, code in chunk]
        lines.append("endbfchar")
    lines += ["endcmap", "CMapName currentdict /CMap defineresource pop", "end", "end"]
    to_unicode = pdf.make_stream("\n".join(lines).encode("ascii"))
    program = pdf.make_stream(_blank_font(max(cid.values(), default=0)))
    descriptor = Dictionary(Type=Name.FontDescriptor, FontName=Name("/CardgenTextLayer"), Flags=4,
                            FontBBox=Array([0, -250, 1000, 900]), ItalicAngle=0, Ascent=900, Descent=-250,
                            CapHeight=700, StemV=80, FontFile2=program)
    cid_font = Dictionary(Type=Name.Font, Subtype=Name.CIDFontType2, BaseFont=Name("/CardgenTextLayer"),
                          CIDSystemInfo=Dictionary(Registry=pikepdf.String("Adobe"), Ordering=pikepdf.String("Identity"),
                                                   Supplement=0),
                          FontDescriptor=pdf.make_indirect(descriptor), DW=500, CIDToGIDMap=Name.Identity)
    return pdf.make_indirect(Dictionary(Type=Name.Font, Subtype=Name.Type0, BaseFont=Name("/CardgenTextLayer"),
                                        Encoding=Name("/Identity-H"), DescendantFonts=Array([pdf.make_indirect(cid_font)]),
                                        ToUnicode=pdf.make_indirect(to_unicode)))



def inputs_digest(game: Game) -> str:
    """Digest of what a sheet reads beyond the game's fingerprint: every data file of the game
    (components included: the answer key derives from the cards) and the code that lays
    sheets out."""
    import hashlib

    h = hashlib.sha256()
    for path in (*game.files, Path(__file__), Path(A.__file__)):
        h.update(str(path).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]
