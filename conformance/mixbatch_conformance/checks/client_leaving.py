"""The writes a batch's answer reported done stay done when its client leaves mid-answer (spec
7.2, 7.5).

Theory of operation: a server that notices its client gone before the client read the whole
answer (its end of stream arrives, or a write to it fails) may be tempted to undo what the batch
did, taking the client not to know of it, so that the batch is all or nothing as that client
sees it. The spec leaves it no such choice for what the answer already reported. In an atomic
batch MB-PROC-16 has the effects of every part committed before the first response part is sent,
"so that every request it receives after that observes all of them", and spec 7.5 adds of a
server that stops after it committed that "the parts it does not answer did take effect"; a
first part answered 2xx with no `Batch-Outcome` is a committed batch, since 7.5 gives an atomic
batch that does not commit its parts marked `rolled-back` or `skipped`, and one failing part
with a status of 400 or above. Under the default continue policy MB-PROC-2 has the server
"produce the effects and the responses of a batch as if it had run the parts one at a time": a
write part answered 2xx with no `Batch-Outcome` ("the sub-request ran and this is its response",
spec 3.3.4) has its effect, and no later part of these batches touches its member.

Each check sends a batch that writes to the sandbox and keeps its answer open after the writes:
a GET of the delay resource, or of a large count of the random resource, whose octets the
client does not read. On a connection of its own, over HTTP/1.1, the client reads the head and
the response parts of the writes as they arrive (a part is whole once its `Content-Length`
octets of body have arrived, or the delimiter after it), then leaves in one of three ways: it
closes the connection, resets it (`SO_LINGER` 0, so the close is a RST) or half-closes it (it
ends its side of the stream and reads the rest of the answer to its end; plain TCP only, TLS has
no half-close). After a pause, and in the continue check not before the slow part has had its
time (a server that notices the client gone only when it next writes notices then), each
member is read alone on another connection.

How soon those reads must show a write differs between the checks. MB-PROC-16 fixes it for an
atomic batch: every request received after the first response part observes every effect, so
each member is read once. A batch under the continue policy has no such rule (spec 1.3:
isolation from concurrent clients is whatever the server's store gives): a server may run it
in one store transaction committed at its end, which comes when it notices the client gone.
Its members are read again until each shows its write or `LATE_S` has passed, and each that
showed its write is read once more; only a write that never shows, or that shows undone after
it showed, fails.

`answered-writes-outlive-client-leaving` sends [a PUT to an id no member has had (creating), a
PUT to a member created alone (replacing), a POST to the collection, a DELETE of a member
created alone, a GET of the delay resource, a GET of the random resource]. Each write part the
client read answered 2xx with no `Batch-Outcome` is judged: the member a PUT or POST wrote reads
back the batch's document (MB-TEST-4), the member a DELETE removed answers 404 or 410. A
sandbox that does not read back (MB-TEST-4: one "that stores only some of what it is sent") may
answer a member with the same representation, and so the same ETag, whatever marked document
was written to it: the check learns from a PUT alone of a marked document to the member it
will replace whether a GET of the member then shows that marker. Where it does, the replaced
member must show the batch's marker; elsewhere a member a PUT or POST wrote is judged by its
being there alone (both checks judge their writes so). A part answered otherwise (a PUT the
sandbox refuses with 404 or 405, MB-TEST-3) is not judged, and neither is a part the client
never read: spec 5.4 gives the parts a server does not answer an unknown outcome.

`atomic-commit-outlives-client-leaving` sends, with `Batch-Mode: atomic`, [a POST, a PUT
creating a member, a GET of the random resource, a PUT replacing a member, a DELETE], the PUT
that creates only when a PUT alone to a fresh id is answered 201 (MB-TEST-3 lets a sandbox
refuse it, which would fail the batch). The client reads the parts before the random one and
leaves. A first part answered 2xx with no `Batch-Outcome` is a committed batch, and every write
is judged, those after the random part too; an answer that is not committed is noted.

The random count is the largest of 16 MiB, 4 MiB and 1 MiB whose GET alone the resource answers
200 (read from the head of that answer; MB-TEST-5 answers a count over the largest with a 4xx),
so that the server is still writing when the client leaves. Only the multipart form is read:
a 207 form is one document, which a client cannot read part by part (spec 7.3 streams the
multipart parts), so a client that leaves after its head was told nothing the checks could
hold a server to. Every member the checks create is deleted before they end.

Not applicable: without a sandbox collection or a `sandbox.member` document to mark; without a
delay or random resource (the continue check) or a random resource serving a large count (the
atomic one); when the batch holds more parts than the published `max_parts`; over HTTP/2,
since the answer is read from an HTTP/1.1 connection.
"""

from __future__ import annotations

import contextlib
import re
import secrets
import socket
import struct
import time
from dataclasses import dataclass, field

import h11

from mixbatch_conformance.checks._shared.collections import created_path
from mixbatch_conformance.checks._shared.random_counts import largest_served
from mixbatch_conformance.checks._shared.sandbox_marks import created_member, marked_member
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import Part, parse_media_type, read_multipart
from mixbatch_conformance.transport.http import Exchange, Response, connect

__all__ = ["complete_parts"]

BOUNDARY = "mb-leaving-5d0e7c93a1f2b846"
ATOMIC = (("Batch-Mode", "atomic"),)
JSON_FIELDS = (("Content-Type", "application/json"),)
#: How long the slow part of the continue check waits.
DELAY_MS = 400
#: Room the declared batch_timeout_ms must leave beside the slow part.
BUDGET_ROOM_MS = 1500
#: Counts of the random resource tried, largest first: more than a loopback connection's
#: buffers hold, so that the server is still writing the answer when the client leaves.
RANDOM_COUNTS = (16 * 1024 * 1024, 4 * 1024 * 1024, 1024 * 1024)
#: Seconds between the client leaving (or the slow part's end) and the reads of the members.
PAUSE_S = 0.5
#: Seconds after the first reads during which a continue batch's members are read again until
#: each shows its write, and the pause between those reads.
LATE_S = 3.0
RETRY_S = 0.25
#: Seconds a half-closed client reads the rest of the answer for, at most.
DRAIN_S = 5.0
#: Octets of an answer kept in the report: the head and the parts read, not the random octets.
KEPT_OCTETS = 256 * 1024
#: The ways the client leaves.
CLOSES, RESETS, HALF_CLOSES = "closes", "resets", "half-closes"
LEAVINGS = (CLOSES, RESETS, HALF_CLOSES)
#: MB-TEST-3: "after which a `GET` of it answers 404 or 410".
GONE = frozenset({404, 410})
#: MB-TEST-3: "a `PUT` to an existing member with 200 or 204".
REPLACED = frozenset({200, 204})
_CONTENT_LENGTH = re.compile(rb"(?im)^content-length:[ \t]*([0-9]+)[ \t]*\r?$")


@dataclass
class _Write:
    """A write part of the batch and the member it leaves behind."""

    what: str
    sub: SubRequest
    #: The member (None for a POST until its answer names it).
    path: str | None
    #: Whether the member is there after the write (False for a DELETE).
    present: bool = True
    #: Whether a GET of the member shows the marker of the document written to it: where the
    #: sandbox reads back (MB-TEST-4), or where a PUT alone of a marked document showed it.
    marked: bool = False


@dataclass
class _Answer:
    """A batch answer read up to where the client left, and after it when it half-closed."""

    status: int | None = None
    media: str = ""
    boundary: str = ""
    content: bytearray = field(default_factory=bytearray)
    raw: bytearray = field(default_factory=bytearray)
    #: The answer ended (its last chunk, or its Content-Length) while the client read it.
    ended: bool = False
    error: str | None = None
    #: The response parts read whole before the client left, and in all.
    before: tuple[Part, ...] = ()
    parts: tuple[Part, ...] = ()


def complete_parts(content: bytes, dash: bytes) -> tuple[int, int]:
    """How many response parts of `content` have arrived whole, and the offset where the last
    of them ends: a part is whole once its one `Content-Length` octets of body have arrived,
    or, without one, once the delimiter after it has (RFC 2046 §5.1.1)."""
    count, end = 0, 0
    at = content.find(dash)
    while at >= 0:
        line = at + len(dash)
        if content[line : line + 2] == b"--":
            break
        head_end = content.find(b"\r\n\r\n", line)
        if head_end < 0:
            break
        body = head_end + 4
        lengths = _CONTENT_LENGTH.findall(content, line, head_end)
        if len(lengths) == 1:
            stop = body + int(lengths[0])
            if len(content) < stop:
                break
            after = stop if content.startswith(b"\r\n" + dash, stop) else -1
        else:
            stop = after = content.find(b"\r\n" + dash, body)
            if after < 0:
                break
        count, end = count + 1, stop
        at = after + 2 if after >= 0 else -1
    return count, end


def _parts_of(answer: _Answer) -> tuple[Part, ...]:
    """The response parts of the content read so far that are whole."""
    dash = b"--" + answer.boundary.encode("latin-1")
    count, end = complete_parts(bytes(answer.content), dash)
    if not count:
        return ()
    closed = bytes(answer.content[:end]) + b"\r\n" + dash + b"--"
    return read_multipart(closed, answer.boundary).parts[:count]


def _read(
    sock: socket.socket, conn: h11.Connection, answer: _Answer, wanted: int | None, until: float
) -> None:
    """Read the answer until `wanted` response parts are whole (None: until it ends), it ends,
    or `until` (monotonic) passes (TimeoutError)."""
    while not answer.ended:
        event = conn.next_event()
        if event is h11.NEED_DATA:
            sock.settimeout(max(0.01, until - time.monotonic()))
            data = sock.recv(65536)
            if len(answer.raw) < KEPT_OCTETS:
                answer.raw += data[: KEPT_OCTETS - len(answer.raw)]
            conn.receive_data(data)
            continue
        if isinstance(event, h11.InformationalResponse):
            continue
        if isinstance(event, h11.Response):
            answer.status = event.status_code
            for name, value in event.headers:
                if name == b"content-type":
                    try:
                        media, params = parse_media_type(value.decode("latin-1"))
                    except ValueError:
                        continue
                    answer.media, answer.boundary = media, params.get("boundary", "")
            if answer.status != 200 or answer.media != "multipart/mixed" or not answer.boundary:
                wanted = None
        elif isinstance(event, h11.Data):
            answer.content += event.data
            if wanted is not None and len(_parts_of(answer)) >= wanted:
                return
        elif isinstance(event, h11.EndOfMessage):
            answer.ended = True
        else:
            return


def _leave(sock: socket.socket, how: str) -> None:
    """Leave the connection as `how` says (a half-close only ends the client's side)."""
    if how == RESETS:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
    elif how == CLOSES:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        sock.close()
    else:
        sock.shutdown(socket.SHUT_WR)


def _send_and_leave(
    ctx: Context, judge: Judge, subs: list[SubRequest], atomic: bool, wanted: int, how: str
) -> tuple[_Answer, float]:
    """Send the batch `subs`, read its answer until its first `wanted` parts are whole, and
    leave `how`; the answer, and when (monotonic) the batch was sent."""
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}"), *(ATOMIC if atomic else ())]
    request = ctx.raw_request("POST", ctx.batch_path, head, compose_batch(subs, BOUNDARY))
    answer = _Answer()
    conn = h11.Connection(h11.CLIENT)
    # h11 reads the answer to the request sent as written; it only has to know one was sent.
    conn.send(h11.Request(method="POST", target="/", headers=[("Host", "x")]))
    conn.send(h11.EndOfMessage())
    sock = connect(ctx.host, ctx.port, ctx.timeout, ctx.tls)
    sent = time.monotonic()
    try:
        try:
            sock.sendall(request)
            _read(sock, conn, answer, wanted, sent + ctx.timeout)
        except TimeoutError as exc:
            judge.record(Exchange(request, None, f"TimeoutError: {exc}", raw=bytes(answer.raw)))
        except (OSError, h11.ProtocolError) as exc:
            answer.error = f"{type(exc).__name__}: {exc}"
        answer.before = _parts_of(answer) if answer.boundary else ()
        ended = answer.ended
        _leave(sock, how)
        if how == HALF_CLOSES and not ended and answer.error is None:
            try:
                _read(sock, conn, answer, None, time.monotonic() + DRAIN_S)
            except (OSError, h11.ProtocolError) as exc:
                judge.note(f"{how}: the rest of the answer not read ({type(exc).__name__})")
    finally:
        sock.close()
    answer.parts = _parts_of(answer) if answer.boundary else ()
    ending = "after the answer ended" if ended else "before the answer ended"
    judge.record(
        Exchange(
            request,
            None,
            f"the client {how} the connection {ending}, with {len(answer.before)} response "
            f"parts read whole ({answer.error or 'no error'})",
            raw=bytes(answer.raw),
        )
    )
    return answer, sent


def _leavings(ctx: Context, judge: Judge) -> tuple[str, ...]:
    """The ways the client can leave over this target's connections (N/A over HTTP/2)."""
    if ctx.settings.http2:
        judge.not_applicable("the answer is read from an HTTP/1.1 connection of its own")
    if ctx.tls is not None:
        judge.note("TLS has no half-close: the client only closes and resets")
        return (CLOSES, RESETS)
    return LEAVINGS


def _random_count(ctx: Context, judge: Judge) -> int | None:
    """The largest of RANDOM_COUNTS the random resource serves alone (None without the
    resource, or when it serves none of them)."""
    template = ctx.target.resource("random")
    return largest_served(ctx, judge, template, RANDOM_COUNTS) if template else None


def _within_parts(ctx: Context, judge: Judge, count: int) -> None:
    """N/A when a batch of `count` parts is over the published `max_parts`."""
    limit = ctx.limit("max_parts")
    if limit is not None and count > limit:
        judge.not_applicable(f"the batch's {count} parts are over max_parts {limit}")


def _fresh(coll: str) -> str:
    """A member path no member has had (MB-TEST-3: "1 to 64 characters of `A-Z a-z 0-9 - _`")."""
    return f"{coll.rstrip('/')}/mb-suite-left-{secrets.token_hex(7)}"


def _shows_marker(ctx: Context, judge: Judge, path: str) -> bool:
    """Whether a GET of the member at `path` shows the marker of a document a PUT alone wrote
    to it: learnt from the sandbox, since one that does not read back may store only some of a
    document (MB-TEST-4), and then answer the same representation whatever marker was sent."""
    marker = f"mb-suite-learn-{secrets.token_hex(6)}"
    put = ctx.alone(judge, SubRequest("PUT", path, JSON_FIELDS, marked_member(ctx, judge, marker)))
    if put.status not in REPLACED:
        judge.note(f"a PUT alone replacing {path} answered {put.status}; its marker not sought")
        return False
    got = ctx.alone(judge, SubRequest("GET", path))
    shows = got.status == 200 and marker.encode() in got.body
    if not shows:
        judge.note(f"a GET of {path} after a PUT alone does not show its marker: not sought")
    return shows


def _replaced(ctx: Context, judge: Judge, coll: str, marker: str) -> _Write:
    """A member created alone, and a PUT that replaces it with a document marked `marker`."""
    path = created_member(ctx, judge, coll, f"mb-suite-before-{secrets.token_hex(6)}")
    marked = ctx.target.sandbox_reads_back or _shows_marker(ctx, judge, path)
    before = ctx.alone(judge, SubRequest("GET", path))
    judge.require(f"GET {path}", before.status, {200}, "MB-TEST-3")
    put = SubRequest("PUT", path, JSON_FIELDS, marked_member(ctx, judge, marker))
    return _Write("a PUT replacing a member", put, path, marked=marked)


def _deleted(ctx: Context, judge: Judge, coll: str, marker: str) -> _Write:
    """A member created alone, and a DELETE of it."""
    path = created_member(ctx, judge, coll, f"mb-suite-before-{secrets.token_hex(6)}")
    return _Write("a DELETE", SubRequest("DELETE", path), path, present=False)


def _created(ctx: Context, judge: Judge, coll: str, marker: str) -> _Write:
    """A PUT creating a member at an id no member has had."""
    path = _fresh(coll)
    put = SubRequest("PUT", path, JSON_FIELDS, marked_member(ctx, judge, marker))
    return _Write("a PUT creating a member", put, path, marked=ctx.target.sandbox_reads_back)


def _posted(ctx: Context, judge: Judge, coll: str, marker: str) -> _Write:
    """A POST creating a member named by its answer."""
    post = SubRequest("POST", coll, JSON_FIELDS, marked_member(ctx, judge, marker))
    return _Write("a POST", post, None, marked=ctx.target.sandbox_reads_back)


def _read_member(ctx: Context, judge: Judge, write: _Write) -> Response:
    """A GET alone of the member `write` left."""
    assert write.path is not None
    return ctx.alone(judge, SubRequest("GET", write.path))


def _shows(write: _Write, got: Response, marker: str) -> bool:
    """Whether `got`, a GET of the member `write` left, shows what the write did there."""
    if not write.present:
        return got.status in GONE
    return got.status == 200 and (not write.marked or marker.encode() in got.body)


def _expect_kept(
    judge: Judge, label: str, write: _Write, got: Response, marker: str, requirement: str
) -> None:
    """Expect `got`, a GET of the member `write` left, to show what the write did there."""
    if not write.present:
        judge.expect(f"{label}: GET {write.path} afterwards", got.status, GONE, requirement)
        return
    judge.expect(f"{label}: GET {write.path} afterwards", got.status, {200}, requirement)
    if got.status == 200 and write.marked:
        judge.expect_true(
            f"{label}: {write.path} reads back",
            marker.encode() in got.body,
            repr(got.body[:120]),
            "the document the batch wrote (MB-TEST-4: what was last written to it; or the "
            "marker, where a PUT alone showed its own)",
            requirement,
        )


def _expect_kept_late(
    ctx: Context, judge: Judge, ran: list[tuple[str, _Write]], marker: str, requirement: str
) -> None:
    """Read each member of `ran` until it shows its write or LATE_S has passed, read each that
    showed it once more, and expect the last read of each to show it."""
    last: dict[int, Response] = {}
    pending = list(range(len(ran)))
    until = time.monotonic() + LATE_S
    while pending:
        for i in pending:
            last[i] = _read_member(ctx, judge, ran[i][1])
        pending = [i for i in pending if not _shows(ran[i][1], last[i], marker)]
        if not pending or time.monotonic() >= until:
            break
        time.sleep(RETRY_S)
    for i, (label, write) in enumerate(ran):
        if i in pending:
            judge.note(f"{label}: the write not shown within {LATE_S:g} s of the first read")
        else:
            # Shown once, the write must stay shown.
            last[i] = _read_member(ctx, judge, write)
        _expect_kept(judge, label, write, last[i], marker, requirement)


def _status(part: Part) -> int | None:
    value = (part.get("Http-Status-Code") or "").strip()
    return int(value) if value.isdigit() else None


def _located(ctx: Context, judge: Judge, label: str, write: _Write, part: Part) -> bool:
    """A POST's member from its part's Location; whether it names one."""
    write.path = created_path(ctx, write.sub.target, part.get("Location"))
    if write.path is None:
        judge.note(f"{label}: answered 201 without a Location; not judged")
    return write.path is not None


def _remove(ctx: Context, judge: Judge, paths: list[str | None]) -> None:
    """DELETE each member a write may have left (a member that is not there answers 404)."""
    for path in dict.fromkeys(p for p in paths if p is not None):
        ctx.alone(judge, SubRequest("DELETE", path))


def _slow_parts(ctx: Context, judge: Judge) -> list[SubRequest]:
    """The parts that keep a continue batch's answer open: a GET of the delay resource and one
    of a large random count, each where the target has it."""
    slow: list[SubRequest] = []
    delay = ctx.target.resource("delay")
    limit = ctx.target.batch_timeout_ms
    if delay and (limit is None or limit > DELAY_MS + BUDGET_ROOM_MS):
        slow.append(SubRequest("GET", ctx.path(delay.replace("{ms}", str(DELAY_MS)))))
    count = _random_count(ctx, judge)
    if count is not None:
        template = ctx.resource(judge, "random")
        slow.append(SubRequest("GET", ctx.path(template.replace("{n}", str(count)))))
    if not slow:
        judge.not_applicable(
            "the target has no delay resource the batch's time budget holds and no random "
            "resource serving a large count: nothing keeps the answer open after the writes"
        )
    return slow


@checker(
    "answered-writes-outlive-client-leaving",
    ("MB-PROC-2",),
    "The write parts of a batch answered 2xx without Batch-Outcome (a PUT creating a member, a PUT replacing one, a POST, a DELETE) keep their effects when the client, having read those parts while a slow and a large part are still to come, closes, resets or half-closes the connection: on another connection each member reads as written, or is gone.",
    state=State.WRITES_IN_SANDBOX,
    tier="standard",
)
def answered_writes_outlive_client_leaving(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    leavings = _leavings(ctx, judge)
    slow = _slow_parts(ctx, judge)
    # Four writes, then the parts that keep the answer open.
    _within_parts(ctx, judge, 4 + len(slow))
    judged = 0
    for how in leavings:
        marker = f"mb-suite-left-{secrets.token_hex(6)}"
        writes: list[_Write] = []
        try:
            writes += [_created(ctx, judge, coll, marker), _replaced(ctx, judge, coll, marker)]
            writes += [_posted(ctx, judge, coll, marker), _deleted(ctx, judge, coll, marker)]
            subs = [w.sub for w in writes] + slow
            answer, sent = _send_and_leave(ctx, judge, subs, False, len(writes), how)
            judge.require("top-level status", answer.status, {200}, "MB-STATUS-1")
            # A server that notices the client gone only when it next writes does so once the
            # slow part has had its time.
            time.sleep(max(0.0, sent + DELAY_MS / 1000 - time.monotonic()) + PAUSE_S)
            ran: list[tuple[str, _Write]] = []
            for i, (write, part) in enumerate(zip(writes, answer.parts, strict=False)):
                label = f"{how}: part {i} ({write.what})"
                status = _status(part)
                if part.get("Batch-Outcome") is not None or status is None or status // 100 != 2:
                    judge.note(f"{label}: answered {status} {part.get('Batch-Outcome')}")
                    continue
                if write.sub.method == "POST" and not _located(ctx, judge, label, write, part):
                    continue
                ran.append((label, write))
            # MB-PROC-2: "MUST produce the effects and the responses of a batch as if it had
            # run the parts one at a time": a part answered 2xx with no Batch-Outcome ran ("the
            # sub-request ran and this is its response", spec 3.3.4), no later part touches its
            # member, and the client leaving changes neither. When other requests see those
            # effects is the store's (spec 1.3: "isolation from concurrent clients is whatever
            # the server's store gives"), so a write may show a little later.
            _expect_kept_late(ctx, judge, ran, marker, "MB-PROC-2")
            judged += len(ran)
        finally:
            _remove(ctx, judge, [w.path for w in writes])
    if not judged:
        judge.not_applicable("no write part was answered 2xx before the client left")


def _put_creates(ctx: Context, judge: Judge, coll: str) -> bool:
    """Whether a PUT alone to an id no member has had creates the member (201), learnt from the
    sandbox; MB-TEST-3 lets it refuse with 404 or 405 instead."""
    path = _fresh(coll)
    doc = marked_member(ctx, judge, f"mb-suite-left-{secrets.token_hex(6)}")
    status = ctx.alone(judge, SubRequest("PUT", path, JSON_FIELDS, doc)).status
    if 200 <= status < 300:
        ctx.alone(judge, SubRequest("DELETE", path))
    if status == 201:
        return True
    judge.note(f"a PUT alone to a fresh id answered {status}: the atomic batch creates no member")
    return False


@checker(
    "atomic-commit-outlives-client-leaving",
    ("MB-PROC-16",),
    "An atomic batch whose first response part is answered 2xx without Batch-Outcome keeps every write (a POST, a PUT creating a member, then after a large part a PUT replacing one and a DELETE) when the client, having read the parts before the large one, closes, resets or half-closes the connection: on another connection each member reads as written, or is gone.",
    profile="atomic",
    state=State.WRITES_IN_SANDBOX,
    tier="standard",
)
def atomic_commit_outlives_client_leaving(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    template = ctx.resource(judge, "random")
    leavings = _leavings(ctx, judge)
    count = _random_count(ctx, judge)
    if count is None:
        judge.not_applicable("the random resource serves none of the large counts asked")
    large = SubRequest("GET", ctx.path(template.replace("{n}", str(count))))
    creates = _put_creates(ctx, judge, coll)
    # A POST, a PUT creating where the sandbox creates by PUT, the large part, a PUT, a DELETE.
    _within_parts(ctx, judge, 4 + int(creates))
    judged = 0
    for how in leavings:
        marker = f"mb-suite-left-{secrets.token_hex(6)}"
        first: list[_Write] = []
        later: list[_Write] = []
        try:
            first.append(_posted(ctx, judge, coll, marker))
            if creates:
                first.append(_created(ctx, judge, coll, marker))
            later += [_replaced(ctx, judge, coll, marker), _deleted(ctx, judge, coll, marker)]
            subs = [w.sub for w in first] + [large] + [w.sub for w in later]
            answer, _ = _send_and_leave(ctx, judge, subs, True, len(first), how)
            judge.require("top-level status", answer.status, {200}, "MB-STATUS-1")
            time.sleep(PAUSE_S)
            if not answer.before:
                judge.note(f"{how}: the client left before any response part was whole")
                continue
            head = answer.before[0]
            status = _status(head)
            if head.get("Batch-Outcome") is not None or status is None or status // 100 != 2:
                # Spec 7.5: a batch that does not commit has its parts `rolled-back` or
                # `skipped`, or one failing part; MB-PROC-16 is not at stake.
                judge.note(f"{how}: part 0 answered {status} {head.get('Batch-Outcome')}")
                continue
            # Part 0 is the POST, whose answer names its member.
            written = [*first[1:], *later]
            if _located(ctx, judge, f"{how}: part 0", first[0], head):
                written.insert(0, first[0])
            for write in written:
                index = subs.index(write.sub)
                seen = "read" if index < len(answer.before) else "not read before leaving"
                label = f"{how}: part {index} ({write.what}, {seen})"
                # MB-PROC-16: "MUST have committed the effects of every part before it sends
                # the first response part, so that every request it receives after that
                # observes all of them"; spec 7.5: "A server that must stop after it
                # committed stops as for any batch ...: the parts it does not answer did take
                # effect."
                got = _read_member(ctx, judge, write)
                _expect_kept(judge, label, write, got, marker, "MB-PROC-16")
                judged += 1
        finally:
            _remove(ctx, judge, [w.path for w in (*first, *later)])
    if not judged:
        judge.not_applicable("no atomic batch was answered committed before the client left")
