"""A mutating relay: an HTTP/1.1 front for a real server that plants one named bug.

Theory of operation: the suite must prove it can fail, without depending on any server's
internals. The relay listens on loopback (asyncio + h11 on the client side), forwards each
request to the upstream server, and answers the client with the upstream response, after the
active mutation (see run.mutations) has had the chance to change the request on the way in
and the response on the way out. With no mutation it is transparent, which the self-test
verifies before planting anything.

A mutation that models a server keeping state per connection by mistake reads and writes
`RelayRequest.connection`, one dict per client connection, shared by the requests on it.

Some bugs are not in the bytes but in time and order, so a mutation also carries a
`Behaviour`, how the relay moves messages:

    stream            (default) an answer's content is written to the client as it arrives
                      from upstream, re-framed chunked; off, the relay holds the whole answer
                      first, as a server that builds its response in memory does (MB-PROC-4)
    hold              a predicate on the request as the client sent it: the relay holds the
                      whole answer to the requests it matches and streams the rest, as a server
                      that builds its response in memory on one path only does (MB-PROC-4)
    completion_order  pipelined requests on one client connection are each forwarded at once
                      over their own upstream connection and answered in the order they
                      complete, not the order sent (MB-PIPE-1)
    side_by_side      the same, but the answers are written in the order sent: requests that
                      reach the server together and run side by side, a write behind a batch
                      before the batch's own (MB-PIPE-1); with `refusal_clock_s`, a request
                      the relay cannot read is refused that long after it is read, the answers
                      ahead of it cut if not yet written (MB-PIPE-1)
    probe_eats_octet  while a POST is answered, the first octet the client sends is read and
                      dropped: a request written then loses its first octet (MB-PIPE-1)
    queue_when_busy   a batch the upstream refuses as busy (503 with Retry-After) is held and
                      sent again until it is taken, so no client ever sees the refusal: a
                      front end that queues the excess instead of refusing it (MB-LIMIT-6)
    receive_budget    the relay counts the POSTs whose content it is receiving, and answers one
                      whose head arrives while that many are received 503 with Retry-After,
                      unforwarded: a budget that lets a batch go once it is received (MB-LIMIT-6)
    refuse            a predicate on each request read whole (it may count the requests it
                      admits): a request it matches is answered 503 with Retry-After and a
                      problem document, unforwarded, as a server's own budget of batches in
                      flight refuses one (MB-LIMIT-6)
    compress          a function of the request naming a content coding (gzip, deflate): the
                      streamed answer to it goes out in that coding, the compressor flushed
                      after each piece of content, or with `compress_flush` off only at the
                      end, as a server that never flushes its compressor does (MB-PROC-4)
    head_first        a predicate on the request: the answer to a request it matches goes
                      out head first, as it arrives, and its content is held whole for the
                      mutation's edit and written after it (the status and header fields the
                      mutation sets then come too late), as a server that sends its response
                      head before it has written any part does, whatever its parts then hold
    interim_continue  a request whose client waits for a 100 (Continue) (`Expect:
                      100-continue` on HTTP/1.1) gets one as soon as its head is read, before
                      the relay reads its content, as a server that sends the interim answer
                      itself does (without it the relay sends none, and such a client sends
                      its content when its own wait ends)
    client_left       a function called once for each way the client of a streamed answer
                      leaves before the answer ended (`CLIENT_ENDED`: its end of stream came,
                      a half-close or the FIN of a close; `CONNECTION_LOST`: a write to it
                      failed, or the connection was reset), with the request, the content
                      written to the client by then and how it left; the answer waits for it.
                      A plant uses it to model a server that acts on a client going away, and
                      acts on its store through `RelayRequest.upstream`
    read_ahead        before answering a request the relay reads what else the client has
                      sent (waiting `READ_AHEAD_S`), as an HTTP stack that buffers the next
                      requests on the connection does, and keeps every octet read on the
                      connection in its dict under `TAP`, for a mutation that models a server
                      reading a request's head from such a tap of the connection
    run_early         a function called with the request as received so far (its head and
                      the content that has arrived, the chunked coding removed) each time more
                      of its content arrives, until it names a request to run: that request
                      goes to the upstream at once, on a connection of its own, while the
                      client is still sending, and its answer is the answer to the whole
                      request once that has arrived (the whole request is not forwarded), as a
                      server that takes a request for received before its content is whole
                      does
    reader_per_request  each request is read with a reader made anew after the answer before
                      it, so the octets of requests pipelined behind one that arrived in the
                      same read as its end are lost, and those requests are never answered, as
                      a server that makes a buffered reader for each request does
    reads_empty_lines   an empty line before a request line is read as a request line and
                      refused 400, instead of left out (RFC 9112 §2.2, MB-PIPE-4); with
                      `reads_empty_lines_when`, only after answers whose connection state
                      the predicate accepts
    empty_line_budget   that many empty lines before request lines are left out over a
                      connection's whole life, and the next is read as a request line, as a
                      reader that counts them per connection, not per request (MB-PIPE-4)
    peeks_chunk_ends    the CRLF after a chunk's data is looked for in what the read brought,
                      so chunked content whose read ends right after a chunk's data is refused
                      400, as a chunk reader that peeks at its buffer does (MB-INTER-5)
    expectation_refused_over  a request waiting for 100 (Continue) that declares more than
                      this many octets is answered 417 as soon as its head is read, the size
                      taken for an expectation the server cannot meet (MB-STATUS-3)
    stall             a predicate on each request read whole: the relay never answers a
                      request it matches, as a server whose handler waits on a hold nobody
                      gives back (MB-STATUS-1)

A mutation that edits the response needs all of it, so the relay holds the answer whenever
one does; such answers, and answers without content (HEAD, 1xx, 204, 304), are re-framed with
Content-Length. The upstream's trailers are dropped either way; the multipart body inside is
exactly what the upstream (or the mutation) produced. A mutation that plants trailer fields of
its own names them as header fields with `TRAILER_PREFIX`; such an answer is written chunked,
with those fields in its trailer section (RFC 9112 §7.1.2).

The relay runs its own event loop in a daemon thread so that synchronous checks can call it;
`start` returns its base URL and `stop` closes the listener and the loop. Held answers are read
by the suite's raw-socket client on worker threads of the relay's own pool
(`UPSTREAM_WORKERS`), so that as many batches as a check holds at once reach the upstream at
once, whatever the size of asyncio's default pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import h11

from mixbatch_conformance.transport.http import Response, exchange, split_url

__all__ = [
    "CLIENT_ENDED",
    "CONNECTION_LOST",
    "STREAMING",
    "TAP",
    "TRAILER_PREFIX",
    "Behaviour",
    "MutationLike",
    "Relay",
    "RelayRequest",
    "RelayResponse",
]

#: The wbits of `zlib.compressobj` for each content coding the relay can stream an answer in.
_COMPRESS_WBITS = {"gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}
#: The prefix of a header field a mutation means as a trailer field (the rest is its name).
TRAILER_PREFIX = "x-mb-planted-trailer-"
HOP_FIELDS = {"connection", "keep-alive", "transfer-encoding", "content-length", "trailer", "te"}
#: The key of `RelayRequest.connection` under which a `read_ahead` relay keeps every octet
#: read from the client connection.
TAP = "tap"
#: Seconds a `read_ahead` relay waits for more octets from the client before answering.
READ_AHEAD_S = 0.05
#: Seconds the relay waits for the upstream to answer (or to send the next octets of an answer).
UPSTREAM_TIMEOUT_S = 30.0
#: Upstream exchanges the relay runs at once: more than any check holds in flight (the batch
#: budget check holds the published max_batches_in_flight plus one).
UPSTREAM_WORKERS = 64
#: Octets read from a socket at a time.
READ_SIZE = 65536
#: How long a queueing relay keeps resending a batch refused as busy, and the pause between
#: tries: long enough for every batch a check holds to finish, short enough to end a run.
QUEUE_FOR_S = 10.0
#: The longest a stalled request (`Behaviour.stall`) is left unanswered: past any wait of the
#: suite's, after which the relay ends the connection, so that no stall outlives its check.
STALL_FOR_S = 60.0
QUEUE_PAUSE_S = 0.05
#: How a client left before a streamed answer ended (`Behaviour.client_left`): its end of
#: stream arrived (a half-close, or the FIN of a close), or the connection was lost under a
#: write (a reset, or a write to a closed connection).
CLIENT_ENDED = "end of stream"
CONNECTION_LOST = "connection lost"


@dataclass(frozen=True)
class Behaviour:
    """How the relay moves messages while a mutation is planted, apart from what it edits."""

    #: Write an answer's content as it arrives (False: hold the whole answer first).
    stream: bool = True
    #: Forward pipelined requests at once and answer them in the order they complete.
    completion_order: bool = False
    #: Forward pipelined requests at once and answer them in the order sent.
    side_by_side: bool = False
    #: While answering a POST, take the first octet the client sends after it and drop it, as
    #: a server that probes whether its client has gone with a read where a peek was meant.
    probe_eats_octet: bool = False
    #: With `side_by_side`: refuse a request the relay cannot read (400, the connection ended)
    #: this many seconds after reading it, whether or not the answers ahead are written.
    refusal_clock_s: float | None = None
    #: Hold a batch the upstream refused as busy (503 with Retry-After) and send it again.
    queue_when_busy: bool = False
    #: Refuse a POST whose head arrives while this many are being received (None: never).
    receive_budget: int | None = None
    #: Called once on each request read whole: True answers it 503 with Retry-After, unforwarded.
    refuse: Callable[[RelayRequest], bool] | None = None
    #: Hold the whole answer to a request it matches (read as the client sent it).
    hold: Callable[[RelayRequest], bool] | None = None
    #: The content coding ("gzip" or "deflate") to stream a request's answer in (None: as the
    #: upstream sent it), and whether the compressor is flushed after each piece of content
    #: (False: what it holds comes out only with the end of the answer).
    compress: Callable[[RelayRequest], str | None] | None = None
    compress_flush: bool = True
    #: Read what else the client sent before answering, and tap the connection (`TAP`).
    read_ahead: bool = False
    #: Answer a client waiting for 100 (Continue) with one once the request's head is read.
    interim_continue: bool = False
    #: Write the head of the answer to a request it matches as it arrives, and hold the
    #: content whole for the mutation's edit.
    head_first: Callable[[RelayRequest], bool] | None = None
    #: Called once for each way (`CLIENT_ENDED`, `CONNECTION_LOST`) the client of a streamed
    #: answer leaves before the answer ended, with the request, the content written to the
    #: client by then and how it left; run on a worker thread the answer waits for.
    client_left: Callable[[RelayRequest, bytes, str], None] | None = None
    #: Called with the request as received so far each time more of its content arrives,
    #: until it returns a request: that one is sent to the upstream at once, and its answer
    #: answers the whole request once it has arrived.
    run_early: Callable[[RelayRequest], RelayRequest | None] | None = None
    #: Read each request with a reader of its own, made anew after each answer: octets of
    #: the next requests that came in the same read as the end of one are lost with its reader.
    reader_per_request: bool = False
    #: Take an empty line before a request line for a request line (refused 400, as h11 reads
    #: it) instead of leaving it out as RFC 9112 §2.2 recommends.
    reads_empty_lines: bool = False
    #: Leave out the empty lines before a request line only when they came in the read that
    #: ended the request before; take one a later read brings for a request line (refused
    #: 400), as a reader that skips only the empty lines it holds when it starts a request.
    skips_held_empty_lines_only: bool = False
    #: A predicate on the connection's state (`RelayRequest.connection`) after each answer:
    #: when it holds, an empty line the next request line comes behind in the same read is
    #: taken for a request line, as `reads_empty_lines` takes every one.
    reads_empty_lines_when: Callable[[dict[str, object]], bool] | None = None
    #: Leave out this many empty lines before request lines over a connection's whole life,
    #: and take the next one for a request line (refused 400), as a reader that bounds the
    #: empty lines it skips but counts them per connection, not per request.
    empty_line_budget: int | None = None
    #: Read the CRLF after each chunk's data from what a read brought, not from the
    #: connection: chunked content whose read ends right after a chunk's data is refused 400.
    peeks_chunk_ends: bool = False
    #: Answer a request whose Content-Length declares more than this many octets 413 (a limit
    #: problem naming max_batch_bytes) as soon as its head is read, unforwarded, and end the
    #: connection without Connection: close (None: read every request whole).
    declared_refusal_unmarked: int | None = None
    #: Answer a request waiting for 100 (Continue) whose Content-Length declares more than
    #: this many octets 417 (Expectation Failed) as soon as its head is read, unforwarded, and
    #: end the connection (None: answer such requests as any other).
    expectation_refused_over: int | None = None
    #: A predicate on each request read whole: a request it matches is never answered (the
    #: relay writes nothing and ends the connection once the client leaves, or after
    #: `STALL_FOR_S`), as a server whose handler waits on a hold nobody gives back.
    stall: Callable[[RelayRequest], bool] | None = None
    #: Rewrites each read of the client's octets before the relay's HTTP reader sees them: for
    #: a plant that models a server taking octets h11 refuses.
    client_octets: Callable[[bytes], bytes] | None = None


#: The relay's own way: answers streamed, pipelined answers in order, busy refusals passed on.
STREAMING = Behaviour()


@dataclass
class RelayRequest:
    """A request as the relay forwards it (mutable by a mutation)."""

    method: str
    target: str
    headers: list[tuple[str, str]]
    body: bytes
    #: The length of each chunk of a chunked request as the client framed it (empty otherwise),
    #: so that a plant can model a server that misreads chunk framing.
    chunks: tuple[int, ...] = ()
    #: What a mutation keeps for the client connection this request came on (one per connection).
    connection: dict[str, object] = field(default_factory=dict)
    #: Refused by the relay's `receive_budget` or `refuse`: answered 503 and never forwarded.
    busy: bool = False
    #: The trailer fields of a chunked request as the client sent them (empty otherwise); the
    #: relay does not forward them.
    trailers: list[tuple[str, str]] = field(default_factory=list)
    #: The HTTP version of the client's request line ("1.1", "1.0"); the relay forwards
    #: every request as HTTP/1.1, so a plant that models a server writing something by the
    #: request's version reads it here.
    version: str = "1.1"
    #: Sends a request of a plant's own (its octets as written) to the upstream on a
    #: connection of its own and returns the answer (None when none came), for a plant that
    #: models a server acting on its store beside the request it relays. Blocking: call it
    #: from `Behaviour.client_left`, or briefly from a request hook.
    upstream: Callable[[bytes], Response | None] | None = field(
        default=None, repr=False, compare=False
    )
    #: The upstream's answer to the request a `run_early` behaviour sent while this one was
    #: still arriving (None: the request is forwarded once whole, as usual).
    early: asyncio.Future[Response | None] | None = field(default=None, repr=False, compare=False)
    #: Seconds from the request's head to the end of its content, as the relay received them.
    arrival_s: float = 0.0

    def get(self, name: str) -> str | None:
        for n, v in self.headers:
            if n.lower() == name.lower():
                return v
        return None

    def to_bytes(self) -> bytes:
        lines = [f"{self.method} {self.target} HTTP/1.1"]
        lines += [f"{n}: {v}" for n, v in self.headers if n.lower() not in HOP_FIELDS]
        if self.body or self.method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(self.body)}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + self.body


@dataclass
class RelayResponse:
    """A response as the relay sends it back (mutable by a mutation)."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes
    #: Close the client connection after this answer (Connection: close), unread requests
    #: pipelined behind it left unanswered.
    close: bool = False
    #: Close the client connection after this answer without saying so (no Connection:
    #: close), unread requests pipelined behind it left unanswered.
    close_unmarked: bool = False
    #: Rewrites the answer's octets as framed (head, content, any trailer section) before
    #: they go out: for a mutation that breaks the HTTP/1.1 syntax h11 would not write.
    wire: Callable[[bytes], bytes] | None = None

    @classmethod
    def from_upstream(cls, resp: Response) -> RelayResponse:
        headers = [(n, v) for n, v in resp.headers if n.lower() not in HOP_FIELDS]
        return cls(resp.status, headers, resp.body)

    def get(self, name: str) -> str | None:
        for n, v in self.headers:
            if n.lower() == name.lower():
                return v
        return None

    def set(self, name: str, value: str | None) -> None:
        self.headers = [(n, v) for n, v in self.headers if n.lower() != name.lower()]
        if value is not None:
            self.headers.append((name, value))


class MutationLike:
    """The hooks a mutation implements (see run.mutations.Mutation)."""

    #: How the relay moves messages while this mutation is planted.
    behaviour: Behaviour = STREAMING

    @property
    def edits_response(self) -> bool:
        """Whether `response` changes answers (then the relay holds each answer whole)."""
        return True

    def request(self, req: RelayRequest) -> None:
        """Change the request before it is forwarded."""

    def response(self, req: RelayRequest, resp: RelayResponse) -> None:
        """Change the response before it is sent back."""

    def unreadable(self) -> int | None:
        """Told that the relay refuses a request it could not read: the status of that
        refusal when it is not the relay's own 400, else None."""
        return None


def _wire(headers: list[tuple[str, str]]) -> list[tuple[bytes, bytes]]:
    """Fields as octets: the relay reads them as latin-1, so obs-text an answer carries (RFC
    9110 §5.5) goes back out as the octets that came in (h11 encodes a str as ASCII only)."""
    return [(n.encode("latin-1"), v.encode("latin-1")) for n, v in headers]


def _no_content(req: RelayRequest, status: int) -> bool:
    return status in (204, 304) or req.method == "HEAD" or status < 200


def _tap(state: dict[str, object], data: bytes) -> None:
    """Add `data`, read from the client connection, to that connection's tap (`TAP`)."""
    kept = state.get(TAP, b"")
    state[TAP] = (kept if isinstance(kept, bytes) else b"") + data


def _busy(resp: Response | None) -> bool:
    return resp is not None and resp.status == 503 and resp.get("Retry-After") is not None


class Relay:
    """A loopback relay in front of `upstream`, applying `mutation` (None: transparent)."""

    def __init__(self, upstream: str, mutation: MutationLike | None = None) -> None:
        self.upstream_host, self.upstream_port, _ = split_url(upstream)
        self.mutation = mutation
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._thread: threading.Thread | None = None
        self._pool: ThreadPoolExecutor | None = None
        self.url = ""
        #: POSTs whose content is being received (counted under a `receive_budget` only).
        self._receiving = 0

    def start(self) -> str:
        ready = threading.Event()
        self._pool = ThreadPoolExecutor(UPSTREAM_WORKERS, thread_name_prefix="mixbatch-relay-up")

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            self._server = loop.run_until_complete(
                asyncio.start_server(self._serve, "127.0.0.1", 0)
            )
            port = self._server.sockets[0].getsockname()[1]
            self.url = f"http://127.0.0.1:{port}"
            ready.set()
            loop.run_forever()
            self._server.close()
            loop.run_until_complete(self._server.wait_closed())
            loop.close()

        self._thread = threading.Thread(target=run, name="mixbatch-relay", daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("the relay did not start")
        return self.url

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(10)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    # -- the client side -----------------------------------------------------------------------
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        mutation = self.mutation
        try:
            if mutation is not None and (
                mutation.behaviour.completion_order or mutation.behaviour.side_by_side
            ):
                await self._serve_unordered(mutation, reader, writer)
                return
            conn = h11.Connection(h11.SERVER)
            state: dict[str, object] = {}
            while True:
                req = await self._read_request(conn, reader, writer, state)
                if req is None:
                    break
                eat = None
                probing = mutation is not None and mutation.behaviour.probe_eats_octet
                if probing and req.method == "POST" and not conn.trailing_data[0]:
                    # The probe: a read of one octet where a peek was meant.
                    eat = asyncio.create_task(reader.read(1))
                ends = await self._answer(conn, req, writer, self.mutation, reader)
                if eat is not None and not eat.done():
                    eat.cancel()
                if ends or conn.our_state is h11.MUST_CLOSE or conn.their_state is h11.MUST_CLOSE:
                    break
                if mutation is not None and mutation.behaviour.reader_per_request:
                    conn = h11.Connection(h11.SERVER)
                elif mutation is not None and (
                    mutation.behaviour.reads_empty_lines
                    or (
                        mutation.behaviour.reads_empty_lines_when is not None
                        and mutation.behaviour.reads_empty_lines_when(state)
                    )
                ):
                    conn.start_next_cycle()
                elif mutation is not None and mutation.behaviour.empty_line_budget is not None:
                    conn = _next_cycle_within(conn, state, mutation.behaviour.empty_line_budget)
                else:
                    conn = _next_cycle(conn)
        except h11.RemoteProtocolError:
            # A request the relay cannot read (a chunk-size line it cannot parse, say) is
            # refused 400 and the connection closed, as the server behind it refuses one
            # (spec 10.1), never left without an answer.
            status = mutation.unreadable() if mutation is not None else None
            with contextlib.suppress(h11.ProtocolError, ConnectionError):
                writer.write(_unreadable(conn, status or 400))
                await writer.drain()
        except (h11.ProtocolError, ConnectionError, TimeoutError):
            pass
        finally:
            writer.close()

    async def _serve_unordered(
        self, mutation: MutationLike, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """Every request read is forwarded at once; each answer is written when it is ready,
        or, side by side, once the answers to the requests before it are written."""
        pending: set[asyncio.Task[None]] = set()
        ahead: asyncio.Task[None] | None = None
        lock = asyncio.Lock()
        leftover, closed = b"", False
        state: dict[str, object] = {}
        while not closed:
            # h11 reads one request per cycle and pauses at the next; a fresh connection
            # object per request takes the octets the last one did not use.
            conn = h11.Connection(h11.SERVER)
            # Empty lines before a request line are no request (RFC 9112 §2.2).
            if rest := leftover.lstrip(b"\r\n"):
                conn.receive_data(rest)
            clock = mutation.behaviour.refusal_clock_s
            try:
                req = await self._read_request(conn, reader, writer, state)
            except h11.RemoteProtocolError:
                if clock is None:
                    raise
                # The refusal's clock runs from the moment the request is read, not from the
                # moment the answers ahead of it are written: those not done by then are lost.
                if pending:
                    await asyncio.wait(pending, timeout=clock)
                for task in pending:
                    task.cancel()
                async with lock:
                    writer.write(_unreadable(conn, 400))
                    await writer.drain()
                return
            if req is None:
                break
            leftover, closed = conn.trailing_data
            after = ahead if mutation.behaviour.side_by_side else None
            task = asyncio.create_task(self._answer_when_ready(conn, req, writer, lock, after))
            pending.add(task)
            ahead = task
            closed = closed or conn.their_state is h11.MUST_CLOSE
        if pending:
            await asyncio.wait(pending)

    async def _answer_when_ready(
        self,
        conn: h11.Connection,
        req: RelayRequest,
        writer: asyncio.StreamWriter,
        lock: asyncio.Lock,
        after: asyncio.Task[None] | None = None,
    ) -> None:
        resp = await self._forward(req, self.mutation)
        if after is not None:
            await asyncio.wait([after])
        async with lock:
            writer.write(self._frame(conn, req, resp))
            await writer.drain()

    async def _read_request(
        self,
        conn: h11.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        state: dict[str, object],
    ) -> RelayRequest | None:
        head: h11.Request | None = None
        head_at = 0.0
        body = bytearray()
        chunks: list[int] = []
        chunk_start = 0
        budget = self.mutation.behaviour.receive_budget if self.mutation else None
        held = busy = False
        tap = self.mutation is not None and self.mutation.behaviour.read_ahead
        interim = self.mutation is not None and self.mutation.behaviour.interim_continue
        refuse = self.mutation.behaviour.refuse if self.mutation else None
        run_early = self.mutation.behaviour.run_early if self.mutation else None
        empty_lines_out = not (
            self.mutation
            and (
                self.mutation.behaviour.reads_empty_lines
                or self.mutation.behaviour.skips_held_empty_lines_only
            )
        )
        peeks = self.mutation is not None and self.mutation.behaviour.peeks_chunk_ends
        rewrite = self.mutation.behaviour.client_octets if self.mutation else None
        state.pop(_READ_SO_FAR, None)
        early: asyncio.Future[Response | None] | None = None
        try:
            while True:
                event = conn.next_event()
                if event is h11.NEED_DATA:
                    data = await reader.read(READ_SIZE)
                    if rewrite is not None:
                        data = rewrite(data)
                    idle = conn.their_state is h11.IDLE and not conn.trailing_data[0]
                    if data and empty_lines_out and idle:
                        # Empty lines before a request line are no request (RFC 9112 §2.2).
                        data = _without_empty_lines(data, state, self.mutation)
                        if not data:
                            continue
                    conn.receive_data(data)
                    if tap:
                        _tap(state, data)
                    if peeks and _read_ends_after_chunk_data(state, data):
                        raise h11.RemoteProtocolError("no CRLF after a chunk's data", 400)
                    if not data and head is None:
                        return None
                    continue
                if event is h11.PAUSED:
                    return None
                if isinstance(event, h11.Request):
                    head = event
                    head_at = time.monotonic()
                    over = (
                        self.mutation.behaviour.declared_refusal_unmarked if self.mutation else None
                    )
                    if over is not None and _declared_length(event) > over:
                        writer.write(_declared_refusal(over))
                        await writer.drain()
                        return None
                    expect_over = (
                        self.mutation.behaviour.expectation_refused_over if self.mutation else None
                    )
                    if (
                        expect_over is not None
                        and conn.they_are_waiting_for_100_continue
                        and _declared_length(event) > expect_over
                    ):
                        writer.write(_declared_refusal(expect_over, 417))
                        await writer.drain()
                        return None
                    if interim and conn.they_are_waiting_for_100_continue:
                        reason = b"Continue"
                        continued = h11.InformationalResponse(
                            status_code=100, headers=[], reason=reason
                        )
                        writer.write(conn.send(continued) or b"")
                        await writer.drain()
                    if budget is not None and event.method == b"POST":
                        busy = self._receiving >= budget
                        held = not busy
                        self._receiving += int(held)
                elif isinstance(event, h11.Data):
                    body += event.data
                    if event.chunk_end:
                        chunks.append(len(body) - chunk_start)
                        chunk_start = len(body)
                    if run_early is not None and early is None and head is not None:
                        early = self._run_early(run_early, head, bytes(body), state)
                elif isinstance(event, h11.EndOfMessage):
                    assert head is not None
                    if tap:
                        await self._read_ahead(conn, reader, state)
                    headers = [
                        (n.decode("latin-1"), v.decode("latin-1"))
                        for n, v in head.headers.raw_items()
                    ]
                    req = RelayRequest(
                        head.method.decode("ascii"),
                        head.target.decode("latin-1"),
                        headers,
                        bytes(body),
                        tuple(chunks),
                        state,
                        busy,
                        [
                            (n.decode("latin-1"), v.decode("latin-1"))
                            for n, v in event.headers.raw_items()
                        ],
                        head.http_version.decode("ascii"),
                    )
                    req.upstream = self._upstream_exchange
                    req.early = early
                    req.arrival_s = time.monotonic() - head_at
                    if refuse is not None and not req.busy:
                        req.busy = refuse(req)
                    return req
                elif isinstance(event, h11.ConnectionClosed):
                    return None
        finally:
            self._receiving -= int(held)

    def _run_early(
        self,
        run_early: Callable[[RelayRequest], RelayRequest | None],
        head: h11.Request,
        content: bytes,
        state: dict[str, object],
    ) -> asyncio.Future[Response | None] | None:
        """Ask `run_early` about the request received so far (`head` and `content`); when it
        names a request to run, send that one to the upstream now, and return its answer."""
        headers = [(n.decode("latin-1"), v.decode("latin-1")) for n, v in head.headers.raw_items()]
        so_far = RelayRequest(
            head.method.decode("ascii"),
            head.target.decode("latin-1"),
            headers,
            content,
            connection=state,
            version=head.http_version.decode("ascii"),
        )
        chosen = run_early(so_far)
        if chosen is None:
            return None
        loop = asyncio.get_running_loop()
        return loop.run_in_executor(self._pool, self._upstream_exchange, chosen.to_bytes())

    @staticmethod
    async def _read_ahead(
        conn: h11.Connection, reader: asyncio.StreamReader, state: dict[str, object]
    ) -> None:
        """Take in what the client has sent behind the request just read (what arrives within
        `READ_AHEAD_S`), for h11 to read next and into the connection's tap."""
        try:
            data = await asyncio.wait_for(reader.read(READ_SIZE), READ_AHEAD_S)
        except TimeoutError:
            return
        if data:
            # The end of the stream is left for the next read to find.
            conn.receive_data(data)
            _tap(state, data)

    async def _answer(
        self,
        conn: h11.Connection,
        req: RelayRequest,
        writer: asyncio.StreamWriter,
        mutation: MutationLike | None,
        reader: asyncio.StreamReader | None = None,
    ) -> bool:
        """Write the answer to `req`; whether the connection ends after it unmarked. `reader`
        is the client connection's, watched for its end while a `client_left` answer streams."""
        stall = mutation.behaviour.stall if mutation is not None else None
        if stall is not None and stall(req):
            await _until_client_leaves(reader)
            return True
        if req.busy:
            fields = [("Content-Type", "application/problem+json"), ("Retry-After", "1")]
            body = (
                b'{"type": "https://mixbatch.dev/problems/busy",'
                b' "title": "Service Unavailable", "status": 503}'
            )
            refusal = RelayResponse(503, fields, body)
            writer.write(self._frame(conn, req, refusal))
            await writer.drain()
            return False
        if req.early is not None:
            answer = await req.early
            if answer is None:
                early = RelayResponse(
                    502, [("Content-Type", "text/plain")], b"relay: upstream failed"
                )
            else:
                early = RelayResponse.from_upstream(answer)
            writer.write(self._frame(conn, req, early))
            await writer.drain()
            return False
        if mutation is not None and (
            mutation.behaviour.head_first is not None and mutation.behaviour.head_first(req)
        ):
            mutation.request(req)
            await self._stream(conn, req, writer, edit=mutation)
            return False
        streams = mutation is None or (
            mutation.behaviour.stream
            and not mutation.behaviour.queue_when_busy
            and not mutation.edits_response
            and not (mutation.behaviour.hold is not None and mutation.behaviour.hold(req))
        )
        if streams:
            coding, flush = None, True
            if mutation is not None:
                compress = mutation.behaviour.compress
                coding = compress(req) if compress is not None else None
                flush = mutation.behaviour.compress_flush
                mutation.request(req)
            left = mutation.behaviour.client_left if mutation is not None else None
            watch = (reader, left) if reader is not None and left is not None else None
            await self._stream(conn, req, writer, coding, flush, watch=watch)
            return False
        resp = await self._forward(req, mutation)
        framed = self._frame(conn, req, resp)
        writer.write(resp.wire(framed) if resp.wire is not None else framed)
        await writer.drain()
        return resp.close_unmarked

    # -- the upstream side ---------------------------------------------------------------------
    def _upstream_exchange(self, request: bytes) -> Response | None:
        """A plant's own request to the upstream, on a connection of its own."""
        return exchange(
            self.upstream_host, self.upstream_port, request, UPSTREAM_TIMEOUT_S
        ).response

    async def _forward(self, req: RelayRequest, mutation: MutationLike | None) -> RelayResponse:
        """The whole upstream answer to `req`, after the mutation's edits."""
        if mutation is not None:
            mutation.request(req)
        loop = asyncio.get_running_loop()
        queue_until = loop.time() + QUEUE_FOR_S
        while True:
            ex = await loop.run_in_executor(
                self._pool,
                exchange,
                self.upstream_host,
                self.upstream_port,
                req.to_bytes(),
                UPSTREAM_TIMEOUT_S,
            )
            queue = mutation is not None and mutation.behaviour.queue_when_busy
            if not (queue and _busy(ex.response) and loop.time() < queue_until):
                break
            await asyncio.sleep(QUEUE_PAUSE_S)
        if ex.response is None:
            return RelayResponse(502, [("Content-Type", "text/plain")], b"relay: upstream failed")
        resp = RelayResponse.from_upstream(ex.response)
        if mutation is not None:
            mutation.response(req, resp)
        return resp

    async def _stream(
        self,
        conn: h11.Connection,
        req: RelayRequest,
        writer: asyncio.StreamWriter,
        coding: str | None = None,
        flush: bool = True,
        edit: MutationLike | None = None,
        watch: tuple[asyncio.StreamReader, Callable[[RelayRequest, bytes, str], None]]
        | None = None,
    ) -> None:
        """Forward `req` and write its answer's content to the client as it arrives, in the
        content `coding` when one is named (the compressor flushed after each piece when
        `flush`); with `edit`, the head alone as it arrives, the content once `edit` has
        changed it whole. With `watch` (the client connection's reader and a `client_left`
        function), the client is looked at after each piece written, and the function called
        once for each way it is found to have left before the answer ended."""
        compressor = zlib.compressobj(wbits=_COMPRESS_WBITS[coding]) if coding is not None else None
        up_reader, up_writer = await asyncio.open_connection(self.upstream_host, self.upstream_port)
        upstream = h11.Connection(h11.CLIENT)
        # The request goes out as the relay wrote it; h11 only has to know it was sent, to
        # read the answer (HEAD answers have no content).
        upstream.send(h11.Request(method=req.method, target="/", headers=[("Host", "relay")]))
        upstream.send(h11.EndOfMessage())
        started = False
        held: RelayResponse | None = None
        # The content written to the client, and the ways it was found to have left.
        sent = bytearray()
        left: set[str] = set()

        async def look() -> None:
            if watch is None:
                return
            reader, hook = watch
            ways = [CONNECTION_LOST] if writer.transport.is_closing() else []
            ways += [CLIENT_ENDED] if reader.at_eof() else []
            for how in ways:
                if how not in left:
                    left.add(how)
                    loop = asyncio.get_running_loop()
                    await loop.run_in_executor(self._pool, hook, req, bytes(sent), how)

        try:
            up_writer.write(req.to_bytes())
            # An early answer (413) may come before the content was read: read it anyway.
            with contextlib.suppress(ConnectionError):
                await up_writer.drain()
            while True:
                event = upstream.next_event()
                if event is h11.NEED_DATA:
                    data = await asyncio.wait_for(up_reader.read(READ_SIZE), UPSTREAM_TIMEOUT_S)
                    upstream.receive_data(data)
                    continue
                if isinstance(event, h11.InformationalResponse):
                    continue
                if isinstance(event, h11.Response):
                    headers = [
                        (n.decode("latin-1"), v.decode("latin-1"))
                        for n, v in event.headers.raw_items()
                        if n.decode("latin-1").lower() not in HOP_FIELDS
                    ]
                    if _no_content(req, event.status_code):
                        resp = RelayResponse(event.status_code, headers, b"")
                        writer.write(self._frame(conn, req, resp))
                        await writer.drain()
                        return
                    if coding is not None:
                        headers.append(("Content-Encoding", coding))
                    head = h11.Response(status_code=event.status_code, headers=_wire(headers))
                    writer.write(conn.send(head) or b"")
                    started = True
                    if edit is not None:
                        held = RelayResponse(event.status_code, headers, b"")
                elif isinstance(event, h11.Data) and held is not None:
                    held.body += bytes(event.data)
                elif isinstance(event, h11.Data):
                    data = bytes(event.data)
                    if watch is not None:
                        sent += data
                    if compressor is not None:
                        data = compressor.compress(data)
                        if flush:
                            data += compressor.flush(zlib.Z_SYNC_FLUSH)
                    if data:
                        writer.write(conn.send(h11.Data(data=data)) or b"")
                elif isinstance(event, h11.EndOfMessage):
                    if held is not None and edit is not None:
                        edit.response(req, held)
                        if held.body:
                            writer.write(conn.send(h11.Data(data=held.body)) or b"")
                    if compressor is not None:
                        writer.write(conn.send(h11.Data(data=compressor.flush())) or b"")
                    writer.write(conn.send(h11.EndOfMessage()) or b"")
                    await writer.drain()
                    return
                else:
                    raise ConnectionError("the upstream closed the connection")
                await writer.drain()
                await look()
        except (h11.ProtocolError, ConnectionError, TimeoutError):
            if started:
                await look()
                raise  # the answer began: cut it short, as the upstream did
            resp = RelayResponse(502, [("Content-Type", "text/plain")], b"relay: upstream failed")
            writer.write(self._frame(conn, req, resp))
            await writer.drain()
        finally:
            up_writer.close()

    @staticmethod
    def _frame(conn: h11.Connection, req: RelayRequest, resp: RelayResponse) -> bytes:
        trailers = [
            (n[len(TRAILER_PREFIX) :], v) for n, v in resp.headers if n.startswith(TRAILER_PREFIX)
        ]
        if trailers and not _no_content(req, resp.status):
            return Relay._frame_with_trailers(conn, resp, trailers)
        no_body = _no_content(req, resp.status)
        headers = [(n, v) for n, v in resp.headers if n.lower() not in HOP_FIELDS]
        if not no_body:
            headers.append(("Content-Length", str(len(resp.body))))
        if resp.close:
            headers.append(("Connection", "close"))
        out = conn.send(h11.Response(status_code=resp.status, headers=_wire(headers))) or b""
        if not no_body and resp.body:
            out += conn.send(h11.Data(data=resp.body)) or b""
        out += conn.send(h11.EndOfMessage()) or b""
        return out

    @staticmethod
    def _frame_with_trailers(
        conn: h11.Connection, resp: RelayResponse, trailers: list[tuple[str, str]]
    ) -> bytes:
        # No Content-Length: h11 frames the answer chunked for an HTTP/1.1 client, which is
        # what carries a trailer section. A Trailer field the mutation set stays.
        headers = [
            (n, v)
            for n, v in resp.headers
            if not n.startswith(TRAILER_PREFIX)
            and (n.lower() == "trailer" or n.lower() not in HOP_FIELDS)
        ]
        if resp.close:
            headers.append(("Connection", "close"))
        out = conn.send(h11.Response(status_code=resp.status, headers=_wire(headers))) or b""
        if resp.body:
            out += conn.send(h11.Data(data=resp.body)) or b""
        return out + (conn.send(h11.EndOfMessage(headers=_wire(trailers))) or b"")


#: The problem document of a request the relay cannot read.
def _next_cycle(conn: h11.Connection) -> h11.Connection:
    """`conn` ready for its next request, the empty lines a client wrote after the last one's
    content left out (RFC 9112 §2.2: a server "SHOULD ignore at least one empty line (CRLF)
    received prior to the request-line"), which h11 would read as a request line."""
    pending, closed = conn.trailing_data
    conn.start_next_cycle()
    if pending[:1] not in (b"\r", b"\n"):
        return conn
    fresh = h11.Connection(h11.SERVER)
    rest = pending.lstrip(b"\r\n")
    if rest:
        # receive_data(b"") would tell h11 the client has closed.
        fresh.receive_data(rest)
    if closed:
        fresh.receive_data(b"")
    return fresh


#: Where a connection's state keeps the octets of the request being read, for a plant that
#: looks at where its reads end.
_READ_SO_FAR = "read-so-far"


def _read_ends_after_chunk_data(state: dict[str, object], data: bytes) -> bool:
    """Whether the request read so far, `data` added, is chunked and ends right after a chunk's
    data, the CRLF that follows it still to come."""
    kept = state.get(_READ_SO_FAR, b"")
    so_far = (kept if isinstance(kept, bytes) else b"") + data
    state[_READ_SO_FAR] = so_far
    head, sep, content = so_far.partition(b"\r\n\r\n")
    if not sep or b"transfer-encoding: chunked" not in head.lower():
        return False
    at = 0
    while True:
        line_end = content.find(b"\r\n", at)
        if line_end < 0:
            return False
        size_text = content[at:line_end].split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            return False
        if size == 0:
            return False
        data_end = line_end + 2 + size
        if data_end == len(content):
            return True
        if data_end + 2 > len(content):
            return False
        at = data_end + 2


#: Where a connection's state keeps the empty lines left out so far.
_EMPTY_LINES = "empty-lines-left-out"


def _empty_lines(data: bytes) -> int:
    """The empty lines `data` begins with."""
    rest = data.lstrip(b"\r\n")
    return data[: len(data) - len(rest)].count(b"\n")


def _within_budget(state: dict[str, object], lines: int, budget: int | None) -> bool:
    """Whether `lines` more empty lines may be left out under a planted `budget` (None: no
    bound), counted into the connection's `state`."""
    if budget is None:
        return True
    used = int(str(state.get(_EMPTY_LINES, 0))) + lines
    state[_EMPTY_LINES] = used
    return used <= budget


def _without_empty_lines(
    data: bytes, state: dict[str, object], mutation: MutationLike | None
) -> bytes:
    """`data` with the empty lines it begins with left out, unless a planted budget of them
    for the connection is spent."""
    budget = mutation.behaviour.empty_line_budget if mutation is not None else None
    if not _within_budget(state, _empty_lines(data), budget):
        return data
    return data.lstrip(b"\r\n")


def _next_cycle_within(
    conn: h11.Connection, state: dict[str, object], budget: int
) -> h11.Connection:
    """`_next_cycle` for a server that leaves out `budget` empty lines over a connection's
    life: once they are spent, the next is left for h11, which reads it as a request line."""
    lines = _empty_lines(conn.trailing_data[0])
    if _within_budget(state, lines, budget):
        return _next_cycle(conn)
    conn.start_next_cycle()
    return conn


def _declared_length(head: h11.Request) -> int:
    """The Content-Length a request head declares (0 without one)."""
    value = b""
    for name, v in head.headers:
        if name == b"content-length":
            value = v
    return int(value) if value and value.isdigit() else 0


def _declared_refusal(limit: int, status: int = 413) -> bytes:
    """A refusal (413, or the `status` given) of a batch declaring more than `limit` octets,
    framed by hand: a 413 not marked Connection: close, another status marked."""
    problem = json.dumps(
        {
            "type": "https://mixbatch.dev/problems/limit-exceeded",
            "title": "Batch over a limit",
            "status": status,
            "requirement": "MB-STATUS-3",
            "limit": "max_batch_bytes",
            "value": limit,
        },
        separators=(",", ":"),
    ).encode()
    reason = {413: "Content Too Large", 417: "Expectation Failed"}.get(status, "Refused")
    close = "" if status == 413 else "Connection: close\r\n"
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/problem+json\r\n"
        f"Content-Length: {len(problem)}\r\n{close}\r\n"
    )
    return head.encode("ascii") + problem


def _unreadable(conn: h11.Connection, status: int) -> bytes:
    """The answer to a request h11 could not read, framed by `conn` (h11 lets a server answer
    once the client's side is in error, until its own answer has begun): 400 unless a planted
    bug names another status."""
    problem = json.dumps(
        {
            "type": "https://mixbatch.dev/problems/malformed-request",
            "title": "The request could not be read",
            "status": status,
        },
        separators=(",", ":"),
    ).encode()
    head = h11.Response(
        status_code=status,
        headers=[
            ("Content-Type", "application/problem+json"),
            ("Content-Length", str(len(problem))),
            ("Connection", "close"),
        ],
    )
    data = [conn.send(head), conn.send(h11.Data(data=problem)), conn.send(h11.EndOfMessage())]
    return b"".join(d or b"" for d in data)


async def _until_client_leaves(reader: asyncio.StreamReader | None) -> None:
    """Wait, answering nothing, until the client ends its connection (at most `STALL_FOR_S`)."""
    try:
        async with asyncio.timeout(STALL_FOR_S):
            while reader is None or await reader.read(65536):
                if reader is None:
                    await asyncio.sleep(STALL_FOR_S)
    except TimeoutError:
        pass
