"""A batch is answered the same whatever fields clients and hops add to it (spec 5.1, 8.2).

Theory of operation: MB-STATUS-1 makes a server "answer a well-formed batch that it processed
with 200 (OK) ... whatever the statuses of its parts", and MB-SUB-6 keeps every field of the
batch request but Authorization and Cookie out of its sub-requests. Ordinary clients, browsers
and the hops between them add fields to every request that say nothing about the batch: a
server that reads one as a batch rule (refuses `Expect: 100-continue`, which clients send
before large content, as if MB-PART-9's list of fields a part may not carry bound the batch
too; refuses `Pragma: no-cache`; answers only the bytes a `Range` names) breaks MB-STATUS-1,
and one that passes one on to its parts (a `User-Agent`, a `Cache-Control`) breaks MB-SUB-6.

Each field is sent on its own on two batches: one of an `echo` part carrying validators of its
own (`If-None-Match`, `If-Modified-Since`: a batch's `Cache-Control: no-cache` or `Pragma` read
as a reload that drops the parts' conditions shows here), and one of the `not_found` part,
which fails, then an `echo` part. Each must be answered as the same batch
without the field: the same status and media type, each part with the same status and
outcome, and each echo part the same request (compared as spec 3.2.4 compares a sub-request
with the same request alone, which leaves the framing and connection fields and `Date` out).

`Expect: 100-continue` goes three ways. Written with its content right behind the head, as
most clients write it; with the head alone, its content sent once an interim 100 (Continue)
arrives or after `CONTINUE_WAIT_S` without one, as curl does (RFC 9110 §10.1.1: a client "is
not required to wait for any specific length of time" and a server "MAY omit sending a 100"
when the content is already arriving, so whether a 100 comes is noted, not judged); and on an
HTTP/1.0 request line, where "A server that receives a 100-continue expectation in an HTTP/1.0
request MUST ignore that expectation", judged when the server takes the batch over HTTP/1.0
without the field: no interim answer may come first (RFC 9110 §15.2: "A server MUST NOT send a
1xx response to an HTTP/1.0 client"), and the batch is answered as without the field.

Which fields, per the HTTP rules that give each its meaning on a `POST`:

- `Range` and `If-Range`: "A server MUST ignore a Range header field received with a request
  method that is unrecognized or for which range handling is not defined" and "GET is the only
  method for which range handling is defined" (RFC 9110 §14.2); "A server MUST ignore an
  If-Range header field received in a request that does not contain a Range header field" and
  one whose Range it ignores is no different (§13.1.5).
- `If-Modified-Since`: "A recipient MUST ignore If-Modified-Since if ... the request method is
  neither GET nor HEAD" (RFC 9110 §13.1.3).
- `Max-Forwards`: only `TRACE` and `OPTIONS` are defined to read it (RFC 9110 §7.6.2).
- `Content-Language`, `Content-Location`: they describe the request content, which is the
  envelope, and "the origin server MUST NOT use such context information to alter the request
  semantics" (RFC 9110 §8.7).
- the caching directives, the client and browser fields, the forwarding fields and the
  connection fields (`Connection: keep-alive`, `Keep-Alive`, `TE: trailers`, and the
  `Upgrade: h2c` that curl's `--http2` adds to a request over `http:`; not over HTTP/2, which
  forbids them), and `Date`. RFC 9110 §7.8 lets a server ignore `Upgrade` or switch protocols:
  a 101 (Switching Protocols) is noted and not judged, since what follows is no longer HTTP/1.1;
  any other answer is the batch's, whose content followed the head as it does without the
  field.

`If-Match`, `If-None-Match` and `If-Unmodified-Since` are not sent: on a `POST` they are
evaluated against the batch endpoint's own state (RFC 9110 §13.2.1), which the spec does not
fix, so a 412 to one may be right; spec 7.6 keeps them from the parts, which the echo shows
for a batch that carries one (`outer-fields-not-inherited`).
"""

from __future__ import annotations

from email.utils import formatdate

from mixbatch_conformance.checks._shared.parts_alike import BaselineBatch
from mixbatch_conformance.checks._shared.requests import ok_and_not_found
from mixbatch_conformance.checks._shared.versions import with_version
from mixbatch_conformance.core.context import Context, SubRequest, compose_batch
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.http import Response, exchange_after_continue

__all__: list[str] = []

BOUNDARY = "mb-client-fields-8d2e61f0c4a7b395"
#: The query that marks the echo parts.
ECHO_QUERY = "mb-client-field="
#: Seconds a client that sent `Expect: 100-continue` waits for the 100 before it sends the
#: content anyway (curl waits one second).
CONTINUE_WAIT_S = 1.0
Fields = tuple[tuple[str, str], ...]

#: A date long past, in the IMF-fixdate form (RFC 9110 §5.6.7).
PAST = "Sat, 01 Jan 2000 00:00:00 GMT"

#: A part's own conditional fields, a tag and a date no representation has: the batch's fields
#: leave them as they are (MB-SUB-6).
PART_VALIDATORS = (
    ("If-None-Match", '"mb-suite-part-tag"'),
    ("If-Modified-Since", "Sun, 02 Jan 2000 00:00:00 GMT"),
)

#: (label, fields) sent on the batch, one at a time; each names a value no server makes up.
CLIENT_FIELDS: tuple[tuple[str, Fields], ...] = (
    ("Expect: 100-continue", (("Expect", "100-continue"),)),
    ("Cache-Control: no-cache", (("Cache-Control", "no-cache"),)),
    ("Cache-Control: max-age=0", (("Cache-Control", "max-age=0"),)),
    ("Cache-Control: no-store, no-transform", (("Cache-Control", "no-store, no-transform"),)),
    ("Pragma: no-cache", (("Pragma", "no-cache"),)),
    ("User-Agent (curl)", (("User-Agent", "curl/8.5.0 mb-batch-agent"),)),
    (
        "User-Agent (browser)",
        (("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) mb-batch-browser/1.0"),),
    ),
    ("Accept-Language", (("Accept-Language", "fr-CH, fr;q=0.9, en;q=0.8, *;q=0.5"),)),
    ("Accept-Charset", (("Accept-Charset", "utf-8, iso-8859-1;q=0.5"),)),
    ("Accept-Encoding", (("Accept-Encoding", "gzip, deflate"),)),
    ("Origin", (("Origin", "http://mb-batch-origin.example"),)),
    ("Referer", (("Referer", "http://mb-batch-referer.example/form"),)),
    ("Forwarded", (("Forwarded", "for=192.0.2.43;proto=http"),)),
    ("X-Forwarded-For", (("X-Forwarded-For", "192.0.2.44, 198.51.100.17"),)),
    ("Via", (("Via", "1.1 mb-batch-proxy"),)),
    ("Upgrade-Insecure-Requests", (("Upgrade-Insecure-Requests", "1"),)),
    ("DNT", (("DNT", "1"),)),
    (
        "Sec-Fetch-*",
        (
            ("Sec-Fetch-Site", "same-origin"),
            ("Sec-Fetch-Mode", "cors"),
            ("Sec-Fetch-Dest", "empty"),
            ("Sec-Fetch-User", "?1"),
        ),
    ),
    ("Priority", (("Priority", "u=1, i"),)),
    ("Date", (("Date", ""),)),
    ("If-Modified-Since", (("If-Modified-Since", PAST),)),
    ("Range", (("Range", "bytes=0-9"),)),
    ("Range with If-Range", (("Range", "bytes=0-9"), ("If-Range", PAST))),
    ("Max-Forwards: 0", (("Max-Forwards", "0"),)),
    ("Content-Language", (("Content-Language", "de"),)),
    ("Content-Location", (("Content-Location", "/mb-batch-drafts/1"),)),
)
#: Fields of the connection, which an HTTP/2 request must not carry (RFC 9113 §8.2.2).
CONNECTION_FIELDS: tuple[tuple[str, Fields], ...] = (
    ("Connection: keep-alive", (("Connection", "keep-alive"),)),
    ("Keep-Alive", (("Connection", "keep-alive"), ("Keep-Alive", "timeout=5, max=100"))),
    ("TE: trailers", (("Connection", "TE"), ("TE", "trailers"))),
    (
        "Upgrade: h2c",
        (
            ("Connection", "Upgrade, HTTP2-Settings"),
            ("Upgrade", "h2c"),
            ("HTTP2-Settings", "AAMAAABkAARAAAAAAAIAAAAA"),
        ),
    ),
)


def _dated(fields: Fields) -> Fields:
    """`fields` with an empty Date given the current date."""
    return tuple((n, v or formatdate(usegmt=True)) if n == "Date" else (n, v) for n, v in fields)


def _request(ctx: Context, subs: list[SubRequest], fields: Fields) -> bytes:
    head = [("Content-Type", f"multipart/mixed; boundary={BOUNDARY}"), *_dated(fields)]
    return ctx.raw_request("POST", ctx.batch_path, head, compose_batch(subs, BOUNDARY))


class _Batch(BaselineBatch):
    """One batch as answered without any of the fields: what each field's answer must be."""

    def __init__(
        self, ctx: Context, judge: Judge, name: str, subs: list[SubRequest], resp: Response
    ) -> None:
        super().__init__(ctx, judge, name, subs, resp, ECHO_QUERY)

    def expect_like(self, ctx: Context, judge: Judge, label: str, resp: Response | None) -> None:
        """Expect `resp` to answer this batch as it was answered without the field."""
        what = f"{label}, {self.name}"
        if resp is None:
            return
        # MB-STATUS-1: "A server MUST answer a well-formed batch that it processed with 200
        # (OK) ... whatever the statuses of its parts": the field is no part of the batch's
        # rules, so the batch is processed as it is without it.
        if not judge.expect(
            f"{what}: top-level status", resp.status, {self.resp.status}, "MB-STATUS-1"
        ):
            return
        if not judge.expect(
            f"{what}: media type", resp.media_type, {self.resp.media_type}, "MB-STATUS-1"
        ):
            return
        env = ctx.read_batch(judge, resp)
        if not judge.expect(f"{what}: part count", len(env.parts), {len(self.subs)}, "MB-STATUS-1"):
            return
        # MB-SUB-6: "A server MUST NOT apply any other header field of the batch request to a
        # sub-request": each part runs as it runs in the batch without the field, and its
        # resource receives the same request.
        self.expect_parts_alike(
            ctx,
            judge,
            what,
            env,
            without="the field",
            part_requirement="MB-SUB-6",
            echo_requirement="MB-SUB-6",
            echo_after_change=True,
        )


@checker(
    "batch-answered-whatever-client-fields",
    ("MB-STATUS-1", "MB-SUB-6"),
    "A batch of an echo part with validators of its own, and one whose first part fails, each carrying Expect: 100-continue (content sent at once, after the 100 or a bounded wait, and over HTTP/1.0), Cache-Control, Pragma, User-Agent, Accept-Language, Origin, Referer, forwarding, Sec-Fetch, Priority, Date, Range, If-Modified-Since, Content-Language, a connection field or Upgrade: h2c, is answered as without it: the same status, media type, part statuses and outcomes, and each echo part the same request.",
    tier="standard",
    state=State.READ_ONLY,
)
def batch_answered_whatever_client_fields(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    _, nf = ok_and_not_found(ctx, judge)
    shapes = [
        (
            "an echo part with validators of its own",
            [SubRequest("GET", f"{echo}?{ECHO_QUERY}one", PART_VALIDATORS)],
        ),
        (
            "a failing part then an echo part",
            [nf, SubRequest("GET", f"{echo}?{ECHO_QUERY}after-failure")],
        ),
    ]
    batches = [
        _Batch(ctx, judge, name, subs, ctx.send(judge, _request(ctx, subs, ())))
        for name, subs in shapes
    ]
    fields = CLIENT_FIELDS if ctx.settings.http2 else CLIENT_FIELDS + CONNECTION_FIELDS
    for label, sent in fields:
        for batch in batches:
            resp = ctx.send(judge, _request(ctx, batch.subs, sent))
            if resp.status == 101:
                judge.note(f"{label}, {batch.name}: 101, the server switched protocols")
                continue
            batch.expect_like(ctx, judge, label, resp)
    _continue_after_wait(ctx, judge, batches)
    _continue_over_http10(ctx, judge, batches)


def _continue_after_wait(ctx: Context, judge: Judge, batches: list[_Batch]) -> None:
    """`Expect: 100-continue` with the content held until a 100 arrives or the wait ends."""
    if ctx.settings.http2:
        judge.note("Expect: 100-continue with a wait: not sent over HTTP/2")
        return
    label = "Expect: 100-continue, content after the 100 or a wait"
    for batch in batches:
        request = _request(ctx, batch.subs, (("Expect", "100-continue"),))
        ex, came = exchange_after_continue(
            ctx.host, ctx.port, request, CONTINUE_WAIT_S, ctx.timeout, ctx.tls
        )
        judge.record(ex)
        before = {
            "100": "a 100 (Continue)",
            "nothing": f"no answer within {CONTINUE_WAIT_S} s, the content sent anyway",
            "final": "a final answer, the content unsent",
        }.get(came, f"an interim {came}")
        judge.note(f"{label}, {batch.name}: before the content came {before}")
        # MB-STATUS-1, with RFC 9110 §10.1.1: a server that answers before the content arrives
        # answers a batch it has not read, never one it processed.
        judge.expect_true(
            f"{label}, {batch.name}: an answer after the content",
            ex.response is not None and came != "final",
            f"{ex.response.status} before the content"
            if ex.response is not None and came == "final"
            else (ex.error or "answered after the content"),
            "the batch's answer once its content is sent",
            "MB-STATUS-1",
        )
        batch.expect_like(ctx, judge, label, ex.response)


def _continue_over_http10(ctx: Context, judge: Judge, batches: list[_Batch]) -> None:
    """`Expect: 100-continue` on an HTTP/1.0 request, which the server ignores."""
    if ctx.settings.http2:
        return
    label = "Expect: 100-continue over HTTP/1.0"
    for batch in batches:
        plain = ctx.send(judge, with_version(_request(ctx, batch.subs, ()), "1.0"), as_written=True)
        if plain.status != batch.resp.status:
            # Nothing in the spec makes a server take an HTTP/1.0 request (RFC 9112 §2.3).
            judge.note(f"{label}, {batch.name}: the batch over HTTP/1.0 answered {plain.status}")
            continue
        # The same batch over HTTP/1.0 without the field is what the answer is compared with.
        without = _Batch(ctx, judge, f"{batch.name} over HTTP/1.0", batch.subs, plain)
        request = with_version(_request(ctx, batch.subs, (("Expect", "100-continue"),)), "1.0")
        resp = ctx.send(judge, request, as_written=True)
        interim = resp.raw.startswith((b"HTTP/1.1 1", b"HTTP/1.0 1"))
        # MB-STATUS-1 with RFC 9110 §15.2: "A server MUST NOT send a 1xx response to an
        # HTTP/1.0 client", which reads the first status line it gets as the batch's answer.
        judge.expect_true(
            f"{label}, {batch.name}: no interim answer before the batch's",
            not interim,
            repr(resp.raw[: resp.raw.find(b"\r\n")]) if interim else "none",
            "no 1xx to an HTTP/1.0 request",
            "MB-STATUS-1",
        )
        without.expect_like(ctx, judge, "Expect: 100-continue", resp)
