"""More bad inputs, each answered with a one-line error at the data's own file:line:column and
a non-zero exit: text no card can hold (surrogates, control characters, megabytes of it),
empty --lang values, a game without its templates folder, Pillow's decompression-bomb
warning, a file changed mid-build, unclear CSV cells and paths missing from messages."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

import cardgen
from cardgen import yamlsrc
from cardgen.build import BuildOptions, build
from cardgen.errors import InputError
from cardgen.yamlsrc import parse_yaml

from .conftest import ROOT, GameCopy, run_cli
from .test_hardening import art_game
from .test_spreadsheets import qcd_rows, use_sheet, write_csv


def escape_at(copy: GameCopy, rel: str, escape: str) -> str:
    """``file:line:column`` of the first ``escape`` written in the copy's file ``rel``."""
    line = copy.line_of(rel, escape)
    text = (copy.path / rel).read_text(encoding="utf-8").splitlines()[line - 1]
    return f"{copy.path / rel}:{line}:{text.index(escape) + 1}:"


def new_game(root: Path) -> GameCopy:
    """A designer's game started from QCD (``cardgen new mine --from qcd``): its id is its own,
    so it can be listed beside the shipped games."""
    assert run_cli("new", "mine", "--from", "qcd", "--dir", str(root / "games")).returncode == 0
    game = GameCopy.__new__(GameCopy)
    game.games_dir, game.path = root / "games", root / "games" / "mine"
    return game


def refused(res: subprocess.CompletedProcess, where: str, *words: str) -> None:
    """The command ended with exit 2 and one error line at ``where`` saying ``words``."""
    assert res.returncode == 2, res.stdout + res.stderr
    assert "internal error" not in res.stderr and "Traceback" not in res.stderr, res.stderr
    assert where in res.stderr, res.stderr
    for w in words:
        assert w in res.stderr, res.stderr


# --- 1, 2: characters no text may hold ----------------------------------------------------------

@pytest.mark.parametrize("rel, old, new", [
    ("game.yaml", "name: Mine", 'name: "Mine \\uD800"'),
    ("tables/flavours.yaml", "title: Flavour energies", 'title: "Flavour \\uD800"'),
])
def test_a_lone_surrogate_is_refused_where_it_is_written(tmp_path, rel, old, new):
    """It was 'internal error: UnicodeEncodeError' (exit 70) from check, build, list and export."""
    copy = new_game(tmp_path)
    copy.edit(rel, old, new)
    where = escape_at(copy, rel, "\\uD800")
    out = tmp_path / "out"
    for args in (["check", str(copy.path)], ["build", str(copy.path), "--out", str(out)],
                 ["list", "--games-dir", str(copy.games_dir)], ["export", "tts", str(copy.path), "--out", str(out)]):
        refused(run_cli(*args), where, "U+D800 is half of a UTF-16 surrogate pair", "Fix: type the character itself")
    assert not out.exists()


def test_a_surrogate_in_a_print_note_is_refused(game_copy, cli):
    copy = game_copy("qcd")
    copy.edit("components/cards.yaml", "\nfront:", '\nprint_note: "cut \\udc00 here"\nfront:')
    refused(cli("check", str(copy.path)), escape_at(copy, "components/cards.yaml", "\\udc00"), "U+DC00")


@pytest.mark.parametrize("rel, old, new, escape, code", [
    ("tables/flavours.yaml", "title: Flavour energies", 'title: "Flavour\\x01energies"', "\\x01", "U+0001"),
    ("game.yaml", "name: QCD the Game", 'name: "QCD \\u0000"', "\\u0000", "U+0000"),
    ("game.yaml", "name: QCD the Game", 'name: "QCD \\x1b[31m red"', "\\x1b", "U+001B"),
    ("game.yaml", "name: QCD the Game", 'name: "QCD \\e[31m red"', "\\e", "U+001B"),
    ("game.yaml", "name: QCD the Game", 'name: "QCD\\r"', "\\r", "U+000D"),
    ("game.yaml", "name: QCD the Game", 'name: "QCD \\uFFFF"', "\\uFFFF", "U+FFFF"),
])
def test_control_characters_are_refused_at_load_by_check(game_copy, cli, rel, old, new, escape, code):
    """check passed these and build blamed cardgen's own templates/_shared/sheet.svg.j2."""
    copy = game_copy("qcd")
    copy.edit(rel, old, new)
    res = cli("check", str(copy.path), "--no-render")
    refused(res, escape_at(copy, rel, escape), code, "is not allowed in text" if code != "U+FFFF" else "not a character")
    assert "sheet.svg.j2" not in res.stderr


def test_a_tab_and_line_breaks_are_still_text():
    assert parse_yaml('a: "x\\ty\\nz"\nb: |\n  one\n  two\n', "f.yaml") == {"a": "x\ty\nz", "b": "one\ntwo\n"}


@pytest.mark.parametrize("text, where", [
    ('a: "ok \\x01"\n', "f.yaml:1:8:"),
    ('k:\n  - "one"\n  - "two\n    three \\x7f"\n', "f.yaml:4:11:"),
    ('"key \\x00": 1\n', "f.yaml:1:6:"),
    ('a: "\\\n   \\x1b"\n', "f.yaml:2:4:"),
])
def test_both_yaml_parsers_place_a_forbidden_character_at_its_escape(text, where, monkeypatch):
    """libyaml (the fast path) and PyYAML's parser give the same error."""
    with pytest.raises(InputError) as fast:
        parse_yaml(text, "f.yaml")
    monkeypatch.setattr(yamlsrc, "_compose_fast", lambda _text: yamlsrc._UNSURE)
    with pytest.raises(InputError) as slow:
        parse_yaml(text, "f.yaml")
    assert str(fast.value) == str(slow.value)
    assert str(fast.value).startswith(where + " error[input]: control character")


def test_a_surrogate_handed_to_the_parser_as_text_is_an_input_error():
    with pytest.raises(InputError, match="U\\+D800"):
        parse_yaml("a: \ud800\n", "f.yaml")


# --- 3: length of text ----------------------------------------------------------------------------

def test_a_megabyte_name_is_refused_in_game_yaml(game_copy, cli):
    """It was blamed on templates/_shared/sheet.svg.j2:34:1 (more than 50,000 characters)."""
    copy = game_copy("qcd")
    copy.edit("game.yaml", "name: QCD the Game", "name: " + "x" * 1_000_000)
    res = cli("check", str(copy.path))
    refused(res, f"{copy.path / 'game.yaml'}:{copy.line_of('game.yaml', 'name: x')}:7:",
            "the value is 1,000,000 characters long, more than the 10,000 allowed")
    assert "sheet.svg.j2" not in res.stderr


def test_names_and_titles_are_bounded_tighter_than_text(game_copy, cli):
    copy = game_copy("qcd")
    copy.edit("tables/flavours.yaml", "title: Flavour energies", "title: " + "t" * 300)
    copy.edit("game.yaml", "\nsummary: ", "\nsummary: " + "s" * 5000 + " ")   # long text is fine
    refused(cli("check", str(copy.path), "--no-render"),
            f"{copy.path / 'tables/flavours.yaml'}:{copy.line_of('tables/flavours.yaml', 'title: t')}:8:",
            "the name is 300 characters long, more than the 200 allowed")


def test_a_name_on_two_lines_is_refused(game_copy, cli):
    copy = game_copy("qcd")
    copy.edit("game.yaml", "name: QCD the Game", 'name: "QCD\\nthe Game"')
    refused(cli("check", str(copy.path), "--no-render"),
            f"{copy.path / 'game.yaml'}:{copy.line_of('game.yaml', 'name: ')}:7:", "holds a line break")


# --- 4: --lang without a language -----------------------------------------------------------------

@pytest.mark.parametrize("command", ["build", "check", "export png", "export tts"])
@pytest.mark.parametrize("value", ["", ",", " , "])
def test_an_empty_lang_is_a_usage_error(cli, tmp_path, command, value):
    res = cli(*command.split(), "qcd", "--lang", value, "--out", str(tmp_path / "out"))
    assert res.returncode == 2
    assert "Invalid value for '--lang': no language was given" in res.stderr
    assert not (tmp_path / "out").exists()


def test_a_catalog_folder_not_named_by_a_language_is_named_by_all(tmp_path, cli):
    """'--lang all' met a folder 'bad lang' and said "'bad lang' is not a language code",
    with no path to find it by."""
    res = cli("new", "blx", "--from", "qcd", "--dir", str(tmp_path))
    assert res.returncode == 0, res.stderr
    folder = tmp_path / "blx" / "locale" / "bad lang" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "blx.po").write_bytes((tmp_path / "blx" / "locale" / "de" / "LC_MESSAGES" / "blx.po").read_bytes())
    res = cli("check", str(tmp_path / "blx"), "--lang", "all")
    assert res.returncode == 2
    assert f"{folder.parent}: error[input]: catalog folder 'bad lang' is not named by a language code" in res.stderr


# --- 5: a standalone game without templates --------------------------------------------------------

def test_a_game_without_a_templates_folder_is_told_to_create_it_there(tmp_path, cli):
    """The fix pointed into cardgen's own templates folder. (A folder holding a shipped game's
    data alone, under its id, still draws with cardgen's templates of that game.)"""
    assert cli("new", "own-game", "--from", "qcd", "--dir", str(tmp_path)).returncode == 0
    game = tmp_path / "own-game"
    for f in sorted((game / "templates").iterdir()):
        f.unlink()
    (game / "templates").rmdir()
    res = cli("check", str(game))
    assert res.returncode == 1
    assert f"Fix: create {game / 'templates' / 'card-front.svg.j2'} or fix the 'front:' entry" in res.stdout
    assert str(ROOT / "templates") not in res.stdout


# --- 6: Pillow's warning ----------------------------------------------------------------------------

def test_a_decompression_bomb_gets_cardgens_error_alone(tmp_path, cli):
    path = art_game(tmp_path, "art/huge.png")
    (path / "art").mkdir()
    Image.new("1", (10_000, 10_000)).save(path / "art/huge.png")
    res = cli("check", str(path))
    assert res.returncode == 2
    assert "DecompressionBombWarning" not in res.stderr and "warnings.warn" not in res.stderr
    assert res.stderr.startswith(f"cardgen: {path / 'art/huge.png'}: error[input]: ")
    assert "more pixels than the 40 megapixel limit" in res.stderr


# --- 7: a file changed mid-build ------------------------------------------------------------------

def test_the_file_changed_during_a_build_is_named(tmp_path, monkeypatch):
    """It always named game.yaml:3:1, whatever changed (here: a catalog saved while the
    German decks were drawn)."""
    import cardgen.build as stage_module

    game = new_game(tmp_path).path
    catalog = game / "locale" / "de" / "LC_MESSAGES" / "mine.po"
    real = stage_module._build_language

    def edited_meanwhile(todo, options, *args, **kwargs):
        built = real(todo, options, *args, **kwargs)
        if options.lang == "de":
            with open(catalog, "a", encoding="utf-8") as f:
                f.write("\n")
        return built

    monkeypatch.setattr(stage_module, "_build_language", edited_meanwhile)
    with pytest.raises(InputError) as info:
        build([cardgen.load_game(game)], BuildOptions(out=tmp_path / "out", lang="en,de"), jobs=1)
    assert str(info.value.location) == str(catalog)
    assert "changed while it was being built (de)" in info.value.message
    assert not (tmp_path / "out" / "mine").exists()


# --- 8: CSV cells ----------------------------------------------------------------------------------

def test_a_count_of_thousands_of_digits_is_too_large_not_text(game_copy):
    copy = game_copy("qcd")
    rows = qcd_rows()
    rows[2][4] = "9" * 5000
    write_csv(copy, rows)
    use_sheet(copy, "{from: cards.csv}")
    with pytest.raises(InputError) as info:
        copy.load()
    assert str(info.value.location).endswith("cards.csv:E4")
    assert info.value.message == "a whole number of 5,000 digits is too large (allowed: 1 to 50000)"


def test_a_count_of_thousands_of_digits_in_yaml_gets_the_same_message(game_copy, cli):
    """It was PyYAML's 'Exceeds the limit (4300 digits) ... use sys.set_int_max_str_digits()'."""
    copy = game_copy("qcd")
    copy.edit("components/cards.yaml", "count: 2", "count: " + "7" * 5000)
    line = copy.line_of("components/cards.yaml", "count: 777")
    refused(cli("check", str(copy.path), "--no-render"), f"{copy.path / 'components/cards.yaml'}:{line}:12:",
            "a whole number of 5,000 digits is too large (allowed: 1 to 50000)")


def test_a_cell_past_the_csv_modules_limit_names_its_column_and_cardgens_limit(game_copy, cli):
    copy = game_copy("qcd")
    rows = qcd_rows()
    rows[1][2] = "r" * 200_000
    write_csv(copy, rows)
    use_sheet(copy, "{from: cards.csv}")
    res = cli("check", str(copy.path), "--no-render")
    refused(res, f"{copy.path / 'components/cards.csv'}:C3:", "more than 10,000 characters, the limit for a cell")
    assert "check the quotes" not in res.stderr


def test_a_control_character_in_a_csv_cell_is_refused_at_its_cell(game_copy):
    copy = game_copy("qcd")
    rows = qcd_rows()
    rows[0][0] = "u-red\x1b[31m"
    write_csv(copy, rows)
    use_sheet(copy, "{from: cards.csv}")
    with pytest.raises(InputError) as info:
        copy.load()
    assert str(info.value.location).endswith("cards.csv:A2")
    assert info.value.message.startswith("control character U+001B is not allowed in text (character 6 of the cell)")


# --- 9: paths in messages --------------------------------------------------------------------------

def test_an_empty_folder_given_as_a_game_says_it_has_no_game_yaml(tmp_path, cli):
    (tmp_path / "empty").mkdir()
    for command in ("check", "build"):
        res = cli(command, str(tmp_path / "empty"), "--out", str(tmp_path / "out"))
        refused(res, f"{tmp_path / 'empty'}: error[input]: no game.yaml in this folder")
        assert "unknown game" not in res.stderr


def test_a_file_given_as_a_game_says_so(game_copy, cli):
    copy = game_copy("qcd")
    refused(cli("check", str(copy.path / "game.yaml")), f"{copy.path / 'game.yaml'}: error[input]: "
            f"this is a file, not a game folder. Fix: give the folder that holds game.yaml ({copy.path})")


def test_a_deleted_working_folder_is_named(tmp_path):
    gone = tmp_path / "gone"
    gone.mkdir()
    script = ("import os, sys; os.chdir(sys.argv[1]); os.rmdir(sys.argv[1]); "
              "from cardgen.cli import main; sys.argv = ['cardgen', 'build', 'qcd']; main()")
    res = subprocess.run([sys.executable, "-c", script, str(gone)], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PWD": str(gone), "PYTHONPATH": str(ROOT)})
    assert res.returncode == 2, res.stderr
    assert res.stderr.startswith(f"cardgen: {gone}: error[input]: the folder this command runs in is gone")


def test_shipped_games_still_check():
    for gid in ("qcd", "tutti-quantum", "particle-builder", "particles-in-circle"):
        assert cardgen.check(cardgen.load_game(gid), render=False).ok, gid
