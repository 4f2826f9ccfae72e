"""What is installed on this machine that every printed face depends on: the folders the
libraries are installed in (their ``*.dist-info`` names carry the versions) and cairo's C
library. The face cache keys faces by them and the up-to-date stamp records them; both ask
here, without importing a drawing library (a no-change rebuild imports none)."""

from __future__ import annotations

import site
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ctypes

#: cairo's C library by its usual names (Linux, macOS, Windows).
CAIRO_NAMES = ("libcairo.so.2", "libcairo.2.dylib", "libcairo-2.dll")


def site_folders() -> list[str]:
    """Where the installed libraries are."""
    return sorted({*site.getsitepackages(), site.getusersitepackages()})


def open_cairo(search: bool = False) -> ctypes.CDLL | None:
    """cairo's C library, opened by its usual names; with ``search``, then wherever
    :func:`ctypes.util.find_library` finds it (it runs ldconfig: tens of milliseconds).
    None when it is not found."""
    import ctypes   # here: a no-change rebuild asks only for the folders
    import ctypes.util

    for name in CAIRO_NAMES:
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    if search:
        try:
            return ctypes.CDLL(ctypes.util.find_library("cairo") or "cairo")
        except OSError:
            pass
    return None
