"""Bad input a tester found getting past cardgen's promise (a one-line error naming the file and
place, exit code 2, never silently wrong data): a CSV's separator guessed from its cards' text,
a quote left open that swallows rows, a damaged printer settings file, and `cardgen new` ids
and folders that the loader or the file system refused only later."""

from __future__ import annotations

import json
import os

import pytest

import cardgen
from cardgen.errors import InputError
from cardgen.scaffold import new_game

BLANK_HEADER = "id,particle,title,count\n"


@pytest.fixture
def sheet_game(tmp_path):
    """A blank new game (fields particle and title) whose cards come from ``cards.csv``;
    returns a function that writes the CSV and loads the game."""
    folder = new_game("sheet-game", tmp_path / "games")
    cards_yaml = folder / "components" / "cards.yaml"
    text = cards_yaml.read_text(encoding="utf-8")
    cards_yaml.write_text(text[:text.index("\ncards:")] + "\ncards: {from: cards.csv}\n", encoding="utf-8")

    def load(csv_text: str):
        (folder / "components" / "cards.csv").write_text(csv_text, encoding="utf-8", newline="")
        return cardgen.load_game(folder)
    return load


def error_of(load, csv_text: str) -> InputError:
    with pytest.raises(InputError) as info:
        load(csv_text)
    return info.value


def test_a_comma_csv_whose_titles_hold_semicolons_is_split_at_its_commas(sheet_game):
    game = sheet_game("id,particle,title\n"
                      "electron,e-,Lepton; charge -1; spin 1/2; stable; light\n"
                      "positron,e+,Lepton; charge +1; spin 1/2; stable; light\n")
    cards = game.components["cards"].cards
    assert [(c.id, c.fields["title"]) for c in cards] == [
        ("electron", "Lepton; charge -1; spin 1/2; stable; light"),
        ("positron", "Lepton; charge +1; spin 1/2; stable; light")]


def test_a_semicolon_csv_whose_titles_hold_commas_is_split_at_its_semicolons(sheet_game):
    game = sheet_game("id;particle;title\nelectron;e-;Light, charged, stable, a lepton\n")
    assert game.components["cards"].cards[0].fields["title"] == "Light, charged, stable, a lepton"


def test_a_quote_left_open_to_the_end_of_the_file_is_reported_where_it_opens(sheet_game):
    err = error_of(sheet_game, BLANK_HEADER + 'electron,e-,"The electron,2\npositron,e+,x,2\n')
    assert str(err.location).endswith("cards.csv:C2")
    assert "never closed" in err.message and "close the quote" in err.fix


def test_a_quote_left_open_that_a_later_quote_closes_is_reported_where_it_opens(sheet_game):
    err = error_of(sheet_game, BLANK_HEADER + 'electron,e-,"The electron,2\npositron,e+,x",2\n'
                                              'muon,mu-,y,2\n')
    assert str(err.location).endswith("cards.csv:C2")
    assert "reads as a card row" in err.message and "positron,e+,x" in err.message


def test_text_after_a_closing_quote_is_reported_at_its_cell_not_dropped(sheet_game):
    err = error_of(sheet_game, BLANK_HEADER + 'electron,e-,"The "big" electron",2\n')
    assert str(err.location).endswith("cards.csv:C2")
    assert "closing quote" in err.message


def test_a_title_written_over_lines_and_doubled_quotes_are_still_read(sheet_game):
    game = sheet_game(BLANK_HEADER + 'electron,e-,"The\nelectron, light, stable, a lepton",2\n'
                                     'positron,e+,"Its ""anti"" twin",2\n')
    assert [c.fields["title"] for c in game.components["cards"].cards] == [
        "The\nelectron, light, stable, a lepton", 'Its "anti" twin']


@pytest.fixture
def printer_json(tmp_path, monkeypatch):
    """The per-user printer settings file, in a private config folder."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    path = tmp_path / "config" / "cardgen" / "printer.json"
    path.parent.mkdir(parents=True)
    return path


@pytest.mark.parametrize("text, said", [
    ('{"back_offset_mm": {"long": [1' + "0" * 5000 + ', 0]}}', "a number of 5,001 characters"),
    ("[" * 30000 + "]" * 30000, "nest 30000 levels deep"),
    ('{"back_offset_mm": {"long": [true, false]}}', "not two numbers"),
    ('{"back_offset_mm": {"long": [NaN, 0]}}', "'NaN', not a number"),
    ('{"back_offset_mm": {"long": [1e999, 0]}}', "too large"),
    ('{"back_offset_mm": {"long": [21, 0]}}', "not two numbers within ±20 mm"),
])
def test_a_damaged_printer_settings_file_is_a_clear_error(printer_json, text, said):
    from cardgen.userconfig import saved_back_offset

    printer_json.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        saved_back_offset("long")
    assert said in info.value.message
    assert info.value.location.file == str(printer_json) and f"delete {printer_json}" in info.value.fix


def test_the_command_line_reports_a_damaged_printer_settings_file_with_exit_code_2(cli, tmp_path):
    path = tmp_path / "config" / "cardgen" / "printer.json"
    path.parent.mkdir(parents=True)
    path.write_text("[" * 30000 + "]" * 30000, encoding="utf-8")
    res = cli("calibrate", "--read", "1,1", env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"),
                                                 "CARDGEN_DAEMON": "off"})
    assert res.returncode == 2, res.stderr
    assert res.stderr.startswith(f"cardgen: {path}: error[input]:") and "Traceback" not in res.stderr


def test_saved_offsets_are_read_back_as_written(printer_json):
    from cardgen.userconfig import saved_back_offset

    printer_json.write_text(json.dumps({"back_offset_mm": {"long": [1, -2.5]}}), encoding="utf-8")
    assert saved_back_offset("long") == (1.0, -2.5) and saved_back_offset("short") is None


@pytest.mark.parametrize("length", [101, 300])
def test_new_refuses_an_id_the_loader_refuses_before_writing_anything(cli, tmp_path, length):
    res = cli("new", "c" * length, "--dir", str(tmp_path / "games"), env={**os.environ, "CARDGEN_DAEMON": "off"})
    assert res.returncode == 2, res.stdout
    assert "is longer than 100 characters" in res.stderr and "data/games" not in res.stderr
    assert not (tmp_path / "games").exists()


def test_new_accepts_the_longest_id_the_loader_accepts(tmp_path):
    folder = new_game("c" * 100, tmp_path / "games")
    assert cardgen.load_game(folder).id == "c" * 100


def test_new_refuses_to_write_into_cardgens_shipped_data(tmp_path, monkeypatch):
    """Against a copy of the shipped folders: the real ones must never be written to."""
    from cardgen import scaffold

    data = tmp_path / "cardgen" / "data"
    (data / "games").mkdir(parents=True)
    monkeypatch.setattr(scaffold, "DATA_DIR", data)
    monkeypatch.setattr(scaffold, "SHIPPED_GAMES", data / "games")
    for parent in (data / "games", data / "games" / ".." / "games", data / "extra"):
        with pytest.raises(InputError) as info:
            new_game("mine", parent)
        assert "cardgen's own shipped data" in info.value.message
    assert not (data / "games" / "mine").exists() and not (data / "extra").exists()


def test_a_csv_count_too_large_is_shown_as_written(tmp_path):
    folder = new_game("sheet-game", tmp_path / "games")
    cards_yaml = folder / "components" / "cards.yaml"
    text = cards_yaml.read_text(encoding="utf-8")
    cards_yaml.write_text(text[:text.index("\ncards:")] + "\ncards: {from: cards.csv}\n", encoding="utf-8")
    (folder / "components" / "cards.csv").write_text("id,particle,count\nelectron,e-,12345678901234567890\n")
    with pytest.raises(InputError) as info:
        cardgen.load_game(folder)
    assert info.value.message.startswith("12345678901234567890 is too large")


def test_a_new_game_that_cannot_be_written_in_full_leaves_nothing(tmp_path, monkeypatch):
    """A full disk halfway through left a half-made folder, and the next try said 'folder already
    exists'. The game is written beside its place and renamed into it whole."""
    import errno

    from cardgen import scaffold
    from cardgen.errors import FileSystemError

    def full(*_args):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(scaffold, "_copy_catalogs", full)
    with pytest.raises(FileSystemError, match="No space left"):
        new_game("half-made", tmp_path / "games", "qcd")
    assert list((tmp_path / "games").iterdir()) == []
    monkeypatch.undo()
    folder = new_game("half-made", tmp_path / "games", "qcd")
    assert (folder / "game.yaml").is_file() and [p.name for p in (tmp_path / "games").iterdir()] == ["half-made"]


@pytest.mark.parametrize("written, fix", [
    ("63mm", "write the number alone, 63: lengths are in millimetres"),
    ("63.5 MM", "write the number alone, 63.5: lengths are in millimetres"),
    ("6.3cm", "write the number alone, in millimetres: 6.3cm is 63"),
    ("2.5in", "write the number alone, in millimetres: 2.5in is 63.5"),
    ("180pt", "write the number alone, in millimetres: 180pt is 63.5"),
    ("1.2 MeV", "write the number without 'MeV'"),
    ("wide", "write a number like 63.5"),
])
def test_a_number_written_with_its_unit_is_told_to_drop_it(written, fix):
    """Sizes are millimetres written as bare numbers; one written with a unit is told the
    number to write (converted from cm, inches or points)."""
    from cardgen import schema
    from cardgen.errors import Location

    with pytest.raises(InputError) as info:
        schema.number()(written, Location("cards.yaml", 4, 15))
    assert info.value.message == f"expected a number, found text ('{written}')" and info.value.fix == fix


@pytest.mark.parametrize("written, meant", [
    ("string", "text"), ("float", "number"), ("integer", "int"), ("color", "colour"), ("boolean", "bool"),
    ("Text", "text"), ("strng", "text"), ("colr", "colour"),
])
def test_a_field_type_named_as_elsewhere_gets_cardgens_name(written, meant):
    """Spreadsheets and programming languages say 'string', 'float', 'color': a designer is
    told the type cardgen calls so, as for a misspelling."""
    from cardgen.errors import Location
    from cardgen.fields import parse_field_specs
    from cardgen.yamlsrc import parse_yaml

    specs = parse_yaml(f"title: {{type: {written}}}\n", "cards.yaml")
    with pytest.raises(InputError) as info:
        parse_field_specs(specs, Location("cards.yaml", 1, 1), "component 'cards'")
    assert info.value.message.endswith(f" — did you mean '{meant}'?"), info.value.message
    assert info.value.message.startswith(f"'{written}' is not one of text, int, number")
