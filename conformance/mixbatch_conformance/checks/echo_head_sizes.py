"""The echo's report of a request's fields, in the order received, whatever the size of the
request's head (MB-TEST-2).

Theory of operation: MB-TEST-2 makes the echo list "the request's header fields as an array of
`[name, value]` pairs in the order received". A server whose HTTP stack hands a handler the
fields as a map recovers their order from somewhere else, the octets read from the connection
say, and may keep only so many of them: a request whose head is longer than what it kept is
reported from the map, sorted by name and in a canonical case, or not at all. Small requests
never show that.

The check sends GET requests to the echo, alone, whose heads are about 4 KiB and 8 KiB + 1,
16 KiB + 1, 32 KiB + 1 and 64 KiB + 1 octets (request line to the empty line), made up by a
padding field among fields in no sorted order, their names in mixed case, one name twice on
either side of the padding. The spec fixes no head size a server must take alone (RFC 9110
§5.4 lets it refuse "a request header field line, field value, or set of fields larger than it
wishes to process" with a 4xx), so the first answer 400 or 431, or a connection closed
without an answer, ends the sizes tried. Each part whose header section fits the published
`max_part_header_bytes` (spec 9.1: "a part header section of exactly `max_part_header_bytes`
octets is accepted"; 8 KiB when none is published) is also sent as the one part of a batch,
among them one of exactly that size. Every echo answered 200 must report the fields sent in the
order sent and with their values (MB-TEST-2); their names are compared without case and the
fields the suite did not send (those the stack adds, credentials, framing fields) are left
out, as MB-TEST-2 lets an echo "write field names in any case, and ... add fields its HTTP
stack adds".

A record of the octets a connection read may also stop at a size: `echo-field-order-after-large-
requests` sends, on one kept connection, a POST to the echo with 256 KiB + 1, 1 MiB + 1 and
4 MiB + 1 octets of content, each followed by a small GET of the echo, whose fields must be
reported as sent; a size refused, or a connection closed after it, ends the sizes tried.
"""

from __future__ import annotations

from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import part_status
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import parse_media_type, read_multipart
from mixbatch_conformance.transport.http import Response

__all__: list[str] = []

#: The sizes of the request heads sent alone, in octets.
SIZES = (4096, 8 * 1024 + 1, 16 * 1024 + 1, 32 * 1024 + 1, 64 * 1024 + 1)
#: The published limit assumed when none is (spec 9.1's default).
DEFAULT_PART_HEADER_BYTES = 8192
PAD = "X-Mb-Pad"
#: The fields around the padding, in no sorted order and mixed case, one name twice.
BEFORE = (("X-Mb-Zulu", "1"), ("x-mb-twice", "first"), ("X-MB-MIKE", "m"))
AFTER = (("x-mb-alpha", "2"), ("X-Mb-Twice", "second"), ("X-mb-Bravo", "b"))


def _fields(pad: int) -> tuple[tuple[str, str], ...]:
    filler = ("0123456789abcdef" * (pad // 16 + 1))[:pad]
    return (*BEFORE, (PAD, filler), *AFTER)


def _alone(ctx: Context, echo: str, size: int) -> tuple[bytes, tuple[tuple[str, str], ...]]:
    """A GET of the echo whose head, request line to the empty line, is `size` octets, and the
    fields the suite chose for it."""
    bare = ctx.raw_request("GET", f"{echo}?mb-head={size}", list(_fields(0)))
    fields = _fields(size - len(bare))
    return ctx.raw_request("GET", f"{echo}?mb-head={size}", list(fields)), fields


def _part(echo: str, size: int) -> SubRequest:
    """A GET part of the echo whose header section (field lines with their CRLFs, spec 9.1) is
    `size` octets."""
    sub = SubRequest("GET", f"{echo}?mb-part-head={size}", _fields(0))
    bare = len(f"Http-Method: GET\r\nContent-Id: {sub.content_id}\r\n") + sum(
        len(f"{n}: {v}\r\n") for n, v in sub.headers
    )
    return SubRequest("GET", sub.target, _fields(size - bare))


def _expect_report(
    judge: Judge, label: str, body: bytes, sent: tuple[tuple[str, str], ...]
) -> None:
    seen = read_echo(body)
    if seen is None:
        judge.expect_true(
            f"{label}: an echo description",
            False,
            repr(body[:80]),
            "a JSON object with method, target and headers",
            "MB-TEST-2",
        )
        return
    names = {n.lower() for n, _ in sent}
    got = [(n.lower(), v) for n, v in seen.headers if n.lower() in names]
    want = [(n.lower(), v) for n, v in sent]

    def shown(pairs: list[tuple[str, str]]) -> list[str]:
        return [f"{n}: {v if len(v) < 40 else f'<{len(v)} octets>'}" for n, v in pairs]

    # MB-TEST-2: "`headers`, the request's header fields as an array of `[name, value]` pairs in
    # the order received"; the echo "may write field names in any case" and "may add fields
    # its HTTP stack adds", so the fields sent are compared by name without case.
    judge.expect(
        f"{label}: the fields sent, as echoed",
        shown(got),
        [shown(want)],
        "MB-TEST-2",
        allowed_text=f"in the order sent: {shown(want)}",
    )


@checker(
    "echo-field-order-every-head-size",
    ("MB-TEST-2",),
    "The echo reports the fields of a GET alone whose head is about 4 KiB, 8 KiB + 1, 16 KiB + 1, 32 KiB + 1 and 64 KiB + 1 octets (up to the first size refused 400 or 431), and of a part whose header section fits max_part_header_bytes, in the order and with the values sent.",
    state=State.READ_ONLY,
    direct_only="an intermediary may write the request's field lines anew",
)
def echo_field_order_every_head_size(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    judged = 0
    for size in SIZES:
        request, fields = _alone(ctx, echo, size)
        label = f"GET alone, head of {size} octets"
        ex = ctx.send_many(judge, [request])[0]
        resp: Response | None = ex.response
        if resp is None:
            judge.note(f"{label}: no answer ({ex.error}); larger heads not sent")
            break
        # RFC 9110 §5.4: a server that receives "a set of fields larger than it wishes to
        # process MUST respond with an appropriate 4xx (Client Error) status code"; any 4xx
        # ends the sizes tried.
        if 400 <= resp.status < 500:
            judge.note(f"{label}: refused {resp.status}; larger heads not sent")
            break
        # MB-TEST-2: "MUST answer every request to that resource whose method a sub-request may
        # carry, other than `HEAD`, with 200".
        if judge.expect(f"{label}: status", resp.status, {200}, "MB-TEST-2"):
            judged += 1
            _expect_report(judge, label, resp.body, fields)
    limit = ctx.limit("max_part_header_bytes") or DEFAULT_PART_HEADER_BYTES
    sizes = sorted({s for s in SIZES if s <= limit} | {limit})
    for size in sizes:
        sub = _part(echo, size)
        resp = ctx.batch(judge, [sub])
        label = f"GET part, header section of {size} octets"
        if resp.status != 200:
            judge.note(f"{label}: the batch was answered {resp.status}")
            continue
        try:
            boundary = parse_media_type(resp.get("Content-Type") or "")[1].get("boundary", "")
        except ValueError:
            boundary = ""
        env = read_multipart(resp.body, boundary) if boundary else None
        if env is None or not env.parts:
            judge.note(f"{label}: no part could be read from the answer")
            continue
        status = part_status(env, 0)
        if status is not None and 400 <= status < 500:
            # MB-SUB-1: a sub-request gets the input checks the same request gets alone, so a
            # server whose own head limit is near its part limit may refuse both alike.
            alone = ctx.alone(judge, sub)
            if alone.status == status:
                judge.note(f"{label}: answered {status}, as the same request alone")
                continue
        if judge.expect(f"{label}: status", status, {200}, "MB-TEST-2"):
            judged += 1
            _expect_report(judge, label, env.parts[0].body, sub.headers)
    if not judged:
        judge.not_applicable("no request to the echo was answered 200")


#: Octets of content sent to the echo ahead of a small GET on the same connection: past the
#: 256 KiB, 1 MiB and 4 MiB a server may keep of what a connection read.
AHEAD_SIZES = (256 * 1024 + 1, 1024 * 1024 + 1, 4 * 1024 * 1024 + 1)


@checker(
    "echo-field-order-after-large-requests",
    ("MB-TEST-2",),
    "On one kept connection, a GET of the echo after a POST to it with 256 KiB + 1, 1 MiB + 1 or 4 MiB + 1 octets of content (up to the first size refused or not kept) is reported with the fields in the order and with the values sent.",
    tier="standard",
    state=State.READ_ONLY,
    direct_only="an intermediary may write the request's field lines anew",
)
def echo_field_order_after_large_requests(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    fields = _fields(0)
    get = ctx.raw_request("GET", f"{echo}?mb-after=large", list(fields))
    judged = 0
    for size in AHEAD_SIZES:
        content = (b"0123456789abcdef" * (size // 16 + 1))[:size]
        post = ctx.raw_request(
            "POST", f"{echo}?mb-ahead={size}", [("Content-Type", "text/plain")], content
        )
        first, second = ctx.send_in_turn(judge, [post, get])
        label = f"GET after {size} octets of content on its connection"
        # RFC 9110 §15.5.14 lets a server refuse content larger than it is willing to process
        # (413), and RFC 9112 §9.6 lets it close a connection after any answer: either ends the
        # sizes tried.
        if first.response is None or first.response.status != 200 or second.response is None:
            shown = first.response.status if first.response else first.error
            judge.note(f"{label}: the POST answered {shown}, the GET {second.error}; stopped")
            break
        # MB-TEST-2: the echo answers such a GET 200 and lists "the request's header fields
        # ... in the order received", whatever came before it on the connection.
        if judge.expect(f"{label}: status", second.response.status, {200}, "MB-TEST-2"):
            judged += 1
            _expect_report(judge, label, second.response.body, fields)
    if not judged:
        judge.not_applicable("no GET behind a large request on one connection was answered")
