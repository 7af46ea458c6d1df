"""The I/O adapter toward the origin: h11 over ``OriginStream``, a keep-alive pool, pipelining.

Theory of operation. The octets go through the pipelining connection the client uses too
(``mixbatch._http.pipeline``): every request gets its own ``h11.Connection(h11.CLIENT)``, which
serialises that request (so it frames the response right, HEAD included) and parses that one
response. Requests written back to back on one socket are therefore pipelined (RFC 9112 §9.3.2),
and the octets received past the end of response i are handed to the parser of response i + 1
before the socket is read again. This module adds the I/O and the pool.

``UpstreamPool`` bounds the open connections with a semaphore and keeps idle keep-alive
connections for reuse. HTTP/1.1 pairs responses with requests by order alone, so a connection
goes back to the pool only at an exact message boundary (``at_boundary``): every request written
was answered in full, no octet is left past the last answer, and no answer began before its
request had gone out whole. Anything else (``Connection: close``, an answer ended early, timed
out or broken, one response too many, content where none may be, more content than declared)
closes it: its byte stream no longer lines up with its requests, and its next reader would get
someone else's answer. A connection resting in the pool is closed the moment the origin sends
anything on it (``OriginStream``), and checked again when taken out.

``pipeline`` runs a list of safe requests over one connection at a time: it writes them all,
then reads the answers in order, each within its own timeout. The first answer of a round is
surely the first request's (the connection began the round at a boundary); the others are
delivered only if the round ends exactly at a boundary, and otherwise their requests go again.
A timeout is that request's failure alone; the requests behind it on the dead connection are
sent again on a fresh one (they are safe, so sending them twice is harmless, RFC 9110 §9.2.1).
A broken connection costs each unanswered request one retry. Every round resolves at least one
request or retries one not retried before, so the loop ends after at most twice as many rounds
as requests. ``exchange`` sends one request of any method and never retries it: an unsafe
request that may have reached the origin must not run twice (RFC 9112 §9.3.1.1).

A request is written whole into the transport, which sends it while its answer is awaited:
an origin that answers early, or stops reading, is seen by the read and its timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field

import h11

from mixbatch._http.pipeline import End, Head, HttpRequest, PipelinedConnection

from ._config import ProxyConfig, Upstream
from ._origin_stream import OriginStream

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


def _origin_error(detail: str) -> UpstreamError:
    return UpstreamError(f"the origin's answer is not a whole HTTP/1.1 response: {detail}")


class UpstreamConnection:
    """One TCP connection to the origin and the pipeline of requests written on it."""

    def __init__(self, stream: OriginStream, max_header: int) -> None:
        self._stream = stream
        self._http = PipelinedConnection(max_header=max_header, error=_origin_error)
        #: Octets written so far, and where each request still unanswered ends among them.
        self._written = 0
        self._request_ends: deque[int] = deque()
        #: True once an answer began before its request had gone out whole.
        self._answered_early = False
        #: False once the connection may not carry another response (close, error, timeout).
        self.reusable = True
        #: Requests written on this connection so far (for tests and logs).
        self.requests_sent = 0

    @property
    def answered_exactly(self) -> bool:
        """True when every request written got one answer and nothing more has arrived.

        That is: each answer was read in full, the last one ended exactly where the octets
        received end (nothing past it in the pipeline, nothing buffered), and no answer began
        before its request had gone out whole. Octets past the end of the last answer are a
        response nobody asked for, and would answer the next request (RFC 9112 §9.3.2).
        """
        return (
            self._http.outstanding == 0
            and self._http.pending == 0
            and self._stream.buffered == 0
            and not self._answered_early
            and not self._stream.spoke_out_of_turn
        )

    @property
    def at_boundary(self) -> bool:
        """True when the connection may carry the next request of anyone: answered exactly,
        still open, and nothing (a close, an error, a timeout) made it unusable."""
        return self.reusable and self.answered_exactly and not self._stream.closed

    def park(self) -> bool:
        """Put the connection to rest in the pool; False when it is not at a boundary."""
        if not self.at_boundary:
            return False
        self._stream.park()
        return True

    def unpark(self) -> bool:
        """Take it out of the pool; False when the origin spoke or closed while it rested."""
        return self._stream.unpark() and self.at_boundary

    def write(self, request: UpstreamRequest) -> h11.Connection:
        """Write ``request`` and return the state machine that will parse its response."""
        machine, data = self._http.send_one(
            HttpRequest(request.method, request.target, tuple(request.headers), request.body)
        )
        self._stream.write(data)
        self._written += len(data)
        self._request_ends.append(self._written)
        self.requests_sent += 1
        return machine

    async def flush(self) -> None:
        """Fail at once when the connection is already gone; otherwise return without waiting.

        What ``write`` wrote sits whole in the transport, which sends it while the caller waits
        for the answer. Waiting for it to drain first would hide an origin that answers before
        reading all of the request (or never reads it) behind a stalled write.
        """
        if self._stream.closed:
            self.reusable = False
            raise UpstreamError("writing to the origin failed: the connection is closed")

    async def _next(self, machine: h11.Connection) -> Head | bytes | End:
        if self._http.front is not machine:
            raise RuntimeError("responses are read in the order their requests were written")
        while True:
            try:
                event = self._http.next_event()
            except UpstreamError:
                self.reusable = False
                raise
            if not isinstance(event, Head | bytes | End):
                self._http.receive_data(await self._stream.receive())
                continue
            return event

    async def read_head(self, machine: h11.Connection) -> Head:
        """The final response head; interim 1xx responses are discarded (MB-RESP-9)."""
        event = await self._next(machine)
        if not isinstance(event, Head):  # pragma: no cover - h11 gives a head first
            self.reusable = False
            raise UpstreamError(f"unexpected event from the origin: {event!r}")
        self._answered_from(self._request_ends.popleft() if self._request_ends else 0)
        return event

    def _answered_from(self, request_end: int) -> None:
        # An answer that began before its request had gone out whole: the origin decided
        # without reading all of it, and may read the rest as a request of its own (RFC 9112
        # §9.5: a client "SHOULD monitor the network connection for an error response while it
        # is transmitting the request"). The exchange may finish; the connection is not reused.
        if self._written - self._stream.unsent < request_end:
            self._answered_early = True
            self.reusable = False

    async def read_body(self, machine: h11.Connection) -> AsyncIterator[bytes]:
        """The response content chunk by chunk; octets of the next response stay queued."""
        while True:
            event = await self._next(machine)
            if isinstance(event, bytes):
                yield event
            elif isinstance(event, End):
                if not self._http.keep_alive:
                    self.reusable = False  # Connection: close, HTTP/1.0 framing, or a close
                return
            else:  # pragma: no cover - h11 gives one head per response
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
        return UpstreamResponse(head.status, head.reason, list(head.headers), b"".join(chunks))

    def close(self) -> None:
        self.reusable = False
        self._stream.close()


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
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self._config.connect_timeout):
                _, stream = await loop.create_connection(OriginStream, upstream.host, upstream.port)
        except TimeoutError as exc:
            raise UpstreamError(
                f"connecting to {upstream.url} took over {self._config.connect_timeout:g} s"
            ) from exc
        except OSError as exc:
            raise UpstreamError(f"cannot connect to {upstream.url}: {exc}") from exc
        self.opened += 1
        return UpstreamConnection(stream, self._config.max_response_header_bytes)

    @contextlib.asynccontextmanager
    async def connection(self) -> AsyncIterator[UpstreamConnection]:
        """A connection for the caller's exclusive use; kept afterwards only when reusable."""
        async with self._slots:
            connection: UpstreamConnection | None = None
            while self._idle and connection is None:
                candidate = self._idle.pop()
                if candidate.unpark():
                    connection = candidate
                else:
                    candidate.close()
            if connection is None:
                connection = await self._open()
            try:
                yield connection
                await settle()
            except BaseException:
                connection.close()
                raise
            if connection.park():
                self._idle.append(connection)
            else:
                connection.close()

    async def aclose(self) -> None:
        idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()


async def settle() -> None:
    """Let octets that already reached the socket be read before a boundary is judged.

    An event-loop round reads ready sockets only after the callbacks already queued, among them
    the task that asks; two rounds are enough for the answer to see what had arrived. Octets
    that arrive later still close the connection if it is idle (``OriginStream.park``); only
    octets that the origin holds back until a next request is written cannot be told from the
    answer to that request, on HTTP/1.1 or by any proxy.
    """
    await asyncio.sleep(0)
    await asyncio.sleep(0)


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
    """Send safe ``requests`` pipelined on one connection; ``deliver(i, outcome)`` as each ends.

    Each round writes every pending request on one connection taken at a message boundary, so
    the round's first answer is surely the first request's and is delivered at once. Later
    answers are paired with their requests by order alone; they are held until the round has
    read one answer per request and then ends exactly at a boundary (``answered_exactly``).
    A round that ends any other way (octets left over: some answer was one too many; a
    timeout, an error or a close before the last answer: some answer may be missing) proves
    nothing about the answers it holds, so their requests go again in the next round.
    """
    pending = list(range(len(requests)))
    retried: set[int] = set()
    while pending:
        rest: list[int] = []
        held: list[tuple[int, Outcome]] = []
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
                    if position == 0:
                        deliver(index, outcome)
                    else:
                        held.append((index, outcome))
                    if not connection.reusable and position < len(pending) - 1:
                        rest = pending[position + 1 :]
                        break
                else:
                    await settle()
                    if connection.answered_exactly:
                        for index, outcome in held:
                            deliver(index, outcome)
                        held.clear()
                if held:
                    connection.close()
        except UpstreamError as exc:
            # No connection at all: every request still pending fails the same way.
            for index in pending:
                deliver(index, exc)
            return
        pending = [index for index, _ in held] + rest
