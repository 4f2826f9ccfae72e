"""Writing build products safely: every file appears whole or not at all.

A file is written to a temporary name in the same folder, flushed to disk and renamed over
the target; a crash or Ctrl-C at any moment leaves the previous good file in place.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path


def _file_mode() -> int:
    """The mode a normal open() would create files with (mkstemp's 0600 is too private)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


FILE_MODE = _file_mode()


def stage(path: Path, data: bytes) -> tuple[Path, Path]:
    """Write ``data`` next to ``path`` under a temporary name, flushed to disk; returns
    (temporary, final). :func:`commit` renames it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, FILE_MODE)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp), path


def commit(staged: list[tuple[Path, Path]]) -> None:
    """Rename staged files into place, one quick rename each: a build's files change together,
    after every one of them was completely written."""
    for tmp, final in staged:
        os.replace(tmp, final)


def discard(staged: list[tuple[Path, Path]]) -> None:
    for tmp, _final in staged:
        tmp.unlink(missing_ok=True)


def atomic_write(path: Path, data: bytes) -> str:
    """Write ``data`` to ``path`` atomically; returns its sha256 (hex)."""
    commit([stage(path, data)])
    return hashlib.sha256(data).hexdigest()


def source_date_epoch() -> int | None:
    """``SOURCE_DATE_EPOCH`` if set (reproducible-builds.org); None means 'write no dates'."""
    value = os.environ.get("SOURCE_DATE_EPOCH")
    if value is None or not value.strip():
        return None
    try:
        return int(value)
    except ValueError:
        from .errors import InputError
        raise InputError(f"SOURCE_DATE_EPOCH={value!r} is not a whole number of seconds", None,
                         "set it to a Unix timestamp such as 1700000000, or unset it") from None


class BuildLock:
    """One build at a time per output folder: a second ``cardgen build`` into the same folder
    waits for the first (an advisory ``flock`` on ``<out>/.lock``), so two builds can never
    interleave their files. The lock dies with its process, so a killed build never leaves
    the folder locked. Stale temporary files of killed builds are swept once the lock is held,
    and those of a failed build (workers may have staged files the failure made moot) before
    it is released.
    """

    def __init__(self, out: Path, on_wait=None) -> None:
        self.path = out / ".lock"
        self.on_wait = on_wait
        self.fh = None

    def __enter__(self) -> "BuildLock":
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fh = open(self.path, "a+")
        try:
            fcntl.flock(self.fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if self.on_wait:
                self.on_wait()
            fcntl.flock(self.fh, fcntl.LOCK_EX)
        self._sweep()
        return self

    def _sweep(self) -> None:
        for stale in self.path.parent.rglob(".*.part"):
            stale.unlink(missing_ok=True)

    def fileno(self) -> int | None:
        return self.fh.fileno() if self.fh is not None else None

    def __exit__(self, exc_type: object, *exc: object) -> None:
        import fcntl

        if exc_type is not None:
            self._sweep()
        if self.fh is not None:
            fcntl.flock(self.fh, fcntl.LOCK_UN)
            self.fh.close()
