"""Requests whose framing or fields are ambiguous: refused, and where the framing is in doubt,
the connection closes without reading what follows (RFC 9112 §6.3, RFC 9110 §5.3). HEAD
answers carry no content, alone or as a part (RFC 9110 §9.3.2, MB-PART-8)."""

from __future__ import annotations

import json

import pytest

from ._client import (
    HttpClient,
    RunningServer,
    build_batch,
    parse_batch,
    post_batch,
    read_until_close,
)

PIPELINED_GET = b"GET /books/2 HTTP/1.1\r\nHost: test\r\n\r\n"


def _exchange(server: RunningServer, data: bytes) -> bytes:
    """Everything the server answers to ``data`` until it closes (or the idle timeout)."""
    with server.connect() as sock:
        sock.sendall(data)
        return read_until_close(sock)


def _statuses(wire: bytes) -> list[int]:
    return [int(wire[i + 9 : i + 12]) for i in range(len(wire)) if wire.startswith(b"HTTP/1.1 ", i)]


def _chunked_batch() -> tuple[str, bytes]:
    content_type, body = build_batch([("GET", "/books/1")])
    return content_type, f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"


@pytest.mark.parametrize(
    "framing",
    [
        "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n",
        "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n",
    ],
)
def test_content_length_with_transfer_encoding_is_400_and_closes(
    server: RunningServer, framing: str
) -> None:
    content_type, chunked = _chunked_batch()
    head = f"POST /batch HTTP/1.1\r\nHost: test\r\nContent-Type: {content_type}\r\n{framing}\r\n"
    wire = _exchange(server, head.encode() + chunked + PIPELINED_GET)
    # One answer: the bytes after the chunked body never run as a request of their own.
    assert _statuses(wire) == [400]
    assert b"Connection: close\r\n" in wire
    document = json.loads(wire.partition(b"\r\n\r\n")[2])
    assert document["type"] == "https://mixbatch.dev/problems/ambiguous-framing"
    assert "Content-Length and Transfer-Encoding" in document["detail"]


@pytest.mark.parametrize(
    "head",
    [
        "POST /echo HTTP/1.1\r\nHost: test\r\nX-A: a\r\n b\r\nContent-Length: 5\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length:\r\n\t5\r\n\r\n",
        "POST /echo HTTP/1.1\nHost: test\nContent-Length: 5\n\n",
        "POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\n\n",
    ],
    ids=["obs-fold", "obs-fold-in-content-length", "bare-lf", "bare-lf-blank-line"],
)
def test_obs_fold_and_bare_lf_in_the_head_are_400_and_close(
    server: RunningServer, head: str
) -> None:
    wire = _exchange(server, head.encode() + b"hello" + PIPELINED_GET)
    assert _statuses(wire) == [400]
    assert b"Connection: close\r\n" in wire


def test_a_pipelined_head_is_checked_too(server: RunningServer) -> None:
    good = b"GET /books/1 HTTP/1.1\r\nHost: test\r\n\r\n"
    folded = b"GET /books/1 HTTP/1.1\r\nHost: test\r\nX-A: a\r\n b\r\n\r\n"
    wire = _exchange(server, good + folded + PIPELINED_GET)
    assert _statuses(wire) == [200, 400]


@pytest.mark.parametrize(
    ("fields", "status"),
    [
        ("Content-Length: 5\r\nContent-Length: 3\r\n", 400),
        ("Transfer-Encoding: gzip, chunked\r\n", 501),
        ("X-A: a\rb\r\nContent-Length: 0\r\n", 400),
        ("X-A: a\x00b\r\nContent-Length: 0\r\n", 400),
    ],
    ids=["differing-content-lengths", "unknown-coding", "bare-cr", "nul"],
)
def test_other_doubtful_framing_is_refused_and_closes(
    server: RunningServer, fields: str, status: int
) -> None:
    head = f"POST /echo HTTP/1.1\r\nHost: test\r\n{fields}\r\n"
    wire = _exchange(server, head.encode() + b"hello" + PIPELINED_GET)
    assert _statuses(wire) == [status]
    assert b"Connection: close\r\n" in wire


def test_a_request_with_two_content_types_is_400(client: HttpClient) -> None:
    content_type, body = build_batch([("GET", "/books/1")])
    reply = client.request(
        "POST", "/batch", [("Content-Type", content_type), ("Content-Type", "text/plain")], body
    )
    assert reply.status == 400
    document = json.loads(reply.body)
    assert (document["type"], document["field"]) == (
        "https://mixbatch.dev/problems/repeated-field",
        "Content-Type",
    )
    # The framing was sound, so the connection stays usable.
    assert client.request("GET", "/books/1").status == 200


def test_a_part_with_two_content_types_is_answered_400_as_alone(client: HttpClient) -> None:
    fields = [("Content-Type", "application/json"), ("Content-Type", "text/plain")]
    reply = post_batch(client, [("POST", "/books", fields, b"{}"), ("GET", "/books/1")])
    assert reply.status == 200
    parts = parse_batch(reply)
    assert [p.status for p in parts] == [400, 200]
    assert json.loads(parts[0].body)["field"] == "Content-Type"
    alone = client.request("POST", "/books", fields, b"{}")
    assert (alone.status, json.loads(alone.body)) == (400, json.loads(parts[0].body))


@pytest.mark.parametrize("target", ["/nowhere", "/books/999", "/books/1", "/status/500"])
def test_a_head_part_carries_no_content_whatever_its_status(
    client: HttpClient, target: str
) -> None:
    alone = client.request("HEAD", target)
    parts = parse_batch(post_batch(client, [("HEAD", target)]))
    assert parts[0].status == alone.status
    assert parts[0].body == b"" == alone.body
