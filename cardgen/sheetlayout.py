"""Layout of rule sheets and answer keys: their content as positioned items on pages.

The content (:mod:`cardgen.sheets`) is a list of tables — rows of :class:`Cell` — and
blocks of fixed height drawn by a function. This module measures text and symbols with the
text engine (so rows line up with what the renderer draws), turns cells and tables into
items (text boxes, particle symbols, Feynman vertices, bands and rules), mirrors them for
right-to-left languages, and places the content top to bottom over pages, splitting a long
table into column groups and continuing it on the next page.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from .errors import InputError
from .particles import Symbol
from .readability import unmistakable_greek
from .text import TextEngine

MARGIN = 12.0          # mm around the page's content
HEADER = 16.0          # title band
FOOTER = 8.0
ROW = 5.4              # one table row
SIZE = 3.0             # body text
HEAD_SIZE = 2.6        # column headers
TITLE_SIZE = 4.4       # section titles
GAP = 6.0              # between column groups and sections
#: The smallest share of its size a table cell's runs shrink to before the cell is reported
#: as overflowing (a text box's min_size is 0.6 of its size too).
CELL_MIN_SCALE = 0.6
#: Rows per column below which a table is not split into side-by-side column groups.
MIN_GROUP_ROWS = 8


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


class SheetLayout:
    """Measures and places items on pages of one size. ``tr`` translates (identity for English)."""

    def __init__(self, lang: str, width: float, height: float, tr: Callable[[str, str | None], str],
                 rtl: bool) -> None:
        self.lang, self.tr, self.rtl = lang, tr, rtl
        self.W, self.H = width, height
        self.engine = TextEngine.default()
        #: a text as drawn (formulas isolated) -> as translated, to name its catalog entry
        self.originals: dict[str, str] = {}

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
        """A text box at (x, y) of the left-to-right page, mirrored in a right-to-left sheet.
        Direction and alignment are decided here once for every item: in a right-to-left
        sheet each text is a right-to-left paragraph aligned to its start (the right edge),
        whatever its first strong character (a header in Arabic, a cell of digits or Latin
        symbols, a paragraph), and its formulas are isolated left to right (:func:`isolate_ltr`)."""
        item = {"kind": "text", "s": s, "x": round(self._x(x, w), 3), "y": round(y, 3), "w": round(w, 3),
                "h": round(h, 3), "size": size, "weight": weight, "fill": fill, "field": field,
                "align": align or "start", "min_size": min_size or size * 0.6}
        if self.rtl:
            item["s"] = isolate_ltr(s)
            item["direction"] = "rtl"
            if item["s"] != s:
                self.originals[item["s"]] = s
        return item

    def cell_width(self, cell: Cell, size: float = SIZE) -> float:
        """The width the cell's runs take side by side at ``size``, but for a last text run,
        which takes what is left of the cell (it wraps and shrinks in its own box)."""
        runs = cell.runs[:-1] if cell.runs and cell.runs[-1][0] in ("text", "mark") else cell.runs
        width = 0.0
        for kind, value in runs:
            if kind == "sym":
                width += self.sym_width(value.symbol, size) + size * 0.5
            elif kind == "vertex":
                width += 2 * size * 1.2 + size * 0.6
            else:
                width += self.text_width(str(value), size) + 0.2 + (size * 0.15 if kind == "mark" else size * 0.35)
        return width

    def cell_items(self, cell: Cell, x: float, y: float, w: float, h: float, size: float = SIZE) -> list[dict]:
        """The cell's runs from its start edge. Runs wider than the cell shrink together (as a
        card's text shrinks to its min_size); what does not fit even at CELL_MIN_SCALE of the
        size is reported as an overflow of the cell (an ``overflow`` item, turned into the
        text issue a card's text gets: see :func:`cardgen.sheets.sheet_faces`), never drawn
        past the cell's edge unreported."""
        items: list[dict] = []
        need = self.cell_width(cell, size)
        if need > w:
            scale = max(w / need, CELL_MIN_SCALE)
            size *= scale
            if need * scale > w + 0.01:
                texts = [str(v) for k, v in cell.runs if k == "text"]
                shown = max(texts, key=len) if texts else " ".join(
                    v.symbol.unicode() if k == "sym" else str(v) for k, v in cell.runs if k != "vertex")
                items.append({"kind": "overflow", "field": "cell", "s": shown,
                              "detail": f"{need * scale - w:.1f} mm too long at {size:.2f} mm"})
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

    def _widths(self, t: TableBlock, width: float, groups: int) -> list[float]:
        """The columns' widths when ``groups`` groups of the table share ``width`` side by side."""
        scale = min(1.0, (width - GAP * (groups - 1)) / groups / sum(t.widths))
        return [w * scale for w in t.widths]

    def header_extra(self, t: TableBlock, width: float, groups: int) -> float:
        """The height a second line of column headers adds (0 when every header fits on one
        line of its column): on a narrow page a header wraps rather than shrinking below what
        prints legibly."""
        widths = self._widths(t, width, groups)
        wraps = any(self.text_width(self.tr(head, t.header_context), HEAD_SIZE, "bold") > w - 1
                    for head, w in zip(t.headers, widths))
        return HEAD_SIZE * 1.25 if wraps else 0.0

    def table(self, t: TableBlock, x: float, y: float, width: float, rows: Sequence[list[Cell]],
              groups: int, extra: float = 0.0) -> list[dict]:
        """The table's ``groups`` column groups side by side; ``extra``: the height a second
        line of headers takes (see :meth:`header_extra`)."""
        items: list[dict] = []
        widths = self._widths(t, width, groups)
        per_group = math.ceil(len(rows) / groups)
        for g in range(groups):
            gx = x + g * (sum(widths) + GAP)
            cx = gx
            for head, w in zip(t.headers, widths):
                items.append(self.text_item(self.tr(head, t.header_context), cx, y, w - 1, HEAD_SIZE * 1.3 + extra,
                                            HEAD_SIZE, "bold", "#555555", field="column header"))
                cx += w
            items.append({"kind": "rule", "x": round(self._x(gx, sum(widths)), 3),
                          "y": round(y + HEAD_SIZE * 1.5 + extra, 3), "w": round(sum(widths), 3), "fill": "#888888"})
            for r, row in enumerate(rows[g * per_group:(g + 1) * per_group]):
                ry = y + HEAD_SIZE * 1.7 + extra + r * t.row_h
                if r % 2:
                    items.append({"kind": "band", "x": round(self._x(gx, sum(widths)), 3), "y": round(ry, 3),
                                  "w": round(sum(widths), 3), "h": t.row_h})
                cx = gx
                for cell, w in zip(row, widths):
                    items.extend(self.cell_items(cell, cx, ry, w - 1, t.row_h))
                    cx += w
        return items

    def paragraph(self, s: str, size: float = SIZE, weight: str = "regular", lead: str = "") -> Block:
        """A wrapped paragraph; its height is measured with the text engine at the sheet's width."""
        width = self.W - 2 * MARGIN - (6 if lead else 0)
        res = self.engine.layout(isolate_ltr(s) if self.rtl else s, size=size, width=width, weight=weight,
                                 lang=self.lang, line_height=1.25, direction="rtl" if self.rtl else None)
        h = res.height + size * 0.6

        def draw(x: float, y: float, w: float) -> list[dict]:
            items = []
            if lead:
                items.append(self.text_item(lead, x, y, 5, size * 1.3, size, "bold", field="footnote mark"))
            items.append(self.text_item(s, x + (6 if lead else 0), y, width, h, size, weight, field="paragraph",
                                        min_size=size * 0.8))
            return items

        return Block(h, draw)


# --- pagination -----------------------------------------------------------------------------

def holds_sheets(width: float, height: float) -> bool:
    """Whether a page of this size (mm) has room for a rule sheet's tables: 80 mm of width and
    40 mm of height inside its margins, header and footer (card-sized stock has not)."""
    return width - 2 * MARGIN >= 80 and (height - MARGIN - FOOTER) - (MARGIN + HEADER) >= 40


def paginate(s: SheetLayout, content: list[TableBlock | Block], continued: Callable[[str], str]) -> list[list[dict]]:
    """Place the content top to bottom; a table too long for the space left is split into
    column groups across the page and continued on the next page, under the title
    ``continued`` makes of the table's own."""
    x, width = MARGIN, s.W - 2 * MARGIN
    top, bottom = MARGIN + HEADER, s.H - MARGIN - FOOTER
    if not holds_sheets(s.W, s.H):
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
        extra = s.header_extra(block, width, groups)   # at the most groups: the narrowest columns
        rows = list(block.rows)
        title = block.title
        while rows:
            head = TITLE_SIZE * 1.6 + HEAD_SIZE * 1.7 + extra
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
            pages[-1].extend(s.table(block, x, y + TITLE_SIZE * 1.6, width, take, g, extra))
            y += head + math.ceil(len(take) / g) * block.row_h
            rows = rows[len(take):]
            if not rows and block.note:
                pages[-1].append(s.text_item(s.tr(block.note, None), x, y + 1, width, SIZE * 1.3, SIZE * 0.85,
                                             field="table note"))
                y += SIZE * 1.6
            y += GAP
            title = continued(block.title)
    return pages


# --- right-to-left text ---------------------------------------------------------------------

LRI, PDI, LRM = "\u2066", "\u2069", "\u200e"
_SENTENCE_END = frozenset(".,:;!?،؛")
_LEADING = frozenset("([{+−-±")
_BRACKETS = {")": "(", "]": "[", "}": "{"}


def isolate_ltr(s: str) -> str:
    """``s`` with each left-to-right stretch — a formula such as '(H → W W*)', a particle
    expression 'u ū', a range of die faces '1–2', a Latin name — isolated as a left-to-right
    run (LRI, LRM … LRM, PDI), so that in a right-to-left paragraph it prints in its own
    order: without it the neutral '*' and ')' at the edge of the stretch take the paragraph's
    direction and '(H → W W*)' prints as '(*H → W W)', and '1–2' as '2–1'. A stretch runs
    from its first left-to-right letter or digit (with a sign or opening bracket just before
    it) to its last, and on through what closes it ('*', ')' of a bracket it opened, '/√2')
    up to a space or the sentence's own punctuation. The marks (LRM) are what cardgen's text
    engine honours; the isolates (LRI … PDI) say the same to PDF readers."""
    from unicodedata import bidirectional

    out, i, n = [], 0, len(s)
    while i < n:
        if bidirectional(s[i]) in ("R", "AL"):
            out.append(s[i])
            i += 1
            continue
        j = i
        while j < n and bidirectional(s[j]) not in ("R", "AL"):
            j += 1
        span = s[i:j]
        letters = [k for k, ch in enumerate(span) if bidirectional(ch) in ("L", "EN")]
        if not letters:
            out.append(span)
        else:
            start, end = letters[0], letters[-1] + 1
            while start > 0 and span[start - 1] in _LEADING:
                start -= 1
            while end < len(span) and not span[end].isspace() and span[end] not in _SENTENCE_END:
                opener = _BRACKETS.get(span[end])
                if opener is not None and span[start:end].count(opener) <= span[start:end].count(span[end]):
                    break   # closes a bracket opened before the stretch: not the stretch's own
                end += 1
            out.append(span[:start] + LRI + LRM + span[start:end] + LRM + PDI + span[end:])
        i = j
    return "".join(out)
