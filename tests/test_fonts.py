"""Bringing fonts: a game's own ``fonts/`` folder and ``--font-dir`` draw the scripts the bundled
fonts lack, and ``cardgen fonts`` says which font draws what and what nothing covers.

The tests make their own font with fontTools: a few Hangul syllables (Korean), a script no
bundled font covers, each drawn as a filled square.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fontTools.fontBuilder import FontBuilder
from fontTools.pens.ttGlyphPen import TTGlyphPen

import cardgen
from cardgen.cache import game_fingerprint
from cardgen.render import Renderer
from cardgen.i18n import translator

WILD_KO = "와일드 카드"


def make_font(path: Path, chars: str, weight: int = 400) -> Path:
    """A TrueType font whose glyphs for ``chars`` are filled squares (plus .notdef and space)."""
    chars = "".join(dict.fromkeys(chars))
    names = [".notdef", "space"] + [f"uni{ord(c):04X}" for c in chars]
    fb = FontBuilder(1000, isTTF=True)
    fb.setupGlyphOrder(names)
    fb.setupCharacterMap({32: "space", **{ord(c): f"uni{ord(c):04X}" for c in chars}})
    glyphs = {}
    for name in names:
        pen = TTGlyphPen(None)
        if name != "space":
            pen.moveTo((100, 0)), pen.lineTo((100, 700)), pen.lineTo((900, 700)), pen.lineTo((900, 0))
            pen.closePath()
        glyphs[name] = pen.glyph()
    fb.setupGlyf(glyphs)
    fb.setupHorizontalMetrics({n: (1000 if n != "space" else 300, 100) for n in names})
    fb.setupHorizontalHeader(ascent=800, descent=-200)
    fb.setupNameTable({"familyName": "Test Hangul", "styleName": "Bold" if weight >= 600 else "Regular"})
    fb.setupOS2(usWeightClass=weight, sTypoAscender=800, sTypoDescender=-200, usWinAscent=800, usWinDescent=200)
    fb.setupPost()
    fb.save(str(path))
    return path


@pytest.fixture
def korean_qcd(game_copy):
    """A QCD copy with a Korean catalog that translates the wild card's title."""
    copy = game_copy("qcd")
    po = copy.path / "locale" / "ko" / "LC_MESSAGES" / "qcd.po"
    po.parent.mkdir(parents=True)
    po.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: ko\\n"\n\n'
                  f'msgid "Wild card"\nmsgstr "{WILD_KO}"\n', encoding="utf-8")
    return copy


def wild_front(game):
    renderer = Renderer(game, "ko", translate=translator(game, "ko"))
    comp = game.components["cards"]
    return renderer.face(comp, comp.card("wild-w"), "front").face


def test_without_a_font_korean_is_reported_uncovered_and_drawn_as_boxes(korean_qcd, cli):
    res = cli("fonts", str(korean_qcd.path), "--lang", "ko")
    assert res.returncode == 1
    for char in set(WILD_KO) - {" "}:
        assert f"U+{ord(char):04X} {char} (Hang)" in res.stdout
    assert "templates/card-front.svg.j2:" in res.stdout and "--font-dir" in res.stdout
    glyphs = [g for text in wild_front(korean_qcd.load()).texts for g in text.glyphs]
    assert sum(g.gid == 0 for g in glyphs) == len(WILD_KO.replace(" ", ""))


def test_a_font_in_the_games_fonts_folder_draws_korean(korean_qcd, cli):
    (korean_qcd.path / "fonts").mkdir()
    font = make_font(korean_qcd.path / "fonts" / "hangul.ttf", WILD_KO.replace(" ", ""))
    game = korean_qcd.load()
    assert game.fonts == (font.resolve(),)
    glyphs = [g for text in wild_front(game).texts for g in text.glyphs]
    ours = [g for g in glyphs if g.face.path == font.resolve()]
    assert len(ours) == len(WILD_KO.replace(" ", "")) and not any(g.gid == 0 for g in glyphs)
    res = cli("fonts", str(korean_qcd.path), "--lang", "ko")
    assert res.returncode == 0, res.stdout
    line = next(line for line in res.stdout.splitlines() if "hangul.ttf" in line)
    assert " game " in line and "Hang 4" in line
    assert "every character the game prints is covered" in res.stdout


def test_a_game_moved_with_its_fonts_draws_again_the_faces_that_use_them(korean_qcd, tmp_path, monkeypatch):
    """A face's PDF names the font files its text is drawn with, by path, for the process that
    prints it. A game moved with its own fonts keeps its faces' keys (they name the game's
    files within it): the faces its font draws are drawn again from where the font is now, and
    the deck prints, the same bytes. (The build stopped with "cannot read font file" at the
    font's old place.)"""
    import shutil

    from cardgen import glyphforms, render
    from cardgen.build import BuildOptions, build

    (korean_qcd.path / "fonts").mkdir()
    make_font(korean_qcd.path / "fonts" / "hangul.ttf", WILD_KO.replace(" ", ""))
    out = tmp_path / "out"
    build([korean_qcd.load()], BuildOptions(out=out, lang="ko"), jobs=1)
    first = (out / "qcd/ko/cards.pdf").read_bytes()
    moved = tmp_path / "elsewhere" / "qcd"
    shutil.move(korean_qcd.path, moved)
    (out / "qcd/ko/cards.pdf").unlink()
    drawn: list[tuple[str, str]] = []
    real = render.Renderer.face
    monkeypatch.setattr(render.Renderer, "face", lambda self, comp, card, side="front", mark=None:
                        drawn.append((card.id, side)) or real(self, comp, card, side, mark))
    glyphforms._font.cache_clear()   # as in a new process: no font read at its old place is in memory
    build([cardgen.load_game(moved)], BuildOptions(out=out, lang="ko"), jobs=1)
    assert (out / "qcd/ko/cards.pdf").read_bytes() == first
    assert drawn == [("wild-w", "front")]   # the one face the game's font draws; the others are kept


def test_font_dir_adds_fonts_for_every_command_and_changes_the_cache_key(korean_qcd, cli, tmp_path):
    folder = tmp_path / "fonts"
    folder.mkdir()
    make_font(folder / "hangul.ttf", WILD_KO.replace(" ", ""))
    res = cli("fonts", str(korean_qcd.path), "--lang", "ko", "--font-dir", str(folder))
    assert res.returncode == 0 and "--font-dir" in res.stdout
    with_font = cardgen.load_game(korean_qcd.path, font_dirs=[folder])
    without = korean_qcd.load()
    assert game_fingerprint(with_font, "ko") != game_fingerprint(without, "ko")
    out = tmp_path / "out"
    built = cli("build", str(korean_qcd.path), "--lang", "ko", "--font-dir", str(folder), "--out", str(out))
    assert built.returncode == 0, built.stderr
    assert "no bundled font covers" not in built.stderr


def test_a_bold_font_serves_the_bold_chain_and_the_regular_one_the_rest(tmp_path):
    from cardgen.text.fonts import chains_with

    regular = make_font(tmp_path / "a.ttf", "가")
    bold = make_font(tmp_path / "b.ttf", "가", weight=700)
    chains = chains_with((regular, bold))
    assert chains["regular"][-1].file == str(regular) and chains["bold"][-1].file == str(bold)
    only_regular = chains_with((regular,))
    assert only_regular["bold"][-1].file == str(regular)


def test_bad_font_folders_are_clear_errors(korean_qcd, cli, tmp_path):
    missing = cli("fonts", str(korean_qcd.path), "--font-dir", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "font folder not found" in missing.stderr
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "broken.ttf").write_bytes(b"this is no font")
    res = cli("fonts", str(korean_qcd.path), "--lang", "ko", "--font-dir", str(folder))
    assert res.returncode == 2 and "broken.ttf" in res.stderr and "Traceback" not in res.stderr


def test_build_refuses_missing_glyphs_and_overflow_unless_allowed(korean_qcd, cli, tmp_path):
    """A deck that would print boxes or cut-off text is not written; the findings are check's."""
    out = tmp_path / "out"
    po = korean_qcd.path / "locale" / "ko" / "LC_MESSAGES" / "qcd.po"
    po.write_text(po.read_text(encoding="utf-8") + 'msgid "Vector boson"\nmsgstr "'
                  + "벡터 보손 " * 12 + '"\n', encoding="utf-8")
    refused = cli("build", str(korean_qcd.path), "--lang", "ko", "--out", str(out))
    checked = cli("check", str(korean_qcd.path), "--lang", "ko", "--no-cache")
    assert refused.returncode == 1 and checked.returncode == 1
    assert "nothing was written" in refused.stderr and not list(out.rglob("*.pdf"))
    found = [line for line in checked.stdout.splitlines() if "[glyph-coverage]" in line or "[text-fit]" in line]
    assert found and all(line.split(": ", 1)[1] in refused.stderr for line in found)
    only_glyphs = cli("build", str(korean_qcd.path), "--lang", "ko", "--out", str(out), "--allow-overflow")
    assert only_glyphs.returncode == 1 and "[glyph-coverage]" in only_glyphs.stderr
    assert "[text-fit]" not in only_glyphs.stderr
    allowed = cli("build", str(korean_qcd.path), "--lang", "ko", "--out", str(out), "--allow-overflow",
                  "--allow-missing-glyphs")
    assert allowed.returncode == 0, allowed.stderr
    assert (out / "qcd" / "ko" / "cards.pdf").is_file()


def test_the_fonts_report_of_a_valid_game_writes_no_warnings(cli):
    """The report collects the strings a game prints, cardgen's own included: reading them
    printed the string extractor's warnings about cardgen's own code on every run."""
    res = cli("fonts", "qcd")
    assert res.returncode == 0 and res.stderr == "", res.stderr


@pytest.mark.parametrize("cut", [0.5, 0.9])
def test_a_font_cut_short_is_refused_with_a_fix(korean_qcd, cli, tmp_path, cut):
    """A truncated font keeps a valid header and table list: it was taken as usable, and
    failed (or drew nothing) only at some glyph."""
    whole = make_font(tmp_path / "whole.ttf", WILD_KO).read_bytes()
    folder = korean_qcd.path / "fonts"
    folder.mkdir()
    size = int(len(whole) * cut)
    (folder / "Cut.ttf").write_bytes(whole[:size])
    for args in (["fonts", str(korean_qcd.path), "--lang", "ko"], ["check", str(korean_qcd.path), "--lang", "ko"]):
        res = cli(*args)
        assert res.returncode == 2, (args, res.stdout, res.stderr)
        assert "Cut.ttf: error[font]: the font file is cut short: its '" in res.stderr, res.stderr
        assert "Fix: use a complete TrueType (.ttf) or OpenType (.otf) font file" in res.stderr


@pytest.mark.parametrize("font", sorted(p.name for p in (Path(cardgen.__file__).parent / "fonts").glob("*.[ot]tf")))
def test_every_character_a_bundled_font_maps_it_draws(font):
    """Coverage of the bundled fonts is taken from their character maps unread (a font a game
    brings is read glyph by glyph, see cardgen.text.fonts.Face._inked): that holds only while
    every character they map that prints ink has an outline."""
    import uharfbuzz as hb

    from cardgen.text.chars import needs_ink
    from cardgen.text.fonts import FONT_DIR, _draws

    face = hb.Face(hb.Blob.from_file_path(str(FONT_DIR / font)))
    hb_font = hb.Font(face)
    inked = [cp for cp in face.unicodes if needs_ink(chr(cp))]
    assert inked
    assert [hex(cp) for cp in inked if not _draws(hb_font, hb_font.get_nominal_glyph(cp), False)] == []
