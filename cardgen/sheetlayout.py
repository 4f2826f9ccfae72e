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
