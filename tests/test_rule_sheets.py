"""Rule sheets and answer keys: the printed tables equal the data, the derivation agrees with
independent physics, and `cardgen build` writes both files for every game."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from fractions import Fraction
from math import comb
from pathlib import Path

import pdfplumber
import pytest
from particle import Particle as PDGParticle

import cardgen
from cardgen import answers as A
from cardgen import i18n, sheets
from cardgen.tables import walk_outcomes
from tests.sheettext import open_text, without_drawing

GAMES = ("particle-builder", "tutti-quantum", "qcd", "particles-in-circle")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One `cardgen build` with no arguments (every game, English)."""
    out = tmp_path_factory.mktemp("out")
    proc = subprocess.run([sys.executable, "-m", "cardgen", "build", "--out", str(out), "--no-cache"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return out


def _text(path: Path) -> str:
    with open_text(path) as pdf:
        text = "\n".join(page.extract_text() or "" for page in pdf.pages)
    return re.sub(r"[ \t]+", " ", text)


def _syms(particles) -> str:
    return " ".join(p.symbol.unicode() for p in particles)


@pytest.mark.parametrize(("game_id", "lang", "kind"), [("qcd", "en", "rules"), ("particles-in-circle", "ar", "rules"),
                                                   ("particle-builder", "de", "answers")])
def test_the_text_layer_reads_the_same_without_the_drawing(game_id: str, lang: str, kind: str) -> None:
    """What the sheet tests read through tests/sheettext.py (the sheet with its drawn forms
    emptied) is what pdfplumber reads of the whole sheet: every character with its font and
    size, every word at its place, the extracted text (left to right, and right to left)."""
    game = cardgen.load_game(game_id)
    pdf = sheets.render_sheet(game, kind, lang, 210, 297, i18n.translator(game, lang), None, "t", None).pdf

    def read(data: bytes) -> list:
        with pdfplumber.open(io.BytesIO(data)) as doc:
            return [(page.extract_text(), page.extract_text(use_text_flow=True),
                     [(w["text"], round(w["x0"], 2), round(w["top"], 2)) for w in page.extract_words()],
                     [(c["text"], c["fontname"], round(c["size"], 2), round(c["x0"], 2)) for c in page.chars])
                    for page in doc.pages]

    whole, text_only = read(pdf), read(without_drawing(pdf))
    assert sum(len(page[3]) for page in whole) > 300
    assert text_only == whole


def test_build_writes_both_sheets_for_every_game(built: Path) -> None:
    for gid in GAMES:
        folder = built / gid / "en"
        manifest = json.loads((folder / "manifest.json").read_text())
        rows = {f["component"]: f for f in manifest["files"]}
        for kind in ("rules", "answers"):
            pdf = folder / f"{kind}.pdf"
            assert pdf.is_file()
            with pdfplumber.open(pdf) as doc:
                assert rows[kind]["pages"] == len(doc.pages)
                assert abs(doc.pages[0].width - 595.28) < 0.5 and abs(doc.pages[0].height - 841.89) < 0.5  # A4
            assert rows[kind]["path"] == f"{gid}/en/{kind}.pdf"
        printing = (folder / "PRINTING.txt").read_text()
        assert "rules.pdf: rule sheet" in printing and "answers.pdf: answer key" in printing


def test_particle_builder_tables_equal_the_data_row_for_row(built: Path) -> None:
    game = cardgen.load_game("particle-builder")
    text = _text(built / "particle-builder" / "en" / "rules.pdf")
    for row in game.tables["transformations"].rows:
        assert f"{_syms([row.source])} {_syms([row.via])} {_syms([row.target])}" in text, row
    for row in game.tables["annihilation"].rows:
        assert _syms(row.members) in text
        assert " or ".join(_syms(o) for o in row.products) in text
    for tid in ("oscillation", "decays"):
        for entry in game.tables[tid].rows:
            for roll, products in walk_outcomes(entry.rolls):
                faces = sheets.Sheet.faces(roll.faces)
                if products is None:
                    expected = f"{faces} {'roll again' if roll.reroll else 'no change'}"
                elif len(roll.options) > 1:
                    expected = f"{faces} " + " or ".join(_syms(o) for o in roll.options)
                else:
                    expected = f"{faces} {_syms(products)}"
                assert expected in text, (tid, expected)
    levels = [r.values for r in game.tables["levels"].rows]
    assert [lv["level"] for lv in levels] == list(range(1, 8))
    for lv in levels:
        assert f"{lv['level']} {lv['name']}" in text


def test_corrections_are_marked_and_footnoted(built: Path) -> None:
    game = cardgen.load_game("particle-builder")
    text = _text(built / "particle-builder" / "en" / "rules.pdf")
    assumptions = {a.id: " ".join(a.text.split()) for a in game.assumptions}
    # the W⁺ decay row 3–4 carries the first mark, the Z's charged-lepton branch the second
    assert "3–4 u d̅ †" in text
    assert "1–2 roll again: ‡" in text
    flat = " ".join(text.split())
    assert "† " + assumptions["w-decay-fix"] in flat
    assert "‡ " + assumptions["z-decay-fix"] in flat
    assert flat.count("†") == 2 and flat.count("‡") == 2   # one mark on the row, one on its footnote


def test_tutti_quantum_sheet_lists_the_seven_vertices_with_points(built: Path) -> None:
    game = cardgen.load_game("tutti-quantum")
    text = _text(built / "tutti-quantum" / "en" / "rules.pdf")
    rows = game.tables["vertices"].rows
    assert len(rows) == 7
    for v in rows:
        assert re.search(rf"{re.escape(v.name)} {v.points}\b", text), v.name
    for r in game.tables["expert"].rows:
        assert r.values["name"].split()[0] in text


def test_answer_key_equals_the_derivation(built: Path) -> None:
    for gid in ("qcd", "particles-in-circle"):
        text = _text(built / gid / "en" / "answers.pdf")
        for c in A.neutral_combinations(cardgen.load_game(gid)):
            assert f"{_syms(c.particles)} {sheets._charge(c.charge)} {c.hadron or '–'}" in text, c
    text = _text(built / "tutti-quantum" / "en" / "answers.pdf")
    for v in A.valid_vertices(cardgen.load_game("tutti-quantum")):
        lines = " – ".join(_syms(lt.particles) if len(lt.particles) == 1 else lt.id for lt in v.lines)
        assert f"{lines} {v.name} {v.combinations} {v.points}" in text, (lines, text)
    game = cardgen.load_game("particle-builder")
    text = _text(built / "particle-builder" / "en" / "answers.pdf")
    for t in A.target_recipes(game):
        assert f"{t.name} {t.kind}" in text and f"{sheets._charge(t.charge)} {t.points}" in text


@pytest.mark.parametrize("gid,flavours", [("qcd", 4), ("particles-in-circle", 3)])
def test_combinations_against_independent_physics(gid: str, flavours: int) -> None:
    combos = A.neutral_combinations(cardgen.load_game(gid))
    by_kind = {k: [c for c in combos if c.kind == k] for k in A.HADRON_KINDS}
    assert len(by_kind["baryon"]) == comb(flavours + 2, 3)       # multisets of 3 of n flavours
    assert len(by_kind["antibaryon"]) == comb(flavours + 2, 3)
    assert len(by_kind["meson"]) == flavours * flavours
    for c in combos:
        # colour-neutral: the RGB mix of the chosen colours is white
        mix = [sum(x) for x in zip(*(col.additive for col in c.colours))]
        assert len(set(mix)) == 1
        # charge from PDG's quark charges (the particle package, not our data) is whole
        pdg = sum(Fraction(int(PDGParticle.from_pdgid(p.pdg_id).charge * 3), 3) for p in c.particles)
        assert pdg == c.charge and pdg.denominator == 1
    names = {tuple(p.id for p in c.particles): c.hadron for c in combos}
    assert names[("u", "u", "d")] == "p" and names[("u", "d", "d")] == "n"
    assert names[("u", "dbar")] == "π⁺" and names[("d", "ubar")] == "π⁻"


def test_target_recipes_use_the_deck_and_the_transformations() -> None:
    game = cardgen.load_game("particle-builder")
    proton = next(t for t in A.target_recipes(game) if t.id == "proton")
    assert proton.buildable and proton.points == 10 and proton.charge == 1
    u = next(i for i in proton.ingredients if i.particle.id == "u")
    assert u.needed == 2 and u.cards == (("u", 3),)
    assert {(s.id, v.id) for s, v in u.transformations} == {("d", "W+"), ("s", "W+"), ("b", "W+")}
    assert all(not i.transformations for t in A.target_recipes(game, level=4) for i in t.ingredients)


def test_unknown_assumption_in_differs_from_rulebook_is_an_input_error(tmp_path: Path) -> None:
    import shutil

    from cardgen.errors import InputError

    src = Path(cardgen.__file__).resolve().parent.parent / "data" / "games" / "particle-builder"
    dst = tmp_path / "particle-builder"
    shutil.copytree(src, dst)
    decays = dst / "tables" / "decays.yaml"
    decays.write_text(decays.read_text().replace("assumption: w-decay-fix", "assumption: w-decay-fx"))
    with pytest.raises(InputError) as err:
        cardgen.load_game(dst)
    assert "names assumption 'w-decay-fx', which game.yaml does not declare" in str(err.value)
    line = next(n for n, text in enumerate(decays.read_text().splitlines(), start=1) if "w-decay-fx" in text)
    assert err.value.location.file.endswith("tables/decays.yaml") and err.value.location.line == line


def test_german_sheet_has_translated_headings(tmp_path: Path) -> None:
    game = cardgen.load_game("particle-builder")
    tr = i18n.translator(game, "de")
    result = sheets.render_sheet(game, "rules", "de", 210, 297, tr, None, "t", None)
    with open_text(result.pdf) as pdf:
        text = " ".join(p.extract_text() for p in pdf.pages)
    assert "Regelübersicht" in text and "Spielstufen" in text and "wird zu" in text
    assert "Rule sheet" not in text and "becomes" not in text


def test_the_answer_key_names_deck_cards_as_they_print(built: Path) -> None:
    """A teacher finds a recipe's cards by what they print — the particle's symbol — with the
    deck's copies, never by the data's card ids ('dbar')."""
    game = cardgen.load_game("particle-builder")
    deck = game.components["particles"]
    copies = {}
    for card in deck.cards:
        p = card.fields["particle"]
        copies[p.symbol.unicode()] = copies.get(p.symbol.unicode(), 0) + card.count
    text = _text(built / "particle-builder" / "en" / "answers.pdf")
    recipes = text[text.index("Recipes"):]
    for sym in ("d̅", "u̅", "e⁻", "s"):
        assert f"{sym} ×{copies[sym]}" in recipes, sym
    assert not re.search(r"\b(dbar|ubar|sbar|e-) ×", recipes)


@pytest.mark.parametrize("level", [1, 4, 5, 7])
def test_a_rule_sheet_lists_the_levels_played_and_no_later_one(level: int) -> None:
    """At --level N the sheet prints levels 1 to N: a later level's line would point at a
    table ('table below') the sheet leaves out."""
    game = cardgen.load_game("particle-builder")
    result = sheets.render_sheet(game, "rules", "en", 210, 297, None, level, "t", None)
    with open_text(result.pdf) as pdf:
        text = " ".join(p.extract_text() for p in pdf.pages)
    names = {row.values["level"]: row.values["name"] for row in game.tables["levels"].rows}
    for n, name in names.items():
        assert (name in text) == (n <= level), (n, name)
    assert ("table below" in text) == (level >= 5) and ("Transformations (Level 5)" in text) == (level >= 5)


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("kind", ["rules", "answers"])
def test_sheets_print_on_a5_with_every_text_fitting(game_id: str, kind: str) -> None:
    """A5 is a paper cardgen offers: on its narrow page a column header wraps onto a second
    line instead of shrinking below what fits ('rulebook mev' stopped the QCD build), in every
    shipped language (the German meson line ran past the colour wheel's column)."""
    game = cardgen.load_game(game_id)
    for lang in ["en", *i18n.available_languages(game)]:
        tr = i18n.translator(game, lang)
        result = sheets.render_sheet(game, kind, lang, 148, 210, tr, None, "t", None)
        assert result.pages >= 1 and not result.issues, (lang, [str(i) for i in result.issues])


def test_arabic_sheet_renders_right_to_left() -> None:
    game = cardgen.load_game("qcd")
    tr = i18n.translator(game, "ar")
    result = sheets.render_sheet(game, "answers", "ar", 210, 297, tr, None, "t", None)
    assert result.pages >= 1 and not [i for i in result.issues if i.kind == "missing-glyphs"]
    pages = sheets.sheet_pages(game, "answers", "ar", 210, 297, tr, None)
    title = next(it for it in pages[0] if it["kind"] == "text" and it["field"] == "section title")
    assert title["align"] == "start" and title["direction"] == "rtl"   # start = the right edge


def test_sheet_follows_the_paper_and_level() -> None:
    game = cardgen.load_game("particle-builder")
    letter = sheets.render_sheet(game, "rules", "en", 215.9, 279.4, None, None, "t", None)
    with pdfplumber.open(io.BytesIO(letter.pdf)) as pdf:
        assert abs(pdf.pages[0].width - 612) < 0.5 and abs(pdf.pages[0].height - 792) < 0.5
    level4 = sheets.render_sheet(game, "rules", "en", 210, 297, None, 4, "t", None)
    with open_text(level4.pdf) as pdf:
        text = " ".join(p.extract_text() for p in pdf.pages)
    assert "Levels of play" in text and "Transformations (Level 5)" not in text and "Decays (Level 7)" not in text


def test_overflowing_sheet_text_is_reported(tmp_path: Path) -> None:
    import shutil

    src = Path(cardgen.__file__).resolve().parent.parent / "data" / "games" / "particle-builder"
    dst = tmp_path / "particle-builder"
    shutil.copytree(src, dst)
    levels = dst / "tables" / "levels.yaml"
    levels.write_text(levels.read_text().replace("name: Colour", "name: " + "Colour " * 40))
    game = cardgen.load_game(dst)
    result = sheets.render_sheet(game, "rules", "en", 210, 297, None, None, "t", None)
    assert any(i.kind == "overflow" and i.component == "rules" and i.text.startswith("Colour Colour")
               for i in result.issues)


def _catalog(game_copy, cli, translate, lang: str = "de") -> tuple[Path, Path]:
    """A copy of Particles in Circle with a catalog of its own for ``lang``, ``translate``
    called on it (a Babel catalog) before it is written: the game's folder and the catalog's
    file."""
    from babel.messages.pofile import read_po, write_po

    g = game_copy("particles-in-circle")
    assert cli("i18n", "extract", str(g.path)).returncode == 0
    assert cli("i18n", "init", "--lang", lang, str(g.path)).returncode == 0
    po = g.path / "locale" / lang / "LC_MESSAGES" / "particles-in-circle.po"
    with po.open("rb") as fh:
        cat = read_po(fh)
    translate(cat)
    buf = io.BytesIO()
    write_po(buf, cat, width=0)
    po.write_bytes(buf.getvalue())
    return g.path, po


def test_check_lang_fit_checks_the_sheets(game_copy, cli) -> None:
    """`cardgen check --lang` reports a sheet string that does not fit, naming the sheet page."""
    def translate(cat) -> None:
        cat.get("step", "turn.field").string = "Schritt" * 12

    game, _po = _catalog(game_copy, cli, translate)
    res = cli("check", str(game), "--lang", "de")
    line = next(l for l in res.stdout.splitlines() if "error[text-fit]" in l)
    assert "rules.pdf page-1" in line and "field 'column header'" in line and "SchrittSchritt" in line


@pytest.mark.parametrize("old, times, what", [
    ("rule: Both card sets go face down on your energy stack.", 60, "a table's value"),
    ("title: Annihilation", 15, "a table's title (at most 200 characters)"),
])
def test_a_plain_check_finds_sheet_text_the_build_refuses_at_its_line(game_copy, cli, tmp_path, old, times,
                                                                      what) -> None:
    """`cardgen check` with no language asked for renders the rule sheet too: text there that
    does not fit is found where the data writes it (not at the game's first line), exactly as
    the build that refuses it reports it — before, the check said the deck was right."""
    g = game_copy("qcd")
    key, text = old.split(": ", 1)
    g.edit("tables/annihilation.yaml", old, f"{key}: " + " ".join([text] * times))
    line = g.line_of("tables/annihilation.yaml", f"{key}: {text} {text}")
    column = (g.path / "tables/annihilation.yaml").read_text().splitlines()[line - 1].index(text) + 1
    check = cli("check", str(g.path))
    assert check.returncode == 1, check.stdout + check.stderr
    found = next(ln for ln in check.stdout.splitlines() if "error[text-fit]" in ln)
    assert f"annihilation.yaml:{line}:{column}:" in found and "rules.pdf page-" in found, (what, found)
    build = cli("build", str(g.path), "--out", str(tmp_path / "out"))
    assert build.returncode == 1 and not (tmp_path / "out" / "qcd").exists()
    assert found.split(": error")[0] in build.stderr


def test_a_translation_far_too_long_for_its_sheet_is_found_at_its_catalog_entry(game_copy, cli) -> None:
    """A text too long for any box is reported by its start and "…": a translation that long
    is still found at its catalog entry, not at the game's first line."""
    english = "Point at that card. The first right answer wins the cards of the combination: 3 for a baryon, 2 for a " \
              "meson or lepton pair."

    def translate(cat) -> None:
        next(m for m in cat if m.id == english).string = "Zeige auf diese Karte. " * 200

    game, po = _catalog(game_copy, cli, translate)
    line = next(n for n, text in enumerate(po.read_text(encoding="utf-8").splitlines(), 1)
                if text.startswith("msgid") and "Point at that card." in text)
    res = cli("check", str(game), "--lang", "de")
    found = next(ln for ln in res.stdout.splitlines() if "error[text-fit]" in ln)
    assert f"particles-in-circle.po:{line}:1:" in found and "rules.pdf page-" in found, found
    assert f"msgid {english!r}" in found and "Fix: shorten the translation" in found


@pytest.mark.parametrize("render_pass", ["here", "in the forked worker"])
def test_a_process_checking_a_game_again_renders_its_sheets_only_when_they_change(game_copy, cli, monkeypatch,
                                                                                 tmp_path, render_pass) -> None:
    """A second check in the same process lays the sheets out, finds their inputs unchanged,
    and reports exactly what rendering them reported (untranslated strings included); a
    table's value changed, the sheet is rendered again and what it reports is found. It holds
    whichever process ran the render pass: with a second core a check's forked worker may
    take it, and what the worker rendered is remembered by the process that forked it."""
    import os
    import time
    from collections import OrderedDict

    from cardgen import check as check_module
    from cardgen import forkpair, rendercheck
    from cardgen.render import Renderer

    monkeypatch.setattr(rendercheck, "_REPORTS", OrderedDict())
    pages_log, started = tmp_path / "sheet-pages", tmp_path / "render-pass"   # files: either process writes
    real_face, real_pass, real_each = Renderer.face, check_module._faces_and_render, forkpair._each_passing

    def counting(self, component, card, side="front", mark=None):
        if component.id in sheets.SHEETS:
            with pages_log.open("a") as fh:
                fh.write(f"{os.getpid()}\n")
        return real_face(self, component, card, side, mark)

    def noting(*args, **kwargs):
        started.write_text(str(os.getpid()))
        return real_pass(*args, **kwargs)

    def after_the_worker_took_the_render_pass(items, indices, work):
        deadline = time.monotonic() + 60
        while os.getpid() == here and not started.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return real_each(items, indices, work)

    here = os.getpid()
    monkeypatch.setattr(Renderer, "face", counting)
    monkeypatch.setattr(check_module, "_faces_and_render", noting)
    if render_pass == "here":
        monkeypatch.setattr(forkpair, "cores", lambda: {0})
    else:
        monkeypatch.setattr(forkpair, "cores", lambda: {0, 1})
        monkeypatch.setattr(forkpair, "_each_passing", after_the_worker_took_the_render_pass)

    def checked(langs: list[str]):
        started.unlink(missing_ok=True)
        report = cardgen.check(cardgen.load_game(game), langs=langs, cache=None)
        assert (started.read_text() == str(here)) == (render_pass == "here")
        return report, (pages_log.read_text().split() if pages_log.exists() else [])

    # Italian, which cardgen does not ship: the game's catalog carries the shared strings too,
    # the sheets' headings among them, which only rendering the sheets asks for
    game, _po = _catalog(game_copy, cli, lambda cat: None, "it")
    first, pages = checked(["it"])
    assert pages and any(f.rule == "untranslated" and "'Rule sheet'" in f.message for f in first.findings)
    again, pages_again = checked(["it"])
    assert pages_again == pages   # not one sheet page rendered again
    assert [f.as_dict() for f in again.findings] == [f.as_dict() for f in first.findings]
    assert [p.claim for p in again.proofs] == [p.claim for p in first.proofs]
    rule = "Point at that card. The first right answer wins the cards of the combination"
    turn = game / "tables" / "turn.yaml"
    turn.write_text(turn.read_text(encoding="utf-8").replace(rule, " ".join([rule] * 40)), encoding="utf-8")
    changed, pages_changed = checked([])
    assert len(pages_changed) > len(pages)
    assert any(f.rule == "text-fit" and "turn.yaml" in str(f.location) for f in changed.findings)


def test_lepton_pairs_are_listed_for_particles_in_circle(built: Path) -> None:
    pairs = A.antiparticle_pairs(cardgen.load_game("particles-in-circle"))
    assert len(pairs) == 6 and all(a.antiparticle == b.id and a.charge == -b.charge for a, b in pairs)
    text = _text(built / "particles-in-circle" / "en" / "answers.pdf")
    assert "Lepton pairs the deck can make (6)" in text
    for a, b in pairs:
        assert f"{a.symbol.unicode()} {b.symbol.unicode()} {a.name}" in text


def test_checker_lists_each_rulebook_deviation_as_a_choice() -> None:
    report = cardgen.check(cardgen.load_game("particle-builder"))
    choices = [c for c in report.choices if c.rule == "rulebook-deviations"]
    decays = Path(cardgen.__file__).resolve().parent.parent / "data/games/particle-builder/tables/decays.yaml"
    marked = [n for n, text in enumerate(decays.read_text().splitlines(), start=1) if "differs_from_rulebook:" in text
              and not text.lstrip().startswith("#")]
    assert len(marked) == 2
    assert [(c.location.file, c.location.line) for c in choices] == [
        ("data/games/particle-builder/tables/decays.yaml", line) for line in marked]
    assert "assumption 'w-decay-fix'" in choices[0].subject and choices[0].reason.startswith("The rulebook's W⁺ decay")


@pytest.mark.parametrize("module", ["answers", "sheetlayout", "textlayer"])
def test_sheet_digest_follows_the_code_that_makes_sheets(module: str, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A rebuild keeps a sheet only while its digest holds: editing any module that derives,
    lays out or assembles sheets must change it, as editing the data does."""
    import importlib

    game = cardgen.load_game("qcd")
    mod = importlib.import_module(f"cardgen.{module}")
    copy = tmp_path / Path(mod.__file__).name
    copy.write_bytes(Path(mod.__file__).read_bytes())
    monkeypatch.setattr(mod, "__file__", str(copy))
    same = {kind: sheets.inputs_digest(game, kind) for kind in sheets.SHEETS}
    assert {kind: sheets.inputs_digest(game, kind) for kind in sheets.SHEETS} == same
    copy.write_bytes(copy.read_bytes() + b"\n# edited\n")
    for kind in sheets.SHEETS:
        assert sheets.inputs_digest(game, kind) != same[kind]


@pytest.mark.parametrize("gid", ["particle-builder", "tutti-quantum", "qcd", "particles-in-circle"])
def test_the_rule_sheet_never_reads_the_cards(gid: str) -> None:
    """What keeps the rule sheet's digest honest (it leaves out the components' files): the
    sheet comes out the same, byte for byte, from a game whose components fail when read,
    for every level and in a language with a catalog."""
    import dataclasses
    from collections.abc import Mapping

    from cardgen import i18n

    class Unread(Mapping):
        def __getitem__(self, key):
            raise AssertionError(f"the rule sheet read component {key!r}")

        def __iter__(self):
            raise AssertionError("the rule sheet went through the components")

        def __len__(self):
            raise AssertionError("the rule sheet counted the components")

    game = cardgen.load_game(gid)
    blind = dataclasses.replace(game, components=Unread())
    levels = sorted({None, *(t.level for t in game.tables.values())}, key=lambda v: v or 0)
    for lang in ("en", "de"):
        for level in levels:
            made = [sheets.render_sheet(g, "rules", lang, 210.0, 297.0, i18n.translator(g, lang), level, "t", 0).pdf
                    for g in (game, blind)]
            assert made[0] == made[1]


def test_sheets_are_tasks_of_their_own_before_the_cards_and_kept_when_unchanged(tmp_path: Path) -> None:
    """Each sheet to render is one task on the build's processes, in its game's group, before
    every card task (each sheet is one large piece: the run ends on small pieces of cards,
    which both processes share); a sheet whose inputs did not change is kept, with no task."""
    from cardgen.build import BuildOptions, _Run, build, plan
    from cardgen.build.faces import render_chunk
    from cardgen.build.rulesheets import render_sheet_file
    from cardgen.cache import FaceCache

    games = [cardgen.load_game(g) for g in ("qcd", "particles-in-circle")]
    options = BuildOptions(out=tmp_path).validated()

    def tasks() -> list:
        return _Run(games, options, plan(games, options, 2, FaceCache(options.cache_root), frozenset())).tasks()

    first = tasks()
    kinds = [t.fn for t in first]
    assert kinds.count(render_sheet_file) == 2 * len(games) and kinds.count(render_chunk) >= len(games)
    assert kinds.index(render_chunk) > max(i for i, fn in enumerate(kinds) if fn is render_sheet_file)
    assert [(t.group, t.args[1]) for t in first if t.fn is render_sheet_file] == \
        [(g.id, kind) for g in games for kind in sheets.SHEETS]
    results = build(games, options, jobs=2)
    for result in results:   # rendered on the workers, staged, committed, listed
        rows = {f.component: f for f in result.files}
        for kind in sheets.SHEETS:
            assert (tmp_path / rows[kind].path).read_bytes()[:5] == b"%PDF-" and rows[kind].pages >= 1
    assert not tasks()   # nothing changed: every card and sheet kept


def test_a_column_header_writes_its_unit_as_physics_does_or_takes_the_fields_label(game_copy) -> None:
    """'energy mev' read as milli-electronvolts: a unit a field's name ends with is written
    in brackets as physics writes it; a field's `label` is printed as it is written."""
    assert sheets.column_header("energy_mev") == "energy (MeV)"
    assert sheets.column_header("mass_gev") == "mass (GeV)" and sheets.column_header("mev") == "mev"
    game = cardgen.load_game("qcd")
    result = sheets.render_sheet(game, "rules", "en", 210, 297, None, None, "t", None)
    with open_text(result.pdf) as pdf:
        text = " ".join(p.extract_text() for p in pdf.pages)
    assert "energy (MeV)" in text and "rulebook (MeV)" in text and "mev" not in text
    g = game_copy("qcd")
    g.edit("tables/flavours.yaml", "rulebook_mev: {type: int, min: 0,",
           "rulebook_mev: {type: int, min: 0, label: \"The rulebook's value (MeV)\",")
    result = sheets.render_sheet(g.load(), "rules", "en", 210, 297, None, None, "t", None)
    with open_text(result.pdf) as pdf:
        text = " ".join(p.extract_text() for p in pdf.pages)
    assert "The rulebook's value (MeV)" in text and "rulebook (MeV)" not in text


def test_vertex_lines_print_as_the_cards_do_and_line_styles_in_words() -> None:
    """The answer key printed 'e–e–gamma' and the rule sheet 'fermion' in every language."""
    game = cardgen.load_game("tutti-quantum")
    for lang, words in (("en", ["straight line with an arrow", "curly line", "wavy line", "dashed line"]),
                        ("de", ["gerade Linie mit Pfeil", "gekringelte Linie", "Wellenlinie", "gestrichelte Linie"])):
        tr = i18n.translator(game, lang)
        rules = sheets.render_sheet(game, "rules", lang, 210, 297, tr, None, "t", None)
        answers = sheets.render_sheet(game, "answers", lang, 210, 297, tr, None, "t", None)
        with open_text(rules.pdf) as pdf:
            text = " ".join(p.extract_text() for p in pdf.pages)
        assert all(w in text for w in words) and "fermion" not in text.replace("Fermion", ""), text
        with open_text(answers.pdf) as pdf:
            text = " ".join(p.extract_text() for p in pdf.pages)
        assert "gamma" not in text and "γ" in text


def test_a_hadron_the_key_cannot_name_is_explained_under_its_table(built: Path) -> None:
    """'u c c +2 –' stood unexplained: every table with a '–' says what it means."""
    text = _text(built / "qcd" / "en" / "answers.pdf")
    unnamed = [c for c in A.neutral_combinations(cardgen.load_game("qcd")) if c.hadron is None]
    assert unnamed
    tables = {c.kind for c in unnamed}
    assert text.count("–: PDG's tables list no hadron of these quarks") == len(tables)


@pytest.mark.parametrize("game_id", ["qcd", "particles-in-circle"])
def test_a_same_flavour_pair_is_named_as_the_meson_it_is_a_term_of(built: Path, game_id: str) -> None:
    """u ū and d d̄ printed '–' ("no hadron") while the rules call them pions: they are terms of
    π⁰'s mixed content, s s̄ of η's, and the key says so with a mark explained under the table."""
    combos = {tuple(p.id for p in c.particles): c for c in A.neutral_combinations(cardgen.load_game(game_id))}
    assert (combos[("u", "ubar")].hadron, combos[("u", "ubar")].mixed) == ("π⁰", True)
    assert (combos[("d", "dbar")].hadron, combos[("d", "dbar")].mixed) == ("π⁰", True)
    assert (combos[("s", "sbar")].hadron, combos[("s", "sbar")].mixed) == ("η", True)
    assert (combos[("u", "dbar")].hadron, combos[("u", "dbar")].mixed) == ("π⁺", False)
    text = _text(built / game_id / "en" / "answers.pdf")
    assert "π⁰*" in text and "*: these quarks are one term of the meson's mixed content" in text


def test_a_meson_a_content_dominates_is_not_named_for_its_other_terms() -> None:
    """φ(1020) is s s̄ and ω(782) (u ū + d d̄)/√2 (near ideal mixing): neither names the other's pairs."""
    from cardgen.answers import _mixtures_by_term

    named = _mixtures_by_term()
    assert named[("U", "u")] == named[("D", "d")] == "π⁰" and named[("S", "s")] == "η"
    assert "φ" not in named[("U", "u")] and "ω" not in named[("S", "s")]


@pytest.mark.parametrize("game_id", GAMES)
def test_every_assumption_the_data_declares_is_printed_on_the_rule_sheet(game_id: str) -> None:
    """A teacher plays by the same reading of the rulebook as the checker: the assumptions no
    row's footnote carries (the card size, where a spent W goes) were in the check report only."""
    game = cardgen.load_game(game_id)
    for lang in ("en", "de"):
        tr = i18n.translator(game, lang)
        result = sheets.render_sheet(game, "rules", lang, 210, 297, tr, None, "t", None)
        with open_text(result.pdf) as pdf:
            flat = " ".join(" ".join(p.extract_text() for p in pdf.pages).split())
        for a in game.assumptions:
            text = tr(a.text, "assumption") if tr else a.text
            assert " ".join(text.split()) in flat, (lang, a.id)


def test_below_level_5_the_answer_key_has_no_empty_transform_column() -> None:
    game = cardgen.load_game("particle-builder")
    for level, shown in ((1, False), (4, False), (5, True), (None, True)):
        result = sheets.render_sheet(game, "answers", "en", 210, 297, None, level, "t", None)
        with open_text(result.pdf) as pdf:
            text = " ".join(p.extract_text() for p in pdf.pages)
        assert ("or transform (Level 5)" in text) == shown, level
        assert "deck cards (copies)" in text


def test_the_arabic_key_prints_the_pion_formula_left_to_right(tmp_path) -> None:
    """In the Arabic answer key '(uū − dd̄)/√2' printed as '2√/(uū − dd̄)': a Latin formula in a
    right-to-left sentence is isolated as left-to-right (U+2066 … U+2069) in the catalog."""
    from cardgen import i18n

    game = cardgen.load_game("qcd")
    tr = i18n.translator(game, "ar")
    note = tr("*: these quarks are one term of the meson's mixed content (π⁰ is (uū − dd̄)/√2)", None)
    start, end = note.index("\u2066"), note.index("\u2069")
    assert start < note.index("(uū − dd̄)/√2") < end


def test_the_qcd_sheet_names_each_anti_colour_as_its_card_prints_it() -> None:
    """QCD's anti-quark cards print cyan, magenta and yellow (the ink of the anti-colour's
    additive mix); the rule sheet named only 'anti-red' etc. It names the ink with the
    anti-colour, derived from the colour data, in every shipped language."""
    game = cardgen.load_game("qcd")
    en = sheets.render_sheet(game, "rules", "en", 210, 297, None, None, "t", None)
    with open_text(en.pdf) as pdf:
        text = " ".join(p.extract_text() for p in pdf.pages)
    for ink, anti in (("cyan", "anti-red"), ("magenta", "anti-green"), ("yellow", "anti-blue")):
        assert text.count(anti) >= 3 and text.count(anti) == text.count(f"{ink} ({anti})"), (ink, anti)
    for lang in (lang for lang in i18n.available_languages(game) if lang != "en"):
        tr = i18n.translator(game, lang)
        items = [it["s"] for page in sheets.sheet_pages(game, "rules", lang, 210, 297, tr, None)
                 for it in page if it["kind"] == "text"]
        for ink in ("cyan", "magenta", "yellow"):
            assert tr(ink, None) != ink or lang in ("de", "fr", "es"), (lang, ink)
            assert any(tr(ink, None) in s for s in items), (lang, ink)
