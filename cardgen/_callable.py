"""Stage modules that are also the library's functions: ``cardgen.build(...)``,
``cardgen.render(...)``, ``cardgen.export(...)`` and ``cardgen.check(...)`` call a function,
while ``cardgen.build.BuildOptions`` or ``from cardgen import render; render.Renderer`` still
reach the module. A package attribute named like a submodule is that submodule once it has
been imported (Python sets it), so the module itself is made callable rather than shadowed by
a function that one import could silently undo — which is also what lets ``cardgen`` import
every name lazily (see :mod:`cardgen`)."""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any


def make_callable(module: str, api_name: str, home: str = "cardgen.api") -> None:
    """Calling ``module`` calls ``<home>.<api_name>`` (by default the function of
    :mod:`cardgen.api`, imported on first call: the API sits above every stage)."""

    class _Stage(types.ModuleType):
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            return getattr(importlib.import_module(home), api_name)(*args, **kwargs)

    _Stage.__call__.__doc__ = f"The same as :func:`{home}.{api_name}`."
    sys.modules[module].__class__ = _Stage
