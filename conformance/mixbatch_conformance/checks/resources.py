"""Test-resource checks (spec 14.4): each declared role behaves as MB-TEST-n says, alone.

Theory of operation: the other checks rely on the target's test resources and on nothing about
them beyond MB-TEST-1 to MB-TEST-8. These checks hold each declared role to its requirement with
standalone requests, so that a resource that does not behave is reported against the sentence
it breaks instead of surfacing as a puzzling failure elsewhere. A role the target does not
declare makes its check N/A (spec 14.4: "a check that needs a role the target does not declare
is not applicable"). The sandbox (MB-TEST-3, MB-TEST-4) is judged by the sandbox state machine,
and the collections (MB-TEST-8) by the collection-get checks. The echo and the delay are also
sent as parts of a batch: the echo describes a sub-request as it does the same request alone,
and a delayed part waits from the moment the server begins to run it, so two delayed parts kept
apart by a write take the sum of their delays, as do two delayed GETs, where the target offers
references, the second of which refers to a field of the first's answer (spec 7.7: the
reference is replaced before the part runs). Safe parts not kept apart that way give no such
bound: MB-PROC-3 lets a server run them all at once, so a batch of more delayed GETs than the
server runs together ends, for a server that runs them all, with its longest delay, and timing
from outside cannot tell that server from one that queues some and counts their delays from
before they began.
"""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor

from mixbatch_conformance.checks._shared.absolute_form import NO_ABSOLUTE_FORM_IN_H2, absolute_uri
from mixbatch_conformance.checks._shared.delay_answers import CLOCK_SLACK_MS
from mixbatch_conformance.checks._shared.echo_content import expect_echo_content
from mixbatch_conformance.checks._shared.validators import is_entity_tag, is_http_date
from mixbatch_conformance.core.context import Context, SubRequest
from mixbatch_conformance.core.echo import Echo, read_echo
from mixbatch_conformance.core.judge import Judge
from mixbatch_conformance.core.outcomes import (
    expect_processed,
    part_status,
    unjudged_if_policy_refusal,
)
from mixbatch_conformance.core.registry import State, checker
from mixbatch_conformance.transport.urls import DEFAULT_PORTS

#: Octet counts asked of the `random` resource: none, one, more than one read buffer, and both
#: sides of 64 KiB, where a server may change how it draws its octets.
RANDOM_COUNTS = (0, 1, 4097, 65536, 65537)
#: Counts above any largest n a test server accepts: a terabyte, 2^63 (past a signed 64-bit
#: integer) and 10^20 (past an unsigned one). MB-TEST-5 allows 4xx for each, or 200 with exactly
#: n octets, which no server sends for these.
RANDOM_BEYOND = (10**12, 2**63, 10**20)
#: Counts between those two sets, past the powers of two where a server may cap what it draws
#: (1 MiB, 4 MiB): MB-TEST-5 allows 200 with exactly n octets or a 4xx for each, so a server
#: that cuts n to a buffer's size answers 200 with too few.
RANDOM_BETWEEN = (2**20 + 1, 2**22 + 1)
#: Codes asked of the `status` resource, each of which it must answer as itself (MB-TEST-6):
#: both ends of the range and a code of each class, unregistered ones among them.
STATUS_CODES = (200, 201, 204, 299, 302, 304, 401, 404, 418, 500, 503, 599)
#: Values it must refuse with 400 or 404: 1xx at both ends, below 100, 600 and above, and
#: values that are not three digits though a number parser reads them as a final code: a
#: leading zero, a sign, a space before or after (percent-encoded), a digit separator, an
#: exponent or a decimal point, and three digits of another script (U+0662 U+0660 U+0660,
#: percent-encoded UTF-8), which a Unicode-aware digit test takes for 200. HTTP's status code is
#: three DIGITs (RFC 9110 §15), and DIGIT is 0-9 alone (RFC 5234 B.1).
BAD_CODES = (
    "100",
    "199",
    "099",
    "600",
    "abc",
    "2000",
    "0200",
    "20",
    "+200",
    "-200",
    "%20200",
    "200%20",
    "2_00",
    "2e2",
    "200.0",
    "%D9%A2%D9%A0%D9%A0",
)
#: Milliseconds asked of the `delay` resource.
DELAY_MS = 300
#: The shortest delay there is: MB-TEST-7's "every *ms* up to the largest it accepts" starts at
#: zero, which a server reading the count as "a positive number" refuses.
NO_DELAY_MS = 0
#: Milliseconds of the two delayed parts of one batch, kept apart by a write: the second
#: cannot begin before the first has finished (MB-PROC-2), so the batch takes their sum.
SPLIT_DELAYS_MS = (300, 300)
#: Fields of the delay resource's answer a later part may refer to (`$(0:name)`, spec 7.7), the
#: first the answer carries exactly once. Not Content-Length: a response part's Content-Length
#: frames the part (MB-WIRE-15) and need not be the sub-response's field a reference reads.
REFERABLE_FIELDS = ("Content-Type",)
#: Milliseconds a declared batch_timeout_ms must leave beyond the delays for the check to run.
BUDGET_MARGIN_MS = 500
#: Milliseconds a batching proxy's declared sub-request timeout must leave beyond the longest
#: delay for the check to run: a proxy answers a part its origin is too slow for with 502 or
#: 504 (MB-PROXY-2), and the time it takes to forward a part counts against that timeout too.
UPSTREAM_MARGIN_MS = 500
#: Delays above any largest ms a test server accepts: a terabyte of milliseconds (31 years);
#: 10^13 and 2^62, which wrap a signed 64-bit count of nanoseconds (a server that converts
#: before it compares waits a negative time); 2^63, past a signed 64-bit integer; and 10^20.
#: MB-TEST-7 asks a 4xx for each beyond the largest a resource accepts; a server that clamps
#: them answers 200 sooner than asked, and one that waits is taken to accept them.
DELAY_BEYOND = (10**12, 10**13, 2**62, 2**63, 10**20)


@checker(
    "test-resources-ok-not-found-etag",
    ("MB-TEST-1",),
    "The declared ok, not_found and etag_resource answer GET with 200, 404, and 200 with ETag and Last-Modified.",
    state=State.READ_ONLY,
)
def ok_not_found_etag(ctx: Context, judge: Judge) -> None:
    # MB-TEST-1: "answer a `GET` of that resource with 200, 404, or 200 with an `ETag` and a
    # `Last-Modified` field, respectively".
    for role, want in (("ok", 200), ("not_found", 404)):
        path = ctx.target.resource(role)
        if path:
            resp = ctx.alone(judge, SubRequest("GET", ctx.path(path)))
            judge.expect(f"GET {role}", resp.status, {want})
    path = ctx.target.resource("etag_resource")
    if path:
        resp = ctx.alone(judge, SubRequest("GET", ctx.path(path)))
        judge.expect("GET etag_resource", resp.status, {200})
        # "200 with an `ETag` and a `Last-Modified` field": each one a validator by RFC 9110's
        # grammar (§8.8.3 entity-tag, §8.8.2 HTTP-date), which a client can send back.
        judge.expect_true(
            "etag_resource validators",
            is_entity_tag(resp.get("ETag")) and is_http_date(resp.get("Last-Modified")),
            f"ETag {resp.get('ETag')!r}, Last-Modified {resp.get('Last-Modified')!r}",
            "an ETag that is an entity-tag and a Last-Modified that is an HTTP-date",
        )
    if not judge.expectations:
        judge.not_applicable("the target declares none of ok, not_found, etag_resource")


#: Header fields sent to the echo, in an order that is neither sorted by name nor canonical in
#: case, with one name on two field lines apart: an echo that reports them from a map (sorted,
#: canonical case, repeats merged) lists them otherwise. Beside extension fields they are of
#: the kinds an echo might take for its own business and leave out, though MB-TEST-2 lets it
#: leave out only "the framing and connection fields (`Host`, `Content-Length`,
#: `Transfer-Encoding`, `Connection`)": the content's description (`Content-Type`,
#: `Content-Language`, `Content-Location`), negotiation (MB-TEST-1 has no test resource's answer
#: depend on `Accept` or `Accept-Language`) and cache directives. None of them asks anything of
#: the answer that MB-TEST-2 does not fix: no condition, range, coding or preference.
ECHO_FIELDS = (
    ("X-Mb-Zulu", "1"),
    ("accept", "text/plain"),
    ("Content-Type", "text/plain; charset=utf-8"),
    ("X-MB-alpha", "2"),
    ("content-language", "en"),
    ("Cache-Control", "no-cache"),
    ("Content-Location", "/mb-described"),
    ("Accept-Language", "en;q=0.5"),
    ("X-Mb-Zulu", "3"),
)
#: Methods a sub-request may carry that the echo answers 200 (MB-TEST-2: "every request to that
#: resource whose method a sub-request may carry, other than `HEAD`"), each with content that
#: is valid UTF-8, content that is not, or none.
ECHO_REQUESTS: tuple[tuple[str, bytes], ...] = (
    ("GET", b""),
    ("PUT", b"\xff\x00"),
    ("POST", "caf\u00e9 \u2603".encode()),
    ("PATCH", b"{}"),
    ("DELETE", b""),
    ("OPTIONS", b""),
    # MB-TEST-2: "every request to that resource whose method a sub-request may carry": any
    # method token but CONNECT and TRACE (MB-SUB-3), so extension methods are described like the
    # rest. Both are registered ones that HTTP parsers knowing a fixed table of methods (llhttp)
    # still read, since the same request is also sent alone.
    ("PROPFIND", b'<?xml version="1.0"?><propfind xmlns="DAV:"><allprop/></propfind>'),
    ("REPORT", b"x"),
)


@checker(
    "test-resource-echo",
    ("MB-TEST-2",),
    "The declared echo resource describes GET, PUT, POST, PATCH, DELETE, OPTIONS and extension-method (PROPFIND, REPORT) requests as JSON: method, target, authority, header fields in the order received (not sorted, repeats apart, the content's description, negotiation and cache fields among them), body or body_base64; alone and as parts of one batch, where the target is the part's origin-form target and the authority the batch request's.",
    state=State.READ_ONLY,
)
def echo_resource(ctx: Context, judge: Judge) -> None:
    echo = ctx.path(ctx.resource(judge, "echo"))
    subs = [
        SubRequest(method, f"{echo}?mb-test={method.lower()}&q=a%20b%2F%7e+", ECHO_FIELDS, content)
        for method, content in ECHO_REQUESTS
    ]
    alone = []
    for sub in subs:
        resp = ctx.alone(judge, sub)
        alone.append(_judge_echo(judge, sub.method, sub, resp.status, resp.media_type, resp.body))
        _expect_sent_authority(ctx, judge, sub.method, alone[-1])
    # The first request again, its fields in another order: an echo that keeps describing a
    # request it already answered on the connection shows the first order.
    again = SubRequest(subs[0].method, subs[0].target, ECHO_FIELDS[::-1], subs[0].body)
    resp = ctx.alone(judge, again)
    _judge_echo(judge, f"{again.method} again", again, resp.status, resp.media_type, resp.body)
    # MB-TEST-2: "answer every request to that resource whose method a sub-request may carry":
    # a sub-request is such a request, and its description follows the same rules; its
    # "`authority`, the authority the request was addressed to (for a sub-request, the batch
    # request's)", which is the one the same request alone names (the suite sends both to the
    # target's authority).
    resp = ctx.batch(judge, subs)
    unjudged_if_policy_refusal(judge, resp, "the batch of echo requests")
    env = expect_processed(ctx, judge, resp, [s.content_id for s in subs], (), "MB-TEST-2")
    for i, (sub, single) in enumerate(zip(subs, alone, strict=True)):
        part = env.parts[i]
        media, _ = judge.media_type(
            f"part {i} Content-Type", part.get("Content-Type") or "", "MB-TEST-2"
        )
        label = f"part {i} {sub.method}"
        seen = _judge_echo(judge, label, sub, part_status(env, i), media, part.body)
        _expect_sent_authority(ctx, judge, label, seen)
        judge.expect_true(
            f"{label} authority",
            (seen.authority or "").lower() == (single.authority or "").lower(),
            repr(seen.authority),
            f"the authority the same request alone reports, {single.authority!r}",
        )


def _same_authority(scheme: str, seen: str, sent: str) -> bool:
    """`seen` names the authority `sent` does: host compared without case, and an explicit
    default port the same as none (RFC 3986 §6.2.3)."""
    default = f":{DEFAULT_PORTS[scheme]}"

    def norm(authority: str) -> str:
        authority = authority.lower()
        return authority[: -len(default)] if authority.endswith(default) else authority

    return norm(seen) == norm(sent)


def _expect_sent_authority(ctx: Context, judge: Judge, label: str, seen: Echo) -> None:
    """The echo names the authority the suite addressed, the Host it sent, port included (direct
    runs only: an intermediary chosen by --via may address the origin under its own). A
    gateway target whose echo lives on its origin reports the authority it addressed there,
    which is noted; a port the suite sent is never dropped."""
    if ctx.settings.via is not None or not isinstance(seen.authority, str):
        return
    if _same_authority(ctx.scheme, seen.authority, ctx.authority):
        return
    ported = ":" in ctx.authority.rsplit("]", 1)[-1]
    if not ported or re.fullmatch(r".+:[0-9]+", seen.authority):
        judge.note(f"{label}: authority {seen.authority!r}, not {ctx.authority!r} (a gateway?)")
        return
    # MB-TEST-2: "`authority`, the authority the request was addressed to (for a
    # sub-request, the batch request's)": the suite sent Host with this authority, its port
    # included, alone and on the batch; an authority without the port names another origin.
    judge.expect_true(
        f"{label} authority as addressed",
        False,
        repr(seen.authority),
        f"the authority the suite sent in Host, {ctx.authority!r}",
        "MB-TEST-2",
    )


def _judge_echo(
    judge: Judge, label: str, sub: SubRequest, status: int | None, media: str, body: bytes
) -> Echo:
    method, target, content = sub.method, sub.target, sub.body
    # MB-TEST-2: "answer every request ... with 200, `Content-Type: application/json` and a
    # JSON object with these members".
    judge.require(f"{label} status", status, {200})
    judge.expect(f"{label} media type", media, {"application/json"})
    seen = read_echo(body)
    judge.require_true(
        f"{label} description",
        seen is not None,
        repr(body[:120]),
        "method, target, headers as [name, value] pairs, and body or body_base64",
    )
    assert seen is not None
    judge.expect(f"{label} method", seen.method, {method})
    # "`target`, the origin-form request target (path and query) as received": a part's
    # target is the one its Content-Id names, never an absolute URI the server built from it.
    judge.expect(f"{label} target", seen.target, {target})
    # "`authority`, the authority the request was addressed to": which one a gateway in front
    # of the resource addresses is its own business, so only its presence is judged here;
    # batch-equals-alone compares a sub-request's with the same request's alone.
    judge.expect_true(
        f"{label} authority", bool(seen.authority), repr(seen.authority), "an authority member"
    )
    # "`headers`, the request's header fields as an array of `[name, value]` pairs in the order
    # received"; "may write field names in any case", and framing fields and fields the stack
    # adds may be there too, so only the fields sent are picked out, names compared in lower
    # case: their order, and each field line of a repeated name, are as sent.
    sent = {n.lower() for n, _ in sub.headers}
    mine = [(n.lower(), v) for n, v in seen.headers if n.lower() in sent]
    judge.expect(
        f"{label} headers in the order received",
        mine,
        [[(n.lower(), v) for n, v in sub.headers]],
    )
    # "exactly one of `body`, the content as a string when its octets are valid UTF-8, and
    # `body_base64`, the content in base64 (RFC 4648 §4) otherwise".
    expect_echo_content(judge, label, content, body, seen)
    return seen


@checker(
    "test-resource-random",
    ("MB-TEST-5",),
    "The declared random resource answers GET for n with 200 and exactly n octets, a count past 1 MiB or 4 MiB with exactly n octets or 4xx, and a count beyond any it can send (10^12, 2^63, 10^20) with 4xx, never with fewer octets.",
    state=State.READ_ONLY,
)
def random_resource(ctx: Context, judge: Judge) -> None:
    template = ctx.resource(judge, "random")
    for n in RANDOM_COUNTS:
        resp = ctx.alone(judge, SubRequest("GET", ctx.path(template.replace("{n}", str(n)))))
        # MB-TEST-5: "with 200 and exactly *n* octets of content".
        judge.expect(f"GET {n} status", resp.status, {200})
        judge.expect(f"GET {n} length", len(resp.body), {n})
    for n in RANDOM_BETWEEN + RANDOM_BEYOND:
        resp = ctx.alone(judge, SubRequest("GET", ctx.path(template.replace("{n}", str(n)))))
        # MB-TEST-5: "for every *n* up to the largest it accepts, and with a 4xx status for any
        # larger *n*": a count clamped to the largest is a 200 with fewer than n octets.
        judge.expect_true(
            f"GET {n}",
            400 <= resp.status < 500 or (resp.status == 200 and len(resp.body) == n),
            f"{resp.status} with {len(resp.body)} octets",
            "a 4xx status, or 200 with exactly n octets",
        )


@checker(
    "test-resource-status",
    ("MB-TEST-6",),
    "The declared status resource answers each code from 200 to 599 with that status and refuses other values with 400 or 404: 1xx, below 100, 600, four digits, two, and forms a number parser reads as a final code (a leading zero, a sign, a space around it, a digit separator, an exponent, a decimal point, digits of another script).",
    state=State.READ_ONLY,
)
def status_resource(ctx: Context, judge: Judge) -> None:
    template = ctx.resource(judge, "status")
    for code in STATUS_CODES:
        resp = ctx.alone(judge, SubRequest("GET", ctx.path(template.replace("{code}", str(code)))))
        # MB-TEST-6: "for a code from 200 to 599 with that status, with no content for 204
        # and 304".
        judge.expect(f"GET {code}", resp.status, {code})
        if code in (204, 304):
            judge.expect(f"GET {code} content", len(resp.body), {0})
    for bad in BAD_CODES:
        resp = ctx.alone(judge, SubRequest("GET", ctx.path(template.replace("{code}", bad))))
        # "and MUST answer any other code (a 1xx, 600 and above, or a value that is not three
        # digits) with 400 or 404".
        judge.expect(f"GET {bad}", resp.status, {400, 404})


@checker(
    "test-resource-delay",
    ("MB-TEST-7",),
    "The declared delay resource answers GET for ms with 200 no sooner than ms milliseconds later, GET for 0 ms with 200, and a delay beyond any it can wait (10^12, 10^13, 2^62, 2^63, 10^20 ms) with 4xx.",
    state=State.READ_ONLY,
)
def delay_resource(ctx: Context, judge: Judge) -> None:
    template = ctx.resource(judge, "delay")
    started = time.monotonic()
    resp = ctx.alone(judge, SubRequest("GET", ctx.path(template.replace("{ms}", str(DELAY_MS)))))
    elapsed_ms = (time.monotonic() - started) * 1000
    # MB-TEST-7: "with 200 no sooner than *ms* milliseconds after it received the request".
    judge.expect("status", resp.status, {200})
    judge.expect_true(
        "answered no sooner than asked",
        elapsed_ms >= DELAY_MS,
        f"{elapsed_ms:.0f} ms",
        f"at least {DELAY_MS} ms",
    )
    resp = ctx.alone(judge, SubRequest("GET", ctx.path(template.replace("{ms}", str(NO_DELAY_MS)))))
    # MB-TEST-7: "answer a `GET` of that resource for a count *ms* with 200 ... for every *ms* up
    # to the largest it accepts": 0 is below every largest the resource can have.
    judge.expect(f"GET {NO_DELAY_MS}", resp.status, {200})
    requests = [
        ctx.raw_request("GET", ctx.path(template.replace("{ms}", str(ms)))) for ms in DELAY_BEYOND
    ]
    wait = ctx.timeout_for(judge)
    # Each on a connection of its own at once, so a resource that accepts them all costs one
    # wait, not one per count.
    with ThreadPoolExecutor(len(requests), thread_name_prefix="mixbatch-delay") as pool:
        answers = list(pool.map(lambda r: ctx.send_within(judge, r, wait), requests))
    for ms, ex in zip(DELAY_BEYOND, answers, strict=True):
        if ex.response is None:
            # MB-TEST-7 lets the resource accept any ms ("up to the largest it accepts"): one
            # that waits is within it, and the answer it owes is not due for years.
            judge.note(f"GET {ms}: no answer within {wait:g} s, so taken as accepted")
            continue
        # MB-TEST-7: "for every *ms* up to the largest it accepts, and with a 4xx status for
        # any larger *ms*": a delay clamped to the largest, or one wrapped below zero, is a 200
        # sooner than asked.
        judge.expect(
            f"GET {ms}", ex.response.status, set(range(400, 500)), allowed_text="a 4xx status"
        )


@checker(
    "test-resource-delay-counted-from-part-start",
    ("MB-TEST-7", "MB-PROC-2"),
    "A batch of GET delay A, a POST to the echo resource and GET delay B is answered no sooner than A + B milliseconds after it was sent: a delayed part's wait counts from the moment the server begins to run it, which for the second is after the write before it finished, not from the batch's arrival; likewise, under Batch-Mode: references, a batch of GET delay A and GET delay B whose header field refers to part 0's answer.",
    tier="standard",
    state=State.READ_ONLY,
)
def delay_counted_from_part_start(ctx: Context, judge: Judge) -> None:
    template = ctx.target.resource("delay")
    if not template:
        judge.not_applicable("the target declares no delay resource")
    echo = ctx.target.resource("echo")
    if not echo:
        # A write to the sandbox would do as well, but leaves a member to delete; the echo
        # changes nothing (MB-TEST-2) and is unsafe all the same under POST.
        judge.not_applicable("the target declares no echo resource to send an unsafe part to")
    first, second = SPLIT_DELAYS_MS
    limit = ctx.target.batch_timeout_ms
    if limit is not None and limit < first + second + BUDGET_MARGIN_MS:
        judge.not_applicable(
            f"the delayed parts would outlast the declared batch_timeout_ms {limit}"
        )
    upstream = ctx.target.proxy_timeout_ms
    if (
        ctx.target.proxy
        and upstream is not None
        and upstream <= max(first, second) + UPSTREAM_MARGIN_MS
    ):
        # MB-PROXY-2: a batching proxy reports "an upstream connection failure or timeout for
        # a part as that part's response with status 502 (Bad Gateway) or 504 (Gateway
        # Timeout)": a delayed part may rightly be answered 504, not the delay's 200.
        judge.not_applicable(
            f"the batching proxy's declared proxy.subrequest_timeout_ms {upstream} leaves no "
            f"more than {UPSTREAM_MARGIN_MS} ms beyond a {max(first, second)} ms delay, so a "
            "delayed part may be answered 504 (MB-PROXY-2)"
        )
    # MB-PROC-3 lets only "consecutive safe sub-requests" run concurrently, and "a write
    # between two reads is a barrier": the POST cannot begin before the first delay has
    # finished, nor the second delay before the POST has.
    subs = [
        SubRequest("GET", ctx.path(template.replace("{ms}", str(first)))),
        SubRequest(
            "POST",
            f"{ctx.path(echo)}?mb-test=barrier",
            (("Content-Type", "text/plain"),),
            b"barrier",
        ),
        SubRequest("GET", ctx.path(template.replace("{ms}", str(second)))),
    ]
    # Timed from before the first octet is sent to after the last is read: the server
    # receives the batch after the first and writes the last part's end before the last, so
    # the time measured is never shorter than the server's own.
    started = time.monotonic()
    resp = ctx.batch(judge, subs)
    elapsed_ms = (time.monotonic() - started) * 1000
    # MB-TEST-7: "with 200 no sooner than *ms* milliseconds after it received the request".
    env = expect_processed(
        ctx, judge, resp, [s.content_id for s in subs], ({200}, None, {200}), "MB-TEST-7"
    )
    # "For a sub-request, the server MUST count the *ms* from the moment it begins to run that
    # sub-request ..., not from the moment its batch request began or finished arriving".
    judge.expect_true(
        "delayed parts kept apart by a write",
        elapsed_ms >= first + second - CLOCK_SLACK_MS,
        f"the batch answered {elapsed_ms:.0f} ms after it was sent",
        f"at least {first} + {second} ms: the second delay counts from the moment the server "
        "begins to run its part (MB-TEST-7), after the first and the POST have finished "
        "(MB-PROC-2)",
        "MB-TEST-7",
    )
    judge.note(f"{len(env.parts)} parts in {elapsed_ms:.0f} ms")
    if ctx.target.claims("references"):
        _delay_behind_reference(ctx, judge, template)


def _delay_behind_reference(ctx: Context, judge: Judge, template: str) -> None:
    """A delayed GET whose header field refers to the answer of a delayed GET before it, in a
    batch under `Batch-Mode: references`: two safe parts a server may not run side by side."""
    first, second = SPLIT_DELAYS_MS
    # The field referred to is one the delay resource's answer carries exactly once as a part
    # (MB-PROC-20 skips a part whose reference names a field absent or repeated), learnt from
    # a batch of one GET of it.
    quick = SubRequest("GET", ctx.path(template.replace("{ms}", str(NO_DELAY_MS))))
    probe = expect_processed(
        ctx, judge, ctx.batch(judge, [quick]), [quick.content_id], ({200},), "MB-TEST-7"
    )
    name = next((n for n in REFERABLE_FIELDS if len(probe.parts[0].get_all(n)) == 1), None)
    if name is None:
        judge.note(
            f"references: the delay resource's answer as a part carries none of "
            f"{', '.join(REFERABLE_FIELDS)} exactly once, so no part refers to it"
        )
        return
    subs = [
        SubRequest("GET", ctx.path(template.replace("{ms}", str(first)))),
        SubRequest(
            "GET",
            ctx.path(template.replace("{ms}", str(second))),
            (("X-Mb-After", f"$(0:{name})"),),
        ),
    ]
    started = time.monotonic()
    resp = ctx.batch(judge, subs, headers=(("Batch-Mode", "references"),))
    elapsed_ms = (time.monotonic() - started) * 1000
    # MB-TEST-7: "with 200 no sooner than *ms* milliseconds after it received the request".
    expect_processed(ctx, judge, resp, [s.content_id for s in subs], ({200}, {200}), "MB-TEST-7")
    # MB-PROC-18: a server "MUST replace each reference in a part's `Content-Id` and header
    # field values with the value it names before that part runs", and part 0's field exists
    # only once its delay has passed (MB-TEST-7); the second delay then counts "from the
    # moment it begins to run that sub-request" (MB-TEST-7).
    judge.expect_true(
        "references: a delayed part referring to the delayed part before it",
        elapsed_ms >= first + second - CLOCK_SLACK_MS,
        f"the batch answered {elapsed_ms:.0f} ms after it was sent",
        f"at least {first} + {second} ms: the second part runs only once the field of the "
        "first it refers to exists (MB-PROC-18), and its delay counts from then (MB-TEST-7)",
        "MB-TEST-7",
    )


@checker(
    "test-resource-echo-absolute-form",
    ("MB-TEST-2",),
    "The declared echo resource, sent a request in absolute-form (RFC 9112 §3.2.2), its scheme and host as written and in upper or title case, reports the origin-form target (path and query), not the absolute URI.",
    state=State.READ_ONLY,
    direct_only="an intermediary rewrites the request target into origin-form before the origin "
    "sees it",
)
def echo_absolute_form(ctx: Context, judge: Judge) -> None:
    if ctx.settings.http2:
        judge.not_applicable(NO_ABSOLUTE_FORM_IN_H2)
    echo = ctx.path(ctx.resource(judge, "echo"))
    origin_form = f"{echo}?mb-test=absolute-form&q=a%20b"
    sub = SubRequest("GET", origin_form, ECHO_FIELDS)
    absolute = f"{ctx.scheme}://{ctx.authority}{origin_form}"
    resp = ctx.send(judge, ctx.raw_request("GET", absolute, ECHO_FIELDS))
    # MB-TEST-2: "`target`, the origin-form request target (path and query) as received"; RFC
    # 9112 §3.2.2: "a server MUST accept the absolute-form in requests", and the origin-form
    # of such a request is its path and query.
    _judge_echo(judge, "absolute-form GET", sub, resp.status, resp.media_type, resp.body)
    for scheme, host in _absolute_form_spellings(ctx):
        spelled = absolute_uri(ctx, origin_form, scheme, host)
        got = ctx.send(judge, ctx.raw_request("GET", spelled, ECHO_FIELDS))
        if got.status != resp.status:
            # RFC 3986 §3.1, §3.2.2: scheme and host compare without case, so this is the
            # same URI; a server or a library in front of it that refuses it breaks RFC 9112
            # §3.2.2 ("MUST accept the absolute-form"), not MB-TEST-2, which is judged on
            # what the echo reports once it answers.
            judge.note(f"GET {spelled}: {got.status}, not {resp.status} as for {absolute}")
            continue
        if read_echo(got.body) is None:
            # A 200 that is no echo description: the request never reached the echo, as it
            # would not where the spelling is not read as absolute-form (RFC 9112 §3.2.2).
            judge.note(f"GET {spelled}: {got.status} with no echo description: not judged")
            continue
        _judge_echo(judge, f"GET {spelled}", sub, got.status, got.media_type, got.body)


def _absolute_form_spellings(ctx: Context) -> list[tuple[str, str]]:
    """The target's scheme and host spelled otherwise in an absolute-form request-target: the
    scheme in upper and in title case, and the host in upper case where it holds letters."""
    host = ctx.host
    out = [(ctx.scheme.upper(), host), (ctx.scheme.title(), host)]
    if host.upper() != host:
        out.append((ctx.scheme.upper(), host.upper()))
    return out
