"""A plain ASGI application over sqlite3 (stdlib only) with the transaction hook BatchMiddleware
takes for atomic batches; the guide's example, tested.

How the handlers join an atomic batch's transaction: ``Notes.transaction()`` opens a connection,
begins, and puts the connection in a ``ContextVar``; every handler asks ``Notes.connection()``
for it. The middleware runs the parts in the task that entered the block, so the parts of an
atomic batch all write through that one connection, and the block's end commits them or rolls
them back together. Requests outside the batch use connections of their own: in WAL mode a
reader sees the last committed state (MB-PROC-15), and writers wait for ``_writer``, an asyncio
lock the transaction holds, instead of blocking the event loop on SQLite's file lock.

Resources: ``/notes`` (GET lists, POST creates: 201 + Location + ETag), ``/notes/{id}`` (GET, PUT,
DELETE), ``/sleep/{ms}`` (answers after ms milliseconds).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from mixbatch.asgi import BatchMiddleware

Headers = list[tuple[bytes, bytes]]


# --8<-- [start:notes]
class Notes:
    """The notes table and the connections that reach it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._current: ContextVar[sqlite3.Connection | None] = ContextVar(
            "notes_connection", default=None
        )
        self._writer = asyncio.Lock()
        with contextlib.closing(self._open()) as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, text TEXT)")

    def _open(self) -> sqlite3.Connection:
        # Autocommit mode: transactions are begun and ended explicitly below.
        return sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        """The hook for ``BatchMiddleware(transaction=...)``: one transaction for a whole batch."""
        async with self._writer:
            db = self._open()
            db.execute("BEGIN IMMEDIATE")
            token = self._current.set(db)
            try:
                yield
            except BaseException:
                db.execute("ROLLBACK")
                raise
            else:
                db.execute("COMMIT")
            finally:
                self._current.reset(token)
                db.close()

    @contextlib.asynccontextmanager
    async def connection(self, *, write: bool) -> AsyncIterator[sqlite3.Connection]:
        """The atomic batch's connection when one is open, else a fresh one of this request's
        own (committed at the end when it writes)."""
        joined = self._current.get()
        if joined is not None:
            yield joined
            return
        if not write:
            with contextlib.closing(self._open()) as db:
                yield db
            return
        async with self.transaction():
            joined = self._current.get()
            assert joined is not None
            yield joined


# --8<-- [end:notes]


def _etag(text: str) -> str:
    return '"' + hashlib.sha256(text.encode()).hexdigest()[:12] + '"'


def make_app(notes: Notes) -> Any:
    """The ASGI application: routes ``/notes``, ``/notes/{id}`` and ``/sleep/{ms}``."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "http"
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        status, headers, content = await route(scope["method"], scope["path"], body)
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": content})

    async def route(method: str, path: str, body: bytes) -> tuple[int, Headers, bytes]:
        segments = path.strip("/").split("/")
        if (
            segments[0] == "sleep"
            and len(segments) == 2
            and segments[1].isascii()
            and segments[1].isdigit()
        ):
            await asyncio.sleep(int(segments[1]) / 1000)
            return reply(200, {"slept_ms": int(segments[1])})
        if segments[0] != "notes" or len(segments) > 2:
            return reply(404, {"detail": "no such resource"})
        if len(segments) == 1:
            return await collection(method, body)
        if not (segments[1].isascii() and segments[1].isdigit()):
            return reply(404, {"detail": "no such note"})
        return await member(method, int(segments[1]), body)

    async def collection(method: str, body: bytes) -> tuple[int, Headers, bytes]:
        if method == "GET":
            async with notes.connection(write=False) as db:
                rows = db.execute("SELECT id, text FROM notes ORDER BY id").fetchall()
            return reply(200, [{"id": i, "text": t} for i, t in rows])
        if method != "POST":
            return reply(405, {"detail": "GET or POST"})
        text = _text(body)
        if text is None:
            return reply(422, {"detail": "a note needs a text"})
        async with notes.connection(write=True) as db:
            note_id = db.execute("INSERT INTO notes (text) VALUES (?)", (text,)).lastrowid
        extra = [(b"location", f"/notes/{note_id}".encode()), (b"etag", _etag(text).encode())]
        return reply(201, {"id": note_id, "text": text}, extra)

    async def member(method: str, note_id: int, body: bytes) -> tuple[int, Headers, bytes]:
        if method == "PUT":
            text = _text(body)
            if text is None:
                return reply(422, {"detail": "a note needs a text"})
            async with notes.connection(write=True) as db:
                db.execute("INSERT OR REPLACE INTO notes (id, text) VALUES (?, ?)", (note_id, text))
            return reply(200, {"id": note_id, "text": text}, [(b"etag", _etag(text).encode())])
        if method == "DELETE":
            async with notes.connection(write=True) as db:
                gone = db.execute("DELETE FROM notes WHERE id = ?", (note_id,)).rowcount
            return (204, [], b"") if gone else reply(404, {"detail": f"no note {note_id}"})
        async with notes.connection(write=False) as db:
            row = db.execute("SELECT text FROM notes WHERE id = ?", (note_id,)).fetchone()
        if row is None:
            return reply(404, {"detail": f"no note {note_id}"})
        return reply(200, {"id": note_id, "text": row[0]}, [(b"etag", _etag(row[0]).encode())])

    return app


def _text(body: bytes) -> str | None:
    try:
        document = json.loads(body or b"null")
    except ValueError:
        return None
    text = document.get("text") if isinstance(document, dict) else None
    return text if isinstance(text, str) else None


def reply(
    status: int, document: Any, extra: Sequence[tuple[bytes, bytes]] = ()
) -> tuple[int, Headers, bytes]:
    content = json.dumps(document, separators=(",", ":")).encode()
    return status, [(b"content-type", b"application/json"), *extra], content


def make_batched_app(path: Path, **options: Any) -> tuple[BatchMiddleware, Notes]:
    """The notes app behind a batch endpoint at /batch that offers atomic batches."""
    notes = Notes(path)
    return BatchMiddleware(make_app(notes), transaction=notes.transaction, **options), notes
