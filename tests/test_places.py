"""Places on boards and areas on cards: read from data, validated by the loader, drawn by the
templates where the data says, and proven by the checker to hold real cards.

Broken copies of the shipped Particle Builder data are checked for the exact finding at the
place's file:line:column; the drawn faces are parsed back from their PDF and measured."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pdfplumber
import pytest

import cardgen
from cardgen.draw import render_pdf
from cardgen.errors import InputError
from cardgen.loader import load_game
from cardgen.render import Renderer

PT_PER_MM = 72 / 25.4
CARD = (63, 88)          # a particle card's trim size
PB = "particle-builder"


def at(g, rel: str, text: str, column_of: str = "{") -> tuple[str, int, int]:
    """(file suffix, line, column) of the first line of a copied game file containing ``text``,
    the column being that of ``column_of`` on that line (1-based, as findings report)."""
    for number, line in enumerate((g.path / rel).read_text(encoding="utf-8").splitlines(), 1):
        if text in line:
            return rel, number, line.index(column_of) + 1
    raise AssertionError(f"{text!r} not in {rel}")


def where(finding) -> tuple[str, int, int]:
    loc = finding.location
    return "/".join(loc.file.replace("\\", "/").split("/")[-2:]), loc.line, loc.column


def messages(g, rule: str) -> list[tuple[tuple[str, int, int], str]]:
    return [(where(f), f.message) for f in g.findings(rule)]


def load_error(g) -> InputError:
    with pytest.raises(InputError) as info:
        g.load()
    return info.value


# --- the shipped games ---------------------------------------------------------------------

@pytest.mark.parametrize("game", ["particle-builder", "tutti-quantum", "qcd", "particles-in-circle"])
def test_shipped_games_have_no_place_findings(game):
    findings = cardgen.check(cardgen.load_game(game)).findings
    assert [f for f in findings if f.rule.startswith("places-")] == []


def test_proofs_count_what_the_data_declares():
    game = load_game(PB)
    report = cardgen.check(game)
    proofs = {(p.rule, p.claim.split(":")[0]): p for p in report.proofs if p.rule.startswith("places-")}
    mat, targets, deck = game.components["mat"], game.components["targets"], game.components["particles"]

    fit = proofs[("places-fit", "mat")]
    assert fit.count == len(mat.places.fixed) == 19
    assert fit.claim == ("mat: 19 places hold 63 × 88 mm cards with ≥ 2 mm to spare (smallest margin 3.0 mm); "
                         "no overlaps; all inside the safe area")
    area_count = sum(len(c.fields["requires"]) for c in targets.cards)
    fit = proofs[("places-fit", "targets")]
    assert fit.count == area_count == 26
    assert fit.claim == (f"targets: {area_count} places on {len(targets.cards)} cards hold 63 × 88 mm cards with "
                         "≥ 2 mm to spare (smallest margin 4.0 mm); no overlaps; all inside the safe area")

    particles = [c.fields["particle"] for c in deck.cards for _ in range(c.count)]
    own = {pid for place in mat.places.fixed for pid in place.takes.particles}
    anti = sum(1 for c in deck.cards if c.fields["particle"].id not in own and c.fields["particle"].antiparticle in own)
    copies = len(particles) - len(set(p.id for p in particles))
    assert (len(own), anti, copies) == (18, 12, 6)
    cover = proofs[("places-cover-deck", "mat")]
    assert cover.count == deck.total == 36
    # the mat's places are states (exclusion: pauli): quarks and leptons are never piled, they
    # take a shared place one card at a time; the extra photon and gluon stack
    assert cover.claim == (f"mat: all {deck.total} cards of 'particles' have a place ({len(own)} on a place of their "
                           f"own; {anti} antiparticles of half-integer spin share their particle's place, one card at a "
                           "time; 4 copies of half-integer spin share their first copy's place, one card at a time; "
                           "2 copies stack on their first copy's place)")
    assert copies == 4 + 2
    choices = [c for c in report.choices if c.rule == "places-cover-deck"]
    assert [c.subject for c in choices] == [
        "'mat': 12 antiparticles of half-integer spin share their particle's place, one card at a time",
        "'mat': 4 copies of half-integer spin share their first copy's place, one card at a time",
        "'mat': 2 copies stack on their first copy's place"]
    lines = (game.data_dir / "components/mat.yaml").read_text(encoding="utf-8").splitlines()
    assert [c.location.line for c in choices] == [lines.index("    - stack: antiparticle") + 1,
                                                  lines.index("    - stack: copies") + 1,
                                                  lines.index("    - stack: copies") + 1]
    assert choices[0].reason.startswith("An antiparticle is laid on its particle's place")


# --- places-fit on broken copies -----------------------------------------------------------

def test_a_place_smaller_than_card_plus_spare(game_copy):
    g = game_copy(PB)
    line = "{id: c,      takes: c,      x: 90,  y: 27,  group: quarks}"
    g.edit("components/mat.yaml", line, line.replace("group:", "width: 66.5, height: 91.2, group:"))
    assert messages(g, "places-fit") == [(at(g, "components/mat.yaml", "{id: c, "), (
        "place 'c' of 'mat' is 66.5 × 91.2 mm; a 63 × 88 mm card of 'particles' needs 67 × 92 mm "
        "(2 mm to spare on every side): 0.5 mm too narrow and 0.8 mm too short"))]


def test_a_larger_spare_needs_larger_places(game_copy):
    g = game_copy(PB)
    g.edit("components/mat.yaml", "  spare: 2\n", "  spare: 3.5\n")
    found = messages(g, "places-fit")
    assert len(found) == 18   # the 69 × 94 mm card places; the 76 × 100 mm annihilation place still fits
    assert found[0] == (at(g, "components/mat.yaml", "{id: u, "), (
        "place 'u' of 'mat' is 69 × 94 mm; a 63 × 88 mm card of 'particles' needs 70 × 95 mm "
        "(3.5 mm to spare on every side): 1 mm too narrow and 1 mm too short"))


def test_a_turned_card_needs_a_place_turned_too(game_copy):
    g = game_copy(PB)
    line = "{id: H,      takes: H,      x: 384, y: 275, group: bosons}"
    g.edit("components/mat.yaml", line, line.replace("group:", "rotate: true, group:"))
    assert messages(g, "places-fit") == [(at(g, "components/mat.yaml", "{id: H, "), (
        "place 'H' of 'mat' is 69 × 94 mm; a 88 × 63 mm card of 'particles' (turned) needs 92 × 67 mm "
        "(2 mm to spare on every side): 23 mm too narrow"))]


def test_two_places_overlapping(game_copy):
    g = game_copy(PB)
    g.edit("components/mat.yaml", "{id: d,      takes: d,      x: 240, y: 27,", "{id: d,      takes: d,      x: 200, y: 27,")
    d = at(g, "components/mat.yaml", "{id: d, ")
    assert messages(g, "places-fit") == [
        (d, "place 'd' of 'mat' overlaps place 't' by 31 × 94 mm"),
        (d, "the label of place 'd' of 'mat' overlaps the label of place 't' by 31 × 7 mm"),
    ]


def test_a_label_covered_by_the_place_above(game_copy):
    g = game_copy(PB)   # the electron's place moves up until its label slides under the up quark's place
    g.edit("components/mat.yaml", "{id: e-,     takes: e-,     x: 18,  y: 151,", "{id: e-,     takes: e-,     x: 18,  y: 125,")
    assert messages(g, "places-fit") == [(at(g, "components/mat.yaml", "{id: e-, "),
                                          "the label of place 'e-' of 'mat' overlaps place 'u' by 69 × 3 mm")]


def test_a_place_in_the_safe_margin(game_copy):
    g = game_copy(PB)
    g.edit("components/mat.yaml", "{id: u,      takes: u,      x: 18,  y: 27,", "{id: u,      takes: u,      x: 5.5,  y: 12,")
    u = at(g, "components/mat.yaml", "{id: u, ")
    assert messages(g, "places-fit") == [
        (u, "place 'u' of 'mat' (x 5.5–74.5 mm, y 12–106 mm) leaves the safe area (8 mm inside the trim edge): "
            "2.5 mm past the left edge"),
        (u, "the label of place 'u' of 'mat' (x 5.5–74.5 mm, y 5–12 mm) leaves the safe area (8 mm inside the "
            "trim edge): 2.5 mm past the left edge, 3 mm past the top edge"),
    ]


def test_a_target_area_too_small(game_copy):
    g = game_copy(PB)
    g.edit("components/targets.yaml", "size: {width: 71, height: 96}", "size: {width: 71, height: 91.5}")
    found = messages(g, "places-fit")
    layouts = {2: ["{x: 20, y: 100}", "{x: 99, y: 100}"], 3: ["{x: 20,   y: 46}", "{x: 99,   y: 46}", "{x: 59.5, y: 155}"],
               4: ["{x: 20, y: 46}", "{x: 99, y: 46}", "{x: 20, y: 155}", "{x: 99, y: 155}"]}
    expected = []
    lines = (g.path / "components/targets.yaml").read_text(encoding="utf-8").splitlines()
    for n, entries in layouts.items():
        start = lines.index(f"    {n}:")
        for i, entry in enumerate(entries):
            number = next(k for k in range(start + 1, len(lines)) if entry in lines[k]) + 1
            expected.append((("components/targets.yaml", number, lines[number - 1].index("{") + 1),
                             f"place {i + 1} of the {n}-place layout of 'targets' is 71 × 91.5 mm; a 63 × 88 mm card "
                             "of 'particles' needs 67 × 92 mm (2 mm to spare on every side): 0.5 mm too short"))
    assert found == expected


def test_a_card_with_its_own_places(game_copy):
    g = game_copy(PB)
    g.edit("components/targets.yaml", 'requires: [c, cbar],      points: 18,',
           'requires: [c, cbar],      points: 18, places: [{x: 20, y: 40}, {x: 60, y: 140}],')
    row = at(g, "components/targets.yaml", "id: j-psi", "{x: 60")
    assert messages(g, "places-fit") == [
        (row, "the label of place 2 of card 'j-psi' of 'targets' overlaps place 1 of card 'j-psi' by 31 × 3 mm")]


# --- places-cover-deck on broken copies ------------------------------------------------------

def test_an_antiparticle_without_a_place_or_stacking_rule(game_copy):
    g = game_copy(PB)
    g.edit("components/mat.yaml", "    - stack: antiparticle\n", "    - stack: antiparticle\n      category: [lepton, antilepton]\n")
    places = at(g, "components/mat.yaml", "  holds: particles", "holds")
    names = {"bbar": "b̅ (anti-bottom quark)", "cbar": "c̅ (anti-charm quark)", "dbar": "d̅ (anti-down quark)",
             "sbar": "s̅ (anti-strange quark)", "tbar": "t̅ (anti-top quark)", "ubar": "u̅ (anti-up quark)"}
    assert messages(g, "places-cover-deck") == [
        (places, f"no place on 'mat' takes {name}: 1 card(s) of 'particles' have no place, and no stacking rule "
                 "covers them") for name in names.values()]
    report = cardgen.check(g.load())
    assert not any(p.rule == "places-cover-deck" for p in report.proofs)


def test_a_particle_without_a_place(game_copy):
    g = game_copy(PB)
    g.edit("components/mat.yaml", "    - {id: Z0,     takes: Z0,     x: 162, y: 275, group: bosons}\n", "")
    assert messages(g, "places-cover-deck") == [(at(g, "components/mat.yaml", "  holds: particles", "holds"),
        "no place on 'mat' takes Z⁰ (Z boson): 1 card(s) of 'particles' have no place, and no stacking rule covers them")]


def test_copies_need_a_place_or_a_stacking_rule(game_copy):
    g = game_copy(PB)
    g.edit("components/mat.yaml", "    - stack: copies\n", "    - stack: copies\n      category: boson\n")
    found = dict(messages(g, "places-cover-deck")[i][::-1] for i in range(2))
    assert set(found) == {
        "no place on 'mat' takes u (up quark): 2 card(s) of 'particles' have no place, and no stacking rule covers them",
        "no place on 'mat' takes d (down quark): 2 card(s) of 'particles' have no place, and no stacking rule covers them"}


def test_category_places_share_out_the_deck(game_copy):
    """Places that take a category are matched to cards as a whole: six lepton places for six
    leptons; the antileptons then need the antiparticle rule, which applies to the category."""
    g = game_copy(PB)
    for pid in ("e-", "mu-", "tau-", "nu_e", "nu_mu", "nu_tau"):
        g.edit("components/mat.yaml", f"takes: {pid},", "takes: {category: lepton},")
    report = cardgen.check(g.load())
    assert [f for f in report.findings if f.rule.startswith("places-")] == []
    (cover,) = [p for p in report.proofs if p.rule == "places-cover-deck"]
    assert "18 on a place of their own; 12 antiparticles" in cover.claim


# --- the loader --------------------------------------------------------------------------------

def test_a_place_outside_the_board_is_an_input_error(game_copy):
    g = game_copy(PB)
    g.edit("components/mat.yaml", "{id: b,      takes: b,      x: 384, y: 27,", "{id: b,      takes: b,      x: 500, y: 27,")
    err = load_error(g)
    assert where(err) == at(g, "components/mat.yaml", "{id: b, ")
    assert err.message == ("place 'b' (x 500–569 mm, y 27–121 mm) lies outside component 'mat' (560 × 380 mm): "
                           "9 mm past the right edge")


def test_a_label_outside_the_board_is_an_input_error(game_copy):
    g = game_copy(PB)
    g.edit("components/mat.yaml", "{id: u,      takes: u,      x: 18,  y: 27,", "{id: u,      takes: u,      x: 18,  y: 4,")
    err = load_error(g)
    assert where(err) == at(g, "components/mat.yaml", "{id: u, ")
    assert err.message.startswith("the label of place 'u' (x 18–87 mm, y -3–4 mm) lies outside component 'mat'")
    assert err.message.endswith("3 mm past the top edge")


S_PLACE = "{id: s,      takes: s,      x: 312,"


@pytest.mark.parametrize("old, new, message, line_text, column_of", [
    ("  spare: 2\n", "  spare: 2\n  colour: red\n", "unknown key 'colour' in the places of component 'mat'",
     "colour: red", "colour"),
    ("  size: {width: 69, height: 94}", "  size: {width: -69, height: 94}", "the width of a place: -69 must be greater than 0",
     "size: {width: -69", "-69"),
    (S_PLACE, S_PLACE.replace("x:", "height: -5, x:"), "the height of a place: -5 must be greater than 0",
     "height: -5", "-5"),
    (S_PLACE, S_PLACE.replace("x:", "widht: 60, x:"),
     "unknown key 'widht' in place 5 of component 'mat' — did you mean 'width'?", "widht", "widht"),
    (S_PLACE, S_PLACE.replace("takes: s", "takes: q"), "unknown particle 'q'", "takes: q", "q,"),
    (S_PLACE, S_PLACE.replace("takes: s", "takes: {category: quarks}"),
     "'quarks' is not one of quark, antiquark, lepton, antilepton, boson — did you mean 'quark'?",
     "category: quarks", "quarks"),
    ("takes: {component: particles}", "takes: {component: particle}",
     "place 'annihilation' takes cards of unknown component 'particle' — did you mean 'particles'?",
     "{id: annihilation", "{"),
    (S_PLACE, S_PLACE.replace("{id: s,", "{id: c,"),
     "duplicate place id 'c' in component 'mat' (first at line 36)", "{id: c,      takes: s", "{"),
    ("      reason: >-\n        Copies", "      why: >-\n        Copies",
     "a stacking rule is missing the required key 'reason'", "- stack: copies", "stack"),
    ("      reason: >-\n        Copies", "      reason: ' '\n      old: >-\n        Copies",
     "unknown key 'old' in a stacking rule", "old:", "old"),
    ("label: {height: 12}", "label: {side: left, height: 12}", "'left' is not one of top, bottom, none",
     "side: left", "left"),
])
def test_bad_places_are_input_errors(game_copy, old, new, message, line_text, column_of):
    g = game_copy(PB)
    g.edit("components/mat.yaml", old, new)
    err = load_error(g)
    assert message in err.message
    assert where(err) == at(g, "components/mat.yaml", line_text, column_of)


def test_a_stacking_rule_needs_its_reason(game_copy):
    g = game_copy(PB)
    text = (g.path / "components/mat.yaml").read_text(encoding="utf-8")
    start = text.index("    - stack: copies")
    end = text.index("  list:")
    g.write("components/mat.yaml", text[:start] + "    - {stack: copies, reason: '  '}\n" + text[end:])
    err = load_error(g)
    assert err.message == "a stacking rule needs its reason"
    assert where(err) == at(g, "components/mat.yaml", "{stack: copies", "'  '")


def test_a_target_without_a_layout_for_its_particle_count(game_copy):
    g = game_copy(PB)
    g.edit("components/targets.yaml", "requires: [u, u, d, e-],", "requires: [u, u, d, e-, nubar_e],")
    err = load_error(g)
    assert err.message == ("card 'hydrogen' lists 5 particles in 'requires' but the places of 'targets' have layouts "
                           "for 2, 3, 4")
    assert where(err) == at(g, "components/targets.yaml", "id: hydrogen", "[u, u, d")


def test_a_layout_with_the_wrong_number_of_places(game_copy):
    g = game_copy(PB)
    g.edit("components/targets.yaml", "      - {x: 99, y: 100}\n", "")
    err = load_error(g)
    assert err.message == "the 2-place layout lists 1 place(s)"
    assert where(err) == at(g, "components/targets.yaml", "      - {x: 20, y: 100}", "-")


def test_the_cli_reports_a_bad_place_with_its_position(game_copy, cli):
    g = game_copy(PB)
    g.edit("components/mat.yaml", "{id: b,      takes: b,      x: 384, y: 27,", "{id: b,      takes: b,      x: 500, y: 27,")
    result = cli("check", str(g.path))
    _, line, column = at(g, "components/mat.yaml", "{id: b, ")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"mat.yaml:{line}:{column}: error[input]: place 'b' (x 500–569 mm" in result.stderr + result.stdout


# --- what is drawn -----------------------------------------------------------------------------

def white_boxes(pdf: bytes, bleed: float) -> list[tuple[float, float, float, float]]:
    """Every white-filled path of a rendered face, as (x, y, w, h) in trim millimetres."""
    out = []
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        page = doc.pages[0]
        for obj in page.curves + page.rects:
            if obj.get("fill") and tuple(obj.get("non_stroking_color") or ()) == (1.0, 1.0, 1.0):
                out.append((obj["x0"] / PT_PER_MM - bleed, obj["top"] / PT_PER_MM - bleed,
                            (obj["x1"] - obj["x0"]) / PT_PER_MM, (obj["bottom"] - obj["top"]) / PT_PER_MM))
    return out


def drawn(boxes, x: float, y: float, w: float, h: float) -> bool:
    return any(all(abs(a - b) <= 0.1 for a, b in zip(box, (x, y, w, h))) for box in boxes)


@pytest.mark.parametrize("component, card_id", [("mat", "mat"), ("targets", "proton"), ("targets", "hydrogen"),
                                                ("targets", "pi-plus")])
def test_each_drawn_place_is_where_the_data_says_and_holds_a_card(component, card_id):
    game = load_game(PB)
    comp = game.components[component]
    card = comp.card(card_id)
    places = comp.places_of(card)
    assert places
    pdf = render_pdf(Renderer(game).face(comp, card, "front").face)
    boxes = white_boxes(pdf, comp.bleed)
    for place in places:
        b = place.box
        assert drawn(boxes, b.x, b.y, b.width, b.height), (place.name, b, sorted(boxes))
        assert b.width >= CARD[0] + 4 and b.height >= CARD[1] + 4
        label = place.label_box
        if component == "mat" and label is not None and place.takes.component is None:
            assert drawn(boxes, label.x, label.y, label.width, label.height), (place.name, label)
    if component == "targets":
        assert len(places) == len(card.fields["requires"])


def test_svg_places_match_the_data_and_labels_stay_clear_of_cards():
    game = load_game(PB)
    renderer = Renderer(game)
    svg_ns = "{http://www.w3.org/2000/svg}"
    for comp_id, card_id, cls in (("mat", "mat", "slot"), ("targets", "hydrogen", "area")):
        comp = game.components[comp_id]
        card = comp.card(card_id)
        root = ET.fromstring(renderer.face(comp, card).face.svg)
        rects = [tuple(float(r.get(k)) for k in ("x", "y", "width", "height"))
                 for r in root.iter(f"{svg_ns}rect") if r.get("class") == cls]
        labels = [tuple(float(r.get(k)) for k in ("x", "y", "width", "height"))
                  for r in root.iter(f"{svg_ns}rect") if r.get("class") in (f"{cls}-label", "annihilation-label")]
        places = comp.places_of(card)
        assert rects == [pytest.approx((p.box.x, p.box.y, p.box.width, p.box.height), abs=0.1) for p in places]
        assert labels == [pytest.approx((lb.x, lb.y, lb.width, lb.height), abs=0.1)
                          for lb in (p.label_box for p in places) if lb is not None]
        for x, y, w, h in rects:   # a card centred on any place covers no label
            cx, cy = x + (w - CARD[0]) / 2, y + (h - CARD[1]) / 2
            for lx, ly, lw, lh in labels:
                assert min(cx + CARD[0], lx + lw) <= max(cx, lx) or min(cy + CARD[1], ly + lh) <= max(cy, ly)


# --- any game's board -----------------------------------------------------------------------------

BOARD = """id: board
name: Play board
kind: board
size: {width: 300, height: 200}
shape: {type: rect}
bleed: 0
safe: 6
front: card-front.svg.j2
fields:
  title: {type: text}
places:
  holds: cards
  size: {width: 68, height: 93}
  label: {side: bottom, height: 6}
  stacking:
    - {stack: pile, category: [quark, antiquark], reason: "Quarks and antiquarks are kept in two piles."}
    - {stack: copies, reason: "Wild W cards stack."}
  list:
    - {id: quarks, takes: {category: quark}, x: 10, y: 10}
    - {id: antiquarks, takes: {category: antiquark}, x: 90, y: 10}
    - {id: wild, takes: W+, x: 170, y: 10}
    - {id: discard, takes: {component: cards}, x: 190, y: 110, width: 93, height: 68, rotate: true, label: none}
cards:
  - {id: board, title: QCD}
"""


def qcd_with_board(game_copy, board: str = BOARD):
    g = game_copy("qcd")
    g.write("components/board.yaml", board)
    g.edit("game.yaml", "  - components/cards.yaml\n", "  - components/cards.yaml\n  - components/board.yaml\n")
    g.edit("game.yaml", "checks:\n", "checks:\n  - {rule: places-cover-deck, component: board}\n")
    return g


def test_any_game_can_declare_a_board_with_places(game_copy):
    g = qcd_with_board(game_copy)
    report = cardgen.check(g.load(), render=False)   # the rules alone: the test board has no artwork of its own
    deck = g.load().components["cards"]
    assert [str(f) for f in report.findings if f.rule.startswith("places-")] == []
    proofs = {p.rule: p for p in report.proofs if p.claim.startswith("board")}
    assert proofs["places-fit"].claim == ("board: 4 places hold 63 × 88 mm and 88 × 63 mm cards with ≥ 2 mm to "
                                          "spare (smallest margin 2.5 mm); no overlaps; all inside the safe area")
    wilds = sum(c.count for c in deck.cards if c.fields["particle"].id == "W+")
    kinds = {c.fields["particle"].id for c in deck.cards}
    assert proofs["places-cover-deck"].count == deck.total
    # one card per place (a quark, an antiquark, a W); the other quarks pile up, the other Ws stack
    assert proofs["places-cover-deck"].claim == (
        f"board: all {deck.total} cards of 'cards' have a place (3 on a place of their own; "
        f"{deck.total - 2 - wilds} cards stack on a place that takes them; {wilds - 1} copies stack on their first "
        "copy's place)")
    assert wilds == 4 and {"u", "ubar"} <= kinds
    choices = [(c.subject, c.reason) for c in report.choices if c.rule == "places-cover-deck"]
    assert choices == [(f"'board': {deck.total - 2 - wilds} cards stack on a place that takes them",
                        "Quarks and antiquarks are kept in two piles."),
                       (f"'board': {wilds - 1} copies stack on their first copy's place", "Wild W cards stack.")]


def test_a_turned_place_must_fit_the_turned_card(game_copy):
    g = qcd_with_board(game_copy, BOARD.replace("width: 93, height: 68, rotate: true", "width: 93, height: 68"))
    (finding,) = [f for f in g.findings("places-fit")]
    assert finding.message == ("place 'discard' of 'board' is 93 × 68 mm; a 63 × 88 mm card of 'cards' needs "
                               "67 × 92 mm (2 mm to spare on every side): 24 mm too short")
    assert where(finding) == at(g, "components/board.yaml", "{id: discard")


def test_without_a_pile_rule_category_places_hold_one_card_each(game_copy):
    g = qcd_with_board(game_copy, BOARD.replace(
        '    - {stack: pile, category: [quark, antiquark], reason: "Quarks and antiquarks are kept in two piles."}\n', ""))
    holds = at(g, "components/board.yaml", "  holds: cards", "holds")
    found = messages(g, "places-cover-deck")
    # the quark place holds one u (the first card); the other flavours have no place, u's copies stack
    assert found == [(holds, f"no place on 'board' takes {sym} ({name}): 6 card(s) of 'cards' have no place, and no "
                             "stacking rule covers them")
                     for sym, name in (("c", "charm quark"), ("c̅", "anti-charm quark"), ("d", "down quark"),
                                       ("d̅", "anti-down quark"), ("s", "strange quark"), ("s̅", "anti-strange quark"))]


def test_a_category_place_is_drawn_with_its_family_word(game_copy):
    g = game_copy(PB)
    g.edit("components/mat.yaml", "takes: e-,", "takes: {category: [lepton, antilepton]},")
    game = g.load()
    comp = game.components["mat"]
    root = ET.fromstring(Renderer(game).face(comp, comp.card("mat")).face.svg)
    svg_ns = "{http://www.w3.org/2000/svg}"
    group = next(e for e in root.iter(f"{svg_ns}g") if e.get("data-place") == "e-")
    assert group.get("data-particle") == ""
    names = [e.get("aria-label") for e in group.iter(f"{svg_ns}g") if e.get("data-field") == "place.name"]
    assert names == ["Lepton"]
    slot = next(e for e in group.iter(f"{svg_ns}rect") if e.get("class") == "slot")
    assert tuple(float(slot.get(k)) for k in ("x", "y", "width", "height")) == (18, 151, 69, 94)
