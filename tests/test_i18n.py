"""Localized decks: the translator workflow end to end, fallback and --strict, fit reports,
right-to-left text, and catalogs that survive a read/write round trip."""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po, write_po

import cardgen
from cardgen import i18n
from cardgen.draw import render_png
from cardgen.render import Renderer

LOCALE = Path(__file__).resolve().parent.parent / "data" / "locale"


def set_translation(po: Path, msgid: str, text: str, context: str | None = None) -> None:
    with po.open("rb") as fh:
        cat = read_po(fh)
    msg = cat.get(msgid, context)
    assert msg is not None, f"{msgid!r} not in {po}"
    msg.string = text
    buf = io.BytesIO()
    write_po(buf, cat, width=0, sort_output=True)
    po.write_bytes(buf.getvalue())


@pytest.fixture
def designer_qcd(game_copy):
    """A copy of QCD outside the repository: its catalogs live in its own locale/ folder."""
    g = game_copy("qcd")
    return g


def test_extract_init_translate_build(designer_qcd, cli, tmp_path):
    g = designer_qcd
    shipped = {p: p.read_bytes() for p in LOCALE.glob("*.pot")}
    res = cli("i18n", "extract", str(g.path))
    assert res.returncode == 0, res.stderr
    assert {p: p.read_bytes() for p in LOCALE.glob("*.pot")} == shipped   # a designer's game writes only its own
    pot = g.path / "locale" / "qcd.pot"
    text = pot.read_text(encoding="utf-8")
    assert 'msgid "Wild card"' in text and "#: " in text and "box " in text        # location + box size
    assert 'msgctxt "flavours.name"' in text                                         # context: table.field
    assert cli("i18n", "init", "--lang", "de", str(g.path)).returncode == 0
    po = g.path / "locale" / "de" / "LC_MESSAGES" / "qcd.po"
    set_translation(po, "Wild card", "Joker")
    out = tmp_path / "out"
    res = cli("build", str(g.path), "--lang", "de", "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert "untranslated (de): 'Vector boson'" in res.stderr                          # fallback is listed
    assert "untranslated (de): 'Vector boson'" in (out / "qcd/de/text-report.txt").read_text(encoding="utf-8")
    game = cardgen.load_game(g.path)
    face = Renderer(game, "de", translate=i18n.translator(game, "de")).face(
        game.components["cards"], game.components["cards"].card("wild-w")).face
    assert 'aria-label="Joker"' in face.svg and 'aria-label="Wild card"' not in face.svg
    strict = cli("build", str(g.path), "--lang", "de", "--strict", "--out", str(tmp_path / "strict"))
    assert strict.returncode == 1 and "no 'de' translation" in strict.stderr
    assert not (tmp_path / "strict" / "qcd" / "de" / "cards.pdf").exists()


def test_status_and_update_keep_translations_and_mark_changes_fuzzy(designer_qcd, cli):
    g = designer_qcd
    cli("i18n", "extract", str(g.path))
    cli("i18n", "init", "--lang", "fr", str(g.path))
    po = g.path / "locale" / "fr" / "LC_MESSAGES" / "qcd.po"
    set_translation(po, "Wild card", "Joker")
    set_translation(po, "Vector boson", "Boson vecteur")
    res = cli("i18n", "status", str(g.path), "--lang", "fr")
    row = next(l for l in res.stdout.splitlines() if l.startswith("fr ") and "qcd" in l)
    with (g.path / "locale" / "qcd.pot").open("rb") as fh:
        strings = sum(1 for msg in read_po(fh) if msg.id)
    translated, fuzzy, missing = map(int, row.split()[2:])
    # the two set here, and the shared strings the game prints, which start from cardgen's own
    # French (a designer's catalog carries them: see cardgen.i18n.extract)
    assert fuzzy == 0 and translated + missing == strings and translated > 2 and missing > 0
    assert cli("i18n", "status", str(g.path), "--lang", "fr", "--strict").returncode == 1
    g.edit("templates/card-front.svg.j2", '_("Vector boson")', '_("Vector bosons")')
    cli("i18n", "extract", str(g.path))
    assert cli("i18n", "update", str(g.path), "--lang", "fr").returncode == 0
    with po.open("rb") as fh:
        cat = read_po(fh)
    assert cat.get("Wild card").string == "Joker" and not cat.get("Wild card").fuzzy
    changed = cat.get("Vector bosons")
    assert changed is not None and changed.fuzzy and changed.string == "Boson vecteur"


def test_too_long_translation_is_reported_with_card_and_field(designer_qcd, cli):
    g = designer_qcd
    cli("i18n", "extract", str(g.path))
    cli("i18n", "init", "--lang", "de", str(g.path))
    set_translation(g.path / "locale" / "de" / "LC_MESSAGES" / "qcd.po", "Wild card",
                    "Donaudampfschifffahrtsgesellschaftskapitänsmützenjokerkarte")
    res = cli("check", str(g.path), "--lang", "de")
    assert res.returncode == 1
    line = next(l for l in res.stdout.splitlines() if "error[text-fit]" in l)
    assert "card 'wild-w'" in line and "field 'title'" in line and "mm too long" in line and "[de]" in line


def test_unknown_language_is_a_clear_error(cli):
    res = cli("build", "qcd", "--lang", "xx")
    assert res.returncode == 2 and "no 'xx' translation" in res.stderr and "cardgen i18n init" in res.stderr


def test_arabic_text_is_right_aligned_when_start_aligned(tmp_path):
    """Start alignment follows the paragraph direction: Arabic ink hugs the right edge."""
    from PIL import Image
    from tests.test_render import make_game

    template = """{% extends "base.svg.j2" %}
{% block artwork %}{{ text(card.title, 2, 10, size=5, width=46, height=10, field="title") }}{% endblock %}
"""
    path = make_game(tmp_path, template, "  - {id: one, title: كوارك علوي}")
    game = cardgen.load_game(path)
    face = Renderer(game, "ar").face(game.components["cards"], game.components["cards"].card("one")).face
    im = Image.open(io.BytesIO(render_png(face, dpi=254))).convert("L")
    cols = [x for x in range(im.width) if any(im.getpixel((x, y)) < 128 for y in range(110, 230))]
    assert cols and cols[-1] > 440 and cols[0] > 200          # box is x 40–500 px (2–48 mm + 2 mm bleed)


@pytest.mark.parametrize("po", sorted(LOCALE.glob("*/LC_MESSAGES/*.po")), ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_shipped_catalogs_round_trip(po):
    with po.open("rb") as fh:
        first = read_po(fh)
    buf = io.BytesIO()
    write_po(buf, first, width=0, sort_output=True)
    second = read_po(io.BytesIO(buf.getvalue()))
    as_set = lambda cat: {(m.context, m.id, m.string, m.fuzzy) for m in cat if m.id}  # noqa: E731
    assert as_set(first) == as_set(second)
    for m in first:
        if m.id and m.string:
            assert re.findall(r"\{\w+\}", m.id) == re.findall(r"\{\w+\}", m.string), f"placeholders in {m.id!r}"


def test_translation_that_wraps_more_than_english_in_an_unbounded_box_is_flagged(tmp_path):
    from cardgen.fitcheck import language_findings
    from tests.test_render import make_game

    template = """{% extends "base.svg.j2" %}
{% block artwork %}{{ text(card.title, 2, 10, size=4, width=46, field="title") }}{% endblock %}
"""
    path = make_game(tmp_path, template, "  - {id: one, title: Short title}")
    po = path / "locale" / "de" / "LC_MESSAGES" / "mini.po"
    po.parent.mkdir(parents=True)
    po.write_text('msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n'
                  'msgctxt "cards.title"\nmsgid "Short title"\n'
                  'msgstr "Ein viel zu langer Titel, der in diesem Kasten umbricht"\n', encoding="utf-8")
    found = language_findings(cardgen.load_game(path), "de")
    wraps = [f for f in found if f.rule == "text-fit"]
    assert len(wraps) == 1 and wraps[0].severity == "warning"
    assert "wraps onto 3 lines where English uses 1" in wraps[0].message and "'title'" in wraps[0].message


def _line_of(po: Path, msgid: str) -> int:
    lines = po.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, start=1) if line == f'msgid "{msgid}"')


def test_translator_findings_name_the_catalog_line_and_where_the_string_is_used(designer_qcd, tmp_path, monkeypatch):
    """An untranslated particle name lives in common.po, a card title in the game's catalog:
    each finding names its own catalog at the msgid's line, and the line that uses it."""
    import shutil

    import cardgen.i18n as i18n
    from cardgen.fitcheck import language_findings

    shared = tmp_path / "shared-locale"
    shutil.copytree(LOCALE, shared)
    monkeypatch.setattr(i18n, "SHIPPED_LOCALE", shared)
    common = shared / "de" / "LC_MESSAGES" / "common.po"
    set_translation(common, "up quark", "", context="particle")
    g = designer_qcd
    (g.path / "locale" / "de" / "LC_MESSAGES").mkdir(parents=True)
    game_po = g.path / "locale" / "de" / "LC_MESSAGES" / "qcd.po"
    shutil.copyfile(LOCALE / "de" / "LC_MESSAGES" / "qcd.po", game_po)
    set_translation(game_po, "Wild card", "")
    set_translation(game_po, "Vector boson", "Donaudampfschifffahrtsgesellschaftsvektorbosonkarte")
    found = {f.message.split("'")[1] if f.rule == "untranslated" else f.rule: f
             for f in language_findings(g.load(), "de")}
    up = found["up quark"]
    assert (up.location.file, up.location.line) == (str(common), _line_of(common, "up quark"))
    assert "used at data/particles.yaml:" in up.message
    wild = found["Wild card"]
    assert wild.location.file.endswith("qcd.po") and wild.location.line == _line_of(game_po, "Wild card")
    assert "used at " in wild.message and "card-front.svg.j2:" in wild.message
    fit = found["text-fit"]
    assert fit.location.line == _line_of(game_po, "Vector boson") and fit.location.file.endswith("qcd.po")
    assert "msgid 'Vector boson'" in fit.message and "card 'wild-w'" in fit.message and "cards.yaml:" in fit.message


def test_status_with_fit_counts_what_does_not_fit_and_what_has_no_font(designer_qcd, cli):
    g = designer_qcd
    cli("i18n", "extract", str(g.path))
    cli("i18n", "init", "--lang", "fr", str(g.path))
    po = g.path / "locale" / "fr" / "LC_MESSAGES" / "qcd.po"
    set_translation(po, "Vector boson", "Donaudampfschifffahrtsgesellschaftsvektorbosonkarte")
    set_translation(po, "Wild card", "Joker \U0001F9EA")
    res = cli("i18n", "status", str(g.path), "--lang", "fr", "--fit")
    assert res.returncode == 0, res.stderr
    header, row = res.stdout.splitlines()[0], next(l for l in res.stdout.splitlines() if l.startswith("fr "))
    assert header.split()[-4:] == ["not", "fitting", "no", "font"]
    assert row.split()[-2:] == ["1", "1"]
    assert cli("i18n", "status", str(g.path), "--lang", "fr", "--fit", "--strict").returncode == 1


def test_build_takes_several_languages_repeated_or_separated_by_commas(cli, tmp_path):
    """A second --lang replaced the first: `--lang en --lang de` built German alone."""
    for args, wanted in ((["--lang", "en", "--lang", "de"], ["de", "en"]), (["--lang", "en,fr"], ["en", "fr"])):
        out = tmp_path / "-".join(wanted)
        res = cli("build", "qcd", *args, "--out", str(out), env={**os.environ, "CARDGEN_DAEMON": "off"})
        assert res.returncode == 0, res.stderr
        assert sorted(p.name for p in (out / "qcd").iterdir()) == wanted
        for lang in wanted:
            assert (out / "qcd" / lang / "cards.pdf").is_file() and (out / "qcd" / lang / "rules.pdf").is_file()


@pytest.mark.parametrize("game_id", [None, "particle-builder", "tutti-quantum", "qcd", "particles-in-circle"])
def test_each_shipped_template_lists_every_string_the_code_and_data_print(game_id):
    """Two strings of PRINTING.txt were in no template, so no catalog translated them and a
    French card-sized build printed them in English (now an error with --strict)."""
    games = [cardgen.load_game(g) for g in ("particle-builder", "tutti-quantum", "qcd", "particles-in-circle")]
    if game_id is None:
        wanted = i18n.collect_common(games).catalog("common")
    else:
        game = next(g for g in games if g.id == game_id)
        wanted = i18n.collect_game(game).catalog(game_id)
    listed = {(m.id, m.context) for m in i18n._template(None if game_id is None else cardgen.load_game(game_id))}
    assert {(m.id, m.context) for m in wanted if m.id} <= listed


def test_a_footer_word_without_translation_is_untranslated_like_any_other(cli, tmp_path):
    """A new component's name printed in English in every German footer and in PRINTING.txt,
    and `--strict` passed."""
    env = {**os.environ, "CARDGEN_DAEMON": "off"}
    assert cli("new", "extra-qcd", "--from", "qcd", "--dir", str(tmp_path / "games"), env=env).returncode == 0
    g = tmp_path / "games" / "extra-qcd"
    extra = (g / "components" / "cards.yaml").read_text(encoding="utf-8")
    (g / "components" / "extra.yaml").write_text(
        re.sub(r"(?m)^name: .*$", "name: Extra deck", extra.replace("id: cards", "id: extra", 1), count=1),
        encoding="utf-8")
    game_yaml = g / "game.yaml"
    game_yaml.write_text(game_yaml.read_text(encoding="utf-8").replace(
        "  - components/cards.yaml", "  - components/cards.yaml\n  - components/extra.yaml", 1), encoding="utf-8")
    res = cli("build", str(g), "--lang", "de", "--strict", "--out", str(tmp_path / "out"), env=env)
    assert res.returncode == 1, res.stderr
    assert "'Extra deck' (component)" in res.stderr and not (tmp_path / "out" / "extra-qcd" / "de").exists()
    res = cli("build", str(g), "--lang", "de", "--out", str(tmp_path / "out"), env=env)
    assert res.returncode == 0 and "untranslated (de): 'Extra deck'" in res.stderr, res.stderr


def test_printing_instructions_say_each_files_layout_in_the_decks_language(tmp_path):
    """PRINTING.txt said every file's layout in English in a German deck ("A4 portrait, 3×3 = 9
    cards per sheet, edge to edge with shared cuts"); the manifest keeps it in English."""
    games = [cardgen.load_game(g) for g in ("qcd", "tutti-quantum", "particle-builder")]
    cardgen.build(games, cardgen.BuildOptions(out=tmp_path, lang="de"))
    english = re.compile(r"per sheet|portrait|landscape|bleed|edge to edge|tiled onto|overlap|interlocking|shared by")
    for game in games:
        lines = [line for line in (tmp_path / game.id / "de" / "PRINTING.txt").read_text(encoding="utf-8").splitlines()
                 if re.match(r"\S+\.pdf: ", line) and not line.startswith(("rules.pdf", "answers.pdf"))]
        assert lines, game.id
        for line in lines:
            assert not english.search(line), line
            assert re.search(r"Hochformat|Querformat", line), line
        manifest = json.loads((tmp_path / game.id / "de" / "manifest.json").read_text(encoding="utf-8"))
        assert all(english.search(f["layout"]) for f in manifest["files"] if f["component"] not in ("rules", "answers"))
    said = (tmp_path / "qcd" / "de" / "PRINTING.txt").read_text(encoding="utf-8")
    assert "A4 Hochformat, 3×3 = 9 Karten pro Bogen, Kante an Kante mit gemeinsamen Schnitten" in said
    mat = (tmp_path / "particle-builder" / "de" / "PRINTING.txt").read_text(encoding="utf-8")
    assert "aufgeteilt auf A4-Bogen" in mat and "Überlappung" in mat


@pytest.mark.parametrize("shipped", ["particles-in-circle", "qcd"])
def test_a_copy_of_a_shipped_game_is_translated_in_full_title_included(cli, tmp_path, shipped):
    """The copied catalogs still named the old title: `i18n status --strict` called them
    complete and `check --strict` failed on the new title at once."""
    env = {**os.environ, "CARDGEN_DAEMON": "off"}
    assert cli("new", "my-copy", "--from", shipped, "--dir", str(tmp_path / "games"), env=env).returncode == 0
    game = cardgen.load_game(tmp_path / "games" / "my-copy")
    old = cardgen.load_game(shipped).name
    for lang in cardgen.languages("all", game):
        if lang == "en":
            continue
        catalog = {(m.id, m.context): m.string for m in i18n.load_catalog(i18n.po_path(game, lang), lang) if m.id}
        assert catalog.get(("My Copy", "game")) == "My Copy" and (old, "game") not in catalog, lang
    res = cli("check", str(tmp_path / "games" / "my-copy"), "--lang", "de", "--strict", env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert cli("i18n", "status", str(tmp_path / "games" / "my-copy"), "--strict", env=env).returncode == 0


def test_a_shared_string_in_a_language_cardgen_lacks_is_located_in_the_games_own_catalog(cli, tmp_path):
    """The warning sent the designer to data/locale/it/LC_MESSAGES/common.po, which does not
    exist: in a language cardgen does not ship, the game's catalog carries the shared strings."""
    env = {**os.environ, "CARDGEN_DAEMON": "off"}
    g = tmp_path / "games" / "lepton-snap"
    for args in (("new", "lepton-snap", "--dir", str(tmp_path / "games")), ("i18n", "extract", str(g)),
                 ("i18n", "init", str(g), "--lang", "it")):
        assert cli(*args, env=env).returncode == 0, args
    game = cardgen.load_game(g)
    where, used = i18n.MessageLocator(game, "it").locate("Answer key", None)
    po = g / "locale" / "it" / "LC_MESSAGES" / "lepton-snap.po"
    assert Path(where.file).resolve() == po.resolve() and where.line > 0 and "sheet.svg.j2" in used
    assert po.read_text(encoding="utf-8").splitlines()[where.line - 1] == 'msgid "Answer key"'


def test_a_character_no_font_covers_in_a_translation_is_found_at_its_catalog_entry(game_copy):
    """The finding pointed at the card's line in cards.yaml, where nothing can be fixed."""
    from .test_hardening import _german_qcd

    g, po = _german_qcd(game_copy)
    po.write_text(po.read_text(encoding="utf-8").replace('msgstr "Joker"', 'msgstr "조커"', 1), encoding="utf-8")
    found = [f for f in cardgen.check(g.load(), langs=["de"]).findings if f.rule == "glyph-coverage"]
    assert found, "no glyph-coverage finding"
    line = next(n for n, text in enumerate(po.read_text(encoding="utf-8").splitlines(), 1) if text == 'msgstr "조커"')
    assert all(f.location.file.endswith("qcd.po") and f.location.line == line - 1 for f in found), found
    assert "msgid 'Wild card'" in found[0].message and "U+C870" in found[0].message
