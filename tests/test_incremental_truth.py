"""An incremental build writes exactly what a cold build of the same inputs writes. Each test
builds, makes one change, builds again into the same folder, and compares the file with a cold
build (new folder, no cache) of the changed inputs. Each change here once left a stale face or
a stale manifest row behind: artwork a new file shadows, the same game from another folder,
the order of font folders, a template in a folder named __pycache__, a count a face prints,
a manifest row edited by hand."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from PIL import Image

import cardgen
from cardgen.build import BuildOptions

BACK = "templates/card-back.svg.j2"
END = "{% endblock %}"


@pytest.fixture(autouse=True)
def fixed_time(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")


def _png(rgb: tuple[int, int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), rgb).save(buf, "PNG")
    return buf.getvalue()


def _build(game_dir: Path, out: Path, cache: bool = True, font_dirs: tuple[Path, ...] = ()) -> Path:
    cardgen.build(cardgen.load_game(game_dir, font_dirs=font_dirs), BuildOptions(out=out, cache=cache))
    return out / "qcd" / "en"


def _same_as_cold(game_dir: Path, incremental: Path, tmp_path: Path, name: str = "cards.pdf",
                  font_dirs: tuple[Path, ...] = ()) -> None:
    cold = _build(game_dir, tmp_path / "cold", cache=False, font_dirs=font_dirs)
    assert (incremental / name).read_bytes() == (cold / name).read_bytes(), f"{name} differs from a cold build"


def test_artwork_a_new_file_shadows_is_drawn_from_the_new_file(game_copy, tmp_path):
    g = game_copy("qcd")
    (g.path / "templates/art").mkdir()
    (g.path / "templates/art/logo.png").write_bytes(_png((200, 30, 30)))
    g.edit(BACK, END, '{{ image("art/logo.png", 4, 4, 8, 8) }}\n' + END)
    out = _build(g.path, tmp_path / "out")
    (g.path / "art").mkdir()
    (g.path / "art/logo.png").write_bytes(_png((30, 30, 200)))   # the game folder is looked in first
    _build(g.path, tmp_path / "out")
    _same_as_cold(g.path, out, tmp_path)


def test_the_same_game_from_another_folder_draws_its_own_artwork(game_copy, tmp_path):
    g = game_copy("qcd")
    (g.path / "art").mkdir()
    (g.path / "art/logo.png").write_bytes(_png((200, 30, 30)))
    g.edit(BACK, END, '{{ image("art/logo.png", 4, 4, 8, 8) }}\n' + END)
    out = _build(g.path, tmp_path / "out")
    other = tmp_path / "elsewhere" / "qcd"
    shutil.copytree(g.path, other)
    (other / "art/logo.png").write_bytes(_png((30, 200, 30)))
    _build(other, tmp_path / "out")
    _same_as_cold(other, out, tmp_path)


def test_the_order_of_font_folders_is_part_of_what_a_face_is(game_copy, tmp_path):
    """A character two fonts cover is drawn by the first: swapping the folders changes faces."""
    from cardgen.cache import game_fingerprint

    fonts = Path(cardgen.__file__).parent / "fonts"
    first, second = tmp_path / "fd1", tmp_path / "fd2"
    first.mkdir()
    second.mkdir()
    shutil.copy(fonts / "NotoSans-Regular.ttf", first / "A.ttf")
    shutil.copy(fonts / "NotoSans-Bold.ttf", second / "B.ttf")
    g = game_copy("qcd")
    one = game_fingerprint(cardgen.load_game(g.path, font_dirs=(first, second)), "en")
    other = game_fingerprint(cardgen.load_game(g.path, font_dirs=(second, first)), "en")
    assert one != other


def test_a_template_in_a_folder_named_pycache_is_watched(game_copy, tmp_path):
    g = game_copy("qcd")
    (g.path / "templates/__pycache__").mkdir()
    (g.path / "templates/__pycache__/deco.svg.j2").write_text('<rect x="2" y="2" width="6" height="6" fill="#c81e1e"/>\n')
    g.edit(BACK, END, '{% include "__pycache__/deco.svg.j2" %}\n' + END)
    out = _build(g.path, tmp_path / "out")
    (g.path / "templates/__pycache__/deco.svg.j2").write_text('<rect x="2" y="2" width="6" height="6" fill="#1e1ec8"/>\n')
    _build(g.path, tmp_path / "out")
    _same_as_cold(g.path, out, tmp_path)


def test_a_count_a_face_prints_is_part_of_the_face(game_copy, tmp_path):
    """A template may print how many copies a card has, or how many pieces its component has:
    a count changed in the component's own file (no rule counts this one) reached no face."""
    g = game_copy("particle-builder")
    # on a white patch of its own, left of the symbol's disc (over the family word, the
    # legibility rules would refuse it as a text painted over)
    g.edit("templates/particle-front.svg.j2", END, '<rect x="3.5" y="16" width="14" height="9" fill="#ffffff"/>\n'
                                                   '{{ text("copies " ~ card.count ~ " of " ~ component.total, 4, 16.5, '
                                                   'size=2.6, width=13, height=8, fill="#1a1a1a", field="copies") }}\n'
           + END)
    out = tmp_path / "out"
    cardgen.build(cardgen.load_game(g.path), BuildOptions(out=out))
    g.edit("components/level5-extra.yaml", "{id: Z0,    particle: Z0,    points: 3, count: 2}",
           "{id: Z0,    particle: Z0,    points: 3, count: 3}")
    cardgen.build(cardgen.load_game(g.path), BuildOptions(out=out))
    cardgen.build(cardgen.load_game(g.path), BuildOptions(out=tmp_path / "cold", cache=False))
    name = "particle-builder/en/level5-extra.pdf"
    assert (out / name).read_bytes() == (tmp_path / "cold" / name).read_bytes()


def test_a_manifest_row_edited_by_hand_is_not_believed(game_copy, tmp_path):
    g = game_copy("qcd")
    out = _build(g.path, tmp_path / "out")
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    pages = {f["path"]: f["pages"] for f in manifest["files"]}
    for f in manifest["files"]:
        f["pages"] += 50
    (out / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    _build(g.path, tmp_path / "out")
    again = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert {f["path"]: f["pages"] for f in again["files"]} == pages
    assert "+50" not in (out / "PRINTING.txt").read_text(encoding="utf-8")
    _same_as_cold(g.path, out, tmp_path, "manifest.json")
    _same_as_cold(g.path, out, tmp_path, "PRINTING.txt")
