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


def test_the_executable_exits_fast_with_the_commands_code_and_output(monkeypatch, capsys):
    """``run`` skips the interpreter's teardown (os._exit) but keeps what a normal exit
    gives: flushed output and the command's exit code, a message for sys.exit("...")."""
    import cardgen.cli as cli_module

    exits: list[int] = []
    monkeypatch.setattr(cli_module.os, "_exit", exits.append)
    for outcome, code in ((None, 0), (SystemExit(3), 3), (SystemExit(None), 0), (SystemExit("no deck"), 1)):
        def fake_main(outcome=outcome) -> None:
            print("working")
            if outcome is not None:
                raise outcome
        monkeypatch.setattr(cli_module, "main", fake_main)
        cli_module.run()
        assert exits.pop() == code
    captured = capsys.readouterr()
    assert captured.out.count("working") == 4
    assert captured.err.strip() == "no deck"


def test_a_build_through_the_executable_leaves_a_usable_cache(tmp_path, cli):
    """The fast exit skips SQLite's checkpoint at close: the next build still finds every
    face (the write-ahead log is read back) and reuses the PDF it wrote."""
    first = cli("build", "qcd", "--out", str(tmp_path))
    assert first.returncode == 0, first.stderr
    assert "cards.pdf" in first.stdout   # printed, and flushed before the fast exit
    pdf = (tmp_path / "qcd/en/cards.pdf").read_bytes()
    import cardgen
    from cardgen.build import card_keys
    from cardgen.cache import FaceCache

    game = cardgen.load_game("qcd")
    keys = [k for _c, _n, *ks in card_keys(game, game.components["cards"], "en") for k in ks if k]
    cache = FaceCache(tmp_path / ".cache")
    assert cache.present(keys) == set(keys)
    again = cli("build", "qcd", "--out", str(tmp_path))
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "qcd/en/cards.pdf").read_bytes() == pdf


def test_every_command_explains_every_option_and_shows_an_example():
    """`--help` is a user's manual: no option without a help text, no command without an example,
    and the command lists give each command's whole summary."""
    import click
    from click.testing import CliRunner

    from cardgen.cli import main

    def commands(group, path):
        for name, cmd in group.commands.items():
            if isinstance(cmd, click.Group):
                yield from commands(cmd, path + [name])
            else:
                yield path + [name], cmd

    found = list(commands(main, []))
    assert len(found) >= 14
    for path, cmd in found:
        assert all(p.help for p in cmd.params if isinstance(p, click.Option)), path
        shown = CliRunner().invoke(main, [*path, "--help"], terminal_width=80).output
        assert "Example" in shown and "cardgen " + " ".join(path) in shown, path
    listing = CliRunner().invoke(main, ["--help"], terminal_width=60).output.split("Commands:")[1]
    assert "..." not in listing                                   # click's mark of a cut-off summary
    for name, cmd in main.commands.items():
        summary = " ".join((cmd.help or "").split("\n\n")[0].split())
        assert summary.split()[-1] in listing, name
