"""transport.h2: an HTTP/1.1 request as HTTP/2 fields, and a batch over HTTP/2 through a real
TLS front end (nginx with http2, skipped when nginx is not installed)."""

from __future__ import annotations

import socket
import threading

import h2.config
import h2.connection
import h2.errors
import h2.events
import pytest

from mixbatch_conformance.core.context import SubRequest, compose_batch
from mixbatch_conformance.core.validator import parse_media_type, read_multipart
from mixbatch_conformance.intermediaries.real import INTERMEDIARIES, install_command
from mixbatch_conformance.intermediaries.real._launch import start_real
from mixbatch_conformance.transport import h2 as h2_transport
from mixbatch_conformance.transport.embedded import embedded_server
from mixbatch_conformance.transport.http import build_request


def test_the_request_line_and_host_become_pseudo_header_fields() -> None:
    request = build_request(
        "POST",
        "/batch?x=1",
        "example.org:8443",
        [("Content-Type", "multipart/mixed; boundary=b"), ("Connection", "keep-alive")],
        b"--b--",
    )
    fields, body = h2_transport.to_fields(request, "https")
    assert fields[:4] == [
        (":method", "POST"),
        (":scheme", "https"),
        (":authority", "example.org:8443"),
        (":path", "/batch?x=1"),
    ]
    names = [n for n, _ in fields]
    assert "connection" not in names
    assert "host" not in names
    assert ("content-type", "multipart/mixed; boundary=b") in fields
    assert body == b"--b--"


def test_chunked_content_is_sent_unchunked_without_transfer_encoding() -> None:
    request = (
        b"POST /batch HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTE: trailers\r\n\r\n"
        b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
    )
    fields, body = h2_transport.to_fields(request, "http")
    assert body == b"abcde"
    assert ("te", "trailers") in fields
    assert "transfer-encoding" not in [n for n, _ in fields]


def test_octets_that_are_not_a_request_are_refused() -> None:
    with pytest.raises(ValueError, match=r"not an HTTP/1\.1 request line"):
        h2_transport.to_fields(b"hello\r\n\r\n", "http")


@pytest.mark.slow
def test_a_batch_goes_over_http2_through_a_tls_front_end() -> None:
    nginx = INTERMEDIARIES["nginx"]
    if not nginx.installed():
        pytest.skip(f"nginx is not installed: {install_command(nginx)}")
    parts = [SubRequest("GET", f"/status/{200 + n}") for n in range(5)]
    body = compose_batch(parts, "bb")
    with embedded_server() as origin, start_real(nginx, "h2", [origin]) as hop:
        port = int(hop.url.rsplit(":", 1)[1])
        request = build_request(
            "POST",
            "/batch",
            f"127.0.0.1:{port}",
            [("Content-Type", "multipart/mixed; boundary=bb")],
            body,
        )
        context = h2_transport.client_context(ca_file=hop.ca_file)
        exchanges = h2_transport.pipeline("127.0.0.1", port, [request, request], 10.0, context)
    assert [ex.notes for ex in exchanges] == [(h2_transport.NOTE,), (h2_transport.NOTE,)]
    for ex in exchanges:
        assert ex.response is not None
        assert ex.response.status == 200
        _, params = parse_media_type(ex.response.get("Content-Type") or "")
        envelope = read_multipart(ex.response.body, params["boundary"])
        assert [p.get("Http-Status-Code") for p in envelope.parts] == [
            str(200 + n) for n in range(5)
        ]


def _early_answer_server(listener: socket.socket, reset: bool) -> None:
    """An h2c server that answers 413 as soon as a request's fields arrive, never opens the
    flow-control window for its content, and (when ``reset``) then resets the stream with
    NO_ERROR, as RFC 9113 §8.1 lets a server do after a complete response."""
    sock, _ = listener.accept()
    sock.settimeout(5)
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    with sock:
        while True:
            try:
                data = sock.recv(65536)
            except OSError:
                return
            if not data:
                return
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.RequestReceived):
                    conn.send_headers(
                        event.stream_id, [(":status", "413"), ("content-length", "0")], True
                    )
                    if reset:
                        conn.reset_stream(event.stream_id, h2.errors.ErrorCodes.NO_ERROR)
            try:
                sock.sendall(conn.data_to_send())
            except OSError:
                # The client may close as soon as it has the answer and the reset: its upload
                # stopped, which is what the test asks, and nothing is left to send.
                return


@pytest.mark.parametrize("reset", [True, False], ids=["rst-no-error", "no-reset"])
def test_an_answer_before_the_request_ends_stops_the_upload(reset: bool) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    server = threading.Thread(target=_early_answer_server, args=(listener, reset), daemon=True)
    server.start()
    body = b"x" * (1 << 20)  # far past the 65,535 octets of the initial window
    request = build_request(
        "POST",
        "/batch",
        f"127.0.0.1:{port}",
        [("Content-Type", "multipart/mixed; boundary=b")],
        body,
    )
    try:
        (exchange,) = h2_transport.pipeline("127.0.0.1", port, [request], 3.0)
    finally:
        listener.close()
        server.join(5)
    assert exchange.error is None
    assert exchange.response is not None
    assert exchange.response.status == 413
