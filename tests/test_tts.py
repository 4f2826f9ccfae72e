"""Tabletop Simulator saves: card shapes from the pieces' outlines, boards and tokens at their
printed size, translated names and tooltips, and the validator that stands between the exporter
and a save TTS would load wrongly."""

from __future__ import annotations

import copy
import json
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

import cardgen
import cardgen.export as export_module
import cardgen.tts_text
from cardgen.errors import InputError
from cardgen.export import export_tts
from cardgen.tts_pieces import TTS_UNIT_HEIGHT_MM, deck_type, tts_scale
from cardgen.tts_validate import MAX_IMAGE_SIDE, check_save, save_problems
from cardgen.shapes import Shape
from tests.test_export import local

FILL = """{% extends "base.svg.j2" %}
{% block artwork %}
<rect x="-5" y="-5" width="500" height="500" fill="#204080"/>
{% endblock %}
"""


def piece_game(root: Path, *components: tuple[str, str, float, float, str, int]) -> Path:
    """A designer game with one component per (id, kind, width, height, shape, cards) — each of
    ``cards`` distinct single-sided pieces with a text ``name`` 'Piece n' — filled in blue."""
    g = root / "games" / "pieces"
    (g / "templates").mkdir(parents=True)
    files = ", ".join(f"{c[0]}.yaml" for c in components)
    (g / "game.yaml").write_text(f"id: pieces\nname: Pieces\ncomponents: [{files}]\n", encoding="utf-8")
    for cid, kind, width, height, shape, cards in components:
        rows = "\n".join(f"  - {{id: p{n}, name: Piece {n}}}" for n in range(1, cards + 1))
        (g / f"{cid}.yaml").write_text(textwrap.dedent(f"""\
            id: {cid}
            name: {cid.title()}
            kind: {kind}
            size: {{width: {width}, height: {height}}}
            shape: {shape}
            bleed: 1
            front: fill.svg.j2
            fields:
              name: {{type: text, translatable: true}}
            cards:
            """) + rows + "\n", encoding="utf-8")
    (g / "templates" / "fill.svg.j2").write_text(FILL, encoding="utf-8")
    return g


def exported(game_path_or_id: str | Path, out: Path, lang: str = "en", dpi: float = 40,
             components: list[str] | None = None) -> dict:
    path = export_tts(cardgen.load_game(game_path_or_id), lang, out, dpi=dpi, components=components)
    return json.loads(path.read_text(encoding="utf-8"))


# --- shape ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape, card_type", [
    ("{type: rounded-rect, radius: 3}", 0), ("{type: rect}", 1), ("{type: rounded-rect, radius: 0}", 1),
    ("{type: hexagon}", 3), ("{type: hexagon, pointy: true}", 3), ("{type: circle}", 4)])
def test_deck_type_follows_the_outline_of_the_piece(tmp_path, shape, card_type):
    game = piece_game(tmp_path, ("chits", "token", 30, 30, shape, 3))
    (deck,) = exported(game, tmp_path / "out")["ObjectStates"]
    assert deck["Name"] == "DeckCustom"
    assert [entry["Type"] for entry in deck["CustomDeck"].values()] == [card_type]
    assert all(c["CustomDeck"]["1"]["Type"] == card_type for c in deck["ContainedObjects"])


def test_shipped_hexagonal_and_round_tokens_are_not_rounded_rectangles(tmp_path):
    tutti = exported("tutti-quantum", tmp_path, components=["score-tokens", "pawn"])["ObjectStates"]
    builder = exported("particle-builder", tmp_path, components=["colour-tokens", "particles"])["ObjectStates"]
    types = {o["Nickname"]: [e["Type"] for e in o["CustomDeck"].values()] for o in tutti + builder}
    assert types == {"Score tokens": [3], "First-player pawn": [0], "Colour tokens": [4], "Particle cards": [0]}
    assert deck_type(Shape("lozenge", angle=120)) is None


# --- size ----------------------------------------------------------------------------------------

def test_mat_is_a_custom_board_at_its_real_size_next_to_the_cards(tmp_path):
    game = piece_game(tmp_path, ("mat", "board", 400, 277, "{type: rect}", 1),
                      ("cards", "card", 63, 88, "{type: rounded-rect, radius: 3}", 2))
    out = tmp_path / "out"
    mat, cards = exported(game, out, dpi=300)["ObjectStates"]
    assert mat["Name"] == "Custom_Board" and mat["Locked"] is True and mat["Nickname"] == "Piece 1"
    board_scale, card_scale = mat["Transform"]["scaleX"], cards["Transform"]["scaleX"]
    assert card_scale == cards["Transform"]["scaleZ"] == round(88 / 88.9, 4) == 0.9899
    assert board_scale == mat["Transform"]["scaleZ"] == round(277 / 88.9, 4) == 3.1159
    assert board_scale / card_scale == pytest.approx(277 / 88, abs=1e-3)
    assert all(c["Transform"]["scaleX"] == card_scale for c in cards["ContainedObjects"])
    with Image.open(local(mat["CustomImage"]["ImageURL"])) as image:
        assert max(image.size) == MAX_IMAGE_SIDE              # 400 mm at 300 dpi is 4724 px: scaled down
        width_mm = image.width / image.height * board_scale * TTS_UNIT_HEIGHT_MM
    assert width_mm == pytest.approx(400, abs=0.5) and board_scale * TTS_UNIT_HEIGHT_MM == pytest.approx(277, abs=0.01)
    # side by side: the cards lie right of the mat, clear of it
    assert cards["Transform"]["posX"] - 63 / 25.4 / 2 > mat["Transform"]["posX"] + 400 / 25.4 / 2


def test_scale_is_height_over_the_tts_card_height():
    assert tts_scale(88.9) == 1.0 and tts_scale(21.651) == 0.2435
    with pytest.raises(ValueError):
        tts_scale(0)


# --- lozenges ------------------------------------------------------------------------------------

def test_lozenges_are_tokens_cut_along_their_outline_in_a_bag(tmp_path):
    game = cardgen.load_game("tutti-quantum")
    save = exported("tutti-quantum", tmp_path, lang="de", components=["particles"])
    (bag,) = save["ObjectStates"]
    assert bag["Name"] == "Bag" and bag["Nickname"] == "Teilchenkarten"
    tokens = bag["ContainedObjects"]
    assert {t["Name"] for t in tokens} == {"Custom_Token"} and len(tokens) == game.components["particles"].total == 44
    assert Counter(t["Nickname"] for t in tokens) == {"Quark": 13, "Elektron": 8, "Gluon": 12, "Photon": 7, "Higgs": 4}
    assert {t["Transform"]["scaleZ"] for t in tokens} == {round(86.603 / 88.9, 4)}
    with Image.open(local(tokens[0]["CustomImage"]["ImageURL"])) as image:
        assert image.mode == "RGBA"
        w, h = image.size
        alpha = image.getchannel("A")
        for x, y in ((0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1), (w * 0.2, h * 0.2), (w * 0.8, h * 0.8)):
            assert alpha.getpixel((int(x), int(y))) == 0            # outside the lozenge: cut away
        for x, y in ((w / 2, h / 2), (w * 0.3, h * 0.3), (w * 0.05, h / 2), (w / 2, h * 0.05)):
            assert alpha.getpixel((int(x), int(y))) == 255          # inside: kept


# --- text ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang, first, description, wild", [
    ("en", "up quark u (red)", "charge +2/3 · spin 1/2 · mass 2.16 MeV/c² · mean lifetime stable", "W⁺ boson"),
    ("de", "Up-Quark u (rot)", "Ladung +2/3 · Spin 1/2 · Masse 2,16 MeV/c² · mittlere Lebensdauer stabil", "W⁺-Boson"),
])
def test_nicknames_and_descriptions_are_the_translated_card_text(tmp_path, lang, first, description, wild):
    (deck,) = exported("qcd", tmp_path, lang=lang, dpi=20)["ObjectStates"]
    cards = deck["ContainedObjects"]
    assert (cards[0]["Nickname"], cards[0]["Description"]) == (first, description)
    assert cards[-1]["Nickname"] == wild
    assert len({c["Nickname"] for c in cards}) == 25            # one name per distinct card
    assert not any(c["Nickname"] in {"u", "u-red"} for c in cards)


# --- validation ----------------------------------------------------------------------------------

@pytest.mark.parametrize("game_id", ["qcd", "tutti-quantum", "particle-builder", "particles-in-circle"])
def test_every_shipped_game_exports_a_save_the_validator_passes(tmp_path, game_id):
    save = exported(game_id, tmp_path, dpi=20)
    assert list(save_problems(save)) == []
    guids = []

    def walk(objects):
        for o in objects:
            guids.append(o["GUID"])
            walk(o.get("ContainedObjects", []))
    walk(save["ObjectStates"])
    assert len(guids) == len(set(guids))


@pytest.fixture(scope="module")
def good_save(tmp_path_factory):
    root = tmp_path_factory.mktemp("tts")
    game = piece_game(root, ("cards", "card", 63, 88, "{type: rounded-rect, radius: 3}", 3))
    return exported(game, root / "out", dpi=40)


def _deck(save):
    return save["ObjectStates"][0]


def _set(path, value):
    def mutate(save):
        node = save
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return mutate


@pytest.mark.parametrize("mutate, problem", [
    (_set(["ObjectStates", 0, "CustomDeck", "1", "Type"], 5),
     "ObjectStates[0].CustomDeck.1.Type: 5 is not a TTS card shape (0–4)"),
    (_set(["ObjectStates", 0, "CustomDeck", "1", "NumWidth"], 11),
     "ObjectStates[0].CustomDeck.1: a 11 × 2 sheet is outside TTS's 1–10 × 1–7 cells (2 at least)"),
    (_set(["ObjectStates", 0, "CustomDeck", "1", "BackIsHidden"], "yes"),
     "ObjectStates[0].CustomDeck.1.BackIsHidden: 'yes' is not bool"),
    (_set(["ObjectStates", 0, "ContainedObjects", 1, "CardID"], 103),
     "ObjectStates[0].ContainedObjects[1].CardID: 103 is cell 3 of a 2 × 2 sheet, whose last cell (3) is the hidden face"),
    (_set(["ObjectStates", 0, "ContainedObjects", 1, "CardID"], 201),
     "ObjectStates[0].ContainedObjects[1].CardID: 201 names sheet 2, which its CustomDeck does not hold"),
    (_set(["ObjectStates", 0, "DeckIDs"], [100, 101, 101]),
     "ObjectStates[0].DeckIDs: not the CardIDs of ContainedObjects, in order"),
    (_set(["ObjectStates", 0, "ContainedObjects", 2, "GUID"], "ABCDEF"),
     "ObjectStates[0].ContainedObjects[2].GUID: 'ABCDEF' is not 6 lower-case hex digits"),
    (_set(["ObjectStates", 0, "Transform", "scaleX"], 0),
     "ObjectStates[0].Transform.scaleX: 0 is not positive"),
    (_set(["ObjectStates", 0, "ContainedObjects", 0, "Nickname"], None),
     "ObjectStates[0].ContainedObjects[0].Nickname: missing or not text"),
    (_set(["ObjectStates", 0, "Name"], "Deck"),
     "ObjectStates[0].Name: 'Deck' is not one of Card, DeckCustom, Custom_Board, Custom_Token, Bag"),
])
def test_validator_names_each_broken_field(good_save, mutate, problem):
    save = copy.deepcopy(good_save)
    mutate(save)
    assert problem in list(save_problems(save))


def test_validator_catches_reused_guids_and_images_tts_cannot_take(good_save, tmp_path):
    save = copy.deepcopy(good_save)
    deck = _deck(save)
    deck["ContainedObjects"][1]["GUID"] = deck["ContainedObjects"][0]["GUID"]
    big, odd = tmp_path / "big.png", tmp_path / "odd.png"
    Image.new("RGB", (MAX_IMAGE_SIDE + 1, 10)).save(big)
    Image.new("RGB", (101, 100)).save(odd)
    deck["CustomDeck"]["1"]["BackURL"] = big.resolve().as_uri()
    deck["CustomDeck"]["1"]["FaceURL"] = odd.resolve().as_uri()
    problems = list(save_problems(save))
    guid = deck["ContainedObjects"][0]["GUID"]
    assert f"ObjectStates[0].ContainedObjects[1].GUID: {guid} is already used by ObjectStates[0].ContainedObjects[0]" in problems
    assert "ObjectStates[0].CustomDeck.1.BackURL: 4097 × 10 px is larger than 4096 px" in problems
    assert "ObjectStates[0].CustomDeck.1.FaceURL: 101 × 100 px does not split into 2 × 2 whole cells" in problems
    with pytest.raises(InputError) as err:
        check_save(save, tmp_path / "pieces.json")
    assert str(err.value).count(";") >= 2 and "nothing was written to pieces.json" in err.value.fix


def test_an_invalid_save_is_an_error_and_is_never_written(tmp_path, monkeypatch):
    game = piece_game(tmp_path, ("cards", "card", 63, 88, "{type: rounded-rect, radius: 3}", 2))
    monkeypatch.setattr(export_module, "deck_type", lambda shape: 7)
    with pytest.raises(InputError) as err:
        export_tts(cardgen.load_game(game), "en", tmp_path / "out", dpi=30)
    assert "CustomDeck.1.Type: 7 is not a TTS card shape (0–4)" in str(err.value)
    assert not (tmp_path / "out" / "pieces" / "en" / "tts" / "pieces.json").exists()


def test_every_label_of_the_tooltips_is_in_the_template_and_translated_in_every_shipped_language():
    from babel.messages.pofile import read_po

    from cardgen.i18n import SHIPPED_LOCALE, _python_messages

    labels = {msg for _line, msg in _python_messages(Path(cardgen.tts_text.__file__))}
    assert labels == {"charge", "spin", "mass", "mean lifetime"}
    with (SHIPPED_LOCALE / "common.pot").open("rb") as fh:
        assert labels <= {m.id for m in read_po(fh)}
    for lang in ("de", "fr", "es", "ar", "zh"):
        with (SHIPPED_LOCALE / lang / "LC_MESSAGES" / "common.po").open("rb") as fh:
            strings = {m.id: m.string for m in read_po(fh) if m.context is None}
        assert all(strings.get(label) for label in labels), lang


def test_the_command_reports_an_invalid_save_in_one_line_and_exits_2(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from cardgen.cli import main

    game = piece_game(tmp_path, ("cards", "card", 63, 88, "{type: rounded-rect, radius: 3}", 2))
    monkeypatch.setattr(export_module, "deck_type", lambda shape: 7)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["export", "tts", "pieces", "--games-dir", str(game.parent),
                                       "--dpi", "30", "--out", str(out)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cardgen: ")
    assert "CustomDeck.1.Type: 7 is not a TTS card shape (0–4)" in lines[0] and "nothing was written" in lines[0]
    assert not (out / "pieces" / "en" / "tts" / "pieces.json").exists()


def test_a_tts_export_leaves_only_what_its_save_loads(game_copy, tmp_path):
    """A card renamed, or an export of one component over a full one, left the old images beside
    the save, and whoever uploads the folder's PNGs uploaded them too. A file of the user's own
    stays."""
    from cardgen.export import export_tts

    g = game_copy("tutti-quantum")
    out = tmp_path / "out"
    export_tts(g.load(), "en", out, dpi=60)
    folder = out / "tutti-quantum" / "en" / "tts"
    (folder / "notes.png").write_bytes(b"mine")
    g.edit("components/particles.yaml", "{id: electron,", "{id: electron2,")
    export_tts(g.load(), "en", out, dpi=60)
    names = {p.name for p in folder.glob("*.png")}
    assert "particles-electron.png" not in names and "particles-electron2.png" in names and "notes.png" in names
    export_tts(g.load(), "en", out, dpi=60, components=["pawn"])
    left = {p.name for p in folder.glob("*.png")} - {"notes.png"}
    assert left and all(n.startswith("pawn-") for n in left)


@pytest.mark.parametrize("game_id", ["particle-builder", "qcd", "tutti-quantum", "particles-in-circle"])
def test_a_description_names_each_value_in_the_export_language(game_id):
    """A German save described score tokens as 'reverse Quark–Photon' and targets as 'requires
    u u d': the label was the data's field name. Each label is a catalog string now, and data
    for the checker alone (a target's PDG identity) is no part of a description."""
    from cardgen import i18n
    from cardgen.i18n import DESCRIBED_WITHOUT_LABEL, field_label
    from cardgen.tts_text import card_text

    game = cardgen.load_game(game_id)
    tr = i18n.translator(game, "de")
    for comp in game.components.values():
        for name, spec in comp.fields.items():
            if spec.printed and spec.type not in DESCRIBED_WITHOUT_LABEL:
                label = field_label(name, spec)
                assert tr(label, f"{comp.id}.field") != label, (comp.id, name)
        for card in comp.cards:
            _title, description = card_text(game, comp, card, "de", tr)
            hidden = [n for n, s in comp.fields.items() if not s.printed]
            assert not any(f"{n} " in description for n in hidden), (comp.id, card.id, description)
