"""Where a template named by a game is, and how much of it is read: one lookup for every
reader of template files.

The renderer's loader and the check's ``pdg-values`` rule (which reads what a template prints
before anything is rendered) both look templates up by name in a game's template folders. A
name is a game's data, so it is untrusted: ``../../etc/passwd`` or a symbolic link out of the
folder must not reach a file elsewhere, and a template of gigabytes must not be read whole.
The rule once joined the name to the folder itself, and read what it pointed at; both now
take the file from here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

import jinja2

#: The largest template read (the shipped ones are under 8 KB): a template is read whole and
#: compiled, so one of hundreds of megabytes would take that much memory, and time, first.
MAX_TEMPLATE_BYTES = 1 << 20


def template_file(folders: Iterable[str | os.PathLike[str]], name: str) -> str:
    """The file of template ``name``: Jinja's own lookup (the first folder holding a regular
    file of that name; a name with '..' is refused). Raises :class:`jinja2.TemplateNotFound`."""
    pieces = jinja2.loaders.split_template_path(name)
    for folder in folders:
        filename = os.path.join(folder, *pieces)
        if os.path.isfile(filename):
            return filename
    raise jinja2.TemplateNotFound(name)


def within(filename: str | os.PathLike[str], roots: Iterable[Path]) -> bool:
    """Whether the file, its symbolic links followed, lies in one of the (resolved) ``roots``."""
    real = Path(filename).resolve()
    return any(real == r or r in real.parents for r in roots)


def template_bytes(filename: str | os.PathLike[str]) -> bytes | None:
    """The template file's bytes, or None when it is larger than :data:`MAX_TEMPLATE_BYTES`
    (only that much and one byte more is read)."""
    with open(filename, "rb") as fh:
        data = fh.read(MAX_TEMPLATE_BYTES + 1)
    return None if len(data) > MAX_TEMPLATE_BYTES else data
