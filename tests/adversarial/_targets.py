"""The peers under attack: the reference server, and the proxy with the reference server behind it.

Both run on one asyncio loop in a daemon thread (``LoopThread`` from the server tests), listen on
loopback ports chosen by the OS, and are stopped with a bounded grace period. ``Target`` is what a
case needs to know about a peer: its address, its name (for test ids and reports) and the limits
it publishes in its capabilities document (read over the wire, MB-LIMIT-2, never from code).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mixbatch.proxy import ProxyConfig, ProxyServer, Upstream
from mixbatch.server import Server, ServerConfig, build_app
from tests.server._client import LoopThread

from ._wire import exchange, request_bytes

__all__ = ["LoopThread", "Target", "read_limits", "start_proxy", "start_server"]

#: Seconds a shutdown waits for in-flight requests before closing them.
STOP_GRACE = 2.0


@dataclass
class Target:
    """One running peer."""

    name: str
    address: tuple[str, int]
    limits: dict[str, int] = field(default_factory=dict)

    @property
    def authority(self) -> str:
        return f"{self.address[0]}:{self.address[1]}"


def read_limits(address: tuple[str, int]) -> dict[str, int]:
    """The ``limits`` member of the capabilities document answered to OPTIONS /batch."""
    result = exchange(address, request_bytes("OPTIONS", "/batch"), methods=("OPTIONS",))
    answer = result.first
    if answer is None or answer.status != 200:
        raise RuntimeError(f"OPTIONS /batch did not answer 200: {result!r}")
    limits = json.loads(answer.body)["limits"]
    return {str(k): int(v) for k, v in limits.items()}


def start_server(loop: LoopThread, config: ServerConfig | None = None) -> tuple[Target, Server]:
    config = config or ServerConfig(port=0)
    server = Server(build_app(config), config)
    loop.run(server.start())
    target = Target("server", (server.host, server.port))
    target.limits = read_limits(target.address)
    return target, server


def start_proxy(loop: LoopThread, origin_url: str, **options: Any) -> tuple[Target, ProxyServer]:
    proxy = ProxyServer(ProxyConfig(Upstream.parse(origin_url), port=0, **options))
    loop.run(proxy.start())
    host, port = proxy.url.removeprefix("http://").rsplit(":", 1)
    target = Target("proxy", (host.strip("[]"), int(port)))
    target.limits = read_limits(target.address)
    return target, proxy


def stop(loop: LoopThread, peer: Server | ProxyServer) -> None:
    loop.run(peer.shutdown(STOP_GRACE), timeout=STOP_GRACE + 10)
