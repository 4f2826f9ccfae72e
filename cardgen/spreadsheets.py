"""Card lists kept in spreadsheets (CSV or XLSX) instead of YAML.

Designers coming from Squib or nanDECK keep one row per card in a spreadsheet. A component
may say ``cards: {from: cards.xlsx, sheet: Cards}`` (or ``from: cards.csv``): the first row
names the columns (``id``, ``count`` and declared fields), every further row is a card.

The rows are turned into the same located mappings the YAML reader produces, with each cell's
value converted as far as its declared field type allows (a spreadsheet stores ``3`` as text in
CSV and as a float in XLSX). The loader then checks them exactly as YAML cards, so every error
names the cell: ``cards.xlsx:Cards!C7``.

Spreadsheets are untrusted input like YAML: the file size, the XLSX's unpacked size, the number
of rows and columns and the length of a cell are bounded before anything large is built, and
XLSX XML is parsed by openpyxl with defusedxml present (no entity expansion).
"""

from __future__ import annotations

import csv
import datetime
import io
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from .errors import InputError, Location, display_path
from .model import FieldSpec
from .schema import ID_PATTERN
from .yamlsrc import MAX_TEXT_CHARS, YMap, YSeq, check_text, shown as shown_text

SHEET_SUFFIXES = (".csv", ".xlsx")
MAX_SHEET_BYTES = 16 * 1024 * 1024
#: An XLSX is a zip of XML: its members may unpack to at most this much in all.
MAX_XLSX_UNPACKED = 64 * 1024 * 1024
MAX_COLUMNS = 256
#: Longest text of a cell: the longest text value a YAML data file may hold.
MAX_CELL_CHARS = MAX_TEXT_CHARS
_TRUE = ("true", "yes", "1", "y")
_FALSE = ("false", "no", "0", "n")
#: What ends a line of CSV (the csv module's line ends, not every one str.splitlines knows).
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def column_letters(index: int) -> str:
    """Spreadsheet column name of a 1-based index: 1 → A, 27 → AA."""
    letters = ""
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def cell_location(shown: str, sheet: str | None, row: int, column: int) -> Location:
    """Where a cell is, shown as spreadsheets name it (``cards.xlsx:Cards!C7``, ``cards.csv:C7``);
    ``shown``: the file as messages show it (:func:`display_path`, found once per file: it
    resolves the path, and a 50,000-row sheet has hundreds of thousands of cells)."""
    prefix = f"{sheet}!" if sheet else ""
    return Location(shown, row, column, cell=f"{prefix}{column_letters(column)}{row}")


def read_sheet(path: Path, sheet: str | None, where: Location, max_rows: int) -> list[list[tuple[Any, Location]]]:
    """The rows of a CSV or XLSX file (header first), each cell with its location; trailing
    empty rows dropped. ``where`` is the ``cards:`` entry, for errors about the file itself."""
    suffix = path.suffix.lower()
    if suffix not in SHEET_SUFFIXES:
        raise InputError(f"'{path.name}' is not a spreadsheet cardgen reads", where,
                         "use a .csv or .xlsx file, or list the cards in YAML")
    if not path.is_file():
        raise InputError(f"card list '{display_path(path)}' not found", where,
                         "check the file name next to the component file")
    size = path.stat().st_size
    if size > MAX_SHEET_BYTES:
        raise InputError(f"card list '{path.name}' is {size // (1024 * 1024)} MB, more than the "
                         f"{MAX_SHEET_BYTES // (1024 * 1024)} MB limit", where, "split the component")
    if suffix == ".csv":
        if sheet is not None:
            raise InputError("a CSV file has no sheets", where, "remove 'sheet:'")
        rows = list(_csv_rows(path, max_rows))
    else:
        rows = list(_xlsx_rows(path, sheet, where, max_rows))
    while rows and all(_blank(v) for v, _ in rows[-1]):
        rows.pop()
    return rows


def _csv_rows(path: Path, max_rows: int) -> Iterator[list[tuple[Any, Location]]]:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"'{path.name}' is not UTF-8 text (byte 0x{data[exc.start]:02x})",
                         Location.of_byte(display_path(path), data, exc.start),
                         "save the spreadsheet as 'CSV UTF-8'") from None
    delimiter = _delimiter(text)
    lines: list[str] = []   # the lines of the record being read, as written

    def read_lines() -> Iterator[str]:
        for line in io.StringIO(text, newline=""):
            lines.append(line)
            yield line

    # strict: a quote left open to the end of the file, or text after a cell's closing quote, is
    # an error here; the csv module's lenient mode would silently end the cell there (and take
    # in every row after it) or drop the quote
    reader = csv.reader(read_lines(), delimiter=delimiter, strict=True)
    shown = display_path(path)
    r, columns = 0, 0   # the rows read, the cells of the first (the header)
    try:
        for r, row in enumerate(reader, start=1):
            _bound_row(path, shown, None, r, len(row), max_rows)
            columns = columns or len(row)
            if len(lines) > 1:
                _no_swallowed_row(lines, row, columns, delimiter, shown, r)
            lines.clear()
            yield [(_bounded_cell(v, shown, None, r, c), cell_location(shown, None, r, c))
                   for c, v in enumerate(row, start=1)]
    except csv.Error as exc:
        problem, column = _record_problem("".join(lines), delimiter)
        where = cell_location(shown, None, r + 1, column)
        if problem == "long":   # the csv module's own bound on a cell (131,072 characters)
            raise InputError(f"a cell holds more than {MAX_CELL_CHARS:,} characters, the limit for a cell", where,
                             "shorten the text (or close a quote left open, which runs a cell on to the "
                             "end of the file)") from None
        if problem == "open":
            raise InputError("the quote that opens this cell is never closed: the cell runs on to the end of "
                             "the file and takes in every row after it", where,
                             'close the quote where the cell\'s text ends (a quote inside a quoted cell is '
                             'written twice: "")') from None
        if problem == "after":
            raise InputError("text follows the closing quote of this cell (a cell is either quoted whole or "
                             "not at all)", where,
                             'write a quote inside a cell\'s text twice ("") and quote the whole cell, '
                             'or remove the quotes') from None
        raise InputError(f"'{path.name}' is not valid CSV: {exc}", Location(shown, reader.line_num),
                         "check the quotes on that line") from None


def _delimiter(text: str) -> str:
    """The CSV's separator, ',' or ';', read from its header row alone: column names never hold
    either, while the cards' text may hold many of the other (a title 'charge -1; spin 1/2;
    stable' in a comma-separated file), so counting over the whole file can pick the wrong one."""
    header = _LINE_BREAK.split(text, maxsplit=1)[0]
    return ";" if header.count(";") > header.count(",") else ","


def _no_swallowed_row(lines: list[str], row: list[str], columns: int, delimiter: str, shown: str,
                      r: int) -> None:
    """Refuse a record written over several ``lines`` when one of its lines after the first
    reads as a card row of its own: a quote left open that a later quote closes turns the rows
    between into one cell's text and drops their cards without a word. A line reads as a row
    when it splits at the separator into as many cells as the header names, none starting with
    a space, the first a valid id; text written over lines (prose) puts a space after its commas."""
    for n, line in enumerate(lines[1:], start=1):
        parts = _LINE_BREAK.sub("", line).split(delimiter)
        if (len(parts) == columns > 1 and ID_PATTERN.fullmatch(parts[0])
                and not any(part[:1].isspace() for part in parts)):
            breaks, column = 0, 1    # the cell whose text holds this line: the one holding the n-th line break
            for column, value in enumerate(row, start=1):
                breaks += len(_LINE_BREAK.findall(value))
                if breaks >= n:
                    break
            raise InputError(f"this quoted cell runs over a line that reads as a card row of its own "
                             f"('{shown_text(line.strip(), 40)}'): a quote left open?",
                             cell_location(shown, None, r, column),
                             "close the quote where the cell's text ends (a quote inside a quoted cell is "
                             'written twice: "")')


def _record_problem(record: str, delimiter: str) -> tuple[str, int]:
    """What the csv module refused in the CSV ``record`` starting a text, and the column
    (1-based) of the cell: 'long' (a cell longer than :data:`MAX_CELL_CHARS`), 'open' (a quote
    never closed), 'after' (text after a closing quote) or 'other'. Quotes are read as the csv
    module reads them (a quote opens a quoted cell only as its first character), which says
    neither which cell nor, for the end of the file, that a quote was left open."""
    column, size, state = 1, 0, "start"   # state: start, plain, quoted, or quote (one seen in a quoted cell)
    for char in record:
        if state == "quote":
            if char == '"':                 # a doubled quote: one quote of the text
                state, size = "quoted", size + 1
            elif char == delimiter:
                column, size, state = column + 1, 0, "start"
            elif char in "\r\n":
                break
            else:
                return "after", column
        elif state == "quoted":
            if char == '"':
                state = "quote"
            else:
                size += 1
        elif char == '"' and state == "start":
            state = "quoted"
        elif char == delimiter:
            column, size, state = column + 1, 0, "start"
        elif char in "\r\n":
            break
        else:
            state, size = "plain", size + 1
        if size > MAX_CELL_CHARS:
            return "long", column
    return ("open" if state == "quoted" else "other"), column


def _xlsx_rows(path: Path, sheet: str | None, where: Location,
               max_rows: int) -> Iterator[list[tuple[Any, Location]]]:
    try:
        with zipfile.ZipFile(path) as z:
            unpacked = sum(info.file_size for info in z.infolist())
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(f"'{path.name}' is not a readable XLSX file ({exc})", where,
                         "save it again from the spreadsheet program as .xlsx") from None
    if unpacked > MAX_XLSX_UNPACKED:
        raise InputError(f"'{path.name}' unpacks to {unpacked // (1024 * 1024)} MB, more than the "
                         f"{MAX_XLSX_UNPACKED // (1024 * 1024)} MB limit", where, "split the component")
    import openpyxl  # only games with spreadsheets pay for the import

    damaged = InputError(f"'{path.name}' is not a readable XLSX file", where,
                         "save it again from the spreadsheet program as .xlsx")
    try:
        # the values a spreadsheet program computed, and beside them the formulas: a formula
        # never computed (a file written by a script) has no value to read
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
        formulas = openpyxl.load_workbook(path, read_only=True, data_only=False)
    except Exception as exc:  # openpyxl raises many types for damaged files
        damaged.message += f" ({type(exc).__name__}: {exc})"
        raise damaged from None
    try:
        name = sheet if sheet is not None else book.sheetnames[0]
        if name not in book.sheetnames:
            raise InputError(f"'{path.name}' has no sheet '{name}'", where,
                             f"use one of: {', '.join(book.sheetnames)}")
        shown = display_path(path)
        layout = _layout(path, book[name]._worksheet_path)
        rows = zip(book[name].iter_rows(values_only=True), formulas[name].iter_rows(values_only=True))
        for r, (row, written) in enumerate(rows, start=1):
            _bound_row(path, shown, name, r, len(row), max_rows)
            for c, (value, formula) in enumerate(zip(row, written), start=1):
                if value is None and isinstance(formula, str) and formula.startswith("="):
                    raise InputError(f"'{path.name}' holds a formula with no computed value ({formula[:40]})",
                                     cell_location(shown, name, r, c), "open the file in the spreadsheet program "
                                     "and save it (it stores what each formula computes), or type the value")
                if value is not None:
                    _check_xlsx_cell(value, formula, r, c, layout, cell_location(shown, name, r, c))
            yield [(_bounded_cell(v, shown, name, r, c), cell_location(shown, name, r, c))
                   for c, v in enumerate(row, start=1)]
    except InputError:
        raise
    except Exception as exc:  # a sheet damaged inside is found as its rows are read (XML, zip, openpyxl)
        damaged.message += f" ({type(exc).__name__}: {exc})"
        raise damaged from None
    finally:
        book.close()
        formulas.close()


@dataclass(frozen=True)
class _Layout:
    """What a sheet's XML says beside its values: rows and columns hidden, cells merged."""

    hidden_rows: frozenset[int]
    hidden_columns: frozenset[int]
    #: each merged range's last cell by its first (row, column): the first holds the value; an
    #: empty merged range (a title band beside the table) reads as empty cells, and is no error
    merged_from: dict[tuple[int, int], tuple[int, int]]


_SHEET_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_CELL_REF = re.compile(r"([A-Z]{1,3})([0-9]{1,7})")


def _layout(path: Path, member: str) -> _Layout:
    """The hidden rows and columns and the merged cells of the sheet stored as ``member`` of the
    XLSX, read in one streaming pass (openpyxl's read-only sheets, which bound memory on a
    large card list, do not keep them). The zip's unpacked size is bounded before this runs;
    defusedxml refuses entities, as it does for openpyxl."""
    from defusedxml.ElementTree import iterparse

    rows: set[int] = set()
    columns: set[int] = set()
    merged: list[tuple[tuple[int, int], tuple[int, int]]] = []
    with zipfile.ZipFile(path) as z, z.open(member.lstrip("/")) as xml:
        for _event, elem in iterparse(xml):
            tag = elem.tag
            if tag == f"{_SHEET_NS}row":
                if _on(elem.get("hidden")) and (elem.get("r") or "").isdigit():
                    rows.add(int(elem.get("r")))
                elem.clear()   # its cells are read by openpyxl: keep nothing of them here
            elif tag == f"{_SHEET_NS}col" and _on(elem.get("hidden")):
                low, high = int(elem.get("min", "0")), int(elem.get("max", "0"))
                columns.update(range(low, min(high, MAX_COLUMNS + 1) + 1))
            elif tag == f"{_SHEET_NS}mergeCell":
                ends = [_CELL_REF.fullmatch(part) for part in (elem.get("ref") or "").split(":")]
                if len(ends) == 2 and all(ends):
                    first, last = ((int(m.group(2)), _column_index(m.group(1))) for m in ends)   # type: ignore[union-attr]
                    merged.append((first, last))
    return _Layout(frozenset(rows), frozenset(columns), dict(merged))


def _on(flag: str | None) -> bool:
    return flag in ("1", "true")


def _column_index(letters: str) -> int:
    """1-based index of a spreadsheet column name: A → 1, AA → 27."""
    index = 0
    for ch in letters:
        index = index * 26 + ord(ch) - ord("A") + 1
    return index


def _cell_name(cell: tuple[int, int]) -> str:
    return f"{column_letters(cell[1])}{cell[0]}"


def _check_xlsx_cell(value: Any, formula: Any, row: int, column: int, layout: _Layout, where: Location) -> None:
    """Refuse what a spreadsheet shows differently from what the card would print: an error a
    formula computed (#DIV/0! printed as card text), a value a program turned into a date (1/2
    typed for a spin), a row or column hidden in the spreadsheet (printed all the same)."""
    from openpyxl.cell.cell import ERROR_CODES

    if isinstance(value, str) and value in ERROR_CODES:
        how = f"its formula {formula[:40]} computes" if isinstance(formula, str) and formula.startswith("=") \
            else "it holds"
        raise InputError(f"this cell is an error value: {how} {value}", where,
                         "correct the formula or the cells it reads, or type the value")
    if isinstance(value, (datetime.date, datetime.time, datetime.timedelta)):
        if isinstance(value, datetime.datetime) and value.time() == datetime.time():
            value = value.date()
        raise InputError(f"this cell holds a date or time ({value}): the spreadsheet program turned what was "
                         "typed into one", where, "format the cell as text and type the value again "
                         "(or start it with an apostrophe: '1/2)")
    merged = layout.merged_from.get((row, column))
    if merged is not None:   # a merged range holding a value: the cells it covers read as empty
        raise InputError(f"cells {_cell_name((row, column))}:{_cell_name(merged)} are merged: a merged cell's value "
                         f"belongs to its first cell alone, and the other cards would print without it", where,
                         "unmerge them and type the value in each cell")
    if row in layout.hidden_rows:
        raise InputError(f"row {row} is hidden in the spreadsheet, but cardgen prints every row, hidden or not",
                         where, "show the row to print its card, or delete it")
    if column in layout.hidden_columns:
        raise InputError(f"column {column_letters(column)} is hidden in the spreadsheet, but cardgen reads "
                         "every column, hidden or not", where, "show the column to use it, or delete it")


def _bound_row(path: Path, shown: str, sheet: str | None, row: int, columns: int, max_rows: int) -> None:
    if row > max_rows + 1:
        raise InputError(f"'{path.name}' has more than {max_rows} card rows", cell_location(shown, sheet, row, 1),
                         "split the component")
    if columns > MAX_COLUMNS:
        raise InputError(f"'{path.name}' has {columns} columns, more than {MAX_COLUMNS}",
                         cell_location(shown, sheet, row, MAX_COLUMNS + 1), "remove the unused columns")


def _bounded_cell(value: Any, shown: str, sheet: str | None, row: int, column: int) -> Any:
    """A cell's value, refused when it is text no card can hold (see :func:`check_text`). A
    line break inside a cell is one, however the program that saved it wrote it: a CSV saved
    on Windows ends the lines within a quoted cell with CR LF, which was refused as the control
    character U+000D, invisible in the spreadsheet."""
    if isinstance(value, str):
        if "\r" in value:
            value = value.replace("\r\n", "\n").replace("\r", "\n")
        check_text(value, cell_location(shown, sheet, row, column), "cell")
    return value


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def rows_as_cards(rows: list[list[tuple[Any, Location]]], specs: Mapping[str, FieldSpec],
                  where: Location) -> list[YMap]:
    """One located mapping per card row: the header names the keys, blank cells are left out
    (so defaults apply), and each cell is converted towards its field's declared type."""
    if not rows:
        raise InputError("the card list is empty", where, "put the column names (id, count, fields) in the first row")
    header: list[tuple[str, Location]] = []
    seen: dict[str, Location] = {}
    for value, loc in rows[0]:
        name = "" if _blank(value) else str(value).strip()
        if name in seen:
            raise InputError(f"column '{name}' appears twice (first at {seen[name].cell})", loc, "rename one of them")
        if name:
            seen[name] = loc
        header.append((name, loc))
    if "id" not in seen:
        raise InputError("the card list has no 'id' column", rows[0][0][1] if rows[0] else where,
                         "name the first row's cells: id, count and the declared fields")
    cards = []
    for row in rows[1:]:
        if all(_blank(v) for v, _ in row):
            continue
        for value, loc in row[len(header):]:   # past the last column the header names: a shifted row
            if not _blank(value):
                raise InputError("this cell has no column name (the row has more cells than the header)", loc,
                                 "name its column in the first row, or remove the cell (a stray separator?)")
        m = YMap()
        m.loc, m.key_locs, m.value_locs, m.raw = row[0][1], {}, {}, {}
        for (name, key_loc), (value, loc) in zip(header, row):
            if _blank(value):
                continue
            if not name:
                raise InputError("this cell has no column name", loc, "name its column in the first row")
            spec = specs.get(name)
            m[name] = _typed(value, spec, loc, name)
            m.key_locs[name], m.value_locs[name] = key_loc, loc
            m.raw[name] = _text(value)
        cards.append(m)
    return cards


def _text(value: Any) -> str:
    """A cell as the text a user sees: 3.0 from XLSX is '3'."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _typed(value: Any, spec: FieldSpec | None, loc: Location, name: str) -> Any:
    """Convert a cell towards what its field declares; a cell that cannot be converted is kept
    as text, so the field's own check reports it with the usual message at this cell."""
    kind = "int" if name == "count" else (spec.type if spec else "text")
    if kind == "list":
        text = _text(value)
        parts = [p.strip() for p in (text.split(",") if "," in text else text.split())]
        seq = YSeq(_scalar(p, spec.of or "text") for p in parts if p)
        seq.loc, seq.item_locs, seq.raw = loc, [loc] * len(seq), [p for p in parts if p]
        return seq
    return _scalar(value, kind)


def _parsed(text: str, parse: Callable[[str], Any]) -> Any:
    """The cell's text parsed, or left as text for the field's own check to report."""
    try:
        return parse(text.strip())
    except ValueError:
        return text.strip()


def _scalar(value: Any, kind: str) -> Any:
    if kind == "int":
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return _parsed(value, int) if isinstance(value, str) else value
    if kind == "number":
        return _parsed(value, float) if isinstance(value, str) else value
    if kind == "bool":
        if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
            return value.strip().lower() in _TRUE
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value in (0, 1):
            return bool(value)
        return value
    return _text(value)
