"""Digital exports: exact PNG sizes with and without bleed, and Tabletop Simulator decks that
load (grid limits, hidden cell, card ids, per-card backs, more than one sheet)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname

import pytest
from PIL import Image

import cardgen
from cardgen.export import TTS_MAX_SIDE, Grid, bleed_px, export_png, export_tts, trim, tts_cell, tts_grid

SHADE = """{% extends "base.svg.j2" %}
{% block artwork %}
<rect x="-5" y="-5" width="60" height="80" fill="rgb({{ card.n }},0,0)"/>
{% endblock %}
"""
BACK = """{% extends "base.svg.j2" %}
{% block artwork %}
<rect x="-5" y="-5" width="60" height="80" fill="#00ff00"/>
{% endblock %}
"""


def shaded_game(root: Path, cards: int) -> Path:
    """A designer game of ``cards`` distinct 50 × 70 mm cards, card n filled with rgb(n, 0, 0)
    on the front (so a sheet cell tells which card it holds) and a shared green back."""
    g = root / "games" / "shades"
    (g / "templates").mkdir(parents=True)
    (g / "game.yaml").write_text("id: shades\nname: Shades\ncomponents: [cards.yaml]\n", encoding="utf-8")
    rows = "\n".join(f"  - {{id: c{n:03d}, n: {n}}}" for n in range(1, cards + 1))
    (g / "cards.yaml").write_text(textwrap.dedent("""\
        id: cards
        name: Cards
        size: {width: 50, height: 70}
        bleed: 2
        front: front.svg.j2
        back: back.svg.j2
        fields:
          n: {type: int}
        cards:
        """) + rows + "\n", encoding="utf-8")
    (g / "templates" / "front.svg.j2").write_text(SHADE, encoding="utf-8")
    (g / "templates" / "back.svg.j2").write_text(BACK, encoding="utf-8")
    return g


def local(url: str) -> Path:
    """The file a ``file://`` URL in the save points at."""
    parsed = urlparse(url)
    assert parsed.scheme == "file"
    return Path(url2pathname(parsed.path))


def cell_of(sheet: Image.Image, grid: Grid, index: int) -> Image.Image:
    w, h = sheet.width // grid.cols, sheet.height // grid.rows
    x, y = (index % grid.cols) * w, (index // grid.cols) * h
    return sheet.crop((x, y, x + w, y + h))


def objects_by_nickname(save: dict) -> dict[str, dict]:
    return {o["Nickname"]: o for o in save["ObjectStates"]}


# --- pixel arithmetic --------------------------------------------------------------------------

@pytest.mark.parametrize("bleed, dpi, px", [(3, 254, 30), (3, 150, 18), (2, 300, 24), (0, 300, 0), (3, 72, 9)])
def test_bleed_pixels_are_the_rounded_millimetres(bleed, dpi, px):
    assert bleed_px(bleed, dpi) == px


def test_trim_gives_the_trim_size_in_the_nearest_whole_pixels():
    """63 × 88 mm at 150 dpi is 372.05 × 519.69 px: 372 × 520, from the bleed's 18 px on (cutting
    18 px off every edge of the 69 × 94 mm image, 407 × 555 px, gave 371 × 519: 0.17 mm short)."""
    image = Image.new("RGB", (407, 555))
    assert trim(image, 3, 150, (63, 88)).size == (372, 520)
    for dpi in (72, 100, 150, 254, 300, 600):   # within half a pixel of the size, whatever the dpi
        k = dpi / 25.4
        full = Image.new("RGB", (round(26 * k), round(24 * k)))
        w, h = trim(full, 2, dpi, (22, 20)).size
        assert abs(w - 22 * k) <= 0.5 and abs(h - 20 * k) <= 0.5, dpi
    with pytest.raises(ValueError):
        trim(Image.new("RGB", (20, 20)), 3, 254, (1, 1))


def test_grid_leaves_the_bottom_right_cell_for_the_hidden_face():
    assert tts_grid(69, (630, 880)) == Grid(10, 7)
    assert tts_grid(25, (630, 880)) == Grid(9, 3)         # 27 cells: 25 faces, one empty, the hidden one
    assert tts_grid(1, (630, 880)) == Grid(2, 2)          # TTS takes no smaller grid
    for faces in range(1, 70):
        grid = tts_grid(faces, (630, 880))
        assert grid.cols <= 10 and grid.rows <= 7 and faces <= grid.hidden
    with pytest.raises(ValueError):
        tts_grid(70, (630, 880))


def test_cells_shrink_to_fit_4096_px_and_never_grow():
    w, h = tts_cell((630, 880), [Grid(10, 7)])
    assert 10 * w <= TTS_MAX_SIDE and 7 * h <= TTS_MAX_SIDE and 10 * w > TTS_MAX_SIDE - 10
    assert tts_cell((100, 140), [Grid(10, 7)]) == (100, 140)


# --- PNG per face ------------------------------------------------------------------------------

def test_qcd_pngs_with_and_without_bleed_have_exact_sizes(tmp_path):
    game = cardgen.load_game("qcd")
    paths = export_png(game, "en", 254, tmp_path)
    comp = game.components["cards"]
    assert len(paths) == len(comp.cards) * 2 * 2          # front + back, with and without bleed
    full = tmp_path / "qcd" / "en" / "png" / "cards" / "u-red.front.png"
    trimmed = tmp_path / "qcd" / "en" / "png-trim" / "cards" / "u-red.front.png"
    with Image.open(full) as a, Image.open(trimmed) as b:
        assert a.size == (690, 940)       # (63 + 2 × 3) × (88 + 2 × 3) mm at 10 px/mm
        assert b.size == (630, 880)
        assert a.convert("RGB").crop((30, 30, 660, 910)).tobytes() == b.convert("RGB").tobytes()
    back = tmp_path / "qcd" / "en" / "png-trim" / "cards" / "wild-w.back.png"
    assert back.is_file()


def test_trimmed_png_is_the_centre_crop_at_a_dpi_that_does_not_divide_evenly(tmp_path):
    game = cardgen.load_game(shaded_game(tmp_path, 2))
    export_png(game, "en", 150, tmp_path / "out")
    for side in ("front", "back"):
        with Image.open(tmp_path / "out" / "shades" / "en" / "png" / "cards" / f"c001.{side}.png") as a, \
                Image.open(tmp_path / "out" / "shades" / "en" / "png-trim" / "cards" / f"c001.{side}.png") as b:
            cut = 12                                            # 2 mm at 150 dpi = 11.8 px
            comp = game.components["cards"]
            size = (round(comp.width * 150 / 25.4), round(comp.height * 150 / 25.4))
            assert b.size == size
            box = (cut, cut, cut + size[0], cut + size[1])
            assert a.convert("RGB").crop(box).tobytes() == b.convert("RGB").tobytes()


# --- Tabletop Simulator ------------------------------------------------------------------------

def test_qcd_deck_one_sheet_shared_back_and_hidden_cell(tmp_path):
    game = cardgen.load_game("qcd")
    comp = game.components["cards"]
    path = export_tts(game, "en", tmp_path, dpi=100)
    folder = tmp_path / "qcd" / "en" / "tts"
    assert path == folder / "qcd.json"
    save = json.loads(path.read_text(encoding="utf-8"))
    (deck,) = save["ObjectStates"]
    assert deck["Name"] == "DeckCustom"
    assert list(deck["CustomDeck"]) == ["1"]
    entry = deck["CustomDeck"]["1"]
    assert entry["BackIsHidden"] is True and entry["UniqueBack"] is False and entry["Type"] == 0
    assert local(entry["FaceURL"]) == (folder / "cards-sheet-1.png").resolve()
    assert local(entry["BackURL"]) == (folder / "cards-back.png").resolve()

    grid = Grid(entry["NumWidth"], entry["NumHeight"])
    assert grid.cols <= 10 and grid.rows <= 7 and grid.hidden >= len(comp.cards) == 25
    with Image.open(folder / "cards-sheet-1.png") as sheet, Image.open(folder / "cards-back.png") as back:
        assert max(sheet.size) <= TTS_MAX_SIDE
        assert sheet.width % grid.cols == 0 and sheet.height % grid.rows == 0
        assert sheet.width // grid.cols == back.width and sheet.height // grid.rows == back.height
        hidden = cell_of(sheet.convert("RGB"), grid, grid.hidden)
        assert hidden.tobytes() == back.convert("RGB").tobytes()
        assert cell_of(sheet.convert("RGB"), grid, 0).tobytes() != hidden.tobytes()

    expected = [100 + i for i, card in enumerate(comp.cards) for _ in range(card.count)]
    assert deck["DeckIDs"] == expected and len(expected) == 52
    contained = deck["ContainedObjects"]
    assert [c["CardID"] for c in contained] == expected
    nicknames = [c["Nickname"] for c in contained]
    assert nicknames[:2] == ["up quark u (red)"] * 2 and nicknames[-4:] == ["W⁺ boson"] * 4
    assert contained[0]["Description"] == "charge +2/3 · spin 1/2 · mass 2.16 MeV/c² · mean lifetime stable"
    assert all(c["Name"] == "Card" and c["CustomDeck"] == {"1": entry} for c in contained)
    assert (folder / "cards-showcase.png").is_file()


def test_more_than_69_cards_make_two_sheets_in_row_major_order(tmp_path):
    game = cardgen.load_game(shaded_game(tmp_path, 80))
    path = export_tts(game, "en", tmp_path / "out", dpi=60)
    folder = path.parent
    (deck,) = json.loads(path.read_text(encoding="utf-8"))["ObjectStates"]
    assert list(deck["CustomDeck"]) == ["1", "2"]
    first, second = deck["CustomDeck"]["1"], deck["CustomDeck"]["2"]
    assert (first["NumWidth"], first["NumHeight"]) == (10, 7)
    assert second["NumWidth"] * second["NumHeight"] - 1 >= 11
    assert deck["DeckIDs"] == [100 + i for i in range(69)] + [200 + i for i in range(11)]
    assert sorted(p.name for p in folder.glob("cards-sheet-*.png")) == ["cards-sheet-1.png", "cards-sheet-2.png"]
    for n, entry, base in ((1, first, 0), (2, second, 69)):
        grid = Grid(entry["NumWidth"], entry["NumHeight"])
        with Image.open(folder / f"cards-sheet-{n}.png") as sheet:
            sheet = sheet.convert("RGB")
            assert max(sheet.size) <= TTS_MAX_SIDE
            for index in (0, grid.cols, min(68, 10)):       # card n is filled with rgb(n, 0, 0)
                if base + index < 80:
                    cell = cell_of(sheet, grid, index)
                    assert cell.getpixel((cell.width // 2, cell.height // 2)) == (base + index + 1, 0, 0)
            hidden = cell_of(sheet, grid, grid.hidden)
            assert hidden.getpixel((hidden.width // 2, hidden.height // 2)) == (0, 255, 0)


def test_tutti_per_card_backs_get_a_back_sheet_and_a_lone_pawn_is_a_card(tmp_path):
    game = cardgen.load_game("tutti-quantum")
    path = export_tts(game, "en", tmp_path, dpi=60)
    folder = path.parent
    objects = objects_by_nickname(json.loads(path.read_text(encoding="utf-8")))
    tokens = objects[game.components["score-tokens"].name]
    (entry,) = tokens["CustomDeck"].values()
    assert entry["UniqueBack"] is True
    assert local(entry["BackURL"]) == (folder / "score-tokens-back-sheet-1.png").resolve()
    grid = Grid(entry["NumWidth"], entry["NumHeight"])
    with Image.open(folder / "score-tokens-sheet-1.png") as faces, \
            Image.open(folder / "score-tokens-back-sheet-1.png") as backs:
        assert faces.size == backs.size
        faces, backs = faces.convert("RGB"), backs.convert("RGB")
        assert cell_of(faces, grid, 0).tobytes() != cell_of(backs, grid, 0).tobytes()
        assert cell_of(backs, grid, 0).tobytes() != cell_of(backs, grid, 1).tobytes()
    assert len(tokens["DeckIDs"]) == 42
    (reference,) = objects[game.components["reference"].name]["CustomDeck"].values()
    assert reference["UniqueBack"] is False                           # one shared back image
    keys = [k for o in objects.values() for k in o.get("CustomDeck", {})]
    assert len(keys) == len(set(keys))                              # unique across the save

    (pawn,) = [o for o in objects.values() if o["Name"] == "Card"]   # the one-piece component
    assert pawn["Nickname"] == "First-player pawn" and "DeckIDs" not in pawn   # no words on it: the component's name
    (pawn_key, pawn_entry), = pawn["CustomDeck"].items()
    assert pawn["CardID"] == int(pawn_key) * 100
    assert local(pawn_entry["BackURL"]).is_file() and pawn_entry["UniqueBack"] is False


def test_exports_are_byte_for_byte_reproducible(tmp_path):
    game = cardgen.load_game(shaded_game(tmp_path, 3))
    out = tmp_path / "out"

    def snapshot() -> dict[str, bytes]:
        export_png(game, "en", 60, out)
        export_tts(game, "en", out, dpi=60)
        return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}

    first = snapshot()
    assert any(name.endswith("showcase.png") for name in first) and any(name.endswith(".json") for name in first)
    assert snapshot() == first


# --- command line ------------------------------------------------------------------------------

def test_cli_exports_and_exit_codes(tmp_path, cli):
    games = str(shaded_game(tmp_path, 2).parent)
    out = str(tmp_path / "out")
    ok = cli("export", "png", "shades", "--games-dir", games, "--dpi", "60", "--out", out)
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / "out" / "shades" / "en" / "png-trim" / "cards" / "c002.back.png").is_file()
    ok = cli("export", "tts", "shades", "--games-dir", games, "--dpi", "60", "--out", out)
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / "out" / "shades" / "en" / "tts" / "shades.json").is_file()

    for args in (("png", "no-such-game"), ("tts", "no-such-game"), ("png", "shades", "--component", "nope"),
                 ("tts", "shades", "--lang", "xx")):
        bad = cli("export", *args, "--games-dir", games, "--out", out)
        assert bad.returncode == 2, (args, bad.stderr)
        assert bad.stderr.startswith("cardgen: ") and len(bad.stderr.strip().splitlines()) == 1


def test_a_card_renamed_since_the_last_export_leaves_no_image_behind(game_copy, tmp_path):
    """A 50-face deck had left 52 PNGs: the renamed card's old images stayed."""
    g = game_copy("qcd")
    export_png(g.load(), "en", 50, tmp_path)
    folder = tmp_path / "qcd" / "en" / "png" / "cards"
    assert (folder / "wild-w.front.png").is_file()
    g.edit("components/cards.yaml", "id: wild-w", "id: wild-x")
    game = g.load()
    export_png(game, "en", 50, tmp_path)
    comp = game.components["cards"]
    for kind in ("png", "png-trim"):
        names = sorted(p.name for p in (tmp_path / "qcd" / "en" / kind / "cards").glob("*.png"))
        assert names == sorted(f"{c.id}.{side}.png" for c in comp.cards for side in comp.sides)
    assert not (folder / "wild-w.front.png").exists() and (folder / "wild-x.front.png").is_file()
    assert (tmp_path / ".lock").is_file()   # it took the output folder's lock, as a build does
