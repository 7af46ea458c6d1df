"""Servers the client and middleware tests run in background threads, each stopped by its test.

``uvicorn_server(app)`` serves an ASGI app on an ephemeral loopback port; ``reference_server()``
runs the mixbatch reference server. Both are context managers that yield the base URL and stop
the server (and join its thread) on exit, whatever happened inside.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import uvicorn

from mixbatch.server import Server, ServerConfig, build_app

#: Seconds a server may take to start or stop before the test fails.
START_TIMEOUT = 10.0


@contextlib.contextmanager
def uvicorn_server(app: Any) -> Iterator[str]:
    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, log_level="warning", lifespan="off", access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="uvicorn-test", daemon=True)
    thread.start()
    try:
        for _ in range(int(START_TIMEOUT / 0.01)):
            if server.started or not thread.is_alive():
                break
            threading.Event().wait(0.01)
        if not server.started:
            raise RuntimeError("uvicorn did not start")
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(START_TIMEOUT)


@contextlib.contextmanager
def reference_server(config: ServerConfig | None = None) -> Iterator[str]:
    config = config or ServerConfig(host="127.0.0.1", port=0)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="mixbatch-test", daemon=True)
    thread.start()
    server = Server(build_app(config), config)
    try:
        asyncio.run_coroutine_threadsafe(server.start(), loop).result(START_TIMEOUT)
        yield server.url
    finally:
        asyncio.run_coroutine_threadsafe(server.shutdown(grace=1.0), loop).result(START_TIMEOUT)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(START_TIMEOUT)
        loop.close()
