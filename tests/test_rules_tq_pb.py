"""The rule sheets of Tutti Quantum and Particle Builder carry every rule a teacher needs to run
the game without the rulebook: placement, the arrow rule, incomplete vertices, the competitive
and cooperative games (Tutti Quantum); setup, a turn, comparing statistics, placing a card, the
end of the game and the rules each higher level adds (Particle Builder).

The rules.pdf files `cardgen build` writes are read back (English and German). Each check names
the table it needs in game.yaml and looks for sentences written out here, so removing a table
from game.yaml (or a row from a table) fails it; `--level 1` must leave the rows of later levels
off the sheet."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import cardgen
from cardgen import i18n, sheets
from tests.sheettext import open_text

TQ_TABLES = ("placement", "scoring", "competitive", "cooperative", "coop-results")
PB_TABLES = ("setup", "turn", "compare", "placing", "end", "level-rules")

#: Sentences (or their start) each sheet must print, by language. They are written out rather
#: than read from the data, so a table left out of game.yaml cannot hide its rules.
TQ_EXPECTED = {
    "en": [
        "Your first card may go anywhere in front of you.",
        "Every later card must touch at least one card already in your diagram.",
        "The arrow must keep its direction through a vertex, one in and one out; if not, that vertex is invalid.",
        "Incomplete vertex: two cards of the same particle, arrows continuing (valid)",
        "Any other incomplete vertex: two different particles, or arrows not continuing (invalid)",
        "A point touched by one card only: ignored",
        "Deal each player one secret card.",
        "The first player also takes the last card. Then the pawn passes one player clockwise",
        "Tie: the fewest invalid vertices wins.",
        "Expert scoring, 2 players only",
        "Never talk about the cards in your hand.",
        "if the diagram has any invalid vertex, complete or incomplete, everyone loses.",
        "Cooperative results",
        "A Nobel Prize is waiting for you.",
        "Handle subatomic particles with more care",
    ],
    "de": [
        "Deine erste Karte darfst du irgendwo vor dir hinlegen.",
        "Jede weitere Karte muss mindestens eine Karte berühren",
        "Der Pfeil muss durch einen Vertex in derselben Richtung weiterlaufen",
        "Unvollständiger Vertex: zwei Karten desselben Teilchens",
        "Ein Punkt, den nur eine Karte berührt: zählt nicht",
        "Jeder Spieler erhält eine geheime Karte.",
        "Der Startspieler nimmt auch die letzte Karte.",
        "Gleichstand: Wer die wenigsten ungültigen Vertices hat, gewinnt.",
        "Experten-Wertung, nur zu zweit",
        "Sprich nie über deine Handkarten.",
        "verlieren alle.",
        "Ein Nobelpreis wartet auf euch!",
    ],
}
PB_EXPECTED = {
    "en": [
        "Play in pairs, or in threes when the class has an odd number.",
        "The player whose turn it is picks one statistic printed on their card",
        "Charge counts with its sign, not its size",
        "A mean lifetime of “stable” counts as infinite",
        "A neutrino's mass “< 0.8 eV/c²” counts as more than 0",
        "After a tie every player keeps their own card.",
        "With 3 or more players, the turn player must beat every other player to swap.",
        "Never lay a quark or lepton on top of another card",
        "If your card has no free place and you use no special ability, discard it.",
        "The game also ends when the deck runs out. Then nobody scores points for their target card.",
        "Cards still in hand may then go on their owner's mat, but without special abilities",
        "Gluon: only if you have a colour-charged particle",
        "Photon: only if you have an electrically charged particle.",
        "transform a particle on your mat or on another player's mat",
        "Place each product where it belongs on your mat (leptons in the lepton area) if there is room",
    ],
    "de": [
        "Spielt zu zweit, bei ungerader Klassengröße auch zu dritt.",
        "Bei der Ladung zählt das Vorzeichen, nicht der Betrag",
        "Eine mittlere Lebensdauer „stabil“ gilt als unendlich",
        "Die Neutrinomasse „< 0,8 eV/c²“ zählt als mehr als 0",
        "Bei 3 oder mehr Spielern muss der Spieler am Zug jeden anderen schlagen",
        "Lege nie ein Quark oder Lepton auf eine andere Karte",
        "Das Spiel endet auch, wenn der Stapel leer ist.",
        "Gluon: nur wenn du ein Teilchen mit Farbladung hast",
        "auf deinem oder dem Spielplan eines anderen Spielers umzuwandeln",
        "wenn dort frei ist; wirf jedes Produkt ohne Platz ab.",
    ],
}


def _words(text: str) -> str:
    """Text as a run of words without the numbers that stand alone: a wrapped cell's lines may
    come out of the PDF with its row's step or level number between them."""
    return " ".join(w for w in text.split() if not re.fullmatch(r"\d+", w))


def _pdf_text(data: bytes | Path) -> str:
    with open_text(data) as pdf:
        return _words(" ".join(page.extract_text() or "" for page in pdf.pages))


def _build(out: Path, *args: str) -> None:
    env = {**os.environ, "CARDGEN_DAEMON": "off"}
    proc = subprocess.run([sys.executable, "-m", "cardgen", "build", "tutti-quantum", "particle-builder",
                           "--strict", "--jobs", "1", "--out", str(out), *args],
                          capture_output=True, text=True, timeout=900, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("rules-tq-pb")
    _build(out, "--lang", "en,de")
    return out


@pytest.mark.parametrize("game_id, tables", [("tutti-quantum", TQ_TABLES), ("particle-builder", PB_TABLES)])
def test_the_rule_tables_are_listed_in_game_yaml(game_id: str, tables: tuple[str, ...]) -> None:
    game = cardgen.load_game(game_id)
    for tid in tables:
        assert tid in game.tables, f"{game_id}: table '{tid}' is not listed in game.yaml"
        assert game.tables[tid].kind == "records"


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("game_id, expected", [("tutti-quantum", TQ_EXPECTED), ("particle-builder", PB_EXPECTED)])
def test_the_sheet_prints_the_new_rules(built: Path, game_id: str, expected: dict, lang: str) -> None:
    text = _pdf_text(built / game_id / lang / "rules.pdf")
    for sentence in expected[lang]:
        assert _words(sentence) in text, (game_id, lang, sentence)


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("game_id, tables", [("tutti-quantum", TQ_TABLES), ("particle-builder", PB_TABLES)])
def test_every_row_of_the_rule_tables_is_printed_translated(built: Path, game_id: str, tables: tuple[str, ...],
                                                            lang: str) -> None:
    game = cardgen.load_game(game_id)
    tr = i18n.translator(game, lang) if lang != "en" else None
    text = _pdf_text(built / game_id / lang / "rules.pdf")
    for tid in tables:
        table = game.tables[tid]
        title = tr(table.title, "table.title") if tr else table.title
        assert _words(title) in text, (tid, title)
        specs = table.options["fields"]
        for row in table.rows:
            for name, value in row.values.items():
                if specs[name].type == "text" and isinstance(value, str):
                    shown = tr(value, f"{tid}.{name}") if tr else value
                    if lang != "en":
                        assert shown != value, f"{tid}.{row.id}: no {lang} translation"
                    assert _words(shown) in text, (tid, row.id, shown)


def test_level_1_leaves_the_later_levels_rules_off(tmp_path: Path) -> None:
    """`cardgen build --level 1`: the sheet keeps the Level 1 rules and drops every row that
    belongs to a later level."""
    env = {**os.environ, "CARDGEN_DAEMON": "off"}
    proc = subprocess.run([sys.executable, "-m", "cardgen", "build", "particle-builder", "--level", "1", "--strict",
                           "--jobs", "1", "--out", str(tmp_path)], capture_output=True, text=True, timeout=900, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = _pdf_text(tmp_path / "particle-builder" / "en" / "rules.pdf")
    game = cardgen.load_game("particle-builder")
    for sentence in PB_EXPECTED["en"][:11]:   # the Level 1 rules
        assert _words(sentence) in text, sentence
    later = [r for r in game.tables["level-rules"].rows if r.values["level"] > 1]
    assert later, "the level-rules table has no rows"
    for row in later:
        assert _words(row.values["text"]) not in text, row.id
    assert "Rules added by the higher levels" not in text


@pytest.mark.parametrize("level", [2, 3, 5])
def test_a_level_keeps_its_own_rows_and_drops_later_ones(level: int) -> None:
    game = cardgen.load_game("particle-builder")
    result = sheets.render_sheet(game, "rules", "en", 210, 297, None, level, "t", None)
    text = _pdf_text(result.pdf)
    rows = game.tables["level-rules"].rows
    assert {r.values["level"] for r in rows} == set(range(2, 8))
    for row in rows:
        assert (_words(row.values["text"]) in text) == (row.values["level"] <= level), (level, row.id)
