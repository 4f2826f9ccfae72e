"""QCD the Game and Particles in Circle: the rule sheet (rules.pdf) a build prints holds the whole
play procedure, so a teacher can run the game without the original rulebook.

The expected rows are read from the table files themselves (not through game.yaml), so a table
that game.yaml stops listing, or a row the sheet stops printing, fails here; the German text is
each row's translation from the shipped catalog."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from babel.messages.pofile import read_po

import cardgen
from cardgen import sheets
from tests.sheettext import open_text

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "data" / "games"
LOCALE = ROOT / "data" / "locale"

#: The rule tables each game prints, in the order its game.yaml lists them.
RULE_TABLES = {
    "qcd": ["deal", "turn", "decay", "annihilation", "transmutations", "scoring", "flavours"],
    "particles-in-circle": ["turn", "disputes"],
}
#: The tables written so that the sheet says how to play (every text row must be printed).
PLAY_TABLES = {
    "qcd": ["deal", "turn", "decay", "annihilation", "scoring"],
    "particles-in-circle": ["turn", "disputes"],
}
LANGS = ("en", "de")
TRANSLATED = ("de", "fr", "es", "ar", "zh")


def _flat(s: str) -> str:
    """Whitespace (line breaks, no-break spaces) as single spaces."""
    return re.sub(r"\s+", " ", s).strip()


def _table(game: str, table: str) -> dict:
    return yaml.safe_load((GAMES / game / "tables" / f"{table}.yaml").read_text(encoding="utf-8"))


def _strings(game: str, table: str) -> list[tuple[str, str]]:
    """(catalog context, English text) of the table's title and of every text cell of its rows."""
    data = _table(game, table)
    texts = [n for n, spec in data["fields"].items() if spec.get("type") == "text"]
    out = [("table.title", data["title"])]
    for row in data["rows"]:
        out += [(f"{table}.{n}", row[n]) for n in texts if row.get(n)]
    return out


def _catalog(game: str, lang: str):
    with (LOCALE / lang / "LC_MESSAGES" / f"{game}.po").open("rb") as fh:
        return read_po(fh)


def _in(lang: str, game: str, context: str, text: str) -> str:
    if lang == "en":
        return text
    message = _catalog(game, lang).get(text, context)
    assert message is not None and message.string and not message.fuzzy, (lang, context, text)
    return message.string


@pytest.fixture(scope="module")
def rules_text(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], str]:
    """One strict `cardgen build` of both games in English and German: each rules.pdf's text."""
    out = tmp_path_factory.mktemp("rules")
    proc = subprocess.run([sys.executable, "-m", "cardgen", "build", *RULE_TABLES, "--lang", ",".join(LANGS),
                           "--strict", "--jobs", "1", "--out", str(out)],
                          capture_output=True, text=True, timeout=900, cwd=ROOT,
                          env={**os.environ, "CARDGEN_DAEMON": "off"})
    assert proc.returncode == 0, proc.stderr
    found = {}
    for game in RULE_TABLES:
        for lang in LANGS:
            with open_text(out / game / lang / "rules.pdf") as pdf:
                found[game, lang] = _flat(" ".join(p.extract_text(use_text_flow=True) or "" for p in pdf.pages))
    return found


@pytest.mark.parametrize("game", list(RULE_TABLES))
def test_game_yaml_lists_the_rule_tables_in_play_order(game: str) -> None:
    assert list(cardgen.load_game(game).tables) == RULE_TABLES[game]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game", list(PLAY_TABLES))
def test_every_rule_row_is_printed(rules_text, game: str, lang: str) -> None:
    text = rules_text[game, lang]
    missing = [(ctx, en) for table in PLAY_TABLES[game] for ctx, en in _strings(game, table)
               if _flat(_in(lang, game, ctx, en)) not in text]
    assert not missing, missing


@pytest.mark.parametrize("game", list(PLAY_TABLES))
def test_steps_are_printed_in_order(rules_text, game: str) -> None:
    """The numbered steps of each play table read top to bottom in the order of the rulebook."""
    text = rules_text[game, "en"]
    for table in PLAY_TABLES[game]:
        rows = [r for r in _table(game, table)["rows"] if "step" in r]
        if not rows:
            continue
        assert [r["step"] for r in rows] == list(range(1, len(rows) + 1)), table
        at = [text.index(_flat(f"{r['step']} {r['text']}")) for r in rows]
        assert at == sorted(at), table


def test_qcd_sheet_states_the_rules_a_teacher_needs(rules_text) -> None:
    text = rules_text["qcd", "en"]
    for needed in ("Deal 5 cards to each player",                        # the deal
                   "until you hold 5 cards",                               # refilling the hand
                   "When the draw stack runs out, everyone has one last turn",  # the end of a hand
                   "protons and neutrons too",                             # stable particles decay at the end
                   "Any particle with s, c, s̄ or c̄",                       # only s or c decays
                   "only the s or s̄ card goes on your energy stack",      # kaons
                   "May disintegrate at once",                             # Deltas
                   "only at the end of the hand",                          # p and n
                   "Never disintegrates.",                                 # pions
                   "needs its own anti-quark in the other",                # annihilation
                   "dead-card pile",
                   "The same changes apply: c̄ → s̄, s̄ → ū, ū → d̄, d̄ → ū.",   # anti-quarks transmute too
                   "minus that of the quarks and anti-quarks left in your hand",  # the score
                   "First to 10 000 MeV wins"):                            # the target
        assert _flat(needed) in text, needed


def test_particles_in_circle_sheet_states_mistakes_and_the_dealer(rules_text) -> None:
    text = rules_text["particles-in-circle", "en"]
    for needed in ("no cards collected yet", "Every other player takes one card from the dealer's deck.",
                   "nobody right", "The dealer puts the middle card anywhere in the circle",
                   "rightly called “None”", "put the middle card back into the deck",
                   "Take turns as dealer, one round each."):
        assert needed in text, needed


@pytest.mark.parametrize("game", list(PLAY_TABLES))
def test_every_rule_string_is_translated_keeping_symbols_and_numbers(game: str) -> None:
    for lang in TRANSLATED:
        catalog = _catalog(game, lang)
        for table in PLAY_TABLES[game]:
            for ctx, en in _strings(game, table):
                message = catalog.get(en, ctx)
                assert message is not None and message.string.strip() and not message.fuzzy, (lang, ctx, en)
                tr = message.string
                assert sorted(re.findall(r"\d+", tr)) == sorted(re.findall(r"\d+", en)), (lang, en, tr)
                for mark in ("MeV", "→", "\u0304"):   # units, arrows and the bar of an antiquark
                    assert tr.count(mark) == en.count(mark), (lang, mark, en, tr)


def test_a_table_left_out_of_game_yaml_leaves_the_sheet(game_copy) -> None:
    """The sheet prints what game.yaml lists: without the line, the disintegration rules go."""
    row = _table("qcd", "decay")["rows"][0]["rule"]

    def printed(game) -> str:
        pages = sheets.sheet_pages(game, "rules", "en", 210, 297, lambda m, c=None: m, None)
        return _flat(" ".join(item.get("s", "") for page in pages for item in page if item.get("kind") == "text"))

    assert row in printed(cardgen.load_game("qcd"))
    g = game_copy("qcd")
    g.edit("game.yaml", "  - tables/decay.yaml\n", "")
    assert row not in printed(g.load())


def test_a_qcd_deck_without_one_antiquark_flavour_is_a_finding(game_copy):
    """24 antiquarks with no anti-charm (an extra anti-up in its place) passed: the rulebook's
    antiquarks are the quarks' counterparts, and a charm card then annihilates with nothing."""
    g = game_copy("qcd")
    assert not g.findings("antiparticles-present")
    g.edit("components/cards.yaml", "particle: [ubar, dbar, sbar, cbar]", "particle: [ubar, dbar, sbar]")
    g.edit("components/cards.yaml", "  - id: wild-w\n",
           '  - matrix: {particle: [ubar], colour: [anti-red, anti-green, anti-blue]}\n'
           '    id: "{particle}-{colour}-x"\n    count: 2\n  - id: wild-w\n')
    found = g.findings("antiparticles-present")
    assert found and any("charm" in f.message for f in found), [f.message for f in found]


def test_a_colour_on_a_lepton_pairs_no_antiparticle_by_colour(game_copy):
    """An electron card given a colour: colour-balance says to remove it; antiparticles-present
    asked for an 'anti-red positron' and a second electron, which colour-balance then refused."""
    g = game_copy("particles-in-circle")
    g.edit("components/cards.yaml", "particle: [e-, e+, mu-,", "particle: [e+, mu-,")
    g.write("components/cards.yaml", (g.path / "components/cards.yaml").read_text(encoding="utf-8")
            + "  - {id: e-, particle: e-, colour: red}\n")
    assert g.findings("colour-balance")
    assert not g.findings("antiparticles-present")
