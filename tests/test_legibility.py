"""Nobody misreads a card: the rotated-index, text-size and text-contrast rules, measured on the
rendered faces of broken copies of the shipped games, and the geometry they rest on."""

from __future__ import annotations

import math
import shutil

import pytest

import cardgen
from cardgen import facegeometry as fg
from cardgen.errors import InputError
from cardgen.readability import contrast_ratio, hex_rgb, ink_on, reads_otherwise, turned
from tests.conftest import ROOT

FRONT = "templates/card-front.svg.j2"
INDEX = "    {{ symbol(p.symbol, 9.5, 14, size=7, fill=ink) }}\n"
MARK = "    {{ m.index_mark(p.symbol.base, 9.5, 14, 7, fill=ink) }}\n"
NAME = '{{ text(_(p.name), 8, 57, size=4, width=w - 16, height=5.5, align="middle", weight="bold", min_size=2.6, field="name") }}'


def line_of(path, text: str) -> int:
    content = path.read_text(encoding="utf-8")
    assert text in content, f"{text!r} not in {path}"
    return content[:content.index(text)].count("\n") + 1


def findings(g, rule: str):
    """The rule's findings as ``cardgen check`` gives them (the rules measure rendered faces)."""
    return [f for f in cardgen.check(g.load()).findings if f.rule == rule]


# --- rotated-index ------------------------------------------------------------------------------

def test_a_turned_index_without_its_mark_reads_as_another_particle(game_copy):
    g = game_copy("qcd")
    line = line_of(g.path / FRONT, INDEX)
    g.edit(FRONT, MARK, "")
    found = findings(g, "rotated-index")
    assert {(f.location.file.endswith("qcd/templates/card-front.svg.j2"), f.location.line, f.location.column)
            for f in found} == {(True, line, 8)}
    texts = sorted(f.message.split("the text ")[1].split(" (field")[0] for f in found)
    assert texts == ["'d'", "'d̅'", "'u'", "'u̅'"]   # s and c read as themselves and as nothing
    u = next(f for f in found if "the text 'u' " in f.message)
    assert u.message == ("card 'u-red' of component 'cards' (front): the text 'u' (field 'symbol') is "
                         "printed upside down and reads as 'n' the other way up, with no mark to tell which way is up")
    assert "draw a short rule or dot under 'u'" in u.fix


@pytest.mark.parametrize("glyph, reads", [("6", "9"), ("9", "6"), ("W", "M"), ("M", "W"), ("n", "u"), ("q", "b"),
                                          ("dun", "unp")])
def test_any_glyph_that_turned_reads_otherwise_is_found(game_copy, glyph, reads):
    g = game_copy("qcd")
    bad = f'    {{{{ text("{glyph}", 20, 8, size=5, field="bad index") }}}}\n'
    g.edit(FRONT, INDEX, INDEX + bad)
    found = [f for f in findings(g, "rotated-index") if "bad index" in f.message]
    assert len(found) == 1 and f"reads as {reads!r} the other way up" in found[0].message
    assert found[0].location.line == line_of(g.path / FRONT, bad.strip())


@pytest.mark.parametrize("mark", ['<rect x="19" y="9.4" width="4" height="0.5" fill="#1a1a1a"/>',
                                  '<line x1="19" y1="9.6" x2="23" y2="9.6" stroke="#1a1a1a" stroke-width="0.4"/>',
                                  '<circle cx="21" cy="9.8" r="0.4"/>'])
def test_a_mark_under_a_turned_index_tells_which_way_is_up(game_copy, mark):
    g = game_copy("qcd")
    bad = '    {{ text("6", 20, 4, size=5, valign="top", field="bad index") }}\n'
    g.edit(FRONT, INDEX, INDEX + bad)
    assert any("bad index" in f.message for f in findings(g, "rotated-index"))
    g.edit(FRONT, bad, bad + "    " + mark + "\n")
    assert not findings(g, "rotated-index")


def test_a_text_turned_by_a_mirror_scale_counts_as_turned(game_copy):
    g = game_copy("qcd")
    g.edit(FRONT, INDEX, INDEX.replace("{{", '<g transform="scale(-1 -1) translate(-40 -30)">{{').replace("}}\n", "}}</g>\n"))
    g.edit(FRONT, MARK, "")
    found = findings(g, "rotated-index")
    assert any("the text 'u' " in f.message for f in found)


def test_the_shipped_games_prove_their_turned_indices_marked():
    report = cardgen.check(cardgen.load_games(["qcd"]))
    proof = next(p for p in report.proofs if p.rule == "rotated-index")
    assert proof.claim == ("26 different faces: 48 texts printed upside down, none reads as another symbol the other "
                           "way up (12 with a mark under them)")
    assert proof.count == 48


# --- text-size ----------------------------------------------------------------------------------

@pytest.mark.parametrize("pt", [4, 5, 5.9])
def test_text_below_six_points_is_found_at_its_line(game_copy, pt):
    g = game_copy("qcd")
    mm = pt * 25.4 / 72
    g.edit(FRONT, NAME, NAME.replace("size=4,", f"size={mm:.4f},").replace("min_size=2.6", f"min_size={mm:.4f}"))
    found = findings(g, "text-size")
    line = line_of(g.path / FRONT, "{{ text(_(p.name), 8, 57")
    assert {(f.location.line, f.location.column) for f in found} == {(line, 6)}
    assert any(f.message == f"card 'u-red' of component 'cards' (front): the text 'up quark' (field 'name') "
               f"is printed at {pt:.2f} pt, below the 6 pt minimum (at 100 % print scale)" for f in found)
    assert found[0].fix == "give it size and min_size of at least 2.12 mm (6 pt), with room to fit"


def test_text_size_counts_every_transform_above_it(game_copy):
    g = game_copy("qcd")
    g.edit(FRONT, NAME, '<g transform="translate(10 10) scale(0.45)">' + NAME + "</g>")
    found = findings(g, "text-size")
    assert found and all("is printed at 5.10 pt" in f.message for f in found)   # 4 mm × 0.45 = 1.8 mm


def test_a_game_may_print_smaller_with_a_declared_reason(game_copy):
    g = game_copy("qcd")
    g.edit(FRONT, NAME, NAME.replace("size=4,", "size=1.8,").replace("min_size=2.6", "min_size=1.8"))
    g.edit("game.yaml", "  - rule: text-size\n", "  - rule: text-size\n    min_pt: 5\n"
           "    reason: The names repeat the symbol and are read close up.\n")
    report = cardgen.check(g.load())
    assert not [f for f in report.findings if f.rule == "text-size"]
    choice = next(c for c in report.choices if c.rule == "text-size")
    assert (choice.subject, choice.reason) == ("smallest text size (pt) 5 instead of 6",
                                                "The names repeat the symbol and are read close up.")
    assert choice.location.file.endswith("game.yaml") and choice.location.line > 0


def test_printing_smaller_without_a_reason_is_an_input_error(game_copy, cli):
    g = game_copy("qcd")
    g.edit("game.yaml", "  - rule: text-size\n", "  - rule: text-size\n    min_pt: 5\n")
    line = line_of(g.path / "game.yaml", "    min_pt: 5")
    with pytest.raises(InputError) as info:
        cardgen.check(g.load(), render=False)
    assert (info.value.location.line, info.value.location.column) == (line, 13)
    assert "lowers min_pt to 5 (the default is 6) without a reason" in info.value.message
    res = cli("check", str(g.path), "--no-render")
    assert res.returncode == 2 and f"game.yaml:{line}:13" in res.stderr and "Traceback" not in res.stderr


# --- text-contrast ------------------------------------------------------------------------------

@pytest.mark.parametrize("ink, panel", [("#777777", "#999999"), ("#ffffff", "#F0E442"), ("#0072B2", "#1F3552"),
                                        ("#808080", "#808080")])
def test_low_contrast_text_is_found_with_both_colours(game_copy, ink, panel):
    g = game_copy("qcd")
    g.edit(FRONT, NAME, f'<rect x="6" y="56" width="51" height="7.5" fill="{panel}"/>'
           + NAME.replace('field="name"', f'fill="{ink}", field="name"'))
    found = [f for f in findings(g, "text-contrast") if "(field 'name')" in f.message]
    ratio = contrast_ratio(hex_rgb(ink), hex_rgb(panel))
    assert ratio < 4.5
    edited = next(t for t in (g.path / FRONT).read_text(encoding="utf-8").splitlines() if "text(_(p.name)" in t)
    line = line_of(g.path / FRONT, edited)
    assert found and {(f.location.line, f.location.column) for f in found} == {(line, edited.index("text(") + 1)}
    assert any(f"in {ink} on {panel.lower()} has a contrast of {ratio:.2f} : 1, below 4.5 : 1" in f.message
               for f in found)


@pytest.mark.parametrize("sheet", ['<style>rect.panel { fill: #F0E442 }</style>',
                                   '<style>.panel { fill: #F0E442 !important }</style>'])
def test_a_style_sheets_colours_are_the_ones_compared(game_copy, sheet):
    """cairosvg applies a face's style sheet: a panel white by its attribute and yellow by a
    rule prints white text on yellow, and the contrast rule must see the yellow."""
    g = game_copy("qcd")
    g.edit(FRONT, NAME, sheet + '<rect class="panel" x="6" y="56" width="51" height="7.5" fill="#1a1a1a" '
           'style="fill:#1a1a1a"/>' + NAME.replace('field="name"', 'fill="#ffffff", field="name"')
           if "important" in sheet else
           sheet + '<rect class="panel" x="6" y="56" width="51" height="7.5" fill="#1a1a1a"/>'
           + NAME.replace('field="name"', 'fill="#ffffff", field="name"'))
    found = [f for f in findings(g, "text-contrast") if "(field 'name')" in f.message]
    assert found and all("on #f0e442 has a contrast of" in f.message for f in found), [f.message for f in found]


def test_what_lies_behind_is_composited_back_to_front(game_copy):
    """A three-quarter opaque black veil over the white panel leaves black text unreadable."""
    g = game_copy("qcd")
    g.edit(FRONT, NAME, '<g opacity="0.75"><rect x="6" y="56" width="51" height="5.5" fill="#000000"/></g>' + NAME)
    found = findings(g, "text-contrast")
    assert found and all("in #000 on #404040 has a contrast of 2.02 : 1" in f.message for f in found)


def test_a_shape_painted_after_the_text_elsewhere_is_not_behind_it(game_copy):
    g = game_copy("qcd")
    g.edit(FRONT, NAME, NAME + '<rect x="0" y="85" width="3" height="3" fill="#1a1a1a"/>')   # a corner
    assert not findings(g, "text-contrast")


def test_a_shape_painted_over_the_text_hides_it(game_copy):
    """What the reader sees is what is painted last: a panel the template draws after the
    name, over it, leaves nothing of it to read (it passed as long as only what lies behind a
    text was compared), reported at the name's call with what to do."""
    g = game_copy("qcd")
    g.edit(FRONT, NAME, NAME + '<rect x="6" y="56" width="51" height="5.5" fill="#1a1a1a"/>')
    found = findings(g, "text-contrast")
    assert found and all("(field 'name') is painted over by a shape the template draws after it (#1a1a1a" in f.message
                         and "a contrast of 1.00 : 1" in f.message and "draw the shape before the text" in f.fix
                         for f in found), [f.message for f in found]
    assert {f.location.line for f in found} == {line_of(g.path / FRONT, NAME)}


@pytest.mark.parametrize("fill", ["none", "transparent"])
def test_a_text_drawn_without_ink_is_found(game_copy, fill):
    """A text whose fill prints nothing was left out of the measure, and the proof said every
    text contrasts with its background: the print shows nothing where the name goes."""
    g = game_copy("qcd")
    g.edit(FRONT, NAME, NAME.replace('field="name"', f'fill="{fill}", field="name"'))
    found = findings(g, "text-contrast")
    assert found and all(f"(field 'name') prints no ink: its fill is '{fill}'" in f.message
                         and "give it a fill colour" in f.fix for f in found), [f.message for f in found]
    assert {f.location.line for f in found} == {line_of(g.path / FRONT, NAME.split(",")[0])}


def test_a_veil_painted_over_the_text_dims_ink_and_background_alike(game_copy):
    """Three-quarter opaque black over black text on white: the text's ink stays black, the
    white around it turns #404040 — the same 2.02 : 1 as with the veil behind white text."""
    g = game_copy("qcd")
    g.edit(FRONT, NAME, NAME + '<g opacity="0.75"><rect x="6" y="56" width="51" height="5.5" fill="#000000"/></g>')
    found = findings(g, "text-contrast")
    assert found and all("painted over by a shape the template draws after it (#404040" in f.message
                         and "a contrast of 2.02 : 1" in f.message for f in found), [f.message for f in found]


# --- the geometry and the reading ------------------------------------------------------------------

def test_turned_readings_come_from_glyph_shapes():
    assert turned("u") == "n" and turned("69") == "69" and turned("MOW") == "MOW"[::-1].translate(
        str.maketrans("MW", "WM"))
    assert reads_otherwise("u̅") == "n" and reads_otherwise("d") == "p" and reads_otherwise("q") == "b"
    assert reads_otherwise("s") == "" and reads_otherwise("e⁻") == "" and reads_otherwise("Z⁰") == ""
    assert reads_otherwise("νₑ") == ""


def test_ink_on_picks_the_ink_that_reads():
    assert ink_on("#0072B2") == "#ffffff" and ink_on("#F0E442") == "#111111"
    assert contrast_ratio(hex_rgb("#000000"), hex_rgb("#ffffff")) == pytest.approx(21.0)


def test_transforms_compose_like_svg():
    m = fg.parse_transform("translate(10 5) rotate(180 2 3) scale(2)")
    assert fg.apply(m, (1, 1)) == pytest.approx((10 + 4 - 2, 5 + 6 - 2))
    assert abs(fg.rotation(m)) == pytest.approx(180) and fg.linear_scale(m) == pytest.approx(2)
    assert fg.apply(fg.invert(m), fg.apply(m, (3.5, -1))) == pytest.approx((3.5, -1))


def test_the_viewport_maps_user_units_to_millimetres():
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="1in" height="2in" viewBox="0 0 100 200">'
           '<rect x="0" y="0" width="50" height="50" fill="grey"/></svg>')
    geo = fg.face_geometry(svg)
    assert geo.paints[0].box == pytest.approx((0, 0, 12.7, 12.7))
    assert geo.paints[0].colour == pytest.approx((128 / 255,) * 3)


def test_the_colour_behind_a_point_is_every_paint_under_it_composited_on_white():
    """Back to front, as the page is painted, over white paper; only the paints drawn before
    the text count. Checked against that definition on a grid of points across layered shapes."""
    geo = fg.face_geometry('<svg xmlns="http://www.w3.org/2000/svg" width="100mm" height="100mm" viewBox="0 0 100 100">'
                           '<rect x="0" y="0" width="60" height="60" fill="#204080"/>'
                           '<circle cx="50" cy="50" r="25" fill="#ffcc00" fill-opacity="0.5"/>'
                           '<g opacity="0.25"><rect x="40" y="10" width="50" height="30" fill="#00ff00"/></g>'
                           '<rect x="70" y="70" width="20" height="20" fill="black"/></svg>')

    def by_definition(p, before):
        colour = (1.0, 1.0, 1.0)
        for paint in geo.paints[:before]:
            if paint.contains(p):
                colour = tuple(paint.alpha * t + (1 - paint.alpha) * u for t, u in zip(paint.colour, colour))
        return colour

    points = [(x + 0.5, y + 0.5) for x in range(0, 100, 7) for y in range(0, 100, 7)]
    for before in range(len(geo.paints) + 1):
        for p, got in zip(points, geo.backgrounds(points, before)):
            assert got == pytest.approx(by_definition(p, before)), (p, before)
        for p in points:   # one point alone, as a text's nine samples spread out
            assert geo.backgrounds([p], before)[0] == pytest.approx(by_definition(p, before))
    assert geo.backgrounds([(75, 75)], 4)[0] == (0.0, 0.0, 0.0) and geo.backgrounds([], 4) == []


def test_arcs_and_curves_are_flattened_into_their_outline():
    geo = fg.face_geometry('<svg xmlns="http://www.w3.org/2000/svg" width="100mm" height="100mm" viewBox="0 0 100 100">'
                           '<path d="M50 50L70 50A20 20 0 0 1 50 70Z" fill="#0072B2"/></svg>')
    sector = geo.paints[0]
    inside = (50 + 17 * math.cos(math.radians(45)), 50 + 17 * math.sin(math.radians(45)))
    assert sector.contains(inside)                     # beyond the chord, within the arc
    assert not sector.contains((40, 40)) and not sector.contains((69, 69))


def test_greek_symbols_come_from_an_italic_face_latin_ones_do_not():
    from cardgen.readability import unmistakable_greek

    assert unmistakable_greek("γ", "bold") == "\U0001D738" and unmistakable_greek("ν", "regular") == "\U0001D708"
    assert unmistakable_greek("μτ", "bold") == "\U0001D741\U0001D749"
    assert unmistakable_greek("u", "bold") == "u" and unmistakable_greek("W", "bold") == "W"


def test_a_photon_card_draws_its_gamma_from_the_math_face():
    from cardgen.render import Renderer

    game = cardgen.load_game("tutti-quantum")
    comp = game.components["particles"]
    face = Renderer(game, "en").face(comp, comp.card("photon"), "front").face
    faces = {g.face.path.name for placed in face.texts for g in placed.glyphs if len(placed.glyphs) == 1}
    assert "NotoSansMath-Regular.ttf" in faces
    gamma = [g for placed in face.texts for g in placed.glyphs if g.face.path.name == "NotoSansMath-Regular.ttf"]
    font = gamma[0].face.hb_font
    assert all(g.gid == font.get_nominal_glyph(0x1D738) for g in gamma) and len(gamma) == 2   # both corners


@pytest.mark.parametrize("game_id, comp_id, card, lang, name", [
    ("qcd", "cards", "ubar-anti-red", "en", "cyan"), ("qcd", "cards", "sbar-anti-green", "en", "magenta"),
    ("qcd", "cards", "cbar-anti-blue", "de", "gelb"), ("qcd", "cards", "u-red", "en", "red"),
    ("particle-builder", "colour-tokens", "anti-green", "en", "anti-green"),
    ("particles-in-circle", "cards", "dbar-anti-red", "en", "anti-red = green + blue")])
def test_anticolours_are_named_as_each_rulebook_names_them(game_id, comp_id, card, lang, name):
    """QCD's rulebook calls its anti-colours cyan, magenta and yellow; Particle Builder's and
    Particles in Circle's call them anti-red, anti-green, anti-blue (the latter with its mix)."""
    from cardgen import i18n
    from cardgen.render import Renderer

    game = cardgen.load_game(game_id)
    comp = game.components[comp_id]
    face = Renderer(game, lang, translate=i18n.translator(game, lang)).face(comp, comp.card(card), "front").face
    assert f'aria-label="{name}" data-field="{"name" if comp_id == "colour-tokens" else "colour"}"' in face.body


def test_without_rendering_the_rules_say_they_did_not_measure(game_copy):
    g = game_copy("qcd")
    g.edit(FRONT, MARK, "")
    report = cardgen.check(g.load(), render=False)   # as --no-render, and a build's own rule check
    assert not [f for f in report.findings if f.rule in ("rotated-index", "text-size", "text-contrast")]
    claims = {p.rule: p.claim for p in report.proofs if p.rule in ("rotated-index", "text-size", "text-contrast")}
    assert claims == dict.fromkeys(("rotated-index", "text-size", "text-contrast"),
                                   "not measured: faces not rendered (--no-render)")


def test_a_face_that_fails_to_render_leaves_the_error_to_the_render_pass(game_copy):
    from cardgen.render import TemplateError

    g = game_copy("qcd")
    g.edit(FRONT, NAME, NAME.replace("size=4,", "size=1 / 0,"))
    with pytest.raises(TemplateError) as info:
        cardgen.check(g.load())
    assert "card 'u-red' of component 'cards', front" in info.value.message


def test_the_cli_reports_a_turned_index_at_its_template_line(game_copy, cli):
    g = game_copy("qcd")
    line = line_of(g.path / FRONT, INDEX)
    g.edit(FRONT, MARK, "")
    res = cli("check", str(g.path))
    assert res.returncode == 1, res.stdout + res.stderr
    assert (f"card-front.svg.j2:{line}:8: error[rotated-index]: card 'u-red' of component 'cards' (front): the text "
            "'u' (field 'symbol') is printed upside down and reads as 'n' the other way up") in res.stdout


# --- the build measures the faces it prints -----------------------------------------------------

def test_a_build_stops_at_the_text_a_check_finds_too_small_and_writes_nothing(game_copy, tmp_path, cli):
    g = game_copy("qcd")
    g.edit(FRONT, NAME, NAME.replace("size=4,", "size=1.5,").replace("min_size=2.6", "min_size=1.5"))
    checked = sorted(str(f) for f in findings(g, "text-size"))
    out = tmp_path / "out"
    with pytest.raises(cardgen.RuleFindingsError) as info:
        cardgen.build(g.load(), cardgen.BuildOptions(out=out), jobs=1)
    assert checked and sorted(str(f) for f in info.value.findings) == checked
    assert not list(out.rglob("*.pdf")) and not (out / "qcd").exists()
    res = cli("build", str(g.path), "--out", str(out), "--jobs", "2")
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert checked[0] in res.stderr + res.stdout and not list(out.rglob("*.pdf")) and not (out / "qcd").exists()


SMALL = """{% extends "base.svg.j2" %}
{% block artwork %}{{ text(card.title, 2, 30, size=1.2, field="title") }}{% endblock %}
"""


def test_only_a_game_declaring_a_rule_that_reads_texts_has_its_faces_measured(tmp_path, monkeypatch):
    """Measuring what a face prints costs a fifth of drawing it: a build measures the faces of
    a game that declares a rule reading them, and no other. A face the cache holds unmeasured
    is rendered again when one must be; declaring a rule (in game.yaml, so every face is new)
    measures them all, and the rule finds what it should."""
    from cardgen import legibility
    from cardgen.build import gates
    from tests.test_render import make_game

    measured: list[str] = []
    real = legibility.printed_texts
    monkeypatch.setattr(legibility, "printed_texts", lambda face: measured.append(face.card) or real(face))
    path = make_game(tmp_path, SMALL, "  - {id: one, title: Tiny}\n  - {id: two, title: Text}")
    out = tmp_path / "out"
    cardgen.build(cardgen.load_game(path), cardgen.BuildOptions(out=out), jobs=1)
    assert measured == [] and list(out.rglob("cards.pdf"))

    with monkeypatch.context() as m:   # the same faces, now wanted measured: rendered again
        m.setattr(gates, "measures_faces", lambda game: True)
        cardgen.build(cardgen.load_game(path), cardgen.BuildOptions(out=out), jobs=1, check=False)
    assert sorted(measured) == ["one", "two"]

    measured.clear()
    with open(path / "game.yaml", "a", encoding="utf-8") as fh:
        fh.write("checks:\n  - rule: text-size\n")
    with pytest.raises(cardgen.RuleFindingsError) as info:
        cardgen.build(cardgen.load_game(path), cardgen.BuildOptions(out=out), jobs=1)
    assert sorted(measured) == ["one", "two"]
    assert {f.rule for f in info.value.findings} == {"text-size"}


def test_a_build_measures_the_faces_it_keeps_from_the_last_build(game_copy, tmp_path, monkeypatch):
    """Faces taken from the face cache, and files kept as they were, are measured all the same:
    their measures are kept with them."""
    import importlib

    g = game_copy("qcd")
    g.edit(FRONT, NAME, NAME.replace("size=4,", "size=1.5,").replace("min_size=2.6", "min_size=1.5"))
    out = tmp_path / "out"
    build_stage = importlib.import_module("cardgen.build")
    build_stage.build([g.load()], cardgen.BuildOptions(out=out), jobs=1)   # the stage alone: no check gate
    assert list(out.rglob("*.pdf"))
    faces, rendered = importlib.import_module("cardgen.build.faces"), []
    real = faces._render
    monkeypatch.setattr(faces, "_render", lambda *a: rendered.append(a) or real(*a))
    with pytest.raises(cardgen.RuleFindingsError) as info:
        cardgen.build(g.load(), cardgen.BuildOptions(out=out), jobs=1)
    assert rendered == []   # nothing changed: every face and file kept, and measured from the cache
    assert sorted(str(f) for f in info.value.findings) == sorted(str(f) for f in findings(g, "text-size"))


@pytest.mark.parametrize("game_id, comp_id", [("tutti-quantum", "score-tokens"), ("qcd", "cards"),
                                               ("particle-builder", "particles")])
def test_every_class_set_and_level_mark_is_legible(game_id, comp_id):
    """Set numbers and level badges print at 6 pt or more, inside their glyph, on the narrowest
    safe band (20 mm tokens) as on cards, for all 16 set glyphs."""
    from cardgen.legibility import printed_texts
    from cardgen.render import Renderer
    from cardgen.setmark import place

    game = cardgen.load_game(game_id)
    comp = game.components[comp_id]
    renderer = Renderer(game, "en")
    for set_number in range(1, 17):
        mark = place(comp, set_number, 5)
        face = renderer.face(comp, comp.cards[0], "front", mark).face
        marks = [t for t in printed_texts(face) if t.field in ("set mark", "level mark")]
        assert {t.field for t in marks} == {"set mark", "level mark"}
        for t in marks:
            assert t.size_pt >= 6 and t.contrast >= 4.5, (set_number, t)


# --- translations are measured as their builds measure them -------------------------------------

def test_a_check_of_a_translation_finds_what_its_build_would_refuse(game_copy, tmp_path, cli):
    """A German text that shrinks below 6 pt where the English one fits: the check in German
    finds it at its template line, naming the language, and the German build stops on it."""
    g = game_copy("tutti-quantum")
    catalogs = g.path / "locale" / "de" / "LC_MESSAGES"
    catalogs.mkdir(parents=True)
    shutil.copy(ROOT / "data" / "locale" / "de" / "LC_MESSAGES" / "tutti-quantum.po", catalogs)
    g.edit("templates/reference-back.svg.j2", 'min_size=2.12, field="loop"', 'min_size=1.6, field="loop"')
    assert cli("check", str(g.path)).returncode == 0
    checked = cli("check", str(g.path), "--lang", "de")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    found = [ln for ln in checked.stdout.splitlines() if "error[text-size]" in ln]
    assert found and all("reference-back.svg.j2:" in ln and "(back, de)" in ln for ln in found), checked.stdout
    assert "'Jede gültige Schleife aus sechs Karten' (field 'loop') is printed at" in found[0]
    out = tmp_path / "out"
    built = cli("build", str(g.path), "--lang", "de", "--out", str(out))
    assert built.returncode == 1 and found[0] in built.stdout + built.stderr
    assert not list(out.rglob("*.pdf"))


def test_every_shipped_translation_is_legible():
    """What `cardgen build --lang all` measures, the check measures: all of it passes."""
    report = cardgen.check(cardgen.load_games(), langs=["all"])
    assert report.ok, [str(f) for f in report.findings]
    assert {r.lang for r in report.rendered} == {"en", "ar", "de", "es", "fr", "zh"}
