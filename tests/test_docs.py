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
    game_dir = tmp_path / "games" / "lepton-snap"
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
        cardgen.load_game(tmp_path / "games" / "lepton-snap")
    assert "unknown particle 'mu' — did you mean 'mu-' (muon) or 'mu+' (antimuon)?" in str(info.value)
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


def test_new_creates_the_game_under_games_and_prints_absolute_paths_and_next_steps(tmp_path, cli):
    res = cli("new", "lepton-snap", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    folder = (tmp_path / "games" / "lepton-snap").resolve()
    assert (folder / "game.yaml").is_file()
    assert f"created {folder}" in res.stdout
    assert f"cardgen check {folder}" in res.stdout and f"cardgen build {folder}" in res.stdout
    assert "  templates/front.svg.j2" in res.stdout
    assert cli("check", str(folder)).returncode == 0


def test_a_copy_gets_its_own_name_and_catalogs_and_explained_checks(tmp_path, cli):
    import cardgen.i18n as i18n
    from cardgen.rules import DECLARED

    assert cli("new", "my-qcd", "--from", "qcd", "--dir", str(tmp_path)).returncode == 0
    folder = tmp_path / "my-qcd"
    game = cardgen.load_game(folder)
    assert game.name == "My Qcd"
    shipped = sorted(p.parent.parent.name for p in i18n.SHIPPED_LOCALE.glob("*/LC_MESSAGES/qcd.po"))
    assert i18n.available_languages(game) == ["en"] + shipped
    # Every declared check is preceded by a comment that names it and says how to change it.
    lines = (folder / "game.yaml").read_text(encoding="utf-8").splitlines()
    check_lines = [i for i, line in enumerate(lines) if line.lstrip().startswith(("- rule:", "- {rule:"))]
    assert len(check_lines) == len(game.checks) > 0
    for i in check_lines:
        rule = lines[i].split("rule:")[1].split(",")[0].strip(" }")
        assert rule in DECLARED and lines[i - 1].lstrip().startswith("#")
        block = "\n".join(line.strip() for line in lines[max(0, i - 4):i])
        assert f"# {rule}: checks that" in block
    # Translations came along, the new title's too (kept as written, as the shipped titles are):
    # the German deck builds with nothing untranslated.
    out = tmp_path / "out"
    res = cli("build", str(folder), "--lang", "de", "--strict", "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert not [line for line in res.stderr.splitlines() if "untranslated" in line], res.stderr


def test_a_changed_deck_size_says_which_line_to_edit(tmp_path, cli):
    assert cli("new", "my-qcd", "--from", "qcd", "--dir", str(tmp_path)).returncode == 0
    cards = tmp_path / "my-qcd" / "components" / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("  count: 4", "  count: 5"), encoding="utf-8")
    res = cli("check", str(tmp_path / "my-qcd"))
    assert res.returncode == 1
    game_yaml = (tmp_path / "my-qcd" / "game.yaml").read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(game_yaml, start=1) if text.strip() == "total: 52")
    assert f"change 'total: 52' on line {line} of game.yaml" in res.stdout


def test_templates_take_game_titles_from_data():
    """A copied game must not keep the original's title in its artwork: titles come from data."""
    from cardgen.loader import SHIPPED_TEMPLATES

    names = [cardgen.load_game(g).name for g in ("particle-builder", "tutti-quantum", "qcd", "particles-in-circle")]
    for template in SHIPPED_TEMPLATES.rglob("*.j2"):
        code = re.sub(r"\{#.*?#\}", "", template.read_text(encoding="utf-8"), flags=re.S)
        for name in names:
            assert name not in code, f"{template.name} writes '{name}'; use game.name"


def test_every_declared_rule_is_explained_for_designers():
    """`cardgen new` comments each copied check from cardgen.rules.guide: a new rule must say
    there what it enforces and how to change it."""
    from cardgen.rules import DECLARED
    from cardgen.rules.guide import GUIDE

    assert set(GUIDE) == set(DECLARED)
