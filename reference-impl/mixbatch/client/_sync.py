"""The blocking client: ``BatchClient`` over one socket, and the interpreter of engine operations.

This is the I/O adapter for threads and scripts. ``SocketTransport`` moves bytes between a socket
and the sans-IO ``Http1Connection``; ``drive`` runs a ``BatchRun`` by performing each operation
it yields. Everything that decides anything lives in ``_engine``.
"""

from __future__ import annotations

import select
import socket
import ssl
import time
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Protocol

from ._engine import (
    BatchOptions,
    BatchRun,
    Emit,
    Endpoint,
    EndpointState,
    ReadBody,
    ReceiveHead,
    Send,
    Sleep,
)
from ._errors import ConnectionLost, TransportError
from ._http1 import End, Head, Http1Connection, HttpRequest
from ._model import (
    Batch,
    BatchResult,
    HeaderInput,
    SubRequest,
    SubResponse,
    header_pairs,
    requests_of,
)
from ._retry import RetryPolicy

__all__ = ["BatchClient", "ResponseStream", "SocketTransport", "Transport", "drive"]

#: Seconds a connect, a write or a wait for the next octets may take.
TIMEOUT = 30.0
_READ_SIZE = 64 * 1024


class Transport(Protocol):
    """What ``drive`` needs from a blocking transport."""

    def send(self, requests: tuple[HttpRequest, ...]) -> None: ...
    def receive_head(self) -> Head: ...
    def read_body(self) -> bytes: ...
    def close(self) -> None: ...


class SocketTransport:
    """One keep-alive HTTP/1.1 connection, reopened when the server closed it."""

    def __init__(self, endpoint: Endpoint, timeout: float = TIMEOUT) -> None:
        self._endpoint = endpoint
        self._timeout = timeout
        self._sock: socket.socket | None = None
        self._conn: Http1Connection | None = None
        #: How many connections were opened; tests use it to check keep-alive.
        self.connections_opened = 0

    def _open(self) -> tuple[socket.socket, Http1Connection]:
        self.close()
        endpoint = self._endpoint
        try:
            sock = socket.create_connection((endpoint.host, endpoint.port), self._timeout)
            if endpoint.scheme == "https":
                context = ssl.create_default_context()
                sock = context.wrap_socket(sock, server_hostname=endpoint.host)
        except OSError as exc:
            raise TransportError(f"cannot connect to {endpoint.authority}: {exc}") from exc
        self._sock, self._conn = sock, Http1Connection(endpoint.authority)
        self.connections_opened += 1
        return sock, self._conn

    def _idle_closed(self, sock: socket.socket) -> bool:
        # A keep-alive connection the server closed while idle reads as EOF at once.
        readable, _, _ = select.select([sock], [], [], 0)
        if not readable:
            return False
        try:
            return sock.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def send(self, requests: tuple[HttpRequest, ...]) -> None:
        sock, conn = self._sock, self._conn
        if (
            sock is None
            or conn is None
            or not conn.keep_alive
            or (conn.outstanding == 0 and self._idle_closed(sock))
        ):
            sock, conn = self._open()
        try:
            sock.sendall(conn.send(list(requests)))
        except OSError as exc:
            self.close()
            raise ConnectionLost(f"writing the request failed: {exc}") from exc

    def _event(self) -> Head | bytes | End:
        sock, conn = self._sock, self._conn
        if sock is None or conn is None:
            raise ConnectionLost("the connection is closed")
        while True:
            event = conn.next_event()
            if isinstance(event, Head | bytes | End):
                return event
            try:
                data = sock.recv(_READ_SIZE)
            except OSError as exc:
                self.close()
                raise ConnectionLost(f"reading the response failed: {exc}") from exc
            conn.receive_data(data)

    def receive_head(self) -> Head:
        event = self._event()
        if not isinstance(event, Head):  # pragma: no cover - h11 orders its events
            raise ConnectionLost(f"expected a response head, got {event!r}")
        return event

    def read_body(self) -> bytes:
        event = self._event()
        if isinstance(event, End):
            if self._conn is not None and not self._conn.keep_alive:
                self.close()
            return b""
        if isinstance(event, Head):  # pragma: no cover - h11 orders its events
            raise ConnectionLost("a second response head inside a body")
        return event

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
        self._sock, self._conn = None, None


def drive(
    run: BatchRun, transport: Transport, sleep: Callable[[float], None]
) -> Iterator[SubResponse]:
    """Perform the operations ``run`` asks for; yield each sub-response it emits."""
    ops = run.ops()
    value: object = None
    error: ConnectionLost | None = None
    finished = False
    try:
        while True:
            try:
                op = ops.throw(error) if error is not None else ops.send(value)
            except StopIteration:
                finished = True
                return
            value, error = None, None
            try:
                if isinstance(op, Emit):
                    yield op.response
                elif isinstance(op, Send):
                    transport.send(op.requests)
                elif isinstance(op, ReceiveHead):
                    value = transport.receive_head()
                elif isinstance(op, ReadBody):
                    value = transport.read_body()
                elif isinstance(op, Sleep):
                    sleep(op.seconds)
            except ConnectionLost as exc:
                error = exc
    finally:
        if not finished:
            # Abandoned or failed mid-response: the connection holds unread octets.
            transport.close()
            ops.close()


class ResponseStream:
    """Sub-responses in request order as they arrive; ``result`` once all have."""

    def __init__(self, run: BatchRun, responses: Iterator[SubResponse]) -> None:
        self._run = run
        self._responses = responses

    def __iter__(self) -> Iterator[SubResponse]:
        return self

    def __next__(self) -> SubResponse:
        return next(self._responses)

    @property
    def result(self) -> BatchResult:
        """The whole result; raises ``RuntimeError`` before the stream is exhausted."""
        if self._run.result is None:
            raise RuntimeError("the stream has not been read to its end")
        return self._run.result

    def close(self) -> None:
        close = getattr(self._responses, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> ResponseStream:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class BatchClient:
    """A blocking batch client for one batch endpoint URL, e.g. ``http://host:port/batch``.

    ``headers`` are sent on every batch request (for instance ``Authorization``; the server
    applies Authorization and Cookie to parts without their own: MB-SUB-5). ``retry`` bounds
    retries; ``discover`` asks the endpoint for its limits once, before the first batch.
    """

    def __init__(
        self,
        url: str,
        *,
        headers: HeaderInput = None,
        timeout: float = TIMEOUT,
        retry: RetryPolicy | None = None,
        discover: bool = True,
        pipeline: bool = True,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.endpoint = Endpoint.from_url(url)
        self.state = EndpointState()
        self.transport: Transport = SocketTransport(self.endpoint, timeout)
        self._headers = header_pairs(headers)
        self._retry = retry or RetryPolicy()
        self._discover = discover
        self._pipeline = pipeline
        self._sleep = sleep

    def batch(self) -> Batch:
        """An empty batch to fill and pass to ``send`` or ``stream``."""
        return Batch()

    def stream(
        self,
        batch: Batch | list[SubRequest],
        *,
        stop_on_error: bool = False,
        atomic: bool = False,
        headers: HeaderInput = None,
    ) -> ResponseStream:
        """Send ``batch``; iterate the result to get each sub-response as soon as it arrives."""
        options = BatchOptions(
            stop_on_error,
            atomic,
            self._headers + header_pairs(headers),
            self._discover,
            self._pipeline,
            references=isinstance(batch, Batch) and batch.references,
        )
        run = BatchRun(self.endpoint, self.state, requests_of(batch), options, self._retry)
        return ResponseStream(run, drive(run, self.transport, self._sleep))

    def send(
        self,
        batch: Batch | list[SubRequest],
        *,
        stop_on_error: bool = False,
        atomic: bool = False,
        headers: HeaderInput = None,
    ) -> BatchResult:
        """Send ``batch`` and return every sub-response, in order."""
        stream = self.stream(batch, stop_on_error=stop_on_error, atomic=atomic, headers=headers)
        for _ in stream:
            pass
        return stream.result

    def close(self) -> None:
        self.transport.close()

    def __enter__(self) -> BatchClient:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
