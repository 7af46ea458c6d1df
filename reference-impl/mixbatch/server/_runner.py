"""Running a server as a process: bind, announce the URL, serve until a signal, shut down.

The announcement line ``mixbatch listening on http://HOST:PORT`` is a stable interface: tests and
tools start ``mixbatch serve --port 0`` and parse the bound port from it.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from typing import TextIO

from ._app import build_app
from ._config import ServerConfig
from ._server import Server

__all__ = ["ANNOUNCEMENT", "serve", "until_stop_signal"]

ANNOUNCEMENT = "mixbatch listening on {url}"


async def serve(config: ServerConfig, announce: TextIO | None = None) -> None:
    """Serve ``config`` until SIGINT/SIGTERM (or cancellation), then shut down gracefully."""
    server = Server(build_app(config), config)
    await server.start()
    print(ANNOUNCEMENT.format(url=server.url), file=announce or sys.stdout, flush=True)
    try:
        await until_stop_signal()
    finally:
        await server.shutdown()


async def until_stop_signal() -> None:
    """Return at SIGINT or SIGTERM (or raise CancelledError when cancelled first)."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # non-Unix loops
            loop.add_signal_handler(sig, stop.set)
    await stop.wait()
