"""An ASGI application serving the benchmark's resources like the reference server does.

uvicorn and hypercorn serve this app so that other servers can be compared with the reference
server on the same work: ``GET /random/{n}`` answers n octets from ``os.urandom`` with the same
``Content-Type`` and ``Cache-Control`` fields, and anything else is a 404. It holds no state.
``batched`` is the same app behind mixbatch's ASGI middleware, with its batch endpoint at
``/batch``, so a batch can be served by an ordinary ASGI server too.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from mixbatch.asgi import BatchMiddleware

__all__ = ["MAX_RANDOM_BYTES", "app", "batched"]

#: The reference server's cap on /random/{n} (16 MiB).
MAX_RANDOM_BYTES = 16 * 1024 * 1024

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


async def _respond(
    send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes
) -> None:
    headers = [*headers, (b"content-length", str(len(body)).encode("ascii"))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] != "http":
        return
    path: str = scope["path"]
    if scope["method"] in ("GET", "HEAD") and path.startswith("/random/"):
        raw = path[len("/random/") :]
        if raw.isdigit() and int(raw) <= MAX_RANDOM_BYTES:
            headers = [
                (b"content-type", b"application/octet-stream"),
                (b"cache-control", b"no-store"),
            ]
            await _respond(send, 200, headers, os.urandom(int(raw)))
            return
    await _respond(send, 404, [(b"content-type", b"text/plain")], b"not found")


#: ``app`` with a batch endpoint at ``/batch`` (default limits: up to 10,000 parts).
batched = BatchMiddleware(app, path="/batch")
