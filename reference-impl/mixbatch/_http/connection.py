"""The I/O adapter: one ``asyncio.Protocol`` per TCP connection, driving an h11 state machine.

Theory of operation. ``data_received`` only appends to an input buffer and wakes the
connection's task; the task (``_serve``) pulls h11 events, builds a ``Request``, awaits the
application and writes the ``Response``. Requests on one connection are handled strictly one
after another, so responses to pipelined requests leave in the order the requests came
(RFC 9112 §9.3.2; MB-PIPE-1).

Input is fed to h11 only when h11 asks for more (``NEED_DATA``), so h11 never holds more than
one read buffer of pipelined input. When the unread input passes
``HostSettings.read_buffer_high_water`` the transport is paused and resumed once h11 took it.
h11's ``max_incomplete_event_size`` is set explicitly: a header section over it is a 431.

Output goes to a buffer that is flushed by a ``call_soon`` callback, i.e. at the end of the
current event-loop step: pipelined requests answered without suspending are coalesced into one
``transport.write``, while a handler that really waits (``/delay``) lets the earlier responses
go first. Streaming bodies (batches) flush every chunk at once and wait for the transport to
drain, so a large response is never held in memory.

Timers: before the first byte of a request, ``idle_timeout`` (close silently); from the first
byte to the end of the header section, ``header_read_timeout`` (slowloris: 408, close); between
body chunks, ``body_read_timeout`` (408). The batch endpoint keeps its own whole-batch timer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import h11

from mixbatch.codec import Fields

from .conditional import format_http_date
from .config import HostSettings
from .messages import (
    BodyReadError,
    BodyTooLarge,
    Request,
    RequestBody,
    Response,
    ResponseCut,
    end_to_end,
)
from .origin import host_fault, parse_public_origin, request_origin
from .problems import problem, reason
from .targets import absolute_form_authority, origin_form

__all__ = ["SERVER_NAME", "HttpConnection"]

_log = logging.getLogger("mixbatch.server")

#: The Server field value of every response.
SERVER_NAME = "mixbatch"
#: Seconds a closing connection keeps discarding input so that the peer reads our last
#: response before any reset (the "lingering close" of RFC 9112 §9.6).
LINGER_TIMEOUT = 2.0
#: Status codes whose responses never carry content (RFC 9110 §6.4.1).
_NO_CONTENT = frozenset({204, 304})

App = Callable[[Request], Awaitable[Response]]


def _head_size(head: h11.Request) -> int:
    """The octets of a request head as sent, give or take optional whitespace."""
    size = len(head.method) + len(head.target) + len(b"  HTTP/1.1\r\n\r\n")
    for name, value in head.headers.raw_items():
        size += len(name) + len(value) + 4  # ": " and CRLF
    return size


_HEAD_END = re.compile(rb"\n\r?\n")
_BARE_LF = re.compile(rb"(?<!\r)\n")
_OBS_FOLD = re.compile(rb"\n[ \t]")


def _line_fault(raw: bytearray | None) -> str | None:
    """Why a request head's lines are refused, or None; ``raw`` starts with the head.

    h11 takes a bare LF for a line end and unfolds obs-fold into a space, both of which
    RFC 9112 allows a recipient (§2.2, §5.2) but neither of which an intermediary in front of
    this server need agree with: one that saw the lines differently would frame the message
    differently. Like the part header rules (MB-WIRE-8, MB-PART-11), the outer head must use
    CRLF and no obs-fold (RFC 9112 §5.2: a server "MUST either reject the message by sending a
    400 (Bad Request)" or replace the fold).
    """
    if raw is None:
        return None
    end = _HEAD_END.search(raw)
    head = raw[: end.end()] if end is not None else raw
    if _OBS_FOLD.search(head):
        return "a request header line is folded (obs-fold, RFC 9112 §5.2); the connection closes"
    if _BARE_LF.search(head):
        return "a request head line ends in a bare LF, not CRLF (RFC 9112 §2.2)"
    return None


def _framing_fault(head: h11.Request) -> str | None:
    """Why the request's framing cannot be trusted, or None.

    RFC 9112 §6.3: a request with both Content-Length and Transfer-Encoding "ought to be handled
    as an error", and a server that processes one anyway "MUST close the connection after
    responding". h11 would let Transfer-Encoding win and keep the connection, so an intermediary
    that framed by Content-Length instead would send the rest as a request of its own (request
    smuggling). This server refuses the request with 400 and closes without reading further.
    (h11 itself refuses differing Content-Length values, a transfer coding other than chunked,
    a repeated Host, and CR or NUL inside a field line.)
    """
    names = {name.lower() for name, _value in head.headers.raw_items()}
    if b"content-length" in names and b"transfer-encoding" in names:
        return (
            "the request carries both Content-Length and Transfer-Encoding, so its framing "
            "is ambiguous (RFC 9112 §6.3); the connection closes"
        )
    return None


_TRANSFER_ENCODING = re.compile(
    rb"^transfer-encoding[ \t]*:(.*?)\r?$", re.IGNORECASE | re.MULTILINE
)


def _transfer_coding_fault(raw: bytearray | None) -> tuple[int, str] | None:
    """The status and reason for a request's Transfer-Encoding that h11 refused, or None.

    h11 takes "chunked" alone and refuses every other value with a 501. RFC 9112 tells the
    two faults apart: when chunked is not the final coding "the message body length cannot be
    determined reliably; the server MUST respond with the 400 (Bad Request) status code and then
    close the connection" (§6.3), while a coding it does not understand before a final chunked
    is a 501 (§6.1: a server that receives "a transfer coding it does not understand SHOULD
    respond with 501"). Every Transfer-Encoding line counts, as one list (RFC 9110 §5.3).
    """
    if raw is None:
        return None
    end = _HEAD_END.search(raw)
    head = bytes(raw[: end.start() if end else len(raw)])
    values = [m.group(1) for m in _TRANSFER_ENCODING.finditer(head)]
    if not values:
        return None
    codings = [c.strip().lower() for c in b",".join(values).split(b",") if c.strip()]
    if not codings or codings[-1] != b"chunked":
        final = codings[-1].decode("latin-1") if codings else ""
        return 400, (
            f"the final transfer coding is {final!r}, not chunked, so the content's length "
            "cannot be determined (RFC 9112 §6.3); the connection closes"
        )
    others = sorted({c.decode("latin-1") for c in codings[:-1]})
    return 501, (
        f"transfer coding {', '.join(others) or 'chunked'} is not implemented "
        "(RFC 9112 §6.1); the connection closes"
    )


class _Closed(Exception):
    """The peer went away; the connection task unwinds quietly."""


class _WireBody(RequestBody):
    """The body of the request being handled, read from h11 as ``Data`` events arrive."""

    def __init__(self, connection: HttpConnection, length: int | None, limit: int | None) -> None:
        self._connection = connection
        self._limit = limit
        self.length = length
        self.consumed = False
        #: Octets of content read so far.
        self.received = 0

    async def stream(self) -> AsyncIterator[bytes | bytearray | memoryview]:
        if self.consumed:
            return
        limit = self._limit
        if limit is not None and self.length is not None and self.length > limit:
            raise BodyTooLarge(limit)
        size = 0
        while True:
            event = await self._connection._next_body_event()
            if isinstance(event, h11.Data):
                size += len(event.data)
                self.received = size
                if limit is not None and size > limit:
                    raise BodyTooLarge(limit)
                # h11 hands over a bytearray (or a memoryview of one); consumers take both.
                yield event.data
            else:
                self.consumed = True
                return


class HttpConnection(asyncio.Protocol):
    """One HTTP/1.1 connection: keep-alive, pipelining, back-pressure, timeouts."""

    def __init__(
        self, app: App, config: HostSettings, on_close: Callable[[HttpConnection], None]
    ) -> None:
        self._app = app
        self._config = config
        self._on_close = on_close
        public = config.public_origin
        self._public_origin = None if public is None else parse_public_origin(public)
        self._h11 = h11.Connection(
            h11.SERVER, max_incomplete_event_size=config.max_request_header_bytes
        )
        self._loop = asyncio.get_running_loop()
        self._transport: asyncio.Transport | None = None
        self._inbuf = bytearray()
        self._eof = False
        self._eof_fed = False
        self._head_scan: bytearray | None = None
        self._lost = False
        self._reading_paused = False
        self._input_waiter: asyncio.Future[None] | None = None
        self._outbuf = bytearray()
        self._flush_handle: asyncio.Handle | None = None
        self._writing_paused = False
        self._drain_waiter: asyncio.Future[None] | None = None
        self._task: asyncio.Task[None] | None = None
        #: Set when a refused request's content was beyond the discard bound: close at once.
        self._cut_off = False
        self._idle = True
        self._shutting_down = False
        self.peer = "-"

    # -- asyncio.Protocol callbacks -------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        peer = transport.get_extra_info("peername")
        if isinstance(peer, tuple):
            self.peer = f"{peer[0]}:{peer[1]}"
        self._task = self._loop.create_task(self._serve(), name=f"mixbatch-conn-{self.peer}")

    def data_received(self, data: bytes) -> None:
        self._inbuf += data
        if (
            not self._reading_paused
            and len(self._inbuf) >= self._config.read_buffer_high_water
            and self._transport is not None
        ):
            self._reading_paused = True
            self._transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self._eof = True
        self._wake()
        # Keep the write side open: the last response may still be on its way.
        return True

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost = True
        self._wake()
        if self._drain_waiter is not None and not self._drain_waiter.done():
            self._drain_waiter.set_result(None)
        if self._task is not None and not self._task.done():
            self._task.cancel()

    def pause_writing(self) -> None:
        self._writing_paused = True

    def resume_writing(self) -> None:
        self._writing_paused = False
        if self._drain_waiter is not None and not self._drain_waiter.done():
            self._drain_waiter.set_result(None)

    # -- lifecycle ------------------------------------------------------------------------

    @property
    def task(self) -> asyncio.Task[None] | None:
        return self._task

    @property
    def idle(self) -> bool:
        """True between requests, when no byte of a next request has arrived."""
        return self._idle

    def begin_shutdown(self) -> None:
        """Finish the request in flight (answering it with Connection: close), then close."""
        self._shutting_down = True
        self._wake()

    def abort(self) -> None:
        if self._transport is not None:
            self._transport.abort()

    async def _serve(self) -> None:
        try:
            while not self._lost:
                event = await self._read_request()
                if event is None:
                    break
                if not await self._respond(event):
                    break
                self._next_cycle()
        except (_Closed, asyncio.CancelledError):
            pass
        except ResponseCut as exc:
            _log.warning("connection %s: the response was cut short: %s", self.peer, exc)
        except Exception:
            _log.exception("connection %s failed", self.peer)
        finally:
            await self._close()

    async def _close(self) -> None:
        self._flush()
        transport = self._transport
        if transport is not None and not self._lost and not transport.is_closing():
            if self._cut_off:
                pass  # beyond the discard bound: no more of the peer's content is read
            elif self._inbuf or self._h11.their_state in (h11.SEND_BODY, h11.ERROR):
                # Stop sending, then discard input for a moment so that unread request bytes
                # do not make the kernel reset the connection before our response is read.
                with contextlib.suppress(OSError, RuntimeError):
                    if transport.can_write_eof():
                        transport.write_eof()
                await self._linger()
            transport.close()
        self._on_close(self)

    async def _linger(self) -> None:
        deadline = self._loop.time() + LINGER_TIMEOUT
        with contextlib.suppress(TimeoutError, _Closed, asyncio.CancelledError):
            while not self._eof and not self._lost:
                self._inbuf.clear()
                self._resume_reading()
                await self._wait_input(deadline)

    # -- input ----------------------------------------------------------------------------

    def _wake(self) -> None:
        waiter = self._input_waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _resume_reading(self) -> None:
        if self._reading_paused and self._transport is not None:
            self._reading_paused = False
            self._transport.resume_reading()

    def _next_cycle(self) -> None:
        """Ready the connection for its next request. Empty lines the client wrote after the
        last request's content are left out (RFC 9112 §2.2: a server "SHOULD ignore at least
        one empty line (CRLF) received prior to the request-line"; spec 11, MB-PIPE-4): h11
        takes them for a request line, so a fresh machine gets what follows them."""
        pending, closed = self._h11.trailing_data
        self._h11.start_next_cycle()
        if pending[:1] in (b"\r", b"\n"):
            self._h11 = h11.Connection(
                h11.SERVER, max_incomplete_event_size=self._config.max_request_header_bytes
            )
            rest = pending.lstrip(b"\r\n")
            if rest:
                # receive_data(b"") would tell h11 the client has closed.
                self._h11.receive_data(rest)
            if closed:
                self._h11.receive_data(b"")
                self._eof_fed = True

    def _feed(self) -> None:
        data = bytes(self._inbuf)
        self._inbuf.clear()
        if self._h11.their_state is h11.IDLE and not self._h11.trailing_data[0]:
            # Empty lines before a request line are ignored, as in _next_cycle.
            data = data.lstrip(b"\r\n")
            if not data:
                self._resume_reading()
                return
        scan = self._head_scan
        if scan is not None and len(scan) <= self._config.max_request_header_bytes:
            scan += data[: self._config.max_request_header_bytes + 4 - len(scan)]
        self._h11.receive_data(data)
        self._resume_reading()

    async def _wait_input(self, deadline: float) -> None:
        """Wait for input, EOF, loss or shutdown; raises TimeoutError at ``deadline``."""
        self._flush()
        self._input_waiter = self._loop.create_future()
        try:
            async with asyncio.timeout_at(deadline):
                await self._input_waiter
        finally:
            self._input_waiter = None
        if self._lost:
            raise _Closed

    def _pull(self) -> h11.Event | type[h11.NEED_DATA] | type[h11.PAUSED]:
        """The next h11 event, feeding buffered input as h11 asks for it."""
        while True:
            event = self._h11.next_event()
            if event is not h11.NEED_DATA:
                return event
            if self._inbuf:
                self._feed()
            elif self._eof and not self._eof_fed:
                self._eof_fed = True
                self._h11.receive_data(b"")
            else:
                return event

    async def _read_request(self) -> h11.Request | None:
        """The next request's head, or ``None`` when the connection should close."""
        config = self._config
        header_deadline: float | None = None
        pending = self._h11.trailing_data[0]
        # The head's octets as they arrive, for what h11 forgives (see _line_fault).
        self._head_scan = bytearray(pending[: config.max_request_header_bytes + 4])
        if pending or self._inbuf:
            header_deadline = self._loop.time() + config.header_read_timeout
        idle_deadline = self._loop.time() + config.idle_timeout
        while True:
            try:
                event = self._pull()
            except h11.RemoteProtocolError as exc:
                coding = (
                    _transfer_coding_fault(self._head_scan)
                    if exc.error_status_hint == 501
                    else None
                )
                if coding is not None:
                    status, reason_text = coding
                    slug = (
                        "ambiguous-framing" if status == 400 else "transfer-coding-not-implemented"
                    )
                    await self._send_simple(problem(status, slug, reason_text))
                    return None
                await self._refuse_head(exc)
                return None
            if isinstance(event, h11.Request):
                self._idle = False
                fault = _line_fault(self._head_scan) or _framing_fault(event)
                self._head_scan = None
                if fault is not None:
                    await self._send_simple(problem(400, "ambiguous-framing", fault))
                    return None
                hosts = [
                    v.decode("latin-1")
                    for n, v in event.headers.raw_items()
                    if n.lower() == b"host"
                ]
                if event.http_version == b"1.1" or hosts:
                    fault = host_fault(hosts)
                    if fault is not None:
                        # MB-STATUS-4: a refused batch request names the requirement it broke;
                        # spec 3.2.2 puts the Host rule under target resolution (MB-PART-5).
                        path = event.target.split(b"?", 1)[0].decode("latin-1")
                        named = "MB-PART-5" if path == config.batch_path else None
                        await self._send_simple(
                            problem(400, "invalid-host", fault, requirement=named)
                        )
                        return None
                if _head_size(event) > config.max_request_header_bytes:
                    # h11 only bounds a head that is still incomplete; one that arrived whole
                    # in a single read is measured here, so the limit holds either way.
                    await self._refuse_head(
                        h11.RemoteProtocolError("header section too large", 431)
                    )
                    return None
                return event
            if event is not h11.NEED_DATA:
                # ConnectionClosed, or EOF handled by h11 as a clean close.
                return None
            if self._eof_fed:
                return None
            if header_deadline is None and self._shutting_down:
                return None
            self._idle = header_deadline is None
            try:
                await self._wait_input(header_deadline or idle_deadline)
            except TimeoutError:
                if header_deadline is None:
                    return None  # idle keep-alive connection: close silently
                await self._send_simple(
                    problem(
                        408,
                        "header-timeout",
                        f"the request header section did not arrive within "
                        f"{config.header_read_timeout:g} s",
                    )
                )
                return None
            if header_deadline is None and self._inbuf:
                header_deadline = self._loop.time() + config.header_read_timeout

    async def _next_body_event(self) -> h11.Data | h11.EndOfMessage:
        deadline = self._loop.time() + self._config.body_read_timeout
        while True:
            try:
                event = self._pull()
            except h11.RemoteProtocolError as exc:
                raise BodyReadError(400, f"malformed request framing: {exc}") from None
            if isinstance(event, h11.Data | h11.EndOfMessage):
                return event
            if event is not h11.NEED_DATA or self._eof_fed:
                raise BodyReadError(400, "the connection ended inside the request content")
            try:
                await self._wait_input(deadline)
            except TimeoutError:
                raise BodyReadError(
                    408,
                    f"no request content arrived for {self._config.body_read_timeout:g} s",
                ) from None
            deadline = self._loop.time() + self._config.body_read_timeout

    # -- responding -----------------------------------------------------------------------

    async def _respond(self, head: h11.Request) -> bool:
        """Handle one request; True when the connection may carry another."""
        raw = [(n.decode("latin-1"), v.decode("latin-1")) for n, v in head.headers.raw_items()]
        fields = Fields(raw)
        # RFC 9112 §3.2.2: a server that receives the absolute-form "MUST ignore the received
        # Host header field (if any) and instead use the host information of the
        # request-target"; the origin is read from that authority as from a Host.
        addressed = absolute_form_authority(head.target.decode("ascii"))
        named = (
            Fields([*((n, v) for n, v in raw if n.lower() != "host"), ("Host", addressed)])
            if addressed is not None
            else fields
        )
        length_field = fields.get("Content-Length")
        length = int(length_field) if length_field is not None else None
        if length is None and fields.get("Transfer-Encoding") is None:
            length = 0
        # The origin the client addressed: "http" and Host, unless the host was told how the
        # front end in front of it is reached (public_origin, trust_forwarded; see ``origin``).
        origin = request_origin(
            named,
            scheme="http",
            public_origin=self._public_origin,
            trust_forwarded=self._config.trust_forwarded,
        )
        authority = origin.authority
        # RFC 9112 §3.2.2: a server "MUST accept the absolute-form"; applications see origin-form.
        target = origin_form(head.target.decode("ascii"), scheme=origin.scheme, authority=authority)
        refused = target if isinstance(target, Response) else None
        path = "" if isinstance(target, Response) else target
        # A batch is bounded by the codec's max_batch_bytes, with its own problem document;
        # any other request content by max_request_body_bytes (413 via the router).
        is_batch = path.partition("?")[0] == self._config.batch_path
        body = _WireBody(self, length, None if is_batch else self._config.max_request_body_bytes)
        request = Request(
            method=head.method.decode("ascii"),
            target=path or head.target.decode("ascii"),
            headers=end_to_end(raw),
            body=body,
            scheme=origin.scheme,
            authority=authority,
            accepts_trailers="trailers" in (fields.get("TE") or "").lower(),
        )
        response = refused or await self._app(request)
        try:
            if self._h11.their_state is h11.SEND_BODY and not await self._drain_request(body):
                response.headers.append(("Connection", "close"))
            await self._send(response, head)
            if self._h11.their_state is h11.SEND_BODY:
                await self._discard_request(body)
        finally:
            # A streaming body that never went out (the peer left first) is closed all the
            # same, so what it holds (a batch's spool and budget share) is given back.
            aclose = getattr(response.body, "aclose", None)
            if aclose is not None:
                await aclose()
        self._idle = True
        return (
            self._h11.our_state is h11.DONE
            and self._h11.their_state is h11.DONE
            and not self._shutting_down
        )

    async def _drain_request(self, body: _WireBody) -> bool:
        """Discard an unread request body of at most ``max_drain_bytes``; True on success."""
        budget = self._config.max_drain_bytes
        if body.length is not None and body.length - body.received > budget:
            return False  # announced as more than the budget: answer at once, then close
        with contextlib.suppress(BodyReadError):
            while budget >= 0:
                event = await self._next_body_event()
                if isinstance(event, h11.EndOfMessage):
                    return True
                budget -= len(event.data)
        return False

    async def _discard_request(self, body: _WireBody) -> None:
        """Read and drop the rest of a request body that the response already refused.

        RFC 9112 §9.6: a server closing after a response should not close while the client may
        still be sending, or the client's (or a proxy's) TCP stack may take the reset before
        the response was read, and a proxy then answers 502 instead of relaying the 413. So the
        rest of the content is read and discarded, up to ``max_discard_bytes`` and
        ``discard_timeout``; content announced as larger, content that keeps coming past the
        bound (an endless chunked body) and a client still waiting for 100 Continue (which
        will send nothing) are cut off: the connection closes at once.
        """
        config = self._config
        remaining = None if body.length is None else body.length - body.received
        if self._h11.they_are_waiting_for_100_continue or (
            remaining is not None and remaining > config.max_discard_bytes
        ):
            self._cut_off = True
            return
        budget = config.max_discard_bytes
        deadline = self._loop.time() + config.discard_timeout
        self._flush()
        try:
            while budget >= 0:
                event = self._pull()
                if isinstance(event, h11.EndOfMessage):
                    return
                if isinstance(event, h11.Data):
                    budget -= len(event.data)
                    continue
                if event is not h11.NEED_DATA or self._eof_fed:
                    return  # the peer ended mid-content: nothing more to read
                await self._wait_input(deadline)
        except (TimeoutError, h11.RemoteProtocolError):
            pass
        self._cut_off = True

    def _head_fields(self, response: Response) -> list[tuple[bytes, bytes]]:
        headers = [(n.encode("latin-1"), v.encode("latin-1")) for n, v in response.headers]
        headers.append((b"Date", format_http_date(time.time()).encode("ascii")))
        headers.append((b"Server", SERVER_NAME.encode("ascii")))
        if self._shutting_down:
            headers.append((b"Connection", b"close"))
        return headers

    @staticmethod
    def _head(response: Response, headers: list[tuple[bytes, bytes]]) -> h11.Response:
        phrase = reason(response.status).encode("ascii")
        return h11.Response(status_code=response.status, headers=headers, reason=phrase)

    async def _send(self, response: Response, head: h11.Request | None) -> None:
        headers = self._head_fields(response)
        body = response.body
        if isinstance(body, bytes):
            if response.header("Content-Length") is None and response.status not in _NO_CONTENT:
                headers.append((b"Content-Length", str(len(body)).encode("ascii")))
            self._write(self._head(response, headers))
            if (
                body
                and response.status not in _NO_CONTENT
                and (head is None or head.method != b"HEAD")
            ):
                self._write(h11.Data(data=body))
            self._write(h11.EndOfMessage())
            self._schedule_flush()
            await self._drain()
            return
        chunked = head is not None and head.http_version == b"1.1"
        if not chunked:
            headers = [(n, v) for n, v in headers if n.lower() != b"trailer"]
        self._write(self._head(response, headers))
        # The head leaves at the end of this loop step, before the first part is even run.
        self._schedule_flush()
        try:
            async for chunk in body:
                if chunk:
                    # Parts ready in the same loop step share a write; a part that took time
                    # goes out the moment the next one starts waiting (MB-PROC-4).
                    self._write(h11.Data(data=chunk))
                    self._schedule_flush()
                    await self._drain()
        finally:
            aclose = getattr(body, "aclose", None)
            if aclose is not None:
                await aclose()
        trailers = [(n.encode("latin-1"), v.encode("latin-1")) for n, v in response.trailers]
        self._write(h11.EndOfMessage(headers=trailers if chunked else []))
        self._flush()

    async def _send_simple(self, response: Response) -> None:
        """Answer without a parsed request (408 and 4xx refusals), then close."""
        if self._h11.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
            return
        response.headers.append(("Connection", "close"))
        with contextlib.suppress(h11.LocalProtocolError):
            await self._send(response, None)

    async def _refuse_head(self, exc: h11.RemoteProtocolError) -> None:
        status = exc.error_status_hint
        if status == 431:
            response = problem(
                431,
                "header-fields-too-large",
                f"the request header section exceeds "
                f"{self._config.max_request_header_bytes} octets",
                max_bytes=self._config.max_request_header_bytes,
            )
        else:
            response = problem(status, "malformed-request", f"unparseable request: {exc}")
        await self._send_simple(response)

    # -- output ---------------------------------------------------------------------------

    def _write(self, event: h11.Event) -> None:
        limit = self._config.coalesce_max_bytes
        for piece in self._h11.send_with_data_passthrough(event) or ():
            if len(piece) >= limit:
                # A large piece (a body h11 passed through) goes to the transport as it is,
                # after what is pending: copying it into the buffer would hold it twice.
                self._flush()
                transport = self._transport
                if transport is not None and not transport.is_closing():
                    transport.write(piece)
            else:
                self._outbuf += piece
        if len(self._outbuf) >= limit:
            self._flush()

    def _schedule_flush(self) -> None:
        if self._flush_handle is None:
            self._flush_handle = self._loop.call_soon(self._flush)

    def _flush(self) -> None:
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        if not self._outbuf:
            return
        data, self._outbuf = self._outbuf, bytearray()
        transport = self._transport
        if transport is not None and not transport.is_closing():
            transport.write(data)

    async def _drain(self) -> None:
        """Wait while the transport's buffer is over its high-water mark."""
        if self._lost:
            raise _Closed
        if self._writing_paused:
            self._flush()
            self._drain_waiter = self._loop.create_future()
            try:
                await self._drain_waiter
            finally:
                self._drain_waiter = None
            if self._lost:
                raise _Closed
