"""The shared pipelining connection, sans-IO: responses in request order whatever the read
sizes, interim responses dropped, octets past the last response held as ``pending``, and a
broken response raised as the caller's own error."""

from __future__ import annotations

import pytest

from mixbatch._http.pipeline import (
    NEED_DATA,
    End,
    Head,
    HttpRequest,
    PipelinedConnection,
    PipelineError,
)

GET = HttpRequest("GET", "/", (("Host", "t"),))


def _ok(body: bytes, *fields: str) -> bytes:
    extra = "".join(f"{f}\r\n" for f in fields)
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n%s\r\n%s" % (len(body), extra.encode(), body)


def _drain(conn: PipelinedConnection, data: bytes, step: int) -> list[object]:
    """Every event of the responses outstanding, feeding ``data`` ``step`` octets at a time."""
    events: list[object] = []
    while conn.outstanding:
        event = conn.next_event()
        if event is NEED_DATA:
            chunk, data = data[:step], data[step:]
            conn.receive_data(chunk)
            continue
        events.append(event)
    return events


def test_a_field_value_with_obs_text_is_written_octet_for_octet() -> None:
    """A part field value may hold obs-text (0x80-0xFF, RFC 9110 §5.5); the request carries
    those octets as they were received, one per character."""
    conn = PipelinedConnection()
    sent = conn.send([HttpRequest("GET", "/", (("Host", "t"), ("X-Name", "caf\xe9")))])
    assert b"\r\nX-Name: caf\xe9\r\n" in sent


@pytest.mark.parametrize("step", [1, 7, 1 << 16])
def test_pipelined_responses_come_back_in_order_whatever_the_read_size(step: int) -> None:
    conn = PipelinedConnection()
    sent = conn.send([GET, HttpRequest("HEAD", "/h", (("Host", "t"),)), GET])
    assert sent.count(b"HTTP/1.1\r\n") == 3
    data = (
        b"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
        + _ok(b"first")
        + b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n"  # HEAD: no content follows
        + _ok(b"third")
    )
    events = _drain(conn, data, step)
    heads = [e for e in events if isinstance(e, Head)]
    assert [h.status for h in heads] == [200, 200, 200]  # the 103 is dropped
    assert b"".join(e for e in events if isinstance(e, bytes)) == b"firstthird"
    assert sum(isinstance(e, End) for e in events) == 3
    assert conn.keep_alive
    assert conn.pending == 0


def test_octets_past_the_last_response_are_pending() -> None:
    conn = PipelinedConnection()
    conn.send([GET])
    _drain(conn, _ok(b"a") + b"HTTP/1.1 200 OK\r\n", 1 << 16)
    assert conn.pending == len(b"HTTP/1.1 200 OK\r\n")


def test_connection_close_ends_keep_alive() -> None:
    conn = PipelinedConnection()
    conn.send([GET])
    _drain(conn, _ok(b"a", "Connection: close"), 1 << 16)
    assert not conn.keep_alive


def test_a_broken_response_raises_the_callers_error() -> None:
    class Mine(Exception):
        pass

    conn = PipelinedConnection(error=Mine)
    conn.send([GET])
    conn.receive_data(b"NOT HTTP\r\n\r\n")
    with pytest.raises(Mine):
        conn.next_event()
    assert not conn.keep_alive


def test_a_close_before_the_answer_is_an_error() -> None:
    conn = PipelinedConnection()
    conn.send([GET])
    conn.receive_data(b"")
    with pytest.raises(PipelineError):
        conn.next_event()


def test_a_header_section_over_max_header_is_an_error() -> None:
    conn = PipelinedConnection(max_header=64)
    conn.send([GET])
    conn.receive_data(b"HTTP/1.1 200 OK\r\nX-Long: " + b"v" * 200)
    with pytest.raises(PipelineError):
        conn.next_event()
