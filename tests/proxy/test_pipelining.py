"""Safe sub-requests reach the origin pipelined: several requests before the first answer.

The origin here is a raw asyncio server that, on each connection, collects request heads
until it holds ``WANT`` of them or ``PATIENCE`` seconds passed, records how many it held, and
only then answers them all in order. A proxy that waits for each answer before sending the next
request shows 1 every time; a pipelining proxy shows more than 1 in its first round.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from ._harness import LoopThread, RunningProxy, Sub, send_batch

WANT = 4
PATIENCE = 1.5


class HoldingOrigin:
    def __init__(self) -> None:
        self.rounds: list[int] = []
        self.connections = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        buffer = b""
        try:
            while True:
                loop = asyncio.get_running_loop()
                deadline = loop.time() + PATIENCE
                while buffer.count(b"\r\n\r\n") < WANT:
                    try:
                        async with asyncio.timeout_at(deadline):
                            chunk = await reader.read(65536)
                    except TimeoutError:
                        break
                    if not chunk:
                        return
                    buffer += chunk
                held = buffer.count(b"\r\n\r\n")
                if held == 0:
                    return
                self.rounds.append(held)
                heads = buffer.split(b"\r\n\r\n")
                buffer = heads.pop()
                for head in heads:
                    path = head.split(b" ", 2)[1]
                    writer.write(
                        b"HTTP/1.1 200 OK\r\nContent-Length: "
                        + str(len(path)).encode()
                        + b"\r\n\r\n"
                        + path
                    )
                await writer.drain()
        finally:
            writer.close()


@pytest.fixture
def holding_origin(loop_thread: LoopThread) -> tuple[HoldingOrigin, str]:
    origin = HoldingOrigin()

    async def start() -> asyncio.Server:
        return await asyncio.start_server(origin.handle, "127.0.0.1", 0)

    server = loop_thread.run(start())
    port = server.sockets[0].getsockname()[1]
    yield origin, f"http://127.0.0.1:{port}"

    async def stop() -> None:
        server.close()
        await server.wait_closed()

    loop_thread.run(stop())


def test_pipelines_consecutive_safe_parts_on_one_connection(
    holding_origin: tuple[HoldingOrigin, str], make_proxy: Callable[..., RunningProxy]
) -> None:
    origin, url = holding_origin
    proxy = make_proxy(url, max_connections=1, max_pipeline_depth=WANT)
    answer = send_batch(proxy.url, [Sub("GET", f"/p/{n}") for n in range(WANT * 2)])
    assert [p.body for p in answer.parts] == [f"/p/{n}".encode() for n in range(WANT * 2)]
    assert origin.rounds[0] == WANT  # all four arrived before the first answer left
    assert origin.connections == 1


def test_does_not_pipeline_unsafe_parts(
    holding_origin: tuple[HoldingOrigin, str], make_proxy: Callable[..., RunningProxy]
) -> None:
    origin, url = holding_origin
    proxy = make_proxy(url, max_connections=1, max_pipeline_depth=WANT)
    # Two DELETEs: each must be answered before anything else is sent (MB-PROC-2).
    answer = send_batch(proxy.url, [Sub("DELETE", "/a"), Sub("DELETE", "/b")])
    assert [p.status for p in answer.parts] == [200, 200]
    assert origin.rounds[:2] == [1, 1]
