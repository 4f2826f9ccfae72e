"""Glyph outlines kept once per machine, as the print stage writes them, so that a process
that prints a deck reads each glyph's outline from the font only the first time any process
of this user prints it.

Every process that writes a document works out each glyph it shows as PDF operators: the
glyph's form (:func:`cardgen.glyphforms.glyph_form`) and, for the page's own text (footers,
rule sheets), its Type 3 procedure (:func:`cardgen.pdfcontent._glyph_proc`). HarfBuzz draws
the outline into a Python pen point by point: a quarter of the work of writing a deck whose
faces all come from the cache, 13 ms of the 55 each of a one-card edit's two documents took
(measured), and again in every process and every build. The operators depend only on the
font file, the glyph, and the code and libraries that draw and write them, so they are kept
in the user's cache folder (``~/.cache/cardgen/glyphs``), one file per font file (named by
its path, size, time and inode, as the face cache knows a font, and by that code and those
libraries' versions): plain data (bytes and numbers, written with :mod:`marshal`), read once
per process.

A process adds what it worked out to its font's file when a build task ends (:func:`task`,
:func:`keep`), merged with what other processes added meanwhile. The files are signed and
the folder bounded (:mod:`cardgen.machinefiles`): an entry damaged or written by anyone else
is worked out afresh, never printed. ``--no-cache`` takes and keeps nothing. ``tests/test_outline_cache.py``
checks that documents printed from kept outlines are byte for byte those printed without.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import marshal
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TypeVar

from .machinefiles import TaggedFiles, cache_folder, enabled, switch

#: The folder's size bound in bytes; the shipped games' glyphs take about 0.3 MB.
LIMIT = 32 * 1024 * 1024
#: The suffix of a font's file.
SUFFIX = ".glyphs"
#: The modules whose code decides the operators kept.
_WRITERS = ("glyphforms.py", "pdfcontent.py", "outlinecache.py", "text/fonts.py")

T = TypeVar("T")


def default_folder() -> Path:
    """Where this user's glyph outlines are kept (the platform's cache folder)."""
    return cache_folder("glyphs")


@functools.cache
def writer_digest() -> str:
    """Everything besides the font file that the kept operators depend on: the code that
    draws and writes them, and the releases of HarfBuzz, fontTools and Python (marshal)."""
    import fontTools
    import uharfbuzz

    h = hashlib.sha256(f"{uharfbuzz.__version__}\0{fontTools.version}\0{sys.version}".encode())
    package = Path(__file__).resolve().parent
    for name in _WRITERS:
        h.update(b"\0" + (package / name).read_bytes())
    return h.hexdigest()


@dataclass
class _Font:
    """One font file's kept outlines: its file in the folder (``path``, among ``files``),
    what that held when first read, what this process added, and what it added since it last
    kept them (``new``)."""

    files: TaggedFiles
    path: Path
    entries: dict[Any, Any]
    new: dict[Any, Any] = field(default_factory=dict)


#: This process's fonts, by the font file's path and stat (and the folder they are kept in).
_FONTS: dict[tuple[str, int, int, int, str], _Font] = {}


def kept(font_path: Path, key: Any, make: Callable[[], T], valid: Callable[[Any], bool],
         folder: Path | None = None) -> T:
    """The value ``make()`` gives for glyph ``key`` of the font at ``font_path`` (bytes,
    numbers and tuples of them): kept when made, taken when kept before and ``valid``."""
    if not enabled():
        return make()
    font = _font(font_path, folder)
    if font is None:
        return make()
    value = font.entries.get(key)
    if value is None or not valid(value):
        value = font.entries[key] = font.new[key] = make()
    return value


def _font(font_path: Path, folder: Path | None) -> _Font | None:
    try:
        st = os.stat(font_path)
    except OSError:
        return None
    ident = (str(font_path), st.st_size, st.st_mtime_ns, st.st_ino)
    root = folder or default_folder()
    font = _FONTS.get((*ident, str(root)))
    if font is None:
        files = TaggedFiles(root, LIMIT, (SUFFIX,))
        name = hashlib.sha256(f"{writer_digest()}\0{ident}".encode()).hexdigest()[:40]
        path = root / f"{name}{SUFFIX}"
        font = _FONTS[(*ident, str(root))] = _Font(files, path, _read(files, path))
    return font


def _read(files: TaggedFiles, path: Path) -> dict[Any, Any]:
    """A font's file as this module writes it (a dict), or nothing."""
    data = files.read(path)
    if data is None:
        return {}
    try:
        entries = marshal.loads(data)
    except (ValueError, EOFError, TypeError):
        return {}
    return entries if isinstance(entries, dict) else {}


def keep() -> None:
    """Add what this process worked out to each font's file (with what other processes
    added to it meanwhile). Nothing new: nothing is read or written."""
    for font in _FONTS.values():
        if not font.new or not enabled():
            continue
        merged = {**_read(font.files, font.path), **font.new}
        try:
            data = marshal.dumps(merged)
        except ValueError:   # not plain data: a caller's mistake, kept nowhere
            font.new.clear()
            continue
        font.files.write(font.path, data)
        font.entries.update(merged)
        font.new.clear()


@contextlib.contextmanager
def task(cache: bool) -> Iterator[None]:
    """A build task's work: what is kept on the machine taken and kept as ``cache`` says
    (``--no-cache``: nothing, see :func:`cardgen.machinefiles.switch`), and the outlines it
    worked out for the first time kept when it ends, for every later process."""
    with switch(cache):
        try:
            yield
        finally:
            keep()


def _forget_new_in_child() -> None:
    """A forked process keeps only what it works out itself (its parent keeps its own)."""
    for font in _FONTS.values():
        font.new.clear()


os.register_at_fork(after_in_child=_forget_new_in_child)
