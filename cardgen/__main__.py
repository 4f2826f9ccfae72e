"""``python -m cardgen`` runs the command line."""

from .cli import main

main()
