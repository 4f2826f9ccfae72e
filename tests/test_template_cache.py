"""Templates compiled once per machine (cardgen.templatecache): a build into a new folder
compiles nothing the machine compiled before; an edited template, another Jinja release or
other cardgen code compiles afresh; damaged or foreign files are never run; the folder stays
bounded; --no-cache keeps nothing there. (Each test has a cache folder of its own, see
conftest.own_template_cache.)"""

from __future__ import annotations

import marshal
import os
from pathlib import Path

import jinja2

import cardgen
from cardgen import render, store, templatecache
from cardgen.build import BuildOptions, build
from cardgen.render import Renderer
from cardgen.machinefiles import TaggedFiles
from cardgen.templatecache import MachineTemplates, default_folder


def _front(game, db: Path) -> str:
    comp = game.components["cards"]
    return Renderer(game, bytecode_db=db).face(comp, comp.cards[0]).face.svg


def test_a_new_output_folder_compiles_nothing_the_machine_compiled(compiled, monkeypatch, tmp_path):
    game = cardgen.load_game("qcd")
    first = _front(game, tmp_path / "one" / "cache.sqlite")
    assert {"base.svg.j2", "card-front.svg.j2"} <= set(compiled)
    assert len(list(default_folder().glob("*.code"))) == len(set(compiled))
    compiled.clear()
    monkeypatch.setattr(render, "_COMPILED", {})   # as a new process, building into a new folder
    assert _front(game, tmp_path / "two" / "cache.sqlite") == first
    assert compiled == []


def test_an_edited_template_is_compiled_again(compiled, monkeypatch, tmp_path, game_copy):
    g = game_copy("qcd")
    game = g.load()
    _front(game, tmp_path / "cache.sqlite")
    g.edit("templates/card-front.svg.j2", "{% endblock %}", "<desc>edited</desc>\n{% endblock %}")
    compiled.clear()
    monkeypatch.setattr(render, "_COMPILED", {})
    assert "<desc>edited</desc>" in _front(g.load(), tmp_path / "cache.sqlite")
    assert compiled == ["card-front.svg.j2"]


def test_another_jinja_release_or_compiler_code_compiles_afresh(compiled, monkeypatch, tmp_path):
    game = cardgen.load_game("qcd")
    _front(game, tmp_path / "cache.sqlite")
    names = set(compiled)
    changes = (lambda: monkeypatch.setattr(jinja2, "__version__", "0.0-other"),
               lambda: monkeypatch.setattr(templatecache, "_COMPILER_MODULES", ("render.py", "budget.py")))
    for i, change in enumerate(changes, start=1):
        change()
        templatecache.compiler_digest.cache_clear()
        compiled.clear()
        monkeypatch.setattr(render, "_COMPILED", {})
        _front(game, tmp_path / str(i) / "cache.sqlite")   # a new output folder each time
        assert set(compiled) == names
    templatecache.compiler_digest.cache_clear()


def _code(text: str = "x = 1") -> object:
    return compile(text, "t.j2", "exec")


def test_damaged_or_foreign_files_are_ignored_never_run(tmp_path, monkeypatch):
    cache = MachineTemplates(tmp_path / "t")
    assert cache.put("k", "c", _code()) and cache.get("k", "c") is not None
    path = next((tmp_path / "t").glob("*.code"))
    genuine = path.read_bytes()
    for damaged in (genuine[:-1] + bytes([genuine[-1] ^ 1]), genuine[:40], genuine[:10], b""):
        path.write_bytes(damaged)
        assert cache.get("k", "c") is None
    # code signed with the right key but not code: not handed to Jinja
    data = marshal.dumps(42)
    path.write_bytes(TaggedFiles.tag(path.name, data) + data)
    assert cache.get("k", "c") is None
    # Mallory's code, signed with her key, in Ann's folder: not run
    marker = tmp_path / "marker"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "mallory"))
    store.user_key.cache_clear()
    try:
        assert cache.put("k", "c", _code(f"open({str(marker)!r}, 'w').close()"))
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "ann"))
        store.user_key.cache_clear()
        assert cache.get("k", "c") is None
    finally:
        store.user_key.cache_clear()
    assert not marker.exists()
    assert cache.get("other", "c") is None and cache.get("k", "other") is None   # never stored


def test_the_folder_keeps_the_most_recently_used_within_its_limit(tmp_path):
    folder = tmp_path / "t"
    size = len(marshal.dumps(_code())) + 32
    cache = MachineTemplates(folder, limit=3 * size)
    for i in range(3):
        assert cache.put(f"k{i}", "c", _code())
        os.utime(cache._path(f"k{i}", "c"), ns=(i * 10**9, i * 10**9))   # k0 oldest
    assert cache.get("k0", "c") is not None   # used again: now the most recent
    assert cache.put("k3", "c", _code())
    assert sorted(p.name for p in folder.glob("*.code")) == sorted(
        cache._path(k, "c").name for k in ("k0", "k2", "k3"))
    assert sum(p.stat().st_size for p in folder.glob("*.code")) <= 3 * size
    assert not list(folder.glob(".*.part"))


def test_an_unwritable_folder_is_no_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cache = MachineTemplates(blocker / "t")
    assert cache.put("k", "c", _code()) is False and cache.get("k", "c") is None


def test_no_cache_keeps_nothing_in_the_machine_folder(tmp_path):
    game = cardgen.load_game("particles-in-circle")
    build([game], BuildOptions(out=tmp_path / "a", cache=False), jobs=1, check=False)
    assert not list(default_folder().glob("*.code"))
    build([game], BuildOptions(out=tmp_path / "b"), jobs=1, check=False)
    assert list(default_folder().glob("*.code"))


class _Scans:
    """The template files the checker scans for printed quantities from now on, by name, in a
    process that has scanned nothing yet — this one, or a child it forks (a build's check gate
    runs in one): kept in a file."""

    def __init__(self, monkeypatch, folder: Path) -> None:
        from cardgen.rules import pdg_values

        self.log = folder / f"scans-{len(list(folder.glob('scans-*')))}.log"
        self.log.touch()
        original = pdg_values._scan

        def counting(game, source, path):
            with open(self.log, "a", encoding="utf-8") as f:
                f.write(path.name + "\n")
            return original(game, source, path)

        monkeypatch.setattr(pdg_values, "_scan", counting)
        monkeypatch.setattr(pdg_values, "_FACTS", {})

    def names(self) -> list[str]:
        return self.log.read_text(encoding="utf-8").split()


def test_what_a_template_prints_is_scanned_once_per_machine(monkeypatch, game_copy, tmp_path):
    """The check gate's scan of the templates (which quantities a card prints, so which values
    are compared with PDG) is kept beside the compiled templates: a later check parses none
    of them and finds the same; an edited template is scanned again."""
    from cardgen.check import check

    g = game_copy("particle-builder")
    scanned = _Scans(monkeypatch, tmp_path)
    first = check([g.load()], render=False, machine=True)
    assert "particle-front.svg.j2" in scanned.names()
    assert len(list(default_folder().glob("*.facts"))) == len(set(scanned.names()))
    scanned = _Scans(monkeypatch, tmp_path)   # as a new process
    again = check([g.load()], render=False, machine=True)
    assert scanned.names() == [] and again.ok and first.ok
    assert [str(p) for p in again.proofs] == [str(p) for p in first.proofs]
    g.edit("templates/particle-front.svg.j2", "{% endblock %}", "<desc>{{ card.particle.mass }}</desc>\n{% endblock %}")
    scanned = _Scans(monkeypatch, tmp_path)
    check([g.load()], render=False, machine=True)
    assert scanned.names() == ["particle-front.svg.j2"]


def test_damaged_or_foreign_facts_are_scanned_afresh(monkeypatch, tmp_path):
    """A facts file that does not verify could make the checker skip a printed value: it is
    never believed."""
    cache = MachineTemplates(tmp_path / "t")
    assert cache.keep_facts("k", b'[["mass"], []]') and cache.facts("k") == b'[["mass"], []]'
    path = next((tmp_path / "t").glob("*.facts"))
    genuine = path.read_bytes()
    for damaged in (genuine[:-1] + bytes([genuine[-1] ^ 1]), genuine[:40], b""):
        path.write_bytes(damaged)
        assert cache.facts("k") is None
    forged = b"[[], []]"   # "prints nothing": signed with another user's key
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "mallory"))
    store.user_key.cache_clear()
    try:
        assert cache.keep_facts("k", forged)
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "ann"))
        store.user_key.cache_clear()
        assert cache.facts("k") is None
    finally:
        store.user_key.cache_clear()


def test_a_build_without_cache_keeps_and_takes_nothing_from_the_machine(monkeypatch, tmp_path):
    """--no-cache: every template compiled and scanned, every rule run, nothing kept on the
    machine (compiled code, scanned facts or passes); the next build keeps them. The command
    and the library alike."""
    from click.testing import CliRunner

    from cardgen.cli import main
    from cardgen.verdicts import default_folder as verdicts_folder

    game = cardgen.load_game("particles-in-circle")   # its data files parsed, and kept (cardgen.yamlcache)
    kept = _machine_files()
    assert kept and all(p.parent.name == "yaml" for p in kept)
    scanned = _Scans(monkeypatch, tmp_path)
    done = CliRunner().invoke(main, ["build", game.id, "--no-cache", "--out", str(tmp_path / "cli")])
    assert done.exit_code == 0, done.output
    assert scanned.names() and _machine_files() == kept   # as --help says: not even read (it would be touched)
    scanned = _Scans(monkeypatch, tmp_path)
    cardgen.build(game.id, cardgen.BuildOptions(out=tmp_path / "a", cache=False))
    assert scanned.names() and not list(default_folder().glob("*")) and not verdicts_folder().exists()
    assert _machine_files() == kept
    _Scans(monkeypatch, tmp_path)   # as a new process
    cardgen.build(game.id, cardgen.BuildOptions(out=tmp_path / "b"))
    assert list(default_folder().glob("*.facts")) and list(verdicts_folder().glob("*"))
    scanned = _Scans(monkeypatch, tmp_path)
    cardgen.build(game.id, cardgen.BuildOptions(out=tmp_path / "c", cache=False))
    assert scanned.names()   # taken from nowhere: scanned again


def test_a_build_of_games_handed_over_loaded_takes_the_scans_from_the_machine(monkeypatch, tmp_path):
    """Games handed to the library loaded are checked in full (no kept passes: the objects may
    differ from their files), but what a template prints depends on its source alone: the
    second build scans none of them."""
    game = cardgen.load_game("particles-in-circle")
    scanned = _Scans(monkeypatch, tmp_path)
    cardgen.build([game], cardgen.BuildOptions(out=tmp_path / "a"))
    assert scanned.names()
    scanned = _Scans(monkeypatch, tmp_path)   # as a new process
    cardgen.build([cardgen.load_game("particles-in-circle")], cardgen.BuildOptions(out=tmp_path / "b"))
    assert scanned.names() == []


def _machine_files() -> dict[Path, tuple[int, int]]:
    """Every file in this user's cache folder, with its size and when it was last used."""
    return {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in default_folder().parent.rglob("*") if p.is_file()}
