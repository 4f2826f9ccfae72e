"""Rendered faces on disk, between the process that draws them and the one that places them.

A rendering task writes each distinct face PDF it has — drawn, or taken from the face cache
— to a file of its own in the output folder (:class:`Spool`), and hands back only where
each face is in it: an offset and a length, some tens of bytes a face. The writer reads the
faces one at a time as it places them (:class:`SpooledFaces`). So neither the build's
process, which collects what every task reports, nor the writer's, holds a deck's faces in
memory, and a deck's size is bounded by the disk rather than by memory. For a document
written as it goes (many faces), the task also writes each face's objects as the writer will
store them (:mod:`cardgen.relocatable`): made in parallel by the workers, not one by one by
the writer.

The files are named like the build's other temporary files (``.faces-*.part``): removed once
their job's PDF is written, or when the build ends either way, and swept by the next build
into the folder if a killed build left them (see :class:`cardgen.output.BuildLock`).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from ..errors import file_system_error
from ..glyphforms import GlyphForm
from ..relocatable import Relocatable, RelocatedFaces

#: Where each face is in a spool file: (offset, length) by the face's SVG key.
Places = dict[str, tuple[int, int]]


class Spool:
    """One rendering task's spool file, written as faces come (each distinct face once)."""

    def __init__(self, folder: Path) -> None:
        self.places: Places = {}
        self.relocated: Places = {}   # each face's objects, where they were made here
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, path = tempfile.mkstemp(prefix=".faces-", suffix=".part", dir=folder)
        except OSError as exc:
            raise file_system_error(exc, "write into the output folder", folder) from None
        self.path = Path(path)
        self._fh: BinaryIO = os.fdopen(fd, "w+b")
        self._end = 0

    def __enter__(self) -> "Spool":
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        try:
            self._fh.close()   # writes what is still buffered: a full disk may show only now
        except OSError as err:
            if exc_type is None:
                raise file_system_error(err, "write", self.path) from None

    def add(self, key: str, pdf: bytes) -> None:
        """Write a face (once per key)."""
        if key not in self.places:
            self.places[key] = self._write(pdf)

    def add_relocated(self, key: str, face: Relocatable) -> None:
        """Write a face's objects (once per key)."""
        if key not in self.relocated:
            self.relocated[key] = self._write(face.to_bytes())

    def _write(self, data: bytes) -> tuple[int, int]:
        try:
            self._fh.seek(self._end)
            self._fh.write(data)
        except OSError as exc:
            raise file_system_error(exc, "write", self.path) from None
        self._end += len(data)
        return self._end - len(data), len(data)

    def read(self, key: str) -> bytes:
        """A face written before (a deck's shared back is drawn once and read back)."""
        offset, length = self.places[key]
        try:
            self._fh.seek(offset)   # writes what is still buffered first
            return self._fh.read(length)
        except OSError as exc:
            raise file_system_error(exc, "write", self.path) from None


class SpooledFaces(RelocatedFaces):
    """The faces of several spool files as one mapping, SVG key → PDF bytes, each read from
    disk when asked for (nothing kept), and their objects where they were made (spools given
    as (path, places, objects' places)). Close it (or use it as a context manager) to close
    the files."""

    def __init__(self, spools: Iterable[tuple[str, Places, Places]]) -> None:
        self._where: dict[str, tuple[str, int, int]] = {}
        self._relocated: dict[str, tuple[str, int, int]] = {}
        for path, places, relocated in spools:
            for key, (offset, length) in places.items():
                self._where.setdefault(key, (path, offset, length))
            for key, (offset, length) in relocated.items():
                self._relocated.setdefault(key, (path, offset, length))
        self._open: dict[str, BinaryIO] = {}
        self._glyphs: dict[bytes, GlyphForm] = {}   # glyph forms read so far (see Relocatable.from_bytes)

    def __enter__(self) -> "SpooledFaces":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for fh in self._open.values():
            fh.close()
        self._open.clear()

    def __getitem__(self, key: str) -> bytes:
        return self._read(*self._where[key])

    def relocated(self, key: str) -> Relocatable | None:
        where = self._relocated.get(key)
        return Relocatable.from_bytes(self._read(*where), self._glyphs) if where is not None else None

    def _read(self, path: str, offset: int, length: int) -> bytes:
        try:
            fh = self._open.get(path)
            if fh is None:
                fh = self._open[path] = open(path, "rb")
            fh.seek(offset)
            data = fh.read(length)
        except OSError as exc:
            raise file_system_error(exc, "read", path) from None
        if len(data) != length:
            raise file_system_error(OSError(0, "the file is shorter than what was written to it"), "read", path)
        return data

    def __contains__(self, key: object) -> bool:
        return key in self._where

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)


def remove(paths: Iterable[str | Path]) -> None:
    """Remove spool files (those already gone are fine)."""
    for path in paths:
        try:
            Path(path).unlink(missing_ok=True)
        except OSError:
            pass
