"""cardgen: print-and-play studio for particle-physics teaching games.

The pipeline runs one way — load → check → render → lay out → write — and each stage is a
module with a small public API. The command line (:mod:`cardgen.cli`) is a thin shell over
these functions, which tests and other programs call directly::

    import cardgen
    game = cardgen.load_game("qcd")
    report = cardgen.check(game)
    assert report.ok, [str(f) for f in report.findings]
"""

from .check import check, check_game
from .errors import CardgenError, Finding, InputError, Location, Report
from .loader import discover_games, load_game, load_games
from .model import Card, Component, Game, Table

__version__ = "0.1.0"

__all__ = [
    "CardgenError", "Card", "Component", "Finding", "Game", "InputError", "Location", "Report", "Table",
    "check", "check_game", "discover_games", "load_game", "load_games", "__version__",
]
