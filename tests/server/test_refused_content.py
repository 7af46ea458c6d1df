"""A request refused before its content was read: the response still reaches the peer.

RFC 9112 §9.6: a server that closes after a response reads (and discards) what the client is
still sending, for a bounded while, so that the client or a proxy sees the response rather
than a reset. Bounded by ``max_discard_bytes`` and ``discard_timeout``.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from typing import Any

import h11
import pytest

from mixbatch.codec import Limits
from mixbatch.server import ServerConfig

from ._client import IO_TIMEOUT, RunningServer, read_until_close

#: A batch limit small enough that an oversized body is quick to send, large enough to be
#: far over the pre-response drain (``max_drain_bytes``) and several socket buffers.
BATCH_LIMIT = 64 * 1024
BODY_BYTES = 4 * 1024 * 1024


def _head(length: str) -> bytes:
    return (
        b"POST /batch HTTP/1.1\r\nHost: t\r\n"
        b"Content-Type: multipart/mixed; boundary=b\r\n" + length.encode("ascii") + b"\r\n\r\n"
    )


def test_oversized_batch_written_whole_before_reading_gets_413(make_server: Any) -> None:
    running: RunningServer = make_server(
        ServerConfig(port=0, limits=Limits(max_batch_bytes=BATCH_LIMIT))
    )
    with running.connect() as sock:
        # Small buffers, so that the kernel cannot absorb the body: the whole body goes out
        # only if the server keeps reading after its 413.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 * 1024)
        sock.sendall(_head(f"Content-Length: {BODY_BYTES}") + b"x" * BODY_BYTES)
        data = read_until_close(sock)
    assert data.startswith(b"HTTP/1.1 413 "), data[:200]
    assert b"\r\nConnection: close\r\n" in data


def test_connection_stays_open_until_the_refused_content_is_read(make_server: Any) -> None:
    # A proxy still writing the content takes an early end of the connection (even a
    # half-close) for a failed upstream and answers 502; the server ends it only once the
    # content it refused has been read.
    running: RunningServer = make_server(
        ServerConfig(port=0, limits=Limits(max_batch_bytes=BATCH_LIMIT))
    )
    half = BODY_BYTES // 2
    with running.connect() as sock:
        sock.sendall(_head(f"Content-Length: {BODY_BYTES}") + b"x" * half)
        client = h11.Connection(h11.CLIENT)
        client.send(
            h11.Request(
                method="POST",
                target="/batch",
                headers=[("Host", "t"), ("Content-Length", str(BODY_BYTES))],
            )
        )
        response = None
        while True:
            event = client.next_event()
            if event is h11.NEED_DATA:
                client.receive_data(sock.recv(65536))
            elif isinstance(event, h11.Response):
                response = event
            elif isinstance(event, h11.EndOfMessage):
                break
        assert response is not None
        assert response.status_code == 413
        sock.settimeout(0.3)
        with pytest.raises(TimeoutError):
            sock.recv(1)  # no end of the connection while content is still due
        sock.settimeout(IO_TIMEOUT)
        sock.sendall(b"x" * (BODY_BYTES - half))
        assert read_until_close(sock) == b""


def test_endless_chunked_body_is_cut_off_within_the_bound(make_server: Any) -> None:
    config = ServerConfig(
        port=0,
        limits=Limits(max_batch_bytes=BATCH_LIMIT),
        max_discard_bytes=256 * 1024,
        discard_timeout=1.0,
    )
    running: RunningServer = make_server(config)
    sent = 0
    cut_off = threading.Event()
    with running.connect() as sock:
        sock.sendall(_head("Transfer-Encoding: chunked"))
        chunk = b"4000\r\n" + b"x" * 0x4000 + b"\r\n"
        started = time.monotonic()
        sock.settimeout(IO_TIMEOUT)
        try:
            while time.monotonic() - started < IO_TIMEOUT:
                sock.sendall(chunk)
                sent += len(chunk)
        except OSError:
            cut_off.set()
        elapsed = time.monotonic() - started
        data = b""
        with contextlib.suppress(OSError):
            data = read_until_close(sock)
    assert cut_off.is_set(), f"the server read {sent} octets of an endless body without end"
    assert elapsed < config.discard_timeout + 3.0
    # What the server read is bounded by max_discard_bytes plus what the kernel buffers hold.
    assert sent < config.max_discard_bytes + 8 * 1024 * 1024
    if data:
        assert data.startswith(b"HTTP/1.1 413 ")


def test_content_announced_beyond_the_bound_closes_at_once(make_server: Any) -> None:
    config = ServerConfig(
        port=0,
        limits=Limits(max_batch_bytes=BATCH_LIMIT),
        max_discard_bytes=BATCH_LIMIT * 2,
        discard_timeout=5.0,
    )
    running: RunningServer = make_server(config)
    with running.connect() as sock:
        sock.sendall(_head("Content-Length: 100000000") + b"x" * 4096)
        started = time.monotonic()
        data = read_until_close(sock)
        elapsed = time.monotonic() - started
    assert data.startswith(b"HTTP/1.1 413 ")
    # No discarding (and no lingering) for content announced as over the bound.
    assert elapsed < 1.5
