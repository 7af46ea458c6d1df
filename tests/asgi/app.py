"""A small Starlette application for the middleware tests: the resources named in target.json.

It stands for "any existing app": plain Starlette routes, a Starlette middleware doing
authentication, and no knowledge of batches at all. ``make_app()`` returns the bare app;
``make_batched_app()`` wraps it in ``BatchMiddleware`` with the books' transaction hook
(``Shelf.transaction``), so the endpoint offers atomic batches. Resources:

    /books, /books/{id}   a JSON collection with ETags (POST creates: 201 + Location)
    /echo                 describes the request it received (MB-TEST-2: method, target, authority,
                          headers, body or body_base64)
    /status/{code}        answers that status
    /delay/{ms}           answers after ms milliseconds
    /random/{n}           n octets of deterministic filler
    /flaky/{key}          503 + Retry-After: 0 the first time per key, then 200
    /gate/{name}          waits (at most GATE_WAIT s) until the test opens gate ``name``
    /private              needs Authorization: Bearer secret (401 otherwise)

Any request with ``Authorization: Bearer revoked`` is refused with 401 by the middleware,
before routing, which is what a batch must not bypass (MB-SUB-1).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from mixbatch.asgi import BatchMiddleware

#: Seconds a gated request waits for its gate before answering {"released": false}.
GATE_WAIT = 10.0

SEED = (
    {"title": "The Mythical Man-Month", "author": "Frederick P. Brooks Jr.", "year": 1975},
    {"title": "Weaving the Web", "author": "Tim Berners-Lee", "year": 1999},
)


class Gates:
    """Named threading events a test opens to release /gate/{name} requests."""

    def __init__(self) -> None:
        self._events: dict[str, threading.Event] = {}
        self._lock = threading.Lock()

    def get(self, name: str) -> threading.Event:
        with self._lock:
            return self._events.setdefault(name, threading.Event())

    def open(self, name: str) -> None:
        self.get(name).set()


class Shelf:
    """The books, with the transactions an atomic batch runs in (spec §7.5).

    ``transaction()`` is the hook for ``BatchMiddleware(transaction=...)``: it takes the writer
    lock, gives the batch's parts a working copy of the books through a ``ContextVar``, and
    replaces the books with it only when the block ends without an exception. Requests outside
    the batch read the committed books, so none sees half a batch (MB-PROC-15), and their
    writes wait for the lock. Ids are never handed out twice, even by a rolled-back batch.
    """

    def __init__(self) -> None:
        self.committed: dict[int, bytes] = {}
        self.next_id = 1
        self._working: ContextVar[dict[int, bytes] | None] = ContextVar("books", default=None)
        self._writer = asyncio.Lock()

    def books(self) -> dict[int, bytes]:
        """What this request sees: its batch's working copy, or the committed books."""
        working = self._working.get()
        return self.committed if working is None else working

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        async with self._writer:
            working = dict(self.committed)
            token = self._working.set(working)
            try:
                yield
            finally:
                self._working.reset(token)
            self.committed = working

    @contextlib.asynccontextmanager
    async def writing(self) -> AsyncIterator[dict[int, bytes]]:
        """The books to change: the batch's working copy, or the committed ones under the lock."""
        working = self._working.get()
        if working is not None:
            yield working
            return
        async with self._writer:
            yield self.committed


#: The Last-Modified of every book: MB-TEST-1 asks an etag resource for both validators.
LAST_MODIFIED = "Sat, 01 Jan 2000 00:00:00 GMT"


def _echo_body(body: bytes) -> dict[str, str]:
    """MB-TEST-2: the body as text, or base64 when it is not UTF-8."""
    try:
        return {"body": body.decode("utf-8")}
    except UnicodeDecodeError:
        return {"body_base64": base64.b64encode(body).decode("ascii")}


def _etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:16] + '"'


class _AnyMethod:
    """A request handler served as an ASGI app: Starlette passes it every method."""

    def __init__(self, handler: Callable[[Request], Awaitable[Response]]) -> None:
        self.handler = handler

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = await self.handler(Request(scope, receive))
        await response(scope, receive, send)


def make_app(gates: Gates | None = None) -> Starlette:
    """The plain application, with its own fresh state."""
    gates = gates or Gates()
    shelf = Shelf()
    flaky_seen: set[str] = set()

    def store(books: dict[int, bytes], data: dict[str, Any], book_id: int | None = None) -> int:
        if book_id is None:
            # A PUT may have created a book under the next number (MB-TEST-3 lets it): a POST
            # creates a new book, so it skips every number a book holds.
            while shelf.next_id in books or shelf.next_id in shelf.committed:
                shelf.next_id += 1
            book_id = shelf.next_id
            shelf.next_id += 1
        record = {"id": book_id, **data}
        books[book_id] = json.dumps(record, separators=(",", ":")).encode()
        return book_id

    for seed in SEED:
        store(shelf.committed, dict(seed))

    def book_response(
        book_id: int, status: int = 200, extra: dict[str, str] | None = None
    ) -> Response:
        body = shelf.books()[book_id]
        headers = {"ETag": _etag(body), "Last-Modified": LAST_MODIFIED, **(extra or {})}
        return Response(body, status, headers, media_type="application/json")

    async def list_books(request: Request) -> Response:
        if request.method == "POST":
            try:
                data = json.loads(await request.body())
            except ValueError:
                return JSONResponse({"detail": "not JSON"}, 400)
            if not isinstance(data, dict) or not isinstance(data.get("title"), str):
                return JSONResponse({"detail": "a book needs a title"}, 422)
            async with shelf.writing() as books:
                fields = {k: data[k] for k in ("title", "author", "year") if k in data}
                book_id = store(books, fields)
                return book_response(book_id, 201, {"Location": f"/books/{book_id}"})
        books = shelf.books()
        body = b"[" + b",".join(books[k] for k in sorted(books)) + b"]"
        return Response(body, media_type="application/json", headers={"ETag": _etag(body)})

    async def one_book(request: Request) -> Response:
        raw = request.path_params["id"]
        book_id = int(raw) if raw.isdigit() and len(raw) < 10 else -1
        if request.method == "PUT":
            if book_id < 0:
                return JSONResponse({"detail": f"no book {raw}: ids are numbers"}, 404)
            try:
                data = json.loads(await request.body() or b"{}")
            except ValueError:
                return JSONResponse({"detail": "not JSON"}, 400)
            if not isinstance(data, dict):
                return JSONResponse({"detail": "a book is a JSON object"}, 422)
            async with shelf.writing() as books:
                created = book_id not in books
                store(books, data, book_id)
                if created:
                    # The part reports the member it created (MB-RESP-7).
                    return book_response(book_id, 201, {"Location": f"/books/{book_id}"})
                return book_response(book_id, 200)
        if request.method == "DELETE":
            async with shelf.writing() as books:
                if book_id not in books:
                    return JSONResponse({"detail": f"no book {raw}"}, 404)
                del books[book_id]
                return Response(status_code=204)
        books = shelf.books()
        if book_id not in books:
            return JSONResponse({"detail": f"no book {raw}"}, 404)
        etag = _etag(books[book_id])
        if request.headers.get("if-none-match") in (etag, "*"):
            return Response(status_code=304, headers={"ETag": etag})
        return book_response(book_id)

    async def echo(request: Request) -> Response:
        body = await request.body()
        return JSONResponse(
            {
                "method": request.method,
                # MB-TEST-2: the target "as received": the raw path, not the decoded one.
                "target": request.scope["raw_path"].decode("latin-1")
                + (f"?{request.url.query}" if request.url.query else ""),
                "authority": request.headers.get("host", "").strip(" \t"),
                "headers": [
                    # Without the whitespace around the value, which some ASGI servers keep
                    # (RFC 9112 §5.1 has a parser exclude it).
                    [k.decode("latin-1"), v.decode("latin-1").strip(" \t")]
                    for k, v in request.headers.raw
                ],
                **_echo_body(body),
            }
        )

    async def status(request: Request) -> Response:
        raw = str(request.path_params["code"])
        code = int(raw) if len(raw) == 3 and raw.isascii() and raw.isdigit() else 0
        if not 200 <= code <= 599:
            # 1xx are not final responses: as the reference server, refuse rather than send one.
            return JSONResponse({"detail": f"{code} is not a final status code (200-599)"}, 400)
        if code in (204, 304):
            return Response(status_code=code)
        return JSONResponse({"status": code}, code)

    async def delay(request: Request) -> Response:
        ms = int(request.path_params["ms"])
        if ms > 10_000:
            # MB-TEST-7: "with a 4xx status for any larger *ms*", not a shorter delay.
            return JSONResponse({"detail": "ms above 10000"}, 400)
        await asyncio.sleep(ms / 1000)
        return JSONResponse({"delayed_ms": ms})

    async def random(request: Request) -> Response:
        n = int(request.path_params["n"])
        if n > 1 << 20:
            # MB-TEST-5: "with a 4xx status for any larger *n*", not fewer octets.
            return JSONResponse({"detail": "n above 1 MiB"}, 404)
        return Response(bytes(i % 251 for i in range(n)), media_type="application/octet-stream")

    async def flaky(request: Request) -> Response:
        key = request.path_params["key"]
        if key not in flaky_seen:
            flaky_seen.add(key)
            return JSONResponse({"detail": "busy"}, 503, headers={"Retry-After": "0"})
        return JSONResponse({"key": key, "ok": True})

    async def gate(request: Request) -> Response:
        event = gates.get(request.path_params["name"])
        released = await asyncio.to_thread(event.wait, GATE_WAIT)
        return JSONResponse({"released": released})

    async def private(request: Request) -> Response:
        if request.headers.get("authorization") != "Bearer secret":
            return JSONResponse(
                {"detail": "who are you?"}, 401, headers={"WWW-Authenticate": "Bearer"}
            )
        return JSONResponse({"secret": 42})

    async def refuse_revoked(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        if request.headers.get("authorization") == "Bearer revoked":
            return JSONResponse({"detail": "token revoked"}, 401)
        return await call_next(request)

    every = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
    routes = [
        Route("/books", list_books, methods=["GET", "POST"]),
        Route("/books/{id}", one_book, methods=["GET", "PUT", "DELETE"]),
        # MB-TEST-2: the echo answers every method a sub-request may carry, so it is mounted as
        # an ASGI app, which Starlette routes whatever the method.
        Route("/echo", _AnyMethod(echo)),
        Route("/status/{code}", status, methods=every),
        Route("/delay/{ms:int}", delay, methods=["GET", "POST"]),
        Route("/random/{n:int}", random),
        Route("/flaky/{key}", flaky, methods=["GET", "POST"]),
        Route("/gate/{name}", gate),
        Route("/private", private),
    ]
    app = Starlette(
        routes=routes, middleware=[Middleware(BaseHTTPMiddleware, dispatch=refuse_revoked)]
    )
    app.state.shelf = shelf
    return app


def make_batched_app(gates: Gates | None = None, **options: Any) -> BatchMiddleware:
    """The application with a batch endpoint at /batch that offers atomic batches."""
    app = make_app(gates)
    options.setdefault("transaction", app.state.shelf.transaction)
    return BatchMiddleware(app, **options)
