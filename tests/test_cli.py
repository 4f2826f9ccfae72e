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


def test_a_language_code_is_written_one_way(cli, tmp_path):
    """'DE' beside 'de' would be a second catalog of one language ('i18n init --lang EN' made one)."""
    for given, written in (("DE", "de"), ("de_AT", "de-AT"), ("pt-br", "pt-BR"), ("zh-hant", "zh-Hant")):
        res = cli("build", "qcd", "--lang", given, "--out", str(tmp_path / "out"))
        assert res.returncode == 2, res.stderr
        assert f"language code '{given}' is written '{written}'. Fix: use {written}" in res.stderr
    assert not (tmp_path / "out" / "qcd").exists()


def test_render_off_with_languages_is_said_in_the_commands_words(cli):
    res = cli("check", "qcd", "--no-render", "--lang", "de")
    assert res.returncode == 2
    assert "Fix: drop --no-render, or the --lang options." in res.stderr and "render=False" not in res.stderr


def test_a_new_game_may_not_take_a_shipped_games_id(cli, tmp_path):
    res = cli("new", "qcd", "--from", "qcd", "--dir", str(tmp_path / "games"))
    assert res.returncode == 2
    assert "'qcd' is the id of a game cardgen ships. Fix: choose another id, e.g. my-qcd" in res.stderr
    assert not (tmp_path / "games").exists()


def test_a_fix_names_a_designers_game_by_its_folder(cli, tmp_path):
    """'cardgen i18n init --lang ko g3' answered 'unknown game g3' for a game loaded by path."""
    assert cli("new", "lepton-snap", "--from", "qcd", "--dir", str(tmp_path / "games")).returncode == 0
    folder = tmp_path / "games" / "lepton-snap"
    res = cli("check", str(folder), "--lang", "ko")
    assert res.returncode == 2
    assert f"Fix: run 'cardgen i18n init --lang ko {folder}' and translate it." in res.stderr


def test_output_into_a_closed_pipe_ends_quietly(tmp_path):
    """`cardgen list | true`: the reader has gone; no 'cannot use: Broken pipe' error."""
    import os
    import subprocess
    import sys

    read, write = os.pipe()
    os.close(read)   # the reader is gone before the command writes a line
    try:
        res = subprocess.run([sys.executable, "-m", "cardgen", "list"], stdout=write, stderr=subprocess.PIPE,
                             text=True, timeout=120)
    finally:
        os.close(write)
    assert res.returncode == 141 and res.stderr == "", res.stderr


def test_a_game_folder_given_as_dot_or_dot_dot_is_that_folder(cli, game_copy):
    g = game_copy("particles-in-circle")
    res = cli("check", "--no-render", ".", cwd=g.path)
    assert res.returncode == 0, res.stderr
    res = cli("check", "--no-render", "..", cwd=g.path / "templates")
    assert res.returncode == 0, res.stderr
