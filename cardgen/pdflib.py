"""pikepdf, imported in this one module, with Ctrl-C and SIGTERM held back while it loads.

pikepdf's native module is built with nanobind, which runs Python code as it registers its
types; a Ctrl-C that Python raises in that code is, to nanobind, a failure it cannot recover
from: it prints "Critical nanobind error" and aborts the process (exit 134, no clean-up, the
output folder's lock left behind), or pikepdf's import fails with an ImportError. cardgen imports
pikepdf only when a build has PDFs to write (a build with nothing to do never loads it), so the
import happens at any moment of a command; held back by :func:`cardgen.interrupts.deferred`, the
signal is raised once pikepdf is whole, and the command ends the way a Ctrl-C ends it.
Every module of cardgen takes pikepdf from here (a test keeps it so)."""

from __future__ import annotations

from . import interrupts

with interrupts.deferred():
    import pikepdf
    from pikepdf import Array, Dictionary, Name

__all__ = ["Array", "Dictionary", "Name", "pikepdf"]
