"""A large game is read in a child process and handed back (cardgen.loadapart): the game is
the same as one read here, it shares this process's physics, the process keeps less memory,
and anything unexpected falls back to reading here — errors included, with their usual text."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

import cardgen
from cardgen import loadapart, loader
from cardgen.errors import InputError
from tests.test_render import HELLO, make_game

ROOT = Path(__file__).resolve().parent.parent
PARTICLES = ["u", "d", "s", "c", "e-", "mu-", "gamma", "g"]


def particle_deck(root: Path, cards: int, bad: int | None = None) -> Path:
    """A deck of ``cards`` distinct cards naming particles; card ``bad`` names none that exists."""
    lines = "\n".join(f"  - {{id: c{i}, title: 'Card {i}', particle: {'nope' if i == bad else PARTICLES[i % 8]}, "
                      f"n: {i}}}" for i in range(cards))
    return make_game(root, HELLO, lines, "  title: {type: text}\n  particle: {type: particle}\n  n: {type: number}")


@pytest.fixture
def alone(monkeypatch):
    """This process runs no other thread (a test runner may leave some behind)."""
    monkeypatch.setattr(loadapart, "_other_threads", lambda: False)


@pytest.fixture
def apart_calls(monkeypatch):
    """How many games were handed back by a child process."""
    calls: list[bool] = []
    real = loadapart._read_apart

    def counted(*args):
        game = real(*args)
        calls.append(game is not None)
        return game

    monkeypatch.setattr(loadapart, "_read_apart", counted)
    return calls


def read_here(path: Path):
    src = loader.GameSource(path.name, path, path / "templates")
    return loader._read_game(src, loader.shipped_physics())


@pytest.mark.parametrize("gid", ["particle-builder", "tutti-quantum", "qcd", "particles-in-circle"])
def test_every_shipped_game_read_apart_is_the_game_read_here(monkeypatch, apart_calls, alone, gid):
    monkeypatch.setattr(loadapart, "APART_BYTES", 0)
    apart = cardgen.load_game(gid)
    assert apart_calls == [True]
    here = loader._read_game(loader.discover_games()[gid], loader.shipped_physics())
    assert apart == here
    physics = loader.shipped_physics()
    assert apart.physics is physics
    for comp in apart.components.values():
        for card in comp.cards:
            for value in card.fields.values():
                if isinstance(value, loadapart.Particle):
                    assert value is physics.particles[value.id]
                if isinstance(value, loadapart.ColourCharge):
                    assert value is physics.colours[value.id]


def test_a_large_deck_is_read_apart_and_equals_the_deck_read_here(tmp_path, apart_calls, alone):
    game = particle_deck(tmp_path, 3_000)
    assert loadapart.data_bytes(game) >= loadapart.APART_BYTES
    apart = cardgen.load_game(game)
    assert apart_calls == [True]
    assert apart == read_here(game)
    cards = apart.components["cards"].cards
    assert len(cards) == 3_000 and cards[2_999].fields["n"] == 2_999
    assert cards[10].fields["particle"] is loader.shipped_physics().particles["s"]


def test_a_small_game_is_read_here(tmp_path, apart_calls, alone):
    game = particle_deck(tmp_path, 20)
    assert cardgen.load_game(game).components["cards"].cards[19].fields["n"] == 19
    assert apart_calls == []


def test_a_mistake_in_a_large_deck_is_reported_as_when_read_here(tmp_path, apart_calls, alone):
    game = particle_deck(tmp_path, 3_000, bad=2_500)
    with pytest.raises(InputError) as here:
        read_here(game)
    with pytest.raises(InputError) as apart:
        cardgen.load_game(game)
    assert apart_calls == [False]   # the child failed; the game was read here, and raised
    assert str(apart.value) == str(here.value)
    assert "unknown particle 'nope'" in str(apart.value) and ":2511:47:" in str(apart.value)


def test_a_reply_larger_than_its_bound_is_not_taken(monkeypatch, tmp_path, apart_calls, alone):
    game = particle_deck(tmp_path, 3_000)
    monkeypatch.setattr(loadapart, "REPLY_FACTOR", 0)
    monkeypatch.setattr(loadapart, "REPLY_SLACK", 1_000)
    assert cardgen.load_game(game) == read_here(game)
    assert apart_calls == [False]


def test_no_child_is_forked_while_other_threads_run(tmp_path, apart_calls):
    game = particle_deck(tmp_path, 3_000)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert loadapart._other_threads()
        assert cardgen.load_game(game) == read_here(game)
    finally:
        stop.set()
        other.join()
    assert apart_calls == []


MEASURE = """
import sys
import cardgen, cardgen.loader
from cardgen import loadapart
cardgen.loader.shipped_physics()
if sys.argv[2] == "here":
    loadapart.APART_BYTES = 1 << 60
def rss():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 / 2**20
before = rss()
game = cardgen.load_game(sys.argv[1])
print(rss() - before)
"""


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads the resident size from /proc")
def test_the_process_keeps_only_the_loaded_deck(tmp_path):
    """Resident memory a 6,000-card deck adds to the process: read here, what the reading
    left behind stays (~40 MB); read apart, only the game (~20 MB)."""
    game = particle_deck(tmp_path, 6_000)

    def grown(how: str) -> float:
        res = subprocess.run([sys.executable, "-c", MEASURE, str(game), how], cwd=ROOT, capture_output=True,
                             text=True, check=True)
        return float(res.stdout.split()[-1])

    here, apart = grown("here"), grown("apart")
    assert apart < 0.75 * here, (here, apart)


@pytest.mark.parametrize("cards, bad", [(20, None), (3_000, None), (3_000, 2_500)],
                         ids=["small, read here", "large, read apart", "large, with a mistake"])
def test_the_cycle_collector_is_back_after_reading(tmp_path, alone, cards, bad):
    """Reading pauses Python's cycle collector (its passes over a growing deck took half the
    reading); it is on again afterwards however the reading ended, and stays off for a
    caller that had turned it off."""
    import gc

    game = particle_deck(tmp_path, cards, bad)
    for was in (True, False):
        (gc.enable if was else gc.disable)()
        try:
            try:
                cardgen.load_game(game)
            except InputError:
                assert bad is not None
            assert gc.isenabled() is was
        finally:
            gc.enable()
