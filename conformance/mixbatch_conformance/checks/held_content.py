"""No part of a batch runs while any octet of its request is still to come (spec 7.1, MB-PROC-1).

Theory of operation: MB-PROC-1 says "A server MUST NOT run any part before it has received the
whole batch request and validated its whole envelope". A server that reads the content as it
arrives can take the batch for received early, at a point the multipart syntax suggests but
the message's framing does not: once the close delimiter has arrived (what follows it being
the epilogue, which MB-WIRE-9 has a receiver ignore), once the last part's declared body is
whole, or once the chunked data holds the close delimiter though its last-chunk and trailer
section are still to come. In the multipart form an HTTP stack may hold such a server back
(it reads the rest of the content before it sends the status line the answer begins with); in
the 207 forms, whose document is written after the parts ran, nothing does.

Each check sends batches of two writes, a DELETE of one sandbox member and a PUT replacing
another (each created alone beforehand), whose request is written up to a stall point and held
there for `STALL_S`. Meanwhile each member is read alone on other connections: the deleted
member must still answer 200, and the replaced one must not show the PUT's document (its marker
where the sandbox reads back, MB-TEST-4; else its ETag must not have moved; a sandbox with
neither leaves the PUT unjudged). Then the rest is sent, and the batch must be answered as the
same octets sent at once were (its twin, sent first with members of its own): the same status,
media type and part statuses and outcomes, and the same effects on its members afterwards.

`batch-runs-nothing-before-content-whole` frames the content by Content-Length, stalled before
the close delimiter; inside it, after its dash-boundary; after it with its line's CRLF to come
(nothing else missing); after it with a CRLF and an epilogue to come; after its line with the
epilogue to come; after it with transport padding and a CRLF to come; after the padding with the
CRLF to come. `chunked-batch-runs-nothing-before-content-whole` frames it chunked (the PUT part
and the close delimiter in the last data chunk), stalled inside the last data chunk before the
close delimiter; inside it after the close delimiter with its line's CRLF to come; after the
chunk's data with the CRLF ending the chunk to come; before the last-chunk; after the
last-chunk with the empty line ending the trailer section to come; after the last-chunk and a
trailer field with that empty line to come. Each stall point is sent in every form the target
offers (multipart/mixed, and the XML and JSON 207 forms, each asked for with Accept) and under
the continue policy and, where the target offers the atomic profile, as an atomic batch.

The batches are held in waves of one form and mode, at most `WAVE_MAX` at once (fewer when the
target publishes a smaller `max_batches_in_flight`), each on a connection of its own, so that a
check holds its batches back for about `STALL_S` per wave. A server may keep a read waiting
while a batch is held back (an atomic hold taken as the batch arrives runs no part), so the rest
is sent once the reads are done or `READ_WAIT_S` has passed, and a batch whose members were not
read by then is noted and not judged meanwhile (the check is N/A when none was); keeping a wave
to one form and mode keeps such a wait from hiding the other kinds. A batch refused 503 as over
a budget (where its twin was not) is sent again alone with fresh members. Both checks run direct
only, over HTTP/1.1 (the held requests are written on plain or TLS sockets); an intermediary may
read the whole request before it forwards it, so the server would see its content arrive at
once.
"""

from __future__ import annotations

import contextlib
import secrets
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field

from mixbatch_conformance.checks._shared.sandbox_marks import created_member, marked_member
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.representations import MULTISTATUS_FORMS, entries_from_multipart
from mixbatch_conformance.core.validator import parse_media_type, read_multipart
from mixbatch_conformance.transport.http import (
    Exchange,
    Response,
    ResponseError,
    connect,
    read_response,
)

__all__: list[str] = []

BOUNDARY = "mb-held-5d1f0c7e92a4b638"
CRLF = b"\r\n"
MULTIPART = "multipart/mixed"
JSON_FIELDS = (("Content-Type", "application/json"),)
#: Seconds a batch's rest is held back while its members are read.
STALL_S = 0.3
#: Seconds the members of a wave's batches may take to be read while the rest is held back.
READ_WAIT_S = 2.0
#: Batches held back at once: at most the published budget of batches in flight.
WAVE_MAX = 8
#: An epilogue (MB-WIRE-9: ignored by a receiver) and transport padding (MB-WIRE-11).
EPILOGUE = b"an epilogue, ignored by the receiver" + CRLF
PADDING = b" \t"
#: A trailer field no rule reads (RFC 9112 section 7.1.2).
TRAILER = b"Mb-Suite-Trailer: held" + CRLF
DIRECT_ONLY = (
    "an intermediary may read the whole request before it forwards it, so the server sees the "
    "content arrive at once"
)


@dataclass(frozen=True)
class Stall:
    """A point at which the client holds back the rest of a batch request."""

    what: str
    #: The finished content this stall point belongs to (its twin is sent once per form and
    #: mode).
    finished: str
    #: Where the held-back rest begins in the framed content, from the composed batch (which
    #: ends at its close delimiter) and the framed content.
    cut: Callable[[bytes, bytes], int]


#: The length of the close delimiter the composed batch ends with (CRLF, dash-boundary, "--").
CLOSE = len(CRLF + b"--" + BOUNDARY.encode() + b"--")


#: Finished contents framed by Content-Length: the composed batch and what follows it.
LENGTH_CONTENTS: dict[str, bytes] = {
    "ending at the close delimiter": b"",
    "ending with the close delimiter's CRLF": CRLF,
    "ending in an epilogue": CRLF + EPILOGUE,
    "ending in transport padding and a CRLF": PADDING + CRLF,
}

LENGTH_STALLS: tuple[Stall, ...] = (
    Stall(
        "held back before the close delimiter",
        "ending at the close delimiter",
        lambda base, _: len(base) - CLOSE,
    ),
    Stall(
        "held back inside the close delimiter, after its dash-boundary",
        "ending at the close delimiter",
        lambda base, _: len(base) - 2,
    ),
    Stall(
        "held back after the close delimiter, its line's CRLF to come",
        "ending with the close delimiter's CRLF",
        lambda base, _: len(base),
    ),
    Stall(
        "held back after the close delimiter, a CRLF and the epilogue to come",
        "ending in an epilogue",
        lambda base, _: len(base),
    ),
    Stall(
        "held back after the close delimiter's line, the epilogue to come",
        "ending in an epilogue",
        lambda base, _: len(base) + 2,
    ),
    Stall(
        "held back after the close delimiter, transport padding and a CRLF to come",
        "ending in transport padding and a CRLF",
        lambda base, _: len(base),
    ),
    Stall(
        "held back after the close delimiter and transport padding, the CRLF to come",
        "ending in transport padding and a CRLF",
        lambda base, _: len(base) + len(PADDING),
    ),
)

#: Finished chunked contents: the data the chunks carry after the composed batch, and the
#: trailer section's field lines.
CHUNKED_CONTENTS: dict[str, tuple[bytes, bytes]] = {
    "chunked": (b"", b""),
    "chunked, ending with the close delimiter's CRLF": (CRLF, b""),
    "chunked, with a trailer field": (b"", TRAILER),
}


def _last_data_end(framed: bytes) -> int:
    """Where the last data chunk's data ends in chunked content (the CRLF after it follows)."""
    return framed.rindex(CRLF + b"0" + CRLF)


CHUNKED_STALLS: tuple[Stall, ...] = (
    Stall(
        "held back inside the last data chunk, before the close delimiter",
        "chunked",
        lambda _, framed: _last_data_end(framed) - CLOSE,
    ),
    Stall(
        "held back inside the last data chunk, after the close delimiter, its line's CRLF to come",
        "chunked, ending with the close delimiter's CRLF",
        lambda _, framed: _last_data_end(framed) - 2,
    ),
    Stall(
        "held back after the last data chunk's data, the CRLF ending the chunk to come",
        "chunked",
        lambda _, framed: _last_data_end(framed),
    ),
    Stall(
        "held back before the last-chunk",
        "chunked",
        lambda _, framed: _last_data_end(framed) + 2,
    ),
    Stall(
        "held back after the last-chunk, the empty line ending the trailer section to come",
        "chunked",
        lambda _, framed: len(framed) - 2,
    ),
    Stall(
        "held back after the last-chunk and a trailer field, the empty line ending the trailer "
        "section to come",
        "chunked, with a trailer field",
        lambda _, framed: len(framed) - 2,
    ),
)


@dataclass
class Members:
    """The two members a batch writes: one it deletes, one it replaces with `marker`."""

    deleted: str
    replaced: str
    marker: str
    #: The replaced member's ETag before the batch (for a sandbox that does not read back).
    tag: str | None = None


@dataclass(frozen=True)
class Seen:
    """A batch's answer reduced to what is compared: status, media type, part statuses and
    outcomes (None when the answer holds no readable parts), and its effects afterwards."""

    status: int | None
    media: str | None
    parts: tuple[tuple[int | None, str | None], ...] | None
    deleted: bool
    replaced: bool | None


@dataclass
class Case:
    """One stall point in one form under one mode."""

    label: str
    twin: str
    head: list[tuple[str, str]]
    stall: Stall
    members: Members
    request: bytes = b""
    cut: int = 0
    exchange: Exchange | None = field(default=None, repr=False)


def _forms(ctx: Context) -> list[tuple[str, str]]:
    """(label, Accept) of each form the target offers."""
    out = [(MULTIPART, MULTIPART)]
    out += [
        (accept, accept)
        for profile, accept, _, _ in MULTISTATUS_FORMS
        if ctx.target.claims(profile)
    ]
    return out


def _modes(ctx: Context) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """(label, header fields) of the continue policy and, where offered, an atomic batch."""
    out: list[tuple[str, tuple[tuple[str, str], ...]]] = [("continue", ())]
    if ctx.target.claims("atomic"):
        out.append(("atomic", (("Batch-Mode", "atomic"),)))
    return out


def _members(ctx: Context, judge: Judge, coll: str) -> Members:
    """Two fresh members, and the marker a batch's PUT writes to the second."""
    old = f"mb-suite-held-old-{secrets.token_hex(6)}"
    deleted, replaced = created_member(ctx, judge, coll, old), created_member(ctx, judge, coll, old)
    members = Members(deleted, replaced, f"mb-suite-held-new-{secrets.token_hex(6)}")
    if not ctx.target.sandbox_reads_back:
        members.tag = ctx.alone(judge, SubRequest("GET", replaced)).get("ETag")
    return members


def _base(ctx: Context, judge: Judge, members: Members) -> bytes:
    """The composed batch (ending at its close delimiter): the DELETE, then the PUT."""
    doc = marked_member(ctx, judge, members.marker)
    parts = [
        SubRequest("DELETE", members.deleted),
        SubRequest("PUT", members.replaced, JSON_FIELDS, doc),
    ]
    return compose_batch(parts, BOUNDARY)


def _length_request(
    ctx: Context, head: list[tuple[str, str]], base: bytes, finished: str
) -> tuple[bytes, bytes]:
    """(the whole request, its content) framed by Content-Length."""
    content = base + LENGTH_CONTENTS[finished]
    return ctx.raw_request("POST", ctx.batch_path, head, content), content


def _chunked_request(
    ctx: Context, head: list[tuple[str, str]], base: bytes, finished: str
) -> tuple[bytes, bytes]:
    """(the whole request, its content) framed chunked: the DELETE part in the first data
    chunk, the PUT part and the close delimiter in the last, then the last-chunk and the
    trailer section."""
    after, trailer = CHUNKED_CONTENTS[finished]
    data = base + after
    split = data.index(CRLF + b"--" + BOUNDARY.encode() + CRLF)
    framed = b"".join(
        b"%x\r\n%s\r\n" % (len(chunk), chunk) for chunk in (data[:split], data[split:])
    )
    framed += b"0" + CRLF + trailer + CRLF
    fields = [*head, ("Transfer-Encoding", "chunked")]
    return ctx.raw_request("POST", ctx.batch_path, fields) + framed, framed


def _parts(resp: Response) -> tuple[tuple[int | None, str | None], ...] | None:
    """Each part's status and outcome, read from the answer's form (None when none is read)."""
    if resp.media_type == MULTIPART:
        try:
            _, params = parse_media_type(resp.get("Content-Type") or "")
        except ValueError:
            return None
        env = read_multipart(resp.body, params.get("boundary", ""))
        if env.fatal:
            return None
        entries = entries_from_multipart(env)
    else:
        readers = {accept: reader for _, accept, reader, _ in MULTISTATUS_FORMS}
        reader = readers.get(resp.media_type)
        if reader is None:
            return None
        entries, problem = reader(resp.body)
        if problem is not None:
            return None
    return tuple((e.status, e.outcome) for e in entries)


def _replaced(ctx: Context, members: Members, got: Response) -> bool | None:
    """Whether the replaced member shows the batch's PUT (None when that cannot be seen)."""
    if got.status != 200:
        return None
    if ctx.target.sandbox_reads_back:
        # MB-TEST-4: a sandbox that reads back answers a member with the document written.
        return members.marker.encode() in got.body
    if members.tag is None:
        return None
    return got.get("ETag") != members.tag


def _effects(ctx: Context, judge: Judge, members: Members) -> tuple[int, bool | None]:
    """(the deleted member's status, whether the replaced one shows the PUT), read alone."""
    gone = ctx.alone(judge, SubRequest("GET", members.deleted))
    kept = ctx.alone(judge, SubRequest("GET", members.replaced))
    return gone.status, _replaced(ctx, members, kept)


def _seen(ctx: Context, judge: Judge, resp: Response | None, members: Members) -> Seen:
    status, replaced = _effects(ctx, judge, members)
    if resp is None:
        return Seen(None, None, None, status in (404, 410), replaced)
    return Seen(resp.status, resp.media_type, _parts(resp), status in (404, 410), replaced)


def _busy(resp: Response | None) -> bool:
    return resp is not None and resp.status == 503


def _wave_size(ctx: Context) -> int:
    published = ctx.limit("max_batches_in_flight")
    return max(1, min(WAVE_MAX, published)) if published is not None else WAVE_MAX


def _read_held(
    ctx: Context, judge: Judge, wave: list[Case], released: threading.Event
) -> list[tuple[Case, int, bool | None]]:
    """Each case's members read alone, in turn, until the wave's rest is sent (`released`):
    (case, the deleted member's status, whether the replaced one shows the PUT) for each case
    whose reads were answered while its rest was still held back."""
    seen: list[tuple[Case, int, bool | None]] = []
    for case in wave:
        status, replaced = _effects(ctx, judge, case.members)
        if released.is_set():
            break
        seen.append((case, status, replaced))
    return seen


def _hold(ctx: Context, judge: Judge, wave: list[Case]) -> int:
    """Send each case's request up to its stall point, read its members meanwhile, then send
    the rest and read its answer into `case.exchange`; the count of cases whose members were
    read while their rest was held back."""
    socks: list[socket.socket] = []
    released = threading.Event()
    try:
        for case in wave:
            try:
                sock = connect(ctx.host, ctx.port, ctx.timeout, ctx.tls)
            except OSError as exc:
                judge.setup_error(f"could not open a connection for a held batch: {exc}")
            socks.append(sock)
            # An early answer may close the connection; it is read below.
            with contextlib.suppress(OSError):
                sock.sendall(case.request[: case.cut])
        time.sleep(STALL_S)
        # A server may keep a read waiting while a batch is held back (an atomic hold taken as
        # the batch arrives): the rest is sent after `READ_WAIT_S` whatever the reads, and a
        # read answered only after that is not judged.
        with ThreadPoolExecutor(1, thread_name_prefix="mixbatch-held-reads") as pool:
            reads = pool.submit(_read_held, ctx, judge, wave, released)
            with contextlib.suppress(FutureTimeout):
                reads.result(READ_WAIT_S)
            released.set()
            for case, sock in zip(wave, socks, strict=True):
                with contextlib.suppress(OSError):
                    sock.sendall(case.request[case.cut :])
            seen = reads.result()
        for case, status, replaced in seen:
            _judge_held(judge, case, status, replaced)
        for case in wave[len(seen) :]:
            judge.note(
                f"{case.label}: members not read within {READ_WAIT_S} s while the rest was held "
                "back, so not judged meanwhile"
            )
        for case, sock in zip(wave, socks, strict=True):
            reader = sock.makefile("rb")
            try:
                resp: Response | None = read_response(reader, "POST")
                error = None
            except (ResponseError, OSError) as exc:
                resp, error = None, f"{type(exc).__name__}: {exc}"
            case.exchange = judge.record(Exchange(case.request, resp, error))
        return len(seen)
    finally:
        released.set()
        for sock in socks:
            sock.close()


def _judge_held(judge: Judge, case: Case, status: int, replaced: bool | None) -> None:
    """The members as read while the case's rest was held back: untouched."""
    # MB-PROC-1: "A server MUST NOT run any part before it has received the whole batch
    # request": while an octet of it is still to come, the DELETE has not run...
    judge.expect(
        f"{case.label}: GET of the member the DELETE part removes, meanwhile",
        status,
        {200},
        "MB-PROC-1",
    )
    if replaced is None:
        return
    # ... nor has the PUT.
    judge.expect_true(
        f"{case.label}: the member the PUT part replaces, meanwhile",
        not replaced,
        "shows the PUT part's document" if replaced else "as created",
        "as created: the PUT part has not run",
        "MB-PROC-1",
    )


def _judge_answered(ctx: Context, judge: Judge, case: Case, twin: Seen) -> None:
    """The case's answer and effects once its rest was sent: as its twin's."""
    assert case.exchange is not None
    resp = case.exchange.response
    got = _seen(ctx, judge, resp, case.members)
    # MB-PROC-1: the server runs the batch once "it has received the whole batch request and
    # validated its whole envelope": the whole request, the octets its twin sent at once, so
    # the batch is answered, and its parts run, as the twin was.
    judge.expect(
        f"{case.label}: status once the rest was sent",
        got.status if resp is not None else case.exchange.error,
        {twin.status},
        "MB-PROC-1",
    )
    judge.expect(
        f"{case.label}: media type once the rest was sent", got.media, {twin.media}, "MB-PROC-1"
    )
    judge.expect(f"{case.label}: part statuses and outcomes", got.parts, [twin.parts], "MB-PROC-1")
    judge.expect(
        f"{case.label}: the DELETE part's member removed afterwards",
        got.deleted,
        {twin.deleted},
        "MB-PROC-1",
    )
    if got.replaced is not None and twin.replaced is not None:
        judge.expect(
            f"{case.label}: the PUT part's member replaced afterwards",
            got.replaced,
            {twin.replaced},
            "MB-PROC-1",
        )


def _held_batches(
    ctx: Context,
    judge: Judge,
    stalls: tuple[Stall, ...],
    frame: Callable[[Context, list[tuple[str, str]], bytes, str], tuple[bytes, bytes]],
) -> None:
    """Every stall point in every form and mode, judged against its twin."""
    if ctx.settings.http2:
        judge.not_applicable("the held batches are written on HTTP/1.1 connections")
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    mixed = ("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")
    twins: dict[str, Seen] = {}
    groups: list[list[Case]] = []

    def prepare(case: Case) -> None:
        base = _base(ctx, judge, case.members)
        case.request, content = frame(ctx, case.head, base, case.stall.finished)
        case.cut = len(case.request) - len(content) + case.stall.cut(base, content)

    for form, accept in _forms(ctx):
        for mode, mode_fields in _modes(ctx):
            head = [mixed, ("Accept", accept), *mode_fields]
            cases: list[Case] = []
            groups.append(cases)
            for finished in dict.fromkeys(s.finished for s in stalls):
                # The same octets sent at once, with members of their own: how this server
                # answers the finished content, and what it then does to the members.
                members = _members(ctx, judge, coll)
                request, _ = frame(ctx, head, _base(ctx, judge, members), finished)
                resp = ctx.send(judge, request, as_written=True)
                if _busy(resp):
                    judge.setup_error(f"the batch {finished}, {form}, {mode}, sent at once: 503")
                key = f"{finished}, {form}, {mode}"
                twins[key] = _seen(ctx, judge, resp, members)
                judge.note(f"{key}, sent at once: {resp.status} {resp.media_type}")
            for stall in stalls:
                case = Case(
                    f"{stall.what} ({stall.finished}), {form}, {mode}",
                    f"{stall.finished}, {form}, {mode}",
                    head,
                    stall,
                    _members(ctx, judge, coll),
                )
                prepare(case)
                cases.append(case)
    size = _wave_size(ctx)
    # A wave holds one form and mode at a time, so that a server keeping reads waiting while
    # batches of one kind are held back leaves the other kinds' reads judged.
    waves = [cases[at : at + size] for cases in groups for at in range(0, len(cases), size)]
    again: list[Case] = []
    judged = 0
    for wave in waves:
        judged += _hold(ctx, judge, wave)
        for case in wave:
            assert case.exchange is not None
            twin = twins[case.twin]
            if _busy(case.exchange.response) and twin.status != 503:
                judge.note(f"{case.label}: refused 503 among {len(wave)} held; sent again alone")
                case.members = _members(ctx, judge, coll)
                prepare(case)
                again.append(case)
                continue
            _judge_answered(ctx, judge, case, twin)
    for case in again:
        judged += _hold(ctx, judge, [case])
        assert case.exchange is not None
        if _busy(case.exchange.response):
            judge.setup_error(f"{case.label}: refused 503 when held alone")
        _judge_answered(ctx, judge, case, twins[case.twin])
    if not judged:
        judge.not_applicable(
            f"no member was read alone within {READ_WAIT_S} s while a batch was held back"
        )


@checker(
    "batch-runs-nothing-before-content-whole",
    ("MB-PROC-1",),
    "A batch that deletes one member and replaces another, framed by Content-Length and held back before its close delimiter, inside it, or after it with its CRLF, transport padding or an epilogue still to come, runs neither write until the rest arrives, in every form and mode offered, and is then answered as the same octets sent at once.",
    tier="standard",
    state=State.WRITES_IN_SANDBOX,
    direct_only=DIRECT_ONLY,
)
def batch_runs_nothing_before_content_whole(ctx: Context, judge: Judge) -> None:
    _held_batches(ctx, judge, LENGTH_STALLS, _length_request)


@checker(
    "chunked-batch-runs-nothing-before-content-whole",
    ("MB-PROC-1",),
    "A chunked batch that deletes one member and replaces another, held back inside its last data chunk before or after the close delimiter, before the CRLF ending that chunk, before the last-chunk, or before the end of its trailer section, runs neither write until the rest arrives, in every form and mode offered, and is then answered as the same octets sent at once.",
    tier="standard",
    state=State.WRITES_IN_SANDBOX,
    direct_only=DIRECT_ONLY,
)
def chunked_batch_runs_nothing_before_content_whole(ctx: Context, judge: Judge) -> None:
    _held_batches(ctx, judge, CHUNKED_STALLS, _chunked_request)
