"""``python -m cardgen`` runs the command line."""

from .cli import run

run()
