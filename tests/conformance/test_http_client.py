"""The raw HTTP client frames responses by RFC 9112 §6.3 and keeps every octet."""

from __future__ import annotations

import gzip
import io
import socket
import threading

import pytest

from mixbatch_conformance.transport import http
from mixbatch_conformance.transport.http import (
    NOT_SENT,
    HeadFirst,
    MessageCutShort,
    ResponseError,
    ResponseTooLarge,
    build_request,
    exchange_after_continue,
    in_turn,
    read_response,
)


def test_reads_content_length_body_and_keeps_raw_octets() -> None:
    raw = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: b\r\n\r\nhelloNEXT"
    resp = read_response(io.BytesIO(raw), "GET")
    assert (resp.status, resp.body, resp.get("x-a")) == (200, b"hello", "b")
    assert resp.raw == raw[:-4]


def test_reads_chunked_body_with_trailer_fields() -> None:
    raw = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\nBatch-Summary: ok=1\r\n\r\n"
    resp = read_response(io.BytesIO(raw), "POST")
    assert resp.body == b"abcde"
    assert resp.trailers == (("Batch-Summary", "ok=1"),)
    assert resp.chunked


def test_skips_interim_responses() -> None:
    raw = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n"
    resp = read_response(io.BytesIO(raw), "POST")
    assert resp.status == 204


def test_head_and_304_have_no_body() -> None:
    raw = b"HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n"
    assert read_response(io.BytesIO(raw), "GET").body == b""
    raw = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"
    assert read_response(io.BytesIO(raw), "HEAD").body == b""


def test_reads_to_close_without_framing() -> None:
    raw = b"HTTP/1.1 200 OK\r\n\r\nall of it"
    assert read_response(io.BytesIO(raw), "GET").body == b"all of it"


def test_rejects_a_truncated_content_length_body() -> None:
    with pytest.raises(MessageCutShort, match="closed at 2"):
        read_response(io.BytesIO(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhe"), "GET")


CHUNKED_HEAD = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"


@pytest.mark.parametrize(
    "rest",
    [b"", b"3\r\nab", b"3\r\nabc", b"3\r\nabc\r", b"3\r\nabc\r\n", b"0\r\nX-T: 1\r\n"],
    ids=["no-chunk", "inside-chunk", "after-data", "half-crlf", "no-last-chunk", "in-trailer"],
)
def test_a_message_closed_inside_its_content_is_cut_short(rest: bytes) -> None:
    with pytest.raises(MessageCutShort):
        read_response(io.BytesIO(CHUNKED_HEAD + rest), "POST")


@pytest.mark.parametrize(
    "raw",
    [
        CHUNKED_HEAD + b"3\r\nabcXY",
        CHUNKED_HEAD + b"zz\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n",
        b"",
    ],
    ids=["bad-crlf", "bad-size", "head-unended", "nothing"],
)
def test_a_broken_message_is_not_called_cut_short(raw: bytes) -> None:
    with pytest.raises(ResponseError) as caught:
        read_response(io.BytesIO(raw), "POST")
    assert not isinstance(caught.value, MessageCutShort)


def test_an_exchange_says_when_its_answer_was_cut_short() -> None:
    try:
        read_response(io.BytesIO(CHUNKED_HEAD + b"3\r\nab"), "POST")
    except ResponseError as exc:
        error = f"{type(exc).__name__}: {exc}"
    cut = http.Exchange(b"POST / HTTP/1.1\r\n\r\n", None, error)
    assert cut.cut_short
    other = http.Exchange(b"POST / HTTP/1.1\r\n\r\n", None, "ResponseError: not a status line")
    assert not other.cut_short


@pytest.mark.parametrize(
    ("what", "raw"),
    [
        ("a Content-Length past the cap", b"HTTP/1.1 200 OK\r\nContent-Length: 4096\r\n\r\n"),
        (
            "chunks that add up past the cap",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + b"100\r\n"
            + b"x" * 256
            + b"\r\n"
            + b"100\r\n"
            + b"x" * 256
            + b"\r\n0\r\n\r\n",
        ),
        ("a head past the cap", b"HTTP/1.1 200 OK\r\n" + b"X-F: 1234567890\r\n" * 40 + b"\r\n"),
        ("content to the close past the cap", b"HTTP/1.1 200 OK\r\n\r\n" + b"y" * 600),
    ],
)
def test_refuses_a_response_past_the_octets_it_reads(
    monkeypatch: pytest.MonkeyPatch, what: str, raw: bytes
) -> None:
    monkeypatch.setattr(http, "MAX_RESPONSE_OCTETS", 512)
    with pytest.raises(ResponseTooLarge, match="runs past 512 octets"):
        read_response(io.BytesIO(raw), "GET")


def test_reads_a_response_at_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + b"z" * 100
    monkeypatch.setattr(http, "MAX_RESPONSE_OCTETS", len(raw))
    assert read_response(io.BytesIO(raw), "GET").body == b"z" * 100


def test_rejects_a_non_http_status_line() -> None:
    with pytest.raises(ResponseError, match="not a status line"):
        read_response(io.BytesIO(b"SSH-2.0-x\r\n"), "GET")


def test_builds_a_request_with_host_first_and_exact_length() -> None:
    raw = build_request("POST", "/batch", "h:1", [("Content-Type", "x/y")], b"abc")
    assert (
        raw
        == b"POST /batch HTTP/1.1\r\nHost: h:1\r\nContent-Type: x/y\r\nContent-Length: 3\r\n\r\nabc"
    )


def test_removes_gzip_content_coding_and_keeps_the_coded_raw_octets() -> None:
    # MB-INTER-2: the client undoes a content coding an intermediary added before judging.
    coded = gzip.compress(b"--b\r\n")
    raw = (
        b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(coded)
        + coded
    )
    resp = read_response(io.BytesIO(raw), "GET")
    assert resp.body == b"--b\r\n"
    assert resp.raw.endswith(coded)
    assert resp.codings_left == ()


def test_leaves_an_unknown_content_coding_in_place() -> None:
    raw = b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 3\r\n\r\nabc"
    resp = read_response(io.BytesIO(raw), "GET")
    assert resp.body == b"abc"
    assert resp.codings_left == ("br",)


@pytest.mark.parametrize(
    ("codings", "body", "left", "content"),
    [
        # Applied in the order listed, removed last first: gzip comes off, br stays under it.
        ("br, gzip", gzip.compress(b"abc", mtime=0), ("br",), b"abc"),
        ("gzip, identity", gzip.compress(b"abc", mtime=0), (), b"abc"),
        # Octets that do not decode keep the coding and every one applied before it.
        ("gzip,\tgzip", b"not gzip", ("gzip", "gzip"), b"not gzip"),
        ("Identity", b"abc", (), b"abc"),
    ],
    ids=["gzip-over-br", "gzip-then-identity", "gzip-undecodable", "identity"],
)
def test_reports_the_codings_left_on_the_content(
    codings: str, body: bytes, left: tuple[str, ...], content: bytes
) -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Encoding: %s\r\nContent-Length: %d\r\n\r\n"
    resp = read_response(io.BytesIO(head % (codings.encode(), len(body)) + body), "GET")
    assert (resp.codings_left, resp.body) == (left, content)


@pytest.mark.parametrize(
    ("raw", "persistent"),
    [
        (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", True),
        (b"HTTP/1.1 204 No Content\r\n\r\n", True),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", True),
        (b"HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n", False),
        (b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", False),
        (b"HTTP/1.1 200 OK\r\n\r\nread to the close", False),
    ],
)
def test_says_whether_the_connection_persists_after_the_response(
    raw: bytes, persistent: bool
) -> None:
    assert read_response(io.BytesIO(raw), "GET").persistent is persistent


def _one_shot_server(interim: bytes | None, early: bool) -> tuple[int, list[bytes]]:
    """A server for one connection: it reads the head, then sends `interim` (when given) and
    reads the content, or with `early` answers 417 before any content; what it read is kept."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    got: list[bytes] = []

    def serve() -> None:
        conn, _ = listener.accept()
        with conn, listener:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(4096)
            if early:
                got.append(data)
                conn.sendall(b"HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\n\r\n")
                return
            if interim is not None:
                conn.sendall(interim)
            while not data.endswith(b"content"):
                data += conn.recv(4096)
            got.append(data)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")

    threading.Thread(target=serve, daemon=True).start()
    return port, got


@pytest.mark.parametrize(
    ("interim", "early", "came", "status"),
    [
        (b"HTTP/1.1 100 Continue\r\n\r\n", False, "100", 200),
        (None, False, "nothing", 200),
        (None, True, "final", 417),
    ],
)
def test_sends_content_after_a_100_or_the_wait(
    interim: bytes | None, early: bool, came: str, status: int
) -> None:
    port, got = _one_shot_server(interim, early)
    request = build_request("POST", "/", "x", [("Expect", "100-continue")], b"content")
    ex, before = exchange_after_continue("127.0.0.1", port, request, 0.3, timeout=5)
    assert before == came
    assert ex.response is not None
    assert ex.response.status == status
    assert ex.response.raw.startswith(interim or b"HTTP/1.1 ")
    assert got[0].endswith(b"\r\n\r\n" if early else b"content")


def test_reads_the_head_before_the_content_arrives() -> None:
    """HeadFirst returns with the head while the server still holds the content back, and
    `finish` reads the content once the server sends it."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    release = threading.Event()

    def serve() -> None:
        conn, _ = listener.accept()
        with conn, listener:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(4096)
            conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
            conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: b\r\n\r\n")
            release.wait(5)
            conn.sendall(b"5\r\nlater\r\n0\r\n\r\n")

    threading.Thread(target=serve, daemon=True).start()
    streaming = HeadFirst("127.0.0.1", port, build_request("GET", "/", "x"), timeout=5)
    assert (streaming.status, streaming.get("x-a")) == (200, "b")
    release.set()
    ex = streaming.finish()
    assert ex.response is not None
    assert (ex.response.status, ex.response.body) == (200, b"later")
    assert ex.response.raw.startswith(b"HTTP/1.1 100 Continue")


def _answers_in_turn(answers: list[bytes]) -> int:
    """A server for one connection that writes the n-th of `answers` once the n-th request's
    head arrived; its port."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve() -> None:
        conn, _ = listener.accept()
        with conn, listener:
            data = b""
            for answer in answers:
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(4096)
                    if not chunk:
                        return
                    data += chunk
                data = data.split(b"\r\n\r\n", 1)[1]
                conn.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    return port


@pytest.mark.parametrize(
    ("first", "second_status"),
    [
        (b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n", 200),
        # RFC 9112 §6.3: the answer to HEAD ends at its header section, whatever it announces:
        # the octets after it are the next answer's.
        (b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n", None),
    ],
)
def test_in_turn_reads_each_answer_from_where_the_last_ended(
    first: bytes, second_status: int | None
) -> None:
    port = _answers_in_turn([first, b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"])
    requests = [build_request("HEAD", "/", "x"), build_request("GET", "/", "x")]
    head, get = in_turn("127.0.0.1", port, requests, timeout=5)
    assert head.response is not None
    assert (head.response.body, head.kept, get.kept) == (b"", 1, 2)
    assert (get.response.status if get.response else None) == second_status
    if second_status is None:
        assert get.raw.startswith(b"ok\nHTTP/1.1 200")


def test_in_turn_sends_nothing_after_an_answer_that_ends_the_connection() -> None:
    closing = b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n"
    port = _answers_in_turn([closing])
    requests = [build_request("GET", "/", "x"), build_request("GET", "/", "x")]
    first, second = in_turn("127.0.0.1", port, requests, timeout=5)
    assert first.response is not None
    assert first.response.status == 204
    assert (second.response, second.error) == (None, NOT_SENT)


def test_refuses_a_content_length_of_thousands_of_digits() -> None:
    # More digits than int() converts: refused as past the cap, not a crash of the reader.
    raw = b"HTTP/1.1 200 OK\r\nContent-Length: " + b"9" * 5_000 + b"\r\n\r\nabc"
    with pytest.raises(ResponseTooLarge, match="Content-Length has 5000 digits"):
        read_response(io.BytesIO(raw), "GET")
