"""``python -m cardgen.cairoffi``: regenerate the pre-parsed cairo declarations."""

from . import generate

generate()
