"""The bad-input battery: ~50 broken copies of a minimal valid game, one defect each, with the
exact error `cardgen check` must give (file, line, column, message and fix) — see
tests/bad_inputs/cases.yaml for the cases and the operations that describe each defect."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

import cardgen
from cardgen.errors import CardgenError, display_path, sentence

HERE = Path(__file__).resolve().parent / "bad_inputs"
BASE = HERE / "_base" / "demo"
CASES: list[dict[str, Any]] = yaml.safe_load((HERE / "cases.yaml").read_text(encoding="utf-8"))
OPS = ("replace", "write", "encode", "pad", "symlink_out", "symlink")


def materialize(case: dict[str, Any], root: Path) -> Path:
    """Copy the base game to root/<case name>/demo and apply the case's defect."""
    game = root / case["name"] / "demo"
    shutil.copytree(BASE, game)
    for op in OPS:  # a case uses one or two of these, applied in this order
        spec = case.get(op)
        if spec is None:
            continue
        if op == "replace":
            f = game / spec["file"]
            text = f.read_text(encoding="utf-8")
            assert spec["old"] in text, f"{case['name']}: {spec['old']!r} not in {spec['file']}"
            f.write_text(text.replace(spec["old"], spec["new"], 1), encoding="utf-8")
        elif op == "write":
            (game / spec["file"]).write_text(spec["text"], encoding="utf-8")
        elif op == "encode":
            f = game / spec["file"]
            f.write_bytes(f.read_text(encoding="utf-8").encode(spec["encoding"]))
        elif op == "pad":
            f = game / spec["file"]
            data = f.read_bytes()
            line = spec.get("line", "# " + "padding " * 15 + "\n").encode("utf-8")
            f.write_bytes(data + line * ((spec["bytes"] - len(data)) // len(line) + 1))
        elif op == "symlink_out":
            f = game / spec
            outside = game.parent / f.name
            shutil.move(f, outside)
            f.symlink_to(os.path.relpath(outside, f.parent))
        elif op == "symlink":
            for link in spec:
                (game / link["link"]).symlink_to(link["to"])
    return game


def outcome(game: Path) -> dict[str, Any]:
    """What the library answers for a game folder, in the shape of a case's `expect`."""
    try:
        report = cardgen.check(cardgen.load_game(game), render=False)
    except CardgenError as err:
        return {"exit": err.exit_code, **_where(err.location, game), "message": err.message, "fix": err.fix}
    errors = [f for f in report.findings if f.severity == "error"]
    if not errors:
        return {"exit": 0}
    assert len(errors) == 1, "a case must break exactly one rule: " + "; ".join(map(str, errors))
    f = errors[0]
    return {"exit": 1, "rule": f.rule, **_where(f.location, game), "message": f.message, "fix": f.fix}


def _where(loc: Any, game: Path) -> dict[str, Any]:
    path = Path(loc.file)
    path = path if path.is_absolute() else Path.cwd() / path
    rel = os.path.relpath(os.path.abspath(path), game.resolve())
    return {"file": Path(rel).as_posix(), "line": loc.line, "column": loc.column}


def expected_line(expect: dict[str, Any]) -> str:
    """The one line the CLI prints, with the game given as 'demo' from its parent folder."""
    where = f"demo/{expect['file']}" + (f":{expect['line']}:{expect['column']}" if expect["line"] else "")
    code = expect.get("rule", "input")
    return f"{where}: error[{code}]: {sentence(expect['message'])} Fix: {sentence(expect['fix'])}"


def _placed(expect: dict[str, Any], game: str) -> dict[str, Any]:
    """Messages that name a folder say {game} in cases.yaml: the game folder as cardgen shows it."""
    return {k: v.replace("{game}", game) if isinstance(v, str) else v for k, v in expect.items()}


def test_the_base_game_is_valid(tmp_path: Path) -> None:
    game = materialize({"name": "base"}, tmp_path)
    assert outcome(game) == {"exit": 0}


def test_the_battery_covers_enough_defects() -> None:
    names = [c["name"] for c in CASES]
    assert len(names) >= 25 and len(set(names)) == len(names)
    assert all(sum(op in c for op in OPS) >= 1 for c in CASES), "every case needs a defect"
    assert {c["expect"]["exit"] for c in CASES} == {1, 2}


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_bad_input(case: dict[str, Any], tmp_path: Path) -> None:
    if (case.get("symlink") or case.get("symlink_out")) and not hasattr(os, "symlink"):
        pytest.skip("no symbolic links on this system")
    game = materialize(case, tmp_path)
    expect = _placed(case["expect"], display_path(game))
    assert outcome(game) == expect
    if case.get("cli"):
        expect = _placed(case["expect"], "demo")
        res = subprocess.run([sys.executable, "-m", "cardgen", "check", "demo"], capture_output=True, text=True,
                             cwd=game.parent, timeout=120)
        assert "Traceback" not in res.stderr, res.stderr
        assert res.returncode == expect["exit"], res.stdout + res.stderr
        if expect["exit"] == 2:
            assert res.stderr.strip().splitlines() == ["cardgen: " + expected_line(expect)]
        else:
            assert res.stdout.strip().splitlines() == [expected_line(expect)]


# --- bad input a build meets ------------------------------------------------------------------

BUILD_CASES: list[dict[str, Any]] = yaml.safe_load((HERE / "build_cases.yaml").read_text(encoding="utf-8"))
FRONT = "{{% extends \"base.svg.j2\" %}}\n{{% block artwork %}}\n{body}\n{{% endblock %}}\n"


def prepare_build(case: dict[str, Any], root: Path) -> tuple[Path, list[str]]:
    """The broken game (and whatever else the case sets up) and the command line to run."""
    game = materialize(case, root)
    if "template" in case:
        (game / "templates/card-front.svg.j2").write_text(FRONT.format(body=case["template"]), encoding="utf-8")
    for link, to in (case.get("links") or {}).items():   # beside the game folder
        (game.parent / link).parent.mkdir(parents=True, exist_ok=True)
        (game.parent / link).symlink_to(to)
    if case.get("png"):
        (game / "art").mkdir()
        (game / "art" / case["png"]["file"]).write_bytes(case["png"]["bytes"].encode("latin-1"))
    if case.get("file_at"):
        (game.parent / case["file_at"]).write_text("not a folder\n")
    args = case.get("args", "build demo --out {out}").format(out="out").split()
    return game, args


def build_line(expect: dict[str, Any]) -> str:
    where = expect.get("where") or (f"demo/{expect['file']}" if expect.get("file") else "")
    if where and expect.get("line"):
        where += f":{expect['line']}:{expect['column']}"
    return (f"{where + ': ' if where else ''}error[{expect.get('rule', 'input')}]: {sentence(expect['message'])}"
            f" Fix: {sentence(expect['fix'])}")


def test_the_build_battery_covers_enough_defects() -> None:
    names = [c["name"] for c in BUILD_CASES]
    assert len(names) >= 20 and len(set(names)) == len(names)


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("case", BUILD_CASES, ids=[c["name"] for c in BUILD_CASES])
def test_bad_build(case: dict[str, Any], jobs: int, tmp_path: Path) -> None:
    game, args = prepare_build(case, tmp_path)
    if args[0] == "build":
        args += ["--jobs", str(jobs)]
    started = time.monotonic()
    res = subprocess.run([sys.executable, "-m", "cardgen", *args], capture_output=True, text=True,
                         cwd=game.parent, timeout=60)
    assert time.monotonic() - started < 30
    assert "Traceback" not in res.stderr, res.stderr
    assert res.returncode == case["expect"]["exit"], res.stderr
    if "usage" in case:   # refused by the command line parser itself, with its usage text
        assert res.stderr.strip().splitlines()[-1] == case["usage"]
    else:
        assert res.stderr.strip().splitlines() == ["cardgen: " + build_line(case["expect"])]
    out = game.parent / "out"
    written = [p for p in out.rglob("*") if p.is_file() and ".cache" not in p.parts and p.name != ".lock"] \
        if out.is_dir() else []
    assert written == [], "a failed build wrote nothing"
