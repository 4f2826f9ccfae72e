"""The check gate of `cardgen build`: a deck the rules refuse is not built (exit 1, the
findings listed, no file written)."""

from __future__ import annotations

from pathlib import Path

BREAK = ("components/cards.yaml", "colour: [anti-red, anti-green, anti-blue]", "colour: [anti-green, anti-blue]")


def test_the_command_exits_1_with_the_findings(game_copy, cli, tmp_path):
    g = game_copy("particles-in-circle")
    g.edit(*BREAK)
    res = cli("build", str(g.path), "--out", str(tmp_path), "--jobs", "2")
    assert res.returncode == 1, res.stdout
    assert "cardgen: not building: " in res.stderr and "rule finding(s); run 'cardgen check'" in res.stderr
    assert any("error[antiparticles-present]" in line and "(anti-red)" in line for line in res.stderr.splitlines())
    assert not (tmp_path / "particles-in-circle").exists()
