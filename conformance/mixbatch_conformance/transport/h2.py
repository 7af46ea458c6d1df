"""An HTTP/2 client for the suite: the same requests, sent as HTTP/2 streams.

Theory of operation: the suite's checks write HTTP/1.1 request octets (``http.build_request``).
``pipeline`` here takes the same list and sends each request as one stream on one HTTP/2
connection (RFC 9113): the request line and ``Host`` become the ``:method``, ``:path``,
``:scheme`` and ``:authority`` pseudo-header fields, connection-specific fields are left out
(RFC 9113 §8.2.2), chunked content is unchunked, and the content goes in DATA frames within the
peer's flow-control window. Every stream is opened before any answer is read, as the HTTP/1.1
client pipelines. Each answer is rendered as HTTP/1.1 octets (status line, fields, content
chunked with the trailer fields when there are trailers, else with Content-Length) and read
back with ``http.read_response``, so checks see the same ``Response`` either way; ``raw`` is that
rendition, and the exchange's note says it stands for HTTP/2 frames.

Cleartext HTTP/2 is prior knowledge (RFC 9113 §3.3): the connection preface straight away.
Over TLS the client offers only ``h2`` in ALPN (``client_context``); a server that picks
nothing is a ``TlsFailure``. Requests an HTTP/2 message cannot carry (a field that is not
valid there, framing only HTTP/1.1 has) come back as an exchange with ``error`` set.
"""

from __future__ import annotations

import io
import re
import socket
import ssl
from dataclasses import dataclass, field
from pathlib import Path

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings

from mixbatch_conformance.transport.http import (
    DEFAULT_TIMEOUT,
    Exchange,
    ResponseError,
    TargetUnreachable,
    read_response,
)
from mixbatch_conformance.transport.tls import TlsFailure, explain
from mixbatch_conformance.transport.urls import socket_host

__all__ = ["ALPN", "NOTE", "client_context", "pipeline", "to_fields"]

#: The one protocol this client offers in ALPN.
ALPN = "h2"
#: What an exchange's ``raw`` holds when it came over HTTP/2.
NOTE = "HTTP/2: the response octets are an HTTP/1.1 rendition of the stream's frames"
#: Octets read from the socket at a time.
READ_SIZE = 65536
#: Fields that are specific to one HTTP/1.1 connection and never sent in HTTP/2 (RFC 9113
#: §8.2.2: "An endpoint MUST NOT generate an HTTP/2 message containing connection-specific
#: header fields"); Host becomes :authority.
CONNECTION_SPECIFIC = frozenset(
    {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host"}
)
_REQUEST_LINE = re.compile(rb"([!-~]+) ([^ \r\n]+) HTTP/1\.[01]\r?\n")


def client_context(*, insecure: bool = False, ca_file: Path | None = None) -> ssl.SSLContext:
    """A client context offering only h2, verifying the server unless ``insecure``."""
    context = ssl.create_default_context()
    if ca_file is not None:
        context.load_verify_locations(cafile=str(ca_file))
    if insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols([ALPN])
    return context


@dataclass
class _Stream:
    request: bytes
    headers: list[tuple[str, str]] = field(default_factory=list)
    data: bytearray = field(default_factory=bytearray)
    trailers: list[tuple[str, str]] = field(default_factory=list)
    ended: bool = False
    error: str | None = None


def _unchunk(data: bytes) -> bytes:
    out = bytearray()
    while data:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
        if size == 0:
            break
        out += data[:size]
        data = data[size + 2 :]
    return bytes(out)


def to_fields(request: bytes, scheme: str) -> tuple[list[tuple[str, str]], bytes]:
    """The HTTP/2 field list (pseudo-header fields first) and the content of an HTTP/1.1
    request; ValueError when the octets are not a request this client can carry."""
    m = _REQUEST_LINE.match(request)
    if m is None:
        raise ValueError(f"not an HTTP/1.1 request line: {request[:60]!r}")
    head, sep, body = request.partition(b"\r\n\r\n")
    if not sep:
        raise ValueError("the request has no end of its header section")
    fields: list[tuple[str, str]] = []
    authority = ""
    chunked = False
    for line in head.decode("latin-1").split("\r\n")[1:]:
        name, colon, value = line.partition(":")
        if not colon:
            raise ValueError(f"not a field line: {line[:60]!r}")
        lowered, value = name.strip().lower(), value.strip()
        if lowered == "host":
            authority = value
        if lowered == "transfer-encoding" and "chunked" in value.lower():
            chunked = True
        if lowered in CONNECTION_SPECIFIC or (lowered == "te" and value.lower() != "trailers"):
            continue
        fields.append((lowered, value))
    if chunked:
        body = _unchunk(body)
        fields = [(n, v) for n, v in fields if n != "content-length"]
    method, target = m.group(1).decode("latin-1"), m.group(2).decode("latin-1")
    pseudo = [(":method", method), (":scheme", scheme), (":authority", authority)]
    pseudo.append((":path", target))
    return pseudo + fields, body


def _render(stream: _Stream) -> bytes:
    """The stream's answer as HTTP/1.1 octets, for ``read_response``."""
    status = next((v for n, v in stream.headers if n == ":status"), "000")
    lines = [f"HTTP/1.1 {status} "]
    lines += [f"{n}: {v}" for n, v in stream.headers if not n.startswith(":")]
    has_length = any(n == "content-length" for n, _ in stream.headers)
    if stream.trailers or not has_length:
        lines = [line for line in lines if not line.lower().startswith("content-length:")]
        lines.append("Transfer-Encoding: chunked")
        body = (
            (f"{len(stream.data):x}\r\n".encode() + bytes(stream.data) + b"\r\n")
            if (stream.data)
            else b""
        )
        trailer = "".join(f"{n}: {v}\r\n" for n, v in stream.trailers).encode("latin-1")
        content = body + b"0\r\n" + trailer + b"\r\n"
    else:
        content = bytes(stream.data)
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + content


def _connect(host: str, port: int, timeout: float, tls: ssl.SSLContext | None) -> socket.socket:
    try:
        sock = socket.create_connection((socket_host(host), port), timeout=timeout)
    except TimeoutError:
        raise
    except OSError as exc:
        raise TargetUnreachable(f"cannot connect to {host}:{port}: {exc}") from exc
    if tls is None:
        return sock
    try:
        wrapped = tls.wrap_socket(sock, server_hostname=socket_host(host))
    except ssl.SSLError as exc:
        sock.close()
        raise TlsFailure(explain(exc, host, port)) from exc
    if wrapped.selected_alpn_protocol() != ALPN:
        wrapped.close()
        raise TlsFailure(
            f"{host}:{port} did not agree to HTTP/2 in ALPN (it chose "
            f"{wrapped.selected_alpn_protocol()!r}); drop --http2 to test it over HTTP/1.1"
        )
    return wrapped


class _Connection:
    """One HTTP/2 connection: the h2 state machine and its socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.conn = h2.connection.H2Connection(
            h2.config.H2Configuration(client_side=True, header_encoding="latin-1")
        )
        self.streams: dict[int, _Stream] = {}
        self.conn.initiate_connection()
        self.flush()

    def flush(self) -> None:
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def open(self, request: bytes, scheme: str) -> None:
        fields, body = to_fields(request, scheme)
        stream_id = self.conn.get_next_available_stream_id()
        self.streams[stream_id] = _Stream(request)
        self.conn.send_headers(stream_id, fields, end_stream=not body)
        self.flush()
        view = memoryview(body)
        stream = self.streams[stream_id]
        while view:
            if stream.ended:
                # The server answered before the request ended (an early 413, say): RFC 9113
                # §8.1 lets it, and the rest of the request is not wanted. Stop sending and
                # close our side, unless the server already reset the stream.
                self._cancel(stream_id)
                return
            window = min(
                self.conn.local_flow_control_window(stream_id), self.conn.max_outbound_frame_size
            )
            if window <= 0:
                self.read_once()
                continue
            chunk, view = view[:window], view[window:]
            self.conn.send_data(stream_id, bytes(chunk), end_stream=not view)
            self.flush()

    def _cancel(self, stream_id: int) -> None:
        try:
            self.conn.reset_stream(stream_id, h2.errors.ErrorCodes.CANCEL)
        except h2.exceptions.StreamClosedError:
            return  # the server's RST_STREAM closed it already
        self.flush()

    def read_once(self) -> None:
        data = self.sock.recv(READ_SIZE)
        if not data:
            raise ConnectionError("the server closed the HTTP/2 connection")
        for event in self.conn.receive_data(data):
            self._handle(event)
        self.flush()

    def _handle(self, event: h2.events.Event) -> None:
        stream = self.streams.get(getattr(event, "stream_id", 0) or 0)
        if isinstance(event, h2.events.ResponseReceived) and stream is not None:
            stream.headers = [(str(n), str(v)) for n, v in event.headers or []]
        elif isinstance(event, h2.events.DataReceived) and stream is not None:
            stream.data += event.data or b""
            self.conn.acknowledge_received_data(event.flow_controlled_length or 0, event.stream_id)
        elif isinstance(event, h2.events.TrailersReceived) and stream is not None:
            stream.trailers = [(str(n), str(v)) for n, v in event.headers or []]
        elif isinstance(event, h2.events.StreamEnded) and stream is not None:
            stream.ended = True
        elif isinstance(event, h2.events.StreamReset) and stream is not None:
            if stream.ended and event.error_code == h2.errors.ErrorCodes.NO_ERROR:
                # RFC 9113 §8.1: after a complete response, RST_STREAM with NO_ERROR asks the
                # client to stop sending the request; the answer stands.
                return
            stream.ended = True
            stream.error = f"the server reset stream {event.stream_id} (error {event.error_code})"
        elif isinstance(event, h2.events.ConnectionTerminated):
            for s in self.streams.values():
                if not s.ended:
                    s.ended = True
                    s.error = f"the server ended the connection (GOAWAY {event.error_code})"


def _exchange(stream: _Stream) -> Exchange:
    if stream.error is not None and not stream.headers:
        return Exchange(stream.request, None, stream.error, (NOTE,))
    if not stream.ended:
        return Exchange(stream.request, None, "the stream did not end", (NOTE,))
    raw = _render(stream)
    method = stream.request.split(b" ", 1)[0].decode("latin-1")
    try:
        response = read_response(io.BytesIO(raw), method)
    except ResponseError as exc:
        return Exchange(stream.request, None, str(exc), (NOTE,), raw)
    return Exchange(stream.request, response, stream.error, (NOTE,))


def pipeline(
    host: str,
    port: int,
    requests: list[bytes],
    timeout: float = DEFAULT_TIMEOUT,
    tls: ssl.SSLContext | None = None,
) -> list[Exchange]:
    """Send every request as a stream of one HTTP/2 connection, then read every answer.

    Same contract as ``http.pipeline``: one Exchange per request, in order; a request that
    got no answer has ``error`` set; TargetUnreachable, TlsFailure and TimeoutError only when
    the connection cannot be made at all."""
    scheme = "https" if tls is not None else "http"
    sock = _connect(host, port, timeout, tls)
    out: dict[int, Exchange] = {}
    try:
        connection = _Connection(sock)
        opened: list[int | None] = []
        for request in requests:
            try:
                connection.open(request, scheme)
                opened.append(max(connection.streams))
            except (ValueError, h2.exceptions.ProtocolError) as exc:
                opened.append(None)
                out[len(opened) - 1] = Exchange(request, None, f"not sent over HTTP/2: {exc}")
        try:
            while not all(s.ended for s in connection.streams.values()):
                connection.read_once()
        except (OSError, h2.exceptions.ProtocolError) as exc:
            for s in connection.streams.values():
                if not s.ended:
                    s.ended, s.error = True, f"{type(exc).__name__}: {exc}"
        for i, stream_id in enumerate(opened):
            if stream_id is not None:
                out[i] = _exchange(connection.streams[stream_id])
    finally:
        sock.close()
    return [out[i] for i in range(len(requests))]
