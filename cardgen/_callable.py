"""Stage modules that are also the library's functions: ``cardgen.build(...)``,
``cardgen.render(...)`` and ``cardgen.export(...)`` call :mod:`cardgen.api`, while
``cardgen.build.BuildOptions`` or ``from cardgen import render; render.Renderer`` still reach
the module. A package attribute named like a submodule is that submodule once it has been
imported (Python sets it), so the module itself is made callable rather than shadowed by a
function that one import could silently undo."""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any


def make_callable(module: str, api_name: str) -> None:
    """Calling ``module`` calls ``cardgen.api.<api_name>`` (imported on first call: the API
    sits above every stage)."""

    class _Stage(types.ModuleType):
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            return getattr(importlib.import_module("cardgen.api"), api_name)(*args, **kwargs)

    _Stage.__call__.__doc__ = f"The same as :func:`cardgen.api.{api_name}`."
    sys.modules[module].__class__ = _Stage
