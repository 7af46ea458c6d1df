"""The client's HTTP/1.1 connection: it frames every request itself (Host, Content-Length),
drops a caller's framing fields, pipelines requests back to back, and reports a truncated
response as ``ConnectionLost``."""

from __future__ import annotations

import pytest

from mixbatch.client import ConnectionLost
from mixbatch.client._http1 import NEED_DATA, End, Head, Http1Connection, HttpRequest


def _head_lines(octets: bytes) -> list[bytes]:
    return octets.split(b"\r\n\r\n", 1)[0].split(b"\r\n")


def test_requests_carry_the_connections_host_and_not_the_callers() -> None:
    conn = Http1Connection("example.test:8080")
    caller = (
        ("Host", "evil.test"),
        ("Connection", "close"),
        ("Transfer-Encoding", "chunked"),
        ("Content-Length", "99"),
        ("Accept", "*/*"),
    )
    lines = _head_lines(conn.send([HttpRequest("GET", "/x", caller)]))
    assert lines[0] == b"GET /x HTTP/1.1"
    assert [line.split(b":")[0].lower() for line in lines[1:]] == [b"host", b"accept"]
    assert lines[1] == b"Host: example.test:8080"


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH"])
def test_a_content_method_always_says_its_length_even_when_empty(method: str) -> None:
    lines = _head_lines(Http1Connection("t").send([HttpRequest(method, "/x")]))
    assert b"Content-Length: 0" in lines


def test_a_get_without_content_says_no_length_and_one_with_content_does() -> None:
    assert not any(
        b"Content-Length" in line
        for line in _head_lines(Http1Connection("t").send([HttpRequest("GET", "/x")]))
    )
    octets = Http1Connection("t").send([HttpRequest("OPTIONS", "/x", (), b"abc")])
    assert b"Content-Length: 3" in _head_lines(octets)
    assert octets.endswith(b"\r\n\r\nabc")


def test_pipelined_requests_are_written_back_to_back_and_answered_in_order() -> None:
    conn = Http1Connection("t")
    octets = conn.send([HttpRequest("GET", "/a"), HttpRequest("GET", "/b")])
    assert octets.count(b" HTTP/1.1\r\n") == 2
    assert conn.outstanding == 2
    conn.receive_data(
        b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nA"
        b"HTTP/1.1 404 Not Found\r\nContent-Length: 1\r\n\r\nB"
    )
    events = []
    while conn.outstanding:
        event = conn.next_event()
        assert event is not NEED_DATA
        events.append(event)
    statuses = [e.status for e in events if isinstance(e, Head)]
    assert statuses == [200, 404]
    assert [e for e in events if isinstance(e, bytes)] == [b"A", b"B"]
    assert sum(isinstance(e, End) for e in events) == 2
    assert conn.keep_alive


def test_a_response_cut_short_is_connection_lost() -> None:
    conn = Http1Connection("t")
    conn.send([HttpRequest("GET", "/a")])
    conn.receive_data(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
    conn.receive_data(b"")
    assert isinstance(conn.next_event(), Head)
    assert conn.next_event() == b"abc"
    with pytest.raises(ConnectionLost):
        conn.next_event()
