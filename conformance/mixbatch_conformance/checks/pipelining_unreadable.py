"""Requests pipelined ahead of one the server cannot read are answered first (spec 11).

Theory of operation: a server's HTTP parser may meet a request it cannot read (a field line
without a colon, whitespace between a field name and its colon: RFC 9112 §5.1 answers the
latter 400) while the requests before it on the connection are still being answered. MB-PIPE-1
binds the order: "A server MUST answer pipelined requests on a connection, batch requests and
other requests alike, in the order it received them", and RFC 9112 §9.3.2 says the same of
every HTTP/1.1 server ("it MUST send the corresponding responses in the same order that the
requests were received"). A server whose parser error writes its 400 and closes the connection
at once, while a batch ahead of it still runs, loses that batch's answer.

`pipelining-answers-ahead-of-unreadable-request` writes, in one send, a request the server
answers and behind it one it refuses as soon as it reads it, for each leader (a one-part batch; a
batch whose part takes `HOLD_MS` at the delay resource, and a GET of the delay resource for as
long, when the target declares one, so the parser meets the request behind while the one ahead
still runs; a GET of `ok`) and each follower: a GET holding a field line no HTTP/1.1 server
reads, a batch whose chunked content has a chunk-size that is not hexadecimal (RFC 9112 §7.1),
and a `CONNECT` (which an origin server refuses, RFC 9110 §9.3.6). MB-PIPE-1 lets a server close
the connection after the last two without reading on, but only once the answers ahead of them
are written. Each leader is first sent alone; pipelined it must get the same status, its answer
whole, before anything else. What the follower gets is not judged here: a 4xx, or the
connection closed once the answers ahead of it are written. An intermediary may de-pipeline, so
the check runs direct only.

`pipelining-slow-answers-ahead-of-early-refusals` gives the request ahead time: a GET of the delay
resource for `LONG_MS`, pipelined ahead of a field line without a colon and of a batch whose
`Content-Length` declares one octet over `max_batch_bytes` (sent with its first kilobyte). Both
may end the connection once refused, and a server that ends it on a clock started when it
refused, not when its refusal is written, cuts the answer ahead of it, which MB-PIPE-1 still owes.
"""

from __future__ import annotations

from mixbatch_conformance.checks._shared.hops import PIPELINING_NEEDS_ONE_CONNECTION
from mixbatch_conformance.checks._shared.limit_cases import BOUNDARY as LIMIT_BOUNDARY
from mixbatch_conformance.checks._shared.limit_cases import PREAMBLE_CONTENT
from mixbatch_conformance.checks._shared.pipelined_pairs import leader_answered_first
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.core.validator import read_multipart

__all__: list[str] = []

BOUNDARY = "mb-unreadable-6a0d93c2e71f4b58"
#: Milliseconds the slow leader's part takes: long enough for a server to have parsed the
#: request behind it before the batch's answer is written, short for the standard tier.
HOLD_MS = 400
#: Seconds to wait for each pipelined answer: the slow leader's time with room to spare.
WAIT_S = 5.0
#: Field lines no HTTP/1.1 server reads (RFC 9112 §5: `field-line = field-name ":" OWS
#: field-value OWS`; §5.1: "No whitespace is allowed between the field name and colon").
UNREADABLE_LINES = (
    ("a field line without a colon", b"X-Mb-No-Colon"),
    ("whitespace before a field line's colon", b"X-Mb-Spaced : 1"),
)


#: Chunked content whose first chunk-size is no hexadecimal numeral (RFC 9112 §7.1:
#: `chunk-size = 1*HEXDIG`): the framing that would find the next request is broken.
BROKEN_CHUNKS = b"zz\r\nab\r\n0\r\n\r\n"


def _unreadable(request: bytes, line: bytes) -> bytes:
    head, sep, rest = request.partition(b"\r\n\r\n")
    return head + b"\r\n" + line + sep + rest


def _followers(ctx: Context, ok: str, mixed: list[tuple[str, str]]) -> list[tuple[str, bytes]]:
    """Each request behind the leader, named: ones the server refuses as soon as it reads them."""
    get = ctx.raw_request("GET", ok)
    chunked = [*mixed, ("Transfer-Encoding", "chunked")]
    tunnel = f"{ctx.host}:{ctx.port}"  # CONNECT names a port always (RFC 9110 §9.3.6)
    return [
        *((how, _unreadable(get, line)) for how, line in UNREADABLE_LINES),
        (
            "a batch whose chunk-size is not hexadecimal",
            ctx.raw_request("POST", ctx.batch_path, chunked, BROKEN_CHUNKS),
        ),
        ("a CONNECT", f"CONNECT {tunnel} HTTP/1.1\r\nHost: {tunnel}\r\n\r\n".encode("ascii")),
    ]


@checker(
    "pipelining-answers-ahead-of-unreadable-request",
    ("MB-PIPE-1",),
    "A one-part batch, a batch whose part waits at the delay resource, a GET of the delay resource and a GET of ok, each pipelined ahead of a request the server refuses as it reads it (a field line without a colon or with whitespace before its colon, chunked content whose chunk-size is not hexadecimal, a CONNECT), are answered whole, with the status each gets alone, before that request is refused or the connection closed.",
    profile="pipelining",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def answers_ahead_of_unreadable_request(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("HTTP/2 carries no pipeline of field lines to leave unread")
    ok = SubRequest("GET", ctx.path(ctx.resource(judge, "ok")))
    mixed = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}")]
    leaders = [
        (
            "a one-part batch",
            ctx.raw_request("POST", ctx.batch_path, mixed, compose_batch([ok], BOUNDARY)),
            1,
        ),
        ("a GET of ok", ctx.raw_request("GET", ok.target), None),
    ]
    delay = ctx.target.resource("delay")
    if delay:
        slow = SubRequest("GET", ctx.path(delay.replace("{ms}", str(HOLD_MS))))
        body = compose_batch([slow], BOUNDARY)
        leaders.insert(
            1, ("a batch of a slow part", ctx.raw_request("POST", ctx.batch_path, mixed, body), 1)
        )
        leaders.insert(
            2, ("a GET of the delay resource", ctx.raw_request("GET", slow.target), None)
        )
    followers = _followers(ctx, ok.target, mixed)
    for what, leader, parts in leaders:
        alone = ctx.send(judge, leader).status
        for how, follower in followers:
            label = f"{what} ahead of {how}"
            got, second = leader_answered_first(
                ctx, judge, label, (leader, follower), alone, WAIT_S
            )
            if got is None:
                continue
            if parts is not None and got.media_type == "multipart/mixed":
                _, params = judge.media_type(
                    f"{label} Content-Type", got.get("Content-Type"), "MB-WIRE-3"
                )
                env = read_multipart(got.body, params.get("boundary", ""))
                judge.expect(
                    f"{label}: parts in its answer, whole",
                    (len(env.parts), env.complete),
                    {(parts, True)},
                    "MB-PIPE-1",
                )
            behind = second.response.status if second.response is not None else second.error
            judge.note(f"{label}: the request behind got {behind}")


#: Milliseconds the request ahead takes in `pipelining-slow-answers-ahead-of-early-refusals`:
#: longer than the few seconds a server might allow itself to drain a refused request.
LONG_MS = 3_000


@checker(
    "pipelining-slow-answers-ahead-of-early-refusals",
    ("MB-PIPE-1",),
    "A GET of the delay resource that takes three seconds, pipelined ahead of a request with a field line without a colon and ahead of a batch declaring more than max_batch_bytes, is answered whole, with the status it gets alone, before the request behind is refused or the connection closed.",
    profile="pipelining",
    tier="standard",
    state=State.READ_ONLY,
    direct_only=PIPELINING_NEEDS_ONE_CONNECTION,
)
def slow_answers_ahead_of_early_refusals(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable("HTTP/2 carries no pipeline of requests on one connection")
    delay = ctx.target.resource("delay")
    if not delay:
        judge.not_applicable("the target declares no delay resource for a slow request ahead")
    largest = ctx.target.delay_max_ms
    if largest is not None and largest < LONG_MS:
        judge.not_applicable(f"the declared delay_max_ms {largest} is under {LONG_MS}")
    ok = ctx.path(ctx.resource(judge, "ok"))
    followers = [
        ("a field line without a colon", _unreadable(ctx.raw_request("GET", ok), b"X-Mb-No-Colon"))
    ]
    limit = ctx.limit("max_batch_bytes")
    if limit is not None:
        head = [
            ("Content-Type", f"multipart/mixed; boundary={LIMIT_BOUNDARY}"),
            ("Content-Length", str(limit + 1)),
        ]
        followers.append(
            (
                f"a batch declaring {limit + 1} octets",
                ctx.raw_request("POST", ctx.batch_path, head, b"") + PREAMBLE_CONTENT,
            )
        )
    slow = ctx.raw_request("GET", ctx.path(delay.replace("{ms}", str(LONG_MS))))
    # MB-TEST-7: the delay resource answers 200 "no sooner than ms milliseconds".
    wait = LONG_MS / 1000 + WAIT_S
    for how, follower in followers:
        label = f"a GET taking {LONG_MS} ms ahead of {how}"
        # MB-PIPE-1: "answer pipelined requests on a connection ... in the order it received
        # them"; spec 11 lets the connection end after the refusal, never before the answer
        # owed to the request ahead of it.
        _, second = leader_answered_first(ctx, judge, label, (slow, follower), 200, wait)
        behind = second.response.status if second.response is not None else second.error
        judge.note(f"{label}: the request behind got {behind}")
