"""``python -m cardgen`` runs the command line, as the ``cardgen`` executable does (through the
daemon when one runs: see :mod:`cardgen.daemon`)."""

from .daemon.client import run

run()
