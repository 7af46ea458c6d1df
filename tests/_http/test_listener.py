"""The listening server on loopback: it binds an ephemeral port, hands each request to the
application, tracks its connections, and shuts down gracefully (in-flight requests finish with
``Connection: close``, idle keep-alive connections close at once, stragglers are aborted after
the grace period, and no new connection is accepted)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import pytest

from mixbatch._http.config import HostConfig
from mixbatch._http.listener import Server
from mixbatch._http.messages import Request, Response

#: Seconds any one step of these tests may take before the test fails.
STEP = 5.0
GET = b"GET /x HTTP/1.1\r\nHost: t\r\n\r\n"


async def _hello(request: Request) -> Response:
    return Response(200, [("Content-Type", "text/plain")], f"hello {request.target}".encode())


def _run[T](scenario: Callable[[], Awaitable[T]]) -> T:
    async def bounded() -> T:
        return await asyncio.wait_for(scenario(), 3 * STEP)

    return asyncio.run(bounded())


async def _started(app: Callable[[Request], Awaitable[Response]] = _hello) -> Server:
    server = Server(app, HostConfig(host="127.0.0.1", port=0, shutdown_grace=STEP))
    await server.start()
    return server


async def _head(reader: asyncio.StreamReader) -> bytes:
    return await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), STEP)


async def _settle(predicate: Callable[[], bool]) -> None:
    deadline = time.monotonic() + STEP
    while not predicate():
        assert time.monotonic() < deadline, "condition never held"
        await asyncio.sleep(0.005)


def test_url_brackets_an_ipv6_host() -> None:
    server = Server(_hello, HostConfig(host="::1", port=8080))
    assert server.url == "http://[::1]:8080"
    assert Server(_hello, HostConfig(host="127.0.0.1", port=81)).url == "http://127.0.0.1:81"


def test_start_binds_an_ephemeral_loopback_port_and_serves_requests() -> None:
    async def scenario() -> bytes:
        server = await _started()
        try:
            assert server.port != 0
            assert server.url == f"http://127.0.0.1:{server.port}"
            reader, writer = await asyncio.open_connection(server.host, server.port)
            writer.write(GET)
            head = await _head(reader)
            body = await asyncio.wait_for(reader.readexactly(len(b"hello /x")), STEP)
            writer.close()
            return head + body
        finally:
            await server.shutdown(grace=STEP)

    response = _run(scenario)
    assert response.startswith(b"HTTP/1.1 200 ")
    assert response.endswith(b"hello /x")


def test_connections_are_tracked_while_open_and_forgotten_when_closed() -> None:
    async def scenario() -> None:
        server = await _started()
        try:
            assert server.connections == frozenset()
            reader, writer = await asyncio.open_connection(server.host, server.port)
            writer.write(GET)
            await _head(reader)
            assert len(server.connections) == 1
            writer.close()
            await _settle(lambda: not server.connections)
        finally:
            await server.shutdown(grace=STEP)

    _run(scenario)


def test_shutdown_closes_an_idle_keep_alive_connection_at_once() -> None:
    async def scenario() -> float:
        server = await _started()
        reader, writer = await asyncio.open_connection(server.host, server.port)
        writer.write(GET)
        await _head(reader)
        await reader.readexactly(len(b"hello /x"))
        began = time.monotonic()
        await server.shutdown(grace=STEP)
        elapsed = time.monotonic() - began
        assert await asyncio.wait_for(reader.read(), STEP) == b""
        writer.close()
        return elapsed

    # Well inside the grace period: an idle connection is not waited for.
    assert _run(scenario) < 1.0


def test_shutdown_lets_an_in_flight_request_finish_with_connection_close() -> None:
    async def scenario() -> bytes:
        entered, release = asyncio.Event(), asyncio.Event()

        async def slow(request: Request) -> Response:
            entered.set()
            await release.wait()
            return Response(200, [], b"done")

        server = await _started(slow)
        reader, writer = await asyncio.open_connection(server.host, server.port)
        writer.write(GET)
        await asyncio.wait_for(entered.wait(), STEP)
        shutdown = asyncio.ensure_future(server.shutdown(grace=STEP))
        await asyncio.sleep(0.02)
        assert not shutdown.done()
        release.set()
        response = await asyncio.wait_for(reader.read(), STEP)
        await asyncio.wait_for(shutdown, STEP)
        writer.close()
        return response

    response = _run(scenario)
    assert response.startswith(b"HTTP/1.1 200 ")
    assert b"\r\nConnection: close\r\n" in response.replace(b"connection", b"Connection")
    assert response.endswith(b"done")


def test_shutdown_aborts_a_request_still_running_after_the_grace_period(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def scenario() -> tuple[float, bytes]:
        async def stuck(request: Request) -> Response:
            await asyncio.Event().wait()
            raise AssertionError("unreachable")

        server = await _started(stuck)
        reader, writer = await asyncio.open_connection(server.host, server.port)
        writer.write(GET)
        await _settle(lambda: bool(server.connections))
        await asyncio.sleep(0.02)
        began = time.monotonic()
        await server.shutdown(grace=0.1)
        elapsed = time.monotonic() - began
        rest = await asyncio.wait_for(reader.read(), STEP)
        writer.close()
        return elapsed, rest

    elapsed, rest = _run(scenario)
    assert 0.1 <= elapsed < 1.5
    assert rest == b""
    assert "after the grace period" in caplog.text


def test_a_server_that_shut_down_accepts_no_new_connection() -> None:
    async def scenario() -> None:
        server = await _started()
        port = server.port
        await server.shutdown(grace=STEP)
        with pytest.raises(ConnectionRefusedError):
            await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), STEP)

    _run(scenario)
