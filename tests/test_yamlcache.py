"""Parsed data files kept once per machine (cardgen.yamlcache): what comes back is exactly what
parse_yaml gives — every value with its type, each scalar's text, every position — for every
shipped data file and for generated text; an edited file, other parsing code, a damaged or
foreign entry, a document holding a date or a mistake is parsed afresh; the folder stays
bounded. (--no-cache, which takes and keeps nothing: tests/test_template_cache.py.)"""

from __future__ import annotations

import marshal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from cardgen import machinefiles, yamlcache, yamlsrc
from cardgen.errors import CardgenError, InputError
from cardgen.machinefiles import TaggedFiles
from cardgen.yamlcache import load_yaml
from cardgen.yamlsrc import parse_yaml

from .conftest import ROOT
from .test_fuzz import COMMON, described, mutated_text, yaml_text

SHIPPED = sorted((ROOT / "data").rglob("*.yaml"))


def _never(text: str, file: str) -> Any:
    raise AssertionError(f"{file} parsed again")


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.glob(f"*{yamlcache.SUFFIX}"))


def _round_trip(text: str, file: str, folder: Path) -> None:
    """Parsed once and kept; then taken, not parsed, and the same in every respect."""
    try:
        fresh = parse_yaml(text, file)
    except CardgenError as err:   # a mistake: reported again each time, nothing kept
        with pytest.raises(CardgenError) as again:
            yamlcache.parsed(text, file, parse_yaml, folder)
        assert str(again.value) == str(err) and not _entries(folder)
        return
    first = yamlcache.parsed(text, file, parse_yaml, folder)
    assert described(first) == described(fresh)
    if not _entries(folder):   # a value kept as no plain data: parsed each time
        return
    assert described(yamlcache.parsed(text, file, _never, folder)) == described(fresh)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_data_file_comes_back_as_it_parses(path: Path, tmp_path):
    _round_trip(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)), tmp_path)
    assert len(_entries(tmp_path)) == 1


@settings(max_examples=300, derandomize=True, **COMMON)
@given(yaml_text | mutated_text)
def test_generated_text_comes_back_as_it_parses(tmp_path_factory, text: str):
    _round_trip(text, "f.yaml", tmp_path_factory.mktemp("yaml"))


def test_a_file_is_parsed_once_per_machine_and_again_when_edited(tmp_path, monkeypatch):
    data = tmp_path / "cards.yaml"
    data.write_text("cards:\n  - {id: a, points: 3}\n", encoding="utf-8")
    assert load_yaml(data)["cards"][0]["points"] == 3
    assert len(_entries(yamlcache.default_folder())) == 1
    monkeypatch.setattr(yamlsrc, "parse_yaml", _never)
    kept = load_yaml(data)
    assert kept["cards"][0].raw["points"] == "3" and kept["cards"][0].where("points").column == 21
    data.write_text("cards:\n  - {id: a, points: 4}\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="parsed again"):
        load_yaml(data)


def test_other_parsing_code_parses_afresh(tmp_path, monkeypatch):
    yamlcache.parsed("a: 1\n", "a.yaml", parse_yaml, tmp_path)
    monkeypatch.setattr(yamlcache, "parser_digest", lambda: "another release")
    assert yamlcache.parsed("a: 1\n", "a.yaml", parse_yaml, tmp_path) == {"a": 1}
    assert len(_entries(tmp_path)) == 2


def test_the_name_a_file_is_shown_by_is_part_of_what_is_kept(tmp_path):
    yamlcache.parsed("a: 1\n", "a.yaml", parse_yaml, tmp_path)
    moved = yamlcache.parsed("a: 1\n", "games/a.yaml", parse_yaml, tmp_path)
    assert moved.where("a").file == "games/a.yaml" and len(_entries(tmp_path)) == 2


def test_damaged_or_foreign_entries_are_parsed_afresh_never_believed(tmp_path):
    text = "a: [1, {b: x}]\n"
    fresh = described(parse_yaml(text, "a.yaml"))
    yamlcache.parsed(text, "a.yaml", parse_yaml, tmp_path)
    (path,) = _entries(tmp_path)
    genuine = path.read_bytes()
    signed = TaggedFiles.tag
    forged = marshal.dumps((0, 1, 1, ("a",), ("forged",), (1, 1, 1, 4), ("forged",)))
    for bad in (genuine[:-1] + bytes([genuine[-1] ^ 1]), genuine[:40], genuine[:10], b"",
                b"\0" * 32 + genuine[32:],                        # another user's tag
                forged,                                           # data with no tag
                signed(path.name, b"not marshal") + b"not marshal",
                signed(path.name, marshal.dumps(("x",))) + marshal.dumps(("x",)),
                signed(path.name, marshal.dumps((0, 1, 1, ("a",), (), (), ()))) + marshal.dumps((0, 1, 1, ("a",), (), (), ())),
                signed(path.name, marshal.dumps((1, 1, 1, (1, 2), (1, 1), ("1",)))) + marshal.dumps((1, 1, 1, (1, 2), (1, 1), ("1",))),
                signed(path.name, marshal.dumps({1, 2})) + marshal.dumps({1, 2})):
        path.write_bytes(bad)
        assert described(yamlcache.parsed(text, "a.yaml", parse_yaml, tmp_path)) == fresh
        assert path.read_bytes() == genuine   # kept again, as parsed


def test_a_document_holding_a_date_is_parsed_each_time(tmp_path):
    doc = yamlcache.parsed("printed: 2026-11-27\n", "a.yaml", parse_yaml, tmp_path)
    assert str(doc["printed"]) == "2026-11-27" and not _entries(tmp_path)


def test_a_file_with_a_mistake_is_reported_each_time_and_not_kept(tmp_path):
    for _ in range(2):
        with pytest.raises(InputError) as err:
            yamlcache.parsed("a: [1\n", "a.yaml", parse_yaml, tmp_path)
        assert err.value.location is not None and err.value.location.file == "a.yaml"
    assert not _entries(tmp_path)


def test_nothing_is_taken_or_kept_when_switched_off(tmp_path):
    with machinefiles.switch(False):
        yamlcache.parsed("a: 1\n", "a.yaml", parse_yaml, tmp_path)
    assert not _entries(tmp_path)
    yamlcache.parsed("a: 1\n", "a.yaml", parse_yaml, tmp_path)
    with machinefiles.switch(False):
        assert yamlcache.parsed("a: 1\n", "a.yaml", lambda _t, _f: "parsed", tmp_path) == "parsed"


def test_the_folder_is_looked_over_once_a_minute_or_after_a_sixteenth_of_its_limit(tmp_path, monkeypatch):
    """A small write into a folder looked over less than a minute ago lists nothing (a
    one-card edit's parsed file listed 1,800 files); a minute later, or once this process has
    written a sixteenth of the limit since it last looked, the oldest files go as before."""
    import os
    import time

    for n in range(4):
        (tmp_path / f"{n}.x").write_bytes(bytes(1000))
        os.utime(tmp_path / f"{n}.x", ns=(n * 10**9, n * 10**9))   # 0.x the oldest
    (tmp_path / machinefiles.LOOKED).touch()   # another process looked the folder over just now
    monkeypatch.setattr(machinefiles, "_WRITTEN", {})   # as a process that has written nothing yet
    listed: list[Path] = []
    real = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path: listed.append(Path(path)) or real(path))
    small = TaggedFiles(tmp_path, 3500, (".x",))   # a limit below what the folder holds
    assert small.write(tmp_path / "4.x", bytes(100)) and listed == []
    assert (tmp_path / "0.x").exists()   # over its limit, for now
    looked = tmp_path / machinefiles.LOOKED
    then = time.time() - machinefiles.LOOK_SECONDS - 1
    os.utime(looked, (then, then))
    monkeypatch.setattr(machinefiles, "_WRITTEN", {})   # another process, a minute later
    assert small.write(tmp_path / "5.x", bytes(100)) and listed == [tmp_path]
    assert not (tmp_path / "0.x").exists() and sum(p.stat().st_size for p in tmp_path.glob("*.x")) <= 3500
    listed.clear()
    assert small.write(tmp_path / "6.x", bytes(300)) and listed == [tmp_path]   # 132 + 332 bytes > 3500 / 16


def test_the_folder_stays_bounded(tmp_path, monkeypatch):
    yamlcache.parsed("a: 1\n", "a.yaml", parse_yaml, tmp_path)
    size = _entries(tmp_path)[0].stat().st_size
    monkeypatch.setattr(yamlcache, "LIMIT", 3 * size)
    for n in range(10):
        yamlcache.parsed(f"a: {n + 2}\n", "a.yaml", parse_yaml, tmp_path)
    assert sum(p.stat().st_size for p in _entries(tmp_path)) <= 3 * size
