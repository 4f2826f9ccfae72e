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


def atomic_write(path: Path, data: bytes) -> str:
    """Write ``data`` to ``path`` atomically; returns its sha256 (hex)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
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
