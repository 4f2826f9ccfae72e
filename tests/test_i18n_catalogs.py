"""Catalogs (.po) and templates (.pot) that are damaged, oddly saved or in the wrong place:
each is read correctly or refused with its file, line and column and the fix, and no
translation is ever lost without a word (an empty template once made every one obsolete)."""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pytest
from babel.messages.pofile import read_po, write_po

import cardgen
from cardgen import i18n
from cardgen.errors import InputError
from cardgen.model import Game

LOCALE = Path(__file__).resolve().parent.parent / "data" / "locale"


@pytest.fixture
def game(game_copy) -> Game:
    """A copy of QCD outside the repository with its template and its German and French
    catalogs in its own locale/ folder (where a designer's game keeps them)."""
    copy = game_copy("qcd")
    locale = copy.path / "locale"
    locale.mkdir()
    shutil.copy(LOCALE / "qcd.pot", locale / "qcd.pot")
    for lang in ("de", "fr"):
        (locale / lang / "LC_MESSAGES").mkdir(parents=True)
        shutil.copy(LOCALE / lang / "LC_MESSAGES" / "qcd.po", locale / lang / "LC_MESSAGES" / "qcd.po")
    return cardgen.load_game(copy.path)


def _po(game: Game, lang: str = "de") -> Path:
    return i18n.po_path(game, lang)


def _translated(game: Game, lang: str = "de") -> int:
    return next(row.translated for row in i18n.status([game], [lang]))


def _error(call, *args) -> InputError:
    with pytest.raises(InputError) as caught:
        call(*args)
    return caught.value


# --- 1. a template that is not UTF-8 -------------------------------------------------------------

def test_a_template_that_is_not_utf8_is_refused_at_its_byte_by_every_command(game):
    pot = i18n.pot_path(game)
    lines = pot.read_bytes().count(b"\n")
    with pot.open("ab") as fh:
        fh.write(b'msgid "Quark\xff"\nmsgstr ""\n')
    for call, args in ((i18n.status, ([game], ["de"])), (i18n.update, ([game], ["de"])),
                       (i18n.init, ([game], "it"))):
        err = _error(call, *args)
        assert "not UTF-8" in err.message and "0xff" in err.message
        assert (err.location.file.endswith("qcd.pot"), err.location.line, err.location.column) == (True, lines + 1, 13)


def test_the_command_exits_2_with_one_line_not_an_internal_error(game, cli):
    with i18n.pot_path(game).open("ab") as fh:
        fh.write(b'msgid "\xff"\n')
    res = cli("i18n", "status", str(game.data_dir), "--lang", "de")
    assert res.returncode == 2, res.stderr
    assert "internal error" not in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert "qcd.pot:" in res.stderr and "Fix:" in res.stderr


# --- 2. templates that would throw translations away ---------------------------------------------

def test_an_empty_template_is_refused_and_the_catalog_left_as_it_was(game):
    i18n.pot_path(game).write_bytes(b"")
    before = _po(game).read_bytes()
    err = _error(i18n.update, [game], ["de"])
    assert "no messages" in err.message and f"cardgen i18n extract {i18n.command_name(game)}" in err.fix
    assert _po(game).read_bytes() == before


def _keep_first_messages(pot: Path, keep: int) -> None:
    """The template cut to its first ``keep`` messages (a template half written, or stale)."""
    with pot.open("rb") as fh:
        tpl = read_po(fh)
    for msg in [m for m in tpl if m.id][keep:]:
        tpl.delete(msg.id, msg.context)
    buf = io.BytesIO()
    write_po(buf, tpl, width=0)
    pot.write_bytes(buf.getvalue())


def test_a_template_that_would_obsolete_most_translations_is_refused_unless_allowed(game):
    _keep_first_messages(i18n.pot_path(game), 10)
    before = _po(game).read_bytes()
    err = _error(i18n.update, [game], ["de"])
    assert "obsolete" in err.message and "--allow-obsolete" in err.fix
    assert _po(game).read_bytes() == before
    i18n.update([game], ["de"], allow_obsolete=True)
    assert _translated(game) == 10


def test_update_brings_back_obsolete_translations_whose_string_is_back(game):
    full, obsolete = _translated(game), _po(game).read_text(encoding="utf-8").count("#~ msgid")
    pot = i18n.pot_path(game)
    template = pot.read_bytes()
    _keep_first_messages(pot, 10)
    i18n.update([game], ["de"], allow_obsolete=True)
    assert _translated(game) == 10
    pot.write_bytes(template)   # extracted again: every string is back
    i18n.update([game], ["de"])
    assert _translated(game) == full
    assert _po(game).read_text(encoding="utf-8").count("#~ msgid") == obsolete


def test_update_writes_no_catalog_when_one_of_them_is_refused(game):
    de, fr = _po(game, "de"), _po(game, "fr")
    fr.write_bytes(fr.read_bytes() + b'msgid "\xff"\n')
    inode = de.stat().st_ino
    _error(i18n.update, [game], ["de", "fr"])
    assert de.stat().st_ino == inode   # not replaced (a write is a rename over it)


# --- 3. a charset other than UTF-8 ---------------------------------------------------------------

@pytest.mark.parametrize("encoding", ["utf-8", "latin-1"])
def test_a_catalog_declaring_another_charset_is_refused_at_its_header(game, encoding):
    po = _po(game)
    text = po.read_text(encoding="utf-8").replace("charset=utf-8", "charset=latin-1")
    po.write_bytes(text.encode(encoding, "replace"))   # saved as declared, or UTF-8 still
    line = next(n for n, s in enumerate(text.splitlines(), 1) if "charset=" in s)
    err = _error(i18n.translator, game, "de")
    assert "charset=latin-1" in err.message and "UTF-8" in err.fix
    assert (err.location.line, err.location.column) == (line, text.splitlines()[line - 1].index("charset=") + 1)


# --- 4. and 5. line ends and a byte-order mark ----------------------------------------------------

@pytest.mark.parametrize("change", [
    lambda data: data.replace(b"\n", b"\r"),            # old Mac
    lambda data: data.replace(b"\n", b"\r\n"),          # Windows
    lambda data: b"\xef\xbb\xbf" + data,                # a byte-order mark (Notepad)
], ids=["cr", "crlf", "bom"])
def test_line_ends_and_a_byte_order_mark_read_every_translation(game, change):
    full = _translated(game)
    tr = i18n.translator(game, "de")
    po = _po(game)
    po.write_bytes(change(po.read_bytes()))
    assert _translated(game) == full
    assert i18n.translator(game, "de")._exact == tr._exact
    i18n.update([game], ["de"])   # writes a catalog cardgen reads again, with LF line ends
    assert _translated(game) == full and b"\r" not in po.read_bytes()


# --- 6. size ------------------------------------------------------------------------------------

def test_a_catalog_over_the_size_limit_is_refused_before_it_is_read(game):
    po = _po(game)
    os.truncate(po, i18n.MAX_CATALOG_BYTES + 1)   # sparse: no disk, and unread
    err = _error(i18n.translator, game, "de")
    assert f"at most {i18n.MAX_CATALOG_BYTES // 2**20} MiB" in err.message and err.location.file.endswith("qcd.po")


# --- 7. advice that works, and folders where files should be ------------------------------------

def test_a_command_given_all_or_an_unknown_code_is_not_told_to_init_it(game):
    for lang, said in (("all", "one language at a time"), ("xx", "not a known language code")):
        err = _error(i18n.translator, game, lang)
        assert said in err.message and f"--lang {lang}" not in err.fix and "de" in err.fix


def test_a_folder_in_place_of_a_catalog_is_named_by_every_command(game):
    po = _po(game)
    po.unlink()
    po.mkdir()
    for call, args in ((i18n.translator, (game, "de")), (i18n.init, ([game], "de")),
                       (i18n.update, ([game], ["de"])), (i18n.status, ([game], ["de"]))):
        err = _error(call, *args)
        assert "folder stands where a catalog file should be" in err.message, call
        assert err.location.file.endswith("qcd.po")


def test_a_folder_in_place_of_the_template_is_named_not_blamed_on_out(game):
    pot = i18n.pot_path(game)
    pot.unlink()
    pot.mkdir()
    err = _error(i18n.extract, [game])
    assert "folder stands where a catalog file should be" in err.message and "--out" not in (err.fix or "")
    assert "folder" in _error(i18n.init, [game], "it").message


def test_a_missing_template_is_extracted_with_the_games_own_command(game):
    i18n.pot_path(game).unlink()
    err = _error(i18n.init, [game], "it")
    assert f"'cardgen i18n extract {i18n.command_name(game)}'" in err.fix


def test_a_catalog_of_ascii_that_declares_ascii_is_read(tmp_path):
    """ASCII is UTF-8's first 128 characters: declaring it is no mistake while the file holds no other."""
    from cardgen.i18n import _checked_charset

    header = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=us-ascii\\n"\n\nmsgid "Up"\nmsgstr "Hoch"\n'
    _checked_charset(header, tmp_path / "de.po")   # no error
    with pytest.raises(InputError, match="charset=us-ascii"):
        _checked_charset(header.replace("Hoch", "Höch"), tmp_path / "de.po")


def test_a_designers_game_is_translated_in_full_in_its_own_catalog(tmp_path):
    """A language cardgen's shared catalog lacks could not pass a --strict build of a designer's
    game: 63 shared strings (the answer key's words, particle names) had no catalog the
    translator could write to, while 'status' called the game's catalog complete. The game's
    catalog now carries the shared strings it prints; in a language cardgen has, they start
    from cardgen's translations."""
    from babel.messages.pofile import read_po

    import cardgen
    from cardgen import i18n
    from cardgen.i18n import _write_catalog
    from cardgen.scaffold import new_game

    folder = new_game("mygame", tmp_path / "games", "qcd")
    game = cardgen.load_game(folder)
    i18n.extract([game])
    i18n.update([game], ["de"])
    [german] = i18n.status([game], ["de"])
    assert german.missing == 0 and german.fuzzy <= 1   # (the new title, guessed)
    i18n.init([game], "it")
    po = i18n.po_path(game, "it")
    with po.open("rb") as f:
        cat = read_po(f)
    assert cat.get("up quark", "particle") is not None   # a shared string, in the game's own catalog
    for msg in cat:
        if msg.id:
            msg.string = "IT " + msg.id
    _write_catalog(po, cat)
    report = cardgen.check(cardgen.load_game(folder), langs=["it"], strict=True)
    assert not [f for f in report.findings if "translation" in f.message], report.findings[:3]
