"""Every input error of one reading is reported at once, and a game that cannot be read does not
keep the checker from the others: a user fixes all of them in one round."""

from __future__ import annotations

import json
import pickle

import pytest

import cardgen
from cardgen.errors import InputError, InputErrors
from cardgen.loader import load_each

BROKEN_SIZE = ("size: {width: 63, height: 88}", "size: {width: 63, height: [88}")
EXTRA_KEY = "surplus_key: 1\n"


def _break_qcd(g) -> None:
    """Three broken files in one game: a component's YAML, a table's YAML, a table's unknown key."""
    g.edit("components/cards.yaml", *BROKEN_SIZE)
    g.edit("tables/decay.yaml", "id: decay", "id: [decay")
    (g.path / "tables/deal.yaml").write_text((g.path / "tables/deal.yaml").read_text() + EXTRA_KEY)


def test_every_broken_file_of_a_game_is_reported(game_copy):
    g = game_copy("qcd")
    _break_qcd(g)
    with pytest.raises(InputErrors) as caught:
        cardgen.load_game(g.path)
    where = sorted((e.location.file.rsplit("/", 2)[-2:][-1], e.location.line) for e in caught.value.errors)
    assert where == [("cards.yaml", g.line_of("components/cards.yaml", "height: [88}")),
                     ("deal.yaml", g.line_of("tables/deal.yaml", "surplus_key")),
                     ("decay.yaml", g.line_of("tables/decay.yaml", "id: [decay") + 1)]
    # each line of the message is one error, with its place and its fix
    lines = str(caught.value).splitlines()
    assert len(lines) == 3 and all("error[input]" in line and "Fix:" in line for line in lines)


def test_one_broken_file_raises_its_own_error(game_copy):
    g = game_copy("qcd")
    g.edit("components/cards.yaml", *BROKEN_SIZE)
    with pytest.raises(InputError) as caught:
        cardgen.load_game(g.path)
    assert type(caught.value) is InputError and "cards.yaml" in str(caught.value.location)


def test_errors_cross_a_process_whole(game_copy):
    g = game_copy("qcd")
    _break_qcd(g)
    with pytest.raises(InputErrors) as caught:
        cardgen.load_game(g.path)
    copy = pickle.loads(pickle.dumps(caught.value))
    assert str(copy) == str(caught.value) and len(copy.errors) == 3 and copy.exit_code == 2


def test_load_each_keeps_the_games_that_load(game_copy):
    broken, fine = game_copy("qcd"), game_copy("particles-in-circle")
    broken.edit("components/cards.yaml", *BROKEN_SIZE)
    games, errors = load_each([str(broken.path), str(fine.path)])
    assert [g.id for g in games] == ["particles-in-circle"]
    assert len(errors) == 1 and "cards.yaml" in str(errors[0].location)
    with pytest.raises(InputError):
        cardgen.load_games([str(broken.path), str(fine.path)])


def test_check_reports_the_findings_of_the_games_it_can_read_and_every_input_error(cli, game_copy):
    broken, wrong = game_copy("qcd"), game_copy("particles-in-circle")
    _break_qcd(broken)
    findings_before = wrong.findings()
    wrong.edit("components/cards.yaml", "count: 3", "count: 4")
    assert len(wrong.findings()) > len(findings_before)
    res = cli("check", str(broken.path), str(wrong.path), "--no-render")
    assert res.returncode == 2, res.stderr
    assert "error[" in res.stdout and "particles-in-circle" in res.stdout   # the readable game's findings
    errors = [line for line in res.stderr.splitlines() if line.startswith("cardgen: ")]
    assert len(errors) == 3 and all("qcd" in line and "error[input]" in line for line in errors)
    assert "3 input errors" in res.stderr

    res = cli("check", str(broken.path), str(wrong.path), "--no-render", "--json")
    assert res.returncode == 2
    report = json.loads(res.stdout)
    assert report["ok"] is False and report["games"] == ["particles-in-circle"]
    assert len(report["errors"]) == 3 and all(e["line"] and e["column"] and e["fix"] for e in report["errors"])
    assert report["findings"]


def test_check_of_games_that_all_fail_lists_every_error(cli, game_copy):
    g = game_copy("qcd")
    _break_qcd(g)
    res = cli("check", str(g.path), "--json")
    assert res.returncode == 2
    assert len(json.loads(res.stdout)["errors"]) == 3


def test_build_stops_on_every_error_and_writes_nothing(cli, game_copy, tmp_path):
    g = game_copy("qcd")
    _break_qcd(g)
    out = tmp_path / "out"
    res = cli("build", str(g.path), "--out", str(out))
    assert res.returncode == 2
    assert len([line for line in res.stderr.splitlines() if line.startswith("cardgen: ")]) == 3
    assert "Traceback" not in res.stderr and not out.exists()
