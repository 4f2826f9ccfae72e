"""The build cache's storage: one SQLite file, ``<out>/.cache/cache.sqlite``.

Why not a file per entry: a default build caches a few hundred faces, and creating a file is
the expensive part of storing one (on this project's ext4 test machine, allocating the inodes
for ~500 small files and their shard folders cost half a second of CPU, a sixth of the
build). One database file holds every entry; worker processes write to it concurrently
(write-ahead log, ``busy_timeout``). The same reasoning made mypy add ``--sqlite-cache``.

**A cache may come from someone else** — a shared folder, a zip of a colleague's output —
and it holds code (the Python source of compiled templates) and the faces that end up in the
print files. So every entry is authenticated with a secret of this user's, kept outside
the output folder (:func:`user_key`): an entry's tag is an HMAC over its kind, key, metadata
and the sha256 of its bytes, and an entry whose tag does not verify is a miss, never parsed.
A checksum stored beside the data would prove nothing (whoever writes the data writes the
checksum); an HMAC needs the key, which never leaves the user's own data folder.

The store is disposable by design. A read that fails is a miss, a write that fails is
skipped (the next build renders again), and a file that is not a database — damaged, or
left by something else — is replaced by an empty one.

It stays small: entries' bytes are kept once however many keys name them (every card of a
deck shares its back), compressed against their scope's first entry (:func:`_pack`), and so
is their metadata (compressed from a primer of the JSON it holds, :func:`_pack_meta`);
:meth:`Store.keep_only` drops what the latest build of a
scope (one component in one language) no longer uses, and :meth:`Store.finish` folds the
write-ahead log back into the file and truncates it.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import sqlite3
import stat
import weakref
import zlib
from pathlib import Path
from typing import Iterable

from .userkey import KEY_FILE, sign, user_key  # noqa: F401 (KEY_FILE: where tests find the key)

try:
    from isal import isal_zlib as _zlib   # ISA-L: ~4× faster than zlib, where it has wheels
    LEVEL = 3
except ImportError:  # pragma: no cover - platforms without ISA-L
    _zlib = zlib   # type: ignore[no-redef]
    LEVEL = 6

#: The kinds of entry, one table each (their bytes live in ``blobs``; "drawn": faces
#: ``cardgen check`` drew without error, with no bytes, and the rows vouching for the files a
#: build wrote; "template_facts": what the ``pdg-values`` rule read from a template source).
KINDS = ("faces", "templates", "drawn", "template_facts")
#: The tables' layout; a file made with another is emptied (``PRAGMA user_version``). 7: the
#: "drawn" and "template_facts" rows are scoped and replaced (:meth:`Store.put_only`); a file
#: of 6 holds rows of no scope, which nothing would ever drop.
SCHEMA = 7
#: Pages (2 KiB each) the write-ahead log may hold before a commit folds it back into the file,
#: and the bytes it is cut back to then. A process that keeps the cache open — the preview, a
#: program checking a game after each edit — grew the log by each check's verdicts: 1.1 MB
#: after 30 checks of Particle Builder, beside a 0.6 MB file and 0.64 MB of PDFs, on its way to
#: SQLite's own 1000 pages, a size the file then kept. Only :meth:`Store.finish` folded it.
WAL_PAGES = 64
WAL_BYTES = 128 << 10
#: Errors saying the file is no usable database: it is replaced by an empty one.
_BROKEN = ("file is not a database", "database disk image is malformed", "disk I/O error")
#: Connections a forked child inherited from its parent: SQLite forbids using or closing them
#: there, so they are kept, untouched, for the child's lifetime.
_INHERITED: list[sqlite3.Connection] = []
_STORES: weakref.WeakSet[Store] = weakref.WeakSet()
#: deflate's window: how much of a base a piece of another entry can refer to.
WINDOW = 32768
#: Entries compressed against a base are cut in pieces of this size, each primed with the
#: part of the base around the same place (see :func:`_pack`).
PIECE = 16384
def _around(base: bytes, start: int) -> bytes:
    """The window of ``base`` centred on the piece that starts at ``start``."""
    lead = (WINDOW - PIECE) // 2
    return base[max(0, start - lead):start + PIECE + lead][-WINDOW:]


def _pack(data: bytes, base: bytes) -> bytes:
    """``data`` as zlib streams of :data:`PIECE` bytes each, primed with the part of ``base``
    around the same offset.

    Faces of one component are drawn by one template: the frame, the artwork and most
    labels sit at the same place in each face's drawing operators, so the base holds most of
    a piece's text a few kilobytes away. deflate sees 32 KB back, and faces are 40–60 KB: a
    single dictionary would cover their first half only. Measured on the shipped decks:
    compressed alone 2.17 MB, with the base's first 32 KB as dictionary 1.86 MB, in pieces
    1.59 MB."""
    out = bytearray()
    for start in range(0, len(data), PIECE):
        pack = _zlib.compressobj(LEVEL, zdict=_around(base, start) or b"\0")
        out += pack.compress(data[start:start + PIECE]) + pack.flush()
    return bytes(out)


def _unpack(packed: bytes, base: bytes) -> bytes:
    """The inverse of :func:`_pack`: each stream's dictionary follows from the bytes
    unpacked before it."""
    out = bytearray()
    while packed:
        unpack = _zlib.decompressobj(zdict=_around(base, len(out)) or b"\0")
        out += unpack.decompress(packed)
        if not unpack.eof:
            raise _zlib.error("truncated entry")
        packed = unpack.unused_data
    return bytes(out)


#: What compressing a metadata text starts from (deflate's preset dictionary): the JSON
#: that cardgen's caches write — a face's rendering report and measured texts (see
#: :class:`cardgen.cache.FaceCache`), a compiled template's checksum and file name. Entries
#: are a few hundred bytes each, too short for deflate to learn their keys on its own.
_META_PRIMER = (b'{"checksum": "", "filename": "templates/_shared/'
                b'{"issues": [], "missing": [], "reads": [], "svg_key": "", "template": "templates/", '
                b'"texts": [{"angle": 0.0, "background": "#ffffff", "colour": "#111111", "contrast": 1'
                b'5.0, "field": "title", "group": 1, "marked": false, "n": 0, "size_pt": 8.503937007874'
                b'0, "text": "", "turned_reading": ""}, {"angle": 0.0, "background": "#')


def _pack_meta(text: bytes) -> bytes:
    pack = _zlib.compressobj(LEVEL, zdict=_META_PRIMER)
    return pack.compress(text) + pack.flush()


def _unpack_meta(packed: bytes) -> bytes:
    unpack = _zlib.decompressobj(zdict=_META_PRIMER)
    text = unpack.decompress(packed)
    if not unpack.eof:
        raise _zlib.error("truncated metadata")
    return text


def _tag(kind: str, key: str, meta: str, digest: str) -> str:
    """The entry's HMAC: binds its bytes and metadata (both by digest) to its kind and key."""
    message = "\0".join((kind, key, meta, digest)).encode("utf-8")
    return sign(message)


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
    """Key → (metadata text, bytes) tables in one SQLite file, every entry authenticated.

    The connection is opened on first use, and again in a forked child: SQLite connections
    must not cross a ``fork()``. It closes with the object.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        self._bases: dict[str, bytes] = {}
        #: each scope's base blob once found (see _packed): finding it scans the scope's entries,
        #: which a build storing 10,000 faces in batches did 150 times, under the write lock
        self._scope_bases: dict[tuple[str, str], str] = {}
        user_key()   # made before any fork, so that workers sign with the same key
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
            self._scope_bases.clear()
            self._remove()

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._unshared()
        try:
            return self._connect()
        except sqlite3.DatabaseError as exc:
            if not any(s in str(exc) for s in _BROKEN):
                raise
            self._remove()
            return self._connect()

    def _unshared(self) -> None:
        """Remove the store's files where they are not its own: a symbolic link (SQLite writes
        through it — a link to another program's database got cardgen's tables), a hard link
        (the same file under another name elsewhere), anything but a plain file. The cache is
        disposable; what the link pointed to is left untouched."""
        for path in self._files():
            try:
                st = os.lstat(path)
            except FileNotFoundError:
                continue
            if stat.S_ISDIR(st.st_mode):   # not written through: what a folder there does is handled on use
                continue
            if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
                path.unlink()

    def _remove(self) -> None:
        for path in self._files():
            path.unlink(missing_ok=True)

    def _files(self) -> list[Path]:
        """The database and the two files SQLite keeps beside it in WAL mode."""
        return [Path(f"{self.path}{suffix}") for suffix in ("", "-wal", "-shm")]

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        try:
            # 2 KiB pages: entries are compressed to a few KB, and a blob's last overflow page
            # is on average half empty, so larger pages waste more (16 KiB made the file a
            # fifth larger than its contents); smaller ones spill an entry's row (key,
            # digests, tag: ~300 bytes) to a page of its own. The shipped build's cache:
            # 1 KiB 1.04 MB, 2 KiB 0.83 MB, 4 KiB 0.91 MB. Incremental auto-vacuum: pages freed by
            # evicting entries are given back to the file system (see finish()); it must be
            # chosen before the first table.
            conn.execute("PRAGMA page_size=2048")
            conn.execute("PRAGMA auto_vacuum=INCREMENTAL")
            # WAL: readers never block the writer, and a commit appends to one log file.
            # synchronous=OFF: no fsync, neither per commit nor when finish() folds the log
            # back (that sync was 30 ms of a one-card rebuild). A process that dies loses
            # nothing; a machine that does may leave a damaged file, which costs what any
            # damage costs here: misses, or an empty cache in its place (see the module).
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=OFF")
            # The log is folded back into the file whenever it holds WAL_PAGES pages, and cut back
            # to WAL_BYTES once folded: see WAL_PAGES.
            conn.execute(f"PRAGMA wal_autocheckpoint={WAL_PAGES}")
            conn.execute(f"PRAGMA journal_size_limit={WAL_BYTES}")
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA:
                    for table in (*KINDS, "blobs", "metas"):
                        conn.execute(f"DROP TABLE IF EXISTS {table}")
                    conn.execute(f"PRAGMA user_version = {SCHEMA}")
                for kind in KINDS:
                    # scope: what a build keeps or evicts together (see keep_only)
                    conn.execute(f"CREATE TABLE IF NOT EXISTS {kind} (key TEXT PRIMARY KEY, meta TEXT NOT NULL, "
                                 "digest TEXT NOT NULL, scope TEXT NOT NULL, tag TEXT NOT NULL) WITHOUT ROWID")
                # base: the blob whose first bytes were the preset dictionary of this one's
                # compression (see put); a plain rowid table: big rows are what it is for
                conn.execute("CREATE TABLE IF NOT EXISTS blobs (digest TEXT PRIMARY KEY, base TEXT, "
                             "data BLOB NOT NULL)")
                # metadata by digest, compressed: entries often say the same (every back of a
                # deck), and a face's (its measured texts, JSON) is a large part of its entry
                conn.execute("CREATE TABLE IF NOT EXISTS metas (digest TEXT PRIMARY KEY, data BLOB NOT NULL)")
        except BaseException:
            conn.close()
            raise
        return conn

    def get(self, kind: str, key: str, read: bool = True) -> tuple[str, bytes] | None:
        """The entry stored under ``key``, or None: absent, unreadable, or not authenticated
        by this user's key (then its bytes are not even read). ``read=False``: the metadata
        only (the bytes come back empty, unread)."""
        try:
            db = self._db()
            row = db.execute(f"SELECT meta, digest, tag FROM {kind} WHERE key = ?", (key,)).fetchone()
            if row is None or not all(isinstance(v, str) for v in row) or not hmac.compare_digest(
                    row[2], _tag(kind, key, row[0], row[1])):
                return None
            meta = self._meta(db, row[0])
            if meta is None:
                return None
            if not read:
                return meta, b""
            data = self._bytes(db, row[1])
        except (sqlite3.Error, OSError) as exc:   # e.g. a read-only folder
            self._failed(exc)
            return None
        return None if data is None else (meta, data)

    def _meta(self, db: sqlite3.Connection, digest: str) -> str | None:
        """Metadata by digest, or None if it is missing or no longer what was stored."""
        row = db.execute("SELECT data FROM metas WHERE digest = ?", (digest,)).fetchone()
        try:
            text = _unpack_meta(row[0]) if row is not None else None
        except (_zlib.error, zlib.error, TypeError):
            return None
        if text is None or hashlib.sha256(text).hexdigest() != digest:
            return None
        return text.decode("utf-8")

    def _bytes(self, db: sqlite3.Connection, digest: str, depth: int = 0) -> bytes | None:
        """A blob's bytes, or None if it is missing or no longer what was stored."""
        row = db.execute("SELECT base, data FROM blobs WHERE digest = ?", (digest,)).fetchone()
        if row is None or depth > 1:
            return None
        base, packed = row
        try:
            if base is None:
                data = _zlib.decompress(packed)
            else:
                prime = self._base(db, base, depth + 1)
                if prime is None:
                    return None
                data = _unpack(packed, prime)
        except (_zlib.error, zlib.error, TypeError):
            return None
        return data if hashlib.sha256(data).hexdigest() == digest else None   # damaged since it was stored

    def _base(self, db: sqlite3.Connection, digest: str, depth: int = 1) -> bytes | None:
        """A base blob's bytes, kept in memory (a component's faces share one)."""
        if digest not in self._bases:
            data = self._bytes(db, digest, depth)
            if data is None:
                return None
            if len(self._bases) >= 16:
                self._bases.pop(next(iter(self._bases)))
            self._bases[digest] = data
        return self._bases[digest]

    def present(self, kind: str, keys: Iterable[str]) -> set[str]:
        """Which of ``keys`` have an entry (not checked: :meth:`get` does that)."""
        wanted, found = list(dict.fromkeys(keys)), set()
        try:
            for i in range(0, len(wanted), 500):   # SQLite binds at most 999 values per statement
                part = wanted[i:i + 500]
                rows = self._db().execute(f"SELECT key FROM {kind} WHERE key IN ({','.join('?' * len(part))})", part)
                found.update(row[0] for row in rows)
        except (sqlite3.Error, OSError) as exc:   # e.g. a read-only folder
            self._failed(exc)
        return found

    def keys(self, kind: str, scope: str) -> set[str] | None:
        """The keys ``scope`` holds of ``kind``; None when the file cannot be read."""
        try:
            return {row[0] for row in self._db().execute(f"SELECT key FROM {kind} WHERE scope = ?", (scope,))}
        except (sqlite3.Error, OSError) as exc:   # e.g. a read-only folder
            self._failed(exc)
            return None

    def put(self, kind: str, entries: Iterable[tuple[str, str, bytes]], scope: str = "",
            based: bool = True) -> None:
        """Store (key, meta, data) entries in one transaction; best effort (see the module).

        Bytes already stored under another key are not stored again (every card of a deck
        shares its back). The rest is compressed against the scope's first entry, its base
        (see :func:`_pack`), unless not ``based``."""
        rows, blobs, metas = [], {}, {}
        for key, meta, data in entries:
            digest = hashlib.sha256(data).hexdigest()
            text = meta.encode("utf-8")
            meta_digest = hashlib.sha256(text).hexdigest()
            rows.append((key, meta_digest, digest, scope, _tag(kind, key, meta_digest, digest)))
            blobs.setdefault(digest, data)
            metas.setdefault(meta_digest, text)
        if not rows:
            return
        packed_metas = [(d, _pack_meta(text)) for d, text in metas.items()]
        try:
            conn = self._db()
            with conn:  # BEGIN … COMMIT, or ROLLBACK on error
                # the base is looked for under the write lock: workers storing faces of one
                # component at the same moment then share one
                conn.execute("BEGIN IMMEDIATE")
                conn.executemany("INSERT OR IGNORE INTO blobs (digest, base, data) VALUES (?, ?, ?)",
                                 self._packed(conn, kind, scope if based else "", blobs))
                conn.executemany("INSERT OR IGNORE INTO metas (digest, data) VALUES (?, ?)", packed_metas)
                conn.executemany(f"INSERT OR REPLACE INTO {kind} (key, meta, digest, scope, tag) "
                                 "VALUES (?, ?, ?, ?, ?)", rows)
        except (sqlite3.Error, OSError) as exc:   # e.g. a read-only folder
            self._failed(exc)

    def put_only(self, kind: str, scoped: dict[str, Iterable[tuple[str, str, bytes]]]) -> None:
        """:meth:`put` each scope's entries as all that the scope holds of ``kind``: its other
        entries are dropped (:meth:`keep_only`, once for all the scopes: it sweeps every table
        for what nothing uses any more). For what a build or a check makes anew each time — a
        written file's row, a face's drawing verdict, a template's facts — kept under
        :meth:`put` alone, the cache grew with every edit (a one-card edit and its check added
        2.6 KB: ``bench/bench_pdfsize.py --edits``); kept so, it holds what the latest build or
        check made. Each entry is compressed alone: a base would be an entry the next call drops."""
        kept: dict[str, list[str]] = {}
        for scope, entries in scoped.items():
            listed = list(entries)
            self.put(kind, listed, scope, based=False)
            kept[scope] = [key for key, _meta, _data in listed]
        self.keep_only(kind, kept)

    def _packed(self, conn: sqlite3.Connection, kind: str, scope: str,
                blobs: dict[str, bytes]) -> list[tuple[str, str | None, bytes]]:
        """(digest, base, compressed bytes) of the blobs not stored yet. A blob, once stored,
        never changes (the same digest is the same bytes): a base cannot turn into a blob
        that needs a base of its own."""
        wanted, have = list(blobs), set()
        for i in range(0, len(wanted), 500):   # SQLite binds at most 999 values per statement
            part = wanted[i:i + 500]
            have.update(d for (d,) in conn.execute(
                f"SELECT digest FROM blobs WHERE digest IN ({','.join('?' * len(part))})", part))
        todo = [(d, data) for d, data in blobs.items() if d not in have]
        if not todo:
            return []
        base = self._scope_bases.get((kind, scope))
        if base is None and scope:
            found = conn.execute(f"SELECT b.digest FROM {kind} AS e JOIN blobs AS b ON b.digest = e.digest "
                                 "WHERE e.scope = ? AND b.base IS NULL LIMIT 1", (scope,)).fetchone()
            base = found[0] if found else None
        prime = self._base(conn, base) if base else None
        packed = []
        if scope and prime is None:   # the scope's first entry: it becomes the base of the others
            (base, data), todo = todo[0], todo[1:]
            prime = data
            packed.append((base, None, _zlib.compress(data, LEVEL)))
        if scope and base is not None:
            self._scope_bases[(kind, scope)] = base
        for digest, data in todo:
            packed.append((digest, base, _pack(data, prime)) if prime else (digest, None, _zlib.compress(data, LEVEL)))
        return packed

    def keep_only(self, kind: str, scopes: dict[str, Iterable[str]],
                  within: dict[str, Iterable[str]] | None = None) -> None:
        """For each scope, drop its entries whose key is not among the given ones (what the
        latest build of that scope used); other scopes are left alone, except that ``within``
        names, for a prefix of scopes, every scope under it that still exists: the entries of
        the others under that prefix are dropped (the faces of a component the game no longer
        has, which no build would look at again)."""
        try:
            conn = self._db()
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("CREATE TEMP TABLE IF NOT EXISTS kept (key TEXT PRIMARY KEY) WITHOUT ROWID")
                for scope, keys in scopes.items():
                    _keeping(conn, keys)
                    conn.execute(f"DELETE FROM {kind} WHERE scope = ? AND key NOT IN (SELECT key FROM kept)", (scope,))
                for prefix, existing in (within or {}).items():
                    _keeping(conn, existing)
                    conn.execute(f"DELETE FROM {kind} WHERE substr(scope, 1, ?) = ? AND scope NOT IN "
                                 "(SELECT key FROM kept)", (len(prefix), prefix))
                _keeping(conn, ())
                self._scope_bases.clear()   # a base may go with the entries evicted here
                # twice: a base that only evicted blobs were compressed with goes in the second round
                for _round in range(2):
                    conn.execute("DELETE FROM blobs WHERE digest NOT IN ("
                                 + " UNION ".join(f"SELECT digest FROM {k}" for k in KINDS)
                                 + " UNION SELECT base FROM blobs WHERE base IS NOT NULL)")
                conn.execute("DELETE FROM metas WHERE digest NOT IN ("
                             + " UNION ".join(f"SELECT meta FROM {k}" for k in KINDS) + ")")
        except (sqlite3.Error, OSError) as exc:
            self._failed(exc)

    def finish(self) -> None:
        """At the end of a build: give freed pages back and fold the write-ahead log into the
        file, truncating it (a process that ends with ``os._exit`` never closes SQLite, so the
        log would otherwise keep every face written, growing for as long as builds run), then
        close the connection: the last one to close removes the log and its shared-memory
        index (32 KB), and the next use opens a new one."""
        if self._conn is None:
            return
        try:
            if self._conn.execute("PRAGMA freelist_count").fetchone()[0]:
                self._conn.execute("PRAGMA incremental_vacuum")
            # a checkpoint syncs the file (~30 ms): not when nothing was written
            if os.stat(f"{self.path}-wal").st_size:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except (sqlite3.Error, OSError) as exc:
            self._failed(exc)
        if self._conn is not None:
            self._conn.close()
            self._conn = None
            self._bases.clear()
            self._scope_bases.clear()


def _keeping(conn: sqlite3.Connection, values: Iterable[str]) -> None:
    """Fill the temporary table ``kept`` (see :meth:`Store.keep_only`) with ``values`` alone."""
    conn.execute("DELETE FROM kept")
    conn.executemany("INSERT OR IGNORE INTO kept VALUES (?)", ((v,) for v in values))


def finish_all() -> None:
    """Fold the write-ahead log of every store this process has open into its file: for a
    process about to end without closing them (the ``cardgen`` command's fast exit, see
    :func:`cardgen.cli.run`), which would otherwise leave the log to grow."""
    for store in list(_STORES):
        store.finish()
