"""Kept connections: the suite reuses a connection as HTTP/1.1 clients do, and no further.

The plants of run.plants.connections (state a server keeps per connection by mistake) are
caught by a check citing what they break, and only because the suite reuses connections.

A scripted loopback server answers each request as the test says (an answer, then close,
reset, or keep the connection), and counts the connections it accepted, so each test sees
whether the client reused, reconnected or sent again.
"""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest

from mixbatch_conformance.core.context import Context
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.settings import RunSettings
from mixbatch_conformance.core.target import Target
from mixbatch_conformance.run.mutations import Mutation
from mixbatch_conformance.run.plants import connections
from mixbatch_conformance.run.selftest import judge_mutation
from mixbatch_conformance.transport.connections import (
    RESENT,
    KeptConnection,
    KeptConnections,
    keeps,
)
from mixbatch_conformance.transport.http import build_request
from mixbatch_conformance.transport.relay import Relay

TIMEOUT_S = 3.0
OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


@dataclass(frozen=True)
class Act:
    """What the scripted server does with one request."""

    send: bytes = OK
    #: After sending: "keep" the connection, "close" it (FIN) or "reset" it (RST).
    then: str = "keep"


#: (connection number, request number on it), both from 1 -> what to do.
Script = Callable[[int, int], Act]


@dataclass
class Scripted:
    """A loopback server that follows a script; it records what arrived on each connection."""

    script: Script
    received: list[list[bytes]] = field(default_factory=list)
    sock: socket.socket = field(default_factory=socket.socket)

    @property
    def port(self) -> int:
        return int(self.sock.getsockname()[1])

    def serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.received.append([])
            threading.Thread(target=self._one, args=(conn, len(self.received)), daemon=True).start()

    def _one(self, conn: socket.socket, number: int) -> None:
        buffer = b""
        with conn:
            conn.settimeout(TIMEOUT_S)
            while True:
                while b"\r\n\r\n" not in buffer:
                    try:
                        data = conn.recv(65536)
                    except OSError:
                        return
                    if not data:
                        return
                    buffer += data
                head, _, buffer = buffer.partition(b"\r\n\r\n")
                self.received[number - 1].append(head)
                act = self.script(number, len(self.received[number - 1]))
                conn.sendall(act.send)
                if act.then == "reset":
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    return
                if act.then == "close":
                    return

    @property
    def connections(self) -> int:
        return len(self.received)


@pytest.fixture
def serve() -> Iterator[Callable[[Script], Scripted]]:
    servers: list[Scripted] = []

    def start(script: Script) -> Scripted:
        server = Scripted(script)
        server.sock.bind(("127.0.0.1", 0))
        server.sock.listen(8)
        threading.Thread(target=server.serve, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.sock.close()


def _get(path: str = "/") -> bytes:
    return build_request("GET", path, "127.0.0.1")


# -- which requests ride a kept connection ---------------------------------------------------------
@pytest.mark.parametrize(
    "request_octets",
    [
        b"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
        b"POST /b HTTP/1.1\r\nHost: a\r\nContent-Type: x\r\nContent-Length: 3\r\n\r\nabc",
        b"PUT /b HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: a\r\nX-Obs: caf\xe9\t\r\n\r\n",
    ],
)
def test_plainly_framed_requests_are_kept(request_octets: bytes) -> None:
    assert keeps(request_octets)


@pytest.mark.parametrize(
    "request_octets",
    [
        b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nabc",
        b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nabc",
        b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
        b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 03\r\n\r\nabc",
        b"POST / HTTP/1.1\r\nHost: a\r\n\r\nabc",
        b"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: a\r\nconnection: keep-alive\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\na",
        b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        b"GET / HTTP/1.1\r\nX-A: 1\r\n\r\n",
        b"GET / HTTP/1.0\r\nHost: a\r\n\r\n",
        b"GET / HTTP/1.1\nHost: a\n\n",
        b"GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\n folded\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost : a\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r2\r\n\r\n",
        b"G(T / HTTP/1.1\r\nHost: a\r\n\r\n",
        b"GET /a b HTTP/1.1\r\nHost: a\r\n\r\n",
        b"CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: a\r\n",
    ],
)
def test_requests_made_odd_on_purpose_go_alone(request_octets: bytes) -> None:
    assert not keeps(request_octets)


# -- one kept connection ---------------------------------------------------------------------------
def test_requests_share_one_connection_and_are_numbered(
    serve: Callable[[Script], Scripted],
) -> None:
    server = serve(lambda c, n: Act())
    conn = KeptConnection("127.0.0.1", server.port, TIMEOUT_S)
    exchanges = [conn.exchange(_get(f"/{i}")) for i in range(3)]
    conn.close()
    assert [ex.response.status if ex.response else None for ex in exchanges] == [200] * 3
    assert [ex.kept for ex in exchanges] == [1, 2, 3]
    assert exchanges[1].connection == "2nd request on a kept connection"
    assert server.connections == 1


def test_a_connection_closed_while_idle_is_replaced_before_the_next_request(
    serve: Callable[[Script], Scripted],
) -> None:
    server = serve(lambda c, n: Act(then="close"))
    conn = KeptConnection("127.0.0.1", server.port, TIMEOUT_S)
    first = conn.exchange(_get())
    threading.Event().wait(0.1)  # the close reaches the client before the next request
    second = conn.exchange(_get())
    conn.close()
    assert (first.kept, second.kept) == (1, 1)
    assert second.response is not None
    assert second.notes == ()
    assert server.connections == 2


def test_a_kept_connection_closed_without_an_answer_is_retried_once_on_a_new_one(
    serve: Callable[[Script], Scripted],
) -> None:
    # No Connection: close: the server drops the connection when the second request arrives,
    # as a server that timed the idle connection out at that moment does.
    server = serve(lambda c, n: Act(b"", "close") if n == 2 else Act())
    conn = KeptConnection("127.0.0.1", server.port, TIMEOUT_S)
    conn.exchange(_get())
    second = conn.exchange(_get("/again"))
    conn.close()
    assert second.response is not None
    assert second.response.status == 200
    assert second.kept == 1
    assert RESENT in second.notes
    assert server.connections == 2
    assert server.received[1] == [_get("/again").removesuffix(b"\r\n\r\n")]


def test_a_new_connection_closed_without_an_answer_is_not_retried(
    serve: Callable[[Script], Scripted],
) -> None:
    server = serve(lambda c, n: Act(b"", "close"))
    conn = KeptConnection("127.0.0.1", server.port, TIMEOUT_S)
    ex = conn.exchange(_get())
    assert ex.response is None
    assert ex.error is not None
    assert server.connections == 1


def test_connection_close_is_honoured(serve: Callable[[Script], Scripted]) -> None:
    # The server keeps its side open: only the client's reading of the field closes it.
    close = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"
    server = serve(lambda c, n: Act(close))
    conn = KeptConnection("127.0.0.1", server.port, TIMEOUT_S)
    exchanges = [conn.exchange(_get()) for _ in range(2)]
    conn.close()
    assert [ex.kept for ex in exchanges] == [1, 1]
    assert server.connections == 2
    assert [len(requests) for requests in server.received] == [1, 1]


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
        b"HTTP/1.1 200 OK\r\n\r\nto the close",
    ],
    ids=["http-1.0", "read-to-close"],
)
def test_a_response_that_does_not_persist_ends_the_connection(
    serve: Callable[[Script], Scripted], answer: bytes
) -> None:
    server = serve(lambda c, n: Act(answer, "close" if b"close" in answer else "keep"))
    conn = KeptConnection("127.0.0.1", server.port, TIMEOUT_S)
    exchanges = [conn.exchange(_get()) for _ in range(2)]
    conn.close()
    assert [ex.kept for ex in exchanges] == [1, 1]
    assert all(ex.response is not None for ex in exchanges)
    assert server.connections == 2


def test_octets_of_a_response_then_a_reset_are_an_error_not_a_retry(
    serve: Callable[[Script], Scripted],
) -> None:
    cut = b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\npart"
    server = serve(lambda c, n: Act(cut, "reset") if n == 2 else Act())
    conn = KeptConnection("127.0.0.1", server.port, TIMEOUT_S)
    conn.exchange(_get())
    second = conn.exchange(_get())
    assert second.response is None
    assert second.error is not None
    assert second.kept == 2
    assert RESENT not in second.notes
    assert server.connections == 1
    assert not conn.is_open


def test_octets_after_a_response_are_noted_and_the_connection_replaced(
    serve: Callable[[Script], Scripted],
) -> None:
    server = serve(lambda c, n: Act(OK + b"STRAY") if n == 1 else Act())
    conn = KeptConnection("127.0.0.1", server.port, TIMEOUT_S)
    conn.exchange(_get())
    threading.Event().wait(0.1)
    second = conn.exchange(_get())
    conn.close()
    assert second.response is not None
    assert second.kept == 1
    assert any("5 octets arrived after the previous response" in n for n in second.notes)
    assert server.connections == 2


def test_a_connection_in_use_is_not_shared_between_threads(
    serve: Callable[[Script], Scripted],
) -> None:
    started = threading.Barrier(2)

    def script(c: int, n: int) -> Act:
        if c <= 2 and n == 1:
            started.wait(TIMEOUT_S)  # both requests are in flight at once
        return Act()

    server = serve(script)
    kept = KeptConnections("127.0.0.1", server.port, TIMEOUT_S)
    threads = [threading.Thread(target=kept.exchange, args=(_get(),)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT_S)
    again = kept.exchange(_get())
    kept.close()
    assert server.connections == 2
    assert again.kept == 2


# -- the context -----------------------------------------------------------------------------------
def _context(port: int, **settings: bool) -> Context:
    target = Target(base_url=f"http://127.0.0.1:{port}", batch_endpoint="/batch")
    return Context(target, RunSettings(timeout_s=TIMEOUT_S, **settings))


def test_a_check_keeps_its_connection_until_released(serve: Callable[[Script], Scripted]) -> None:
    server = serve(lambda c, n: Act())
    ctx = _context(server.port)
    judge, other = Judge("MB-WIRE-3"), Judge("MB-WIRE-3")
    for j in (judge, judge, other):
        ctx.send(j, ctx.raw_request("GET", "/"))
    ctx.release(judge)
    ctx.send(judge, ctx.raw_request("GET", "/"))
    ctx.release(judge)
    ctx.release(other)
    assert [ex.kept for ex in judge.exchanges] == [1, 2, 1]
    assert [ex.kept for ex in other.exchanges] == [1]
    assert server.connections == 3


def test_fresh_connections_send_each_request_alone(serve: Callable[[Script], Scripted]) -> None:
    server = serve(lambda c, n: Act())
    ctx = _context(server.port, fresh_connections=True)
    judge = Judge("MB-WIRE-3")
    for _ in range(2):
        ctx.send(judge, ctx.raw_request("GET", "/"))
    assert [ex.kept for ex in judge.exchanges] == [0, 0]
    assert judge.exchanges[0].connection == "a connection of its own"
    assert server.connections == 2


# -- plants that only reuse shows ------------------------------------------------------------------
@pytest.mark.parametrize("mutation", connections.PLANTS, ids=[m.name for m in connections.PLANTS])
def test_per_connection_state_is_caught_only_on_kept_connections(
    mutation: Mutation, relay: Relay, reference: Target
) -> None:
    kept = judge_mutation(relay, Context(reference.with_base_url(relay.url)), mutation)
    assert kept.caught, kept.verdicts
    assert kept.cited, f"no catcher cites {mutation.breaks.split()[0]}"
    fresh_settings = RunSettings(fresh_connections=True)
    fresh = judge_mutation(
        relay, Context(reference.with_base_url(relay.url), fresh_settings), mutation
    )
    assert set(fresh.verdicts.values()) == {"PASS"}, fresh.verdicts
