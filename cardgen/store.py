"""The build cache's storage: one SQLite file, ``<out>/.cache/cache.sqlite``.

Why not a file per entry: a default build caches a few hundred faces, and creating a file is
the expensive part of storing one (on this project's ext4 test machine, allocating the inodes
for ~500 small files and their shard folders cost half a second of CPU, a sixth of the
build). One database file holds every entry; worker processes write to it concurrently
(write-ahead log, ``busy_timeout``). The same reasoning made mypy add ``--sqlite-cache``.

The store is disposable by design. A read that fails is a miss, a write that fails is
skipped (the next build renders again), and a file that is not a database — damaged, or
left by something else — is replaced by an empty one. Every entry carries the sha256 of its
bytes, and one that no longer matches is a miss: a damaged entry is never used. Values are
plain data (metadata text and bytes), never pickles.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sqlite3
import weakref
from pathlib import Path
from typing import Iterable

#: The kinds of entry, one table each ("drawn": faces ``cardgen check`` drew without error, no data).
KINDS = ("faces", "templates", "drawn")
#: The tables' layout; a file made with another is emptied (``PRAGMA user_version``).
SCHEMA = 2
#: Errors saying the file is no usable database: it is replaced by an empty one.
_BROKEN = ("file is not a database", "database disk image is malformed", "disk I/O error")
#: Connections a forked child inherited from its parent: SQLite forbids using or closing them
#: there, so they are kept, untouched, for the child's lifetime.
_INHERITED: list[sqlite3.Connection] = []
_STORES: weakref.WeakSet[Store] = weakref.WeakSet()


@functools.lru_cache(maxsize=4)
def open_store(path: Path) -> Store:
    """A shared store for ``path``: one connection per process for a build's many users.
    The few most recent stay open; older ones close when their last user lets go (a
    long-running process building into many folders does not pile up open files)."""
    return Store(path)


def _after_fork_in_child() -> None:
    for store in list(_STORES):
        if store._conn is not None:
            _INHERITED.append(store._conn)
            store._conn = None


os.register_at_fork(after_in_child=_after_fork_in_child)


class Store:
    """Key → (metadata text, bytes) tables in one SQLite file.

    The connection is opened on first use, and again in a forked child: SQLite connections
    must not cross a ``fork()``. It closes with the object.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        _STORES.add(self)

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = self._open()
        return self._conn

    def _failed(self, exc: Exception) -> None:
        """After an error: a damaged file is removed, and a new one made on next use. (A
        process still holding the old file keeps using it, unlinked: a few more misses.)"""
        if self._conn is not None and any(s in str(exc) for s in _BROKEN):
            self._conn.close()
            self._conn = None
            self._remove()

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            return self._connect()
        except sqlite3.DatabaseError as exc:
            if not any(s in str(exc) for s in _BROKEN):
                raise
            self._remove()
            return self._connect()

    def _remove(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        try:
            # 16 KiB pages (for a new file; SQLite's default is 4 KiB): entries are face PDFs
            # of ~45 KB, and with 4 KiB pages storing the shipped decks' faces took twice as long.
            conn.execute("PRAGMA page_size=16384")
            # WAL: readers never block the writer, and a commit appends to one log file.
            # synchronous=NORMAL: no fsync per commit; a crash may lose the latest entries
            # (a miss next time), never corrupt the database.
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA:
                    for kind in KINDS:
                        conn.execute(f"DROP TABLE IF EXISTS {kind}")
                    conn.execute(f"PRAGMA user_version = {SCHEMA}")
                for kind in KINDS:
                    conn.execute(f"CREATE TABLE IF NOT EXISTS {kind} (key TEXT PRIMARY KEY, meta TEXT NOT NULL, "
                                 "data BLOB NOT NULL, sha256 TEXT NOT NULL) WITHOUT ROWID")
        except BaseException:
            conn.close()
            raise
        return conn

    def get(self, kind: str, key: str) -> tuple[str, bytes] | None:
        """The entry stored under ``key``, or None (absent, or the store is unreadable)."""
        try:
            row = self._db().execute(f"SELECT meta, data, sha256 FROM {kind} WHERE key = ?", (key,)).fetchone()
        except (sqlite3.Error, OSError) as exc:   # e.g. a read-only folder
            self._failed(exc)
            return None
        if row is None or hashlib.sha256(row[1]).hexdigest() != row[2]:
            return None
        return row[0], bytes(row[1])

    def present(self, kind: str, keys: Iterable[str]) -> set[str]:
        """Which of ``keys`` have an entry (not checked for damage: :meth:`get` does that)."""
        wanted, found = list(dict.fromkeys(keys)), set()
        try:
            for i in range(0, len(wanted), 500):   # SQLite binds at most 999 values per statement
                part = wanted[i:i + 500]
                rows = self._db().execute(f"SELECT key FROM {kind} WHERE key IN ({','.join('?' * len(part))})", part)
                found.update(row[0] for row in rows)
        except (sqlite3.Error, OSError) as exc:   # e.g. a read-only folder
            self._failed(exc)
        return found

    def put(self, kind: str, entries: Iterable[tuple[str, str, bytes]]) -> None:
        """Store (key, meta, data) entries in one transaction; best effort (see the module)."""
        rows = [(key, meta, data, hashlib.sha256(data).hexdigest()) for key, meta, data in entries]
        if not rows:
            return
        try:
            conn = self._db()
            with conn:  # BEGIN … COMMIT, or ROLLBACK on error
                conn.execute("BEGIN IMMEDIATE")
                conn.executemany(f"INSERT OR REPLACE INTO {kind} (key, meta, data, sha256) VALUES (?, ?, ?, ?)",
                                 rows)
        except (sqlite3.Error, OSError) as exc:   # e.g. a read-only folder
            self._failed(exc)
