"""A response delimiter written into a member while the batch that reads it runs (MB-WIRE-6).

Theory of operation: MB-WIRE-6 says "A sender MUST ensure that the delimiter (CRLF, two hyphens
and the boundary) does not occur in any part's header section or body, nor the dash-boundary at
the start of a body or after a bare LF in it, and MUST choose another boundary, or fail, when it
would", and its prose has the sender look "for the dash-boundary at
the start of a body and after every LF in it, with or without a CR before the LF"; section
3.1.3 adds that the check looks "for the dash-boundary at the start of any line of content, not
only for the whole delimiter line". A fresh random boundary (MB-WIRE-5) makes a collision by
chance improbable, so the check makes one on purpose: the batch [a GET of the ok resource, a
GET of the delay resource, a PUT of a second sandbox member, a GET of the member] is sent on a
connection of its own, the head of its answer is read while the slow part runs
(`transport.http.HeadFirst`; the quick first part lets a server that sends its head only with
its first part send it then), and on a second connection the member is replaced with content
holding that answer's delimiter. The member's part then reads it back. The PUT between them is
a barrier: MB-PROC-3 lets a server run only "consecutive safe sub-requests concurrently", so
the GET of the member cannot start before the slow part has finished.

Each content puts the delimiter in one place and one form: a close delimiter and an ordinary
delimiter at the very start of the body, the delimiter with transport padding there, an
ordinary delimiter after a CRLF in the middle, a close delimiter at the end, one with padding
and a CRLF after it, the dash-boundary after a bare LF, the dash-boundary alone ending the body
after a bare LF and after a CRLF, and the dash-boundary followed by more
text on its line (MB-WIRE-19 makes any line that begins with it a delimiter line). Further
contents mention the dash-boundary where it is no delimiter (mid-line, after a CR alone, one
octet into the body, followed by more bchars, as a close delimiter mid-line, several times on
a line) before a line that begins with it, or after one: a sender that looks at the first
occurrence alone, or the last, takes the whole body for clear, and the delimiter line ends its
answer early. Two last contents put a delimiter line after 63 KiB and after 1,000 KiB of text,
past a scan bounded to a buffer's worth of octets, each within a sandbox that keeps members of
64 KiB, or one MiB. One batch is sent per content, so that a server that fails by aborting the batch
is judged on each.

Once the head is sent the boundary cannot change, so the server must fail. What spec 5.4
allows a server that stops after its response began is accepted: the member's part missing,
an abort part in its place (MB-STATUS-6, naming in `part_index` the member's part or, had it
stopped before an earlier part was written, that one), or the answer cut short without the
close delimiter; and a part that failed,
answered with a 5xx status (the part reports its failure, MB-STATUS-5). A part carrying exactly
the member's octets is accepted too, though with this boundary it cannot occur. The answer
fails when it holds the delimiter inside a body: the strict reader finds a framing fault (a
Content-Length that disagrees with the octets before the next delimiter, a header section
where a body went on, a bare-LF delimiter, text after a dash-boundary), a close delimiter comes
before the real one (the dash-boundary in the epilogue), the batch's three parts come back as
more, or the member's part carries other octets than the member's.

A member part that carries the member as it was before the write ran before the write landed
(the write came late), and is not judged; nor is a content the sandbox did
not keep (its PUT refused, or a GET of it alone answering other octets). The member is
written back with its JSON document after each batch, and deleted when the check ends.

Not applicable: without a delay resource, a sandbox collection or a `sandbox.member` document;
over HTTP/2 (the head is read from an HTTP/1.1 connection); when the sandbox keeps no content
other than its JSON document (no JSON token begins with two hyphens, and a string holds no raw
CR or LF, so a JSON document holds no dash-boundary at a line's start); when the head of the
answer arrives only after
the slow part finished, so no write can come between them. A member's header fields cannot
carry the delimiter (a field value holds no CRLF), and the JSON and XML forms have no boundary.

`collection-delimiter-planted-in-member` does the same to the other multipart answer a server
writes with stored content in it, the collection retrieval (spec 4.2, profile
`collection-get`), whose writer MB-WIRE-6 binds as it binds a batch's. Its boundary is known
only from an earlier retrieval, so the member is written, content after content, with the
delimiter of the retrieval before, and the collection retrieved again: under a boundary that
depends on the members the delimiter no longer collides, under one that does not it does, and
either way the retrieval must read strictly, part for part as before, the member's part
carrying its octets whole; a retrieval that fails (5xx) is accepted. Not applicable when the
sandbox collection has no multipart retrieval, the sandbox keeps no content other than JSON,
or the retrieval does not carry the member's content.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from mixbatch_conformance.checks._shared.sandbox_marks import created_member
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch, json_object
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import Envelope, Part, parse_media_type, read_multipart
from mixbatch_conformance.transport.http import Exchange, HeadFirst, Response

__all__: list[str] = []

BOUNDARY = "mb-planted-7a3c05e1d9b2f864"
#: How long the first part runs: time enough to read the head and write the member.
DELAY_MS = 600
#: The index of the member's part in the batch: after the quick part, the slow part and the
#: barrier.
MEMBER_PART = 3
#: The media types a content is written in, in turn, until the sandbox keeps one.
MEDIA_TYPES = ("text/plain", "application/octet-stream")
#: What the sandbox is first asked to keep, to learn whether it keeps content at all.
PROBE = b"mb-suite text\r\n--mb-suite-line\r\n"

#: Text lines of a body that puts its delimiter far in: 1 KiB each, the last one's CRLF the
#: delimiter's.
LONG_LINE = b"x" * 1022 + b"\r\n"
#: Lines before the far delimiters: 63 KiB and 1,000 KiB, each past a scan bounded to a
#: buffer's worth of octets (up to 32 KiB, up to 512 KiB), each in a member a sandbox that
#: keeps 64 KiB, or one MiB, keeps.
FAR_LINES = 63
FARTHER_LINES = 1000

#: (where the delimiter stands, the member content around the dash-boundary `d`).
FORMS: tuple[tuple[str, Callable[[bytes], bytes]], ...] = (
    ("a close delimiter at the body's start", lambda d: d + b"--"),
    (
        "a delimiter at the body's start, a part after it",
        lambda d: d + b"\r\nHttp-Status-Code: 200\r\n\r\nplanted",
    ),
    ("a delimiter with transport padding at the body's start", lambda d: d + b" \t\r\nplanted"),
    ("a delimiter after a CRLF mid-body", lambda d: b"before\r\n" + d + b"\r\nafter"),
    ("a close delimiter after a CRLF at the body's end", lambda d: b"before\r\n" + d + b"--"),
    (
        "a close delimiter with padding and a CRLF at the body's end",
        lambda d: b"before\r\n" + d + b"-- \t\r\n",
    ),
    ("the dash-boundary after a bare LF", lambda d: b"before\n" + d + b"\r\nafter"),
    # A dash-boundary that ends the body meets the CRLF and dash-boundary the writer puts after
    # it: two delimiter lines, the part ending early.
    ("the dash-boundary ending the body, after a bare LF", lambda d: b"before\n" + d),
    ("the dash-boundary ending the body, after a CRLF", lambda d: b"before\r\n" + d),
    (
        "the dash-boundary and more text on its line",
        lambda d: b"before\r\n" + d + b"planted\r\nafter",
    ),
    # MB-WIRE-6: the delimiter "does not occur in any part's header section or body, nor the
    # dash-boundary at the start of a body or after a bare LF in it": any occurrence, so a
    # mention that is no delimiter (mid-line, after a CR alone) before or after one that is
    # leaves the body colliding.
    (
        "the dash-boundary mid-line, then a close delimiter after a CRLF",
        lambda d: b"x" + d + b"\r\n" + d + b"--\r\n",
    ),
    (
        "the dash-boundary after a CR alone, then after a bare LF",
        lambda d: b"before\r" + d + b" mid\n" + d + b"\r\nafter",
    ),
    (
        "the dash-boundary one octet into the body, then a delimiter after a CRLF",
        lambda d: b"-" + d + b"\r\n" + d + b"\r\nafter",
    ),
    (
        "the dash-boundary and more bchars mid-line, then so at a line's start",
        lambda d: b"x" + d + b"planted\r\n" + d + b"planted\r\nafter",
    ),
    (
        "a close delimiter mid-line, then a delimiter after a CRLF",
        lambda d: b"x" + d + b"--\r\n" + d + b"\r\nafter",
    ),
    (
        "several mentions on a line, then a close delimiter at the body's end",
        lambda d: b"a" + d + b" b" + d + b"--\rc" + d + b"\r\n" + d + b"--",
    ),
    (
        "a close delimiter at the body's start, then a mention mid-line",
        lambda d: d + b"--\r\nx" + d,
    ),
    (
        "a delimiter after a CRLF, then mentions mid-line and after a CR alone",
        lambda d: b"before\r\n" + d + b"\r\nx" + d + b"\r" + d,
    ),
    # MB-WIRE-6 binds "any part's ... body" whatever its size: a scan that stops after a
    # buffer's worth of octets lets a delimiter further on through.
    (
        "a delimiter after a CRLF 63 KiB into the body",
        lambda d: LONG_LINE * FAR_LINES + d + b"\r\nafter",
    ),
    (
        "a delimiter after a CRLF 1,000 KiB into the body",
        lambda d: LONG_LINE * FARTHER_LINES + d + b"\r\nafter",
    ),
)


def _written(ctx: Context, judge: Judge, path: str, media: str, content: bytes) -> bool:
    """Whether the sandbox took `content` into the member `path` (a PUT answered 2xx) and
    keeps it: a GET alone answers its very octets (MB-TEST-4: "for any other media type, the
    same octets")."""
    put = ctx.send(judge, ctx.raw_request("PUT", path, [("Content-Type", media)], content))
    if not 200 <= put.status < 300:
        return False
    return ctx.send(judge, ctx.raw_request("GET", path)).body == content


def _keeping_media(ctx: Context, judge: Judge, path: str) -> str | None:
    """The first media type of `MEDIA_TYPES` whose content the sandbox keeps, or None."""
    for media in MEDIA_TYPES:
        if _written(ctx, judge, path, media, PROBE):
            return media
    return None


def _restore(ctx: Context, judge: Judge, path: str, document: bytes) -> None:
    ctx.send(judge, ctx.raw_request("PUT", path, [("Content-Type", "application/json")], document))


def _content_of(ex: Exchange) -> bytes:
    """The content of an answer whose connection closed part way: what arrived after its head,
    with the chunked framing taken off as far as it goes."""
    head, _, rest = ex.raw.partition(b"\r\n\r\n")
    if not re.search(rb"(?im)^transfer-encoding:[^\r\n]*chunked", head):
        return rest
    out = bytearray()
    while True:
        line, sep, rest = rest.partition(b"\r\n")
        m = re.match(rb"[0-9A-Fa-f]+", line)
        if not sep or m is None or int(m.group(0), 16) == 0:
            return bytes(out)
        size = int(m.group(0), 16)
        out += rest[:size]
        if len(rest) < size + 2:
            return bytes(out)
        rest = rest[size + 2 :]


def _aborted(part: Part) -> bool:
    return [v.strip() for v in part.get_all("Batch-Outcome")] == ["aborted"]


def _judge_answer(
    judge: Judge, label: str, env: Envelope, dash: bytes, member: bytes, before: bytes
) -> bool:
    """Judge the answer to one batch; whether it was judged (False: the member's part ran
    before the write landed, so no delimiter reached it)."""
    # MB-WIRE-6: "the delimiter ... does not occur in any part's header section or body": a
    # body that held it reads as a framing fault, a Content-Length that disagrees with the
    # octets before the (planted) delimiter above all. A missing close delimiter is the cut
    # short answer spec 5.4 allows "when the server cannot write the abort part".
    for finding in env.findings:
        if finding.fatal and finding.receiver != "MB-WIRE-13":
            judge.expect_true(
                f"{label}: the answer's framing",
                False,
                f"{finding.message} at octet {finding.offset}",
                "no delimiter inside a part: the server fails (spec 5.4) or writes the member "
                "whole",
                "MB-WIRE-6",
            )
            return True
    if dash in env.epilogue:
        # A close delimiter the member held ended the multipart body before the real one.
        judge.expect_true(
            f"{label}: the epilogue",
            False,
            f"the dash-boundary in the epilogue: {env.epilogue[:60]!r}",
            "the close delimiter once, at the end",
            "MB-WIRE-6",
        )
        return True
    parts = list(env.parts)
    aborted = [i for i, p in enumerate(parts) if _aborted(p)]
    if aborted:
        # MB-STATUS-6: the abort part, "when written, is the last part", and names in
        # `part_index` "the first part it does not answer": the member's part, or an earlier
        # one had the server stopped before writing it.
        at = aborted[0]
        judge.expect(f"{label}: parts after the abort part", len(parts) - at - 1, {0}, "MB-WIRE-6")
        doc = json_object(parts[at].body) or {}
        judge.expect(f"{label}: abort part_index", doc.get("part_index"), {at}, "MB-STATUS-6")
        parts = parts[:at]
    # MB-RESP-1: one response part per request part; a part the planted delimiter split off
    # would be one more.
    judge.expect(f"{label}: response parts", len(parts) <= MEMBER_PART + 1, {True}, "MB-WIRE-6")
    if len(parts) <= MEMBER_PART:
        how = "an abort part in its place" if aborted else "the answer cut short"
        judge.note(f"{label}: the member's part not answered, {how}")
        return True
    part = parts[MEMBER_PART]
    status = (part.get("Http-Status-Code") or "").strip(" \t")
    if part.body == before and part.body != member:
        judge.note(f"{label}: the member's part ran before the write (status {status})")
        return False
    if status.isdigit() and 500 <= int(status) <= 599:
        judge.note(f"{label}: the member's part failed with {status}")
        return True
    if part.body != member and member.startswith(part.body) and dash not in part.body:
        # A start of the member and no delimiter: a read that met the write part way, which
        # says nothing of the writer's check.
        judge.note(f"{label}: the member's part holds its first {len(part.body)} octets only")
        return False
    # MB-WIRE-6: written whole, the member's part carries exactly its octets (MB-RESP-4).
    judge.expect_true(
        f"{label}: the member's part",
        part.body == member,
        f"{status or 'no status'}, {len(part.body)} octets {part.body[:40]!r}",
        f"the member's {len(member)} octets, or a failure (a 5xx part, an abort part)",
        "MB-WIRE-6",
    )
    return True


def _one_form(
    ctx: Context,
    judge: Judge,
    label: str,
    form: Callable[[bytes], bytes],
    path: str,
    media: str,
    document: bytes,
    barrier: SubRequest,
) -> bool | str:
    """Send the batch for one content and judge it; whether it was judged, or why no content
    can be (the answer is no multipart batch response, or its head came too late for any
    write to come between it and the member's part)."""
    before = ctx.send(judge, ctx.raw_request("GET", path)).body
    ok = ctx.path(ctx.resource(judge, "ok"))
    delay = ctx.path(ctx.resource(judge, "delay").replace("{ms}", str(DELAY_MS)))
    subs = [SubRequest("GET", ok), SubRequest("GET", delay), barrier, SubRequest("GET", path)]
    body = compose_batch(subs, BOUNDARY)
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    request = ctx.raw_request("POST", ctx.batch_path, head, body)
    started = time.monotonic()
    streaming = HeadFirst(ctx.host, ctx.port, request, ctx.timeout, ctx.tls)
    took = time.monotonic() - started
    try:
        media_type, params = parse_media_type(streaming.get("Content-Type") or "")
    except ValueError:
        media_type, params = "", {}
    boundary = params.get("boundary", "")
    if streaming.status != 200 or media_type != "multipart/mixed" or not boundary:
        judge.record(streaming.finish())
        return (
            f"the batch was answered {streaming.status or streaming.error} "
            f"{streaming.get('Content-Type')!r}, not a multipart batch response"
        )
    if took * 1000 >= DELAY_MS:
        judge.record(streaming.finish())
        return (
            f"the head of the answer came after {took:.2f} s, when the slow part of "
            f"{DELAY_MS} ms had finished: no write comes between the boundary and the part"
        )
    dash = b"--" + boundary.encode("latin-1")
    member = form(dash)
    # A second connection: the member now holds the delimiter of the answer being written.
    kept = _written(ctx, judge, path, media, member)
    ex = judge.record(streaming.finish())
    _restore(ctx, judge, path, document)
    if not kept:
        judge.note(f"{label}: the sandbox did not keep the content; not judged")
        return False
    content = ex.response.body if ex.response is not None else _content_of(ex)
    if ex.response is None:
        judge.note(f"{label}: the answer ended early ({ex.error})")
    elif ex.response.get("Content-Encoding"):
        judge.note(f"{label}: the answer came in a content coding; not judged")
        return False
    return _judge_answer(judge, label, read_multipart(content, boundary), dash, member, before)


@checker(
    "response-delimiter-planted-in-member",
    ("MB-WIRE-6", "MB-STATUS-6"),
    "A member that a second connection fills, while the batch that reads it runs, with the delimiter of that batch's answer (a close or ordinary delimiter at the body's start, with padding, mid-body, at the end, after a bare LF, with text after it, before or after mentions of the dash-boundary that are no delimiter: mid-line, after a CR alone) makes the server fail (an abort part, a 5xx part, an answer cut short), never write the delimiter inside a part.",
    state=State.WRITES_IN_SANDBOX,
)
def response_delimiter_planted_in_member(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("the head of the answer is read from an HTTP/1.1 connection")
    ctx.resource(judge, "delay")
    limit = ctx.target.batch_timeout_ms
    if limit is not None and limit <= DELAY_MS + 500:
        judge.not_applicable(f"the slow part would outlast the declared batch_timeout_ms {limit}")
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    path = created_member(ctx, judge, coll, "mb-suite-planted-delimiter")
    document = ctx.send(judge, ctx.raw_request("GET", path)).body
    second = created_member(ctx, judge, coll, "mb-suite-planted-delimiter-barrier")
    barrier = SubRequest(
        "PUT",
        second,
        (("Content-Type", "application/json"),),
        ctx.send(judge, ctx.raw_request("GET", second)).body,
    )
    media = _keeping_media(ctx, judge, path)
    _restore(ctx, judge, path, document)
    if media is None:
        judge.not_applicable(
            f"the sandbox keeps no {' or '.join(MEDIA_TYPES)} content, and a JSON document "
            "cannot hold the delimiter"
        )
    judged = 0
    for label, form in FORMS:
        outcome = _one_form(ctx, judge, label, form, path, media, document, barrier)
        if isinstance(outcome, str):
            if not judged:
                judge.not_applicable(outcome)
            judge.note(f"{label}: not judged, {outcome}")
            break
        judged += outcome
    if not judged:
        judge.not_applicable("every member part ran before its write landed")


def _retrieve(ctx: Context, judge: Judge, coll: str) -> Response:
    return ctx.send(judge, ctx.raw_request("GET", coll, [("Accept", "multipart/mixed")]))


def _retrieval(coll: str, resp: Response) -> tuple[str, Envelope] | str:
    """The collection retrieval of `coll` answered `resp`: its boundary and its parts read; or
    why it is none (another status, media type or no boundary)."""
    try:
        media_type, params = parse_media_type(resp.get("Content-Type") or "")
    except ValueError:
        media_type, params = "", {}
    boundary = params.get("boundary", "")
    if resp.status != 200 or media_type != "multipart/mixed" or not boundary:
        return f"GET {coll} with Accept: multipart/mixed answered {resp.status} {media_type!r}"
    return boundary, read_multipart(resp.body, boundary)


@checker(
    "collection-delimiter-planted-in-member",
    ("MB-WIRE-6",),
    "A sandbox member written with the delimiter of the collection's last multipart retrieval (each content of the batch's answer: at a body's start, after a CRLF or a bare LF, with padding or text after it, before or after mentions that are no delimiter) is carried by the next retrieval whole, under a boundary that does not collide, or the retrieval fails.",
    state=State.WRITES_IN_SANDBOX,
    profile="collection-get",
)
def collection_delimiter_planted_in_member(ctx: Context, judge: Judge) -> None:
    coll = ctx.path(ctx.resource(judge, "sandbox_collection"))
    path = created_member(ctx, judge, coll, "mb-suite-collection-delimiter")
    document = ctx.send(judge, ctx.raw_request("GET", path)).body
    media = _keeping_media(ctx, judge, path)
    if media is None:
        _restore(ctx, judge, path, document)
        judge.not_applicable(
            f"the sandbox keeps no {' or '.join(MEDIA_TYPES)} content, and a JSON document "
            "cannot hold the delimiter"
        )
    first = _retrieval(coll, _retrieve(ctx, judge, coll))
    if isinstance(first, str) or not any(p.body == PROBE for p in first[1].parts):
        _restore(ctx, judge, path, document)
        judge.not_applicable(
            first if isinstance(first, str) else "the retrieval does not carry the member's content"
        )
    boundary, env = first
    for label, form in FORMS:
        member = form(b"--" + boundary.encode("latin-1"))
        if not _written(ctx, judge, path, media, member):
            judge.note(f"{label}: the sandbox did not keep the content; not judged")
            continue
        resp = _retrieve(ctx, judge, coll)
        if 500 <= resp.status <= 599:
            # MB-WIRE-6: "MUST choose another boundary, or fail, when it would".
            judge.note(f"{label}: the retrieval failed with {resp.status}")
            continue
        answered = _retrieval(coll, resp)
        if isinstance(answered, str):
            judge.note(f"{label}: {answered}; not judged")
            continue
        now, env = answered
        judge.note(f"{label}: boundary {'kept' if now == boundary else 'changed'}")
        dash = b"--" + now.encode("latin-1")
        # MB-WIRE-6: "the delimiter ... does not occur in any part's header section or body,
        # nor the dash-boundary at the start of a body or after a bare LF in it".
        faults = [f for f in env.findings if f.fatal]
        judge.expect_true(
            f"{label}: the retrieval's framing",
            not faults and dash not in env.epilogue,
            f"{faults[0].message} at octet {faults[0].offset}"
            if faults
            else repr(env.epilogue[:60]),
            "no delimiter inside a part: another boundary, or a failure",
            "MB-WIRE-6",
        )
        # 14.4: "a sandbox may be shared with other clients; a check never relies on the number
        # of members in it": the member's own part, whole, is what a collision would break.
        judge.expect_true(
            f"{label}: the member's part",
            any(p.body == member for p in env.parts),
            f"no part carries the member's {len(member)} octets",
            "the member's octets, whole, in its part",
            "MB-WIRE-6",
        )
        boundary = now
    _restore(ctx, judge, path, document)
