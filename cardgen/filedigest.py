"""The digest of a file a build or a check only needs to recognise, read safely.

Every file of a game folder, its templates and fonts goes into the keys that decide what is
built again — including files nothing refers to, since a template may include any of them.
Such a file comes from whoever shared the game: a named pipe would block a plain read for
ever, a link to ``/dev/zero`` never ends, and a 50 GB file would take minutes and, read
whole, all the memory there is. Here a file is opened without blocking and read only if it
is a regular file, in pieces, and only up to :data:`HASH_LIMIT`: a larger one is known by its
size and modification time, as the package's own large files (its fonts) are.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat

#: Files larger than this are known by size and modification time, not by their bytes.
HASH_LIMIT = 64 << 20
_CHUNK = 1 << 20


def sha256_file(path: str | os.PathLike[str]) -> str:
    """A file's sha256 (or, above :data:`HASH_LIMIT`, its size and time); OSError for a file
    that cannot be read or is not a regular file (a pipe, a device, a socket)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if st.st_size > HASH_LIMIT:
            return f"size:{st.st_size}:{st.st_mtime_ns}"
        h = hashlib.sha256()
        left = st.st_size + 1   # a file that grows while read is read no further than it was
        while left > 0 and (chunk := os.read(fd, min(_CHUNK, left))):
            h.update(chunk)
            left -= len(chunk)
        return h.hexdigest()
    finally:
        os.close(fd)
