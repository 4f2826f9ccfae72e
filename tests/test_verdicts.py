"""The rules' passes kept per machine (cardgen.verdicts): a build takes as proved only what
the rules proved of the very same files, code and libraries; anything else — a changed file,
a game handed over already loaded, a file changed while the build read it, a forged entry —
is checked again, and a wrong deck is refused as before."""

from __future__ import annotations

import os
import time

import pytest

import cardgen
import cardgen.check
from cardgen import verdicts
from cardgen.build import BuildOptions, RuleFindingsError

BREAK = ("components/cards.yaml", "colour: [anti-red, anti-green, anti-blue]", "colour: [anti-green, anti-blue]")


@pytest.fixture
def checked(monkeypatch) -> list[list[str]]:
    """The games each run of the rules was asked about (the gate calls cardgen.check.check)."""
    seen: list[list[str]] = []
    real = cardgen.check.check

    def spy(games, *args, **kwargs):
        seen.append([g.id for g in ([games] if isinstance(games, cardgen.Game) else games)])
        return real(games, *args, **kwargs)

    monkeypatch.setattr(cardgen.check, "check", spy)
    return seen


def _settle(path) -> None:
    """Date the copy's files back, as files not edited in the last seconds are."""
    old = time.time_ns() - 10 * verdicts.RACY_NS
    for p in path.rglob("*"):
        os.utime(p, ns=(old, old))


def test_a_build_of_the_same_files_takes_their_pass(game_copy, tmp_path, checked):
    g = game_copy("particles-in-circle")
    _settle(g.path)
    cardgen.build(str(g.path), BuildOptions(out=tmp_path / "a"), jobs=1)
    cardgen.build(str(g.path), BuildOptions(out=tmp_path / "b"), jobs=1)   # another folder: no stamp
    assert checked == [["particles-in-circle"]]
    assert (tmp_path / "b/particles-in-circle/en/cards.pdf").is_file()


def test_a_changed_file_is_checked_again_and_refused(game_copy, tmp_path, checked):
    g = game_copy("particles-in-circle")
    _settle(g.path)
    cardgen.build(str(g.path), BuildOptions(out=tmp_path / "a"), jobs=1)
    g.edit(*BREAK)
    _settle(g.path)
    with pytest.raises(RuleFindingsError):
        cardgen.build(str(g.path), BuildOptions(out=tmp_path / "b"), jobs=1)
    assert checked == [["particles-in-circle"], ["particles-in-circle"]]
    assert not (tmp_path / "b/particles-in-circle").exists()


def test_a_game_handed_over_loaded_is_always_checked(game_copy, tmp_path, checked):
    """Its files passed, but what is in memory was read from a broken version of them."""
    g = game_copy("particles-in-circle")
    _settle(g.path)
    cardgen.build(str(g.path), BuildOptions(out=tmp_path / "a"), jobs=1)   # the files' pass is kept
    good = (g.path / BREAK[0]).read_text(encoding="utf-8")
    g.edit(*BREAK)
    broken = g.load()
    g.write(BREAK[0], good)
    _settle(g.path)
    with pytest.raises(RuleFindingsError):
        cardgen.build(broken, BuildOptions(out=tmp_path / "b"), jobs=1)
    assert checked == [["particles-in-circle"], ["particles-in-circle"]]


def test_a_file_changed_as_the_build_read_it_is_neither_trusted_nor_kept(game_copy, tmp_path, checked):
    g = game_copy("particles-in-circle")
    _settle(g.path)
    cardgen.build(str(g.path), BuildOptions(out=tmp_path / "a"), jobs=1)
    game = g.load()
    loaded = time.time_ns() - verdicts.RACY_NS // 2   # the game.yaml below was written after this
    g.edit("game.yaml", "name:", "name: ", 1)
    assert verdicts.game_digests([game], loaded) == [None]
    _settle(g.path)
    assert verdicts.game_digests([game], time.time_ns())[0] is not None


def test_a_forged_or_damaged_pass_is_no_pass(game_copy, tmp_path, checked):
    g = game_copy("particles-in-circle")
    _settle(g.path)
    digest, = verdicts.game_digests([g.load()], time.time_ns())
    folder = verdicts.default_folder()
    folder.mkdir(parents=True)
    (folder / digest).write_bytes(b"\0" * 32)   # anyone may write a file; only this user's key tags it
    cardgen.build(str(g.path), BuildOptions(out=tmp_path / "a"), jobs=1)
    assert checked == [["particles-in-circle"]]
    assert verdicts.Verdicts().passed(digest)   # the build's own pass replaced it
    (folder / digest).write_bytes((folder / digest).read_bytes()[:-1])
    assert not verdicts.Verdicts().passed(digest)


def test_the_passes_kept_are_bounded(tmp_path):
    kept = verdicts.Verdicts(tmp_path / "v", limit=3)
    for n in range(5):
        kept.remember([f"{n:064x}"])
        os.utime(tmp_path / "v" / f"{n:064x}", ns=(n * 10**9, n * 10**9))
    kept.remember([f"{5:064x}"])
    assert sorted(p.name for p in (tmp_path / "v").iterdir()) == [f"{n:064x}" for n in (3, 4, 5)]


def test_an_unwritable_folder_only_costs_the_pass(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    kept = verdicts.Verdicts(tmp_path / "file" / "v")
    kept.remember(["0" * 64])
    assert not kept.passed("0" * 64)


def test_cardgen_check_keeps_the_pass_a_build_then_takes(game_copy, tmp_path, cli, checked):
    g = game_copy("particles-in-circle")
    _settle(g.path)
    result = cli("check", str(g.path), "--no-render")
    assert result.returncode == 0, result.stderr
    assert len(list(verdicts.default_folder().iterdir())) == 1
    cardgen.build(str(g.path), BuildOptions(out=tmp_path / "a"), jobs=1)
    assert checked == []   # the rules ran in the check's process, not again here
    assert (tmp_path / "a/particles-in-circle/en/cards.pdf").is_file()


def test_a_check_that_finds_a_fault_keeps_nothing(game_copy, cli):
    g = game_copy("particles-in-circle")
    g.edit(*BREAK)
    _settle(g.path)
    assert cli("check", str(g.path), "--no-render").returncode == 1
    assert not verdicts.default_folder().exists()
