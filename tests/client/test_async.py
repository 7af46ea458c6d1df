"""The asyncio client's I/O adapter, on loopback: ``StreamTransport`` keeps one keep-alive
connection and reopens it when the server closed it, ``drive_async`` closes the connection when a
stream is abandoned, and ``AsyncResponseStream`` yields sub-responses in order and its result at
the end."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable

import pytest

from mixbatch.client import AsyncBatchClient, Batch, TransportError

from .loopback import TIMEOUT, LoopbackOrigin
from .scripted import batch_reply, echo_parts


def _batch(*targets: str) -> Batch:
    batch = Batch()
    for target in targets:
        batch.get(target)
    return batch


def _run[T](scenario: Callable[[AsyncBatchClient], Awaitable[T]], url: str) -> T:
    async def bounded() -> T:
        async with AsyncBatchClient(url, discover=False, timeout=TIMEOUT) as client:
            return await asyncio.wait_for(scenario(client), 3 * TIMEOUT)

    return asyncio.run(bounded())


async def _targets(client: AsyncBatchClient, batch: Batch) -> list[str]:
    return [response.text() for response in await client.send(batch)]


def test_batches_share_one_keep_alive_connection() -> None:
    async def scenario(client: AsyncBatchClient) -> None:
        assert await _targets(client, _batch("/a", "/b")) == ["/a", "/b"]
        assert await _targets(client, _batch("/c")) == ["/c"]
        assert client.transport.connections_opened == 1

    with LoopbackOrigin([batch_reply(echo_parts)] * 2) as origin:
        _run(scenario, origin.url)
        assert origin.accepted == 1


def test_a_connection_the_server_closed_while_idle_is_reopened() -> None:
    with LoopbackOrigin([batch_reply(echo_parts)] * 2, close_after=1) as origin:

        async def scenario(client: AsyncBatchClient) -> None:
            assert await _targets(client, _batch("/a")) == ["/a"]
            await asyncio.to_thread(origin.wait_closed)
            # Let the loop read the EOF the origin sent, as it would while idle.
            await asyncio.sleep(0.01)
            assert await _targets(client, _batch("/b")) == ["/b"]
            assert client.transport.connections_opened == 2

        _run(scenario, origin.url)
        assert origin.accepted == 2


def test_stream_yields_sub_responses_in_order_then_its_result() -> None:
    async def scenario(client: AsyncBatchClient) -> None:
        stream = client.stream(_batch("/a", "/b", "/c"))
        assert [response.index async for response in stream] == [0, 1, 2]
        assert [response.text() for response in stream.result] == ["/a", "/b", "/c"]

    with LoopbackOrigin([batch_reply(echo_parts)]) as origin:
        _run(scenario, origin.url)


def test_result_before_the_stream_ends_is_an_error() -> None:
    async def scenario(client: AsyncBatchClient) -> None:
        async with client.stream(_batch("/a", "/b")) as stream:
            assert (await anext(stream)).index == 0
            with pytest.raises(RuntimeError, match="not been read to its end"):
                _ = stream.result

    with LoopbackOrigin([batch_reply(echo_parts)]) as origin:
        _run(scenario, origin.url)


def test_an_abandoned_stream_closes_the_connection() -> None:
    async def scenario(client: AsyncBatchClient) -> None:
        async with client.stream(_batch("/a", "/b", "/c")) as stream:
            assert (await anext(stream)).text() == "/a"
        # Unread octets remained on the connection: the next batch needs a new one.
        assert await _targets(client, _batch("/d")) == ["/d"]
        assert client.transport.connections_opened == 2

    with LoopbackOrigin([batch_reply(echo_parts)] * 2) as origin:
        _run(scenario, origin.url)
        assert origin.accepted == 2


def test_a_refused_connection_is_a_transport_error() -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]

    async def scenario(client: AsyncBatchClient) -> None:
        with pytest.raises(TransportError, match="cannot connect"):
            await client.send(_batch("/a"))

    _run(scenario, f"http://127.0.0.1:{port}/batch")


def test_sleep_between_retries_is_the_injected_coroutine() -> None:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    def busy(request: object) -> bytes:
        return b"HTTP/1.1 503 X\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n"

    async def scenario() -> list[str]:
        async with AsyncBatchClient(
            origin.url, discover=False, timeout=TIMEOUT, sleep=sleep
        ) as client:
            return await _targets(client, _batch("/a"))

    with LoopbackOrigin([busy, batch_reply(echo_parts)]) as origin:
        assert asyncio.run(asyncio.wait_for(scenario(), 3 * TIMEOUT)) == ["/a"]
    assert slept == [1.0]
