"""``cardgen check`` renders every face as a build would, and its proof report says what was
proved, chosen and assumed: counted against the data, as text, JSON and in the preview."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

import cardgen
from cardgen.check import RAN_CLEAN, check_records
from cardgen.errors import Location
from cardgen.proof import Choice, Proof
from cardgen.rendercheck import RULE as RENDER
from cardgen.render import TemplateError
from cardgen.rules import GENERIC

from .conftest import GAMES

SHIPPED = ["particle-builder", "tutti-quantum", "qcd", "particles-in-circle"]
FRONT = "templates/card-front.svg.j2"

#: Broken copies of QCD's front template: (what, text in the template, its replacement). The
#: first three fail while rendering, the last two only when the face is drawn.
BROKEN_TEMPLATES = [
    ("division by zero", '{% set w = component.width %}', '{% set w = component.width / (card.count - card.count) %}'),
    ("text size -3", 'size=4, width=w - 16, height=5.5', 'size=-3, width=w - 16, height=5.5'),
    ("undefined variable", '{{ text(_(c.name), 8, 62.5', '{{ text(_(colour_name), 8, 62.5'),
    ("malformed SVG", 'r="16" fill="{{ tint }}" stroke="{{ ink }}" stroke-width="0.6"/>',
     'r="16" fill="{{ tint }}" stroke="{{ ink }}" stroke-width="0.6"><g>'),
    ("a dash cairo refuses", 'r="16" fill="{{ tint }}" stroke="{{ ink }}" stroke-width="0.6"/>',
     'r="16" fill="{{ tint }}" stroke="{{ ink }}" stroke-width="0.6" stroke-dasharray="-1 -2"/>'),
]


def line_of(path: Path, text: str) -> int:
    content = path.read_text(encoding="utf-8")
    assert text in content, f"{text!r} not in {path}"
    return content[:content.index(text)].count("\n") + 1


def sides(game) -> int:
    """Faces a full render makes: front and (if any) back of every distinct card."""
    return sum(len(c.cards) * (2 if c.back else 1) for c in game.components.values())


# --- check renders ------------------------------------------------------------------------------

@pytest.mark.parametrize("what, old, new", BROKEN_TEMPLATES, ids=[b[0] for b in BROKEN_TEMPLATES])
def test_a_template_a_build_fails_on_fails_the_check_with_the_same_message(game_copy, cli, tmp_path, what, old, new):
    g = game_copy("qcd")
    line = line_of(g.path / FRONT, old)
    g.edit(FRONT, old, new)
    checked = cli("check", str(g.path), "--out", str(tmp_path / "out"))
    built = cli("build", str(g.path), "--out", str(tmp_path / "out"), "--jobs", "1")
    assert checked.returncode == built.returncode == 2, checked.stdout + checked.stderr + built.stderr
    assert checked.stderr == built.stderr and "Traceback" not in checked.stderr
    message = checked.stderr.strip()
    assert len(message.splitlines()) == 1 and "internal error" not in message
    assert "card 'u-red' of component 'cards', front" in message   # the first card a build renders
    if what in ("malformed SVG", "a dash cairo refuses"):
        assert f"{Path(FRONT).name}: error[input]:" in message         # the template file (markup has no line)
    else:
        assert f"{Path(FRONT).name}:{line}:1: error[" in message
    assert not list((tmp_path / "out").rglob("*.pdf")), "the check wrote a PDF"
    quick = cli("check", str(g.path), "--no-render")
    assert quick.returncode == 0 and "faces not rendered (--no-render)" in quick.stdout, quick.stderr


def test_the_library_check_renders_unless_told_not_to(game_copy):
    g = game_copy("qcd")
    g.edit("templates/card-back.svg.j2", "{% block artwork %}", "{% block artwork %}{{ 1 / 0 }}")
    game = g.load()
    with pytest.raises(TemplateError) as info:
        cardgen.check(game)
    assert info.value.location.file.endswith("card-back.svg.j2") and info.value.location.line > 0
    assert "card 'u-red' of component 'cards', back" in info.value.message
    assert cardgen.check(game, render=False).ok


def test_a_game_whose_rules_fail_is_not_rendered_as_a_build_would_not(game_copy, cli):
    g = game_copy("qcd")
    g.edit("game.yaml", "total: 52", "total: 53")
    g.edit(FRONT, "{% set w = component.width %}", "{% set w = 1 / 0 %}")
    res = cli("check", str(g.path), "--report", "--no-cache")
    assert res.returncode == 1, res.stdout + res.stderr
    assert "Is this deck right? No: 1 finding to fix (listed last); its faces are rendered once the rules pass." \
        in res.stdout
    assert "has 52 cards, the game needs 53" in res.stdout and "ZeroDivisionError" not in res.stdout + res.stderr


def test_faces_a_build_cached_are_taken_from_it_and_a_changed_template_is_rendered_again(game_copy, cli, tmp_path):
    g = game_copy("qcd")
    out = tmp_path / "out"
    assert cli("build", str(g.path), "--out", str(out)).returncode == 0
    warm = json.loads(cli("check", str(g.path), "--out", str(out), "--json").stdout)
    assert warm["rendered"] == [{"game": "qcd", "lang": "en", "faces": 50, "drawings": 26, "reused": 50}]
    g.edit(FRONT, "size=4, width=w - 16, height=5.5", "size=-3, width=w - 16, height=5.5")
    res = cli("check", str(g.path), "--out", str(out))
    assert res.returncode == 2 and "size must be a positive number, got -3" in res.stderr, res.stderr


def test_a_check_remembers_what_it_drew_and_draws_a_changed_face_again(game_copy, cli, tmp_path):
    import sqlite3

    g = game_copy("qcd")
    out = tmp_path / "out"
    assert cli("check", str(g.path), "--out", str(out)).returncode == 0
    with sqlite3.connect(out / ".cache" / "cache.sqlite") as db:
        assert db.execute("SELECT count(*) FROM drawn").fetchone()[0] == 26   # the different faces of QCD
    old, new = BROKEN_TEMPLATES[-1][1:]
    g.edit(FRONT, old, new)
    again = cli("check", str(g.path), "--out", str(out))
    built = cli("build", str(g.path), "--out", str(out), "--jobs", "1")
    assert again.returncode == built.returncode == 2 and again.stderr == built.stderr
    assert "CAIRO_STATUS_INVALID_DASH" in again.stderr


def test_no_render_and_languages_cannot_go_together(cli):
    res = cli("check", "qcd", "--no-render", "--lang", "de")
    assert res.returncode == 2 and "rendering is off" in res.stderr


# --- the proof report ---------------------------------------------------------------------------

@pytest.mark.parametrize("game_id", SHIPPED)
def test_the_proof_report_of_each_shipped_game_counts_what_the_data_holds(game_id, cli, tmp_path):
    game = cardgen.load_game(game_id)
    raw = yaml.safe_load((GAMES / game_id / "game.yaml").read_text(encoding="utf-8"))
    res = cli("check", game_id, "--report", "--no-cache")
    print(res.stdout)
    assert res.returncode == 0, res.stdout + res.stderr
    text = res.stdout
    assert text.startswith(f"== {game_id} ==\nIs this deck right? Yes: every rule passes and every face renders.\n")
    assert f"What it assumes where the rulebook is silent ({len(raw['assumptions'])}):" in text
    for assumption in raw["assumptions"]:
        assert f"• {assumption['id']}: " in text
    assert f"✓ render: rendered {sides(game)} faces in en: no template errors" in text
    assert "What is wrong (0):\n  nothing: every rule passes" in text

    data = json.loads(cli("check", game_id, "--json", "--no-cache").stdout)
    assert [r["faces"] for r in data["rendered"]] == [sides(game)]
    assert len(data["assumptions"]) == len(raw["assumptions"])
    assert [a["id"] for a in data["assumptions"]] == [a["id"] for a in raw["assumptions"]]
    proofs = data["proofs"]
    # every rule that ran is in the report: each generic rule once, each declared check at its line
    assert {p["rule"] for p in proofs} >= set(GENERIC)
    for spec in game.checks:   # at the check's line, or at the table or component it proved things about
        assert any(p["rule"] == spec.rule for p in proofs), spec.rule
    # deck sizes as the components hold them, with the declared split
    for spec, declared in zip(game.checks, raw["checks"]):
        if spec.rule != "deck-size":
            continue
        comp = game.components[declared["component"]]
        (proof,) = [p for p in proofs if p["rule"] == "deck-size" and p["line"] == spec.location.line]
        assert proof["count"] == comp.total == declared["total"]
        split = "".join(f", {n} {key}" for key, n in declared.get("counts", {}).items())
        assert proof["claim"].startswith(f"{comp.id}: {comp.total} {comp.kind}") and proof["claim"].endswith(
            f"{split}, as declared")


def test_deck_rule_proofs_state_the_counts_of_the_deck():
    report = cardgen.check(cardgen.load_game("particles-in-circle"), render=False)
    claims = {p.rule: p for p in report.proofs}
    cards = cardgen.load_game("particles-in-circle").components["cards"]
    coloured = sum(c.count for c in cards.cards if c.fields["particle"].colour_charged)
    assert claims["colour-balance"].count == cards.total
    assert claims["colour-balance"].claim.startswith(f"cards: {coloured} colour-charged cards carry a colour")
    assert f"{cards.total - coloured} colourless cards carry none" in claims["colour-balance"].claim
    fermions = sum(c.count for c in cards.cards if c.fields["particle"].is_fermion)
    assert claims["antiparticles-present"].claim == (f"cards: each of the {fermions} fermion cards has its "
                                                     f"antiparticle in the deck as often as itself, in the anti-colour")
    assert claims["colour-wheel"].count == 6


def test_a_broken_deck_proves_nothing_about_its_size(game_copy):
    g = game_copy("tutti-quantum")
    g.edit("components/particles.yaml", "line: q,     count: 13", "line: q,     count: 12")
    report = cardgen.check(g.load(), render=False)
    assert not any(p.rule == "deck-size" and p.claim.startswith("particles:") for p in report.proofs)
    assert any(p.rule == "deck-size" and p.claim == "reference: 4 references, as declared" for p in report.proofs)


def test_the_report_shows_whatever_rules_yield_and_a_silent_rule_too(monkeypatch):
    game = cardgen.load_game("qcd")
    where = Location("data/games/qcd/game.yaml", 7, 3)
    monkeypatch.setitem(GENERIC, "quiet-rule", lambda g: iter(()))
    monkeypatch.setitem(GENERIC, "chooser", lambda g: iter([
        Choice("chooser", "energy of s", "the rulebook prints 500 MeV", where, g.id),
        Proof("chooser", "52 energies checked", 52, g.id, where)]))
    findings, proofs, choices = check_records(game)
    assert Proof("quiet-rule", RAN_CLEAN, 0, "qcd", game.location) in proofs
    report = cardgen.check(game, render=False)
    from cardgen.proofreport import report_json, report_text

    text = report_text(report)
    assert "✓ quiet-rule: ran: no findings" in text
    chosen = text[text.index(f"What the data chose on purpose ({len(report.choices)}):"):]
    assert "\n  • energy of s: the rulebook prints 500 MeV [chooser]  (data/games/qcd/game.yaml:7:3)" in chosen
    assert "✓ chooser: 52 energies checked" in text
    assert {"rule": "chooser", "game": "qcd", "subject": "energy of s", "reason": "the rulebook prints 500 MeV",
            "file": "data/games/qcd/game.yaml", "line": 7, "column": 3} in report_json(report)["choices"]


def test_report_json_schema(cli, game_copy):
    res = cli("check", "qcd", "--report", "--json", "--no-cache")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert set(data) == {"ok", "games", "errors", "findings", "proofs", "choices", "assumptions", "rendered"}
    assert data["ok"] is True and data["games"] == ["qcd"] and data["errors"] == data["findings"] == []
    assert all(set(p) == {"rule", "game", "claim", "count", "file", "line"} and isinstance(p["count"], int)
               and p["game"] == "qcd" for p in data["proofs"])
    assert all(set(a) == {"game", "id", "text", "file", "line", "column"} and a["line"] > 0
               for a in data["assumptions"])
    assert data["rendered"] == [{"game": "qcd", "lang": "en", "faces": 50, "drawings": 26, "reused": 0}]
    assert data["proofs"][-1]["rule"] == RENDER and data["proofs"][-1]["count"] == 50

    g = game_copy("qcd")
    g.edit(FRONT, "{% set w = component.width %}", "{% set w = 1 / 0 %}")
    broken = cli("check", str(g.path), "--report", "--json", "--no-cache")
    assert broken.returncode == 2
    data = json.loads(broken.stdout)
    assert set(data) == {"ok", "games", "errors", "findings", "proofs", "choices", "assumptions", "rendered"}
    assert data["ok"] is False and data["errors"][0]["line"] == line_of(g.path / FRONT, "{% set w = 1 / 0 %}")
    assert data["errors"][0]["file"].endswith("card-front.svg.j2")


# --- the preview --------------------------------------------------------------------------------

def test_the_preview_shows_each_games_proof_report_and_refreshes_it(game_copy):
    from cardgen.serve import PreviewServer

    from .test_serve import EventStream, get

    g = game_copy("qcd")
    server = PreviewServer(games_dirs=[g.games_dir], game="qcd", port=0, ping_seconds=0.5).start()
    try:
        state = json.loads(get(server.url + "api/game/qcd")[1])
        report = state["report"]
        assert report["verdict"] == "Is this deck right? Yes: every rule passes and every face renders."
        titles = [s["title"] for s in report["sections"]]
        rules = cardgen.check(cardgen.load_game(g.path), render=False)
        assumed = len(cardgen.load_game(g.path).assumptions)
        assert assumed >= 3
        assert titles == [f"What was checked ({len(rules.proofs) + 1})",       # and the render proof
                          f"What the data chose on purpose ({len(rules.choices)})",
                          f"What it assumes where the rulebook is silent ({assumed})", "What is wrong (0)"]
        checked = [i["text"] for i in report["sections"][0]["items"]]
        assert "deck-size: cards: 52 cards, 24 quark, 24 antiquark, 4 boson, as declared" in checked
        assert any(t.startswith("render: rendered 50 faces in en: no template errors") for t in checked)
        page = get(server.url + "game/qcd")[1]
        assert '<section id="report">' in page and f"What it assumes where the rulebook is silent ({assumed})" in page
        assert "wild-w: The four wild cards show a W without a sign" in page

        stream = EventStream(server.url)
        try:
            g.edit("game.yaml", "total: 52", "total: 53")
            event = stream.next_update()
            assert event["report"]["verdict"].startswith("Is this deck right? No: 1 finding to fix")
            wrong = event["report"]["sections"][3]
            assert wrong["title"] == "What is wrong (1)" and "the game needs 53" in wrong["items"][0]["text"]
        finally:
            stream.close()
    finally:
        server.stop()


@pytest.mark.parametrize("gid", ["particle-builder", "tutti-quantum", "qcd", "particles-in-circle"])
def test_every_rule_says_what_it_established_on_the_shipped_games(gid):
    """A rule with nothing to look at in a game says what it looked for ("no card scores
    points by its particle: nothing to compare"); none is left at the bare "ran: no
    findings", which tells a teacher nothing."""
    _findings, proofs, _choices = check_records(cardgen.load_game(gid))
    assert not [p.rule for p in proofs if p.claim == RAN_CLEAN]


def test_the_rulebook_deviations_are_counted_where_the_rules_are_listed():
    _findings, proofs, choices = check_records(cardgen.load_game("particle-builder"))
    deviations = [c for c in choices if c.rule == "rulebook-deviations"]
    claim = next(p for p in proofs if p.rule == "rulebook-deviations")
    assert deviations and claim.count == len(deviations)
    assert claim.claim.startswith(f"{len(deviations)} table row(s) differ from the printed rulebook")
    quiet = next(p for p in check_records(cardgen.load_game("qcd"))[1] if p.rule == "rulebook-deviations")
    assert (quiet.count, quiet.claim) == (0, "no table row is declared to differ from the printed rulebook")
