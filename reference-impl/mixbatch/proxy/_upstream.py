"""The I/O adapter toward the origin: h11 over asyncio streams, a keep-alive pool, pipelining.

Theory of operation. h11 keeps one request/response cycle per ``h11.Connection`` and will not
let a client start the next request before the previous response ended, so it cannot pipeline
on one state machine. Here every request gets its own ``h11.Connection(h11.CLIENT)``: it
serialises that request (so it knows the method and frames the response correctly, HEAD
included) and then parses that one response. Requests written back to back on one socket are
therefore pipelined (RFC 9112 §9.3.2), and the octets h11 received past the end of response i
(``trailing_data``) are handed to the parser of response i + 1 before the socket is read again.

``UpstreamPool`` bounds the open connections with a semaphore and keeps idle keep-alive
connections for reuse. A connection whose response said ``Connection: close``, ended early,
timed out or broke is discarded, never reused: its byte stream can no longer be trusted.

``pipeline`` runs a list of safe requests over one connection at a time: it writes them all,
then reads the answers in order, each within its own timeout. A timeout is that request's
failure alone; the requests behind it on the dead connection are sent again on a fresh one
(they are safe, so sending them twice is harmless, RFC 9110 §9.2.1). A broken connection costs
each unanswered request one retry. Every round resolves or retries at least one request, so
the loop ends after at most twice as many rounds as requests. ``exchange`` sends one request
of any method and never retries it: an unsafe request that may have reached the origin must
not run twice (RFC 9112 §9.3.1.1).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field

import h11

from ._config import ProxyConfig, Upstream

__all__ = [
    "UpstreamConnection",
    "UpstreamError",
    "UpstreamPool",
    "UpstreamRequest",
    "UpstreamResponse",
    "UpstreamTimeout",
    "exchange",
    "pipeline",
]

#: Octets read from the upstream socket at a time.
READ_SIZE = 64 * 1024


class UpstreamError(Exception):
    """The origin could not be reached or answered with something that is not HTTP (502)."""

    status = 502
    slug = "bad-gateway"
    title = "Bad Gateway"


class UpstreamTimeout(UpstreamError):
    """The origin did not answer within the per-sub-request timeout (504)."""

    status = 504
    slug = "gateway-timeout"
    title = "Gateway Timeout"


@dataclass(frozen=True, slots=True)
class UpstreamRequest:
    """One request as it goes to the origin; ``headers`` already carry Host and framing."""

    method: str
    target: str
    headers: Sequence[tuple[str, str]]
    body: bytes = b""


@dataclass(slots=True)
class UpstreamResponse:
    """One final (non-1xx) response from the origin, its content read whole."""

    status: int
    reason: str
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""


def _h11_request(request: UpstreamRequest) -> h11.Request:
    return h11.Request(
        method=request.method.encode("ascii"),
        target=request.target.encode("ascii"),
        headers=[(n.encode("latin-1"), v.encode("latin-1")) for n, v in request.headers],
    )


class UpstreamConnection:
    """One TCP connection to the origin and the pipeline of requests written on it."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, max_header: int
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._max_header = max_header
        self._carry = b""
        #: False once the connection may not carry another response (close, error, timeout).
        self.reusable = True
        #: Requests written on this connection so far (for tests and logs).
        self.requests_sent = 0

    @property
    def stale(self) -> bool:
        """True when the origin has already closed its side (an idle keep-alive timeout)."""
        return self._reader.at_eof() or self._writer.is_closing()

    def write(self, request: UpstreamRequest) -> h11.Connection:
        """Write ``request`` and return the state machine that will parse its response."""
        machine = h11.Connection(h11.CLIENT, max_incomplete_event_size=self._max_header)
        data = machine.send(_h11_request(request)) or b""
        if request.body:
            data += machine.send(h11.Data(data=request.body)) or b""
        data += machine.send(h11.EndOfMessage()) or b""
        self._writer.write(data)
        self.requests_sent += 1
        return machine

    async def flush(self) -> None:
        try:
            await self._writer.drain()
        except (ConnectionError, OSError) as exc:
            self.reusable = False
            raise UpstreamError(f"writing to the origin failed: {exc}") from exc

    async def _next(self, machine: h11.Connection) -> h11.Event:
        while True:
            try:
                event = machine.next_event()
            except h11.RemoteProtocolError as exc:
                self.reusable = False
                raise UpstreamError(f"the origin's response is not valid HTTP/1.1: {exc}") from exc
            if isinstance(event, h11.ConnectionClosed):
                self.reusable = False
                raise UpstreamError("the origin closed the connection before answering")
            if isinstance(event, h11.Event):
                return event
            if event is h11.PAUSED:
                self.reusable = False
                raise UpstreamError("the origin sent more than one response to one request")
            if self._carry:
                data, self._carry = self._carry, b""
            else:
                try:
                    data = await self._reader.read(READ_SIZE)
                except (ConnectionError, OSError) as exc:
                    self.reusable = False
                    raise UpstreamError(f"reading from the origin failed: {exc}") from exc
            machine.receive_data(data)

    async def read_head(self, machine: h11.Connection) -> h11.Response:
        """The final response head; interim 1xx responses are discarded (MB-RESP-9)."""
        while True:
            event = await self._next(machine)
            if isinstance(event, h11.Response):
                return event
            if not isinstance(event, h11.InformationalResponse):
                self.reusable = False
                raise UpstreamError(f"unexpected event from the origin: {event!r}")

    async def read_body(self, machine: h11.Connection) -> AsyncIterator[bytes]:
        """The response content chunk by chunk; keeps any octets of the next response."""
        while True:
            event = await self._next(machine)
            if isinstance(event, h11.Data):
                yield bytes(event.data)
            elif isinstance(event, h11.EndOfMessage):
                self._carry = machine.trailing_data[0]
                if machine.their_state is not h11.DONE or machine.our_state is not h11.DONE:
                    self.reusable = False  # Connection: close, or HTTP/1.0 framing
                return
            else:
                self.reusable = False
                raise UpstreamError(f"unexpected event from the origin: {event!r}")

    async def read_response(self, machine: h11.Connection, max_body: int) -> UpstreamResponse:
        head = await self.read_head(machine)
        chunks: list[bytes] = []
        size = 0
        async for chunk in self.read_body(machine):
            size += len(chunk)
            if size > max_body:
                self.reusable = False
                raise UpstreamError(
                    f"the origin's response content exceeds {max_body} octets, "
                    "more than one part may carry"
                )
            chunks.append(chunk)
        headers = [(n.decode("latin-1"), v.decode("latin-1")) for n, v in head.headers.raw_items()]
        return UpstreamResponse(
            head.status_code, head.reason.decode("latin-1"), headers, b"".join(chunks)
        )

    def close(self) -> None:
        self.reusable = False
        with contextlib.suppress(Exception):
            self._writer.close()


class UpstreamPool:
    """At most ``max_connections`` connections to one origin, idle ones kept for reuse."""

    def __init__(self, config: ProxyConfig) -> None:
        self._upstream: Upstream = config.upstream
        self._config = config
        self._slots = asyncio.Semaphore(config.max_connections)
        self._idle: list[UpstreamConnection] = []
        #: Connections opened over the pool's life (tests observe reuse through it).
        self.opened = 0

    async def _open(self) -> UpstreamConnection:
        upstream = self._upstream
        try:
            async with asyncio.timeout(self._config.connect_timeout):
                reader, writer = await asyncio.open_connection(upstream.host, upstream.port)
        except TimeoutError as exc:
            raise UpstreamError(
                f"connecting to {upstream.url} took over {self._config.connect_timeout:g} s"
            ) from exc
        except OSError as exc:
            raise UpstreamError(f"cannot connect to {upstream.url}: {exc}") from exc
        self.opened += 1
        return UpstreamConnection(reader, writer, self._config.max_response_header_bytes)

    @contextlib.asynccontextmanager
    async def connection(self) -> AsyncIterator[UpstreamConnection]:
        """A connection for the caller's exclusive use; kept afterwards only when reusable."""
        async with self._slots:
            connection: UpstreamConnection | None = None
            while self._idle and connection is None:
                candidate = self._idle.pop()
                if candidate.stale:
                    candidate.close()
                else:
                    connection = candidate
            if connection is None:
                connection = await self._open()
            try:
                yield connection
            except BaseException:
                connection.close()
                raise
            if connection.reusable and not connection.stale:
                self._idle.append(connection)
            else:
                connection.close()

    async def aclose(self) -> None:
        idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()


Outcome = UpstreamResponse | UpstreamError
"""What one forwarded request came to: the origin's response, or the failure standing for it."""


async def exchange(
    pool: UpstreamPool, request: UpstreamRequest, *, timeout: float, max_body: int
) -> Outcome:
    """Send one request (any method) and read its response; never retried."""
    try:
        async with pool.connection() as connection:
            machine = connection.write(request)
            await connection.flush()
            try:
                async with asyncio.timeout(timeout):
                    return await connection.read_response(machine, max_body)
            except TimeoutError:
                connection.close()
                return UpstreamTimeout(
                    f"the origin did not answer {request.method} {request.target} "
                    f"within {timeout:g} s"
                )
    except UpstreamError as exc:
        return exc


async def pipeline(
    pool: UpstreamPool,
    requests: Sequence[UpstreamRequest],
    deliver: Callable[[int, Outcome], None],
    *,
    timeout: float,
    max_body: int,
) -> None:
    """Send safe ``requests`` pipelined on one connection; ``deliver(i, outcome)`` as each ends."""
    pending = list(range(len(requests)))
    retried: set[int] = set()
    while pending:
        rest: list[int] = []
        try:
            async with pool.connection() as connection:
                machines = [connection.write(requests[i]) for i in pending]
                try:
                    await connection.flush()
                except UpstreamError as exc:
                    connection.close()
                    if retried.issuperset(pending):
                        for index in pending:
                            deliver(index, exc)
                        return
                    retried.update(pending)
                    continue
                for position, index in enumerate(pending):
                    request = requests[index]
                    try:
                        async with asyncio.timeout(timeout):
                            outcome: Outcome = await connection.read_response(
                                machines[position], max_body
                            )
                    except TimeoutError:
                        connection.close()
                        deliver(
                            index,
                            UpstreamTimeout(
                                f"the origin did not answer {request.method} {request.target} "
                                f"within {timeout:g} s"
                            ),
                        )
                        rest = pending[position + 1 :]
                        break
                    except UpstreamError as exc:
                        connection.close()
                        if index in retried:
                            deliver(index, exc)
                            rest = pending[position + 1 :]
                        else:
                            retried.add(index)
                            rest = pending[position:]
                        break
                    deliver(index, outcome)
                    if not connection.reusable:
                        rest = pending[position + 1 :]
                        break
        except UpstreamError as exc:
            # No connection at all: every request still pending fails the same way.
            for index in pending:
                deliver(index, exc)
            return
        pending = rest
