"""Running a proxy: in-process (``ProxyServer``) or as a process (``serve_proxy``).

The proxy is the shared HTTP host (``mixbatch._http``) with ``ProxyApp`` as the application,
so it inherits keep-alive, pipelining order, back-pressure and graceful shutdown.
The announcement ``mixbatch proxy listening on http://HOST:PORT -> UPSTREAM`` is a stable
interface: tests and tools start ``mixbatch proxy --port 0`` and parse the bound port from it.
"""

from __future__ import annotations

import sys
from typing import TextIO

from mixbatch._http import HostConfig, Server, until_stop_signal

from ._app import ProxyApp
from ._config import ProxyConfig

__all__ = ["ANNOUNCEMENT", "ProxyServer", "serve_proxy"]

ANNOUNCEMENT = "mixbatch proxy listening on {url} -> {upstream}"


class ProxyServer:
    """A listening proxy: ``start``, then ``url``, then ``shutdown``."""

    def __init__(self, config: ProxyConfig) -> None:
        self.config = config
        self.app = ProxyApp(config)
        self._server = Server(
            self.app, HostConfig(host=config.host, port=config.port, batch_path=config.batch_path)
        )

    @property
    def url(self) -> str:
        return self._server.url

    async def start(self) -> None:
        await self._server.start()

    async def shutdown(self, grace: float | None = None) -> None:
        try:
            await self._server.shutdown(grace)
        finally:
            await self.app.aclose()


async def serve_proxy(config: ProxyConfig, announce: TextIO | None = None) -> None:
    """Serve until SIGINT/SIGTERM (or cancellation), then shut down gracefully."""
    proxy = ProxyServer(config)
    await proxy.start()
    out = announce or sys.stdout
    print(ANNOUNCEMENT.format(url=proxy.url, upstream=config.upstream.url), file=out, flush=True)
    try:
        await until_stop_signal()
    finally:
        await proxy.shutdown()
