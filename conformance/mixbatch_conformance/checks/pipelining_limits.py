"""A request pipelined behind a limit refusal is answered (spec 9.1, 11).

Theory of operation: a server refuses a batch over a limit before any part runs (MB-STATUS-3),
and may do so before it has read the content: by a part's declared `Content-Length`, by the
section it is reading, by the count of parts so far. The octets it did not read are still on
the connection; a server that answers and then reads on, without first reading past them,
takes the rest of the refused batch for the next request, and the request pipelined behind it
gets a 400 or nothing. `pipelining-behind-limit-refusals` writes, for each part limit the
target publishes and a bounded batch can exceed, the batch one unit over it (a header section
over `max_part_header_bytes`, the same content chunked, a part over `max_part_fields`, a batch
over `max_parts`, a part body over `max_part_bytes` with its `Content-Length` stated), sends
it alone for its status, then pipelines it with a plain GET of `ok` behind it. The refusal
must get the status it gets alone and the GET its 200 (MB-PIPE-1). Spec 11 makes one
exception: "an answer a server gives before it has read the request's content whole, a 413 or
431 ... RFC 9112 §9.6 lets it close the connection after that answer, marked `Connection:
close`", so a 413 or 431 that says so may leave the GET unanswered; any other status, or a
close not marked, may not (the refusals of other kinds are `pipelining-behind-every-answer`'s,
with no exception). An intermediary may de-pipeline, so the check runs direct only.

`pipelining-behind-limit-refusals-read-whole` learns which side of that exception a refusal
falls on. The check cannot see when a server read the content, but it can hold the content
back: for each size refusal a bounded batch can reach (a part field line taking a header
section over `max_part_header_bytes`, framed by Content-Length and chunked; a part over
`max_part_fields`, likewise; a delimiter line opening a part over `max_parts`; a part body
without a Content-Length of its own running over `max_part_bytes`), it sends the head and the
content up to just past the offending element, then waits. A refusal that arrives while the
rest is held back was given before the content was read whole, and may close the connection:
that kind is noted and not judged. A server that answers nothing until the content is complete
read it whole first; the rest of the content is then sent in one write with a plain GET of
`ok` behind it, and the GET is answered 200 after the refusal (MB-PIPE-1: only "an answer a
server gives before it has read the request's content whole" may end the connection). The
wait is learnt too: three times what the same batch, sent whole, takes to be refused, at least
a second; a kind that takes so long that the wait would pass two seconds is not judged, and
the check is N/A when no kind could be learnt. A batch over `max_batch_bytes` is left out: its
declared Content-Length lets a server refuse it before it reads any content, which the
exception always allows.

`pipelining-behind-early-refusals-of-long-content` covers the refusals of other statuses that
spec 11 lets come before the content is read whole: one "decided from the header section alone"
or "a 400 for a fault the server meets while it reads the content". For each one the target
gives (a batch typed `text/plain`, one with a content coding no server supports, one whose
Accept admits no batch form, one with a Batch-Mode no server defines, a PUT to the batch
endpoint, one whose boundary parameter is empty, and one whose first part header line ends in a
bare LF, a fault at the content's start), the same request with a small batch is sent alone
to learn its status; one not refused with the status of its kind is noted and not judged. The
request is then sent with content of exactly `DISCARDED_OCTETS` (65,536) and a GET of `ok`
pipelined behind it on one connection: both are answered, the GET 200, as "it does so for
content of up to 64 KiB (65,536 octets) at least". Then with `LONGER_OCTETS` of content: a GET
left unanswered is allowed only behind a refusal marked `Connection: close`. The content is a
well-formed batch behind a preamble (ignored under MB-WIRE-9), so a server that reads it whole
before refusing is served as well as one that discards it; the bare-LF refusal's content is that
faulty part, its body padded to the length. Over HTTP/2 the content has no
connection to confuse, so that check is N/A there.

`pipelining-behind-early-refusals-of-chunked-content` sends the same refusals with a small batch
framed by the chunked transfer coding, which MB-INTER-5 makes a server accept as it accepts
content framed by Content-Length: plain chunks, chunks carrying chunk extensions (RFC 9112
§7.1.1), and a last chunk followed by a trailer section (§7.1.2). Chunked content declares no
length before it arrives, yet one that ends within 64 KiB is still content "of up to 64 KiB",
so a server that closes the connection after such a refusal instead of reading the chunks to
their end leaves the GET pipelined behind unanswered. Each framing is sent alone first to learn
its status, then with a GET of `ok` behind it on one connection: the refusal is answered as
alone and the GET 200.
"""

from __future__ import annotations

import contextlib
import select
import socket
import time
from dataclasses import dataclass

from mixbatch_conformance.checks._shared.chunking import (
    CHUNKED_FRAMINGS,
    chunked_content,
    small_chunked,
)
from mixbatch_conformance.checks._shared.connection_options import closes
from mixbatch_conformance.checks._shared.content_codings import UNKNOWN_CODING
from mixbatch_conformance.checks._shared.hops import PIPELINING_NEEDS_ONE_CONNECTION
from mixbatch_conformance.checks._shared.limit_cases import (
    BOUNDARY,
    MAX_PARTS_SENT,
    envelope,
    header_section,
    part,
)
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import (
    Exchange,
    Response,
    ResponseError,
    connect,
    read_response,
)

__all__: list[str] = []

#: The largest part body the check sends over max_part_bytes (the reference's 16 MiB, plus one).
MAX_PART_SENT = 16 * 1024 * 1024 + 1
#: The largest header limit the check writes one over.
MAX_HEADER_SENT = 1_000_000
#: The refusals spec 11 lets a server close the connection after, marked Connection: close.
CLOSING_REFUSALS = frozenset({413, 431})


def _fits(ctx: Context, body: bytes) -> bool:
    batch = ctx.limit("max_batch_bytes")
    return batch is None or len(body) <= batch


def _leaders(ctx: Context, judge: Judge) -> list[tuple[str, bytes]]:
    """(what, request) for each limit refusal the target's published limits allow."""
    ok = ctx.path(ctx.resource(judge, "ok"))
    mixed = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    fields_limit = ctx.limit("max_part_fields")
    header_limit = ctx.limit("max_part_header_bytes")

    def post(body: bytes, chunked: bool = False) -> bytes:
        if not chunked:
            return ctx.raw_request("POST", ctx.batch_path, mixed, body)
        framed, _ = chunked_content(body)
        head = [*mixed, ("Transfer-Encoding", "chunked")]
        return ctx.raw_request("POST", ctx.batch_path, head, framed)

    out: list[tuple[str, bytes]] = []
    if header_limit is not None and header_limit <= MAX_HEADER_SENT:
        # MB-STATUS-3: "431 (Request Header Fields Too Large) when a part header section
        # exceeds `max_part_header_bytes`"; a second, small part follows it unread.
        small = part(header_section(ok, fields=2))
        body = envelope([part(header_section(ok, octets=header_limit + 1)), small])
        if _fits(ctx, body) and (fields_limit is None or fields_limit >= 3):
            out.append(("a header section over max_part_header_bytes", post(body)))
            out.append(("a chunked header section over max_part_header_bytes", post(body, True)))
    if fields_limit is not None and fields_limit <= 10_000:
        section = header_section(ok, fields=fields_limit + 1)
        body = envelope([part(section), part(header_section(ok, fields=2))])
        if (header_limit is None or len(section) <= header_limit) and _fits(ctx, body):
            # MB-LIMIT-5: "answer a batch request with a part over it with 431".
            out.append(("a part over max_part_fields", post(body)))
    parts = ctx.limit("max_parts")
    if parts is not None and parts + 1 <= MAX_PARTS_SENT:
        body = envelope([part(header_section(ok, fields=2))] * (parts + 1))
        if _fits(ctx, body):
            # MB-STATUS-3: 413 for "a batch request that exceeds one of its limits".
            out.append(("a batch over max_parts", post(body)))
    part_limit = ctx.limit("max_part_bytes")
    if part_limit is not None and part_limit + 1 <= MAX_PART_SENT:
        echo = ctx.path(ctx.resource(judge, "echo"))
        big = SubRequest(
            "PUT", echo, (("Content-Type", "application/octet-stream"),), b"b" * (part_limit + 1)
        )
        body = compose_batch([big, SubRequest("GET", ok)], BOUNDARY)
        if _fits(ctx, body):
            # MB-STATUS-3: 413; its Content-Length states the length a server may refuse by
            # before it reads the body.
            out.append(("a part body over max_part_bytes", post(body)))
    return out


@checker(
    "pipelining-behind-limit-refusals",
    ("MB-PIPE-1", "MB-STATUS-3"),
    "A plain GET pipelined behind a batch refused for each published part limit (header octets, plain and chunked, field lines, part count, a part body with its Content-Length) is answered 200 after the refusal, unless the refusal closes the connection with Connection: close.",
    profile="pipelining",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def pipelining_behind_limit_refusals(ctx: Context, judge: Judge) -> None:
    leaders = _leaders(ctx, judge)
    if not leaders:
        judge.not_applicable("the target publishes no part limit a bounded batch can exceed")
    follower = ctx.raw_request("GET", ctx.path(ctx.resource(judge, "ok")))
    for what, leader in leaders:
        alone = ctx.send(judge, leader)
        # MB-STATUS-3: a batch over a limit is answered 413, or 431 for a header section.
        judge.expect(f"{what} alone", alone.status, {413, 431}, "MB-STATUS-3")
        first, second = ctx.send_many(judge, [leader, follower])
        got = first.response.status if first.response else None
        # MB-PIPE-1: "answer pipelined requests on a connection, batch requests and other
        # requests alike, in the order it received them": the refusal first, as it is
        # answered alone.
        judge.expect(f"status of {what}, pipelined", got, {alone.status}, "MB-PIPE-1")
        # Spec 11: only "a 413 or 431 by a declared length or at a limit reached while
        # reading" may close the connection, "marked `Connection: close`".
        closed = (
            first.response is not None
            and first.response.status in CLOSING_REFUSALS
            and closes(first.response.get("Connection"))
        )
        after = second.response.status if second.response else None
        if closed and after is None:
            judge.note(f"{what}: answered {got} with Connection: close, the GET unanswered")
            continue
        # MB-PIPE-1 again, and MB-TEST-1 fixes 200 for ok: the GET behind the refusal is
        # answered in its turn, not read out of the refused batch's unread octets.
        judge.expect(f"status of the GET behind {what}", after, {200}, "MB-PIPE-1")


#: The shortest wait for an early refusal, in seconds.
HOLD_MIN_S = 1.0
#: The longest: a refusal slower than a third of it cannot be told early or late.
HOLD_MAX_S = 2.0
#: How many times the time a whole batch takes to be refused the check waits for an early one.
HOLD_FACTOR = 3
#: Seconds the GET behind the refusal gets to be answered once the refusal has arrived.
FOLLOWER_S = 2.0


@dataclass(frozen=True, slots=True)
class HeldBatch:
    """A batch over a limit cut just past its offending element: `head` (the request's head
    and the content up to there) and `rest` (the content after it, as the framing sends it)."""

    what: str
    head: bytes
    rest: bytes


def _held_batches(ctx: Context, judge: Judge) -> list[HeldBatch]:
    """A batch for each size refusal the target's published limits allow, cut just past its
    offending element."""
    ok = ctx.path(ctx.resource(judge, "ok"))
    mixed = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    dash = f"--{BOUNDARY}\r\n".encode()
    fields_limit = ctx.limit("max_part_fields")
    header_limit = ctx.limit("max_part_header_bytes")
    small = part(header_section(ok, fields=2))
    out: list[HeldBatch] = []

    def cut(what: str, body: bytes, at: int, chunked: bool = True) -> None:
        """`body` sent by Content-Length, and chunked when `chunked`, held back from `at`."""
        if not _fits(ctx, body):
            return
        whole = ctx.raw_request("POST", ctx.batch_path, mixed, body)
        out.append(HeldBatch(what, whole[: len(whole) - len(body) + at], body[at:]))
        if chunked:
            head = ctx.raw_request(
                "POST", ctx.batch_path, [*mixed, ("Transfer-Encoding", "chunked")]
            )
            first = b"%x\r\n%s\r\n" % (at, body[:at])
            rest = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body) - at, body[at:])
            out.append(HeldBatch(f"{what}, chunked", head + first, rest))

    fits_fields = fields_limit is None or fields_limit >= 3
    if header_limit is not None and header_limit <= MAX_HEADER_SENT and fits_fields:
        # The section's last field line takes it over the limit; the empty line after it,
        # and the part after that, are held back.
        section = header_section(ok, octets=header_limit + 1)
        body = envelope([part(section), small])
        cut(
            "a field line taking a header section over max_part_header_bytes",
            body,
            len(dash) + len(section),
        )
    if fields_limit is not None and fields_limit <= 10_000:
        section = header_section(ok, fields=fields_limit + 1)
        if header_limit is None or len(section) <= header_limit:
            body = envelope([part(section), small])
            cut("a field line over max_part_fields", body, len(dash) + len(section))
    parts = ctx.limit("max_parts")
    if parts is not None and parts + 1 <= MAX_PARTS_SENT:
        body = envelope([small] * (parts + 1))
        # Up to the delimiter line that opens the first part over the limit (spec 5.3).
        opening = len(dash) + parts * len(small + b"\r\n" + dash)
        cut("the delimiter line of a part over max_parts", body, opening, chunked=False)
    part_limit = ctx.limit("max_part_bytes")
    if part_limit is not None and part_limit + 1 <= MAX_PART_SENT:
        echo = ctx.path(ctx.resource(judge, "echo"))
        # No Content-Length in the part: the server finds the body over the limit by reading it.
        section = f"Http-Method: PUT\r\nContent-Id: <{echo}>\r\n".encode()
        body = envelope([part(section, b"b" * (part_limit + 2)), small])
        at = len(dash) + len(section) + 2 + part_limit + 1
        cut("a part body without Content-Length over max_part_bytes", body, at, chunked=False)
    return out


def _readable(sock: socket.socket, seconds: float) -> bool:
    """Whether the peer sent something (or closed) within `seconds`."""
    pending = getattr(sock, "pending", None)
    if pending is not None and pending():
        return True
    ready, _, _ = select.select([sock], [], [], seconds)
    return bool(ready)


def _read(reader: object, method: str) -> tuple[Response | None, str | None]:
    try:
        return read_response(reader, method), None  # type: ignore[arg-type]
    except (ResponseError, OSError) as exc:
        return None, f"{type(exc).__name__}: {exc}"


def _send_held(
    ctx: Context, held: HeldBatch, follower: bytes, hold: float
) -> tuple[bool, Exchange, Exchange | None]:
    """Send `held.head`, wait up to `hold` seconds; then `held.rest` and `follower` in one
    write. (early, the batch's exchange, the follower's or None when the batch was answered
    before its rest was sent)."""
    request = held.head + held.rest
    sock = connect(ctx.host, ctx.port, ctx.timeout, ctx.tls)
    try:
        # An early answer may stop the server reading the head; it is read below.
        with contextlib.suppress(OSError):
            sock.sendall(held.head)
        reader = sock.makefile("rb")
        if _readable(sock, hold):
            resp, err = _read(reader, "POST")
            return True, Exchange(held.head, resp, err), None
        try:
            sock.sendall(held.rest + follower)
        except OSError as exc:
            return False, Exchange(request, None, f"send failed: {exc}"), None
        resp, err = _read(reader, "POST")
        first = Exchange(request, resp, err)
        sock.settimeout(FOLLOWER_S)
        after, err = _read(reader, "GET")
        if err is not None and "timed out" in err:
            err = f"no answer within {FOLLOWER_S} s after the refusal"
        return False, first, Exchange(follower, after, err)
    finally:
        sock.close()


@checker(
    "pipelining-behind-limit-refusals-read-whole",
    ("MB-PIPE-1", "MB-STATUS-3"),
    "For each size refusal (a field line over max_part_header_bytes or max_part_fields, by Content-Length and chunked; a part over max_parts; a part body over max_part_bytes), a server that answers only once the content held back past the offending element is sent, having read it whole, answers a GET pipelined behind it 200.",
    profile="pipelining",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def pipelining_behind_limit_refusals_read_whole(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("the content is held back on an HTTP/1.1 connection")
    batches = _held_batches(ctx, judge)
    if not batches:
        judge.not_applicable("the target publishes no part limit a bounded batch can exceed")
    follower = ctx.raw_request("GET", ctx.path(ctx.resource(judge, "ok")))
    judged = 0
    for held in batches:
        started = time.monotonic()
        alone = ctx.send(judge, held.head + held.rest)
        took = time.monotonic() - started
        # MB-STATUS-3: a batch over a limit is answered 413, or 431 for a header section.
        if not judge.expect(f"{held.what} alone", alone.status, {413, 431}, "MB-STATUS-3"):
            continue
        hold = max(HOLD_MIN_S, HOLD_FACTOR * took)
        if hold > HOLD_MAX_S:
            judge.note(f"{held.what}: refused in {took:.2f} s alone, too slow to tell early")
            continue
        early, first, second = _send_held(ctx, held, follower, hold)
        judge.record(first)
        if early:
            # Spec 11: "an answer a server gives before it has read the request's content
            # whole, a 413 or 431 ... at a limit reached while reading" may close the
            # connection; the rest was never sent, so nothing more is judged.
            got = first.response.status if first.response else first.error
            judge.note(f"{held.what}: answered {got} before the rest was sent (may close)")
            continue
        judged += 1
        got = first.response.status if first.response else None
        # MB-PIPE-1: "answer pipelined requests on a connection ... in the order it received
        # them": the refusal first, as it is answered alone.
        judge.expect(
            f"{held.what}: status once the content was whole", got, {alone.status}, "MB-PIPE-1"
        )
        assert second is not None
        judge.record(second)
        after = second.response.status if second.response else None
        connection = first.response.get("Connection") if first.response else None
        judge.note(
            f"{held.what}: {got} (Connection: {connection}), then the GET: {after or second.error}"
        )
        # MB-PIPE-1's prose: "The one exception is an answer a server gives before it has read
        # the request's content whole"; this refusal came only once the content was complete,
        # so the GET behind it is answered in its turn (MB-TEST-1 fixes 200 for ok).
        judge.expect(f"status of the GET behind {held.what}", after, {200}, "MB-PIPE-1")
    if not judged:
        judge.not_applicable("no size refusal waited for the whole content within the bound")


#: The content length spec 11 has a server read and discard behind an early refusal "at least".
DISCARDED_OCTETS = 65_536
#: A content length over that, which a server may close the connection rather than discard.
LONGER_OCTETS = 300_000
#: Octets per preamble line of the padding (62 letters and CRLF).
PAD_LINE = b"p" * 62 + b"\r\n"


@dataclass(frozen=True, slots=True)
class EarlyRefusal:
    """A request refused from its header section alone: `method` and `fields` to the batch
    endpoint, and the one status of its kind (`status`)."""

    what: str
    method: str
    fields: tuple[tuple[str, str], ...]
    status: int
    #: The content opens with a fault the server meets as it reads (a bare LF ending the first
    #: part's first field line) instead of being a valid batch.
    faulty: bool = False


def _early_refusals() -> tuple[EarlyRefusal, ...]:
    mixed = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    return (
        # MB-WIRE-2: 415 for "a batch request whose media type is not multipart/mixed".
        EarlyRefusal("a batch typed text/plain", "POST", (("Content-Type", "text/plain"),), 415),
        # MB-INTER-6: 415 for "a batch request with a content coding it does not support".
        EarlyRefusal(
            "a batch with an unsupported content coding",
            "POST",
            (mixed, ("Content-Encoding", UNKNOWN_CODING)),
            415,
        ),
        # MB-STATUS-9 and RFC 9110 §15.5.7: 406 for an Accept no batch form satisfies.
        EarlyRefusal(
            "a batch whose Accept admits no batch form",
            "POST",
            (mixed, ("Accept", "text/plain")),
            406,
        ),
        # MB-PROC-12: 501 for "a batch request whose Batch-Mode value it does not implement".
        EarlyRefusal(
            "a batch with an unknown Batch-Mode",
            "POST",
            (mixed, ("Batch-Mode", "mb-suite-undefined")),
            501,
        ),
        # MB-METHOD-2: 405 for "any method it does not support there".
        EarlyRefusal("a PUT to the batch endpoint", "PUT", (mixed,), 405),
        # MB-WIRE-4: 400 for a `boundary` parameter that is "empty"; spec 11 counts "a 400 for
        # the `Content-Type` or its boundary" among the refusals decided from the header section.
        EarlyRefusal(
            "a batch whose boundary parameter is empty",
            "POST",
            (("Content-Type", 'multipart/mixed; boundary=""'),),
            400,
        ),
        # MB-WIRE-8: 400 for a bare LF ending a part header line; spec 11: "a 400 for a fault
        # the server meets while it reads the content".
        EarlyRefusal(
            "a batch whose first part header line ends in a bare LF",
            "POST",
            (mixed,),
            400,
            faulty=True,
        ),
    )


def _content(refusal: EarlyRefusal, ok: str, octets: int | None) -> bytes:
    """The refused request's content: a batch of one GET of `ok`, or the refusal's faulty part,
    exactly `octets` long (None: as short as it comes)."""
    if not refusal.faulty:
        small = compose_batch([SubRequest("GET", ok)], BOUNDARY)
        return small if octets is None else _padded_batch(ok, octets)
    head = f"--{BOUNDARY}\r\nHttp-Method: GET\nContent-Id: <{ok}>\r\n\r\n".encode("latin-1")
    tail = f"\r\n--{BOUNDARY}--".encode()
    fill = 0 if octets is None else octets - len(head) - len(tail)
    return head + b"p" * fill + tail


def _padded_batch(ok: str, octets: int) -> bytes:
    """A batch of one GET of `ok`, exactly `octets` long: padding lines as its preamble."""
    batch = compose_batch([SubRequest("GET", ok)], BOUNDARY)
    pad = octets - len(batch) - 2
    lines, rest = divmod(pad, len(PAD_LINE))
    return PAD_LINE * lines + b"p" * rest + b"\r\n" + batch


def _send_behind(
    ctx: Context, leader: bytes, method: str, follower: bytes
) -> tuple[Exchange, Exchange]:
    """Write `leader` and `follower` on one connection; read the leader's answer within the
    target's timeout, then the follower's within `FOLLOWER_S`."""
    sock = connect(ctx.host, ctx.port, ctx.timeout, ctx.tls)
    try:
        # A server that answers and closes before reading all the content makes the write
        # fail; its answer is still read below.
        with contextlib.suppress(OSError):
            sock.sendall(leader + follower)
        reader = sock.makefile("rb")
        resp, err = _read(reader, method)
        first = Exchange(leader, resp, err)
        sock.settimeout(FOLLOWER_S)
        after, err = _read(reader, "GET")
        if err is not None and "timed out" in err:
            err = f"no answer within {FOLLOWER_S} s after the refusal"
        return first, Exchange(follower, after, err)
    finally:
        sock.close()


def _behind_refusal(
    ctx: Context, judge: Judge, what: str, leader: tuple[bytes, str, int], follower: bytes
) -> tuple[Exchange, str | None, int | None]:
    """Send `follower` behind the leading request (octets, method, its status alone) and judge
    the leader's pipelined status; returns the follower's exchange, the leader's Connection
    field and the follower's status."""
    request, method, status_alone = leader
    first, second = _send_behind(ctx, request, method, follower)
    judge.record(first)
    judge.record(second)
    got = first.response.status if first.response else None
    connection = first.response.get("Connection") if first.response else None
    after = second.response.status if second.response else None
    judge.note(f"{what}: {got} (Connection: {connection}), then the GET: {after or second.error}")
    # MB-PIPE-1: "answer pipelined requests on a connection ... in the order it received
    # them": the refusal first, as it is answered alone.
    judge.expect(f"status of {what}, pipelined", got, {status_alone}, "MB-PIPE-1")
    return second, connection, after


@checker(
    "pipelining-behind-early-refusals-of-long-content",
    ("MB-PIPE-1",),
    "A GET pipelined behind a 400, 405, 406, 415 or 501 given before the content is read whole (a batch typed text/plain, an unsupported content coding, an Accept admitting no batch form, an unknown Batch-Mode, a PUT, an empty boundary, a bare LF at the content's start) with 65,536 octets of content is answered 200; behind 300,000 octets it may go unanswered only when the refusal carries Connection: close.",
    profile="pipelining",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def pipelining_behind_early_refusals_of_long_content(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("the content is discarded on an HTTP/1.1 connection")
    ok = ctx.path(ctx.resource(judge, "ok"))
    follower = ctx.raw_request("GET", ok)
    judged = 0
    for refusal in _early_refusals():
        small = _content(refusal, ok, None)
        alone = ctx.send(
            judge, ctx.raw_request(refusal.method, ctx.batch_path, refusal.fields, small)
        )
        if alone.status != refusal.status:
            judge.note(f"{refusal.what}: answered {alone.status} alone, not {refusal.status}")
            continue
        judged += 1
        for octets in (DISCARDED_OCTETS, LONGER_OCTETS):
            body = _content(refusal, ok, octets)
            leader = ctx.raw_request(refusal.method, ctx.batch_path, refusal.fields, body)
            what = f"{refusal.what} of {octets:,} octets"
            second, connection, after = _behind_refusal(
                ctx, judge, what, (leader, refusal.method, alone.status), follower
            )
            if octets <= DISCARDED_OCTETS:
                # MB-PIPE-1: "it does so for content of up to 64 KiB (65,536 octets) at least:
                # a request pipelined behind such a refusal of content that long is answered"
                # (MB-TEST-1 fixes 200 for ok).
                judge.expect(f"status of the GET behind {what}", after, {200}, "MB-PIPE-1")
                continue
            if after is None:
                # MB-PIPE-1: "Content beyond what the server is prepared to discard, over 64 KiB,
                # may end the connection as the 413 above does, the answer marked `Connection:
                # close`."
                judge.expect_true(
                    f"Connection of {what}, the GET behind it unanswered",
                    closes(connection),
                    f"Connection: {connection or '(none)'}; the GET: {second.error}",
                    "Connection: close",
                    "MB-PIPE-1",
                )
                continue
            # MB-PIPE-1: "a request pipelined behind such a refusal ... is answered": once the
            # server answers the GET, it answers it as sent, not out of the refused content.
            judge.expect(f"status of the GET behind {what}", after, {200}, "MB-PIPE-1")
    if not judged:
        judge.not_applicable(
            "no request was refused 400, 405, 406, 415 or 501 before its content was read"
        )


@checker(
    "pipelining-behind-early-refusals-of-chunked-content",
    ("MB-PIPE-1",),
    "A GET pipelined behind a 400, 405, 406, 415 or 501 given before the content is read whole (a batch typed text/plain, an unsupported content coding, an Accept admitting no batch form, an unknown Batch-Mode, a PUT, an empty boundary, a bare LF at the content's start) whose small content is chunked, with chunk extensions or with a trailer section, is answered 200.",
    profile="pipelining",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def pipelining_behind_early_refusals_of_chunked_content(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("the content is discarded on an HTTP/1.1 connection")
    ok = ctx.path(ctx.resource(judge, "ok"))
    follower = ctx.raw_request("GET", ok)
    judged = 0
    for refusal in _early_refusals():
        small = _content(refusal, ok, None)
        head = [*refusal.fields, ("Transfer-Encoding", "chunked")]
        for framing, ext, last_ext, trailer in CHUNKED_FRAMINGS:
            content = small_chunked(small, ext, last_ext, trailer)
            leader = ctx.raw_request(refusal.method, ctx.batch_path, head, content)
            what = f"{refusal.what}, {len(small)} octets {framing}"
            alone = ctx.send(judge, leader)
            if alone.status != refusal.status:
                judge.note(f"{what}: answered {alone.status} alone, not {refusal.status}")
                continue
            judged += 1
            _, _, after = _behind_refusal(
                ctx, judge, what, (leader, refusal.method, alone.status), follower
            )
            # MB-PIPE-1: "The server then reads and discards the rest of the content to find
            # the next request, and it does so for content of up to 64 KiB (65,536 octets) at
            # least: a request pipelined behind such a refusal of content that long is
            # answered"; chunked content that ends within 64 KiB is such content (MB-TEST-1
            # fixes 200 for ok).
            judge.expect(f"status of the GET behind {what}", after, {200}, "MB-PIPE-1")
    if not judged:
        judge.not_applicable(
            "no chunked request was refused 400, 405, 406, 415 or 501 before its content was read"
        )
