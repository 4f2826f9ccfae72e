"""Rule sheets and answer keys: ``rules.pdf`` and ``answers.pdf`` per game and language.

A sheet is built from the game's data alone: every rule table (by its kind), the colour wheel
of a game that declares one, the footnotes of rows that differ from the printed rulebook, and
the answer key :mod:`cardgen.answers` derives with the checker's own rules. This module makes
that content — tables of cells (text, particle symbols, footnote marks, small vertices), the
vertex diagrams and the colour wheel — and renders the sheet; :mod:`cardgen.sheetlayout`
measures it and places it on pages of the build's paper (A4 portrait by default), and
:mod:`cardgen.textlayer` assembles the PDF with its searchable text layer. The drawing is
done by the Jinja2 template ``sheet.svg.j2`` (shared, or a game's own), through the renderer
cards use: text is shaped, translated and fit-checked the same way, and an overflow is
reported in the build's text report.

Every string a sheet prints of its own is marked ``_()`` here: ``cardgen i18n extract``
reads them from this file, which is why the content of both sheets stays in one module of
somewhat more than 400 lines rather than being split by sheet.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
from dataclasses import asdict, dataclass, fields, is_dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from . import answers as A
from . import sheetlayout, textlayer
from .errors import Location
from .model import Card, Component, Game, Table
from .particles import Particle
from .render import Face, Rendered, Renderer, TextIssue
from .shapes import Shape
from .sheetlayout import MARGIN, ROW, SIZE, TITLE_SIZE, Block, Cell, SheetLayout, TableBlock, paginate
from .tables import LineType, Roll, Vertex
from .textlayer import NOTES_KEY, assemble, text_runs

SHEETS = ("rules", "answers")
TEMPLATE = "sheet.svg.j2"
MARKS = "†‡§¶"


def _(msgid: str) -> str:
    """Marks a sheet string for ``cardgen i18n extract``; it is translated when laid out."""
    return msgid


#: How each line style is drawn, in words a player can check against the cards.
LINE_STYLES = {"fermion": _("straight line with an arrow"), "gluon": _("curly line"), "photon": _("wavy line"),
               "scalar": _("dashed line")}

#: Target kinds (the targets rule's KINDS) as the answer key prints them.
KIND_LABELS = {"baryon": _("baryon"), "antibaryon": _("antibaryon"), "meson": _("meson"), "atom": _("atom")}

#: The ink an anti-colour's additive mix makes (anti-red = green + blue = cyan): the colour an
#: anti-quark card is printed in and named by (QCD the Game's cyan, magenta and yellow).
INKS = {(0, 1, 1): _("cyan"), (1, 0, 1): _("magenta"), (1, 1, 0): _("yellow")}


class Sheet(SheetLayout):
    """One sheet's content from the game's data, laid out by :class:`SheetLayout`."""

    def __init__(self, game: Game, kind: str, lang: str, width: float, height: float,
                 tr: Callable[[str, str | None], str], rtl: bool, level: int | None) -> None:
        super().__init__(lang, width, height, tr, rtl)
        self.game, self.kind, self.level = game, kind, level
        self.marks: dict[str, str] = {}       # assumption id -> footnote mark
        self.table_id = ""                    # the dice table being laid out (context of its notes)

    def continued(self, title: str) -> str:
        """The title of a table's part on a later page: the table's title, "(continued)"."""
        continued = self.tr(_("continued"), None)
        return f"{title} ({continued})"

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
            note = _("Antiparticles do the same, into the antiparticles.") if anti else ""
            return TableBlock(title, [_("particle"), _("roll"), _("becomes")], [20, 30, 70], rows, note=note)
        if table.kind == "line-types":
            rows = [[self.words(r.name, f"{table.id}.name"), self.particles(r.particles),
                     self.words(LINE_STYLES.get(r.style, r.style), None)] for r in table.rows]
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
        names = [n for n, spec in specs.items() if spec.printed]
        widths = [14.0 if specs[n].type in ("int", "number", "bool") else 40.0 for n in names]
        texts = [i for i, n in enumerate(names) if specs[n].type == "text"]
        if texts:   # the last text column (a description) takes the rest of the page's width
            widths[texts[-1]] = max(40.0, self.W - 2 * MARGIN - (sum(widths) - widths[texts[-1]]))
        rows = []
        for r in table.rows:
            if self.level is not None and _later_level(r.values.get("level"), self.level):
                continue   # a row of a later level (a level's rules): not played at this sheet's level
            cells = [self._record_cell(table, name, specs[name], r.values.get(name)) for name in names]
            cells[-1] = self.mark(r, cells[-1])
            rows.append(cells)
        long_text = any(w > 60 for w in widths)
        return TableBlock(self.tr(table.title, "table.title"), [column_header(n, specs[n]) for n in names], widths, rows,
                          row_h=ROW * 1.9 if long_text else ROW,
                          header_context=f"{table.id}.field")

    def _record_cell(self, table: Table, name: str, spec: Any, value: Any) -> Cell:
        """One field of a record as its cell: particles as symbols, vertices as diagrams,
        translatable text translated, anything else as written (lists comma-separated)."""
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
        return cell

    def colour_name(self, c: Any) -> str:
        """A colour as the sheet names it: an anti-colour by the ink its card prints, derived
        from its additive mix, with the anti-colour it stands for ('cyan (anti-red)')."""
        name = self.tr(c.name, "colour")
        ink = INKS.get(tuple(c.additive)) if c.is_anti else None
        if ink is None:
            return name
        return self.tr(_("{ink} ({colour})"), None).format(ink=self.tr(ink, None), colour=name)

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
                items.append(self.text_item(self.colour_name(c), px - 12, py + 4.8, 24, SIZE * 1.2, SIZE * 0.8,
                                            field="colour name", align="middle"))
            tx, ty = cx + r + 16, y + TITLE_SIZE * 1.8
            tw = width - (tx - x)
            for label, cs in combos:
                items.append(self.text_item(self.tr(label, None), tx, ty, tw, SIZE * 1.3, SIZE, field="combination"))
                ty += SIZE * 1.5
                names = " + ".join(self.colour_name(c) for c in cs)
                # anti-colours named with their inks ('cyan (anti-red)') may take a second line
                lines = 2 if self.text_width(names, SIZE, "bold") > tw - 4.5 else 1
                items.append(self.text_item(names, tx + 4, ty, tw - 4, SIZE * 1.3 * lines, SIZE, "bold",
                                            field="combination"))
                ty += SIZE * (2.2 + 1.3 * (lines - 1))
            if pairs:
                items.append(self.text_item(self.tr(_("meson: a colour and its anti-colour, opposite on the wheel"), None),
                                            tx, ty, tw, SIZE * 1.3, SIZE, field="combination"))
                ty += SIZE * 1.5
                for c, a in pairs:
                    items.append(self.text_item(f"{self.colour_name(c)} + {self.colour_name(a)}", tx + 4, ty,
                                                tw - 4, SIZE * 1.3, SIZE, "bold", field="combination"))
                    ty += SIZE * 1.5
            return items

        return Block(TITLE_SIZE * 1.8 + 2 * r + 16, draw)

    def assumptions(self) -> list[Block]:
        """What the data assumes where the rulebook is silent, beyond the rows a footnote marks:
        a teacher running the game from this sheet plays by the same reading as the checker."""
        rest = [a for a in self.game.assumptions if a.id not in self.marks]
        if not rest:
            return []
        return [self.paragraph(self.tr(_("Where the rulebook is silent or unclear, this kit reads it so:"), None),
                               SIZE * 0.9, "bold"),
                *(self.paragraph(self.tr(a.text, "assumption"), SIZE * 0.85, lead="•") for a in rest)]

    def footnotes(self) -> list[Block]:
        texts = {a.id: a.text for a in self.game.assumptions}
        return [self.paragraph(self.tr(texts[aid], "assumption"), SIZE * 0.85, lead=mark)
                for aid, mark in self.marks.items()]


#: Units a field's name may end with, as physics writes them (energy_mev → "energy (MeV)").
_UNITS = {"ev": "eV", "kev": "keV", "mev": "MeV", "gev": "GeV", "tev": "TeV", "mm": "mm", "pt": "pt"}


def column_header(field_name: str, spec: Any = None) -> str:
    """A records table's column header: the field's ``label``, or its name in words with a
    unit it ends with in brackets as physics writes it (energy_mev → "energy (MeV)", never
    "energy mev", which reads as milli-electronvolts)."""
    if spec is not None and getattr(spec, "label", ""):
        return spec.label
    *words, last = field_name.split("_")
    if words and last in _UNITS:
        return f"{' '.join(words)} ({_UNITS[last]})"
    return field_name.replace("_", " ")


def _line(lt: LineType) -> dict[str, Any]:
    """How a vertex's line is drawn: its style and the symbol at its end (one particle's own
    symbol, or the line type's id for a line standing for several, e.g. q for any quark)."""
    return {"style": lt.style, "sym": lt.particles[0].symbol if len(lt.particles) == 1 else None, "id": lt.id}


def _later_level(value: Any, level: int) -> bool:
    """Whether a record's whole-number ``level`` field puts it after the level played."""
    return isinstance(value, int) and not isinstance(value, bool) and value > level


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
    out.extend(s.assumptions())
    return out


def answer_content(s: Sheet) -> list[TableBlock | Block]:
    """The answer key: what each target needs and the cards that build it, the hadrons and
    lepton pairs the deck can make and the valid vertices, all derived by :mod:`cardgen.answers`."""
    game = s.game
    out = _target_tables(s, A.target_recipes(game, s.level)) + _hadron_tables(s, A.neutral_combinations(game))
    pairs = A.antiparticle_pairs(game)
    if pairs:
        rows = [[s.particles(pair), Cell().add("text", s.tr(pair[0].name, "particle"))] for pair in pairs]
        out.append(TableBlock(s.tr(_("Lepton pairs the deck can make"), None) + f" ({len(rows)})",
                              [_("pair"), _("particle")], [18, 40], rows))
    vertices = A.valid_vertices(game)
    if vertices:
        out.append(_vertex_table(s, vertices))
    if not out:
        out.append(s.paragraph(s.tr(_("This game's data declares nothing to derive an answer key from."), None)))
    return out


def _target_tables(s: Sheet, targets: list[A.TargetAnswer]) -> list[TableBlock | Block]:
    """What each target needs, then the deck cards (or transformations) that supply it."""
    if not targets:
        return []
    rows = []
    for t in targets:
        needs = Cell()
        for ing in t.ingredients:
            s.particles([ing.particle] * ing.needed, needs)
        rows.append([s.words(t.name, f"{t.component}.name"), Cell().add("text", s.tr(KIND_LABELS.get(t.kind, t.kind), None)),
                     needs,
                     Cell().add("text", _charge(t.charge)), Cell().add("text", str(t.points))])
    needs_table = TableBlock(s.tr(_("Targets: what each one needs"), None),
                             [_("target"), _("kind"), _("cards needed"), _("charge"), _("points")],
                             [40, 24, 44, 16, 14], rows)
    rows = []
    for t in targets:
        for ing in t.ingredients:
            # the deck's cards of that particle, as they print (its symbol), with their copies
            copies = sum(n for _cid, n in ing.cards)
            cards = s.particles([ing.particle]).add("text", f"×{copies}") if copies else Cell().add("text", "–")
            made = Cell()
            for src, via in ing.transformations:
                s.particles([src], made).add("text", "+")
                s.particles([via], made).add("text", ",")
            if made.runs:
                made.runs.pop()   # the last comma
            rows.append([s.words(t.name, f"{t.component}.name"), s.particles([ing.particle] * ing.needed),
                         cards, made])
    headers, widths = [_("target"), _("needs"), _("deck cards (copies)"), _("or transform (Level 5)")], [34, 18, 26, 100]
    if not any(row[3].runs for row in rows):   # no transformation at the level played: no empty column
        headers, widths, rows = headers[:3], widths[:3], [row[:3] for row in rows]
    recipes = TableBlock(s.tr(_("Recipes: the cards that build each target"), None), headers, widths, rows)
    return [needs_table, recipes]


def _hadron_tables(s: Sheet, combos: list[A.Combination]) -> list[TableBlock | Block]:
    """One table per hadron kind of the colour-neutral quark sets the deck can make."""
    titles = {"baryon": _("Baryons the deck can make"), "antibaryon": _("Antibaryons the deck can make"),
              "meson": _("Mesons the deck can make")}
    out: list[TableBlock | Block] = []
    for kind in A.HADRON_KINDS:
        rows = [[s.particles(c.particles), Cell().add("text", _charge(c.charge)),
                 Cell().add("text", (c.hadron + "*" if c.mixed else c.hadron) if c.hadron else "–")]
                for c in combos if c.kind == kind]
        if rows:
            notes = []
            if any(c.mixed for c in combos if c.kind == kind):
                notes.append(_("*: these quarks are one term of the meson's mixed content (π⁰ is (uū − dd̄)/√2)"))
            if any(c.hadron is None for c in combos if c.kind == kind):
                notes.append(_("–: PDG's tables list no hadron of these quarks"))
            out.append(TableBlock(s.tr(titles[kind], None) + f" ({len(rows)})", [_("quarks"), _("charge"), _("hadron")],
                                  [22, 14, 26], rows, note="  ".join(notes)))
    return out


def _lines_cell(lines: Iterable[LineType]) -> Cell:
    """A vertex's lines as the cards print them: a particle's symbol (γ, not 'gamma'), or the
    line type's id for a line standing for several particles (q)."""
    cell = Cell()
    for n, lt in enumerate(lines):
        if n:
            cell.add("text", "–")
        if len(lt.particles) == 1:
            cell.add("sym", lt.particles[0])
        else:
            cell.add("text", lt.id)
    return cell


def _vertex_table(s: Sheet, vertices: list[A.VertexAnswer]) -> TableBlock:
    """Every valid vertex: its diagram, lines, name, particle choices and points."""
    rows = []
    for v in vertices:
        rows.append([Cell().add("vertex", [_line(lt) for lt in v.lines]),
                     _lines_cell(v.lines),
                     s.words(v.name, f"{v.table}.name"), Cell().add("text", str(v.combinations)),
                     Cell().add("text", "–" if v.points is None else str(v.points))])
    return TableBlock(s.tr(_("Valid vertices and their points"), None),
                      [_("vertex"), _("lines"), _("name"), _("particle choices"), _("points")],
                      [16, 24, 50, 30, 16], rows, row_h=ROW * 1.8,
                      note=_("Particle choices: how many vertices of real particles a vertex of the cards stands "
                             "for (a quark line is any of six quarks)."))


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
    return laid_out(game, kind, lang, width, height, translate, level)[1]


def laid_out(game: Game, kind: str, lang: str, width: float, height: float,
             translate: Callable[[str, str | None], str] | None, level: int | None) -> tuple[Sheet, list[list[dict]]]:
    """One sheet laid out: its layout (what its pages are rendered with, :func:`rendered_pages`)
    and the items of every page."""
    from .render import RTL_LANGS

    tr = translate or (lambda m, c=None: m)
    s = Sheet(game, kind, lang, width, height, lambda m, c=None: tr(m, c) if m else m,
              lang.split("-")[0] in RTL_LANGS, level)
    content = rule_content(s) if kind == "rules" else answer_content(s)
    return s, paginate(s, content, s.continued)


def page_component(game: Game, kind: str, width: float, height: float, pages: list[list[dict]]) -> Component:
    """The sheet as a component of one 'card' per page, so the card renderer draws it."""
    cards = tuple(Card(f"page-{i + 1}", 1, {"items": items, "sheet": kind, "page": i + 1, "pages": len(pages)}, {},
                       game.location) for i, items in enumerate(pages))
    return Component(id=kind, name=kind, kind="reference", width=width, height=height, shape=Shape(type="rect"),
                     bleed=0.0, safe=MARGIN, front=TEMPLATE, back=None, fields={}, cards=cards, level=1,
                     description="", print_note="", file=game.data_dir / "game.yaml",
                     location=game.location)


def sheet_faces(game: Game, kind: str, renderer: Renderer, width: float = 210.0, height: float = 297.0,
                level: int | None = None) -> list[Rendered]:
    """Every page of one sheet rendered by ``renderer`` (its language and translator), each
    with its text issues as for cards (``cardgen check --lang`` uses this)."""
    layout, pages = laid_out(game, kind, renderer.lang, width, height, renderer.translate, level)
    return rendered_pages(game, kind, renderer, width, height, layout, pages)


def rendered_pages(game: Game, kind: str, renderer: Renderer, width: float, height: float, layout: Sheet,
                   pages: list[list[dict]]) -> list[Rendered]:
    """:func:`sheet_faces` once the sheet is laid out (:func:`laid_out`: ``layout``, ``pages``)."""
    from dataclasses import replace

    comp = page_component(game, kind, width, height, pages)
    out = []
    for card, items in zip(comp.cards, pages):
        rendered = renderer.face(comp, card, "front")
        # a table cell's runs that do not fit even shrunk (the layout's overflow items), as
        # the text issue a card's text that does not fit is; each text named as translated
        # (without the marks that isolate its formulas), so a build names its catalog entry
        cells = tuple(TextIssue(game.id, comp.id, card.id, "front", it["field"], renderer.lang, it["s"], "overflow",
                                it["detail"]) for it in items if it["kind"] == "overflow")
        issues = tuple(replace(i, text=layout.originals.get(i.text, i.text)) for i in rendered.issues + cells)
        out.append(replace(rendered, issues=issues))
    return out


def render_sheet(game: Game, kind: str, lang: str, width: float, height: float,
                 translate: Any, level: int | None, title: str, epoch: int | None,
                 bytecode_db: Path | None = None, previous: bytes | None = None, drawing: str = "") -> SheetResult:
    """Lay out, render, draw and assemble one sheet into a PDF. ``previous``: the same sheet as
    the last build wrote it (checked intact): when its laid-out pages are the same, those
    bytes are the result, and no page is rendered (see :func:`pages_digest`); when every page
    renders the same, they are too, and no page is drawn (see :func:`content_digest`).
    ``drawing``: a digest of what rendering and drawing depend on besides the pages,
    :func:`cardgen.cache.game_fingerprint` (the templates, catalogs, fonts, cardgen's code)."""
    from .draw import render_pdf

    if translate is not None:
        translate.missing.clear()
    layout, pages = laid_out(game, kind, lang, width, height, translate, level)
    laid = pages_digest(drawing, pages, [kind, lang, width, height, title, epoch, game.id, game.name])
    before = (_notes(previous) or {}) if previous is not None else {}   # what the last build's file records
    kept = _reported(before) if laid is not None and before.get("pages") == laid else None
    if kept is not None and previous is not None:
        return SheetResult(kind, previous, len(pages), *kept)
    renderer = Renderer(game, lang, translate=translate, bytecode_db=bytecode_db)
    results = rendered_pages(game, kind, renderer, width, height, layout, pages)
    faces = [r.face for r in results]
    missing = sorted(translate.missing) if translate is not None else []
    issues = list(dict.fromkeys(i for r in results for i in r.issues))
    report = {"issues": [asdict(i) for i in issues], "missing": missing}
    content = content_digest(drawing, faces, [width, height, title, epoch, report])
    if previous is not None and before.get("content") == content:
        return SheetResult(kind, previous, len(faces), issues, missing)
    notes = json.dumps({**report, "content": content, **({"pages": laid} if laid is not None else {})},
                       ensure_ascii=False, sort_keys=True)
    pdf = assemble([render_pdf(f) for f in faces], [text_runs(f) for f in faces], width, height, title, epoch, notes)
    return SheetResult(kind, pdf, len(faces), issues, missing)


def content_digest(drawing: str, faces: list[Face], settings: list[Any]) -> str:
    """Everything a sheet's PDF is made from: each page's content key (its SVG and placed
    text, from which its drawing and its text layer follow), the page size, title, date and
    rendering report, and ``drawing``, what drawing depends on besides (cardgen's code, the
    libraries, the fonts). A data file the sheet does not print — a particle card's points —
    leaves it unchanged, and the sheet is not drawn again."""
    h = hashlib.sha256(drawing.encode())
    h.update(json.dumps(settings, ensure_ascii=False, sort_keys=True).encode())
    for face in faces:
        h.update(b"\0" + face.key.encode())
    return h.hexdigest()


def pages_digest(drawing: str, pages: list[list[dict]], settings: list[Any]) -> str | None:
    """Everything a sheet's rendering reads, before it is rendered: its laid-out pages (the
    items each page draws, with their places in mm: plain data, particle symbols and colour
    charges, each value spelled out with its type's name), the sheet's kind, language, size,
    title, date and the game's id and name (all its template is shown of the game), and
    ``drawing`` (templates, catalogs, fonts, code). The same digest
    renders to the same pages, with the same text issues and untranslated strings, so a sheet
    whose pages come out of the layout the same is not rendered again. None when the pages
    hold a value this digest cannot spell out (the sheet is then rendered).

    Where a value was written (a :class:`~cardgen.errors.Location`, at any depth: a colour's
    entry, the lines of its cues) is left out: it is shown relative to the working folder,
    and a sheet built from another folder, or by the daemon, must be the same bytes."""
    def plain(value: Any) -> Any:
        if isinstance(value, Location):
            return None
        if is_dataclass(value) and not isinstance(value, type):
            return {type(value).__name__: {f.name: getattr(value, f.name) for f in fields(value)}}
        raise TypeError(type(value).__name__)

    try:
        data = json.dumps([settings, pages], ensure_ascii=False, default=plain, allow_nan=False)
    except (TypeError, ValueError):
        return None
    return hashlib.sha256(drawing.encode() + b"\0" + data.encode()).hexdigest()


def _reported(notes: dict[str, Any]) -> tuple[list[TextIssue], list[tuple[str, str]]] | None:
    """The text issues and untranslated strings a sheet's notes record (None if unreadable)."""
    try:
        return [TextIssue(**i) for i in notes["issues"]], [(m, c) for m, c in notes["missing"]]
    except (KeyError, ValueError, TypeError):
        return None


def _notes(source: Path | bytes) -> dict[str, Any] | None:
    """The notes a sheet cardgen wrote keeps in its document information (what rendering it
    reported, its content digest), from its file or bytes; None for any other PDF."""
    from .pdflib import pikepdf

    try:
        with pikepdf.open(io.BytesIO(source) if isinstance(source, bytes) else source) as pdf:
            notes = json.loads(str(pdf.trailer.Info[NOTES_KEY]))
    except (OSError, KeyError, ValueError, TypeError, pikepdf.PdfError):
        return None
    return notes if isinstance(notes, dict) else None


def read_notes(path: Path) -> tuple[list[TextIssue], list[tuple[str, str]]] | None:
    """The text issues and untranslated strings a sheet's rendering reported, from its PDF
    (None when the file is not a sheet cardgen wrote or cannot be read)."""
    notes = _notes(path)
    return _reported(notes) if notes is not None else None


def inputs_digest(game: Game, kind: str) -> str:
    """Digest of what a sheet reads beyond the game's fingerprint: the game's data files and
    the code that makes, lays out and assembles sheets. The answer key derives from the cards,
    so it reads every file; the rule sheet never reads the components (tests/test_rule_sheets.py
    renders it from a game whose components fail when read), so their files are left out and
    a card edited does not lay the rule sheet out again."""
    from .loader import file_name_in_game

    cards = {c.file for c in game.components.values()} if kind == "rules" else set()
    h = hashlib.sha256()
    for path in (f for f in game.files if f not in cards):   # named within the game: the same wherever it is
        h.update(file_name_in_game(path, game).encode() + b"\0" + path.read_bytes())
    for path in map(Path, (__file__, A.__file__, sheetlayout.__file__, textlayer.__file__)):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]
