"""A folder of files kept once per machine, each signed with this user's key and the folder
bounded in size: what the compiled templates (:mod:`cardgen.templatecache`), the parsed
data files (:mod:`cardgen.yamlcache`) and the glyph outlines (:mod:`cardgen.outlinecache`)
are kept in.

What such a file holds is believed only when its tag verifies: an HMAC of its name and data
with this user's key (:func:`cardgen.userkey.user_key`). A file damaged, truncated, or written
by anyone else is a miss, and its content is made afresh, never read. The folder is bounded
(the least recently used files go first: reading a file marks it used) and disposable: a read
that fails is a miss, a write that fails is skipped. ``--no-cache`` takes and keeps nothing
(:func:`switch`; the compiled templates have a switch of their own, see
:func:`cardgen.checkfaces.keeps_on_machine`).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import hashlib
import hmac
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

#: The HMAC tag heading each file.
TAG = 32
#: A folder is looked over for its limit (see :meth:`TaggedFiles._bound`) at least this often;
#: the file whose time says when it last was.
LOOK_SECONDS = 60.0
LOOKED = ".looked-over"
#: Bytes this process has written into each folder since it last looked it over.
_WRITTEN: dict[str, int] = {}

_ON: contextvars.ContextVar[bool] = contextvars.ContextVar("cardgen_machine_files", default=True)


@contextlib.contextmanager
def switch(on: bool) -> Iterator[None]:
    """Within: what is kept on the machine is taken and kept when ``on``; else everything
    is made afresh, and nothing is kept (``--no-cache``). A process forked within (a build's
    workers) starts with the same setting."""
    token = _ON.set(on)
    try:
        yield
    finally:
        _ON.reset(token)


def enabled() -> bool:
    """Whether what is kept on the machine may be taken and kept here and now (:func:`switch`)."""
    return _ON.get()


def cache_folder(name: str) -> Path:
    """``name``'s folder in this user's cache folder (the platform's, e.g. ``~/.cache/cardgen``)."""
    return _cache_root(*(os.environ.get(v) for v in _WHERE)) / name


#: The environment that decides where the platform's cache folder is.
_WHERE = ("XDG_CACHE_HOME", "HOME", "LOCALAPPDATA", "USERPROFILE")


@functools.lru_cache(maxsize=8)
def _cache_root(*where: str | None) -> Path:
    """This user's cache folder for cardgen, found once per process for each setting of
    :data:`_WHERE` (a glyph's outline is looked up there: asking platformdirs each time was a
    twentieth of writing a deck, measured)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("cardgen", appauthor=False))


class TaggedFiles:
    """Signed files in ``folder``, those ending in one of ``suffixes`` counted against
    ``limit`` bytes."""

    def __init__(self, folder: Path, limit: int, suffixes: tuple[str, ...]) -> None:
        self.folder = folder
        self.limit = limit
        self.suffixes = suffixes

    @staticmethod
    def tag(name: str, data: bytes) -> bytes:
        from .userkey import user_key

        return hmac.new(user_key(), name.encode() + b"\0" + data, hashlib.sha256).digest()

    def read(self, path: Path) -> bytes | None:
        """A file's data when its tag verifies (the file is then recently used: evicted last)."""
        try:
            blob = path.read_bytes()
        except OSError:
            return None
        tag, data = blob[:TAG], blob[TAG:]
        if len(tag) != TAG or not hmac.compare_digest(tag, self.tag(path.name, data)):
            return None
        try:
            os.utime(path)
        except OSError:
            pass
        return data

    def write(self, path: Path, data: bytes) -> bool:
        """Keep ``data`` as ``path``, signed; False when it could not be written."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".", suffix=".part")
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(self.tag(path.name, data) + data)
                os.replace(tmp, path)   # whole or not at all: a reader never sees half a file
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError:
            return False
        self._bound(TAG + len(data))
        return True

    def _bound(self, written: int) -> None:
        """Remove the least recently used files while the folder holds more than the limit —
        looked over once this process has written a sixteenth of the limit into it since it
        last did, or once :data:`LOOK_SECONDS` have passed since any process did (the time of
        the folder's :data:`LOOKED` file). Listing the folder on every write cost a one-card
        edit 7–13 ms when its parsed data file was kept (1,800 files listed and stat'ed, a
        folder after a few weeks of edits); the folder may now exceed its limit by what
        processes write into it within a minute, each less than a sixteenth of it."""
        key = str(self.folder)
        _WRITTEN[key] = _WRITTEN.get(key, 0) + written
        looked = self.folder / LOOKED
        if _WRITTEN[key] < self.limit // 16:
            try:
                if time.time() - looked.stat().st_mtime < LOOK_SECONDS:
                    return
            except OSError:
                pass
        _WRITTEN[key] = 0
        try:
            looked.touch()
        except OSError:
            pass
        files = []
        try:
            with os.scandir(self.folder) as entries:
                for entry in entries:
                    if entry.name.endswith(self.suffixes):
                        st = entry.stat()
                        files.append((st.st_mtime_ns, st.st_size, entry.path))
        except OSError:
            return
        total = sum(size for _t, size, _p in files)
        for _mtime, size, name in sorted(files):
            if total <= self.limit:
                break
            try:
                os.unlink(name)
            except OSError:
                continue
            total -= size
