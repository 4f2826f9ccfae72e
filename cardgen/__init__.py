"""cardgen: print-and-play studio for particle-physics teaching games.

The pipeline runs one way — load → check → render → draw → lay out → write — and each stage
is a module with a small public API (see docs/architecture.md). The command line
(:mod:`cardgen.cli`) is a thin shell over the functions here, which behave as its commands
do — :func:`build` runs the check gate first, as ``cardgen build`` does::

    import cardgen
    game = cardgen.load_game("qcd")
    report = cardgen.check(game)
    assert report.ok, [str(f) for f in report.findings]
    cardgen.build(game, cardgen.BuildOptions(lang="all"))   # → output/qcd/<lang>/*.pdf

``load_game``, ``check`` and ``discover_games`` are imported at once; ``build``, ``render``,
``export``, ``languages`` and ``BuildOptions`` on first use, so a program (or command) that
only checks never loads the drawing and PDF libraries. ``cardgen.build``, ``cardgen.render``
and ``cardgen.export`` are the stages' modules, callable as :func:`cardgen.api.build`,
:func:`~cardgen.api.render` and :func:`~cardgen.api.export` (see :mod:`cardgen._callable`), so
``from cardgen.build import BuildOptions`` keeps working.
"""

from typing import Any

__version__ = "0.1.0"

from .check import check, check_game  # noqa: E402
from .errors import CardgenError, Finding, InputError, Location, Report  # noqa: E402
from .loader import discover_games, load_game, load_games  # noqa: E402
from .model import Card, Component, Game, Table  # noqa: E402

_LAZY = {"languages": "api", "BuildOptions": "build", "GameBuild": "build",
         "RuleFindingsError": "build"}


def __getattr__(name: str) -> Any:
    """``build`` (the callable package), ``render``, ``export``, ``languages``: imported on first use."""
    import importlib

    if name in ("build", "render", "export"):   # the stage modules, callable as the API's functions
        return importlib.import_module(f".{name}", __name__)
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'cardgen' has no attribute {name!r}")


__all__ = [
    "BuildOptions", "CardgenError", "Card", "Component", "Finding", "Game", "GameBuild", "InputError", "Location",
    "Report", "RuleFindingsError", "Table", "build", "check", "check_game", "discover_games", "export", "languages",
    "load_game", "load_games", "render", "__version__",
]
