"""The proxy's upstream pool in-process against a small scripted origin: an exchange reads one
response, a kept-alive connection is reused, pipelined safe requests come back in order, and a
silent or absent origin is a 504 or 502 outcome rather than an exception."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from mixbatch.proxy import ProxyConfig, Upstream, UpstreamError, UpstreamPool, UpstreamTimeout
from mixbatch.proxy._upstream import UpstreamRequest, UpstreamResponse, exchange, pipeline

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _echo_origin(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answers each request with its request line, keeping the connection open."""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            line = head.split(b"\r\n", 1)[0]
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(line), line))
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def _silent_origin(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.read()  # never answers
    writer.close()


def _request(target: str) -> UpstreamRequest:
    return UpstreamRequest("GET", target, [("Host", "origin.test")])


def _run(handler: Handler, body: Callable[[UpstreamPool], Awaitable[object]]) -> object:
    async def main() -> object:
        server = await asyncio.start_server(handler, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        pool = UpstreamPool(ProxyConfig(Upstream.parse(f"http://127.0.0.1:{port}")))
        try:
            return await body(pool)
        finally:
            await pool.aclose()
            server.close()
            await server.wait_closed()

    return asyncio.run(asyncio.wait_for(main(), 10))


def test_exchange_reads_one_response_and_the_connection_is_reused() -> None:
    async def body(pool: UpstreamPool) -> object:
        first = await exchange(pool, _request("/a"), timeout=5, max_body=1 << 20)
        second = await exchange(pool, _request("/b"), timeout=5, max_body=1 << 20)
        return first, second, pool.opened

    first, second, opened = _run(_echo_origin, body)  # type: ignore[misc]
    assert isinstance(first, UpstreamResponse)
    assert isinstance(second, UpstreamResponse)
    assert (first.status, first.body) == (200, b"GET /a HTTP/1.1")
    assert second.body == b"GET /b HTTP/1.1"
    assert opened == 1


def test_pipelined_requests_are_delivered_each_to_its_own_index() -> None:
    async def body(pool: UpstreamPool) -> object:
        got: dict[int, object] = {}
        targets = [f"/p{n}" for n in range(5)]
        await pipeline(
            pool,
            [_request(t) for t in targets],
            got.__setitem__,
            timeout=5,
            max_body=1 << 20,
        )
        return got, pool.opened

    got, opened = _run(_echo_origin, body)  # type: ignore[misc]
    assert sorted(got) == [0, 1, 2, 3, 4]
    for index, outcome in got.items():  # type: ignore[union-attr]
        assert isinstance(outcome, UpstreamResponse)
        assert outcome.body == f"GET /p{index} HTTP/1.1".encode()
    assert opened == 1


def test_an_origin_that_never_answers_is_a_timeout_outcome() -> None:
    async def body(pool: UpstreamPool) -> object:
        return await exchange(pool, _request("/slow"), timeout=0.2, max_body=1 << 20)

    outcome = _run(_silent_origin, body)
    assert isinstance(outcome, UpstreamTimeout)
    assert outcome.status == 504


def test_an_origin_that_is_not_listening_is_a_bad_gateway_outcome() -> None:
    async def main() -> object:
        probe = await asyncio.start_server(_echo_origin, "127.0.0.1", 0)
        port = probe.sockets[0].getsockname()[1]
        probe.close()
        await probe.wait_closed()
        pool = UpstreamPool(ProxyConfig(Upstream.parse(f"http://127.0.0.1:{port}")))
        try:
            return await exchange(pool, _request("/x"), timeout=1, max_body=1 << 20)
        finally:
            await pool.aclose()

    outcome = asyncio.run(asyncio.wait_for(main(), 10))
    assert isinstance(outcome, UpstreamError)
    assert not isinstance(outcome, UpstreamTimeout)
    assert outcome.status == 502


@pytest.mark.parametrize("max_body", [4])
def test_a_response_over_the_part_limit_is_a_bad_gateway_outcome(max_body: int) -> None:
    async def body(pool: UpstreamPool) -> object:
        return await exchange(pool, _request("/long-target"), timeout=5, max_body=max_body)

    outcome = _run(_echo_origin, body)
    assert isinstance(outcome, UpstreamError)
    assert "exceeds" in str(outcome)
