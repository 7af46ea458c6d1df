"""Running a server as a process: bind, announce the URL, serve until a signal, shut down.

The announcement line ``mixbatch listening on http://HOST:PORT`` is a stable interface: tests and
tools start ``mixbatch serve --port 0`` and parse the bound port from it.

Once the server is up, everything the process has built so far -- modules, classes, the
application with its seeded state -- lives as long as the process, so it is frozen out of the
cyclic collector (``gc.freeze``): otherwise every full collection walks it again, and a batch of
thousands of parts, whose parts live until its last one ran, sets off one full collection after
another. It is unfrozen on the way out.
"""

from __future__ import annotations

import gc
import sys
from typing import TextIO

from mixbatch._http import Server, until_stop_signal

from ._app import build_app
from ._config import ServerConfig

__all__ = ["ANNOUNCEMENT", "serve"]

ANNOUNCEMENT = "mixbatch listening on {url}"


async def serve(config: ServerConfig, announce: TextIO | None = None) -> None:
    """Serve ``config`` until SIGINT/SIGTERM (or cancellation), then shut down gracefully."""
    server = Server(build_app(config), config)
    await server.start()
    gc.freeze()
    print(ANNOUNCEMENT.format(url=server.url), file=announce or sys.stdout, flush=True)
    try:
        await until_stop_signal()
    finally:
        gc.unfreeze()
        await server.shutdown()
