"""This user's secret: what proves that a cache entry, a kept verdict or an up-to-date stamp was
written by this user's own cardgen, not copied in with someone else's output folder.

A module of its own, imported by the build cache's store, the template cache, the verdicts
and the up-to-date stamp alike: the stamp is read by a build that finds nothing to do, which
imports no more than this (no SQLite).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import secrets
from pathlib import Path

#: Where the key lives, inside the user's data folder (see :func:`user_key`).
KEY_FILE = "cache-key"


@functools.cache
def user_key() -> bytes:
    """This user's secret for authenticating cache entries, made on first use.

    It lives in the user's data folder (``platformdirs.user_data_dir``, e.g.
    ``~/.local/share/cardgen/cache-key``), readable by the user only — never in an output
    folder, which is what gets shared. Where it cannot be stored (a read-only home), a key
    for this process alone is used: the cache then serves this run and its workers only."""
    import platformdirs

    path = Path(platformdirs.user_data_dir("cardgen", appauthor=False)) / KEY_FILE
    for _attempt in range(3):
        try:
            exists = True
            if len(key := path.read_bytes()) >= 32:
                return key
        except FileNotFoundError:
            exists = False
        except OSError:
            break
        made = secrets.token_bytes(32)
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            temp = path.with_name(f"{KEY_FILE}.{os.getpid()}")
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(made)
            try:
                if exists:
                    os.replace(temp, path)   # a damaged (short) key file: no entry it signed can be read anyway
                else:
                    os.link(temp, path)      # fails if another process made one meanwhile: theirs is read next
                return made
            except FileExistsError:
                continue
            finally:
                temp.unlink(missing_ok=True)
        except OSError:
            break
    return secrets.token_bytes(32)


def sign(data: bytes) -> str:
    """The HMAC of ``data`` with this user's key (hex)."""
    return hmac.new(user_key(), data, hashlib.sha256).hexdigest()
