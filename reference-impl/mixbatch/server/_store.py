"""The demo resources' durable state: one SQLite database file in WAL mode, off the event loop.

Theory of operation: every read or write of a resource is a plain function of a
``sqlite3.Connection`` handed to ``Store.read`` or ``Store.write``. A write runs in a worker
thread, so that a lock wait (another writer, another process on the same file) never blocks the
event loop; a read runs on the loop, since a WAL reader waits for no lock. Outside an atomic batch each call is its own transaction: ``BEGIN`` for a read (one
consistent snapshot even across several SELECTs), ``BEGIN IMMEDIATE`` for a write (the write
lock is taken before the first read, so a read-check-write such as If-Match cannot race).

An atomic batch (spec §7.5) opens a ``Transaction``: its own connection and its own single
worker thread, ``BEGIN IMMEDIATE`` once, and every sub-request of the batch runs on that
connection because ``bound`` puts the transaction into the context the parts run in. Readers
elsewhere see the last committed state (WAL snapshot isolation), so nobody sees part of an
atomic batch (MB-PROC-15), and ``COMMIT`` makes all of it visible at once. The transaction's
own thread means the holder of the write lock always has a thread to finish on, even when
every shared worker is waiting for that lock.

Durability: with ``--data DIR`` the database runs ``synchronous=FULL``, so a commit that was
acknowledged survives a crash of the process or of the machine; in the default temporary
directory (which dies with the process anyway) ``synchronous=NORMAL`` survives a crash of the
process only.
"""

from __future__ import annotations

import asyncio
import contextvars
import shutil
import sqlite3
import tempfile
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

__all__ = [
    "BUSY_TIMEOUT",
    "DB_FILE",
    "READER_BUSY_MS",
    "STORE_WORKERS",
    "Store",
    "StoreBusy",
    "Transaction",
    "bound",
]

#: The database's file name inside the data directory.
DB_FILE = "mixbatch.sqlite3"
#: Seconds a writer waits for another transaction's write lock (an atomic batch, another
#: process) before its request is answered 503: longer than any demo batch holds the lock.
BUSY_TIMEOUT = 30.0
#: Milliseconds the event loop's reader may wait (WAL recovery, a checkpoint) before failing.
READER_BUSY_MS = 200
#: Worker threads for standalone reads and writes; a few, since SQLite has one writer anyway.
STORE_WORKERS = 8

#: The atomic batch the current task runs in, if any (set only through ``bound``).
_ACTIVE: contextvars.ContextVar[Transaction | None] = contextvars.ContextVar(
    "mixbatch_store_transaction", default=None
)


class StoreBusy(Exception):
    """The write lock stayed held by another transaction for ``BUSY_TIMEOUT`` seconds."""


def _connect(path: Path, durable: bool) -> sqlite3.Connection:
    # isolation_level=None: no implicit BEGIN; every transaction below is explicit.
    conn = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
    )
    conn.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
    return conn


def _in_transaction[T](
    conn: sqlite3.Connection, begin: str, fn: Callable[[sqlite3.Connection], T]
) -> T:
    try:
        conn.execute(begin)
    except sqlite3.OperationalError as exc:
        raise StoreBusy(str(exc)) from exc
    try:
        result = fn(conn)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return result


def _sequences(conn: sqlite3.Connection) -> list[tuple[str, int]]:
    """The AUTOINCREMENT counters as this transaction left them."""
    try:
        return [(str(n), int(q)) for n, q in conn.execute("SELECT name, seq FROM sqlite_sequence")]
    except sqlite3.OperationalError:  # no AUTOINCREMENT table yet
        return []


def _keep_sequences(conn: sqlite3.Connection, taken: list[tuple[str, int]]) -> None:
    """Put back the counters a rolled-back transaction advanced: its answer named ids (a
    rolled-back part's Location) that must never come to name another resource later."""

    def put_back(c: sqlite3.Connection) -> None:
        for name, seq in taken:
            # The roll-back also removed the counter's row when the batch made the table's
            # first id: insert it again rather than update nothing.
            updated = c.execute(
                "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", (seq, name)
            )
            if updated.rowcount == 0:
                c.execute("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", (name, seq))

    _in_transaction(conn, "BEGIN IMMEDIATE", put_back)


class Transaction:
    """One atomic batch's transaction: its own connection, used from its own thread only."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="mixbatch-atomic")
        self._conn: sqlite3.Connection | None = None
        self._open = False
        #: Committed or closed: the thread has its last task.
        self._done = False

    async def _call[T](self, fn: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn)

    def _begin(self) -> None:
        self._conn = _connect(self.store.path, self.store.durable)
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            self._conn.close()
            raise StoreBusy(str(exc)) from exc
        self._open = True

    async def begin(self) -> None:
        """Take the write lock (waits for other writers, raises ``StoreBusy`` after the timeout)."""
        await self._call(self._begin)

    async def run[T](self, fn: Callable[[sqlite3.Connection], T]) -> T:
        conn = self._conn
        if conn is None or not self._open:
            raise RuntimeError("the atomic batch's transaction is not open")
        return await self._call(lambda: fn(conn))

    def _finish(self, statement: str) -> None:
        conn, self._conn, self._open = self._conn, None, False
        if conn is not None:
            try:
                if conn.in_transaction:
                    taken = _sequences(conn) if statement == "ROLLBACK" else []
                    conn.execute(statement)
                    if taken:
                        _keep_sequences(conn, taken)
            finally:
                conn.close()

    async def commit(self) -> None:
        """Make every write of the batch visible at once (and durable, see the module doc)."""
        await self._call(lambda: self._finish("COMMIT"))
        self._done = True
        self._executor.shutdown(wait=False)

    async def rollback(self) -> None:
        """Undo every write of the batch and wait until that is done, when the transaction is
        open; else leave it to ``close`` (a ``begin`` still waiting for the lock)."""
        if self._open and not self._done:
            self._done = True
            await self._call(lambda: self._finish("ROLLBACK"))
            self._executor.shutdown(wait=False)

    def close(self) -> None:
        """Roll back whatever was not committed. Never waits: the rollback is queued behind any
        statement still running on the transaction's thread, which keeps the order, so a
        ``begin`` cut off by a timeout while it waited for the lock cannot keep the lock it gets
        later. After ``commit`` the queued call finds the connection closed and does nothing."""
        if not self._done:
            self._done = True
            self._executor.submit(self._finish, "ROLLBACK")
            self._executor.shutdown(wait=False)


def bound(transaction: Transaction) -> contextvars.Context:
    """A context in which every ``Store`` call of ``transaction.store`` joins ``transaction``."""
    context = contextvars.copy_context()
    context.run(_ACTIVE.set, transaction)
    return context


class Store:
    """The SQLite database under ``data_dir`` (a fresh temporary directory when ``None``)."""

    def __init__(
        self, data_dir: str | Path | None, schema: Callable[[sqlite3.Connection], None]
    ) -> None:
        if data_dir is None:
            temporary = tempfile.mkdtemp(prefix="mixbatch-data-")
            weakref.finalize(self, shutil.rmtree, temporary, ignore_errors=True)
            directory, self.durable = Path(temporary), False
        else:
            directory, self.durable = Path(data_dir), True
            directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / DB_FILE
        self._local = threading.local()
        #: The event loop's read-only connection, opened on first use (in the loop's thread).
        self._reader: sqlite3.Connection | None = None
        self._executor = ThreadPoolExecutor(STORE_WORKERS, thread_name_prefix="mixbatch-store")
        weakref.finalize(self, self._executor.shutdown, wait=False)
        conn = _connect(self.path, self.durable)
        try:
            # WAL: readers see the last commit while a writer works, and never block it.
            conn.execute("PRAGMA journal_mode=WAL")
            # Two processes may create the schema at once: the write lock orders them.
            _in_transaction(conn, "BEGIN IMMEDIATE", schema)
        finally:
            conn.close()

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = _connect(self.path, self.durable)
        return conn

    def _joined(self) -> Transaction | None:
        active = _ACTIVE.get()
        return active if active is not None and active.store is self else None

    async def _run[T](self, begin: str, fn: Callable[[sqlite3.Connection], T]) -> T:
        joined = self._joined()
        if joined is not None:
            return await joined.run(fn)
        return await asyncio.get_running_loop().run_in_executor(
            self._executor, lambda: _in_transaction(self._conn(), begin, fn)
        )

    async def read[T](self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn`` on one consistent snapshot (or inside the current atomic batch).

        A WAL reader takes no lock a writer holds, so it never waits for one: the read runs on
        the event loop's own connection, which costs a batch of ten thousand GETs no thread hop
        per part. Only a read inside an atomic batch goes to the batch's thread."""
        joined = self._joined()
        if joined is not None:
            return await joined.run(fn)
        if self._reader is None:
            self._reader = _connect(self.path, self.durable)
            # Only a WAL recovery or a checkpoint can make a reader wait: not for long.
            self._reader.execute(f"PRAGMA busy_timeout={READER_BUSY_MS}")
        return _in_transaction(self._reader, "BEGIN", fn)

    async def write[T](self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn`` as one write transaction (or inside the current atomic batch)."""
        return await self._run("BEGIN IMMEDIATE", fn)

    def write_now[T](self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn`` as one write transaction, in the calling thread (set-up and tests only)."""
        conn = _connect(self.path, self.durable)
        try:
            return _in_transaction(conn, "BEGIN IMMEDIATE", fn)
        finally:
            conn.close()

    def transaction(self) -> Transaction:
        """A new atomic-batch transaction; ``begin`` it, run parts ``bound`` to it, then
        ``commit`` or ``close``."""
        return Transaction(self)
