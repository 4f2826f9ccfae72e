"""Writing build products safely: every file, and every build folder, appears whole or not at all.

A single file is written to a temporary name in the same folder, flushed to disk and renamed
over the target. A build folder (``OUT/<game>/<lang>/``: PDFs, cut files, instructions and
the manifest that describes them) is built beside it as ``.<lang>.next`` and swapped in with
one atomic rename (Linux ``renameat2(RENAME_EXCHANGE)``): a crash, kill -9 or Ctrl-C at any
moment leaves either the old folder or the new one, never a mixture that disagrees with its
manifest.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from . import interrupts
from .errors import InputError, Location, display_path, file_system_error

#: Files a build writes into a folder; the rest (a render's faces/, a user's notes) is kept.
BUILD_PRODUCTS = ("*.pdf", "*-cut.svg", "PRINTING.txt", "text-report.txt", "manifest.json")
_NEXT, _OLD = ".next", ".old"
#: How many build folders this process has swapped in (see :func:`swaps`).
_SWAPS = 0


def _umask() -> int:
    """This process's umask, asked at each use: the daemon runs each command under its caller's."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _file_mode() -> int:
    """The mode a normal open() would create files with (mkstemp's 0600 is too private)."""
    return 0o666 & ~_umask()


def folder_mode() -> int:
    """The mode mkdir would create a folder with (mkdtemp's 0700 is too private)."""
    return 0o777 & ~_umask()


def next_folder(folder: Path) -> Path:
    """Where the next version of a build folder is put together."""
    return folder.parent / f".{folder.name}{_NEXT}"


def stage(path: Path, data: bytes) -> Path:
    """Write ``data`` as ``path`` will hold it in its folder's next version (flushed to
    disk); returns ``path``. Nothing in the folder itself changes until :func:`commit`."""
    with staging(path) as fh:
        fh.write(data)
    return path


def staged_file(path: Path) -> Path:
    """Where :func:`stage` and :func:`staging` put what ``path`` will hold."""
    return next_folder(path.parent) / path.name


@contextmanager
def staging(path: Path) -> Iterator[BinaryIO]:
    """A file to write what ``path`` will hold into, in its folder's next version, flushed to
    disk when the block ends: for a file written piece by piece (a deck's PDF) rather than
    handed over whole (see :func:`stage`)."""
    target = staged_file(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        raise file_system_error(exc, "write", path) from None


def commit(staged: Iterable[Path], keep: Iterable[Path] = ()) -> None:
    """Swap in the next version of every folder a file was staged for. Each next version gets
    what it keeps of the current one — the files in ``keep`` (unchanged build products) and
    everything that is not a build product — as hard links, then replaces it in one rename.
    The folders are swapped with Ctrl-C and SIGTERM held back (:func:`cardgen.interrupts.deferred`):
    stopping between two would leave some new and some old, under a message that says none changed."""
    interrupts.raise_dropped()   # a Ctrl-C Python could not raise where it came stops the run here
    staged, keep = set(staged), set(keep)
    folders = sorted({p.parent for p in staged})
    for folder in folders:
        _refuse_read_only(folder)
    global _SWAPS
    with interrupts.deferred():
        for folder in folders:
            try:
                _swap_in(folder, {p.name for p in staged if p.parent == folder},
                         {p.name for p in keep if p.parent == folder})
            except OSError as exc:
                raise file_system_error(exc, "write", folder) from None
            _SWAPS += 1


def swaps() -> int:
    """How many build folders this process has swapped in so far: a command stopped after its
    first tells the user its outputs are this run's, not those from before it (see
    :mod:`cardgen.cli_common`)."""
    return _SWAPS


def _refuse_read_only(folder: Path) -> None:
    """A build folder its owner made read-only is kept as it is. The swap would not be stopped
    by it (renaming a folder needs the right to write to its parent, not to itself), so the
    new version would replace a folder its owner protected, and the old version, whose files
    cannot be removed, would be left behind. Asked of every folder before any is swapped."""
    if folder.is_dir() and not os.access(folder, os.W_OK):
        raise file_system_error(PermissionError(errno.EACCES, "the folder is read-only", str(folder)),
                                "write", folder)


def _swap_in(folder: Path, written: set[str], keep: set[str]) -> None:
    nxt = next_folder(folder)
    if folder.is_dir():
        for entry in folder.iterdir():
            if entry.name in written or (is_build_product(entry.name) and entry.name not in keep):
                continue
            _link_tree(entry, nxt / entry.name)
    _sync(nxt)
    if folder.is_dir():
        exchange(nxt, folder)              # the one step that changes what the folder holds
        _sync(folder.parent)
        shutil.rmtree(nxt)                 # the old version (a crash here leaves it to the next sweep)
    else:
        os.rename(nxt, folder)
        _sync(folder.parent)


def discard(staged: Iterable[Path]) -> None:
    """Drop the next versions a failed build had started, and a game's folder that only
    held them (the first build of a game, refused after its files were staged, leaves no
    empty folder behind)."""
    for folder in {p.parent for p in staged}:
        shutil.rmtree(next_folder(folder), ignore_errors=True)
        try:
            folder.parent.rmdir()   # only if empty: an earlier build's language folders stay
        except OSError:
            pass


def is_build_product(name: str) -> bool:
    return any(Path(name).match(pattern) for pattern in BUILD_PRODUCTS)


def _link_tree(src: Path, dst: Path) -> None:
    """Hard-link a file (copy where links are impossible) or a folder of files."""
    if src.is_dir() and not src.is_symlink():
        shutil.copytree(src, dst, symlinks=True, copy_function=_link_or_copy)
    else:
        _link_or_copy(src, dst)


def _link_or_copy(src: Path | str, dst: Path | str) -> None:
    try:
        os.link(src, dst, follow_symlinks=False)
    except OSError:
        shutil.copy2(src, dst, follow_symlinks=False)


def _sync(folder: Path) -> None:
    """Make a folder's entries durable (the renames in it survive a power cut)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def exchange(a: Path, b: Path) -> None:
    """Swap two folders in one atomic step (Linux ``renameat2(RENAME_EXCHANGE)``). Where the
    system has no such call, ``b`` is first renamed aside to ``.<name>.old`` and ``a`` put in
    its place; :func:`repair` puts the old one back if a crash came in between."""
    renameat2 = getattr(_libc(), "renameat2", None)
    if renameat2 is not None:
        if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
            return
        code = ctypes.get_errno()
        if code not in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
            raise OSError(code, os.strerror(code), str(b))
    old = b.parent / f".{b.name}{_OLD}"
    os.rename(b, old)
    os.rename(a, b)
    os.rename(old, a)


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def repair(out: Path) -> None:
    """After a build that was killed: drop unfinished next versions of build folders and put
    back a folder the fallback of :func:`exchange` had renamed aside. Run under the lock."""
    for game in _subfolders(out):
        for entry in _subfolders(game):
            name = entry.name
            if name.startswith(".") and name.endswith(_OLD):
                live = game / name[1:-len(_OLD)]
                if not live.exists():
                    os.rename(entry, live)
                else:
                    shutil.rmtree(entry, ignore_errors=True)
            elif name.startswith(".") and name.endswith(_NEXT):
                shutil.rmtree(entry, ignore_errors=True)


def _subfolders(folder: Path) -> list[Path]:
    try:
        return [p for p in folder.iterdir() if p.is_dir() and not p.is_symlink()]
    except OSError:
        return []


def atomic_write(path: Path, data: bytes) -> str:
    """Write ``data`` to ``path`` atomically (a temporary file renamed over it); returns its
    sha256 (hex)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    except OSError as exc:
        raise file_system_error(exc, "write", path) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _file_mode())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise file_system_error(exc, "write", path) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return hashlib.sha256(data).hexdigest()


def source_date_epoch() -> int | None:
    """``SOURCE_DATE_EPOCH`` if set (reproducible-builds.org); None means 'write no dates'."""
    value = os.environ.get("SOURCE_DATE_EPOCH")
    if value is None or not value.strip():
        return None
    try:
        epoch = int(value)
    except ValueError:
        raise InputError(f"SOURCE_DATE_EPOCH={value!r} is not a whole number of seconds", None,
                         "set it to a Unix timestamp such as 1700000000, or unset it") from None
    if not 0 <= epoch <= MAX_EPOCH:   # a PDF date has four digits of year
        raise InputError(f"SOURCE_DATE_EPOCH={value} is not a date between 1970 and 9999", None,
                         "set it to a Unix timestamp such as 1700000000, or unset it")
    return epoch


#: 9999-12-31 23:59:59 UTC, the last moment a PDF date can say.
MAX_EPOCH = 253402300799


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

        out = self.path.parent
        for name in (".lock", ".cache"):   # what a build writes through: never a link out of the folder
            if (out / name).is_symlink():
                raise InputError(f"{display_path(out / name)} is a link (to {os.readlink(out / name)}): a build writes "
                                 "its lock and cache only into the output folder itself", Location(display_path(out)),
                                 f"remove the link; cardgen makes its own {name}")
        cache = out / ".cache"
        if cache.exists() and not cache.is_dir():   # found before anything is written, not after every PDF
            raise InputError(f"{display_path(cache)} is a file, where cardgen keeps its cache folder",
                             Location(display_path(out)), "remove it (or move it away); cardgen makes its own .cache")
        try:
            out.mkdir(parents=True, exist_ok=True)
            self.fh = os.fdopen(os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o666), "a+")
        except OSError as exc:
            raise file_system_error(exc, "write into the output folder", self.path.parent) from None
        try:
            fcntl.flock(self.fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if self.on_wait:
                self.on_wait()
            fcntl.flock(self.fh, fcntl.LOCK_EX)
        self._sweep()
        return self

    def _sweep(self) -> None:
        repair(self.path.parent)
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
