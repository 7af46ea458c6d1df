"""The listening server: accepts connections, tracks them, and shuts down gracefully.

``Server.start`` binds (port 0 picks an ephemeral port) and ``Server.shutdown`` stops accepting,
lets every in-flight request finish (its response says ``Connection: close``), closes idle
keep-alive connections at once, and aborts whatever is still open after the grace period. The
server owns no request logic: each connection hands requests to the application callable.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from .config import HostSettings
from .connection import HttpConnection
from .messages import Request, Response

__all__ = ["Server"]

_log = logging.getLogger("mixbatch.server")


class Server:
    """One listening socket and the connections it accepted."""

    def __init__(self, app: Callable[[Request], Awaitable[Response]], config: HostSettings) -> None:
        self._app = app
        self._config = config
        self._server: asyncio.Server | None = None
        self._connections: set[HttpConnection] = set()
        self.host = config.host
        self.port = config.port

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def connections(self) -> frozenset[HttpConnection]:
        return frozenset(self._connections)

    def _make_connection(self) -> HttpConnection:
        connection = HttpConnection(self._app, self._config, self._forget)
        self._connections.add(connection)
        return connection

    def _forget(self, connection: HttpConnection) -> None:
        self._connections.discard(connection)

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            self._make_connection, self._config.host, self._config.port, reuse_address=True
        )
        sockname = self._server.sockets[0].getsockname()
        self.host, self.port = sockname[0], sockname[1]

    async def shutdown(self, grace: float | None = None) -> None:
        """Stop accepting, finish in-flight requests, close idle connections."""
        grace = self._config.shutdown_grace if grace is None else grace
        if self._server is not None:
            self._server.close()
        for connection in list(self._connections):
            connection.begin_shutdown()
        tasks = [c.task for c in self._connections if c.task is not None]
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=grace)
            for connection in list(self._connections):
                if connection.task in pending:
                    _log.warning("aborting connection %s after the grace period", connection.peer)
                    connection.abort()
            if pending:
                await asyncio.wait(pending, timeout=1.0)
        if self._server is not None:
            await self._server.wait_closed()
