"""A plain origin that knows nothing of batching: a small ASGI app served by uvicorn.

Routes: ``GET|HEAD /items/{n}`` (JSON), ``GET /etag`` (strong ETag and Last-Modified, 304 on
If-None-Match), ``GET /slow?ms=N`` (answers after N ms), ``POST /echo`` (content and Content-Type
back),
``GET /whoami`` (the Authorization, Cookie and Via it received, as JSON), ``POST /items`` (201 +
Location), anything else 404. Every request records the client's port in ``peers``, so tests
can count the upstream connections the proxy used. uvicorn runs in a thread on a socket bound
here (port 0), and ``stop()`` ends it.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import uvicorn

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

ETAG = '"v1-etag"'
#: The validator pair of /etag: a strong ETag and a Last-Modified (MB-TEST-1 asks for both).
LAST_MODIFIED = "Sun, 01 Nov 2026 00:00:00 GMT"


class OriginApp:
    """The ASGI callable; ``peers`` lists the client port of every request in arrival order."""

    def __init__(self) -> None:
        self.peers: list[int] = []
        self.created = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        assert scope["type"] == "http"
        self.peers.append(scope["client"][1])
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        status, fields, content = await self.route(
            scope["method"], scope["path"], scope, headers, body
        )
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in fields],
            }
        )
        await send({"type": "http.response.body", "body": content})

    async def route(
        self, method: str, path: str, scope: Scope, headers: dict[str, str], body: bytes
    ) -> tuple[int, list[tuple[str, str]], bytes]:
        if path.startswith("/items/") and method in ("GET", "HEAD"):
            n = path.removeprefix("/items/")
            doc = json.dumps({"item": n}).encode()
            return 200, [("Content-Type", "application/json"), ("X-Item", n)], doc
        if path == "/etag" and method == "GET":
            fields = [
                ("ETag", ETAG),
                ("Last-Modified", LAST_MODIFIED),
                ("Cache-Control", "max-age=60"),
            ]
            if headers.get("if-none-match") == ETAG:
                return 304, fields, b""
            return 200, [*fields, ("Content-Type", "text/plain")], b"tagged"
        if path == "/slow" and method == "GET":
            query = scope["query_string"].decode()
            ms = int(query.partition("ms=")[2] or "0")
            await asyncio.sleep(min(ms, 5000) / 1000)
            return 200, [("Content-Type", "text/plain")], b"slow done"
        if path == "/echo" and method == "POST":
            kind = headers.get("content-type", "application/octet-stream")
            return 200, [("Content-Type", kind)], body
        if path == "/whoami" and method == "GET":
            seen = {
                k: headers.get(k) for k in ("authorization", "cookie", "via", "host", "x-extra")
            }
            return 200, [("Content-Type", "application/json")], json.dumps(seen).encode()
        if path == "/items" and method == "POST":
            self.created += 1
            return 201, [("Location", f"/items/new{self.created}")], b""
        return 404, [("Content-Type", "text/plain")], b"no such thing"


class RunningOrigin:
    """uvicorn serving an ``OriginApp`` on 127.0.0.1 in a daemon thread."""

    def __init__(self) -> None:
        self.app = OriginApp()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        config = uvicorn.Config(self.app, log_level="warning", lifespan="on", timeout_keep_alive=30)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )
        self._thread.start()
        for _ in range(200):
            if self._server.started:
                break
            threading.Event().wait(0.025)
        if not self._server.started:
            raise RuntimeError("uvicorn did not start")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)
        self._sock.close()
