"""The connection adapter: keep-alive, pipelining, timeouts, refusals, shutdown, disconnects."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from typing import Any

import h11
import pytest

from mixbatch.server import ServerConfig

from ._client import IO_TIMEOUT, HttpClient, Reply, RunningServer, build_batch, read_until_close

#: Upper bound for polling the server's state from a test; generous, never a timing assertion.
SETTLE = 5.0


def wait_for(predicate: Any, what: str) -> None:
    deadline = time.monotonic() + SETTLE
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.01)


def request_bytes(
    method: str, target: str, headers: list[tuple[str, str]] | None = None, body: bytes = b""
) -> bytes:
    conn = h11.Connection(h11.CLIENT)
    fields = [("Host", "test"), *(headers or [])]
    if body:
        fields.append(("Content-Length", str(len(body))))
    data = conn.send(h11.Request(method=method, target=target, headers=fields)) or b""
    if body:
        data += conn.send(h11.Data(data=body)) or b""
    return data + (conn.send(h11.EndOfMessage()) or b"")


def read_pipelined(sock: socket.socket, methods: list[str]) -> list[Reply]:
    """Read one response per request method, in order, from a pipelined connection."""
    replies = []
    leftover = b""
    for method in methods:
        conn = h11.Connection(h11.CLIENT)
        conn.send(h11.Request(method=method, target="/", headers=[("Host", "test")]))
        conn.send(h11.EndOfMessage())
        if leftover:
            conn.receive_data(leftover)
        head, chunks = None, []
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                conn.receive_data(sock.recv(65536))
            elif isinstance(event, h11.Response):
                head = event
            elif isinstance(event, h11.Data):
                chunks.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                break
        assert head is not None
        leftover = conn.trailing_data[0]
        replies.append(
            Reply(
                head.status_code,
                [(k.decode(), v.decode()) for k, v in head.headers.raw_items()],
                b"".join(chunks),
            )
        )
    return replies


def test_keep_alive_reuses_one_connection(server: RunningServer, client: HttpClient) -> None:
    for _ in range(3):
        assert client.request("GET", "/books/1").status == 200
    assert server.connection_count() == 1


def test_pipelined_requests_including_a_batch_are_answered_in_order(server: RunningServer) -> None:
    content_type, batch = build_batch([("GET", "delay/50"), ("GET", "books/2")])
    burst = (
        request_bytes("GET", "/delay/100")
        + request_bytes("POST", "/batch", [("Content-Type", content_type)], batch)
        + request_bytes("GET", "/books/3")
    )
    with server.connect() as sock:
        sock.sendall(burst)
        first, second, third = read_pipelined(sock, ["GET", "POST", "GET"])
    assert json.loads(first.body) == {"delayed_ms": 100}
    assert second.status == 200
    assert b"Content-Id: <books/2>" in second.body
    assert json.loads(third.body)["id"] == 3


def test_empty_lines_after_a_batch_are_no_request(server: RunningServer) -> None:
    """RFC 9112 §2.2, spec MB-PIPE-4: the CRLF a client writes after a POST's content, in the
    same write as the next request or alone after it, is skipped, not read as a request line."""
    content_type, batch = build_batch([("GET", "books/2")])
    post = request_bytes("POST", "/batch", [("Content-Type", content_type)], batch)
    with server.connect() as sock:
        sock.sendall(post + b"\r\n\r\n" + request_bytes("GET", "/books/3"))
        first, second = read_pipelined(sock, ["POST", "GET"])
        sock.sendall(post + b"\r\n")
        time.sleep(0.05)
        sock.sendall(b"\n" + request_bytes("GET", "/books/3"))
        third, fourth = read_pipelined(sock, ["POST", "GET"])
    assert (first.status, second.status, third.status, fourth.status) == (200, 200, 200, 200)
    assert json.loads(fourth.body)["id"] == 3


def test_many_pipelined_requests_survive_read_back_pressure(make_server: Any) -> None:
    running: RunningServer = make_server(ServerConfig(port=0, read_buffer_high_water=512))
    count = 300
    burst = b"".join(request_bytes("GET", f"/books/{1 + i % 3}") for i in range(count))
    with running.connect() as sock:
        sock.sendall(burst)
        replies = read_pipelined(sock, ["GET"] * count)
    assert [json.loads(r.body)["id"] for r in replies] == [1 + i % 3 for i in range(count)]


def test_connection_close_is_honoured(server: RunningServer) -> None:
    with server.connect() as sock:
        sock.sendall(request_bytes("GET", "/books/1", [("Connection", "close")]))
        data = read_until_close(sock)
    assert data.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"\r\nConnection: close\r\n" in data
    assert data.endswith(b'"year":1975}')


def test_http_1_0_request_is_answered_and_closed(server: RunningServer) -> None:
    with server.connect() as sock:
        sock.sendall(b"GET /books/1 HTTP/1.0\r\n\r\n")
        data = read_until_close(sock)
    assert data.startswith(b"HTTP/1.1 200 OK\r\n")


def test_oversized_request_header_section_is_431_problem(make_server: Any) -> None:
    running: RunningServer = make_server(ServerConfig(port=0, max_request_header_bytes=1024))
    with running.connect() as sock:
        sock.sendall(b"GET /books/1 HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * 4096 + b"\r\n\r\n")
        data = read_until_close(sock)
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431 ")
    assert b"Content-Type: application/problem+json" in head
    assert json.loads(body)["status"] == 431


def test_unparseable_request_is_400_problem(server: RunningServer) -> None:
    with server.connect() as sock:
        sock.sendall(b"THIS IS NOT HTTP\r\n\r\n")
        data = read_until_close(sock)
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ")
    assert json.loads(body)["type"] == "https://mixbatch.dev/problems/malformed-request"


def test_slow_header_sender_gets_408_and_is_closed(make_server: Any) -> None:
    running: RunningServer = make_server(ServerConfig(port=0, header_read_timeout=0.3))
    with running.connect() as sock:
        sock.sendall(b"GET /books/1 HTTP/1.1\r\n")
        # Trickle a header line at a time: each byte arrives in time, the section never ends.
        data = b""
        for i in range(200):
            try:
                sock.sendall(b"X-Slow-%d: 1\r\n" % i)
            except OSError:
                break
            sock.settimeout(0.05)
            try:
                data += sock.recv(65536)
            except TimeoutError:
                continue
            if data:
                break
        sock.settimeout(IO_TIMEOUT)
        data += read_until_close(sock)
    assert data.startswith(b"HTTP/1.1 408 ")
    assert b"header-timeout" in data


def test_idle_keep_alive_connection_is_closed_silently(make_server: Any) -> None:
    running: RunningServer = make_server(ServerConfig(port=0, idle_timeout=0.2))
    with running.client() as http:
        assert http.request("GET", "/books/1").status == 200
        assert read_until_close(http.sock) == b""
    wait_for(lambda: running.connection_count() == 0, "the idle connection to close")


def test_slow_body_gets_408(make_server: Any) -> None:
    running: RunningServer = make_server(ServerConfig(port=0, body_read_timeout=0.2))
    with running.connect() as sock:
        sock.sendall(b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc")
        data = read_until_close(sock)
    assert data.startswith(b"HTTP/1.1 408 ")


def test_graceful_shutdown_finishes_in_flight_and_closes_idle(make_server: Any) -> None:
    running: RunningServer = make_server()
    idle = running.client()
    busy = running.client()
    try:
        assert idle.request("GET", "/books/1").status == 200
        busy.send("GET", "/delay/400")

        def busy_in_flight() -> bool:
            async def check() -> bool:
                return any(not c.idle for c in running.server.connections)

            return running.loop.run(check())

        wait_for(busy_in_flight, "the delayed request to reach the server")
        running.stopped = True
        shutdown = asyncio.run_coroutine_threadsafe(running.server.shutdown(5.0), running.loop.loop)
        assert read_until_close(idle.sock) == b""
        reply = busy.receive()
        assert reply.status == 200
        assert reply.header("Connection") == "close"
        assert read_until_close(busy.sock) == b""
        shutdown.result(IO_TIMEOUT)
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(running.address, timeout=IO_TIMEOUT)
    finally:
        idle.close()
        busy.close()


def test_client_disconnect_mid_batch_leaks_no_task(server: RunningServer) -> None:
    content_type, batch = build_batch(
        [("GET", "books/1"), ("GET", "delay/500"), ("GET", "books/2")]
    )
    with server.connect() as sock:
        sock.sendall(request_bytes("POST", "/batch", [("Content-Type", content_type)], batch))
        head = b""
        while b"Content-Id: <books/1>" not in head:
            head += sock.recv(65536)
        assert head.startswith(b"HTTP/1.1 200 OK\r\n")
    wait_for(lambda: server.connection_count() == 0, "the server to drop the connection")
    wait_for(
        lambda: not [n for n in server.task_names() if n.startswith("mixbatch-conn")],
        "the connection task to end",
    )
    with server.client() as http:
        assert http.request("GET", "/books/1").status == 200


def test_unread_small_body_is_drained_and_connection_kept(client: HttpClient) -> None:
    # /books/1 GET ignores its content; a small one is drained and the connection stays open.
    assert client.request("DELETE", "/books/99", [], b"x" * 100).status == 404
    assert client.request("GET", "/books/1").status == 200


def test_refused_large_upload_closes_connection(make_server: Any) -> None:
    running: RunningServer = make_server(ServerConfig(port=0, max_drain_bytes=1024))
    with running.connect() as sock:
        sock.sendall(
            b"POST /batch HTTP/1.1\r\nHost: t\r\nContent-Type: text/plain\r\n"
            b"Content-Length: 100000\r\n\r\n" + b"x" * 4096
        )
        data = read_until_close(sock)
    assert data.startswith(b"HTTP/1.1 415 ")
    assert b"\r\nConnection: close\r\n" in data
