"""The proxy's own side of the wire: request octets a client gets wrong never reach the origin.

The proxy serves clients with the reference server's connection code, so ambiguous framing is
refused there (RFC 9112 §6.3: Transfer-Encoding with Content-Length "ought to be handled as an
error", and the connection closed after answering). Content that cannot be read (malformed
chunked framing, a client gone inside it) is answered with the server's own 400 problem, for a
batch and a pass-through request alike, and is nothing for the error log: the fault is the
client's.
"""

from __future__ import annotations

import logging

import pytest

from ._harness import RunningProxy, raw_exchange
from ._origin import RunningOrigin

#: Both framings at once: a front end that honoured Content-Length would read "0\r\n\r\n" as the
#: content; one that honoured chunked would read the rest as the next request.
_SMUGGLED = b"GET /items/9?smuggled=1 HTTP/1.1\r\nHost: x\r\n\r\n"


def _ambiguous(authority: str, target: str) -> bytes:
    return (
        f"POST {target} HTTP/1.1\r\nHost: {authority}\r\n"
        "Content-Type: multipart/mixed; boundary=b\r\n"
        "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
    ).encode() + _SMUGGLED


@pytest.mark.parametrize("target", ["/batch", "/echo"])
def test_content_length_with_chunked_is_answered_and_the_connection_closed(
    proxy: RunningProxy, origin: RunningOrigin, target: str
) -> None:
    seen = len(origin.app.peers)
    answer = raw_exchange(proxy.url, _ambiguous(proxy.url.removeprefix("http://"), target))
    assert answer.status == 400
    assert answer.closed
    assert len(origin.app.peers) == seen  # neither the request nor the smuggled one went on


@pytest.mark.parametrize(
    ("target", "content", "half_close"),
    [
        ("/batch", b"zz\r\n", False),
        ("/batch", b"4\r\n--b", True),
        ("/echo", b"zz\r\n", False),
        ("/echo", b"4\r\nabcd", True),
    ],
    ids=["batch-bad-chunk", "batch-gone", "plain-bad-chunk", "plain-gone"],
)
def test_unreadable_content_is_the_servers_400_and_no_error(
    proxy: RunningProxy,
    origin: RunningOrigin,
    caplog: pytest.LogCaptureFixture,
    target: str,
    content: bytes,
    half_close: bool,
) -> None:
    head = (
        f"POST {target} HTTP/1.1\r\nHost: {proxy.url.removeprefix('http://')}\r\n"
        "Content-Type: multipart/mixed; boundary=b\r\nTransfer-Encoding: chunked\r\n\r\n"
    ).encode()
    seen = len(origin.app.peers)
    with caplog.at_level(logging.WARNING, logger="mixbatch"):
        answer = raw_exchange(proxy.url, head + content, half_close=half_close)
    assert answer.status == 400
    assert answer.problem_type == "https://mixbatch.dev/problems/malformed-content"
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert len(origin.app.peers) == seen


@pytest.mark.parametrize("target", ["batch", "items/1", "?x=1"])
def test_a_target_in_no_request_target_form_is_refused_not_guessed(
    proxy: RunningProxy, origin: RunningOrigin, target: str
) -> None:
    # RFC 9112 §3.2: "batch" is neither origin-form nor absolute-form; read as relative to "/"
    # it would run a batch (or reach the origin) the client never named.
    seen = len(origin.app.peers)
    octets = (
        f"POST {target} HTTP/1.1\r\nHost: {proxy.url.removeprefix('http://')}\r\n"
        "Content-Type: multipart/mixed; boundary=b\r\nContent-Length: 0\r\n\r\n"
    ).encode()
    assert raw_exchange(proxy.url, octets).status == 400
    assert len(origin.app.peers) == seen
