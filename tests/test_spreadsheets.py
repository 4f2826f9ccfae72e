"""Card lists from spreadsheets: a CSV or XLSX gives the same cards as the YAML it replaces,
and every mistake in it is reported at its cell (``cards.xlsx:Cards!C7``)."""

from __future__ import annotations

import zipfile

import openpyxl
import pytest

import cardgen

from cardgen.errors import InputError
from cardgen.spreadsheets import column_letters

QCD_HEADER = ["id", "particle", "colour", "wild", "count"]


def qcd_rows() -> list[list[object]]:
    """The shipped QCD deck, one row per distinct card, as a designer would type it."""
    rows: list[list[object]] = []
    for particles, colours in ((["u", "d", "s", "c"], ["red", "green", "blue"]),
                               (["ubar", "dbar", "sbar", "cbar"], ["anti-red", "anti-green", "anti-blue"])):
        for p in particles:
            for c in colours:
                rows.append([f"{p}-{c}", p, c, None, 2])
    rows.append(["wild-w", "W+", None, True, 4])
    return rows


def use_sheet(copy, source: str) -> None:
    """Replace the copy's YAML card list with ``cards: {from: ...}``."""
    path = copy.path / "components" / "cards.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text[:text.index("\ncards:")] + f"\ncards: {source}\n", encoding="utf-8")


def write_csv(copy, rows: list[list[object]], header=QCD_HEADER, name: str = "cards.csv") -> None:
    def cell(v: object) -> str:
        return "" if v is None else ("true" if v is True else str(v))
    lines = [",".join(header)] + [",".join(cell(v) for v in row) for row in rows]
    (copy.path / "components" / name).write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_xlsx(copy, rows: list[list[object]], header=QCD_HEADER, sheet: str = "Cards") -> None:
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = sheet
    ws.append(header)
    for row in rows:
        ws.append(row)
    book.save(copy.path / "components" / "cards.xlsx")


def cards_of(game) -> list[tuple[str, int, dict]]:
    comp = game.components["cards"]
    return [(c.id, c.count, {k: getattr(v, "id", v) for k, v in c.fields.items()}) for c in comp.cards]


def error_of(copy) -> InputError:
    with pytest.raises(InputError) as info:
        copy.load()
    return info.value


def test_column_letters_name_columns_as_spreadsheets_do():
    assert [column_letters(i) for i in (1, 3, 26, 27, 52, 53, 702, 703)] == \
        ["A", "C", "Z", "AA", "AZ", "BA", "ZZ", "AAA"]


def test_a_csv_gives_the_same_cards_as_the_yaml(game_copy):
    shipped = cards_of(cardgen.load_game("qcd"))
    copy = game_copy("qcd")
    write_csv(copy, qcd_rows())
    use_sheet(copy, "{from: cards.csv}")
    assert cards_of(copy.load()) == shipped
    assert copy.path / "components" / "cards.csv" in [p.resolve() for p in copy.load().files]


def test_an_xlsx_gives_the_same_cards_as_the_yaml(game_copy):
    shipped = cards_of(cardgen.load_game("qcd"))
    copy = game_copy("qcd")
    write_xlsx(copy, qcd_rows())
    use_sheet(copy, "{from: cards.xlsx, sheet: Cards}")
    assert cards_of(copy.load()) == shipped


def test_a_semicolon_csv_and_list_cells_are_read(game_copy):
    copy = game_copy("particle-builder")
    path = copy.path / "components" / "targets.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text[:text.index("\ncards:")] + "\ncards: {from: targets.csv}\n", encoding="utf-8")
    (copy.path / "components" / "targets.csv").write_text(
        "id;name;hadron;requires;points\n"
        "proton;Proton;baryon;u, u, d;10\n"
        "pion;Positive pion;meson;u dbar;12\n", encoding="utf-8")
    targets = copy.load().components["targets"].cards
    assert [(c.id, [p.id for p in c.fields["requires"]], c.fields["points"]) for c in targets] == \
        [("proton", ["u", "u", "d"], 10), ("pion", ["u", "dbar"], 12)]


@pytest.mark.parametrize("bad, field, message", [
    ("grean", 2, "unknown colour charge 'grean' — did you mean 'green'?"),
    ("zz", 1, "unknown particle 'zz'"),
])
def test_a_bad_cell_is_reported_at_its_cell_in_xlsx(game_copy, bad, field, message):
    copy = game_copy("qcd")
    rows = qcd_rows()
    rows[5][field] = bad                                   # the sixth card: spreadsheet row 7
    write_xlsx(copy, rows)
    use_sheet(copy, "{from: cards.xlsx, sheet: Cards}")
    err = error_of(copy)
    assert str(err.location).endswith(f"cards.xlsx:Cards!{column_letters(field + 1)}7")
    assert message in err.message


def test_a_count_that_is_not_a_number_names_its_csv_cell(game_copy):
    copy = game_copy("qcd")
    rows = qcd_rows()
    rows[2][4] = "two"
    write_csv(copy, rows)
    use_sheet(copy, "{from: cards.csv}")
    err = error_of(copy)
    assert str(err.location).endswith("cards.csv:E4")
    assert "whole number" in err.message and "'two'" in err.message


def test_an_unknown_column_is_reported_at_its_header_cell(game_copy):
    copy = game_copy("qcd")
    write_xlsx(copy, qcd_rows(), header=["id", "particle", "color", "wild", "count"])
    use_sheet(copy, "{from: cards.xlsx}")
    err = error_of(copy)
    assert str(err.location).endswith("cards.xlsx:Cards!C1")
    assert "unknown field 'color'" in err.message and "did you mean 'colour'" in err.message


def test_sheet_file_and_header_mistakes_are_clear(game_copy):
    copy = game_copy("qcd")
    write_xlsx(copy, qcd_rows())
    use_sheet(copy, "{from: cards.xlsx, sheet: Deck}")
    err = error_of(copy)
    assert "has no sheet 'Deck'" in err.message and err.fix == "use one of: Cards"
    assert err.location.file.endswith("cards.yaml")

    use_sheet(copy, "{from: missing.csv}")
    assert "not found" in error_of(copy).message

    use_sheet(copy, "{from: ../../outside.csv}")
    assert "leaves the game folder" in error_of(copy).message

    write_csv(copy, qcd_rows(), header=["name", "particle", "colour", "wild", "count"])
    use_sheet(copy, "{from: cards.csv}")
    assert "no 'id' column" in error_of(copy).message

    (copy.path / "components" / "cards.csv").write_bytes("id,particle\nu-red,u\nd,\xe9\n".encode("latin-1"))
    err = error_of(copy)
    assert "not UTF-8" in err.message and err.location.line == 3


def test_a_damaged_or_oversized_xlsx_is_refused_before_it_is_parsed(game_copy, monkeypatch):
    copy = game_copy("qcd")
    (copy.path / "components" / "cards.xlsx").write_bytes(b"PK\x03\x04 this is not a zip")
    use_sheet(copy, "{from: cards.xlsx}")
    assert "not a readable XLSX" in error_of(copy).message

    with zipfile.ZipFile(copy.path / "components" / "cards.xlsx", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("xl/worksheets/sheet1.xml", "<a>" + " " * 5_000_000 + "</a>")
    monkeypatch.setattr("cardgen.spreadsheets.MAX_XLSX_UNPACKED", 1_000_000)
    err = error_of(copy)
    assert "unpacks to" in err.message and "limit" in err.message


def test_a_csv_builds_the_same_pdf_as_the_yaml(game_copy, cli, tmp_path):
    copy = game_copy("qcd")
    pdfs = []
    for n, from_sheet in enumerate((False, True)):
        if from_sheet:
            write_csv(copy, qcd_rows())
            use_sheet(copy, "{from: cards.csv}")
        out = tmp_path / f"out{n}"
        done = cli("build", str(copy.path) if from_sheet else "qcd", "--out", str(out), "--no-cache")
        assert done.returncode == 0, done.stderr
        pdfs.append((out / "qcd" / "en" / "cards.pdf").read_bytes())
    assert pdfs[0] == pdfs[1]


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
def test_a_sheet_is_shown_by_one_path_found_once_not_once_per_cell(game_copy, monkeypatch, kind):
    """Every cell carries its location; the file's shown path is found once per file (it resolves
    the path on disk: once per cell, a 50,000-row CSV took 17 s to read instead of 4)."""
    from cardgen import spreadsheets

    copy = game_copy("qcd")
    write = write_csv if kind == "csv" else write_xlsx
    write(copy, qcd_rows() + [[f"x{i}", "u", "red", None, 1] for i in range(200)])
    use_sheet(copy, f"{{from: cards.{kind}}}")
    calls = []
    original = spreadsheets.display_path
    monkeypatch.setattr(spreadsheets, "display_path", lambda p: calls.append(p) or original(p))
    game = copy.load()
    assert len(game.components["cards"].cards) == 225
    assert len(calls) == 1
    # and each cell still names itself
    with pytest.raises(InputError) as info:
        write(copy, qcd_rows() + [["x", "upp", "red", None, 1]])
        copy.load()
    assert info.value.location.cell.endswith("B27") and info.value.location.file.endswith(f"cards.{kind}")


def test_a_row_longer_than_its_header_is_found_at_its_first_extra_cell(game_copy):
    copy = game_copy("qcd")
    write_csv(copy, qcd_rows())
    path = copy.path / "components" / "cards.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[3] += ",extra,cols"                                # the third card: CSV row 4
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    use_sheet(copy, "{from: cards.csv}")
    err = error_of(copy)
    assert str(err.location).endswith(f"cards.csv:{column_letters(len(QCD_HEADER) + 1)}4")
    assert "the row has more cells than the header" in err.message


def test_a_formula_never_computed_is_found_at_its_cell(game_copy):
    """A file written by a script holds formulas but not their values: read as blank, the
    count fell back to its default without a word."""
    copy = game_copy("qcd")
    rows = qcd_rows()
    rows[1][4] = "=1+1"                                    # the second card's count: row 3, column E
    write_xlsx(copy, rows)
    use_sheet(copy, "{from: cards.xlsx}")
    err = error_of(copy)
    assert str(err.location).endswith("cards.xlsx:Cards!E3")
    assert "holds a formula with no computed value (=1+1)" in err.message and "save it" in err.fix


def test_a_sheet_damaged_inside_its_zip_is_a_clear_error(game_copy):
    copy = game_copy("qcd")
    write_xlsx(copy, qcd_rows())
    path = copy.path / "components" / "cards.xlsx"
    with zipfile.ZipFile(path) as z:
        parts = {name: z.read(name) for name in z.namelist()}
    sheet = "xl/worksheets/sheet1.xml"
    parts[sheet] = parts[sheet][: len(parts[sheet]) // 2]      # cut in half: unclosed XML
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)
    use_sheet(copy, "{from: cards.xlsx}")
    err = error_of(copy)
    assert "is not a readable XLSX file" in err.message and err.fix == "save it again from the spreadsheet program as .xlsx"


def _xlsx_changed(copy, change) -> None:
    """The copy's cards as the shipped QCD deck in an XLSX, ``change(sheet)`` applied before it is saved."""
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = "Cards"
    ws.append(QCD_HEADER)
    for row in qcd_rows():
        ws.append(row)
    change(ws)
    book.save(copy.path / "components" / "cards.xlsx")
    use_sheet(copy, "{from: cards.xlsx}")


def _xlsx_with(copy, change) -> InputError:
    """The error loading the shipped QCD deck as an XLSX changed by ``change`` (see _xlsx_changed)."""
    _xlsx_changed(copy, change)
    return error_of(copy)


def _hide_row(ws) -> None:
    ws.row_dimensions[4].hidden = True


def _hide_column(ws) -> None:
    ws.column_dimensions["C"].hidden = True


@pytest.mark.parametrize("change, cell, said, fix", [
    # a formula's error result printed as card text ("#DIV/0!" on the card)
    (lambda ws: ws.__setitem__("C3", "#DIV/0!"), "C3", "this cell is an error value: it holds #DIV/0!",
     "correct the formula"),
    # "1/2" typed for a spin, turned into a date by the spreadsheet program, printed as 2025-01-02 00:00:00
    (lambda ws: ws.__setitem__("C5", __import__("datetime").date(2025, 1, 2)), "C5",
     "holds a date or time (2025-01-02)", "format the cell as text"),
    # a value merged over three rows printed on the first card alone
    (lambda ws: ws.merge_cells("C3:C5"), "C3", "cells C3:C5 are merged", "unmerge them"),
    # rows and columns the designer hid were printed all the same
    (_hide_row, "A4", "row 4 is hidden in the spreadsheet", "show the row"),
    (_hide_column, "C1", "column C is hidden in the spreadsheet", "show the column"),
])
def test_what_a_spreadsheet_shows_otherwise_than_cardgen_prints_is_refused_at_its_cell(game_copy, change, cell,
                                                                                      said, fix):
    err = _xlsx_with(game_copy("qcd"), change)
    assert str(err.location).endswith(f"cards.xlsx:Cards!{cell}"), err.location
    assert said in err.message and fix in err.fix, (err.message, err.fix)


def test_a_hidden_or_merged_empty_row_or_column_is_no_error(game_copy):
    copy = game_copy("qcd")

    def hide_unused(ws):
        ws.row_dimensions[40].hidden = True
        ws.column_dimensions["H"].hidden = True
        ws.merge_cells("G1:I1")     # an empty band beside the header
        ws.merge_cells("A40:D40")   # and below the cards: nothing is read from them
    _xlsx_changed(copy, hide_unused)
    assert len(copy.load().components["cards"].cards) == len(qcd_rows())


def test_a_line_break_within_a_csv_cell_is_one_however_it_was_saved(game_copy):
    """A CSV saved on Windows ends the lines inside a quoted cell with CR LF: refused as the
    control character U+000D, which no spreadsheet shows."""
    copy = game_copy("qcd")
    header = ",".join(QCD_HEADER) + ",note"
    rows = [",".join("" if v is None else ("true" if v is True else str(v)) for v in row) + ',""'
            for row in qcd_rows()]
    rows[0] = rows[0][:-3] + ',"first line\r\nsecond line"'
    rows[1] = rows[1][:-3] + ',"old Mac\rbreak"'
    (copy.path / "components" / "cards.csv").write_bytes(("\r\n".join([header, *rows]) + "\r\n").encode("utf-8"))
    use_sheet(copy, "{from: cards.csv}")
    copy.edit("components/cards.yaml", "  wild: {type: bool}", "  wild: {type: bool}\n  note: {type: text}")
    cards = copy.load().components["cards"].cards
    assert cards[0].fields["note"] == "first line\nsecond line" and cards[1].fields["note"] == "old Mac\nbreak"


def test_a_text_that_does_not_fit_is_found_at_its_own_cell_and_told_to_shorten_the_text(game_copy):
    """A CSV note too long for its box was reported at the row's id cell (A2), and told to
    'shorten the translation' of an English text."""
    copy = game_copy("qcd")
    header = ",".join(QCD_HEADER) + ",note"
    rows = [",".join("" if v is None else ("true" if v is True else str(v)) for v in row) + ","
            for row in qcd_rows()]
    rows[0] += "A note far too long to fit on one line of this small box at any size"
    (copy.path / "components" / "cards.csv").write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    use_sheet(copy, "{from: cards.csv}")
    copy.edit("components/cards.yaml", "  wild: {type: bool}", "  wild: {type: bool}\n  note: {type: text}")
    # last in the artwork: drawn first, the card's white panel would paint over it
    copy.edit("templates/card-front.svg.j2", "{% endblock %}",
              '{% if card.note %}{{ text(card.note, 8, 80, size=3, width=40, height=4, '
              'min_size=2.5, field="note") }}{% endif %}{% endblock %}')
    fits = [f for f in cardgen.check(copy.load()).findings if f.rule == "text-fit"]
    assert len(fits) == 1, fits
    assert str(fits[0].location).endswith("cards.csv:F2") and fits[0].fix.startswith("shorten the text,")
