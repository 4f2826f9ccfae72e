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

Every name is imported on first use, so a program (or command) pays only for what it uses:
one that only checks never loads the drawing and PDF libraries, and ``cardgen build`` with
nothing to do (see :mod:`cardgen.uptodate`) loads neither the games nor the rules.
``cardgen.build``, ``cardgen.render``, ``cardgen.export`` and ``cardgen.check`` are the
stages' modules, callable as :func:`cardgen.api.build`, :func:`~cardgen.api.render`,
:func:`~cardgen.api.export` and :func:`cardgen.check.check` (see :mod:`cardgen._callable`),
so ``from cardgen.build import BuildOptions`` keeps working.
"""

from typing import Any

__version__ = "0.1.0"

#: name → the module it comes from (imported on first use)
_LAZY = {"languages": "api", "BuildOptions": "build", "GameBuild": "build", "RuleFindingsError": "build",
         "check_game": "check", "CardgenError": "errors", "Finding": "errors", "InputError": "errors",
         "Location": "errors", "Report": "errors", "discover_games": "loader", "load_game": "loader",
         "load_games": "loader", "Card": "model", "Component": "model", "Game": "model", "Table": "model"}
#: the stage modules that are also the library's functions
_CALLABLE = ("build", "render", "export", "check")


def __getattr__(name: str) -> Any:
    """Each public name, imported on first use."""
    import importlib

    if name in _CALLABLE:
        return importlib.import_module(f".{name}", __name__)
    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cardgen' has no attribute {name!r}")


__all__ = [
    "BuildOptions", "CardgenError", "Card", "Component", "Finding", "Game", "GameBuild", "InputError", "Location",
    "Report", "RuleFindingsError", "Table", "build", "check", "check_game", "discover_games", "export", "languages",
    "load_game", "load_games", "render", "__version__",
]
