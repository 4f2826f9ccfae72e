"""The command line as a user meets it: list, check, exit codes and JSON."""

from __future__ import annotations

import json


def test_list_shows_games_components_counts_and_languages(cli):
    res = cli("list")
    assert res.returncode == 0, res.stderr
    out = res.stdout
    for gid in ("particle-builder", "tutti-quantum", "qcd", "particles-in-circle"):
        assert gid in out
    assert "languages: en, ar, de, es, fr, zh" in out
    assert "particles          44 cards" in out  # Tutti Quantum
    assert "cards              66 cards" in out  # Particles in Circle


def test_list_json_counts(cli):
    data = {g["id"]: g for g in json.loads(cli("list", "--json").stdout)}
    tutti = {c["id"]: c["cards"] for c in data["tutti-quantum"]["components"]}
    assert tutti == {"particles": 44, "reference": 4, "score-tokens": 42, "pawn": 1}
    assert {c["id"]: c["cards"] for c in data["qcd"]["components"]} == {"cards": 52}


def test_check_shipped_data_exits_0(cli):
    res = cli("check")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "all rules pass" in res.stdout


def test_check_with_findings_exits_1_and_names_file_line_rule_fix(game_copy, cli):
    g = game_copy("tutti-quantum")
    g.edit("tables/setup.yaml", "shown: 5, rounds: 8", "shown: 5, rounds: 7")
    res = cli("check", str(g.path))
    assert res.returncode == 1
    line = next(l for l in res.stdout.splitlines() if "setup-balance" in l)
    assert "tables/setup.yaml:9:5: error[setup-balance]:" in line and "Fix:" in line


def test_check_json(game_copy, cli):
    g = game_copy("qcd")
    g.edit("components/cards.yaml", "count: 4", "count: 3")
    res = cli("check", str(g.path), "--json")
    assert res.returncode == 1
    data = json.loads(res.stdout)
    assert data["ok"] is False
    f = next(f for f in data["findings"] if f["rule"] == "deck-size" and "boson" in f["message"])
    assert f["file"].endswith("game.yaml") and f["line"] > 0 and f["fix"]


def test_check_json_on_unusable_input(game_copy, cli):
    g = game_copy("qcd")
    g.edit("components/cards.yaml", "count: 4", "count: four")
    res = cli("check", str(g.path), "--json")
    assert res.returncode == 2
    data = json.loads(res.stdout)
    assert data["errors"][0]["line"] == 32 and "whole number" in data["errors"][0]["message"]


def test_unknown_game_is_a_usage_error(cli):
    res = cli("check", "tuti-quantum")
    assert res.returncode == 2 and "did you mean 'tutti-quantum'" in res.stderr


def test_unknown_option_is_a_usage_error(cli):
    assert cli("check", "--colour").returncode == 2
