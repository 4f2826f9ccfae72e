"""The walkthrough in docs/new-game.md must work as written: its files are built here."""

from __future__ import annotations

import re
from pathlib import Path

import pikepdf

import cardgen
from cardgen.build import BuildOptions, build

DOC = Path(__file__).resolve().parent.parent / "docs" / "new-game.md"
BLOCK = re.compile(r'```\w+ title="([^"]+)"\n(.*?)```', re.S)


def test_walkthrough_game_checks_and_builds(tmp_path, cli):
    files = BLOCK.findall(DOC.read_text(encoding="utf-8"))
    assert len(files) == 4
    for rel, body in files:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
    game_dir = tmp_path / "lepton-snap"
    report = cardgen.check(cardgen.load_game(game_dir))
    assert report.ok, [str(f) for f in report.findings]
    (result,) = build([cardgen.load_game(game_dir)], BuildOptions(out=tmp_path / "out"), jobs=1)
    assert not result.issues
    with pikepdf.open(tmp_path / "out/lepton-snap/en/cards.pdf") as pdf:
        assert len(pdf.pages) == 6                     # 24 cards, 9 per sheet: 3 fronts + 3 backs
    res = cli("check", str(game_dir))
    assert res.returncode == 0, res.stdout + res.stderr


def test_documented_typo_message_is_what_cardgen_says(tmp_path):
    for rel, body in BLOCK.findall(DOC.read_text(encoding="utf-8")):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body.replace("mu-, mu+", "mu, mu+"), encoding="utf-8")
    import pytest

    with pytest.raises(cardgen.InputError) as info:
        cardgen.load_game(tmp_path / "lepton-snap")
    assert "unknown particle 'mu' — did you mean 'mu-'?" in str(info.value)
    assert "components/cards.yaml:13:33:" in str(info.value) and "cards.yaml:13:33" in DOC.read_text(encoding="utf-8")


def test_new_scaffold_checks_and_builds(tmp_path, cli):
    assert cli("new", "my-deck", "--dir", str(tmp_path)).returncode == 0
    assert cli("check", str(tmp_path / "my-deck")).returncode == 0
    res = cli("build", str(tmp_path / "my-deck"), "--out", str(tmp_path / "out"))
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "out/my-deck/en/cards.pdf").is_file()
    copy = cli("new", "my-tutti", "--from", "tutti-quantum", "--dir", str(tmp_path))
    assert copy.returncode == 0 and cli("check", str(tmp_path / "my-tutti")).returncode == 0
    again = cli("new", "my-deck", "--dir", str(tmp_path))
    assert again.returncode == 2 and "already exists" in again.stderr
